/*
 * pool.h - the chunk runner: the one place where threads solve a job's
 * chunks, for nq_count(), nq_job_solve() and every rank of nqueens-mpi.
 *
 * A run's units are cut into chunks of consecutive units.  Where the chunks
 * come from is a source: an index range known up front (nq_job_solve, and
 * nq_count, whose ledger marks the chunks a journal already holds), or a
 * stream that hands chunks out as they become free and may block (an MPI
 * rank: rank 0's ledger shared with the other ranks, or the chunks rank 0
 * assigned to a worker rank).  The runner owns what every front end needs
 * from its threads: one scratch buffer per thread, allocated once and kept
 * from unit to unit for the whole run (an engine may reuse in it what one
 * unit built for the next), per-thread partial sums padded to their own
 * cache line and reduced once at the end, and stop checks between units.
 * A hook is told of every finished chunk, which is how the journal, the
 * progress reports and the MPI results see work complete without the
 * threads doing any I/O themselves.
 *
 * How the threads share the chunks is the schedule (enum nq_schedule):
 * OpenMP tasks, one per chunk (the task pool), or a loop with a dynamic,
 * guided or static schedule.  The scheduling model (model.h) predicts each.
 */
#ifndef NQ_POOL_H
#define NQ_POOL_H

#include "core/engine.h"

/* Where a run's chunks come from and where their counts go. */
typedef struct nq_chunk_source {
    /* Indexed source: chunk indices 0 .. chunks - 1 (chunks > 0).  The
     * optional `wanted` says whether chunk c is still to solve (0: skip it,
     * e.g. a journal already holds it); called from any thread. */
    uint64_t chunks;
    int (*wanted)(void *user, uint64_t chunk);
    /* Streaming source (chunks == 0): sets *chunk and returns 1, or returns
     * 0 when there are no more.  May block until a chunk arrives.  Called
     * by one thread at a time under the task schedule, by every thread at
     * once under the others. */
    int (*take)(void *user, uint64_t *chunk);
    /* Optional: chunk `chunk` was solved completely with these counts.
     * Called by the thread that solved it; thread-safe and cheap. */
    void (*done)(void *user, uint64_t chunk, const nq_counts *counts);
    void *user;
    /* Optional, indexed sources only: the thread (0 .. threads - 1) that
     * must solve chunk c.  When set, the schedule is ignored and each
     * thread solves exactly the wanted chunks it owns, in index order (how
     * a chunk's second count is kept off the thread of its first). */
    int (*owner)(void *user, uint64_t chunk);
} nq_chunk_source;

typedef struct nq_pool_run {
    nq_job *job;
    uint64_t first_unit;      /* chunk c is units [first_unit + c * units_per_chunk, ...) */
    uint64_t unit_count;      /* ... cut at first_unit + unit_count */
    uint64_t units_per_chunk; /* >= 1 */
    nq_chunk_source source;
    int threads;              /* >= 1 */
    enum nq_schedule schedule; /* NQ_SCHEDULE_DEFAULT means nq_schedule_resolve()'s choice */
    atomic_int *cancel;       /* optional: stop after the unit in hand */
    atomic_int *stop;         /* optional: a second such flag (an MPI rank's own) */
    /* Optional: a second source whose chunks the same threads solve, with
     * the same scratch, once the first source is done (the second counts
     * of settings.verify), unless a stop flag was raised. */
    const nq_chunk_source *then;
} nq_pool_run;

/* The calling thread's number in the runner's team (0 .. threads - 1);
 * what a done hook calls to learn which thread solved the chunk. */
int nq_pool_thread(void);

/* Chunks in the range [first_unit, first_unit + unit_count). */
uint64_t nq_pool_chunks(const nq_pool_run *run);

/* Solves the source's chunks and adds the counts of every chunk solved
 * completely to *sum.  Returns 0, NQ_ENOMEM (nothing was solved), or
 * NQ_ECANCELLED when a stop flag was raised (chunks finished before it
 * were still reported to done, and *sum holds them). */
int nq_pool_solve(const nq_pool_run *run, nq_counts *sum);

/* The schedule NQ_SCHEDULE_DEFAULT stands for; any other value is
 * returned as it is. */
enum nq_schedule nq_schedule_resolve(enum nq_schedule schedule);

/* Chunks per thread that nq_count() asks of nq_pool_chunk_size(); the
 * scheduling model (model.c) chunks its simulated runs the same way. */
#define NQ_POOL_CHUNKS_PER_THREAD 64

/* Chunk size giving enough chunks for load balance and journal granularity:
 * about `per_thread` chunks per thread, never fewer units than 1. */
uint64_t nq_pool_chunk_size(uint64_t units, int threads, uint64_t per_thread);

#endif /* NQ_POOL_H */
