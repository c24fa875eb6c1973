/*
 * count_util.h - the one way the cmocka tests run a count: nq_count() with
 * the given engine, threads and split depth, failing the current test (with
 * the settings and the error text) when it returns an error.
 */
#ifndef NQ_TEST_COUNT_UTIL_H
#define NQ_TEST_COUNT_UTIL_H

#include "nqueens/nqueens.h"

/* split = 0 and threads = 0 mean automatic, as in nq_settings. */
static inline nq_result nq_test_count(int n, enum nq_engine engine, int threads, int split)
{
    nq_settings s;
    nq_result r;
    nq_default_settings(&s);
    s.n = n;
    s.engine = engine;
    s.threads = threads;
    s.split_depth = split;
    int ret = nq_count(&s, &r);
    if (ret != 0)
        fail_msg("nq_count(n=%d, engine=%s, threads=%d, split=%d) = %d (%s)", n,
                 nq_engine_name(engine), threads, split, ret, nq_strerror(ret));
    return r;
}

#endif /* NQ_TEST_COUNT_UTIL_H */
