/*
 * mirror.c - the mirror engine: mirror-symmetric subproblems solved by the
 * pool with the iterative kernel (core/search.h), in the copy of this
 * process's kernel level (kernels.h).
 *
 * The first split_depth rows are expanded (subproblem.c); each subproblem is
 * one unit.  The automatic split depth is chosen with the scheduling model
 * (model.h): the smallest depth whose estimated unit costs (probe.h)
 * give a predicted pool efficiency of at least NQ_MODEL_TARGET_EFFICIENCY
 * on the requested thread count, with at least NQ_MODEL_MIN_UNITS_PER_THREAD
 * units per thread (progress and checkpoint granularity) and at most
 * NQ_MIRROR_MAX_UNITS units (memory).  Planning costs a few shallow probes,
 * far less than the count at the N where the depth matters.
 */
#include <stdlib.h>

#include "core/search.h"
#include "engines/engines.h"
#include "engines/mirror/kernels.h"
#include "engines/mirror/probe.h"
#include "engines/mirror/subproblem.h"
#include "run/model.h"

/* 4 Mi units of 16 bytes: 64 MiB, well past what 4096 threads need. */
#define NQ_MIRROR_MAX_UNITS (INT64_C(1) << 22)

/* Predicted pool efficiency of a mirror unit list on `threads` threads, from
 * probe estimates.  Returns a value in (0, 1], or a negative NQ_E* code. */
static double mirror_predict(int n, int depth, const nq_subproblem *subs, long count,
                             int threads)
{
    if (count == 0)
        return 1.0;
    double *costs = malloc((size_t)count * sizeof *costs);
    if (!costs)
        return NQ_ENOMEM;
    int row = nq_probe_row(n, depth, count, nq_probe_children(n, subs, count));
    nq_probe_costs(n, subs, count, row, costs);
    nq_model_result r;
    int ret = nq_model_pool(costs, (size_t)count, threads, &r);
    free(costs);
    return ret < 0 ? ret : r.efficiency;
}

/* Chooses the automatic split depth (see the top of the file) and stores
 * its expansion.  Returns 0, or NQ_ENOMEM. */
static int mirror_auto(nq_job *job, nq_subproblem **subs_out, long *count_out, int *depth_out)
{
    const int n = job->n, threads = job->threads;
    /* Past half the board, units are tiny and plentiful: when no depth up to
     * there meets the target (small N on many threads), deeper expansion only
     * costs planning time that the whole count does not have. */
    const int half = n / 2 > 1 ? n / 2 : 1;
    const int max_depth = half < NQ_MAX_SPLIT_DEPTH ? half : NQ_MAX_SPLIT_DEPTH;
    nq_subproblem *best = NULL;
    long best_count = 0;
    int best_depth = 0;
    double best_eff = -1;

    for (int depth = 1; depth <= max_depth; depth++) {
        nq_subproblem *subs = NULL;
        long count = nq_expand_mirror(n, depth, &subs);
        if (count < 0) {
            free(best);
            return NQ_ENOMEM;
        }
        const uint64_t next = nq_probe_children(n, subs, count);
        const int last = depth == max_depth || next > (uint64_t)NQ_MIRROR_MAX_UNITS ||
                         next == (uint64_t)count; /* deeper splits change nothing */
        double eff = 0;
        if (count == 0 || count >= (long)threads * NQ_MODEL_MIN_UNITS_PER_THREAD || last) {
            eff = mirror_predict(n, depth, subs, count, threads);
            if (eff < 0) {
                free(subs);
                free(best);
                return (int)eff;
            }
        }
        if (best_depth == 0 || eff > best_eff) {
            free(best);
            best = subs;
            best_count = count;
            best_depth = depth;
            best_eff = eff;
        } else {
            free(subs);
        }
        if (eff >= NQ_MODEL_TARGET_EFFICIENCY || last)
            break;
    }
    *subs_out = best;
    *count_out = best_count;
    *depth_out = best_depth;
    return 0;
}

static int mirror_plan(nq_job *job, int split_depth)
{
    nq_subproblem *subs = NULL;
    long count = -1;
    int depth = split_depth;

    if (depth != NQ_SPLIT_AUTO) {
        if (depth < 1) /* the first row is always expanded (mirror symmetry) */
            depth = 1;
        count = nq_expand_mirror(job->n, depth, &subs);
        if (count < 0)
            return NQ_ENOMEM;
    } else {
        int ret = mirror_auto(job, &subs, &count, &depth);
        if (ret < 0)
            return ret;
    }

    job->plan = subs;
    job->units = (uint64_t)count;
    job->split_depth = depth;
    uint64_t h = nq_hash_bytes(NQ_HASH_SEED, "mirror", 6);
    h = nq_hash_bytes(h, &job->n, sizeof job->n);
    h = nq_hash_bytes(h, &depth, sizeof depth);
    for (long i = 0; i < count; i++) {
        const nq_subproblem *sp = &subs[i];
        h = nq_hash_bytes(h, &sp->cols, sizeof sp->cols);
        h = nq_hash_bytes(h, &sp->diag_left, sizeof sp->diag_left);
        h = nq_hash_bytes(h, &sp->diag_right, sizeof sp->diag_right);
        h = nq_hash_bytes(h, &sp->weight, sizeof sp->weight);
    }
    job->identity = h;
    return 0;
}

/* The same probe estimate the automatic depth choice used. */
static int mirror_estimate(const nq_job *job, double *costs)
{
    const nq_subproblem *subs = job->plan;
    const long count = (long)job->units;
    int row = nq_probe_row(job->n, job->split_depth, count,
                                    nq_probe_children(job->n, subs, count));
    nq_probe_costs(job->n, subs, count, row, costs);
    return 0;
}

static void mirror_solve(const nq_job *job, uint64_t unit, nq_counts *out, void *scratch)
{
    (void)scratch;
    const nq_subproblem *sp = &((const nq_subproblem *)job->plan)[unit];
    uint64_t count = nq_mirror_kernels_in_use()->count(job->n - sp->row, sp->cols,
                                                       sp->diag_left, sp->diag_right);
    out->total = (nq_u128)count * sp->weight;
    out->unique = 0;
}

static void mirror_release(nq_job *job)
{
    free(job->plan);
    job->plan = NULL;
}

const struct nq_engine_ops nq_engine_mirror = {
    .id = NQ_ENGINE_MIRROR,
    .name = "mirror",
    .has_split = 1,
    .plan = mirror_plan,
    .solve = mirror_solve,
    .release = mirror_release,
    .estimate = mirror_estimate,
};
