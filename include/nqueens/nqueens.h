/*
 * nqueens.h - public interface of libnqueens, an exact N-Queens solution counter.
 *
 * The library counts every placement of N non-attacking queens on an N x N
 * board (1 <= N <= 32).  A count is cut into a deterministic, indexed list
 * of independent subproblems ("units"); a pool of OpenMP threads that
 * shares them out by its schedule solves them and the per-unit counts are
 * summed.  Because the list is deterministic, a run can be split across
 * processes (MPI), journalled and resumed, or profiled unit by unit, all
 * through the job interface below.
 *
 * Conventions: every function that can fail returns 0 or a negative NQ_E*
 * code; nq_strerror() turns a code into text.  The library never prints.
 * Each function says what a NULL pointer or an out-of-range value gets:
 * those that return a code check them (NQ_EINVAL_ARG for a NULL pointer,
 * NQ_EINVAL_* naming the value otherwise); the others return a stated
 * neutral value (0, NULL, NQ_ENGINE_AUTO) or do nothing.  Thread counts
 * are 1 to NQ_MAX_THREADS everywhere, 0 meaning the default.
 * Totals are unsigned 128-bit because N >= 29 overflows 64 bits.
 */
#ifndef NQUEENS_NQUEENS_H
#define NQUEENS_NQUEENS_H

/**
 * The version of this header, for compile-time checks (`#if
 * NQ_VERSION_MAJOR > 0`).  nq_version() gives the library's at run time;
 * the two differ only when a program runs against another release than it
 * was built with.  NQ_VERSION_NUMBER orders releases: MAJOR * 10000 +
 * MINOR * 100 + PATCH.
 */
#define NQ_VERSION_MAJOR 0
#define NQ_VERSION_MINOR 1
#define NQ_VERSION_PATCH 0
#define NQ_VERSION_NUMBER (NQ_VERSION_MAJOR * 10000 + NQ_VERSION_MINOR * 100 + NQ_VERSION_PATCH)

#include <stddef.h>
#include <stdint.h>

/*
 * The cancel flag's type.  In C it is atomic_int, so C callers pass an
 * `atomic_int *` as they always have.  C++ before C++23 has no <stdatomic.h>
 * (and no _Atomic), so there it is std::atomic<int>: GCC, Clang and MSVC lay
 * it out as C's atomic_int (one lock-free int), and C++23's <stdatomic.h>
 * makes the two the same type.
 */
#ifdef __cplusplus
#include <atomic>
typedef std::atomic<int> nq_cancel_flag;
#else
#include <stdatomic.h>
typedef atomic_int nq_cancel_flag;
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(NQ_BUILDING_LIBRARY) && defined(__GNUC__)
#define NQ_API __attribute__((visibility("default")))
#else
#define NQ_API
#endif

/** Unsigned 128-bit integer used for every solution count. */
__extension__ typedef unsigned __int128 nq_u128;

#define NQ_MIN_N 1
#define NQ_MAX_N 32
/** Largest accepted thread count; more is treated as a mistake, not a wish. */
#define NQ_MAX_THREADS 4096
/** Largest accepted explicit split depth (rows expanded into subproblems). */
#define NQ_MAX_SPLIT_DEPTH 8

/** Error codes: all negative, so `ret < 0` tests for failure. */
enum nq_error {
    NQ_OK = 0,
    NQ_EINVAL_N = -1,          /**< n outside NQ_MIN_N..NQ_MAX_N */
    NQ_EINVAL_THREADS = -2,    /**< threads negative or above NQ_MAX_THREADS */
    NQ_EINVAL_ENGINE = -3,     /**< engine is not a known nq_engine value */
    NQ_EINVAL_SPLIT = -4,      /**< split_depth negative, above n or above NQ_MAX_SPLIT_DEPTH */
    NQ_EINVAL_ARG = -5,        /**< a NULL pointer or an out-of-range argument */
    NQ_ENOMEM = -6,            /**< an allocation failed */
    NQ_EIO = -7,               /**< the machine failed reading or writing a file
                                    (disk full, I/O error) */
    NQ_EJOURNAL_MISMATCH = -8, /**< the journal belongs to another run */
    NQ_EJOURNAL_CORRUPT = -9,  /**< the journal is damaged or is not a journal */
    NQ_ECANCELLED = -10,       /**< the run was stopped through settings.cancel */
    NQ_EUNSUPPORTED = -11,     /**< the engine does not support this request */
    NQ_ETOO_MANY = -12,        /**< a listing would exceed its limit */
    NQ_EJOURNAL_PATH = -13,    /**< the checkpoint path cannot hold a journal: no such
                                    folder, no permission, not a regular file, a
                                    dangling symbolic link, a name too long */
    NQ_EJOURNAL_BUSY = -14,    /**< another run has the journal open (it is locked) */
    NQ_EVERIFY = -15,          /**< settings.verify: a chunk counted twice gave two different
                                    counts (result->detail names the chunk, the threads and
                                    both counts) */
};

