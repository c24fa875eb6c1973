/*
 * estimate.c - calibrating unit costs on a timed sample, and predicting a
 * run's wall time from them (see estimate.h).
 *
 * The sample's threads share one small state under a mutex, taken twice
 * per sample unit (no more units start than fit in half a second, and each
 * takes far longer than the lock).  A watchdog thread sleeps until the budget is up; if the sample
 * is still running then (units of hours at large N), it hands out a lower
 * bound at once, so a caller can warn before those units end, and a
 * higher one each time the wait has doubled.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/estimate.h"
#include "run/model.h"

#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct sample {
    const nq_sample_config *cfg;
    uint64_t *units;  /* the sample, in the order it is solved */
    double *started;  /* start time of each sample unit while it runs, else -1 */
    uint64_t count;
    double t0;

    pthread_mutex_t lock; /* guards everything below */
    pthread_cond_t wake;  /* the watchdog waits on it */
    uint64_t next;        /* next sample unit to start */
    uint64_t finished;
    double time_sum, cost_sum; /* of the finished units */
    int over;             /* every sampling thread has stopped */
} sample;

static int skipped(const nq_sample_config *cfg, uint64_t unit)
{
    return cfg->skip && cfg->skip[unit / cfg->chunk_units];
}

/* splitmix64: a fixed-seed stream, so a run samples the same units every
 * time (and a test can be replayed). */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* How many units to sample out of `left` on `threads` threads (0: none,
 * as one per thread would be too big a share). */
static uint64_t sample_size(uint64_t left, int threads)
{
    if ((double)threads > (double)left * NQ_ESTIMATE_MAX_SHARE)
        return 0;
    const uint64_t k = (uint64_t)((double)left * NQ_ESTIMATE_SHARE) + 1;
    return k < (uint64_t)threads ? (uint64_t)threads : k;
}

/* Draws the sample: distinct uniform random units not skipped, into
 * s->units.  Returns 0 or NQ_ENOMEM. */
static int pick(sample *s)
{
    const nq_sample_config *cfg = s->cfg;
    const uint64_t all = cfg->job->units;
    uint64_t left = 0;
    for (uint64_t u = 0; u < all; u++)
        left += !skipped(cfg, u);
    const uint64_t want = sample_size(left, cfg->threads);
    unsigned char *taken = calloc((size_t)(all / 8 + 1), 1);
    s->units = malloc((size_t)(want + 1) * sizeof *s->units);
    s->started = malloc((size_t)(want + 1) * sizeof *s->started);
    if (!taken || !s->units || !s->started) {
        free(taken);
        return NQ_ENOMEM;
    }
    uint64_t state = UINT64_C(0x6e71756565e5), tries = 64 * want + 4096;
    while (s->count < want && tries--) {
        const uint64_t u = next_random(&state) % all;
        if (skipped(cfg, u) || (taken[u / 8] >> (u % 8) & 1))
            continue;
        taken[u / 8] |= (unsigned char)(1u << (u % 8));
        s->units[s->count++] = u;
    }
    /* Nearly everything skipped (a journal close to done): take what is
     * left in order instead of drawing on. */
    for (uint64_t u = 0; u < all && s->count < want; u++)
        if (!skipped(cfg, u) && !(taken[u / 8] >> (u % 8) & 1))
            s->units[s->count++] = u;
    free(taken);
    for (uint64_t i = 0; i < s->count; i++)
        s->started[i] = -1;
    return 0;
}

/* Takes the next sample unit to start, under the lock: none once the
 * sample is used up, the stop flag is raised, or the budget would be
 * exceeded (judged from the units finished so far).  Returns its index in
 * the sample, or -1. */
static int64_t take(sample *s)
{
    const nq_sample_config *cfg = s->cfg;
    if (s->next >= s->count || (cfg->stop && atomic_load(cfg->stop)))
        return -1;
    const double now = nq_now();
    const double expect =
        s->cost_sum > 0 ? cfg->costs[s->units[s->next]] * s->time_sum / s->cost_sum : 0;
    if (now + expect - s->t0 > NQ_ESTIMATE_BUDGET)
        return -1;
    s->started[s->next] = now;
    return (int64_t)s->next++;
}

/* One sampling thread: solves and times sample units until take() says no,
 * with its own scratch, zeroed as the engine contract asks. */
static void sample_units(sample *s)
{
    const nq_job *job = s->cfg->job;
    const size_t bytes = job->ops->scratch_size ? job->ops->scratch_size(job) : 0;
    void *scratch = bytes ? calloc(1, bytes) : NULL;
    if (bytes && !scratch)
        return;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        const int64_t i = take(s);
        pthread_mutex_unlock(&s->lock);
        if (i < 0)
            break;
        nq_counts ignored;
        job->ops->solve(job, s->units[i], &ignored, scratch);
        const double end = nq_now();
        pthread_mutex_lock(&s->lock);
        s->time_sum += end - s->started[i];
        s->cost_sum += s->cfg->costs[s->units[i]];
        s->started[i] = -1;
        s->finished++;
        pthread_mutex_unlock(&s->lock);
    }
    free(scratch);
}

/* The calibration so far, under the lock.  While units run, their time so
 * far is added to the finished units' (and their cost), a lower bound of
 * what they will take. */
static nq_calibration snapshot(const sample *s, int complete)
{
    const double now = nq_now();
    double time = s->time_sum, cost = s->cost_sum;
    for (uint64_t i = 0; i < s->next && !complete; i++)
        if (s->started[i] >= 0) {
            time += now - s->started[i];
            cost += s->cfg->costs[s->units[i]];
        }
    return (nq_calibration){
        .seconds_per_cost = cost > 0 ? time / cost : 0,
        .units = s->finished,
        .seconds = now - s->t0,
        .complete = complete,
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
    if (!cfg || !out || !cfg->job || !cfg->costs || cfg->threads < 1 || cfg->chunk_units < 1)
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
        sample_units(&s);
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
    free(s.units);
    free(s.started);
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
