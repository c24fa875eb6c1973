/*
 * sweep.c - the timed sweep of nqueens-bench: every (engine, N, threads)
 * case with its warm-ups and repeats, the thread counts of one engine and N
 * taking turns run by run, each total checked against the known counts,
 * one table line per case, and the CSV, JSON, Markdown and plot of the
 * whole, rewritten as each case finishes (save.c keeps them through an
 * interruption).
 *
 * Apart from option parsing (options.c) so that what is measured, and how
 * the figures are derived from the runs, can be read in one place: the
 * statistics of a case, the warnings that say when they cannot be trusted,
 * the Karp-Flatt metric and the Amdahl fit.  The progress lines are in
 * progress.c, the binding sweep's children in variants.c.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep.h"
#include "variants.h"

/* A case's runs spread widely when sigma / mean exceeds this. */
#define SPREAD_LIMIT 0.10
/* On one thread, wall time over CPU time by this factor (and by
 * BUSY_MIN_SECONDS) means the process waited for a CPU. */
#define BUSY_FACTOR 1.10
#define BUSY_MIN_SECONDS 0.005

static void case_settings(const bench_options *o, const bench_case *bc, nq_settings *s)
{
    bench_settings(o, bc->n, bc->engine, s);
    s->threads = bc->threads;
    s->schedule = bc->schedule;
}

/* ---- one case ---- */

/* Warm-up runs of a case and room for its timed runs.
 * Returns 0 or an NQ_E* code. */
static int case_start(sweep_state *st, int i)
{
    const bench_options *o = st->o;
    bench_case *bc = &st->cases[i];
    nq_settings s;
    nq_result r;
    case_settings(o, bc, &s);
    for (int w = 0; w < o->warmup; w++) {
        st->runs_started[i]++;
        bench_progress(st, i, w + 1, 1);
        int ret = nq_count(&s, &r);
        if (ret < 0)
            return ret;
        st->last_run[i] = r.seconds;
    }
    bc->capacity = o->max_runs;
    bc->runs = calloc((size_t)bc->capacity, sizeof *bc->runs);
    if (!bc->runs)
        return NQ_ENOMEM;
    bc->checked = bench_known_total(bc->n, &bc->expected);
    bc->correct = 1;
    return 0;
}

/* The next timed run of a case.  Returns 0 or an NQ_E* code. */
static int case_run(sweep_state *st, int i)
{
    bench_case *bc = &st->cases[i];
    nq_settings s;
    nq_result r;
    case_settings(st->o, bc, &s);
    st->runs_started[i]++;
    bench_progress(st, i, bc->repeats + 1, 0);
    bench_peak_reset();
    const double cpu0 = bench_cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
    int ret = nq_count(&s, &r);
    const double cpu = bench_cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    if (ret < 0)
        return ret;
    bc->runs[bc->repeats] = (bench_run){r.seconds, cpu, r.total, bench_peak_kib()};
    if (bc->checked && r.total != bc->expected)
        bc->correct = 0;
    bc->engine = r.engine; /* auto resolves to a real engine */
    bc->split_depth = r.split_depth;
    bc->units = r.subproblems;
    bc->repeats++;
    st->last_run[i] = r.seconds;
    return 0;
}

/* Whether a case needs another timed run: below --min-runs, or with
 * --precision below --max-runs while the standard error of its mean is
 * above the target. */
static int case_wants_run(const bench_options *o, const bench_case *bc)
{
    if (bc->repeats < o->min_runs)
        return 1;
    if (o->precision <= 0 || bc->repeats >= o->max_runs)
        return 0;
    double mean = 0, sd = 0, wall[1000];
    for (int r = 0; r < bc->repeats; r++)
        wall[r] = bc->runs[r].seconds;
    bench_mean_sd(wall, bc->repeats, &mean, &sd);
    return !(sd / sqrt(bc->repeats) <= o->precision * mean);
}

/* Median, mean, sigma, min and max of a case's timed runs, and the
 * warnings they call for.  Returns 0 or NQ_ENOMEM. */
