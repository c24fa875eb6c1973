/*
 * search.c - solving one unit of the full engine: the completions of a
 * constellation below its placed prefix.
 *
 * The common case, a constellation no symmetry fixes, is a count alone:
 * an iterative depth-first search over the free rows with the border
 * queens' attacks and the row gaps folded into per-level tables, finished
 * by a vector pass where the build has AVX-512 (x86/full_avx512.h).  The
 * rare constellations that a rotation fixes, and boards too small for
 * constellations, take the explicit path, which keeps the board and tests
 * each solution against the symmetries that matter (see full.c).
 */
#include <string.h>

#include "core/search.h"
#include "engines/full/constellation.h"

/* The build's finisher: the AVX-512 one when core/search.h has AVX-512. */
#ifdef NQ_SEARCH_AVX512
#include "engines/full/x86/full_avx512.h"
#endif
struct nq_full_tail;

/*
 * Counts the completions of the last `finish` levels of a constellation,
 * given the masks for the first of them (and, for finish = 1, that level's
 * border attacks `fixed`): the dispatch point of the finishers.  finish =
 * 1: the last level has at most one free square, so a solution exactly
 * when it is free.  finish = 4 (AVX-512 builds only): nq_full_last_four()
 * with the tables in *tail.  `finish` is a constant at every call site.
 */
NQ_SEARCH_INLINE uint64_t full_finish(int finish, const struct nq_full_tail *tail, uint32_t cols,
                                      uint32_t left, uint32_t right, uint32_t fixed)
{
#ifdef NQ_FULL_AVX512
    if (finish == 4)
        return nq_full_last_four(tail, cols, left, right);
#endif
    (void)finish;
    (void)tail;
    return ~(cols | left | right | fixed) != 0;
}

/*
 * Counts the completions of constellation c from `level` with the given
 * masks (for that level's row).  Needs level <= c->levels - 1 - finish.
 *
 * Iterative DFS with an explicit stack.  Compared with a row-by-row kernel
 * it ORs in each row's border attacks (c->fixed) and moves the diagonals by
 * the row distance to the next free row (c->shift), skipping the side
 * queens' rows.  The last `finish` levels are never descended into: each
 * placement on the level above them goes to full_finish().  `finish` is a
 * constant at every call site, so each gets its own copy of the loop, as in
 * search.h.
 */
NQ_SEARCH_INLINE uint64_t full_dfs(const full_constellation *c, int level, uint32_t cols,
                                   uint32_t left, uint32_t right, const int finish,
                                   const struct nq_full_tail *tail)
{
    uint32_t st_free[NQ_MAX_N], st_cols[NQ_MAX_N], st_left[NQ_MAX_N], st_right[NQ_MAX_N];
    const int last = c->levels - 1 - finish; /* the level above the finished ones */
    int d = level;
    uint32_t free_sq = ~(cols | left | right | c->fixed[d]);
    /* Per-level constants of the two levels below d, kept in registers while
     * the candidates of level d are tried. */
    uint32_t fixed1 = c->fixed[d + 1], fixed2 = c->fixed[d + 2];
    int sh = c->shift[d], sh1 = c->shift[d + 1];
    uint64_t count = 0;

    /* Hot loop: one iteration places one queen or backtracks one level. */
    for (;;) {
        if (free_sq) {
            /* x & -x isolates the lowest set bit: the next square to try. */
            uint32_t bit = free_sq & (0u - free_sq);
            free_sq ^= bit;
            uint32_t ncols = cols | bit;
            /* Diagonals move one column per row, so sh columns down to the
             * next free row; bits pushed past the board are masked by cols. */
            uint32_t nleft = (left | bit) << sh;
            uint32_t nright = (right | bit) >> sh;
            if (d == last) {
                count += full_finish(finish, tail, ncols, nleft, nright, fixed1);
                continue;
            }
            uint32_t nfree = ~(ncols | nleft | nright | fixed1);
            /* Descend only if the next level has a free square and the one
             * after it is not already fully attacked (shifting once more
             * projects the diagonals there); the AND with a 0/-1 mask keeps
             * this a single branch. */
            uint32_t after = ~(ncols | (nleft << sh1) | (nright >> sh1) | fixed2);
            if (nfree & (0u - (uint32_t)(after != 0))) {
                st_free[d] = free_sq;
                st_cols[d] = cols;
                st_left[d] = left;
                st_right[d] = right;
                d++;
                cols = ncols;
                left = nleft;
                right = nright;
                free_sq = nfree;
                fixed1 = fixed2;
                fixed2 = c->fixed[d + 2];
                sh = sh1;
                sh1 = c->shift[d + 1];
            }
            continue;
        }
        if (d == level)
            break;
        d--;
        free_sq = st_free[d];
        cols = st_cols[d];
        left = st_left[d];
        right = st_right[d];
        fixed1 = c->fixed[d + 1];
        fixed2 = c->fixed[d + 2];
        sh = c->shift[d];
        sh1 = c->shift[d + 1];
    }
    return count;
}

/* Counts the completions from `level` (see full_dfs()), with the vector
 * finisher when the build has it and at least five levels are left. */
static uint64_t full_count_any(const full_constellation *c, int level, uint32_t cols,
                               uint32_t left, uint32_t right)
{
#ifdef NQ_FULL_AVX512
    if (c->levels - level >= 5) {
        nq_full_tail tail;
        nq_full_tail_load(&tail, c->fixed + c->levels - 4, c->shift + c->levels - 4);
        return full_dfs(c, level, cols, left, right, 4, &tail);
    }
#endif
    return full_dfs(c, level, cols, left, right, 1, NULL);
}

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
        uint64_t found = full_count_any(c, u->level, u->cols, u->left, u->right);
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
