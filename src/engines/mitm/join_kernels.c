/*
 * join_kernels.c - the join's portable kernel (see join_kernels.h; the
 * engine's kernels.c picks a kernel by the process's kernel level).
 *
 * The portable kernel works on 64-bit words: the block transposed 64
 * members at a time by swapping ever smaller quarters of a 64 x 64 bit
 * matrix, tables built entry by entry, and per query one AND per chunk on
 * each of a block's eight words.  The x86-64 kernels (x86/) are compiled
 * into every x86-64 build, each function for its own instruction set, so
 * a portable build runs the fastest one the machine has.
 */
#include <string.h>

#include "engines/mitm/join.h"
#include "engines/mitm/join_kernels.h"

/* Transposes the 64 x 64 bit matrix a in place (bit j of a[i] becomes bit
 * i of a[j]) in six rounds: round j swaps, in every pair of rows k and
 * k + j (k's bit j clear), the high j bits of each j-bit pair of a[k] with
 * the low j bits of a[k + j] -- the off-diagonal quarters of each 2j x 2j
 * block.  Branch-free and the same work for every block, where a test per
 * bit and member mispredicts on every signature. */
static void transpose64(uint64_t a[64])
{
    uint64_t m = UINT64_C(0x00000000ffffffff); /* the low j bits of each 2j bits */
    for (int j = 32; j; j >>= 1, m ^= m << j) {
        for (int first = 0; first < 64; first += 2 * j)
            for (int k = first; k < first + j; k++) {
                /* t: the bits that differ between the two quarters */
                const uint64_t t = ((a[k] >> j) ^ a[k + j]) & m;
                a[k] ^= t << j;
                a[k + j] ^= t;
            }
    }
}

/* The portable transpose of rows 0 .. rows - 1 (rows <= 64): 64 members
 * at a time, row j of each word the members' bit j (words past the block
 * empty). */
static void transpose_scalar(nq_join_scratch *js, const uint64_t *b, size_t len, int rows)
{
    for (int w = 0; w < NQ_JOIN_WORDS; w++) {
        const size_t at = (size_t)w * 64, n = at >= len ? 0 : len - at < 64 ? len - at : 64;
        uint64_t a[64] = {0};
        if (n) {
            memcpy(a, b + at, n * sizeof *a);
            transpose64(a);
        }
        for (int j = 0; j < rows; j++)
            js->occ[j][w] = a[j];
    }
}

/* Hot loop of the portable kernel over `words` words of each 512-bit set
 * from word `first` on (the whole block, or the half holding a run's
 * members): per query, one AND per chunk on each word, then their
 * popcounts. */
static inline __attribute__((always_inline)) uint64_t
words_queries(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch, int cbits,
              const uint64_t *mask, int first, int words)
{
    const uint64_t cmask = (UINT64_C(1) << cbits) - 1;
    uint64_t total = 0;
    for (size_t i = 0; i < nq; i++) {
        const uint64_t s = q[i];
        uint64_t acc[NQ_JOIN_WORDS];
        memcpy(acc, js->table[0][s & cmask] + first, (size_t)words * sizeof *acc);
        if (mask)
            for (int w = 0; w < words; w++)
                acc[w] &= mask[first + w];
        for (int c = 1; c < nch; c++) {
            const uint64_t *t = js->table[c][(s >> (cbits * c)) & cmask] + first;
            for (int w = 0; w < words; w++)
                acc[w] &= t[w];
        }
        for (int w = 0; w < words; w++)
            total += (uint64_t)__builtin_popcountll(acc[w]);
    }
    return total;
}

/* The portable query loop over the run's half of the block (nq_join_run),
 * or the whole of it: each half is four whole words. */
static inline __attribute__((always_inline)) uint64_t
block_queries_scalar(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch, int cbits,
                     const uint64_t *mask, int half)
{
    if (half == NQ_JOIN_BOTH_HALVES)
        return words_queries(js, q, nq, nch, cbits, mask, 0, NQ_JOIN_WORDS);
    return words_queries(js, q, nq, nch, cbits, mask, half * NQ_JOIN_WORDS / 2, NQ_JOIN_WORDS / 2);
}

uint64_t nq_join_queries_portable(const nq_join_scratch *js, const uint64_t *q,
                                  const nq_join_run *runs, size_t nruns, int nch, int cbits)
{
    NQ_JOIN_SPECIALIZE(block_queries_scalar);
}

/* The portable tables (nq_join_build_fn): the scalar transpose, then each
 * entry from a smaller one: v is (v with its lowest bit cleared) plus that
 * bit, so reuse that entry and remove the members having the extra bit. */
void nq_join_build_portable(nq_join_scratch *js, const uint64_t *b, size_t len, int nch, int cbits)
{
    transpose_scalar(js, b, len, nq_join_transposed_rows(js, nch, cbits));
    uint64_t live[NQ_JOIN_WORDS];
    nq_join_live_members(len, live);
    for (int c = 0; c < nch; c++) {
        uint64_t (*t)[NQ_JOIN_WORDS] = js->table[c];
        memcpy(t[0], live, sizeof live);
        for (int v = 1; v < 1 << cbits; v++) {
            const uint64_t *occ = js->occ[c * cbits + __builtin_ctz((unsigned)v)];
            /* Through a local copy: the compiler cannot see that t[v] never
             * overlaps the rows it reads, and would not vectorize. */
            uint64_t entry[NQ_JOIN_WORDS];
            memcpy(entry, t[v & (v - 1)], sizeof entry);
            for (int w = 0; w < NQ_JOIN_WORDS; w++)
                entry[w] &= ~occ[w];
            memcpy(t[v], entry, sizeof entry);
        }
    }
}

size_t nq_join_filter_portable(const uint64_t *q, size_t n, uint64_t shared, uint64_t *out)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        /* Every query is written; the next slot moves on past a kept one
         * alone: no branch to mispredict on queries kept at random. */
        out[kept] = q[i];
        kept += (q[i] & shared) == 0;
    }
    return kept;
}
