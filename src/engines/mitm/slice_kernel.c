/*
 * slice_kernel.c - a kernel source of the mitm engine: a quarter's slice
 * filled from the store, each group filtered against the pre-placed
 * queens and converted in one pass (see quarter_slice.h).  Compiled once
 * per kernel level (core/kernel.h; kernels.c picks the copy), so the
 * AVX-512 copy runs the filter of x86/half_avx512.h (chosen in
 * half_kernels.h) inlined whole.
 */
#include <stdint.h>

#include "engines/mitm/kernels.h"
#include "engines/mitm/mitm_plan.h"

/* Keeps the placements of group g[0 .. len) that miss the pre-placed
 * queens' diagonals (f->p1, f->p2), writing each one's conflict word to cw
 * and signature to sig; returns how many were kept. */
static size_t filter_group(const nq_quarter_frame *f, const uint64_t *g, uint32_t len,
                           uint64_t *cw, uint64_t *sig)
{
#ifdef NQ_HALF_AVX512
    return nq_filter_group_avx512(f, g, len, cw, sig);
#else
    size_t kept = 0;
    for (uint32_t j = 0; j < len; j++) {
        const uint64_t l1 = g[j] & 0xffffffffu, l2 = g[j] >> 32;
        /* Always write, keep only when the pre-placed queens are missed. */
        nq_quarter_convert(f, l1, l2, &cw[kept], &sig[kept]);
        kept += ((l1 << f->to_global1 & f->p1) | (l2 << f->to_global2 & f->p2)) == 0;
    }
    return kept;
#endif
}

/* Bytes of the store asked for ahead of the group being filtered. */
#define FILL_AHEAD 512

/* The slice from the store: every column set of popcount(rows) columns, in
 * increasing order, its group filtered.  Those groups lie one after the
 * other in the store, so the walk reads one stretch front to back; the
 * hardware's prefetchers left most of its lines to come from memory as
 * the filter reached them (a short group at a time), so the walk asks
 * for the lines up to FILL_AHEAD bytes past each group first. */
void NQ_KERNEL_FN(nq_quarter_slice_fill_store)(nq_quarter_slice *s, const nq_quarter_store *qs,
                                               int h, uint32_t rows, const nq_quarter_frame *f)
{
    const int k = __builtin_popcount(rows);
    const uint32_t last = nq_last_same_popcount(k, h);
    size_t at = 0;
    uintptr_t asked = 0; /* the store's lines below this address were asked for */
    for (uint32_t cols = (UINT32_C(1) << k) - 1;; cols = nq_next_same_popcount(cols)) {
        const uint64_t *g;
        const uint32_t len = nq_quarter_group(qs, rows, cols, &g);
        if (!asked)
            asked = (uintptr_t)g;
        /* Addresses as integers: past the store's end they are no pointers,
         * and a prefetch there never faults. */
        for (const uintptr_t until = (uintptr_t)(g + len) + FILL_AHEAD; asked < until; asked += 64)
            __builtin_prefetch((const void *)asked);
        const size_t kept = filter_group(f, g, len, s->cw + at, s->sig + at);
        s->first[cols] = (uint32_t)at;
        s->size[cols] = (uint32_t)kept;
        at += kept;
        if (cols == last)
            break;
    }
    s->used = at;
}
