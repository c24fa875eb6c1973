/*
 * duration.c - the expected duration of a planned run, for
 * nq_settings.estimate (see duration.h).
 *
 * The engine's estimate hook gives every unit a relative cost (engines
 * without one count every unit alike); run/estimate.c solves a sample of
 * the chunks left, as part of the run, to calibrate those costs in seconds,
 * and the scheduling model spreads the chunks after it over the run's
 * threads.  The time already spent (planning, the sample) is added, so the
 * figure is the whole call's.  The sample claims its chunks from the
 * run's ledger and finishes them there (their counts go into the total and
 * the journal), so the run goes on with the chunks the sample left, and
 * solvers that take chunks meanwhile (other MPI ranks) never get one; chunks that settings.verify
 * will count twice are never sampled, so that their first count goes
 * through the check as every other's.
 */
#include <stdlib.h>
#include <string.h>

#include "api/duration.h"
#include "run/estimate.h"
#include "run/verify.h"

/* What the callbacks of one estimate share. */
typedef struct estimate_run {
    const nq_plan *plan;
    nq_run *run;
    const double *costs;
    uint64_t chunks;
    uint64_t units_left;
} estimate_run;

/* A sample chunk solved whole: finished in the run (its count kept). */
static void sample_done(void *user, uint64_t chunk, const nq_counts *counts)
{
    estimate_run *er = user;
    (void)nq_ledger_finish(er->run->ledger, chunk, counts);
}

/* The sample takes its chunks from the ledger as any solver does, so that
 * under MPI, where the other ranks count meanwhile, no chunk is solved by
 * both; one the stop flag cut short goes back. */
static int sample_claim(void *user, uint64_t chunk)
{
    estimate_run *er = user;
    return nq_ledger_claim(er->run->ledger, chunk);
}

static void sample_give_back(void *user, uint64_t chunk)
{
    estimate_run *er = user;
    nq_ledger_give_back(er->run->ledger, chunk);
}

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

/* Posts the estimate from calibration *cal to the run: the time spent so
 * far and the chunks not finished yet (resumed, solved by the sample, or,
 * under MPI, by the other ranks meanwhile) spread over the threads.
 * Nothing is posted when out of memory. */
static void deliver(const estimate_run *er, const nq_calibration *cal)
{
    const nq_job *job = er->plan->job;
    unsigned char *finished = malloc((size_t)er->chunks + 1);
    if (!finished)
        return;
    for (uint64_t c = 0; c < er->chunks; c++)
        finished[c] = (unsigned char)nq_ledger_finished(er->run->ledger, c);
    double solve;
    const int ret = nq_estimate_seconds(er->costs, job->units, er->plan->chunk_units, finished,
                                        job->threads, cal->seconds_per_cost, &solve);
    free(finished);
    if (ret < 0)
        return;
    const nq_estimate e = {
        .seconds = nq_now() - er->run->cfg.start + solve,
        .at_least = !cal->complete && !cal->extrapolated,
        .extrapolated = cal->extrapolated,
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

/* The chunks not to sample: resumed ones, and those settings.verify
 * counts twice (the same hash nq_count() and the MPI coordinator draw
 * theirs with).  Returns 0 or NQ_ENOMEM. */
static int not_sampled(const nq_plan *p, uint64_t chunks, unsigned char *skip)
{
    const unsigned char *resumed = p->journal ? nq_journal_done(p->journal) : NULL;
    for (uint64_t c = 0; c < chunks; c++)
        skip[c] = resumed && resumed[c];
    if (!(p->verify > 0))
        return 0;
    nq_verify *v = NULL;
    if (nq_verify_create(&v, p->verify, p->job->identity, chunks, NULL) < 0)
        return NQ_ENOMEM;
    for (uint64_t c = 0; c < chunks; c++)
        skip[c] |= (unsigned char)(nq_verify_sampled(v, c) != 0);
    nq_verify_free(&v);
    return 0;
}

void nq_plan_estimate(const nq_plan *p, nq_run *run, int sample_threads)
{
    /* A cancel already asked for (the monitor raises the stop flag only at
     * its next tick) means no sample. */
    if (!run->cfg.estimate || (p->journal && nq_journal_is_complete(p->journal)) ||
        (run->cfg.cancel && atomic_load(run->cfg.cancel)))
        return;
    const uint64_t chunks = nq_ledger_chunks(run->ledger);
    estimate_run er = {
        .plan = p,
        .run = run,
        .chunks = chunks,
        .units_left = p->job->units - (p->journal ? nq_journal_resumed_units(p->journal) : 0),
    };
    double *costs = unit_costs(p->job);
    unsigned char *skip = malloc((size_t)chunks + 1);
    if (!costs || !skip || not_sampled(p, chunks, skip) < 0)
        goto out;
    er.costs = costs;
    /* The same costs weigh the progress (work, not units, done), from the
     * start: the sample's chunks are the run's.  Progress by units
     * remains when this fails. */
    (void)nq_ledger_set_weights(run->ledger, costs);
    atomic_int *stop = nq_run_stop_flag(run);
    const nq_sample_config cfg = {
        .job = p->job,
        .costs = costs,
        .skip = skip,
        .chunk_units = p->chunk_units,
        .threads = sample_threads > 0 ? sample_threads : 1,
        .stop = stop,
        .done = sample_done,
        .claim = sample_claim,
        .give_back = sample_give_back,
        .overdue = on_overdue,
        .user = &er,
    };
    nq_calibration cal;
    if (nq_calibrate(&cfg, &cal) == 0 && cal.chunks > 0 && !(stop && atomic_load(stop)))
        deliver(&er, &cal);
out:
    free(skip);
    free(costs);
}
