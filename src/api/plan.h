/*
 * plan.h - the one place a run is planned: settings in; the engine, the
 * split depth, the unit list, the chunking and the open journal out.
 *
 * nq_count() and nqueens-mpi's rank 0 both plan here, so a journal
 * written by one is resumed by the other.  The rules:
 *
 *   engine       as asked; auto takes the journal's engine when resuming,
 *                else nq_auto_engine(n).
 *   split depth  as asked; else the journal's when resuming; else, for a
 *                new journalled mirror run, a depth that depends on n alone
 *                (small units, so a stop between units is prompt); else the
 *                engine's automatic choice for the run's worker count.
 *   chunks       a run that is journalled or shared by several processes
 *                cuts its units into chunks that depend on the job alone
 *                (nq_plan_durable_chunk_units), so any thread or rank count
 *                can resume it; a plain run cuts about NQ_POOL_CHUNKS_PER_
 *                THREAD chunks per thread, for load balance.
 *
 * The journal only records the plan and checks that a resumed run planned
 * the same one (job identity, chunking); it decides nothing.
 */
#ifndef NQ_API_PLAN_H
#define NQ_API_PLAN_H

#include "api/job.h"
#include "core/engine.h"
#include "journal/journal.h"
#include "run/run.h"

typedef struct nq_plan {
    nq_job *job;
    uint64_t chunk_units; /* units per chunk (the last chunk may be shorter) */
    nq_journal *journal;  /* open when the settings name a checkpoint, else NULL */
    double verify;        /* the settings' verify fraction (the estimate leaves its
                           * chunks to the check) */
} nq_plan;

/*
 * Plans the run of *s (checked with nq_check_settings) for `workers`
 * compute threads in all, spread over `processes` processes (1, or the MPI
 * ranks), and opens its journal when s->checkpoint_path is set (created,
 * or checked against the plan and loaded).  Returns 0, a settings error,
 * NQ_ENOMEM, NQ_EIO, NQ_EJOURNAL_MISMATCH or NQ_EJOURNAL_CORRUPT; detail
 * (may be NULL) then gets one line naming the problem.  On error *p holds
 * nothing to close.
 */
int nq_plan_open(nq_plan *p, const nq_settings *s, int workers, int processes, char *detail,
                 size_t size);

/* The engine and split depth (NQ_SPLIT_AUTO: the engine's choice) that
 * nq_plan_open() would plan *s (checked) with, by the rules above.  Reads
 * the journal's header, when there is one, and changes nothing: so that
 * other processes can plan the same job while the journal's owner opens
 * it. */
void nq_plan_resolve(const nq_settings *s, enum nq_engine *engine, int *split);

/* Closes the journal (flushing it) and frees the job; accepts a zeroed plan. */
void nq_plan_close(nq_plan *p);

/* Units per chunk of a journalled or multi-process run: a function of the
 * job alone, aiming for NQ_PLAN_MAX_CHUNKS chunks at most. */
uint64_t nq_plan_durable_chunk_units(const nq_job *job);

/* Chunks a durable run aims for, at most: fine enough that an interruption
 * loses little and that 1024 workers (16 nodes x 64 threads under MPI) get
 * dozens of chunks each (with fewer, the largest chunk sets the makespan:
 * docs/performance.md, "Figures the code's choices rest on"), and coarse
 * enough that the journal, one record per chunk, stays a few MiB. */
#define NQ_PLAN_MAX_CHUNKS 65536u

/* Split depth a new journalled mirror run uses when none is given: a
 * function of n alone (never of threads or ranks), deep enough that a unit
 * takes well under a second on one core, so a stop between units is prompt. */
int nq_plan_default_split(int n);

/* Fills *r (zeroing it first) from a finished or stopped run of the plan:
 * its counts, the units finished (resumed ones included) and resumed,
 * the threads that ran it and the wall time. */
void nq_plan_result(const nq_plan *p, const nq_counts *sum, uint64_t units_done,
                    uint64_t units_resumed, int threads, double seconds, nq_result *r);

/* The run of the plan as *s asks: its chunking and journal, s's progress
 * callback, intervals and cancel flag, started at `start` (nq_now()). */
nq_run_config nq_plan_run_config(const nq_plan *p, const nq_settings *s, double start);

/* Runs the opened plan *plan as nq_count() does (its body after planning;
 * implemented in count.c): the run with s's callbacks, the estimate when
 * s asks for one, the pool, the verify pass; fills *result as nq_count()
 * does and returns what it returns.  The caller closes the plan.  Apart
 * so that a test can watch a planned job being solved (its engine's ops
 * wrapped), from nothing but the same code path. */
int nq_count_planned(nq_plan *plan, const nq_settings *s, double start, nq_result *result);

#endif /* NQ_API_PLAN_H */
