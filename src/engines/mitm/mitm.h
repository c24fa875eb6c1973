/*
 * mitm.h - internals of the meet-in-the-middle engine that tests reach: its
 * limits and the tuning that forces its rare paths on small boards (what
 * a unit stands for and the memory a run needs are public: nqueens.h).
 */
#ifndef NQ_MITM_H
#define NQ_MITM_H

#include <stddef.h>
#include <stdint.h>

#include "core/engine.h"
#include "engines/mitm/join.h"

/* Board sizes the engine joins quarters for.  Below the range it solves the
 * board in one unit by a trivial search; above it, planning returns
 * NQ_EUNSUPPORTED (N = 29 has capacity tables but no audit; from N = 30
 * the tables end, while signatures, row sets and slice indices would still
 * fit). */
#define NQ_MITM_MIN_N 4
#define NQ_MITM_MAX_N 28

/* Largest quarter side whose store a job builds (nq_quarter_store_bytes
 * says how much it takes).  Larger boards walk each slice's rows instead
 * (quarter_slice.h). */
#define NQ_MITM_STORE_MAX_H 11
/* The smallest board whose units say how far they are (the engine's
 * progress hook): those without a store. */
#define NQ_MITM_PROGRESS_MIN_N (2 * (NQ_MITM_STORE_MAX_H + 1))

/* The smallest quarter side whose units' lists take what their walked
 * slices leave (nq_mitm_fit_lists): N = 28's, where both sides of a unit
 * come in batches and longer ones pay (0.76 of the time); at N = 26 they
 * took 1.03 times as long (docs/performance.md, "mitm's batches"). */
#define NQ_MITM_GROW_MIN_H 14

/* How a job solves its units, where it may differ from the default: the
 * tests force the paths that real boards take only at sizes they cannot
 * afford.  None of it changes what a unit counts, or the identity. */
typedef struct nq_mitm_tuning {
    /* When non-zero, half-boards are built in batches of at most this many
     * (never fewer than the largest store group), so that the paths for
     * east and west lists too long for one batch run on small boards. */
    size_t batch_limit;
    /* When non-zero, no quarter store is built and every slice walks its
     * rows, as boards past NQ_MITM_STORE_MAX_H do. */
    int walk_slices;
    /* A unit is joined with key bits (join.h) only when its west list has
     * at least this many halves (0 or SIZE_MAX force either path). */
    size_t key_min;
    /* When non-zero, every join with key bits takes this many (at most
     * NQ_JOIN_KEY_BITS_MAX) instead of the engine's choice by the lengths
     * of its lists (mitm.c, key_width). */
    int key_bits;
    /* The join's inner loops (join.h): by default the kernel of the
     * process's kernel level; the tests name each one this machine runs. */
    enum nq_join_kernel join_kernel;
    /* When non-zero, the estimate hook of an even board prices units by
     * model half-board counts (units.c, half_model), as it does on the
     * boards past the store, so the tests can hold the model against
     * counted half-boards. */
    int model_costs;
    /* When non-zero, the units of any board that walks its slices give
     * their lists what the slices leave (nq_mitm_fit_lists), as those
     * from NQ_MITM_GROW_MIN_H on do. */
    int grow_lists;
} nq_mitm_tuning;

/* The tuning every job is planned with. */
void nq_mitm_default_tuning(nq_mitm_tuning *t);

/* Plans the mitm job again, with tuning t.  Returns 0; NQ_EINVAL_ARG when
 * job is not a mitm job or t's key bits are out of range, NQ_EUNSUPPORTED
 * when t's join kernel is not supported here (in both cases the job is
 * left as it was); or what planning returns (the job is then only fit to
 * be freed). */
int nq_mitm_replan(nq_job *job, const nq_mitm_tuning *t);

/* The relative cost the estimate hook gives a unit of the planned mitm job
 * on the east rows `rows` (nq_mitm_unit.east; of the centre queen for odd
 * N) whose two sides build `east` and `west` half-boards before the
 * diagonal tests (the tests recount those sides their own way); -1 when
 * out of memory. */
double nq_mitm_unit_cost(const nq_job *job, uint32_t rows, double east, double west);

#endif /* NQ_MITM_H */
