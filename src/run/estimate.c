/*
 * estimate.c - calibrating unit costs on a timed sample of the run's
 * chunks, and predicting a run's wall time from them (see estimate.h).
 *
 * The sample's threads share one small state under a mutex, taken once
 * per sample unit (each takes far longer than the lock).  A watchdog
 * thread sleeps until the budget is up; if the sample is still running
 * then (units of hours at large N), it hands out a lower bound at once,
 * so a caller can warn before those units end, and a higher one each time
 * the wait has doubled; once the engine says how far the running units
 * are, a figure extrapolated from that instead.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/scratch.h"
#include "run/estimate.h"
#include "run/model.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* A sample chunk while it runs. */
typedef struct running {
    double started;    /* start time of the chunk, or -1 when not running */
    double cost_done;  /* cost of its units finished */
    double cost_unit;  /* cost of the unit running */
    const void *scratch; /* the solving thread's (for the engine's progress hook) */
} running;

typedef struct sample {
    const nq_sample_config *cfg;
    uint64_t *chunks; /* the sample, in the order it is solved */
    running *state;   /* [count] */
    uint64_t count;
    double t0;
    double cost_left; /* of every chunk not skipped */

    pthread_mutex_t lock; /* guards everything below and state[] */
    pthread_cond_t wake;  /* the watchdog waits on it */
    uint64_t next;        /* next sample chunk to start */
    uint64_t finished, units;
    double time_sum, cost_sum; /* of the finished chunks */
    int over;             /* every sampling thread has stopped */
} sample;

/* splitmix64: a fixed-seed stream, so a run samples the same chunks every
 * time (and a test can be replayed). */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* How many chunks to sample out of `left` on `threads` threads (0: none,
 * as one per thread would be too big a share; see estimate.h). */
static uint64_t sample_size(uint64_t left, int threads)
{
    const double most = (double)left * NQ_ESTIMATE_MAX_SHARE;
    if ((double)threads > most)
        return 0;
    uint64_t k = (uint64_t)((double)left * NQ_ESTIMATE_SHARE) + 1;
    if (k < NQ_ESTIMATE_MIN_CHUNKS)
        k = NQ_ESTIMATE_MIN_CHUNKS;
    if (k < (uint64_t)threads)
        k = (uint64_t)threads;
    return (double)k > most ? (uint64_t)most : k;
}

/* The first and one-past-last unit of chunk c. */
static void chunk_bounds(const nq_sample_config *cfg, uint64_t c, uint64_t *begin, uint64_t *end)
{
    const uint64_t units = cfg->job->units;
    *begin = c * cfg->chunk_units;
    *end = units - *begin > cfg->chunk_units ? *begin + cfg->chunk_units : units;
}

/* Draws the sample into s->chunks: the chunks not skipped cut into
 * s->count stretches of (nearly) equal length, one chunk at random from
 * each, in a random order of the stretches.  Returns 0 or NQ_ENOMEM. */
static int pick(sample *s)
{
    const nq_sample_config *cfg = s->cfg;
    const uint64_t all = (cfg->job->units + cfg->chunk_units - 1) / cfg->chunk_units;
    uint64_t left = 0;
    for (uint64_t c = 0; c < all; c++)
        left += !(cfg->skip && cfg->skip[c]);
    const uint64_t want = sample_size(left, cfg->threads);
    uint64_t *eligible = malloc((size_t)(left + 1) * sizeof *eligible);
    s->chunks = malloc((size_t)(want + 1) * sizeof *s->chunks);
    s->state = malloc((size_t)(want + 1) * sizeof *s->state);
    if (!eligible || !s->chunks || !s->state) {
        free(eligible);
        return NQ_ENOMEM;
    }
    uint64_t e = 0;
    for (uint64_t c = 0; c < all; c++)
        if (!(cfg->skip && cfg->skip[c]))
            eligible[e++] = c;
    for (uint64_t u = 0; u < cfg->job->units; u++)
        if (!(cfg->skip && cfg->skip[u / cfg->chunk_units]))
            s->cost_left += cfg->costs[u];
    uint64_t state = UINT64_C(0x6e71756565e5);
    for (uint64_t i = 0; i < want; i++) {
        const uint64_t first = i * left / want, end = (i + 1) * left / want;
        s->chunks[i] = eligible[first + next_random(&state) % (end - first)];
    }
    for (uint64_t i = want; i > 1; i--) { /* Fisher-Yates */
        const uint64_t j = next_random(&state) % i, t = s->chunks[i - 1];
        s->chunks[i - 1] = s->chunks[j];
        s->chunks[j] = t;
    }
    s->count = want;
    free(eligible);
    for (uint64_t i = 0; i < s->count; i++)
        s->state[i] = (running){.started = -1};
    return 0;
}

