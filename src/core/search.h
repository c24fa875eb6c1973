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
 * the bottom and hands each board there to a finisher.  Built for AVX-512
 * (F and BW), the finishers count the last four rows (five when the board
 * fits 16-bit lanes) in one pass: every order of placing the open columns
 * is a vector lane, so the bottom of the tree costs no branches.  Without
 * AVX-512 the search goes down to the last two rows, finished in scalar.
 */
#ifndef NQ_SEARCH_H
#define NQ_SEARCH_H

#include <stdint.h>

#if defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>
#define NQ_SEARCH_AVX512 1
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

#ifdef NQ_SEARCH_AVX512
/* The orders in which the four open columns of a board can take its last
 * four rows, one per lane: lane p (p < 12) puts `first` and `second` of the
 * p-th ordered pair on the first two rows and leaves `lo` and `hi` (the
 * other two, ascending) for the last two.  Lanes 12..15 are idle. */
typedef struct nq_four_orders {
    __m512i first, second, lo, hi;
} nq_four_orders;

/* Fills the lanes of nq_four_orders for a `cols` with exactly four board
 * columns open (and every bit >= n set). */
static inline nq_four_orders nq_four_open_orders(uint32_t cols)
{
    uint32_t open = ~cols;
    /* x & -x isolates the lowest open column; XOR removes it. */
    const uint64_t c0 = open & (0u - open);
    open ^= (uint32_t)c0;
    const uint64_t c1 = open & (0u - open);
    open ^= (uint32_t)c1;
    const uint64_t c2 = open & (0u - open);
    const uint64_t c3 = open ^ (uint32_t)c2;
    /* 32-bit lanes 0..3 hold c0..c3 (packed two per 64-bit half), copied to
     * every 128-bit block so vpermd may index 0..3. */
    const __m512i open_cols = _mm512_broadcast_i32x4(
        _mm_set_epi64x((long long)(c2 | c3 << 32), (long long)(c0 | c1 << 32)));
    /* Lane p: columns (first, second) of the p-th ordered pair, and the
     * other two in ascending order (lo, hi).  _mm512_set_epi32 lists lane 15
     * first. */
    const __m512i first_idx = _mm512_set_epi32(0, 0, 0, 0, 3, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0);
    const __m512i second_idx = _mm512_set_epi32(0, 0, 0, 0, 2, 1, 0, 3, 1, 0, 3, 2, 0, 3, 2, 1);
    const __m512i lo_idx = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 2, 1, 1, 2);
    const __m512i hi_idx = _mm512_set_epi32(0, 0, 0, 0, 1, 2, 2, 1, 3, 3, 2, 3, 3, 2, 3, 3);
    const __m512i first = _mm512_permutexvar_epi32(first_idx, open_cols);
    const __m512i second = _mm512_permutexvar_epi32(second_idx, open_cols);
    const __m512i lo = _mm512_permutexvar_epi32(lo_idx, open_cols);
    const __m512i hi = _mm512_permutexvar_epi32(hi_idx, open_cols);
    return (nq_four_orders){first, second, lo, hi};
}

/*
 * Counts the ways to finish the last four rows.  `cols` has exactly four
 * board columns open (and every bit >= n set); `diag_left`/`diag_right`
 * attack the first of the four rows.  Lane p of the 16 tries ordered pair
 * p of the open columns (12 pairs, lanes 12..15 idle) for the first two
 * rows, and finishes the last two rows as nq_last_two_rows() does, on the
 * two columns left over.  Returns the number of solutions (0 to 24).
 */
