/*
 * half_kernels.h - the inner loops that build a unit's half-boards, and
 * what they share: filtering a quarter's placements against the queens
 * placed beforehand, and pairing a north placement with the filtered
 * south ones.
 *
 * The portable loops are in half.c (pairing) and quarter_slice.c
 * (filtering); this header is the one place that chooses between them and
 * the AVX-512 ones of x86/half_avx512.h: a build that targets AVX-512F
 * (-march=native on such a CPU) gets those, and NQ_HALF_AVX512 tells each
 * loop to hand its work to them.  This choice is made at compile time
 * because the loops are inlined into their callers; the join's kernels,
 * called once per block, are chosen at run time (join_kernels.c).  All
 * are branch-free: which placements pass is unpredictable, and the loops
 * are short.
 */
#ifndef NQ_HALF_KERNELS_H
#define NQ_HALF_KERNELS_H

#include <stdint.h>

#include "engines/mitm/quarter_frame.h"

/* The build's choice of half-board loops (see above). */
#if defined(__AVX512F__)
#include "engines/mitm/x86/half_avx512.h"
#endif

#endif /* NQ_HALF_KERNELS_H */
