/*
 * sweep.c - the timed sweep of nqueens-bench: every (engine, N, threads)
 * case with its warm-ups and repeats, the thread counts of one engine and N
 * taking turns run by run, each total checked against the known counts,
 * one table line per case, and the CSV, JSON and plot of the whole.
 *
 * Apart from option parsing (options.c) so that what is measured, and how
 * the figures are derived from the runs, can be read in one place.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "options.h"

static void case_settings(const bench_options *o, const bench_case *bc, nq_settings *s)
{
    nq_default_settings(s);
    s->n = bc->n;
    s->engine = bc->engine;
    s->threads = bc->threads;
    s->split_depth = o->split_depth;
}

/* Warm-up runs of a case and room for its timed runs.
 * Returns 0 or an NQ_E* code. */
static int case_start(const bench_options *o, bench_case *bc)
{
    nq_settings s;
    nq_result r;
    case_settings(o, bc, &s);
    for (int w = 0; w < o->warmup; w++) {
        int ret = nq_count(&s, &r);
        if (ret < 0)
            return ret;
    }
    bc->runs = calloc((size_t)o->repeat, sizeof *bc->runs);
    if (!bc->runs)
        return NQ_ENOMEM;
    bc->checked = bench_known_total(bc->n, &bc->expected);
    bc->correct = 1;
    return 0;
}

/* Timed run number i of a case.  Returns 0 or an NQ_E* code. */
static int case_run(const bench_options *o, bench_case *bc, int i)
{
    nq_settings s;
    nq_result r;
    case_settings(o, bc, &s);
    bench_peak_reset();
    const double cpu0 = bench_cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
    int ret = nq_count(&s, &r);
    const double cpu = bench_cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    if (ret < 0)
        return ret;
    bc->runs[i] = (bench_run){r.seconds, cpu, r.total, bench_peak_kib()};
    if (bc->checked && r.total != bc->expected)
        bc->correct = 0;
    bc->engine = r.engine; /* auto resolves to a real engine */
    bc->split_depth = r.split_depth;
    bc->units = r.subproblems;
    bc->repeats = i + 1;
    return 0;
}

/* Median, min and max of a case's timed runs.  Returns 0 or NQ_ENOMEM. */
static int case_finish(bench_case *bc)
{
    double *wall = calloc((size_t)bc->repeats, sizeof *wall);
    double *cpu = calloc((size_t)bc->repeats, sizeof *cpu);
    if (!wall || !cpu) {
        free(wall);
        free(cpu);
        return NQ_ENOMEM;
    }
    bc->peak_kib = -1;
    for (int i = 0; i < bc->repeats; i++) {
        wall[i] = bc->runs[i].seconds;
        cpu[i] = bc->runs[i].cpu_seconds;
        if (bc->runs[i].peak_kib > bc->peak_kib)
            bc->peak_kib = bc->runs[i].peak_kib;
    }
    bc->median = bench_median(wall, bc->repeats);
    bc->min = wall[0];
    bc->max = wall[bc->repeats - 1];
    bc->cpu_median = bench_median(cpu, bc->repeats);
    free(wall);
    free(cpu);
    return 0;
}

/* Fills speedup, efficiency and vs_plain of cases[i] from earlier cases. */
static void derive(bench_case *cases, int i)
{
    bench_case *bc = &cases[i];
    bc->speedup = bc->efficiency = bc->vs_plain = NAN;
    for (int j = 0; j <= i; j++) {
        const bench_case *o = &cases[j];
        if (o->n != bc->n || !(o->median > 0))
            continue;
        if (o->engine == bc->engine && o->threads == 1) {
            bc->speedup = o->median / bc->median;
            bc->efficiency = bc->speedup / bc->threads;
        }
        if (o->engine == NQ_ENGINE_PLAIN)
            bc->vs_plain = o->median / bc->median;
    }
}

static void print_header(void)
{
    printf("%-7s %3s %4s %5s %7s %9s %9s %9s %9s %8s %16s %3s %7s %6s %8s\n", "engine", "N",
           "thr", "depth", "units", "median_s", "min_s", "max_s", "cpu_s", "peak_MiB", "solutions",
           "ok", "speedup", "eff", "vs_plain");
}

/* A float column, or "-" where the value is unknown. */
static void print_opt(const char *fmt, int width, double v)
{
    if (isnan(v))
        printf(" %*s", width, "-");
    else
        printf(fmt, width, v);
}

static void print_case(const bench_case *bc)
{
    char total[48];
    nq_u128_to_string(bc->runs[0].total, total, sizeof total);
    printf("%-7s %3d %4d %5d %7llu %9.4f %9.4f %9.4f %9.4f", nq_engine_name(bc->engine), bc->n,
           bc->threads, bc->split_depth, (unsigned long long)bc->units, bc->median, bc->min,
           bc->max, bc->cpu_median);
    print_opt(" %*.1f", 8, bc->peak_kib < 0 ? NAN : (double)bc->peak_kib / 1024);
    printf(" %16s %3s", total, !bc->checked ? "?" : bc->correct ? "yes" : "NO");
    print_opt(" %*.2f", 7, bc->speedup);
    print_opt(" %*.3f", 6, bc->efficiency);
    print_opt(" %*.2f", 8, bc->vs_plain);
    putchar('\n');
    bench_flush_stdout();
}

