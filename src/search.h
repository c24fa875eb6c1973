/*
 * search.h - the bitmask search kernels every backtracking engine shares.
 *
 * A partial board is three masks over the columns: `cols` (columns taken),
 * `diag_left` (squares of the next row attacked along down-left diagonals)
 * and `diag_right` (along down-right diagonals).  Bit c stands for column c.
 * The kernels are static inline so each engine gets a copy specialised for
 * its call site.
 */
#ifndef NQ_SEARCH_H
#define NQ_SEARCH_H

#include <stdint.h>

/* Mask of the n board columns; n = 32 must not shift by 32 (undefined). */
static inline uint32_t nq_board_mask(int n)
{
    return n >= 32 ? UINT32_MAX : ((UINT32_C(1) << n) - 1);
}

/*
 * Counts the completions of a board whose first n - rows_left rows are
 * placed.  `blocked_cols` must have every bit >= n set (as well as the taken
 * columns): then ~(cols | left | right) never shows a square off the board,
 * and no per-node AND with the board mask is needed.  Adds the queens it
 * places to *nodes.
 *
 * Iterative DFS with an explicit stack: each level keeps the candidate
 * squares not yet tried and the masks they were derived from.  The last row
 * is never descended into: at the second-to-last row, a placement completes
 * a solution exactly when the last row has a free square (it has at most
 * one, as only one column is left).
 */
static inline uint64_t nq_search_count(int rows_left, uint32_t blocked_cols,
                                       uint32_t diag_left, uint32_t diag_right,
                                       uint64_t *nodes)
{
    if (rows_left <= 0)
        return 1;
    uint32_t free_sq = ~(blocked_cols | diag_left | diag_right);
    if (rows_left == 1) {
        *nodes += free_sq != 0;
        return free_sq != 0;
    }

    uint32_t st_free[32], st_cols[32], st_left[32], st_right[32];
    int depth = 0;                 /* stack height */
    const int last = rows_left - 2; /* depth of the second-to-last row */
    uint32_t cols = blocked_cols, left = diag_left, right = diag_right;
    uint64_t count = 0, placed = 0;

    /* Hot loop: one iteration places one queen or backtracks one row. */
    for (;;) {
        if (free_sq) {
            /* x & -x isolates the lowest set bit: the next square to try. */
            uint32_t bit = free_sq & (0u - free_sq);
            free_sq ^= bit;
            uint32_t ncols = cols | bit;
            /* Diagonals move one column per row: left ones shift up, right down. */
            uint32_t nleft = (left | bit) << 1;
            uint32_t nright = (right | bit) >> 1;
            uint32_t nfree = ~(ncols | nleft | nright);
            placed++;
            if (depth == last) {
                /* nfree is the last row's free squares: 0 or 1 of them. */
                count += nfree != 0;
                placed += nfree != 0;
                continue;
            }
            if (nfree) {
                st_free[depth] = free_sq;
                st_cols[depth] = cols;
                st_left[depth] = left;
                st_right[depth] = right;
                depth++;
                cols = ncols;
                left = nleft;
                right = nright;
                free_sq = nfree;
            }
            continue;
        }
        if (depth == 0)
            break;
        depth--;
        free_sq = st_free[depth];
        cols = st_cols[depth];
        left = st_left[depth];
        right = st_right[depth];
    }
    *nodes += placed;
    return count;
}

#endif /* NQ_SEARCH_H */
