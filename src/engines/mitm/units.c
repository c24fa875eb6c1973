/*
 * units.c - the unit list of the meet-in-the-middle engine: which E are
 * solved and with which weight, the order they run in, the job's identity,
 * the list sizes a thread's scratch needs, and what each unit costs.
 *
 * Symmetry.  North-south reflection maps E to its bit reversal and
 * east-west reflection maps E to its complement, so for even N (and the
 * odd-N centre queen, which both reflections keep) only one E of each orbit
 * of that four-element group is solved, weighted by the orbit size.  For
 * odd N the queens of the middle row (column m + a) and middle column (row
 * m + b) with a != 0 are moved by the eight board symmetries as the signed
 * permutations of (a, b); |a| != |b| (they would share a diagonal), so the
 * orbits have eight members and only 0 < a < b is solved, weight 8.  Such
 * a unit is (b, E) and covers every a in 1 .. b - 1 (see mitm.c).
 */
#include <stdlib.h>
#include <string.h>

#include "engines/mitm/mitm_plan.h"

/* The largest half-board bound of any unit (half_bound) per side h, as
 * half_cap_of computes it from the store (the tests check the table
 * against planned jobs; only the memory estimate uses it). */
static const size_t half_cap_per_h[NQ_MITM_STORE_MAX_H + 1] = {
    1, 1, 2, 4, 16, 48, 226, 1080, 7240, 41644, 300950, 2300692,
};

/* Smallest quarter side whose units run in spread order (spread_stride). */
#define NQ_MITM_SPREAD_H 12

/* West lists shorter than this are joined without key bits: choosing and
 * sorting by keys costs more than the pairs it skips there (the small
 * boards, and most units of the smallest boards that use keys). */
#define NQ_MITM_KEY_MIN 2048

void nq_mitm_default_tuning(nq_mitm_tuning *t)
{
    t->batch_limit = 0;
    t->walk_slices = 0;
    t->key_min = NQ_MITM_KEY_MIN;
    t->key_bits = 0;
    t->join_kernel = nq_join_kernel_default();
    t->model_costs = 0;
    t->grow_lists = 0;
}

void nq_mitm_decode_unit(const mitm_plan *p, uint64_t u, nq_mitm_unit *d)
{
    if (p->stride) /* a job in spread order (see spread_stride) */
        u = u * p->stride % (p->ncanon + p->nb * p->nall);
    if (u < p->ncanon) {
        d->a_first = d->a_last = d->b = 0;
        d->east = p->canon[u];
        d->weight = p->canon_weight[u];
        return;
    }
    u -= p->ncanon;
    d->b = 2 + (int)(u / p->nall); /* b = 1 leaves no a with 0 < a < b */
    d->a_first = 1;
    d->a_last = d->b - 1;
    /* all_e skips the row of the middle column's queen (local south row
     * b - 1, bit h + b - 1): insert a zero bit there. */
    const uint32_t x = p->all_e[u % p->nall];
    const int pos = p->h + d->b - 1;
    const uint32_t low = (UINT32_C(1) << pos) - 1;
    d->east = (x & low) | (x & ~low) << 1;
    d->weight = 8;
}

/* C(2h, h): how many E there are. */
/* C(n, k), 0 <= k <= n, without a table: products of consecutive terms. */
static uint64_t binomial(int n, int k)
{
    uint64_t c = 1;
    for (int i = 1; i <= k; i++)
        c = c * (uint64_t)(n - k + i) / (uint64_t)i; /* exact: c * (n-k+i) = C(n-k+i, i) * i */
    return c;
}

static uint64_t central_binomial(int h)
{
    return binomial(2 * h, h);
}

/* The sizes of the quarter groups: the store's, or a table of counts
 * (indexed rows << h | cols) when the job has no store. */
typedef struct group_sizes {
    int h;
    const nq_quarter_store *qs;
    const uint32_t *table;
} group_sizes;

static uint64_t group_size(const group_sizes *g, uint32_t rows, uint32_t cols)
{
    const uint32_t key = rows << g->h | cols;
    return g->table ? g->table[key] : g->qs->start[key + 1] - g->qs->start[key];
}

/* Binomial coefficients C(i, j) for i <= 2h, j <= h: the colex ranks of
 * row sets. */
typedef struct binomials {
    uint64_t c[NQ_MITM_MAX_N + 1][NQ_MITM_MAX_N / 2 + 1];
} binomials;

static void binomials_fill(binomials *b)
{
    memset(b, 0, sizeof *b);
    for (int i = 0; i <= NQ_MITM_MAX_N; i++) {
        b->c[i][0] = 1;
        for (int j = 1; j <= i && j <= NQ_MITM_MAX_N / 2; j++)
            b->c[i][j] = b->c[i - 1][j - 1] + (j < i ? b->c[i - 1][j] : 0);
    }
}

/* The rank of x among the sets of as many bits in increasing order (the
 * colex rank: the unit lists are made by nq_next_same_popcount, which goes
 * in that order). */
static uint64_t colex_rank(const binomials *b, uint32_t x)
{
    uint64_t r = 0;
    for (int t = 1; x; x &= x - 1, t++)
        r += b->c[__builtin_ctz(x)][t];
    return r;
}

/* The set of k bits whose colex rank is r. */
static uint32_t colex_unrank(const binomials *b, uint64_t r, int k)
{
    uint32_t x = 0;
    for (int t = k; t >= 1; t--) {
        int c = t - 1; /* the largest c with C(c, t) <= r: t - 1 bits below it take the rest */
        while (b->c[c + 1][t] <= r)
            c++;
        x |= UINT32_C(1) << c;
        r -= b->c[c][t];
    }
    return x;
}

/* Half-boards of one side before the diagonal tests: the pairs of a north
 * placement on rows_n and a south one on rows_s over complementary subsets
 * of the columns `avail`, summed over the north column sets (the count
 * half_next walks: plan_units sizes buffers by it, the estimate hook
 * prices units by it). */
