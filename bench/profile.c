/*
 * profile.c - the bench's look inside a run: unit-cost profiles and the
 * scheduling model's predictions.
 *
 * --profile solves every unit of a planned job on its own, timing it and
 * keeping its node count, and prints the distribution (count, mean, max,
 * the share of the largest unit).  It then replays the units through the
 * model (model.h) for P = 1, 2, 4, ..., 1024 workers, and sets the
 * prediction next to measured runs of the same job on the thread counts
 * asked for.  --predict skips the solving: it plans a job per thread count,
 * as nq_count() would, and predicts from the engine's cheap estimates;
 * that is how the README's table for machines we do not have is made.
 * --predict --ranks R predicts nqueens-mpi instead: the job planned for
 * R x T threads and scheduled in journal chunks (nq_model_ranks).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench.h"
#include "job.h"
#include "journal.h"
#include "model.h"

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
        nq_counts sum = {0, 0, 0};
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

int bench_profile(const nq_settings *s, const bench_list *threads, int repeat)
{
    nq_job *job = NULL;
    int ret = nq_job_create(&job, s);
    if (ret < 0)
        return ret;
    const uint64_t units = nq_job_units(job);
    double *seconds = calloc((size_t)units + 1, sizeof *seconds);
    double *nodes = calloc((size_t)units + 1, sizeof *nodes);
    double *estimate = job->ops->estimate ? calloc((size_t)units + 1, sizeof *estimate) : NULL;
    if (!seconds || !nodes || (job->ops->estimate && !estimate)) {
        ret = NQ_ENOMEM;
        goto out;
    }
    if (estimate && job->ops->estimate(job, estimate) < 0) {
        free(estimate);
        estimate = NULL;
    }

    /* Every unit alone, on all cores at once: each is timed (CPU time) on
     * the thread that solves it, under the load a real run puts on the
     * machine. */
    nq_u128 total = 0;
    int failed = 0;
    const int cores = bench_cores();
    const double start = nq_now();
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(cores)
#endif
    for (uint64_t u = 0; u < units; u++) {
        nq_counts c;
        const double t0 = bench_cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
        int r = nq_job_solve_unit(job, u, &c);
        seconds[u] = bench_cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - t0;
        nodes[u] = (double)c.nodes;
#ifdef _OPENMP
#pragma omp critical(profile_sum)
#endif
        {
            if (r < 0)
                failed = 1;
            else
                total += c.total;
        }
    }
    const double wall = nq_now() - start;
    if (failed) {
        ret = NQ_ENOMEM;
        goto out;
    }

    nq_u128 expected = 0;
    const int checked = bench_known_total(s->n, &expected);
    int wrong = checked && total != expected;
    char text[48];
    printf("profile: engine %s, N=%d, split depth %d, %llu units planned for %d thread%s;\n"
           "  solved one by one on %d core%s in %.3f s: %s solutions (%s)\n",
           nq_engine_name(nq_job_engine(job)), s->n, nq_job_split_depth(job),
           (unsigned long long)units, s->threads, s->threads == 1 ? "" : "s", cores,
           cores == 1 ? "" : "s", wall, nq_u128_to_string(total, text, sizeof text),
           !checked ? "unchecked" : wrong ? "WRONG" : "correct");
    printf("  %-8s %8s %12s %12s %12s %12s %9s\n", "cost", "units", "sum", "mean", "median",
           "max", "max/sum");
    print_distribution("cpu time", "ms", 1e3, seconds, units);
    if (job->ops->has_nodes)
        print_distribution("nodes", "nodes", 1, nodes, units);
    if (estimate) {
        print_distribution("estimate", "relative", 1, estimate, units);
        printf("  correlation of the estimate with measured cpu time %.3f",
               correlation(estimate, seconds, units));
        if (job->ops->has_nodes)
            printf(", with nodes %.3f", correlation(estimate, nodes, units));
        putchar('\n');
    }

    /* Predicted (from the measured unit times, node counts and estimates)
     * next to measured runs of this same job. */
    printf("model: tasks in pool order, each to the earliest-free worker\n");
    printf("  %7s %8s %11s %9s %9s %9s %11s %9s\n", "threads", "chunks", "pred_s", "eff_time",
           "eff_nodes", "eff_est", "measured_s", "meas_eff");
    double measured_1 = NAN;
    for (int i = 0; i < threads->count; i++)
        if (threads->values[i] == 1)
            measured_1 = measure(job, 1, repeat, &wrong, expected, checked);
    for (int p = 1; p <= PROFILE_MAX_P; p *= 2) {
        nq_model_result rt, rn, re;
        double et = predict(seconds, units, p, &rt);
        double en = job->ops->has_nodes ? predict(nodes, units, p, &rn) : NAN;
        double ee = predict(estimate, units, p, &re);
        printf("  %7d %8llu %11.5g", p, (unsigned long long)rt.tasks, rt.makespan);
        print_opt(" %*.3f", 9, et);
        print_opt(" %*.3f", 9, en);
        print_opt(" %*.3f", 9, ee);
        double m = NAN;
        int listed = 0;
        for (int i = 0; i < threads->count; i++)
            listed |= threads->values[i] == p;
        if (listed)
            m = p == 1 ? measured_1 : measure(job, p, repeat, &wrong, expected, checked);
        print_opt(" %*.5g", 11, m);
        print_opt(" %*.3f", 9, isnan(measured_1) ? NAN : measured_1 / (p * m));
        printf("%s\n", listed && p > cores ? "  (oversubscribed)" : "");
    }
    /* Thread counts asked for that are not powers of two (e.g. 3 cores). */
    for (int i = 0; i < threads->count; i++) {
        int p = threads->values[i];
        if ((p & (p - 1)) == 0 && p <= PROFILE_MAX_P)
            continue;
        nq_model_result rt, rn, re;
        double et = predict(seconds, units, p, &rt);
        double en = job->ops->has_nodes ? predict(nodes, units, p, &rn) : NAN;
        double ee = predict(estimate, units, p, &re);
        double m = measure(job, p, repeat, &wrong, expected, checked);
        printf("  %7d %8llu %11.5g", p, (unsigned long long)rt.tasks, rt.makespan);
        print_opt(" %*.3f", 9, et);
        print_opt(" %*.3f", 9, en);
        print_opt(" %*.3f", 9, ee);
        print_opt(" %*.5g", 11, m);
        print_opt(" %*.3f", 9, isnan(measured_1) ? NAN : measured_1 / (p * m));
        printf("%s\n", p > cores ? "  (oversubscribed)" : "");
    }
    if (wrong) {
        fprintf(stderr, "nqueens-bench: engine %s, N=%d: WRONG count\n",
                nq_engine_name(nq_job_engine(job)), s->n);
        ret = 1;
    }
out:
    free(seconds);
    free(nodes);
    free(estimate);
    nq_job_free(&job);
    return ret;
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
    const uint64_t units = nq_job_units(job), per = nq_journal_chunk_units(job);
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
        s.threads = threads->values[i];
        nq_job *job = NULL;
        double plan;
        int ret = plan_timed(&s, &job, &plan);
        if (ret < 0)
            return ret;
        const uint64_t units = nq_job_units(job);
        double eff = NAN, share = NAN;
        double *costs = estimate_costs(job);
        nq_model_result r;
        if (costs && nq_model_pool(costs, (size_t)units, s.threads, &r) == 0) {
            eff = r.efficiency;
            share = r.work > 0 ? r.max_task / r.work : 0;
        }
        free(costs);
        printf("%-7s %3d %7d %5d %9llu", nq_engine_name(nq_job_engine(job)), s.n, s.threads,
               nq_job_split_depth(job), (unsigned long long)units);
        print_opt(" %*.3f", 9, eff);
        print_opt(" %*.5f", 9, share);
        printf(" %8.1f\n", plan * 1e3);
        nq_job_free(&job);
    }
    return 0;
}
