/*
 * search.c - solving one unit of the full engine: the completions of a
 * constellation below its placed prefix.
 *
 * The common case, a constellation no symmetry fixes, is a count alone:
 * an iterative depth-first search over the free rows with the border
 * queens' attacks and the row gaps folded into per-level tables, in the
 * copy of this process's kernel level (count_kernel.c, kernels.h).  The
 * rare constellations that a rotation fixes, and boards too small for
 * constellations, take the explicit path, which keeps the board and tests
 * each solution against the symmetries that matter (see full.c).
 */
#include <string.h>

#include "core/search.h"
#include "engines/full/constellation.h"
#include "engines/full/kernels.h"

/* Per-solution bookkeeping of the explicit paths. */
typedef struct {
    int n;
    int board[NQ_MAX_N];  /* board[row] = column of the row's queen */
    const uint8_t *syms;  /* symmetries to test (identity first) */
    int nsyms;
    int weight;           /* solutions each one found stands for */
    nq_counts counts;
    uint64_t *classes;    /* optional: classes by size, indexed 1..8 */
} leaf_state;

/* Lexicographic comparison of the board with its image under g: returns 1
 * when the board is not larger (it may represent the class), and sets *same
 * when they are equal. */
static int board_not_larger(const leaf_state *st, int g, int *same)
{
    int image[NQ_MAX_N];
    nq_sym_board(g, st->n, st->board, image);
    for (int row = 0; row < st->n; row++)
        if (st->board[row] != image[row]) {
            *same = 0;
            return st->board[row] < image[row];
        }
    *same = 1;
    return 1;
}

/* A complete board: counted with st->weight; counted unique when it is the
 * smallest of its images under st->syms. */
static void leaf(leaf_state *st)
{
    int smallest = 1, fixing = 0;
    for (int i = 0; i < st->nsyms; i++) {
        int same;
        smallest &= board_not_larger(st, st->syms[i], &same);
        fixing += same;
    }
    st->counts.total += (nq_u128)st->weight;
    if (smallest) {
        st->counts.unique++;
        /* Stab(s) lies within the tested symmetries, so fixing = |Stab(s)|. */
        if (st->classes)
            st->classes[NQ_SYMMETRIES / fixing]++;
    }
}

/* Explicit search over the free rows of c from `level`, recording columns. */
static void explicit_search(leaf_state *st, const full_constellation *c, int level,
                            uint32_t cols, uint32_t left, uint32_t right)
{
    if (level == c->levels) {
        leaf(st);
        return;
    }
    uint32_t free_sq = ~(cols | left | right | c->fixed[level]);
    const int sh = c->shift[level];
    while (free_sq) {
        uint32_t bit = free_sq & (0u - free_sq); /* lowest free square */
        free_sq ^= bit;
        st->board[c->row[level]] = __builtin_ctz(bit);
        explicit_search(st, c, level + 1, cols | bit, (left | bit) << sh, (right | bit) >> sh);
    }
}

/* Every solution of a small board, each tested against all 8 symmetries. */
static void small_search(leaf_state *st, int row, uint32_t cols, uint32_t left, uint32_t right)
{
    if (row == st->n) {
        leaf(st);
        return;
    }
    uint32_t free_sq = nq_board_mask(st->n) & ~(cols | left | right);
    while (free_sq) {
        uint32_t bit = free_sq & (0u - free_sq); /* lowest free square */
        free_sq ^= bit;
        st->board[row] = __builtin_ctz(bit);
        small_search(st, row + 1, cols | bit, (left | bit) << 1, (right | bit) >> 1);
    }
}

static const uint8_t all_symmetries[NQ_SYMMETRIES] = {0, 1, 2, 3, 4, 5, 6, 7};

/* Solves one unit into *out; also adds its classes by size to classes[1..8]
 * when classes is not NULL (which forces the explicit path). */
static void full_solve_unit(const nq_job *job, uint64_t unit, nq_counts *out,
                            uint64_t *classes)
{
    const full_plan *plan = job->plan;
    leaf_state st;
    memset(&st, 0, sizeof st);
    st.n = job->n;
    st.classes = classes;

    if (plan->small) {
        /* Each solution counts once; a class counts at its smallest member. */
        st.syms = all_symmetries;
        st.nsyms = NQ_SYMMETRIES;
        st.weight = 1;
        small_search(&st, 0, 0, 0, 0);
        *out = st.counts;
        return;
    }

    const full_unit *u = &plan->units[unit];
    const full_constellation *c = &plan->consts[u->constellation];
    if (c->nstab == 1 && !classes) {
        /* Stab(c) trivial: every solution found is a class of 8. */
        uint64_t found =
            nq_full_kernels_in_use()->count(c, u->level, u->cols, u->left, u->right);
        out->total = (nq_u128)found * NQ_SYMMETRIES;
        out->unique = found;
        return;
    }
    for (int i = 0; i < c->queens; i++)
        st.board[c->qrow[i]] = c->qcol[i];
    for (int k = 0; k < u->level; k++)
        st.board[c->row[k]] = u->prefix[k];
    st.syms = c->stab;
    st.nsyms = c->nstab;
    st.weight = c->weight;
    explicit_search(&st, c, u->level, u->cols, u->left, u->right);
    *out = st.counts;
}

void nq_full_solve(const nq_job *job, uint64_t unit, nq_counts *out, void *scratch)
{
    (void)scratch;
    full_solve_unit(job, unit, out, NULL);
}

void nq_full_solve_classes(const nq_job *job, uint64_t unit, nq_counts *out,
                           uint64_t classes[NQ_SYMMETRIES + 1])
{
    full_solve_unit(job, unit, out, classes);
}
