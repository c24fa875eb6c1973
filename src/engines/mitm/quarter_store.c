/*
 * quarter_store.c - building the quarter store (see quarter_store.h).
 *
 * Two identical depth-first walks over the rows: the first counts the
 * placements of each (rows, cols) group, the second writes them in place
 * after a prefix sum.  Walking twice costs a little time but never holds
 * the placements twice, which matters at h = 11 (67 million of them).
 *
 * From h = 8 on, both walks run in parallel, one task per choice for the
 * first two rows; tasks meet only in the shared counters, which they bump
 * atomically.  The order of the placements within a group then depends on
 * timing; nothing depends on that order (a unit's count is a sum over
 * pairs), and sorting the groups to fix it would cost as much as the walks.
 */
#include <stdlib.h>

#include "engines/mitm/quarter_store.h"
#include "nqueens/nqueens.h"

/* Placements per side h, as this builder counts them (h = 0 holds only the
 * empty placement). */
static const uint64_t known_placements[] = {
    1, 2, 5, 18, 87, 462, 2635, 16870, 118969, 915442, 7535369, 66807234,
};

/* Smallest side built in parallel: below it the store takes well under a
 * millisecond. */
#define NQ_QUARTER_PARALLEL_H 8

/* A placement of the first rows: where a task's walk starts. */
typedef struct prefix {
    uint32_t rows, cols, d1, d2;
} prefix;

typedef struct walk {
    int h;
    int stop;          /* rows 0 .. stop-1 make a placement: h, or 2 to list prefixes */
    int fill;          /* 0: count into start[key + 1]; 1: write diag[] */
    int shared;        /* other threads walk too: bump counters atomically */
    uint32_t *start;
    uint64_t *diag;
    prefix *prefixes;  /* stop < h: where the placements of the first rows go */
    int *prefix_count;
} walk;

/* Visits every placement on rows i..stop-1 extending (rows, cols, d1, d2). */
static void walk_rows(const walk *w, int i, uint32_t rows, uint32_t cols, uint32_t d1, uint32_t d2)
{
    if (i == w->stop) {
        if (w->prefixes) {
            w->prefixes[(*w->prefix_count)++] = (prefix){rows, cols, d1, d2};
            return;
        }
        const uint32_t key = rows << w->h | cols;
        const uint64_t placement = (uint64_t)d1 | (uint64_t)d2 << 32;
        /* Relaxed atomics: tasks share only these counters, and the end of
         * the parallel region orders them before anyone reads them. */
        if (w->shared && w->fill)
            w->diag[__atomic_fetch_add(&w->start[key], 1, __ATOMIC_RELAXED)] = placement;
        else if (w->shared)
            __atomic_fetch_add(&w->start[key + 1], 1, __ATOMIC_RELAXED);
        else if (w->fill)
            w->diag[w->start[key]++] = placement;
        else
            w->start[key + 1]++;
        return;
    }
    walk_rows(w, i + 1, rows, cols, d1, d2); /* row i stays empty */
    for (int j = 0; j < w->h; j++) {
        const uint32_t s = UINT32_C(1) << (i + j);         /* sum diagonal */
        const uint32_t d = UINT32_C(1) << (i - j + w->h - 1); /* difference diagonal */
        if (!(cols >> j & 1) && !(d1 & s) && !(d2 & d))
            walk_rows(w, i + 1, rows | UINT32_C(1) << i, cols | UINT32_C(1) << j, d1 | s, d2 | d);
    }
}

/* One walk over the whole board, split over `threads` when h is large: the
 * same walk first lists the placements of rows 0 and 1 (each row empty or
 * holding one queen), and each becomes a task that walks the rows below. */
static void walk_all(walk *w, int threads)
{
    w->shared = w->h >= NQ_QUARTER_PARALLEL_H && threads > 1;
    w->stop = w->h;
    if (!w->shared) {
        walk_rows(w, 0, 0, 0, 0, 0);
        return;
    }
    prefix firsts[(NQ_QUARTER_MAX_H + 1) * (NQ_QUARTER_MAX_H + 1)];
    int count = 0;
    walk_rows(&(walk){.h = w->h, .stop = 2, .prefixes = firsts, .prefix_count = &count}, 0, 0, 0,
              0, 0);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
#endif
    for (int t = 0; t < count; t++)
        walk_rows(w, 2, firsts[t].rows, firsts[t].cols, firsts[t].d1, firsts[t].d2);
}

uint64_t nq_quarter_store_placements(int h)
{
    if (h < 0 || h >= (int)(sizeof known_placements / sizeof known_placements[0]))
        return 0;
    return known_placements[h];
}

size_t nq_quarter_store_bytes(int h)
{
    if (h < 0 || h > NQ_QUARTER_MAX_H)
        return 0;
    return (((size_t)1 << 2 * h) + 1) * sizeof(uint32_t) +
           (size_t)nq_quarter_store_placements(h) * sizeof(uint64_t);
}

int nq_quarter_store_build(nq_quarter_store *qs, int h, int threads)
{
    qs->h = h;
    qs->placements = 0;
    qs->start = NULL;
    qs->diag = NULL;
    /* Offsets are 32-bit: refuse sides whose store would overflow them. */
    if (h < 0 || h > NQ_QUARTER_MAX_H || nq_quarter_store_placements(h) == 0 ||
        nq_quarter_store_placements(h) > UINT32_MAX)
        return NQ_EUNSUPPORTED;
    const size_t keys = (size_t)1 << 2 * h;
    qs->start = calloc(keys + 1, sizeof *qs->start);
    if (!qs->start)
        return NQ_ENOMEM;
    walk w = {.h = h, .fill = 0, .start = qs->start};
    walk_all(&w, threads);
    for (size_t k = 0; k < keys; k++) /* start[k + 1] = end of group k */
        qs->start[k + 1] += qs->start[k];
    qs->placements = qs->start[keys];
    qs->diag = malloc((qs->placements ? qs->placements : 1) * sizeof *qs->diag);
    if (!qs->diag) {
        nq_quarter_store_free(qs);
        return NQ_ENOMEM;
    }
    w.fill = 1;
    w.diag = qs->diag;
    walk_all(&w, threads);
    /* The fill advanced start[k] to the end of group k, which is where
     * group k + 1 starts: shift back by one slot. */
    for (size_t k = keys; k > 0; k--)
        qs->start[k] = qs->start[k - 1];
    qs->start[0] = 0;
    return 0;
}

void nq_quarter_store_free(nq_quarter_store *qs)
{
    free(qs->start);
    free(qs->diag);
    qs->start = NULL;
    qs->diag = NULL;
    qs->placements = 0;
}