static int case_finish(sweep_state *st, bench_case *bc)
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
    bench_mean_sd(wall, bc->repeats, &bc->mean, &bc->sd);
    bc->median = bench_median(wall, bc->repeats);
    bc->min = wall[0];
    bc->max = wall[bc->repeats - 1];
    bc->cpu_median = bench_median(cpu, bc->repeats);
    free(wall);
    free(cpu);
    if (bc->sd > SPREAD_LIMIT * bc->mean)
        bc->warnings |= BENCH_WARN_SPREAD;
    if (bc->threads == 1 && bc->median > BUSY_FACTOR * bc->cpu_median &&
        bc->median - bc->cpu_median > BUSY_MIN_SECONDS)
        bc->warnings |= BENCH_WARN_BUSY;
    if (bc->threads > st->machine.cores)
        bc->warnings |= BENCH_WARN_OVERSUB;
    if (bench_load_high(&st->machine))
        bc->warnings |= BENCH_WARN_LOAD;
    if (bench_cores_uneven(&st->machine))
        bc->warnings |= BENCH_WARN_UNEVEN;
    nq_settings s;
    case_settings(st->o, bc, &s);
    s.engine = bc->engine;
    bc->model_speedup = bench_model_speedup(&s, st->machine.cores);
    return 0;
}

/* The per-case warnings that are about the case itself (the sweep-wide
 * ones were said at the start). */
static void case_warnings(sweep_state *st, const bench_case *bc)
{
    char what[128];
    snprintf(what, sizeof what, "%s N=%d on %d thread%s%s%s%s%s", nq_engine_name(bc->engine),
             bc->n, bc->threads, bc->threads == 1 ? "" : "s",
             st->o->bind_count ? ", " : "", st->o->bind_count ? bc->proc_bind : "",
             st->o->bind_count ? "/" : "", st->o->bind_count ? bc->places : "");
    if (bc->warnings & BENCH_WARN_SPREAD)
        bench_warn(st, "%s: the runs spread widely (mean %.4f s, sigma %.0f%%, min %.4f, "
                       "max %.4f): more runs (--precision) or a quieter machine",
                   what, bc->mean, 100 * bc->sd / bc->mean, bc->min, bc->max);
    if (bc->warnings & BENCH_WARN_BUSY)
        bench_warn(st, "%s: wall time %.4f s exceeds CPU time %.4f s on one thread: the "
                       "machine is busy", what, bc->median, bc->cpu_median);
}

/* Fills speedup, efficiency, Karp-Flatt and vs_plain of cases[i] from the
 * finished cases before it. */
static void derive(bench_case *cases, int count, int i)
{
    bench_case *bc = &cases[i];
    bc->speedup = bc->efficiency = bc->vs_plain = bc->karp_flatt = NAN;
    for (int j = 0; j < count; j++) {
        const bench_case *o = &cases[j];
        if (o->n != bc->n || !(o->median > 0) || !bench_same_binding(o, bc))
            continue;
        if (o->engine == bc->engine && o->threads == 1 && o->schedule == bc->schedule) {
            bc->speedup = o->median / bc->median;
            bc->efficiency = bc->speedup / bc->threads;
        }
        if (o->engine == NQ_ENGINE_PLAIN)
            bc->vs_plain = o->median / bc->median;
    }
    const double p = bc->threads;
    if (p > 1 && !isnan(bc->speedup))
        bc->karp_flatt = (1 / bc->speedup - 1 / p) / (1 - 1 / p);
}

/* Amdahl's law fitted to each (engine, N) series: with x = 1 - 1/p and
 * y = 1/speedup - 1/p (the law says y = f x), the least-squares f is
 * sum(xy) / sum(x^2) over the cases on 2 or more threads and at most the
 * logical CPUs (beyond them threads time-share, which the law leaves out).
 * NaN where no case qualifies. */
