/*
 * ledger.h - the bookkeeping of one run's chunks: which are finished, the
 * running sums, which chunk goes out next, and the journal records.
 *
 * A run's units are cut into chunks of consecutive units (the plan chooses
 * how many units a chunk holds).  Whoever solves a chunk -- a task of the
 * pool in nq_count(), a compute thread of any rank in nqueens-mpi --
 * reports it here, and the ledger adds its counts once (a chunk reported
 * twice, as a chunk handed out again may be, counts once), records it in
 * the journal and counts its units for progress.  Chunks resumed from a
 * journal are finished from the start.  All calls are thread-safe; one
 * mutex, taken once per chunk, never held across I/O.
 */
#ifndef NQ_RUN_LEDGER_H
#define NQ_RUN_LEDGER_H

#include <stdatomic.h>

#include "core/engine.h"
#include "journal/journal.h"

typedef struct nq_ledger nq_ledger;

/* Creates the ledger of a run of `units` units in chunks of chunk_units
 * (>= 1); with a journal (may be NULL), its finished chunks and counts are
 * taken over and new ones are recorded in it.  Returns 0 or NQ_ENOMEM. */
int nq_ledger_create(nq_ledger **out, uint64_t units, uint64_t chunk_units, nq_journal *journal);

/* Frees the ledger; accepts NULL.  The journal stays open. */
void nq_ledger_free(nq_ledger **l);

uint64_t nq_ledger_chunks(const nq_ledger *l);
uint64_t nq_ledger_chunk_units(const nq_ledger *l);
/* Units in chunk c (the last chunk may be short). */
uint64_t nq_ledger_chunk_size(const nq_ledger *l, uint64_t c);

/* Flags of the chunks finished when the run started (resumed from the
 * journal): chunk c needs no solving when flags[c] != 0.  Never changes. */
const unsigned char *nq_ledger_resumed_flags(const nq_ledger *l);

/* 1 when chunk c is finished (resumed, or reported since), else 0. */
int nq_ledger_finished(nq_ledger *l, uint64_t c);

/* Hands out the next chunk that is neither finished nor out: sets *chunk
 * and returns 1, or returns 0 when none is left or the ledger is closed. */
int nq_ledger_take(nq_ledger *l, uint64_t *chunk);

/* Hands out chunk c itself when it is neither finished nor out: returns
 * 1 (it is out, as nq_ledger_take() would leave it), else 0. */
int nq_ledger_claim(nq_ledger *l, uint64_t c);

/* Puts a chunk that was handed out but not finished back in line (its
 * solver stopped or vanished); it goes out again before any new one. */
void nq_ledger_give_back(nq_ledger *l, uint64_t chunk);

/* No more chunks go out (the run is stopping). */
void nq_ledger_close(nq_ledger *l);

/* Chunk c finished with `counts`.  Counts once per chunk; records it in the
 * journal.  Returns 0, or NQ_EINVAL_ARG for a chunk outside the run. */
int nq_ledger_finish(nq_ledger *l, uint64_t c, const nq_counts *counts);

/* nq_ledger_finish() for a chunk whose two counts agreed (settings.verify):
 * its journal record carries the checked flag.  For a chunk finished
 * before (resumed from the journal), only the flag is recorded. */
int nq_ledger_finish_checked(nq_ledger *l, uint64_t c, const nq_counts *counts);

/* The sums of every finished chunk, resumed ones included. */
nq_counts nq_ledger_counts(const nq_ledger *l);

/* The sums of the chunks resumed from the journal (zero without one). */
nq_counts nq_ledger_counts_resumed(const nq_ledger *l);

/* Units finished, resumed ones included; cheap, for progress reports. */
uint64_t nq_ledger_units_done(const nq_ledger *l);
/* Units resumed from the journal at the start. */
uint64_t nq_ledger_units_resumed(const nq_ledger *l);
uint64_t nq_ledger_units(const nq_ledger *l);

/* The scale of chunk weights: all chunks' weights add up to about this. */
#define NQ_LEDGER_WORK (UINT64_C(1) << 40)

/* Weighs the chunks by the engine's relative cost estimate of their units
 * (costs[u] for unit u), so that progress can be told by work, not by
 * units: a run's units can differ in cost by orders of magnitude.  May be
 * called once the run is under way; finished chunks count at once.
 * Returns 0, NQ_ENOMEM, or NQ_EINVAL_ARG when no cost is positive. */
int nq_ledger_set_weights(nq_ledger *l, const double *costs);

/* The share of the run's weight finished (0..1), or -1 before weights are
 * set.  Cheap and lock-free, for progress reports. */
double nq_ledger_work_fraction(const nq_ledger *l);

/* About how many chunks are still to hand out: those past the cursor
 * (resumed ones among them included) and those given back; 0 once the
 * ledger is closed.  For sharing out the last chunks fairly. */
uint64_t nq_ledger_unassigned(nq_ledger *l);

/* 1 when every chunk is finished. */
int nq_ledger_complete(nq_ledger *l);

#endif /* NQ_RUN_LEDGER_H */
