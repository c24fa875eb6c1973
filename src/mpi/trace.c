/*
 * trace.c - the phase lines of NQ_MPI_TRACE (see trace.h).
 *
 * One fprintf per line, so the lines of a rank's threads do not mix; the
 * CPU clocks are POSIX's (the process's, and the calling thread's, which
 * is the main thread's for every phase but the chunks').
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mpi/trace.h"

static int trace_rank = -1;
static int trace_on;

void nq_mpi_trace_init(int rank)
{
    trace_on = getenv("NQ_MPI_TRACE") != NULL;
    trace_rank = rank;
}

int nq_mpi_trace_on(void)
{
    return trace_on;
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void nq_mpi_trace(const char *fmt, ...)
{
    if (!trace_on)
        return;
    char what[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fprintf(stderr, "nqueens-mpi: trace: rank %d: wall %.6f cpu %.6f thread %.6f: %s\n",
            trace_rank, clock_s(CLOCK_REALTIME), clock_s(CLOCK_PROCESS_CPUTIME_ID),
            clock_s(CLOCK_THREAD_CPUTIME_ID), what);
}

void nq_mpi_trace_once(atomic_int *once, const char *what)
{
    if (trace_on && atomic_exchange(once, 1) == 0)
        nq_mpi_trace("%s", what);
}
