/*
 * count_kernel.c - the full engine's kernel source: the count of a
 * constellation's completions below its placed prefix (the common case of
 * a unit, see search.c), compiled once per kernel level (core/kernel.h),
 * each copy with the finisher its instruction sets allow inlined whole:
 * the last four levels in one AVX-512 pass (x86/full_avx512.h), else the
 * last level's free square.
 */
#include "core/search.h"
#include "engines/full/constellation.h"
#include "engines/full/kernels.h"

/* This copy's finisher: the AVX-512 one when core/search.h has AVX-512. */
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
 * finisher when this copy has it and at least five levels are left. */
uint64_t NQ_KERNEL_FN(nq_full_count)(const full_constellation *c, int level, uint32_t cols,
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