static inline uint64_t nq_last_four_rows(uint32_t cols, uint32_t diag_left, uint32_t diag_right)
{
    const nq_four_orders o = nq_four_open_orders(cols);
    const __m512i first = o.first, second = o.second, lo = o.lo, hi = o.hi;
    const __m512i left0 = _mm512_set1_epi32((int)diag_left);
    const __m512i right0 = _mm512_set1_epi32((int)diag_right);

    /* vptestnmd: lane set when (a & b) == 0, i.e. the column is not
     * attacked; the write mask ANDs in the lanes still alive.  Open columns
     * are never in `cols`, so only the diagonals need testing. */
    __mmask16 alive = _mm512_mask_testn_epi32_mask(0x0FFF, _mm512_or_si512(left0, right0), first);
    /* Diagonals move one column per row: left ones shift up, right down. */
    const __m512i left1 = _mm512_slli_epi32(_mm512_or_si512(left0, first), 1);
    const __m512i right1 = _mm512_srli_epi32(_mm512_or_si512(right0, first), 1);
    alive = _mm512_mask_testn_epi32_mask(alive, _mm512_or_si512(left1, right1), second);
    const __m512i left2 = _mm512_slli_epi32(_mm512_or_si512(left1, second), 1);
    const __m512i right2 = _mm512_srli_epi32(_mm512_or_si512(right1, second), 1);
    /* Last two rows, as in nq_last_two_rows(): a queen on lo (hi) in the
     * third row, then hi (lo) unattacked in the fourth. */
    const __m512i attacked2 = _mm512_or_si512(left2, right2);
    const __m512i attacked_lo = _mm512_or_si512(_mm512_slli_epi32(_mm512_or_si512(left2, lo), 1),
                                                _mm512_srli_epi32(_mm512_or_si512(right2, lo), 1));
    const __m512i attacked_hi = _mm512_or_si512(_mm512_slli_epi32(_mm512_or_si512(left2, hi), 1),
                                                _mm512_srli_epi32(_mm512_or_si512(right2, hi), 1));
    __mmask16 via_lo = _mm512_mask_testn_epi32_mask(alive, attacked2, lo);
    via_lo = _mm512_mask_testn_epi32_mask(via_lo, attacked_lo, hi);
    __mmask16 via_hi = _mm512_mask_testn_epi32_mask(alive, attacked2, hi);
    via_hi = _mm512_mask_testn_epi32_mask(via_hi, attacked_hi, lo);
    /* Each lane is one placement order: a solution per set bit. */
    return (uint64_t)__builtin_popcount(via_lo) + (uint64_t)__builtin_popcount(via_hi);
}

/*
 * Counts the ways to finish the last five rows of a board whose columns all
 * lie below 16: `cols` has exactly five columns open, all below bit 16, and
 * `diag_right` has no bit >= 16.  Then 16-bit lanes hold every board bit:
 * left diagonals shifted past bit 15 are off the board anyway, and right
 * diagonals never have higher bits to shift down.  Lane p of two 32-lane
 * vectors tries ordered triple p of the open columns (60 triples, lexically
 * ordered; lanes 60..63 idle) for the first three rows, and finishes the
 * last two on the columns left over.  Returns the number of solutions.
 */
