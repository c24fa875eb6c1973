/*
 * run.h - one run of a planned job, whoever solves its chunks: the ledger
 * of chunks, the monitor thread (progress, journal cadence, cancel) and
 * the journal's last word.
 *
 * nq_count() solves the chunks with the chunk runner (pool.h); nqueens-mpi's
 * rank 0 hands them to the ranks' compute threads (the same runner, fed by
 * each rank's stream of chunks).  Both start a run here, report
 * every finished chunk to its ledger, watch its stop flag, and finish it
 * here, so that what is journalled, how often, and what progress says are
 * the same for both.
 */
#ifndef NQ_RUN_RUN_H
#define NQ_RUN_RUN_H

#include "run/ledger.h"
#include "run/monitor.h"

typedef struct nq_run_config {
    const nq_job *job;
    uint64_t chunk_units;       /* the plan's chunking */
    nq_journal *journal;        /* optional: resumed from, recorded into */
    nq_progress_fn progress;    /* optional, with its user pointer and interval */
    void *progress_user;
    double progress_interval;
    double checkpoint_interval; /* seconds between fsyncs of the journal */
    atomic_int *cancel;         /* optional: the user's cancel flag */
    nq_estimate_fn estimate;    /* optional: gets what nq_run_post_estimate() posts */
    void *estimate_user;
    double start;               /* nq_now() when the run began (planning included) */
} nq_run_config;

typedef struct nq_run {
    nq_run_config cfg;
    nq_ledger *ledger;
    nq_monitor *monitor; /* running when there is a journal or a progress callback */
    atomic_int stop;     /* raised on the user's cancel or a failed journal write */
} nq_run;

/* Starts a run: its ledger (taking over the journal's finished chunks) and,
 * when there is a journal, a progress or an estimate callback, the monitor
 * thread.  Returns 0, NQ_ENOMEM, or NQ_EIO when no thread could be started. */
int nq_run_start(nq_run *r, const nq_run_config *cfg);

/* Hands an estimate of the run's duration to the estimate callback: from
 * the monitor thread at its next tick (or when the run finishes), so that
 * it never runs beside a progress report; at once when there is no
 * monitor.  Thread-safe; a newer estimate replaces one not yet handed on. */
void nq_run_post_estimate(nq_run *r, const nq_estimate *e);

/* The flag the workers must watch: raised when they are to stop after the
 * unit in hand (the user's cancel, or the journal cannot be written). */
atomic_int *nq_run_stop_flag(nq_run *r);

/*
 * Ends a run whose workers returned `ret` (0, NQ_ECANCELLED or an error):
 * stops the monitor (with the final progress report), then marks the
 * journal complete when every chunk is finished, or makes what was
 * recorded durable.  Returns 0 when the run is complete, NQ_ECANCELLED when
 * it stopped early, NQ_EIO when the journal could not be written (detail,
 * may be NULL, gets the line naming the file), or ret's error.  Frees the
 * ledger and monitor; the caller reads the ledger's figures first with
 * nq_run_outcome().
 */
int nq_run_finish(nq_run *r, int ret, char *detail, size_t size);

/* For a run whose solvers cannot be stopped (a stuck MPI rank: the process
 * is about to abort): stops the monitor and makes what was recorded in the
 * journal durable, but frees nothing, since solvers may still report. */
void nq_run_abandon(nq_run *r);

/* The counts and units of the run so far (finished chunks, resumed ones
 * included).  Valid until nq_run_finish(). */
void nq_run_outcome(nq_run *r, nq_counts *sum, uint64_t *units_done, uint64_t *units_resumed);

#endif /* NQ_RUN_RUN_H */
