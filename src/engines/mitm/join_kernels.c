/*
 * join_kernels.c - the join's portable kernel (see join_kernels.h; the
 * engine's kernels.c picks a kernel by the process's kernel level).
 *
 * The portable kernel works on 64-bit words: a scalar transpose of the
 * block, tables built entry by entry, and per query one AND per chunk on
 * each of a block's eight words.  The x86-64 kernels (x86/) are compiled
 * into every x86-64 build, each function for its own instruction set, so
 * a portable build runs the fastest one the machine has.
 */
#include <string.h>

#include "engines/mitm/join.h"
#include "engines/mitm/join_kernels.h"

/* The portable transpose: member i goes into occ[j] for each bit j it has. */
static void transpose_scalar(nq_join_scratch *js, const uint64_t *b, size_t len, int rows)
{
    memset(js->occ, 0, (size_t)rows * sizeof js->occ[0]);
    for (size_t i = 0; i < len; i++) {
        uint64_t s = b[i];
        const uint64_t bit = UINT64_C(1) << (i & 63);
        while (s) {
            js->occ[__builtin_ctzll(s)][i >> 6] |= bit;
            s &= s - 1; /* clears the lowest set bit */
        }
    }
}

/* Hot loop of the portable kernel: per query, one AND per chunk on each of
 * the eight words, then their popcounts. */
static inline __attribute__((always_inline)) uint64_t
block_queries_scalar(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch, int cbits,
                     const uint64_t *mask)
{
    const uint64_t cmask = (UINT64_C(1) << cbits) - 1;
    uint64_t total = 0;
    for (size_t i = 0; i < nq; i++) {
        const uint64_t s = q[i];
        uint64_t acc[NQ_JOIN_WORDS];
        memcpy(acc, js->table[0][s & cmask], sizeof acc);
        if (mask)
            for (int w = 0; w < NQ_JOIN_WORDS; w++)
                acc[w] &= mask[w];
        for (int c = 1; c < nch; c++) {
            const uint64_t *t = js->table[c][(s >> (cbits * c)) & cmask];
            for (int w = 0; w < NQ_JOIN_WORDS; w++)
                acc[w] &= t[w];
        }
        for (int w = 0; w < NQ_JOIN_WORDS; w++)
            total += (uint64_t)__builtin_popcountll(acc[w]);
    }
    return total;
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
    transpose_scalar(js, b, len, nch * cbits);
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