static void fit_amdahl(sweep_state *st, const bench_case *cases, int count)
{
    st->fit_count = 0;
    for (int i = 0; i < count; i++) {
        const bench_case *c = &cases[i];
        if (c->engine == NQ_ENGINE_PLAIN)
            continue;
        int seen = 0;
        for (int k = 0; k < st->fit_count && !seen; k++)
            seen = st->fits[k].engine == c->engine && st->fits[k].n == c->n &&
                   st->fits[k].schedule == c->schedule &&
                   !strcmp(st->fits[k].proc_bind, c->proc_bind) &&
                   !strcmp(st->fits[k].places, c->places);
        if (seen)
            continue;
        bench_fit *fit = &st->fits[st->fit_count++];
        double sxy = 0, sxx = 0;
        *fit = (bench_fit){c->engine, c->n, c->schedule, c->proc_bind, c->places, NAN, 0, 0};
        for (int j = i; j < count; j++) {
            const bench_case *d = &cases[j];
            if (d->engine != c->engine || d->n != c->n || !bench_same_setup(c, d))
                continue;
            if (d->threads > fit->max_threads)
                fit->max_threads = d->threads;
            if (d->threads < 2 || d->threads > st->machine.cores || isnan(d->speedup))
                continue;
            const double x = 1 - 1.0 / d->threads, y = 1 / d->speedup - 1.0 / d->threads;
            sxy += x * y;
            sxx += x * x;
            fit->points++;
        }
        if (fit->points) {
            const double f = sxy / sxx;
            fit->serial = f < 0 ? 0 : f > 1 ? 1 : f;
        }
    }
}

/* ---- the table ---- */

static void print_header(const sweep_state *st)
{
    if (st->o->bind_count > 0)
        printf("%-20s ", "binding");
    printf("%-7s %3s %4s %5s %7s %9s %9s %8s %9s %9s %9s %8s %16s %3s %7s %6s %6s %6s %8s "
           "%s\n",
           "engine", "N", "thr", "depth", "units", "median_s", "mean_s", "sd_%", "min_s",
           "max_s", "cpu_s", "peak_MiB", "solutions", "ok", "speedup", "eff", "kf", "model",
           "vs_plain", "schedule");
}

/* A float column, or "-" where the value is unknown. */
static void print_opt(const char *fmt, int width, double v)
{
    if (isnan(v))
        printf(" %*s", width, "-");
    else
        printf(fmt, width, v);
}

static void print_case(const sweep_state *st, const bench_case *bc)
{
    char total[48];
    if (st->o->bind_count > 0) {
        char binding[40];
        snprintf(binding, sizeof binding, "%s/%s", bc->proc_bind, bc->places);
        printf("%-20s ", binding);
    }
    nq_u128_to_string(bc->runs[0].total, total, sizeof total);
    printf("%-7s %3d %4d %5d %7llu %9.4f %9.4f", nq_engine_name(bc->engine), bc->n, bc->threads,
           bc->split_depth, (unsigned long long)bc->units, bc->median, bc->mean);
    print_opt(" %*.1f", 8, 100 * bc->sd / bc->mean);
    printf(" %9.4f %9.4f %9.4f", bc->min, bc->max, bc->cpu_median);
    print_opt(" %*.1f", 8, bc->peak_kib < 0 ? NAN : (double)bc->peak_kib / 1024);
    printf(" %16s %3s", total, !bc->checked ? "?" : bc->correct ? "yes" : "NO");
    print_opt(" %*.2f", 7, bc->speedup);
    print_opt(" %*.3f", 6, bc->efficiency);
    print_opt(" %*.3f", 6, bc->karp_flatt);
    print_opt(" %*.2f", 6, bc->model_speedup);
    print_opt(" %*.2f", 8, bc->vs_plain);
    printf(" %s\n", nq_schedule_name(bc->schedule));
    bench_flush_stdout();
}

static void print_fits(const sweep_state *st)
{
    for (int i = 0; i < st->fit_count; i++) {
        const bench_fit *f = &st->fits[i];
        if (!f->points)
            continue;
        printf("amdahl: %s N=%d", nq_engine_name(f->engine), f->n);
        if (st->o->schedule_count > 1)
            printf(", schedule %s", nq_schedule_name(f->schedule));
        if (st->o->bind_count > 0)
            printf(", OMP_PROC_BIND=%s OMP_PLACES=%s", f->proc_bind, f->places);
        printf(": serial fraction %.4f from %d thread count%s up to the %d CPUs\n", f->serial,
               f->points, f->points == 1 ? "" : "s", st->machine.cores);
    }
    bench_flush_stdout();
}

/* ---- the files ---- */

