/*
 * mitm.h - internals of the meet-in-the-middle engine that tests reach: its
 * limits and the switches that force its rare paths on small boards (what
 * a unit stands for and the memory a run needs are public: nqueens.h).
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

/* For tests: when non-zero, jobs planned afterwards build half-boards in
 * batches of at most this many (never fewer than the largest store group),
 * so that the paths for east and west lists too long for one batch, which
 * real boards never take, run on small ones.  0, the default: no limit. */
extern size_t nq_mitm_batch_limit;

/* For tests: when non-zero, jobs planned afterwards build no quarter store
 * and walk every slice's rows, as boards past NQ_MITM_STORE_MAX_H do. */
extern int nq_mitm_walk_slices;

/* Jobs planned afterwards join a unit with key bits (join.h) only when its
 * west list has at least this many halves.  Tests set it to 0 or SIZE_MAX
 * to run either path on small boards. */
extern size_t nq_mitm_key_min;

#endif /* NQ_MITM_H */
