/*
 * constellation.c - the full engine's constellations: every arrangement of
 * border queens that can start a solution, one per orbit under the eight
 * board symmetries, each with its stabiliser, weight and search tables,
 * and turned to the image whose search is cheapest.
 *
 * Planning starts here (plan.c cuts the constellations into units).  Any
 * one member of each orbit gives the right counts, since the weights
 * depend on the stabiliser alone; which member is kept matters only for
 * speed, and is chosen by a few deterministic random walks, so the plan
 * stays a function of n.
 */
#include <stdlib.h>
#include <string.h>

#include "core/search.h"
#include "engines/full/constellation.h"

/* Reads constellation (t, b, l, r) of n off the border squares q[0..count).
 * The squares must cover all four border lines. */
static uint32_t constellation_key(int n, int count, const int *qr, const int *qc)
{
    int t = 0, b = 0, l = 0, r = 0;
    for (int i = 0; i < count; i++) {
        if (qr[i] == 0)
            t = qc[i];
        if (qr[i] == n - 1)
            b = qc[i];
        if (qc[i] == 0)
            l = qr[i];
        if (qc[i] == n - 1)
            r = qr[i];
    }
    return (uint32_t)(((t * n + b) * n + l) * n + r);
}

/* 1 when queens on (r1, c1) and (r2, c2) share a row, column or diagonal. */
static int attacks(int r1, int c1, int r2, int c2)
{
    return r1 == r2 || c1 == c2 || abs(r1 - r2) == abs(c1 - c2);
}

/* Fills c's search tables from its `count` queens (qr[], qc[]): the free
 * rows (the inner rows holding no side queen, l and r being the side
 * queens' rows), the squares the queens attack in each and the row
 * distance to the next. */
static inline void fill_levels(int n, int l, int r, int count, const int *qr, const int *qc,
                               full_constellation *c)
{
    c->cols = ~nq_board_mask(n);
    for (int i = 0; i < count; i++)
        c->cols |= UINT32_C(1) << qc[i];
    for (int row = 1; row < n - 1; row++) {
        if (row == l || row == r)
            continue;
        uint32_t fixed = 0;
        for (int i = 0; i < count; i++) {
            /* Queen (R, C) attacks (row, C + (row - R)) and (row, C - (row - R)). */
            const int d = row - qr[i];
            if (qc[i] + d >= 0 && qc[i] + d < n)
                fixed |= UINT32_C(1) << (qc[i] + d);
            if (qc[i] - d >= 0 && qc[i] - d < n)
                fixed |= UINT32_C(1) << (qc[i] - d);
        }
        c->row[c->levels] = (uint8_t)row;
        c->fixed[c->levels] = fixed;
        c->levels++;
    }
    for (int k = 0; k + 1 < c->levels; k++)
        c->shift[k] = (uint8_t)(c->row[k + 1] - c->row[k]);
    if (c->levels)
        c->shift[c->levels - 1] = 1;
}

/* Records in c->stab the symmetries that map the constellation of the
 * `count` queens qr[], qc[] (with key `key`) onto itself.  Returns 0, or,
 * when `canonical` is set and some image has a smaller key, -1 (c->stab is
 * then partial). */
static inline int find_stabiliser(int n, int count, const int *qr, const int *qc, uint32_t key,
                                  int canonical, full_constellation *c)
{
    for (int g = 0; g < NQ_SYMMETRIES; g++) {
        int ir[4], ic[4];
        for (int i = 0; i < count; i++)
            nq_sym_point(g, n, qr[i], qc[i], &ir[i], &ic[i]);
        const uint32_t image = constellation_key(n, count, ir, ic);
        if (image < key && canonical)
            return -1;
        if (image == key)
            c->stab[c->nstab++] = (uint8_t)g;
    }
    return 0;
}

/*
 * Fills *c for constellation (t, b, l, r) of n, with its stabiliser and
 * search tables, when it is consistent (the corner cases agree: t = 0
 * exactly when l = 0, and so on), its queens do not attack each other, and,
 * if `canonical` is set, no image has a smaller key.  Returns 1 then, else 0
 * (*c is then unspecified).
 */
static int make_constellation(int n, int t, int b, int l, int r, int canonical,
                              full_constellation *c)
{
    const int m = n - 1;
    /* A corner queen is in two border lines; both must name it. */
    if ((t == 0) != (l == 0) || (t == m) != (r == 0) || (b == 0) != (l == m) ||
        (b == m) != (r == m))
        return 0;
    /* The distinct queens, a corner one once, compacted to the front; the
     * entries past `count` keep what the full list put there. */
    int qr[4] = {0, m, l, r}, qc[4] = {t, b, 0, m};
    int count = 0;
    for (int i = 0; i < 4; i++) {
        int dup = 0;
        for (int j = 0; j < count; j++)
            dup |= qr[j] == qr[i] && qc[j] == qc[i];
        if (dup)
            continue;
        for (int j = 0; j < count; j++)
            if (attacks(qr[j], qc[j], qr[i], qc[i]))
                return 0;
        qr[count] = qr[i];
        qc[count] = qc[i];
        count++;
    }

    const uint32_t key = constellation_key(n, count, qr, qc);
    memset(c, 0, sizeof *c);
    if (find_stabiliser(n, count, qr, qc, key, canonical, c) < 0)
        return 0;
    c->weight = NQ_SYMMETRIES / c->nstab;
    c->queens = count;
    /* All four entries: the job identity hashes the whole arrays. */
    memcpy(c->qrow, qr, sizeof qr);
    memcpy(c->qcol, qc, sizeof qc);
    fill_levels(n, l, r, count, qr, qc, c);
    return 1;
}

