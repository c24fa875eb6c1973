/*
 * protocol.h - the messages nqueens-mpi ranks exchange, and the plan that
 * every rank must agree on.
 *
 * Rank 0 is the dispenser: it owns the chunk cursor, the totals, the journal
 * and the progress line.  Other ranks ask for chunks (REQUEST), get a batch
 * (ASSIGN; an empty batch means "no more work"), send back each finished
 * chunk's counts (RESULT) and say goodbye (BYE) once their threads stopped.
 * Rank 0 may tell a rank to stop early (STOP) when the run is cancelled.
 * A rank that stops on a signal of its own says BYE as soon as its threads
 * stopped, even with a REQUEST unanswered: the BYE names the signal, rank
 * 0 gives the chunks that rank held to the others, answers its REQUEST
 * with the end, and the count goes on without it.
 * Counts travel as pairs of uint64 halves because MPI has no 128-bit type.
 * Messages between one pair of ranks arrive in order, which the protocol
 * relies on: a rank's RESULTs always precede its BYE.
 *
 * Rank 0 answers a REQUEST when it has chunks to give, or with the end
 * once every chunk is counted (or the run stops); until then the REQUEST
 * waits, since the chunks of a rank that stalls go out again.  A rank's
 * main thread sends a HEARTBEAT whenever it has sent nothing else for a
 * heartbeat interval, so a rank busy with a long chunk is never taken for
 * a stalled one (roster.h).  A HEARTBEAT is a synchronous send and a rank
 * keeps at most one in flight: a stopped rank 0 is not flooded.
 */
#ifndef NQ_MPI_PROTOCOL_H
#define NQ_MPI_PROTOCOL_H

#include <stdint.h>

#include "nqueens/nqueens.h"

enum nq_mpi_tag {
    NQ_MPI_TAG_REQUEST = 1, /* worker -> 0: uint64 chunks wanted */
    NQ_MPI_TAG_ASSIGN,      /* 0 -> worker: uint64 chunk indices (0 of them = the end) */
    NQ_MPI_TAG_RESULT,      /* worker -> 0: NQ_MPI_RESULT_WORDS uint64 per chunk */
    NQ_MPI_TAG_STOP,        /* 0 -> worker: no payload; stop after the current unit */
    NQ_MPI_TAG_BYE,         /* worker -> 0: NQ_MPI_BYE_WORDS uint64 (see below) */
    NQ_MPI_TAG_HEARTBEAT,   /* worker -> 0: no payload; "still here" */
};

/* A BYE: the rank's status (0 or a negative NQ_E* code, as int64 bits),
 * then the signal that stopped it (0 when none did). */
#define NQ_MPI_BYE_WORDS 2

/* One finished chunk on the wire: chunk, total lo/hi, unique lo/hi. */
#define NQ_MPI_RESULT_WORDS 5

/* Most chunks one ASSIGN carries (a worker asks for at most its whole
 * queue: see worker.c).  Rank 0 keeps a buffer this large at most per
 * rank that asks for that much: 128 KiB. */
#define NQ_MPI_MAX_ASSIGN 16384

/* The resolved plan rank 0 broadcasts (all int64 so one MPI type does). */
enum nq_mpi_plan_field {
    NQ_MPI_PLAN_STATUS,   /* 0 = run; else the exit status every rank returns */
    NQ_MPI_PLAN_N,
    NQ_MPI_PLAN_ENGINE,
    NQ_MPI_PLAN_SPLIT,
    NQ_MPI_PLAN_UNITS,
    NQ_MPI_PLAN_IDENTITY, /* nq_job_identity, as bits */
    NQ_MPI_PLAN_CHUNK_UNITS, /* the plan's chunking */
    NQ_MPI_PLAN_JOURNAL,  /* 1 when rank 0 keeps a journal (signal policy) */
    NQ_MPI_PLAN_RANK_TIMEOUT, /* seconds a rank may stay silent (sets the heartbeat) */
    NQ_MPI_PLAN_FIELDS_
};

/* Seconds between a rank's heartbeats for a rank timeout of `timeout`
 * seconds: at least four beats fit in the timeout, and a long one costs
 * rank 0 one message per rank per second at most. */
static inline double nq_mpi_heartbeat_interval(double timeout)
{
    const double beat = timeout / 4;
    return beat < 1.0 ? beat : 1.0;
}

static inline void nq_mpi_pack_counts(uint64_t *w, uint64_t chunk, const nq_counts *c)
{
    w[0] = chunk;
    w[1] = (uint64_t)c->total;
    w[2] = (uint64_t)(c->total >> 64);
    w[3] = (uint64_t)c->unique;
    w[4] = (uint64_t)(c->unique >> 64);
}

static inline uint64_t nq_mpi_unpack_counts(const uint64_t *w, nq_counts *c)
{
    c->total = (nq_u128)w[1] | (nq_u128)w[2] << 64;
    c->unique = (nq_u128)w[3] | (nq_u128)w[4] << 64;
    return w[0];
}

#endif /* NQ_MPI_PROTOCOL_H */
