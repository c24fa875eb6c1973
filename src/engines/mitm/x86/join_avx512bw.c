/*
 * join_avx512bw.c - the join's query loop for x86-64 with AVX-512 F and BW
 * but not VBMI, VPOPCNTDQ or GFNI (Skylake and Cascade Lake), see
 * join_kernels.h: a 512-bit block set is one register, as in the AVX-512
 * kernel, so a query costs one load and AND per chunk; with no vector
 * popcount, the bits are counted by looking up both nibbles of each byte
 * (vpshufb), as the AVX2 kernel does on two registers.  The block is
 * transposed 64 members at a time: the AVX2 kernel's byte planes
 * (x86/join_byte_planes.h) of two halves put byte p of the 64 members in
 * one register, and vpmovb2m takes each of its eight rows, a whole 64-bit
 * word, in one instruction; the tables are the AVX-512 kernel's
 * (x86/join_tables512.h).
 *
 * Every function carries the target attribute rather than the file being
 * built with -m flags, so nothing here runs unless kernels.c has checked
 * the CPU first.
 */
#include <immintrin.h>

#include "engines/mitm/join_kernels.h"
#include "engines/mitm/x86/join_byte_planes.h"
#include "engines/mitm/x86/join_tables512.h"

#define NQ_TARGET_AVX512BW __attribute__((target("avx512f,avx512bw")))

/* Hot loop: per query one 512-bit AND per chunk, and one with the run's
 * mask, then the bit counts of its 64 bytes, at most 8 each, summed over
 * 31 queries (248 fits a byte) before vpsadbw widens them.  It takes the
 * whole block even where a run's members lie in one half: a 256-bit loop
 * over that half, as join_avx2.c's, was no faster at this level
 * (NQ_KERNEL=avx512 on a Zen 4, N = 24's units 1.02 to 1.04 of the
 * time; its CPUs are Skylake's, which run 512-bit vectors whole). */
NQ_TARGET_AVX512BW static inline __attribute__((always_inline)) uint64_t
block_queries(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch, int cbits,
              const uint64_t *mask, int half)
{
    (void)half;
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

/* Byte p of 64 members m[0 .. 64), p = 0 .. 7, into t[p] (byte i: member
 * i's): the byte planes of members 0 .. 31 in the low half, of 32 .. 63 in
 * the high. */
NQ_TARGET_AVX512BW static void byte_planes(const uint64_t *m, __m512i t[8])
{
    __m256i lo[8], hi[8];
    nq_join_byte_planes32(m, lo);
    nq_join_byte_planes32(m + 32, hi);
    for (int p = 0; p < 8; p++)
        t[p] = _mm512_inserti64x4(_mm512_castsi256_si512(lo[p]), hi[p], 1);
}

/* Fills js->occ rows 0 .. rows - 1 (rows <= 64) from b[0 .. len): word w
 * of row 8p + k is the top bits of byte plane p of members 64w .. once
 * shifted left by 7 - k (each byte's bit k to its top; what the 64-bit
 * shift carries in from the byte below lands in its low bits only).  A
 * last group of fewer than 64 members is read from a zeroed copy
 * (nq_join_group). */
NQ_TARGET_AVX512BW static void transpose(nq_join_scratch *js, const uint64_t *b, size_t len,
                                         int rows)
{
    uint64_t pad[64];
    for (size_t w = 0; 64 * w < len; w++) {
        __m512i t[8];
        byte_planes(nq_join_group(b, len, 64 * w, 64, pad), t);
        for (int row = 0; row < rows; row++)
            js->occ[row][w] = (uint64_t)_mm512_movepi8_mask(
                _mm512_slli_epi64(t[row >> 3], (unsigned)(7 - (row & 7))));
    }
}

/* The block's tables: the transpose above (nq_join_transposed_rows says
 * which rows), then the entries (x86/join_tables512.h). */
NQ_TARGET_AVX512BW void nq_join_build_avx512bw(nq_join_scratch *js, const uint64_t *b, size_t len,
                                               int nch, int cbits)
{
    transpose(js, b, len, nq_join_transposed_rows(js, nch, cbits));
    nq_join_tables512(js, len, nch, cbits);
}

/* Eight queries at a time: vptestnmq marks those holding no shared bit,
 * vpcompressq packs them at the bottom of a register, and the whole
 * register is stored, the next eight's store overwriting what lies past
 * the kept (to a register, not to memory: compressing straight to memory
 * is microcoded and slow on Zen 4).  Needs AVX-512 F alone; the AVX-512
 * kernel shares it. */
NQ_TARGET_AVX512BW size_t nq_join_filter_avx512(const uint64_t *q, size_t n, uint64_t shared,
                                                uint64_t *out)
{
    const __m512i bits = _mm512_set1_epi64((long long)shared);
    size_t kept = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m512i v = _mm512_loadu_si512((const void *)(q + i));
        const __mmask8 keep = _mm512_testn_epi64_mask(v, bits);
        _mm512_storeu_si512((void *)(out + kept), _mm512_maskz_compress_epi64(keep, v));
        kept += (size_t)__builtin_popcount(keep);
    }
    if (i < n) {
        const __mmask8 live = (__mmask8)((1u << (n - i)) - 1);
        const __m512i v = _mm512_maskz_loadu_epi64(live, q + i);
        const __mmask8 keep = _mm512_mask_testn_epi64_mask(live, v, bits);
        _mm512_storeu_si512((void *)(out + kept), _mm512_maskz_compress_epi64(keep, v));
        kept += (size_t)__builtin_popcount(keep);
    }
    return kept;
}
