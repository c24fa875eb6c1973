/*
 * plan.c - the full engine's units: each constellation (constellation.c)
 * expanded by the split depth's first free rows, sorted costliest first by
 * a short look-ahead, and hashed into the job identity; and the estimate
 * hook, which gives the run's duration estimate a cost for every unit.
 *
 * The list depends on n and the split depth alone, never on timing, so a
 * journal or another rank plans the same units in the same order.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/full/constellation.h"

/* Largest n handled by explicit enumeration instead of constellations. */
#define NQ_FULL_SMALL_N 5
/* Automatic splitting adds prefix levels until there are this many units per
 * thread, so the pool can balance uneven constellations. */
#define NQ_FULL_UNITS_PER_THREAD 64
/* Most prefix levels automatic splitting adds. */
#define NQ_FULL_AUTO_MAX_SPLIT 2
/* Levels looked ahead when estimating a unit's cost for the ordering; the
 * planning cost grows as n^levels per unit, so large boards look less far. */
#define NQ_FULL_ESTIMATE_LEVELS(n) ((n) <= 20 ? 3 : (n) <= 26 ? 2 : 1)

/* Places queens on levels u.level .. depth-1 of constellation c and pushes
 * every resulting unit, in lexicographic order of the placed columns. */
static void expand(nq_array *list, const full_constellation *c, full_unit u, int depth)
{
    if (u.level >= depth) {
        nq_array_push(list, &u, sizeof u, 1024);
        return;
    }
    uint32_t free_sq = ~(u.cols | u.left | u.right | c->fixed[u.level]);
    while (free_sq) {
        uint32_t bit = free_sq & (0u - free_sq); /* lowest free square */
        free_sq ^= bit;
        full_unit next = u;
        const int sh = c->shift[u.level];
        next.prefix[u.level] = (uint8_t)__builtin_ctz(bit);
        next.cols = u.cols | bit;
        next.left = (u.left | bit) << sh;
        next.right = (u.right | bit) >> sh;
        next.level++;
        expand(list, c, next, depth);
    }
}

/* Nodes within `ahead` levels below (level, masks) of c: a cheap,
 * deterministic guess at how costly the subtree is. */
static uint64_t lookahead_nodes(const full_constellation *c, int level, uint32_t cols,
                                uint32_t left, uint32_t right, int ahead)
{
    if (ahead == 0 || level >= c->levels)
        return 1;
    uint64_t nodes = 1;
    uint32_t free_sq = ~(cols | left | right | c->fixed[level]);
    const int sh = c->shift[level];
    while (free_sq) {
        uint32_t bit = free_sq & (0u - free_sq); /* lowest free square */
        free_sq ^= bit;
        nodes += lookahead_nodes(c, level + 1, cols | bit, (left | bit) << sh,
                                 (right | bit) >> sh, ahead - 1);
    }
    return nodes;
}

/* Costliest first; ties keep the planning order, so the list is deterministic. */
static int by_estimate(const void *a, const void *b)
{
    const full_unit *x = a, *y = b;
    if (x->estimate != y->estimate)
        return x->estimate > y->estimate ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

void nq_full_release(nq_job *job)
{
    full_plan *plan = job->plan;
    if (plan) {
        free(plan->consts);
        free(plan->units);
        free(plan);
    }
    job->plan = NULL;
}

/* The automatic split depth: the fewest prefix levels (at most
 * NQ_FULL_AUTO_MAX_SPLIT) giving NQ_FULL_UNITS_PER_THREAD units per
 * thread, judged without expanding anything. */
static int auto_split_depth(int n, int threads, size_t nconst)
{
    const uint64_t want = (uint64_t)threads * NQ_FULL_UNITS_PER_THREAD;
    int split = 0;
    uint64_t units = nconst;
    /* Each level multiplies the units by about the free squares of a row. */
    while (split < NQ_FULL_AUTO_MAX_SPLIT && units < want) {
        split++;
        units *= (uint64_t)(n > 8 ? n - 6 : 2);
    }
    return split;
}

/* Expands every constellation of the plan by `split` prefix levels into
 * *list and sorts the units costliest first, by a short look-ahead (on
 * `threads` threads from n = NQ_FULL_PARALLEL_PLAN_N on).  Returns 0 or
 * NQ_ENOMEM (the list is then freed). */
static int list_units(int n, int threads, const full_plan *plan, size_t nconst, int split,
                      nq_array *list)
{
    for (size_t i = 0; i < nconst; i++) {
        const full_constellation *c = &plan->consts[i];
        full_unit u;
        memset(&u, 0, sizeof u);
        u.cols = c->cols;
        u.constellation = (uint32_t)i;
        /* Leave the search at least two levels, for the kernel's last-row shortcut. */
        int depth = split < c->levels - 2 ? split : c->levels - 2;
        expand(list, c, u, depth < 0 ? 0 : depth);
    }
    if (list->failed) {
        free(list->items);
        return NQ_ENOMEM;
    }
    full_unit *units = list->items;
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64) num_threads(nq_local_threads(threads)) \
    if (n >= NQ_FULL_PARALLEL_PLAN_N)
#endif
    for (long i = 0; i < (long)list->count; i++) {
        full_unit *u = &units[i];
        const full_constellation *c = &plan->consts[u->constellation];
        u->order = (uint64_t)i;
        u->estimate = lookahead_nodes(c, u->level, u->cols, u->left, u->right,
                                      NQ_FULL_ESTIMATE_LEVELS(n));
    }
    qsort(units, list->count, sizeof *units, by_estimate);
    return 0;
}

