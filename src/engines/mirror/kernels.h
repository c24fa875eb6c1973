/*
 * kernels.h - the mirror engine's kernel table: its hot loop, a unit's
 * whole search, in one copy per kernel level (core/kernel.h), and the one
 * place that picks a copy (kernels.c).
 */
#ifndef NQ_MIRROR_KERNELS_H
#define NQ_MIRROR_KERNELS_H

#include <stdint.h>

#include "core/kernel.h"

/* The completions of a board with rows_left rows left (core/search.h's
 * nq_search_count(), with that level's finishers). */
typedef uint64_t nq_mirror_count_fn(int rows_left, uint32_t blocked_cols, uint32_t diag_left,
                                    uint32_t diag_right);

NQ_KERNEL_DECLARE(nq_mirror_count_fn, nq_mirror_count);

typedef struct nq_mirror_kernels {
    nq_mirror_count_fn *count;
} nq_mirror_kernels;

/* The copies of this process's kernel level (nq_kernel_level()). */
const nq_mirror_kernels *nq_mirror_kernels_in_use(void);

#endif /* NQ_MIRROR_KERNELS_H */
