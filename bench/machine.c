/*
 * machine.c - what a benchmark ran on: CPU, logical and physical cores, SMT,
 * NUMA nodes, clock governor, kernel, load average, compiler and flags,
 * the kernel level the counts run (nq_kernel_name), OpenMP runtime and
 * binding, commit, date and the command line.  Timings mean little
 * without these (a scaling curve flattens at the physical core count, a
 * "powersave" governor or a loaded machine moves every figure), so every
 * sweep's files carry them.  Everything is read from /proc and /sys;
 * what cannot be read is reported as unknown, never guessed.
 */
#include <stdio.h>
#include <sys/utsname.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench.h"
#include "cli/version.h"
#include "reference/known.h"

#ifndef NQ_BENCH_COMPILER
#define NQ_BENCH_COMPILER "unknown"
#endif
#ifndef NQ_BENCH_FLAGS
#define NQ_BENCH_FLAGS "unknown"
#endif

int bench_cores(void)
{
#ifdef _OPENMP
    int procs = omp_get_num_procs(); /* honours the affinity mask */
    if (procs > 0)
        return procs;
#endif
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

int bench_known_total(int n, nq_u128 *total)
{
    if (n < 1 || n > KNOWN_MAX_TOTAL_N)
        return 0;
    *total = known_total[n];
    return 1;
}

/* Copies the value of the first "model name" line of /proc/cpuinfo. */
static void cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        v[strcspn(v, "\n")] = '\0';
        snprintf(out, size, "%s", v);
        break;
    }
    fclose(f);
}

/* Reads the first line of path into out (newline removed).  Returns 1, or
 * 0 when the file cannot be read. */
static int read_line(const char *path, char *out, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    const int ok = fgets(out, (int)size, f) != NULL;
    fclose(f);
    if (ok)
        out[strcspn(out, "\n")] = '\0';
    return ok;
}

/* Counts the entries of a sysfs CPU list ("0-3,8-11"); 0 when unreadable. */
static int list_entries(const char *path)
{
    char line[1024];
    if (!read_line(path, line, sizeof line))
        return 0;
    int count = 0;
    for (char *p = line; *p;) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        count += (int)(b - a + 1);
        p = *end == ',' ? end + 1 : end;
        if (*end != ',')
            break;
    }
    return count;
}

/* Physical cores and hardware threads per core, from the sibling lists of
 * every online CPU: each core is counted at its first (lowest) sibling. */
static void topology(bench_machine *m)
{
    const long cpus = sysconf(_SC_NPROCESSORS_CONF);
    int cores = 0, smt = 0;
    for (long c = 0; c < cpus && c < 8192; c++) {
        char path[128], line[256];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/topology/thread_siblings_list",
                 c);
        if (!read_line(path, line, sizeof line))
            continue;
        if (strtol(line, NULL, 10) == c)
            cores++;
        const int siblings = list_entries(path);
        if (siblings > smt)
            smt = siblings;
    }
    m->physical_cores = cores;
    m->smt = smt;
    m->numa_nodes = list_entries("/sys/devices/system/node/online");
}

int bench_load_high(const bench_machine *m)
{
    return m->load[0] > 0.25 * m->cores;
}

static void env_or_unset(const char *name, char *out, size_t size)
{
    const char *v = getenv(name);
    snprintf(out, size, "%s", v && *v ? v : "unset");
}

/* Appends arg to out quoted for a POSIX shell where it needs it. */
static void append_quoted(char *out, size_t size, const char *arg)
{
    size_t len = strlen(out);
    const int plain = *arg && strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789-_./,=:+@%") == strlen(arg);
    if (len && len + 1 < size)
        out[len++] = ' ';
    if (!plain && len + 1 < size)
        out[len++] = '\'';
    for (; *arg && len + 5 < size; arg++) {
        if (*arg == '\'' && !plain) {
            memcpy(out + len, "'\\''", 4);
            len += 4;
        } else {
            out[len++] = (unsigned char)*arg < 0x20 ? '?' : *arg;
        }
    }
    if (!plain && len + 1 < size)
        out[len++] = '\'';
    out[len] = '\0';
}

void bench_machine_describe(bench_machine *m, int argc, char **argv)
{
    memset(m, 0, sizeof *m);
    cpu_model(m->cpu, sizeof m->cpu);
    m->cores = bench_cores();
    topology(m);
    if (!read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", m->governor,
                   sizeof m->governor))
        snprintf(m->governor, sizeof m->governor, "unknown");
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(m->kernel, sizeof m->kernel, "%s %s %s", u.sysname, u.release, u.machine);
    else
        snprintf(m->kernel, sizeof m->kernel, "unknown");
    char load[128];
    if (!read_line("/proc/loadavg", load, sizeof load) ||
        sscanf(load, "%lf %lf %lf", &m->load[0], &m->load[1], &m->load[2]) != 3)
        m->load[0] = m->load[1] = m->load[2] = -1;
    for (int i = 0; argv && i < argc; i++)
        append_quoted(m->command, sizeof m->command, argv[i]);
    snprintf(m->compiler, sizeof m->compiler, "%s", NQ_BENCH_COMPILER);
    snprintf(m->flags, sizeof m->flags, "%s", NQ_BENCH_FLAGS);
    const char *kernels = nq_kernel_name();
    snprintf(m->kernels, sizeof m->kernels, "%s", kernels ? kernels : "refused (NQ_KERNEL)");
#if defined(_OPENMP) && defined(__clang__)
    snprintf(m->openmp, sizeof m->openmp, "libomp (OpenMP %d)", _OPENMP);
#elif defined(_OPENMP)
    snprintf(m->openmp, sizeof m->openmp, "libgomp (OpenMP %d)", _OPENMP);
#else
    snprintf(m->openmp, sizeof m->openmp, "none (one thread)");
#endif
    env_or_unset("OMP_PROC_BIND", m->proc_bind, sizeof m->proc_bind);
    env_or_unset("OMP_PLACES", m->places, sizeof m->places);
    nq_cli_build_commit(m->commit, sizeof m->commit);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(m->library, sizeof m->library, "%s", nq_version());
}
