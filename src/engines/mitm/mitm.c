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
#include "engines/mitm/quarter_slice.h"
#include "engines/mitm/quarter_store.h"

/* The build's choice of half-board loops: the AVX-512 ones when it targets
 * AVX-512F (each loop below then hands its work to them). */
#if defined(__AVX512F__)
#include "engines/mitm/x86/half_avx512.h"
#endif

/* The largest half-board bound of any unit (half_bound) per side h, as
 * plan() computes it from the store (the tests check the table against
 * plan(); only the memory estimate uses it). */
static const size_t half_cap_per_h[NQ_MITM_STORE_MAX_H + 1] = {
    1, 1, 2, 4, 16, 48, 226, 1080, 7240, 41644, 300950, 2300692,
};

size_t nq_mitm_batch_limit;
int nq_mitm_walk_slices;

/* Smallest quarter side whose units run in spread order (spread_stride). */
#define NQ_MITM_SPREAD_H 12

/* Half-boards a batch holds at most, per list: 128 MiB.  Units with more
 * (from N = 24 on) are joined in batches (flush_east). */
#define NQ_MITM_HALF_LIMIT ((size_t)1 << 24)

/* West lists shorter than this are joined without key bits: choosing and
 * sorting by keys costs more than the pairs it skips there (N <= 18, and
 * most units of N = 19). */
#define NQ_MITM_KEY_MIN 2048
size_t nq_mitm_key_min = NQ_MITM_KEY_MIN;

typedef struct mitm_plan {
    int n, h;
    int tiny;            /* N < NQ_MITM_MIN_N: one unit, trivial search */
    int sig_bits;        /* 4h - 2: shared sum and difference diagonals */
    int use_store;       /* slices come from qs, else from walks */
    size_t key_min;      /* shortest west list joined with key bits */
    nq_quarter_store qs;
    uint32_t *canon;     /* E up to the reflections, with their weights */
    uint8_t *canon_weight;
    uint64_t ncanon;
    /* Odd N, a != 0: every E as an (h-1)-subset of the 2h - 1 rows left,
     * numbered without the row of the middle column's queen. */
    uint32_t *all_e;
    uint64_t nall;
    uint64_t nb;         /* odd N: values of b (2 .. h), each a block of nall units */
    size_t half_cap;     /* half-boards a list holds (a batch, when a side has more) */
    size_t slice_cap;    /* placements a slice holds: the most of any row set */
    uint64_t stride;     /* 0, or unit u stands for entry u * stride mod units */
    size_t scratch_bytes;
} mitm_plan;

/* The four quarters, by where their slices sit in the scratch. */
enum { NQ_NW, NQ_NE, NQ_SW, NQ_SE, NQ_QUARTERS };

/* Per-thread scratch, carved from the pool's buffer.  The buffer is zeroed
 * when a run starts and stays the thread's own through the run, so the
 * slices it holds (their descriptions at its start) carry over from one
 * unit to the next. */
typedef struct mitm_scratch {
    nq_quarter_slice *quarter; /* NQ_QUARTERS slices, by the enum above */
    nq_join_scratch *js;
    uint64_t *east, *west;     /* half_cap + 1 signatures each */
    uint64_t *split;           /* half_cap + 1 more: where lists are sorted to */
    uint16_t *tag;             /* half_cap + 1 bucket tags: the sort's working space */
} mitm_scratch;

/* Bytes of scratch for the given caps, including 64 bytes of alignment slack. */
static size_t scratch_bytes_for(int h, size_t half_cap, size_t slice_cap)
{
    return NQ_QUARTERS * sizeof(nq_quarter_slice) + 64 + sizeof(nq_join_scratch) +
           3 * (half_cap + 1) * sizeof(uint64_t) +
           NQ_QUARTERS * nq_quarter_slice_bytes(h, slice_cap) + (half_cap + 1) * sizeof(uint16_t);
}

