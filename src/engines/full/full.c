/*
 * full.c - the full-symmetry engine: counts all solutions and the
 * unique ones (classes under the eight board symmetries) by searching only
 * canonical "constellations" of border queens.
 *
 * Every solution has exactly one queen in each border line: row 0, row n-1,
 * column 0 and column n-1 (a corner queen serves two lines).  Those four
 * positions, written (t, b, l, r) = (column of the top queen, column of the
 * bottom queen, row of the left queen, row of the right queen), form the
 * solution's constellation.  A board symmetry maps border lines onto border
 * lines, so it maps constellations onto constellations.  The plan keeps one
 * representative c of every orbit of constellations (found as the image
 * with the smallest key ((t*n + b)*n + l)*n + r, then turned to the image
 * whose search is cheapest, see orient()); every solution class has members
 * with constellation c, and the engine counts exactly those members:
 *
 *  - total: the orbit of a solution s contains |G|/|Stab(s)| boards, and
 *    those whose constellation is the canonical c are the images g(s) with g
 *    in Stab(c), i.e. |Stab(c)|/|Stab(s)| of them.  So each solution with
 *    constellation c stands for 8/|Stab(c)| solutions: weight 8 for almost
 *    every constellation, 4 when a half turn fixes c, 2 when a quarter turn
 *    does (reflections never fix a constellation: they would put two queens
 *    on one diagonal).  No test at the leaves is needed for the total.
 *  - unique: with Stab(c) trivial each such solution is the only member of
 *    its class with constellation c, so it counts 1.  Otherwise the solution
 *    counts 1 only if it is lexicographically smallest among its images
 *    under Stab(c), tested explicitly at the leaf; such constellations are
 *    rare (about 1/n^2 of them), so the slow path costs little.
 *
 * Knowing the border queens up front is what makes the inner search fast:
 * their diagonals are blocked in every row before the first queen is placed,
 * four columns and up to four rows are already decided, and dead ends show
 * up rows earlier than in a row-by-row search.  Each constellation (or, when
 * more units are wanted, each placement of its first free rows: the split
 * depth) is one unit, and the units are sorted so that the costliest ones,
 * by a short look-ahead count, run first.
 *
 * Boards with n <= NQ_FULL_SMALL_N are too small for constellations (border
 * queens would fill every row) and are enumerated explicitly in one unit.
 *
 * The inner search is portable C; a build targeting AVX-512 finishes its
 * last four levels in one vector pass (x86/full_avx512.h, see full_finish).
 */
#include <stdlib.h>
#include <string.h>

#include "core/search.h"
#include "engines/engines.h"
#include "engines/full/full.h"
#include "engines/full/symmetry.h"

/* The build's finisher: the AVX-512 one when core/search.h has AVX-512. */
#ifdef NQ_SEARCH_AVX512
#include "engines/full/x86/full_avx512.h"
#endif
struct nq_full_tail;

/* Largest n handled by explicit enumeration instead of constellations. */
#define NQ_FULL_SMALL_N 5
/* Automatic splitting adds prefix levels until there are this many units per
 * thread, so the pool can balance uneven constellations. */
#define NQ_FULL_UNITS_PER_THREAD 64
/* Most prefix levels automatic splitting adds. */
#define NQ_FULL_AUTO_MAX_SPLIT 2
/* Smallest n whose planning is worth a parallel region (below it the plan
 * takes a few milliseconds, less than waking the threads may cost). */
#define NQ_FULL_PARALLEL_PLAN_N 16
/* Levels looked ahead when estimating a unit's cost for the ordering; the
 * planning cost grows as n^levels per unit, so large boards look less far. */
#define NQ_FULL_ESTIMATE_LEVELS(n) ((n) <= 20 ? 3 : (n) <= 26 ? 2 : 1)

/* One canonical constellation and the tables its inner search needs. */
typedef struct {
    uint32_t fixed[NQ_MAX_N]; /* per level: squares the border queens attack */
    uint8_t shift[NQ_MAX_N];  /* per level: rows down to the next level's row */
    uint8_t row[NQ_MAX_N];    /* per level: its board row */
    uint32_t cols;            /* border queens' columns, plus every bit >= n */
    int levels;               /* rows left free for the search */
    int queens;               /* distinct border queens: 3, or 4 without a corner */
    int qrow[4], qcol[4];     /* their squares */
    int weight;               /* 8 / |Stab(c)| */
    int nstab;                /* |Stab(c)| */
    uint8_t stab[NQ_SYMMETRIES]; /* the symmetries fixing c, identity first */
} full_const;

