/*
 * join_avx512.c - the join's tables and query loop for x86-64 with AVX-512
 * (F, BW, VL, VBMI, VPOPCNTDQ), GFNI and BMI2, as Ice Lake, Sapphire Rapids and Zen 4
 * have them (see join_kernels.h): a 512-bit block set is one register, so
 * a query costs one load and AND per chunk and one vector popcount, and a
 * block's transpose is byte permutations and 8 x 8 bit-matrix transposes
 * rather than a test per bit and member.
 *
 * Every function carries the target attribute rather than the file being
 * built with -m flags, so nothing here runs unless join.c has checked the
 * CPU first.
 */
#include <immintrin.h>

#include "engines/mitm/join_kernels.h"
#include "engines/mitm/x86/join_tables512.h"

#define NQ_TARGET_AVX512 \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,gfni,avx512vpopcntdq,bmi2")))

/* The transpose's byte permutations (see transpose): compile-time
 * vectors, byte i of each given by a formula in i.  _mm512_set_epi8 takes
 * bytes 63 down to 0. */
#define BYTES_DOWN(f) \
    f(63), f(62), f(61), f(60), f(59), f(58), f(57), f(56), f(55), f(54), f(53), f(52), f(51), \
    f(50), f(49), f(48), f(47), f(46), f(45), f(44), f(43), f(42), f(41), f(40), f(39), f(38), \
    f(37), f(36), f(35), f(34), f(33), f(32), f(31), f(30), f(29), f(28), f(27), f(26), f(25), \
    f(24), f(23), f(22), f(21), f(20), f(19), f(18), f(17), f(16), f(15), f(14), f(13), f(12), \
    f(11), f(10), f(9), f(8), f(7), f(6), f(5), f(4), f(3), f(2), f(1), f(0)
/* byte q of member 7 - p into byte 8q + p (member order reversed for
 * gf2p8affineqb, whose matrix rows come out last first) */
#define BYTE_Q(i) (char)(56 - 8 * ((i)&7) + ((i) >> 3))
/* interleave two registers (64 + k: byte k of the second) by 1, 2 and 4
 * bytes, from byte 0 (_LO) or byte 32 (_HI) of each */
#define PAIR_LO(i) (char)(64 * ((i)&1) + ((i) >> 1))
#define PAIR_HI(i) (char)(PAIR_LO(i) + 32)
#define QUAD_LO(i) (char)(64 * (((i) >> 1) & 1) + 2 * ((i) >> 2) + ((i)&1))
#define QUAD_HI(i) (char)(QUAD_LO(i) + 32)
#define OCT_LO(i) (char)(64 * (((i) >> 2) & 1) + 4 * ((i) >> 3) + ((i)&3))
#define OCT_HI(i) (char)(OCT_LO(i) + 32)

/* The two 128-bit lane picks of an 8 x 8 qword transpose: lanes 0 and 2
 * of each source, or lanes 1 and 3. */
NQ_TARGET_AVX512 static inline __m512i lanes(__m512i x, __m512i y, int odd)
{
    return odd ? _mm512_shuffle_i64x2(x, y, 0xdd) : _mm512_shuffle_i64x2(x, y, 0x88);
}

/* Writes rows 8r .. 8r + 7 of js->occ from y[0 .. 8), where qword q of
 * y[w] is row 8r + q's word w: an 8 x 8 transpose of qwords.  Unpacking
 * pairs (a) puts qwords 2L and 2L + 1 of two words in lane L; two lane
 * picks (b, then the stores) gather each row's eight words. */
