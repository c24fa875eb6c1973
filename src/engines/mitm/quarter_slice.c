/*
 * quarter_slice.c - preparing a quarter's placements on one row set (see
 * quarter_slice.h).
 *
 * From the store, each group of the row set is filtered and converted in
 * one pass: the engine's hot loop, in slice_kernel.c (compiled once per
 * kernel level, picked in kernels.c).  Without a store, two identical
 * depth-first walks over the slice's rows: the first counts each column
 * set's placements, the second writes them in place after a prefix sum,
 * the counters of one row set staying in the L1 cache.  The walk never
 * places a queen on a square the pre-placed queens attack, so it writes
 * exactly what the store path keeps.  The store itself is built by the
 * same walks, with no queen placed beforehand (nq_quarter_rows_list).
 */
#include <string.h>

#include "engines/mitm/kernels.h"
#include "engines/mitm/quarter_slice.h"

/* Per side h, as walking every row set counts them: the most placements
 * on one row set, the most on two disjoint row sets together, and the
 * most in one group (one row set and one column set). */
static const uint32_t max_slice[] = {
    1,     1,      2,      4,      10,     26,      92,       296,
    1174,  5366,   26548,  143140, 788698, 4684690, 29555392,
};
static const uint32_t max_pair[] = {
    2,     2,      4,      7,      16,     38,      116,      360,
    1340,  5600,   26912,  143676, 789454, 4685720, 29565024,
};
static const uint32_t max_group[] = {
    1,     1,      1,      2,      2,      10,      10,       40,
    92,    352,    946,    3571,   15003,  77432,   392804,
};

#define TABLE_SIZE (int)(sizeof max_slice / sizeof max_slice[0])

size_t nq_quarter_slice_capacity(int h)
{
    return h < 0 || h >= TABLE_SIZE ? 0 : max_slice[h];
}

size_t nq_quarter_slice_pair_capacity(int h)
{
    return h < 0 || h >= TABLE_SIZE ? 0 : max_pair[h];
}

size_t nq_quarter_group_capacity(int h)
{
    return h < 0 || h >= TABLE_SIZE ? 0 : max_group[h];
}

void nq_quarter_slice_move(nq_quarter_slice *s, uint64_t *cw, uint64_t *sig, size_t capacity)
{
    if (s->cw == cw && s->sig == sig && s->capacity == capacity)
        return;
    s->cw = cw;
    s->sig = sig;
    s->capacity = capacity;
    s->filled = 0;
}

void nq_quarter_slice_relocate(nq_quarter_slice *s, uint64_t *cw, uint64_t *sig)
{
    s->cw = cw;
    s->sig = sig;
    s->capacity = s->used;
}

size_t nq_quarter_slice_bytes(int h, size_t capacity)
{
    return 2 * ((size_t)1 << h) * sizeof(uint32_t) + 2 * capacity * sizeof(uint64_t);
}

void nq_quarter_slice_init(nq_quarter_slice *s, int h, size_t capacity, void *mem)
{
    s->filled = 0;
    s->used = 0;
    s->capacity = capacity;
    s->cw = mem;
    s->sig = s->cw + capacity;
    s->first = (uint32_t *)(s->sig + capacity);
    s->size = s->first + ((size_t)1 << h);
}

/* The walk over the slice's rows: rows[0 .. k) in increasing order, the
 * columns each row's pre-placed queens attack, and what the leaves do. */
typedef struct slice_walk {
    int h, k;
    int rows[NQ_QUARTER_MAX_H];
    uint32_t blocked[NQ_QUARTER_MAX_H];
    /* 0: count into size[]; 1: write to s at first[] (advancing it), or
     * with diag set, write store entries to diag at size[] (advancing it) */
    int fill;
    uint32_t *size;
    uint64_t *diag;
    nq_quarter_slice *s;
    const nq_quarter_frame *f;
} slice_walk;

/* One placement on the slice's rows: columns cols, local masks l1, l2. */
static inline void visit(const slice_walk *w, uint32_t cols, uint64_t l1, uint64_t l2)
{
    if (!w->fill) {
        w->size[cols]++;
        return;
    }
    if (w->diag) { /* the store's entry (quarter_store.h) */
        w->diag[w->size[cols]++] = l1 | l2 << 32;
        return;
    }
    const uint32_t at = w->s->first[cols]++;
    nq_quarter_convert(w->f, l1, l2, &w->s->cw[at], &w->s->sig[at]);
}

/*
 * Visits every placement on the slice's rows d .. k-1 extending columns
 * cols and local masks l1, l2; a1 and a2 are the columns of row rows[d]
 * that the queens above attack along each diagonal family.  A sum
 * diagonal (i + j) moves one column left per row down, a difference
 * diagonal one right: hence the shifts by the row gap.
 */
