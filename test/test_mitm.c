/*
 * test_mitm.c - the meet-in-the-middle engine: totals, the weight of every
 * unit, its tunings (each counts what the default does), the quarter store
 * and slices, each against an independent reference (the known table, the
 * plain engine, a solution listing, a direct check of each placement).
 * The join on its own is test_join.c's.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "count_util.h"
#include "engines/mitm/join.h"
#include "engines/mitm/mitm_plan.h"
#include "engines/mitm/quarter_slice.h"
#include "engines/mitm/quarter_store.h"
#include "mitm_util.h"
#include "nqueens/nqueens.h"
#include "reference/known.h"

static const int thread_counts[] = {1, 2, 3, 8};

/* The total of one count, checking that the requested engine ran. */
static nq_u128 count_total(int n, enum nq_engine engine, int threads)
{
    const nq_result r = nq_test_count(n, engine, threads, 0);
    assert_int_equal(r.engine, engine);
    return r.total;
}

/* N = 1..15: the table, the plain engine, and every thread count agree. */
static void test_totals(void **state)
{
    (void)state;
    for (int n = 1; n <= 15; n++) {
        const nq_u128 plain = count_total(n, NQ_ENGINE_PLAIN, 1);
        assert_true(plain == known_total[n]);
        for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++)
            if (count_total(n, NQ_ENGINE_MITM, thread_counts[t]) != plain)
                fail_msg("mitm n=%d threads=%d: wrong total", n, thread_counts[t]);
    }
}

/* Solutions classified by the (a, b, E) of a unit, counted in flat arrays:
 * plainly, and with the rank weight c that even N counts. */
typedef struct classifier {
    int n, h;
    uint64_t *counts;   /* index ((a + h) * (2h + 1) + (b + h)) << 2h | E */
    uint64_t *weighted; /* the same, each solution counted c times */
} classifier;

static size_t class_index(const classifier *c, int a, int b, uint32_t east)
{
    const size_t side = (size_t)(2 * c->h + 1);
    return (((size_t)(a + c->h) * side + (size_t)(b + c->h)) << (2 * c->h)) | east;
}

/* rank(x) of nqueens.h (nq_mitm_unit) for a set of h bits, taking x's
 * bits in reverse order when `reversed`. */
static uint32_t set_rank(uint32_t x, int h, int reversed)
{
    uint32_t y = 0;
    for (int i = 0; i < h; i++)
        y |= (x >> i & 1) << (reversed ? h - 1 - i : i);
    const uint32_t complement = y ^ ((UINT32_C(1) << h) - 1);
    return y < complement ? y : complement;
}

/* c of nqueens.h, from the definition, for a solution of even n in unit
 * E = east. */
static uint64_t rank_weight(const int *cols, int n, uint32_t east)
{
    const int h = n / 2;
    const uint32_t low = (UINT32_C(1) << h) - 1;
    const uint32_t north = set_rank(east & low, h, 0), south = set_rank(east >> h, h, 1);
    const uint32_t floor = north < south ? north : south;
    uint32_t north_east = 0, north_west = 0;
    for (int r = 0; r < h; r++)
        if (cols[r] >= h)
            north_east |= UINT32_C(1) << (cols[r] - h);
        else
            north_west |= UINT32_C(1) << cols[r];
    const uint32_t a = set_rank(north_east, h, 1), b = set_rank(north_west, h, 0);
    const uint32_t least = a < b ? a : b;
    return least > floor ? 2 : least == floor ? 1 : 0;
}

/* Classifies one solution exactly as mitm.h defines a unit. */
static int classify(const int *cols, int n, void *user)
{
    classifier *c = user;
    const int h = n / 2, mid = n / 2;
    int a = 0, b = 0;
    if (n & 1) {
        a = cols[mid] - mid;
        for (int r = 0; r < n; r++)
            if (cols[r] == mid)
                b = r - mid;
    }
    uint32_t east = 0;
    for (int i = 0; i < h; i++) {
        east |= (uint32_t)(cols[i] >= n - h) << i;              /* north row i */
        east |= (uint32_t)(cols[n - h + i] >= n - h) << (h + i); /* south row n-h+i */
    }
    const size_t k = class_index(c, a, b, east);
    c->counts[k]++;
    c->weighted[k] += n & 1 ? 1 : rank_weight(cols, n, east);
    return 0;
}

/*
 * For N = 4..13: each unit's count is its weight times what its class of
 * the listing predicts -- the number of solutions for odd N, their sum of
 * c for even N -- no class is solved twice, and weight times prediction
 * summed over the units is the whole total, so the weights account for
 * every solution exactly once.  For even N from 8 on, some classes must
 * have a c-sum unlike their solution count, or the test would not tell
 * the two apart.
 */
