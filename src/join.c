/*
 * join.c - the bit-sliced disjoint-pair counter (see join.h).
 *
 * The longer list is cut into blocks of 512 signatures and each block is
 * stored transposed: for every signature bit j, one 512-bit set of the
 * block's members that have bit j.  A query q is compatible with exactly
 * the members that lack every bit of q, i.e. the AND over the set bits j of
 * q of the complements of those sets.  Rather than one AND per set bit, the
 * bits are taken 5 at a time: for each 5-bit chunk of the signature a table
 * of all 32 possible ANDs is precomputed per block, so a query costs
 * ceil(bits / 5) 512-bit ANDs and one popcount for 512 candidates.
 * Blocks are the outer loop and queries the inner one, so a block's tables
 * (bits / 5 * 2 KiB, under 26 KiB) stay in the L1 cache while every query
 * streams past them.
 */
#include <string.h>

#include "join.h"

#if defined(__AVX512F__) && defined(__AVX512VPOPCNTDQ__)
#include <immintrin.h>
#define NQ_JOIN_AVX512 1
#endif

/* Below this many pairs, building tables costs more than it saves. */
#define NQ_JOIN_NAIVE_PAIRS 2048

uint64_t nq_join_count_naive(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    uint64_t count = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            count += (a[i] & b[j]) == 0;
    return count;
}

/* Fills js->table for the block b[0 .. len), len <= NQ_JOIN_BLOCK, for
 * chunks 0 .. nch-1. */
static void build_block(nq_join_scratch *js, const uint64_t *b, size_t len, int nch)
{
    const int rows = nch * NQ_JOIN_CHUNK_BITS;
    memset(js->occ, 0, (size_t)rows * sizeof js->occ[0]);
    /* Transpose: member i goes into occ[j] for each bit j it has. */
    for (size_t i = 0; i < len; i++) {
        uint64_t s = b[i];
        const uint64_t bit = UINT64_C(1) << (i & 63);
        while (s) {
            js->occ[__builtin_ctzll(s)][i >> 6] |= bit;
            s &= s - 1; /* clears the lowest set bit */
        }
    }
    uint64_t valid[NQ_JOIN_WORDS];
    for (int w = 0; w < NQ_JOIN_WORDS; w++) {
        const size_t lo = (size_t)w * 64;
        /* Members past len do not exist: they must never be counted. */
        valid[w] = len >= lo + 64 ? ~UINT64_C(0)
                   : len <= lo    ? 0
                                  : (UINT64_C(1) << (len - lo)) - 1;
    }
    for (int c = 0; c < nch; c++) {
        uint64_t (*t)[NQ_JOIN_WORDS] = js->table[c];
        memcpy(t[0], valid, sizeof valid);
        for (int v = 1; v < NQ_JOIN_CHUNK_VALUES; v++) {
            /* v = (v with its lowest bit cleared) plus that bit: reuse the
             * smaller entry and remove the members having the extra bit. */
            const uint64_t *prev = t[v & (v - 1)];
            const uint64_t *occ = js->occ[c * NQ_JOIN_CHUNK_BITS + __builtin_ctz((unsigned)v)];
            for (int w = 0; w < NQ_JOIN_WORDS; w++)
                t[v][w] = prev[w] & ~occ[w];
        }
    }
}

/* The hot loop: sum over queries of |compatible members of the block|.
 * Inlined per constant nch so the chunk loop is fully unrolled. */
static inline __attribute__((always_inline)) uint64_t
block_queries(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch)
{
#ifdef NQ_JOIN_AVX512
    __m512i sum = _mm512_setzero_si512();
    for (size_t i = 0; i < nq; i++) {
        const uint64_t s = q[i];
        __m512i acc = _mm512_load_si512((const void *)js->table[0][s & 31]);
        for (int c = 1; c < nch; c++)
            acc = _mm512_and_si512(
                acc, _mm512_load_si512((const void *)js->table[c][(s >> (5 * c)) & 31]));
        /* Per-lane popcounts summed lane-wise; reduced once per block. */
        sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(acc));
    }
    return (uint64_t)_mm512_reduce_add_epi64(sum);
#else
    uint64_t total = 0;
    for (size_t i = 0; i < nq; i++) {
        const uint64_t s = q[i];
        uint64_t acc[NQ_JOIN_WORDS];
        memcpy(acc, js->table[0][s & 31], sizeof acc);
        for (int c = 1; c < nch; c++) {
            const uint64_t *t = js->table[c][(s >> (5 * c)) & 31];
            for (int w = 0; w < NQ_JOIN_WORDS; w++)
                acc[w] &= t[w];
        }
        for (int w = 0; w < NQ_JOIN_WORDS; w++)
            total += (uint64_t)__builtin_popcountll(acc[w]);
    }
    return total;
#endif
}

static uint64_t block_queries_any(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch)
{
    switch (nch) {
    case 7: return block_queries(js, q, nq, 7);   /* N = 18, 19 */
    case 8: return block_queries(js, q, nq, 8);   /* N = 20, 21 */
    case 9: return block_queries(js, q, nq, 9);   /* N = 22, 23 */
    default: return block_queries(js, q, nq, nch);
    }
}