/** The counting engines. */
enum nq_engine {
    NQ_ENGINE_AUTO = 0, /**< the fastest engine for n and threads */
    NQ_ENGINE_PLAIN,    /**< textbook recursive search; the reference */
    NQ_ENGINE_MIRROR,   /**< subproblems + thread pool + left-right mirror symmetry */
    NQ_ENGINE_FULL,     /**< eightfold symmetry; also counts unique solutions */
    NQ_ENGINE_MITM,     /**< meet in the middle: joins quarter-board placements */
    NQ_ENGINE_COUNT_
};

/**
 * How the pool's threads share a run's chunks (see libnqueens(3)).  Every
 * schedule counts the same; they differ in speed and overhead.
 */
enum nq_schedule {
    NQ_SCHEDULE_DEFAULT = 0, /**< the library's choice (today NQ_SCHEDULE_DYNAMIC) */
    NQ_SCHEDULE_TASKS,       /**< one OpenMP task per chunk, per-thread reduction */
    NQ_SCHEDULE_DYNAMIC,     /**< a loop, schedule(dynamic, 1): a free thread takes the next chunk */
    NQ_SCHEDULE_GUIDED,      /**< a loop, schedule(guided, 1): shrinking blocks of chunks */
    NQ_SCHEDULE_STATIC,      /**< a loop, schedule(static): one fixed block of chunks per thread */
    NQ_SCHEDULE_COUNT_
};

/** Sums produced by solving one or more units. */
typedef struct nq_counts {
    nq_u128 total;  /**< solutions, symmetry weights applied */
    nq_u128 unique; /**< classes under the 8 board symmetries (engine full only) */
} nq_counts;

/** Snapshot handed to the progress callback. */
typedef struct nq_progress {
    uint64_t units_done;  /**< units finished, including those resumed from a journal */
    uint64_t units_total; /**< units in the whole run */
    uint64_t units_resumed; /**< units taken from the journal at start */
    double elapsed;       /**< seconds since this process started the run */
    double rate;          /**< units per second over this process's run */
    double eta;           /**< estimated seconds left, or -1 when unknown; by work
                               when work_fraction is known, else by units */
    int final;            /**< 1 on the last call of a run */
    /** The share of the run's work done (0..1, resumed units included):
     *  units weighted by the engine's relative cost estimate, which
     *  nq_count() makes when settings.estimate is set.  -1 when unknown
     *  (no estimate asked, a one-unit job, before the estimate). */
    double work_fraction;
    /** Solutions counted so far: the totals of the finished units, resumed
     *  ones included (a chunk settings.verify counts twice adds in once
     *  its two counts agree).  Never falls from one call to the next, and
     *  on the final call of a complete run it equals the result's total.
     *  Callers without a 128-bit integer read it with nq_u128_high() and
     *  nq_u128_low(). */
    nq_u128 total_done;
    /** Solutions per second counted by this process over its run so far
     *  (those resumed from a journal left out), as rate is for units. */
    double total_rate;
} nq_progress;

typedef void (*nq_progress_fn)(const nq_progress *progress, void *user);

