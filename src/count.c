/*
 * count.c - nq_count(): plan a job, solve every unit with the task pool,
 * and fill the result.
 */
#include "engines.h"
#include "pool.h"

int nq_count(const nq_settings *s, nq_result *result)
{
    if (!result)
        return NQ_EINVAL_ARG;
    const double start = nq_now();
    nq_job *job = NULL;
    int ret = nq_job_create(&job, s);
    if (ret < 0)
        return ret;

    nq_pool_run run = {
        .job = job,
        .first_unit = 0,
        .unit_count = job->units,
        .threads = job->threads,
        .cancel = s->cancel,
    };
    run.units_per_chunk = nq_pool_chunk_size(job->units, run.threads, 64);
    nq_counts sum = {0, 0, 0};
    ret = nq_pool_solve(&run, &sum);
    if (ret == 0) {
        result->total = sum.total;
        result->unique = sum.unique;
        result->has_unique = job->ops->has_unique;
        result->nodes = sum.nodes;
        result->has_nodes = job->ops->has_nodes;
        result->subproblems = job->units;
        result->units_resumed = 0;
        result->engine = job->ops->id;
        result->threads = job->threads;
        result->split_depth = job->split_depth;
        result->seconds = nq_now() - start;
    }
    nq_job_free(&job);
    return ret;
}
