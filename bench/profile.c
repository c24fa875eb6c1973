/*
 * profile.c - the bench's look inside a run: unit-cost profiles and the
 * scheduling model's predictions.
 *
 * --profile solves every unit of a planned job on its own, timing it, and
 * prints the distribution (count, mean, max,
 * the share of the largest unit).  It then replays the units through the
 * model (model.h) for P = 1, 2, 4, ..., 1024 workers, and sets the
 * prediction next to measured runs of the same job on the thread counts
 * asked for.  --predict skips the solving: it plans a job per thread count,
 * as nq_count() would, and predicts from the engine's cheap estimates;
 * that is how docs/performance.md's table for machines we do not have is
 * made.
 * --predict --ranks R predicts nqueens-mpi instead: the job planned for
 * R x T threads and scheduled in journal chunks (nq_model_ranks).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "api/plan.h"
#include "bench.h"
#include "core/util.h"
#include "run/model.h"

#define PROFILE_MAX_P 1024

/* Prints count, sum, mean, median, max and the largest unit's share. */
static void print_distribution(const char *what, const char *unit, double scale,
                               const double *v, uint64_t count)
{
    double *sorted = malloc((size_t)count * sizeof *sorted + 1);
    if (!sorted)
        return;
    memcpy(sorted, v, (size_t)count * sizeof *sorted);
    qsort(sorted, (size_t)count, sizeof *sorted, bench_compare_double);
    double sum = 0;
    for (uint64_t i = 0; i < count; i++)
        sum += sorted[i];
    const double max = count ? sorted[count - 1] : 0, med = count ? sorted[count / 2] : 0;
    printf("  %-8s %8llu %12.4g %12.4g %12.4g %12.4g %8.3f%%  (%s)\n", what,
           (unsigned long long)count, sum * scale, count ? sum / (double)count * scale : 0,
           med * scale, max * scale, sum > 0 ? 100 * max / sum : 0, unit);
    free(sorted);
}

/* Pearson correlation of a and b; NaN when either is constant. */
static double correlation(const double *a, const double *b, uint64_t count)
{
    double ma = 0, mb = 0;
    for (uint64_t i = 0; i < count; i++) {
        ma += a[i];
        mb += b[i];
    }
    ma /= (double)count;
    mb /= (double)count;
    double sab = 0, saa = 0, sbb = 0;
    for (uint64_t i = 0; i < count; i++) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
}

/* Model efficiency for costs on p pool threads, or NaN. */
static double predict(const double *costs, uint64_t count, int p, nq_model_result *r)
{
    if (!costs || nq_model_pool(costs, (size_t)count, p, r) < 0)
        return NAN;
    return r->efficiency;
}

/* Median wall time of `repeat` pool runs of the whole job on p threads. */
static double measure(nq_job *job, int p, int repeat, int *wrong, nq_u128 expected, int checked)
{
    double *t = malloc((size_t)repeat * sizeof *t);
    if (!t)
        return NAN;
    for (int r = 0; r < repeat; r++) {
        nq_counts sum = {0, 0};
        double start = nq_now();
        if (nq_job_solve(job, 0, nq_job_units(job), p, NULL, &sum) < 0) {
            free(t);
            return NAN;
        }
        t[r] = nq_now() - start;
        if (checked && sum.total != expected)
            *wrong = 1;
    }
    const double med = bench_median(t, repeat);
    free(t);
    return med;
}

static void print_opt(const char *fmt, int width, double v)
{
    if (isnan(v))
        printf(" %*s", width, "-");
    else
        printf(fmt, width, v);
}

/* Estimated unit costs of job into a new array (caller frees), or NULL
 * when the engine has no estimate or memory ran out. */
static double *estimate_costs(const nq_job *job)
{
    if (!job->ops->estimate)
        return NULL;
    double *costs = malloc((size_t)nq_job_units(job) * sizeof *costs + 1);
    if (costs && job->ops->estimate(job, costs) < 0) {
        free(costs);
        costs = NULL;
    }
    return costs;
}

/* Solves every unit of job alone, on all cores at once, timing each (CPU
 * time) on the thread that solves it, under the load a real run puts on the
 * machine.  Each thread solves through an nq_solver of its own, created
 * before its first timed unit, as the pool's threads do: a unit's time is
 * then what it costs inside a count (the engine's working memory kept from
 * unit to unit), not the allocation nq_job_solve_unit makes per call.
 * Fills seconds[u], *total and *wall.  Returns 0 or NQ_ENOMEM. */
static int time_units(nq_job *job, int cores, double *seconds, nq_u128 *total, double *wall)
{
    const uint64_t units = nq_job_units(job);
    int failed = 0;
    nq_u128 sum = 0;
    const double start = nq_now();
    (void)cores; /* a build without OpenMP solves on this thread alone */
#ifdef _OPENMP
#pragma omp parallel num_threads(cores)
#endif
    {
        nq_solver *solver = NULL;
        const int made = nq_solver_create(&solver, job);
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
        for (uint64_t u = 0; u < units; u++) {
            nq_counts c;
            int r = made;
            if (r == 0) {
                const double t0 = nq_thread_seconds();
                r = nq_solver_solve(solver, u, &c);
                seconds[u] = nq_thread_seconds() - t0;
            }
#ifdef _OPENMP
#pragma omp critical(profile_sum)
#endif
            {
                if (r < 0)
                    failed = 1;
                else
                    sum += c.total;
            }
        }
        nq_solver_free(&solver);
    }
    *wall = nq_now() - start;
    *total = sum;
    return failed ? NQ_ENOMEM : 0;
}

