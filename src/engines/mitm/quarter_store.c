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
 * which matters at h = 11 (67 million of them).
 *
 * Row sets are independent tasks that share no counter, so the store,
 * the order within each group included, is the same on any number of
 * threads.
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
    for (long r = 0; r < row_sets; r++)
        nq_quarter_rows_list(h, (uint32_t)r, qs->start + ((size_t)r << h), qs->diag);
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
