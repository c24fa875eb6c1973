/*
 * job.c - the job: planned (the one place, for the public calls and for
 * the run planner alike), queried, solved by ranges (through the chunk
 * runner) or unit by unit (through a solver that keeps one thread's
 * scratch from unit to unit), freed.
 */
#include <stdlib.h>

#include "api/job.h"
#include "api/registry.h"
#include "core/scratch.h"
#include "run/pool.h"

/* Chunks per thread when a caller solves a range without saying how to cut
 * it: enough for the pool to balance uneven units. */
#define NQ_JOB_CHUNKS_PER_THREAD 64

int nq_plan_job(nq_job **out, int n, enum nq_engine engine, int threads, int split_depth,
                uint64_t memory)
{
    *out = NULL;
    const struct nq_engine_ops *ops = nq_engine_ops_for(engine);
    if (!ops)
        return NQ_EINVAL_ENGINE;
    if (n > nq_engine_max_n(engine))
        return NQ_EUNSUPPORTED;
    nq_job *job = calloc(1, sizeof *job);
    if (!job)
        return NQ_ENOMEM;
    job->ops = ops;
    job->n = n;
    job->threads = threads > 0 ? threads : 1;
    job->memory = memory;
    int ret = ops->plan(job, split_depth);
    if (ret < 0) {
        nq_job_free(&job);
        return ret;
    }
    *out = job;
    return 0;
}

int nq_job_create(nq_job **out, const nq_settings *s)
{
    if (!out)
        return NQ_EINVAL_ARG;
    *out = NULL;
    int ret = nq_check_settings(s, NULL, 0);
    if (ret < 0)
        return ret;
    const enum nq_engine engine =
        s->engine == NQ_ENGINE_AUTO ? nq_auto_engine(s->n, s->threads) : s->engine;
    ret = nq_plan_job(out, s->n, engine, nq_resolve_threads(s->threads),
                      s->split_depth > 0 ? s->split_depth : NQ_SPLIT_AUTO, s->memory);
    if (ret == 0)
        (*out)->schedule = s->schedule;
    return ret;
}

void nq_job_free(nq_job **job)
{
    if (!job || !*job)
        return;
    if ((*job)->ops->release)
        (*job)->ops->release(*job);
    free(*job);
    *job = NULL;
}

/* The accessors have no error to return: a NULL job reads as an empty
 * one (no units, no engine, identity 0), as the header says. */
uint64_t nq_job_units(const nq_job *job)
{
    return job ? job->units : 0;
}

enum nq_engine nq_job_engine(const nq_job *job)
{
    return job ? job->ops->id : NQ_ENGINE_AUTO;
}

int nq_job_split_depth(const nq_job *job)
{
    return job ? job->split_depth : 0;
}

uint64_t nq_job_identity(const nq_job *job)
{
    return job ? job->identity : 0;
}

int nq_job_solve(nq_job *job, uint64_t first, uint64_t count, int threads,
                 atomic_int *cancel, nq_counts *sum)
{
    if (!job || !sum || first > job->units || count > job->units - first)
        return NQ_EINVAL_ARG;
    /* 0 takes OMP_NUM_THREADS as the library reads it, which may refuse. */
    const int resolved =
        threads >= 0 && threads <= NQ_MAX_THREADS ? nq_resolve_threads(threads) : -1;
    if (resolved < 1 || resolved > NQ_MAX_THREADS)
        return NQ_EINVAL_THREADS;
    if (count == 0)
        return 0;
    nq_pool_run run = {
        .job = job,
        .first_unit = first,
        .unit_count = count,
        .threads = resolved,
        .schedule = job->schedule,
        .cancel = cancel,
    };
    run.units_per_chunk = nq_pool_chunk_size(count, run.threads, NQ_JOB_CHUNKS_PER_THREAD);
    run.source.chunks = nq_pool_chunks(&run);
    nq_counts part = {0, 0};
    int ret = nq_pool_solve(&run, &part);
    if (ret < 0)
        return ret;
    nq_counts_add(sum, &part);
    return 0;
}

struct nq_solver {
    nq_job *job;
    void *scratch; /* the engine's, NULL when it needs none */
    size_t scratch_bytes;
};

int nq_solver_create(nq_solver **out, nq_job *job)
{
    if (!out)
        return NQ_EINVAL_ARG;
    *out = NULL;
    if (!job)
        return NQ_EINVAL_ARG;
    nq_solver *s = calloc(1, sizeof *s);
    if (!s)
        return NQ_ENOMEM;
    s->job = job;
    /* Zeroed, as the engine contract wants at the start of a run. */
    s->scratch_bytes = nq_job_scratch_bytes(job);
    if (s->scratch_bytes && !(s->scratch = nq_scratch_alloc(s->scratch_bytes))) {
        free(s);
        return NQ_ENOMEM;
    }
    *out = s;
    return 0;
}

int nq_solver_solve(nq_solver *s, uint64_t unit, nq_counts *out)
{
    if (!s || !out || unit >= s->job->units)
        return NQ_EINVAL_ARG;
    s->job->ops->solve(s->job, unit, out, s->scratch);
    return 0;
}

int nq_solver_solve_sample(nq_solver *s, uint64_t unit, uint32_t every, double *skipped)
{
    if (!s || !skipped || unit >= s->job->units || every == 0)
        return NQ_EINVAL_ARG;
    if (!s->job->ops->solve_sample)
        return NQ_EUNSUPPORTED;
    nq_counts lost;
    *skipped = (every - 1) * s->job->ops->solve_sample(s->job, unit, every, &lost, s->scratch);
    return 0;
}

void nq_solver_free(nq_solver **s)
{
    if (!s || !*s)
        return;
    nq_scratch_free((*s)->scratch, (*s)->scratch_bytes);
    free(*s);
    *s = NULL;
}

int nq_job_solve_unit(nq_job *job, uint64_t unit, nq_counts *out)
{
    if (!job || !out || unit >= job->units)
        return NQ_EINVAL_ARG;
    nq_solver *s;
    int ret = nq_solver_create(&s, job);
    if (ret == 0)
        ret = nq_solver_solve(s, unit, out);
    nq_solver_free(&s);
    return ret;
}
