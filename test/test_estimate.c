/*
 * test_estimate.c - the duration estimate: the prediction's arithmetic on
 * costs chosen by hand, the calibration on a real job, and when nq_count()
 * calls nq_settings.estimate (and with what).
 *
 * How close an estimate comes to the measured time is test_estimate.py's
 * business (it needs whole runs, alone on the machine); here every check
 * is exact or a bound that holds on any machine.
 */
#include <pthread.h>
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

/* What a sample handed on: every chunk once, and its counts. */
typedef struct handed {
    atomic_int calls, twice;
    unsigned char *seen; /* per chunk */
    nq_u128 total;
    pthread_mutex_t lock;
} handed;

static void take_chunk(void *user, uint64_t chunk, const nq_counts *counts)
{
    handed *h = user;
    atomic_fetch_add(&h->calls, 1);
    pthread_mutex_lock(&h->lock);
    if (h->seen[chunk]++)
        atomic_fetch_add(&h->twice, 1);
    h->total += counts->total;
    pthread_mutex_unlock(&h->lock);
}

/* A claim hook for which the even chunks are someone else's. */
static int claim_odd(void *user, uint64_t chunk)
{
    (void)user;
    return chunk % 2 == 1;
}

/* Calibration on a real job: whole chunks solved and handed on once each,
 * one from each stretch of the list, a positive rate, nothing sampled
 * from chunks that are skipped. */
static void test_calibration(void **state)
{
    (void)state;
    nq_job *job = NULL;
    assert_int_equal(nq_plan_job(&job, 12, NQ_ENGINE_MIRROR, 2, 3, 0), 0);
    const uint64_t units = nq_job_units(job);
    double *costs = malloc(units * sizeof *costs);
    for (uint64_t u = 0; u < units; u++)
        costs[u] = 1;
    handed h = {.seen = calloc(units, 1)};
    pthread_mutex_init(&h.lock, NULL);
    nq_sample_config cfg = {.job = job, .costs = costs, .chunk_units = 1, .threads = 2,
                            .done = take_chunk, .user = &h};
    nq_calibration cal;
    assert_int_equal(nq_calibrate(&cfg, &cal), 0);
    /* One chunk per thread at least, never more than the sample size. */
    const uint64_t most = (uint64_t)(units * NQ_ESTIMATE_SHARE) + 1 > NQ_ESTIMATE_MIN_CHUNKS
                              ? (uint64_t)(units * NQ_ESTIMATE_SHARE) + 1
                              : NQ_ESTIMATE_MIN_CHUNKS;
    assert_true(cal.chunks >= 2 && cal.chunks <= most);
    assert_int_equal(cal.units, cal.chunks); /* chunks of one unit */
    assert_int_equal(atomic_load(&h.calls), (int)cal.chunks);
    assert_int_equal(atomic_load(&h.twice), 0);
    assert_true(cal.seconds_per_cost > 0);
    assert_true(cal.complete);
    /* The sampled chunks' counts are those of their units. */
    nq_u128 expect = 0;
    for (uint64_t u = 0; u < units; u++)
        if (h.seen[u]) {
            nq_counts one;
            assert_int_equal(nq_job_solve_unit(job, u, &one), 0);
            expect += one.total;
        }
    assert_true(h.total == expect);
    /* Stratified: the list cut into as many stretches as the sample's
     * size, at most one sampled chunk in each (the sample, once the
     * order is shuffled, may be cut short, never doubled up). */
    const uint64_t k = (uint64_t)(units * NQ_ESTIMATE_SHARE) + 1 > NQ_ESTIMATE_MIN_CHUNKS
                           ? (uint64_t)(units * NQ_ESTIMATE_SHARE) + 1
                           : NQ_ESTIMATE_MIN_CHUNKS;
    for (uint64_t i = 0; i < k; i++) {
        int in = 0;
        for (uint64_t u = i * units / k; u < (i + 1) * units / k; u++)
            in += h.seen[u];
        assert_true(in <= 1);
    }

    /* Every other chunk skipped: only the others sampled. */
    unsigned char *skip = malloc(units);
    for (uint64_t u = 0; u < units; u++)
        skip[u] = u % 2 == 0;
    memset(h.seen, 0, units);
    cfg.skip = skip;
    assert_int_equal(nq_calibrate(&cfg, &cal), 0);
    assert_true(cal.chunks >= 2);
    for (uint64_t u = 0; u < units; u += 2)
        assert_int_equal(h.seen[u], 0);
    /* Chunks another solver holds (claim says no) are passed over. */
    cfg.skip = NULL;
    cfg.claim = claim_odd;
    memset(h.seen, 0, units);
    assert_int_equal(nq_calibrate(&cfg, &cal), 0);
    for (uint64_t u = 0; u < units; u += 2)
        assert_int_equal(h.seen[u], 0);
    cfg.claim = NULL;
    cfg.skip = skip;
    /* Every chunk skipped: nothing to sample. */
    memset(skip, 1, units);
    assert_int_equal(nq_calibrate(&cfg, &cal), 0);
    assert_int_equal(cal.chunks, 0);
    /* A raised stop flag: nothing started. */
    atomic_int stop = 1;
    cfg.skip = NULL;
    cfg.stop = &stop;
    assert_int_equal(nq_calibrate(&cfg, &cal), 0);
    assert_int_equal(cal.chunks, 0);
    /* No done hook: the sample would be lost. */
    cfg.stop = NULL;
    cfg.done = NULL;
    assert_int_equal(nq_calibrate(&cfg, &cal), NQ_EINVAL_ARG);
    pthread_mutex_destroy(&h.lock);
    free(h.seen);
    free(skip);
    free(costs);
    nq_job_free(&job);
}

