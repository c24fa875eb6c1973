/*
 * full_avx512.h - the full engine's finisher for x86-64 with AVX-512F and
 * AVX-512BW: the last four levels of a constellation in one pass, as
 * core/x86/search_avx512.h finishes the last four rows of a plain board,
 * with each level's border attacks ORed in and the diagonals moved by the
 * row distance between levels.  search.c includes it when core/search.h has
 * the AVX-512 finishers.
 */
#ifndef NQ_FULL_AVX512_H
#define NQ_FULL_AVX512_H

#include <immintrin.h>
#include <stdint.h>

#include "core/x86/search_avx512.h"

#define NQ_FULL_AVX512 1

/* The last four levels' tables, as vectors, for nq_full_last_four(). */
typedef struct nq_full_tail {
    __m512i fixed[4]; /* each level's border attacks, in every lane */
    __m128i shift[3]; /* rows from each level to the next, as shift counts */
} nq_full_tail;

/* Loads the tables of the last four levels: their border attacks fixed[0..3]
 * and the row distances shift[0..2] between them. */
static inline void nq_full_tail_load(nq_full_tail *t, const uint32_t *fixed, const uint8_t *shift)
{
    for (int k = 0; k < 4; k++)
        t->fixed[k] = _mm512_set1_epi32((int)fixed[k]); /* broadcast */
    for (int k = 0; k < 3; k++)
        t->shift[k] = _mm_cvtsi32_si128(shift[k]); /* count for vpslld/vpsrld */
}

/* a | b | c in one instruction: vpternlogd with truth table 0xFE (any set). */
static inline __m512i nq_full_or3(__m512i a, __m512i b, __m512i c)
{
    return _mm512_ternarylogic_epi32(a, b, c, 0xFE);
}

/*
 * Counts the completions of the last four levels of a constellation, given
 * the masks for the first of them: nq_last_four_rows() with each level's
 * border attacks (t->fixed) ORed into its test and the diagonals moved by
 * the row distance between levels (t->shift).  `cols` has exactly four
 * board columns open.  Returns the number of solutions (0 to 24).
 */
static inline uint64_t nq_full_last_four(const nq_full_tail *t, uint32_t cols, uint32_t left,
                                         uint32_t right)
{
    /* Lanes: every order of the four open columns (see search_avx512.h). */
    const nq_four_orders o = nq_four_open_orders(cols);
    const __m512i first = o.first, second = o.second, lo = o.lo, hi = o.hi;
    const __m512i left0 = _mm512_set1_epi32((int)left);
    const __m512i right0 = _mm512_set1_epi32((int)right);

    /* vptestnmd: lane set when the column is not attacked (diagonals or
     * border queens), ANDed with the lanes alive; 12 lanes start alive. */
    __mmask16 alive = _mm512_mask_testn_epi32_mask(
        0x0FFF, _mm512_or_si512(_mm512_set1_epi32((int)(left | right)), t->fixed[0]), first);
    /* Diagonals move one column per row: left up, right down, by the gap. */
    const __m512i left1 = _mm512_sll_epi32(_mm512_or_si512(left0, first), t->shift[0]);
    const __m512i right1 = _mm512_srl_epi32(_mm512_or_si512(right0, first), t->shift[0]);
    alive = _mm512_mask_testn_epi32_mask(alive, nq_full_or3(left1, right1, t->fixed[1]), second);
    const __m512i left2 = _mm512_sll_epi32(_mm512_or_si512(left1, second), t->shift[1]);
    const __m512i right2 = _mm512_srl_epi32(_mm512_or_si512(right1, second), t->shift[1]);
    /* Last two levels: a queen on lo (hi), then hi (lo) unattacked below. */
    const __m512i attacked2 = nq_full_or3(left2, right2, t->fixed[2]);
    const __m512i attacked_lo =
        nq_full_or3(_mm512_sll_epi32(_mm512_or_si512(left2, lo), t->shift[2]),
                    _mm512_srl_epi32(_mm512_or_si512(right2, lo), t->shift[2]), t->fixed[3]);
    const __m512i attacked_hi =
        nq_full_or3(_mm512_sll_epi32(_mm512_or_si512(left2, hi), t->shift[2]),
                    _mm512_srl_epi32(_mm512_or_si512(right2, hi), t->shift[2]), t->fixed[3]);
    __mmask16 via_lo = _mm512_mask_testn_epi32_mask(alive, attacked2, lo);
    via_lo = _mm512_mask_testn_epi32_mask(via_lo, attacked_lo, hi);
    __mmask16 via_hi = _mm512_mask_testn_epi32_mask(alive, attacked2, hi);
    via_hi = _mm512_mask_testn_epi32_mask(via_hi, attacked_hi, lo);
    /* Each surviving lane is one placement order: one solution. */
    return (uint64_t)__builtin_popcount(via_lo) + (uint64_t)__builtin_popcount(via_hi);
}

#endif /* NQ_FULL_AVX512_H */