static inline uint64_t nq_last_five_rows_narrow(uint32_t cols, uint32_t diag_left,
                                                uint32_t diag_right)
{
    /* Triple p = (first[p], second[p], third[p]) indexes the open columns;
     * lo[p] < hi[p] are the two it leaves. */
    static const int16_t first_idx[64] __attribute__((aligned(64))) = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2,
        2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0};
    static const int16_t second_idx[64] __attribute__((aligned(64))) = {
        1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 0, 0, 0, 2, 2, 2, 3, 3, 3, 4, 4, 4, 0, 0, 0, 1, 1, 1, 3, 3,
        3, 4, 4, 4, 0, 0, 0, 1, 1, 1, 2, 2, 2, 4, 4, 4, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0, 0, 0};
    static const int16_t third_idx[64] __attribute__((aligned(64))) = {
        2, 3, 4, 1, 3, 4, 1, 2, 4, 1, 2, 3, 2, 3, 4, 0, 3, 4, 0, 2, 4, 0, 2, 3, 1, 3, 4, 0, 3, 4, 0, 1,
        4, 0, 1, 3, 1, 2, 4, 0, 2, 4, 0, 1, 4, 0, 1, 2, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2, 0, 0, 0, 0};
    static const int16_t lo_idx[64] __attribute__((aligned(64))) = {
        3, 2, 2, 3, 1, 1, 2, 1, 1, 2, 1, 1, 3, 2, 2, 3, 0, 0, 2, 0, 0, 2, 0, 0, 3, 1, 1, 3, 0, 0, 1, 0,
        0, 1, 0, 0, 2, 1, 1, 2, 0, 0, 1, 0, 0, 1, 0, 0, 2, 1, 1, 2, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0};
    static const int16_t hi_idx[64] __attribute__((aligned(64))) = {
        4, 4, 3, 4, 4, 3, 4, 4, 2, 3, 3, 2, 4, 4, 3, 4, 4, 3, 4, 4, 2, 3, 3, 2, 4, 4, 3, 4, 4, 3, 4, 4,
        1, 3, 3, 1, 4, 4, 2, 4, 4, 2, 4, 4, 1, 2, 2, 1, 3, 3, 2, 3, 3, 2, 3, 3, 1, 2, 2, 1, 0, 0, 0, 0};

    uint32_t open = ~cols;
    /* x & -x isolates the lowest open column; XOR removes it. */
    const uint64_t c0 = open & (0u - open);
    open ^= (uint32_t)c0;
    const uint64_t c1 = open & (0u - open);
    open ^= (uint32_t)c1;
    const uint64_t c2 = open & (0u - open);
    open ^= (uint32_t)c2;
    const uint64_t c3 = open & (0u - open);
    const uint64_t c4 = open ^ (uint32_t)c3;
    /* 16-bit lanes 0..4 hold c0..c4 (four packed in the low 64 bits); the
     * tables index nothing higher. */
    const __m512i open_cols = _mm512_zextsi128_si512(
        _mm_set_epi64x((long long)c4, (long long)(c0 | c1 << 16 | c2 << 32 | c3 << 48)));
    /* Truncating to 16 bits drops only bits >= 16 (see above). */
    const __m512i left0 = _mm512_set1_epi16((short)diag_left);
    const __m512i right0 = _mm512_set1_epi16((short)diag_right);
    const __m512i attacked0 = _mm512_or_si512(left0, right0);
    uint64_t count = 0;

    for (int half = 0; half < 2; half++) {
        const __m512i first = _mm512_permutexvar_epi16(_mm512_load_si512(first_idx + 32 * half), open_cols);
        const __m512i second = _mm512_permutexvar_epi16(_mm512_load_si512(second_idx + 32 * half), open_cols);
        const __m512i third = _mm512_permutexvar_epi16(_mm512_load_si512(third_idx + 32 * half), open_cols);
        const __m512i lo = _mm512_permutexvar_epi16(_mm512_load_si512(lo_idx + 32 * half), open_cols);
        const __m512i hi = _mm512_permutexvar_epi16(_mm512_load_si512(hi_idx + 32 * half), open_cols);
        /* vptestnmw: lane set when the column is not attacked, ANDed with
         * the lanes still alive (lanes 60..63 start dead). */
        __mmask32 alive = _mm512_mask_testn_epi16_mask(half ? 0x0FFFFFFFu : 0xFFFFFFFFu, attacked0, first);
        /* Diagonals move one column per row: left ones shift up, right down. */
        const __m512i left1 = _mm512_slli_epi16(_mm512_or_si512(left0, first), 1);
        const __m512i right1 = _mm512_srli_epi16(_mm512_or_si512(right0, first), 1);
        alive = _mm512_mask_testn_epi16_mask(alive, _mm512_or_si512(left1, right1), second);
        const __m512i left2 = _mm512_slli_epi16(_mm512_or_si512(left1, second), 1);
        const __m512i right2 = _mm512_srli_epi16(_mm512_or_si512(right1, second), 1);
        alive = _mm512_mask_testn_epi16_mask(alive, _mm512_or_si512(left2, right2), third);
        const __m512i left3 = _mm512_slli_epi16(_mm512_or_si512(left2, third), 1);
        const __m512i right3 = _mm512_srli_epi16(_mm512_or_si512(right2, third), 1);
        /* Last two rows, as in nq_last_two_rows(). */
        const __m512i attacked3 = _mm512_or_si512(left3, right3);
        const __m512i attacked_lo = _mm512_or_si512(_mm512_slli_epi16(_mm512_or_si512(left3, lo), 1),
                                                    _mm512_srli_epi16(_mm512_or_si512(right3, lo), 1));
        const __m512i attacked_hi = _mm512_or_si512(_mm512_slli_epi16(_mm512_or_si512(left3, hi), 1),
                                                    _mm512_srli_epi16(_mm512_or_si512(right3, hi), 1));
        __mmask32 via_lo = _mm512_mask_testn_epi16_mask(alive, attacked3, lo);
        via_lo = _mm512_mask_testn_epi16_mask(via_lo, attacked_lo, hi);
        __mmask32 via_hi = _mm512_mask_testn_epi16_mask(alive, attacked3, hi);
        via_hi = _mm512_mask_testn_epi16_mask(via_hi, attacked_hi, lo);
        /* Each lane is one placement order: a solution per set bit. */
        count += (uint64_t)__builtin_popcount(via_lo) + (uint64_t)__builtin_popcount(via_hi);
    }
    return count;
}
#endif /* NQ_SEARCH_AVX512 */

/*
 * Counts the completions of a board with exactly `rows` rows (and as many
 * open columns) left, for rows = 2, or 4 and 5 with AVX-512 (5 only under
 * nq_last_five_rows_narrow()'s conditions).  `rows` is a constant at every
 * call site, so the switch folds away.
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
