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

/* Reasons a case's figures may mislead, set by the sweep and listed beside
 * the case in every output (bench_warning_name). */
enum bench_warning {
    BENCH_WARN_SPREAD = 1 << 0,  /* the runs spread widely (sigma/mean > 10%) */
    BENCH_WARN_BUSY = 1 << 1,    /* one thread: wall time well over CPU time */
    BENCH_WARN_OVERSUB = 1 << 2, /* more threads than logical CPUs */
    BENCH_WARN_LOAD = 1 << 3,    /* the load average was high at the start */
    BENCH_WARN_UNEVEN = 1 << 4,  /* the CPUs ran the same work at uneven speeds */
    BENCH_WARN_COUNT_ = 5
};

/* The short name of warning bit i ("spread", "busy", ...). */
const char *bench_warning_name(int i);

/* One (engine, N, threads) case of the sweep and its repeats. */
typedef struct bench_case {
    enum nq_engine engine;
    int n;
    int threads;
    enum nq_schedule schedule; /* as asked for (NQ_SCHEDULE_DEFAULT: the library's) */
    int split_depth;
    uint64_t units;
    int repeats;   /* timed runs done */
    int capacity;  /* room in runs[] */
    bench_run *runs;
    double median, min, max;
    double mean, sd;   /* sd: sample standard deviation; NaN for one run */
    double karp_flatt; /* (1/speedup - 1/p) / (1 - 1/p); NaN at 1 thread */
    double model_speedup; /* the scheduling model's speedup (see sweep.c); NaN unknown */
    unsigned warnings;    /* enum bench_warning bits */
    /* OMP_PROC_BIND and OMP_PLACES the case ran under ("unset" when the
     * environment had none); cases compare only with their own. */
    char proc_bind[16];
    char places[16];
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

/* Amdahl's law fitted to one (engine, N) series of a sweep. */
typedef struct bench_fit {
    enum nq_engine engine;
    int n;
    enum nq_schedule schedule;
    const char *proc_bind, *places; /* the series' binding (its cases') */
    double serial;  /* serial fraction f: speedup(p) = 1 / (f + (1 - f) / p) */
    int points;     /* cases with 1 < p <= cores that the fit used */
    int max_threads;
} bench_fit;

/* What the machine and build look like, for the CSV/JSON header block. */
typedef struct bench_machine {
    char cpu[128];
    int cores;          /* logical CPUs this process may use */
    int physical_cores; /* cores, counting SMT siblings once; 0 unknown */
    int smt;            /* hardware threads per core; 0 unknown */
    int numa_nodes;     /* 0 unknown */
    char governor[32];  /* cpufreq scaling governor of CPU 0, or "unknown" */
    char kernel[224];   /* uname: sysname release machine */
    double load[3];     /* 1, 5 and 15 minute load averages; -1 unknown */
    /* The slowest CPU's time over the fastest's on the same work, all at
     * once (bench_core_spread); 0 not measured.  core_cpus CPUs took part;
     * core_slowest and core_fastest name the two (-1 unknown). */
    double core_spread;
    int core_cpus, core_slowest, core_fastest;
    char command[1024]; /* the command line, quoted as a shell reads it */
    char compiler[128];
    char flags[256];
    char kernels[64];   /* the kernel level counts run (nq_kernel_name) */
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

/* Fills *m from /proc, /sys, the environment and configure-time defines;
 * argv (may be NULL) becomes m->command. */
void bench_machine_describe(bench_machine *m, int argc, char **argv);

/* 1 when the 1-minute load average says more than a quarter of the
 * machine's logical CPUs were busy (a quiet machine reads near 0). */
int bench_load_high(const bench_machine *m);

/* Above this core_spread the CPUs count as uneven: a tenth, where the
 * probe's own jitter stays within a few percent. */
#define BENCH_UNEVEN_LIMIT 1.10

/* Runs the same fixed work (about 0.1 s) on every logical CPU of this
 * process's affinity mask at once, one thread pinned to each, and sets
 * m->core_spread, core_cpus, core_slowest and core_fastest.  Returns 0, or
 * a negative errno code with core_spread left 0: -ENOMEM, the error of a
 * thread that could not be pinned or started (as -EINVAL for a CPU the
 * process may not use), or -EIO when a CPU's count came out wrong. */
int bench_core_spread(bench_machine *m);

/* The spread as the outputs state it: "1.031 (2 CPUs at once; slowest
 * CPU 0, fastest CPU 1)", or "unknown". */
void bench_core_spread_text(const bench_machine *m, char *out, size_t size);

/* --cores: times the CPUs (bench_core_spread) and prints one line, e.g.
 * "cores: 2 CPUs at once, the slowest (CPU 0) 1.420 times the fastest's
 * time (CPU 1): uneven".  Returns 0, or 1 after a one-line error. */
int bench_cores_report(void);

/* What to warn of after bench_core_spread(m) returned err: "could not
 * time the CPUs against each other: REASON", or, when they ran uneven,
 * "the CPUs ran the same work at uneven speeds: CPU 0 took 1.42 times as
 * long as CPU 1 (other work on it, or another machine's on its physical
 * core", the parenthesis left open for the caller to say what follows.
 * Returns 1 with the text in out, or 0 when there is nothing to say. */
int bench_core_warning(const bench_machine *m, int err, char *out, size_t size);

/* 1 when bench_core_spread measured the CPUs more than BENCH_UNEVEN_LIMIT
 * apart. */
int bench_cores_uneven(const bench_machine *m);

/* Logical CPUs this process may use (>= 1). */
int bench_cores(void);

/* Known count of all solutions for n (test data, used only as a check).
 * Returns 1 and sets *total when the table has n, else 0. */
int bench_known_total(int n, nq_u128 *total);

/* The sweep's files.  The CSV holds one row per run and nothing else (a
 * plain CSV that csv.DictReader and pandas read without options); its
 * machine header and command line go to a companion file (bench_write_meta,
 * "# key: value" lines).  JSON holds both, every case with its runs, the
 * fits, and "complete": false while the sweep is still running.  Markdown
 * is one table line per case.  Each returns 0, or -1 when writing failed. */
int bench_write_csv(FILE *f, const bench_case *cases, int count);
int bench_write_meta(FILE *f, const bench_machine *m);
int bench_write_json(FILE *f, const bench_machine *m, const bench_case *cases, int count,
                     const bench_fit *fits, int fit_count, int complete);
int bench_write_markdown(FILE *f, const bench_machine *m, const bench_case *cases, int count,
                         const bench_fit *fits, int fit_count);

/* 1 when a and b ran under the same OMP_PROC_BIND and OMP_PLACES. */
int bench_same_binding(const bench_case *a, const bench_case *b);

/* 1 when a and b ran under the same binding and schedule: the cases one
 * scaling series (speedup base, fit, plot line) is made of. */
int bench_same_setup(const bench_case *a, const bench_case *b);

/* Writes the warnings of w as "spread;busy" (empty for none) into buf. */
void bench_warning_list(unsigned w, char *buf, size_t size);

/* CPU seconds on `clock`: CLOCK_PROCESS_CPUTIME_ID for a whole count (all
 * its threads).  One unit on the calling thread is timed by the library's
 * nq_thread_seconds (core/util.h), the clock the join's sample reads, so a
 * unit solved by sample is timed by one clock throughout. */
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

/* Mean and sample standard deviation of v[0 .. count) (sd NaN when
 * count < 2). */
void bench_mean_sd(const double *v, int count, double *mean, double *sd);

/* Draws the scaling of the sweep as SVG into f: speedup and efficiency
 * against threads on a log2 axis, error bars spanning each case's runs, the
 * ideal line, the model's prediction, the logical CPU count, and a legend
 * beside the panels.  Returns 0, or -1 when writing failed. */
int bench_plot(FILE *f, const bench_machine *m, const bench_case *cases, int count);

/* The scheduling model's speedup for the job *s plans (see sweep.c for how
 * time-sharing enters), or NaN when the engine has no cost estimate. */
double bench_model_speedup(const nq_settings *s, int cores);

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
 * projected core-hours of the whole count.  The runs double until the
 * standard error is within 10%: at most 16 times `samples` of them when
 * limit is 0, else for as long as the next doubling is expected to end
 * within `limit` seconds of the start.  With part > 0, each unit is timed
 * by sample: its joins solve one run of blocks in the whole number
 * nearest 1 / part, and the time of those blocks is scaled up.  Returns 0 or a
 * negative NQ_E* code (NQ_EUNSUPPORTED when part is asked of an engine
 * without joins).  Unless quiet, a line on standard error before each
 * doubling gives the projection so far. */
int bench_project(const nq_settings *s, int samples, double limit, double part, int quiet);

#endif /* NQ_BENCH_H */