/* What the model rows compare against: the job, the measured unit costs and
 * estimates, and the measured runs' reference. */
typedef struct profile_ctx {
    nq_job *job;
    const double *seconds;  /* measured CPU seconds of each unit */
    const double *estimate; /* the engine's estimate of each unit, or NULL */
    int repeat, cores, checked, wrong;
    nq_u128 expected;
    double measured_1;      /* median of 1 thread, or NaN when not measured */
} profile_ctx;

/* One row of the model table: predictions for p workers from the measured
 * unit times and the estimates, and, when `run` is set, the measured run. */
static void model_row(profile_ctx *pc, int p, int run)
{
    const uint64_t units = nq_job_units(pc->job);
    nq_model_result rt, re;
    const double et = predict(pc->seconds, units, p, &rt);
    const double ee = predict(pc->estimate, units, p, &re);
    double m = NAN;
    if (run)
        m = p == 1 && !isnan(pc->measured_1)
                ? pc->measured_1
                : measure(pc->job, p, pc->repeat, &pc->wrong, pc->expected, pc->checked);
    printf("  %7d %8llu %11.5g", p, (unsigned long long)rt.tasks, rt.makespan);
    print_opt(" %*.3f", 9, et);
    print_opt(" %*.3f", 9, ee);
    print_opt(" %*.5g", 11, m);
    print_opt(" %*.3f", 9, isnan(pc->measured_1) ? NAN : pc->measured_1 / (p * m));
    printf("%s\n", run && p > pc->cores ? "  (oversubscribed)" : "");
}

/* The model's predictions for P = 1, 2, 4, ... PROFILE_MAX_P and for every
 * other thread count asked for, next to measured runs of the same job on
 * the thread counts asked for. */
static void model_table(profile_ctx *pc, const bench_list *threads)
{
    printf("model: tasks in pool order, each to the earliest-free worker\n");
    printf("  %7s %8s %11s %9s %9s %11s %9s\n", "threads", "chunks", "pred_s", "eff_time",
           "eff_est", "measured_s", "meas_eff");
    pc->measured_1 = NAN;
    for (int i = 0; i < threads->count; i++)
        if (threads->values[i] == 1)
            pc->measured_1 = measure(pc->job, 1, pc->repeat, &pc->wrong, pc->expected,
                                     pc->checked);
    for (int p = 1; p <= PROFILE_MAX_P; p *= 2) {
        int listed = 0;
        for (int i = 0; i < threads->count; i++)
            listed |= threads->values[i] == p;
        model_row(pc, p, listed);
    }
    /* Thread counts asked for that are not powers of two (e.g. 3 cores). */
    for (int i = 0; i < threads->count; i++) {
        const int p = threads->values[i];
        if ((p & (p - 1)) != 0 || p > PROFILE_MAX_P)
            model_row(pc, p, 1);
    }
}

int bench_profile(const nq_settings *s, const bench_list *threads, int repeat)
{
    nq_job *job = NULL;
    int ret = nq_job_create(&job, s);
    if (ret < 0)
        return ret;
    const uint64_t units = nq_job_units(job);
    double *seconds = calloc((size_t)units + 1, sizeof *seconds);
    double *estimate = estimate_costs(job);
    profile_ctx pc = {.job = job, .seconds = seconds, .estimate = estimate, .repeat = repeat,
                      .cores = bench_cores()};
    nq_u128 total = 0;
    double wall = 0;
    ret = seconds ? time_units(job, pc.cores, seconds, &total, &wall) : NQ_ENOMEM;
    if (ret < 0)
        goto out;

    pc.checked = bench_known_total(s->n, &pc.expected);
    pc.wrong = pc.checked && total != pc.expected;
    char text[48];
    printf("profile: engine %s, N=%d, split depth %d, %llu units planned for %d thread%s;\n"
           "  solved one by one on %d core%s in %.3f s: %s solutions (%s)\n",
           nq_engine_name(nq_job_engine(job)), s->n, nq_job_split_depth(job),
           (unsigned long long)units, s->threads, s->threads == 1 ? "" : "s", pc.cores,
           pc.cores == 1 ? "" : "s", wall, nq_u128_to_string(total, text, sizeof text),
           !pc.checked ? "unchecked" : pc.wrong ? "WRONG" : "correct");
    printf("  %-8s %8s %12s %12s %12s %12s %9s\n", "cost", "units", "sum", "mean", "median",
           "max", "max/sum");
    print_distribution("cpu time", "ms", 1e3, seconds, units);
    if (estimate) {
        print_distribution("estimate", "relative", 1, estimate, units);
        printf("  correlation of the estimate with measured cpu time %.3f\n",
               correlation(estimate, seconds, units));
    }
    model_table(&pc, threads);
    if (pc.wrong) {
        fprintf(stderr, "nqueens-bench: engine %s, N=%d: WRONG count\n",
                nq_engine_name(nq_job_engine(job)), s->n);
        ret = 1;
    }
out:
    free(seconds);
    free(estimate);
    nq_job_free(&job);
    return ret;
}