static uint64_t half_bound(const group_sizes *g, uint32_t rows_n, uint32_t rows_s, uint32_t avail)
{
    const int h = g->h, k = __builtin_popcount(rows_n);
    const uint32_t last = nq_last_same_popcount(k, h);
    uint64_t bound = 0;
    for (uint32_t cols = (UINT32_C(1) << k) - 1;; cols = nq_next_same_popcount(cols)) {
        if (!(cols & ~avail)) {
            const uint64_t a = group_size(g, rows_n, cols);
            if (a)
                bound += a * group_size(g, rows_s, avail & ~cols);
        }
        if (cols == last)
            break;
    }
    return bound;
}

/* The k-sets of n bits in colex order into sets[0 .. C(n, k)). */
static void list_sets(const binomials *bin, int n, int k, uint32_t *sets)
{
    const uint64_t m = bin->c[n][k];
    sets[0] = (UINT32_C(1) << k) - 1;
    for (uint64_t i = 1; i < m; i++)
        sets[i] = nq_next_same_popcount(sets[i - 1]);
}

/* out[i * nb + j] = the dot product of rows i of a and j of b (na and nb
 * rows of len terms each), rows i shared out on at most `threads`
 * threads.  Unsigned sums wrap, so the compiler may vectorize the sum in
 * any order; the callers' sums fit 32 bits. */
static void dense_product(const uint32_t *a, const uint32_t *b, uint64_t na, uint64_t nb,
                          uint64_t len, uint32_t *out, int threads)
{
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads) if (na * nb * len >= 65536)
#endif
    for (long i = 0; i < (long)na; i++)
        for (uint64_t j = 0; j < nb; j++) {
            /* The hot loop: a dot product of two dense rows. */
            uint32_t sum = 0;
            for (uint64_t c = 0; c < len; c++)
                sum += a[(uint64_t)i * len + c] * b[j * len + c];
            out[(uint64_t)i * nb + j] = sum;
        }
}

/*
 * The half-board bounds of every row set of one side at once.  For the
 * row sets of k north rows and h - k south rows, half_bound(rows_n,
 * rows_s, every column) is entry (rows_n, rows_s) of the matrix product
 * A B^T, where A[rows_n][cols] is the group size of (rows_n, cols) and
 * B[rows_s][cols] that of (rows_s, the other columns), cols running over
 * the k-sets of columns.  Rows and columns go in colex order, so a row
 * set's colex rank is its index.  The products stream through dense rows
 * that stay in the core's caches, where half_bound makes two scattered
 * look-ups in the store per term; sums fit 32 bits, as every term is at
 * most the bound (half_cap_per_h).
 */
typedef struct side_bounds {
    int h;
    binomials bin;
    uint32_t *bound;                          /* every k's products, k = 0 first */
    uint64_t offset[NQ_MITM_STORE_MAX_H + 1]; /* where k's C(h, k)^2 entries start */
} side_bounds;

/* The bound of the side on rows_n (north) and rows_s (south). */
static uint32_t side_bound(const side_bounds *sb, uint32_t rows_n, uint32_t rows_s)
{
    const int k = __builtin_popcount(rows_n);
    const uint64_t m = sb->bin.c[sb->h][k];
    return sb->bound[sb->offset[k] + colex_rank(&sb->bin, rows_n) * m +
                     colex_rank(&sb->bin, rows_s)];
}

static void side_bounds_free(side_bounds *sb)
{
    if (sb)
        free(sb->bound);
    free(sb);
}

/* The bounds of the store's side (h <= NQ_MITM_STORE_MAX_H), on at most
 * `threads` threads.  NULL when out of memory. */
static side_bounds *side_bounds_new(const group_sizes *g, int threads)
{
    const int h = g->h;
    const uint32_t hm = (UINT32_C(1) << h) - 1;
    side_bounds *sb = malloc(sizeof *sb);
    if (!sb)
        return NULL;
    sb->h = h;
    binomials_fill(&sb->bin);
    sb->bound = malloc(central_binomial(h) * sizeof *sb->bound);
    const uint64_t widest = sb->bin.c[h][h / 2];
    uint32_t *sets = malloc(widest * sizeof *sets);
    uint32_t *a = malloc(widest * widest * sizeof *a), *b = malloc(widest * widest * sizeof *b);
    const int ok = sb->bound && sets && a && b;
    uint64_t offset = 0;
    for (int k = 0; k <= h && ok; k++) {
        const uint64_t m = sb->bin.c[h][k]; /* = C(h, h - k) */
        sb->offset[k] = offset;
        list_sets(&sb->bin, h, k, sets);
        /* The south row sets of h - k rows are the k-sets' complements,
         * in reverse colex order: complementing reverses it. */
        for (uint64_t i = 0; i < m; i++)
            for (uint64_t c = 0; c < m; c++) {
                a[i * m + c] = (uint32_t)group_size(g, sets[i], sets[c]);
                b[(m - 1 - i) * m + c] = (uint32_t)group_size(g, hm & ~sets[i], hm & ~sets[c]);
            }
        dense_product(a, b, m, m, m, sb->bound + offset, threads);
        offset += m * m;
    }
    free(sets);
    free(a);
    free(b);
    if (!ok) {
        side_bounds_free(sb);
        return NULL;
    }
    return sb;
}

static void plan_free(mitm_plan *p)
{
    if (!p)
        return;
    nq_quarter_store_free(&p->qs);
    free(p->canon);
    free(p->canon_weight);
    side_bounds_free(p->sides);
    free(p->all_e);
    free(p);
}

/* Size of E's orbit under the north-south and east-west reflections when E
 * is its least member (the one solved), else 0. */
