/*
 * mitm.c - the meet-in-the-middle engine: counts by joining
 * quarter-board placements instead of searching the whole board.
 *
 * Let h = N / 2.  For even N the board is four h x h quarters; for odd N
 * the middle row and column are first given their queens, and the four
 * quarters around them remain.  Every solution puts, in each quarter row,
 * its queen either east or west of the middle: the set E of rows whose
 * queen stands east has one row per free east column, and it is unique, so
 * summing over E is exact.  A unit is one (odd-N configuration, E, weight).
 *
 * Odd N: the middle row's queen stands in column m + a, the middle
 * column's in row m + b.  a = b = 0 is one queen in the centre; all 2h
 * quarter rows and columns stay free.  Otherwise (a, b both non-zero) the
 * two queens also hold one quarter column (m + a) and one quarter row
 * (m + b), so 2h - 1 rows and columns remain and |E| = h - 1 when a > 0.
 *
 * Inside a unit the east half-boards are built by pairing the north-east
 * placements on rows E-north with the south-east placements on rows
 * E-south over complementary column sets (rows and columns are then right
 * by construction, only diagonals are tested), and reduced to the shared
 * diagonals they occupy: the signature.  The west half-boards are built the
 * same way on the other rows.  An east and a west half make a solution
 * exactly when their signatures are disjoint, which join.c counts.
 *
 * Symmetry.  North-south reflection maps E to its bit reversal and
 * east-west reflection maps E to its complement, so for even N (and the
 * odd-N centre queen, which both reflections keep) only one E of each orbit
 * of that four-element group is solved, weighted by the orbit size.  For
 * odd N the queens of the middle row (column m + a) and middle column (row
 * m + b) with a != 0 are moved by the eight board symmetries as the signed
 * permutations of (a, b); |a| != |b| (they would share a diagonal), so the
 * orbits have eight members and only 0 < a < b is solved, weight 8.  Such
 * a unit is (b, E) and covers every a in 1 .. b - 1 (see mitm_solve).
 *
 * The inner loops that build half-boards (half_kernels.h) are portable C
 * here, or AVX-512 (x86/half_avx512.h) when the build targets it.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/engines.h"
#include "engines/mitm/half_kernels.h"
#include "engines/mitm/join.h"
#include "engines/mitm/mitm.h"
#include "engines/mitm/quarter_store.h"

/* The build's choice of half-board loops: the AVX-512 ones when it targets
 * AVX-512F (each loop below then hands its work to them). */
#if defined(__AVX512F__)
#include "engines/mitm/x86/half_avx512.h"
#endif

/* Per-thread scratch bytes per N, as plan() computes them (the tests check
 * the table against plan(); only the memory estimate uses it).
 * Up to N = 15 the join tables dominate; an odd N needs what the even N
 * below it does (the same quarters). */
static const size_t scratch_per_n[NQ_MITM_MAX_N + 1] = {
    [4] = 186024,     [5] = 186024,     [6] = 186104,     [7] = 186104,     [8] = 186392,
    [9] = 186392,     [10] = 187416,    [11] = 187416,    [12] = 191688,    [13] = 191688,
    [14] = 213144,    [15] = 213144,    [16] = 362648,    [17] = 362648,    [18] = 1196664,
    [19] = 1196664,   [20] = 7439016,   [21] = 7439016,   [22] = 55516824,  [23] = 55516824,
};

size_t nq_mitm_batch_limit;

typedef struct mitm_plan {
    int n, h;
    int tiny;            /* N < NQ_MITM_MIN_N: one unit, trivial search */
    int sig_bits;        /* 4h - 2: shared sum and difference diagonals */
    nq_quarter_store qs;
    uint32_t *canon;     /* E up to the reflections, with their weights */
    uint8_t *canon_weight;
    uint64_t ncanon;
    /* Odd N, a != 0: every E as an (h-1)-subset of the 2h - 1 rows left,
     * numbered without the row of the middle column's queen. */
    uint32_t *all_e;
    uint64_t nall;
    uint64_t nb;         /* odd N: values of b (2 .. h), each a block of nall units */
    size_t half_cap;     /* most half-boards one side of a unit can have */
    size_t group_cap;    /* largest store group */
    size_t scratch_bytes;
} mitm_plan;

