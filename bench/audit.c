/*
 * audit.c - nqueens-bench --audit K: checks units of a mitm job at board
 * sizes too large to count whole.
 *
 * Each chosen unit is counted twice: by the engine (nq_job_solve_unit), and
 * by an independent backtracking search restricted to what the unit
 * stands for (src/reference/mitm_audit.h, which shares no code with the engine),
 * with the unit's weight applied.  The units are spread evenly over the
 * job, so an audit of a few units samples every part of the plan.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench.h"
#include "reference/mitm_audit.h"

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Counts unit u both ways and prints one line; returns 1 when they agree,
 * 0 when not, or a negative NQ_E* code. */
static int audit_one(nq_job *job, int n, uint64_t u)
{
    nq_mitm_unit d;
    int ret = nq_mitm_describe_unit(job, u, &d);
    if (ret < 0)
        return ret;
    nq_counts engine;
    const double t0 = seconds_now();
    ret = nq_job_solve_unit(job, u, &engine);
    if (ret < 0)
        return ret;
    const double t1 = seconds_now();
    const nq_u128 search = audit_unit_count(n, &d);
    const double t2 = seconds_now();
    char a[48], b[48];
    const int ok = engine.total == search;
#ifdef _OPENMP
#pragma omp critical(audit_print)
#endif
    printf("  unit %" PRIu64 " (b=%d a=%d..%d E=%#x weight %u): mitm %s in %.3f s, search %s "
           "in %.3f s: %s\n",
           u, d.b, d.a_first, d.a_last, d.east, d.weight, nq_u128_to_string(engine.total, a, 48),
           t1 - t0, nq_u128_to_string(search, b, 48), t2 - t1, ok ? "ok" : "MISMATCH");
    fflush(stdout);
    return ok;
}

int bench_audit(const nq_settings *s, int units)
{
    nq_settings one = *s;
    one.threads = 1; /* units are counted one per thread, side by side */
    nq_job *job = NULL;
    int ret = nq_job_create(&job, &one);
    if (ret < 0)
        return ret;
    const uint64_t total = nq_job_units(job);
    if ((uint64_t)units > total)
        units = (int)total;
    const int threads = s->threads > 0 ? s->threads : 1;
    printf("audit: mitm N=%d, %d of %" PRIu64 " units, %d thread%s\n", s->n, units, total,
           threads, threads == 1 ? "" : "s");
    int mismatches = 0, error = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(+ : mismatches)
#endif
    for (int i = 0; i < units; i++) {
        /* the middle unit of each of `units` equal stretches of the job */
        const uint64_t u = (uint64_t)(((unsigned __int128)(2 * (uint64_t)i + 1) * total) /
                                      (2 * (uint64_t)units));
        const int r = audit_one(job, s->n, u);
        if (r < 0) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            error = r;
        } else {
            mismatches += !r;
        }
    }
    nq_job_free(&job);
    if (error < 0)
        return error;
    printf("audit: N=%d, %d unit%s checked, %d mismatch%s\n", s->n, units, units == 1 ? "" : "s",
           mismatches, mismatches == 1 ? "" : "es");
    return mismatches ? 1 : 0;
}
