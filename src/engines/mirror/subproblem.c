/*
 * subproblem.c - prefix expansion with mirror symmetry (see subproblem.h).
 */
#include <stdlib.h>

#include "core/search.h"
#include "core/util.h"
#include "engines/mirror/subproblem.h"

/* Places queens in rows sp.row .. depth-1, choosing columns in `allowed` for
 * the first of them and any free column after that. */
static void expand(nq_array *list, int depth, nq_subproblem sp, uint32_t allowed)
{
    if (sp.row >= depth) {
        nq_array_push(list, &sp, sizeof sp, 256);
        return;
    }
    uint32_t free_sq = ~(sp.cols | sp.diag_left | sp.diag_right) & allowed;
    while (free_sq) {
        uint32_t bit = free_sq & (0u - free_sq); /* lowest candidate column */
        free_sq ^= bit;
        nq_subproblem next = sp;
        next.cols |= bit;
        next.diag_left = (sp.diag_left | bit) << 1;
        next.diag_right = (sp.diag_right | bit) >> 1;
        next.row++;
        expand(list, depth, next, UINT32_MAX);
    }
}

long nq_expand_mirror(int n, int depth, nq_subproblem **out)
{
    nq_array list = {0};
    const uint32_t mask = nq_board_mask(n);
    const nq_subproblem empty = {~mask, 0, 0, 0, 2};
    const int half = n / 2;

    if (depth > n)
        depth = n;
    /* Row-0 queens in the left half, each standing for itself and its mirror. */
    expand(&list, depth, empty, (UINT32_C(1) << half) - 1);
    if (n & 1) {
        /* Middle column: mirror-invariant, so split on the row-1 queen. */
        const uint32_t mid = UINT32_C(1) << half;
        nq_subproblem middle = empty;
        middle.cols |= mid;
        middle.diag_left = mid << 1;
        middle.diag_right = mid >> 1;
        middle.row = 1;
        if (n == 1) {
            middle.weight = 1; /* the lone queen is the whole solution */
            nq_array_push(&list, &middle, sizeof middle, 256);
        } else {
            expand(&list, depth < 2 ? 2 : depth, middle, (UINT32_C(1) << half) - 1);
        }
    }
    if (list.failed) {
        free(list.items);
        *out = NULL;
        return -1;
    }
    *out = list.items;
    return (long)list.count;
}
