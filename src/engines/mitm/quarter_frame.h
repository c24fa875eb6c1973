/*
 * quarter_frame.h - where a quarter's placements go on the board, and a
 * placement's conflict word and signature there: the one description that
 * the portable half-board loops and their vector forms (half_kernels.h)
 * both read.
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

/* The conflict word and signature of a placement with local diagonal masks
 * l1 (bit i + j) and l2 (bit i - j + h - 1) in frame f: both diagonal
 * families in the north quarter's frame, one per 32-bit half (bits that
 * pass 31 cannot meet a north diagonal, which end at 2h - 2 <= 30, and are
 * dropped), and the shared diagonals it occupies. */
static inline void nq_quarter_convert(const nq_quarter_frame *f, uint64_t l1, uint64_t l2,
                                      uint64_t *cw, uint64_t *sig)
{
    const uint64_t m = (UINT64_C(1) << f->shared_bits) - 1;
    const uint64_t g1 = l1 << f->to_global1, g2 = l2 << f->to_global2;
    *cw = ((l1 << f->to_north) & 0xffffffffu) | ((l2 << f->to_north) & 0xffffffffu) << 32;
    *sig = (g1 >> f->to_shared & m) | (g2 >> f->to_shared & m) << f->shared_bits;
}

#endif /* NQ_QUARTER_FRAME_H */