/* Rewrites every output from the finished cases[0 .. count); `final`: the
 * sweep has ended.  Returns 1 when a file failed (said on stderr). */
static int save_outputs(sweep_state *st, const bench_case *cases, int count, int final)
{
    bench_options *o = st->o;
    const bench_machine *m = &st->machine;
    int status = 0;
    fit_amdahl(st, cases, count);
    bench_save *saves[] = {&o->csv, &o->meta, &o->json, &o->markdown, &o->plot};
    const char *paths[] = {o->csv_path, o->meta_path, o->json_path, o->markdown_path,
                           o->plot_path};
    /* The stop signals wait until every output holds the same cases: a
     * signal between two commits would leave one file a case ahead of the
     * others when the handler renames the snapshots.  Blocking them here
     * keeps this thread's writes whole; bench_save_hold keeps the handler
     * off the files when a signal lands on another thread. */
    sigset_t stops, old;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigaddset(&stops, SIGHUP);
    sigprocmask(SIG_BLOCK, &stops, &old);
    bench_save_hold();
    for (int k = 0; k < 5; k++) {
        if (!paths[k] || !paths[k][0])
            continue;
        FILE *f = bench_save_begin(saves[k], final);
        if (!f)
            continue;
        switch (k) {
        case 0: bench_write_csv(f, cases, count); break;
        case 1: bench_write_meta(f, m); break;
        case 2: bench_write_json(f, m, cases, count, st->fits, st->fit_count, final); break;
        case 3: bench_write_markdown(f, m, cases, count, st->fits, st->fit_count); break;
        default: bench_plot(f, m, cases, count); break;
        }
        status |= bench_save_commit(saves[k], f) < 0;
    }
    if (final)
        for (int k = 0; k < 5; k++)
            if (paths[k] && paths[k][0])
                status |= bench_save_finish(saves[k]);
    sigprocmask(SIG_SETMASK, &old, NULL);
    bench_save_release();
    return status;
}

/* ---- the sweep ---- */

/* Plans every case: N outermost, then engine (plain first, so every later
 * case at the same N can be compared with it), then threads. */
static int plan_cases(sweep_state *st)
{
    const bench_options *o = st->o;
    const int max = o->engine_count * o->n.count * o->threads.count * o->schedule_count;
    st->cases = calloc((size_t)max + 1, sizeof *st->cases);
    st->done = calloc((size_t)max + 1, sizeof *st->done);
    st->last_run = calloc((size_t)max + 1, sizeof *st->last_run);
    st->runs_started = calloc((size_t)max + 1, sizeof *st->runs_started);
    if (!st->cases || !st->done || !st->last_run || !st->runs_started)
        return NQ_ENOMEM;
    for (int ni = 0; ni < o->n.count; ni++)
        for (int ei = 0; ei < o->engine_count; ei++) {
            const enum nq_engine e = o->engines[ei];
            /* plain: once, on one thread, by the library's schedule */
            const int group = e == NQ_ENGINE_PLAIN ? 1 : o->threads.count * o->schedule_count;
            for (int k = 0; k < group; k++) {
                bench_case *c = &st->cases[st->planned++];
                c->engine = e;
                c->n = o->n.values[ni];
                c->threads = e == NQ_ENGINE_PLAIN ? 1 : o->threads.values[k % o->threads.count];
                c->schedule = e == NQ_ENGINE_PLAIN ? NQ_SCHEDULE_DEFAULT
                                                   : o->schedules[k / o->threads.count];
                c->speedup = c->efficiency = c->vs_plain = c->karp_flatt = NAN;
                c->model_speedup = c->sd = NAN;
            }
        }
    return 0;
}

/* Runs the group of cases [first, end) (one engine at one N, every thread
 * count): warm-ups first, then the thread counts taking turns run by run:
 * on a shared machine the load drifts, and interleaving spreads the drift
 * over all of them instead of biasing their ratio.  Sets live[] for the
 * cases that ran.  Returns the first error, or 0. */
