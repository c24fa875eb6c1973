/*
 * test_kernels.c - the kernel level a process runs (core/kernel.h), and
 * the counts every engine's copies for that level give.
 *
 * The level is chosen once per process, so meson runs this program once
 * per level (portable, avx2, avx512, avx512icl), NQ_KERNEL naming it, and once with NQ_KERNEL empty (the best
 * the CPU runs).  A level this CPU cannot run must be refused, by
 * nq_kernel_name() and by every run; one it can must count N = 1..15 with
 * every engine that has kernels, the mitm sort and batches forced on small
 * boards, and whole mitm units of N = 16..18 as an independent search
 * counts them (reference/mitm_audit.h, through mitm_util.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/kernel.h"
#include "count_util.h"
#include "mitm_util.h"
#include "nqueens/nqueens.h"
#include "reference/known.h"

/* The level NQ_KERNEL names, -1 when it is unset or empty (the best one),
 * or -2 when it names none. */
static int asked_level(void)
{
    const char *env = getenv("NQ_KERNEL");
    if (!env || !*env)
        return -1;
    for (int level = 0; level < NQ_KERNEL_LEVELS; level++)
        if (strcmp(env, nq_kernel_level_name(level)) == 0)
            return level;
    return -2;
}

/* 1 when this process counts (the level asked for is one it runs). */
static int counting(void)
{
    const int asked = asked_level();
    return asked == -1 || (asked >= 0 && nq_kernel_supported((enum nq_kernel_level)asked));
}

/* The name reported is the level asked for, or the best one supported when
 * none is; a level the CPU lacks is refused by name and by every run. */
static void test_level_reported(void **state)
{
    (void)state;
    const int asked = asked_level();
    const char *name = nq_kernel_name();
    assert_true(nq_kernel_supported(NQ_KERNEL_PORTABLE));
    if (asked == -1) {
        assert_non_null(name);
        int level = 0;
        while (strcmp(nq_kernel_level_name(level), name) != 0)
            level++;
        assert_true(nq_kernel_supported((enum nq_kernel_level)level));
        for (int higher = level + 1; higher < NQ_KERNEL_LEVELS; higher++)
            assert_false(nq_kernel_supported((enum nq_kernel_level)higher));
        return;
    }
    if (counting()) {
        assert_non_null(name);
        assert_string_equal(name, getenv("NQ_KERNEL"));
        return;
    }
    assert_null(name);
    nq_settings s;
    nq_result r;
    char detail[256];
    nq_default_settings(&s);
    const int expected = asked == -2 ? NQ_EINVAL_ARG : NQ_EUNSUPPORTED;
    assert_int_equal(nq_check_settings(&s, detail, sizeof detail), expected);
    assert_non_null(strstr(detail, "NQ_KERNEL"));
    assert_int_equal(nq_count(&s, &r), expected);
}

/* Every engine with kernels counts N = 1..15 exactly on 2 threads. */
static void test_engines_count(void **state)
{
    (void)state;
    if (!counting())
        return;
    static const enum nq_engine engines[] = {NQ_ENGINE_MIRROR, NQ_ENGINE_FULL, NQ_ENGINE_MITM};
    for (size_t e = 0; e < sizeof engines / sizeof engines[0]; e++)
        for (int n = 1; n <= 15; n++) {
            nq_result r = nq_test_count(n, engines[e], 2, 0);
            if (r.total != known_total[n])
                fail_msg("%s, n=%d: %llu", nq_engine_name(engines[e]), n,
                         (unsigned long long)r.total);
        }
}

/* mitm's rarer kernel paths on small boards: every unit joined with key
 * bits (the sort's copy), half-boards in the smallest batches (the pairing
 * walk resumed), and slices from the store (the filter's copy). */
static void test_mitm_paths(void **state)
{
    (void)state;
    if (!counting())
        return;
    for (int n = NQ_MITM_MIN_N; n <= 15; n++) {
        nq_mitm_tuning t;
        nq_mitm_default_tuning(&t);
        t.key_min = 0;
        t.batch_limit = 1;
        nq_job *job = nq_test_mitm_job(n, 0, &t);
        nq_counts sum = {0, 0};
        assert_int_equal(nq_job_solve(job, 0, nq_job_units(job), 2, NULL, &sum), 0);
        if (sum.total != known_total[n])
            fail_msg("n=%d, keyed joins in small batches: %llu", n, (unsigned long long)sum.total);
        nq_job_free(&job);
    }
}

/* Units of N = 16..18, spread over each job, count what the independent
 * search counts; with keys forced, so the sort's copy runs on real lists. */
static void test_mitm_units(void **state)
{
    (void)state;
    if (!counting())
        return;
    for (int n = 16; n <= 18; n++) {
        for (int keyed = 0; keyed < 2; keyed++) {
            nq_mitm_tuning t;
            nq_mitm_default_tuning(&t);
            t.key_min = keyed ? 0 : SIZE_MAX;
            nq_job *job = nq_test_mitm_job(n, 0, &t);
            const uint64_t units = nq_job_units(job);
            for (uint64_t u = units / 7; u < units; u += units / 3) {
                nq_u128 engine, search;
                if (!nq_test_audit_unit(job, n, u, &engine, &search))
                    fail_msg("n=%d unit %llu (%s): %llu, the search finds %llu", n,
                             (unsigned long long)u, keyed ? "keyed" : "unkeyed",
                             (unsigned long long)engine, (unsigned long long)search);
            }
            nq_job_free(&job);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_level_reported),
        cmocka_unit_test(test_engines_count),
        cmocka_unit_test(test_mitm_paths),
        cmocka_unit_test(test_mitm_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