NQ_TARGET_AVX512 static void store_rows(nq_join_scratch *js, int r, const __m512i y[8])
{
    __m512i a[4][2], b[2][4];
    for (int i = 0; i < 4; i++) {
        a[i][0] = _mm512_unpacklo_epi64(y[2 * i], y[2 * i + 1]);
        a[i][1] = _mm512_unpackhi_epi64(y[2 * i], y[2 * i + 1]);
    }
    /* b[g][2o + s]: rows o + 2s and o + 2s + 4 of words 4g .. 4g + 3 */
    for (int g = 0; g < 2; g++)
        for (int o = 0; o < 2; o++)
            for (int s = 0; s < 2; s++)
                b[g][2 * o + s] = lanes(a[2 * g][o], a[2 * g + 1][o], s);
    for (int k = 0; k < 4; k++) {
        const int row = 8 * r + (k >> 1) + 2 * (k & 1);
        _mm512_store_si512(js->occ[row], lanes(b[0][k], b[1][k], 0));
        _mm512_store_si512(js->occ[row + 4], lanes(b[0][k], b[1][k], 1));
    }
}

/* Fills js->occ rows 0 .. rows - 1 (rows <= 64) from b[0 .. len).  Each
 * 64 members become 8 registers of 8 members (absent ones load as zero);
 * in each, vpermb gathers byte q of the eight members into qword q, and
 * gf2p8affineqb transposes each qword as an 8 x 8 bit matrix, so that
 * byte j of register t holds, for row j, members 8t .. 8t + 7 (as the
 * matrix rows come out in reverse, vpermb places member m at byte 7 - m).
 * Three rounds of vpermt2b then interleave the eight registers by 1, 2
 * and 4 bytes, making qword j the whole 64-member word of row j. */
NQ_TARGET_AVX512 static void transpose(nq_join_scratch *js, const uint64_t *b, size_t len, int rows)
{
    const __m512i byte_q = _mm512_set_epi8(BYTES_DOWN(BYTE_Q));
    /* the interleaves, [0] from the low half of each source, [1] the high */
    const __m512i pair[2] = {_mm512_set_epi8(BYTES_DOWN(PAIR_LO)),
                             _mm512_set_epi8(BYTES_DOWN(PAIR_HI))};
    const __m512i quad[2] = {_mm512_set_epi8(BYTES_DOWN(QUAD_LO)),
                             _mm512_set_epi8(BYTES_DOWN(QUAD_HI))};
    const __m512i oct[2] = {_mm512_set_epi8(BYTES_DOWN(OCT_LO)),
                            _mm512_set_epi8(BYTES_DOWN(OCT_HI))};
    /* byte i of each qword: 1 << i */
    const __m512i unit = _mm512_set1_epi64((long long)UINT64_C(0x8040201008040201));
    const int groups = (rows + 7) / 8, halves = rows > 32 ? 2 : 1;
    __m512i y[8][8]; /* y[r][w]: qword q is row 8r + q's word w */
    for (int w = 0; w < NQ_JOIN_WORDS; w++) {
        __m512i x[8];
        for (int t = 0; t < 8; t++) {
            const size_t at = (size_t)w * 64 + (size_t)t * 8;
            const __mmask8 live =
                at >= len ? 0 : len - at >= 8 ? 0xff : (__mmask8)((1u << (len - at)) - 1);
            const __m512i v = _mm512_maskz_loadu_epi64(live, at < len ? b + at : b);
            x[t] = _mm512_gf2p8affine_epi64_epi8(unit, _mm512_permutexvar_epi8(byte_q, v), 0);
        }
        for (int h = 0; h < halves; h++) {
            /* rows 32h .. 32h + 31: pairs of registers, then fours, then all eight */
            __m512i p[4], q[2][2];
            for (int i = 0; i < 4; i++)
                p[i] = _mm512_permutex2var_epi8(x[2 * i], pair[h], x[2 * i + 1]);
            for (int i = 0; i < 2; i++)
                for (int k = 0; k < 2; k++)
                    q[i][k] = _mm512_permutex2var_epi8(p[2 * i], quad[k], p[2 * i + 1]);
            for (int k = 0; k < 2; k++)
                for (int o = 0; o < 2; o++)
                    y[4 * h + 2 * k + o][w] = _mm512_permutex2var_epi8(q[0][k], oct[o], q[1][k]);
        }
    }
    for (int r = 0; r < groups; r++)
        store_rows(js, r, y[r]);
}

