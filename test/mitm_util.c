/*
 * mitm_util.c - the shared set-up and unit audit of the mitm engine's
 * cmocka tests (see mitm_util.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "mitm_util.h"
#include "reference/mitm_audit.h"

nq_job *nq_test_mitm_job(int n, int threads, const nq_mitm_tuning *t)
{
    nq_settings s;
    nq_job *job = NULL;
    nq_default_settings(&s);
    s.n = n;
    s.engine = NQ_ENGINE_MITM;
    s.threads = threads;
    int ret = nq_job_create(&job, &s);
    if (ret == 0 && t)
        ret = nq_mitm_replan(job, t);
    if (ret != 0) {
        nq_job_free(&job);
        fail_msg("mitm job n=%d threads=%d: %s", n, threads, nq_strerror(ret));
    }
    return job;
}

int nq_test_audit_unit(nq_job *job, int n, uint64_t u, nq_u128 *engine, nq_u128 *search)
{
    nq_mitm_unit d;
    nq_counts got;
    *engine = *search = 0;
    if (nq_mitm_describe_unit(job, u, &d) < 0 || nq_job_solve_unit(job, u, &got) < 0)
        return 0;
    *engine = got.total;
    *search = audit_unit_count(n, &d);
    return *engine == *search;
}

/* Extends a placement on the rows of `rows` above row i (columns cols,
 * diagonals d1, d2) by one queen on each such row from i on, counting each
 * whole placement in count[its columns]. */
static void count_by_columns(int h, uint32_t rows, int i, uint32_t cols, uint64_t d1, uint64_t d2,
                             uint64_t *count)
{
    while (i < h && !(rows >> i & 1))
        i++;
    if (i == h) {
        count[cols]++;
        return;
    }
    for (int j = 0; j < h; j++)
        if (!(cols >> j & 1) && !(d1 >> (i + j) & 1) && !(d2 >> (i - j + h) & 1))
            count_by_columns(h, rows, i + 1, cols | UINT32_C(1) << j, d1 | UINT64_C(1) << (i + j),
                             d2 | UINT64_C(1) << (i - j + h), count);
}

void nq_test_placements_by_columns(int h, uint32_t rows, uint64_t *count)
{
    for (uint32_t cols = 0; cols < (UINT32_C(1) << h); cols++)
        count[cols] = 0;
    count_by_columns(h, rows, 0, 0, 0, 0, count);
}

/* Half-boards of one side before the diagonal tests: a north placement on
 * rows_n and a south one on rows_s over a split of the columns avail,
 * every split tried (a split of the wrong sizes has no placements). */
static uint64_t side_bound(int h, uint32_t rows_n, uint32_t rows_s, uint32_t avail)
{
    const size_t sets = (size_t)1 << h;
    uint64_t *north = malloc(2 * sets * sizeof *north), *south = north + sets, bound = 0;
    assert_non_null(north);
    nq_test_placements_by_columns(h, rows_n, north);
    nq_test_placements_by_columns(h, rows_s, south);
    for (uint32_t cols = 0; cols < sets; cols++)
        if (!(cols & ~avail))
            bound += north[cols] * south[avail & ~cols];
    free(north);
    return bound;
}

uint64_t nq_test_half_boards(int n, uint32_t rows)
{
    const int h = n / 2;
    audit_search s = {.n = n};
    for (uint32_t left = rows; left; left &= left - 1)
        s.allowed[__builtin_ctz(left)] = ((UINT32_C(1) << h) - 1) << (n - h);
    audit_place(&s, rows, 0, 0, 0);
    return s.sum;
}

double *nq_test_unit_costs(nq_job *job)
{
    const uint64_t units = nq_job_units(job);
    double *costs = malloc((units + 1) * sizeof *costs);
    assert_non_null(costs);
    for (uint64_t u = 0; u < units; u++)
        costs[u] = -1; /* a unit the hook leaves out stays unpriced */
    assert_int_equal(job->ops->estimate(job, costs), 0);
    return costs;
}

/* The hook's model of the half-boards on `rows` (bits of the 2h rows):
 * h! bijections, each pair of rows d < h apart clashing on a diagonal with
 * probability 2(h - d) / (h(h - 1)), the pairs taken as independent
 * (docs/engines.md, "Planning"). */
static double model_half_boards(int h, uint32_t rows)
{
    double v = 1;
    for (int i = 2; i <= h; i++)
        v *= i;
    for (int r = 0; r < 2 * h; r++)
        for (int s = r + 1; s < 2 * h && s - r < h; s++)
            if (rows >> r & 1 && rows >> s & 1)
                v *= 1 - 2.0 * (h - (s - r)) / ((double)h * (h - 1));
    return v;
}

double nq_test_unit_cost(nq_job *job, int n, uint64_t u)
{
    const int h = n / 2;
    const uint32_t hm = (UINT32_C(1) << h) - 1;
    nq_mitm_unit d;
    assert_int_equal(nq_mitm_describe_unit(job, u, &d), 0);
    if (!(n & 1) && h > NQ_MITM_STORE_MAX_H) {
        const uint32_t west = ((UINT32_C(1) << 2 * h) - 1) & ~d.east;
        const double cost = nq_mitm_unit_cost(job, d.east, model_half_boards(h, d.east),
                                              model_half_boards(h, west));
        return cost * cost; /* the hook squares the model's prices */
    }
    uint32_t rows = (UINT32_C(1) << 2 * h) - 1;
    if (d.b)
        rows &= ~(UINT32_C(1) << (h + d.b - 1));
    const uint32_t west = rows & ~d.east;
    const uint64_t w = side_bound(h, west & hm, west >> h, hm);
    uint64_t e = 0;
    for (int a = d.a_first; a <= d.a_last; a++)
        e += side_bound(h, d.east & hm, d.east >> h, a ? hm & ~(UINT32_C(1) << (a - 1)) : hm);
    return nq_mitm_unit_cost(job, d.east, (double)e, (double)w);
}

uint64_t nq_test_random(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * UINT64_C(2685821657736338717);
}
