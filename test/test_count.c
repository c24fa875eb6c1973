/*
 * test_count.c - every engine against the known table, across thread counts
 * and split depths, and the job interface's bookkeeping.
 *
 * The engines under test are listed in test_engines[]; each new engine adds
 * itself there, so every count-level guarantee applies to it automatically.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "count_util.h"
#include "reference/known.h"
#include "nqueens/nqueens.h"

#define FAST_MAX_N 15

static const enum nq_engine test_engines[] = {NQ_ENGINE_MIRROR, NQ_ENGINE_FULL, NQ_ENGINE_MITM};
static const int thread_counts[] = {1, 2, 3, 8};

static void test_plain_matches_table(void **state)
{
    (void)state;
    for (int n = 1; n <= FAST_MAX_N; n++) {
        nq_result r = nq_test_count(n, NQ_ENGINE_PLAIN, 1, 0);
        assert_true(r.total == known_total[n]);
        assert_int_equal(r.engine, NQ_ENGINE_PLAIN);
        assert_int_equal(r.subproblems, 1);
    }
}

/* Every engine, every thread count, N = 1..15: the exact table value. */
static void test_engines_match_table(void **state)
{
    (void)state;
    for (size_t e = 0; e < sizeof test_engines / sizeof *test_engines; e++)
        for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++)
            for (int n = 1; n <= FAST_MAX_N; n++) {
                nq_result r = nq_test_count(n, test_engines[e], thread_counts[t], 0);
                if (r.total != known_total[n])
                    fail_msg("engine %s, n=%d, threads=%d: wrong total",
                             nq_engine_name(test_engines[e]), n, thread_counts[t]);
                assert_int_equal(r.engine, test_engines[e]);
                assert_int_equal(r.threads, thread_counts[t]);
                /* N = 2, 3 may expand to no subproblem at all. */
                if (known_total[n])
                    assert_true(r.subproblems >= 1);
            }
}

static const enum nq_schedule test_schedules[] = {NQ_SCHEDULE_TASKS, NQ_SCHEDULE_DYNAMIC,
                                                  NQ_SCHEDULE_GUIDED, NQ_SCHEDULE_STATIC};

/* Every schedule, every engine, every thread count (8 oversubscribes the
 * test machine), N = 1..15: the exact table value. */
static void test_schedules_match_table(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof test_schedules / sizeof *test_schedules; k++)
        for (size_t e = 0; e < sizeof test_engines / sizeof *test_engines; e++)
            for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++)
                for (int n = 1; n <= FAST_MAX_N; n++) {
                    nq_settings s;
                    nq_result r;
                    nq_default_settings(&s);
                    s.n = n;
                    s.engine = test_engines[e];
                    s.threads = thread_counts[t];
                    s.schedule = test_schedules[k];
                    assert_int_equal(nq_count(&s, &r), 0);
                    if (r.total != known_total[n])
                        fail_msg("schedule %s, engine %s, n=%d, threads=%d: wrong total",
                                 nq_schedule_name(test_schedules[k]),
                                 nq_engine_name(test_engines[e]), n, thread_counts[t]);
                }
}

/* nq_job_solve shares a job's units by the schedule the job was made with;
 * a solver solves them one by one with one scratch buffer. */
static void test_job_schedules_and_solver(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof test_schedules / sizeof *test_schedules; k++) {
        nq_settings s;
        nq_default_settings(&s);
        s.n = 13;
        s.engine = NQ_ENGINE_MITM;
        s.schedule = test_schedules[k];
        nq_job *job = NULL;
        assert_int_equal(nq_job_create(&job, &s), 0);
        const uint64_t units = nq_job_units(job);
        nq_counts whole = {0, 0}, single = {0, 0};
        assert_int_equal(nq_job_solve(job, 0, units, 3, NULL, &whole), 0);
        assert_true(whole.total == known_total[13]);

        nq_solver *solver = NULL;
        assert_int_equal(nq_solver_create(&solver, job), 0);
        for (uint64_t u = 0; u < units; u++) {
            nq_counts one;
            assert_int_equal(nq_solver_solve(solver, u, &one), 0);
            single.total += one.total;
        }
        assert_true(single.total == known_total[13]);
        nq_counts one;
        assert_int_equal(nq_solver_solve(solver, units, &one), NQ_EINVAL_ARG);
        assert_int_equal(nq_solver_solve(NULL, 0, &one), NQ_EINVAL_ARG);
        nq_solver_free(&solver);
        assert_null(solver);
        nq_solver_free(&solver);
        nq_solver_free(NULL);
        assert_int_equal(nq_solver_create(&solver, NULL), NQ_EINVAL_ARG);
        assert_int_equal(nq_solver_create(NULL, job), NQ_EINVAL_ARG);
        nq_job_free(&job);
    }
}