static uint8_t canon_weight_of(uint32_t e, int h)
{
    const uint32_t full = (UINT32_C(1) << 2 * h) - 1;
    /* North-south reflection: north row i <-> south row h - 1 - i. */
    const uint32_t orbit[4] = {e, nq_mirror_rows(e, 2 * h), ~e & full,
                               nq_mirror_rows(~e & full, 2 * h)};
    uint8_t distinct = 0;
    for (int a = 0; a < 4; a++) {
        if (orbit[a] < e)
            return 0;
        int seen = 0;
        for (int b = 0; b < a; b++)
            seen |= orbit[b] == orbit[a];
        distinct += !seen;
    }
    return distinct;
}

/* The half-board list size: with a store, the largest bound of any side
 * (p->sides, which the estimate hook reads too).  Without a store, `limit`
 * (nq_mitm_half_limit), or for small boards the product of two slices.
 * Never more than the limit (the batch limit too, when the tuning sets
 * one), never less than a slice's largest group, as a batch must hold one
 * north placement's pairs (nq_mitm_half_next).  Returns 0 or NQ_ENOMEM. */
static int half_cap_of(mitm_plan *p, const nq_mitm_tuning *t, int threads, size_t limit)
{
    const int h = p->h;
    const size_t slice = nq_quarter_slice_capacity(h);
    size_t cap = limit, group_cap = nq_quarter_group_capacity(h);
    if (slice < cap / slice)
        cap = slice * slice;
    if (p->use_store) {
        const group_sizes g = {h, &p->qs, NULL};
        p->sides = side_bounds_new(&g, threads);
        if (!p->sides)
            return NQ_ENOMEM;
        /* The largest of any side is a unit's: every side is a canonical
         * E's east or west side, or a north-south mirror of one, whose
         * group sizes and so bound are the same. */
        cap = 0;
        const uint64_t sides = central_binomial(h);
        for (uint64_t i = 0; i < sides; i++)
            if (p->sides->bound[i] > cap)
                cap = p->sides->bound[i];
        group_cap = 0;
        for (size_t k = 0; k < ((size_t)1 << 2 * h); k++)
            if (p->qs.start[k + 1] - p->qs.start[k] > group_cap)
                group_cap = p->qs.start[k + 1] - p->qs.start[k];
    }
    if (cap > limit)
        cap = limit;
    if (t->batch_limit && cap > t->batch_limit)
        cap = t->batch_limit;
    p->half_cap = cap < group_cap ? group_cap : cap;
    /* Units with shared slices from NQ_MITM_GROW_MIN_H on give their
     * lists what their slices leave (nq_mitm_fit_lists), but no more than
     * a tuned batch limit, and not past the longest batches a budget
     * would give. */
    const int grow = p->shared_slices && (t->grow_lists || p->h >= NQ_MITM_GROW_MIN_H);
    p->half_cap_max = !grow || t->batch_limit || p->half_cap > NQ_MITM_HALF_LIMIT_MAX
                          ? p->half_cap
                          : NQ_MITM_HALF_LIMIT_MAX;
    return 0;
}

/*
 * Fills the E lists and the half-board list size.  Returns 0 or
 * NQ_ENOMEM.  Every E (h of the 2h quarter rows) is listed in increasing
 * order, with the size of its orbit when it is the least member (and so a
 * unit, weighted by that size); then compacted to the units.
 */
static int plan_units(mitm_plan *p, const nq_mitm_tuning *t, int threads, size_t limit)
{
    const int h = p->h;
    const uint32_t hm = (UINT32_C(1) << h) - 1;
    const uint64_t nall = central_binomial(h);
    p->canon = malloc(nall * sizeof *p->canon);
    p->canon_weight = malloc(nall);
    if (!p->canon || !p->canon_weight)
        return NQ_ENOMEM;
    uint64_t i = 0;
    for (uint32_t e = hm; i < nall; e = nq_next_same_popcount(e))
        p->canon[i++] = e;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 4096) num_threads(threads) if (h >= 8)
#endif
    for (long j = 0; j < (long)nall; j++)
        p->canon_weight[j] = canon_weight_of(p->canon[j], h);
    for (uint64_t j = 0; j < nall; j++)
        if (p->canon_weight[j]) {
            p->canon[p->ncanon] = p->canon[j];
            p->canon_weight[p->ncanon++] = p->canon_weight[j];
        }
    const int ret = half_cap_of(p, t, threads, limit);
    if (ret < 0)
        return ret;
    if (p->n & 1) {
        p->nall = central_binomial(h) / 2; /* C(2h-1, h-1) = C(2h, h) / 2 */
        p->all_e = malloc(p->nall * sizeof *p->all_e);
        p->nb = (uint64_t)(h - 1); /* b = 2 .. h */
        if (!p->all_e)
            return NQ_ENOMEM;
        uint64_t k = 0;
        for (uint32_t x = (UINT32_C(1) << (h - 1)) - 1; k < p->nall; x = nq_next_same_popcount(x))
            p->all_e[k++] = x;
    }
    return 0;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        const uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/*
 * The stride of the spread order of the boards without a store: unit u
 * stands for the list's entry u * stride mod units, with the stride the
 * first number coprime to `units` from units / golden ratio on, so every
 * entry comes once and any run of units (what a run has done so far, a
 * journal chunk) samples the whole list evenly.  Costs vary a lot along
 * the list (by how many rows of E are north), and a run's rate, its ETA
 * and the projections taken from its start must not depend on where it
 * starts.  Boards with a store keep list order, where consecutive units
 * share slices (quarter_slice.h) and runs take hours, not weeks; without
 * a store the order is worth more than the sharing (docs/performance.md,
 * "Figures the code's choices rest on").
 */
static uint64_t spread_stride(uint64_t units)
{
    uint64_t stride = (uint64_t)((double)units * 0.6180339887498949);
    while (stride > 1 && gcd(stride, units) != 1)
        stride++;
    return stride ? stride : 1;
}

