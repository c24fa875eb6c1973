/*
 * run.c - starting and finishing a run (see run.h).
 */
#include <stdio.h>
#include <string.h>

#include "run/run.h"

int nq_run_start(nq_run *r, const nq_run_config *cfg)
{
    memset(r, 0, sizeof *r);
    r->cfg = *cfg;
    atomic_init(&r->stop, cfg->cancel ? atomic_load(cfg->cancel) : 0);
    int ret = nq_ledger_create(&r->ledger, cfg->job->units, cfg->chunk_units, cfg->journal);
    if (ret < 0 || (!cfg->journal && !cfg->progress && !cfg->estimate))
        return ret;
    nq_monitor_config mc = {
        .progress = cfg->progress,
        .progress_user = cfg->progress_user,
        .progress_interval = cfg->progress_interval,
        .journal = cfg->journal,
        .checkpoint_interval = cfg->checkpoint_interval,
        .user_cancel = cfg->cancel,
        .estimate = cfg->estimate,
        .estimate_user = cfg->estimate_user,
        .stop = &r->stop,
        .ledger = r->ledger,
        .start = cfg->start,
    };
    ret = nq_monitor_start(&r->monitor, &mc);
    if (ret < 0)
        nq_ledger_free(&r->ledger);
    return ret;
}

void nq_run_post_estimate(nq_run *r, const nq_estimate *e)
{
    if (r->monitor)
        nq_monitor_post_estimate(r->monitor, e);
    else if (r->cfg.estimate)
        r->cfg.estimate(e, r->cfg.estimate_user);
}

atomic_int *nq_run_stop_flag(nq_run *r)
{
    /* Without a monitor nobody copies the user's flag into ours. */
    return r->monitor || !r->cfg.cancel ? &r->stop : r->cfg.cancel;
}

void nq_run_outcome(nq_run *r, nq_counts *sum, uint64_t *units_done, uint64_t *units_resumed)
{
    *sum = nq_ledger_counts(r->ledger);
    *units_done = nq_ledger_units_done(r->ledger);
    *units_resumed = nq_ledger_units_resumed(r->ledger);
}

void nq_run_abandon(nq_run *r)
{
    nq_monitor_stop(&r->monitor);
    if (r->cfg.journal)
        nq_journal_flush(r->cfg.journal, 1);
}

int nq_run_finish(nq_run *r, int ret, char *detail, size_t size)
{
    const int complete = nq_ledger_complete(r->ledger);
    if (ret == 0 && !complete)
        ret = NQ_ECANCELLED;
    int io = nq_monitor_stop(&r->monitor);
    nq_journal *journal = r->cfg.journal;
    if (io == 0 && journal) {
        /* Complete: append the completion record.  Otherwise make what was
         * recorded durable, so a rerun resumes it (after a failure too:
         * what finished is good). */
        io = complete && ret == 0 ? nq_journal_finish(journal) : nq_journal_flush(journal, 1);
    }
    if (io < 0) {
        ret = NQ_EIO;
        if (detail && size)
            snprintf(detail, size, "%s", nq_journal_last_error(journal));
    }
    nq_ledger_free(&r->ledger);
    return ret;
}
