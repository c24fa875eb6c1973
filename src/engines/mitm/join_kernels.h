/*
 * join_kernels.h - the two inner loops of the bit-sliced join, as each
 * architecture implements them (see join.c for the method).
 *
 * join.c holds the portable versions and the one table that picks a
 * kernel's pair of loops; x86/join_avx2.c and x86/join_avx512.c hold the
 * vector ones, each compiled for its own instruction set (a target
 * attribute on every function), so any x86-64 build carries them and the
 * CPU decides at run time.
 */
#ifndef NQ_JOIN_KERNELS_H
#define NQ_JOIN_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "engines/mitm/join.h"

/* The x86-64 kernels are built (meson adds x86/ on x86-64 hosts). */
#if defined(__x86_64__) && defined(__GNUC__)
#define NQ_JOIN_X86 1
#endif

/* Fills js->occ rows 0 .. rows-1 from the block b[0 .. len): occ[j] is the
 * set of members having bit j (rows may pass bit 63; those rows are empty). */
typedef void nq_join_transpose_fn(nq_join_scratch *js, const uint64_t *b, size_t len, int rows);

/* The sum over the queries q[0 .. nq) of the number of the block's members
 * compatible with each, from js->table (nch chunks of cbits bits), counting
 * only the members in `mask` (NQ_JOIN_WORDS words, 64-byte aligned) when it
 * is not NULL. */
typedef uint64_t nq_join_queries_fn(const nq_join_scratch *js, const uint64_t *q, size_t nq,
                                    int nch, int cbits, const uint64_t *mask);

#ifdef NQ_JOIN_X86
nq_join_transpose_fn nq_join_transpose_avx512;
nq_join_queries_fn nq_join_queries_avx512;
nq_join_queries_fn nq_join_queries_avx2;
#endif

/* The chunk layouts the engine uses (N = 16 .. 27, with and without the
 * key bits), each a constant call of `kernel` (an always-inline loop over
 * nch chunks of cbits bits) so that its chunk loop is fully unrolled; any
 * other layout takes the generic copy.  For use inside an
 * nq_join_queries_fn, whose parameters it names. */
#define NQ_JOIN_SPECIALIZE(kernel)                                                                 \
    do {                                                                                           \
        if (cbits == 6 && nch == 4)                                                                \
            return kernel(js, q, nq, 4, 6, mask);                                                  \
        if (cbits == 6 && nch == 5)                                                                \
            return kernel(js, q, nq, 5, 6, mask);                                                  \
        if (cbits == 6 && nch == 6)                                                                \
            return kernel(js, q, nq, 6, 6, mask);                                                  \
        if (cbits == 7 && nch == 4)                                                                \
            return kernel(js, q, nq, 4, 7, mask);                                                  \
        if (cbits == 7 && nch == 5)                                                                \
            return kernel(js, q, nq, 5, 7, mask);                                                  \
        if (cbits == 7 && nch == 6)                                                                \
            return kernel(js, q, nq, 6, 7, mask);                                                  \
        if (cbits == 8 && nch == 4)                                                                \
            return kernel(js, q, nq, 4, 8, mask);                                                  \
        if (cbits == 8 && nch == 5)                                                                \
            return kernel(js, q, nq, 5, 8, mask);                                                  \
        if (cbits == 8 && nch == 6)                                                                \
            return kernel(js, q, nq, 6, 8, mask);                                                  \
        if (cbits == 8 && nch == 7)                                                                \
            return kernel(js, q, nq, 7, 8, mask);                                                  \
        return kernel(js, q, nq, nch, cbits, mask);                                                \
    } while (0)

#endif /* NQ_JOIN_KERNELS_H */
