/*
 * test_model.c - the scheduling model against hand-worked schedules, the
 * cost estimates' basic promises, and the automatic split depth it drives.
 *
 * Hand-worked cases pin the policy down (tasks in order, each to the
 * earliest-free worker), including cases where the order alone changes the
 * makespan; the depth tests check the planner's contract through the same
 * internal calls the bench uses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/engine.h"
#include "engines/mirror/probe.h"
#include "engines/mirror/subproblem.h"
#include "run/model.h"
#include "run/pool.h"

static nq_model_result schedule(const double *costs, size_t count, size_t per_task, int workers)
{
    nq_model_result r;
    assert_int_equal(nq_model_schedule(costs, count, per_task, workers, &r), 0);
    return r;
}

static void test_hand_worked(void **state)
{
    (void)state;
    /* 4 -> w0, 3 -> w1, 3 -> w1 (free at 3), 2 -> w0 (free at 4): 6 and 6. */
    const double a[] = {4, 3, 3, 2};
    nq_model_result r = schedule(a, 4, 1, 2);
    assert_true(r.makespan == 6.0);
    assert_true(r.work == 12.0);
    assert_true(r.efficiency == 1.0);
    assert_true(r.max_task == 4.0);
    assert_int_equal(r.tasks, 4);

    /* Same tasks, small first: 2 -> w0, 3 -> w1, 3 -> w0 (5), 4 -> w1 (7). */
    const double b[] = {2, 3, 3, 4};
    r = schedule(b, 4, 1, 2);
    assert_true(r.makespan == 7.0);
    assert_true(r.efficiency == 12.0 / 14.0);

    /* A big task last is the classic tail: 1+1 on each, then 4: 6 ... */
    const double c[] = {1, 1, 1, 1, 4};
    assert_true(schedule(c, 5, 1, 2).makespan == 6.0);
    /* ... and first it hides behind the small ones: 4 vs 1+1+1+1. */
    const double d[] = {4, 1, 1, 1, 1};
    assert_true(schedule(d, 5, 1, 2).makespan == 4.0);

    /* Three workers: 5 | 2,2 | 3 ... the 4 goes to w2 (free at 3): 7. */
    const double e[] = {5, 2, 3, 2, 4};
    assert_true(schedule(e, 5, 1, 3).makespan == 7.0);
}

static void test_one_worker_is_the_sum(void **state)
{
    (void)state;
    double costs[1000];
    double sum = 0;
    srand(7);
    for (int i = 0; i < 1000; i++) {
        costs[i] = (double)(rand() % 1000) / 8.0; /* exact in binary */
        sum += costs[i];
    }
    nq_model_result r = schedule(costs, 1000, 1, 1);
    assert_true(r.makespan == sum);
    assert_true(r.work == sum);
    assert_true(r.efficiency == 1.0);
    /* Chunking does not change a single worker's total either. */
    assert_true(schedule(costs, 1000, 7, 1).makespan == sum);
}

static void test_more_workers_than_tasks(void **state)
{
    (void)state;
    const double a[] = {3, 9, 1};
    nq_model_result r = schedule(a, 3, 1, 1024);
    assert_true(r.makespan == 9.0);
    assert_true(r.speedup == 13.0 / 9.0);
    /* No work at all: nothing to wait for, nothing wasted. */
    r = schedule(NULL, 0, 1, 4);
    assert_true(r.makespan == 0.0);
    assert_true(r.efficiency == 1.0);
}

static void test_chunks(void **state)
{
    (void)state;
    /* Chunks of 2: (1,1) (1,1) (5): 2 | 2, then 5 on w0: 7. */
    const double a[] = {1, 1, 1, 1, 5};
    nq_model_result r = schedule(a, 5, 2, 2);
    assert_int_equal(r.tasks, 3);
    assert_true(r.makespan == 7.0);
    assert_true(r.max_task == 5.0);
    /* per_task 0 means 1. */
    assert_int_equal(schedule(a, 5, 0, 2).tasks, 5);

    /* nq_model_pool chunks as nq_count does. */
    double many[10000];
    for (int i = 0; i < 10000; i++)
        many[i] = 1.0;
    nq_model_pool(many, 10000, 4, &r);
    uint64_t per = nq_pool_chunk_size(10000, 4, NQ_POOL_CHUNKS_PER_THREAD);
    assert_int_equal(r.tasks, (10000 + per - 1) / per);
}

