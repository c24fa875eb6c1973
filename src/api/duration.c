/*
 * duration.c - the expected duration of a planned run, for
 * nq_settings.estimate (see duration.h).
 *
 * The engine's estimate hook gives every unit a relative cost (engines
 * without one count every unit alike); run/estimate.c times a sample of
 * the units left to calibrate those costs in seconds and spreads the rest
 * over the run's threads with the scheduling model.  The time already
 * spent (planning, the sample) is added, so the figure is the whole call's.
 */
#include <stdlib.h>

#include "api/duration.h"
#include "run/estimate.h"

/* What the callbacks of one estimate share. */
typedef struct estimate_run {
    const nq_plan *plan;
    nq_run *run;
    const double *costs;
    const unsigned char *skip; /* chunks the journal holds */
    uint64_t units_left;
} estimate_run;

/* Relative cost of every unit from the engine's hook, or 1 for all when it
 * has none or it fails.  Zero estimates (a unit the probe sees die early)
 * are raised to a thousandth of the mean: every unit takes some time, and
 * the calibration divides by the sample's costs.  NULL when out of memory. */
static double *unit_costs(const nq_job *job)
{
    const uint64_t units = job->units;
    double *costs = malloc((size_t)(units + 1) * sizeof *costs);
    if (!costs)
        return NULL;
    int known = job->ops->estimate && job->ops->estimate(job, costs) == 0;
    double sum = 0;
    for (uint64_t u = 0; known && u < units; u++)
        sum += costs[u] >= 0 ? costs[u] : 0;
    known = known && sum > 0;
    const double floor = known ? 1e-3 * sum / (double)units : 1;
    for (uint64_t u = 0; u < units; u++)
        if (!known || !(costs[u] >= floor))
            costs[u] = floor;
    return costs;
}

/* Posts the estimate from calibration *cal to the run. */
static void deliver(const estimate_run *er, const nq_calibration *cal)
{
    const nq_job *job = er->plan->job;
    double solve;
    if (nq_estimate_seconds(er->costs, job->units, er->plan->chunk_units, er->skip, job->threads,
                            cal->seconds_per_cost, &solve) < 0)
        return;
    const nq_estimate e = {
        .seconds = nq_now() - er->run->cfg.start + solve,
        .at_least = !cal->complete,
        .engine = job->ops->id,
        .threads = job->threads,
        .units = er->units_left,
        .sample_units = cal->units,
        .sample_seconds = cal->seconds,
        .seconds_per_cost = cal->seconds_per_cost,
    };
    nq_run_post_estimate(er->run, &e);
}

static void on_overdue(const nq_calibration *lower, void *user)
{
    deliver(user, lower);
}

void nq_plan_estimate(const nq_plan *p, nq_run *run, int sample_threads)
{
    if (!run->cfg.estimate || (p->journal && nq_journal_is_complete(p->journal)))
        return;
    estimate_run er = {
        .plan = p,
        .run = run,
        .skip = p->journal ? nq_journal_done(p->journal) : NULL,
        .units_left = p->job->units - (p->journal ? nq_journal_resumed_units(p->journal) : 0),
    };
    double *costs = unit_costs(p->job);
    if (!costs)
        return;
    er.costs = costs;
    atomic_int *stop = nq_run_stop_flag(run);
    const nq_sample_config cfg = {
        .job = p->job,
        .costs = costs,
        .skip = er.skip,
        .chunk_units = p->chunk_units,
        .threads = sample_threads > 0 ? sample_threads : 1,
        .stop = stop,
        .overdue = on_overdue,
        .user = &er,
    };
    nq_calibration cal;
    if (nq_calibrate(&cfg, &cal) == 0 && cal.units > 0 && !(stop && atomic_load(stop)))
        deliver(&er, &cal);
    /* The same costs weigh the progress (work, not units, done); after the
     * sample, so that the pace the ETA is measured from is the run's.
     * Progress by units remains when this fails. */
    (void)nq_ledger_set_weights(run->ledger, costs);
    free(costs);
}
