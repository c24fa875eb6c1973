/*
 * quarter_slice.h - one quarter's placements on one row set, prepared for
 * pairing into half-boards.
 *
 * A unit of the meet-in-the-middle engine uses, in each of the four
 * quarters, only the placements on the rows that quarter holds in the
 * unit: a slice.  Preparing a slice keeps the placements that miss the
 * queens placed beforehand and turns each into its conflict word and its
 * signature (half_kernels.h), grouped by column set, so the pairing loop
 * only reads and ANDs.  A slice comes from the quarter store when the job
 * has one, else from a walk of just its rows, which needs no store at all:
 * what lets the engine count boards whose store would not fit in memory.
 * Each thread keeps the last slice of each quarter, and consecutive units
 * often share a quarter's rows.
 */
#ifndef NQ_QUARTER_SLICE_H
#define NQ_QUARTER_SLICE_H

#include <stddef.h>
#include <stdint.h>

#include "engines/mitm/half_kernels.h"
#include "engines/mitm/quarter_store.h"

typedef struct nq_quarter_slice {
    /* What it holds: the row set and the pre-placed diagonals it avoids. */
    int filled;
    uint32_t rows;
    uint64_t p1, p2;
    /* Group of column set c (only the sets of popcount(rows) columns are
     * set): cw[first[c] .. first[c] + size[c]) and the same of sig. */
    uint32_t *first, *size; /* 2^h each */
    uint64_t *cw, *sig;     /* capacity each */
    size_t capacity;
    size_t used;            /* placements held: the groups fill cw[0 .. used) */
} nq_quarter_slice;

/* Bytes of the arrays of one slice for side h and the given capacity. */
size_t nq_quarter_slice_bytes(int h, size_t capacity);

/* Points the slice's arrays into mem (nq_quarter_slice_bytes of it, 8-byte
 * aligned) and marks it empty.  With capacity 0, mem holds only the group
 * index, and nq_quarter_slice_move() gives the slice its placements. */
void nq_quarter_slice_init(nq_quarter_slice *s, int h, size_t capacity, void *mem);

/* Points the slice's placements at cw and sig (capacity each); when they
 * are not where they were, the slice is marked empty.  Two slices on
 * disjoint row sets can share one buffer this way, the second starting
 * where the first one's `used` ends (nq_quarter_slice_pair_capacity). */
void nq_quarter_slice_move(nq_quarter_slice *s, uint64_t *cw, uint64_t *sig, size_t capacity);

/* Points the slice at cw and sig, where its placements have been copied
 * (its `used` of each): it keeps them, with room for no more. */
void nq_quarter_slice_relocate(nq_quarter_slice *s, uint64_t *cw, uint64_t *sig);

/*
 * Makes s hold the placements of the quarter with frame f on `rows` (a row
 * set of the h x h board) that miss f->p1 and f->p2, unless it holds them
 * already: from the store qs when it is not NULL, else by walking those
 * rows.  The slice must have room for every placement on those rows
 * (nq_quarter_slice_capacity); the groups and their contents do not depend
 * on the source, their order may.  The frame's fields other than p1 and p2
 * must be the same at every call on one slice.
 */
void nq_quarter_slice_fill(nq_quarter_slice *s, const nq_quarter_store *qs, int h, uint32_t rows,
                           const nq_quarter_frame *f);

/* Counts the placements on `rows` (no queen placed beforehand) of each
 * column set into size[0 .. 2^h), by the walk that fills slices. */
void nq_quarter_slice_count(int h, uint32_t rows, uint32_t *size);

/* Writes every placement on `rows` (no queen placed beforehand) as a
 * store entry (quarter_store.h), the n-th of column set c to
 * diag[next[c] + n], advancing next[c] past them: the walk that counts
 * them for nq_quarter_slice_count, in the same order. */
void nq_quarter_rows_list(int h, uint32_t rows, uint32_t *next, uint64_t *diag);

/* The most placements any row set of side h has (the capacity a slice
 * needs), from a table of what walking every row set gives; 0 when h is
 * outside the table. */
size_t nq_quarter_slice_capacity(int h);

/* The most placements two disjoint row sets of side h have together, and
 * so the most that two slices on disjoint row sets hold (a unit's west and
 * east quarters of one half of the board), whichever pre-placed queens
 * they avoid (a walk that avoids them keeps a subset); 0 outside the
 * table. */
size_t nq_quarter_slice_pair_capacity(int h);

/* The most placements of one group (one row set, one column set) of side
 * h; 0 outside the table. */
size_t nq_quarter_group_capacity(int h);

#endif /* NQ_QUARTER_SLICE_H */
