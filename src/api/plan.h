/*
 * plan.h - planning a run whose work must survive the process: the engine
 * and split depth of a journalled run.
 */
#ifndef NQ_API_PLAN_H
#define NQ_API_PLAN_H

#include "nqueens/nqueens.h"

/* Split depth a journalled mirror run uses when none is given: a function
 * of n alone (never of threads or ranks), deep enough that a unit takes well
 * under a second (N=20: depth 5, ~0.1 s a unit on one 2020s core), so a
 * cancel between units is prompt. */
int nq_plan_default_split(int n);

/* Fixes the plan of a journalled run before nq_job_create(): resolves
 * NQ_ENGINE_AUTO (to the journal's engine when path holds a usable header
 * for this n), and when s->split_depth is 0 and the engine is mirror, takes
 * the journal's split depth, else nq_plan_default_split(n).  Thus a
 * resumed run, whatever its thread or rank count, plans exactly the job the
 * journal was written for.  Only reads path. */
void nq_plan_journalled(const char *path, nq_settings *s);

#endif /* NQ_API_PLAN_H */
