/*
 * roster.c - rank 0's record of the other ranks (see roster.h).
 *
 * Who holds a chunk is one integer per chunk (the run has at most a few
 * tens of thousands of chunks), so an ASSIGN or a RESULT costs O(1); only
 * silencing a rank (at most once per stall) or its goodbye walks them all.
 */
#include <stdlib.h>

#include "mpi/roster.h"

struct nq_mpi_roster {
    int ranks;
    uint64_t chunks;
    int *holder;                   /* per chunk: the rank holding it, or 0 */
    double *heard;                 /* per rank: nq_now() of its last message */
    unsigned char *state;          /* per rank: enum nq_mpi_rank_state */
    int live;                      /* ranks in NQ_MPI_RANK_LIVE */
};

int nq_mpi_roster_create(nq_mpi_roster **out, int ranks, uint64_t chunks, double now)
{
    *out = NULL;
    nq_mpi_roster *r = calloc(1, sizeof *r);
    if (!r)
        return NQ_ENOMEM;
    r->ranks = ranks;
    r->chunks = chunks;
    r->holder = calloc(chunks ? (size_t)chunks : 1, sizeof *r->holder);
    r->heard = malloc((size_t)ranks * sizeof *r->heard);
    r->state = calloc((size_t)ranks, 1);
    if (!r->holder || !r->heard || !r->state) {
        nq_mpi_roster_free(&r);
        return NQ_ENOMEM;
    }
    for (int i = 0; i < ranks; i++)
        r->heard[i] = now;
    r->state[0] = NQ_MPI_RANK_GONE; /* rank 0 keeps the roster: never waited for */
    r->live = ranks - 1;
    *out = r;
    return 0;
}

void nq_mpi_roster_free(nq_mpi_roster **rp)
{
    if (!rp || !*rp)
        return;
    free((*rp)->holder);
    free((*rp)->heard);
    free((*rp)->state);
    free(*rp);
    *rp = NULL;
}

enum nq_mpi_rank_state nq_mpi_roster_state(const nq_mpi_roster *r, int rank)
{
    return (enum nq_mpi_rank_state)r->state[rank];
}

double nq_mpi_roster_heard(nq_mpi_roster *r, int rank, double now)
{
    const double was_silent =
        r->state[rank] == NQ_MPI_RANK_SILENT ? now - r->heard[rank] : 0.0;
    if (r->state[rank] == NQ_MPI_RANK_SILENT) {
        r->state[rank] = NQ_MPI_RANK_LIVE;
        r->live++;
    }
    r->heard[rank] = now;
    return was_silent;
}

void nq_mpi_roster_assigned(nq_mpi_roster *r, int rank, uint64_t c)
{
    if (c < r->chunks)
        r->holder[c] = rank;
}

void nq_mpi_roster_returned(nq_mpi_roster *r, int rank, uint64_t c)
{
    if (c < r->chunks && r->holder[c] == rank)
        r->holder[c] = 0;
}

/* Gives every chunk `rank` holds back to the ledger; returns how many. */
static uint64_t give_back_held(nq_mpi_roster *r, int rank, nq_ledger *ledger)
{
    uint64_t held = 0;
    for (uint64_t c = 0; c < r->chunks; c++)
        if (r->holder[c] == rank) {
            r->holder[c] = 0;
            /* The ledger takes back only a chunk still out, not one that
             * was finished meanwhile (by this rank or another). */
            nq_ledger_give_back(ledger, c);
            held++;
        }
    return held;
}

uint64_t nq_mpi_roster_gone(nq_mpi_roster *r, int rank, nq_ledger *ledger)
{
    r->live -= r->state[rank] == NQ_MPI_RANK_LIVE;
    r->state[rank] = NQ_MPI_RANK_GONE;
    return give_back_held(r, rank, ledger);
}

int nq_mpi_roster_find_silent(const nq_mpi_roster *r, double now, double timeout)
{
    for (int i = 1; i < r->ranks; i++)
        if (r->state[i] == NQ_MPI_RANK_LIVE && now - r->heard[i] > timeout)
            return i;
    return 0;
}

uint64_t nq_mpi_roster_silence(nq_mpi_roster *r, int rank, double now, nq_ledger *ledger,
                               double *silent_for)
{
    r->live -= r->state[rank] == NQ_MPI_RANK_LIVE;
    r->state[rank] = NQ_MPI_RANK_SILENT;
    *silent_for = now - r->heard[rank];
    return give_back_held(r, rank, ledger);
}

void nq_mpi_roster_pause(nq_mpi_roster *r, double gap)
{
    for (int i = 1; i < r->ranks; i++)
        if (r->state[i] == NQ_MPI_RANK_LIVE)
            r->heard[i] += gap;
}

int nq_mpi_roster_live(const nq_mpi_roster *r)
{
    return r->live;
}

int nq_mpi_roster_first_silent(const nq_mpi_roster *r, double now, double *silent_for)
{
    for (int i = 1; i < r->ranks; i++)
        if (r->state[i] == NQ_MPI_RANK_SILENT) {
            *silent_for = now - r->heard[i];
            return i;
        }
    return 0;
}