/* Plans the job for s into *job as nq_count() would, timing the planning
 * (seconds into *plan).  Returns 0 or a negative NQ_E* code. */
static int plan_timed(const nq_settings *s, nq_job **job, double *plan)
{
    const double start = nq_now();
    const int ret = nq_job_create(job, s);
    *plan = nq_now() - start;
    return ret;
}

/* One line of --predict --ranks: the job planned for ranks * threads
 * threads, as nqueens-mpi's rank 0 plans it, scheduled in journal chunks
 * (nq_model_ranks).  pred_eff is the greedy schedule, eff_low the
 * pessimistic one that charges the spare chunks (equal for one rank). */
static int predict_ranks(const nq_settings *base, int ranks, int threads)
{
    nq_settings s = *base;
    s.threads = ranks * threads;
    nq_job *job = NULL;
    double plan;
    int ret = plan_timed(&s, &job, &plan);
    if (ret < 0)
        return ret;
    const uint64_t units = nq_job_units(job), per = nq_plan_durable_chunk_units(job);
    double eff = NAN, low = NAN;
    double *costs = estimate_costs(job);
    nq_model_ranks_result r;
    if (costs && nq_model_ranks(costs, (size_t)units, (size_t)per, ranks, threads, &r) == 0) {
        eff = r.greedy.efficiency;
        low = r.efficiency_low;
    }
    free(costs);
    printf("%-7s %3d %5d %7d %7d %5d %9llu %7llu", nq_engine_name(nq_job_engine(job)), s.n,
           ranks, threads, ranks * threads, nq_job_split_depth(job), (unsigned long long)units,
           (unsigned long long)((units + per - 1) / per));
    print_opt(" %*.3f", 9, eff);
    print_opt(" %*.3f", 9, low);
    printf(" %8.1f\n", plan * 1e3);
    nq_job_free(&job);
    return 0;
}

int bench_predict(const nq_settings *base, const bench_list *threads, int ranks, int header)
{
    if (ranks > 0) {
        if (header)
            printf("%-7s %3s %5s %7s %7s %5s %9s %7s %9s %9s %8s\n", "engine", "N", "ranks",
                   "threads", "workers", "depth", "units", "chunks", "pred_eff", "eff_low",
                   "plan_ms");
        for (int i = 0; i < threads->count; i++) {
            int ret = predict_ranks(base, ranks, threads->values[i]);
            if (ret < 0)
                return ret;
        }
        return 0;
    }
    if (header)
        printf("%-7s %3s %7s %5s %9s %9s %9s %8s\n", "engine", "N", "threads", "depth", "units",
               "pred_eff", "max/sum", "plan_ms");
    for (int i = 0; i < threads->count; i++) {
        nq_settings s = *base;
        const int p = threads->values[i];
        /* plain is one unit on one thread: its job is planned for one,
         * and the model shows what p threads would get from it. */
        s.threads = s.engine == NQ_ENGINE_PLAIN ? 1 : p;
        nq_job *job = NULL;
        double plan;
        int ret = plan_timed(&s, &job, &plan);
        if (ret < 0)
            return ret;
        const uint64_t units = nq_job_units(job);
        double eff = NAN, share = NAN;
        double *costs = estimate_costs(job);
        nq_model_result r;
        if (costs && nq_model_pool(costs, (size_t)units, p, &r) == 0) {
            eff = r.efficiency;
            share = r.work > 0 ? r.max_task / r.work : 0;
        }
        free(costs);
        printf("%-7s %3d %7d %5d %9llu", nq_engine_name(nq_job_engine(job)), s.n, p,
               nq_job_split_depth(job), (unsigned long long)units);
        print_opt(" %*.3f", 9, eff);
        print_opt(" %*.5f", 9, share);
        printf(" %8.1f\n", plan * 1e3);
        nq_job_free(&job);
    }
    return 0;
}

/* The model schedules the estimated unit costs of the planned job on
 * `threads` workers (nq_model_pool).  Where threads exceed the logical
 * CPUs they time-share them, so at best cores / threads of that speedup
 * is reachable; the prediction is scaled by it. */
double bench_model_speedup(const nq_settings *s, int cores)
{
    nq_job *job = NULL;
    if (nq_job_create(&job, s) < 0)
        return NAN;
    double *costs = estimate_costs(job);
    nq_model_result r;
    double speedup = NAN;
    if (costs && nq_model_pool_as(costs, (size_t)nq_job_units(job), s->threads, s->schedule,
                                  &r) == 0)
        speedup = r.speedup * (s->threads > cores ? (double)cores / s->threads : 1.0);
    free(costs);
    nq_job_free(&job);
    return speedup;
}
