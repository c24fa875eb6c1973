/*
 * probe.h - cheap relative cost estimates for bitmask subproblems, so an
 * engine can choose its split depth without solving anything.
 *
 * Solving a unit means searching its whole subtree; profiling every unit
 * costs as much as the run itself.  Instead each unit is searched only a few
 * rows deep (a "probe"), all units to the same absolute row, and every
 * partial board the probe reaches is weighted by how much room the rows
 * below it still have (see probe.c).  The ranking and spread of these
 * estimates follow measured costs closely enough for the scheduling model
 * (model.h).
 */
#ifndef NQ_ENGINES_MIRROR_PROBE_H
#define NQ_ENGINES_MIRROR_PROBE_H

#include <stdint.h>

#include "engines/mirror/subproblem.h"

/* Nodes a probe of a whole unit list may place: a short search, next to
 * the count it plans. */
#define NQ_PROBE_BUDGET (UINT64_C(1) << 18)

/*
 * Number of subproblems one row deeper than each unit, summed over the list
 * (exact: the free squares of every unit's next row).  Lets a planner learn
 * the size of the next split depth before expanding it.
 */
uint64_t nq_probe_children(int n, const nq_subproblem *subs, long count);

/*
 * Absolute row the probes of this list go to: as deep as NQ_PROBE_BUDGET
 * allows, judged from `children` (nq_probe_children) per unit, and never
 * past the second-to-last row.  `depth` is the list's split depth.
 */
int nq_probe_row(int n, int depth, long count, uint64_t children);

/*
 * Writes into costs[i] the estimated cost of subs[i]: the weighted partial
 * boards its search reaches at absolute row `probe_row` (a unit already at
 * or past it is weighed itself).  Relative values only, >= 0.
 */
void nq_probe_costs(int n, const nq_subproblem *subs, long count, int probe_row,
                       double *costs);

#endif /* NQ_ENGINES_MIRROR_PROBE_H */