static void test_unit_weights(void **state)
{
    (void)state;
    for (int n = NQ_MITM_MIN_N; n <= 13; n++) {
        classifier c = {.n = n, .h = n / 2};
        const size_t classes = (size_t)(2 * c.h + 1) * (size_t)(2 * c.h + 1) << (2 * c.h);
        c.counts = calloc(classes, sizeof *c.counts);
        c.weighted = calloc(classes, sizeof *c.weighted);
        unsigned char *seen = calloc(classes, 1);
        assert_non_null(c.counts);
        assert_non_null(c.weighted);
        assert_non_null(seen);
        uint64_t listed = 0;
        assert_int_equal(nq_list_solutions(n, 0, classify, &c, &listed), 0);
        assert_true(listed == known_total[n]);
        const uint64_t *predicted = n & 1 ? c.counts : c.weighted;

        nq_job *job = nq_test_mitm_job(n, 0, NULL);
        nq_solver *solver;
        assert_int_equal(nq_solver_create(&solver, job), 0);
        nq_u128 weighted = 0;
        int differ = 0;
        for (uint64_t u = 0; u < nq_job_units(job); u++) {
            nq_mitm_unit d;
            nq_counts got;
            assert_int_equal(nq_mitm_describe_unit(job, u, &d), 0);
            assert_int_equal(nq_solver_solve(solver, u, &got), 0);
            assert_true(d.weight >= 1 && d.weight <= 8);
            assert_true(d.a_first <= d.a_last);
            uint64_t want = 0;
            for (int a = d.a_first; a <= d.a_last; a++) {
                const size_t k = class_index(&c, a, d.b, d.east);
                if (seen[k])
                    fail_msg("n=%d: unit %llu repeats a class", n, (unsigned long long)u);
                seen[k] = 1;
                want += predicted[k];
                differ |= c.weighted[k] != c.counts[k];
            }
            if (got.total != (nq_u128)want * d.weight)
                fail_msg("n=%d unit %llu (a=%d..%d b=%d E=%#x w=%u): %llu, expected %llu x %u", n,
                         (unsigned long long)u, d.a_first, d.a_last, d.b, d.east, d.weight,
                         (unsigned long long)got.total, (unsigned long long)want, d.weight);
            weighted += (nq_u128)want * d.weight;
        }
        if (weighted != known_total[n])
            fail_msg("n=%d: weights cover %llu solutions, not %llu", n,
                     (unsigned long long)weighted, (unsigned long long)known_total[n]);
        if (!(n & 1) && n >= 8 && !differ)
            fail_msg("n=%d: no unit's c-sum differs from its solution count", n);
        nq_solver_free(&solver);
        nq_job_free(&job);
        free(seen);
        free(c.weighted);
        free(c.counts);
    }
}

/* A tuning of the engine, passed when a job is planned: knob(t, 0) and
 * knob(t, 1) set the two ways to compare in the default tuning t. */
typedef void (*mitm_knob)(nq_mitm_tuning *t, int way);

/* Plans board n with knob 0 and with knob 1: both plans have the same
 * identity, and every unit the same count (n <= 13), or both jobs the
 * known total (larger n). */
static void compare_ways(int n, mitm_knob knob, const char *way0, const char *way1)
{
    nq_job *job[2];
    for (int way = 0; way < 2; way++) {
        nq_mitm_tuning t;
        nq_mitm_default_tuning(&t);
        knob(&t, way);
        job[way] = nq_test_mitm_job(n, 0, &t);
    }
    assert_true(nq_job_identity(job[0]) == nq_job_identity(job[1]));
    const uint64_t units = nq_job_units(job[0]);
    /* One solver a job, as a count's thread keeps its scratch: a fresh
     * one a unit (nq_job_solve_unit) would allocate and clear the join's
     * tables thousands of times, most of this test's time under the
     * sanitizers. */
    nq_solver *solver[2];
    for (int way = 0; way < 2; way++)
        assert_int_equal(nq_solver_create(&solver[way], job[way]), 0);
    for (uint64_t u = 0; n <= 13 && u < units; u++) {
        nq_counts a, b;
        assert_int_equal(nq_solver_solve(solver[0], u, &a), 0);
        assert_int_equal(nq_solver_solve(solver[1], u, &b), 0);
        if (a.total != b.total)
            fail_msg("n=%d unit %llu: %llu %s, %llu %s", n, (unsigned long long)u,
                     (unsigned long long)a.total, way0, (unsigned long long)b.total, way1);
    }
    for (int way = 0; way < 2; way++)
        nq_solver_free(&solver[way]);
    for (int way = 0; n > 13 && way < 2; way++) {
        nq_counts sum = {0, 0};
        assert_int_equal(nq_job_solve(job[way], 0, units, 2, NULL, &sum), 0);
        if (sum.total != known_total[n])
            fail_msg("n=%d: %llu %s", n, (unsigned long long)sum.total, way ? way1 : way0);
    }
    nq_job_free(&job[0]);
    nq_job_free(&job[1]);
}

static void batch_knob(nq_mitm_tuning *t, int way)
{
    t->batch_limit = way == 1; /* 1: batches as small as allowed */
}

static void walk_knob(nq_mitm_tuning *t, int way)
{
    t->walk_slices = way == 1;
    t->grow_lists = way == 1;
}

static void key_knob(nq_mitm_tuning *t, int way)
{
    t->key_min = way == 0 ? SIZE_MAX : 0;
}

/* Every join keyed: with six key bits (way 0) or with fourteen (way 1),
 * the most whose sort tags hold the class bits beside the key, which real
 * boards take from N = 26 on. */
static void key_width_knob(nq_mitm_tuning *t, int way)
{
    t->key_min = 0;
    t->key_bits = way == 0 ? 6 : 14;
}

/* As key_width_knob, with the most the join takes (way 1), whose sort
 * finds each member's class bits again (N = 28's batches). */
static void widest_key_knob(nq_mitm_tuning *t, int way)
{
    t->key_min = 0;
    t->key_bits = way == 0 ? 6 : NQ_JOIN_KEY_BITS_MAX;
}

/* Half-boards in batches far smaller than a side (the store's largest
 * group) give every unit of N = 4..13 the same count as one batch does. */
