/*
 * transport.c - the MPI transport of a job that runs on one node (see
 * transport.h).
 *
 * What it reads is Open MPI's own: the launcher's OMPI_COMM_WORLD_SIZE and
 * OMPI_COMM_WORLD_LOCAL_SIZE (the job's ranks, and those on this node),
 * and the MCA parameter files Open MPI reads at MPI_Init: the user's
 * ($HOME/.openmpi/mca-params.conf), the installation's
 * (openmpi-mca-params.conf in its etc folder, found from where libmpi was
 * loaded, and Debian's /etc/openmpi), and any that
 * OMPI_MCA_mca_base_param_files lists instead.  Other MPI libraries set
 * none of these, and nothing changes for them.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpi/transport.h"

/* 1 when the parameter file at `path` chooses a messaging layer: a line
 * `pml = VALUE` whose value is not an exclusion list (`^...`).  A file
 * that cannot be read chooses nothing. */
static int file_chooses_pml(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[512];
    int chooses = 0;
    while (!chooses && fgets(line, sizeof line, f)) {
        const char *p = line + strspn(line, " \t");
        if (strncmp(p, "pml", 3) != 0)
            continue;
        p += 3;
        p += strspn(p, " \t");
        if (*p != '=')
            continue; /* another parameter: pml_ob1_..., say */
        p++;
        p += strspn(p, " \t");
        chooses = *p != '^' && *p != '\n' && *p != '\0' && *p != '#';
    }
    fclose(f);
    return chooses;
}

/* 1 when one of the colon-separated files in `list` chooses one. */
static int files_choose_pml(const char *list)
{
    char path[PATH_MAX];
    while (*list) {
        const size_t len = strcspn(list, ":");
        if (len > 0 && len < sizeof path) {
            memcpy(path, list, len);
            path[len] = '\0';
            if (file_chooses_pml(path))
                return 1;
        }
        list += len + (list[len] == ':');
    }
    return 0;
}

/* 1 when the installation's parameter file, in the etc folder beside the
 * lib folder libmpi was loaded from, chooses one. */
static int installation_chooses_pml(void)
{
    Dl_info info;
    if (!dladdr((void *)&MPI_Init, &info) || !info.dli_fname)
        return 0;
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", info.dli_fname) >= (int)sizeof path)
        return 0;
    char *slash = strrchr(path, '/'); /* .../lib/libmpi.so -> .../lib */
    if (!slash)
        return 0;
    *slash = '\0';
    if (!(slash = strrchr(path, '/'))) /* .../lib -> ... */
        return 0;
    *slash = '\0';
    const size_t used = strlen(path);
    if (snprintf(path + used, sizeof path - used, "/etc/openmpi-mca-params.conf") >=
        (int)(sizeof path - used))
        return 0;
    return file_chooses_pml(path);
}

/* 1 when the user or the site chose a messaging layer. */
static int pml_chosen(void)
{
    /* Set on the command line or in the environment, or parameter files
     * given to mpiexec (-am, --tune), whose search path is Open MPI's. */
    if (getenv("OMPI_MCA_pml") || getenv("OMPI_MCA_mca_base_param_file_prefix") ||
        getenv("OMPI_MCA_mca_base_envar_file_prefix"))
        return 1;
    const char *listed = getenv("OMPI_MCA_mca_base_param_files");
    if (listed)
        return files_choose_pml(listed);
    char path[PATH_MAX];
    const char *home = getenv("HOME");
    if (home && snprintf(path, sizeof path, "%s/.openmpi/mca-params.conf", home) <
                    (int)sizeof path && file_chooses_pml(path))
        return 1;
    const char *prefix = getenv("OPAL_PREFIX");
    if (prefix && snprintf(path, sizeof path, "%s/etc/openmpi-mca-params.conf", prefix) <
                      (int)sizeof path && file_chooses_pml(path))
        return 1;
    return file_chooses_pml("/etc/openmpi/openmpi-mca-params.conf") ||
           installation_chooses_pml();
}

int nq_mpi_choose_transport(void)
{
    const char *size = getenv("OMPI_COMM_WORLD_SIZE");
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (!size || !local || !*size || strcmp(size, local) != 0 || pml_chosen())
        return 0;
    return setenv("OMPI_MCA_pml", "ob1", 0) == 0;
}
