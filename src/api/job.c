/*
 * job.c - the job: planned (the one place, for the public calls and for
 * the run planner alike), queried, solved unit by unit or by ranges, freed.
 */
#include <stdlib.h>

#include "api/job.h"
#include "api/registry.h"
#include "run/pool.h"

/* Chunks per thread when a caller solves a range without saying how to cut
 * it: enough for the pool to balance uneven units. */
#define NQ_JOB_CHUNKS_PER_THREAD 64

int nq_plan_job(nq_job **out, int n, enum nq_engine engine, int threads, int split_depth)
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
    return nq_plan_job(out, s->n, engine, nq_resolve_threads(s->threads),
                       s->split_depth > 0 ? s->split_depth : NQ_SPLIT_AUTO);
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

uint64_t nq_job_units(const nq_job *job)
{
    return job->units;
}

enum nq_engine nq_job_engine(const nq_job *job)
{
    return job->ops->id;
}

int nq_job_split_depth(const nq_job *job)
{
    return job->split_depth;
}

uint64_t nq_job_identity(const nq_job *job)
{
    return job->identity;
}

int nq_job_solve(nq_job *job, uint64_t first, uint64_t count, int threads,
                 atomic_int *cancel, nq_counts *sum)
{
    if (!job || !sum || first > job->units || count > job->units - first || threads < 0)
        return NQ_EINVAL_ARG;
    if (count == 0)
        return 0;
    nq_pool_run run = {
        .job = job,
        .first_unit = first,
        .unit_count = count,
        .threads = nq_resolve_threads(threads),
        .cancel = cancel,
    };
    run.units_per_chunk = nq_pool_chunk_size(count, run.threads, NQ_JOB_CHUNKS_PER_THREAD);
    nq_counts part = {0, 0};
    int ret = nq_pool_solve(&run, &part);
    if (ret < 0)
        return ret;
    nq_counts_add(sum, &part);
    return 0;
}

int nq_job_solve_unit(nq_job *job, uint64_t unit, nq_counts *out)
{
    if (!job || !out || unit >= job->units)
        return NQ_EINVAL_ARG;
    void *scratch = NULL;
    if (job->ops->scratch_size) {
        scratch = calloc(1, job->ops->scratch_size(job));
        if (!scratch)
            return NQ_ENOMEM;
    }
    job->ops->solve(job, unit, out, scratch);
    free(scratch);
    return 0;
}