static void test_small_batches(void **state)
{
    (void)state;
    for (int n = NQ_MITM_MIN_N; n <= 13; n++)
        compare_ways(n, batch_knob, "whole", "in batches");
}

/* Slices walked without a store, the lists taking what they leave (as
 * at N = 28), give every unit of N = 4..13 the same count as slices from
 * the store. */
static void test_walked_slices(void **state)
{
    (void)state;
    for (int n = NQ_MITM_MIN_N; n <= 13; n++)
        compare_ways(n, walk_knob, "from the store", "walked");
}

/* Joins with and without key bits give every unit of N = 4..13 the same
 * count, and N = 14, 15 the known total (real boards take keys only on
 * long west lists, from N = 18 on). */
static void test_keyed_joins(void **state)
{
    (void)state;
    for (int n = NQ_MITM_MIN_N; n <= 15; n++)
        compare_ways(n, key_knob, "without keys", "with keys");
}

/* Joins with six key bits and with fourteen give every unit of N = 4..13
 * the same count, and N = 14 the known total, as do joins with sixteen on
 * N = 4..12 (their sorts clear a counter per tag, four times fourteen
 * bits' tags, which the small boards' many short lists make slow); key
 * bits out of range are refused. */
static void test_key_widths(void **state)
{
    (void)state;
    for (int n = NQ_MITM_MIN_N; n <= 14; n++)
        compare_ways(n, key_width_knob, "with 6 key bits", "with 14 key bits");
    for (int n = NQ_MITM_MIN_N; n <= 12; n++)
        compare_ways(n, widest_key_knob, "with 6 key bits", "with the widest keys");
    nq_mitm_tuning t;
    nq_mitm_default_tuning(&t);
    nq_job *job = nq_test_mitm_job(12, 0, NULL);
    t.key_bits = NQ_JOIN_KEY_BITS_MAX + 1;
    assert_int_equal(nq_mitm_replan(job, &t), NQ_EINVAL_ARG);
    t.key_bits = -1;
    assert_int_equal(nq_mitm_replan(job, &t), NQ_EINVAL_ARG);
    nq_job_free(&job);
}

/* N = 14..18: the units of a job, solved one range at a time, add up to the
 * known total; N = 14..16 with walked slices (the path of N >= 24) and lists
 * that take what they leave (N = 28's). */
static void test_unit_sums(void **state)
{
    (void)state;
    for (int n = 14; n <= 18; n++) {
        nq_mitm_tuning t;
        nq_mitm_default_tuning(&t);
        t.walk_slices = t.grow_lists = n <= 16;
        nq_job *job = nq_test_mitm_job(n, 0, &t);
        const uint64_t units = nq_job_units(job), step = units / 7 + 1;
        nq_counts sum = {0, 0};
        for (uint64_t first = 0; first < units; first += step)
            assert_int_equal(nq_job_solve(job, first, first + step < units ? step : units - first,
                                          2, NULL, &sum),
                             0);
        if (sum.total != known_total[n])
            fail_msg("n=%d: units add up to %llu", n, (unsigned long long)sum.total);
        nq_job_free(&job);
    }
}

/* Every join kernel this machine runs, named by a job's tuning, counts
 * N = 4..14 exactly, with keyed joins forced and not; a kernel it does not
 * run is refused, and the job keeps the plan it had. */
static void test_join_kernel_tuned(void **state)
{
    (void)state;
    for (int k = NQ_JOIN_KERNEL_SCALAR; k <= NQ_JOIN_KERNEL_AVX512 + 1; k++) {
        nq_mitm_tuning t;
        nq_mitm_default_tuning(&t);
        t.join_kernel = (enum nq_join_kernel)k;
        if (!nq_join_kernel_supported(t.join_kernel)) {
            nq_job *job = nq_test_mitm_job(12, 2, NULL);
            assert_int_equal(nq_mitm_replan(job, &t), NQ_EUNSUPPORTED);
            nq_counts sum = {0, 0};
            assert_int_equal(nq_job_solve(job, 0, nq_job_units(job), 2, NULL, &sum), 0);
            assert_true(sum.total == known_total[12]);
            nq_job_free(&job);
            continue;
        }
        for (int n = NQ_MITM_MIN_N; n <= 14; n++)
            for (int keyed = 0; keyed < 2; keyed++) {
                t.key_min = keyed ? 0 : SIZE_MAX;
                nq_job *job = nq_test_mitm_job(n, 2, &t);
                nq_counts sum = {0, 0};
                assert_int_equal(nq_job_solve(job, 0, nq_job_units(job), 2, NULL, &sum), 0);
                if (sum.total != known_total[n])
                    fail_msg("join kernel %d, n=%d%s: %llu", k, n, keyed ? ", keyed" : "",
                             (unsigned long long)sum.total);
                nq_job_free(&job);
            }
    }
}

/* The store holds exactly the non-attacking placements, each in its group,
 * with one diagonal of each family per queen. */
