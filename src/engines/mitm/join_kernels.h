/*
 * join_kernels.h - the two inner parts of the bit-sliced join, a block's
 * tables and the query loop over its runs, as each architecture implements
 * them (see join.c for the method).
 *
 * join_kernels.c holds the portable versions; x86/join_avx2.c and
 * x86/join_avx512.c hold the vector ones, each compiled for its own
 * instruction set (a target attribute on every function), so any x86-64
 * build carries them.  The engine's kernels.c holds the table of each
 * kernel's pair and maps the process's kernel level (core/kernel.h) to
 * its kernel, the default of every job's tuning (mitm.h).
 */
#ifndef NQ_JOIN_KERNELS_H
#define NQ_JOIN_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "engines/mitm/join.h"

/* The x86-64 kernels are built (meson adds x86/ on x86-64 hosts). */
#if defined(__x86_64__) && defined(__GNUC__)
#define NQ_JOIN_X86 1
#endif

/* Fills js->table[0 .. nch) for the block b[0 .. len), len <= NQ_JOIN_BLOCK,
 * chunks of cbits bits: table[c][v] is the set of the block's members that
 * have none of the bits of value v of chunk c (members past len never
 * belong).  js->occ is the kernel's working space. */
typedef void nq_join_build_fn(nq_join_scratch *js, const uint64_t *b, size_t len, int nch,
                              int cbits);

/* The sum, over the runs runs[0 .. nruns) of the query list q, of the run's
 * weight times the number of (query, member) pairs the block's tables
 * (nch chunks of cbits bits) find compatible, counting for each run only
 * the members in its mask (js->masks[mask], or all of them). */
typedef uint64_t nq_join_queries_fn(const nq_join_scratch *js, const uint64_t *q,
                                    const nq_join_run *runs, size_t nruns, int nch, int cbits);

/* Copies the queries of q[0 .. n) that hold no bit of `shared` to out,
 * in order, and returns how many; out has room for n + 7 (a vector
 * kernel stores eight at a time, past the last it keeps). */
typedef size_t nq_join_filter_fn(const uint64_t *q, size_t n, uint64_t shared, uint64_t *out);

/* The runs loop every kernel shares around its always-inline query loop
 * `kernel` (js, q, nq, nch, cbits, mask, half; half is the run's
 * nq_join_run.half, which a kernel may ignore): one call per block keeps
 * the dispatch and the call out of each run. */
#define NQ_JOIN_RUNS(kernel, js, q, runs, nruns, nch, cbits)                                      \
    do {                                                                                           \
        uint64_t total_ = 0;                                                                       \
        for (size_t r_ = 0; r_ < (nruns); r_++) {                                                  \
            const nq_join_run *run_ = &(runs)[r_];                                                 \
            total_ += run_->weight *                                                               \
                      kernel((js), (q) + run_->begin, run_->end - run_->begin, (nch), (cbits),     \
                             run_->mask == NQ_JOIN_ALL_MEMBERS ? NULL : (js)->masks[run_->mask],   \
                             run_->half);                                                          \
        }                                                                                          \
        return total_;                                                                             \
    } while (0)

/* The members a block of len <= NQ_JOIN_BLOCK has, as a 512-bit set:
 * members past len do not exist and must never be counted. */
static inline void nq_join_live_members(size_t len, uint64_t live[NQ_JOIN_WORDS])
{
    for (int w = 0; w < NQ_JOIN_WORDS; w++) {
        const size_t lo = (size_t)w * 64;
        live[w] = len >= lo + 64 ? ~UINT64_C(0) : len <= lo ? 0 : (UINT64_C(1) << (len - lo)) - 1;
    }
}

/* Members first .. first + size - 1 of b[0 .. len) (first < len), for a
 * transpose that loads `size` members at a time: b + first itself, or,
 * where fewer remain, their copy in pad[0 .. size) zero-filled past the
 * last, so that no load reads past b[len). */
static inline const uint64_t *nq_join_group(const uint64_t *b, size_t len, size_t first,
                                            size_t size, uint64_t *pad)
{
    if (len - first >= size)
        return b + first;
    memset(pad, 0, size * sizeof *pad);
    memcpy(pad, b + first, (len - first) * sizeof *pad);
    return pad;
}

