/*
 * project.c - nqueens-bench --project S: the core-hours a whole count of N
 * would take, from the measured CPU time of a stratified sample of its
 * units.
 *
 * The unit list is cut into T equal strata and one run of PROJECT_RUN
 * consecutive units is timed in each, at the stratum's start (one unit,
 * where neighbouring units share nothing: mitm's spread order); T starts at
 * S (rounded up to even) and doubles, keeping every run timed so far, until
 * the projection's standard error is at most PROJECT_TARGET of it or T
 * reaches PROJECT_GROWTH * S; with a time limit (--project-limit), past
 * that cap for as long as the next round, which times as many runs as all
 * rounds before it, is expected to end within the limit.  Run k of round r sits at (j + v) / S of the
 * list, with j = k mod S and v the base-2 radical inverse of k / S (the
 * van der Corput sequence): the first S * 2^m runs put exactly one in each
 * of S * 2^m equal strata, so doubling refines the strata.  Costs vary
 * along the list far more than within a stratum, so a stratified mean has
 * a much smaller error than a uniform one of the same size; its standard
 * error is taken by collapsed strata (neighbouring strata paired, each
 * pair's squared difference estimating both variances).
 *
 * Each run is solved on one thread as a count solves it, and timed by the
 * CPU time of that thread, so other load on the machine barely moves it.
 * A count's thread comes to a unit warm: its scratch, kept from unit to
 * unit, has had its pages touched by the units before (with a fresh
 * scratch per run, the kernel's first touch of mitm's lists, hundreds of
 * megabytes from N = 24 on, was 16% of the samples at N = 24 and the
 * runs took 1.25 times as long), and in list order the unit before has
 * built what neighbours share (mitm's quarter slices).  So each thread keeps one solver for all its runs, solves its
 * first run once untimed, and solves the unit before each run, untimed,
 * where neighbours share.  What a count adds to the units (planning, the
 * pool) is seconds, and left out.
 *
 * CPU time does move where another guest of a shared host runs on a CPU's
 * physical core: that CPU runs the same work slower, and every run timed
 * on it reads long, for as long as the neighbour stays, which the check
 * before the projection (nqueens_bench.c) may miss.  So the CPUs are
 * timed against each other again before each doubling and at the end,
 * and a projection that met them uneven says so.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "api/job.h"
#include "bench.h"
#include "core/util.h"

#define PROJECT_RUN 8
/* Units of a mitm job whose neighbours share no half of E stand alone
 * (spread order): runs of one unit each, with no unit before them. */
#define PROJECT_PROBES 64
/* The standard error the sample aims at, as a share of the projection. */
#define PROJECT_TARGET 0.10
/* At most this many times S runs, however wide the error stays. */
#define PROJECT_GROWTH 16

/* What the checks of the CPUs during one projection found (bench_core_spread):
 * how many were taken and how many found them uneven, and the widest of
 * those. */
typedef struct core_watch {
    int checks, uneven;
    bench_machine worst;
} core_watch;

/* Times the CPUs against each other once more, into w. */
static void watch_cores(core_watch *w)
{
    bench_machine m = {0};
    if (bench_core_spread(&m) < 0)
        return;
    w->checks++;
    if (!bench_cores_uneven(&m))
        return;
    if (w->uneven++ == 0 || m.core_spread > w->worst.core_spread)
        w->worst = m;
}

/* The base-2 radical inverse of i: its bits mirrored about the point. */
static double radical_inverse(uint64_t i)
{
    double v = 0, bit = 0.5;
    for (; i; i >>= 1, bit *= 0.5)
        if (i & 1)
            v += bit;
    return v;
}

/* The first unit of run k of a sample over S strata of a list of `units`
 * (see the file comment), so that the run fits in the list. */
static uint64_t run_start(uint64_t k, int strata, uint64_t units, uint64_t len)
{
    const double at = ((double)(k % (uint64_t)strata) + radical_inverse(k / (uint64_t)strata)) /
                      strata;
    uint64_t u = (uint64_t)(at * (double)units);
    return u + len > units ? units - len : u;
}

/* 1 when neighbouring units of the job share what a thread keeps from one
 * unit to the next: not so for a mitm job in spread order, whose
 * neighbours (probed along the list) have no half of E in common. */