/* Each schedule's policy on a small case worked by hand. */
static void test_schedules(void **state)
{
    (void)state;
    /* Six chunks of one unit on two workers. */
    const double a[] = {6, 1, 1, 1, 1, 1};
    nq_model_result r;
    /* dynamic and tasks: 6 | 1 1 1 1 1 -> 6. */
    assert_int_equal(nq_model_schedule_as(a, 6, 1, 2, NQ_SCHEDULE_DYNAMIC, &r), 0);
    assert_true(r.makespan == 6.0);
    assert_int_equal(nq_model_schedule_as(a, 6, 1, 2, NQ_SCHEDULE_TASKS, &r), 0);
    assert_true(r.makespan == 6.0);
    /* The default is dynamic. */
    assert_int_equal(nq_model_schedule_as(a, 6, 1, 2, NQ_SCHEDULE_DEFAULT, &r), 0);
    assert_true(r.makespan == 6.0);
    /* static: blocks {6,1,1} | {1,1,1} -> 8. */
    assert_int_equal(nq_model_schedule_as(a, 6, 1, 2, NQ_SCHEDULE_STATIC, &r), 0);
    assert_true(r.makespan == 8.0);
    assert_true(r.work == 11.0);
    assert_int_equal(r.tasks, 6);
    assert_true(r.max_task == 6.0);
    /* guided: blocks of ceil(left / 2): {6,1,1}=8 on w0, {1,1}=2 on w1,
     * {1}=1 on w1 -> 8. */
    assert_int_equal(nq_model_schedule_as(a, 6, 1, 2, NQ_SCHEDULE_GUIDED, &r), 0);
    assert_true(r.makespan == 8.0);
    /* guided with the big chunk last: {1,1,1}=3 w0, {1,1}=2 w1, {6} w1 -> 8. */
    const double b[] = {1, 1, 1, 1, 1, 6};
    assert_int_equal(nq_model_schedule_as(b, 6, 1, 2, NQ_SCHEDULE_GUIDED, &r), 0);
    assert_true(r.makespan == 8.0);
    /* static with 7 chunks on 3 workers: 3, 2, 2 chunks; chunks of 2 units
     * (the last one short): units {1,1}{1,1}{1,1} | {1,1}{1,1} | {1,1}{1}. */
    const double c[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    assert_int_equal(nq_model_schedule_as(c, 13, 2, 3, NQ_SCHEDULE_STATIC, &r), 0);
    assert_int_equal(r.tasks, 7);
    assert_true(r.makespan == 6.0);
    assert_true(r.work == 13.0);
    /* More workers than chunks: the idle ones change nothing. */
    assert_int_equal(nq_model_schedule_as(a, 6, 1, 8, NQ_SCHEDULE_STATIC, &r), 0);
    assert_true(r.makespan == 6.0);
    assert_int_equal(nq_model_schedule_as(a, 6, 1, 2, NQ_SCHEDULE_COUNT_, &r), NQ_EINVAL_ARG);
    assert_int_equal(nq_model_pool_as(a, 6, 0, NQ_SCHEDULE_STATIC, &r), NQ_EINVAL_ARG);
    /* Every schedule does the same work. */
    for (int k = 0; k < NQ_SCHEDULE_COUNT_; k++) {
        assert_int_equal(nq_model_pool_as(c, 13, 2, (enum nq_schedule)k, &r), 0);
        assert_true(r.work == 13.0);
    }
}

static void test_bad_arguments(void **state)
{
    (void)state;
    const double a[] = {1};
    nq_model_result r;
    assert_int_equal(nq_model_schedule(a, 1, 1, 0, &r), NQ_EINVAL_ARG);
    assert_int_equal(nq_model_schedule(a, 1, 1, NQ_MODEL_MAX_WORKERS + 1, &r), NQ_EINVAL_ARG);
    assert_int_equal(nq_model_schedule(NULL, 1, 1, 2, &r), NQ_EINVAL_ARG);
    assert_int_equal(nq_model_schedule(a, 1, 1, 2, NULL), NQ_EINVAL_ARG);
    assert_int_equal(nq_model_pool(a, 1, 0, &r), NQ_EINVAL_ARG);
}

/* nqueens-mpi's schedule: journal chunks on ranks x threads workers, with
 * the spare-chunk allowance only when there is more than one rank. */
static void test_ranks(void **state)
{
    (void)state;
    /* Chunks of 2: (4,3)=7 (3,2)=5 (1,1)=2.  Two workers: 7 | 5, then 2 on
     * the second (free at 5): greedy makespan 7, work 14, efficiency 1. */
    const double a[] = {4, 3, 3, 2, 1, 1};
    nq_model_ranks_result r;
    assert_int_equal(nq_model_ranks(a, 6, 2, 1, 2, &r), 0);
    assert_true(r.greedy.makespan == 7.0);
    assert_true(r.greedy.efficiency == 1.0);
    assert_int_equal(r.greedy.tasks, 3);
    /* One rank keeps no spare chunk: nothing to add. */
    assert_true(r.makespan_high == 7.0);
    assert_true(r.efficiency_low == 1.0);
    /* Two ranks of one thread: the same greedy schedule, plus the largest
     * chunk (7) in the pessimistic one: 14 / (2 * 14). */
    assert_int_equal(nq_model_ranks(a, 6, 2, 2, 1, &r), 0);
    assert_true(r.greedy.makespan == 7.0);
    assert_true(r.makespan_high == 14.0);
    assert_true(r.efficiency_low == 0.5);

    /* One rank is the single-node schedule in journal chunks, exactly. */
    double costs[5000];
    srand(11);
    for (int i = 0; i < 5000; i++)
        costs[i] = (double)(rand() % 4096) / 16.0;
    for (int t = 1; t <= 64; t *= 4) {
        nq_model_result one = schedule(costs, 5000, 2, t);
        assert_int_equal(nq_model_ranks(costs, 5000, 2, 1, t, &r), 0);
        assert_true(r.greedy.makespan == one.makespan);
        assert_true(r.greedy.efficiency == one.efficiency);
        assert_true(r.efficiency_low == one.efficiency);
        /* R ranks of T threads schedule like R * T threads of one rank. */
        nq_model_result wide = schedule(costs, 5000, 2, 4 * t);
        assert_int_equal(nq_model_ranks(costs, 5000, 2, 4, t, &r), 0);
        assert_true(r.greedy.makespan == wide.makespan);
        assert_true(r.efficiency_low <= r.greedy.efficiency);
    }

    assert_int_equal(nq_model_ranks(a, 6, 2, 0, 2, &r), NQ_EINVAL_ARG);
    assert_int_equal(nq_model_ranks(a, 6, 2, 2, 0, &r), NQ_EINVAL_ARG);
    assert_int_equal(nq_model_ranks(a, 6, 2, 2, NQ_MODEL_MAX_WORKERS / 2 + 1, &r),
                     NQ_EINVAL_ARG);
    assert_int_equal(nq_model_ranks(a, 6, 2, 1, 2, NULL), NQ_EINVAL_ARG);
}

/* The children count predicts the next depth's size exactly (even n). */
static void test_estimate_children(void **state)
{
    (void)state;
    for (int n = 4; n <= 14; n += 2)
        for (int depth = 1; depth < 5 && depth < n; depth++) {
            nq_subproblem *a = NULL, *b = NULL;
            long ca = nq_expand_mirror(n, depth, &a);
            long cb = nq_expand_mirror(n, depth + 1, &b);
            assert_true(ca >= 0 && cb >= 0);
            assert_int_equal(nq_probe_children(n, a, ca), (uint64_t)cb);
            double *costs = malloc(((size_t)ca + 1) * sizeof *costs);
            nq_probe_costs(n, a, ca, nq_probe_row(n, depth, ca, (uint64_t)cb), costs);
            for (long i = 0; i < ca; i++)
                assert_true(costs[i] >= 0);
            free(costs);
            free(a);
            free(b);
        }
}

/* Predicted pool efficiency of mirror's split at `depth` on `threads`
 * threads, from the planner's own estimates; stores the unit count. */
static double predict_depth(int n, int depth, int threads, long *units)
{
    nq_subproblem *subs = NULL;
    long c = nq_expand_mirror(n, depth, &subs);
    assert_true(c >= 0);
    double *costs = malloc((size_t)c * sizeof *costs + 1);
    int row = nq_probe_row(n, depth, c, nq_probe_children(n, subs, c));
    nq_probe_costs(n, subs, c, row, costs);
    nq_model_result r;
    assert_int_equal(nq_model_pool(costs, (size_t)c, threads, &r), 0);
    free(costs);
    free(subs);
    *units = c;
    return r.efficiency;
}

/* Automatic depth: the smallest with predicted efficiency >= 95% and >= 16
 * units per thread; where no depth qualifies, none smaller predicts better. */
static void test_auto_depth_meets_target(void **state)
{
    (void)state;
    const int threads[] = {1, 2, 8, 64, 256};
    for (int n = 10; n <= 16; n++)
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
            nq_settings s;
            nq_default_settings(&s);
            s.n = n;
            s.engine = NQ_ENGINE_MIRROR;
            s.threads = threads[t];
            nq_job *job = NULL;
            assert_int_equal(nq_job_create(&job, &s), 0);
            const int depth = nq_job_split_depth(job);
            long units;
            const double eff = predict_depth(n, depth, threads[t], &units);
            assert_int_equal((uint64_t)units, nq_job_units(job));
            /* The estimate hook agrees with the planner's own numbers. */
            double *costs = malloc((size_t)units * sizeof *costs + 1);
            assert_int_equal(job->ops->estimate(job, costs), 0);
            nq_model_result r;
            nq_model_pool(costs, (size_t)units, threads[t], &r);
            assert_true(r.efficiency == eff);
            free(costs);
            const int ok = eff >= NQ_MODEL_TARGET_EFFICIENCY &&
                           units >= (long)NQ_MODEL_MIN_UNITS_PER_THREAD * threads[t];
            for (int d = 1; d < depth; d++) {
                long u;
                double e = predict_depth(n, d, threads[t], &u);
                if (e >= NQ_MODEL_TARGET_EFFICIENCY &&
                    u >= (long)NQ_MODEL_MIN_UNITS_PER_THREAD * threads[t])
                    fail_msg("n=%d threads=%d: depth %d qualifies, planner took %d", n,
                             threads[t], d, depth);
                if (!ok)
                    assert_true(e <= eff);
            }
            nq_job_free(&job);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_worked),
        cmocka_unit_test(test_one_worker_is_the_sum),
        cmocka_unit_test(test_more_workers_than_tasks),
        cmocka_unit_test(test_chunks),
        cmocka_unit_test(test_schedules),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_ranks),
        cmocka_unit_test(test_estimate_children),
        cmocka_unit_test(test_auto_depth_meets_target),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
