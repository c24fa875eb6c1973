/*
 * team.h - the compute threads of one rank.
 *
 * A team is `threads` OpenMP threads of the chunk runner (run/pool.h),
 * started from their own pthread so the main thread stays free to talk MPI
 * (MPI_THREAD_FUNNELED: only the main thread calls MPI).  The rank's
 * take/done calls are the runner's streaming source: chunks are taken as
 * threads (or, under the task schedule, the task walker) need them, solved
 * with per-thread scratch kept for the whole run, and reported one by one.
 * One parallel region for the whole run: a fork/join per chunk or per
 * batch would idle all but one thread at every chunk's end.
 */
#ifndef NQ_MPI_TEAM_H
#define NQ_MPI_TEAM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "nqueens/nqueens.h"

/* Where chunks come from and where their counts go.  Both calls are made
 * from many threads at once. */
typedef struct nq_mpi_source {
    /* Sets *chunk and returns 1, or returns 0 when the team should stop.
     * May block until a chunk arrives. */
    int (*take)(void *user, uint64_t *chunk);
    /* Chunk `chunk` was solved completely with these counts. */
    void (*done)(void *user, uint64_t chunk, const nq_counts *counts);
    void *user;
} nq_mpi_source;

typedef struct nq_mpi_team {
    /* Set by the caller before nq_mpi_team_start(). */
    nq_job *job;
    uint64_t chunk_units;  /* chunk c is units [c * chunk_units, ...) */
    int threads;           /* >= 1 */
    atomic_int *cancel;    /* optional: the signal flag */
    atomic_int *stop;      /* optional: set by the rank's main thread */
    nq_mpi_source source;
    /* Optional: runs on the team's own thread before the threads take
     * their first chunk (rank 0 times its duration estimate there, on its
     * threads, while its main thread already serves the other ranks). */
    void (*prepare)(void *user);
    void *prepare_user;
    /* Optional: runs on the team's thread once every thread stopped
     * (nq_mpi_team_finished() is then 1), to wake whoever waits for that. */
    void (*on_finish)(void *user);
    void *on_finish_user;

    /* Private. */
    pthread_t thread;
    atomic_int finished;
    atomic_int error;      /* the runner's error (no memory for its scratch), else 0 */
    atomic_int first_taken; /* the first chunk was taken (for the trace) */
} nq_mpi_team;

/* Starts the team.  Returns 0 or NQ_ENOMEM when no thread could be made. */
int nq_mpi_team_start(nq_mpi_team *team);

/* 1 once every thread of the team has stopped taking chunks. */
int nq_mpi_team_finished(const nq_mpi_team *team);

/* Waits for the team.  Returns 0, NQ_ECANCELLED when cancel or stop was
 * raised, or the runner's error. */
int nq_mpi_team_join(nq_mpi_team *team);

#endif /* NQ_MPI_TEAM_H */
