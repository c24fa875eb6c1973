/*
 * half_kernels.h - the inner loops that build a unit's half-boards, and
 * what they share: filtering a quarter's placements against the queens
 * placed beforehand, and pairing a north placement with the filtered
 * south ones.
 *
 * mitm.c holds the portable loops and, in each, the one choice between
 * them and the AVX-512 ones of x86/half_avx512.h, which a build targeting
 * AVX-512 (-march=native on such a CPU) includes.  All are branch-free:
 * which placements pass is unpredictable, and the loops are short.
 */
#ifndef NQ_HALF_KERNELS_H
#define NQ_HALF_KERNELS_H

#include <stdint.h>

/* Where a quarter's placements go on the board: shifts from local to
 * global diagonal masks, the row offset that moves its masks into the
 * north quarter's frame for the conflict word, the shift from global
 * diagonals to signature bits (N - h) and the signature bits per diagonal
 * family (2h - 1), and the diagonals (global masks) of the queens placed
 * beforehand, which it must avoid. */
typedef struct nq_quarter_frame {
    int to_global1, to_global2;
    int to_north;
    int to_shared, shared_bits;
    uint64_t p1, p2;
} nq_quarter_frame;

#endif /* NQ_HALF_KERNELS_H */
