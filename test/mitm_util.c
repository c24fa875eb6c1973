/*
 * mitm_util.c - the shared set-up and unit audit of the mitm engine's
 * cmocka tests (see mitm_util.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

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

uint64_t nq_test_random(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * UINT64_C(2685821657736338717);
}
