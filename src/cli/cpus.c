/*
 * cpus.c - the CPUs a count's threads may run on (see cpus.h).
 *
 * Linux's sched_getaffinity gives the CPUs the process may run on, which
 * is what launchers and batch schedulers restrict (a cgroup's cpuset shows
 * there too); sysconf gives those online.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cpus.h"

nq_cli_cpus nq_cli_cpus_now(void)
{
    nq_cli_cpus c = {0, 0};
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        c.usable = CPU_COUNT(&set);
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    c.online = online > 0 ? (int)online : 0;
    return c;
}

int nq_cli_default_threads(int threads)
{
    if (threads > 0)
        return threads;
    const char *env = getenv("OMP_NUM_THREADS");
    if (env && *env)
        return atoi(env); /* checked by the parser: 1..NQ_MAX_THREADS */
    const nq_cli_cpus c = nq_cli_cpus_now();
    if (c.usable > 0)
        return c.usable;
    return c.online > 0 ? c.online : 1;
}

int nq_cli_crowded(int threads, nq_cli_cpus cpus)
{
    return cpus.usable > 0 && cpus.online > 0 && cpus.usable < cpus.online &&
           threads > cpus.usable;
}

void nq_cli_warn_crowded(FILE *out, const char *prog, const char *who, int threads,
                         nq_cli_cpus cpus, const char *remedy)
{
    fprintf(out,
            "%s: warning: %s runs %d threads but may use only %d of the machine's %d CPUs "
            "(its CPU affinity), so its threads take turns; %s\n",
            prog, who, threads, cpus.usable, cpus.online, remedy);
    fflush(out);
}