static int neighbours_share(const nq_job *job, int n, uint64_t units)
{
    const int h = n / 2;
    int shared = 0, probed = 0;
    for (int i = 0; i < PROJECT_PROBES && units > 1; i++) {
        const uint64_t u = (uint64_t)i * (units - 1) / PROJECT_PROBES;
        nq_mitm_unit a, b;
        if (nq_mitm_describe_unit(job, u, &a) < 0 || nq_mitm_describe_unit(job, u + 1, &b) < 0)
            return 1; /* another engine: assume they do */
        /* the same configuration and one half of E in common */
        const uint32_t diff = a.east ^ b.east, north = (UINT32_C(1) << h) - 1;
        shared += a.b == b.b && (!(diff & north) || !(diff >> h));
        probed++;
    }
    return probed == 0 || 2 * shared > probed;
}

/* One thread's solver, kept from run to run as a count's thread keeps its
 * scratch from unit to unit: a fresh one per run would pay again for the
 * pages of memory that a count's thread touches once. */
typedef struct runner {
    nq_solver *solver;
    int warm; /* it has solved a unit: its pages are touched */
} runner;

/* Solves unit u on runner r whole, or, with every > 1, by sample (its
 * joins' blocks, one run in `every`), adding to *skipped the CPU seconds that
 * the blocks it passed over are expected to take.  Returns 0 or a negative
 * NQ_E* code. */
static int solve(runner *r, uint64_t u, uint32_t every, double *skipped)
{
    nq_counts c;
    double passed = 0;
    const int ret = every > 1 ? nq_solver_solve_sample(r->solver, u, every, &passed)
                              : nq_solver_solve(r->solver, u, &c);
    *skipped += passed;
    return ret;
}

/* Times the units first .. first + len - 1 into *seconds (CPU seconds per
 * unit) as a count meets them, on runner r: after the unit before (solved
 * untimed), when neighbours share what a thread keeps (warm_up).  A runner's
 * first run is solved once untimed before, so that the scratch's first
 * touch, which a count pays once per thread, is not charged to one run.
 * With every > 1 (units of minutes), each unit, the untimed ones too, is
 * solved by sample: all its work but its joins' blocks, of which one run
 * in `every` (evenly spread, from a phase drawn from the unit), and its time
 * is the thread's CPU time plus every - 1 times that of the blocks solved.
 * Returns 0 or a negative NQ_E* code. */
static int time_run(runner *r, uint64_t first, uint64_t len, int warm_up, uint32_t every,
                    double *seconds)
{
    double untimed = 0, skipped = 0;
    int ret = 0;
    if (!r->warm)
        ret = solve(r, first, every, &untimed);
    r->warm = 1;
    if (ret == 0 && warm_up && first > 0)
        ret = solve(r, first - 1, every, &untimed);
    const double t0 = nq_thread_seconds();
    for (uint64_t u = first; ret == 0 && u < first + len; u++)
        ret = solve(r, u, every, &skipped);
    *seconds = (nq_thread_seconds() - t0 + skipped) / (double)len;
    return ret;
}

/* Times runs [from, to) of the sample on `threads` threads, thread i on
 * runners[i].  Returns 0 or a negative NQ_E* code. */
static int time_runs(runner *runners, uint64_t units, uint64_t len, int warm_up, uint32_t every,
                     int strata, uint64_t from, uint64_t to, int threads, double *seconds)
{
    int error = 0;
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
#endif
    for (long k = (long)from; k < (long)to; k++) {
#ifdef _OPENMP
        runner *r = &runners[omp_get_thread_num()];
#else
        runner *r = &runners[0];
#endif
        const int ret =
            time_run(r, run_start((uint64_t)k, strata, units, len), len, warm_up, every,
                     &seconds[k]);
        if (ret < 0) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            error = ret;
        }
    }
    return error;
}

/* The stratified mean of the T runs timed and its standard error: the runs
 * sorted by where they stand, neighbours paired. */
static void stratified_mean(const double *seconds, uint64_t t, int strata, double *mean,
                            double *se)
{
    /* Where each run stands, in list order: run k = r * S + j is in
     * stratum j * T / S + v(r) * T / S of the T. */
    double *at = malloc(t * sizeof *at);
    const uint64_t per = t / (uint64_t)strata; /* strata of the T per one of the S */
    double sum = 0;
    for (uint64_t k = 0; k < t; k++)
        sum += seconds[k];
    *mean = sum / (double)t;
    *se = 0;
    if (!at || t < 2) {
        free(at);
        return;
    }
    for (uint64_t k = 0; k < t; k++)
        at[k % (uint64_t)strata * per + (uint64_t)(radical_inverse(k / (uint64_t)strata) * (double)per)] =
            seconds[k];
    double sq = 0;
    for (uint64_t k = 0; k + 1 < t; k += 2)
        sq += (at[k] - at[k + 1]) * (at[k] - at[k + 1]);
    *se = sqrt(sq) / (double)t;
    free(at);
}

