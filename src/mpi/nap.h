/*
 * nap.h - how a rank's main thread waits for MPI without blocking in it.
 *
 * The main thread never blocks in MPI: a blocking call could neither see a
 * signal nor notice a stuck peer, and Open MPI's blocking calls busy-poll,
 * which would take a core the compute threads need.  It polls and naps
 * instead: briefly right after something happened, then longer and longer
 * while nothing does.  These are the naps of the waits at the start and
 * end of the job (collectives, the last sends), and the nap that the
 * loops serving the count (coordinator.c, worker.c) take by their own
 * rules, cut short by their compute threads when there is work.
 */
#ifndef NQ_MPI_NAP_H
#define NQ_MPI_NAP_H

#include <pthread.h>
#include <time.h>

#include <mpi.h>

#define NQ_MPI_NAP_MIN_NS 50000L   /* 50 us */
#define NQ_MPI_NAP_MAX_NS 2000000L /* 2 ms */

/* Naps after a poll: resets to the shortest nap when the poll found work
 * (busy != 0), else sleeps and doubles the nap up to the longest. */
static inline void nq_mpi_nap(long *ns, int busy)
{
    if (busy) {
        *ns = NQ_MPI_NAP_MIN_NS;
        return;
    }
    struct timespec ts = {0, *ns};
    nanosleep(&ts, NULL);
    *ns = *ns * 2 > NQ_MPI_NAP_MAX_NS ? NQ_MPI_NAP_MAX_NS : *ns * 2;
}

/* The nap of a loop that its compute threads can wake (coordinator.c,
 * worker.c): sleeps on `wake` for up to ns nanoseconds (ns < 1 s), unless
 * *wakes, which the threads raise under `lock` as they signal `wake`, has
 * moved on from `seen`, its value when the loop's poll began: so a wake
 * that came during the poll is never slept through. */
static inline void nq_mpi_nap_unless_woken(pthread_mutex_t *lock, pthread_cond_t *wake,
                                           const unsigned *wakes, unsigned seen, long ns)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += ns;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(lock);
    if (*wakes == seen)
        pthread_cond_timedwait(wake, lock, &until);
    pthread_mutex_unlock(lock);
}

/* Completes *req by polling with naps: used for the closing barrier, where
 * the rank that finished first would otherwise spin a core inside
 * MPI_Finalize while the others finish their last units. */
static inline void nq_mpi_wait_napping(MPI_Request *req)
{
    long ns = NQ_MPI_NAP_MIN_NS;
    int done = 0;
    for (;;) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        nq_mpi_nap(&ns, 0);
    }
}

/* MPI_Bcast and MPI_Allreduce, but waited for with naps: while rank 0
 * plans or opens its journal, the other ranks plan too, and a collective
 * that spins (as Open MPI's blocking ones do) would take a core from them. */
static inline void nq_mpi_bcast_napping(void *buf, int count, MPI_Datatype type, int root)
{
    MPI_Request req;
    MPI_Ibcast(buf, count, type, root, MPI_COMM_WORLD, &req);
    nq_mpi_wait_napping(&req);
}

static inline void nq_mpi_allreduce_napping(const void *in, void *out, int count,
                                            MPI_Datatype type, MPI_Op op)
{
    MPI_Request req;
    MPI_Iallreduce(in, out, count, type, op, MPI_COMM_WORLD, &req);
    nq_mpi_wait_napping(&req);
}

#endif /* NQ_MPI_NAP_H */