static void test_quarter_store(void **state)
{
    (void)state;
    for (int h = 0; h <= 7; h++) {
        nq_quarter_store qs;
        assert_int_equal(nq_quarter_store_build(&qs, h, 1), 0);
        assert_true(qs.placements == nq_quarter_store_placements(h));
        uint64_t sum = 0, placements[1 << 7];
        for (uint32_t rows = 0; rows < (UINT32_C(1) << h); rows++) {
            nq_test_placements_by_columns(h, rows, placements);
            for (uint32_t cols = 0; cols < (UINT32_C(1) << h); cols++) {
                const uint64_t *g;
                const uint32_t size = nq_quarter_group(&qs, rows, cols, &g);
                assert_true(size == placements[cols]);
                sum += size;
                for (uint32_t i = 0; i < size; i++) {
                    const uint32_t d1 = (uint32_t)g[i], d2 = (uint32_t)(g[i] >> 32);
                    assert_int_equal(__builtin_popcount(d1), __builtin_popcount(rows));
                    assert_int_equal(__builtin_popcount(d2), __builtin_popcount(rows));
                    /* An h x h quarter has 2h - 1 diagonals per family (none when h = 0). */
                    if (h == 0)
                        assert_true(d1 == 0 && d2 == 0);
                    else
                        assert_true(d1 >> (2 * h - 1) == 0 && d2 >> (2 * h - 1) == 0);
                }
            }
        }
        assert_true(sum == qs.placements);
        nq_quarter_store_free(&qs);
    }
}

/* The estimate hook prices each unit of N = 4..15 as its two sides'
 * half-boards say (nq_test_unit_cost), with the store and with the group
 * sizes counted by walking (the boards without a store). */
static void test_unit_costs(void **state)
{
    (void)state;
    for (int n = NQ_MITM_MIN_N; n <= 15; n++)
        for (int walk = 0; walk < 2; walk++) {
            nq_mitm_tuning t;
            nq_mitm_default_tuning(&t);
            t.walk_slices = walk;
            nq_job *job = nq_test_mitm_job(n, 0, &t);
            const uint64_t units = nq_job_units(job);
            double *costs = nq_test_unit_costs(job);
            for (uint64_t u = 0; u < units; u++) {
                const double want = nq_test_unit_cost(job, n, u);
                if (costs[u] != want)
                    fail_msg("n=%d%s unit %llu: cost %g, expected %g", n, walk ? " walked" : "",
                             (unsigned long long)u, costs[u], want);
            }
            free(costs);
            nq_job_free(&job);
        }
}

/* The model half-board counts (units.c, half_model), which price the
 * units of the even boards past the store, order the units of small even
 * boards as their real half-boards do: of pairs of units drawn at random,
 * the share that the model's costs and the costs of the counted halves
 * (nq_mitm_unit_cost) put in the same order, ties aside: 0.86 to 0.87
 * (the group sizes the hook counts on smaller boards, bounds before the
 * diagonal tests between quarters, order 0.80 of them alike at N = 12).
 * The model must rank, not match: the duration estimate calibrates its
 * scale. */
static void test_model_costs(void **state)
{
    (void)state;
    static const struct {
        int n;
        double agree; /* least share of pairs in the same order */
    } want[] = {{12, 0.83}, {14, 0.83}, {16, 0.83}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const int n = want[i].n;
        const uint32_t rows = (UINT32_C(1) << n) - 1;
        nq_mitm_tuning t;
        nq_mitm_default_tuning(&t);
        t.model_costs = 1;
        nq_job *job = nq_test_mitm_job(n, 0, &t);
        const uint64_t units = nq_job_units(job);
        double *model = nq_test_unit_costs(job), *counted = malloc(units * sizeof *counted);
        assert_non_null(counted);
        for (uint64_t u = 0; u < units; u++) {
            nq_mitm_unit d;
            assert_int_equal(nq_mitm_describe_unit(job, u, &d), 0);
            /* The west side's halves are those of the same rows on the
             * east columns, shifted. */
            counted[u] =
                nq_mitm_unit_cost(job, d.east, (double)nq_test_half_boards(n, d.east),
                                  (double)nq_test_half_boards(n, rows & ~d.east));
            assert_true(model[u] > 0);
        }
        uint64_t same = 0, ordered = 0, seed = 12345;
        for (int k = 0; k < 200000; k++) {
            const uint64_t u = nq_test_random(&seed) % units, v = nq_test_random(&seed) % units;
            const double dc = counted[u] - counted[v], dm = model[u] - model[v];
            if (dc != 0 && dm != 0) {
                ordered++;
                same += (dc > 0) == (dm > 0);
            }
        }
        assert_true(ordered > 100000); /* a model that ties most units tells nothing */
        const double agree = (double)same / (double)ordered;
        if (agree < want[i].agree)
            fail_msg("N=%d: model and counted costs order %.3f of unit pairs alike, want %.2f", n,
                     agree, want[i].agree);
        free(counted);
        free(model);
        nq_job_free(&job);
    }
}

static int compare_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The most placements of any row set of side h, from the store. */
static size_t largest_slice(const nq_quarter_store *qs, int h)
{
    size_t most = 0;
    for (size_t rows = 0; rows < ((size_t)1 << h); rows++) {
        const size_t size = qs->start[(rows + 1) << h] - qs->start[rows << h];
        most = size > most ? size : most;
    }
    return most;
}

/* The most placements of two disjoint row sets together, and of one
 * group, by the store (each row set's size, the most of any of its
 * subsets, then every pair of a set and a subset of its complement). */
static void largest_pair_and_group(const nq_quarter_store *qs, int h, size_t *pair, size_t *group)
{
    const size_t sets = (size_t)1 << h;
    size_t *size = malloc(sets * sizeof *size), *below = malloc(sets * sizeof *below);
    assert_true(size && below);
    *group = 0;
    for (size_t rows = 0; rows < sets; rows++) {
        size[rows] = below[rows] = qs->start[(rows + 1) << h] - qs->start[rows << h];
        for (size_t c = 0; c < sets; c++) {
            const size_t g = qs->start[(rows << h | c) + 1] - qs->start[rows << h | c];
            *group = g > *group ? g : *group;
        }
    }
    for (int bit = 0; bit < h; bit++) /* below[m]: the largest size of a subset of m */
        for (size_t m = 0; m < sets; m++)
            if (m >> bit & 1 && below[m ^ (size_t)1 << bit] > below[m])
                below[m] = below[m ^ (size_t)1 << bit];
    *pair = 0;
    for (size_t m = 0; m < sets; m++) {
        const size_t both = size[m] + below[(sets - 1) & ~m];
        *pair = both > *pair ? both : *pair;
    }
    free(size);
    free(below);
}

