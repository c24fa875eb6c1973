/*
 * model.h - a scheduling model of the chunk runner (pool.h), used to
 * predict how a job's units spread over P workers before (or without)
 * running them.
 *
 * The pool (pool.c) cuts the units into chunks of consecutive units and
 * shares them by one of four schedules; the model replays each on known or
 * estimated unit costs:
 *
 *   dynamic  chunks in index order, each to the worker that becomes free
 *            first (the pool's loop does exactly that);
 *   tasks    the same: a free thread starts the oldest waiting task.  The
 *            OpenMP runtime does not promise that order (a thread may run
 *            its own newest task first), so this is the model's
 *            assumption, close while tasks wait in creation order;
 *   guided   blocks of ceil(chunks left / P) chunks in index order, each
 *            to the worker free first (the OpenMP specification's rule;
 *            runtimes may use a smaller proportion);
 *   static   P contiguous blocks of chunks, one per worker, fixed in
 *            advance, the first chunks % P blocks one chunk longer.
 *
 * The finishing time of the last worker is the makespan; work / (P *
 * makespan) is the efficiency.
 * The model ignores scheduling overhead and memory effects, which is right
 * for this library's units (each costs microseconds to seconds of pure
 * search), and it is what the engines use to choose their split depth.
 */
#ifndef NQ_MODEL_H
#define NQ_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "nqueens/nqueens.h"

/* The automatic split-depth rule every engine with a split depth follows:
 * the smallest depth whose estimated unit costs give at least this predicted
 * efficiency on the requested thread count ... */
#define NQ_MODEL_TARGET_EFFICIENCY 0.95
/* ... with at least this many units per thread.  Estimates err most, and
 * optimistically, when each worker gets few units; the floor keeps a margin
 * (and keeps progress and checkpoints fine-grained). */
#define NQ_MODEL_MIN_UNITS_PER_THREAD 16

/* Largest worker count the model simulates (the library's thread limit). */
#define NQ_MODEL_MAX_WORKERS 4096

typedef struct nq_model_result {
    double work;       /* sum of all task costs: the makespan on one worker */
    double makespan;   /* time the last worker finishes */
    double efficiency; /* work / (workers * makespan); 1 when there is no work */
    double speedup;    /* work / makespan; workers * efficiency */
    double max_task;   /* cost of the largest task (chunk) */
    uint64_t tasks;    /* tasks (chunks) scheduled */
} nq_model_result;

/*
 * Schedules `count` unit costs, grouped into tasks of `per_task` consecutive
 * units (the last task may be shorter; per_task 0 counts as 1), on `workers`
 * workers: tasks in index order, each to the earliest-free worker (the
 * dynamic schedule).  Costs
 * must be finite and >= 0.  Returns 0 and fills *out, or NQ_EINVAL_ARG
 * (bad workers or NULL pointers) / NQ_ENOMEM.
 */
int nq_model_schedule(const double *costs, size_t count, size_t per_task, int workers,
                      nq_model_result *out);

/* nq_model_schedule() under one of the pool's schedules (see the top of
 * this file; NQ_SCHEDULE_DEFAULT is the schedule it stands for).  Same
 * returns, and NQ_EINVAL_ARG for a schedule out of range. */
int nq_model_schedule_as(const double *costs, size_t count, size_t per_task, int workers,
                         enum nq_schedule schedule, nq_model_result *out);

/* nq_model_pool() under one of the pool's schedules. */
int nq_model_pool_as(const double *costs, size_t count, int threads, enum nq_schedule schedule,
                     nq_model_result *out);

/*
 * The pool's own view: chunks `costs` the way nq_count() does for `threads`
 * threads (nq_pool_chunk_size with NQ_POOL_CHUNKS_PER_THREAD) and schedules
 * the chunks on `threads` workers by the default schedule.  Same returns as
 * nq_model_schedule().
 */
int nq_model_pool(const double *costs, size_t count, int threads, nq_model_result *out);

/* A prediction for nqueens-mpi on `ranks` ranks of `threads` compute
 * threads each (see nq_model_ranks). */
typedef struct nq_model_ranks_result {
    nq_model_result greedy;  /* journal chunks in index order on ranks * threads
                              * workers, each to the earliest-free one */
    double makespan_high;    /* pessimistic: greedy plus one chunk for ranks > 1 */
    double efficiency_low;   /* work / (workers * makespan_high) */
} nq_model_ranks_result;

/*
 * nqueens-mpi's schedule: chunks of `chunk_units` consecutive units (the
 * journal's chunks, nq_journal_chunk_units) are taken in index order by
 * whichever compute thread of any rank is free first, which is the pool's
 * policy on ranks * threads workers.  The one difference is that every rank
 * but rank 0 keeps spare chunks queued, fetched before a thread of its own
 * needs them: at least one, and as many as its threads finish in a short
 * lead time (50 ms, worker.c) when chunks are shorter than that.  Near the
 * end a chunk can wait in one rank's queue while a thread elsewhere idles,
 * so a chunk starts up to one chunk, or one lead time, later than the
 * greedy schedule says.  The pessimistic makespan adds the largest chunk
 * for that (the bound the MPI notes give; not a proof, but an idle thread
 * only appears once the dispenser is empty); the lead time, like start-up
 * (launch, MPI_Init, planning), is a constant in seconds the relative costs
 * cannot hold, to add by hand.  With one rank there is no queue and the
 * two agree.  Returns 0, or
 * NQ_EINVAL_ARG (ranks or threads < 1, ranks * threads over
 * NQ_MODEL_MAX_WORKERS, NULL pointers) / NQ_ENOMEM.
 */
int nq_model_ranks(const double *costs, size_t count, size_t chunk_units, int ranks,
                   int threads, nq_model_ranks_result *out);

#endif /* NQ_MODEL_H */
