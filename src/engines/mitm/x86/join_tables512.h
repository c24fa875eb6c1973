/*
 * join_tables512.h - a block's tables from its transposed rows, one
 * 512-bit register an entry: shared by the two AVX-512 join kernels
 * (x86/join_avx512.c, x86/join_avx512bw.c), whose transposes differ.
 * Compiled for AVX-512 F alone, so it inlines into either.
 */
#ifndef NQ_JOIN_TABLES512_H
#define NQ_JOIN_TABLES512_H

#include <immintrin.h>

#include "engines/mitm/join_kernels.h"

#define NQ_TARGET_AVX512F __attribute__((target("avx512f")))

/* Every AND of the complements of occ rows 0 .. n - 1 with `first`:
 * out[v] = first & ~(the rows of the bits of v), doubling the list per
 * row. */
NQ_TARGET_AVX512F static inline __attribute__((always_inline)) void
nq_join_subset_ands512(__m512i *out, const uint64_t (*occ)[NQ_JOIN_WORDS], int n, __m512i first)
{
    out[0] = first;
    for (int i = 0; i < n; i++) {
        const __m512i row = _mm512_load_si512((const void *)occ[i]);
        for (int v = 0; v < 1 << i; v++)
            out[v | 1 << i] = _mm512_andnot_si512(row, out[v]);
    }
}

/* js->table[0 .. nch) from js->occ for a block of len members: each
 * chunk's 2^c entries as the products of its low four bits' 16 ANDs and
 * its high bits' ones, so every entry is one AND of two values already
 * made, and no entry waits on the store of another. */
NQ_TARGET_AVX512F static inline __attribute__((always_inline)) void
nq_join_tables512(nq_join_scratch *js, size_t len, int nch, int cbits)
{
    uint64_t live[NQ_JOIN_WORDS] __attribute__((aligned(64)));
    nq_join_live_members(len, live);
    const int low_bits = cbits < 4 ? cbits : 4, high_bits = cbits - low_bits;
    for (int c = 0; c < nch; c++) {
        __m512i low[16], high[1 << (NQ_JOIN_CHUNK_BITS_MAX - 4)];
        nq_join_subset_ands512(low, (const uint64_t(*)[NQ_JOIN_WORDS])js->occ[c * cbits],
                               low_bits, _mm512_load_si512((const void *)live));
        nq_join_subset_ands512(high,
                               (const uint64_t(*)[NQ_JOIN_WORDS])js->occ[c * cbits + low_bits],
                               high_bits, _mm512_set1_epi64(-1));
        uint64_t(*t)[NQ_JOIN_WORDS] = js->table[c];
        for (int hv = 0; hv < 1 << high_bits; hv++)
            for (int lv = 0; lv < 1 << low_bits; lv++)
                _mm512_store_si512((void *)t[hv << low_bits | lv],
                                   _mm512_and_si512(low[lv], high[hv]));
    }
}

#endif /* NQ_JOIN_TABLES512_H */
