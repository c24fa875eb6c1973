/*
 * cpus.h - the CPUs a count's threads may run on, shared by `nqueens` and
 * `nqueens-mpi`.
 *
 * A process may be bound to part of its machine: Open MPI's mpiexec binds
 * each rank to one core unless told otherwise, Slurm's srun to the CPUs
 * of its task, taskset to whatever it was given.  Threads beyond the CPUs
 * it may use then take turns on them, and a count on 2 threads bound to 1
 * CPU runs at half speed without any other sign.  The tools say so, once,
 * on stderr, before the count starts; a process allowed every CPU of its
 * machine is never warned, whatever its thread count (running more
 * threads than cores is then the user's plain choice, as the tests'
 * oversubscription is).
 */
#ifndef NQ_CLI_CPUS_H
#define NQ_CLI_CPUS_H

#include <stdio.h>

/* The thread count a count with settings.threads == threads will run on:
 * threads, else OMP_NUM_THREADS (already checked), else the CPUs this
 * process may use. */
int nq_cli_default_threads(int threads);

/* The CPUs this process may run on (its affinity mask) and those online
 * on its machine.  Either is 0 when it cannot be read. */
typedef struct nq_cli_cpus {
    int usable;
    int online;
} nq_cli_cpus;

nq_cli_cpus nq_cli_cpus_now(void);

/* 1 when `threads` threads would take turns on fewer CPUs because the
 * process is bound to part of the machine (usable < online), else 0;
 * 0 when either figure is unknown. */
int nq_cli_crowded(int threads, nq_cli_cpus cpus);

/*
 * One warning line on `out`: prog, then `who` runs `threads` threads but
 * may use `cpus.usable` of the machine's `cpus.online` CPUs, then
 * `remedy` (what gives it its CPUs, or fewer threads).  `who` is a
 * subject such as "this process" or "rank 3 (and 2 more ranks alike)".
 */
void nq_cli_warn_crowded(FILE *out, const char *prog, const char *who, int threads,
                         nq_cli_cpus cpus, const char *remedy);

#endif /* NQ_CLI_CPUS_H */
