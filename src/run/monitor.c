/*
 * monitor.c - the monitor thread of a running count (see monitor.h).
 *
 * It sleeps on a condition variable with a monotonic-clock timeout of one
 * tick (100 ms, less if progress is asked for more often), so it costs the
 * workers nothing between ticks and can be woken at once when the run ends.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "run/monitor.h"

/* Longest sleep between ticks: bounds how late a cancel request is seen,
 * and how much a SIGKILL can lose of what workers have recorded. */
#define MONITOR_TICK 0.1
/* Shortest tick, however small progress_interval is. */
#define MONITOR_MIN_TICK 0.02

struct nq_monitor {
    nq_monitor_config cfg;
    pthread_t thread;
    pthread_mutex_t lock; /* guards quit and the posted estimate */
    pthread_cond_t wake;
    int quit;
    int posted;           /* an estimate waits to be handed on */
    nq_estimate estimate;
    double calibrated;    /* seconds of the latest calibrated estimate, or -1 */
    double tick;
    double last_report;
    int work_seen;        /* the ledger's work fraction was known at... */
    double work_t0, work_f0; /* ...this time, and was this much then */
    int error; /* 0 or NQ_EIO; written by the thread, read after join */
};

/* Calls the progress callback with a fresh snapshot. */
static void report(nq_monitor *m, int final)
{
    const double now = nq_now();
    nq_progress p = {
        .units_done = nq_ledger_units_done(m->cfg.ledger),
        .units_total = nq_ledger_units(m->cfg.ledger),
        .units_resumed = nq_ledger_units_resumed(m->cfg.ledger),
        .elapsed = now - m->cfg.start,
        .final = final,
    };
    /* The rate counts this process's work only: resumed units took no time. */
    const uint64_t mine = p.units_done - p.units_resumed;
    p.rate = p.elapsed > 0 ? (double)mine / p.elapsed : 0;
    p.work_fraction = nq_ledger_work_fraction(m->cfg.ledger);
    p.total_done = nq_ledger_counts(m->cfg.ledger).total;
    const nq_u128 mine_total = p.total_done - nq_ledger_counts_resumed(m->cfg.ledger).total;
    p.total_rate = p.elapsed > 0 ? (double)mine_total / p.elapsed : 0;
    if (p.units_done >= p.units_total) {
        p.eta = 0;
    } else if (p.work_fraction >= 0) {
        /* By work: the pace since the weights came (after the estimate's
         * sample, whose work the run does again), over the work left. */
        if (!m->work_seen) {
            m->work_seen = 1;
            m->work_t0 = now;
            m->work_f0 = p.work_fraction;
        }
        const double gained = p.work_fraction - m->work_f0, spent = now - m->work_t0;
        p.eta = gained > 0 && spent > 0 ? (1 - p.work_fraction) * spent / gained : -1;
    } else {
        p.eta = p.rate > 0 ? (double)(p.units_total - p.units_done) / p.rate : -1;
    }
    /* No pace yet (the first chunks are still running): the calibrated
     * estimate's time left, so the ETA agrees with it from the start. */
    pthread_mutex_lock(&m->lock);
    const double calibrated = m->calibrated;
    pthread_mutex_unlock(&m->lock);
    if (p.eta < 0 && calibrated >= 0)
        p.eta = calibrated > p.elapsed ? calibrated - p.elapsed : 0;
    m->last_report = now;
    m->cfg.progress(&p, m->cfg.progress_user);
}

void nq_monitor_post_estimate(nq_monitor *m, const nq_estimate *e)
{
    pthread_mutex_lock(&m->lock);
    m->estimate = *e;
    m->posted = 1;
    if (!e->at_least)
        m->calibrated = e->seconds;
    pthread_mutex_unlock(&m->lock);
}