/* Too few chunks for a sample of one per thread within
 * NQ_ESTIMATE_MAX_SHARE: no sample. */
static void test_too_few_chunks(void **state)
{
    (void)state;
    nq_job *job = NULL;
    assert_int_equal(nq_plan_job(&job, 10, NQ_ENGINE_MIRROR, 2, 1, 0), 0);
    const uint64_t units = nq_job_units(job);
    assert_true(2 > units * NQ_ESTIMATE_MAX_SHARE);
    double *costs = malloc(units * sizeof *costs);
    for (uint64_t u = 0; u < units; u++)
        costs[u] = 1;
    handed h = {.seen = calloc(units, 1)};
    pthread_mutex_init(&h.lock, NULL);
    const nq_sample_config cfg = {.job = job, .costs = costs, .chunk_units = 1, .threads = 2,
                                  .done = take_chunk, .user = &h};
    nq_calibration cal;
    assert_int_equal(nq_calibrate(&cfg, &cal), 0);
    assert_int_equal(cal.chunks, 0);
    assert_int_equal(atomic_load(&h.calls), 0);
    pthread_mutex_destroy(&h.lock);
    free(h.seen);
    free(costs);
    nq_job_free(&job);
}

/* A stand-in engine whose every unit sleeps SLOW_UNIT seconds: units that
 * outlast the watchdog's budget on any machine. */
#define SLOW_UNIT 1.1

/* When the latest slow unit started (nq_now()). */
static _Atomic double slow_last_start;

static void slow_solve(const nq_job *job, uint64_t unit, nq_counts *out, void *scratch)
{
    (void)job, (void)unit, (void)scratch;
    const double now = nq_now();
    double seen = atomic_load(&slow_last_start);
    while (seen < now && !atomic_compare_exchange_weak(&slow_last_start, &seen, now))
        ;
    const struct timespec nap = {(time_t)SLOW_UNIT,
                                 (long)((SLOW_UNIT - (double)(time_t)SLOW_UNIT) * 1e9)};
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
    handed *handed;
} overdue_log;

static void take_slow(void *user, uint64_t chunk, const nq_counts *counts)
{
    overdue_log *log = user;
    take_chunk(log->handed, chunk, counts);
}

static void on_overdue(const nq_calibration *lower, void *user)
{
    overdue_log *log = user;
    if (!log->calls++)
        log->first = *lower;
}

/* Units that outlast the budget: the watchdog hands out a lower bound
 * (from the time the running units have taken) while they run, and no
 * chunk is started once the sample's time would be spent. */
