/*
 * pool.c - the chunk runner (see pool.h).
 *
 * Four ways to share the chunks among the threads, one code path for what
 * a thread does with a chunk (solve_chunk, finish_chunk):
 *
 *   tasks    one thread walks the source and makes an OpenMP task of each
 *            chunk; the others (and, at the end, it) run the tasks.  With a
 *            streaming source, whose take() may block, the walker keeps at
 *            most 2 * (threads - 1) tasks waiting and runs the next chunk
 *            itself (an undeferred task) when that many wait: it never
 *            hoards more chunks than the team can start soon, and a task
 *            never waits for a thread while the walker is blocked.
 *   dynamic  a loop over the chunk indices, schedule(dynamic, 1): a thread
 *            that is free takes the next chunk in index order, the order
 *            the scheduling model (model.c) simulates.
 *   guided   schedule(guided, 1): large blocks of chunks first, shrinking.
 *   static   schedule(static): each thread one contiguous block of chunks,
 *            fixed before the run starts.
 *
 * A streaming source has no index space to cut up front, so the three loop
 * schedules all share it the only way they can: every thread takes its
 * next chunk from the source when it is free (the dynamic policy).
 *
 * A source with an owner hook fixes which thread solves each chunk
 * (share_by_owner); the schedule then plays no part.
 *
 * Test builds (NQ_TEST_HOOKS, the test_hooks Meson option) have a fault
 * to inject: with NQ_TEST_FAULT=chunk:K in the environment, the first
 * count of chunk K that the process makes is one too high, as a flipped
 * bit would make it.  The tests of settings.verify show it caught.
 *
 * Whatever the schedule, a chunk runs start to finish on one thread (tasks
 * are tied and contain no scheduling point), so it may use that thread's
 * scratch buffer and partial sum without a lock.  Without OpenMP the same
 * code runs the chunks in order on the calling thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scratch.h"
#include "run/pool.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* ThreadSanitizer builds (gcc defines the first, clang answers the
 * second): see share_as_tasks. */
#if defined(__SANITIZE_THREAD__)
#define NQ_POOL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NQ_POOL_TSAN 1
#endif
#endif
#ifdef NQ_POOL_TSAN
#include <sanitizer/tsan_interface.h>
#define NQ_POOL_BLOCK_FREED(sync) __tsan_release(sync)
#define NQ_POOL_BLOCK_REUSED(sync) __tsan_acquire(sync)
#else
#define NQ_POOL_BLOCK_FREED(sync) ((void)(sync))
#define NQ_POOL_BLOCK_REUSED(sync) ((void)(sync))
#endif

/* Per-thread partial sum, padded so two threads never share a cache line. */
typedef struct {
    nq_counts counts;
    char pad_[64 - sizeof(nq_counts) % 64];
} padded_counts;

/* What every thread of one nq_pool_solve() shares. */
typedef struct workspace {
    const nq_pool_run *run;
    padded_counts *partial; /* [threads] */
    void **scratch;         /* [threads], entries NULL when the engine needs none */
} workspace;

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

enum nq_schedule nq_schedule_resolve(enum nq_schedule schedule)
{
    return schedule == NQ_SCHEDULE_DEFAULT ? NQ_SCHEDULE_DYNAMIC : schedule;
}

static int halted(const nq_pool_run *run)
{
    return (run->cancel && atomic_load_explicit(run->cancel, memory_order_relaxed)) ||
           (run->stop && atomic_load_explicit(run->stop, memory_order_relaxed));
}