static double chunk_cost(const nq_sample_config *cfg, uint64_t c)
{
    uint64_t begin, end;
    chunk_bounds(cfg, c, &begin, &end);
    double sum = 0;
    for (uint64_t u = begin; u < end; u++)
        sum += cfg->costs[u];
    return sum;
}

/* Takes the next sample chunk to start, under the lock: none once the
 * sample is used up or the stop flag is raised, and, judged from the
 * chunks finished so far, none that would run past the sample's time
 * (estimate.h): its longest once every thread has had a chunk, its usual
 * one once NQ_ESTIMATE_MIN_CHUNKS have started.  Returns its index in the
 * sample, or -1. */
static int64_t take(sample *s)
{
    const nq_sample_config *cfg = s->cfg;
    for (;;) {
        if (s->next >= s->count || (cfg->stop && atomic_load(cfg->stop)))
            return -1;
        const double now = nq_now();
        const double spc = s->cost_sum > 0 ? s->time_sum / s->cost_sum : 0;
        const double expect = chunk_cost(cfg, s->chunks[s->next]) * spc;
        double limit = NQ_ESTIMATE_SHARE * s->cost_left * spc / cfg->threads;
        limit = limit > NQ_ESTIMATE_SAMPLE_TIME ? limit : NQ_ESTIMATE_SAMPLE_TIME;
        limit = limit < NQ_ESTIMATE_SAMPLE_TIME_MAX ? limit : NQ_ESTIMATE_SAMPLE_TIME_MAX;
        const uint64_t least = (uint64_t)cfg->threads > NQ_ESTIMATE_MIN_CHUNKS
                                   ? (uint64_t)cfg->threads : NQ_ESTIMATE_MIN_CHUNKS;
        const double end = now + expect - s->t0;
        if ((s->next >= (uint64_t)cfg->threads && end > NQ_ESTIMATE_SAMPLE_TIME_MAX) ||
            (s->next >= least && end > limit))
            return -1;
        /* A chunk another solver holds or finished is passed over. */
        if (cfg->claim && !cfg->claim(cfg->user, s->chunks[s->next])) {
            s->next++;
            continue;
        }
        s->state[s->next] = (running){.started = now};
        return (int64_t)s->next++;
    }
}

/* Solves sample chunk i unit by unit with the thread's scratch, telling
 * the state what runs (for the watchdog's bound).  Returns 1 and fills
 * *sum, or 0 when the stop flag cut it short. */
static int solve_chunk(sample *s, int64_t i, void *scratch, nq_counts *sum)
{
    const nq_sample_config *cfg = s->cfg;
    const nq_job *job = cfg->job;
    uint64_t begin, end;
    chunk_bounds(cfg, s->chunks[i], &begin, &end);
    *sum = (nq_counts){0, 0};
    for (uint64_t u = begin; u < end; u++) {
        if (u > begin && cfg->stop && atomic_load_explicit(cfg->stop, memory_order_relaxed))
            return 0;
        pthread_mutex_lock(&s->lock);
        s->state[i].cost_unit = cfg->costs[u];
        s->state[i].scratch = scratch;
        pthread_mutex_unlock(&s->lock);
        nq_counts one;
        job->ops->solve(job, u, &one, scratch);
        nq_counts_add(sum, &one);
        pthread_mutex_lock(&s->lock);
        s->state[i].cost_done += cfg->costs[u];
        s->state[i].cost_unit = 0;
        pthread_mutex_unlock(&s->lock);
    }
    return 1;
}

