/*
 * roster.h - rank 0's record of the other ranks: when each was last heard
 * from, which chunks each holds, and which are live, silent or gone.
 *
 * A rank holds a chunk from the ASSIGN that carries it until the RESULT
 * that returns it.  A rank's main thread sends something at least every
 * heartbeat interval, even while its threads spend hours on one chunk, so
 * a rank unheard for longer than the rank timeout is stalled (stopped,
 * hung, cut off by the network), not busy: it is marked silent and its
 * chunks go back to the ledger for live ranks to take.  A silent rank
 * that speaks again is live again; the results it then sends for chunks
 * already counted elsewhere are ignored by the ledger.  A rank that says
 * goodbye is gone, and what it still held goes back at once: a rank that
 * stopped on a signal leaves its unfinished chunks behind, and waiting for
 * them would wait forever.  Only rank 0's main
 * thread uses the roster; it makes no MPI call.
 */
#ifndef NQ_MPI_ROSTER_H
#define NQ_MPI_ROSTER_H

#include <stdint.h>

#include "run/ledger.h"

enum nq_mpi_rank_state {
    NQ_MPI_RANK_LIVE = 0,
    NQ_MPI_RANK_SILENT, /* unheard for longer than the timeout */
    NQ_MPI_RANK_GONE,   /* said BYE */
};

typedef struct nq_mpi_roster nq_mpi_roster;

/* A roster of `ranks` ranks (rank 0 included, never tracked) for a run of
 * `chunks` chunks, every rank live and heard at `now`.  Returns 0 or
 * NQ_ENOMEM. */
int nq_mpi_roster_create(nq_mpi_roster **out, int ranks, uint64_t chunks, double now);
void nq_mpi_roster_free(nq_mpi_roster **r);

enum nq_mpi_rank_state nq_mpi_roster_state(const nq_mpi_roster *r, int rank);

/* Rank `rank` was heard from at `now`.  Returns how long it had been
 * silent when it was marked so (it is live again now), else 0. */
double nq_mpi_roster_heard(nq_mpi_roster *r, int rank, double now);

/* Chunk c went to `rank`, or came back from it (a result).  A result for a
 * chunk the rank no longer holds (given to another rank meanwhile) changes
 * nothing. */
void nq_mpi_roster_assigned(nq_mpi_roster *r, int rank, uint64_t c);
void nq_mpi_roster_returned(nq_mpi_roster *r, int rank, uint64_t c);

/* Rank `rank` said BYE: it is never silent again, and every chunk it
 * still holds (it stopped on a signal or failed, with chunks unfinished)
 * goes back to the ledger.  Returns how many it held. */
uint64_t nq_mpi_roster_gone(nq_mpi_roster *r, int rank, nq_ledger *ledger);

/* The first live rank unheard for more than `timeout` seconds at `now`,
 * or 0 when there is none. */
int nq_mpi_roster_find_silent(const nq_mpi_roster *r, double now, double timeout);

/* Marks `rank` silent and gives every chunk it holds back to the ledger.
 * Returns how many it held; *silent_for gets how long it was unheard. */
uint64_t nq_mpi_roster_silence(nq_mpi_roster *r, int rank, double now, nq_ledger *ledger,
                               double *silent_for);

/* Rank 0 itself did not run for `gap` seconds (stopped, descheduled): no
 * other rank could be heard meanwhile, so the gap counts against none. */
void nq_mpi_roster_pause(nq_mpi_roster *r, double gap);

/* Ranks other than 0 that are live (neither silent nor gone). */
int nq_mpi_roster_live(const nq_mpi_roster *r);

/* The first silent rank, or 0; *silent_for gets how long it has been
 * unheard at `now`. */
int nq_mpi_roster_first_silent(const nq_mpi_roster *r, double now, double *silent_for);

#endif /* NQ_MPI_ROSTER_H */