/* Plans job->n with tuning t into a fresh plan (the plan hook's work). */
static int plan_tuned(nq_job *job, const nq_mitm_tuning *t)
{
    if (job->n > NQ_MITM_MAX_N)
        return NQ_EUNSUPPORTED;
    mitm_plan *p = calloc(1, sizeof *p);
    if (!p)
        return NQ_ENOMEM;
    p->n = job->n;
    p->h = job->n / 2;
    job->plan = p;
    job->split_depth = 0;
    uint64_t id = nq_hash_bytes(NQ_HASH_SEED, "mitm", 4);
    id = nq_hash_bytes(id, &job->n, sizeof job->n);
    /* What a unit counts is part of the identity: an even-N unit counts
     * solutions weighted by their rank (see mitm.c, rank_weight), so a
     * journal of unit counts weighted otherwise (plain, or by the main
     * diagonals as before) must be refused, never mixed in. */
    if (!(job->n & 1) && job->n >= NQ_MITM_MIN_N)
        id = nq_hash_bytes(id, "rank-weighted", 13);
    if (job->n < NQ_MITM_MIN_N) {
        p->tiny = 1;
        job->units = 1;
        job->identity = id;
        return 0;
    }
    p->sig_bits = 4 * p->h - 2;
    p->use_store = p->h <= NQ_MITM_STORE_MAX_H && !t->walk_slices;
    p->key_min = t->key_min;
    p->key_bits = t->key_bits;
    p->join_kernel = t->join_kernel;
    p->model_costs = t->model_costs && !(p->n & 1);
    /* Without a store, slices come and go with each unit (the units run
     * in spread order), and a west and an east slice share one buffer. */
    p->shared_slices = !p->use_store;
    p->slice_cap = p->shared_slices ? nq_quarter_slice_pair_capacity(p->h)
                                    : nq_quarter_slice_capacity(p->h);
    /* This process's share of the job's threads (an MPI rank plans alone). */
    const int threads = nq_local_threads(job->threads);
    int ret = p->use_store ? nq_quarter_store_build(&p->qs, p->h, threads) : 0;
    if (ret == 0)
        ret = plan_units(p, t, threads, nq_mitm_half_limit(job->n, threads, job->memory));
    if (ret < 0)
        return ret; /* job release frees the partial plan */
    p->scratch_bytes = nq_mitm_scratch_bytes(p->h, p->half_cap, p->slice_cap, p->shared_slices);
    p->progress = p->n >= NQ_MITM_PROGRESS_MIN_N;
    job->units = p->ncanon + p->nb * p->nall;
    if (p->h >= NQ_MITM_SPREAD_H)
        p->stride = spread_stride(job->units);
    /* Chunks of a few seconds a thread: units without a store take a
     * large part of a second, at the largest store side milliseconds. */
    job->chunk_limit = p->h > NQ_MITM_STORE_MAX_H ? 16 : p->h == NQ_MITM_STORE_MAX_H ? 1024 : 0;
    /* Identity: the unit list is a function of n and of the orders used
     * above; hash the lists themselves so any change of order shows.  The
     * tuning changes how units are solved, never what they count. */
    id = nq_hash_bytes(id, p->canon, p->ncanon * sizeof *p->canon);
    id = nq_hash_bytes(id, p->canon_weight, p->ncanon);
    if (p->nall)
        id = nq_hash_bytes(id, p->all_e, p->nall * sizeof *p->all_e);
    id = nq_hash_bytes(id, &p->nb, sizeof p->nb);
    if (p->stride) /* lists in their own order keep the identities they had */
        id = nq_hash_bytes(id, &p->stride, sizeof p->stride);
    job->identity = id;
    return 0;
}

int nq_mitm_plan_job(nq_job *job, int split_depth)
{
    (void)split_depth;
    nq_mitm_tuning t;
    nq_mitm_default_tuning(&t);
    return plan_tuned(job, &t);
}

int nq_mitm_replan(nq_job *job, const nq_mitm_tuning *t)
{
    if (!job || !t || job->ops->id != NQ_ENGINE_MITM || t->key_bits < 0 ||
        t->key_bits > NQ_JOIN_KEY_BITS_MAX)
        return NQ_EINVAL_ARG;
    if (!nq_join_kernel_supported(t->join_kernel))
        return NQ_EUNSUPPORTED;
    nq_mitm_release(job);
    return plan_tuned(job, t);
}

size_t nq_mitm_scratch_size(const nq_job *job)
{
    const mitm_plan *p = job->plan;
    return p->tiny ? 0 : p->scratch_bytes;
}

void nq_mitm_release(nq_job *job)
{
    plan_free(job->plan);
    job->plan = NULL;
}

/* Relative cost of joining `east` with `west` half-boards: the kernel cuts
 * the longer list into 512-signature blocks, builds each block's tables
 * (about as much work as 512 queries) and runs every member of the shorter
 * list against every block, ceil(sig_bits / 6) table look-ups per query. */
static double join_cost(const mitm_plan *p, double east, double west)
{
    const double longer = east > west ? east : west, shorter = east > west ? west : east;
    /* Whole blocks, rounded up (libm-free: the library does not link it). */
    const double blocks = (double)(uint64_t)((longer + NQ_JOIN_BLOCK - 1) / NQ_JOIN_BLOCK);
    const double lookups =
        (double)((p->sig_bits + NQ_JOIN_CHUNK_BITS_MIN - 1) / NQ_JOIN_CHUNK_BITS_MIN);
    return blocks * (shorter + NQ_JOIN_BLOCK) * lookups;
}

