/*
 * quarter_store.h - every non-attacking placement of 0..h queens on an h x h
 * board, grouped by (occupied rows, occupied columns).
 *
 * The meet-in-the-middle engine cuts the board into four h x h quarters.
 * All four are translates of one h x h board, so one store, built once per
 * job and shared read-only by every thread, serves them all: a quarter only
 * shifts the stored local diagonal masks to its place on the real board.
 */
#ifndef NQ_QUARTER_STORE_H
#define NQ_QUARTER_STORE_H

#include <stddef.h>
#include <stdint.h>

/* Largest quarter side the store supports: local diagonal masks (2h - 1
 * bits) must fit the 32-bit halves of a packed word. */
#define NQ_QUARTER_MAX_H 16

typedef struct nq_quarter_store {
    int h;
    uint64_t placements; /* entries in diag[] */
    /* Group key = rows << h | cols, so the groups of one row set are
     * adjacent (a unit walks all column sets of a few row sets).  Group k
     * is diag[start[k] .. start[k+1]). */
    uint32_t *start;     /* 4^h + 1 offsets */
    /* Per placement: bits 0..31 the local "sum" diagonals (bit i + j),
     * bits 32..63 the local "difference" diagonals (bit i - j + h - 1),
     * for queens at local (row i, column j). */
    uint64_t *diag;
} nq_quarter_store;

/* The low `width` bits of x in reverse order: a set of rows of a board
 * `width` rows high, reflected top to bottom (a quarter's row set here,
 * the 2h rows of a unit's east set E in units.c; a quarter's row or
 * column set for the ranks of mitm_plan.h). */
static inline uint32_t nq_mirror_rows(uint32_t x, int width)
{
    uint32_t m = 0;
    for (int i = 0; i < width; i++)
        m |= (x >> i & 1) << (width - 1 - i);
    return m;
}

/* Builds the store for side h (0 <= h <= NQ_QUARTER_MAX_H, and small enough
 * that the placements fit 32-bit offsets) on up to `threads` threads.  The
 * store, the order within each group included, does not depend on the
 * thread count.  Returns 0, NQ_ENOMEM, or NQ_EUNSUPPORTED for h out of
 * range. */
int nq_quarter_store_build(nq_quarter_store *qs, int h, int threads);

/* The size of every group of side h (0 <= h <= NQ_QUARTER_MAX_H) into
 * size[rows << h | cols] (4^h entries), as the store would hold them, by
 * walking the row sets on up to `threads` threads, without storing any
 * placement: what the boards too large for a store price their units by. */
void nq_quarter_group_sizes(int h, int threads, uint32_t *size);

/* Frees the store's arrays (accepts a zeroed or freed store). */
void nq_quarter_store_free(nq_quarter_store *qs);

/* Placements a store of side h holds, from a table of what building it
 * gives; 0 when h is outside the table. */
uint64_t nq_quarter_store_placements(int h);

/* Bytes a store of side h occupies (offset table plus placements). */
size_t nq_quarter_store_bytes(int h);

/* The group of (rows, cols): sets *first to its first placement and
 * returns its size. */
static inline uint32_t nq_quarter_group(const nq_quarter_store *qs, uint32_t rows,
                                        uint32_t cols, const uint64_t **first)
{
    const uint32_t key = rows << qs->h | cols;
    *first = qs->diag + qs->start[key];
    return qs->start[key + 1] - qs->start[key];
}

#endif /* NQ_QUARTER_STORE_H */
