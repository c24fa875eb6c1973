/*
 * quarter_frame.h - where a quarter's placements go on the board, the one
 * description that the portable half-board loops and their vector forms
 * (half_kernels.h) both read.
 */
#ifndef NQ_QUARTER_FRAME_H
#define NQ_QUARTER_FRAME_H

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

#endif /* NQ_QUARTER_FRAME_H */