/* Per-thread scratch, carved from the pool's buffer. */
typedef struct mitm_scratch {
    nq_join_scratch *js;
    uint64_t *east, *west;   /* half_cap + 1 signatures each */
    uint64_t *split;         /* half_cap + 1 more: where lists are sorted to */
    uint64_t *south_cw;      /* group_cap: filtered south quarter, conflict words */
    uint64_t *south_sig;     /* group_cap: and their signatures */
    uint64_t *north_cw;      /* group_cap: the same for the north quarter */
    uint64_t *north_sig;
} mitm_scratch;

/* Bytes of scratch for the given caps, including 64 bytes of alignment slack. */
static size_t scratch_bytes_for(int n, size_t half_cap, size_t group_cap)
{
    (void)n;
    return 64 + sizeof(nq_join_scratch) + 3 * (half_cap + 1) * sizeof(uint64_t) +
           4 * group_cap * sizeof(uint64_t);
}

static mitm_scratch carve_scratch(const mitm_plan *p, void *raw)
{
    mitm_scratch s;
    uintptr_t at = ((uintptr_t)raw + 63) & ~(uintptr_t)63; /* round up to 64 */
    s.js = (nq_join_scratch *)at;
    s.east = (uint64_t *)(s.js + 1);
    s.west = s.east + p->half_cap + 1;
    s.split = s.west + p->half_cap + 1;
    s.south_cw = s.split + p->half_cap + 1;
    s.south_sig = s.south_cw + p->group_cap;
    s.north_cw = s.south_sig + p->group_cap;
    s.north_sig = s.north_cw + p->group_cap;
    return s;
}

/* Reverses the low 2h bits of e: north row i <-> south row h - 1 - i. */
static uint32_t mirror_rows(uint32_t e, int h)
{
    uint32_t r = 0;
    for (int i = 0; i < 2 * h; i++)
        r |= (e >> i & 1) << (2 * h - 1 - i);
    return r;
}

/* Next larger integer with the same number of set bits (Gosper's hack):
 * move the lowest block of ones' top bit up one, the rest to the bottom. */
static uint32_t next_same_popcount(uint32_t x)
{
    const uint32_t low = x & (0u - x);
    const uint32_t ripple = x + low;
    return ripple | (((x ^ ripple) >> 2) / low);
}

/* Trivial counter for the boards below NQ_MITM_MIN_N. */
static uint64_t tiny_count(int n, int row, uint32_t cols, uint32_t d1, uint32_t d2)
{
    if (row == n)
        return 1;
    uint64_t count = 0;
    for (int c = 0; c < n; c++)
        if (!(cols >> c & 1) && !(d1 >> (row + c) & 1) && !(d2 >> (row - c + n - 1) & 1))
            count += tiny_count(n, row + 1, cols | 1u << c, d1 | 1u << (row + c),
                                d2 | 1u << (row - c + n - 1));
    return count;
}

/* Walks the half-boards of one side in batches (see half_next). */
typedef struct half_iter {
    uint32_t rows_n, rows_s; /* rows of the north and south quarters used */
    uint32_t avail;          /* columns of the side that are free */
    int c0;                  /* board column of the side's local column 0 */
    int k;                   /* queens in the north quarter */
    uint32_t cols;           /* current north column set */
    uint32_t next_i;         /* north placement to resume at */
    int done;
} half_iter;

static void half_start(half_iter *it, uint32_t rows_n, uint32_t rows_s, uint32_t avail, int c0)
{
    it->rows_n = rows_n;
    it->rows_s = rows_s;
    it->avail = avail;
    it->c0 = c0;
    it->k = __builtin_popcount(rows_n);
    it->cols = (UINT32_C(1) << it->k) - 1;
    it->next_i = 0;
    it->done = 0;
}

/* Moves to the next k-subset of the h columns, or marks the walk done. */
static void half_next_cols(half_iter *it, int h)
{
    const uint32_t hm = (UINT32_C(1) << h) - 1;
    if (it->k == 0 || it->cols >= (hm & ~(hm >> it->k))) { /* top k bits: last subset */
        it->done = 1;
        return;
    }
    it->cols = next_same_popcount(it->cols);
    it->next_i = 0;
}

