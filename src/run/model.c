/*
 * model.c - list scheduling of task costs on P workers, for each of the
 * pool's schedules (see model.h).
 *
 * The free times of the workers live in a binary min-heap, so each task
 * costs O(log P): a profile of a million units on 4096 workers is simulated
 * in well under a second, and the split-depth choice, which simulates a few
 * thousand estimated costs, takes microseconds.
 */
#include <stdlib.h>

#include "nqueens/nqueens.h"
#include "run/model.h"
#include "run/pool.h"

/* Restores the heap property downwards from slot i of heap[0..size). */
static void sift_down(double *heap, size_t size, size_t i)
{
    const double value = heap[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= size)
            break;
        if (child + 1 < size && heap[child + 1] < heap[child])
            child++;
        if (!(heap[child] < value))
            break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = value;
}

/* Cost of chunks [first, first + n) of `per_task` units each (the last
 * chunk of the list may be shorter); the largest chunk goes into *max. */
static double chunks_cost(const double *costs, size_t count, size_t per_task, size_t first,
                          size_t n, double *max)
{
    double sum = 0;
    for (size_t c = first; c < first + n; c++) {
        const size_t begin = c * per_task;
        const size_t end = count - begin > per_task ? begin + per_task : count;
        double chunk = 0;
        for (size_t u = begin; u < end; u++)
            chunk += costs[u];
        if (chunk > *max)
            *max = chunk;
        sum += chunk;
    }
    return sum;
}

int nq_model_schedule_as(const double *costs, size_t count, size_t per_task, int workers,
                         enum nq_schedule schedule, nq_model_result *out)
{
    if (!out || (count && !costs) || workers < 1 || workers > NQ_MODEL_MAX_WORKERS ||
        (int)schedule < 0 || schedule >= NQ_SCHEDULE_COUNT_)
        return NQ_EINVAL_ARG;
    if (per_task == 0)
        per_task = 1;
    schedule = nq_schedule_resolve(schedule);
    /* All workers start free at time 0: a heap of equal keys is valid. */
    double *free_at = calloc((size_t)workers, sizeof *free_at);
    if (!free_at)
        return NQ_ENOMEM;

    nq_model_result r = {0};
    const size_t chunks = (count + per_task - 1) / per_task;
    r.tasks = chunks;
    double finish = 0;
    if (schedule == NQ_SCHEDULE_STATIC) {
        /* schedule(static): worker w gets one contiguous block, the first
         * chunks % workers blocks one chunk longer. */
        const size_t q = chunks / (size_t)workers, extra = chunks % (size_t)workers;
        for (size_t w = 0; w < (size_t)workers; w++) {
            const size_t first = w * q + (w < extra ? w : extra);
            const double block =
                chunks_cost(costs, count, per_task, first, q + (w < extra), &r.max_task);
            r.work += block;
            if (block > finish)
                finish = block;
        }
    } else {
        /* dynamic and tasks: one chunk at a time; guided: a block of
         * ceil(left / workers) chunks at a time.  Each goes, in index
         * order, to the earliest-free worker: the root of the heap, whose
         * new free time then sinks to its place.  Which of several equally
         * free workers takes it does not change any later free time. */
        for (size_t c = 0; c < chunks;) {
            size_t n = 1;
            if (schedule == NQ_SCHEDULE_GUIDED)
                n = (chunks - c + (size_t)workers - 1) / (size_t)workers;
            const double block = chunks_cost(costs, count, per_task, c, n, &r.max_task);
            c += n;
            r.work += block;
            free_at[0] += block;
            if (free_at[0] > finish)
                finish = free_at[0];
            sift_down(free_at, (size_t)workers, 0);
        }
    }
    free(free_at);

    r.makespan = finish;
    r.speedup = finish > 0 ? r.work / finish : (double)workers;
    r.efficiency = finish > 0 ? r.work / ((double)workers * finish) : 1.0;
    *out = r;
    return 0;
}

int nq_model_schedule(const double *costs, size_t count, size_t per_task, int workers,
                      nq_model_result *out)
{
    return nq_model_schedule_as(costs, count, per_task, workers, NQ_SCHEDULE_DYNAMIC, out);
}

int nq_model_pool_as(const double *costs, size_t count, int threads, enum nq_schedule schedule,
                     nq_model_result *out)
{
    if (threads < 1)
        return NQ_EINVAL_ARG;
    uint64_t per_chunk = nq_pool_chunk_size(count, threads, NQ_POOL_CHUNKS_PER_THREAD);
    return nq_model_schedule_as(costs, count, (size_t)per_chunk, threads, schedule, out);
}

int nq_model_pool(const double *costs, size_t count, int threads, nq_model_result *out)
{
    return nq_model_pool_as(costs, count, threads, NQ_SCHEDULE_DEFAULT, out);
}

int nq_model_ranks(const double *costs, size_t count, size_t chunk_units, int ranks,
                   int threads, nq_model_ranks_result *out)
{
    if (!out || ranks < 1 || threads < 1 || ranks > NQ_MODEL_MAX_WORKERS / threads)
        return NQ_EINVAL_ARG;
    const int workers = ranks * threads;
    nq_model_ranks_result r;
    int ret = nq_model_schedule(costs, count, chunk_units, workers, &r.greedy);
    if (ret < 0)
        return ret;
    /* Rank 0's threads take chunks straight from the dispenser; only the
     * other ranks' spare chunks can wait behind a busy thread. */
    r.makespan_high = r.greedy.makespan + (ranks > 1 ? r.greedy.max_task : 0);
    r.efficiency_low =
        r.makespan_high > 0 ? r.greedy.work / ((double)workers * r.makespan_high) : 1.0;
    *out = r;
    return 0;
}
