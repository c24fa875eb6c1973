/*
 * coordinator.h - rank 0 of nqueens-mpi: the dispenser of chunks and the
 * collector of counts.
 *
 * The chunk bookkeeping, the journal and progress are the run layer's
 * (run/run.h), exactly as in nq_count(): this file only moves chunks and
 * counts between that run's ledger and the other ranks.  Rank 0 computes
 * too: its own team takes chunks straight from the ledger, while the main
 * thread answers the other ranks.  Chunks go out first come, first served,
 * a few at a time, so fast and slow ranks finish together.
 *
 * A rank that stays silent longer than the rank timeout (roster.h) is
 * taken for stalled: the chunks it holds go to the live ranks, rank 0's
 * own team included, and the count completes without it.  A rank stopped
 * by a signal of its own (a scheduler draining its node) leaves the same
 * way, at once: its goodbye gives its chunks back.  A stalled rank
 * cannot be waited for at the end, so the caller then ends the job with
 * MPI_Abort once the result is out.
 *
 * With cfg->verify, the sampled chunks (run/verify.h) are counted twice:
 * once its first count is in, a sampled chunk goes out again, to any rank
 * but the one that counted it (with a single rank, to any of rank 0's
 * threads but that one), and it is finished in the ledger only when the
 * two counts agree.  Counts that differ stop the run at once with
 * NQ_EVERIFY (every chunk finished before stays in the journal).  The only
 * solver left may check itself: rank 0 when every other rank is gone, or
 * the one thread of a one-rank, one-thread job.
 */
#ifndef NQ_MPI_COORDINATOR_H
#define NQ_MPI_COORDINATOR_H

#include <stdatomic.h>

#include "run/run.h"

typedef struct nq_mpi_coord_config {
    nq_job *job;
    nq_run *run;         /* started on the job; its ledger dispenses the chunks */
    int ranks;           /* MPI_COMM_WORLD size */
    int threads;         /* rank 0's compute threads, >= 1 */
    double rank_timeout; /* seconds a rank may stay silent before it is taken for stalled */
    double verify;       /* settings.verify: the fraction of chunks counted twice, or 0 */
    /* Tells the user, in one line without the program's name, that a rank
     * stalled or came back.  Called from the main thread. */
    void (*notice)(const char *message, void *user);
    void *notice_user;
    /* Optional: runs on rank 0's team thread before its threads take their
     * first chunk, while the main thread already hands chunks to the other
     * ranks (team.h). */
    void (*prepare)(void *user);
    void *prepare_user;
} nq_mpi_coord_config;

typedef struct nq_mpi_outcome {
    char message[256];      /* why the run failed, when it did */
    int abandoned;          /* some rank never said goodbye after STOP: the
                               caller must MPI_Abort instead of finalizing */
    int silent_rank;        /* a rank still silent at the end (the lowest), or 0:
                               it will never reach MPI_Finalize, so the caller
                               must end the job with MPI_Abort */
    double silent_for;      /* seconds that rank had been silent */
    int left_rank;          /* the first rank that left the count on its own
                               signal (its chunks went to the others), or 0 */
    int left_signal;        /* that signal */
} nq_mpi_outcome;

/* Seconds the ranks get to stop and say goodbye after a STOP (cancel or a
 * failed rank).  A rank that takes longer is stuck in a long unit or gone
 * (a dead peer also draws SIGTERM from mpiexec to everyone): rank 0 then
 * gives up on it rather than wait forever. */
#define NQ_MPI_STOP_GRACE 5.0

/*
 * Runs rank 0's side of the job until every chunk is counted and every
 * other rank said goodbye or is silent, or the run stops.  Returns 0 (every
 * chunk was counted), NQ_ECANCELLED (the run's stop flag was raised), or
 * the error of a failed rank with out->message set; out->silent_rank names
 * a rank that never came back.  The counts are the run's ledger's.
 * Collective: every other rank must be in nq_mpi_work().
 */
int nq_mpi_coordinate(const nq_mpi_coord_config *cfg, nq_mpi_outcome *out);
/* (Returns NQ_EVERIFY, with out->message naming the chunk, the ranks or
 * threads and both counts, when a sampled chunk's two counts differ.) */

/* "SIGINT", "SIGTERM" or "SIGHUP" (the signals a rank stops on), else
 * "a signal". */
const char *nq_mpi_signal_name(int sig);

#endif /* NQ_MPI_COORDINATOR_H */