static mitm_scratch carve_scratch(const mitm_plan *p, void *raw)
{
    mitm_scratch s;
    s.quarter = raw;
    uintptr_t at = (uintptr_t)(s.quarter + NQ_QUARTERS);
    s.js = (nq_join_scratch *)((at + 63) & ~(uintptr_t)63); /* round up to 64 */
    s.east = (uint64_t *)(s.js + 1);
    s.west = s.east + p->half_cap + 1;
    s.split = s.west + p->half_cap + 1;
    char *slices = (char *)(s.split + p->half_cap + 1);
    const size_t bytes = nq_quarter_slice_bytes(p->h, p->slice_cap);
    for (int q = 0; q < NQ_QUARTERS; q++)
        if (!s.quarter[q].cw) /* still zero: the thread's first unit of the run */
            nq_quarter_slice_init(&s.quarter[q], p->h, p->slice_cap, slices + (size_t)q * bytes);
    s.tag = (uint16_t *)(slices + NQ_QUARTERS * bytes);
    return s;
}

/* The frame of the quarter with origin (r0, c0), r0 = 0 (north) or N - h
 * (south), for pre-placed queens on the global diagonals p1, p2.
 *
 * Global diagonals: a queen at board (r, c) is on sum diagonal r + c and
 * difference diagonal r - c + N - 1.  A quarter at origin (r0, c0) holds
 * local masks (bit i + j, bit i - j + h - 1), so its global masks are the
 * local ones shifted by r0 + c0 and r0 - c0 + N - h (never negative as
 * c0 <= N - h).  Shared diagonals (those with squares in both halves) are
 * sum diagonals N-h .. N+h-2 and difference diagonals N-h .. N+h-2; the
 * signature holds them as bits 0 .. 2h-2 and 2h-1 .. 4h-3.  A south
 * quarter's conflict words move into the north frame, N - h rows up. */
static nq_quarter_frame quarter_frame(const mitm_plan *p, int r0, int c0, uint64_t p1,
                                      uint64_t p2)
{
    const int n = p->n, h = p->h;
    return (nq_quarter_frame){r0 + c0, r0 - c0 + n - h, r0, n - h, 2 * h - 1, p1, p2};
}

/* Makes the slices of one side (columns from c0) hold its quarters'
 * placements on rows_n and rows_s that miss p1 and p2. */
static void prepare_side(const mitm_plan *p, const mitm_scratch *s, int west, uint32_t rows_n,
                         uint32_t rows_s, uint64_t p1, uint64_t p2)
{
    const nq_quarter_store *store = p->use_store ? &p->qs : NULL;
    const int c0 = west ? 0 : p->n - p->h;
    const nq_quarter_frame fn = quarter_frame(p, 0, c0, p1, p2);
    const nq_quarter_frame fs = quarter_frame(p, p->n - p->h, c0, p1, p2);
    nq_quarter_slice_fill(&s->quarter[west ? NQ_NW : NQ_NE], store, p->h, rows_n, &fn);
    nq_quarter_slice_fill(&s->quarter[west ? NQ_SW : NQ_SE], store, p->h, rows_s, &fs);
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
    const nq_quarter_slice *north, *south; /* the side's two quarters on its rows */
    uint32_t avail;          /* columns of the side that are free */
    uint64_t avoid;          /* signature bits no placement of the side may have */
    int k;                   /* queens in the north quarter */
    uint32_t cols;           /* current north column set */
    uint32_t next_i;         /* north placement to resume at */
    int done;
} half_iter;

