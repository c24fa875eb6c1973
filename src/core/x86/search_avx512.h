/*
 * search_avx512.h - the search's finishers for x86-64 with AVX-512F and
 * AVX-512BW (see search.h, which includes this file when the build targets
 * both).
 *
 * A finisher counts the last few rows of a board in one pass: every order
 * of placing the open columns is a vector lane, so the bottom of the tree
 * costs no branches.  Four rows take 12 of the 16 32-bit lanes; five rows
 * take 60 of 64 16-bit lanes (two vectors), when the board fits 16 bits.
 * The full engine builds its own four-row finisher on nq_four_open_orders().
 */
#ifndef NQ_SEARCH_AVX512_H
#define NQ_SEARCH_AVX512_H

#include <immintrin.h>
#include <stdint.h>

#define NQ_SEARCH_AVX512 1

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

/* The 60 ordered triples of five open columns, lexically ordered, and 4
 * idle lanes: triple p = (first[p], second[p], third[p]) indexes the open
 * columns, and lo[p] < hi[p] are the two it leaves. */
static const int16_t nq_five_first[64] __attribute__((aligned(64))) = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0};
static const int16_t nq_five_second[64] __attribute__((aligned(64))) = {
    1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 0, 0, 0, 2, 2, 2, 3, 3, 3, 4, 4, 4, 0, 0, 0, 1, 1, 1, 3, 3,
    3, 4, 4, 4, 0, 0, 0, 1, 1, 1, 2, 2, 2, 4, 4, 4, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0, 0, 0};
static const int16_t nq_five_third[64] __attribute__((aligned(64))) = {
    2, 3, 4, 1, 3, 4, 1, 2, 4, 1, 2, 3, 2, 3, 4, 0, 3, 4, 0, 2, 4, 0, 2, 3, 1, 3, 4, 0, 3, 4, 0, 1,
    4, 0, 1, 3, 1, 2, 4, 0, 2, 4, 0, 1, 4, 0, 1, 2, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2, 0, 0, 0, 0};
static const int16_t nq_five_lo[64] __attribute__((aligned(64))) = {
    3, 2, 2, 3, 1, 1, 2, 1, 1, 2, 1, 1, 3, 2, 2, 3, 0, 0, 2, 0, 0, 2, 0, 0, 3, 1, 1, 3, 0, 0, 1, 0,
    0, 1, 0, 0, 2, 1, 1, 2, 0, 0, 1, 0, 0, 1, 0, 0, 2, 1, 1, 2, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0};
static const int16_t nq_five_hi[64] __attribute__((aligned(64))) = {
    4, 4, 3, 4, 4, 3, 4, 4, 2, 3, 3, 2, 4, 4, 3, 4, 4, 3, 4, 4, 2, 3, 3, 2, 4, 4, 3, 4, 4, 3, 4, 4,
    1, 3, 3, 1, 4, 4, 2, 4, 4, 2, 4, 4, 1, 2, 2, 1, 3, 3, 2, 3, 3, 2, 3, 3, 1, 2, 2, 1, 0, 0, 0, 0};

/* Lanes 32 * half .. 32 * half + 31 of an index table, each replaced by the
 * open column (16-bit lane of open_cols) it names. */
static inline __m512i nq_five_lanes(const int16_t *table, int half, __m512i open_cols)
{
    return _mm512_permutexvar_epi16(_mm512_load_si512(table + 32 * half), open_cols);
}

/*
 * Counts the ways to finish the last five rows of a board whose columns all
 * lie below 16: `cols` has exactly five columns open, all below bit 16, and
 * `diag_right` has no bit >= 16.  Then 16-bit lanes hold every board bit:
 * left diagonals shifted past bit 15 are off the board anyway, and right
 * diagonals never have higher bits to shift down.  Lane p of two 32-lane
 * vectors tries ordered triple p of the open columns (the nq_five_
 * tables) for the first three rows, and finishes the last two on the
 * columns left over.  Returns the number of solutions.
 */
static inline uint64_t nq_last_five_rows_narrow(uint32_t cols, uint32_t diag_left,
                                                uint32_t diag_right)
{
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
        const __m512i first = nq_five_lanes(nq_five_first, half, open_cols);
        const __m512i second = nq_five_lanes(nq_five_second, half, open_cols);
        const __m512i third = nq_five_lanes(nq_five_third, half, open_cols);
        const __m512i lo = nq_five_lanes(nq_five_lo, half, open_cols);
        const __m512i hi = nq_five_lanes(nq_five_hi, half, open_cols);
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

#endif /* NQ_SEARCH_AVX512_H */