int nq_pool_thread(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* Solves chunk c on the calling thread into *out.  Returns 1, or 0 when a
 * stop cut the chunk short (then *out is meaningless).  The stop is
 * checked between units, not only between chunks, because a journal chunk
 * may hold many units: one relaxed load per unit costs nothing measurable
 * next to a unit's search, and bounds the stop latency by one unit. */
static int solve_chunk(const nq_pool_run *run, uint64_t c, void *scratch, nq_counts *out)
{
    const nq_job *job = run->job;
    const uint64_t begin = run->first_unit + c * run->units_per_chunk;
    const uint64_t range_end = run->first_unit + run->unit_count;
    const uint64_t end = range_end - begin > run->units_per_chunk
                             ? begin + run->units_per_chunk : range_end;
    nq_counts sum = {0, 0};
    for (uint64_t u = begin; u < end; u++) {
        if (u > begin && halted(run))
            return 0;
        nq_counts one;
        job->ops->solve(job, u, &one, scratch);
        nq_counts_add(&sum, &one);
    }
    *out = sum;
    return 1;
}

#ifdef NQ_TEST_HOOKS

/* The test-only fault (see the top of this file): adds 1 to *counts when c
 * is the chunk NQ_TEST_FAULT names and no count of it was faulted yet. */
static void inject_fault(uint64_t c, nq_counts *counts)
{
    static atomic_int fired;
    const char *spec = getenv("NQ_TEST_FAULT");
    unsigned long long k;
    char tail;
    if (!spec || sscanf(spec, "chunk:%llu%c", &k, &tail) != 1 || k != c)
        return;
    if (atomic_exchange(&fired, 1) == 0)
        counts->total += 1;
}
#else
static void inject_fault(uint64_t c, nq_counts *counts)
{
    (void)c;
    (void)counts;
}
#endif

/* What the thread that holds chunk c does with it: solve it with its own
 * scratch, add it to its own partial sum, and report it. */
static void finish_chunk(workspace *ws, uint64_t c)
{
    const nq_pool_run *run = ws->run;
    if (halted(run))
        return;
    const int me = nq_pool_thread();
    nq_counts counts;
    if (solve_chunk(run, c, ws->scratch[me], &counts)) {
        inject_fault(c, &counts);
        nq_counts_add(&ws->partial[me].counts, &counts);
        if (run->source.done)
            run->source.done(run->source.user, c, &counts);
    }
}

/* Index c of an indexed source, if it is still to solve. */
static int wanted(const nq_pool_run *run, uint64_t c)
{
    return !run->source.wanted || run->source.wanted(run->source.user, c);
}

/* The next chunk to solve, from either kind of source (*next is the
 * cursor of an indexed one).  Returns 0 when there is none or the run is
 * stopping. */
static int next_chunk(const nq_pool_run *run, uint64_t *next, uint64_t *chunk)
{
    if (run->source.chunks == 0)
        return !halted(run) && run->source.take(run->source.user, chunk);
    while (*next < run->source.chunks && !halted(run)) {
        const uint64_t c = (*next)++;
        if (wanted(run, c)) {
            *chunk = c;
            return 1;
        }
    }
    return 0;
}

/* The task schedule (see the top of this file).  An indexed source never
 * blocks, so nearly every chunk becomes a deferred task; only when a
 * large backlog waits does the walker run the next one itself.
 *
 * The OpenMP runtime recycles a finished task's data block (its copies
 * of c and defer) for a later task, and orders the old task's reads
 * before the walker's writes into it inside itself, where
 * ThreadSanitizer (with Archer) cannot see it.  The count of waiting
 * tasks does not order them: the walker reads it before the runtime
 * hands it the block, so it may read a count from before the old task
 * ended, and TSan would report the write as a race with those reads.
 * In TSan builds each task therefore marks its end and the walker each
 * new task's start on one sync object, standing for the runtime's
 * hand-off; other builds compile nothing for it. */
static void share_as_tasks(workspace *ws, int threads)
{
    const nq_pool_run *run = ws->run;
    const int max_waiting = run->source.chunks ? threads * NQ_POOL_CHUNKS_PER_THREAD
                                               : 2 * (threads - 1);
    atomic_int waiting;
    atomic_init(&waiting, 0);
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) shared(waiting)
#pragma omp single
#endif
    {
        uint64_t next = 0, c;
        while (next_chunk(run, &next, &c)) {
            const int defer = atomic_load_explicit(&waiting, memory_order_acquire) < max_waiting;
            if (defer)
                atomic_fetch_add_explicit(&waiting, 1, memory_order_relaxed);
            NQ_POOL_BLOCK_REUSED(&waiting);
#ifdef _OPENMP
#pragma omp task firstprivate(c, defer) if (defer)
#endif
            {
                finish_chunk(ws, c);
                if (defer)
                    atomic_fetch_sub_explicit(&waiting, 1, memory_order_release);
                NQ_POOL_BLOCK_FREED(&waiting);
            }
        }
    }
}

