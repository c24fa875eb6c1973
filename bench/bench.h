/*
 * bench.h - shared types of nqueens-bench: the sweep's cases and runs, the
 * machine description, and the outputs (CSV, JSON, plot) and modes
 * (profile, predict) that work on them.
 *
 * The bench links the library's objects statically (nq_internal) so its
 * profile and predict modes can reach the scheduling model and the engines'
 * cost estimates; the timed path is the public nq_count(), the same call
 * the nqueens CLI makes, so the two agree within noise.
 */
#ifndef NQ_BENCH_H
#define NQ_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "nqueens/nqueens.h"

#define BENCH_EXIT_USAGE 2
#define BENCH_MAX_LIST 64

/* A list of integers given as "1,2,4" or "14-17" (or both, "1,4-6"). */
typedef struct bench_list {
    int count;
    int values[BENCH_MAX_LIST];
} bench_list;

/* One timed count. */
typedef struct bench_run {
    double seconds;     /* nq_result.seconds: planning plus solving */
    double cpu_seconds; /* CPU time of the whole process during the count */
    nq_u128 total;
    long peak_kib;      /* peak resident memory during the count; -1 unknown */
} bench_run;

/* One (engine, N, threads) case of the sweep and its repeats. */
typedef struct bench_case {
    enum nq_engine engine;
    int n;
    int threads;
    int split_depth;
    uint64_t units;
    int repeats;
    bench_run *runs;
    double median, min, max;
    double cpu_median; /* CPU seconds: unlike wall time, barely moved by other load */
    long peak_kib;     /* the largest peak of its runs; -1 unknown */
    int checked; /* the known table has N */
    int correct; /* every run matched the table (1 when unchecked) */
    nq_u128 expected;
    /* Derived against other cases; NaN where the base case was not run. */
    double speedup;    /* median of 1 thread, same engine and N / this median */
    double efficiency; /* speedup / threads */
    double vs_plain;   /* plain's median at this N / this median */
} bench_case;

/* What the machine and build look like, for the CSV/JSON header block. */
typedef struct bench_machine {
    char cpu[128];
    int cores;
    char compiler[128];
    char flags[256];
    char openmp[64];
    char proc_bind[64];
    char places[64];
    char commit[64];
    char date[32];
    char library[32];
} bench_machine;

/* Parses a decimal integer in [lo, hi] from text[0..len).  Returns 0, or
 * -1 for anything else (a sign, a space, more than nine digits). */
int bench_parse_int(const char *text, size_t len, long lo, long hi, int *value);

/* Replaces every control character of text with '?', so that a message
 * quoting what was typed stays one line and cannot drive a terminal. */
void bench_one_line(char *text);

/* Parses "a,b,c-d" into *list: every value in [lo, hi], duplicates
 * dropped, at most BENCH_MAX_LIST, sorted ascending.  Returns 0, or -1
 * with a one-line message naming `what` and the allowed values in err. */
int bench_parse_list(const char *text, long lo, long hi, const char *what, bench_list *list,
                     char *err, size_t err_size);

/* fflush(stdout), remembering the first failure's reason for
 * bench_close_stdout(). */
void bench_flush_stdout(void);

/* An atexit() handler: flushes and closes stdout, and when a write to it
 * failed, says so on stderr and ends the process with exit status 1. */
void bench_close_stdout(void);

/* Closes f, written to path; when a write or the close failed, says so on
 * stderr and returns 1, else 0. */
int bench_close_output(FILE *f, const char *path);

/* Fills *m from /proc/cpuinfo, the environment and configure-time defines. */
void bench_machine_describe(bench_machine *m);

/* Logical CPUs this process may use (>= 1). */
int bench_cores(void);

/* Known count of all solutions for n (test data, used only as a check).
 * Returns 1 and sets *total when the table has n, else 0. */
int bench_known_total(int n, nq_u128 *total);

/* Writes every run of every case, after the header block.  Returns 0, or -1
 * with errno set when writing failed. */
int bench_write_csv(FILE *f, const bench_machine *m, const bench_case *cases, int count);
int bench_write_json(FILE *f, const bench_machine *m, const bench_case *cases, int count);

/* CPU seconds on `clock`: CLOCK_PROCESS_CPUTIME_ID for a whole count (all
 * its threads), CLOCK_THREAD_CPUTIME_ID for one unit on the calling thread
 * (its cost without the time the thread spent preempted). */
double bench_cpu_seconds(clockid_t clock);

/* qsort() order for doubles, ascending. */
int bench_compare_double(const void *a, const void *b);

/* Median of v[0 .. count), count >= 1 (the mean of the middle two for an
 * even count); sorts v. */
double bench_median(double *v, int count);

/* Starts a new peak of resident memory (see peak.c).  Returns 1 when the
 * next bench_peak_kib() will be the peak since this call, 0 when it can
 * only be the peak of the whole process so far. */
int bench_peak_reset(void);

/* Peak resident memory in KiB (see bench_peak_reset), or -1 unknown. */
long bench_peak_kib(void);

/* 1 when gnuplot is on PATH. */
int bench_have_gnuplot(void);

/* Draws speedup vs threads and time vs N into path (.svg or .png) with
 * gnuplot.  Returns 0, or -1 when gnuplot failed. */
int bench_plot(const char *path, const bench_machine *m, const bench_case *cases, int count);

/* Profile mode: solves every unit of the job planned by *s one at a time,
 * prints the distribution of unit costs and the model's predictions next
 * to measured runs on `measure` (thread counts this machine has).
 * Returns 0, 1 when a count was wrong, or a negative NQ_E* code. */
int bench_profile(const nq_settings *s, const bench_list *measure, int repeat);

/* Predict mode: for each thread count, plans the job as nq_count() would
 * and prints the model's efficiency from the engine's cost estimate.  With
 * ranks > 0 (--ranks), predicts nqueens-mpi on `ranks` ranks of each thread
 * count instead: planned for ranks x threads, scheduled in journal chunks.
 * Returns 0 or a negative NQ_E* code. */
int bench_predict(const nq_settings *s, const bench_list *threads, int ranks, int header);

/* --audit: checks `units` units of the mitm job of s->n (spread evenly over
 * it) against an independent count each (src/reference/mitm_audit.h), on s->threads
 * threads, printing one line per unit.  Returns 0, 1 on a mismatch, or a
 * negative NQ_E* code. */
int bench_audit(const nq_settings *s, int units);

/* --project: times `samples` short runs of units spread evenly over the
 * job of *s, one per thread on s->threads threads, and prints the
 * projected core-hours of the whole count.  Returns 0 or a negative NQ_E*
 * code. */
int bench_project(const nq_settings *s, int samples);

#endif /* NQ_BENCH_H */
