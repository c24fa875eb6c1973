/*
 * subproblem.h - expansion of the first rows of the board into independent
 * bitmask subproblems, using left-right mirror symmetry.
 *
 * Reflecting a solution in the vertical centre line gives another solution,
 * distinct from the first (a queen stands in row 0 and cannot be its own
 * mirror image unless it is in the middle column of an odd board).  So only
 * row-0 queens in the left half are expanded, each weighted 2.  On an odd
 * board the middle row-0 queen is its own mirror image; its solutions are
 * split instead by the row-1 queen, which is never in the middle column, and
 * only row-1 queens in the left half are kept, again weighted 2.
 */
#ifndef NQ_SUBPROBLEM_H
#define NQ_SUBPROBLEM_H

#include <stddef.h>
#include <stdint.h>

typedef struct nq_subproblem {
    uint32_t cols;       /* taken columns, with every bit >= n set */
    uint32_t diag_left;  /* next row's squares attacked along left diagonals */
    uint32_t diag_right; /* ... along right diagonals */
    uint8_t row;         /* rows already placed */
    uint8_t weight;      /* solutions each completion stands for: 1 or 2 */
} nq_subproblem;

/*
 * Expands the first `depth` rows (1 <= depth <= n; the middle-column branch
 * of an odd board always goes to row 2) into a malloc'd array stored in
 * *out, in lexicographic order of the placed columns.  Returns the number of
 * subproblems, or -1 when memory ran out (*out is then NULL).
 */
long nq_expand_mirror(int n, int depth, nq_subproblem **out);

#endif /* NQ_SUBPROBLEM_H */