/**
 * What a count is expected to take, handed to nq_settings.estimate before
 * the bulk of the work.  The engine's relative cost estimate of every unit
 * still to solve is calibrated by timing a sample of the run's chunks on
 * all the run's threads (wall time, so the machine's load counts): one
 * chunk from each of equal stretches of the chunk list, solved as the run
 * solves them and counted in the run (not solved again).  The scheduling
 * model spreads the calibrated costs of the chunks left over the threads
 * as the pool will.  When the sample's units outlast half a second, lower
 * bounds come first (at_least = 1), rising while they run, and the
 * calibrated figure when they finish.  Engines that say how far a unit is
 * (mitm from N = 24 on, whose units take up to many minutes) turn the
 * bounds into figures extrapolated from it (extrapolated = 1) as soon as
 * the units timed are a little way in.
 */
typedef struct nq_estimate {
    double seconds;          /**< expected wall time of the whole nq_count() call,
                                  planning and the sample included */
    int at_least;            /**< 1: seconds is only a lower bound (the sample is still
                                  running); 0: calibrated */
    enum nq_engine engine;   /**< the engine that runs */
    int threads;             /**< threads it runs on */
    uint64_t units;          /**< units left to solve (resumed ones excluded) */
    uint64_t sample_units;   /**< units timed (part of the run: their counts are kept) */
    double sample_seconds;   /**< wall time spent on the sample so far */
    double seconds_per_cost; /**< the calibration: wall seconds a thread takes per unit
                                  of the engine's relative cost estimate while all
                                  threads work (a lower bound when at_least) */
    int extrapolated;        /**< 1: seconds is extrapolated from how far the units
                                  timed are (at_least is 0), and the calibrated figure
                                  follows when they finish */
} nq_estimate;

typedef void (*nq_estimate_fn)(const nq_estimate *estimate, void *user);

/**
 * What to count and how.  Fill it with nq_default_settings() and then change
 * fields; new fields are added only at the end, with defaults that keep the
 * old behaviour.
 */
typedef struct nq_settings {
    int n;             /**< board size, 1..32 (default 8) */
    int threads;       /**< worker threads, 1..4096; 0 = OMP_NUM_THREADS when set (read by
                            the library: one integer 1..4096, anything else refused with
                            NQ_EINVAL_THREADS), else one per core */
    enum nq_engine engine; /**< default NQ_ENGINE_AUTO */
    int split_depth;   /**< rows expanded into subproblems; 0 = automatic */

    /** Optional progress reports, called from one thread at a time. */
    nq_progress_fn progress;
    void *progress_user;
    double progress_interval; /**< seconds between reports (default 0.25) */

    /** Optional checkpoint journal path: resumes what it holds, records the rest. */
    const char *checkpoint_path;
    double checkpoint_interval; /**< seconds between fsyncs of the journal (default 2) */

    /** Optional: set *cancel non-zero (a signal handler may) to stop the run promptly. */
    nq_cancel_flag *cancel;

    /** Optional: receives one line when a torn journal tail was discarded,
     *  or when the journal's file system offers no lock to take. */
    void (*notice)(const char *message, void *user);
    void *notice_user;

    /** Optional: the run's expected duration (see nq_estimate).  When set,
     *  nq_count() first solves a stratified sample of the chunks left after
     *  planning (about 2% of them, at least 8 and one per thread; past the
     *  first 8, none that would end past 2% of the expected time or two
     *  seconds, whichever is longer; once each thread has had one, none
     *  that would end past twenty seconds; none when one per thread would
     *  be over a quarter of the chunks),
     *  and calls it with the calibrated estimate, before that with rising
     *  lower bounds while the sample's units outlast half a second.  The
     *  sample is part of the run (its counts are kept, its chunks
     *  journalled), so it costs only the wait for its last chunk; it also
     *  weighs the progress by work (nq_progress.work_fraction).  Called one
     *  call at a time, as the progress callback (never beside it), not
     *  necessarily from the caller's thread, and always before nq_count()
     *  returns.  Unset (the default), nothing is sampled. */
    nq_estimate_fn estimate;
    void *estimate_user;

    /** How the threads share the chunks (default NQ_SCHEDULE_DEFAULT, which
     *  zeroed reserved words of an older program also mean). */
    enum nq_schedule schedule;
    int reserved_int_;

    /** Checked results: the fraction (0 < verify <= 1; 0, the default, is
     *  off) of the chunks that are counted a second time, on another
     *  thread where the run has more than one, and compared.  Which chunks
     *  is a hash of the chunk index seeded with the job's identity, so a
     *  resumed run checks the same ones; the journal records each chunk
     *  whose two counts agreed, and a resumed run counts again the sampled
     *  chunks it holds unchecked and compares with the journal.  Two counts
     *  that differ end the run with NQ_EVERIFY once the rest is counted
     *  (every chunk stays in the journal; the one that failed stays
     *  unchecked, so a rerun with the same verify counts it again). */
    double verify;

    /** Bytes of memory the count may plan its working memory for, per
     *  process (0, the default: the engine's standard sizes).  Only engine
     *  mitm past the quarter store (n >= 24) reads it: it joins half-boards
     *  in batches of 2^25 by default, and with `memory` set in the longest
     *  batches, 2^22 to 2^27, whose nq_mitm_memory_estimate_within() is at
     *  most `memory` (the shortest when none is).  Longer batches take
     *  about the same time (n = 28, whose lists already take what its
     *  slices leave: 0.98 at 2^27), shorter ones let a count fit on less
     *  memory.  It never changes what is counted, the job's identity or
     *  its journal. */
    uint64_t memory;

    uint64_t reserved_[3];
} nq_settings;

