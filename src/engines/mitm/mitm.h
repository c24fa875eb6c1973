/*
 * mitm.h - internals of the meet-in-the-middle engine that tests and the
 * bench reach: what a unit stands for, and how much memory a run needs.
 */
#ifndef NQ_MITM_H
#define NQ_MITM_H

#include <stddef.h>
#include <stdint.h>

#include "core/engine.h"

/* Board sizes the engine joins quarters for.  Below the range it solves the
 * board in one unit by a trivial search; above it, plan() returns
 * NQ_EUNSUPPORTED (the slices of N = 28 lack a capacity table, and their
 * signatures and row sets would still fit). */
#define NQ_MITM_MIN_N 4
#define NQ_MITM_MAX_N 27

/* Largest quarter side whose store a job builds: 0.5 GiB at h = 11 (N = 22,
 * 23).  Larger boards walk each slice's rows instead (quarter_slice.h). */
#define NQ_MITM_STORE_MAX_H 11

/* What unit u of a mitm job counts.  Rows of the board that the four
 * quarters cover are numbered for `east`: bit i (i < h) is board row i,
 * bit h + i is board row N - h + i; a set bit means that row's queen stands
 * in the east half (columns N - h .. N - 1).  For odd N the queen of the
 * middle column stands in row m + b and the queen of the middle row in
 * column m + a (m = N / 2), for every a in a_first .. a_last; a = b = 0 is
 * one queen in the centre.  The unit's count is weight times the number of
 * solutions with that b, that east set and one of those a. */
typedef struct nq_mitm_unit {
    int a_first, a_last, b;
    uint32_t east;
    uint32_t weight;
} nq_mitm_unit;

/* Describes unit u of job (which must be a mitm job).  Returns 0,
 * NQ_EINVAL_ARG for a bad unit or job, or NQ_EUNSUPPORTED when the job
 * solves its board by the trivial search (N < NQ_MITM_MIN_N). */
int nq_mitm_describe_unit(const nq_job *job, uint64_t unit, nq_mitm_unit *out);

/* For tests: when non-zero, jobs planned afterwards build half-boards in
 * batches of at most this many (never fewer than the largest store group),
 * so that the paths for east and west lists too long for one batch, which
 * real boards never take, run on small ones.  0, the default: no limit. */
extern size_t nq_mitm_batch_limit;

/* For tests: when non-zero, jobs planned afterwards build no quarter store
 * and walk every slice's rows, as boards past NQ_MITM_STORE_MAX_H do. */
extern int nq_mitm_walk_slices;

/* Estimated peak bytes of a mitm run on n with `threads` threads: quarter
 * store (to N = 23), unit tables and per-thread scratch (half-board lists,
 * join tables, four slices).  0 when n is unsupported. */
size_t nq_mitm_memory_estimate(int n, int threads);

#endif /* NQ_MITM_H */
