/*
 * test_estimate.c - the duration estimate: the prediction's arithmetic on
 * costs chosen by hand, the calibration on a real job, and when nq_count()
 * calls nq_settings.estimate (and with what).
 *
 * How close an estimate comes to the measured time is test_estimate.py's
 * business (it needs whole runs, alone on the machine); here every check
 * is exact or a bound that holds on any machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "api/plan.h"
#include "reference/known.h"
#include "run/estimate.h"

/* Prediction: chunk costs in index order, each to the first free of the
 * threads, times the calibration. */
static void test_prediction_arithmetic(void **state)
{
    (void)state;
    const double costs[] = {4, 1, 1, 1, 1, 2};
    double s;
    /* One thread: all the work, 10 x 0.5. */
    assert_int_equal(nq_estimate_seconds(costs, 6, 1, NULL, 1, 0.5, &s), 0);
    assert_true(s == 5.0);
    /* Two threads: 4 | 1+1+1+1+2 -> makespan 6. */
    assert_int_equal(nq_estimate_seconds(costs, 6, 1, NULL, 2, 1.0, &s), 0);
    assert_true(s == 6.0);
    /* Chunks of two units (5, 2, 3) on two threads: 5 | 2+3 -> 5. */
    assert_int_equal(nq_estimate_seconds(costs, 6, 2, NULL, 2, 1.0, &s), 0);
    assert_true(s == 5.0);
    /* Chunks a journal holds are left out: only 2 and 3 remain -> 3. */
    const unsigned char skip[] = {1, 0, 0};
    assert_int_equal(nq_estimate_seconds(costs, 6, 2, skip, 2, 1.0, &s), 0);
    assert_true(s == 3.0);
    assert_int_equal(nq_estimate_seconds(NULL, 6, 1, NULL, 1, 1.0, &s), NQ_EINVAL_ARG);
}

/* Calibration on a real job: some units timed, a positive rate, the
 * budget kept, and nothing sampled from chunks that are skipped. */
static void test_calibration(void **state)
{
    (void)state;
    nq_job *job = NULL;
    assert_int_equal(nq_plan_job(&job, 12, NQ_ENGINE_MIRROR, 2, 3), 0);
    const uint64_t units = nq_job_units(job);
    double *costs = malloc(units * sizeof *costs);
    for (uint64_t u = 0; u < units; u++)
        costs[u] = 1;
    nq_sample_config cfg = {.job = job, .costs = costs, .chunk_units = 1, .threads = 2};
    nq_calibration cal;
    assert_int_equal(nq_calibrate(&cfg, &cal), 0);
    assert_true(cal.units >= 2 && cal.units <= units / 100 + 1);
    assert_true(cal.seconds_per_cost > 0);
    assert_true(cal.complete);
    assert_true(cal.seconds < 10 * NQ_ESTIMATE_BUDGET);

    /* Every chunk skipped: nothing to sample. */
    unsigned char *skip = malloc(units);
    memset(skip, 1, units);
    cfg.skip = skip;
    assert_int_equal(nq_calibrate(&cfg, &cal), 0);
    assert_int_equal(cal.units, 0);
    /* A raised stop flag: nothing started. */
    atomic_int stop = 1;
    cfg.skip = NULL;
    cfg.stop = &stop;
    assert_int_equal(nq_calibrate(&cfg, &cal), 0);
    assert_int_equal(cal.units, 0);
    free(skip);
    free(costs);
    nq_job_free(&job);
}

/* A stand-in engine whose every unit sleeps SLOW_UNIT seconds: units that
 * outlast the sample's budget on any machine, for the watchdog. */
#define SLOW_UNIT 0.6

/* When the latest slow unit started (nq_now()). */
static _Atomic double slow_last_start;

static void slow_solve(const nq_job *job, uint64_t unit, nq_counts *out, void *scratch)
{
    (void)job, (void)unit, (void)scratch;
    const double now = nq_now();
    double seen = atomic_load(&slow_last_start);
    while (seen < now && !atomic_compare_exchange_weak(&slow_last_start, &seen, now))
        ;
    const struct timespec nap = {0, (long)(SLOW_UNIT * 1e9)};
    struct timespec left = nap;
    while (nanosleep(&left, &left) != 0)
        ;
    out->total = out->unique = 0;
}

static const struct nq_engine_ops slow_ops = {.id = NQ_ENGINE_MIRROR, .name = "slow",
                                              .solve = slow_solve};

typedef struct overdue_log {
    int calls;
    nq_calibration first;
} overdue_log;

static void on_overdue(const nq_calibration *lower, void *user)
{
    overdue_log *log = user;
    if (!log->calls++)
        log->first = *lower;
}

/* Units that outlast the budget: the watchdog hands out a lower bound
 * (from the time the running units have taken) while they run, and no
 * unit is started once the budget is spent. */