/* Even N: the share of a side's half-boards a unit keeps, by the rank of
 * their north column sets (mitm.c, rank_weight), taken as the share of
 * the sets themselves: kept[j][f] is the share of the j-sets of h columns
 * whose rank is at least f (the east side ranks its sets reversed, which
 * maps the j-sets onto themselves).  (h + 1) 2^(h - 1) entries, as a
 * rank is below 2^(h - 1). */
typedef struct rank_shares {
    int h;
    float *kept;
} rank_shares;

/* NULL kept when out of memory. */
static rank_shares rank_shares_new(int h)
{
    const size_t ranks = (size_t)1 << (h - 1);
    rank_shares r = {h, calloc((size_t)(h + 1) * ranks, sizeof(float))};
    uint32_t *count = calloc((size_t)(h + 1) * ranks, sizeof *count);
    if (!r.kept || !count) {
        free(r.kept);
        free(count);
        r.kept = NULL;
        return r;
    }
    for (uint32_t x = 0; x < (UINT32_C(1) << h); x++)
        count[(size_t)__builtin_popcount(x) * ranks + nq_mitm_set_rank(x, h)]++;
    for (int j = 0; j <= h; j++) {
        const double sets = (double)binomial(h, j);
        uint64_t above = 0; /* the j-sets of rank f or more */
        for (size_t f = ranks; f-- > 0;) {
            above += count[(size_t)j * ranks + f];
            r.kept[(size_t)j * ranks + f] = (float)(above / sets);
        }
    }
    free(count);
    return r;
}

/* The share of the half-boards with j north queens that a unit of floor
 * f keeps. */
static double rank_share(const rank_shares *r, int j, uint32_t f)
{
    return r->kept[(size_t)j * ((size_t)1 << (r->h - 1)) + f];
}

/* The price of the unit on rows `east` (of the centre queen) whose sides
 * build e and w half-boards before the diagonal tests and the rank's
 * filter (ranks: of an even board, else no table): building the halves
 * it keeps, and joining them. */
static double unit_price(const mitm_plan *p, const rank_shares *ranks, uint32_t east, double e,
                         double w)
{
    if (ranks->kept) {
        const int h = p->h;
        const uint32_t f = nq_mitm_unit_floor(east, h);
        const int k = __builtin_popcount(east & ((UINT32_C(1) << h) - 1)); /* north-east queens */
        e *= rank_share(ranks, k, f);
        w *= rank_share(ranks, h - k, f);
    }
    return w + e + join_cost(p, e, w);
}

/* Largest quarter side whose group sizes the estimate hook counts without
 * a store (odd boards; even ones take model counts, half_model): past it
 * the table (4^h counters) would take a gibibyte and its walk minutes
 * before the run's first estimate. */
#define NQ_MITM_GROUPS_MAX_H 13

static size_t group_table_bytes(int h)
{
    return ((size_t)1 << 2 * h) * sizeof(uint32_t);
}

/* The quarter group sizes of side h without a store (4^h counters,
 * nq_quarter_group_sizes), on at most `threads` threads.  NULL when out
 * of memory. */
static uint32_t *count_groups(int h, int threads)
{
    uint32_t *table = malloc(group_table_bytes(h));
    if (table)
        nq_quarter_group_sizes(h, threads, table);
    return table;
}

/*
 * Model half-board counts, for the even boards past the store (N = 24,
 * 26, 28), where counting the quarter groups takes 64 MiB to a gibibyte
 * and seconds to minutes before the first estimate.  An east half-board
 * of unit E is h queens on the rows of E (rows of the board, 2h of them)
 * and the h east columns, no two attacking: a bijection from E to the
 * columns whose queens share no diagonal.  Two rows d apart share one
 * when their columns lie d apart, which in a random bijection happens
 * with probability 2 (h - d) / (h (h - 1)) (h - d pairs of the h columns
 * lie d apart).  Taking the clashes of different pairs as independent,
 *
 *     halves(E) ~ h! * product over pairs of rows of E, d < h apart,
 *                       of (1 - 2 (h - d) / (h (h - 1))).
 *
 * The west halves are the same on the other rows.  These are the halves
 * the join meets, after every diagonal test, where the counted bounds are
 * taken before the tests between quarters; the model ranks units by their
 * time better than those bounds do.  Its prices spread less than the
 * times: from N = 26 on, time grows as about their square (at N = 24 as
 * their power 1.2), so the hook squares them (docs/performance.md, "The
 * duration estimate").
 */
typedef struct half_model {
    double ways;                /* h! */
    double keep[NQ_MITM_MAX_N]; /* keep[d]: the factor of a pair d apart */
} half_model;

static void half_model_init(half_model *m, int h)
{
    m->ways = 1;
    for (int i = 2; i <= h; i++)
        m->ways *= i;
    for (int d = 0; d < NQ_MITM_MAX_N; d++)
        m->keep[d] = d >= 1 && d < h ? 1 - 2.0 * (h - d) / ((double)h * (h - 1)) : 1;
}

/* The model count of the half-boards on `rows` (bits of the 2h rows). */
static double half_model_count(const half_model *m, uint32_t rows)
{
    double v = m->ways;
    for (uint32_t a = rows; a; a &= a - 1) /* a & (a - 1): drop the lowest row */
        for (uint32_t b = a & (a - 1); b; b &= b - 1)
            v *= m->keep[__builtin_ctz(b) - __builtin_ctz(a)];
    return v;
}

/*
 * The half-boards before the diagonal tests of an odd board's east side on
 * the rows E (h - 1 of them), one figure per column c = 0 .. h - 2 that
 * the middle row's queen holds (configuration a = c + 1): f[c] is
 * half_bound(E's north rows, E's south rows, every column but c), all of
 * them from one walk of the north column sets, where a unit of E would
 * walk them once per a.
 */
