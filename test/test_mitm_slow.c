/*
 * test_mitm_slow.c - the meet-in-the-middle engine on N = 16..18, where it
 * first meets large joins; suite 'slow', not run by default.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "known.h"
#include "nqueens/nqueens.h"

static void check(int n, int threads)
{
    nq_settings s;
    nq_result r;
    nq_default_settings(&s);
    s.n = n;
    s.engine = NQ_ENGINE_MITM;
    s.threads = threads;
    assert_int_equal(nq_count(&s, &r), 0);
    if (r.total != known_total[n])
        fail_msg("mitm n=%d threads=%d: wrong total", n, threads);
}

static void test_mitm_16(void **state) { (void)state; check(16, 1); check(16, 3); }
static void test_mitm_17(void **state) { (void)state; check(17, 2); }
static void test_mitm_18(void **state) { (void)state; check(18, 0); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mitm_16),
        cmocka_unit_test(test_mitm_17),
        cmocka_unit_test(test_mitm_18),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