/* One sampling thread: solves, times and hands on sample chunks until
 * take() says no, with its own scratch, zeroed as the engine contract
 * asks and kept from chunk to chunk as the pool keeps it. */
static void sample_chunks(sample *s)
{
    const nq_job *job = s->cfg->job;
    const size_t bytes = nq_job_scratch_bytes(job);
    void *scratch = bytes ? nq_scratch_alloc(bytes) : NULL;
    if (bytes && !scratch)
        return;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        const int64_t i = take(s);
        pthread_mutex_unlock(&s->lock);
        if (i < 0)
            break;
        nq_counts sum;
        const int whole = solve_chunk(s, i, scratch, &sum);
        const double end = nq_now();
        if (whole)
            s->cfg->done(s->cfg->user, s->chunks[i], &sum);
        else if (s->cfg->give_back)
            s->cfg->give_back(s->cfg->user, s->chunks[i]);
        uint64_t begin, last;
        chunk_bounds(s->cfg, s->chunks[i], &begin, &last);
        pthread_mutex_lock(&s->lock);
        if (whole) {
            s->time_sum += end - s->state[i].started;
            s->cost_sum += s->state[i].cost_done;
            s->finished++;
            s->units += last - begin;
        }
        s->state[i].started = -1;
        pthread_mutex_unlock(&s->lock);
        if (!whole)
            break;
    }
    nq_scratch_free(scratch, bytes);
}

/* The calibration so far, under the lock.  While chunks run, their time
 * so far is added to the finished chunks', and the cost of their units
 * finished and of the units running to the cost: all of a running unit's
 * cost gives a lower bound of the rate, since the unit will take at least
 * the time it has; the share the engine's progress hook says is done
 * gives an extrapolation, used once every running unit has one and they
 * cover NQ_ESTIMATE_PROGRESS_MIN of their chunks' cost so far (before
 * that, the work a unit does before its hook moves weighs too much). */
static nq_calibration snapshot(const sample *s, int complete)
{
    const double now = nq_now();
    const nq_job *job = s->cfg->job;
    double time = s->time_sum, bound = 0, known = 0;
    int measured = job->ops->progress != NULL;
    for (uint64_t i = 0; i < s->next && !complete; i++) {
        const running *r = &s->state[i];
        if (r->started < 0)
            continue;
        time += now - r->started;
        bound += r->cost_done + r->cost_unit;
        const double f = measured && r->cost_unit > 0 ? job->ops->progress(job, r->scratch) : 0;
        measured = measured && f >= 0;
        known += r->cost_done + (f < 1 ? f : 1) * r->cost_unit;
    }
    const int extrapolated = measured && known > 0 && known >= NQ_ESTIMATE_PROGRESS_MIN * bound;
    const double cost = s->cost_sum + (extrapolated ? known : bound);
    return (nq_calibration){
        .seconds_per_cost = cost > 0 ? time / cost : 0,
        .chunks = s->finished,
        .units = s->units,
        .seconds = now - s->t0,
        .complete = complete,
        .extrapolated = extrapolated,
    };
}

/* The monotonic time `seconds` after now. */
static struct timespec after(double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    const long long ns = ts.tv_nsec + (long long)(seconds * 1e9);
    ts.tv_sec += (time_t)(ns / 1000000000LL);
    ts.tv_nsec = (long)(ns % 1000000000LL);
    return ts;
}