/*
 * Keeps the placements of group g[0 .. len) that miss the pre-placed
 * queens' diagonals (f->p1, f->p2), writing for each its conflict word to
 * cw and its signature to sig; returns how many were kept.  The conflict
 * word holds both diagonal families in the north quarter's frame, one per
 * 32-bit half (bits that pass 31 cannot meet a north diagonal, which end
 * at 2h - 2 <= 30, and are dropped).
 */
static size_t filter_quarter(const nq_quarter_frame *f, const uint64_t *g, uint32_t len,
                             uint64_t *cw, uint64_t *sig)
{
#ifdef NQ_HALF_AVX512
    return nq_filter_quarter_avx512(f, g, len, cw, sig);
#else
    const uint64_t m = (UINT64_C(1) << f->shared_bits) - 1;
    size_t kept = 0;
    for (uint32_t j = 0; j < len; j++) {
        const uint64_t l1 = g[j] & 0xffffffffu, l2 = g[j] >> 32;
        const uint64_t g1 = l1 << f->to_global1, g2 = l2 << f->to_global2;
        /* Always write, keep only when the pre-placed queens are missed. */
        cw[kept] = ((l1 << f->to_north) & 0xffffffffu) | ((l2 << f->to_north) & 0xffffffffu) << 32;
        sig[kept] = (g1 >> f->to_shared & m) | (g2 >> f->to_shared & m) << f->shared_bits;
        kept += ((g1 & f->p1) | (g2 & f->p2)) == 0;
    }
    return kept;
#endif
}

/*
 * Hot loop: pairs the north placement with conflict word cw and signature
 * sig with each of the ns south placements, writing sig | south_sig[j] to
 * out for each j whose conflict word misses cw, packed; returns how many.
 * Rows and columns are disjoint by construction, so one AND tests both
 * diagonal families.  out needs ns + 1 slots.
 */
static inline size_t pair_north(uint64_t cw, uint64_t sig, const uint64_t *south_cw,
                                const uint64_t *south_sig, size_t ns, uint64_t *out)
{
#ifdef NQ_HALF_AVX512
    return nq_pair_north_avx512(cw, sig, south_cw, south_sig, ns, out);
#else
    size_t count = 0;
    /* Branch-free: always write, advance only when compatible. */
    for (size_t j = 0; j < ns; j++) {
        out[count] = sig | south_sig[j];
        count += (cw & south_cw[j]) == 0;
    }
    return count;
#endif
}

/*
 * Writes the signatures (ORed with sig_or) of the side's next half-boards
 * to out[] (cap + 1 slots, cap >= the largest store group) and returns how
 * many; fewer than all only when out is full, and then it->done stays 0 and
 * the next call resumes.  A half-board is a north quarter placement on
 * rows_n and a south one on rows_s over complementary subsets of `avail`,
 * neither attacking the pre-placed queens (global masks p1, p2), not
 * attacking each other.
 *
 * Global diagonals: a queen at board (r, c) is on sum diagonal r + c and
 * difference diagonal r - c + N - 1.  A quarter at origin (r0, c0) holds
 * local masks (bit i + j, bit i - j + h - 1), so its global masks are the
 * local ones shifted by r0 + c0 and r0 - c0 + N - h (never negative as
 * c0 <= N - h).  Shared diagonals (those with squares in both halves) are
 * sum diagonals N-h .. N+h-2 and difference diagonals N-h .. N+h-2; the
 * signature holds them as bits 0 .. 2h-2 and 2h-1 .. 4h-3.
 *
 * Both quarters' groups are first filtered against the pre-placed queens
 * into short lists in the scratch, so the pairing loop runs without tests;
 * a resumed call filters the same group again, identically, and goes on
 * from the north list's it->next_i.
 */
