/*
 * solutions.c - listing every solution of a board, in lexicographic order.
 *
 * A plain depth-first search that records the column of each row's queen;
 * it serves the CLI's --solutions and the tests that check boards one by one,
 * so it favours clarity over speed.
 */
#include "core/engine.h"
#include "core/search.h"

typedef struct {
    int n;
    uint32_t mask;
    int cols[NQ_MAX_N];
    uint64_t limit, emitted;
    nq_solution_fn fn;
    void *user;
    int stop;
} lister;

static void list_row(lister *l, int row, uint32_t cols, uint32_t diag_left, uint32_t diag_right)
{
    if (row == l->n) {
        l->emitted++;
        if (l->fn(l->cols, l->n, l->user) || (l->limit && l->emitted >= l->limit))
            l->stop = 1;
        return;
    }
    uint32_t free_sq = l->mask & ~(cols | diag_left | diag_right);
    while (free_sq && !l->stop) {
        uint32_t bit = free_sq & (0u - free_sq); /* lowest column first: lexicographic order */
        free_sq ^= bit;
        l->cols[row] = __builtin_ctz(bit);
        list_row(l, row + 1, cols | bit, (diag_left | bit) << 1, (diag_right | bit) >> 1);
    }
}

int nq_list_solutions(int n, uint64_t limit, nq_solution_fn fn, void *user, uint64_t *emitted)
{
    if (emitted)
        *emitted = 0;
    if (n < NQ_MIN_N || n > NQ_MAX_N)
        return NQ_EINVAL_N;
    if (!fn)
        return NQ_EINVAL_ARG;
    lister l = {.n = n, .mask = nq_board_mask(n), .limit = limit, .fn = fn, .user = user};
    list_row(&l, 0, 0, 0, 0);
    if (emitted)
        *emitted = l.emitted;
    return 0;
}
