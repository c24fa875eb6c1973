/*
 * monitor.h - the thread that watches a running count: progress reports,
 * periodic journal flushes, and turning a cancel request into a stop.
 *
 * Workers only bump an atomic counter (config.units_done) and record
 * chunks into the journal's memory buffer; every report, write() and
 * fsync() happens on the monitor thread, so workers never wait on I/O or on
 * a user's callback, and the callback runs on one thread at a time.
 */
#ifndef NQ_MONITOR_H
#define NQ_MONITOR_H

#include "journal/journal.h"

typedef struct nq_monitor nq_monitor;

typedef struct nq_monitor_config {
    nq_progress_fn progress;  /* optional */
    void *progress_user;
    double progress_interval; /* seconds between reports (>= 0) */
    nq_journal *journal;      /* optional; flushed every tick, fsynced every checkpoint_interval */
    double checkpoint_interval;
    atomic_int *user_cancel;  /* optional; polled every tick */
    atomic_int *stop;         /* raised on user cancel or journal failure; the pool watches it */
    const atomic_uint_fast64_t *units_done; /* units this process finished; workers add */
    uint64_t units_total;
    uint64_t units_resumed;   /* already done when the run started */
    double start;             /* nq_now() at the start of the run */
} nq_monitor_config;

/* Starts the monitor thread.  Returns 0, NQ_ENOMEM, or NQ_EIO when no
 * thread could be created. */
int nq_monitor_start(nq_monitor **out, const nq_monitor_config *config);

/* Stops and joins the thread, then makes the final progress call (final=1)
 * from the calling thread.  Returns 0, or NQ_EIO when a journal flush failed
 * while running (nq_journal_last_error() says why).  Accepts NULL. */
int nq_monitor_stop(nq_monitor **m);

#endif /* NQ_MONITOR_H */
