/*
 * test_slow.c - the large boards for every parallel engine: N = 16, 17 for
 * mirror and full (with unique counts), N = 16..18 and 20 for mitm, on
 * several thread counts.  N = 20 is the first board whose signatures take
 * the join's wide (8-bit) chunks.  Past what can be counted here, mitm's
 * units are audited one by one against an independent search
 * (mitm_audit.h, through mitm_util.h): at N = 21, at N = 24, where no
 * quarter store is built, and at N = 26 and 28; the slice capacity
 * table is checked up to h = 12, and the estimate hook's unit costs at
 * N = 24, 25.  Suite 'slow': `meson test --suite slow`,
 * not by default.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "count_util.h"
#include "engines/mitm/quarter_slice.h"
#include "mitm_util.h"
#include "reference/known.h"

static void check(int n, enum nq_engine engine, int threads)
{
    nq_result r = nq_test_count(n, engine, threads, 0);
    if (r.total != known_total[n])
        fail_msg("engine %s, n=%d, threads=%d: wrong total", nq_engine_name(engine), n, threads);
    if (engine == NQ_ENGINE_FULL && (!r.has_unique || r.unique != known_unique[n]))
        fail_msg("engine full, n=%d: wrong unique count", n);
}

static void test_mirror(void **state) { (void)state; check(16, NQ_ENGINE_MIRROR, 0); check(17, NQ_ENGINE_MIRROR, 0); }
static void test_full(void **state) { (void)state; check(16, NQ_ENGINE_FULL, 0); check(17, NQ_ENGINE_FULL, 0); }
static void test_mitm(void **state)
{
    (void)state;
    check(16, NQ_ENGINE_MITM, 1);
    check(16, NQ_ENGINE_MITM, 3);
    check(17, NQ_ENGINE_MITM, 2);
    check(18, NQ_ENGINE_MITM, 0);
    check(20, NQ_ENGINE_MITM, 0);
}

/* Audits units[0 .. count) of job side by side and fails on the first
 * that does not agree. */
static void audit_units(nq_job *job, int n, const uint64_t *units, int count)
{
    int ok[16];
    nq_u128 engine[16], search[16];
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < count; i++)
        ok[i] = nq_test_audit_unit(job, n, units[i], &engine[i], &search[i]);
    for (int i = 0; i < count; i++)
        if (!ok[i])
            fail_msg("n=%d unit %llu: mitm %llu, search %llu", n, (unsigned long long)units[i],
                     (unsigned long long)engine[i], (unsigned long long)search[i]);
}

/* The middle unit of the i-th of `strata` equal stretches of a job of
 * `units` units. */
static uint64_t spread_unit(uint64_t units, int i, int strata)
{
    return (uint64_t)(2 * i + 1) * units / (2 * (uint64_t)strata);
}

/* N = 21: six units spread over the job (a few seconds of search each). */
static void test_audit_21(void **state)
{
    (void)state;
    nq_job *job = nq_test_mitm_job(21, 1, NULL);
    uint64_t unit[6];
    for (int i = 0; i < 6; i++)
        unit[i] = spread_unit(nq_job_units(job), i, 6);
    audit_units(job, 21, unit, 6);
    nq_job_free(&job);
}

/* N = 24: the search's time grows with a unit's solutions, so the two
 * units with the fewest among 16 spread over the job are audited (each
 * counted by the engine first to find them). */
static void test_audit_24(void **state)
{
    (void)state;
    nq_job *job = nq_test_mitm_job(24, 1, NULL);
    const uint64_t units = nq_job_units(job);
    uint64_t unit[16];
    nq_u128 count[16];
    int solved[16];
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < 16; i++) {
        nq_counts c = {0, 0};
        unit[i] = spread_unit(units, i, 16);
        solved[i] = nq_job_solve_unit(job, unit[i], &c) == 0;
        count[i] = c.total;
    }
    for (int i = 0; i < 16; i++)
        assert_true(solved[i]);
    int pick[2] = {-1, -1};
    for (int i = 0; i < 16; i++)
        if (count[i] > 0) {
            if (pick[0] < 0 || count[i] < count[pick[0]]) {
                pick[1] = pick[0];
                pick[0] = i;
            } else if (pick[1] < 0 || count[i] < count[pick[1]]) {
                pick[1] = i;
            }
        }
    assert_true(pick[1] >= 0);
    const uint64_t cheapest[2] = {unit[pick[0]], unit[pick[1]]};
    audit_units(job, 24, cheapest, 2);
    nq_job_free(&job);
}

