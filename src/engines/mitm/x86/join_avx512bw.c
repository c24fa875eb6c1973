/*
 * join_avx512bw.c - the join's query loop for x86-64 with AVX-512 F and BW
 * but not VBMI, VPOPCNTDQ or GFNI (Skylake and Cascade Lake), see
 * join_kernels.h: a 512-bit block set is one register, as in the AVX-512
 * kernel, so a query costs one load and AND per chunk; with no vector
 * popcount, the bits are counted by looking up both nibbles of each byte
 * (vpshufb), as the AVX2 kernel does on two registers.  The tables are the
 * AVX2 kernel's (x86/join_avx2.c): they need no more than AVX2.
 *
 * Every function carries the target attribute rather than the file being
 * built with -m flags, so nothing here runs unless kernels.c has checked
 * the CPU first.
 */
#include <immintrin.h>

#include "engines/mitm/join_kernels.h"

#define NQ_TARGET_AVX512BW __attribute__((target("avx512f,avx512bw")))

/* Hot loop: per query one 512-bit AND per chunk, and one with the run's
 * mask, then the bit counts of its 64 bytes, at most 8 each, summed over
 * 31 queries (248 fits a byte) before vpsadbw widens them. */
NQ_TARGET_AVX512BW static inline __attribute__((always_inline)) uint64_t
block_queries(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch, int cbits,
              const uint64_t *mask)
{
    const __m512i members = mask ? _mm512_load_si512((const void *)mask) : _mm512_set1_epi64(-1);
    const uint64_t cmask = (UINT64_C(1) << cbits) - 1;
    const __m512i nibble_bits = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    __m512i sum = _mm512_setzero_si512();
    for (size_t i = 0; i < nq;) {
        const size_t end = nq - i > 31 ? i + 31 : nq;
        __m512i bytes = _mm512_setzero_si512();
        for (; i < end; i++) {
            const uint64_t s = q[i];
            __m512i acc =
                _mm512_and_si512(members, _mm512_load_si512((const void *)js->table[0][s & cmask]));
            for (int c = 1; c < nch; c++)
                acc = _mm512_and_si512(
                    acc, _mm512_load_si512((const void *)js->table[c][(s >> (cbits * c)) & cmask]));
            const __m512i counts = _mm512_add_epi8(
                _mm512_shuffle_epi8(nibble_bits, _mm512_and_si512(acc, low4)),
                _mm512_shuffle_epi8(nibble_bits,
                                    _mm512_and_si512(_mm512_srli_epi16(acc, 4), low4)));
            bytes = _mm512_add_epi8(bytes, counts);
        }
        sum = _mm512_add_epi64(sum, _mm512_sad_epu8(bytes, _mm512_setzero_si512()));
    }
    return (uint64_t)_mm512_reduce_add_epi64(sum);
}

NQ_TARGET_AVX512BW uint64_t nq_join_queries_avx512bw(const nq_join_scratch *js, const uint64_t *q,
                                                     const nq_join_run *runs, size_t nruns,
                                                     int nch, int cbits)
{
    NQ_JOIN_SPECIALIZE(block_queries);
}
