/*
 * search.h - the bitmask search kernels every backtracking engine shares.
 *
 * A partial board is three masks over the columns: `cols` (columns taken),
 * `diag_left` (squares of the next row attacked along down-left diagonals)
 * and `diag_right` (along down-right diagonals).  Bit c stands for column c.
 * The kernels are static inline so each engine gets a copy specialised for
 * its call site.
 *
 * nq_search_count() is a depth-first search that stops a few rows short of
 * the bottom and hands each board there to a finisher.  Portable C goes
 * down to the last two rows, finished in scalar here.  A build targeting
 * AVX-512 (F and BW) gets the vector finishers of x86/search_avx512.h,
 * which count the last four rows (five when the board fits 16-bit lanes)
 * in one pass; nq_finish_rows() is the one place that calls them.
 */
#ifndef NQ_SEARCH_H
#define NQ_SEARCH_H

#include <stdint.h>

/* The build's finishers: AVX-512 ones when it targets AVX-512F and BW. */
#if defined(__AVX512F__) && defined(__AVX512BW__)
#include "core/x86/search_avx512.h"
#endif

/* The search body is specialised per finisher (a constant argument), which
 * needs it inlined at each of its few call sites. */
#if defined(__GNUC__)
#define NQ_SEARCH_INLINE static inline __attribute__((always_inline))
#else
#define NQ_SEARCH_INLINE static inline
#endif

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
 * Counts the completions of a board with exactly `rows` rows (and as many
 * open columns) left, for rows = 2, or 4 and 5 with AVX-512 (5 only under
 * nq_last_five_rows_narrow()'s conditions): the dispatch point of the
 * finishers.  `rows` is a constant at every call site, so the switch folds
 * away.
 */
NQ_SEARCH_INLINE uint64_t nq_finish_rows(int rows, uint32_t cols, uint32_t diag_left,
                                         uint32_t diag_right)
{
    switch (rows) {
#ifdef NQ_SEARCH_AVX512
    case 5:
        return nq_last_five_rows_narrow(cols, diag_left, diag_right);
    case 4:
        return nq_last_four_rows(cols, diag_left, diag_right);
#endif
    default:
        return nq_last_two_rows(cols, diag_left, diag_right, ~(cols | diag_left | diag_right));
    }
}

/*
 * The search behind nq_search_count(): counts the completions of a board
 * with rows_left >= finish rows left, descending until `finish` rows are
 * left and counting those with nq_finish_rows(finish, ...).  `finish` is a
 * constant at each call site; the masks follow nq_search_count().
 *
 * Iterative DFS with an explicit stack: each level keeps the candidate
 * squares not yet tried and the masks they were derived from.  Every
 * placement in the row above the finisher's rows goes to the finisher.
 */
NQ_SEARCH_INLINE uint64_t nq_search_dfs(int finish, int rows_left, uint32_t blocked_cols,
                                        uint32_t diag_left, uint32_t diag_right)
{
    if (rows_left == finish)
        return nq_finish_rows(finish, blocked_cols, diag_left, diag_right);

    struct level {
        uint32_t free_sq, cols, left, right;
    } stack[32];
    int depth = 0; /* stack height */
    /* Depth of the row just above the finisher's rows. */
    const int last = rows_left - finish - 1;
    uint32_t free_sq = ~(blocked_cols | diag_left | diag_right);
    uint32_t cols = blocked_cols, left = diag_left, right = diag_right;
    uint64_t count = 0;

    /* Hot loop: one iteration places one queen, or finishes the row above
     * the finisher's wholesale, or backtracks one row. */
    for (;;) {
        if (depth == last) {
            while (free_sq) {
                uint32_t bit = free_sq & (0u - free_sq); /* x & -x: lowest candidate */
                free_sq ^= bit;
                /* Diagonals move one column per row: left ones shift up, right down. */
                count += nq_finish_rows(finish, cols | bit, (left | bit) << 1, (right | bit) >> 1);
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

/*
 * Counts the completions of a board whose first n - rows_left rows are
 * placed.  `blocked_cols` must have every bit >= n set (as well as the taken
 * columns): then ~(cols | left | right) never shows a square off the board,
 * and no per-node AND with the board mask is needed.
 *
 * Picks the deepest finisher the build and the board allow: five rows in
 * 16-bit lanes when every open column is below 16, else four rows in 32-bit
 * lanes, else (no AVX-512, or fewer rows) the scalar last two rows.
 */
static inline uint64_t nq_search_count(int rows_left, uint32_t blocked_cols,
                                       uint32_t diag_left, uint32_t diag_right)
{
    if (rows_left <= 0)
        return 1;
    if (rows_left == 1)
        return ~(blocked_cols | diag_left | diag_right) != 0;
#ifdef NQ_SEARCH_AVX512
    /* Bits 16..31 all blocked and no right diagonal up there: the board
     * fits 16-bit lanes (nq_last_five_rows_narrow()). */
    if (rows_left >= 5 && (blocked_cols >> 16) == 0xFFFFu && (diag_right >> 16) == 0)
        return nq_search_dfs(5, rows_left, blocked_cols, diag_left, diag_right);
    if (rows_left >= 4)
        return nq_search_dfs(4, rows_left, blocked_cols, diag_left, diag_right);
#endif
    return nq_search_dfs(2, rows_left, blocked_cols, diag_left, diag_right);
}

#endif /* NQ_SEARCH_H */