/** Outcome of nq_count(). */
typedef struct nq_result {
    nq_u128 total;        /**< all solutions */
    nq_u128 unique;       /**< fundamental solutions, valid when has_unique */
    int has_unique;
    uint64_t subproblems; /**< units solved (resumed ones included) */
    uint64_t units_resumed; /**< units taken from the checkpoint journal */
    double seconds;       /**< wall time of this call */
    enum nq_engine engine; /**< the engine that ran (auto resolved) */
    int threads;          /**< threads the pool used */
    int split_depth;      /**< split depth used (0 where the engine has none) */
    /** After a failed nq_count(): one line naming the problem when the
     *  settings (as nq_check_settings() words it) or the checkpoint journal
     *  were at fault (e.g. "journal 'run.j' is for N=14, this run is
     *  N=15"), else "".  Owned by the caller's result, so it is as
     *  thread-safe as the result itself. */
    char detail[256];
} nq_result;

/** Fills *s with the defaults (n = 8, automatic engine, threads and split);
 *  does nothing when s is NULL. */
NQ_API void nq_default_settings(nq_settings *s);

/**
 * Counts the solutions described by *s into *result.
 * Returns 0, or NQ_EINVAL_ARG when s or result is NULL (result is then
 * untouched), NQ_EINVAL_N / NQ_EINVAL_THREADS / NQ_EINVAL_ENGINE /
 * NQ_EINVAL_SPLIT / NQ_EINVAL_ARG / NQ_EUNSUPPORTED for bad settings (as
 * nq_check_settings() returns them), NQ_ENOMEM,
 * NQ_EJOURNAL_PATH / NQ_EJOURNAL_BUSY / NQ_EJOURNAL_MISMATCH /
 * NQ_EJOURNAL_CORRUPT for a journal that cannot be used (the file is then
 * left untouched; result->detail says why), NQ_EIO when the machine failed
 * (a journal that cannot be read or written, before or during the run: a
 * full disk, an I/O error; result->detail names the file and the
 * operation), NQ_ECANCELLED when *s->cancel was raised (the journal is
 * then flushed and fsynced), and NQ_EVERIFY when s->verify found a chunk
 * whose two counts differ (result->detail names it; the journal keeps
 * every finished chunk).
 *
 * With checkpoint_path: an existing journal for the same run is resumed
 * (result->units_resumed), a missing one is created before any work starts,
 * and a completed one returns its stored result at once.  The path must be
 * a regular file (or not exist), and the journal is locked for the call: a
 * second count on it, in this process or another, gets NQ_EJOURNAL_BUSY.  When split_depth
 * is 0 a resumed run takes the journal's engine (for NQ_ENGINE_AUTO) and
 * split depth, and a new journalled mirror run a split depth that depends
 * on n alone, so a journal can be resumed with any thread count (and by
 * nqueens-mpi with any number of ranks).
 * After NQ_ECANCELLED, result->subproblems and units_resumed tell how far the
 * run got (resumed units included); the counts are partial.
 */
NQ_API int nq_count(const nq_settings *s, nq_result *result);