static void test_watchdog_lower_bound(void **state)
{
    (void)state;
    nq_job job = {.ops = &slow_ops, .n = 8, .threads = 2, .units = 200};
    double costs[200];
    for (int u = 0; u < 200; u++)
        costs[u] = 1;
    overdue_log log = {0};
    handed h = {.seen = calloc(200, 1)};
    pthread_mutex_init(&h.lock, NULL);
    log.handed = &h;
    const nq_sample_config cfg = {.job = &job, .costs = costs, .chunk_units = 1, .threads = 2,
                                  .done = take_slow, .overdue = on_overdue, .user = &log};
    nq_calibration cal;
    atomic_store(&slow_last_start, 0.0);
    const double before = nq_now();
    assert_int_equal(nq_calibrate(&cfg, &cal), 0);
    assert_true(log.calls >= 1);
    assert_false(log.first.complete);
    assert_false(log.first.extrapolated); /* the engine has no progress hook */
    assert_int_equal(log.first.units, 0);
    /* Handed out once the budget was up, with the time the running units
     * had taken: each at least from the latest unit's start to then
     * (before + seconds is no later than the snapshot), however late a
     * loaded machine started the threads. */
    assert_true(log.first.seconds >= 0.99 * NQ_ESTIMATE_BUDGET);
    assert_true(log.first.seconds_per_cost >=
                before + log.first.seconds - atomic_load(&slow_last_start) - 1e-9);
    assert_true(log.first.seconds_per_cost <= cal.seconds_per_cost);
    /* The sample's size (200 chunks: NQ_ESTIMATE_MIN_CHUNKS), no more,
     * each chunk handed on once. */
    assert_true(cal.complete);
    assert_int_equal(cal.units, NQ_ESTIMATE_MIN_CHUNKS);
    assert_int_equal(atomic_load(&h.calls), NQ_ESTIMATE_MIN_CHUNKS);
    assert_int_equal(atomic_load(&h.twice), 0);
    assert_true(cal.seconds_per_cost >= SLOW_UNIT);
    pthread_mutex_destroy(&h.lock);
    free(h.seen);
}

/* A stand-in engine whose units sleep STEPPED_STEPS steps of STEPPED_STEP
 * seconds and say how many are done through the progress hook (a counter
 * in the thread's scratch, back to 0 when the unit ends). */
#define STEPPED_STEPS 16
#define STEPPED_STEP 0.1

static void stepped_solve(const nq_job *job, uint64_t unit, nq_counts *out, void *scratch)
{
    (void)job, (void)unit;
    _Atomic int *steps = scratch;
    for (int i = 0; i < STEPPED_STEPS; i++) {
        struct timespec left = {0, (long)(STEPPED_STEP * 1e9)};
        while (nanosleep(&left, &left) != 0)
            ;
        atomic_store(steps, i + 1);
    }
    atomic_store(steps, 0);
    out->total = out->unique = 0;
}

static size_t stepped_scratch(const nq_job *job)
{
    (void)job;
    return sizeof(_Atomic int);
}

static double stepped_progress(const nq_job *job, const void *scratch)
{
    (void)job;
    return (double)atomic_load((_Atomic int *)scratch) / STEPPED_STEPS;
}

static const struct nq_engine_ops stepped_ops = {.id = NQ_ENGINE_MIRROR, .name = "stepped",
                                                 .solve = stepped_solve,
                                                 .scratch_size = stepped_scratch,
                                                 .progress = stepped_progress};

typedef struct progress_log {
    int calls, extrapolated, complete;
    double least; /* the smallest extrapolated seconds_per_cost */
    handed *handed;
} progress_log;

static void take_stepped(void *user, uint64_t chunk, const nq_counts *counts)
{
    progress_log *log = user;
    take_chunk(log->handed, chunk, counts);
}

static void on_stepped_overdue(const nq_calibration *c, void *user)
{
    progress_log *log = user;
    log->calls++;
    log->complete += c->complete; /* checked on the test's thread */
    if (c->extrapolated) {
        if (!log->extrapolated++ || c->seconds_per_cost < log->least)
            log->least = c->seconds_per_cost;
    }
}

/* Units whose engine says how far they are: while the sample runs, the
 * watchdog hands out figures extrapolated from that, never below the
 * time the steps done must have taken (each sleeps at least its step, so
 * a unit of cost 1 takes at least STEPPED_STEPS steps' time), and the
 * final calibration is whole. */