static size_t half_next(const mitm_plan *p, const mitm_scratch *s, half_iter *it, uint64_t p1,
                        uint64_t p2, uint64_t sig_or, uint64_t *out, size_t cap)
{
    const int n = p->n, h = p->h, south = n - h, c0 = it->c0;
    /* North quarter: origin (0, c0); its frame is the north frame. */
    const nq_quarter_frame fn = {c0, n - h - c0, 0, n - h, 2 * h - 1, p1, p2};
    /* South quarter: origin (N - h, c0), N - h rows below the north one. */
    const nq_quarter_frame fs = {south + c0, south - c0 + n - h, south, n - h, 2 * h - 1, p1, p2};
    size_t count = 0;
    while (!it->done) {
        if (it->cols & ~it->avail) { /* uses a column a pre-placed queen holds */
            half_next_cols(it, h);
            continue;
        }
        const uint64_t *gn, *gs = NULL;
        const uint32_t nn_all = nq_quarter_group(&p->qs, it->rows_n, it->cols, &gn);
        const uint32_t ns_all =
            nn_all ? nq_quarter_group(&p->qs, it->rows_s, it->avail & ~it->cols, &gs) : 0;
        const size_t ns = filter_quarter(&fs, gs, ns_all, s->south_cw, s->south_sig);
        const size_t nn = ns ? filter_quarter(&fn, gn, nn_all, s->north_cw, s->north_sig) : 0;
        for (size_t i = it->next_i; i < nn; i++) {
            if (count + ns > cap) { /* full: resume at this north placement */
                it->next_i = (uint32_t)i;
                return count;
            }
            count += pair_north(s->north_cw[i], s->north_sig[i] | sig_or, s->south_cw,
                                s->south_sig, ns, out + count);
        }
        half_next_cols(it, h);
    }
    return count;
}

