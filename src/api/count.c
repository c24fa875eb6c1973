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
#include "run/verify.h"

/* What the runner's hooks need: the ledger, and the sample of chunks to
 * count twice (NULL without settings.verify). */
typedef struct count_state {
    nq_ledger *ledger;
    nq_verify *verify;
    int threads;
} count_state;

/* The ledger as the runner's source: chunk c is wanted unless it is
 * finished (the journal held it, or the estimate's sample solved it); a
 * finished chunk goes back to the ledger, or, when it
 * is sampled, its count and thread to the check (the ledger gets it once
 * the second count agrees).  Both are thread-safe and do no I/O. */
static int chunk_wanted(void *user, uint64_t chunk)
{
    const count_state *cs = user;
    return !nq_ledger_finished(cs->ledger, chunk);
}

static void chunk_done(void *user, uint64_t chunk, const nq_counts *counts)
{
    count_state *cs = user;
    if (cs->verify && nq_verify_sampled(cs->verify, chunk))
        nq_verify_first(cs->verify, chunk, counts, nq_pool_thread());
    else
        nq_ledger_finish(cs->ledger, chunk, counts);
}

/* The second pass of settings.verify: the sampled chunks counted once
 * (in this run, or in an earlier one that left them in the journal), each
 * on the thread after the one that counted it first, so that no thread
 * checks itself where the run has several.  A chunk from the journal goes
 * to thread c mod threads. */
static int check_wanted(void *user, uint64_t chunk)
{
    count_state *cs = user;
    return nq_verify_pending(cs->verify, chunk);
}

static int check_owner(void *user, uint64_t chunk)
{
    count_state *cs = user;
    const int first = nq_verify_first_solver(cs->verify, chunk);
    return first < 0 ? (int)(chunk % (uint64_t)cs->threads) : (first + 1) % cs->threads;
}

static void check_done(void *user, uint64_t chunk, const nq_counts *counts)
{
    count_state *cs = user;
    if (nq_verify_second(cs->verify, chunk, counts, nq_pool_thread()) == 1)
        nq_ledger_finish_checked(cs->ledger, chunk, counts);
}

/* Solves the chunks of the plan that the ledger does not hold yet, then,
 * with a sample to check, counts its chunks a second time. */
static int solve(const nq_plan *plan, nq_run *run, enum nq_schedule schedule, count_state *cs)
{
    nq_pool_run pool = {
        .job = plan->job,
        .first_unit = 0,
        .unit_count = plan->job->units,
        .units_per_chunk = plan->chunk_units,
        .source = {.wanted = chunk_wanted, .done = chunk_done, .user = cs},
        .threads = plan->job->threads,
        .schedule = schedule,
        .cancel = nq_run_stop_flag(run),
    };
    pool.source.chunks = nq_pool_chunks(&pool);
    /* The second counts run on the same threads and scratch, after the
     * first pass. */
    const nq_chunk_source check = {.chunks = pool.source.chunks, .wanted = check_wanted,
                                   .done = check_done, .owner = check_owner, .user = cs};
    if (cs->verify)
        pool.then = &check;
    nq_counts ignored = {0, 0}; /* the ledger's sums include resumed chunks */
    if (nq_ledger_complete(run->ledger)) {
        if (!cs->verify)
            return 0;
        /* Every chunk is in the journal: only its unchecked sample is left. */
        pool.source = check;
        pool.then = NULL;
    }
    return nq_pool_solve(&pool, &ignored);
}

int nq_count_planned(nq_plan *plan, const nq_settings *s, double start, nq_result *result)
{
    const nq_run_config rc = nq_plan_run_config(plan, s, start);
    nq_run run;
    int ret = nq_run_start(&run, &rc);
    if (ret < 0)
        return ret;
    count_state cs = {.ledger = run.ledger, .threads = plan->job->threads};
    if (s->verify > 0)
        ret = nq_verify_create(&cs.verify, s->verify, plan->job->identity,
                               nq_ledger_chunks(run.ledger), plan->journal);
    if (ret == 0) {
        nq_plan_estimate(plan, &run, plan->job->threads);
        ret = solve(plan, &run, s->schedule, &cs);
    }
    /* Two counts that differ fail the run, but only once it is over: the
     * journal keeps every finished chunk and is not marked complete, so the
     * total is never taken for checked. */
    if (ret == 0 && cs.verify)
        ret = nq_verify_failure(cs.verify, "thread", result->detail, sizeof result->detail);
    nq_counts sum;
    uint64_t done, resumed;
    nq_run_outcome(&run, &sum, &done, &resumed);
    ret = nq_run_finish(&run, ret, result->detail, sizeof result->detail);
    nq_verify_free(&cs.verify);
    if (ret == 0 || ret == NQ_ECANCELLED)
        nq_plan_result(plan, &sum, done, resumed, plan->job->threads, nq_now() - start, result);
    return ret;
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
    ret = nq_count_planned(&plan, s, start, result);
    /* Closing flushes and fsyncs what a stopped run recorded. */
    nq_plan_close(&plan);
    return ret;
}
