/*
 * count.c - nq_count(): plan a job, solve every unit with the task pool,
 * and fill the result.
 *
 * With a checkpoint journal or a progress callback the run also gets a
 * monitor thread (monitor.c).  Workers then tell each finished chunk to the
 * chunk_done hook below, which only records it in memory; the monitor does
 * all the reporting and file I/O.
 */
#include <stdio.h>
#include <string.h>

#include "api/registry.h"
#include "api/plan.h"
#include "journal/journal.h"
#include "run/monitor.h"
#include "run/pool.h"

/* What the chunk_done hook needs to know; shared by all workers. */
typedef struct count_ctx {
    nq_journal *journal;
    atomic_uint_fast64_t units_done; /* by this process */
    uint64_t units;
    uint64_t units_per_chunk;
} count_ctx;

/* Called by the worker that finished chunk c: thread-safe, no I/O. */
static void chunk_done(void *user, uint64_t c, const nq_counts *counts)
{
    count_ctx *ctx = user;
    if (ctx->journal)
        nq_journal_record(ctx->journal, c, counts);
    uint64_t begin = c * ctx->units_per_chunk;
    uint64_t end = begin + ctx->units_per_chunk;
    atomic_fetch_add_explicit(&ctx->units_done, (end < ctx->units ? end : ctx->units) - begin,
                              memory_order_relaxed);
}

/* The one progress call a run with nothing left to do still owes. */
static void report_done(const nq_settings *s, uint64_t units, uint64_t resumed, double start)
{
    if (!s->progress)
        return;
    nq_progress p = {
        .units_done = units,
        .units_total = units,
        .units_resumed = resumed,
        .elapsed = nq_now() - start,
        .rate = 0,
        .eta = 0,
        .final = 1,
    };
    s->progress(&p, s->progress_user);
}

static void fill_result(nq_result *result, const nq_job *job, const nq_counts *sum,
                        uint64_t units_done, uint64_t resumed, double start)
{
    result->total = sum->total;
    result->unique = sum->unique;
    result->has_unique = job->ops->has_unique;
    result->subproblems = units_done;
    result->units_resumed = resumed;
    result->engine = job->ops->id;
    result->threads = job->threads;
    result->split_depth = job->split_depth;
    result->seconds = nq_now() - start;
}

int nq_count(const nq_settings *s, nq_result *result)
{
    if (!result)
        return NQ_EINVAL_ARG;
    result->detail[0] = '\0';
    int ret = nq_validate_settings(s);
    if (ret < 0)
        return ret;
    const double start = nq_now();

    /* A journalled run plans the job its journal was written for. */
    nq_settings plan = *s;
    if (s->checkpoint_path)
        nq_plan_journalled(s->checkpoint_path, &plan);
    nq_job *job = NULL;
    ret = nq_job_create(&job, &plan);
    if (ret < 0)
        return ret;

    nq_journal *journal = NULL;
    if (s->checkpoint_path) {
        /* Opened (or created) before any work: a bad path fails at once. */
        ret = nq_journal_open_detail(&journal, s->checkpoint_path, job, s->notice, s->notice_user,
                                     result->detail, sizeof result->detail);
        if (ret < 0) {
            nq_job_free(&job);
            return ret;
        }
    }

    nq_counts sum = {0, 0};
    uint64_t resumed = 0;
    if (journal) {
        sum = nq_journal_resumed_counts(journal);
        resumed = nq_journal_resumed_units(journal);
        if (nq_journal_is_complete(journal)) {
            report_done(s, job->units, resumed, start);
            fill_result(result, job, &sum, job->units, resumed, start);
            nq_journal_close(&journal);
            nq_job_free(&job);
            return 0;
        }
    }

    /* With a monitor, the pool watches `stop`, which the monitor raises when
     * the user's cancel is set or the journal cannot be written. */
    atomic_int stop;
    atomic_init(&stop, s->cancel ? atomic_load(s->cancel) : 0);
    count_ctx ctx = {.journal = journal, .units = job->units};
    atomic_init(&ctx.units_done, 0);
    nq_monitor *monitor = NULL;
    nq_pool_run run = {
        .job = job,
        .first_unit = 0,
        .unit_count = job->units,
        .threads = job->threads,
        .cancel = s->cancel,
        .chunk_done = chunk_done,
        .user = &ctx,
    };
    if (journal) {
        run.units_per_chunk = nq_journal_chunk_units(job);
        run.skip = nq_journal_done(journal);
    } else {
        run.units_per_chunk =
            nq_pool_chunk_size(job->units, run.threads, NQ_POOL_CHUNKS_PER_THREAD);
    }
    ctx.units_per_chunk = run.units_per_chunk;

    if (journal || s->progress) {
        nq_monitor_config mc = {
            .progress = s->progress,
            .progress_user = s->progress_user,
            .progress_interval = s->progress_interval,
            .journal = journal,
            .checkpoint_interval = s->checkpoint_interval,
            .user_cancel = s->cancel,
            .stop = &stop,
            .units_done = &ctx.units_done,
            .units_total = job->units,
            .units_resumed = resumed,
            .start = start,
        };
        ret = nq_monitor_start(&monitor, &mc);
        if (ret < 0)
            goto out;
        run.cancel = &stop;
    }

    ret = nq_pool_solve(&run, &sum);
    const uint64_t units_done = resumed + atomic_load(&ctx.units_done);
    int io = nq_monitor_stop(&monitor);
    if (io == 0 && journal) {
        /* Complete: append the DONE record.  Cancelled: make what was
         * recorded durable before reporting that the run can be resumed. */
        io = ret == 0 ? nq_journal_finish(journal)
                      : ret == NQ_ECANCELLED ? nq_journal_flush(journal, 1) : 0;
    }
    if (io < 0) {
        ret = NQ_EIO;
        snprintf(result->detail, sizeof result->detail, "%s", nq_journal_last_error(journal));
    }
    if (ret == 0 || ret == NQ_ECANCELLED)
        fill_result(result, job, &sum, units_done, resumed, start);
out:
    /* Closing flushes and fsyncs what a cancelled run recorded. */
    nq_journal_close(&journal);
    nq_job_free(&job);
    return ret;
}
