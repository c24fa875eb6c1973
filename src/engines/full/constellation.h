/*
 * constellation.h - the full engine's plan and the calls between its files.
 *
 * A constellation is the four border queens of a solution (see full.c)
 * with the tables its search needs; a unit is a constellation with its
 * first few free rows placed; the plan is the list of both.  The engine's
 * files, each about one thing:
 *
 *   full.c           what the engine counts and why that is right; its ops
 *   constellation.c  listing one constellation per orbit and orienting it
 *   plan.c           the unit list, its order and the units' cost estimates
 *   search.c         solving a unit: the explicit paths, and the fast count
 *                    through the kernel table (kernels.h, kernels.c)
 *   count_kernel.c   the fast count, compiled once per kernel level
 */
#ifndef NQ_ENGINES_FULL_CONSTELLATION_H
#define NQ_ENGINES_FULL_CONSTELLATION_H

#include <stdint.h>

#include "core/engine.h"
#include "engines/full/symmetry.h"

/* Smallest n whose planning is worth a parallel region (below it planning
 * is too short to pay for waking the threads). */
#define NQ_FULL_PARALLEL_PLAN_N 16

/* One canonical constellation and the tables its inner search needs. */
typedef struct {
    uint32_t fixed[NQ_MAX_N]; /* per level: squares the border queens attack */
    uint8_t shift[NQ_MAX_N];  /* per level: rows down to the next level's row */
    uint8_t row[NQ_MAX_N];    /* per level: its board row */
    uint32_t cols;            /* border queens' columns, plus every bit >= n */
    int levels;               /* rows left free for the search */
    int queens;               /* distinct border queens: 3, or 4 without a corner */
    int qrow[4], qcol[4];     /* their squares */
    int weight;               /* 8 / |Stab(c)| */
    int nstab;                /* |Stab(c)| */
    uint8_t stab[NQ_SYMMETRIES]; /* the symmetries fixing c, identity first */
} full_constellation;

/* A unit: a constellation with its first `level` free rows placed. */
typedef struct {
    uint32_t cols, left, right; /* masks for the row of `level` */
    uint32_t constellation;
    uint8_t level;
    uint8_t prefix[NQ_MAX_SPLIT_DEPTH]; /* columns placed on levels 0..level-1 */
    uint64_t estimate;          /* planning only: cost guess for the ordering */
    uint64_t order;             /* planning only: position before sorting */
} full_unit;

typedef struct {
    int small;                  /* 1: one unit, explicit enumeration */
    full_constellation *consts;
    full_unit *units;
} full_plan;

/* Lists one constellation per orbit, in key order, into plan->consts and
 * orients each for speed (on `threads` threads from n =
 * NQ_FULL_PARALLEL_PLAN_N on).  Returns how many, or NQ_ENOMEM. */
long nq_full_list_constellations(int n, int threads, full_plan *plan);

/* The engine's plan(), release() and estimate() (plan.c; see engine.h). */
int nq_full_plan(nq_job *job, int split_depth);
void nq_full_release(nq_job *job);
int nq_full_estimate(const nq_job *job, double *costs);

/* The engine's solve() (search.c; see engine.h). */
void nq_full_solve(const nq_job *job, uint64_t unit, nq_counts *out, void *scratch);

/* Solves one unit of a planned job into *out through the explicit path,
 * adding its solution classes by size to classes[1..8] (search.c). */
void nq_full_solve_classes(const nq_job *job, uint64_t unit, nq_counts *out,
                           uint64_t classes[NQ_SYMMETRIES + 1]);

#endif /* NQ_ENGINES_FULL_CONSTELLATION_H */
