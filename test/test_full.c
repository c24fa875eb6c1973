/*
 * test_full.c - the full-symmetry engine: totals and unique counts against
 * the known tables and the plain engine, across thread counts and split
 * depths, and an independent check of its symmetry weighting.
 *
 * The weighting check does not trust the library's own symmetry code: it
 * lists every solution of a small board, reduces each to a canonical form
 * under the eight symmetries with the rotation and reflection written out
 * here, and compares the number of classes and how many have 2, 4 or 8
 * members with what the engine reports (through an internal hook).
 *
 * The estimate hook's threads are counted in /proc/self/task: it must not
 * start more than the job's thread count, whatever the OpenMP default.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


#include <cmocka.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/engine.h"
#include "count_util.h"
#include "engines/full/full.h"
#include "reference/known.h"
#include "nqueens/nqueens.h"
#include "thread_count.h"

#define FAST_MAX_N 15
#define CLASS_MAX_N 10

static const int thread_counts[] = {1, 2, 3, 8};

/* N = 1..15 on 1, 2, 3 and 8 threads: totals equal the table and plain,
 * unique counts equal A002562. */
static void test_full_matches_table_and_plain(void **state)
{
    (void)state;
    for (int n = 1; n <= FAST_MAX_N; n++) {
        const nq_result plain = nq_test_count(n, NQ_ENGINE_PLAIN, 1, 0);
        for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++) {
            const nq_result r = nq_test_count(n, NQ_ENGINE_FULL, thread_counts[t], 0);
            if (r.total != known_total[n] || r.total != plain.total)
                fail_msg("full n=%d threads=%d: wrong total", n, thread_counts[t]);
            if (!r.has_unique || r.unique != known_unique[n])
                fail_msg("full n=%d threads=%d: wrong unique count", n, thread_counts[t]);
            assert_int_equal(r.engine, NQ_ENGINE_FULL);
            assert_int_equal(r.threads, thread_counts[t]);
            assert_true(r.subproblems >= 1);
        }
    }
}

/* Every explicit split depth gives the same counts and is reported back. */
static void test_full_split_depths(void **state)
{
    (void)state;
    for (int n = 8; n <= 13; n++)
        for (int depth = 1; depth <= 4; depth++) {
            const nq_result r = nq_test_count(n, NQ_ENGINE_FULL, 2, depth);
            if (r.total != known_total[n] || r.unique != known_unique[n])
                fail_msg("full n=%d split %d: wrong counts", n, depth);
            assert_int_equal(r.split_depth, depth);
        }
}

/* The unit list is deterministic, and solving it unit by unit on the
 * calling thread adds up to the table. */
static void test_full_units_sum(void **state)
{
    (void)state;
    for (int n = 1; n <= 12; n++) {
        nq_settings s;
        nq_default_settings(&s);
        s.n = n;
        s.engine = NQ_ENGINE_FULL;
        s.threads = 2;
        nq_job *a = NULL, *b = NULL;
        assert_int_equal(nq_job_create(&a, &s), 0);
        assert_int_equal(nq_job_create(&b, &s), 0);
        assert_int_equal(nq_job_engine(a), NQ_ENGINE_FULL);
        assert_true(nq_job_units(a) == nq_job_units(b));
        assert_true(nq_job_identity(a) == nq_job_identity(b));
        nq_u128 total = 0, unique = 0;
        for (uint64_t u = 0; u < nq_job_units(a); u++) {
            nq_counts one;
            assert_int_equal(nq_job_solve_unit(a, u, &one), 0);
            total += one.total;
            unique += one.unique;
        }
        if (total != known_total[n] || unique != known_unique[n])
            fail_msg("full n=%d: units do not sum to the table", n);
        nq_counts none;
        assert_int_equal(nq_job_solve_unit(a, nq_job_units(a), &none), NQ_EINVAL_ARG);
        nq_job_free(&a);
        nq_job_free(&b);
    }
}

/* A different split depth is a different unit list, so a different identity. */
static void test_full_identity_tracks_split(void **state)
{
    (void)state;
    nq_settings s;
    nq_default_settings(&s);
    s.n = 12;
    s.engine = NQ_ENGINE_FULL;
    nq_job *a = NULL, *b = NULL;
    s.split_depth = 1;
    assert_int_equal(nq_job_create(&a, &s), 0);
    s.split_depth = 2;
    assert_int_equal(nq_job_create(&b, &s), 0);
    assert_true(nq_job_identity(a) != nq_job_identity(b));
    nq_job_free(&a);
    nq_job_free(&b);
}

static void test_full_reports_unique(void **state)
{
    (void)state;
    assert_int_equal(nq_engine_has_unique(NQ_ENGINE_FULL), 1);
    assert_int_equal(nq_engine_has_unique(NQ_ENGINE_PLAIN), 0);
}

/* ---- the independent weighting check ---- */

/* Turns the board a quarter: the queen at (r, c) goes to (c, n-1-r). */
static void quarter_turn(int n, const int *cols, int *out)
{
    for (int r = 0; r < n; r++)
        out[cols[r]] = n - 1 - r;
}