/* Runs one engine at one N on every thread count (plain: once, on one
 * thread) into g[], warm-ups first, the thread counts taking turns repeat
 * by repeat: on a shared machine the load drifts, and interleaving spreads
 * the drift over all of them instead of biasing their ratio.  Sets live[]
 * for the cases that ran.  Returns the number of cases, and in *failed the
 * first error (NQ_EUNSUPPORTED when the engine cannot count N). */
static int run_group(const bench_options *o, enum nq_engine e, int n, bench_case *g, int *live,
                     int *failed)
{
    const int group = e == NQ_ENGINE_PLAIN ? 1 : o->threads.count;
    *failed = 0;
    for (int ti = 0; ti < group; ti++) {
        g[ti].engine = e;
        g[ti].n = n;
        g[ti].threads = e == NQ_ENGINE_PLAIN ? 1 : o->threads.values[ti];
        live[ti] = 0;
    }
    for (int r = -1; r < o->repeat; r++)
        for (int ti = 0; ti < group; ti++) {
            if (r >= 0 && !live[ti])
                continue;
            int ret = r < 0 ? case_start(o, &g[ti]) : case_run(o, &g[ti], r);
            live[ti] = ret == 0;
            if (ret < 0 && !*failed) {
                fprintf(stderr, "nqueens-bench: engine %s, N=%d, %d threads: %s\n",
                        nq_engine_name(e), n, g[ti].threads, nq_strerror(ret));
                *failed = ret;
            }
        }
    return group;
}

/* Writes the CSV, JSON and plot the options ask for.  Returns 0, or 1
 * when one could not be written (said on stderr). */
static int write_outputs(const bench_options *o, const bench_case *cases, int count)
{
    bench_machine m;
    bench_machine_describe(&m);
    int status = 0;
    if (o->csv) {
        bench_write_csv(o->csv, &m, cases, count);
        status |= bench_close_output(o->csv, o->csv_path);
    }
    if (o->json) {
        bench_write_json(o->json, &m, cases, count);
        status |= bench_close_output(o->json, o->json_path);
    }
    struct stat st;
    if (o->plot_path && bench_plot(o->plot_path, &m, cases, count) < 0) {
        fprintf(stderr, "nqueens-bench: gnuplot could not draw '%s'\n", o->plot_path);
        status = 1;
    } else if (o->plot_path && (stat(o->plot_path, &st) < 0 || !S_ISREG(st.st_mode) ||
                                st.st_size == 0)) {
        /* gnuplot exits 0 even when its output could not be written. */
        fprintf(stderr, "nqueens-bench: gnuplot wrote nothing to '%s' (full disk, or not a "
                "regular file?)\n", o->plot_path);
        status = 1;
    }
    return status;
}

int bench_sweep(bench_options *o)
{
    int max_cases = o->engine_count * o->n.count * o->threads.count + 1;
    bench_case *cases = calloc((size_t)max_cases, sizeof *cases);
    if (!cases) {
        fprintf(stderr, "nqueens-bench: %s\n", nq_strerror(NQ_ENOMEM));
        return 1;
    }
    int count = 0, wrong = 0;
    print_header();
    /* parse_engines put plain first, so every later case at the same N
     * can be compared with it. */
    for (int ni = 0; ni < o->n.count; ni++)
        for (int ei = 0; ei < o->engine_count; ei++) {
            bench_case *g = &cases[count];
            int live[BENCH_MAX_LIST], failed;
            const int group = run_group(o, o->engines[ei], o->n.values[ni], g, live, &failed);
            /* An engine that cannot do this N (NQ_EUNSUPPORTED) is not an error. */
            if (failed && failed != NQ_EUNSUPPORTED)
                wrong = 1;
            for (int ti = 0; ti < group; ti++) {
                if (!live[ti] || case_finish(&g[ti]) < 0) {
                    free(g[ti].runs);
                    memset(&g[ti], 0, sizeof g[ti]);
                    continue;
                }
                if (&g[ti] != &cases[count])
                    cases[count] = g[ti];
                derive(cases, count);
                print_case(&cases[count]);
                wrong |= !cases[count].correct;
                count++;
            }
        }
    int status = write_outputs(o, cases, count) | wrong;
    if (wrong)
        fprintf(stderr, "nqueens-bench: some counts were WRONG or failed (see above)\n");
    for (int i = 0; i < count; i++)
        free(cases[i].runs);
    free(cases);
    return status;
}