/* Hands a posted estimate to the callback (called without the lock held). */
static void hand_on_estimate(nq_monitor *m)
{
    pthread_mutex_lock(&m->lock);
    const int posted = m->posted;
    const nq_estimate e = m->estimate;
    m->posted = 0;
    pthread_mutex_unlock(&m->lock);
    if (posted && m->cfg.estimate)
        m->cfg.estimate(&e, m->cfg.estimate_user);
}

static struct timespec deadline_after(double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long ns = (long long)ts.tv_nsec + (long long)(seconds * 1e9);
    ts.tv_sec += (time_t)(ns / 1000000000LL);
    ts.tv_nsec = (long)(ns % 1000000000LL);
    return ts;
}

static void *monitor_main(void *arg)
{
    nq_monitor *m = arg;
    double last_sync = nq_now();
    pthread_mutex_lock(&m->lock);
    while (!m->quit) {
        struct timespec until = deadline_after(m->tick);
        while (!m->quit && pthread_cond_timedwait(&m->wake, &m->lock, &until) != ETIMEDOUT)
            ;
        if (m->quit)
            break;
        pthread_mutex_unlock(&m->lock);

        if (m->cfg.user_cancel && atomic_load(m->cfg.user_cancel))
            atomic_store(m->cfg.stop, 1);
        const double now = nq_now();
        if (m->cfg.journal && !m->error) {
            /* write() every tick keeps what a killed process loses to one
             * tick; fsync() only every checkpoint_interval, as it is the
             * expensive part and only matters if the machine itself dies. */
            int sync = now - last_sync >= m->cfg.checkpoint_interval;
            if (nq_journal_flush(m->cfg.journal, sync) < 0) {
                m->error = NQ_EIO;
                atomic_store(m->cfg.stop, 1);
            }
            if (sync)
                last_sync = now;
        }
        hand_on_estimate(m);
        if (m->cfg.progress && now - m->last_report >= m->cfg.progress_interval)
            report(m, 0);
        pthread_mutex_lock(&m->lock);
    }
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

int nq_monitor_start(nq_monitor **out, const nq_monitor_config *config)
{
    *out = NULL;
    nq_monitor *m = calloc(1, sizeof *m);
    if (!m)
        return NQ_ENOMEM;
    m->cfg = *config;
    m->calibrated = -1;
    m->tick = MONITOR_TICK;
    if (m->cfg.progress && m->cfg.progress_interval < m->tick)
        m->tick = m->cfg.progress_interval > MONITOR_MIN_TICK ? m->cfg.progress_interval
                                                             : MONITOR_MIN_TICK;
    m->last_report = m->cfg.start;

    pthread_condattr_t attr;
    int ok = pthread_condattr_init(&attr) == 0;
    /* Timeouts on the monotonic clock: a wall-clock jump must not stall
     * or rush the monitor. */
    ok = ok && pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0;
    ok = ok && pthread_cond_init(&m->wake, &attr) == 0;
    pthread_condattr_destroy(&attr);
    if (!ok) {
        free(m);
        return NQ_ENOMEM;
    }
    pthread_mutex_init(&m->lock, NULL);
    if (pthread_create(&m->thread, NULL, monitor_main, m) != 0) {
        pthread_cond_destroy(&m->wake);
        pthread_mutex_destroy(&m->lock);
        free(m);
        return NQ_EIO;
    }
    *out = m;
    return 0;
}

int nq_monitor_stop(nq_monitor **mp)
{
    if (!mp || !*mp)
        return 0;
    nq_monitor *m = *mp;
    pthread_mutex_lock(&m->lock);
    m->quit = 1;
    pthread_cond_signal(&m->wake);
    pthread_mutex_unlock(&m->lock);
    pthread_join(m->thread, NULL);
    hand_on_estimate(m);
    if (m->cfg.progress)
        report(m, 1);
    int ret = m->error;
    pthread_cond_destroy(&m->wake);
    pthread_mutex_destroy(&m->lock);
    free(m);
    *mp = NULL;
    return ret;
}
