/*
 * join.c - the bit-sliced disjoint-pair counter (see join.h).
 *
 * The longer list is cut into blocks of 512 signatures and each block is
 * stored transposed: for every signature bit j, one 512-bit set of the
 * block's members that have bit j.  A query q is compatible with exactly
 * the members that lack every bit of q, i.e. the AND over the set bits j of
 * q of the complements of those sets.  Rather than one AND per set bit, the
 * bits are taken c = 6 (or 7 or 8, see join.h) at a time: for each c-bit chunk
 * of the signature a table of all 2^c possible ANDs is precomputed per
 * block, so a query costs ceil(bits / c) 512-bit ANDs and one popcount for
 * 512 candidates.  Blocks are the outer loop and queries the inner one, so
 * a block's tables (4 KiB per 6-bit chunk: 24 KiB at N = 18) stay in the
 * L1 cache, or at N >= 20 (16 KiB per 8-bit chunk) in L2, while every query
 * streams past them.  A query's table offsets are recomputed per block:
 * a few shifts cost less than storing them once per join and loading them.
 *
 * nq_join_count_split() first cuts both lists on the bits most of their
 * pairs share: pairs that share the bit are skipped wholesale.  The bit is
 * chosen from a sample of both lists, since fixed central bits cut them
 * into classes too uneven to pay; only long lists (N >= 20) are cut.
 *
 * The transpose and the query loop come per architecture (join_kernels.h):
 * the portable ones are here, with the table that is the only place a
 * kernel's loops are chosen; the x86-64 ones are in x86/.
 */
#include <string.h>

#include "engines/mitm/join.h"
#include "engines/mitm/join_kernels.h"

/* Below this many pairs, building tables costs more than it saves. */
#define NQ_JOIN_NAIVE_PAIRS 2048

/* nq_join_count_split: lists shorter than this are not split further (the
 * split's passes and smaller blocks cost more than the pairs it skips),
 * and the bit to split on is judged from this many members of each list. */
#define NQ_JOIN_SPLIT_MIN 2048
#define NQ_JOIN_SAMPLE 128

