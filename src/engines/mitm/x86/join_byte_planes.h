/*
 * join_byte_planes.h - 32 signatures regrouped by byte, the first step of
 * the block transposes of the AVX2 and AVX-512 F/BW join kernels
 * (x86/join_avx2.c, x86/join_avx512bw.c): from byte plane p, each of the
 * rows 8p .. 8p + 7 is one shift and one byte-sign mask (vpmovmskb, or
 * vpmovb2m on two planes side by side).  Compiled for AVX2 alone, so it
 * inlines into either kernel.
 */
#ifndef NQ_JOIN_BYTE_PLANES_H
#define NQ_JOIN_BYTE_PLANES_H

#include <immintrin.h>
#include <stdint.h>

#define NQ_TARGET_AVX2 __attribute__((target("avx2")))

/* Byte p of the 32 members m[0 .. 32) into t[p], p = 0 .. 7 (byte i:
 * member i's).  x[r] holds members 2r, 2r + 1
 * in its low lane and 16 + 2r, 16 + 2r + 1 in its high one, each lane's
 * bytes shuffled so that 16-bit element p is byte p of its two members; an
 * 8 x 8 transpose of 16-bit elements (unpacks by 16, 32 and 64 bits) then
 * leaves in register p, byte i, byte p of member i. */
NQ_TARGET_AVX2 static inline __attribute__((always_inline)) void
nq_join_byte_planes32(const uint64_t *m, __m256i t[8])
{
    const __m256i pair_bytes = _mm256_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7,
                                                15, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14,
                                                7, 15);
    __m256i x[8], a[8], b[8];
    for (int r = 0; r < 8; r++) {
        const __m128i lo = _mm_loadu_si128((const __m128i *)(m + 2 * r));
        const __m128i hi = _mm_loadu_si128((const __m128i *)(m + 16 + 2 * r));
        x[r] = _mm256_shuffle_epi8(_mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1),
                                   pair_bytes);
    }
    /* a[2i], a[2i + 1]: elements 0..3 and 4..7 of x[2i], x[2i + 1] interleaved */
    for (int i = 0; i < 4; i++) {
        a[2 * i] = _mm256_unpacklo_epi16(x[2 * i], x[2 * i + 1]);
        a[2 * i + 1] = _mm256_unpackhi_epi16(x[2 * i], x[2 * i + 1]);
    }
    /* b[4h + k]: elements 2k, 2k + 1 of x[4h .. 4h + 3] */
    for (int h = 0; h < 2; h++)
        for (int k = 0; k < 2; k++) {
            b[4 * h + 2 * k] = _mm256_unpacklo_epi32(a[4 * h + k], a[4 * h + 2 + k]);
            b[4 * h + 2 * k + 1] = _mm256_unpackhi_epi32(a[4 * h + k], a[4 * h + 2 + k]);
        }
    for (int k = 0; k < 4; k++) {
        t[2 * k] = _mm256_unpacklo_epi64(b[k], b[4 + k]);
        t[2 * k + 1] = _mm256_unpackhi_epi64(b[k], b[4 + k]);
    }
}

#endif /* NQ_JOIN_BYTE_PLANES_H */
