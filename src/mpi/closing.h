/*
 * closing.h - the end of an nqueens-mpi job: the closing barrier and
 * MPI_Finalize, with a bound on how long rank 0 waits in them.
 *
 * Every rank meets the others (polled with naps, so the rank that
 * finished first does not spin a core) and then finalizes; Open MPI's
 * MPI_Finalize waits for every rank too.  A rank that stops or hangs after
 * its last word to rank 0 would hold rank 0 there forever, after the
 * result is out.  So on rank 0 a watchdog thread ends the process once the
 * rank timeout has passed, which makes mpiexec end the job; it makes no
 * MPI call, since only the main thread may.
 */
#ifndef NQ_MPI_CLOSING_H
#define NQ_MPI_CLOSING_H

/* Exit status of a count that is complete, its total printed and exact,
 * that a rank left before the end: it stalled and the job had to be ended
 * without it, or it stopped on a signal and the others counted its
 * chunks. */
#define NQ_MPI_EXIT_COMPLETE_WITHOUT_A_RANK 3

/*
 * Ends this rank's part of the job, then MPI_Finalize.  With `meet` (every
 * rank passes the same), the ranks first meet and agree on rank 0's exit
 * status: a rank whose own status is negative (it stopped because rank 0
 * told it to) takes rank 0's, so mpiexec's status is the run's.  On rank 0
 * with a timeout > 0, if the end takes longer than `timeout` seconds (a
 * rank stopped or hung after its last word), says so on stderr and exits
 * the process with `status`, or NQ_MPI_EXIT_COMPLETE_WITHOUT_A_RANK for 0;
 * stdout must be flushed before.  A segfault inside MPI_Finalize (an Open
 * MPI 4.1 bug) ends the process with this rank's exit status and a line
 * on stderr.  Returns this rank's exit status.
 */
int nq_mpi_close_job(int meet, double timeout, int status);

#endif /* NQ_MPI_CLOSING_H */