/* Audits the units of board n whose east sets are east[0 .. count)
 * (units of one configuration, b = 0), found in the job's list: each
 * must count more than 0, so that the audit can fail for solutions the
 * engine misses as well as for pairs it counts wrongly. */
static void audit_east_sets(int n, const uint32_t *east, int count)
{
    nq_job *job = nq_test_mitm_job(n, 1, NULL);
    const uint64_t units = nq_job_units(job);
    uint64_t unit[16];
    int found = 0;
    for (int i = 0; i < count; i++)
        unit[i] = UINT64_MAX;
    for (uint64_t u = 0; u < units && found < count; u++) {
        nq_mitm_unit d;
        assert_int_equal(nq_mitm_describe_unit(job, u, &d), 0);
        for (int i = 0; i < count; i++)
            if (d.b == 0 && d.east == east[i] && unit[i] == UINT64_MAX) {
                unit[i] = u;
                found++;
            }
    }
    for (int i = 0; i < count; i++) {
        nq_counts c = {0, 0};
        if (unit[i] == UINT64_MAX)
            fail_msg("n=%d: no unit has east set %#x", n, (unsigned)east[i]);
        assert_int_equal(nq_job_solve_unit(job, unit[i], &c), 0);
        if (c.total == 0)
            fail_msg("n=%d: the unit of east set %#x counts 0", n, (unsigned)east[i]);
    }
    audit_units(job, n, unit, count);
    nq_job_free(&job);
}

/* N = 26: two units whose east sets hold 11 of the 13 north rows (and so
 * 2 south rows).  Such units count few solutions (a north quarter and the
 * opposite south one hold 11 queens each, on 25 shared diagonals of one
 * family), so both the engine and the search finish in seconds; the two
 * are those whose search (fail first) was estimated to take the fewest
 * nodes (Knuth's random probes) among those a probe found a solution of. */
static void test_audit_26(void **state)
{
    (void)state;
    const uint32_t east[2] = {0x29fdd, 0x29fcf};
    audit_east_sets(26, east, 2);
}

/* N = 28, the largest board the engine counts, where slices are walked
 * and share their buffers.  Units whose east set holds all 14 north rows
 * count 0 (their two full quarters need 28 of one family's 27 shared
 * diagonals), and so do those with 13 (as all units with h - 1 north rows
 * east do at N = 16 and 18), so the units audited have 12 north rows
 * east, chosen as at N = 26. */
static void test_audit_28(void **state)
{
    (void)state;
    const uint32_t east[2] = {0xc3ff3, 0x823ff9};
    audit_east_sets(28, east, 2);
}

/* The costliest of `sample` units spread over board n's job, priced as
 * the estimate hook prices them (nq_test_unit_cost). */
static uint64_t costliest_unit(nq_job *job, int n, int sample)
{
    const uint64_t units = nq_job_units(job);
    uint64_t best = 0;
    double best_cost = -1;
    for (int i = 0; i < sample; i++) {
        const uint64_t u = spread_unit(units, i, sample);
        const double cost = nq_test_unit_cost(job, n, u);
        if (cost > best_cost) {
            best = u;
            best_cost = cost;
        }
    }
    return best;
}

/* Unit u of board n counts the same with each of the key widths given
 * (the job replanned with each), on the lists of a real record board. */
static void same_count_by_key_bits(int n, uint64_t u, const int *key_bits, int widths)
{
    nq_counts first = {0, 0};
    for (int i = 0; i < widths; i++) {
        nq_mitm_tuning t;
        nq_mitm_default_tuning(&t);
        t.key_bits = key_bits[i];
        nq_job *job = nq_test_mitm_job(n, 1, &t);
        nq_counts c = {0, 0};
        assert_int_equal(nq_job_solve_unit(job, u, &c), 0);
        if (i == 0)
            first = c;
        else if (c.total != first.total)
            fail_msg("n=%d unit %llu: %llu with %d key bits, %llu with %d", n,
                     (unsigned long long)u, (unsigned long long)first.total, key_bits[0],
                     (unsigned long long)c.total, key_bits[i]);
        nq_job_free(&job);
    }
    assert_true(first.total > 0);
}