int bench_project(const nq_settings *s, int samples, double limit, double part, int quiet)
{
    const double start = nq_now();
    /* A share of each unit: one join block in the nearest whole number. */
    const uint32_t every = part > 0 ? (uint32_t)lround(1 / part) : 1;
    nq_settings one = *s;
    one.threads = 1; /* units are timed one per thread, side by side */
    nq_job *job = NULL;
    int ret = nq_job_create(&job, &one);
    if (ret < 0)
        return ret;
    const uint64_t units = nq_job_units(job);
    const int warm_up = neighbours_share(job, s->n, units);
    const uint64_t run = warm_up ? PROJECT_RUN : 1;
    const uint64_t len = units < run ? units : run;
    int strata = samples + (samples & 1); /* even: strata are paired */
    if ((uint64_t)strata * len > units) /* a small job: runs would overlap */
        strata = (int)(units / len) > 1 ? (int)(units / len) & ~1 : 1;
    /* Without a limit, at most PROJECT_GROWTH * S runs; with one, as many
     * as fit the list. */
    const uint64_t most = limit > 0 ? units / len : (uint64_t)strata * PROJECT_GROWTH;
    double *seconds = NULL;
    const int threads = s->threads > 0 ? s->threads : 1;
    runner *runners = calloc((size_t)threads, sizeof *runners);
    if (!runners)
        ret = NQ_ENOMEM;
    for (int i = 0; ret == 0 && i < threads; i++)
        ret = nq_solver_create(&runners[i].solver, job);
    uint64_t t = 0;
    double mean = 0, se = 0;
    const char *why = "within 10%";
    core_watch watch = {0};
    for (uint64_t next = (uint64_t)strata; ret == 0; next *= 2) {
        double *more = realloc(seconds, next * sizeof *seconds);
        if (!more) {
            ret = NQ_ENOMEM;
            break;
        }
        seconds = more;
        const double round_start = nq_now();
        ret = time_runs(runners, units, len, warm_up, every, strata, t, next, threads, seconds);
        t = next;
        stratified_mean(seconds, t, strata, &mean, &se);
        if (se <= PROJECT_TARGET * mean)
            break;
        if (2 * t > most || 2 * t * len > units) {
            why = limit > 0 || 2 * t * len > units ? "every stratum timed" : "at the run cap";
            break;
        }
        /* The next round times t runs more, as many as all rounds so far
         * (the last alone took about half of that). */
        const double now = nq_now();
        if (limit > 0 && now + 2 * (now - round_start) > start + limit) {
            why = "at the time limit";
            break;
        }
        /* A long projection (N = 28: half an hour on 2 threads) says where
         * it stands before each doubling, so one stopped early still
         * leaves a figure. */
        if (!quiet) {
            fprintf(stderr,
                    "nqueens-bench: project %s N=%d: %" PRIu64 " runs: %.4g core-hours "
                    "(+- %.1f%%), %.0f s; timing %" PRIu64 " more\n",
                    nq_engine_name(s->engine), s->n, t, mean * (double)units / 3600,
                    mean > 0 ? 100 * se / mean : 0.0, now - start, t);
            watch_cores(&watch);
        }
    }
    if (ret == 0 && !quiet)
        watch_cores(&watch);
    for (int i = 0; runners && i < threads; i++)
        nq_solver_free(&runners[i].solver);
    free(runners);
    nq_job_free(&job);
    free(seconds);
    if (ret < 0)
        return ret;
    char parts[64] = "";
    if (every > 1)
        snprintf(parts, sizeof parts, ", one join block in %" PRIu32 " of each unit, scaled",
                 every);
    printf("project: %s N=%d, %" PRIu64 " units, %" PRIu64 " x %" PRIu64
           " timed (stratified%s%s): %.4g s a unit (+- %.2g), "
           "%.4g core-hours (+- %.2g, %.1f%%, %s, %.0f s)\n",
           nq_engine_name(s->engine), s->n, units, t, len,
           warm_up ? ", each after the unit before" : "", parts, mean, se,
           mean * (double)units / 3600, se * (double)units / 3600,
           mean > 0 ? 100 * se / mean : 0.0, why, nq_now() - start);
    fflush(stdout);
    if (watch.uneven)
        fprintf(stderr,
                "nqueens-bench: warning: project %s N=%d: the CPUs ran uneven in %d of %d "
                "checks during the projection, CPU %d up to %.2f times as long as CPU %d: "
                "the units timed on it read slow\n",
                nq_engine_name(s->engine), s->n, watch.uneven, watch.checks,
                watch.worst.core_slowest, watch.worst.core_spread, watch.worst.core_fastest);
    return 0;
}
