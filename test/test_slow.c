/*
 * test_slow.c - the large boards for every parallel engine: N = 16, 17 for
 * mirror and full (with unique counts), N = 16..18 and 20 for mitm, on
 * several thread counts.  N = 20 (about 75 s on 2 cores) is the first board
 * whose signatures take the join's wide (8-bit) chunks.  Suite 'slow':
 * `meson test --suite slow`, not by default.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "count_util.h"
#include "known.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mirror),
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_mitm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
