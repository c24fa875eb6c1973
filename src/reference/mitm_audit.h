/*
 * mitm_audit.h - an independent count of one mitm unit, for audits at board
 * sizes too large to count whole (nqueens-bench --audit, the slow suite).
 *
 * It shares nothing with the engine: a textbook backtracking search in
 * which each row may only use the columns the unit allows it -- a quarter
 * row its half of the board (east or west, by the unit's east set), the
 * middle row and the middle column's row (odd n) their one column -- and
 * each solution found adds its weight as nqueens.h defines nq_mitm_unit:
 * the unit's weight, times c for even n.  Rows are not taken top to
 * bottom but fail first, the textbook refinement: at each step the row
 * left with the fewest free columns, and none when one has none.  A row
 * restricted to its half of the board runs out of columns far sooner
 * than a whole one, and top to bottom the search would place most of the
 * north half before it saw that; fail first, the units that count few
 * solutions at N = 28 take minutes rather than days.
 */
#ifndef NQ_REFERENCE_MITM_AUDIT_H
#define NQ_REFERENCE_MITM_AUDIT_H

#include <stdint.h>

#include "nqueens/nqueens.h"

typedef struct audit_search {
    int n;
    uint32_t allowed[32]; /* per row, the columns it may use */
    int col[32];          /* the column of each row's queen so far */
    int weight_c;         /* even n: weight each solution by c */
    uint32_t floor;       /* even n: the unit's floor (nqueens.h) */
    uint64_t sum;         /* solutions found, each counted 1 or c */
} audit_search;

/* rank(x) of nqueens.h: x or its complement in h bits, the smaller. */
static inline uint32_t audit_rank(uint32_t x, int h)
{
    const uint32_t other = ~x & ((UINT32_C(1) << h) - 1);
    return x < other ? x : other;
}

/* rev(x) of nqueens.h: x's h bits in reverse order. */
static inline uint32_t audit_reverse(uint32_t x, int h)
{
    uint32_t r = 0;
    for (int i = 0; i < h; i++)
        if (x >> i & 1)
            r |= UINT32_C(1) << (h - 1 - i);
    return r;
}

/* c of nqueens.h for the solution in col[], n even. */
static inline uint64_t audit_rank_weight(const audit_search *a)
{
    const int h = a->n / 2;
    uint32_t north_east = 0, north_west = 0;
    for (int r = 0; r < h; r++) {
        if (a->col[r] >= h)
            north_east |= UINT32_C(1) << (a->col[r] - h);
        else
            north_west |= UINT32_C(1) << a->col[r];
    }
    const uint32_t ra = audit_rank(audit_reverse(north_east, h), h);
    const uint32_t rb = audit_rank(north_west, h);
    const uint32_t low = ra < rb ? ra : rb;
    return low > a->floor ? 2 : low == a->floor ? 1 : 0;
}

/* Places queens on the rows of `rows` (those still empty): cols holds the
 * used columns, sums the used diagonals r + c (bit r + c) and diffs the
 * used diagonals c - r (bit c - r + n - 1), so that row r's attacked
 * columns are sums >> r and diffs >> (n - 1 - r).  The row taken next is
 * the one with the fewest free columns (the lowest of those tied). */
static inline void audit_place(audit_search *a, uint32_t rows, uint32_t cols, uint64_t sums,
                               uint64_t diffs)
{
    if (!rows) {
        a->sum += a->weight_c ? audit_rank_weight(a) : 1;
        return;
    }
    int row = -1, fewest = 33;
    uint32_t row_free = 0;
    for (uint32_t left = rows; left; left &= left - 1) {
        const int r = __builtin_ctz(left);
        const uint32_t free_cols = a->allowed[r] & ~cols & ~(uint32_t)(sums >> r) &
                                   ~(uint32_t)(diffs >> (a->n - 1 - r));
        const int count = __builtin_popcount(free_cols);
        if (count == 0)
            return; /* a row no queen can take: no solution below */
        if (count < fewest) {
            row = r;
            fewest = count;
            row_free = free_cols;
        }
    }
    while (row_free) {
        const uint32_t bit = row_free & (0u - row_free); /* the lowest free column */
        row_free ^= bit;
        const int c = __builtin_ctz(bit);
        a->col[row] = c;
        audit_place(a, rows & ~(UINT32_C(1) << row), cols | bit, sums | UINT64_C(1) << (row + c),
                    diffs | UINT64_C(1) << (c - row + a->n - 1));
    }
}

/* The count of unit u of a mitm job for board n, by the search above. */
static inline nq_u128 audit_unit_count(int n, const nq_mitm_unit *u)
{
    const int h = n / 2, m = n / 2;
    const uint32_t west = (UINT32_C(1) << h) - 1, east = west << (n - h);
    nq_u128 total = 0;
    for (int a = u->a_first; a <= u->a_last; a++) {
        const uint32_t low = (UINT32_C(1) << h) - 1;
        const uint32_t north = audit_rank(u->east & low, h);
        const uint32_t south = audit_rank(audit_reverse(u->east >> h & low, h), h);
        audit_search s = {.n = n, .weight_c = !(n & 1), .floor = north < south ? north : south};
        for (int i = 0; i < h; i++) {
            s.allowed[i] = u->east >> i & 1 ? east : west;              /* north row i */
            s.allowed[n - h + i] = u->east >> (h + i) & 1 ? east : west; /* south row */
        }
        if (n & 1) {
            s.allowed[m] = UINT32_C(1) << (m + a);   /* the middle row's queen */
            s.allowed[m + u->b] = UINT32_C(1) << m; /* the middle column's */
        }
        audit_place(&s, (uint32_t)((UINT64_C(1) << n) - 1), 0, 0, 0);
        total += (nq_u128)s.sum;
    }
    return total * u->weight;
}

#endif /* NQ_REFERENCE_MITM_AUDIT_H */
