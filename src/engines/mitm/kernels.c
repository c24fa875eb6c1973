/*
 * kernels.c - the one place where the mitm engine picks its kernels, by
 * this process's kernel level (core/kernel.h): the copies of its kernel
 * sources (kernels.h), and the join kernel a job runs by default
 * (join_kernels.h: a job's tuning may name another, mitm.h).  Each call
 * here is a whole slice, batch of half-boards, sort, or join block, so the
 * table is read once per such call, never inside its loops.
 */
#include "engines/mitm/join_kernels.h"
#include "engines/mitm/kernels.h"

/* The kernel sources' copies, per level. */
typedef struct mitm_kernels {
    nq_quarter_slice_fill_store_fn *fill_store;
    nq_mitm_half_next_fn *half_next;
    nq_join_sample_bits_fn *sample_bits;
    nq_join_pick_key_fn *pick_key;
    nq_join_pick_key_by_pairs_fn *pick_key_by_pairs;
    nq_join_sort_fn *sort;
} mitm_kernels;

/* One row per level: every kernel source's copy for that level. */
#define MITM_KERNELS(level)                                                                        \
    {                                                                                              \
        NQ_KERNEL_CAT(nq_quarter_slice_fill_store, level),                                         \
            NQ_KERNEL_CAT(nq_mitm_half_next, level), NQ_KERNEL_CAT(nq_join_sample_bits, level),    \
            NQ_KERNEL_CAT(nq_join_pick_key, level),                                                \
            NQ_KERNEL_CAT(nq_join_pick_key_by_pairs, level), NQ_KERNEL_CAT(nq_join_sort, level)    \
    }

static const mitm_kernels copies[NQ_KERNEL_LEVELS] = {
    [NQ_KERNEL_PORTABLE] = MITM_KERNELS(_portable),
    [NQ_KERNEL_AVX2] = MITM_KERNELS(_avx2),
    [NQ_KERNEL_AVX512] = MITM_KERNELS(_avx512),
    [NQ_KERNEL_AVX512ICL] = MITM_KERNELS(_avx512icl),
};

static const mitm_kernels *in_use(void)
{
    return &copies[nq_kernel_level_or_portable()];
}

void nq_quarter_slice_fill_store(nq_quarter_slice *s, const nq_quarter_store *qs, int h,
                                 uint32_t rows, const nq_quarter_frame *f)
{
    in_use()->fill_store(s, qs, h, rows, f);
}

size_t nq_mitm_half_next(const mitm_plan *p, half_iter *it, uint64_t sig_or, uint64_t *out,
                         size_t cap)
{
    return in_use()->half_next(p, it, sig_or, out, cap);
}

void nq_join_sample_bits(const uint64_t *v, size_t n, int bits, uint32_t *count)
{
    in_use()->sample_bits(v, n, bits, count);
}

void nq_join_pick_key(const uint32_t *count_a, const uint32_t *count_b, int bits, int key_bits,
                      nq_join_order *o)
{
    in_use()->pick_key(count_a, count_b, bits, key_bits, o);
}

void nq_join_pick_key_by_pairs(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
                               int bits, int key_bits, nq_join_order *o)
{
    in_use()->pick_key_by_pairs(a, na, b, nb, bits, key_bits, o);
}

void nq_join_sort(uint64_t *src, size_t n, const nq_join_order *o, uint16_t *tag,
                  nq_join_scratch *js, uint64_t *dst, nq_join_list *out)
{
    in_use()->sort(src, n, o, tag, js, dst, out);
}

/* The join's block loops, per join kernel.  Off x86-64 the vector
 * kernels are not built, and their levels are never supported. */
static const nq_join_loops join_loops[NQ_JOIN_KERNEL_AVX512 + 1] = {
    [NQ_JOIN_KERNEL_SCALAR] = {nq_join_build_portable, nq_join_queries_portable,
                               nq_join_filter_portable},
#ifdef NQ_JOIN_X86
    [NQ_JOIN_KERNEL_AVX2] = {nq_join_build_avx2, nq_join_queries_avx2, nq_join_filter_portable},
    [NQ_JOIN_KERNEL_AVX512BW] = {nq_join_build_avx512bw, nq_join_queries_avx512bw,
                                 nq_join_filter_avx512},
    [NQ_JOIN_KERNEL_AVX512] = {nq_join_build_avx512, nq_join_queries_avx512,
                               nq_join_filter_avx512},
#endif
};

/* The join kernel of each kernel level: the AVX-512 one needs VBMI,
 * VPOPCNTDQ and GFNI, which the plain AVX-512 level lacks; that level
 * (Skylake, Cascade Lake) has its own query loop. */
static const enum nq_join_kernel join_of_level[NQ_KERNEL_LEVELS] = {
    [NQ_KERNEL_PORTABLE] = NQ_JOIN_KERNEL_SCALAR,
    [NQ_KERNEL_AVX2] = NQ_JOIN_KERNEL_AVX2,
    [NQ_KERNEL_AVX512] = NQ_JOIN_KERNEL_AVX512BW,
    [NQ_KERNEL_AVX512ICL] = NQ_JOIN_KERNEL_AVX512,
};

int nq_join_kernel_supported(enum nq_join_kernel kernel)
{
    switch (kernel) {
    case NQ_JOIN_KERNEL_SCALAR:
        return 1;
    case NQ_JOIN_KERNEL_AVX2:
        return join_loops[kernel].queries && nq_kernel_supported(NQ_KERNEL_AVX2);
    case NQ_JOIN_KERNEL_AVX512BW:
        return join_loops[kernel].queries && nq_kernel_supported(NQ_KERNEL_AVX512);
    case NQ_JOIN_KERNEL_AVX512:
        return join_loops[kernel].queries && nq_kernel_supported(NQ_KERNEL_AVX512ICL);
    default:
        return 0;
    }
}

enum nq_join_kernel nq_join_kernel_default(void)
{
    return join_of_level[nq_kernel_level_or_portable()];
}

const nq_join_loops *nq_join_loops_of(enum nq_join_kernel kernel)
{
    return &join_loops[kernel];
}
