/*
 * test_api.c - the library's contract for bad settings, error text, engine
 * names, 128-bit formatting and solution listing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "reference/known.h"
#include "nqueens/nqueens.h"

static int count_with(nq_settings *s)
{
    nq_result r;
    memset(&r, 0xab, sizeof r);
    return nq_count(s, &r);
}

static void test_invalid_settings(void **state)
{
    (void)state;
    nq_settings s;
    const int bad_n[] = {0, -1, 33, 1000, -2147483647 - 1};
    for (size_t i = 0; i < sizeof bad_n / sizeof *bad_n; i++) {
        nq_default_settings(&s);
        s.n = bad_n[i];
        assert_int_equal(count_with(&s), NQ_EINVAL_N);
        assert_int_equal(nq_validate_settings(&s), NQ_EINVAL_N);
    }
    const int bad_threads[] = {-1, NQ_MAX_THREADS + 1, -100};
    for (size_t i = 0; i < sizeof bad_threads / sizeof *bad_threads; i++) {
        nq_default_settings(&s);
        s.threads = bad_threads[i];
        assert_int_equal(count_with(&s), NQ_EINVAL_THREADS);
    }
    nq_default_settings(&s);
    s.engine = (enum nq_engine)99;
    assert_int_equal(count_with(&s), NQ_EINVAL_ENGINE);
    s.engine = (enum nq_engine)-1;
    assert_int_equal(count_with(&s), NQ_EINVAL_ENGINE);

    nq_default_settings(&s);
    s.n = 6;
    s.split_depth = 7; /* deeper than the board */
    assert_int_equal(count_with(&s), NQ_EINVAL_SPLIT);
    s.split_depth = -1;
    assert_int_equal(count_with(&s), NQ_EINVAL_SPLIT);
    s.n = 20;
    s.split_depth = NQ_MAX_SPLIT_DEPTH + 1;
    assert_int_equal(count_with(&s), NQ_EINVAL_SPLIT);

    nq_result r;
    assert_int_equal(nq_count(NULL, &r), NQ_EINVAL_ARG);
    nq_default_settings(&s);
    assert_int_equal(nq_count(&s, NULL), NQ_EINVAL_ARG);
    nq_job *job = (nq_job *)&r;
    s.n = 0;
    assert_int_equal(nq_job_create(&job, &s), NQ_EINVAL_N);
    assert_null(job);
}

/* nq_check_settings: each refusal names the setting and its value, what
 * does not apply to the engine is refused, and nq_count says the same. */
