/*
 * join_avx2.c - the join's tables and query loop for x86-64 with AVX2 (see
 * join_kernels.h): a 512-bit block set is two registers.  The block is
 * transposed 32 members at a time by byte shuffles and vpmovmskb, one
 * instruction per row and 32 members instead of a test per bit and member
 * (the portable transpose took a third of an N = 20 count on this level).
 * The byte planes it starts from (x86/join_byte_planes.h, with
 * NQ_TARGET_AVX2) serve the AVX-512 F/BW kernel too.
 *
 * Every function carries the target attribute rather than the file being
 * built with -m flags, so nothing here runs unless join.c has checked the
 * CPU first.
 */
#include <immintrin.h>

#include "engines/mitm/join_kernels.h"
#include "engines/mitm/x86/join_byte_planes.h"

/* The bit count of each byte of v: AVX2 has no vector popcount, so both
 * nibbles of every byte are looked up in a 16-entry table (vpshufb). */
NQ_TARGET_AVX2 static inline __attribute__((always_inline)) __m256i byte_counts(__m256i v)
{
    const __m256i nibble_bits = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                                 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    return _mm256_add_epi8(
        _mm256_shuffle_epi8(nibble_bits, _mm256_and_si256(v, low4)),
        _mm256_shuffle_epi8(nibble_bits, _mm256_and_si256(_mm256_srli_epi16(v, 4), low4)));
}

/* Hot loop over `parts` 256-bit parts of the block from part `first` on:
 * both halves (first 0, parts 2), or the one half holding every member a
 * run may meet (nq_join_run: blocks from N = 22 on hold the members of
 * several keys, and a run of queries may meet only some of them).  AVX2
 * has no vector popcount: per query one AND per chunk and part, then each
 * byte's bits counted (byte_counts) and summed across queries -- at most
 * 8 per part and query, so 31 queries fit a byte for one part and 15 for
 * two -- before vpsadbw widens them into 64-bit lanes. */
NQ_TARGET_AVX2 static inline __attribute__((always_inline)) uint64_t
part_queries(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch, int cbits,
             const uint64_t *mask, int first, int parts)
{
    __m256i members[2];
    for (int p = 0; p < parts; p++)
        members[p] = mask ? _mm256_load_si256((const __m256i *)mask + first + p)
                          : _mm256_set1_epi64x(-1);
    const uint64_t cmask = (UINT64_C(1) << cbits) - 1;
    const size_t batch = parts == 1 ? 31 : 15;
    __m256i sum = _mm256_setzero_si256();
    for (size_t i = 0; i < nq;) {
        const size_t end = nq - i > batch ? i + batch : nq;
        __m256i bytes = _mm256_setzero_si256();
        for (; i < end; i++) {
            const uint64_t s = q[i];
            __m256i acc[2];
            const __m256i *t0 = (const __m256i *)js->table[0][s & cmask] + first;
            for (int p = 0; p < parts; p++)
                acc[p] = _mm256_and_si256(members[p], _mm256_load_si256(t0 + p));
            for (int c = 1; c < nch; c++) {
                const __m256i *t =
                    (const __m256i *)js->table[c][(s >> (cbits * c)) & cmask] + first;
                for (int p = 0; p < parts; p++)
                    acc[p] = _mm256_and_si256(acc[p], _mm256_load_si256(t + p));
            }
            for (int p = 0; p < parts; p++)
                bytes = _mm256_add_epi8(bytes, byte_counts(acc[p]));
        }
        sum = _mm256_add_epi64(sum, _mm256_sad_epu8(bytes, _mm256_setzero_si256()));
    }
    return (uint64_t)_mm256_extract_epi64(sum, 0) + (uint64_t)_mm256_extract_epi64(sum, 1) +
           (uint64_t)_mm256_extract_epi64(sum, 2) + (uint64_t)_mm256_extract_epi64(sum, 3);
}

/* The run's half of the block (nq_join_run), or both. */
NQ_TARGET_AVX2 static inline __attribute__((always_inline)) uint64_t
block_queries(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch, int cbits,
              const uint64_t *mask, int half)
{
    if (half == NQ_JOIN_BOTH_HALVES)
        return part_queries(js, q, nq, nch, cbits, mask, 0, 2);
    return part_queries(js, q, nq, nch, cbits, mask, half, 1);
}