static void half_start(half_iter *it, const nq_quarter_slice *north,
                       const nq_quarter_slice *south, uint32_t avail, uint64_t avoid)
{
    it->north = north;
    it->south = south;
    it->avail = avail;
    it->avoid = avoid;
    it->k = __builtin_popcount(north->rows);
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
 * Hot loop: pairs one placement, with conflict word cw and signature sig,
 * with each of the ns placements of a group of the other quarter, writing
 * sig | group_sig[j] to out for each j whose conflict word misses cw and
 * whose signature misses `avoid`, packed; returns how many.  Rows and
 * columns are disjoint by construction, so one AND tests both diagonal
 * families; the test is symmetric, so either quarter may be the group.
 * out needs ns + 1 slots.
 */
static inline size_t pair_group(uint64_t cw, uint64_t sig, const uint64_t *group_cw,
                                const uint64_t *group_sig, size_t ns, uint64_t avoid,
                                uint64_t *out)
{
#ifdef NQ_HALF_AVX512
    return nq_pair_group_avx512(cw, sig, group_cw, group_sig, ns, avoid, out);
#else
    size_t count = 0;
    /* Branch-free: always write, advance only when compatible. */
    for (size_t j = 0; j < ns; j++) {
        out[count] = sig | group_sig[j];
        count += ((cw & group_cw[j]) | (avoid & group_sig[j])) == 0;
    }
    return count;
#endif
}

/*
 * Writes the signatures (ORed with sig_or) of the side's next half-boards
 * to out[] (cap + 1 slots, cap >= the largest group of a slice) and returns
 * how many; fewer than all only when out is full, and then it->done stays 0
 * and the next call resumes.  A half-board is a placement of the north
 * slice and one of the south slice over complementary subsets of `avail`,
 * not attacking each other, neither having a signature bit of `avoid`.
 * The slices hold only placements that miss the queens placed beforehand
 * (quarter_slice.h); `avoid` holds the diagonals of one more such queen
 * when a side is built for several of them (see mitm_solve).
 */
static size_t half_next(const mitm_plan *p, half_iter *it, uint64_t sig_or, uint64_t *out,
                        size_t cap)
{
    const nq_quarter_slice *north = it->north, *south = it->south;
    const uint64_t avoid = it->avoid;
    size_t count = 0;
    while (!it->done) {
        if (it->cols & ~it->avail) { /* uses a column a pre-placed queen holds */
            half_next_cols(it, p->h);
            continue;
        }
        const uint32_t south_cols = it->avail & ~it->cols;
        const size_t ns = south->size[south_cols];
        const size_t nn = ns ? north->size[it->cols] : 0;
        if (it->next_i < nn) {
            const uint64_t *south_cw = south->cw + south->first[south_cols];
            const uint64_t *south_sig = south->sig + south->first[south_cols];
            const uint64_t *north_cw = north->cw + north->first[it->cols];
            const uint64_t *north_sig = north->sig + north->first[it->cols];
            /* Few south placements, many north ones, all pairs fit: the
             * pairing is symmetric, so loop over the south group outside
             * and fill whole vectors with north placements inside. */
            if (it->next_i == 0 && ns < nn && nn * ns <= cap - count) {
                for (size_t j = 0; j < ns; j++)
                    if (!(south_sig[j] & avoid))
                        count += pair_group(south_cw[j], south_sig[j] | sig_or, north_cw,
                                            north_sig, nn, avoid, out + count);
                half_next_cols(it, p->h);
                continue;
            }
            /* The north placements whose pairs surely fit: at most ns each. */
            const size_t fit = (cap - count) / ns;
            const size_t end = nn - it->next_i > fit ? it->next_i + fit : nn;
            for (size_t i = it->next_i; i < end; i++)
                if (!(north_sig[i] & avoid))
                    count += pair_group(north_cw[i], north_sig[i] | sig_or, south_cw, south_sig,
                                        ns, avoid, out + count);
            if (end < nn) { /* full: resume at the first north placement left */
                it->next_i = (uint32_t)end;
                return count;
            }
        }
        half_next_cols(it, p->h);
    }
    return count;
}

/* Decodes unit u into configuration, E and weight. */
static void decode_unit(const mitm_plan *p, uint64_t u, nq_mitm_unit *d)
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
    int keyed;               /* sorted by key bits too (long lists only) */
    int ordered;             /* order chosen (at the first join) */
    nq_join_order order;     /* how both sides are sorted for every join */
    uint32_t west_bits[NQ_JOIN_MAX_BITS]; /* sampled bit counts of the first west halves */
    nq_join_list west;       /* west_whole and ordered: the west halves, sorted into s->split */
    uint64_t pairs;
} unit_join;

