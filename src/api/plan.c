/*
 * plan.c - planning a run (see plan.h for the rules).
 */
#include <stdlib.h>
#include <string.h>

#include "api/plan.h"
#include "api/registry.h"
#include "run/pool.h"

/* Deepest split nq_plan_default_split() picks: depth 6 already means
 * millions of subproblems from N = 21 on. */
#define PLAN_MAX_DEFAULT_SPLIT 6

int nq_plan_default_split(int n)
{
    /* Work grows with n about as fast as the units grow with one more row
     * of split, so a depth that follows n keeps a unit's time about the
     * same, well under a second on one core (docs/performance.md, "Figures
     * the code's choices rest on"). */
    int depth = n - 15;
    if (depth < 2)
        depth = 2;
    if (depth > PLAN_MAX_DEFAULT_SPLIT)
        depth = PLAN_MAX_DEFAULT_SPLIT;
    return depth < n ? depth : n;
}

uint64_t nq_plan_durable_chunk_units(const nq_job *job)
{
    uint64_t per = (job->units + NQ_PLAN_MAX_CHUNKS - 1) / NQ_PLAN_MAX_CHUNKS;
    return per ? per : 1;
}

void nq_plan_resolve(const nq_settings *s, enum nq_engine *engine, int *split)
{
    int n = 0, journal_split = 0;
    enum nq_engine journal_engine = NQ_ENGINE_AUTO;
    const int resuming = s->checkpoint_path &&
                         nq_journal_peek(s->checkpoint_path, &n, &journal_engine,
                                         &journal_split) &&
                         n == s->n && nq_engine_ops_for(journal_engine) != NULL;
    *engine = s->engine;
    if (*engine == NQ_ENGINE_AUTO)
        *engine = resuming ? journal_engine : nq_auto_engine(s->n, s->threads);
    const struct nq_engine_ops *ops = nq_engine_ops_for(*engine);

    if (s->split_depth > 0)
        *split = s->split_depth;
    else if (resuming && journal_engine == *engine && ops->has_split && journal_split >= 0 &&
             journal_split <= s->n && journal_split <= NQ_MAX_SPLIT_DEPTH)
        *split = journal_split;
    else if (s->checkpoint_path && *engine == NQ_ENGINE_MIRROR)
        *split = nq_plan_default_split(s->n);
    else
        *split = NQ_SPLIT_AUTO;
}

int nq_plan_open(nq_plan *p, const nq_settings *s, int workers, int processes, char *detail,
                 size_t size)
{
    memset(p, 0, sizeof *p);
    int ret = nq_check_settings(s, detail, size);
    if (ret < 0)
        return ret;
    enum nq_engine engine;
    int split;
    nq_plan_resolve(s, &engine, &split);
    ret = nq_plan_job(&p->job, s->n, engine, workers, split, s->memory);
    if (ret < 0)
        return ret;
    p->verify = s->verify;
    const int durable = s->checkpoint_path || processes > 1;
    p->chunk_units = durable ? nq_plan_durable_chunk_units(p->job)
                             : nq_pool_chunk_size(p->job->units, p->job->threads,
                                                  NQ_POOL_CHUNKS_PER_THREAD);
    if (!durable && p->job->chunk_limit && p->chunk_units > p->job->chunk_limit)
        p->chunk_units = p->job->chunk_limit;
    if (s->checkpoint_path) {
        /* Opened (or created) before any work: a bad path fails at once. */
        ret = nq_journal_open(&p->journal, s->checkpoint_path, p->job, p->chunk_units,
                                     s->notice, s->notice_user, detail, size);
        if (ret < 0) {
            nq_job_free(&p->job);
            return ret;
        }
    }
    return 0;
}

void nq_plan_close(nq_plan *p)
{
    nq_journal_close(&p->journal);
    nq_job_free(&p->job);
}

nq_run_config nq_plan_run_config(const nq_plan *p, const nq_settings *s, double start)
{
    const nq_run_config rc = {
        .job = p->job,
        .chunk_units = p->chunk_units,
        .journal = p->journal,
        .progress = s->progress,
        .progress_user = s->progress_user,
        .progress_interval = s->progress_interval,
        .checkpoint_interval = s->checkpoint_interval,
        .cancel = s->cancel,
        .estimate = s->estimate,
        .estimate_user = s->estimate_user,
        .start = start,
    };
    return rc;
}

void nq_plan_result(const nq_plan *p, const nq_counts *sum, uint64_t units_done,
                    uint64_t units_resumed, int threads, double seconds, nq_result *r)
{
    char detail[sizeof r->detail];
    memcpy(detail, r->detail, sizeof detail);
    memset(r, 0, sizeof *r);
    memcpy(r->detail, detail, sizeof detail);
    r->total = sum->total;
    r->unique = sum->unique;
    r->has_unique = p->job->ops->has_unique;
    r->subproblems = units_done;
    r->units_resumed = units_resumed;
    r->seconds = seconds;
    r->engine = p->job->ops->id;
    r->threads = threads;
    r->split_depth = p->job->split_depth;
}