static void test_watchdog_extrapolates(void **state)
{
    (void)state;
    nq_job job = {.ops = &stepped_ops, .n = 8, .threads = 2, .units = 200};
    double costs[200];
    for (int u = 0; u < 200; u++)
        costs[u] = 1;
    progress_log log = {0};
    handed h = {.seen = calloc(200, 1)};
    pthread_mutex_init(&h.lock, NULL);
    log.handed = &h;
    const nq_sample_config cfg = {.job = &job, .costs = costs, .chunk_units = 1, .threads = 2,
                                  .done = take_stepped, .overdue = on_stepped_overdue,
                                  .user = &log};
    nq_calibration cal;
    assert_int_equal(nq_calibrate(&cfg, &cal), 0);
    /* The sample (NQ_ESTIMATE_MIN_CHUNKS units of 1.6 s on two threads)
     * runs through the watchdog's calls at 0.5, 1, 2 and 4 s: by the last
     * of them, steps are done on any machine. */
    assert_true(log.calls >= 1);
    assert_true(log.extrapolated >= 1);
    assert_int_equal(log.complete, 0);
    assert_true(log.least >= (1 - 1e-9) * STEPPED_STEPS * STEPPED_STEP);
    assert_true(cal.complete);
    assert_false(cal.extrapolated);
    assert_int_equal(cal.units, NQ_ESTIMATE_MIN_CHUNKS);
    assert_true(cal.seconds_per_cost >= STEPPED_STEPS * STEPPED_STEP);
    pthread_mutex_destroy(&h.lock);
    free(h.seen);
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

/* The journalled run the tests below resume: N = 13 by mirror at split
 * depth 4 (units enough that half of them are worth a sample), estimated
 * into log, journal at path. */
static nq_settings journalled(const char *path, seen *log)
{
    nq_settings s = estimated(13, NQ_ENGINE_MIRROR, log);
    s.split_depth = 4;
    s.checkpoint_path = path;
    return s;
}

/* Makes a fresh folder from the template dir and names path
 * "DIR/run.journal" in it. */
static void temp_journal(char *dir, char path[64])
{
    assert_non_null(mkdtemp(dir));
    snprintf(path, 64, "%s/run.journal", dir);
}

/* Keeps the header and half the chunk records of the finished journal at
 * path (the DONE record goes), as an interrupted run leaves it. */
static void keep_half(const char *path)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    const long records = (ftell(f) - 64) / 64 - 1;
    fclose(f);
    assert_int_equal(truncate(path, 64 + 64 * (records / 2)), 0);
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
    temp_journal(dir, path);
    seen log = {0};
    nq_settings s = journalled(path, &log);
    nq_result r;
    assert_int_equal(nq_count(&s, &r), 0);
    assert_int_equal(log.last.units, r.subproblems);
    keep_half(path);
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

/* How often each unit of the job under watch was solved. */
#define WATCH_MAX_UNITS 200000
static atomic_uint solves[WATCH_MAX_UNITS];
static const struct nq_engine_ops *watched_ops;

static void counting_solve(const nq_job *job, uint64_t unit, nq_counts *out, void *scratch)
{
    atomic_fetch_add(&solves[unit], 1);
    watched_ops->solve(job, unit, out, scratch);
}

/* Runs *s through nq_count()'s own path with the engine's solve wrapped
 * to count each unit's solves into solves[]. */
static int count_watched(const nq_settings *s, nq_result *r, uint64_t *units)
{
    nq_plan plan;
    const double start = nq_now();
    int ret = nq_plan_open(&plan, s, s->threads, 1, r->detail, sizeof r->detail);
    assert_int_equal(ret, 0);
    *units = plan.job->units;
    assert_true(*units <= WATCH_MAX_UNITS);
    for (uint64_t u = 0; u < *units; u++)
        atomic_store(&solves[u], 0);
    static struct nq_engine_ops wrapped;
    watched_ops = plan.job->ops;
    wrapped = *watched_ops;
    wrapped.solve = counting_solve;
    plan.job->ops = &wrapped;
    ret = nq_count_planned(&plan, s, start, r);
    plan.job->ops = watched_ops; /* released by its own engine */
    nq_plan_close(&plan);
    return ret;
}

/* The sample is part of the run: with an estimate, every unit is solved
 * exactly once, for every engine that has units to sample, and the totals
 * are exact; resuming half a journal, only the units left are solved, once
 * each. */
static void test_sample_not_solved_twice(void **state)
{
    (void)state;
    const struct {
        int n;
        enum nq_engine engine;
    } cases[] = {{12, NQ_ENGINE_MIRROR}, {13, NQ_ENGINE_FULL}, {16, NQ_ENGINE_MITM}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        seen log = {0};
        nq_settings s = estimated(cases[i].n, cases[i].engine, &log);
        nq_result r;
        uint64_t units;
        assert_int_equal(count_watched(&s, &r, &units), 0);
        assert_true(r.total == known_total[cases[i].n]);
        assert_true(log.calls >= 1);
        assert_true(log.last.sample_units >= 1);
        /* Estimate sanity: the time already spent is part of it. */
        assert_true(log.last.seconds >= log.last.sample_seconds);
        for (uint64_t u = 0; u < units; u++)
            assert_int_equal(atomic_load(&solves[u]), 1);
    }

    /* With a journal, half of it kept: the resumed units are not solved. */
    char dir[] = "/tmp/nq_test_estimate_XXXXXX", path[64];
    temp_journal(dir, path);
    seen log = {0};
    nq_settings s = journalled(path, &log);
    nq_result r;
    uint64_t units;
    assert_int_equal(count_watched(&s, &r, &units), 0);
    for (uint64_t u = 0; u < units; u++)
        assert_int_equal(atomic_load(&solves[u]), 1);
    keep_half(path);
    log = (seen){0};
    assert_int_equal(count_watched(&s, &r, &units), 0);
    assert_true(r.total == known_total[13]);
    assert_true(r.units_resumed > 0);
    assert_true(log.last.sample_units >= 1);
    uint64_t solved = 0;
    for (uint64_t u = 0; u < units; u++) {
        assert_true(atomic_load(&solves[u]) <= 1);
        solved += atomic_load(&solves[u]);
    }
    assert_int_equal(solved, units - r.units_resumed);
    unlink(path);
    rmdir(dir);

    /* With settings.verify, the chunks it checks are counted twice (that
     * is the check) and every other unit once: the sample never takes a
     * checked chunk's first count. */
    log = (seen){0};
    s = estimated(12, NQ_ENGINE_MIRROR, &log);
    s.verify = 0.25;
    assert_int_equal(count_watched(&s, &r, &units), 0);
    assert_true(r.total == known_total[12]);
    assert_true(log.last.sample_units >= 1);
    uint64_t twice = 0;
    for (uint64_t u = 0; u < units; u++) {
        const unsigned k = atomic_load(&solves[u]);
        assert_true(k == 1 || k == 2);
        twice += k == 2;
    }
    assert_true(twice > 0 && twice < units);
}

/* What the progress callback saw of the running totals. */
typedef struct totals_log {
    int calls, finals, falls;
    nq_u128 last, first;
    double last_fraction;
    double final_fraction, final_rate;
    uint64_t final_units;
} totals_log;

static void watch_totals(const nq_progress *p, void *user)
{
    totals_log *log = user;
    if (!log->calls++)
        log->first = p->total_done;
    else if (p->total_done < log->last || p->work_fraction < log->last_fraction)
        log->falls++;
    log->last = p->total_done;
    log->last_fraction = p->work_fraction;
    if (p->final) {
        log->finals++;
        log->final_fraction = p->work_fraction;
        log->final_rate = p->total_rate;
        log->final_units = p->units_done;
    }
    assert_true(p->total_rate >= 0);
}

/* nq_progress's running totals: the solutions counted so far never fall,
 * nor does the work fraction, and the final call holds the exact total,
 * the whole work and a rate; resumed, the totals start from the journal's
 * and still end at the exact total; with verify, too. */
static void test_progress_totals(void **state)
{
    (void)state;
    const struct {
        int n;
        enum nq_engine engine;
        double verify;
    } cases[] = {{16, NQ_ENGINE_MITM, 0}, {13, NQ_ENGINE_FULL, 0}, {13, NQ_ENGINE_MIRROR, 0.3}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        seen est = {0};
        totals_log log = {0};
        nq_settings s = estimated(cases[i].n, cases[i].engine, &est);
        s.verify = cases[i].verify;
        s.progress = watch_totals;
        s.progress_user = &log;
        s.progress_interval = 0;
        nq_result r;
        assert_int_equal(nq_count(&s, &r), 0);
        assert_true(r.total == known_total[cases[i].n]);
        assert_true(log.calls >= 1);
        assert_int_equal(log.finals, 1);
        assert_int_equal(log.falls, 0);
        assert_true(log.last == r.total);
        assert_true(log.final_fraction == 1.0);
        assert_true(log.final_rate > 0);
        assert_int_equal(log.final_units, r.subproblems);
    }

    /* Resumed from half a journal: the first report counts the journal's
     * solutions already (the run may be over by then), the last the exact
     * total. */
    char dir[] = "/tmp/nq_test_estimate_XXXXXX", path[64];
    temp_journal(dir, path);
    seen est = {0};
    nq_settings s = journalled(path, &est);
    nq_result r;
    assert_int_equal(nq_count(&s, &r), 0);
    keep_half(path);
    totals_log log = {0};
    s.progress = watch_totals;
    s.progress_user = &log;
    s.progress_interval = 0;
    assert_int_equal(nq_count(&s, &r), 0);
    assert_true(r.units_resumed > 0);
    assert_true(log.first > 0); /* the journal's, at least, from the first report */
    assert_int_equal(log.falls, 0);
    assert_true(log.last == known_total[13]);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prediction_arithmetic),
        cmocka_unit_test(test_calibration),
        cmocka_unit_test(test_too_few_chunks),
        cmocka_unit_test(test_watchdog_lower_bound),
        cmocka_unit_test(test_watchdog_extrapolates),
        cmocka_unit_test(test_count_calls_back),
        cmocka_unit_test(test_journal_units_left),
        cmocka_unit_test(test_sample_not_solved_twice),
        cmocka_unit_test(test_progress_totals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
