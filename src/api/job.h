/*
 * job.h - making a job: the one place a job is planned and freed.
 *
 * nq_job_create() (the public call), nq_plan_open() (a run of nq_count()
 * or of nqueens-mpi's rank 0) and an MPI worker all plan their job here,
 * so one engine, board and split depth give the same job whoever asks.
 */
#ifndef NQ_API_JOB_H
#define NQ_API_JOB_H

#include "core/engine.h"

/* Plans the job for board n on `engine` (never auto), sized for `threads`
 * threads (>= 1), at split_depth (exact, or NQ_SPLIT_AUTO), its working
 * memory within `memory` bytes a process (nq_settings.memory; 0 = the
 * engine's default).  Returns 0 and sets *out (free it with
 * nq_job_free()), or NQ_ENOMEM / NQ_EUNSUPPORTED / NQ_EINVAL_ENGINE with
 * *out NULL. */
int nq_plan_job(nq_job **out, int n, enum nq_engine engine, int threads, int split_depth,
                uint64_t memory);

/* Solves unit `unit` on the solver by sample, for timing units too long
 * to time whole (nqueens-bench --project-part): the engine's joins solve
 * one run of blocks in `every` (>= 1), evenly spread, the rest of the
 * unit is solved whole, and *skipped gets the CPU seconds that the blocks
 * passed over are expected to take: every - 1 times those of the blocks
 * solved.  The unit's time is then about the thread's CPU time for the
 * call plus *skipped.  Its counts are lost.  Returns 0, NQ_EINVAL_ARG, or
 * NQ_EUNSUPPORTED when the engine has no blocks to sample. */
int nq_solver_solve_sample(nq_solver *s, uint64_t unit, uint32_t every, double *skipped);

#endif /* NQ_API_JOB_H */