static void test_watchdog_lower_bound(void **state)
{
    (void)state;
    nq_job job = {.ops = &slow_ops, .n = 8, .threads = 2, .units = 200};
    double costs[200];
    for (int u = 0; u < 200; u++)
        costs[u] = 1;
    overdue_log log = {0};
    const nq_sample_config cfg = {.job = &job, .costs = costs, .chunk_units = 1, .threads = 2,
                                  .overdue = on_overdue, .user = &log};
    nq_calibration cal;
    atomic_store(&slow_last_start, 0.0);
    const double before = nq_now();
    assert_int_equal(nq_calibrate(&cfg, &cal), 0);
    assert_int_equal(log.calls, 1);
    assert_false(log.first.complete);
    assert_int_equal(log.first.units, 0);
    /* Handed out once the budget was up, with the time the running units
     * had taken: each at least from the latest unit's start to then
     * (before + seconds is no later than the snapshot), however late a
     * loaded machine started the threads. */
    assert_true(log.first.seconds >= 0.99 * NQ_ESTIMATE_BUDGET);
    assert_true(log.first.seconds_per_cost >=
                before + log.first.seconds - atomic_load(&slow_last_start) - 1e-9);
    assert_true(log.first.seconds_per_cost <= cal.seconds_per_cost);
    /* The first unit of each thread, and no more: the budget was spent. */
    assert_true(cal.complete);
    assert_int_equal(cal.units, 2);
    assert_true(cal.seconds_per_cost >= SLOW_UNIT);
}

typedef struct seen {
    int calls, lower_bounds, overlaps;
    atomic_int inside; /* a callback is running */
    nq_estimate last;
} seen;

/* Marks a callback running; counts it when another one already was. */
static void enter(seen *s)
{
    if (atomic_fetch_add(&s->inside, 1) != 0)
        s->overlaps++;
}

static void on_estimate(const nq_estimate *e, void *user)
{
    seen *s = user;
    enter(s);
    s->calls++;
    s->lower_bounds += e->at_least;
    s->last = *e;
    atomic_fetch_sub(&s->inside, 1);
}

static void on_progress(const nq_progress *p, void *user)
{
    (void)p;
    seen *s = user;
    enter(s);
    atomic_fetch_sub(&s->inside, 1);
}

static nq_settings estimated(int n, enum nq_engine engine, seen *log)
{
    nq_settings s;
    nq_default_settings(&s);
    s.n = n;
    s.engine = engine;
    s.threads = 2;
    s.estimate = on_estimate;
    s.estimate_user = log;
    return s;
}

/* nq_count() hands over a calibrated estimate of the run that follows,
 * before it returns, never while the progress callback runs. */
static void test_count_calls_back(void **state)
{
    (void)state;
    const enum nq_engine engines[] = {NQ_ENGINE_MIRROR, NQ_ENGINE_FULL, NQ_ENGINE_MITM};
    for (size_t i = 0; i < sizeof engines / sizeof *engines; i++) {
        seen log = {0};
        nq_settings s = estimated(12, engines[i], &log);
        s.progress = on_progress;
        s.progress_user = &log;
        s.progress_interval = 0;
        nq_result r;
        assert_int_equal(nq_count(&s, &r), 0);
        assert_int_equal(log.overlaps, 0);
        assert_true(r.total == known_total[12]);
        assert_true(log.calls >= 1);
        assert_int_equal(log.last.at_least, 0);
        assert_int_equal(log.last.engine, r.engine);
        assert_int_equal(log.last.threads, r.threads);
        assert_int_equal(log.last.units, r.subproblems);
        assert_true(log.last.sample_units >= 1 && log.last.sample_units <= r.subproblems);
        assert_true(log.last.seconds > 0 && log.last.seconds_per_cost > 0);
    }
    /* plain's single unit is too big a share to sample twice: no estimate. */
    seen log = {0};
    nq_settings s = estimated(12, NQ_ENGINE_PLAIN, &log);
    s.threads = 1;
    nq_result r;
    assert_int_equal(nq_count(&s, &r), 0);
    assert_int_equal(log.calls, 0);
    /* A raised cancel flag: no sample, no estimate. */
    atomic_int cancel = 1;
    s = estimated(12, NQ_ENGINE_MIRROR, &log);
    s.cancel = &cancel;
    assert_int_equal(nq_count(&s, &r), NQ_ECANCELLED);
    assert_int_equal(log.calls, 0);
}

/* With a journal, the estimate covers the units left, and a completed
 * journal has none. */
static void test_journal_units_left(void **state)
{
    (void)state;
    char dir[] = "/tmp/nq_test_estimate_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/run.journal", dir);
    seen log = {0};
    nq_settings s = estimated(13, NQ_ENGINE_MIRROR, &log);
    s.split_depth = 4; /* units enough that half of them are worth a sample */
    s.checkpoint_path = path;
    nq_result r;
    assert_int_equal(nq_count(&s, &r), 0);
    assert_int_equal(log.last.units, r.subproblems);
    /* Keep the header and half the chunk records. */
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    const long records = (ftell(f) - 64) / 64 - 1; /* the DONE record goes */
    fclose(f);
    assert_int_equal(truncate(path, 64 + 64 * (records / 2)), 0);
    log = (seen){0};
    assert_int_equal(nq_count(&s, &r), 0);
    assert_true(r.total == known_total[13]);
    assert_true(r.units_resumed > 0);
    assert_int_equal(log.calls >= 1, 1);
    assert_int_equal(log.last.units, r.subproblems - r.units_resumed);
    log = (seen){0};
    assert_int_equal(nq_count(&s, &r), 0);
    assert_int_equal(log.calls, 0);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prediction_arithmetic),
        cmocka_unit_test(test_calibration),
        cmocka_unit_test(test_watchdog_lower_bound),
        cmocka_unit_test(test_count_calls_back),
        cmocka_unit_test(test_journal_units_left),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