/* The block's tables: the transpose (nq_join_transposed_rows says which
 * rows), then the entries (x86/join_tables512.h). */
NQ_TARGET_AVX512 void nq_join_build_avx512(nq_join_scratch *js, const uint64_t *b, size_t len,
                                           int nch, int cbits)
{
    transpose(js, b, len, nq_join_transposed_rows(js, nch, cbits));
    nq_join_tables512(js, len, nch, cbits);
}

_Static_assert(NQ_JOIN_CHUNK_BITS_MAX <= 10, "a chunk's byte offset (value * 64) fits a 16-bit field");

/* The pdep mask that spreads n <= 4 chunks of cbits <= 10 bits each to
 * 16-bit fields, chunk c's value to bits 16c + 6 up: each field is then its
 * table entry's byte offset (value * 64), so a query's offsets cost one
 * pdep per four chunks and a field extraction each instead of a shift, a
 * mask and a scaling per chunk (the loop is bound by its instruction
 * count). */
static inline uint64_t spread_mask(int n, int cbits)
{
    uint64_t m = 0;
    for (int c = 0; c < n; c++)
        m |= ((UINT64_C(1) << cbits) - 1) << (16 * c + 6);
    return m;
}

/* Field f (0 .. 3) of a spread word: a byte offset into one table. */
static inline size_t spread_field(uint64_t w, int f)
{
    switch (f) {
    case 0:
        return (uint16_t)w;
    case 1:
        return (uint32_t)w >> 16;
    case 2:
        return (uint16_t)(w >> 32);
    default:
        return (size_t)(w >> 48);
    }
}

/* The byte offset of chunk c's table entry in a query's spread words
 * (chunks 0 to 3 in lo, 4 to 7 in hi). */
static inline size_t chunk_offset(uint64_t lo, uint64_t hi, int c)
{
    return spread_field(c < 4 ? lo : hi, c & 3);
}

/* Hot loop for a run whose members all lie in one half of the block
 * (NQ_JOIN_LOW_HALF or NQ_JOIN_HIGH_HALF): a 256-bit load and AND per
 * chunk of that half's 32 bytes of each row, half the bytes of the whole
 * rows: a Zen 4 core loads one 512-bit vector a cycle or two 256-bit
 * ones, and the tables of 8-bit chunks (64 KiB) spill its L1 cache
 * (docs/performance.md, "Figures the code's choices rest on").  As
 * block_queries below. */