uint64_t nq_join_count_naive(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    uint64_t count = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            count += (a[i] & b[j]) == 0;
    return count;
}

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
block_queries_scalar(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch, int cbits)
{
    const uint64_t cmask = (UINT64_C(1) << cbits) - 1;
    uint64_t total = 0;
    for (size_t i = 0; i < nq; i++) {
        const uint64_t s = q[i];
        uint64_t acc[NQ_JOIN_WORDS];
        memcpy(acc, js->table[0][s & cmask], sizeof acc);
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

static uint64_t queries_scalar(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch,
                               int cbits)
{
    NQ_JOIN_SPECIALIZE(block_queries_scalar);
}

/* A kernel's two loops. */
typedef struct join_loops {
    nq_join_transpose_fn *transpose;
    nq_join_queries_fn *queries;
} join_loops;

/* The dispatch point: each kernel's loops, indexed by kernel.  A kernel
 * this build lacks keeps NULL entries; nq_join_kernel_in_use() never
 * returns it. */
static const join_loops kernel_loops[NQ_JOIN_KERNEL_AVX512 + 1] = {
    [NQ_JOIN_KERNEL_SCALAR] = {transpose_scalar, queries_scalar},
#ifdef NQ_JOIN_X86
    [NQ_JOIN_KERNEL_AVX2] = {transpose_scalar, nq_join_queries_avx2},
    [NQ_JOIN_KERNEL_AVX512] = {nq_join_transpose_avx512, nq_join_queries_avx512},
#endif
};

int nq_join_kernel_supported(enum nq_join_kernel kernel)
{
    switch (kernel) {
    case NQ_JOIN_KERNEL_SCALAR:
        return 1;
#ifdef NQ_JOIN_X86
    case NQ_JOIN_KERNEL_AVX2:
        return __builtin_cpu_supports("avx2");
    case NQ_JOIN_KERNEL_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
#endif
    default:
        return 0;
    }
}

/* The kernel joins run with: -1 until the first join picks the best this
 * CPU supports.  Relaxed atomics: every thread that races to pick it
 * stores the same value. */
static int join_kernel = -1;

enum nq_join_kernel nq_join_kernel_in_use(void)
{
    int k = __atomic_load_n(&join_kernel, __ATOMIC_RELAXED);
    if (k < 0) {
        k = nq_join_kernel_supported(NQ_JOIN_KERNEL_AVX512) ? NQ_JOIN_KERNEL_AVX512
            : nq_join_kernel_supported(NQ_JOIN_KERNEL_AVX2) ? NQ_JOIN_KERNEL_AVX2
                                                            : NQ_JOIN_KERNEL_SCALAR;
        __atomic_store_n(&join_kernel, k, __ATOMIC_RELAXED);
    }
    return (enum nq_join_kernel)k;
}

int nq_join_use_kernel(enum nq_join_kernel kernel)
{
    if (!nq_join_kernel_supported(kernel))
        return -1;
    __atomic_store_n(&join_kernel, (int)kernel, __ATOMIC_RELAXED);
    return 0;
}

/* Fills js->table for the block b[0 .. len), len <= NQ_JOIN_BLOCK, for
 * chunks 0 .. nch-1 of cbits bits each, transposing with `transpose`. */
static void build_block(nq_join_scratch *js, nq_join_transpose_fn *transpose, const uint64_t *b,
                        size_t len, int nch, int cbits)
{
    transpose(js, b, len, nch * cbits);
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
        for (int v = 1; v < 1 << cbits; v++) {
            /* v = (v with its lowest bit cleared) plus that bit: reuse the
             * smaller entry and remove the members having the extra bit. */
            const uint64_t *prev = t[v & (v - 1)];
            const uint64_t *occ = js->occ[c * cbits + __builtin_ctz((unsigned)v)];
            for (int w = 0; w < NQ_JOIN_WORDS; w++)
                t[v][w] = prev[w] & ~occ[w];
        }
    }
}

/* Rough cost, in cycles, of slicing a list of nb into blocks and running
 * na queries against them: transposing and tabling each block, then a few
 * cycles per query and block.  Used only to choose the block side. */
static double join_cost(size_t na, size_t nb)
{
    const double blocks = (double)((nb + NQ_JOIN_BLOCK - 1) / NQ_JOIN_BLOCK);
    return 15.0 * (double)nb + 1500.0 * blocks + 6.0 * (double)na * blocks;
}

uint64_t nq_join_count(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, int bits,
                       nq_join_scratch *js)
{
    if (na == 0 || nb == 0)
        return 0;
    if ((uint64_t)na * nb <= NQ_JOIN_NAIVE_PAIRS)
        return nq_join_count_naive(a, na, b, nb);
    /* b becomes the sliced list: whichever choice the cost model prefers
     * (full blocks favour the longer list, transposing the shorter). */
    if (join_cost(nb, na) < join_cost(na, nb)) {
        const uint64_t *t = a;
        a = b;
        b = t;
        size_t tn = na;
        na = nb;
        nb = tn;
    }
    /* Narrow signatures: 6-bit chunks, whose tables stay in L1.  Wide ones:
     * 8-bit chunks where they save a look-up over 7-bit ones, else 7. */
    int cbits = NQ_JOIN_CHUNK_BITS_MIN;
    if (bits >= NQ_JOIN_WIDE_BITS)
        cbits = (bits + 7) / 8 < (bits + 6) / 7 ? 8 : 7;
    const int nch = (bits + cbits - 1) / cbits;
    const join_loops *loops = &kernel_loops[nq_join_kernel_in_use()];
    uint64_t count = 0;
    for (size_t first = 0; first < nb; first += NQ_JOIN_BLOCK) {
        const size_t len = nb - first < NQ_JOIN_BLOCK ? nb - first : NQ_JOIN_BLOCK;
        build_block(js, loops->transpose, b + first, len, nch, cbits);
        count += loops->queries(js, a, na, nch, cbits);
    }
    return count;
}

/* Moves the members of v[0 .. n) that lack bit j to the front, in place,
 * and returns how many there are.  Branch-free (which side a member goes
 * to is a coin toss): each member is swapped with the first of those that
 * have the bit, and the boundary advances only when it lacks the bit. */
static size_t move_lacking_first(uint64_t *v, size_t n, int j)
{
    size_t lacking = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = v[i];
        v[i] = v[lacking];
        v[lacking] = x;
        lacking += !(x >> j & 1);
    }
    return lacking;
}

/* The bit that the most pairs share, judged from up to NQ_JOIN_SAMPLE
 * members of each list spread evenly over it. */
static int most_shared_bit(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, int bits)
{
    uint64_t in_a[NQ_JOIN_MAX_BITS] = {0}, in_b[NQ_JOIN_MAX_BITS] = {0};
    const size_t step_a = na > NQ_JOIN_SAMPLE ? na / NQ_JOIN_SAMPLE : 1;
    const size_t step_b = nb > NQ_JOIN_SAMPLE ? nb / NQ_JOIN_SAMPLE : 1;
    for (size_t i = 0; i < na; i += step_a)
        for (int j = 0; j < bits; j++)
            in_a[j] += a[i] >> j & 1;
    for (size_t i = 0; i < nb; i += step_b)
        for (int j = 0; j < bits; j++)
            in_b[j] += b[i] >> j & 1;
    int best = 0;
    for (int j = 1; j < bits; j++)
        if (in_a[j] * in_b[j] > in_a[best] * in_b[best])
            best = j;
    return best;
}

uint64_t nq_join_count_split(uint64_t *a, size_t na, uint64_t *b, size_t nb, int bits, int depth,
                             nq_join_scratch *js)
{
    if (depth <= 0 || na < NQ_JOIN_SPLIT_MIN || nb < NQ_JOIN_SPLIT_MIN)
        return nq_join_count(a, na, b, nb, bits, js);
    const int j = most_shared_bit(a, na, b, nb, bits);
    const size_t a0 = move_lacking_first(a, na, j), b0 = move_lacking_first(b, nb, j);
    /* A pair is compatible only if at most one side has bit j: the members
     * of a having it meet only b's members lacking it.  That join goes
     * first, while b is still cut at j; the second reorders all of b. */
    uint64_t count = nq_join_count_split(a + a0, na - a0, b, b0, bits, depth - 1, js);
    count += nq_join_count_split(a, a0, b, nb, bits, depth - 1, js);
    return count;
}