static void east_bounds_by_column(const group_sizes *g, uint32_t east, uint64_t *f)
{
    const int h = g->h;
    const uint32_t hm = (UINT32_C(1) << h) - 1, rows_n = east & hm, rows_s = east >> h;
    const int k = __builtin_popcount(rows_n);
    const uint32_t last = nq_last_same_popcount(k, h);
    for (int c = 0; c < h - 1; c++)
        f[c] = 0;
    for (uint32_t cols = (UINT32_C(1) << k) - 1;; cols = nq_next_same_popcount(cols)) {
        const uint64_t a = group_size(g, rows_n, cols);
        /* The south quarter takes the columns the north one leaves, less
         * the queen's: for each such c, one more term of f[c]. */
        for (uint32_t m = a ? hm >> 1 & ~cols : 0; m; m &= m - 1)
            f[__builtin_ctz(m)] += a * group_size(g, rows_s, hm & ~cols & ~(m & (0u - m)));
        if (cols == last)
            break;
    }
}

/* The bytes of an odd board's east-side bound table (column_bounds):
 * (h - 1) C(2h, h - 1) entries. */
static size_t column_table_bytes(int h)
{
    return (size_t)(h - 1) * (size_t)binomial(2 * h, h - 1) * sizeof(uint32_t);
}

/*
 * The east sides of an odd board's units: the h - 1 rows of E and every
 * column but the one, c = 0 .. h - 2, that the middle row's queen holds.
 * Entry (c, rows_n, rows_s) is half_bound(rows_n, rows_s, every column but
 * c): per c and north-row count k, the product of A[rows_n][cols] and
 * B[rows_s][cols] over the k-sets of columns without c, as side_bounds
 * does with every column.  (h - 1) C(2h, h - 1) entries: 26 MB at the
 * store's largest side.
 */
typedef struct column_bounds {
    const binomials *bin;
    int h;
    uint32_t *bound;
    /* Where (c, k)'s C(h, k) C(h, h - 1 - k) entries start. */
    uint64_t offset[NQ_MITM_STORE_MAX_H - 1][NQ_MITM_STORE_MAX_H];
} column_bounds;

/* The bound of the east side on rows_n and rows_s, the queen on column c. */
static uint32_t column_bound(const column_bounds *cb, int c, uint32_t rows_n, uint32_t rows_s)
{
    const int k = __builtin_popcount(rows_n);
    const uint64_t m = cb->bin->c[cb->h][cb->h - 1 - k];
    return cb->bound[cb->offset[c][k] + colex_rank(cb->bin, rows_n) * m +
                     colex_rank(cb->bin, rows_s)];
}

static void column_bounds_free(column_bounds *cb)
{
    if (cb)
        free(cb->bound);
    free(cb);
}

/* The east bounds of side h (<= NQ_MITM_STORE_MAX_H) from the group sizes
 * g, on at most `threads` threads.  NULL when out of memory. */
static column_bounds *column_bounds_new(const binomials *bin, const group_sizes *g, int threads)
{
    const int h = g->h;
    const uint32_t hm = (UINT32_C(1) << h) - 1;
    column_bounds *cb = malloc(sizeof *cb);
    if (!cb)
        return NULL;
    cb->bin = bin;
    cb->h = h;
    cb->bound = malloc(column_table_bytes(h));
    const uint64_t widest = bin->c[h][h / 2];
    uint32_t *north = malloc(widest * sizeof *north), *south = malloc(widest * sizeof *south);
    uint32_t *cols = malloc(widest * sizeof *cols);
    uint32_t *a = malloc(widest * widest * sizeof *a), *b = malloc(widest * widest * sizeof *b);
    const int ok = cb->bound && north && south && cols && a && b;
    uint64_t offset = 0;
    for (int c = 0; c <= h - 2 && ok; c++) {
        const uint32_t low = (UINT32_C(1) << c) - 1, open = hm & ~(UINT32_C(1) << c);
        for (int k = 0; k <= h - 1; k++) {
            const uint64_t mn = bin->c[h][k], ms = bin->c[h][h - 1 - k], mc = bin->c[h - 1][k];
            cb->offset[c][k] = offset;
            list_sets(bin, h, k, north);
            list_sets(bin, h, h - 1 - k, south);
            list_sets(bin, h - 1, k, cols);
            for (uint64_t j = 0; j < mc; j++) /* a zero bit inserted at c */
                cols[j] = (cols[j] & low) | (cols[j] & ~low) << 1;
            for (uint64_t i = 0; i < mn; i++)
                for (uint64_t j = 0; j < mc; j++)
                    a[i * mc + j] = (uint32_t)group_size(g, north[i], cols[j]);
            for (uint64_t r = 0; r < ms; r++)
                for (uint64_t j = 0; j < mc; j++)
                    b[r * mc + j] = (uint32_t)group_size(g, south[r], open & ~cols[j]);
            dense_product(a, b, mn, ms, mc, cb->bound + offset, threads);
            offset += mn * ms;
        }
    }
    free(north);
    free(south);
    free(cols);
    free(a);
    free(b);
    if (!ok) {
        column_bounds_free(cb);
        return NULL;
    }
    return cb;
}

/*
 * The same for the west side of an odd board: the rows west of E are
 * every row but E's and but the middle column queen's south row p (b =
 * p + 1), all columns free.  f[p] = half_bound(rows_n, rows_s less p,
 * every column) for each south row p that `queen_rows` holds, from one
 * walk of the north column sets.
 */
static void west_bounds_by_row(const group_sizes *g, uint32_t rows_n, uint32_t rows_s,
                               uint32_t queen_rows, uint64_t *f)
{
    const int h = g->h;
    const uint32_t hm = (UINT32_C(1) << h) - 1;
    const int k = __builtin_popcount(rows_n);
    const uint32_t last = nq_last_same_popcount(k, h);
    for (int p = 0; p < h; p++)
        f[p] = 0;
    for (uint32_t cols = (UINT32_C(1) << k) - 1;; cols = nq_next_same_popcount(cols)) {
        const uint64_t a = group_size(g, rows_n, cols);
        for (uint32_t m = a ? queen_rows : 0; m; m &= m - 1)
            f[__builtin_ctz(m)] += a * group_size(g, rows_s & ~(m & (0u - m)), hm & ~cols);
        if (cols == last)
            break;
    }
}

