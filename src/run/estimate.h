/*
 * estimate.h - what a run will take: the engine's relative unit costs,
 * calibrated in seconds on this machine by timing a random sample of the
 * units, and spread over the threads by the scheduling model (model.h).
 *
 * The two halves are apart on purpose.  A calibration (seconds per unit of
 * cost) is measured once, on whatever job is at hand; a prediction needs
 * only costs, a chunking and a calibration, so it can be made for another
 * thread count, or for another job whose costs are on the same scale,
 * without solving anything more.
 *
 * The sample is solved on all the run's threads at once and every unit is
 * timed on the wall clock, so the calibration includes what the machine
 * does to a full run (shared caches, memory bandwidth, other load,
 * oversubscription).  Its units are uniform random, not the cheapest ones:
 * fixed per-unit overheads (the mitm engine's joins) make cheap units
 * dearer per unit of cost, and only a uniform sample weighs that right.
 */
#ifndef NQ_RUN_ESTIMATE_H
#define NQ_RUN_ESTIMATE_H

#include <stdatomic.h>

#include "core/engine.h"

/* Seconds after which no new sample unit is started.  Units already
 * started run to their end (a unit cannot be interrupted), so a sample
 * takes longer only when single units do. */
#define NQ_ESTIMATE_BUDGET 0.5
/* Share of the units left that a sample takes: its work is done twice,
 * so this bounds what an estimate costs a long run.  The sample has at
 * least one unit per thread, but is not taken at all (no estimate) when
 * that would be more than NQ_ESTIMATE_MAX_SHARE of the units left (a job
 * of a few big units, as plain's single one). */
#define NQ_ESTIMATE_SHARE 0.01
#define NQ_ESTIMATE_MAX_SHARE 0.05

/* Wall seconds a thread takes per unit of the engine's relative cost while
 * all threads work, measured on a sample. */
typedef struct nq_calibration {
    double seconds_per_cost; /* the sample's unit times over their costs; while
                              * !complete, a lower bound that counts the time
                              * the running units have taken so far */
    uint64_t units;          /* sample units finished */
    double seconds;          /* wall time the sample took (so far) */
    int complete;            /* every sample unit finished */
} nq_calibration;

typedef struct nq_sample_config {
    const nq_job *job;
    const double *costs;        /* relative cost of every unit, > 0 */
    const unsigned char *skip;  /* optional: chunk c needs no solving when skip[c] != 0 */
    uint64_t chunk_units;       /* units per chunk (for skip) */
    int threads;                /* threads to sample on (the run's) */
    atomic_int *stop;           /* optional: stop starting sample units when raised */
    /* Optional: called from a thread of its own when the sample is still
     * running NQ_ESTIMATE_BUDGET seconds after it started, with the lower
     * bound, and again, with a higher one, each time the time since the
     * start has doubled; never after nq_calibrate() returns. */
    void (*overdue)(const nq_calibration *lower, void *user);
    void *user;
} nq_sample_config;

/* Times a uniform random sample of the job's units not skipped (see
 * NQ_ESTIMATE_SHARE; none started once the budget is spent or would be by
 * the unit's expected time) on cfg->threads threads, and
 * fills *out.  Returns 0 (out->units is 0 when nothing was left to sample
 * or the stop flag was raised at once), NQ_EINVAL_ARG or NQ_ENOMEM.  When
 * no watchdog thread can be started, cfg->overdue is just not called. */
int nq_calibrate(const nq_sample_config *cfg, nq_calibration *out);

/* Wall seconds to solve the units of chunks not skipped (chunks of
 * chunk_units consecutive units, taken in index order by the first free of
 * `threads` workers, as the pool does) at seconds_per_cost.  Returns 0 and
 * sets *seconds, or NQ_EINVAL_ARG / NQ_ENOMEM. */
int nq_estimate_seconds(const double *costs, uint64_t units, uint64_t chunk_units,
                        const unsigned char *skip, int threads, double seconds_per_cost,
                        double *seconds);

#endif /* NQ_RUN_ESTIMATE_H */
