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
 * Counts the ways to finish the last two rows.  `cols` has all but two board
 * columns taken (and every bit >= n set), `free_sq` is the second-to-last
 * row's free squares.  The two open columns are `lo` and `hi`; a queen on
 * one of them in the second-to-last row completes a solution exactly when
 * the other column is not attacked in the last row.  Branch-free: the two
 * outcomes are ANDed as 0/1 values.
 */
static inline uint64_t nq_last_two_rows(uint32_t cols, uint32_t diag_left,
                                        uint32_t diag_right, uint32_t free_sq)
{
    const uint32_t open = ~cols;
    const uint32_t lo = open & (0u - open); /* x & -x: lowest open column */
    const uint32_t hi = open ^ lo;
    const uint32_t attacked_lo = ((diag_left | lo) << 1) | ((diag_right | lo) >> 1);
    const uint32_t attacked_hi = ((diag_left | hi) << 1) | ((diag_right | hi) >> 1);
    const uint64_t via_lo = (uint64_t)((free_sq & lo) != 0) & (uint64_t)((hi & ~attacked_lo) != 0);
    const uint64_t via_hi = (uint64_t)((free_sq & hi) != 0) & (uint64_t)((lo & ~attacked_hi) != 0);
    return via_lo + via_hi;
}

/*
 * Counts the completions of a board whose first n - rows_left rows are
 * placed.  `blocked_cols` must have every bit >= n set (as well as the taken
 * columns): then ~(cols | left | right) never shows a square off the board,
 * and no per-node AND with the board mask is needed.
 *
 * Iterative DFS with an explicit stack: each level keeps the candidate
 * squares not yet tried and the masks they were derived from.  The last two
 * rows are never descended into: every placement in the third-to-last row
 * is finished by nq_last_two_rows(). 
 */
static inline uint64_t nq_search_count(int rows_left, uint32_t blocked_cols,
                                       uint32_t diag_left, uint32_t diag_right)
{
    uint32_t free_sq = ~(blocked_cols | diag_left | diag_right);
    if (rows_left <= 0)
        return 1;
    if (rows_left == 1)
        return free_sq != 0;
    if (rows_left == 2)
        return nq_last_two_rows(blocked_cols, diag_left, diag_right, free_sq);

    struct level {
        uint32_t free_sq, cols, left, right;
    } stack[32];
    int depth = 0;                  /* stack height */
    const int last = rows_left - 3; /* depth of the third-to-last row */
    uint32_t cols = blocked_cols, left = diag_left, right = diag_right;
    uint64_t count = 0;

    /* Hot loop: one iteration places one queen, or finishes a third-to-last
     * row wholesale, or backtracks one row. */
    for (;;) {
        if (depth == last) {
            while (free_sq) {
                uint32_t bit = free_sq & (0u - free_sq); /* x & -x: lowest candidate */
                free_sq ^= bit;
                /* Diagonals move one column per row: left ones shift up, right down. */
                uint32_t ncols = cols | bit, nleft = (left | bit) << 1, nright = (right | bit) >> 1;
                count += nq_last_two_rows(ncols, nleft, nright, ~(ncols | nleft | nright));
            }
        } else if (free_sq) {
            uint32_t bit = free_sq & (0u - free_sq);
            free_sq ^= bit;
            uint32_t ncols = cols | bit, nleft = (left | bit) << 1, nright = (right | bit) >> 1;
            uint32_t nfree = ~(ncols | nleft | nright);
            /* Descend only if the next row has a free square and the row
             * after it is not already fully attacked by the queens placed so
             * far (shifting once more projects their diagonals one row on);
             * the AND with a 0/-1 mask keeps this a single branch. */
            if (nfree & (0u - (uint32_t)(~(ncols | (nleft << 1) | (nright >> 1)) != 0))) {
                stack[depth].free_sq = free_sq;
                stack[depth].cols = cols;
                stack[depth].left = left;
                stack[depth].right = right;
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
        free_sq = stack[depth].free_sq;
        cols = stack[depth].cols;
        left = stack[depth].left;
        right = stack[depth].right;
    }
    return count;
}

#endif /* NQ_SEARCH_H */