/* Mirrors left to right: the queen at (r, c) goes to (r, n-1-c). */
static void mirror(int n, const int *cols, int *out)
{
    for (int r = 0; r < n; r++)
        out[r] = n - 1 - cols[r];
}

typedef struct {
    uint64_t solutions;
    uint64_t classes[9]; /* classes by number of distinct members */
} class_tally;

/* Called per listed solution: generates its 8 images (4 turns of it and of
 * its mirror image), and when the solution is the lexicographically
 * smallest image, tallies its class by the number of distinct images. */
static int tally_solution(const int *cols, int n, void *user)
{
    class_tally *tally = user;
    int images[8][NQ_MAX_N];
    memcpy(images[0], cols, (size_t)n * sizeof *cols);
    mirror(n, cols, images[4]);
    for (int k = 1; k < 4; k++) {
        quarter_turn(n, images[k - 1], images[k]);
        quarter_turn(n, images[k + 3], images[k + 4]);
    }
    int smallest = 1, distinct = 0;
    for (int i = 0; i < 8; i++) {
        /* Lexicographic order on the columns, row 0 first. */
        for (int r = 0; r < n; r++)
            if (images[i][r] != cols[r]) {
                smallest &= images[i][r] > cols[r];
                break;
            }
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = !memcmp(images[i], images[j], (size_t)n * sizeof *cols);
        distinct += !seen;
    }
    tally->solutions++;
    if (smallest)
        tally->classes[distinct]++;
    return 0;
}

static void test_full_class_sizes_independent(void **state)
{
    (void)state;
    for (int n = 1; n <= CLASS_MAX_N; n++) {
        class_tally tally;
        memset(&tally, 0, sizeof tally);
        uint64_t emitted = 0;
        assert_int_equal(nq_list_solutions(n, 0, tally_solution, &tally, &emitted), 0);
        assert_true(emitted == known_total[n]);

        uint64_t engine[NQ_SYMMETRIES + 1];
        assert_int_equal(nq_full_class_sizes(n, engine), 0);
        uint64_t classes = 0, members = 0;
        for (int size = 1; size <= 8; size++) {
            if (engine[size] != tally.classes[size])
                fail_msg("n=%d: engine has %llu classes of size %d, the listing %llu", n,
                         (unsigned long long)engine[size], size,
                         (unsigned long long)tally.classes[size]);
            classes += tally.classes[size];
            members += tally.classes[size] * (uint64_t)size;
        }
        /* Sizes 3, 5, 6, 7 cannot occur: a class size divides 8. */
        assert_true(tally.classes[3] == 0 && tally.classes[5] == 0);
        assert_true(members == known_total[n]);

        const nq_result r = nq_test_count(n, NQ_ENGINE_FULL, 1, 0);
        assert_true(r.unique == classes);
        assert_true(r.total == members);
    }
}

#ifdef _OPENMP
/* Runs the estimate hook of a full job for n = 12 planned for `threads`
 * threads, with an OpenMP default of `omp_default`, and returns the
 * process's threads after it (OpenMP keeps the threads of a region alive,
 * so they are still there to count). */
static int threads_after_estimate(int threads, int omp_default)
{
    omp_set_num_threads(omp_default);
    nq_settings s;
    nq_default_settings(&s);
    s.n = 12;
    s.threads = threads;
    s.engine = NQ_ENGINE_FULL;
    nq_job *job = NULL;
    assert_int_equal(nq_job_create(&job, &s), 0);
    double *costs = calloc(job->units, sizeof *costs);
    assert_non_null(costs);
    assert_int_equal(job->ops->estimate(job, costs), 0);
    free(costs);
    nq_job_free(&job);
    return nq_test_threads_now();
}
#endif

/* The estimate hook starts no more threads than the job was planned for,
 * however large the OpenMP default, nor more than the OpenMP default (an
 * MPI rank's share of a job planned for all ranks).  Runs first, before
 * any other test has started threads. */
static void test_full_estimate_keeps_to_its_threads(void **state)
{
    (void)state;
#ifdef _OPENMP
    /* ThreadSanitizer starts a thread of its own beside the first one a
     * program creates, which this count would take for OpenMP's; the other
     * builds check the bound. */
    if (NQ_TEST_UNDER_TSAN)
        return; /* not cmocka's skip(): meson reads its TAP line as a failure */
    if (nq_test_threads_now() != 1)
        skip();
    const int saved = omp_get_max_threads();
    assert_int_equal(threads_after_estimate(4, 1), 1);
    assert_int_equal(threads_after_estimate(1, 16), 1);
    assert_true(threads_after_estimate(2, 16) <= 2);
    omp_set_num_threads(saved);
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_estimate_keeps_to_its_threads),
        cmocka_unit_test(test_full_matches_table_and_plain),
        cmocka_unit_test(test_full_split_depths),
        cmocka_unit_test(test_full_units_sum),
        cmocka_unit_test(test_full_identity_tracks_split),
        cmocka_unit_test(test_full_reports_unique),
        cmocka_unit_test(test_full_class_sizes_independent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