/* Sorted copies of one group of a slice, conflict words and signatures
 * paired, so that two slices' groups compare whatever their order. */
static void sorted_group(const nq_quarter_slice *sl, uint32_t cols, uint64_t *out)
{
    const uint32_t at = sl->first[cols], len = sl->size[cols];
    for (uint32_t i = 0; i < len; i++)
        out[i] = sl->cw[at + i] * 0x9e3779b97f4a7c15u ^ sl->sig[at + i];
    qsort(out, len, sizeof *out, compare_u64);
}

/* Slices walked without a store equal slices from the store, group by
 * group, in every quarter frame with random queens placed beforehand, and
 * the capacity tables are the largest row set, pair of disjoint row sets
 * and group (h <= 9). */
static void test_quarter_slices(void **state)
{
    (void)state;
    uint64_t x = 99;
    for (int h = 1; h <= 9; h++) {
        nq_quarter_store qs;
        assert_int_equal(nq_quarter_store_build(&qs, h, 2), 0);
        const size_t cap = nq_quarter_slice_capacity(h);
        assert_true(cap == largest_slice(&qs, h));
        size_t pair, group;
        largest_pair_and_group(&qs, h, &pair, &group);
        assert_true(pair == nq_quarter_slice_pair_capacity(h));
        assert_true(group == nq_quarter_group_capacity(h));
        const size_t bytes = nq_quarter_slice_bytes(h, cap);
        void *m1 = malloc(bytes), *m2 = malloc(bytes);
        uint64_t *g1 = malloc(cap * sizeof *g1), *g2 = malloc(cap * sizeof *g2);
        assert_true(m1 && m2 && g1 && g2);
        for (int trial = 0; trial < (h <= 7 ? 40 : 4); trial++) {
            const int n = 2 * h + (trial & 1), r0 = trial & 2 ? n - h : 0;
            const int c0 = trial & 4 ? n - h : 0;
            const uint64_t p1 = nq_test_random(&x) & nq_test_random(&x);
            const uint64_t p2 = nq_test_random(&x) & nq_test_random(&x);
            const nq_quarter_frame f = {r0 + c0, r0 - c0 + n - h, r0, n - h, 2 * h - 1, p1, p2};
            const uint32_t rows = (uint32_t)nq_test_random(&x) & ((UINT32_C(1) << h) - 1);
            nq_quarter_slice a, b;
            nq_quarter_slice_init(&a, h, cap, m1);
            nq_quarter_slice_init(&b, h, cap, m2);
            nq_quarter_slice_fill(&a, &qs, h, rows, &f);
            nq_quarter_slice_fill(&b, NULL, h, rows, &f);
            for (uint32_t cols = 0; cols < (UINT32_C(1) << h); cols++) {
                if (__builtin_popcount(cols) != __builtin_popcount(rows))
                    continue;
                assert_int_equal(a.size[cols], b.size[cols]);
                sorted_group(&a, cols, g1);
                sorted_group(&b, cols, g2);
                assert_memory_equal(g1, g2, a.size[cols] * sizeof *g1);
            }
        }
        free(m1);
        free(m2);
        free(g1);
        free(g2);
        nq_quarter_store_free(&qs);
    }
}

/* Copies the placements slice q holds (cw then sig, `used` of each). */
static uint64_t *slice_copy(const nq_quarter_slice *q)
{
    uint64_t *copy = malloc((2 * q->used + 1) * sizeof *copy);
    assert_non_null(copy);
    memcpy(copy, q->cw, q->used * sizeof *copy);
    memcpy(copy + q->used, q->sig, q->used * sizeof *copy);
    return copy;
}

static int slice_holds(const nq_quarter_slice *q, const uint64_t *copy)
{
    return !memcmp(copy, q->cw, q->used * sizeof *copy) &&
           !memcmp(copy + q->used, q->sig, q->used * sizeof *copy);
}

/* With walked slices a unit's lists take what its slices leave of their
 * buffers (nq_mitm_fit_lists): at least the plan's half-boards and at
 * most half_cap_max, all of them below the slices, which keep every
 * placement where they were packed; the lists written over, the next
 * unit on the same scratch holds the same slices again. */