static void test_check_settings_names_the_field(void **state)
{
    (void)state;
    static const struct {
        int n, threads, split_depth;
        enum nq_engine engine;
        int code;
        const char *mentions;
    } cases[] = {
        {33, 0, 0, NQ_ENGINE_AUTO, NQ_EINVAL_N, "board size N=33"},
        {8, 5000, 0, NQ_ENGINE_AUTO, NQ_EINVAL_THREADS, "thread count 5000"},
        {8, 0, 9, NQ_ENGINE_MIRROR, NQ_EINVAL_SPLIT, "split depth 9"},
        {6, 0, 7, NQ_ENGINE_MIRROR, NQ_EINVAL_SPLIT, "split depth 7 exceeds"},
        {12, 0, 2, NQ_ENGINE_MITM, NQ_EINVAL_SPLIT, "does not apply to engine mitm"},
        {16, 0, 2, NQ_ENGINE_AUTO, NQ_EINVAL_SPLIT, "which auto picks"},
        {10, 0, 2, NQ_ENGINE_PLAIN, NQ_EINVAL_SPLIT, "does not apply to engine plain"},
        {10, 2, 0, NQ_ENGINE_PLAIN, NQ_EINVAL_THREADS, "engine plain"},
        {NQ_MAX_N, 0, 0, NQ_ENGINE_MITM, NQ_EUNSUPPORTED, "engine mitm cannot count N=32"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        nq_settings s;
        nq_default_settings(&s);
        s.n = cases[i].n;
        s.threads = cases[i].threads;
        s.split_depth = cases[i].split_depth;
        s.engine = cases[i].engine;
        char detail[200];
        assert_int_equal(nq_check_settings(&s, detail, sizeof detail), cases[i].code);
        if (!strstr(detail, cases[i].mentions))
            fail_msg("case %zu: '%s' should mention '%s'", i, detail, cases[i].mentions);
        assert_int_equal(nq_validate_settings(&s), cases[i].code);
        nq_result r;
        assert_int_equal(nq_count(&s, &r), cases[i].code);
        assert_string_equal(r.detail, detail);
    }
    /* What applies is accepted, and a success leaves the detail empty. */
    nq_settings s;
    nq_default_settings(&s);
    s.n = 10;
    s.engine = NQ_ENGINE_PLAIN;
    s.threads = 1;
    char detail[64] = "stale";
    assert_int_equal(nq_check_settings(&s, detail, sizeof detail), 0);
    assert_string_equal(detail, "");
    s.engine = NQ_ENGINE_FULL;
    s.threads = 3;
    s.split_depth = 2;
    assert_int_equal(nq_check_settings(&s, NULL, 0), 0);
}

static void test_defaults(void **state)
{
    (void)state;
    nq_settings s;
    memset(&s, 0x5a, sizeof s);
    nq_default_settings(&s);
    assert_int_equal(s.n, 8);
    assert_int_equal(s.threads, 0);
    assert_int_equal(s.engine, NQ_ENGINE_AUTO);
    assert_int_equal(s.split_depth, 0);
    assert_null(s.checkpoint_path);
    assert_null(s.progress);
    assert_null(s.cancel);
    assert_int_equal(nq_validate_settings(&s), 0);
    nq_result r;
    assert_int_equal(nq_count(&s, &r), 0);
    assert_true(r.total == 92);
    assert_int_not_equal(r.engine, NQ_ENGINE_AUTO);
}

static void test_error_text(void **state)
{
    (void)state;
    const int codes[] = {NQ_EINVAL_N, NQ_EINVAL_THREADS, NQ_EINVAL_ENGINE, NQ_EINVAL_SPLIT,
                         NQ_EINVAL_ARG, NQ_ENOMEM, NQ_EIO, NQ_EJOURNAL_MISMATCH,
                         NQ_EJOURNAL_CORRUPT, NQ_ECANCELLED, NQ_EUNSUPPORTED, NQ_ETOO_MANY};
    const size_t count = sizeof codes / sizeof *codes;
    for (size_t i = 0; i < count; i++) {
        const char *text = nq_strerror(codes[i]);
        assert_non_null(text);
        assert_string_not_equal(text, nq_strerror(-12345));
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(text, nq_strerror(codes[j]));
    }
    assert_non_null(nq_strerror(-12345));
    assert_string_equal(nq_strerror(0), "success");
}

static void test_engine_names(void **state)
{
    (void)state;
    for (int e = 0; e < NQ_ENGINE_COUNT_; e++) {
        enum nq_engine back;
        const char *name = nq_engine_name((enum nq_engine)e);
        assert_non_null(name);
        assert_int_equal(nq_engine_from_name(name, &back), 0);
        assert_int_equal(back, e);
    }
    enum nq_engine out = NQ_ENGINE_PLAIN;
    assert_int_equal(nq_engine_from_name("bogus", &out), NQ_EINVAL_ENGINE);
    assert_int_equal(nq_engine_from_name("", &out), NQ_EINVAL_ENGINE);
    assert_int_equal(nq_engine_from_name("Mirror", &out), NQ_EINVAL_ENGINE);
    assert_int_equal(out, NQ_ENGINE_PLAIN);
    assert_null(nq_engine_name(NQ_ENGINE_COUNT_));
    assert_int_not_equal(nq_auto_engine(16, 2), NQ_ENGINE_AUTO);
    assert_non_null(nq_version());
}

static void test_u128_format(void **state)
{
    (void)state;
    char buf[48];
    assert_string_equal(nq_u128_to_string(0, buf, sizeof buf), "0");
    assert_string_equal(nq_u128_to_string(7, buf, sizeof buf), "7");
    assert_string_equal(nq_u128_to_string(UINT64_MAX, buf, sizeof buf), "18446744073709551615");
    nq_u128 big = (nq_u128)UINT64_MAX + 1; /* 2^64: past any 64-bit counter */
    assert_string_equal(nq_u128_to_string(big, buf, sizeof buf), "18446744073709551616");
    nq_u128 max = ~(nq_u128)0;
    assert_string_equal(nq_u128_to_string(max, buf, sizeof buf),
                        "340282366920938463463374607431768211455");
    assert_null(nq_u128_to_string(12345, buf, 5)); /* needs 6 bytes */
    assert_non_null(nq_u128_to_string(12345, buf, 6));
}

typedef struct {
    int n;
    uint64_t seen;
    int bad;
} listing;

/* Independent validity check: one queen per row by construction; columns and
 * both diagonals checked pairwise. */
static int check_solution(const int *cols, int n, void *user)
{
    listing *l = user;
    l->seen++;
    if (n != l->n)
        l->bad++;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (cols[a] == cols[b] || cols[a] - cols[b] == a - b || cols[a] - cols[b] == b - a)
                l->bad++;
    return 0;
}

static void test_list_solutions(void **state)
{
    (void)state;
    for (int n = 1; n <= 10; n++) {
        listing l = {n, 0, 0};
        uint64_t emitted = 0;
        assert_int_equal(nq_list_solutions(n, 0, check_solution, &l, &emitted), 0);
        assert_int_equal(l.bad, 0);
        assert_true(l.seen == known_total[n]);
        assert_true(emitted == l.seen);
    }
    listing l = {10, 0, 0};
    uint64_t emitted = 0;
    assert_int_equal(nq_list_solutions(10, 5, check_solution, &l, &emitted), 0);
    assert_int_equal(emitted, 5);
    assert_int_equal(nq_list_solutions(0, 0, check_solution, &l, NULL), NQ_EINVAL_N);
    assert_int_equal(nq_list_solutions(8, 0, NULL, NULL, NULL), NQ_EINVAL_ARG);
}

/* What the header promises for NULL pointers and values out of range:
 * a code where one can be returned, a neutral value or nothing otherwise,
 * never a crash. */
static void test_null_and_out_of_range(void **state)
{
    (void)state;
    nq_default_settings(NULL);
    assert_int_equal(nq_job_units(NULL), 0);
    assert_int_equal(nq_job_engine(NULL), NQ_ENGINE_AUTO);
    assert_int_equal(nq_job_split_depth(NULL), 0);
    assert_int_equal(nq_job_identity(NULL), 0);
    nq_job_free(NULL);
    assert_null(nq_engine_name((enum nq_engine)99));
    assert_int_equal(nq_engine_has_unique((enum nq_engine)99), 0);
    assert_non_null(nq_strerror(12345));
    assert_null(nq_u128_to_string(1, NULL, 40));
    enum nq_schedule schedule = NQ_SCHEDULE_COUNT_;
    assert_int_equal(nq_schedule_from_name(NULL, &schedule), NQ_EINVAL_ARG);
    assert_int_equal(schedule, NQ_SCHEDULE_COUNT_);
    uint64_t emitted = 99;
    assert_int_equal(nq_list_solutions(8, 0, NULL, NULL, &emitted), NQ_EINVAL_ARG);
    assert_int_equal(emitted, 0);
    assert_int_equal(nq_list_solutions(33, 0, NULL, NULL, NULL), NQ_EINVAL_N);

    nq_settings s;
    nq_default_settings(&s);
    s.n = 10;
    s.engine = NQ_ENGINE_MIRROR;
    nq_job *job = NULL;
    assert_int_equal(nq_job_create(&job, &s), 0);
    nq_counts sum = {0, 0};
    /* Thread counts outside 0..NQ_MAX_THREADS are refused, not run. */
    const int bad_threads[] = {-1, NQ_MAX_THREADS + 1, 100000, -2147483647 - 1};
    for (size_t i = 0; i < sizeof bad_threads / sizeof *bad_threads; i++)
        assert_int_equal(nq_job_solve(job, 0, 1, bad_threads[i], NULL, &sum),
                         NQ_EINVAL_THREADS);
    assert_int_equal(nq_job_solve(NULL, 0, 1, 1, NULL, &sum), NQ_EINVAL_ARG);
    assert_int_equal(nq_job_solve(job, 0, 1, 1, NULL, NULL), NQ_EINVAL_ARG);
    assert_true(sum.total == 0);
    /* 0 takes OMP_NUM_THREADS, read by the library: one it cannot take is
     * refused, named as given. */
    const char *saved = getenv("OMP_NUM_THREADS");
    char *kept = saved ? strdup(saved) : NULL;
    setenv("OMP_NUM_THREADS", "4294967296", 1);
    assert_int_equal(nq_job_solve(job, 0, 1, 0, NULL, &sum), NQ_EINVAL_THREADS);
    char detail[256];
    assert_int_equal(nq_check_settings(&s, detail, sizeof detail), NQ_EINVAL_THREADS);
    assert_non_null(strstr(detail, "OMP_NUM_THREADS='4294967296'"));
    setenv("OMP_NUM_THREADS", "2", 1);
    assert_int_equal(nq_job_solve(job, 0, nq_job_units(job), 0, NULL, &sum), 0);
    assert_true(sum.total == 724);
    if (kept)
        setenv("OMP_NUM_THREADS", kept, 1);
    else
        unsetenv("OMP_NUM_THREADS");
    free(kept);

    nq_solver *solver = (nq_solver *)&solver;
    assert_int_equal(nq_solver_create(NULL, job), NQ_EINVAL_ARG);
    assert_int_equal(nq_solver_create(&solver, NULL), NQ_EINVAL_ARG);
    assert_null(solver);
    nq_counts one;
    assert_int_equal(nq_solver_solve(NULL, 0, &one), NQ_EINVAL_ARG);
    nq_mitm_unit unit;
    assert_int_equal(nq_mitm_describe_unit(NULL, 0, &unit), NQ_EINVAL_ARG);
    assert_int_equal(nq_mitm_describe_unit(job, 0, &unit), NQ_EINVAL_ARG); /* not mitm */
    assert_int_equal(nq_mitm_memory_estimate(40, 1), 0);
    nq_job_free(&job);
    assert_null(job);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invalid_settings), cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_check_settings_names_the_field),
        cmocka_unit_test(test_error_text),       cmocka_unit_test(test_engine_names),
        cmocka_unit_test(test_u128_format),      cmocka_unit_test(test_list_solutions),
        cmocka_unit_test(test_null_and_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
