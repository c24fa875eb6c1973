/*
 * quarter_store.c - building the quarter store (see quarter_store.h).
 *
 * Row set by row set, by the walk that fills slices (quarter_slice.c):
 * first every row set's placements are counted per column set, straight
 * into the offset table, then after a prefix sum each row set writes its
 * placements in place.  A row set's groups are adjacent, so its writes
 * stay within its own stretch of the store (a few hundred KiB at h = 11)
 * and in the cache, where a walk over all rows at once meets a row set's
 * placements at scattered times and misses the cache on nearly every
 * write.
 * Walking twice costs a little time but never holds the placements twice,
 * which matters at h = 11 (67 million of them).  Only the lesser row set
 * of each top-bottom mirror pair is walked; the other's groups are the
 * same placements reflected, written from them (write_mirror).
 *
 * Mirror pairs of row sets are independent tasks that share no counter,
 * so the store, the order within each group included, is the same on any
 * number of threads.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/mitm/quarter_slice.h"
#include "engines/mitm/quarter_store.h"
#include "nqueens/nqueens.h"

/* Placements per side h, as this builder counts them (h = 0 holds only the
 * empty placement). */
static const uint64_t known_placements[] = {
    1, 2, 5, 18, 87, 462, 2635, 16870, 118969, 915442, 7535369, 66807234,
};

/* The largest side with a store: past it the offsets overflow 32 bits. */
#define NQ_QUARTER_STORE_MAX_H 11
_Static_assert(sizeof known_placements / sizeof known_placements[0] == NQ_QUARTER_STORE_MAX_H + 1,
               "one count per side with a store");

/* Smallest side built in parallel: below it the store takes well under a
 * millisecond. */
#define NQ_QUARTER_PARALLEL_H 8

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

static int parallel(int h, int threads)
{
    return h >= NQ_QUARTER_PARALLEL_H && threads > 1;
}

void nq_quarter_group_sizes(int h, int threads, uint32_t *size)
{
    const long row_sets = 1L << h;
    const size_t row_groups = (size_t)1 << h;
    (void)threads;
    /* Reflecting the quarter top to bottom maps the placements on a row
     * set onto those on its mirror, each keeping its columns: the two
     * have the same group sizes, so only the lesser of each pair is
     * walked and the other copied, after the barrier that ends the walks. */
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) if (parallel(h, threads))
#endif
    {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
        for (long r = 0; r < row_sets; r++)
            if (nq_mirror_rows((uint32_t)r, h) >= (uint32_t)r)
                nq_quarter_slice_count(h, (uint32_t)r, size + ((size_t)r << h));
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (long r = 0; r < row_sets; r++) {
            const uint32_t m = nq_mirror_rows((uint32_t)r, h);
            if (m < (uint32_t)r)
                memcpy(size + ((size_t)r << h), size + ((size_t)m << h),
                       row_groups * sizeof *size);
        }
    }
}

/* x's bits 0 .. 2h - 2 in reverse order: bit d goes to bit 2h - 2 - d. */
static uint64_t reverse_diagonals(uint64_t x, int h)
{
    uint32_t v = (uint32_t)x;
    /* Bit trick: swap halves, then bytes, nibbles, pairs and single bits:
     * five steps reverse all 32 bits, and the shift drops the bits past
     * 2h - 2 that the reversal brought in as zeros. */
    v = v >> 16 | v << 16;
    v = (v & 0xff00ff00u) >> 8 | (v & 0x00ff00ffu) << 8;
    v = (v & 0xf0f0f0f0u) >> 4 | (v & 0x0f0f0f0fu) << 4;
    v = (v & 0xccccccccu) >> 2 | (v & 0x33333333u) << 2;
    v = (v & 0xaaaaaaaau) >> 1 | (v & 0x55555555u) << 1;
    return v >> (33 - 2 * h);
}

/* Writes the groups of row set m, the top-bottom mirror of row set r,
 * from r's: group (r, c) holds diag[first[c] .. end[c]), and (m, c), as
 * large, begins at to[c] (both advanced here to the groups' ends, as
 * nq_quarter_rows_list leaves its own).  Reflecting row i to h - 1 - i
 * keeps every queen's column and turns the sum diagonal i + j into
 * 2h - 2 minus the difference diagonal i - j + h - 1, and that into
 * 2h - 2 minus the sum one: each entry's two masks swap and reverse.  A
 * copy in place of a walk halves the fill's walks, half of the store's
 * build, as nq_quarter_group_sizes halves the counting ones. */
static void write_mirror(uint64_t *diag, int h, const uint32_t *first, const uint32_t *end,
                         uint32_t *to)
{
    for (size_t c = 0; c < ((size_t)1 << h); c++) {
        for (uint32_t k = first[c]; k < end[c]; k++) {
            const uint64_t e = diag[k];
            diag[to[c]++] = reverse_diagonals(e >> 32, h) | reverse_diagonals(e, h) << 32;
        }
    }
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
    nq_quarter_group_sizes(h, threads, qs->start + 1);
    for (size_t k = 0; k < keys; k++) /* start[k + 1] = end of group k */
        qs->start[k + 1] += qs->start[k];
    qs->placements = qs->start[keys];
    qs->diag = malloc((qs->placements ? qs->placements : 1) * sizeof *qs->diag);
    if (!qs->diag) {
        nq_quarter_store_free(qs);
        return NQ_ENOMEM;
    }
    const long row_sets = 1L << h;
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (parallel(h, threads))
#endif
    for (long r = 0; r < row_sets; r++) {
        const uint32_t m = nq_mirror_rows((uint32_t)r, h);
        if (m < (uint32_t)r)
            continue; /* written with its mirror */
        uint32_t *next = qs->start + ((size_t)r << h), first[(size_t)1 << NQ_QUARTER_STORE_MAX_H];
        memcpy(first, next, ((size_t)1 << h) * sizeof *first);
        nq_quarter_rows_list(h, (uint32_t)r, next, qs->diag);
        if (m != (uint32_t)r)
            write_mirror(qs->diag, h, first, next, qs->start + ((size_t)m << h));
    }
    /* The writes advanced start[k] to the end of group k, which is where
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
