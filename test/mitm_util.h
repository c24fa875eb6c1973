/*
 * mitm_util.h - what the cmocka tests of the meet-in-the-middle engine
 * share (mitm_util.c): a job planned with a given tuning, one unit
 * counted by the engine and by the independent search of
 * reference/mitm_audit.h, half-boards counted by that search, a unit's
 * estimated cost recounted, and a pseudo-random stream.  One copy, so
 * that the fast tests, the kernel levels' tests and the slow audits set
 * up and compare units the same way.
 */
#ifndef NQ_TEST_MITM_UTIL_H
#define NQ_TEST_MITM_UTIL_H

#include <stdint.h>

#include "engines/mitm/mitm.h"
#include "nqueens/nqueens.h"

/* A mitm job for board n on `threads` threads (0: automatic), planned
 * with tuning t, or with the default tuning when t is NULL.  Fails the
 * current test when it cannot be made. */
nq_job *nq_test_mitm_job(int n, int threads, const nq_mitm_tuning *t);

/* Unit u of job (board n) counted by the engine into *engine and by the
 * audit search into *search: 1 when both counted and they agree, else 0.
 * Safe on any thread (it fails nothing itself, so OpenMP loops may call
 * it). */
int nq_test_audit_unit(nq_job *job, int n, uint64_t u, nq_u128 *engine, nq_u128 *search);

/* The non-attacking placements of one queen on each row of `rows` of an
 * h x h quarter, counted by the columns they use: count[cols] for every
 * cols (1 << h entries), by a search of its own. */
void nq_test_placements_by_columns(int h, uint32_t rows, uint64_t *count);

/* The half-boards of an even board n on the rows `rows` (bits of the
 * board's rows 0 .. n / 2 - 1 and n - n / 2 .. n - 1, as a unit's east
 * set): one queen on each of those rows in the h east columns, no two
 * attacking, counted by the audit search. */
uint64_t nq_test_half_boards(int n, uint32_t rows);

/* The estimate hook's cost of every unit of job, in a malloc'ed array
 * (-1 where the hook wrote nothing).  Fails the current test when the hook
 * fails. */
double *nq_test_unit_costs(nq_job *job);

/* What the estimate hook should price unit u of job (board n) at, recounted
 * from the unit's description: the half-boards of its west side (the rows
 * neither E nor the middle column's queen holds) and of its east side once
 * per configuration a (its queen holds east column a - 1), from group
 * sizes counted by a search of its own; on the even boards past the store
 * (N = 24 up), the square of the price of the model's half-board counts,
 * computed here from the model's definition. */
double nq_test_unit_cost(nq_job *job, int n, uint64_t u);

/* The next value of a fixed, portable pseudo-random stream (xorshift64*)
 * whose state is *x (not 0), for random lists and frames a failure can
 * replay. */
uint64_t nq_test_random(uint64_t *x);

#endif /* NQ_TEST_MITM_UTIL_H */