static void test_lists_fit(void **state)
{
    (void)state;
    uint64_t x = 5;
    for (int n = 12; n <= 16; n += 2) {
        nq_mitm_tuning t;
        nq_mitm_default_tuning(&t);
        t.walk_slices = t.grow_lists = 1;
        nq_job *job = nq_test_mitm_job(n, 1, &t);
        const mitm_plan *p = job->plan;
        assert_true(p->half_cap_max > p->half_cap);
        const int h = p->h;
        const uint32_t hm = (UINT32_C(1) << h) - 1;
        const size_t bytes = (p->scratch_bytes + 63) & ~(size_t)63;
        void *raw = aligned_alloc(64, bytes);
        assert_non_null(raw);
        memset(raw, 0, bytes);
        for (int trial = 0; trial < 6; trial++) {
            const uint32_t east = p->canon[nq_test_random(&x) % p->ncanon];
            const uint32_t west = ~east & ((UINT32_C(1) << 2 * h) - 1);
            uint64_t *copy[NQ_QUARTERS];
            for (int again = 0; again < 2; again++) {
                mitm_scratch s = nq_mitm_carve_scratch(p, raw);
                nq_mitm_prepare_side(p, &s, 1, west & hm, west >> h, 0, 0);
                nq_mitm_prepare_side(p, &s, 0, east & hm, east >> h, 0, 0);
                for (int q = 0; q < NQ_QUARTERS; q++) {
                    if (again)
                        assert_true(slice_holds(&s.quarter[q], copy[q]));
                    else
                        copy[q] = slice_copy(&s.quarter[q]);
                }
                nq_mitm_fit_lists(p, &s);
                assert_true(s.half_cap >= p->half_cap && s.half_cap <= p->half_cap_max);
                /* The packed slices hold two buffers' worth at most, so
                 * the lists gain at least what the unit leaves unused. */
                size_t used = 0;
                for (int q = 0; q < NQ_QUARTERS; q++)
                    used += s.quarter[q].used;
                assert_true(26 * (s.half_cap - p->half_cap) + 26 * 64 + 64 >=
                                16 * (2 * p->slice_cap - used) ||
                            s.half_cap == p->half_cap_max);
                const char *lists_end = (const char *)(s.tag + s.half_cap + 1);
                assert_true((const char *)(s.split + s.half_cap) <= (const char *)s.tag);
                for (int q = 0; q < NQ_QUARTERS; q++) {
                    const nq_quarter_slice *sq = &s.quarter[q];
                    assert_true((const char *)sq->cw >= lists_end);
                    assert_true(sq->cw + sq->used <= sq->sig || sq->sig + sq->used <= sq->cw);
                    assert_true((const char *)(sq->sig + sq->used) <= s.room_end);
                    assert_true((const char *)(sq->cw + sq->used) <= s.room_end);
                    assert_true(slice_holds(sq, copy[q]));
                }
                /* A unit writes its lists in full. */
                memset(s.east, 0xa5, (size_t)(lists_end - (const char *)s.east));
                for (int q = 0; q < NQ_QUARTERS; q++)
                    assert_true(slice_holds(&s.quarter[q], copy[q]));
            }
            for (int q = 0; q < NQ_QUARTERS; q++)
                free(copy[q]);
        }
        free(raw);
        nq_job_free(&job);
        /* Below NQ_MITM_GROW_MIN_H the lists keep the plan's size. */
        t.grow_lists = 0;
        job = nq_test_mitm_job(n, 1, &t);
        p = job->plan;
        assert_true(p->half_cap_max == p->half_cap);
        nq_job_free(&job);
    }
}

/* From h = 8 the store is built in parallel: any thread count gives the
 * same store, byte for byte. */
static void test_quarter_store_threads(void **state)
{
    (void)state;
    for (int h = 8; h <= 9; h++) {
        nq_quarter_store one, many;
        assert_int_equal(nq_quarter_store_build(&one, h, 1), 0);
        assert_int_equal(nq_quarter_store_build(&many, h, 3), 0);
        const size_t keys = (size_t)1 << 2 * h;
        assert_true(one.placements == many.placements);
        assert_memory_equal(one.start, many.start, (keys + 1) * sizeof *one.start);
        /* The same order too: row sets never share a counter. */
        assert_memory_equal(one.diag, many.diag, one.placements * sizeof *one.diag);
        nq_quarter_store_free(&one);
        nq_quarter_store_free(&many);
    }
}

/* A unit solved on a thread of its own, for test_unit_progress. */
typedef struct progress_unit {
    nq_job *job;
    uint64_t unit;
    void *scratch;
    nq_counts counts;
    atomic_int done;
} progress_unit;

static void *solve_progress_unit(void *arg)
{
    progress_unit *pu = arg;
    pu->job->ops->solve(pu->job, pu->unit, &pu->counts, pu->scratch);
    atomic_store(&pu->done, 1);
    return NULL;
}

/* Solves pu's unit on another thread while reading the progress hook
 * here.  Returns how many readings were strictly between 0 and 1; fails
 * when one is outside [0, 1] or below the one before, or when the hook
 * does not read 0 once the unit is done. */
static int watch_unit(progress_unit *pu)
{
    const nq_job *job = pu->job;
    atomic_store(&pu->done, 0);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, solve_progress_unit, pu), 0);
    double last = 0;
    int inside = 0, back = 0, outside = 0, ended = 0;
    while (!atomic_load(&pu->done)) {
        const double f = job->ops->progress(job, pu->scratch);
        outside += f < 0 || f > 1;
        /* 0 after more is the reset as the unit ends (done follows it):
         * from then on nothing more may come. */
        ended |= f == 0 && last > 0;
        if ((f > 0 && f < last) || (ended && f > 0))
            fprintf(stderr, "# %.9f after %.9f\n", f, last), back++;
        inside += f > 0 && f < 1;
        last = f;
        const struct timespec nap = {0, 50000}; /* leaves the solver the core on a busy machine */
        nanosleep(&nap, NULL);
    }
    pthread_join(thread, NULL);
    assert_int_equal(outside, 0);
    assert_int_equal(back, 0);
    assert_true(job->ops->progress(job, pu->scratch) == 0);
    return inside;
}

/* Sample counts of a unit: its count with the joins solving runs of four
 * blocks, one in `every`, from each phase that starts a run in turn, set
 * in the join's scratch as the sample hook sets it (join.h,
 * sample_every).  Fails unless they add up to the whole count, each block
 * solved in exactly one phase. */
