/*
 * closing.c - the end of an nqueens-mpi job (see closing.h).
 */
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "core/util.h"
#include "mpi/closing.h"
#include "mpi/nap.h"
#include "mpi/trace.h"

typedef struct watchdog {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;  /* signalled when done is set */
    int done;             /* the main thread is through MPI_Finalize (under lock) */
    double deadline;      /* nq_now() when the watchdog ends the process */
    double timeout;
    int status;
} watchdog;

/* Sleeps until the main thread is done (then returns at once, so that the
 * process ends without waiting for a tick) or the deadline passes. */
static void *watch(void *arg)
{
    watchdog *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->done) {
        const double left = w->deadline - nq_now();
        if (left < 0) {
            const int complete =
                w->status == 0 || w->status == NQ_MPI_EXIT_COMPLETE_WITHOUT_A_RANK;
            const int code = complete ? NQ_MPI_EXIT_COMPLETE_WITHOUT_A_RANK : w->status;
            fprintf(stderr,
                    "nqueens-mpi: %sa rank has not reached the end of the job within %.0f s "
                    "(stopped, hung or cut off?): ending the job with exit status %d\n",
                    complete ? "the count is complete and exact, but " : "", w->timeout, code);
            fflush(stderr);
            _exit(code);
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        const double at = (double)until.tv_nsec * 1e-9 + (left < 1 ? left : 1);
        until.tv_sec += (time_t)at;
        until.tv_nsec = (long)((at - (double)(time_t)at) * 1e9);
        pthread_cond_timedwait(&w->wake, &w->lock, &until);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* The status this rank leaves with if MPI_Finalize crashes (see below). */
static volatile sig_atomic_t finalize_status;

/* Open MPI 4.1.4 can die on a segfault in MPI_Finalize, on its progress
 * thread, when a PMIx notification is handed back to libpmix after
 * PMIx_Finalize has torn it down.  By then the launcher counts the rank as
 * finalized and the job's result is out, so the rank ends as it would
 * have, with one line on stderr, instead of failing a finished job (a
 * crash before that point still fails it: the launcher sees a rank leave
 * unfinalized).  Only async-signal-safe calls. */
static void crashed_in_finalize(int sig)
{
    (void)sig;
    static const char line[] = "nqueens-mpi: Open MPI crashed in MPI_Finalize after the job "
                               "ended (a bug of Open MPI 4.1); the result stands\n";
    ssize_t written = write(STDERR_FILENO, line, sizeof line - 1);
    (void)written;
    _exit(finalize_status);
}

/* Meets the other ranks without spinning and returns rank 0's status:
 * every rank contributes, rank 0's is the largest. */
static int meet_rank0(int rank, int status)
{
    int mine = rank == 0 ? status : INT_MIN, decided = status;
    MPI_Request closing;
    MPI_Iallreduce(&mine, &decided, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &closing);
    nq_mpi_wait_napping(&closing);
    return decided;
}

int nq_mpi_close_job(int meet, double timeout, int status)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    watchdog w = {.deadline = nq_now() + timeout, .timeout = timeout, .status = status};
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.wake, NULL);
    /* Without a thread there is no watchdog, and the end is as unbounded
     * as MPI makes it: no reason to fail a finished job. */
    const int watched = rank == 0 && timeout > 0 && pthread_create(&w.thread, NULL, watch, &w) == 0;
    if (meet) {
        const int decided = meet_rank0(rank, status);
        if (status < 0)
            status = decided;
        nq_mpi_trace("closing barrier met");
    }
    /* Every rank's status is decided and nothing of ours runs beside
     * MPI_Finalize (the watchdog only waits), so a segfault in it is MPI's. */
    finalize_status = status;
    struct sigaction on_crash = {.sa_handler = crashed_in_finalize}, before;
    sigemptyset(&on_crash.sa_mask);
    const int caught = sigaction(SIGSEGV, &on_crash, &before) == 0;
#ifdef NQ_TEST_HOOKS
    /* Test builds: NQ_TEST_FAULT=finalize makes the last rank crash as
     * Open MPI does, once its MPI_Finalize is through. */
    int ranks = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const char *fault = getenv("NQ_TEST_FAULT");
    const int crash = fault && strcmp(fault, "finalize") == 0 && rank == ranks - 1;
#endif
    MPI_Finalize();
#ifdef NQ_TEST_HOOKS
    if (crash)
        raise(SIGSEGV);
#endif
    if (caught)
        sigaction(SIGSEGV, &before, NULL);
    nq_mpi_trace("MPI_Finalize done");
    if (watched) {
        pthread_mutex_lock(&w.lock);
        w.done = 1;
        pthread_cond_signal(&w.wake);
        pthread_mutex_unlock(&w.lock);
        pthread_join(w.thread, NULL);
    }
    pthread_cond_destroy(&w.wake);
    pthread_mutex_destroy(&w.lock);
    return status;
}