/* A unit: a constellation with its first `level` free rows placed. */
typedef struct {
    uint32_t cols, left, right; /* masks for the row of `level` */
    uint32_t constellation;
    uint8_t level;
    uint8_t prefix[NQ_MAX_SPLIT_DEPTH]; /* columns placed on levels 0..level-1 */
    uint64_t estimate;          /* planning only: cost guess for the ordering */
    uint64_t order;             /* planning only: position before sorting */
} full_unit;

typedef struct {
    int small;                  /* 1: one unit, explicit enumeration */
    full_const *consts;
    full_unit *units;
} full_plan;

/* ---- planning ---- */

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
                               full_const *c)
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
                                  int canonical, full_const *c)
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
static int make_constellation(int n, int t, int b, int l, int r, int canonical, full_const *c)
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

typedef struct {
    full_unit *items;
    size_t count, cap;
    int failed;
} unit_list;

static void push_unit(unit_list *list, const full_unit *u)
{
    if (list->failed)
        return;
    if (list->count == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 1024;
        full_unit *grown = realloc(list->items, cap * sizeof *grown);
        if (!grown) {
            list->failed = 1;
            return;
        }
        list->items = grown;
        list->cap = cap;
    }
    list->items[list->count++] = *u;
}

/* Places queens on levels u.level .. depth-1 of constellation c and pushes
 * every resulting unit, in lexicographic order of the placed columns. */