NQ_TARGET_AVX512 static inline __attribute__((always_inline)) uint64_t
half_queries(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch, int cbits,
             const uint64_t *mask, int half)
{
    const size_t at = (size_t)32 * half; /* the half's bytes in each row */
    const __m256i members = mask ? _mm256_load_si256((const __m256i *)mask + half)
                                 : _mm256_set1_epi64x(-1);
    const uint64_t spread_lo = spread_mask(nch < 4 ? nch : 4, cbits);
    const uint64_t spread_hi = spread_mask(nch > 4 ? nch - 4 : 0, cbits);
    __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 2
    for (size_t i = 0; i < nq; i++) {
        const uint64_t lo = _pdep_u64(q[i], spread_lo);
        const uint64_t hi = nch > 4 ? _pdep_u64(q[i] >> (4 * cbits), spread_hi) : 0;
        __m256i acc = _mm256_load_si256(
            (const void *)((const char *)js->table[0] + at + chunk_offset(lo, hi, 0)));
        acc = _mm256_ternarylogic_epi64(
            acc, members,
            nch > 1 ? _mm256_load_si256(
                          (const void *)((const char *)js->table[1] + at + chunk_offset(lo, hi, 1)))
                    : _mm256_set1_epi64x(-1),
            0x80);
        for (int c = 2; c < nch; c++)
            acc = _mm256_and_si256(
                acc, _mm256_load_si256((const void *)((const char *)js->table[c] + at +
                                                      chunk_offset(lo, hi, c))));
        sum = _mm256_add_epi64(sum, _mm256_popcnt_epi64(acc));
    }
    const __m128i pair =
        _mm_add_epi64(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    return (uint64_t)_mm_cvtsi128_si64(pair) + (uint64_t)_mm_extract_epi64(pair, 1);
}

/* Hot loop: per query, one 512-bit AND per chunk and a popcount.  The
 * mask rides along in the first AND, a three-way one (ternary logic 0x80 is
 * a & b & c), so masked blocks cost nothing extra; the first table's row
 * is loaded into the register the AND writes, so the mask needs no copy.
 * Up to eight chunks take their offsets from two spread words (chunks 0
 * to 3 and 4 to 7); more take a shift and a mask each. */
NQ_TARGET_AVX512 static inline __attribute__((always_inline)) uint64_t
block_queries(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch, int cbits,
              const uint64_t *mask, int half)
{
    if (half != NQ_JOIN_BOTH_HALVES && nch <= 8)
        return half_queries(js, q, nq, nch, cbits, mask, half);
    const uint64_t cmask = (UINT64_C(1) << cbits) - 1;
    const __m512i members = mask ? _mm512_load_si512((const void *)mask) : _mm512_set1_epi64(-1);
    __m512i sum = _mm512_setzero_si512();
    if (nch <= 8) {
        const uint64_t spread_lo = spread_mask(nch < 4 ? nch : 4, cbits);
        const uint64_t spread_hi = spread_mask(nch > 4 ? nch - 4 : 0, cbits);
        /* Two queries an iteration: one loop test and branch for both. */
#pragma GCC unroll 2
        for (size_t i = 0; i < nq; i++) {
            const uint64_t lo = _pdep_u64(q[i], spread_lo);
            const uint64_t hi = nch > 4 ? _pdep_u64(q[i] >> (4 * cbits), spread_hi) : 0;
            __m512i acc = _mm512_load_si512((const void *)((const char *)js->table[0] + (uint16_t)lo));
            acc = _mm512_ternarylogic_epi64(
                acc, members,
                nch > 1 ? _mm512_load_si512(
                              (const void *)((const char *)js->table[1] + chunk_offset(lo, hi, 1)))
                        : _mm512_set1_epi64(-1),
                0x80);
            for (int c = 2; c < nch; c++)
                acc = _mm512_and_si512(
                    acc, _mm512_load_si512((const void *)((const char *)js->table[c] +
                                                          chunk_offset(lo, hi, c))));
            /* Per-lane popcounts summed lane-wise; reduced once per block. */
            sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(acc));
        }
        return (uint64_t)_mm512_reduce_add_epi64(sum);
    }
#pragma GCC unroll 2
    for (size_t i = 0; i < nq; i++) {
        const uint64_t s = q[i];
        __m512i acc = _mm512_load_si512((const void *)js->table[0][s & cmask]);
        acc = _mm512_ternarylogic_epi64(
            acc, members, _mm512_load_si512((const void *)js->table[1][(s >> cbits) & cmask]),
            0x80);
        for (int c = 2; c < nch; c++)
            acc = _mm512_and_si512(
                acc, _mm512_load_si512((const void *)js->table[c][(s >> (cbits * c)) & cmask]));
        sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(acc));
    }
    return (uint64_t)_mm512_reduce_add_epi64(sum);
}

NQ_TARGET_AVX512 uint64_t nq_join_queries_avx512(const nq_join_scratch *js, const uint64_t *q,
                                                 const nq_join_run *runs, size_t nruns, int nch,
                                                 int cbits)
{
    NQ_JOIN_SPECIALIZE(block_queries);
}
