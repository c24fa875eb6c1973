/*
 * engine.h - the contract between the engines and the layers above them
 * (planning, the run layer, the journal).
 *
 * An engine turns validated settings into a job: a deterministic, indexed
 * list of independent units plus whatever read-only tables solving them
 * needs.  solve() must be callable from many threads at once on one job;
 * per-thread working memory comes from the pool as `scratch`.  Because units
 * are independent and their counts simply add up, everything above the
 * engines (pool, journal, MPI, profiling) works on unit indices alone.
 */
#ifndef NQ_CORE_ENGINE_H
#define NQ_CORE_ENGINE_H

#include "core/util.h"
#include "nqueens/nqueens.h"

/* plan()'s split_depth when the engine is to choose it for job->threads. */
#define NQ_SPLIT_AUTO (-1)

struct nq_engine_ops {
    enum nq_engine id;
    const char *name;
    int has_unique; /* solve() fills counts.unique */
    int has_split;  /* plan() honours a split depth (others always plan depth 0) */
    int max_n;      /* largest board plan() accepts; 0 means NQ_MAX_N */
    /* Builds job->units, job->identity, job->split_depth and job->plan for
     * job->n, with job->threads already set.  split_depth is NQ_SPLIT_AUTO
     * or the exact depth to plan (0..min(n, NQ_MAX_SPLIT_DEPTH); engines
     * without one ignore it).  Returns 0 or NQ_ENOMEM / NQ_EUNSUPPORTED. */
    int (*plan)(nq_job *job, int split_depth);
    /* Solves one unit into *out (overwriting it).  Thread-safe. */
    void (*solve)(const nq_job *job, uint64_t unit, nq_counts *out, void *scratch);
    /* Bytes of per-thread scratch solve() needs; NULL means none.  The
     * scratch is zeroed when a run starts and stays one thread's through
     * the run, so solve() may keep in it what one unit built for the next. */
    size_t (*scratch_size)(const nq_job *job);
    /* Frees job->plan; NULL when plan allocates nothing. */
    void (*release)(nq_job *job);
    /* Optional: writes a cheap relative cost estimate of every unit into
     * costs[0 .. job->units) (the one the plan chose its split depth by;
     * see model.h).  Returns 0 or NQ_ENOMEM.  NULL when the engine has none. */
    int (*estimate)(const nq_job *job, double *costs);
    /* Optional: the share of the unit being solved with `scratch` that is
     * done, 0..1, by the engine's own measure of its work; called from
     * another thread while solve() runs (so it reads only atomics), and 0
     * between units.  Negative when the job's units are too short to
     * report on.  Lets the estimate extrapolate from units of minutes
     * before the first one ends.  NULL when the engine has none. */
    double (*progress)(const nq_job *job, const void *scratch);
    /* Optional: solves unit `unit` by sample, to time a unit too long to
     * time whole: all its work but its joins' blocks, of which it solves
     * one run in `every` (>= 1; a systematic sample, its phase drawn from
     * the unit), into *counts (so about 1/every of the unit's count), and
     * returns the thread CPU seconds of the blocks it solved.  NULL when
     * the engine has no blocks to sample. */
    double (*solve_sample)(const nq_job *job, uint64_t unit, uint32_t every, nq_counts *counts,
                           void *scratch);
};

struct nq_job {
    const struct nq_engine_ops *ops;
    int n;
    int split_depth;   /* 0 for engines without one */
    int threads;       /* thread count the plan was sized for (resolved, >= 1) */
    uint64_t units;
    uint64_t identity;
    /* Most units a chunk of a plain (not journalled) run should hold, or 0
     * for no limit: plan() sets it when units take long, so that progress
     * and the ETA come every few seconds, not once per thread's 64th. */
    uint64_t chunk_limit;
    /* Bytes the plan may size this process's working memory to
     * (nq_settings.memory; 0 = the engine's default sizes).  Set before
     * plan(); what a unit counts never depends on it. */
    uint64_t memory;
    void *plan;        /* engine-private, read-only while solving */
    /* How the pool shares the job's chunks when the job is solved through
     * nq_job_solve() or by nqueens-mpi's ranks (nq_count() passes its
     * settings' own); 0, NQ_SCHEDULE_DEFAULT, unless set after planning. */
    enum nq_schedule schedule;
};

/* Bytes of per-thread scratch the job's solve() needs (0: none). */
static inline size_t nq_job_scratch_bytes(const nq_job *job)
{
    return job->ops->scratch_size ? job->ops->scratch_size(job) : 0;
}

static inline void nq_counts_add(nq_counts *sum, const nq_counts *add)
{
    sum->total += add->total;
    sum->unique += add->unique;
}

#endif /* NQ_CORE_ENGINE_H */
