/*
 * duration.h - the expected duration of a planned run (implemented in
 * duration.c), shared by nq_count() and nqueens-mpi's rank 0.
 */
#ifndef NQ_API_DURATION_H
#define NQ_API_DURATION_H

#include "api/plan.h"
#include "run/run.h"

/*
 * When the run has an estimate callback: calibrates the engine's relative
 * unit costs by timing a random sample of the units left (run/estimate.h)
 * on sample_threads threads, and posts the run's expected duration on the
 * plan's threads, counted from the run's start, to the run
 * (nq_run_post_estimate): first a lower bound when the sample outlasts its
 * budget, then the calibrated figure.  Call it after nq_run_start() and
 * before solving; the sample's work counts for nothing (the run does it
 * again).  A completed journal, a raised stop flag or a lack of memory
 * means no estimate.
 */
void nq_plan_estimate(const nq_plan *p, nq_run *run, int sample_threads);

#endif /* NQ_API_DURATION_H */
