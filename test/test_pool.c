/*
 * test_pool.c - the chunk runner on its own: both kinds of source (an
 * index range with chunks to skip, and a stream that blocks until chunks
 * are let out, as an MPI rank's does), every schedule, thread counts up
 * to an oversubscribed 8, and stops.  The front ends' totals are in
 * test_count.c and test_mpi.py; this checks what they cannot see: every
 * chunk reported exactly once, skipped chunks left alone, and that a
 * stream which only lets chunks out as earlier ones finish never
 * deadlocks the task walker.  Also the scratch each thread gets: zeroed,
 * and asking for huge pages exactly when it is large.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/scratch.h"
#include "reference/known.h"
#include "run/pool.h"

static const enum nq_schedule schedules[] = {NQ_SCHEDULE_TASKS, NQ_SCHEDULE_DYNAMIC,
                                             NQ_SCHEDULE_GUIDED, NQ_SCHEDULE_STATIC};
static const int thread_counts[] = {1, 2, 3, 8};

#define N 12
#define MAX_CHUNKS 4096

/* What the sources record: how often each chunk was reported and the sum
 * of the reports. */
typedef struct feed {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    uint64_t chunks;
    uint64_t next;    /* stream: the next chunk to hand out */
    uint64_t done;    /* chunks reported */
    uint64_t window;  /* stream: chunk k is let out once done + window > k */
    int reported[MAX_CHUNKS];
    nq_counts sum;
    atomic_int *raise_after; /* optional: raised once this many chunks were done */
    uint64_t raise_at;
} feed;

static void feed_init(feed *f, uint64_t chunks, uint64_t window)
{
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->changed, NULL);
    f->chunks = chunks;
    f->window = window;
}

static void feed_free(feed *f)
{
    pthread_cond_destroy(&f->changed);
    pthread_mutex_destroy(&f->lock);
}

static void feed_done(void *user, uint64_t chunk, const nq_counts *counts)
{
    feed *f = user;
    pthread_mutex_lock(&f->lock);
    f->reported[chunk]++;
    nq_counts_add(&f->sum, counts);
    f->done++;
    if (f->raise_after && f->done >= f->raise_at)
        atomic_store(f->raise_after, 1);
    pthread_cond_broadcast(&f->changed);
    pthread_mutex_unlock(&f->lock);
}

/* Every third chunk is taken as done already. */
static int feed_wanted(void *user, uint64_t chunk)
{
    (void)user;
    return chunk % 3 != 1;
}

/* Blocks until the next chunk is let out (or none is left). */
static int feed_take(void *user, uint64_t *chunk)
{
    feed *f = user;
    int got = 0;
    pthread_mutex_lock(&f->lock);
    while (f->next < f->chunks && f->next >= f->done + f->window &&
           !(f->raise_after && atomic_load(f->raise_after)))
        pthread_cond_wait(&f->changed, &f->lock);
    if (f->next < f->chunks && !(f->raise_after && atomic_load(f->raise_after))) {
        *chunk = f->next++;
        got = 1;
    }
    pthread_mutex_unlock(&f->lock);
    return got;
}

static nq_job *make_job(enum nq_engine engine)
{
    nq_settings s;
    nq_default_settings(&s);
    s.n = N;
    s.engine = engine;
    nq_job *job = NULL;
    assert_int_equal(nq_job_create(&job, &s), 0);
    return job;
}

static nq_pool_run run_of(nq_job *job, uint64_t per_chunk, int threads, enum nq_schedule k)
{
    nq_pool_run run = {
        .job = job,
        .first_unit = 0,
        .unit_count = nq_job_units(job),
        .units_per_chunk = per_chunk,
        .threads = threads,
        .schedule = k,
    };
    return run;
}

/* A stream that lets a chunk out only when at most `window` are out and
 * unfinished: the task walker must not sit blocked on it while a task it
 * made waits for a thread.  Every chunk comes back exactly once. */
static void test_stream_every_schedule(void **state)
{
    (void)state;
    nq_job *job = make_job(NQ_ENGINE_MITM);
    for (size_t k = 0; k < sizeof schedules / sizeof *schedules; k++)
        for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++)
            for (uint64_t window = 1; window <= 3; window += 2) {
                nq_pool_run run = run_of(job, 1, thread_counts[t], schedules[k]);
                const uint64_t chunks = nq_pool_chunks(&run);
                assert_true(chunks > 1 && chunks <= MAX_CHUNKS);
                feed f;
                feed_init(&f, chunks, window);
                run.source = (nq_chunk_source){.take = feed_take, .done = feed_done, .user = &f};
                nq_counts sum = {0, 0};
                assert_int_equal(nq_pool_solve(&run, &sum), 0);
                if (sum.total != known_total[N] || f.sum.total != known_total[N])
                    fail_msg("stream, schedule %s, %d threads, window %d: wrong total",
                             nq_schedule_name(schedules[k]), thread_counts[t], (int)window);
                for (uint64_t c = 0; c < chunks; c++)
                    assert_int_equal(f.reported[c], 1);
                feed_free(&f);
            }
    nq_job_free(&job);
}

