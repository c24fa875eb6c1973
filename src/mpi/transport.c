/*
 * transport.c - the MPI transport of a job that runs on one node, and the
 * launcher channel without Nagle's delay (see transport.h).
 *
 * What it reads is Open MPI's own: the launcher's OMPI_COMM_WORLD_SIZE and
 * OMPI_COMM_WORLD_LOCAL_SIZE (the job's ranks, and those on this node),
 * and the MCA parameter files Open MPI reads at MPI_Init: the user's
 * ($HOME/.openmpi/mca-params.conf), the installation's
 * (openmpi-mca-params.conf in its etc folder, found from where libmpi was
 * loaded, and the distributions' /etc/openmpi*), and any that
 * OMPI_MCA_mca_base_param_files lists instead; and the PMIx server's
 * address that a PMIx launcher gives its ranks (PMIX_SERVER_URI*).  Other
 * MPI libraries set none of the first ones, and get the transport they
 * would have; whoever launched the job, a TCP connection to its PMIx
 * server changes only in when its bytes leave.
 */
#define _GNU_SOURCE /* dladdr */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <mpi.h>

#include "mpi/transport.h"

/* Descriptors searched for the launcher's channel: it is opened early in
 * MPI_Init, among the first few. */
#define NQ_MPI_MAX_FD 1024

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

/* 1 when a distribution's system file chooses one: Debian's
 * /etc/openmpi, Fedora's and Red Hat's /etc/openmpi-ARCH. */
static int distribution_chooses_pml(void)
{
    glob_t found;
    memset(&found, 0, sizeof found);
    int chooses = 0;
    if (glob("/etc/openmpi*/openmpi-mca-params.conf", 0, NULL, &found) == 0)
        for (size_t i = 0; i < found.gl_pathc && !chooses; i++)
            chooses = file_chooses_pml(found.gl_pathv[i]);
    globfree(&found);
    return chooses;
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
    return distribution_chooses_pml() || installation_chooses_pml();
}

int nq_mpi_choose_transport(void)
{
    const char *size = getenv("OMPI_COMM_WORLD_SIZE");
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (!size || !local || !*size || strcmp(size, local) != 0 || pml_chosen())
        return 0;
    return setenv("OMPI_MCA_pml", "ob1", 0) == 0;
}

/* The PMIx server's address comes from the first PMIX_SERVER_URI* that
 * names one ("NAMESPACE.RANK;tcp4://ADDRESS:PORT"); the socket is the
 * descriptor whose peer it is.  A server reached otherwise (tcp6, a Unix
 * socket) is left alone. */
int nq_mpi_quicken_launcher_channel(void)
{
    static const char *const uris[] = {"PMIX_SERVER_URI41", "PMIX_SERVER_URI4",
                                       "PMIX_SERVER_URI3", "PMIX_SERVER_URI21",
                                       "PMIX_SERVER_URI2"};
    const char *uri = NULL;
    for (size_t i = 0; !uri && i < sizeof uris / sizeof *uris; i++)
        uri = getenv(uris[i]);
    const char *at = uri ? strstr(uri, ";tcp4://") : NULL;
    if (!at)
        return 0;
    at += strlen(";tcp4://");
    const char *colon = strrchr(at, ':');
    char host[INET_ADDRSTRLEN];
    const size_t len = colon ? (size_t)(colon - at) : 0;
    if (!colon || len == 0 || len >= sizeof host)
        return 0;
    memcpy(host, at, len);
    host[len] = '\0';
    char *end;
    const long port = strtol(colon + 1, &end, 10);
    struct in_addr addr;
    if (*end != '\0' || port <= 0 || port > 65535 || inet_pton(AF_INET, host, &addr) != 1)
        return 0;
    int quickened = 0;
    for (int fd = 0; fd < NQ_MPI_MAX_FD; fd++) {
        struct sockaddr_in peer;
        socklen_t size = sizeof peer;
        int type = 0;
        socklen_t type_size = sizeof type;
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_size) != 0 || type != SOCK_STREAM ||
            getpeername(fd, (struct sockaddr *)&peer, &size) != 0 || size != sizeof peer ||
            peer.sin_family != AF_INET || peer.sin_port != htons((uint16_t)port) ||
            peer.sin_addr.s_addr != addr.s_addr)
            continue;
        const int on = 1;
        quickened += setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) == 0;
    }
    return quickened;
}
