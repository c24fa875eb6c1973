/*
 * kernels.h - the mitm engine's kernel copies (core/kernel.h) and the one
 * place that picks them (kernels.c).
 *
 * Three kernel sources are compiled once per kernel level, their functions
 * named per level: a slice filled from the store (slice_kernel.c), a batch
 * of half-boards (half_kernel.c) and the join's sort (join_sort.c).
 * kernels.c defines the plain names, each calling the copy of this
 * process's level, so a caller calls a whole slice, batch or sort as it
 * would any function.  The join's block loops (join_kernels.h) are picked
 * in the same place by the same level: the portable ones in
 * join_kernels.c, the x86-64 ones in x86/.
 */
#ifndef NQ_MITM_KERNELS_H
#define NQ_MITM_KERNELS_H

#include "core/kernel.h"
#include "engines/mitm/join.h"
#include "engines/mitm/mitm_plan.h"

typedef void nq_join_sample_bits_fn(const uint64_t *v, size_t n, int bits, uint32_t *count);
typedef void nq_join_pick_key_fn(const uint32_t *count_a, const uint32_t *count_b, int bits,
                                 int key_bits, nq_join_order *o);
typedef void nq_join_pick_key_by_pairs_fn(const uint64_t *a, size_t na, const uint64_t *b,
                                          size_t nb, int bits, int key_bits, nq_join_order *o);
typedef void nq_join_sort_fn(uint64_t *src, size_t n, const nq_join_order *o,
                             uint16_t *tag, nq_join_scratch *js, uint64_t *dst,
                             nq_join_list *out);

typedef void nq_quarter_slice_fill_store_fn(nq_quarter_slice *s, const nq_quarter_store *qs,
                                           int h, uint32_t rows, const nq_quarter_frame *f);
typedef size_t nq_mitm_half_next_fn(const mitm_plan *p, half_iter *it, uint64_t sig_or,
                                    uint64_t *out, size_t cap);

/* Fills slice s with the placements of the store qs on `rows` that miss
 * the queens placed beforehand (frame f), every group of the row set in
 * increasing column order (nq_quarter_slice_fill's store path). */
void nq_quarter_slice_fill_store(nq_quarter_slice *s, const nq_quarter_store *qs, int h,
                                 uint32_t rows, const nq_quarter_frame *f);

NQ_KERNEL_DECLARE(nq_quarter_slice_fill_store_fn, nq_quarter_slice_fill_store);
NQ_KERNEL_DECLARE(nq_mitm_half_next_fn, nq_mitm_half_next);
NQ_KERNEL_DECLARE(nq_join_sample_bits_fn, nq_join_sample_bits);
NQ_KERNEL_DECLARE(nq_join_pick_key_fn, nq_join_pick_key);
NQ_KERNEL_DECLARE(nq_join_pick_key_by_pairs_fn, nq_join_pick_key_by_pairs);
NQ_KERNEL_DECLARE(nq_join_sort_fn, nq_join_sort);

#endif /* NQ_MITM_KERNELS_H */