static int run_group(sweep_state *st, int first, int end, int *live)
{
    int failed = 0;
    for (int i = first; i < end; i++) {
        int ret = case_start(st, i);
        live[i - first] = ret == 0;
        if (ret < 0 && !failed)
            failed = ret;
    }
    for (int more = 1; more;) {
        more = 0;
        for (int i = first; i < end; i++) {
            if (!live[i - first] || !case_wants_run(st->o, &st->cases[i]))
                continue;
            int ret = case_run(st, i);
            live[i - first] = ret == 0;
            if (ret < 0 && !failed)
                failed = ret;
            more |= ret == 0;
        }
    }
    return failed;
}

/* What the machine says before anything runs: too many threads, a loaded
 * machine, CPUs of uneven speed. */
static void sweep_warnings(sweep_state *st)
{
    const bench_options *o = st->o;
    const bench_machine *m = &st->machine;
    int most = 0;
    for (int i = 0; i < o->threads.count; i++)
        if (o->threads.values[i] > most)
            most = o->threads.values[i];
    if (most > m->cores)
        bench_warn(st, "%d threads exceed the %d logical CPU%s: those cases time-share the CPUs "
                 "(marked oversubscribed)", most, m->cores, m->cores == 1 ? "" : "s");
    if (bench_load_high(m))
        bench_warn(st, "load average %.2f at the start on %d logical CPU%s: other work competes "
                 "for them (every case marked load)", m->load[0], m->cores,
             m->cores == 1 ? "" : "s");
    char why[256];
    if (bench_core_warning(m, st->probe_error, why, sizeof why))
        bench_warn(st, "%s%s", why, st->probe_error ? "" : "; every case marked uneven)");
}

/* The value of an OpenMP variable as a label: "unset", or the value with
 * spaces replaced (labels are space-free in the child's records). */
static void env_label(const char *name, char *out, size_t size)
{
    const char *v = getenv(name);
    snprintf(out, size, "%s", v && *v ? v : "unset");
    for (char *p = out; *p; p++)
        if (*p == ' ' || (unsigned char)*p < 0x20)
            *p = '_';
}

/* Takes a finished case into out[*count]: its statistics, warnings and the
 * figures derived against the cases before it.  Returns 0, or NQ_ENOMEM
 * (the case is dropped). */
static int accept_case(sweep_state *st, bench_case *out, int *count, const bench_case *c)
{
    out[*count] = *c;
    if (case_finish(st, &out[*count]) < 0)
        return NQ_ENOMEM;
    derive(out, *count + 1, *count);
    (*count)++;
    return 0;
}

/* Saves the files, then prints out[before .. count): a line on stdout
 * means the case is in the files, interrupted or not. */
static int publish(sweep_state *st, const bench_case *out, int before, int count)
{
    const int status = save_outputs(st, out, count, 0);
    bench_progress_close(st);
    for (int k = before; k < count; k++) {
        print_case(st, &out[k]);
        case_warnings(st, &out[k]);
    }
    return status;
}

/* The sweep in this process: group by group (one engine and N, every
 * thread count).  A child of a binding sweep writes each finished case to
 * its pipe instead of printing it.  Returns 1 when a count was wrong or
 * failed. */
static int sweep_here(sweep_state *st, bench_case *out, int *count, int *status)
{
    int wrong = 0;
    FILE *child = NULL;
    if (st->o->child_fd >= 0 && !(child = fdopen(st->o->child_fd, "w"))) {
        fprintf(stderr, "nqueens-bench: --child-fd %d: %s\n", st->o->child_fd,
                strerror(errno));
        return 1;
    }
    int *live = calloc((size_t)st->planned + 1, sizeof *live);
    if (!live)
        return 1;
    for (int first = 0; first < st->planned;) {
        int end = first + 1;
        while (end < st->planned && st->cases[end].engine == st->cases[first].engine &&
               st->cases[end].n == st->cases[first].n)
            end++;
        const int before = *count;
        const int failed = run_group(st, first, end, live);
        if (failed) {
            bench_progress_close(st);
            fprintf(stderr, "nqueens-bench: engine %s, N=%d: %s\n",
                    nq_engine_name(st->cases[first].engine), st->cases[first].n,
                    nq_strerror(failed));
            wrong = 1;
        }
        for (int i = first; i < end; i++) {
            st->done[i] = 1;
            if (!live[i - first])
                continue;
            env_label("OMP_PROC_BIND", st->cases[i].proc_bind, sizeof st->cases[i].proc_bind);
            env_label("OMP_PLACES", st->cases[i].places, sizeof st->cases[i].places);
            if (child) {
                bench_variant_write(child, &st->cases[i]);
                continue;
            }
            if (accept_case(st, out, count, &st->cases[i]) == 0)
                wrong |= !out[*count - 1].correct;
        }
        if (!child)
            *status |= publish(st, out, before, *count);
        first = end;
    }
    if (child)
        fclose(child);
    free(live);
    return wrong;
}

