/*
 * test_threads.c - a count keeps to the thread count it was given, whatever
 * OMP_NUM_THREADS says.
 *
 * Run with OMP_NUM_THREADS=64 in the environment (meson sets it), so any
 * parallel region left to OpenMP's default would start 64 threads.  The
 * threads of this process are counted in /proc/self/task: while each count
 * runs (sampled from the progress and estimate callbacks) and after it
 * (OpenMP keeps the threads of a region alive, so a region that was too
 * wide leaves them to count).  Counts go from 1 thread to 2, so what a
 * 2-thread count leaves behind cannot hide a 1-thread count's excess.
 * Beside the compute threads a run has the progress monitor and, while
 * the estimate's sample runs, its watchdog: at most 2 more.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nqueens/nqueens.h"
#include "thread_count.h"

/* Threads a run may have beside its compute threads (monitor, watchdog). */
#define HELPER_THREADS 2

static void sample_progress(const nq_progress *p, void *user)
{
    (void)p;
    int *most = user;
    const int now = nq_test_threads_now();
    if (now > *most)
        *most = now;
}

static void sample_estimate(const nq_estimate *e, void *user)
{
    (void)e;
    sample_progress(NULL, user);
}

/* Counts n with `engine` on `threads` threads, as nqueens does (progress
 * and estimate callbacks set); returns the most threads seen meanwhile. */
static int most_threads_of_a_count(int n, enum nq_engine engine, int threads)
{
    int most = nq_test_threads_now();
    nq_settings s;
    nq_default_settings(&s);
    s.n = n;
    s.engine = engine;
    s.threads = threads;
    s.progress = sample_progress;
    s.progress_user = &most;
    s.progress_interval = 0.001;
    s.estimate = sample_estimate;
    s.estimate_user = &most;
    nq_result r;
    assert_int_equal(nq_count(&s, &r), 0);
    assert_int_equal(r.threads, threads);
    return most;
}

static void test_counts_keep_to_their_threads(void **state)
{
    (void)state;
    const char *env = getenv("OMP_NUM_THREADS");
    /* ThreadSanitizer adds a thread of its own to the count; the other
     * builds check the bound. */
    if (NQ_TEST_UNDER_TSAN)
        return; /* not cmocka's skip(): meson reads its TAP line as a failure */
    if (nq_test_threads_now() != 1 || !env || strcmp(env, "64") != 0)
        skip(); /* not run as meson runs it */
    static const enum nq_engine engines[] = {NQ_ENGINE_MIRROR, NQ_ENGINE_FULL, NQ_ENGINE_MITM};
    const int plain = most_threads_of_a_count(14, NQ_ENGINE_PLAIN, 1);
    if (plain > 1 + HELPER_THREADS || nq_test_threads_now() > 1)
        fail_msg("plain on 1 thread: %d threads while counting, %d after", plain, nq_test_threads_now());
    for (int t = 1; t <= 2; t++)
        for (size_t e = 0; e < sizeof engines / sizeof *engines; e++) {
            const int most = most_threads_of_a_count(16, engines[e], t);
            const int after = nq_test_threads_now();
            if (most > t + HELPER_THREADS || after > t)
                fail_msg("%s on %d thread%s: %d threads while counting, %d after",
                         nq_engine_name(engines[e]), t, t == 1 ? "" : "s", most, after);
        }
}

/* The same with the threads left to the default: OMP_NUM_THREADS, read by
 * the library, is 64. */
static void test_default_is_omp_num_threads(void **state)
{
    (void)state;
    const char *env = getenv("OMP_NUM_THREADS");
    if (!env || strcmp(env, "64") != 0)
        skip();
    nq_settings s;
    nq_default_settings(&s);
    s.n = 10;
    s.engine = NQ_ENGINE_MIRROR;
    nq_result r;
    assert_int_equal(nq_count(&s, &r), 0);
    assert_int_equal(r.threads, 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* First: it needs a process that has started no thread yet. */
        cmocka_unit_test(test_counts_keep_to_their_threads),
        cmocka_unit_test(test_default_is_omp_num_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