/* Sleeps until the budget is up; while the sample still runs then, hands
 * out the lower bound, and again each time the wait so far has doubled
 * (the bound grows with it: units of hours say so within seconds, and a
 * caller showing the bound sees it rise). */
static void *watchdog(void *arg)
{
    sample *s = arg;
    double wait = NQ_ESTIMATE_BUDGET;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        const struct timespec until = after(wait);
        while (!s->over && pthread_cond_timedwait(&s->wake, &s->lock, &until) != ETIMEDOUT)
            ;
        if (s->over)
            break;
        const nq_calibration lower = snapshot(s, 0);
        pthread_mutex_unlock(&s->lock);
        s->cfg->overdue(&lower, s->cfg->user);
        pthread_mutex_lock(&s->lock);
        wait = nq_now() - s->t0;
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Starts the watchdog (when cfg->overdue is set).  Returns 1 when it runs. */
static int start_watchdog(sample *s, pthread_t *thread)
{
    if (!s->cfg->overdue)
        return 0;
    pthread_condattr_t attr;
    int ok = pthread_condattr_init(&attr) == 0;
    /* The deadline is on the monotonic clock, as every time here. */
    ok = ok && pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0;
    ok = ok && pthread_cond_init(&s->wake, &attr) == 0;
    pthread_condattr_destroy(&attr);
    if (ok && pthread_create(thread, NULL, watchdog, s) == 0)
        return 1;
    if (ok)
        pthread_cond_destroy(&s->wake);
    return 0;
}

int nq_calibrate(const nq_sample_config *cfg, nq_calibration *out)
{
    if (!cfg || !out || !cfg->job || !cfg->costs || !cfg->done || cfg->threads < 1 ||
        cfg->chunk_units < 1)
        return NQ_EINVAL_ARG;
    memset(out, 0, sizeof *out);
    sample s = {.cfg = cfg};
    int ret = pick(&s);
    if (ret == 0 && s.count > 0) {
        pthread_mutex_init(&s.lock, NULL);
        pthread_t thread;
        s.t0 = nq_now();
        const int watching = start_watchdog(&s, &thread);
#ifdef _OPENMP
#pragma omp parallel num_threads(cfg->threads)
#endif
        sample_chunks(&s);
        pthread_mutex_lock(&s.lock);
        s.over = 1;
        *out = snapshot(&s, 1);
        if (watching)
            pthread_cond_signal(&s.wake);
        pthread_mutex_unlock(&s.lock);
        if (watching) {
            pthread_join(thread, NULL);
            pthread_cond_destroy(&s.wake);
        }
        pthread_mutex_destroy(&s.lock);
    }
    free(s.chunks);
    free(s.state);
    return ret;
}

int nq_estimate_seconds(const double *costs, uint64_t units, uint64_t chunk_units,
                        const unsigned char *skip, int threads, double seconds_per_cost,
                        double *seconds)
{
    if (!costs || !seconds || chunk_units < 1)
        return NQ_EINVAL_ARG;
    const uint64_t chunks = (units + chunk_units - 1) / chunk_units;
    double *chunk_costs = malloc((size_t)(chunks + 1) * sizeof *chunk_costs);
    if (!chunk_costs)
        return NQ_ENOMEM;
    uint64_t left = 0;
    for (uint64_t c = 0; c < chunks; c++) {
        if (skip && skip[c])
            continue;
        const uint64_t end = (c + 1) * chunk_units < units ? (c + 1) * chunk_units : units;
        double sum = 0;
        for (uint64_t u = c * chunk_units; u < end; u++)
            sum += costs[u];
        chunk_costs[left++] = sum;
    }
    nq_model_result r;
    const int ret = nq_model_schedule(chunk_costs, (size_t)left, 1, threads, &r);
    free(chunk_costs);
    if (ret == 0)
        *seconds = r.makespan * seconds_per_cost;
    return ret;
}
