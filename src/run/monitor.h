/*
 * monitor.h - the thread that watches a running count: progress reports,
 * periodic journal flushes, and turning a cancel request into a stop.
 *
 * Workers only report finished chunks to the run's ledger, which buffers
 * the journal records in memory; every report, write() and fsync() happens
 * on the monitor thread, so workers never wait on I/O or on a user's
 * callback, and the callbacks (progress, estimate) run on one thread at a
 * time.  nq_count() and
 * nqueens-mpi's rank 0 run the same monitor, so both write journal records
 * at the same cadence and report progress with the same arithmetic.
 */
#ifndef NQ_MONITOR_H
#define NQ_MONITOR_H

#include "journal/journal.h"
#include "run/ledger.h"

typedef struct nq_monitor nq_monitor;

typedef struct nq_monitor_config {
    nq_progress_fn progress;  /* optional */
    void *progress_user;
    double progress_interval; /* seconds between reports (>= 0) */
    nq_journal *journal;      /* optional; flushed every tick, fsynced every checkpoint_interval */
    double checkpoint_interval;
    atomic_int *user_cancel;  /* optional; polled every tick */
    nq_estimate_fn estimate;  /* optional: gets posted estimates (nq_monitor_post_estimate) */
    void *estimate_user;
    atomic_int *stop;         /* raised on user cancel or journal failure; the workers watch it */
    const nq_ledger *ledger;  /* units done, resumed and in all */
    double start;             /* nq_now() at the start of the run */
} nq_monitor_config;

/* Starts the monitor thread.  Returns 0, NQ_ENOMEM, or NQ_EIO when no
 * thread could be created. */
int nq_monitor_start(nq_monitor **out, const nq_monitor_config *config);

/* Keeps a copy of *e for the thread, which hands it to the estimate
 * callback at its next tick, before any progress report.  Thread-safe. */
void nq_monitor_post_estimate(nq_monitor *m, const nq_estimate *e);

/* Stops and joins the thread, then hands on an estimate still posted and
 * makes the final progress call (final=1) from the calling thread.
 * Returns 0, or NQ_EIO when a journal flush failed while running
 * (nq_journal_last_error() says why).  Accepts NULL. */
int nq_monitor_stop(nq_monitor **m);

#endif /* NQ_MONITOR_H */
