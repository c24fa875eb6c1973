/*
 * progress.c - the sweep's progress lines and warnings on stderr, and the
 * estimate of the time it has left.
 *
 * A long sweep that prints nothing for minutes looks hung, so every case
 * and run is announced with the time the sweep still needs.  Nothing tells
 * in advance what a case costs: the estimate uses the runs so far, and for
 * a board size not yet timed, how the time grew with N (only the ETA rests
 * on that guess, never a reported figure).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sweep.h"

/* How much a run's time grows from N to N + 1 when nothing measured says
 * better (the engines' growth lies between about 5 and 7). */
#define DEFAULT_GROWTH 6.0

double bench_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}


/* The expected seconds of one more run of cases[i]: its own last run, else
 * the same engine and thread count at the nearest smaller N grown by the
 * growth that engine showed (or DEFAULT_GROWTH), else any case at that N,
 * else any smaller N grown.  Returns NAN when nothing has run yet. */
static double run_estimate(const sweep_state *st, int i)
{
    const bench_case *c = &st->cases[i];
    if (st->last_run[i] > 0)
        return st->last_run[i];
    int same = -1, lower = -1, below = -1;
    double at_n = 0;
    int at_n_count = 0;
    for (int j = 0; j < st->planned; j++) {
        const bench_case *d = &st->cases[j];
        if (!(st->last_run[j] > 0))
            continue;
        if (d->engine == c->engine && d->threads == c->threads && d->n < c->n) {
            if (same < 0 || d->n > st->cases[same].n) {
                lower = same;
                same = j;
            } else if (lower < 0 || d->n > st->cases[lower].n) {
                lower = j;
            }
        }
        if (d->n == c->n) {
            at_n += st->last_run[j];
            at_n_count++;
        }
        if (d->n < c->n && (below < 0 || d->n > st->cases[below].n))
            below = j;
    }
    if (same >= 0) {
        double g = DEFAULT_GROWTH;
        if (lower >= 0 && st->cases[lower].n < st->cases[same].n) {
            g = pow(st->last_run[same] / st->last_run[lower],
                    1.0 / (st->cases[same].n - st->cases[lower].n));
            g = g < 2 ? 2 : g > 12 ? 12 : g;
        }
        return st->last_run[same] * pow(g, c->n - st->cases[same].n);
    }
    if (at_n_count)
        return at_n / at_n_count;
    if (below >= 0)
        return st->last_run[below] * pow(DEFAULT_GROWTH, c->n - st->cases[below].n);
    return NAN;
}

/* Seconds the sweep still needs by the estimates above (the planned
 * minimum of runs; --precision may add more), or NAN when unknown. */
static double time_left(const sweep_state *st)
{
    const bench_options *o = st->o;
    double left = 0;
    for (int i = 0; i < st->planned; i++) {
        if (st->done[i])
            continue;
        const int runs = o->warmup + o->min_runs - st->runs_started[i];
        if (runs <= 0)
            continue;
        const double e = run_estimate(st, i);
        if (isnan(e))
            return NAN;
        left += runs * e;
    }
    return left;
}

static void format_duration(double s, char *buf, size_t size)
{
    if (s >= 360000)
        snprintf(buf, size, "over 100 h");
    else if (s < 1)
        snprintf(buf, size, "under 1 s");
    else if (s < 60)
        snprintf(buf, size, "%.0f s", ceil(s));
    else if (s < 3600)
        snprintf(buf, size, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, size, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60, 60));
}

/* One progress line on stderr: which case and run, and the time left.  On
 * a terminal the run lines overwrite each other; elsewhere (a log file)
 * each case's first line is kept and its further runs at most one a
 * second, so short runs do not flood the log. */
void bench_progress(sweep_state *st, int i, int run, int warmup)
{
    if (st->o->quiet)
        return;
    const int first = warmup ? run == 1 : run == 1 && st->o->warmup == 0;
    if (!st->tty && !first && bench_since(&st->last_progress) < 1.0)
        return;
    clock_gettime(CLOCK_MONOTONIC, &st->last_progress);
    const bench_case *c = &st->cases[i];
    char left[48] = "time left unknown";
    const double seconds = time_left(st);
    if (!isnan(seconds)) {
        char d[32];
        format_duration(seconds, d, sizeof d);
        const int vague = seconds < 1 || seconds >= 360000; /* "under 1 s", "over 100 h" */
        snprintf(left, sizeof left, "%s%s left", vague ? "" : "about ", d);
    }
    if (st->tty)
        fputs("\r\033[K", stderr);
    fprintf(stderr, "nqueens-bench: case %d/%d, %s N=%d, %d thread%s: %s %d/%d; %s%s",
            i + 1, st->planned, nq_engine_name(c->engine), c->n, c->threads,
            c->threads == 1 ? "" : "s", warmup ? "warm-up" : "run", run,
            warmup ? st->o->warmup : st->o->min_runs, left, st->tty ? "" : "\n");
    st->progress_open = st->tty;
    fflush(stderr);
}

void bench_progress_close(sweep_state *st)
{
    if (st->progress_open)
        fputs("\r\033[K", stderr);
    st->progress_open = 0;
}

void bench_warn(sweep_state *st, const char *fmt, ...)
{
    if (st->o->quiet)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    bench_progress_close(st);
    fprintf(stderr, "nqueens-bench: warning: %s\n", line);
}
