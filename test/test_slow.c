/*
 * test_slow.c - the large boards (N = 16, 17) for the parallel engines; run
 * with `meson test --suite slow`, not by default.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "known.h"
#include "nqueens/nqueens.h"

static void check(int n, enum nq_engine engine)
{
    nq_settings s;
    nq_result r;
    nq_default_settings(&s);
    s.n = n;
    s.engine = engine;
    assert_int_equal(nq_count(&s, &r), 0);
    if (r.total != known_total[n])
        fail_msg("engine %s, n=%d: wrong total", nq_engine_name(engine), n);
}

static void test_mirror_16(void **state) { (void)state; check(16, NQ_ENGINE_MIRROR); }
static void test_mirror_17(void **state) { (void)state; check(17, NQ_ENGINE_MIRROR); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mirror_16),
        cmocka_unit_test(test_mirror_17),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
