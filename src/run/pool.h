/*
 * pool.h - the OpenMP task pool that solves a range of a job's units.
 *
 * The range is cut into chunks of consecutive units; each chunk is one task.
 * Workers keep per-thread partial sums (no shared atomic per solution) that
 * are reduced once at the end.  A hook is told of every finished chunk, which
 * is how the journal and progress reporting see work complete without the
 * workers doing any I/O themselves.
 */
#ifndef NQ_POOL_H
#define NQ_POOL_H

#include "core/engine.h"

typedef struct nq_pool_run {
    nq_job *job;
    uint64_t first_unit;      /* the range to solve */
    uint64_t unit_count;
    uint64_t units_per_chunk; /* >= 1; chunk c starts at first_unit + c * units_per_chunk */
    const unsigned char *skip; /* optional: chunk c is not solved when skip[c] != 0 */
    /* Optional, called by the worker that finished chunk c, with the chunk's
     * counts; must be thread-safe and cheap. */
    void (*chunk_done)(void *user, uint64_t chunk, const nq_counts *counts);
    void *user;
    int threads;              /* resolved thread count, >= 1 */
    atomic_int *cancel;       /* optional */
} nq_pool_run;

/* Number of chunks the run's range is cut into. */
uint64_t nq_pool_chunks(const nq_pool_run *run);

/* Solves every chunk not skipped and adds their counts to *sum.
 * Returns 0, NQ_ENOMEM, or NQ_ECANCELLED (chunks finished before the cancel
 * were still reported to chunk_done, and *sum holds them). */
int nq_pool_solve(const nq_pool_run *run, nq_counts *sum);

/* Chunks per thread that nq_count() asks of nq_pool_chunk_size(); the
 * scheduling model (model.c) chunks its simulated runs the same way. */
#define NQ_POOL_CHUNKS_PER_THREAD 64

/* Chunk size giving enough chunks for load balance and journal granularity:
 * about `per_thread` chunks per thread, never fewer units than 1. */
uint64_t nq_pool_chunk_size(uint64_t units, int threads, uint64_t per_thread);

#endif /* NQ_POOL_H */