/* The widest keys on the lists they are chosen for: the costliest of 16
 * units spread over N = 24 (4.0 and 1.4 million halves, joined with
 * twelve key bits by default) counts the same with eight, twelve and
 * fourteen, and the costliest of 8 spread over N = 26 (11 million west
 * halves, more than 16 million east ones: fourteen by default) the same
 * with twelve and fourteen.  The keys only skip pairs that share a key
 * bit, so any width must give the same count; the join's own test checks
 * widths up to fourteen on random lists. */
static void test_key_widths_large(void **state)
{
    (void)state;
    nq_job *job = nq_test_mitm_job(24, 1, NULL);
    const uint64_t u24 = costliest_unit(job, 24, 16);
    nq_job_free(&job);
    same_count_by_key_bits(24, u24, (const int[]){8, 12, 14}, 3);
    job = nq_test_mitm_job(26, 1, NULL);
    const uint64_t u26 = costliest_unit(job, 26, 8);
    nq_job_free(&job);
    same_count_by_key_bits(26, u26, (const int[]){14, 12}, 2);
}

/* The estimate hook on the boards whose units run in spread order (N = 24,
 * 25: no store, each list entry's cost written to its unit through the
 * stride's inverse): every unit priced, and units spread over the job at
 * what nq_test_unit_cost recounts. */
static void test_unit_costs_spread(void **state)
{
    (void)state;
    for (int n = 24; n <= 25; n++) {
        nq_job *job = nq_test_mitm_job(n, 0, NULL);
        const uint64_t units = nq_job_units(job);
        double *costs = nq_test_unit_costs(job);
        for (uint64_t u = 0; u < units; u++)
            if (!(costs[u] > 0))
                fail_msg("n=%d: unit %llu not priced", n, (unsigned long long)u);
        for (uint64_t i = 0; i < 12; i++) {
            const uint64_t u = i * (units / 12) + i * 7919 % 97;
            const double want = nq_test_unit_cost(job, n, u);
            if (costs[u] != want)
                fail_msg("n=%d unit %llu: cost %g, expected %g", n, (unsigned long long)u,
                         costs[u], want);
        }
        free(costs);
        nq_job_free(&job);
    }
}

/* The slice capacities of h = 10..12 (one row set, two disjoint ones, one
 * group) are what walking every row set counts. */
static void test_slice_capacity(void **state)
{
    (void)state;
    for (int h = 10; h <= 12; h++) {
        const uint32_t sets = UINT32_C(1) << h;
        uint64_t most = 0, group = 0;
        uint64_t *total = malloc(sets * sizeof *total), *below = malloc(sets * sizeof *below);
        assert_true(total && below);
#pragma omp parallel for schedule(dynamic, 1) reduction(max : most, group)
        for (uint32_t rows = 0; rows < sets; rows++) {
            uint32_t size[1 << 12];
            nq_quarter_slice_count(h, rows, size);
            uint64_t sum = 0;
            for (uint32_t c = 0; c < sets; c++) {
                sum += size[c];
                group = size[c] > group ? size[c] : group;
            }
            most = sum > most ? sum : most;
            total[rows] = below[rows] = sum;
        }
        assert_true(most == nq_quarter_slice_capacity(h));
        assert_true(group == nq_quarter_group_capacity(h));
        /* Two disjoint row sets: a set and the largest subset of its complement. */
        for (int bit = 0; bit < h; bit++)
            for (uint32_t m = 0; m < sets; m++)
                if (m >> bit & 1 && below[m ^ UINT32_C(1) << bit] > below[m])
                    below[m] = below[m ^ UINT32_C(1) << bit];
        uint64_t pair = 0;
        for (uint32_t m = 0; m < sets; m++)
            pair = total[m] + below[(sets - 1) & ~m] > pair ? total[m] + below[(sets - 1) & ~m] : pair;
        assert_true(pair == nq_quarter_slice_pair_capacity(h));
        free(total);
        free(below);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mirror),
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_mitm),
        cmocka_unit_test(test_audit_21),
        cmocka_unit_test(test_audit_24),
        cmocka_unit_test(test_audit_26),
        cmocka_unit_test(test_audit_28),
        cmocka_unit_test(test_unit_costs_spread),
        cmocka_unit_test(test_key_widths_large),
        cmocka_unit_test(test_slice_capacity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