uint64_t nq_join_count(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, int bits,
                       nq_join_scratch *js)
{
    if (na == 0 || nb == 0)
        return 0;
    if ((uint64_t)na * nb <= NQ_JOIN_NAIVE_PAIRS)
        return nq_join_count_naive(a, na, b, nb);
    /* The longer list is sliced into blocks, so blocks are as full as
     * possible and the per-block table cost is spread over more queries. */
    if (na > nb) {
        const uint64_t *t = a;
        a = b;
        b = t;
        size_t tn = na;
        na = nb;
        nb = tn;
    }
    const int nch = (bits + NQ_JOIN_CHUNK_BITS - 1) / NQ_JOIN_CHUNK_BITS;
    uint64_t count = 0;
    for (size_t first = 0; first < nb; first += NQ_JOIN_BLOCK) {
        const size_t len = nb - first < NQ_JOIN_BLOCK ? nb - first : NQ_JOIN_BLOCK;
        build_block(js, b + first, len, nch);
        count += block_queries_any(js, a, na, nch);
    }
    return count;
}

/* Sorts v[0 .. n) by class (the split bits gathered into a k-bit number)
 * into out[], with the split bits removed, and fills first[0 .. 2^k] with
 * the class boundaries.  `holes` lists the split positions descending, so
 * removing one never moves a position still to be removed. */
static void split_sort(const uint64_t *v, size_t n, const int *split, const int *holes, int k,
                       uint64_t *out, size_t *first)
{
    const size_t classes = (size_t)1 << k;
    memset(first, 0, (classes + 1) * sizeof *first);
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        for (int j = 0; j < k; j++)
            c |= (size_t)(v[i] >> split[j] & 1) << j;
        first[c + 1]++;
    }
    for (size_t c = 0; c < classes; c++) /* first[c + 1] = end of class c */
        first[c + 1] += first[c];
    size_t at[1 << NQ_JOIN_MAX_SPLIT];
    memcpy(at, first, classes * sizeof *at);
    for (size_t i = 0; i < n; i++) {
        uint64_t s = v[i];
        size_t c = 0;
        for (int j = 0; j < k; j++)
            c |= (size_t)(s >> split[j] & 1) << j;
        for (int j = 0; j < k; j++) {
            /* Drop bit p: keep the bits below it, shift those above down. */
            const uint64_t low = (UINT64_C(1) << holes[j]) - 1;
            s = (s & low) | (s >> 1 & ~low);
        }
        out[at[c]++] = s;
    }
}

uint64_t nq_join_count_split(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, int bits,
                             const int *split, int k, uint64_t *a_tmp, uint64_t *b_tmp,
                             nq_join_scratch *js)
{
    if (k <= 0 || na == 0 || nb == 0 || (uint64_t)na * nb <= NQ_JOIN_NAIVE_PAIRS)
        return nq_join_count(a, na, b, nb, bits, js);
    if (na > nb) { /* b, the longer list, is the block side */
        const uint64_t *t = a;
        a = b;
        b = t;
        size_t tn = na;
        na = nb;
        nb = tn;
        uint64_t *tt = a_tmp;
        a_tmp = b_tmp;
        b_tmp = tt;
    }
    int holes[NQ_JOIN_MAX_SPLIT];
    memcpy(holes, split, (size_t)k * sizeof *holes);
    for (int i = 1; i < k; i++) /* insertion sort, descending */
        for (int j = i; j > 0 && holes[j] > holes[j - 1]; j--) {
            const int t = holes[j];
            holes[j] = holes[j - 1];
            holes[j - 1] = t;
        }
    size_t a_first[(1 << NQ_JOIN_MAX_SPLIT) + 1], b_first[(1 << NQ_JOIN_MAX_SPLIT) + 1];
    split_sort(a, na, split, holes, k, a_tmp, a_first);
    split_sort(b, nb, split, holes, k, b_tmp, b_first);
    const int left = bits - k;
    const int nch = left > 0 ? (left + NQ_JOIN_CHUNK_BITS - 1) / NQ_JOIN_CHUNK_BITS : 1;
    const unsigned all = (1u << k) - 1;
    uint64_t count = 0;
    for (unsigned y = 0; y <= all; y++) {
        const size_t end = b_first[y + 1];
        for (size_t first = b_first[y]; first < end; first += NQ_JOIN_BLOCK) {
            const size_t len = end - first < NQ_JOIN_BLOCK ? end - first : NQ_JOIN_BLOCK;
            build_block(js, b_tmp + first, len, nch);
            /* Query classes x with x & y == 0: the subsets of ~y, walked
             * by x = (x - 1) & c, which visits each subset once. */
            const unsigned c = all & ~y;
            for (unsigned x = c;; x = (x - 1) & c) {
                const size_t qn = a_first[x + 1] - a_first[x];
                if (qn)
                    count += block_queries_any(js, a_tmp + a_first[x], qn, nch);
                if (x == 0)
                    break;
            }
        }
    }
    return count;
}