static void expand(unit_list *list, const full_const *c, full_unit u, int depth)
{
    if (u.level >= depth) {
        push_unit(list, &u);
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
static uint64_t estimate(const full_const *c, int level, uint32_t cols, uint32_t left,
                         uint32_t right, int ahead)
{
    if (ahead == 0 || level >= c->levels)
        return 1;
    uint64_t nodes = 1;
    uint32_t free_sq = ~(cols | left | right | c->fixed[level]);
    const int sh = c->shift[level];
    while (free_sq) {
        uint32_t bit = free_sq & (0u - free_sq); /* lowest free square */
        free_sq ^= bit;
        nodes += estimate(c, level + 1, cols | bit, (left | bit) << sh, (right | bit) >> sh,
                          ahead - 1);
    }
    return nodes;
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
static uint64_t probe_estimate(const full_const *c, uint32_t seed, int probes)
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
static uint32_t image_of(int n, const full_const *c, int g, full_const *out)
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
static void orient(int n, full_const *c)
{
    static const int rot_of[4] = {0, 2, 1, 3};
    const int probes = orient_probes(n);
    const full_const base = *c;
    uint64_t cost[4];
    full_const cand;
    uint32_t best_key = 0;
    uint64_t best = UINT64_MAX;
    int best_g = 0;
    for (int g = 0; g < NQ_SYMMETRIES; g++) {
        /* Only rotations need their tables built, for the estimate. */
        const uint32_t key = image_of(n, &base, g, g < 4 ? &cand : NULL);
        if (g < 4)
            cost[g] = probe_estimate(&cand, key, probes);
        const uint64_t e = g < 4 ? cost[g] : cost[rot_of[g - 4]];
        if (e < best || (e == best && key < best_key)) {
            best = e;
            best_key = key;
            best_g = g;
        }
    }
    image_of(n, &base, best_g, c);
}

/* Costliest first; ties keep the planning order, so the list is deterministic. */
static int by_estimate(const void *a, const void *b)
{
    const full_unit *x = a, *y = b;
    if (x->estimate != y->estimate)
        return x->estimate > y->estimate ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static void full_release(nq_job *job)
{
    full_plan *plan = job->plan;
    if (plan) {
        free(plan->consts);
        free(plan->units);
        free(plan);
    }
    job->plan = NULL;
}

/* Lists one constellation per orbit, in key order, into plan->consts and
 * orients each for speed (on `threads` threads from n =
 * NQ_FULL_PARALLEL_PLAN_N on).  Returns how many, or NQ_ENOMEM. */
static long list_constellations(int n, int threads, full_plan *plan)
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
                        full_const *grown = realloc(plan->consts, 2 * cap * sizeof *grown);
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
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads) if (n >= NQ_FULL_PARALLEL_PLAN_N)
#endif
    for (long i = 0; i < (long)nconst; i++)
        orient(n, &plan->consts[i]);
    return (long)nconst;
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
                      unit_list *list)
{
    for (size_t i = 0; i < nconst; i++) {
        const full_const *c = &plan->consts[i];
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
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads) if (n >= NQ_FULL_PARALLEL_PLAN_N)
#endif
    for (long i = 0; i < (long)list->count; i++) {
        full_unit *u = &list->items[i];
        const full_const *c = &plan->consts[u->constellation];
        u->order = (uint64_t)i;
        u->estimate = estimate(c, u->level, u->cols, u->left, u->right,
                               NQ_FULL_ESTIMATE_LEVELS(n));
    }
    qsort(list->items, list->count, sizeof *list->items, by_estimate);
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
static int full_plan_job(nq_job *job, int split_depth)
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
    const long nconst = list_constellations(n, job->threads, plan);
    if (nconst < 0)
        return (int)nconst;
    /* Prefix levels: as asked, or the fewest giving enough units. */
    const int split = split_depth != NQ_SPLIT_AUTO
                          ? split_depth
                          : auto_split_depth(n, job->threads, (size_t)nconst);
    unit_list list = {0};
    int ret = list_units(n, job->threads, plan, (size_t)nconst, split, &list);
    if (ret < 0)
        return ret;

    plan->units = list.items;
    job->units = list.count;
    job->split_depth = split;
    h = nq_hash_bytes(h, &split, sizeof split);
    for (size_t i = 0; i < list.count; i++) {
        const full_unit *u = &list.items[i];
        const full_const *c = &plan->consts[u->constellation];
        h = nq_hash_bytes(h, c->qrow, sizeof c->qrow);
        h = nq_hash_bytes(h, c->qcol, sizeof c->qcol);
        h = nq_hash_bytes(h, &u->level, sizeof u->level);
        h = nq_hash_bytes(h, u->prefix, u->level);
    }
    job->identity = h;
    return 0;
}

/* ---- solving ---- */

/*
 * Counts the completions of the last `finish` levels of a constellation,
 * given the masks for the first of them (and, for finish = 1, that level's
 * border attacks `fixed`): the dispatch point of the finishers.  finish =
 * 1: the last level has at most one free square, so a solution exactly
 * when it is free.  finish = 4 (AVX-512 builds only): nq_full_last_four()
 * with the tables in *tail.  `finish` is a constant at every call site.
 */
NQ_SEARCH_INLINE uint64_t full_finish(int finish, const struct nq_full_tail *tail, uint32_t cols,
                                      uint32_t left, uint32_t right, uint32_t fixed)
{
#ifdef NQ_FULL_AVX512
    if (finish == 4)
        return nq_full_last_four(tail, cols, left, right);
#endif
    (void)finish;
    (void)tail;
    return ~(cols | left | right | fixed) != 0;
}

/*
 * Counts the completions of constellation c from `level` with the given
 * masks (for that level's row).  Needs level <= c->levels - 1 - finish.
 *
 * Iterative DFS with an explicit stack.  Compared with a row-by-row kernel
 * it ORs in each row's border attacks (c->fixed) and moves the diagonals by
 * the row distance to the next free row (c->shift), skipping the side
 * queens' rows.  The last `finish` levels are never descended into: each
 * placement on the level above them goes to full_finish().  `finish` is a
 * constant at every call site, so each gets its own copy of the loop, as in
 * search.h.
 */
NQ_SEARCH_INLINE uint64_t full_dfs(const full_const *c, int level, uint32_t cols, uint32_t left,
                                   uint32_t right, const int finish,
                                   const struct nq_full_tail *tail)
{
    uint32_t st_free[NQ_MAX_N], st_cols[NQ_MAX_N], st_left[NQ_MAX_N], st_right[NQ_MAX_N];
    const int last = c->levels - 1 - finish; /* the level above the finished ones */
    int d = level;
    uint32_t free_sq = ~(cols | left | right | c->fixed[d]);
    /* Per-level constants of the two levels below d, kept in registers while
     * the candidates of level d are tried. */
    uint32_t fixed1 = c->fixed[d + 1], fixed2 = c->fixed[d + 2];
    int sh = c->shift[d], sh1 = c->shift[d + 1];
    uint64_t count = 0;

    /* Hot loop: one iteration places one queen or backtracks one level. */
    for (;;) {
        if (free_sq) {
            /* x & -x isolates the lowest set bit: the next square to try. */
            uint32_t bit = free_sq & (0u - free_sq);
            free_sq ^= bit;
            uint32_t ncols = cols | bit;
            /* Diagonals move one column per row, so sh columns down to the
             * next free row; bits pushed past the board are masked by cols. */
            uint32_t nleft = (left | bit) << sh;
            uint32_t nright = (right | bit) >> sh;
            if (d == last) {
                count += full_finish(finish, tail, ncols, nleft, nright, fixed1);
                continue;
            }
            uint32_t nfree = ~(ncols | nleft | nright | fixed1);
            /* Descend only if the next level has a free square and the one
             * after it is not already fully attacked (shifting once more
             * projects the diagonals there); the AND with a 0/-1 mask keeps
             * this a single branch. */
            uint32_t after = ~(ncols | (nleft << sh1) | (nright >> sh1) | fixed2);
            if (nfree & (0u - (uint32_t)(after != 0))) {
                st_free[d] = free_sq;
                st_cols[d] = cols;
                st_left[d] = left;
                st_right[d] = right;
                d++;
                cols = ncols;
                left = nleft;
                right = nright;
                free_sq = nfree;
                fixed1 = fixed2;
                fixed2 = c->fixed[d + 2];
                sh = sh1;
                sh1 = c->shift[d + 1];
            }
            continue;
        }
        if (d == level)
            break;
        d--;
        free_sq = st_free[d];
        cols = st_cols[d];
        left = st_left[d];
        right = st_right[d];
        fixed1 = c->fixed[d + 1];
        fixed2 = c->fixed[d + 2];
        sh = c->shift[d];
        sh1 = c->shift[d + 1];
    }
    return count;
}

/* Counts the completions from `level` (see full_dfs()), with the vector
 * finisher when the build has it and at least five levels are left. */
static uint64_t full_count_any(const full_const *c, int level, uint32_t cols, uint32_t left,
                               uint32_t right)
{
#ifdef NQ_FULL_AVX512
    if (c->levels - level >= 5) {
        nq_full_tail tail;
        nq_full_tail_load(&tail, c->fixed + c->levels - 4, c->shift + c->levels - 4);
        return full_dfs(c, level, cols, left, right, 4, &tail);
    }
#endif
    return full_dfs(c, level, cols, left, right, 1, NULL);
}

/* Per-solution bookkeeping of the explicit paths. */
typedef struct {
    int n;
    int board[NQ_MAX_N];  /* board[row] = column of the row's queen */
    const uint8_t *syms;  /* symmetries to test (identity first) */
    int nsyms;
    int weight;           /* solutions each one found stands for */
    nq_counts counts;
    uint64_t *classes;    /* optional: classes by size, indexed 1..8 */
} leaf_state;

/* Lexicographic comparison of the board with its image under g: returns 1
 * when the board is not larger (it may represent the class), and sets *same
 * when they are equal. */
static int board_not_larger(const leaf_state *st, int g, int *same)
{
    int image[NQ_MAX_N];
    nq_sym_board(g, st->n, st->board, image);
    for (int row = 0; row < st->n; row++)
        if (st->board[row] != image[row]) {
            *same = 0;
            return st->board[row] < image[row];
        }
    *same = 1;
    return 1;
}

/* A complete board: counted with st->weight; counted unique when it is the
 * smallest of its images under st->syms. */
static void leaf(leaf_state *st)
{
    int smallest = 1, fixing = 0;
    for (int i = 0; i < st->nsyms; i++) {
        int same;
        smallest &= board_not_larger(st, st->syms[i], &same);
        fixing += same;
    }
    st->counts.total += (nq_u128)st->weight;
    if (smallest) {
        st->counts.unique++;
        /* Stab(s) lies within the tested symmetries, so fixing = |Stab(s)|. */
        if (st->classes)
            st->classes[NQ_SYMMETRIES / fixing]++;
    }
}

/* Explicit search over the free rows of c from `level`, recording columns. */
static void explicit_search(leaf_state *st, const full_const *c, int level, uint32_t cols,
                            uint32_t left, uint32_t right)
{
    if (level == c->levels) {
        leaf(st);
        return;
    }
    uint32_t free_sq = ~(cols | left | right | c->fixed[level]);
    const int sh = c->shift[level];
    while (free_sq) {
        uint32_t bit = free_sq & (0u - free_sq); /* lowest free square */
        free_sq ^= bit;
        st->board[c->row[level]] = __builtin_ctz(bit);
        explicit_search(st, c, level + 1, cols | bit, (left | bit) << sh, (right | bit) >> sh);
    }
}

/* Every solution of a small board, each tested against all 8 symmetries. */
static void small_search(leaf_state *st, int row, uint32_t cols, uint32_t left, uint32_t right)
{
    if (row == st->n) {
        leaf(st);
        return;
    }
    uint32_t free_sq = nq_board_mask(st->n) & ~(cols | left | right);
    while (free_sq) {
        uint32_t bit = free_sq & (0u - free_sq); /* lowest free square */
        free_sq ^= bit;
        st->board[row] = __builtin_ctz(bit);
        small_search(st, row + 1, cols | bit, (left | bit) << 1, (right | bit) >> 1);
    }
}

static const uint8_t all_symmetries[NQ_SYMMETRIES] = {0, 1, 2, 3, 4, 5, 6, 7};

/* Solves one unit into *out; also adds its classes by size to classes[1..8]
 * when classes is not NULL (which forces the explicit path). */
static void full_solve_unit(const nq_job *job, uint64_t unit, nq_counts *out,
                            uint64_t *classes)
{
    const full_plan *plan = job->plan;
    leaf_state st;
    memset(&st, 0, sizeof st);
    st.n = job->n;
    st.classes = classes;

    if (plan->small) {
        /* Each solution counts once; a class counts at its smallest member. */
        st.syms = all_symmetries;
        st.nsyms = NQ_SYMMETRIES;
        st.weight = 1;
        small_search(&st, 0, 0, 0, 0);
        *out = st.counts;
        return;
    }

    const full_unit *u = &plan->units[unit];
    const full_const *c = &plan->consts[u->constellation];
    if (c->nstab == 1 && !classes) {
        /* Stab(c) trivial: every solution found is a class of 8. */
        uint64_t found = full_count_any(c, u->level, u->cols, u->left, u->right);
        out->total = (nq_u128)found * NQ_SYMMETRIES;
        out->unique = found;
        return;
    }
    for (int i = 0; i < c->queens; i++)
        st.board[c->qrow[i]] = c->qcol[i];
    for (int k = 0; k < u->level; k++)
        st.board[c->row[k]] = u->prefix[k];
    st.syms = c->stab;
    st.nsyms = c->nstab;
    st.weight = c->weight;
    explicit_search(&st, c, u->level, u->cols, u->left, u->right);
    *out = st.counts;
}

/* Weight of a look-ahead leaf: the product over the levels from `level` on
 * of the squares each would have free if no further queen were placed (the
 * mirror engine's leaf weight, estimate.c, with this constellation's fixed
 * attacks and row gaps).  It ignores that every queen also takes a column,
 * so it overstates a subtree more the more rows are left. */
static double leaf_weight(const full_const *c, int level, uint32_t cols, uint32_t left,
                          uint32_t right)
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
static double weigh(const full_const *c, int level, uint32_t cols, uint32_t left,
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
static double root(double x)
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
static int full_estimate(const nq_job *job, double *costs)
{
    const full_plan *plan = job->plan;
    if (plan->small) {
        costs[0] = 1;
        return 0;
    }
    const int ahead = NQ_FULL_ESTIMATE_LEVELS(job->n);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64)
#endif
    for (long u = 0; u < (long)job->units; u++) {
        const full_unit *x = &plan->units[u];
        costs[u] = root(weigh(&plan->consts[x->constellation], x->level, x->cols, x->left,
                              x->right, ahead));
    }
    return 0;
}

static void full_solve(const nq_job *job, uint64_t unit, nq_counts *out, void *scratch)
{
    (void)scratch;
    full_solve_unit(job, unit, out, NULL);
}

int nq_full_class_sizes(int n, uint64_t classes[NQ_SYMMETRIES + 1])
{
    if (!classes)
        return NQ_EINVAL_ARG;
    if (n < NQ_MIN_N || n > NQ_MAX_N)
        return NQ_EINVAL_N;
    /* The engine's own job, planned as nq_job_create() would for one
     * thread, without going up through the API layer. */
    nq_job job = {.ops = &nq_engine_full, .n = n, .threads = 1};
    int ret = full_plan_job(&job, NQ_SPLIT_AUTO);
    if (ret == 0) {
        memset(classes, 0, (NQ_SYMMETRIES + 1) * sizeof *classes);
        for (uint64_t u = 0; u < job.units; u++) {
            nq_counts one;
            full_solve_unit(&job, u, &one, classes);
        }
    }
    full_release(&job);
    return ret;
}

const struct nq_engine_ops nq_engine_full = {
    .id = NQ_ENGINE_FULL,
    .name = "full",
    .has_unique = 1,
    .has_split = 1,
    .plan = full_plan_job,
    .solve = full_solve,
    .release = full_release,
    .estimate = full_estimate,
};
