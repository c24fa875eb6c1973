/*
 * kernels.h - the mitm engine's kernel copies (core/kernel.h) and the one
 * place that picks them (kernels.c).
 *
 * The sort (join_sort.c) is a kernel source: compiled once per kernel
 * level, its functions named per level; kernels.c defines the plain names
 * join.h declares, each calling the copy of this process's level, so the
 * callers (mitm.c) call a whole sort or sample as before.  The join's block
 * loops (join_kernels.h) are picked in the same place by the same level:
 * the portable ones in join_kernels.c, the x86-64 ones in x86/.
 */
#ifndef NQ_MITM_KERNELS_H
#define NQ_MITM_KERNELS_H

#include "core/kernel.h"
#include "engines/mitm/join.h"

typedef void nq_join_sample_bits_fn(const uint64_t *v, size_t n, int bits, uint32_t *count);
typedef void nq_join_pick_key_fn(const uint32_t *count_a, const uint32_t *count_b, int bits,
                                 int key_bits, nq_join_order *o);
typedef void nq_join_sort_fn(const uint64_t *src, size_t n, const nq_join_order *o,
                             uint16_t *tag, uint64_t *dst, nq_join_list *out);

NQ_KERNEL_DECLARE(nq_join_sample_bits_fn, nq_join_sample_bits);
NQ_KERNEL_DECLARE(nq_join_pick_key_fn, nq_join_pick_key);
NQ_KERNEL_DECLARE(nq_join_sort_fn, nq_join_sort);

#endif /* NQ_MITM_KERNELS_H */
