/*
 * worker.h - a non-zero rank of nqueens-mpi.
 *
 * The main thread is the rank's only MPI caller: it keeps a small queue of
 * chunks topped up from rank 0 (spares enough for a short lead time at the
 * rank's pace, so a thread finishing a chunk finds the next one waiting
 * instead of a round trip),
 * sends each finished chunk's counts back, obeys STOP and keeps rank 0
 * hearing from it (protocol.h).  The compute team drains the queue.
 */
#ifndef NQ_MPI_WORKER_H
#define NQ_MPI_WORKER_H

#include <signal.h>
#include <stdatomic.h>

#include "nqueens/nqueens.h"

/*
 * Runs a non-zero rank's side of the job: asks rank 0 for chunks (of
 * chunk_units units, the plan rank 0 broadcast), solves them on `threads`
 * threads, returns the counts and says goodbye, with a heartbeat whenever
 * it was silent for the heartbeat interval of rank 0's `rank_timeout`
 * (seconds).  When `cancel` rises (this rank's own signal), the rank
 * leaves at once: its BYE names *signal_seen (0 when unknown) and rank 0
 * gives its unfinished chunks to the others.  Returns 0, NQ_ECANCELLED or
 * an error (no memory for the queue or the threads' scratch, or the first
 * error of a unit; rank 0 is told which).  Collective with
 * nq_mpi_coordinate() on rank 0.
 */
int nq_mpi_work(nq_job *job, uint64_t chunk_units, int threads, double rank_timeout,
                atomic_int *cancel, const atomic_int *signal_seen);

#endif /* NQ_MPI_WORKER_H */
