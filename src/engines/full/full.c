/*
 * full.c - the full-symmetry engine: counts all solutions and the
 * unique ones (classes under the eight board symmetries) by searching only
 * canonical "constellations" of border queens.
 *
 * Every solution has exactly one queen in each border line: row 0, row n-1,
 * column 0 and column n-1 (a corner queen serves two lines).  Those four
 * positions, written (t, b, l, r) = (column of the top queen, column of the
 * bottom queen, row of the left queen, row of the right queen), form the
 * solution's constellation.  A board symmetry maps border lines onto border
 * lines, so it maps constellations onto constellations.  The plan keeps one
 * representative c of every orbit of constellations (found as the image
 * with the smallest key ((t*n + b)*n + l)*n + r, then turned to the image
 * whose search is cheapest, see orient() in constellation.c); every solution class has members
 * with constellation c, and the engine counts exactly those members:
 *
 *  - total: the orbit of a solution s contains |G|/|Stab(s)| boards, and
 *    those whose constellation is the canonical c are the images g(s) with g
 *    in Stab(c), i.e. |Stab(c)|/|Stab(s)| of them.  So each solution with
 *    constellation c stands for 8/|Stab(c)| solutions: weight 8 for almost
 *    every constellation, 4 when a half turn fixes c, 2 when a quarter turn
 *    does (reflections never fix a constellation: they would put two queens
 *    on one diagonal).  No test at the leaves is needed for the total.
 *  - unique: with Stab(c) trivial each such solution is the only member of
 *    its class with constellation c, so it counts 1.  Otherwise the solution
 *    counts 1 only if it is lexicographically smallest among its images
 *    under Stab(c), tested explicitly at the leaf; such constellations are
 *    rare (about 1/n^2 of them), so the slow path costs little.
 *
 * Knowing the border queens up front is what makes the inner search fast:
 * their diagonals are blocked in every row before the first queen is placed,
 * four columns and up to four rows are already decided, and dead ends show
 * up rows earlier than in a row-by-row search.  Each constellation (or, when
 * more units are wanted, each placement of its first free rows: the split
 * depth) is one unit, and the units are sorted so that the costliest ones,
 * by a short look-ahead count, run first.
 *
 * Boards with n <= NQ_FULL_SMALL_N (plan.c) are too small for
 * constellations (border queens would fill every row) and are enumerated
 * explicitly in one unit.
 *
 * The inner search is portable C, compiled once per kernel level
 * (count_kernel.c); the AVX-512 copy finishes the last four levels in one
 * vector pass (x86/full_avx512.h).  This file holds the engine's ops and its test hook; the
 * work is in constellation.c, plan.c and search.c (constellation.h says
 * which does what).
 */
#include <string.h>

#include "engines/engines.h"
#include "engines/full/constellation.h"
#include "engines/full/full.h"

int nq_full_class_sizes(int n, uint64_t classes[NQ_SYMMETRIES + 1])
{
    if (!classes)
        return NQ_EINVAL_ARG;
    if (n < NQ_MIN_N || n > NQ_MAX_N)
        return NQ_EINVAL_N;
    /* The engine's own job, planned as nq_job_create() would for one
     * thread, without going up through the API layer. */
    nq_job job = {.ops = &nq_engine_full, .n = n, .threads = 1};
    int ret = nq_full_plan(&job, NQ_SPLIT_AUTO);
    if (ret == 0) {
        memset(classes, 0, (NQ_SYMMETRIES + 1) * sizeof *classes);
        for (uint64_t u = 0; u < job.units; u++) {
            nq_counts one;
            nq_full_solve_classes(&job, u, &one, classes);
        }
    }
    nq_full_release(&job);
    return ret;
}

const struct nq_engine_ops nq_engine_full = {
    .id = NQ_ENGINE_FULL,
    .name = "full",
    .has_unique = 1,
    .has_split = 1,
    .plan = nq_full_plan,
    .solve = nq_full_solve,
    .release = nq_full_release,
    .estimate = nq_full_estimate,
};
