/*
 * probe.c - depth-limited probes of bitmask subproblems (see probe.h).
 */
#include "core/search.h"
#include "engines/mirror/probe.h"

uint64_t nq_probe_children(int n, const nq_subproblem *subs, long count)
{
    (void)n; /* bits >= n are set in cols, so ~masks never leave the board */
    uint64_t sum = 0;
    for (long i = 0; i < count; i++) {
        const nq_subproblem *sp = &subs[i];
        sum += (uint64_t)__builtin_popcount(~(sp->cols | sp->diag_left | sp->diag_right));
    }
    return sum;
}

int nq_probe_row(int n, int depth, long count, uint64_t children)
{
    int row = depth + 1;
    if (count <= 0 || row >= n - 1)
        return row < n - 1 ? row : (n > 1 ? n - 1 : 1);
    /* Nodes grow by about `growth` per row near the top of the tree and a
     * little less with each row deeper (fewer free columns remain). */
    double growth = (double)children / (double)count;
    double nodes = (double)children;
    while (row + 1 < n - 1) {
        growth *= 0.85;
        if (growth < 1.0)
            growth = 1.0;
        if (nodes * growth > (double)NQ_PROBE_BUDGET)
            break;
        nodes *= growth;
        row++;
    }
    return row;
}

/* Weight of a probe leaf at row `row`: the product, over every later row,
 * of the squares that row would have free if no further queen were placed.
 * It overstates the subtree by orders of magnitude but ranks leaves right:
 * a queen near the corner attacks a long diagonal that reaches the last
 * rows, so its subtrees are narrower late, which counting the probe's nodes
 * alone misses (near-corner units look biggest after a few rows and are in
 * fact the smallest). */
static double leaf_weight(int n, uint32_t cols, uint32_t left, uint32_t right, int row)
{
    double w = 1; /* at most 32 factors of at most 32: no overflow */
    for (int j = row; j < n; j++) {
        int sh = j - row;
        uint32_t l = sh < 32 ? left << sh : 0, r = sh < 32 ? right >> sh : 0;
        int f = __builtin_popcount(~(cols | l | r));
        if (f == 0)
            return 0;
        w *= f;
    }
    return w;
}

/* Sum of leaf weights of the probe below a board at row `row` down to
 * `last_row`.  Probes are shallow, so the recursion stays a few levels deep. */
static double probe(int n, uint32_t cols, uint32_t left, uint32_t right, int row, int last_row)
{
    if (row >= last_row)
        return leaf_weight(n, cols, left, right, row);
    uint32_t free_sq = ~(cols | left | right);
    double w = 0;
    while (free_sq) {
        uint32_t bit = free_sq & (0u - free_sq);
        free_sq ^= bit;
        w += probe(n, cols | bit, (left | bit) << 1, (right | bit) >> 1, row + 1, last_row);
    }
    return w;
}

void nq_probe_costs(int n, const nq_subproblem *subs, long count, int probe_row,
                       double *costs)
{
    if (probe_row > n)
        probe_row = n;
    for (long i = 0; i < count; i++) {
        const nq_subproblem *sp = &subs[i];
        costs[i] = probe(n, sp->cols, sp->diag_left, sp->diag_right, sp->row, probe_row);
    }
}
