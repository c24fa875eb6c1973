/*
 * engine_mirror.c - the design's engine: mirror-symmetric subproblems solved
 * by the task pool with the iterative kernel.
 *
 * The first split_depth rows are expanded (subproblem.c); each subproblem is
 * one unit.  The automatic split depth is the smallest that yields at least
 * NQ_MIRROR_UNITS_PER_THREAD units per thread, so the pool can balance load.
 */
#include <stdlib.h>

#include "job.h"
#include "search.h"
#include "subproblem.h"

#define NQ_MIRROR_UNITS_PER_THREAD 16
#define NQ_MIRROR_AUTO_MAX_DEPTH 5

static int mirror_plan(nq_job *job, const nq_settings *s)
{
    nq_subproblem *subs = NULL;
    long count = -1;
    int depth = s->split_depth;

    if (depth > 0) {
        count = nq_expand_mirror(job->n, depth, &subs);
    } else {
        const long want = (long)job->threads * NQ_MIRROR_UNITS_PER_THREAD;
        const int max_depth = job->n < NQ_MIRROR_AUTO_MAX_DEPTH ? job->n : NQ_MIRROR_AUTO_MAX_DEPTH;
        for (depth = 1; depth <= max_depth; depth++) {
            free(subs);
            count = nq_expand_mirror(job->n, depth, &subs);
            if (count < 0 || count >= want)
                break;
        }
        if (depth > max_depth)
            depth = max_depth;
    }
    if (count < 0)
        return NQ_ENOMEM;

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

static void mirror_solve(const nq_job *job, uint64_t unit, nq_counts *out, void *scratch)
{
    (void)scratch;
    const nq_subproblem *sp = &((const nq_subproblem *)job->plan)[unit];
    uint64_t count = nq_search_count(job->n - sp->row, sp->cols, sp->diag_left,
                                     sp->diag_right);
    out->total = (nq_u128)count * sp->weight;
    out->unique = 0;
    out->nodes = 0;
}

static void mirror_release(nq_job *job)
{
    free(job->plan);
    job->plan = NULL;
}

const struct nq_engine_ops nq_engine_mirror = {
    .id = NQ_ENGINE_MIRROR,
    .name = "mirror",
    .plan = mirror_plan,
    .solve = mirror_solve,
    .release = mirror_release,
};