/* Key bits for joining lists of nw and ne halves.  Wider keys skip more
 * pairs and cut two more bits from the stored signatures (a table look-up
 * fewer at N = 22: 34 bits become 32, four 8-bit look-ups instead of
 * five), but cut the lists into four times the runs and sort into four
 * times the buckets, which costs more than it saves where a block meets
 * few queries: up to N = 21 (at most about 2e9 pairs a unit) six bits
 * are faster, from N = 22 on (1e10 to 1e11 pairs) eight. */
#define NQ_MITM_WIDE_KEY_PAIRS (UINT64_C(1) << 32)

static int key_width(size_t nw, size_t ne)
{
    return (uint64_t)nw * ne >= NQ_MITM_WIDE_KEY_PAIRS ? 8 : 6;
}

/* Chooses the sort order of the unit's joins, once: the class bits, and
 * the key bits that the most pairs of sampled east and west halves share. */
static void choose_order(unit_join *u)
{
    const mitm_plan *p = u->p;
    uint32_t east_bits[NQ_JOIN_MAX_BITS] = {0};
    if (u->keyed)
        nq_join_sample_bits(u->s->east, u->ne, p->sig_bits, east_bits);
    u->order.class_mask = main_diagonal_bits(p);
    nq_join_pick_key(east_bits, u->west_bits, p->sig_bits,
                     u->keyed ? key_width(u->nw, u->ne) : 0, &u->order);
    u->ordered = 1;
}

/* The bits sorted lists keep: the signature's, less the class and key bits
 * the sort cuts out (join.h). */
static int sorted_bits(const unit_join *u)
{
    return u->p->sig_bits - __builtin_popcountll(u->order.class_mask | u->order.key_mask);
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
    nq_join_list east;
    if (!u->keyed && (p->n & 1)) {
        /* Short lists of one class: sorting would cost more than it skips. */
        u->pairs += nq_join_count(s->east, u->ne, s->west, u->nw, p->sig_bits, s->js);
    } else if (u->west_whole) {
        if (!u->ordered) {
            choose_order(u);
            nq_join_sort(s->west, u->nw, &u->order, s->tag, s->split, &u->west);
        }
        nq_join_sort(s->east, u->ne, &u->order, s->tag, s->west, &east);
        u->pairs += nq_join_sorted_count(&east, &u->west, weight, sorted_bits(u), s->js);
    } else {
        if (!u->ordered)
            choose_order(u);
        nq_join_sort(s->east, u->ne, &u->order, s->tag, s->split, &east);
        const uint32_t hm = (UINT32_C(1) << p->h) - 1;
        half_iter wi;
        half_start(&wi, &s->quarter[NQ_NW], &s->quarter[NQ_SW], hm, 0);
        while (!wi.done) {
            u->nw = half_next(p, &wi, 0, s->west, p->half_cap);
            nq_join_list west;
            nq_join_sort(s->west, u->nw, &u->order, s->tag, s->east, &west);
            u->pairs += nq_join_sorted_count(&east, &west, weight, sorted_bits(u), s->js);
        }
    }
    u->ne = 0;
}

/* Adds the east halves of one configuration (columns east_cols, no
 * signature bit of `avoid`, signatures ORed with sig_or), joining whenever
 * the buffer fills. */