/* The inverse of the spread order's stride modulo the number of units
 * (they are coprime): list entry e is unit e * inverse mod units. */
static uint64_t stride_inverse(uint64_t stride, uint64_t units)
{
    int64_t r0 = (int64_t)units, r1 = (int64_t)stride, t0 = 0, t1 = 1;
    while (r1) {
        const int64_t q = r0 / r1, r2 = r0 - q * r1, t2 = t0 - q * t1;
        r0 = r1, r1 = r2, t0 = t1, t1 = t2;
    }
    return (uint64_t)(t0 < 0 ? t0 + (int64_t)units : t0);
}

/* Where the estimate writes: the unit standing for list entry e. */
typedef struct unit_map {
    uint64_t units, inverse; /* inverse 0: list order */
} unit_map;

static uint64_t unit_of_entry(const unit_map *m, uint64_t e)
{
    return m->inverse ? (uint64_t)((unsigned __int128)e * m->inverse % m->units) : e;
}

/*
 * The costs of an odd board's units (b, E), a = 1 .. b - 1, grouped by E:
 * every E (h - 1 of the 2h rows) is the east set of the units whose middle
 * column queen stands in one of its free south rows p >= 1 (b = p + 1), so
 * one walk per side gives all of them (east_bounds_by_column,
 * west_bounds_by_row), about h / 2 units a walk.  Units are numbered by b
 * and by x, E without the queen's row, in the order of all_e.
 */
static void odd_unit_costs(const mitm_plan *p, const group_sizes *g, const unit_map *map,
                           int threads, double *costs)
{
    const int h = p->h;
    const uint32_t hm = (UINT32_C(1) << h) - 1;
    binomials bin;
    binomials_fill(&bin);
    const uint64_t sets = bin.c[2 * h][h - 1], per = 64;
    /* With a store, every bound comes from the dense tables (the west
     * sides' are the plan's); without one (h past the store's) they would
     * take gigabytes, and each E walks its column sets instead.  Out of
     * memory, the walks too. */
    const side_bounds *sb = p->sides;
    column_bounds *cb = sb ? column_bounds_new(&sb->bin, g, threads) : NULL;
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
#endif
    for (long chunk = 0; chunk < (long)((sets + per - 1) / per); chunk++) {
        uint64_t r = (uint64_t)chunk * per;
        const uint64_t end = r + per < sets ? r + per : sets;
        uint32_t east = colex_unrank(&bin, r, h - 1);
        for (; r < end; r++, east = nq_next_same_popcount(east)) {
            uint64_t by_column[NQ_MITM_MAX_N / 2], by_row[NQ_MITM_MAX_N / 2];
            /* South rows p >= 1 outside E: where the queen may stand. */
            const uint32_t south_free = ~(east >> h) & hm & ~UINT32_C(1);
            if (!south_free)
                continue;
            if (cb) {
                for (int c = 0; c <= h - 2; c++)
                    by_column[c] = column_bound(cb, c, east & hm, east >> h);
                for (uint32_t m = south_free; m; m &= m - 1)
                    by_row[__builtin_ctz(m)] =
                        side_bound(sb, ~east & hm, ~(east >> h) & hm & ~(m & (0u - m)));
            } else {
                east_bounds_by_column(g, east, by_column);
                west_bounds_by_row(g, ~east & hm, ~(east >> h) & hm, south_free, by_row);
            }
            uint64_t e = 0;
            for (int b = 2; b <= h; b++) {
                e += by_column[b - 2]; /* configuration a = b - 1 holds column b - 2 */
                if (!(south_free >> (b - 1) & 1))
                    continue;
                const int row = h + b - 1; /* insert-a-zero's inverse, see nq_mitm_decode_unit */
                const uint32_t x = (east & ((UINT32_C(1) << row) - 1)) | (east >> (row + 1)) << row;
                const uint64_t entry = p->ncanon + (uint64_t)(b - 2) * p->nall + colex_rank(&bin, x);
                const double w = (double)by_row[b - 1];
                costs[unit_of_entry(map, entry)] = w + (double)e + join_cost(p, (double)e, w);
            }
        }
    }
    column_bounds_free(cb);
}

/*
 * The estimate hook: an analytic cost per unit from the quarter store's
 * group sizes alone, nothing searched.  A unit builds its west half-boards
 * once and its east ones once per configuration a, gathering the east
 * halves of all configurations into one join with the west ones (see
 * mitm.c, mitm_solve and add_east); the half-board counts are taken before the
 * diagonal tests (half_bound), which overstates them by a roughly constant
 * factor, and the unit costs that pairing work plus the join's
 * (join_cost).  Relative values only.  Units are independent, so they are
 * estimated in parallel (the large boards have millions), on the job's
 * threads.  Even boards past the store (and those whose tuning asks for
 * it) take model half-board counts instead (half_model): nothing counted,
 * and units ranked by their time better.  Odd boards past
 * NQ_MITM_GROUPS_MAX_H get NQ_EUNSUPPORTED.
 */