/*
 * The engine's plan(): one unit for n <= NQ_FULL_SMALL_N; otherwise one
 * constellation per orbit, oriented for speed, each expanded by the split
 * depth's prefix rows, sorted costliest first.  The list depends only on n
 * and the split depth (the automatic one follows the thread count), never on
 * timing, and the identity hashes n, the depth and every unit's queens and
 * prefix in order.  Returns 0 or NQ_ENOMEM (release() then frees the plan).
 */
int nq_full_plan(nq_job *job, int split_depth)
{
    const int n = job->n;
    full_plan *plan = calloc(1, sizeof *plan);
    if (!plan)
        return NQ_ENOMEM;
    job->plan = plan;
    uint64_t h = nq_hash_bytes(NQ_HASH_SEED, "full", 4);
    h = nq_hash_bytes(h, &n, sizeof n);

    if (n <= NQ_FULL_SMALL_N) {
        plan->small = 1;
        job->units = 1;
        job->split_depth = 0;
        job->identity = h;
        return 0;
    }
    const long nconst = nq_full_list_constellations(n, job->threads, plan);
    if (nconst < 0)
        return (int)nconst;
    /* Prefix levels: as asked, or the fewest giving enough units. */
    const int split = split_depth != NQ_SPLIT_AUTO
                          ? split_depth
                          : auto_split_depth(n, job->threads, (size_t)nconst);
    nq_array list = {0};
    int ret = list_units(n, job->threads, plan, (size_t)nconst, split, &list);
    if (ret < 0)
        return ret;

    plan->units = list.items;
    job->units = list.count;
    job->split_depth = split;
    h = nq_hash_bytes(h, &split, sizeof split);
    for (size_t i = 0; i < list.count; i++) {
        const full_unit *u = &plan->units[i];
        const full_constellation *c = &plan->consts[u->constellation];
        h = nq_hash_bytes(h, c->qrow, sizeof c->qrow);
        h = nq_hash_bytes(h, c->qcol, sizeof c->qcol);
        h = nq_hash_bytes(h, &u->level, sizeof u->level);
        h = nq_hash_bytes(h, u->prefix, u->level);
    }
    job->identity = h;
    return 0;
}

/* Weight of a look-ahead leaf: the product over the levels from `level` on
 * of the squares each would have free if no further queen were placed (the
 * mirror engine's leaf weight, mirror/probe.c, with this constellation's fixed
 * attacks and row gaps).  It ignores that every queen also takes a column,
 * so it overstates a subtree more the more rows are left. */
static double leaf_weight(const full_constellation *c, int level, uint32_t cols,
                          uint32_t left, uint32_t right)
{
    double w = 1; /* at most 32 factors of at most 32: no overflow */
    for (int j = level; j < c->levels; j++) {
        const int d = c->row[j] - c->row[level];
        const uint32_t l = d < 32 ? left << d : 0, r = d < 32 ? right >> d : 0;
        const int f = __builtin_popcount(~(cols | l | r | c->fixed[j]));
        if (f == 0)
            return 0;
        w *= f;
    }
    return w;
}

/* Sum of the leaf weights `ahead` levels below (level, masks) of c. */
static double weigh(const full_constellation *c, int level, uint32_t cols, uint32_t left,
                    uint32_t right, int ahead)
{
    if (ahead == 0 || level >= c->levels)
        return leaf_weight(c, level, cols, left, right);
    uint32_t free_sq = ~(cols | left | right | c->fixed[level]);
    const int sh = c->shift[level];
    double w = 0;
    while (free_sq) {
        uint32_t bit = free_sq & (0u - free_sq); /* lowest free square */
        free_sq ^= bit;
        w += weigh(c, level + 1, cols | bit, (left | bit) << sh, (right | bit) >> sh, ahead - 1);
    }
    return w;
}

/* Square root of x >= 0 by Newton's method (the library does not link
 * libm); relative error far below what an estimate needs. */
static double square_root(double x)
{
    if (x <= 0)
        return 0;
    double r = x > 1 ? x : 1; /* >= the root: the iteration falls to it */
    for (int i = 0; i < 200; i++) {
        const double next = 0.5 * (r + x / r);
        if (next >= r)
            break;
        r = next;
    }
    return r;
}

/*
 * The estimate hook: per unit, the square root of its leaf-weight sum
 * NQ_FULL_ESTIMATE_LEVELS levels down (weigh).  Not the plan's sort key:
 * that look-ahead node count sees only the top of each subtree, so it
 * ranks units roughly and compresses their spread, which makes a schedule
 * look better balanced than it is.  The leaf weight ranks them well but
 * overstates the spread, because it grows with the free rows' width as a
 * product; unit times grow about as its square root, which therefore has
 * the right spread.  The unit list and its order are the plan's; only the
 * hook uses this.  Units are independent, so they are weighed in parallel
 * (hundreds of thousands at large N).
 */
int nq_full_estimate(const nq_job *job, double *costs)
{
    const full_plan *plan = job->plan;
    if (plan->small) {
        costs[0] = 1;
        return 0;
    }
    const int ahead = NQ_FULL_ESTIMATE_LEVELS(job->n);
    /* Never more threads than the job was planned for (a "-t 1" run is
     * one thread, whatever OMP_NUM_THREADS says), nor than this process
     * has. */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64) num_threads(nq_local_threads(job->threads))
#endif
    for (long u = 0; u < (long)job->units; u++) {
        const full_unit *x = &plan->units[u];
        costs[u] = square_root(weigh(&plan->consts[x->constellation], x->level, x->cols, x->left,
                              x->right, ahead));
    }
    return 0;
}

