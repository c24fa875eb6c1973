/*
 * pool.c - the OpenMP pool over chunks of units.
 *
 * The chunks are a loop with a dynamic schedule of one chunk: a thread that
 * is free takes the next chunk in index order, so a slow chunk never holds
 * up the others, and the order is exactly the one the scheduling model
 * (model.c) simulates.  A chunk runs start to finish on one thread, which
 * may use that thread's scratch buffer and partial sum.  A loop rather than
 * a task per chunk: nothing is allocated per chunk, and ThreadSanitizer can
 * follow it (a task's data block, recycled inside the OpenMP runtime, looks
 * like a race to it unless the runtime is built with its annotations).
 * Without OpenMP the same code runs the chunks in order on the calling
 * thread.
 */
#include <stdlib.h>
#include <string.h>

#include "run/pool.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Per-thread partial sum, padded so two threads never share a cache line. */
typedef struct {
    nq_counts counts;
    char pad_[64 - sizeof(nq_counts) % 64];
} padded_counts;

uint64_t nq_pool_chunks(const nq_pool_run *run)
{
    return (run->unit_count + run->units_per_chunk - 1) / run->units_per_chunk;
}

uint64_t nq_pool_chunk_size(uint64_t units, int threads, uint64_t per_thread)
{
    uint64_t want = (uint64_t)(threads > 0 ? threads : 1) * per_thread;
    uint64_t size = want ? units / want : units;
    return size ? size : 1;
}

static int cancelled(const nq_pool_run *run)
{
    return run->cancel && atomic_load_explicit(run->cancel, memory_order_relaxed);
}

/* Solves chunk c on the calling thread into *out.  Returns 1, or 0 when a
 * cancel cut the chunk short (then *out is meaningless).  The cancel is
 * checked between units, not only between chunks, because a journal chunk
 * may hold many units: one relaxed load per unit costs nothing measurable
 * next to a unit's search, and bounds the stop latency by one unit. */
static int solve_chunk(const nq_pool_run *run, uint64_t c, void *scratch, nq_counts *out)
{
    const nq_job *job = run->job;
    uint64_t begin = run->first_unit + c * run->units_per_chunk;
    uint64_t end = begin + run->units_per_chunk;
    if (end > run->first_unit + run->unit_count)
        end = run->first_unit + run->unit_count;
    nq_counts sum = {0, 0};
    for (uint64_t u = begin; u < end; u++) {
        if (u > begin && cancelled(run))
            return 0;
        nq_counts one;
        job->ops->solve(job, u, &one, scratch);
        nq_counts_add(&sum, &one);
    }
    *out = sum;
    return 1;
}

int nq_pool_solve(const nq_pool_run *run, nq_counts *sum)
{
    const uint64_t chunks = nq_pool_chunks(run);
    const size_t scratch_bytes = run->job->ops->scratch_size
                                     ? run->job->ops->scratch_size(run->job) : 0;
    const int threads = run->threads > 0 ? run->threads : 1;
    padded_counts *partial = calloc((size_t)threads, sizeof *partial);
    void **scratch = calloc((size_t)threads, sizeof *scratch);
    int ret = 0;
    if (!partial || !scratch) {
        ret = NQ_ENOMEM;
        goto out;
    }
    for (int t = 0; scratch_bytes && t < threads; t++)
        if (!(scratch[t] = calloc(1, scratch_bytes))) {
            ret = NQ_ENOMEM;
            goto out;
        }

#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
    {
        int me = 0;
#ifdef _OPENMP
        me = omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
#endif
        for (uint64_t c = 0; c < chunks; c++) {
            if ((run->skip && run->skip[c]) || cancelled(run))
                continue;
            nq_counts counts;
            if (solve_chunk(run, c, scratch[me], &counts)) {
                nq_counts_add(&partial[me].counts, &counts);
                if (run->chunk_done)
                    run->chunk_done(run->user, c, &counts);
            }
        }
    }

    for (int t = 0; t < threads; t++)
        nq_counts_add(sum, &partial[t].counts);
    if (cancelled(run))
        ret = NQ_ECANCELLED;
out:
    if (scratch)
        for (int t = 0; t < threads; t++)
            free(scratch[t]);
    free(scratch);
    free(partial);
    return ret;
}