static void check_sample_phases(const nq_job *job, uint64_t unit, uint32_t every, void *scratch,
                                nq_u128 whole)
{
    nq_join_scratch *js = nq_mitm_scratch_join(scratch);
    nq_u128 sum = 0;
    for (uint32_t phase = 0; phase < every; phase++) {
        js->sample_every = every;
        js->sample_run = 4;
        js->sample_at = 4 * phase;
        nq_counts c;
        job->ops->solve(job, unit, &c, scratch);
        sum += c.total;
        /* each phase's a share: no phase holds all or none of the pairs */
        assert_true(c.total > 0 && c.total < whole);
    }
    js->sample_every = js->sample_run = js->sample_at = 0;
    assert_true(sum == whole);
}

/* The progress hook: none below N = 24 (units too short to report on);
 * at N = 24, read from another thread while a long unit runs (unit 194,
 * the costliest of the first 4,096 by the cost hook, which takes 8 s to
 * ask at N = 24: 0.45 s on one Zen 5 thread), with the halves in one
 * batch and in several, it stays in
 * [0, 1], never goes back, is seen between 0 and 1 (within a few tries:
 * the reading thread may be kept off the CPU for a whole unit), and is 0
 * once the unit is done.  Solved by sample (one block in three or in
 * ten, in runs), the unit's phases count each block once, the hook's sample
 * counts about a third or a tenth of the unit (the blocks differ: within
 * a fifth of it) and takes some CPU time in the blocks, and the scratch
 * it leaves solves the unit whole again to the same count. */
static void test_unit_progress(void **state)
{
    (void)state;
    nq_job *small = nq_test_mitm_job(20, 1, NULL);
    assert_true(small->ops->progress(small, NULL) < 0);
    nq_job_free(&small);
    for (int way = 0; way < 2; way++) {
        nq_mitm_tuning t;
        nq_mitm_default_tuning(&t);
        t.batch_limit = way ? (size_t)1 << 18 : 0;
        progress_unit pu = {.job = nq_test_mitm_job(24, 1, &t), .unit = 194};
        pu.scratch = calloc(1, pu.job->ops->scratch_size(pu.job));
        assert_non_null(pu.scratch);
        int inside = 0;
        for (int tries = 0; tries < 10 && !inside; tries++)
            inside = watch_unit(&pu);
        assert_true(inside > 0);
        const nq_u128 whole = pu.counts.total;
        check_sample_phases(pu.job, pu.unit, 3, pu.scratch, whole);
        static const uint32_t every[] = {3, 10};
        for (int e = 0; e < 2; e++) {
            nq_counts sample;
            const double seconds =
                pu.job->ops->solve_sample(pu.job, pu.unit, every[e], &sample, pu.scratch);
            assert_true(seconds > 0);
            const double ratio = (double)(sample.total * every[e]) / (double)whole;
            fprintf(stderr, "# one block in %u: %.3f of the count\n", every[e], ratio);
            assert_true(ratio > 0.8 && ratio < 1.2);
        }
        nq_counts again;
        pu.job->ops->solve(pu.job, pu.unit, &again, pu.scratch);
        assert_true(again.total == whole && whole > 0);
        free(pu.scratch);
        nq_job_free(&pu.job);
    }
}

/* The memory budget (nq_settings.memory).  Below N = 24 (a quarter store)
 * it changes nothing; past it the batch length is the longest from 2^22
 * to 2^27 whose estimate fits, so the estimate within a budget never
 * passes it (unless the shortest batches do), grows with the budget and
 * stops growing past the longest batches.  A job planned within a budget
 * has the default job's identity and units, batches of the length the
 * estimate priced and a scratch the estimate covers; with the shortest
 * batches it counts a unit the same (N = 24 unit 194, the costliest of
 * the first 4,096: 0.45 s on one Zen 5 thread). */
