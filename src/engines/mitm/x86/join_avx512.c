/*
 * join_avx512.c - the join's loops for x86-64 with AVX-512F and VPOPCNTDQ
 * (see join_kernels.h): a 512-bit block set is one register, so a query
 * costs one load and AND per chunk and one vector popcount.
 *
 * Every function carries the target attribute rather than the file being
 * built with -m flags, so nothing here runs unless join.c has checked the
 * CPU first.
 */
#include <immintrin.h>

#include "engines/mitm/join_kernels.h"

#define NQ_TARGET_AVX512 __attribute__((target("avx512f,avx512vpopcntdq")))

/* The transpose 64 members at a time: vptestmq gives, for 8 members, which
 * have bit j; eight of those make the 64-bit word of occ[j]. */
NQ_TARGET_AVX512 void nq_join_transpose_avx512(nq_join_scratch *js, const uint64_t *b, size_t len,
                                               int rows)
{
    for (int w = 0; w < NQ_JOIN_WORDS; w++) {
        const size_t lo = (size_t)w * 64;
        if (len <= lo) {
            for (int j = 0; j < rows; j++)
                js->occ[j][w] = 0;
            continue;
        }
        __m512i v[8];
        for (int t = 0; t < 8; t++) {
            const size_t at = lo + (size_t)t * 8;
            /* Lanes past len load as zero: absent members have no bits. */
            const __mmask8 live = at >= len ? 0 : len - at >= 8 ? 0xff : (__mmask8)((1u << (len - at)) - 1);
            v[t] = _mm512_maskz_loadu_epi64(live, at < len ? b + at : b);
        }
        for (int j = 0; j < rows; j++) {
            /* rows rounds up to whole chunks and may pass the signature's 64
             * bits: no member has such a bit, so its row is empty (a zero
             * test mask), and 1 << 64 (undefined) is never computed. */
            const uint64_t mask = j < 64 ? UINT64_C(1) << j : 0;
            const __m512i bit = _mm512_set1_epi64((long long)mask);
            uint64_t word = 0;
            for (int t = 0; t < 8; t++)
                word |= (uint64_t)_mm512_test_epi64_mask(v[t], bit) << (8 * t);
            js->occ[j][w] = word;
        }
    }
}

/* Hot loop: per query, one 512-bit AND per chunk and a popcount.  The
 * mask rides along in the first AND, a three-way one (ternary logic 0x80 is
 * a & b & c), so masked blocks cost nothing extra. */
NQ_TARGET_AVX512 static inline __attribute__((always_inline)) uint64_t
block_queries(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch, int cbits,
              const uint64_t *mask)
{
    const uint64_t cmask = (UINT64_C(1) << cbits) - 1;
    const __m512i members = mask ? _mm512_load_si512((const void *)mask) : _mm512_set1_epi64(-1);
    __m512i sum = _mm512_setzero_si512();
    for (size_t i = 0; i < nq; i++) {
        const uint64_t s = q[i];
        __m512i acc = _mm512_ternarylogic_epi64(
            members, _mm512_load_si512((const void *)js->table[0][s & cmask]),
            nch > 1 ? _mm512_load_si512((const void *)js->table[1][(s >> cbits) & cmask])
                    : _mm512_set1_epi64(-1),
            0x80);
        for (int c = 2; c < nch; c++)
            acc = _mm512_and_si512(
                acc, _mm512_load_si512((const void *)js->table[c][(s >> (cbits * c)) & cmask]));
        /* Per-lane popcounts summed lane-wise; reduced once per block. */
        sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(acc));
    }
    return (uint64_t)_mm512_reduce_add_epi64(sum);
}

NQ_TARGET_AVX512 uint64_t nq_join_queries_avx512(const nq_join_scratch *js, const uint64_t *q,
                                                 size_t nq, int nch, int cbits,
                                                 const uint64_t *mask)
{
    NQ_JOIN_SPECIALIZE(block_queries);
}
