/*
 * half_avx512.h - the half-board loops for x86-64 with AVX-512F, eight
 * 64-bit placements or signatures per vector: the lanes that pass a test
 * are packed together by a compress.  Each function's contract is the
 * portable loop's (quarter_slice.c's filter, half.c's pair_group).
 * Included only by half_kernels.h, in builds that target AVX-512F.
 */
#ifndef NQ_HALF_AVX512_H
#define NQ_HALF_AVX512_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "engines/mitm/quarter_frame.h"

#define NQ_HALF_AVX512 1

/* The lanes of a vector of the first n - at of n items (all eight when
 * at least eight are left).  Branch-free where the build has BMI2: the
 * groups' lengths vary at random, and a branch on the last vector's
 * length was mispredicted (bzhi keeps the low `index` bits, all of them
 * when the index is 32 or more, and reads only the index's low byte). */
static inline __mmask8 nq_half_live(size_t n, size_t at)
{
#ifdef __BMI2__
    const size_t left = n - at;
    return (__mmask8)_bzhi_u32(0xff, left < 255 ? (unsigned)left : 255u);
#else
    return n - at >= 8 ? 0xff : (__mmask8)((1u << (n - at)) - 1);
#endif
}

/* Stores the lanes of v selected by m, packed, at to; returns how many.  A
 * compress in a register and a store of just that many lanes: a compress
 * straight to memory is microcoded on some cores. */
static inline size_t nq_half_store_lanes(uint64_t *to, __mmask8 m, __m512i v)
{
    const int k = __builtin_popcount(m);
    _mm512_mask_storeu_epi64(to, (__mmask8)((1u << k) - 1), _mm512_maskz_compress_epi64(m, v));
    return (size_t)k;
}

/* quarter_slice.c's filter loop (filter_group), eight placements at a time. */
static inline size_t nq_filter_group_avx512(const nq_quarter_frame *f, const uint64_t *g,
                                              uint32_t len, uint64_t *cw, uint64_t *sig)
{
    const uint64_t m = (UINT64_C(1) << f->shared_bits) - 1;
    const __m128i sh1 = _mm_cvtsi32_si128(f->to_global1), sh2 = _mm_cvtsi32_si128(f->to_global2);
    const __m128i shn = _mm_cvtsi32_si128(f->to_north), shs = _mm_cvtsi32_si128(f->to_shared);
    const __m128i shw = _mm_cvtsi32_si128(f->shared_bits);
    const __m512i low32 = _mm512_set1_epi64(0xffffffff), vm = _mm512_set1_epi64((long long)m);
    const __m512i vp1 = _mm512_set1_epi64((long long)f->p1);
    const __m512i vp2 = _mm512_set1_epi64((long long)f->p2);
    size_t kept = 0;
    for (uint32_t j = 0; j < len; j += 8) {
        const __mmask8 live = nq_half_live(len, j);
        const __m512i v = _mm512_maskz_loadu_epi64(live, g + j);
        const __m512i l1 = _mm512_and_si512(v, low32), l2 = _mm512_srli_epi64(v, 32);
        const __m512i g1 = _mm512_sll_epi64(l1, sh1), g2 = _mm512_sll_epi64(l2, sh2);
        const __mmask8 ok = (__mmask8)(live & ~(_mm512_test_epi64_mask(g1, vp1) |
                                                _mm512_test_epi64_mask(g2, vp2)));
        const __m512i c = _mm512_or_si512(
            _mm512_and_si512(_mm512_sll_epi64(l1, shn), low32),
            _mm512_slli_epi64(_mm512_and_si512(_mm512_sll_epi64(l2, shn), low32), 32));
        const __m512i sg = _mm512_or_si512(
            _mm512_and_si512(_mm512_srl_epi64(g1, shs), vm),
            _mm512_sll_epi64(_mm512_and_si512(_mm512_srl_epi64(g2, shs), vm), shw));
        nq_half_store_lanes(cw + kept, ok, c);
        kept += nq_half_store_lanes(sig + kept, ok, sg);
    }
    return kept;
}

/* pair_group(), eight placements of the group at a time (one pass for
 * most groups).  Each vector's pairs that fit are packed and stored as a
 * whole vector, unmasked: a store with a mask made from their count took
 * three more instructions a vector, and the lanes past them are
 * overwritten by the next vector or left past the count (out has
 * NQ_MITM_HALF_SLACK slots past ns). */
static inline size_t nq_pair_group_avx512(uint64_t cw, uint64_t sig, const uint64_t *group_cw,
                                          const uint64_t *group_sig, size_t ns, uint64_t avoid,
                                          uint64_t *out)
{
    const __m512i vcw = _mm512_set1_epi64((long long)cw);
    const __m512i vsig = _mm512_set1_epi64((long long)sig);
    const __m512i vavoid = _mm512_set1_epi64((long long)avoid);
    size_t count = 0;
    for (size_t j = 0; j < ns; j += 8) {
        const __mmask8 live = nq_half_live(ns, j);
        const __m512i scw = _mm512_maskz_loadu_epi64(live, group_cw + j);
        const __m512i ssig = _mm512_maskz_loadu_epi64(live, group_sig + j);
        const __mmask8 fits = _mm512_mask_testn_epi64_mask(
            _mm512_mask_testn_epi64_mask(live, vcw, scw), vavoid, ssig);
        _mm512_storeu_si512(out + count,
                            _mm512_maskz_compress_epi64(fits, _mm512_or_si512(vsig, ssig)));
        count += (size_t)__builtin_popcount(fits);
    }
    return count;
}

#endif /* NQ_HALF_AVX512_H */
