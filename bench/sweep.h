/*
 * sweep.h - what the sweep (sweep.c) holds while it runs, shared with its
 * progress lines and warnings (progress.c).
 */
#ifndef NQ_BENCH_SWEEP_H
#define NQ_BENCH_SWEEP_H

#include <time.h>

#include "options.h"

/* Everything the sweep holds while it runs. */
typedef struct sweep_state {
    bench_options *o;
    bench_machine machine;
    bench_case *cases; /* every planned case, in the order they run */
    int planned;
    int *done;          /* cases[i] finished and counted */
    double *last_run;   /* seconds of cases[i]'s last run (warm-up or timed); 0 none */
    int *runs_started;  /* warm-up and timed runs begun */
    bench_fit *fits;
    int fit_count;
    struct timespec start;
    struct timespec last_progress; /* when the last progress line was written */
    int tty; /* stderr is a terminal: progress overwrites one line */
    int progress_open; /* a progress line without its newline is on stderr */
    int probe_error;   /* bench_core_spread's error, 0 when it timed the CPUs */
} sweep_state;

/* Seconds since *t0 on CLOCK_MONOTONIC. */
double bench_since(const struct timespec *t0);

/* One progress line on stderr for run `run` (a warm-up when `warmup`) of
 * cases[i], with the sweep's time left (see progress.c). */
void bench_progress(sweep_state *st, int i, int run, int warmup);

/* Ends a progress line left open on a terminal, before other output. */
void bench_progress_close(sweep_state *st);

/* A one-line warning on stderr, unless --quiet. */
void bench_warn(sweep_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* NQ_BENCH_SWEEP_H */
