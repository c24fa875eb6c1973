/*
 * memory.h - the check, before a count starts, that the engine's memory
 * fits the machine, shared by `nqueens` and `nqueens-mpi` (rank 0 checks
 * its own node).
 *
 * An engine whose memory grows with the threads (mitm: each thread's
 * working memory, on top of tables of gigabytes from N = 22) would
 * otherwise start and die of an allocation, or be killed by the
 * out-of-memory killer, far into the run.  The memory available is the
 * least of /proc/meminfo's MemAvailable and what the process's cgroup
 * (v2 memory.max, v1 memory.limit_in_bytes) leaves; NQ_MEMORY_AVAILABLE
 * (bytes) replaces it, for tests or to override a limit the check misreads.
 * Engines without a memory estimate (plain, mirror, full: megabytes at
 * most) are not checked.
 */
#ifndef NQ_CLI_MEMORY_H
#define NQ_CLI_MEMORY_H

#include "nqueens/nqueens.h"

/*
 * Checks that a count of s->n with s->engine (auto resolved) on `threads`
 * threads fits in the memory available.  Returns 0, or, after one line on
 * stderr with the estimate, the memory available and a thread count that
 * fits (or that none does), the exit status 2.
 */
int nq_cli_memory_check(const char *prog, const nq_settings *s, int threads);

#endif /* NQ_CLI_MEMORY_H */
