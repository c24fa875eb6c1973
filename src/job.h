/*
 * job.h - the contract between the library front end, the engines and the
 * task pool.
 *
 * An engine turns validated settings into a job: a deterministic, indexed
 * list of independent units plus whatever read-only tables solving them
 * needs.  solve() must be callable from many threads at once on one job;
 * per-thread working memory comes from the pool as `scratch`.  Because units
 * are independent and their counts simply add up, everything above the
 * engines (pool, journal, MPI, profiling) works on unit indices alone.
 */
#ifndef NQ_JOB_H
#define NQ_JOB_H

#include "nqueens/nqueens.h"

struct nq_engine_ops {
    enum nq_engine id;
    const char *name;
    int has_unique; /* solve() fills counts.unique */
    int has_nodes;  /* solve() fills counts.nodes */
    /* Builds job->units, job->identity, job->split_depth and job->plan.
     * Returns 0 or NQ_ENOMEM / NQ_EUNSUPPORTED / NQ_EINVAL_SPLIT. */
    int (*plan)(nq_job *job, const nq_settings *s);
    /* Solves one unit into *out (overwriting it).  Thread-safe. */
    void (*solve)(const nq_job *job, uint64_t unit, nq_counts *out, void *scratch);
    /* Bytes of per-thread scratch solve() needs; NULL means none. */
    size_t (*scratch_size)(const nq_job *job);
    /* Frees job->plan; NULL when plan allocates nothing. */
    void (*release)(nq_job *job);
    /* Optional: writes a cheap relative cost estimate of every unit into
     * costs[0 .. job->units) (the one the plan chose its split depth by;
     * see model.h).  Returns 0 or NQ_ENOMEM.  NULL when the engine has none. */
    int (*estimate)(const nq_job *job, double *costs);
};

struct nq_job {
    const struct nq_engine_ops *ops;
    int n;
    int split_depth;   /* 0 for engines without one */
    int threads;       /* thread count the plan was sized for (resolved, >= 1) */
    uint64_t units;
    uint64_t identity;
    void *plan;        /* engine-private, read-only while solving */
};

extern const struct nq_engine_ops nq_engine_plain;
extern const struct nq_engine_ops nq_engine_mirror;
extern const struct nq_engine_ops nq_engine_full;
extern const struct nq_engine_ops nq_engine_mitm;

/* Resolved thread count: threads > 0 as given, else the OpenMP default. */
int nq_resolve_threads(int threads);

/* Seconds on a monotonic clock. */
double nq_now(void);

/* FNV-1a 64-bit over len bytes, continuing from h (start with NQ_HASH_SEED). */
#define NQ_HASH_SEED UINT64_C(0xcbf29ce484222325)
uint64_t nq_hash_bytes(uint64_t h, const void *data, size_t len);

static inline void nq_counts_add(nq_counts *sum, const nq_counts *add)
{
    sum->total += add->total;
    sum->unique += add->unique;
    sum->nodes += add->nodes;
}

#endif /* NQ_JOB_H */
