/*
 * duration.h - the expected duration of a planned run (implemented in
 * duration.c), shared by nq_count() and nqueens-mpi's rank 0.
 */
#ifndef NQ_API_DURATION_H
#define NQ_API_DURATION_H

#include "api/plan.h"
#include "run/run.h"

/*
 * When the run has an estimate callback: weighs the run's chunks by the
 * engine's relative unit costs (nq_ledger_set_weights, for progress by
 * work), calibrates those costs by solving a stratified sample of the
 * chunks left (run/estimate.h) on sample_threads threads, and posts the
 * run's expected duration on the plan's threads, counted from the run's
 * start, to the run (nq_run_post_estimate): first a lower bound when the
 * sample outlasts its budget, then the calibrated figure.  Call it after
 * nq_run_start(), before solving or beside solvers that take their chunks
 * from the ledger (nq_ledger_take: nqueens-mpi's other ranks): the sample
 * claims each chunk from the ledger before solving it and finishes it
 * there with its counts, so the solving must skip the finished chunks
 * (nq_ledger_finished, or nq_ledger_take, which hands out only chunks
 * neither finished nor out).  A completed journal, a raised stop
 * flag or a lack of memory means no estimate.
 */
void nq_plan_estimate(const nq_plan *p, nq_run *run, int sample_threads);

#endif /* NQ_API_DURATION_H */