/* Schedule names, and a value out of range refused by the settings check. */
static void test_schedule_setting(void **state)
{
    (void)state;
    nq_settings s;
    nq_default_settings(&s);
    assert_int_equal(s.schedule, NQ_SCHEDULE_DEFAULT);
    for (int k = 0; k < NQ_SCHEDULE_COUNT_; k++) {
        enum nq_schedule back;
        assert_non_null(nq_schedule_name((enum nq_schedule)k));
        assert_int_equal(nq_schedule_from_name(nq_schedule_name((enum nq_schedule)k), &back), 0);
        assert_int_equal(back, k);
    }
    assert_null(nq_schedule_name(NQ_SCHEDULE_COUNT_));
    enum nq_schedule out;
    assert_int_equal(nq_schedule_from_name("fastest", &out), NQ_EINVAL_ARG);
    s.schedule = NQ_SCHEDULE_COUNT_;
    char detail[128];
    assert_int_equal(nq_check_settings(&s, detail, sizeof detail), NQ_EINVAL_ARG);
    assert_non_null(strstr(detail, "schedule"));
    s.schedule = (enum nq_schedule)-1;
    assert_int_equal(nq_validate_settings(&s), NQ_EINVAL_ARG);
}

static void test_split_depths_agree(void **state)
{
    (void)state;
    for (int n = 1; n <= 14; n++) {
        for (int depth = 1; depth <= 4 && depth <= n; depth++) {
            nq_result r = nq_test_count(n, NQ_ENGINE_MIRROR, 2, depth);
            if (r.total != known_total[n])
                fail_msg("mirror n=%d split depth %d: wrong total", n, depth);
            assert_int_equal(r.split_depth, depth);
        }
    }
    /* Deeper splits give more subproblems. */
    nq_result d1 = nq_test_count(12, NQ_ENGINE_MIRROR, 1, 1);
    nq_result d2 = nq_test_count(12, NQ_ENGINE_MIRROR, 1, 2);
    assert_true(d2.subproblems > d1.subproblems);
}

/* The automatic split gives the pool many more tasks than threads. */
static void test_auto_split_feeds_threads(void **state)
{
    (void)state;
    nq_result r = nq_test_count(14, NQ_ENGINE_MIRROR, 2, 0);
    assert_true(r.subproblems >= 16);
    assert_true(r.split_depth >= 1);
}

/* Solving a job in pieces, or unit by unit, gives the same sum as all at once. */
static void test_job_pieces_sum(void **state)
{
    (void)state;
    nq_settings s;
    nq_default_settings(&s);
    s.n = 11;
    s.engine = NQ_ENGINE_MIRROR;
    s.split_depth = 2;
    nq_job *job = NULL;
    assert_int_equal(nq_job_create(&job, &s), 0);
    uint64_t units = nq_job_units(job);
    assert_true(units > 3);

    nq_counts whole = {0, 0}, pieces = {0, 0}, single = {0, 0};
    assert_int_equal(nq_job_solve(job, 0, units, 2, NULL, &whole), 0);
    uint64_t cut = units / 3;
    assert_int_equal(nq_job_solve(job, 0, cut, 1, NULL, &pieces), 0);
    assert_int_equal(nq_job_solve(job, cut, units - cut, 3, NULL, &pieces), 0);
    for (uint64_t u = 0; u < units; u++) {
        nq_counts one;
        assert_int_equal(nq_job_solve_unit(job, u, &one), 0);
        single.total += one.total;
    }
    assert_true(whole.total == known_total[11]);
    assert_true(pieces.total == whole.total);
    assert_true(single.total == whole.total);

    /* Ranges outside the job are refused and leave the sum alone. */
    nq_counts untouched = {0, 0};
    assert_int_equal(nq_job_solve(job, units, 1, 1, NULL, &untouched), NQ_EINVAL_ARG);
    assert_int_equal(nq_job_solve(job, 1, units, 1, NULL, &untouched), NQ_EINVAL_ARG);
    assert_true(untouched.total == 0);
    nq_counts one;
    assert_int_equal(nq_job_solve_unit(job, units, &one), NQ_EINVAL_ARG);

    /* The identity is a function of the unit list. */
    nq_job *same = NULL, *other = NULL;
    assert_int_equal(nq_job_create(&same, &s), 0);
    s.split_depth = 3;
    assert_int_equal(nq_job_create(&other, &s), 0);
    assert_true(nq_job_identity(job) == nq_job_identity(same));
    assert_true(nq_job_identity(job) != nq_job_identity(other));
    nq_job_free(&job);
    nq_job_free(&same);
    nq_job_free(&other);
    assert_null(job);
    nq_job_free(NULL);
}

/* A raised cancel flag stops the run with NQ_ECANCELLED, whatever the
 * schedule. */
static void test_cancel(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof test_schedules / sizeof *test_schedules; k++) {
        atomic_int cancel = 1;
        nq_settings s;
        nq_result r;
        nq_default_settings(&s);
        s.n = 12;
        s.engine = NQ_ENGINE_MIRROR;
        s.threads = 2;
        s.schedule = test_schedules[k];
        s.cancel = &cancel;
        assert_int_equal(nq_count(&s, &r), NQ_ECANCELLED);
        assert_int_equal(r.subproblems, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_matches_table),
        cmocka_unit_test(test_engines_match_table),
        cmocka_unit_test(test_schedules_match_table),
        cmocka_unit_test(test_job_schedules_and_solver),
        cmocka_unit_test(test_schedule_setting),
        cmocka_unit_test(test_split_depths_agree),
        cmocka_unit_test(test_auto_split_feeds_threads),
        cmocka_unit_test(test_job_pieces_sum),
        cmocka_unit_test(test_cancel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