static void add_east(unit_join *u, uint32_t east_cols, uint64_t avoid, uint64_t sig_or)
{
    const mitm_plan *p = u->p;
    half_iter ei;
    half_start(&ei, &u->s->quarter[NQ_NE], &u->s->quarter[NQ_SE], east_cols, avoid);
    while (!ei.done) {
        u->ne += half_next(p, &ei, sig_or, u->s->east + u->ne, p->half_cap - u->ne);
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
 * joined with them in one go.  The east slices likewise avoid only the
 * middle column's queen, and each configuration skips the east
 * placements that hold its queen's diagonals (those signature bits).
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
    prepare_side(p, &s, 1, u.west_n, u.west_s, u.wp1, u.wp2);
    half_iter wi;
    half_start(&wi, &s.quarter[NQ_NW], &s.quarter[NQ_SW], hm, 0);
    u.nw = half_next(p, &wi, 0, s.west, p->half_cap);
    u.west_whole = wi.done; /* the usual case: all west halves fit */
    if (u.nw == 0 && u.west_whole) {
        out->total = 0;
        return;
    }
    /* Keys pay where a block's queries skip long runs: on long west lists
     * (and always when they come in batches). */
    u.keyed = !u.west_whole || u.nw >= p->key_min;
    if (u.keyed)
        nq_join_sample_bits(s.west, u.nw, p->sig_bits, u.west_bits);
    prepare_side(p, &s, 0, d.east & hm, d.east >> h, u.wp1, u.wp2);
    if (d.a_first == 0) {
        add_east(&u, hm, 0, 0);
    } else {
        for (int a = d.a_first; a <= d.a_last; a++) {
            const uint64_t abits = UINT64_C(1) << (h + a - 1) | UINT64_C(1) << (3 * h - a - 2);
            add_east(&u, hm & ~(UINT32_C(1) << (a - 1)), abits, abits);
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

/* Half-boards of one side before the diagonal tests: the pairs of a north
 * placement on rows_n and a south one on rows_s over complementary subsets
 * of the columns `avail`, summed over the north column sets (the count
 * half_next walks: plan_units sizes buffers by it, the estimate hook
 * prices units by it). */
static uint64_t half_bound(const group_sizes *g, uint32_t rows_n, uint32_t rows_s, uint32_t avail)
{
    const int h = g->h, k = __builtin_popcount(rows_n);
    const uint32_t hm = (UINT32_C(1) << h) - 1;
    uint64_t bound = 0;
    for (uint32_t cols = (UINT32_C(1) << k) - 1;; cols = next_same_popcount(cols)) {
        if (!(cols & ~avail)) {
            const uint64_t a = group_size(g, rows_n, cols);
            if (a)
                bound += a * group_size(g, rows_s, avail & ~cols);
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

/* The half-board list size: with a store, the largest bound of any E (the
 * west side of E is the east side of its complement, also an E, so this
 * covers both sides); without one, NQ_MITM_HALF_LIMIT, or for small boards
 * the product of two slices.  Never more than the limit (the batch limit
 * too, when tests set one), never less than a slice's largest group, as a
 * batch must hold one north placement's pairs (half_next). */
static size_t half_cap_of(const mitm_plan *p, int threads)
{
    const int h = p->h;
    const uint32_t hm = (UINT32_C(1) << h) - 1;
    const uint64_t nall = central_binomial(h);
    size_t cap = NQ_MITM_HALF_LIMIT, group_cap = p->slice_cap;
    if (p->slice_cap < cap / p->slice_cap)
        cap = p->slice_cap * p->slice_cap;
    if (p->use_store) {
        const group_sizes g = {h, &p->qs, NULL};
        cap = 0;
        (void)threads;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 256) reduction(max : cap) num_threads(threads) if (h >= 8)
#endif
        for (long j = 0; j < (long)nall; j++) {
            const uint32_t e = p->canon[j];
            const size_t bound = half_bound(&g, e & hm, e >> h, hm);
            if (bound > cap)
                cap = bound;
        }
        group_cap = 0;
        for (size_t k = 0; k < ((size_t)1 << 2 * h); k++)
            if (p->qs.start[k + 1] - p->qs.start[k] > group_cap)
                group_cap = p->qs.start[k + 1] - p->qs.start[k];
    }
    if (cap > NQ_MITM_HALF_LIMIT)
        cap = NQ_MITM_HALF_LIMIT;
    if (nq_mitm_batch_limit && cap > nq_mitm_batch_limit)
        cap = nq_mitm_batch_limit;
    return cap < group_cap ? group_cap : cap;
}

/*
 * Fills the E lists and the half-board list size.  Returns 0 or
 * NQ_ENOMEM.  Every E (h of the 2h quarter rows) is listed in increasing
 * order, with the size of its orbit when it is the least member (and so a
 * unit, weighted by that size); then compacted to the units.
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
    uint64_t i = 0;
    for (uint32_t e = hm; i < nall; e = next_same_popcount(e))
        p->canon[i++] = e;
    p->half_cap = half_cap_of(p, threads); /* before the list loses its non-units */
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
 * The stride of the spread order of the boards from N = 24 on: unit u
 * stands for the list's entry u * stride mod units, with the stride the
 * first number coprime to `units` from units / golden ratio on, so every
 * entry comes once and any run of units (what a run has done so far, a
 * journal chunk) samples the whole list evenly.  Costs vary a lot along
 * the list (by how many rows of E are north), and a run's rate, its ETA
 * and the projections taken from its start must not depend on where it
 * starts.  Smaller boards keep list order, where consecutive units share
 * slices (quarter_slice.h): at N = 22 that makes the units a fifth
 * cheaper, and those runs take hours, not weeks.  From N = 24 no slice
 * comes from a store and the order is worth more than the sharing.
 */
static uint64_t spread_stride(uint64_t units)
{
    uint64_t stride = (uint64_t)((double)units * 0.6180339887498949);
    while (stride > 1 && gcd(stride, units) != 1)
        stride++;
    return stride ? stride : 1;
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
    p->use_store = p->h <= NQ_MITM_STORE_MAX_H && !nq_mitm_walk_slices;
    p->key_min = nq_mitm_key_min;
    p->slice_cap = nq_quarter_slice_capacity(p->h);
    int ret = p->use_store ? nq_quarter_store_build(&p->qs, p->h, job->threads) : 0;
    if (ret == 0)
        ret = plan_units(p, job->threads);
    if (ret < 0)
        return ret; /* job release frees the partial plan */
    p->scratch_bytes = scratch_bytes_for(p->h, p->half_cap, p->slice_cap);
    job->units = p->ncanon + p->nb * p->nall;
    if (p->h >= NQ_MITM_SPREAD_H)
        p->stride = spread_stride(job->units);
    /* Units take about 0.1 s to a second from N = 24 on, milliseconds at
     * N = 22, 23: chunks of a few seconds a thread. */
    job->chunk_limit = p->h > NQ_MITM_STORE_MAX_H ? 16 : p->h == NQ_MITM_STORE_MAX_H ? 1024 : 0;
    /* Identity: the unit list is a function of n and of the orders used
     * above; hash the lists themselves so any change of order shows. */
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

/* The quarter group sizes of side h without a store: every row set's
 * placements counted by walking it (4^h counters; a few seconds at h = 12,
 * minutes at h = 13).  NULL when out of memory. */
static uint32_t *count_groups(int h)
{
    uint32_t *table = malloc(((size_t)1 << 2 * h) * sizeof *table);
    if (!table)
        return NULL;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
    for (long rows = 0; rows < (1L << h); rows++)
        nq_quarter_slice_count(h, (uint32_t)rows, table + ((size_t)rows << h));
    return table;
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
    group_sizes g = {h, &p->qs, NULL};
    uint32_t *table = NULL;
    if (!p->use_store) {
        g.table = table = count_groups(h);
        if (!table)
            return NQ_ENOMEM;
    }
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
        const double w = (double)half_bound(&g, west & hm, west >> h, hm);
        double e = 0;
        if (d.a_first == 0) {
            e = (double)half_bound(&g, d.east & hm, d.east >> h, hm);
        } else {
            /* Configuration a's queen holds east column a - 1. */
            for (int a = d.a_first; a <= d.a_last; a++)
                e += (double)half_bound(&g, d.east & hm, d.east >> h,
                                        hm & ~(UINT32_C(1) << (a - 1)));
        }
        costs[u] = w + e + join_cost(p, e, w);
    }
    free(table);
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
    const int store = h <= NQ_MITM_STORE_MAX_H;
    const size_t half_cap = store ? half_cap_per_h[h] : NQ_MITM_HALF_LIMIT;
    const size_t scratch = scratch_bytes_for(h, half_cap, nq_quarter_slice_capacity(h));
    return sizeof(mitm_plan) + (store ? nq_quarter_store_bytes(h) : 0) + units +
           (size_t)(threads > 0 ? threads : 1) * scratch;
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