int nq_mitm_estimate(const nq_job *job, double *costs)
{
    const mitm_plan *p = job->plan;
    if (p->tiny) {
        costs[0] = 1;
        return 0;
    }
    const int h = p->h;
    const uint32_t hm = (UINT32_C(1) << h) - 1, rows = (UINT32_C(1) << 2 * h) - 1;
    group_sizes g = {h, &p->qs, NULL};
    uint32_t *table = NULL;
    half_model model;
    const int modelled = p->model_costs || (!(p->n & 1) && h > NQ_MITM_STORE_MAX_H);
    const int threads = nq_local_threads(job->threads);
    if (modelled) {
        half_model_init(&model, h);
    } else if (!p->use_store) {
        if (h > NQ_MITM_GROUPS_MAX_H)
            return NQ_EUNSUPPORTED;
        g.table = table = count_groups(h, threads);
        if (!table)
            return NQ_ENOMEM;
    }
    rank_shares ranks = {h, NULL};
    if (!(p->n & 1)) {
        ranks = rank_shares_new(h);
        if (!ranks.kept) {
            free(table);
            return NQ_ENOMEM;
        }
    }
    const unit_map map = {job->units, p->stride ? stride_inverse(p->stride, job->units) : 0};
    /* The units of the centre queen (every unit of an even board). */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads)
#endif
    for (long j = 0; j < (long)p->ncanon; j++) {
        const uint32_t east = p->canon[j], west = rows & ~east;
        double e, w;
        if (modelled) {
            e = half_model_count(&model, east);
            w = half_model_count(&model, west);
        } else if (p->sides) {
            e = side_bound(p->sides, east & hm, east >> h);
            w = side_bound(p->sides, west & hm, west >> h);
        } else {
            e = (double)half_bound(&g, east & hm, east >> h, hm);
            w = (double)half_bound(&g, west & hm, west >> h, hm);
        }
        const double cost = unit_price(p, &ranks, east, e, w);
        /* The model's prices spread half as much as unit times do, in
         * logarithms (half_model): squared, an estimate from a few units
         * leans on them as far as it should. */
        costs[unit_of_entry(&map, (uint64_t)j)] = modelled ? cost * cost : cost;
    }
    if (p->nb)
        odd_unit_costs(p, &g, &map, threads, costs);
    free(table);
    free(ranks.kept);
    return 0;
}

double nq_mitm_unit_cost(const nq_job *job, uint32_t rows, double east, double west)
{
    const mitm_plan *p = job->plan;
    rank_shares ranks = {p->h, NULL};
    if (!(p->n & 1) && !p->tiny) {
        ranks = rank_shares_new(p->h);
        if (!ranks.kept)
            return -1;
    }
    const double cost = unit_price(p, &ranks, rows, east, west);
    free(ranks.kept);
    return cost;
}

int nq_mitm_describe_unit(const nq_job *job, uint64_t unit, nq_mitm_unit *out)
{
    if (!job || !out || job->ops->id != NQ_ENGINE_MITM || unit >= job->units)
        return NQ_EINVAL_ARG;
    const mitm_plan *p = job->plan;
    if (p->tiny)
        return NQ_EUNSUPPORTED;
    nq_mitm_decode_unit(p, unit, out);
    return 0;
}

/* nq_mitm_memory_estimate() with lists of `half_limit` half-boards
 * where the board has no store. */
static size_t estimate_at(int n, int threads, size_t half_limit)
{
    if (n < 1 || n > NQ_MITM_MAX_N)
        return 0;
    if (n < NQ_MITM_MIN_N)
        return sizeof(mitm_plan);
    const int h = n / 2;
    /* Unit tables: canonical E with weights, and the odd-N E list. */
    const size_t units = (size_t)central_binomial(h) * (sizeof(uint32_t) + 1) +
                         (size_t)central_binomial(h) / 2 * sizeof(uint32_t);
    const int store = h <= NQ_MITM_STORE_MAX_H;
    /* With a store, one half-board bound per side (side_bounds), and for
     * odd N the estimate hook's east-side table while the run's scratch
     * exists (column_bounds, with its product's two operands of C(h, h/2)
     * squared terms at most). */
    const uint64_t widest = binomial(h, h / 2);
    const size_t bounds =
        !store ? 0
               : (size_t)central_binomial(h) * sizeof(uint32_t) +
                     (n & 1 ? column_table_bytes(h) + 2 * widest * widest * sizeof(uint32_t) : 0);
    const size_t half_cap = store ? half_cap_per_h[h] : half_limit;
    const size_t scratch =
        store ? nq_mitm_scratch_bytes(h, half_cap, nq_quarter_slice_capacity(h), 0)
              : nq_mitm_scratch_bytes(h, half_cap, nq_quarter_slice_pair_capacity(h), 1);
    /* The estimate hook's group counts (odd boards without a store),
     * while the run's scratch exists. */
    const size_t groups = !store && (n & 1) ? group_table_bytes(h) : 0;
    /* A run's duration estimate holds a cost per unit (a double) beside
     * the scratch.  Bounded without planning:
     * at most one unit per E, and for odd N one per (b, E) besides. */
    const uint64_t unit_bound =
        central_binomial(h) + (n & 1 ? (uint64_t)(h - 1) * central_binomial(h) / 2 : 0);
    const size_t costs = (size_t)(unit_bound + 1) * sizeof(double);
    return sizeof(mitm_plan) + (store ? nq_quarter_store_bytes(h) : 0) + units + bounds + groups +
           costs + (size_t)(threads > 0 ? threads : 1) * scratch;
}

size_t nq_mitm_half_limit(int n, int threads, uint64_t memory)
{
    if (memory == 0 || n / 2 <= NQ_MITM_STORE_MAX_H)
        return NQ_MITM_HALF_LIMIT;
    size_t limit = NQ_MITM_HALF_LIMIT_MAX;
    while (limit > NQ_MITM_HALF_LIMIT_MIN && estimate_at(n, threads, limit) > memory)
        limit /= 2;
    return limit;
}

size_t nq_mitm_memory_estimate(int n, int threads)
{
    return estimate_at(n, threads, NQ_MITM_HALF_LIMIT);
}

size_t nq_mitm_memory_estimate_within(int n, int threads, uint64_t memory)
{
    return estimate_at(n, threads, nq_mitm_half_limit(n, threads, memory));
}