/* A loop schedule over an indexed source.  The three loops differ only in
 * their schedule clause, which OpenMP wants spelled out. */
#define NQ_POOL_LOOP                                                                          \
    for (uint64_t c = 0; c < chunks; c++)                                                    \
        if (!halted(run) && wanted(run, c))                                                  \
            finish_chunk(ws, c);

static void share_as_loop(workspace *ws, int threads, enum nq_schedule schedule)
{
    const nq_pool_run *run = ws->run;
    const uint64_t chunks = run->source.chunks;
    (void)threads;
    (void)schedule;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
    {
        if (chunks == 0) {
            /* A streaming source: every thread takes for itself. */
            uint64_t c, none = 0;
            while (next_chunk(run, &none, &c))
                finish_chunk(ws, c);
        } else if (schedule == NQ_SCHEDULE_GUIDED) {
#ifdef _OPENMP
#pragma omp for schedule(guided, 1)
#endif
            NQ_POOL_LOOP
        } else if (schedule == NQ_SCHEDULE_STATIC) {
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            NQ_POOL_LOOP
        } else {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
            NQ_POOL_LOOP
        }
    }
}

/* Every thread solves the wanted chunks the owner hook gives it. */
static void share_by_owner(workspace *ws, int threads)
{
    const nq_pool_run *run = ws->run;
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
    {
        const int me = nq_pool_thread();
        for (uint64_t c = 0; c < run->source.chunks && !halted(run); c++)
            if (wanted(run, c) && run->source.owner(run->source.user, c) == me)
                finish_chunk(ws, c);
    }
}

/* Solves ws->run's source with the schedule it asks for. */
static void share(workspace *ws, int threads)
{
    const nq_pool_run *run = ws->run;
    const enum nq_schedule schedule = nq_schedule_resolve(run->schedule);
    if (run->source.owner && run->source.chunks)
        share_by_owner(ws, threads);
    else if (schedule == NQ_SCHEDULE_TASKS)
        share_as_tasks(ws, threads);
    else
        share_as_loop(ws, threads, schedule);
}

int nq_pool_solve(const nq_pool_run *run, nq_counts *sum)
{
    const size_t scratch_bytes = nq_job_scratch_bytes(run->job);
    const int threads = run->threads > 0 ? run->threads : 1;
    workspace ws = {
        .run = run,
        .partial = calloc((size_t)threads, sizeof *ws.partial),
        .scratch = calloc((size_t)threads, sizeof *ws.scratch),
    };
    int ret = 0;
    if (!ws.partial || !ws.scratch) {
        ret = NQ_ENOMEM;
        goto out;
    }
    /* Zeroed, as the engine contract promises, once for the whole run. */
    for (int t = 0; scratch_bytes && t < threads; t++)
        if (!(ws.scratch[t] = nq_scratch_alloc(scratch_bytes))) {
            ret = NQ_ENOMEM;
            goto out;
        }

    share(&ws, threads);
    if (run->then && !halted(run)) {
        nq_pool_run second = *run;
        second.source = *run->then;
        second.then = NULL;
        ws.run = &second;
        share(&ws, threads);
        ws.run = run;
    }

    for (int t = 0; t < threads; t++)
        nq_counts_add(sum, &ws.partial[t].counts);
    if (halted(run))
        ret = NQ_ECANCELLED;
out:
    if (ws.scratch)
        for (int t = 0; t < threads; t++)
            nq_scratch_free(ws.scratch[t], scratch_bytes);
    free(ws.scratch);
    free(ws.partial);
    return ret;
}