/* Decodes unit u into configuration, E and weight. */
static void decode_unit(const mitm_plan *p, uint64_t u, nq_mitm_unit *d)
{
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

/*
 * Even N: the two main diagonals.  A solution has at most one queen on the
 * main diagonal D (row = column) and at most one on the anti-diagonal A
 * (row + column = N - 1); D crosses the north-west and south-east quarters,
 * A the north-east and south-west ones.  Reflection in A moves the D queen
 * between its two quarters and leaves the A queen where it is; reflection
 * in D does the converse.  Over all solutions, then, those whose D and A
 * queens (the ones they have) stand on one side of the middle are exactly
 * as many as those with one on each side, and
 *
 *     total = sum over solutions of v,  v = 1 with at most one such queen,
 *                                       2 with both on one side, 0 split.
 *
 * Each E's weighted count is not its solution count, but the sum over
 * each orbit of E under the north-south and east-west reflections is the
 * orbit size times the weighted count of any member (both reflections map
 * {D, A} to itself and keep "same side" and "split").  The
 * gain is in the join: a pair whose halves both hold a main-diagonal queen
 * has v = 0 and is never tried, and since one side of every pair left
 * holds none, the two main-diagonal bits never decide a pair and are cut
 * from the signatures (4h - 4 bits: 36 at N = 20, one chunk fewer).
 *
 * A half-board's class is how many of the two it holds: bit h - 1 of its
 * signature is the anti-diagonal (sum diagonal N - 1), bit 3h - 2 the main
 * diagonal (difference diagonal N - 1).  The join sorts both lists by
 * class and cuts those two bits out (join.h), and weights each pair of
 * classes by v:
 *
 *     east class 0 x west classes 0, 1     v = 1
 *     east class 1 x west class 0          v = 1
 *     east class 0 x west class 2          v = 2
 *     east class 2 x west class 0          v = 2
 *     (both sides hold one: v = 0 or the pair clashes -- never tried)
 */
static const uint8_t diagonal_weight[NQ_JOIN_MAX_CLASSES][NQ_JOIN_MAX_CLASSES] = {
    {1, 1, 2},
    {1, 0, 0},
    {2, 0, 0},
};

/* Odd N: one class, every pair counts once. */
static const uint8_t plain_weight[NQ_JOIN_MAX_CLASSES][NQ_JOIN_MAX_CLASSES] = {{1}};

/* The two main-diagonal bits of a signature (even N; see diagonal_weight). */
static uint64_t main_diagonal_bits(const mitm_plan *p)
{
    if (p->n & 1)
        return 0;
    return UINT64_C(1) << (p->h - 1) | UINT64_C(1) << (3 * p->h - 2);
}

/* State of one unit's join: the west halves (all of them when west_whole)
 * and the east halves gathered so far. */
typedef struct unit_join {
    const mitm_plan *p;
    const mitm_scratch *s;
    uint32_t west_n, west_s; /* west rows, north and south quarter */
    uint64_t wp1, wp2;       /* pre-placed diagonals the west must avoid */
    size_t nw, ne;
    int west_whole;
    int ordered;             /* order chosen (at the first join) */
    nq_join_order order;     /* how both sides are sorted for every join */
    uint32_t west_bits[NQ_JOIN_MAX_BITS]; /* sampled bit counts of the first west halves */
    nq_join_list west;       /* west_whole and ordered: the west halves, sorted into s->split */
    uint64_t pairs;
} unit_join;

/* Chooses the sort order of the unit's joins, once: the class bits, and
 * the key bits that the most pairs of sampled east and west halves share. */
static void choose_order(unit_join *u)
{
    const mitm_plan *p = u->p;
    uint32_t east_bits[NQ_JOIN_MAX_BITS] = {0};
    nq_join_sample_bits(u->s->east, u->ne, p->sig_bits, east_bits);
    u->order.class_mask = main_diagonal_bits(p);
    u->order.key_mask = nq_join_pick_key(east_bits, u->west_bits, p->sig_bits,
                                         u->order.class_mask);
    u->ordered = 1;
}

/* Joins the gathered east halves with every west half and empties them.
 * The count is bilinear, so when the west halves did not fit one buffer,
 * the east batch is joined with each west batch in turn.  Each list is
 * sorted into a free buffer: whole west halves go to `split` at the first
 * join, each east batch then to `west`, the buffer they left; otherwise
 * the east batch goes to `split`, and each west batch to the east buffer
 * it left. */
static void flush_east(unit_join *u)
{
    const mitm_plan *p = u->p;
    const mitm_scratch *s = u->s;
    const uint8_t(*weight)[NQ_JOIN_MAX_CLASSES] = p->n & 1 ? plain_weight : diagonal_weight;
    const int bits = p->sig_bits - __builtin_popcountll(main_diagonal_bits(p));
    nq_join_list east;
    if (u->west_whole) {
        if (!u->ordered) {
            choose_order(u);
            nq_join_sort(s->west, u->nw, &u->order, s->split, &u->west);
        }
        nq_join_sort(s->east, u->ne, &u->order, s->west, &east);
        u->pairs += nq_join_sorted_count(&east, &u->west, weight, bits, s->js);
    } else {
        if (!u->ordered)
            choose_order(u);
        nq_join_sort(s->east, u->ne, &u->order, s->split, &east);
        const uint32_t hm = (UINT32_C(1) << p->h) - 1;
        half_iter wi;
        half_start(&wi, u->west_n, u->west_s, hm, 0);
        while (!wi.done) {
            u->nw = half_next(p, s, &wi, u->wp1, u->wp2, 0, s->west, p->half_cap);
            nq_join_list west;
            nq_join_sort(s->west, u->nw, &u->order, s->east, &west);
            u->pairs += nq_join_sorted_count(&east, &west, weight, bits, s->js);
        }
    }
    u->ne = 0;
}

/* Adds the east halves of one configuration (columns east_cols, avoiding
 * p1/p2, signatures ORed with sig_or), joining whenever the buffer fills. */
static void add_east(unit_join *u, uint32_t east, uint32_t east_cols, uint64_t p1, uint64_t p2,
                     uint64_t sig_or)
{
    const mitm_plan *p = u->p;
    const uint32_t hm = (UINT32_C(1) << p->h) - 1;
    half_iter ei;
    half_start(&ei, east & hm, east >> p->h, east_cols, p->n - p->h);
    while (!ei.done) {
        u->ne += half_next(p, u->s, &ei, p1, p2, sig_or, u->s->east + u->ne, p->half_cap - u->ne);
        if (!ei.done)
            flush_east(u); /* buffer full: an empty one always makes progress */
    }
}

/*
 * A unit's count.  Even N and the odd-N centre queen: one configuration.
 * Odd N, unit (b, E): the queen of the middle column stands at (m + b, m)
 * and holds south row b - 1; for every a = 1 .. b - 1 the queen of the
 * middle row stands at (m, m + a) and holds east column a - 1.  The west
 * halves do not depend on a except through that queen's two diagonals,
 * which are shared diagonals (bits h + a - 1 and 3h - a - 2 of a
 * signature, as a <= h - 1): ORing them into every east signature of
 * configuration a makes the join reject the west halves it attacks.  So
 * the west halves are built once and all configurations' east halves are
 * joined with them in one go.
 */
static void mitm_solve(const nq_job *job, uint64_t unit, nq_counts *out, void *scratch)
{
    const mitm_plan *p = job->plan;
    out->unique = 0;
    if (p->tiny) {
        out->total = tiny_count(p->n, 0, 0, 0, 0);
        return;
    }
    nq_mitm_unit d;
    decode_unit(p, unit, &d);
    const int n = p->n, h = p->h, mid = n / 2;
    const uint32_t hm = (UINT32_C(1) << h) - 1;
    const mitm_scratch s = carve_scratch(p, scratch);
    unit_join u = {.p = p, .s = &s};
    uint32_t rows = (UINT32_C(1) << 2 * h) - 1;
    if (n & 1) {
        /* The middle column's queen (the centre queen when b = 0). */
        u.wp1 = UINT64_C(1) << (2 * mid + d.b);
        u.wp2 = UINT64_C(1) << (n - 1 + d.b);
        if (d.b)
            rows &= ~(UINT32_C(1) << (h + d.b - 1));
    }
    const uint32_t west = rows & ~d.east;
    u.west_n = west & hm;
    u.west_s = west >> h;
    half_iter wi;
    half_start(&wi, u.west_n, u.west_s, hm, 0);
    u.nw = half_next(p, &s, &wi, u.wp1, u.wp2, 0, s.west, p->half_cap);
    u.west_whole = wi.done; /* the usual case: all west halves fit */
    if (u.nw == 0 && u.west_whole) {
        out->total = 0;
        return;
    }
    nq_join_sample_bits(s.west, u.nw, p->sig_bits, u.west_bits);
    if (d.a_first == 0) {
        add_east(&u, d.east, hm, u.wp1, u.wp2, 0);
    } else {
        for (int a = d.a_first; a <= d.a_last; a++) {
            const uint64_t p1 = u.wp1 | UINT64_C(1) << (2 * mid + a);
            const uint64_t p2 = u.wp2 | UINT64_C(1) << (n - 1 - a);
            const uint64_t sig_or = UINT64_C(1) << (h + a - 1) | UINT64_C(1) << (3 * h - a - 2);
            add_east(&u, d.east, hm & ~(UINT32_C(1) << (a - 1)), p1, p2, sig_or);
        }
    }
    if (u.ne)
        flush_east(&u);
    out->total = (nq_u128)u.pairs * d.weight;
}

static void plan_free(mitm_plan *p)
{
    if (!p)
        return;
    nq_quarter_store_free(&p->qs);
    free(p->canon);
    free(p->canon_weight);
    free(p->all_e);
    free(p);
}

/* C(2h, h): how many E there are. */
static uint64_t central_binomial(int h)
{
    uint64_t c = 1;
    for (int i = 1; i <= h; i++)
        c = c * (uint64_t)(h + i) / (uint64_t)i; /* exact: c * (h+i) = C(h+i, i) * i */
    return c;
}

/* Half-boards of one side before the diagonal tests: the pairs of a north
 * placement on rows_n and a south one on rows_s over complementary subsets
 * of the columns `avail`, summed over the north column sets (the count
 * half_next walks: plan_units sizes buffers by it, the estimate hook
 * prices units by it). */
static uint64_t half_bound(const mitm_plan *p, uint32_t rows_n, uint32_t rows_s, uint32_t avail)
{
    const int h = p->h, k = __builtin_popcount(rows_n);
    const uint32_t hm = (UINT32_C(1) << h) - 1;
    uint64_t bound = 0;
    for (uint32_t cols = (UINT32_C(1) << k) - 1;; cols = next_same_popcount(cols)) {
        if (!(cols & ~avail)) {
            const uint64_t *g;
            const uint64_t a = nq_quarter_group(&p->qs, rows_n, cols, &g);
            if (a)
                bound += a * nq_quarter_group(&p->qs, rows_s, avail & ~cols, &g);
        }
        if (k == 0 || cols >= (hm & ~(hm >> k)))
            break;
    }
    return bound;
}

/* Size of E's orbit under the north-south and east-west reflections when E
 * is its least member (the one solved), else 0. */
static uint8_t canon_weight_of(uint32_t e, int h)
{
    const uint32_t full = (UINT32_C(1) << 2 * h) - 1;
    const uint32_t orbit[4] = {e, mirror_rows(e, h), ~e & full, mirror_rows(~e & full, h)};
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

/*
 * Fills the E lists, pairs and the scratch caps.  Returns 0 or NQ_ENOMEM.
 * Every E (h of the 2h quarter rows) is listed in increasing order; each
 * is then looked at independently, in parallel from h = 8 on: whether it
 * is the least of its orbit (and so a unit, weighted by the orbit's size),
 * and a bound on its east half-boards -- every pair of groups, before the
 * diagonal test.  The west side of E is the east side of its complement,
 * also in the list, so the largest bound covers both sides.
 */
static int plan_units(mitm_plan *p, int threads)
{
    const int h = p->h;
    const uint32_t hm = (UINT32_C(1) << h) - 1;
    const uint64_t nall = central_binomial(h);
    p->canon = malloc(nall * sizeof *p->canon);
    p->canon_weight = malloc(nall);
    if (!p->canon || !p->canon_weight)
        return NQ_ENOMEM;
    /* Every E first, in order, with its orbit weight in canon_weight (0:
     * not a unit); compacted to the units afterwards. */
    uint64_t i = 0;
    for (uint32_t e = hm; i < nall; e = next_same_popcount(e))
        p->canon[i++] = e;
    size_t cap = 0;
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 256) reduction(max : cap) num_threads(threads) if (h >= 8)
#endif
    for (long j = 0; j < (long)nall; j++) {
        const uint32_t e = p->canon[j];
        p->canon_weight[j] = canon_weight_of(e, h);
        const size_t bound = half_bound(p, e & hm, e >> h, hm);
        if (bound > cap)
            cap = bound;
    }
    for (uint64_t j = 0; j < nall; j++)
        if (p->canon_weight[j]) {
            p->canon[p->ncanon] = p->canon[j];
            p->canon_weight[p->ncanon++] = p->canon_weight[j];
        }
    p->half_cap = cap;
    for (size_t k = 0; k < ((size_t)1 << 2 * h); k++)
        if (p->qs.start[k + 1] - p->qs.start[k] > p->group_cap)
            p->group_cap = p->qs.start[k + 1] - p->qs.start[k];

    if (nq_mitm_batch_limit && p->half_cap > nq_mitm_batch_limit)
        p->half_cap = nq_mitm_batch_limit;
    /* Batches must hold at least one north placement's pairs (half_next). */
    if (p->half_cap < p->group_cap)
        p->half_cap = p->group_cap;
    if (p->n & 1) {
        p->nall = central_binomial(h) / 2; /* C(2h-1, h-1) = C(2h, h) / 2 */
        p->all_e = malloc(p->nall * sizeof *p->all_e);
        p->nb = (uint64_t)(h - 1); /* b = 2 .. h */
        if (!p->all_e)
            return NQ_ENOMEM;
        uint64_t k = 0;
        for (uint32_t x = (UINT32_C(1) << (h - 1)) - 1; k < p->nall; x = next_same_popcount(x))
            p->all_e[k++] = x;
    }
    return 0;
}

static int mitm_plan_job(nq_job *job, int split_depth)
{
    (void)split_depth;
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
     * v-weighted solutions (see diag_split), so a journal of plain unit
     * counts must be refused, never mixed in. */
    if (!(job->n & 1) && job->n >= NQ_MITM_MIN_N)
        id = nq_hash_bytes(id, "v-weighted", 10);
    if (job->n < NQ_MITM_MIN_N) {
        p->tiny = 1;
        job->units = 1;
        job->identity = id;
        return 0;
    }
    p->sig_bits = 4 * p->h - 2;
    int ret = nq_quarter_store_build(&p->qs, p->h, job->threads);
    if (ret == 0)
        ret = plan_units(p, job->threads);
    if (ret < 0)
        return ret; /* job release frees the partial plan */
    p->scratch_bytes = scratch_bytes_for(p->n, p->half_cap, p->group_cap);
    job->units = p->ncanon + p->nb * p->nall;
    /* Identity: the unit list is a function of n and of the orders used
     * above; hash the lists themselves so any change of order shows. */
    id = nq_hash_bytes(id, p->canon, p->ncanon * sizeof *p->canon);
    id = nq_hash_bytes(id, p->canon_weight, p->ncanon);
    if (p->nall)
        id = nq_hash_bytes(id, p->all_e, p->nall * sizeof *p->all_e);
    id = nq_hash_bytes(id, &p->nb, sizeof p->nb);
    job->identity = id;
    return 0;
}

static size_t mitm_scratch_size(const nq_job *job)
{
    const mitm_plan *p = job->plan;
    return p->tiny ? 0 : p->scratch_bytes;
}

static void mitm_release(nq_job *job)
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
    const int bits = p->n & 1 ? p->sig_bits : p->sig_bits - 2;
    const double lookups = (double)((bits + NQ_JOIN_CHUNK_BITS_MIN - 1) / NQ_JOIN_CHUNK_BITS_MIN);
    /* Even N tries only the pairs the main-diagonal split keeps (see
     * diag_split): 0.53 of them, counted over all units at N = 18. */
    const double kept = p->n & 1 ? 1.0 : 0.53;
    return kept * blocks * (shorter + NQ_JOIN_BLOCK) * lookups;
}

