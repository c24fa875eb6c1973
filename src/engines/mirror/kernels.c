/*
 * kernels.c - the one place where the mirror engine picks its kernel
 * copies: by this process's kernel level (core/kernel.h).
 */
#include "engines/mirror/kernels.h"

static const nq_mirror_kernels kernels[NQ_KERNEL_LEVELS] = {
    [NQ_KERNEL_PORTABLE] = {nq_mirror_count_portable},
    [NQ_KERNEL_AVX2] = {nq_mirror_count_avx2},
    [NQ_KERNEL_AVX512] = {nq_mirror_count_avx512},
};

const nq_mirror_kernels *nq_mirror_kernels_in_use(void)
{
    return &kernels[nq_kernel_level_or_portable()];
}