/* Random walks per orientation when choosing a constellation's
 * orientation: more guess better, planning costs about probes * n per
 * image. */
static int orient_probes(int n)
{
    return n <= 20 ? 64 : n <= 24 ? 16 : 8;
}

/*
 * Knuth's estimate of the size of c's search tree: the average, over
 * `probes` random walks from the first free row down, of the sum of the
 * products of the branching factors met.  Unlike a short exhaustive
 * look-ahead it sees the deep rows, where most of the work is.  The walks
 * come from a xorshift generator seeded with `seed`, so the estimate (and
 * the plan) is deterministic.
 */
static uint64_t probe_estimate(const full_constellation *c, uint32_t seed, int probes)
{
    uint64_t x = UINT64_C(0x9e3779b97f4a7c15) ^ seed, total = 0;
    for (int p = 0; p < probes; p++) {
        uint32_t cols = c->cols, left = 0, right = 0;
        uint64_t width = 1;
        for (int level = 0; level < c->levels; level++) {
            uint32_t free_sq = ~(cols | left | right | c->fixed[level]);
            const int k = __builtin_popcount(free_sq);
            if (k == 0)
                break;
            width *= (uint64_t)k; /* nodes this level holds, as seen from the walk */
            total += width;
            x ^= x << 13; /* xorshift64: a fixed, cheap pseudo-random sequence */
            x ^= x >> 7;
            x ^= x << 17;
            for (int skip = (int)((x >> 32) % (uint64_t)k); skip > 0; skip--)
                free_sq &= free_sq - 1; /* x & (x-1) drops the lowest candidate */
            const uint32_t bit = free_sq & (0u - free_sq); /* x & -x: the chosen one */
            const int sh = c->shift[level];
            cols |= bit;
            left = (left | bit) << sh;
            right = (right | bit) >> sh;
        }
    }
    return total;
}

/* Key of constellation c seen through symmetry g; with `out`, also that
 * image as a constellation of its own (stabiliser and search tables). */
static uint32_t image_of(int n, const full_constellation *c, int g, full_constellation *out)
{
    int ir[4], ic[4];
    for (int i = 0; i < c->queens; i++)
        nq_sym_point(g, n, c->qrow[i], c->qcol[i], &ir[i], &ic[i]);
    const uint32_t key = constellation_key(n, c->queens, ir, ic);
    if (out) {
        /* The key is ((t*n + b)*n + l)*n + r: read the image back off it. */
        const int t = (int)(key / (uint32_t)(n * n * n)), b = (int)(key / (uint32_t)(n * n) % n);
        const int l = (int)(key / (uint32_t)n % n), r = (int)(key % (uint32_t)n);
        make_constellation(n, t, b, l, r, 0, out);
    }
    return key;
}

/*
 * Replaces c by the image of c whose search probe_estimate() finds cheapest
 * (ties: the smallest key).  Any rule that picks one member of each orbit
 * is correct, as the weights depend on |Stab(c)| alone; this one matters
 * for speed: the search runs top-down, so it pays to have the border queens
 * that cut the first rows hardest on top.  A left-right mirror does not
 * change the size of a top-down search, so only the four rotations are
 * estimated; reflection 4 + k is the mirror of rotation rot_of[k].
 */
static void orient(int n, full_constellation *c)
{
    static const int rot_of[4] = {0, 2, 1, 3};
    const int probes = orient_probes(n);
    const full_constellation base = *c;
    uint64_t cost[4];
    full_constellation cand;
    uint32_t best_key = 0;
    uint64_t best = UINT64_MAX;
    int best_g = 0;
    for (int g = 0; g < NQ_SYMMETRIES; g++) {
        /* Only rotations need their tables built, for the estimate; a
         * reflection, met after every rotation, takes its rotation's. */
        const uint32_t key = image_of(n, &base, g, g < 4 ? &cand : NULL);
        const uint64_t e =
            g < 4 ? (cost[g] = probe_estimate(&cand, key, probes)) : cost[rot_of[g - 4]];
        if (e < best || (e == best && key < best_key)) {
            best = e;
            best_key = key;
            best_g = g;
        }
    }
    image_of(n, &base, best_g, c);
}

long nq_full_list_constellations(int n, int threads, full_plan *plan)
{
    size_t nconst = 0, cap = 256;
    plan->consts = malloc(cap * sizeof *plan->consts);
    if (!plan->consts)
        return NQ_ENOMEM;
    for (int t = 0; t < n; t++)
        for (int b = 0; b < n; b++)
            for (int l = 0; l < n; l++)
                for (int r = 0; r < n; r++) {
                    if (nconst == cap) {
                        full_constellation *grown =
                            realloc(plan->consts, 2 * cap * sizeof *grown);
                        if (!grown)
                            return NQ_ENOMEM;
                        plan->consts = grown;
                        cap *= 2;
                    }
                    nconst += make_constellation(n, t, b, l, r, 1, &plan->consts[nconst]);
                }
    /* Orbits are oriented independently, so the threads share the work;
     * the result does not depend on how. */
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 16) num_threads(nq_local_threads(threads)) \
    if (n >= NQ_FULL_PARALLEL_PLAN_N)
#endif
    for (long i = 0; i < (long)nconst; i++)
        orient(n, &plan->consts[i]);
    return (long)nconst;
}