/*
 * The estimate hook: an analytic cost per unit from the quarter store's
 * group sizes alone, nothing searched.  A unit builds its west half-boards
 * once and its east ones once per configuration a, gathering the east
 * halves of all configurations into one join with the west ones (see
 * mitm_solve and add_east); the half-board counts are taken before the
 * diagonal tests (half_bound), which overstates them by a roughly constant
 * factor, and the unit costs that pairing work plus the join's
 * (join_cost).  Relative values only.  Units are independent, so they are
 * estimated in parallel (N = 23 has 3.5 million).
 */
static int mitm_estimate(const nq_job *job, double *costs)
{
    const mitm_plan *p = job->plan;
    if (p->tiny) {
        costs[0] = 1;
        return 0;
    }
    const int h = p->h;
    const uint32_t hm = (UINT32_C(1) << h) - 1;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 256)
#endif
    for (long u = 0; u < (long)job->units; u++) {
        nq_mitm_unit d;
        decode_unit(p, (uint64_t)u, &d);
        uint32_t rows = (UINT32_C(1) << 2 * h) - 1;
        if (d.b)
            rows &= ~(UINT32_C(1) << (h + d.b - 1));
        const uint32_t west = rows & ~d.east;
        const double w = (double)half_bound(p, west & hm, west >> h, hm);
        double e = 0;
        if (d.a_first == 0) {
            e = (double)half_bound(p, d.east & hm, d.east >> h, hm);
        } else {
            /* Configuration a's queen holds east column a - 1. */
            for (int a = d.a_first; a <= d.a_last; a++)
                e += (double)half_bound(p, d.east & hm, d.east >> h,
                                        hm & ~(UINT32_C(1) << (a - 1)));
        }
        costs[u] = w + e + join_cost(p, e, w);
    }
    return 0;
}