static void walk(const slice_walk *w, int d, uint32_t cols, uint32_t a1, uint32_t a2, uint64_t l1,
                 uint64_t l2)
{
    const uint32_t full = (UINT32_C(1) << w->h) - 1;
    const int i = w->rows[d];
    uint32_t free_cols = full & ~(cols | a1 | a2 | w->blocked[d]);
    while (free_cols) {
        const uint32_t bit = free_cols & (0u - free_cols); /* lowest free column */
        free_cols ^= bit;
        const int j = __builtin_ctz(bit);
        const uint64_t n1 = l1 | UINT64_C(1) << (i + j);
        const uint64_t n2 = l2 | UINT64_C(1) << (i - j + w->h - 1);
        if (d + 1 == w->k) {
            visit(w, cols | bit, n1, n2);
            continue;
        }
        const int gap = w->rows[d + 1] - i;
        walk(w, d + 1, cols | bit, (a1 | bit) >> gap, ((a2 | bit) << gap) & full, n1, n2);
    }
}

/* The columns of local row i that the pre-placed queens attack: square
 * (i, j) is on global diagonals i + j + to_global1 and
 * i - j + h - 1 + to_global2. */
static uint32_t blocked_columns(const nq_quarter_frame *f, int h, int i)
{
    uint32_t blocked = 0;
    for (int j = 0; j < h; j++) {
        const int d1 = i + j + f->to_global1, d2 = i - j + h - 1 + f->to_global2;
        blocked |= (uint32_t)((f->p1 >> d1 & 1) | (f->p2 >> d2 & 1)) << j;
    }
    return blocked;
}

/* Lists the rows of the walk, each with its blocked columns, and counts
 * every column set's placements into size[] (2^h entries, zeroed here). */
static void count_walk(slice_walk *w, uint32_t rows)
{
    for (int i = 0; i < w->h; i++)
        if (rows >> i & 1) {
            w->blocked[w->k] = w->f ? blocked_columns(w->f, w->h, i) : 0;
            w->rows[w->k++] = i;
        }
    memset(w->size, 0, ((size_t)1 << w->h) * sizeof *w->size);
    if (w->k == 0) /* the empty placement */
        w->size[0] = 1;
    else
        walk(w, 0, 0, 0, 0, 0, 0);
}

void nq_quarter_slice_count(int h, uint32_t rows, uint32_t *size)
{
    slice_walk w = {.h = h, .k = 0, .fill = 0, .size = size};
    count_walk(&w, rows);
}

void nq_quarter_rows_list(int h, uint32_t rows, uint32_t *next, uint64_t *diag)
{
    slice_walk w = {.h = h, .k = 0, .fill = 1, .size = next, .diag = diag};
    for (int i = 0; i < h; i++)
        if (rows >> i & 1)
            w.rows[w.k++] = i; /* no queen placed beforehand: nothing blocked */
    if (w.k == 0)
        diag[next[0]++] = 0; /* the empty placement */
    else
        walk(&w, 0, 0, 0, 0, 0, 0);
}

/* The slice by two walks over its rows: count, prefix sum, write. */
static void fill_by_walking(nq_quarter_slice *s, int h, uint32_t rows, const nq_quarter_frame *f)
{
    slice_walk w = {.h = h, .k = 0, .fill = 0, .size = s->size, .s = s, .f = f};
    count_walk(&w, rows);
    if (w.k == 0) {
        s->first[0] = 0;
        nq_quarter_convert(f, 0, 0, &s->cw[0], &s->sig[0]);
        s->used = 1;
        return;
    }
    uint32_t at = 0;
    for (uint32_t c = 0; c < (UINT32_C(1) << h); c++) {
        s->first[c] = at;
        at += s->size[c];
    }
    s->used = at;
    w.fill = 1;
    walk(&w, 0, 0, 0, 0, 0, 0);
    for (uint32_t c = 0; c < (UINT32_C(1) << h); c++) /* the writes advanced first[] */
        s->first[c] -= s->size[c];
}

void nq_quarter_slice_fill(nq_quarter_slice *s, const nq_quarter_store *qs, int h, uint32_t rows,
                           const nq_quarter_frame *f)
{
    if (s->filled && s->rows == rows && s->p1 == f->p1 && s->p2 == f->p2)
        return;
    if (qs)
        nq_quarter_slice_fill_store(s, qs, h, rows, f);
    else
        fill_by_walking(s, h, rows, f);
    s->filled = 1;
    s->rows = rows;
    s->p1 = f->p1;
    s->p2 = f->p2;
}
