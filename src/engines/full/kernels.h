/*
 * kernels.h - the full engine's kernel table: its hot loop, the count of a
 * constellation's completions, in one copy per kernel level
 * (core/kernel.h), and the one place that picks a copy (kernels.c).
 */
#ifndef NQ_FULL_KERNELS_H
#define NQ_FULL_KERNELS_H

#include <stdint.h>

#include "core/kernel.h"
#include "engines/full/constellation.h"

/* The completions of constellation c from `level`, with the given masks
 * for that level's row; c has no symmetry but the identity (count_kernel.c). */
typedef uint64_t nq_full_count_fn(const full_constellation *c, int level, uint32_t cols,
                                  uint32_t left, uint32_t right);

NQ_KERNEL_DECLARE(nq_full_count_fn, nq_full_count);

typedef struct nq_full_kernels {
    nq_full_count_fn *count;
} nq_full_kernels;

/* The copies of this process's kernel level (nq_kernel_level()). */
const nq_full_kernels *nq_full_kernels_in_use(void);

#endif /* NQ_FULL_KERNELS_H */