/* The binding sweep: one child per OMP_PROC_BIND/OMP_PLACES pair, its
 * cases read as they finish.  Returns 1 when a count was wrong or a child
 * failed. */
static int sweep_bindings(sweep_state *st, bench_case *out, int *count, int *status)
{
    const bench_options *o = st->o;
    int wrong = 0;
    for (int v = 0; v < o->bind_count; v++) {
        pid_t pid;
        FILE *in;
        if (bench_variant_spawn(o, v, &pid, &in) < 0)
            return 1;
        bench_save_watch_child(pid);
        bench_case c;
        int got;
        while ((got = bench_variant_read(in, &c)) == 1) {
            const int before = *count;
            if (*count >= st->planned * o->bind_count || accept_case(st, out, count, &c) < 0) {
                free(c.runs);
                continue;
            }
            wrong |= !out[*count - 1].correct;
            *status |= publish(st, out, before, *count);
        }
        fclose(in);
        int child_status = 0;
        waitpid(pid, &child_status, 0);
        bench_save_watch_child(0);
        if (got < 0 || !WIFEXITED(child_status) || WEXITSTATUS(child_status) != 0) {
            bench_progress_close(st);
            fprintf(stderr, "nqueens-bench: the run under OMP_PROC_BIND=%s OMP_PLACES=%s "
                            "failed (%s)\n",
                    o->binds[v].proc_bind[0] ? o->binds[v].proc_bind : "(as set)",
                    o->binds[v].places[0] ? o->binds[v].places : "(as set)",
                    got < 0 ? "a malformed record" : "see above");
            wrong = 1;
        }
    }
    return wrong;
}

int bench_sweep(bench_options *o)
{
    sweep_state st;
    memset(&st, 0, sizeof st);
    st.o = o;
    st.tty = isatty(STDERR_FILENO);
    bench_machine_describe(&st.machine, o->argc, o->argv);
    clock_gettime(CLOCK_MONOTONIC, &st.start);
    const int parent = o->child_fd < 0;
    const int bindings = o->bind_count > 0 ? o->bind_count : 1;
    bench_case *out = NULL;
    if (plan_cases(&st) < 0 ||
        !(out = calloc((size_t)(st.planned * bindings) + 1, sizeof *out)) ||
        !(st.fits = calloc((size_t)(st.planned * bindings) + 1, sizeof *st.fits))) {
        fprintf(stderr, "nqueens-bench: %s\n", nq_strerror(NQ_ENOMEM));
        return 1;
    }
    int count = 0, status = 0, wrong;
    if (parent) {
        bench_save_catch_signals();
        st.probe_error = bench_core_spread(&st.machine);
        sweep_warnings(&st);
        print_header(&st);
    }
    if (o->bind_count > 0)
        wrong = sweep_bindings(&st, out, &count, &status);
    else
        wrong = sweep_here(&st, out, &count, &status);
    bench_progress_close(&st);
    if (parent) {
        status |= save_outputs(&st, out, count, 1);
        print_fits(&st);
        if (!o->quiet)
            fprintf(stderr, "nqueens-bench: %d case%s in %.1f s\n", count,
                    count == 1 ? "" : "s", bench_since(&st.start));
        if (wrong)
            fprintf(stderr, "nqueens-bench: some counts were WRONG or failed (see above)\n");
    }
    for (int i = 0; i < st.planned; i++)
        free(st.cases[i].runs);
    if (o->bind_count > 0) /* the children's cases: read into out[] alone */
        for (int i = 0; i < count; i++)
            free(out[i].runs);
    free(st.cases);
    free(st.done);
    free(st.last_run);
    free(st.runs_started);
    free(st.fits);
    free(out);
    return status | wrong;
}
