/*
 * join_avx2.c - the join's query loop for x86-64 with AVX2 (see
 * join_kernels.h): a 512-bit block set is two registers.  The tables
 * stay the portable ones.
 *
 * Every function carries the target attribute rather than the file being
 * built with -m flags, so nothing here runs unless join.c has checked the
 * CPU first.
 */
#include <immintrin.h>

#include "engines/mitm/join_kernels.h"

#define NQ_TARGET_AVX2 __attribute__((target("avx2")))

/* Hot loop.  AVX2 has no vector popcount: count each byte's bits by looking
 * up both nibbles (vpshufb), add the two 256-bit halves, and sum the byte
 * counts across queries -- at most 16 per query, so 15 queries fit a byte
 * -- before widening them (vpsadbw) into 64-bit lanes. */
NQ_TARGET_AVX2 static inline __attribute__((always_inline)) uint64_t
block_queries(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch, int cbits,
              const uint64_t *mask)
{
    const __m256i ones = _mm256_set1_epi64x(-1);
    const __m256i mask_lo = mask ? _mm256_load_si256((const __m256i *)mask) : ones;
    const __m256i mask_hi = mask ? _mm256_load_si256((const __m256i *)mask + 1) : ones;
    const uint64_t cmask = (UINT64_C(1) << cbits) - 1;
    const __m256i nibble_bits = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                                 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    __m256i sum = _mm256_setzero_si256();
    for (size_t i = 0; i < nq;) {
        const size_t end = nq - i > 15 ? i + 15 : nq;
        __m256i bytes = _mm256_setzero_si256();
        for (; i < end; i++) {
            const uint64_t s = q[i];
            const __m256i *t0 = (const __m256i *)js->table[0][s & cmask];
            __m256i lo = _mm256_and_si256(mask_lo, _mm256_load_si256(t0));
            __m256i hi = _mm256_and_si256(mask_hi, _mm256_load_si256(t0 + 1));
            for (int c = 1; c < nch; c++) {
                const __m256i *t = (const __m256i *)js->table[c][(s >> (cbits * c)) & cmask];
                lo = _mm256_and_si256(lo, _mm256_load_si256(t));
                hi = _mm256_and_si256(hi, _mm256_load_si256(t + 1));
            }
            const __m256i lo_bits = _mm256_add_epi8(
                _mm256_shuffle_epi8(nibble_bits, _mm256_and_si256(lo, low4)),
                _mm256_shuffle_epi8(nibble_bits, _mm256_and_si256(_mm256_srli_epi16(lo, 4), low4)));
            const __m256i hi_bits = _mm256_add_epi8(
                _mm256_shuffle_epi8(nibble_bits, _mm256_and_si256(hi, low4)),
                _mm256_shuffle_epi8(nibble_bits, _mm256_and_si256(_mm256_srli_epi16(hi, 4), low4)));
            bytes = _mm256_add_epi8(bytes, _mm256_add_epi8(lo_bits, hi_bits));
        }
        sum = _mm256_add_epi64(sum, _mm256_sad_epu8(bytes, _mm256_setzero_si256()));
    }
    return (uint64_t)_mm256_extract_epi64(sum, 0) + (uint64_t)_mm256_extract_epi64(sum, 1) +
           (uint64_t)_mm256_extract_epi64(sum, 2) + (uint64_t)_mm256_extract_epi64(sum, 3);
}

NQ_TARGET_AVX2 uint64_t nq_join_queries_avx2(const nq_join_scratch *js, const uint64_t *q,
                                             const nq_join_run *runs, size_t nruns, int nch,
                                             int cbits)
{
    NQ_JOIN_SPECIALIZE(block_queries);
}