static void test_memory_budget(void **state)
{
    (void)state;
    const uint64_t gib = (uint64_t)1 << 30;
    assert_int_equal(nq_mitm_memory_estimate_within(NQ_MITM_MAX_N + 1, 2, gib), 0);
    for (int n = 20; n <= NQ_MITM_MAX_N; n += 2)
        assert_true(nq_mitm_memory_estimate_within(n, 2, 0) == nq_mitm_memory_estimate(n, 2));
    assert_true(nq_mitm_memory_estimate_within(22, 2, 1) == nq_mitm_memory_estimate(22, 2));
    assert_true(nq_mitm_memory_estimate_within(22, 2, 64 * gib) == nq_mitm_memory_estimate(22, 2));
    const size_t shortest = nq_mitm_memory_estimate_within(28, 2, 1);
    const size_t standard = nq_mitm_memory_estimate(28, 2);
    size_t last = 0;
    for (uint64_t m = gib / 4; m <= 64 * gib; m *= 2) {
        const size_t e = nq_mitm_memory_estimate_within(28, 2, m);
        if (e < last || (e > m && e != shortest))
            fail_msg("budget %llu bytes: estimate %zu (the budget below it: %zu)",
                     (unsigned long long)m, e, last);
        last = e;
    }
    assert_true(shortest < standard);
    assert_true(nq_mitm_memory_estimate_within(28, 2, standard) == standard);
    assert_true(last > standard);
    assert_true(nq_mitm_memory_estimate_within(28, 2, 1024 * gib) == last);

    nq_settings s;
    nq_default_settings(&s);
    s.n = 24;
    s.engine = NQ_ENGINE_MITM;
    s.threads = 2;
    nq_job *standard_job = NULL;
    assert_int_equal(nq_job_create(&standard_job, &s), 0);
    const struct {
        uint64_t memory;
        size_t half_cap;
    } budgets[] = {{1, (size_t)1 << 22}, {64 * gib, (size_t)1 << 27}};
    nq_counts want;
    assert_int_equal(nq_job_solve_unit(standard_job, 194, &want), 0);
    assert_true(want.total > 0);
    for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++) {
        nq_job *job = NULL;
        s.memory = budgets[i].memory;
        assert_int_equal(nq_job_create(&job, &s), 0);
        assert_true(nq_job_identity(job) == nq_job_identity(standard_job));
        assert_true(nq_job_units(job) == nq_job_units(standard_job));
        const mitm_plan *p = job->plan;
        assert_true(p->half_cap == budgets[i].half_cap);
        const size_t per_thread = nq_mitm_memory_estimate_within(24, 2, s.memory) -
                                  nq_mitm_memory_estimate_within(24, 1, s.memory);
        assert_true(per_thread >= job->ops->scratch_size(job));
        if (budgets[i].half_cap < NQ_MITM_HALF_LIMIT) {
            /* Longer batches are the default's path with a larger
             * number; solving with them would only touch gigabytes
             * (calloc fills them under MALLOC_PERTURB_ and TSan). */
            nq_counts got;
            assert_int_equal(nq_job_solve_unit(job, 194, &got), 0);
            assert_true(got.total == want.total);
        }
        nq_job_free(&job);
    }
    nq_job_free(&standard_job);
}

static void test_limits(void **state)
{
    (void)state;
    nq_settings s;
    nq_job *job = NULL;
    nq_default_settings(&s);
    s.engine = NQ_ENGINE_MITM;
    s.n = NQ_MITM_MAX_N + 1;
    assert_int_equal(nq_job_create(&job, &s), NQ_EUNSUPPORTED);
    assert_null(job);
    assert_int_equal(nq_mitm_memory_estimate(NQ_MITM_MAX_N + 1, 1), 0);
    assert_true(nq_mitm_memory_estimate(20, 2) < (size_t)1 << 30);
    assert_true(nq_mitm_memory_estimate(22, 2) < (size_t)4 << 30);
    /* The record board fits 4 GiB on two threads (slices share buffers). */
    assert_true(nq_mitm_memory_estimate(28, 2) <= (size_t)4 << 30);
    assert_true(nq_mitm_memory_estimate(28, 2) > nq_mitm_memory_estimate(26, 2));
    assert_true(nq_mitm_memory_estimate(18, 2) > nq_mitm_memory_estimate(18, 1));
    /* Each thread's share of the estimate covers the scratch a plan asks for. */
    for (int n = NQ_MITM_MIN_N; n <= 18; n++) {
        s.n = n;
        assert_int_equal(nq_job_create(&job, &s), 0);
        const size_t per_thread = nq_mitm_memory_estimate(n, 2) - nq_mitm_memory_estimate(n, 1);
        if (per_thread < job->ops->scratch_size(job))
            fail_msg("n=%d: estimate %zu bytes per thread, plan needs %zu", n, per_thread,
                     job->ops->scratch_size(job));
        /* ... and beside it, the duration estimate's cost of every unit. */
        const size_t costs = (size_t)nq_job_units(job) * sizeof(double);
        if (nq_mitm_memory_estimate(n, 1) < per_thread + costs)
            fail_msg("n=%d: estimate %zu bytes, one thread's scratch and the unit costs %zu", n,
                     nq_mitm_memory_estimate(n, 1), per_thread + costs);
        nq_job_free(&job);
    }
    assert_false(nq_engine_has_unique(NQ_ENGINE_MITM));

    /* Tiny boards are one unit and have no unit description. */
    s.n = 3;
    assert_int_equal(nq_job_create(&job, &s), 0);
    assert_int_equal(nq_job_units(job), 1);
    nq_mitm_unit d;
    assert_int_equal(nq_mitm_describe_unit(job, 0, &d), NQ_EUNSUPPORTED);
    nq_job_free(&job);

    /* The unit list is deterministic: same identity, same units. */
    nq_job *j2 = NULL;
    s.n = 12;
    assert_int_equal(nq_job_create(&job, &s), 0);
    s.threads = 3;
    assert_int_equal(nq_job_create(&j2, &s), 0);
    assert_true(nq_job_identity(job) == nq_job_identity(j2));
    assert_true(nq_job_units(job) == nq_job_units(j2));
    assert_int_equal(nq_mitm_describe_unit(job, nq_job_units(job), &d), NQ_EINVAL_ARG);
    nq_job_free(&job);
    nq_job_free(&j2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_totals),
        cmocka_unit_test(test_unit_weights),
        cmocka_unit_test(test_small_batches),
        cmocka_unit_test(test_walked_slices),
        cmocka_unit_test(test_keyed_joins),
        cmocka_unit_test(test_key_widths),
        cmocka_unit_test(test_unit_sums),
        cmocka_unit_test(test_join_kernel_tuned),
        cmocka_unit_test(test_quarter_store),
        cmocka_unit_test(test_unit_costs),
        cmocka_unit_test(test_model_costs),
        cmocka_unit_test(test_quarter_store_threads),
        cmocka_unit_test(test_quarter_slices),
        cmocka_unit_test(test_lists_fit),
        cmocka_unit_test(test_unit_progress),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_memory_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
