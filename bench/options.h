/*
 * options.h - the command line of nqueens-bench, parsed into one struct
 * that the sweep (sweep.c) and the other modes (nqueens_bench.c) read.
 *
 * Kept apart from the sweep so that what a user may type, and every check
 * of it, sits in one file: bad input dies there with one line and exit
 * status 2, before anything is timed or any file is touched.
 */
#ifndef NQ_BENCH_OPTIONS_H
#define NQ_BENCH_OPTIONS_H

#include "bench.h"
#include "save.h"

enum bench_mode { MODE_SWEEP, MODE_PROFILE, MODE_PREDICT, MODE_AUDIT, MODE_PROJECT, MODE_CORES };

#define BENCH_MAX_BINDS 16

/* One OMP_PROC_BIND and OMP_PLACES pair of a binding sweep; an empty value
 * leaves the variable as the environment has it. */
typedef struct bench_binding {
    char proc_bind[16];
    char places[16];
} bench_binding;

typedef struct bench_options {
    bench_list n;
    bench_list threads;
    int threads_given;
    enum nq_engine engines[NQ_ENGINE_COUNT_];
    int engine_count;
    int repeat; /* room for runs: max_runs */
    int min_runs, max_runs, max_runs_given;
    double precision; /* --precision: target standard error / mean; 0 off */
    int warmup;
    int quiet;
    int split_depth;
    uint64_t memory; /* --memory: nq_settings.memory of every case; 0 when not given */
    int ranks; /* --ranks R for --predict; 0 when not given */
    int audit;   /* --audit K: units to check */
    int project; /* --project S: units to time */
    double project_limit; /* --project-limit SECONDS, or 0 */
    double project_part;  /* --project-part SHARE, or 0: whole units */
    int engines_given;
    enum bench_mode mode;
    const char *csv_path, *json_path, *plot_path, *markdown_path;
    char meta_path[4096]; /* csv_path.meta */
    bench_save csv, meta, json, plot, markdown;
    enum nq_schedule schedules[NQ_SCHEDULE_COUNT_]; /* --schedule; {default} without */
    int schedule_count;
    bench_binding binds[BENCH_MAX_BINDS]; /* --proc-bind x --places */
    char proc_binds[BENCH_MAX_BINDS][16], places[BENCH_MAX_BINDS][16];
    int proc_bind_count, places_count;
    int bind_count; /* 0: no binding sweep, the cases run in this process */
    int child_fd;   /* --child-fd: a binding sweep's child writes cases here; -1 */
    int argc;
    char **argv;
} bench_options;

/* Runs the sweep the options ask for (sweep.c): prints the table, writes
 * the files.  Returns the exit status. */
int bench_sweep(bench_options *o);

/* Parses argv into *o, checks every case with the library's settings
 * check and opens nothing; on bad input prints one line and exits 2. */
void bench_parse_args(int argc, char **argv, bench_options *o);

/* The settings every case of board n on `engine` starts from: the
 * library's defaults with the command line's split depth and memory
 * budget; each mode sets the threads (and the sweep the schedule). */
void bench_settings(const bench_options *o, int n, enum nq_engine engine, nq_settings *s);

#endif /* NQ_BENCH_OPTIONS_H */
