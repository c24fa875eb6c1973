/*
 * machine.c - what a benchmark ran on: CPU, cores, compiler and flags,
 * OpenMP runtime and binding, commit and date.  Timings mean little without
 * these, so every CSV and JSON file starts with them.
 */
#include <stdio.h>
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

static void env_or_unset(const char *name, char *out, size_t size)
{
    const char *v = getenv(name);
    snprintf(out, size, "%s", v && *v ? v : "unset");
}

void bench_machine_describe(bench_machine *m)
{
    memset(m, 0, sizeof *m);
    cpu_model(m->cpu, sizeof m->cpu);
    m->cores = bench_cores();
    snprintf(m->compiler, sizeof m->compiler, "%s", NQ_BENCH_COMPILER);
    snprintf(m->flags, sizeof m->flags, "%s", NQ_BENCH_FLAGS);
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
