/*
 * coordinator.h - rank 0 of nqueens-mpi: dispenser of chunks, collector of
 * counts, keeper of the journal and of the progress line.
 *
 * Rank 0 computes too: its own team takes chunks straight from the
 * dispenser, while the main thread answers the other ranks.  Chunks go out
 * first come, first served, a few at a time, so fast and slow ranks finish
 * together.
 */
#ifndef NQ_MPI_COORDINATOR_H
#define NQ_MPI_COORDINATOR_H

#include <stdatomic.h>

#include "nqueens/nqueens.h"

typedef struct nq_mpi_coord_config {
    nq_job *job;
    int ranks;           /* MPI_COMM_WORLD size */
    int threads;         /* rank 0's compute threads, >= 1 */
    atomic_int *cancel;  /* the signal flag; optional */
    nq_progress_fn progress; /* optional; called on the main thread */
    void *progress_user;
    double progress_interval;
    /* Optional, opened on the job: finished chunks are skipped, new ones
     * recorded, flushed and fsynced every checkpoint_interval seconds, at
     * once on cancel or failure, and finished when the run completes. */
    struct nq_journal *journal;
    double checkpoint_interval;
} nq_mpi_coord_config;

typedef struct nq_mpi_outcome {
    nq_counts sum;          /* every finished chunk, resumed ones included */
    uint64_t units_done;    /* units those chunks hold */
    uint64_t units_resumed; /* taken from the journal at start */
    char message[256];      /* why the run failed, when it did */
    int abandoned;          /* some rank never said goodbye after STOP: the
                               caller must MPI_Abort instead of finalizing */
} nq_mpi_outcome;

/* Seconds the ranks get to stop and say goodbye after a STOP (cancel or a
 * failed rank).  A rank that takes longer is stuck in a long unit or gone
 * (a dead peer also draws SIGTERM from mpiexec to everyone): rank 0 then
 * gives up on it rather than wait forever. */
#define NQ_MPI_STOP_GRACE 5.0

/*
 * Runs rank 0's side of the job until every chunk is counted and every
 * other rank said goodbye.  Returns 0 (all of *out valid), NQ_ECANCELLED
 * (out->sum holds what finished), or an error with out->message set.
 * Collective: every other rank must be in nq_mpi_work().
 */
int nq_mpi_coordinate(const nq_mpi_coord_config *cfg, nq_mpi_outcome *out);

#endif /* NQ_MPI_COORDINATOR_H */