/**
 * Checks settings without counting: the one check every front end runs.
 * Returns 0, or the error nq_count() would return for them:
 * NQ_EINVAL_N, NQ_EINVAL_THREADS, NQ_EINVAL_ENGINE, NQ_EINVAL_SPLIT,
 * NQ_EINVAL_ARG (NULL settings, a bad interval, an empty checkpoint path,
 * NQ_KERNEL naming no kernel level), or NQ_EUNSUPPORTED (the engine, auto
 * resolved, cannot count n; NQ_KERNEL naming a level this CPU cannot run:
 * see nq_kernel_name()).  Besides ranges it refuses what does not apply to
 * the engine that would run: a split depth for engines without one (plain,
 * mitm), and more than one thread for plain.  When detail is not NULL it
 * receives one line naming the setting, its value and what is allowed
 * (size bytes, NUL-terminated; "" on success), e.g. "split depth 9 is out of range:
 * allowed 1 to 8 (0 = automatic)"; size 0 writes nothing.
 */
NQ_API int nq_check_settings(const nq_settings *s, char *detail, size_t size);

/**
 * nq_check_settings() without the detail line.  Returns 0, NQ_EINVAL_N,
 * NQ_EINVAL_THREADS, NQ_EINVAL_ENGINE, NQ_EINVAL_SPLIT, NQ_EINVAL_ARG or
 * NQ_EUNSUPPORTED, as it does.
 */
NQ_API int nq_validate_settings(const nq_settings *s);

/** Text for an error code; never NULL (a code that is none gets a text
 *  saying so). */
NQ_API const char *nq_strerror(int code);

/** Engine name ("auto", "plain", "mirror", "full", "mitm"), or NULL if out of range. */
NQ_API const char *nq_engine_name(enum nq_engine engine);

/**
 * Looks an engine up by name.  Returns 0 and sets *engine,
 * NQ_EINVAL_ENGINE for a name that is no engine's, or NQ_EINVAL_ARG when
 * name or engine is NULL.
 */
NQ_API int nq_engine_from_name(const char *name, enum nq_engine *engine);

/** The engine that NQ_ENGINE_AUTO picks for n and threads (0 = default).
 *  Never fails: for an n outside 1..32 it names an engine that nq_count()
 *  then refuses the n with (NQ_EINVAL_N); threads does not change the
 *  choice. */
NQ_API enum nq_engine nq_auto_engine(int n, int threads);

/** 1 when the engine reports unique counts, else 0 (also for an engine out
 *  of range, or not built). */
NQ_API int nq_engine_has_unique(enum nq_engine engine);

/** Schedule name ("default", "tasks", "dynamic", "guided", "static"), or NULL if out of range. */
NQ_API const char *nq_schedule_name(enum nq_schedule schedule);

/** Looks a schedule up by name.  Returns 0 and sets *schedule, or
 *  NQ_EINVAL_ARG for a name that is no schedule's or a NULL name or
 *  schedule (*schedule is then untouched). */
NQ_API int nq_schedule_from_name(const char *name, enum nq_schedule *schedule);

/** Library version, "MAJOR.MINOR.PATCH". */
NQ_API const char *nq_version(void);

/** The kernel level this process counts with: "avx512icl", "avx512",
 *  "avx2" or "portable" -- the best that this CPU and its operating system
 *  run, or the one the environment variable NQ_KERNEL names.  NULL when NQ_KERNEL
 *  names no level, or one this CPU cannot run: nq_check_settings() then
 *  refuses every run, saying why. */
NQ_API const char *nq_kernel_name(void);

/**
 * Writes v in decimal into buf (at least 40 bytes for any value) and
 * returns buf.  Returns NULL, writing nothing, when buf is NULL or size is
 * too small.
 */
NQ_API char *nq_u128_to_string(nq_u128 v, char *buf, size_t size);

/*
 * nq_u128 for callers that cannot hold one: other languages through a
 * foreign-function interface (ctypes, cffi, Go's cgo), which read a
 * result's counts as 16 opaque bytes.  Each takes the count by address,
 * never by value, since a 128-bit argument has no portable calling
 * convention.
 */

/** The high 64 bits of *v (0 for every count below 2^64); 0 when v is NULL. */
NQ_API uint64_t nq_u128_high(const nq_u128 *v);