/* An index range whose every third chunk is skipped: exactly the others
 * are solved, each once, and their sum is what a solver gives for them. */
static void test_range_skips(void **state)
{
    (void)state;
    nq_job *job = make_job(NQ_ENGINE_MIRROR);
    nq_solver *solver = NULL;
    assert_int_equal(nq_solver_create(&solver, job), 0);
    for (size_t k = 0; k < sizeof schedules / sizeof *schedules; k++)
        for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++) {
            nq_pool_run run = run_of(job, 2, thread_counts[t], schedules[k]);
            const uint64_t chunks = nq_pool_chunks(&run);
            assert_true(chunks > 3 && chunks <= MAX_CHUNKS);
            feed f;
            feed_init(&f, chunks, 0);
            run.source = (nq_chunk_source){
                .chunks = chunks, .wanted = feed_wanted, .done = feed_done, .user = &f};
            nq_counts sum = {0, 0}, want = {0, 0};
            assert_int_equal(nq_pool_solve(&run, &sum), 0);
            for (uint64_t u = 0; u < nq_job_units(job); u++) {
                nq_counts one;
                assert_int_equal(nq_solver_solve(solver, u, &one), 0);
                if (feed_wanted(NULL, u / 2))
                    nq_counts_add(&want, &one);
            }
            assert_true(sum.total == want.total && f.sum.total == want.total);
            for (uint64_t c = 0; c < chunks; c++)
                assert_int_equal(f.reported[c], feed_wanted(NULL, c));
            feed_free(&f);
        }
    nq_solver_free(&solver);
    nq_job_free(&job);
}

/* A stop raised mid-run: NQ_ECANCELLED, no chunk reported twice, and the
 * sum is that of the chunks reported. */
static void test_stop_mid_run(void **state)
{
    (void)state;
    nq_job *job = make_job(NQ_ENGINE_MIRROR);
    for (size_t k = 0; k < sizeof schedules / sizeof *schedules; k++)
        for (int stream = 0; stream <= 1; stream++) {
            atomic_int stop;
            atomic_init(&stop, 0);
            nq_pool_run run = run_of(job, 1, 3, schedules[k]);
            run.stop = &stop;
            const uint64_t chunks = nq_pool_chunks(&run);
            feed f;
            feed_init(&f, chunks, chunks);
            f.raise_after = &stop;
            f.raise_at = 3;
            run.source = stream ? (nq_chunk_source){.take = feed_take, .done = feed_done,
                                                    .user = &f}
                                : (nq_chunk_source){.chunks = chunks, .done = feed_done,
                                                    .user = &f};
            nq_counts sum = {0, 0};
            assert_int_equal(nq_pool_solve(&run, &sum), NQ_ECANCELLED);
            assert_true(f.done >= 3 && f.done < chunks);
            assert_true(sum.total == f.sum.total);
            for (uint64_t c = 0; c < chunks; c++)
                assert_true(f.reported[c] <= 1);
            feed_free(&f);
        }
    nq_job_free(&job);
}

/* 1 when the mapping that holds `p` carries the kernel's flag for a
 * huge-page request ("hg" among its VmFlags in /proc/self/smaps), 0 when
 * it does not, -1 when no mapping holds it.  A mapping's first line is
 * its address range; no field line parses as one. */
static int huge_pages_asked(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    const uintptr_t at = (uintptr_t)p;
    char line[512];
    int inside = 0, asked = -1;
    while (asked < 0 && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
            inside = lo <= at && at < hi;
        else if (inside && strncmp(line, "VmFlags:", 8) == 0)
            asked = strstr(line, " hg") != NULL;
    }
    fclose(f);
    return asked;
}

/* A scratch is zeroed and writable at both ends; from NQ_SCRATCH_HUGE_MIN
 * on it asks for huge pages and below it does not, where the kernel has
 * transparent huge pages at all (the 4 KiB one comes from the heap). */
static void test_scratch_pages(void **state)
{
    (void)state;
    const size_t sizes[] = {4096, (size_t)2 << 20, NQ_SCRATCH_HUGE_MIN / 4, NQ_SCRATCH_HUGE_MIN};
    FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    const int kernel_has_thp = thp != NULL;
    if (thp)
        fclose(thp);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned char *p = nq_scratch_alloc(sizes[i]);
        assert_non_null(p);
        assert_int_equal(p[0], 0);
        assert_int_equal(p[sizes[i] - 1], 0);
        p[0] = p[sizes[i] - 1] = 0xa5;
        if (kernel_has_thp && sizes[i] > 4096)
            assert_int_equal(huge_pages_asked(p), sizes[i] >= NQ_SCRATCH_HUGE_MIN);
        nq_scratch_free(p, sizes[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_every_schedule),
        cmocka_unit_test(test_range_skips),
        cmocka_unit_test(test_stop_mid_run),
        cmocka_unit_test(test_scratch_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
