/*
 * trace.h - where an nqueens-mpi rank's time goes, phase by phase.
 *
 * With NQ_MPI_TRACE set in the environment (any value; mpiexec passes its
 * own environment to ranks on the same machine, `-x NQ_MPI_TRACE` to
 * others), every rank writes one line to stderr as it leaves each phase of
 * the job: start-up, MPI_Init, planning, the plan's broadcast, the
 * estimate, the first and last chunk, the end of its part, the closing
 * barrier and MPI_Finalize.  Each line carries the wall clock (seconds
 * since the epoch, so lines of several ranks and a launcher's own
 * timestamp line up), the process's CPU time and the main thread's, so
 * that the cost of MPI's launch, of planning on every rank and of a main
 * thread that polls can be told apart (bench/mpi_overhead.sh -p reads
 * them).  Without the variable a trace call costs one load and a branch.
 */
#ifndef NQ_MPI_TRACE_H
#define NQ_MPI_TRACE_H

#include <stdatomic.h>

/* Reads NQ_MPI_TRACE; call once, first thing in main (before MPI_Init,
 * with rank -1), and again with the rank once it is known. */
void nq_mpi_trace_init(int rank);

/* 1 when tracing is on. */
int nq_mpi_trace_on(void);

/* Writes the trace line of phase `what` (printf-like), when tracing is on.
 * Any thread may call it. */
void nq_mpi_trace(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Writes the trace line of phase `what` the first time *once is 0 (set it
 * to 1), for a phase that many threads reach, such as the first chunk. */
void nq_mpi_trace_once(atomic_int *once, const char *what);

#endif /* NQ_MPI_TRACE_H */
