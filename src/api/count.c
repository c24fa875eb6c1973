/*
 * count.c - nq_count(): plan the run, solve its chunks with the pool,
 * and fill the result.
 *
 * The plan (plan.c) fixes the engine, split depth, unit list and chunking
 * and opens the journal (and, when asked, estimates the run's duration:
 * duration.c); the run (run/run.c) keeps the ledger of chunks
 * and, with a journal or a progress callback, the monitor thread.  Workers
 * only tell each finished chunk to the ledger; the monitor does all the
 * reporting and file I/O.
 */
#include "api/duration.h"
#include "api/plan.h"
#include "run/pool.h"
#include "run/run.h"

/* The ledger as the runner's source: chunk c is wanted unless the journal
 * already held it; a finished chunk goes back to the ledger.  Both are
 * thread-safe and do no I/O. */
static int chunk_wanted(void *user, uint64_t chunk)
{
    return !nq_ledger_resumed_flags(user)[chunk];
}

static void chunk_done(void *user, uint64_t chunk, const nq_counts *counts)
{
    nq_ledger_finish(user, chunk, counts);
}

/* Solves the chunks of the plan that the ledger does not hold yet. */
static int solve(const nq_plan *plan, nq_run *run, enum nq_schedule schedule)
{
    if (nq_ledger_complete(run->ledger))
        return 0;
    nq_pool_run pool = {
        .job = plan->job,
        .first_unit = 0,
        .unit_count = plan->job->units,
        .units_per_chunk = plan->chunk_units,
        .source = {.wanted = chunk_wanted, .done = chunk_done, .user = run->ledger},
        .threads = plan->job->threads,
        .schedule = schedule,
        .cancel = nq_run_stop_flag(run),
    };
    pool.source.chunks = nq_pool_chunks(&pool);
    nq_counts ignored = {0, 0}; /* the ledger's sums include resumed chunks */
    return nq_pool_solve(&pool, &ignored);
}

int nq_count(const nq_settings *s, nq_result *result)
{
    if (!result)
        return NQ_EINVAL_ARG;
    result->detail[0] = '\0';
    const double start = nq_now();
    nq_plan plan;
    int ret = nq_plan_open(&plan, s, nq_resolve_threads(s ? s->threads : 0), 1, result->detail,
                           sizeof result->detail);
    if (ret < 0)
        return ret;
    const nq_run_config rc = nq_plan_run_config(&plan, s, start);
    nq_run run;
    ret = nq_run_start(&run, &rc);
    if (ret == 0) {
        nq_plan_estimate(&plan, &run, plan.job->threads);
        ret = solve(&plan, &run, s->schedule);
        nq_counts sum;
        uint64_t done, resumed;
        nq_run_outcome(&run, &sum, &done, &resumed);
        ret = nq_run_finish(&run, ret, result->detail, sizeof result->detail);
        if (ret == 0 || ret == NQ_ECANCELLED)
            nq_plan_result(&plan, &sum, done, resumed, plan.job->threads, nq_now() - start,
                           result);
    }
    /* Closing flushes and fsyncs what a stopped run recorded. */
    nq_plan_close(&plan);
    return ret;
}