NQ_TARGET_AVX2 uint64_t nq_join_queries_avx2(const nq_join_scratch *js, const uint64_t *q,
                                             const nq_join_run *runs, size_t nruns, int nch,
                                             int cbits)
{
    NQ_JOIN_SPECIALIZE(block_queries);
}

/* Fills js->occ rows 0 .. rows - 1 (rows <= 64) from b[0 .. len): for each
 * group of 32 members, row 8p + k's 32 bits are the top bits of byte plane
 * p's bytes (vpmovmskb) once shifted left by 7 - k: that brings each byte's
 * bit k to its top, and the bits the 64-bit shift carries in from the byte
 * below land in its low bits only.  A last group of fewer than 32 members
 * is read from a zeroed copy (nq_join_group). */
NQ_TARGET_AVX2 static void transpose(nq_join_scratch *js, const uint64_t *b, size_t len, int rows)
{
    uint64_t pad[32];
    for (size_t g = 0; 32 * g < len; g++) {
        __m256i t[8];
        nq_join_byte_planes32(nq_join_group(b, len, 32 * g, 32, pad), t);
        for (int row = 0; row < rows; row++) {
            const __m256i bits = _mm256_slli_epi64(t[row >> 3], 7 - (row & 7));
            /* member i is bit i of the row's 32-bit piece g (little-endian words) */
            ((uint32_t *)js->occ[row])[g] = (uint32_t)_mm256_movemask_epi8(bits);
        }
    }
}

/* Every AND of the complements of occ rows 0 .. n - 1 with `first`, as two
 * 256-bit halves: out[v] = first & ~(the rows of the bits of v). */
NQ_TARGET_AVX2 static void subset_ands(__m256i (*out)[2], const uint64_t (*occ)[NQ_JOIN_WORDS],
                                       int n, __m256i first_lo, __m256i first_hi)
{
    out[0][0] = first_lo;
    out[0][1] = first_hi;
    for (int i = 0; i < n; i++) {
        const __m256i lo = _mm256_load_si256((const __m256i *)occ[i]);
        const __m256i hi = _mm256_load_si256((const __m256i *)occ[i] + 1);
        for (int v = 0; v < 1 << i; v++) {
            out[v | 1 << i][0] = _mm256_andnot_si256(lo, out[v][0]);
            out[v | 1 << i][1] = _mm256_andnot_si256(hi, out[v][1]);
        }
    }
}

/* The block's tables: the transpose above, then each chunk's entries as the
 * products of its low four bits' 16 ANDs and its high bits' ones, as the
 * AVX-512 kernel makes them: no entry waits on the store of another. */
NQ_TARGET_AVX2 void nq_join_build_avx2(nq_join_scratch *js, const uint64_t *b, size_t len, int nch,
                                       int cbits)
{
    transpose(js, b, len, nq_join_transposed_rows(js, nch, cbits));
    uint64_t live[NQ_JOIN_WORDS] __attribute__((aligned(32)));
    nq_join_live_members(len, live);
    const __m256i ones = _mm256_set1_epi64x(-1);
    const int low_bits = cbits < 4 ? cbits : 4, high_bits = cbits - low_bits;
    for (int c = 0; c < nch; c++) {
        __m256i low[16][2], high[1 << (NQ_JOIN_CHUNK_BITS_MAX - 4)][2];
        subset_ands(low, (const uint64_t(*)[NQ_JOIN_WORDS])js->occ[c * cbits], low_bits,
                    _mm256_load_si256((const __m256i *)live),
                    _mm256_load_si256((const __m256i *)live + 1));
        subset_ands(high, (const uint64_t(*)[NQ_JOIN_WORDS])js->occ[c * cbits + low_bits],
                    high_bits, ones, ones);
        uint64_t(*t)[NQ_JOIN_WORDS] = js->table[c];
        for (int hv = 0; hv < 1 << high_bits; hv++)
            for (int lv = 0; lv < 1 << low_bits; lv++) {
                __m256i *entry = (__m256i *)t[hv << low_bits | lv];
                _mm256_store_si256(entry, _mm256_and_si256(low[lv][0], high[hv][0]));
                _mm256_store_si256(entry + 1, _mm256_and_si256(low[lv][1], high[hv][1]));
            }
    }
}
