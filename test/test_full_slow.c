/*
 * test_full_slow.c - the full-symmetry engine on the large boards (N = 16,
 * 17): totals and unique counts; run with the 'slow' suite only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "known.h"
#include "nqueens/nqueens.h"

static void check(int n)
{
    nq_settings s;
    nq_result r;
    nq_default_settings(&s);
    s.n = n;
    s.engine = NQ_ENGINE_FULL;
    assert_int_equal(nq_count(&s, &r), 0);
    if (r.total != known_total[n])
        fail_msg("full n=%d: wrong total", n);
    if (!r.has_unique || r.unique != known_unique[n])
        fail_msg("full n=%d: wrong unique count", n);
}

static void test_full_16(void **state) { (void)state; check(16); }
static void test_full_17(void **state) { (void)state; check(17); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_16),
        cmocka_unit_test(test_full_17),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
