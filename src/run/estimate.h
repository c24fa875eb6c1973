/*
 * estimate.h - what a run will take: the engine's relative unit costs,
 * calibrated in seconds on this machine by timing a sample of the run's
 * own chunks, and spread over the threads by the scheduling model
 * (model.h).
 *
 * The two halves are apart on purpose.  A calibration (seconds per unit of
 * cost) is measured once, on whatever job is at hand; a prediction needs
 * only costs, a chunking and a calibration, so it can be made for another
 * thread count, or for another job whose costs are on the same scale,
 * without solving anything more.
 *
 * The sample is part of the run: whole chunks, solved as the run solves
 * them (consecutive units on one thread with its scratch kept, so an
 * engine that shares work between neighbouring units shares it here too),
 * and handed to the caller as finished, so their counts go into the total
 * and the journal and the run does not solve them again.  They are drawn
 * one from each of equal stretches of the chunk list (stratified), so a
 * cost estimate that drifts along the list is calibrated along all of it,
 * and taken in a random order of the stretches, so a sample cut short by
 * its time limit is still spread over the list.  Every chunk is timed on
 * the wall clock while all the run's threads work, so the calibration
 * includes what the machine does to a full run (shared caches, memory
 * bandwidth, other load, oversubscription).
 */
#ifndef NQ_RUN_ESTIMATE_H
#define NQ_RUN_ESTIMATE_H

#include <stdatomic.h>

#include "core/engine.h"

/* Seconds after which the watchdog hands out its first lower bound when
 * the sample is still running (see nq_sample_config.overdue). */
#define NQ_ESTIMATE_BUDGET 0.5
/* How long the sample may take: once NQ_ESTIMATE_MIN_CHUNKS chunks (and
 * one per thread) have started, no new one is started that would end
 * (judged by the chunks finished so far) after NQ_ESTIMATE_SHARE of the
 * run's expected time, or after NQ_ESTIMATE_SAMPLE_TIME seconds when that
 * is longer; once every thread has had one, none that would end after
 * NQ_ESTIMATE_SAMPLE_TIME_MAX seconds.  So a run of big chunks (a short
 * list cut in 64 chunks a thread) still samples NQ_ESTIMATE_MIN_CHUNKS
 * stretches of its list, unless its chunks take many seconds.  The
 * sample's work is not lost, so these bound how late the estimate comes,
 * not what it costs (the other ranks of nqueens-mpi count meanwhile); a
 * long run gets a bigger sample (its chunks' costs and times vary as a
 * short run's do, and more of them narrow the calibration). */
#define NQ_ESTIMATE_SAMPLE_TIME 2.0
#define NQ_ESTIMATE_SAMPLE_TIME_MAX 20.0
/* Size of the sample: NQ_ESTIMATE_SHARE of the chunks to solve, at least
 * NQ_ESTIMATE_MIN_CHUNKS (stretches enough to follow a drifting cost
 * estimate) and one per thread.  When one per thread would be more than
 * NQ_ESTIMATE_MAX_SHARE of the chunks (a job of a few big units, as
 * plain's single one), there is no sample and no estimate: the sample
 * would be most of the run, whose end would then come before the
 * estimate; otherwise the sample is cut to that share.  The sample ends
 * with a barrier (every thread waits for the last sample chunk), which is
 * what it costs a run: at most a chunk per thread. */
#define NQ_ESTIMATE_SHARE 0.02
/* The least share of the running sample chunks' cost (units finished and
 * running) that the engine's progress hook must say is done before the
 * watchdog hands out a figure extrapolated from it rather than a bound. */
#define NQ_ESTIMATE_PROGRESS_MIN 0.05
#define NQ_ESTIMATE_MIN_CHUNKS 8
#define NQ_ESTIMATE_MAX_SHARE 0.25

/* Wall seconds a thread takes per unit of the engine's relative cost while
 * all threads work, measured on a sample. */
typedef struct nq_calibration {
    double seconds_per_cost; /* the sample chunks' times over their costs; while
                              * !complete, a lower bound that counts the time
                              * the running chunks have taken so far over the
                              * cost of their units finished and running, or,
                              * when extrapolated, over the cost of their units
                              * finished and the share of the running ones done */
    uint64_t chunks;         /* sample chunks finished */
    uint64_t units;          /* units in them */
    double seconds;          /* wall time the sample took (so far) */
    int complete;            /* every sample unit finished */
    int extrapolated;        /* !complete, and seconds_per_cost is extrapolated from
                              * the progress of the units running (the engine's
                              * hook, core/engine.h), not a bound */
} nq_calibration;

typedef struct nq_sample_config {
    const nq_job *job;
    const double *costs;        /* relative cost of every unit, > 0 */
    const unsigned char *skip;  /* optional: chunk c is not sampled when skip[c] != 0
                                 * (resumed, or left for the verify pass) */
    uint64_t chunk_units;       /* units per chunk (the run's chunking) */
    int threads;                /* threads to sample on (the run's) */
    atomic_int *stop;           /* optional: checked between units; a chunk cut
                                 * short is not finished */
    /* Required: sample chunk `chunk` was solved whole with these counts
     * (the caller finishes it in the run).  Called from the sampling
     * threads, one chunk once; thread-safe, cheap. */
    void (*done)(void *user, uint64_t chunk, const nq_counts *counts);
    /* Optional, for a run whose other solvers work meanwhile (nqueens-mpi's
     * other ranks): claim returns 1 when chunk `chunk` is the sample's to
     * solve (no one else holds or finished it, and no one else gets it
     * now), else 0 and the sample passes it over; give_back returns a
     * claimed chunk the stop flag cut short.  Called under the sample's
     * lock (claim) or from a sampling thread (give_back). */
    int (*claim)(void *user, uint64_t chunk);
    void (*give_back)(void *user, uint64_t chunk);
    /* Optional: called from a thread of its own when the sample is still
     * running NQ_ESTIMATE_BUDGET seconds after it started, with the lower
     * bound (or the extrapolation, see nq_calibration), and again each time
     * the time since the start has doubled; never after nq_calibrate()
     * returns. */
    void (*overdue)(const nq_calibration *lower, void *user);
    void *user;
} nq_sample_config;

/* Solves and times a stratified sample of the chunks not skipped (see
 * NQ_ESTIMATE_SHARE and NQ_ESTIMATE_SAMPLE_TIME) on cfg->threads threads,
 * handing each to cfg->done, and fills *out.  Returns 0 (out->chunks is 0
 * when there was nothing to sample or the stop flag was raised at once),
 * NQ_EINVAL_ARG or NQ_ENOMEM.  When no watchdog thread can be started,
 * cfg->overdue is just not called. */
int nq_calibrate(const nq_sample_config *cfg, nq_calibration *out);

/* Wall seconds to solve the units of chunks not skipped (chunks of
 * chunk_units consecutive units, taken in index order by the first free of
 * `threads` workers, as the pool does) at seconds_per_cost.  Returns 0 and
 * sets *seconds, or NQ_EINVAL_ARG / NQ_ENOMEM. */
int nq_estimate_seconds(const double *costs, uint64_t units, uint64_t chunk_units,
                        const unsigned char *skip, int threads, double seconds_per_cost,
                        double *seconds);

#endif /* NQ_RUN_ESTIMATE_H */