/** The low 64 bits of *v; 0 when v is NULL. */
NQ_API uint64_t nq_u128_low(const nq_u128 *v);

/**
 * nq_u128_to_string() of *v: writes it in decimal into buf (40 bytes hold
 * any value) and returns buf, or NULL when v or buf is NULL or size is too
 * small.
 */
NQ_API char *nq_u128_decimal(const nq_u128 *v, char *buf, size_t size);

/* ---- Jobs: the indexed unit list, for MPI, profiling and custom drivers ---- */

/** An opaque planned run: the engine's subproblem list and shared tables. */
typedef struct nq_job nq_job;

/**
 * Plans a run: validates *s, resolves the engine and split depth, and builds
 * the unit list.  Returns 0 and sets *job; or NQ_EINVAL_ARG when job is
 * NULL; or, with *job set to NULL, the code nq_check_settings() gives for
 * settings it refuses (NQ_EINVAL_N, NQ_EINVAL_THREADS, NQ_EINVAL_ENGINE,
 * NQ_EINVAL_SPLIT, NQ_EINVAL_ARG, NQ_EUNSUPPORTED), or NQ_ENOMEM.  The
 * journal, progress and cancel fields are ignored here.
 */
NQ_API int nq_job_create(nq_job **job, const nq_settings *s);

/** Frees a job and sets *job to NULL; accepts NULL (and a pointer to
 *  NULL). */
NQ_API void nq_job_free(nq_job **job);

/** Number of units in the job; 0 for a NULL job. */
NQ_API uint64_t nq_job_units(const nq_job *job);

/** Engine the job runs (never NQ_ENGINE_AUTO); NQ_ENGINE_AUTO for a NULL
 *  job. */
NQ_API enum nq_engine nq_job_engine(const nq_job *job);

/** Split depth the job uses (0 where the engine has none, and for a NULL
 *  job). */
NQ_API int nq_job_split_depth(const nq_job *job);

/**
 * A 64-bit identity of the job: engine, n, split depth and the exact unit
 * list.  Two jobs with the same identity solve the same units in the same
 * order, which is what a journal or an MPI peer must agree on.  0 for a
 * NULL job.
 */
NQ_API uint64_t nq_job_identity(const nq_job *job);

/**
 * Solves units [first, first + count) with the pool on `threads`
 * threads (0 = the default, as nq_settings.threads), sharing them by the
 * schedule of the settings the job was created with, and adds their counts
 * to *sum.  Returns 0; NQ_EINVAL_ARG for a NULL job or sum or a range
 * outside the job; NQ_EINVAL_THREADS for a thread count outside 0..4096
 * (or 0 with an OMP_NUM_THREADS that is no thread count); NQ_ENOMEM when
 * the threads' working memory cannot be had; or NQ_ECANCELLED if *cancel
 * (may be NULL) was raised.  On an error *sum holds nothing of this call.
 */
NQ_API int nq_job_solve(nq_job *job, uint64_t first, uint64_t count, int threads,
                        nq_cancel_flag *cancel, nq_counts *sum);

/**
 * Solves one unit on the calling thread (no pool) and stores its counts in
 * *out.  Thread-safe: several threads may call it on one job at once.
 * Allocates (and frees) the engine's working memory on every call, which
 * for mitm is megabytes: a loop over units should use an nq_solver.
 * Returns 0, NQ_EINVAL_ARG (a NULL job or out, or a unit past the job's
 * last) or NQ_ENOMEM (the engine's working memory cannot be had).
 */
NQ_API int nq_job_solve_unit(nq_job *job, uint64_t unit, nq_counts *out);

/**
 * One thread's solver of a job's units: the engine's working memory,
 * allocated once and kept from unit to unit (an engine may reuse in it
 * what one unit built for the next), so solving a unit allocates nothing.
 * A solver belongs to one thread at a time; give each thread its own.
 * The job must outlive it.
 */
typedef struct nq_solver nq_solver;

/** Creates a solver for job.  Returns 0 and sets *solver, or
 *  NQ_EINVAL_ARG (solver or job NULL; *solver, when it can be, is set
 *  to NULL) / NQ_ENOMEM. */