/* The rows of js->occ a block's transpose fills for nch chunks of cbits
 * bits: at most 64, one per signature bit.  Chunks past the signature's
 * 64 bits (6-bit chunks of 64 bits) read rows no member has, so those are
 * cleared here. */
static inline int nq_join_transposed_rows(nq_join_scratch *js, int nch, int cbits)
{
    const int rows = nch * cbits;
    for (int j = 64; j < rows; j++)
        memset(js->occ[j], 0, sizeof js->occ[j]);
    return rows < 64 ? rows : 64;
}

/* A kernel's loops. */
typedef struct nq_join_loops {
    nq_join_build_fn *build;
    nq_join_queries_fn *queries;
    nq_join_filter_fn *filter;
} nq_join_loops;

/* The loops of a supported kernel (kernels.c). */
const nq_join_loops *nq_join_loops_of(enum nq_join_kernel kernel);

nq_join_build_fn nq_join_build_portable;
nq_join_queries_fn nq_join_queries_portable;
nq_join_filter_fn nq_join_filter_portable;
#ifdef NQ_JOIN_X86
nq_join_filter_fn nq_join_filter_avx512;
nq_join_build_fn nq_join_build_avx2;
nq_join_build_fn nq_join_build_avx512bw;
nq_join_build_fn nq_join_build_avx512;
nq_join_queries_fn nq_join_queries_avx512;
nq_join_queries_fn nq_join_queries_avx2;
nq_join_queries_fn nq_join_queries_avx512bw;
#endif

/* The chunk layouts the engine uses (N = 16 .. 28, with and without the
 * key bits), each a constant call of `kernel` (an always-inline loop over
 * nch chunks of cbits bits) so that its chunk loop is fully unrolled; any
 * other layout takes the generic copy.  For use inside an
 * nq_join_queries_fn, whose parameters it names; it returns. */
#define NQ_JOIN_SPECIALIZE(kernel)                                                                 \
    do {                                                                                           \
        if (cbits == 6 && nch == 4)                                                                \
            NQ_JOIN_RUNS(kernel, js, q, runs, nruns, 4, 6);                                        \
        if (cbits == 6 && nch == 5)                                                                \
            NQ_JOIN_RUNS(kernel, js, q, runs, nruns, 5, 6);                                        \
        if (cbits == 6 && nch == 6)                                                                \
            NQ_JOIN_RUNS(kernel, js, q, runs, nruns, 6, 6);                                        \
        if (cbits == 7 && nch == 4)                                                                \
            NQ_JOIN_RUNS(kernel, js, q, runs, nruns, 4, 7);                                        \
        if (cbits == 7 && nch == 5)                                                                \
            NQ_JOIN_RUNS(kernel, js, q, runs, nruns, 5, 7);                                        \
        if (cbits == 7 && nch == 6)                                                                \
            NQ_JOIN_RUNS(kernel, js, q, runs, nruns, 6, 7);                                        \
        if (cbits == 8 && nch == 4)                                                                \
            NQ_JOIN_RUNS(kernel, js, q, runs, nruns, 4, 8);                                        \
        if (cbits == 8 && nch == 5)                                                                \
            NQ_JOIN_RUNS(kernel, js, q, runs, nruns, 5, 8);                                        \
        if (cbits == 8 && nch == 6)                                                                \
            NQ_JOIN_RUNS(kernel, js, q, runs, nruns, 6, 8);                                        \
        if (cbits == 8 && nch == 7)                                                                \
            NQ_JOIN_RUNS(kernel, js, q, runs, nruns, 7, 8);                                        \
        if (cbits == 9 && nch == 4)                                                                \
            NQ_JOIN_RUNS(kernel, js, q, runs, nruns, 4, 9);                                        \
        if (cbits == 10 && nch == 4)                                                               \
            NQ_JOIN_RUNS(kernel, js, q, runs, nruns, 4, 10);                                       \
        NQ_JOIN_RUNS(kernel, js, q, runs, nruns, nch, cbits);                                      \
    } while (0)

#endif /* NQ_JOIN_KERNELS_H */