int nq_mitm_describe_unit(const nq_job *job, uint64_t unit, nq_mitm_unit *out)
{
    if (!job || !out || job->ops != &nq_engine_mitm || unit >= job->units)
        return NQ_EINVAL_ARG;
    const mitm_plan *p = job->plan;
    if (p->tiny)
        return NQ_EUNSUPPORTED;
    decode_unit(p, unit, out);
    return 0;
}

size_t nq_mitm_memory_estimate(int n, int threads)
{
    if (n < 1 || n > NQ_MITM_MAX_N)
        return 0;
    if (n < NQ_MITM_MIN_N)
        return sizeof(mitm_plan);
    const int h = n / 2;
    /* Unit tables: canonical E with weights, and the odd-N E list. */
    const size_t units = (size_t)central_binomial(h) * (sizeof(uint32_t) + 1) +
                         (size_t)central_binomial(h) / 2 * sizeof(uint32_t);
    return sizeof(mitm_plan) + nq_quarter_store_bytes(h) + units +
           (size_t)(threads > 0 ? threads : 1) * scratch_per_n[n];
}

const struct nq_engine_ops nq_engine_mitm = {
    .id = NQ_ENGINE_MITM,
    .name = "mitm",
    .max_n = NQ_MITM_MAX_N,
    .plan = mitm_plan_job,
    .solve = mitm_solve,
    .scratch_size = mitm_scratch_size,
    .release = mitm_release,
    .estimate = mitm_estimate,
};