NQ_API int nq_solver_create(nq_solver **solver, nq_job *job);

/** Solves unit `unit` of the solver's job into *out.  Returns 0, or
 *  NQ_EINVAL_ARG for a NULL solver or out or a unit past the job's last;
 *  never allocates. */
NQ_API int nq_solver_solve(nq_solver *solver, uint64_t unit, nq_counts *out);

/** Frees a solver and sets *solver to NULL; accepts NULL. */
NQ_API void nq_solver_free(nq_solver **solver);

/* ---- Meet in the middle: what a unit counts, and memory ---- */

/**
 * What one unit of a `mitm` job counts, for audits.  The rows the four
 * quarters cover are numbered for `east`: bit i (i < h = n / 2) is board
 * row i, bit h + i is board row n - h + i; a set bit means that row's queen
 * stands in the east half (columns n - h .. n - 1), a clear one in the
 * west half (columns 0 .. h - 1).  For odd n (m = n / 2) the queen of the
 * middle column stands in row m + b and the queen of the middle row in
 * column m + a, for every a in a_first .. a_last; a = b = 0 is one queen in
 * the centre; for even n all three are 0.  The unit's count is weight
 * times the sum, over those solutions, of 1 for odd n, and for even n of
 * c: with rank(X) = min(X, X ^ (2^h - 1)) for a set X of h bits and rev(X)
 * X's h bits reversed, the unit's floor is min(rank(P), rank(rev(Q))) for
 * P = east's low h bits and Q = its high h bits; a solution's a is
 * rank(rev(NE)) and b is rank(NW), where NE holds bit c - h for each queen
 * of rows 0 .. h - 1 in a column c >= h and NW bit c for each one in a
 * column c < h; c is 2 when min(a, b) exceeds the floor, 1 when it equals
 * it, 0 when it is below.
 */
typedef struct nq_mitm_unit {
    int a_first, a_last, b;
    uint32_t east;
    uint32_t weight;
} nq_mitm_unit;

/**
 * Describes unit `unit` of a mitm job.  Returns 0, NQ_EINVAL_ARG for a
 * NULL job or out, a unit past the job's last or a job of another engine,
 * or NQ_EUNSUPPORTED when the job counts
 * its board in one unit by a trivial search (n < 4).
 */
NQ_API int nq_mitm_describe_unit(const nq_job *job, uint64_t unit, nq_mitm_unit *out);

/**
 * Estimated peak bytes of a mitm count of n on `threads` threads: the
 * quarter store (n <= 23), the unit tables and each thread's working
 * memory.  0 when mitm cannot count n (n outside 1..28); a thread count
 * below 1 counts as 1 (there is no error to return: callers keep threads
 * to 1..NQ_MAX_THREADS, as the rest of the library does).
 */
NQ_API size_t nq_mitm_memory_estimate(int n, int threads);

/**
 * nq_mitm_memory_estimate() for a count whose settings' `memory` is
 * `memory`: the estimate at the batch length that budget gives (see
 * nq_settings.memory), at most `memory` unless even the shortest batches
 * pass it.  memory 0 gives nq_mitm_memory_estimate(n, threads); so does
 * any memory for n below 24, whose working memory does not depend on it.
 * 0 when mitm cannot count n.  No errors, as nq_mitm_memory_estimate().
 */
NQ_API size_t nq_mitm_memory_estimate_within(int n, int threads, uint64_t memory);

/* ---- Listing solutions ---- */

/** Called once per solution with cols[row] = column of the queen in that row. */
typedef int (*nq_solution_fn)(const int *cols, int n, void *user);

/**
 * Calls fn for every solution of the n x n board in lexicographic order of
 * columns, stopping after `limit` solutions (0 = no limit) or when fn
 * returns non-zero.  Stores the number of calls in *emitted (may be NULL).
 * Returns 0, NQ_EINVAL_N for an n outside 1..32 or NQ_EINVAL_ARG for a
 * NULL fn (then *emitted is 0).
 */
NQ_API int nq_list_solutions(int n, uint64_t limit, nq_solution_fn fn, void *user,
                             uint64_t *emitted);

#ifdef __cplusplus
}
#endif

#endif /* NQUEENS_NQUEENS_H */
