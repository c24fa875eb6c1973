/*
 * settings.c - the default settings, and the one check every front end
 * runs on them (nq_check_settings): ranges, and whether each option
 * applies to the engine that will run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/registry.h"
#include "core/kernel.h"

void nq_default_settings(nq_settings *s)
{
    if (!s) /* no error to return: nothing to fill */
        return;
    memset(s, 0, sizeof *s);
    s->n = 8;
    s->threads = 0;
    s->engine = NQ_ENGINE_AUTO;
    s->split_depth = 0;
    s->progress_interval = 0.25;
    s->checkpoint_interval = 2.0;
    s->schedule = NQ_SCHEDULE_DEFAULT;
}

static const char *const schedule_names[NQ_SCHEDULE_COUNT_] = {
    [NQ_SCHEDULE_DEFAULT] = "default", [NQ_SCHEDULE_TASKS] = "tasks",
    [NQ_SCHEDULE_DYNAMIC] = "dynamic", [NQ_SCHEDULE_GUIDED] = "guided",
    [NQ_SCHEDULE_STATIC] = "static",
};

const char *nq_schedule_name(enum nq_schedule schedule)
{
    if ((int)schedule < 0 || schedule >= NQ_SCHEDULE_COUNT_)
        return NULL;
    return schedule_names[schedule];
}

int nq_schedule_from_name(const char *name, enum nq_schedule *schedule)
{
    for (int i = 0; name && schedule && i < NQ_SCHEDULE_COUNT_; i++)
        if (strcmp(name, schedule_names[i]) == 0) {
            *schedule = (enum nq_schedule)i;
            return 0;
        }
    return NQ_EINVAL_ARG;
}

/* Writes a printf-style line into detail (when there is room) and returns
 * code.  The line stays one line whatever the environment held. */
static int refuse(char *detail, size_t size, int code, const char *fmt, ...)
{
    if (detail && size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, size, fmt, ap);
        va_end(ap);
        nq_one_line(detail);
    }
    return code;
}

/* The engine and split depth checks, once n, threads and engine are in
 * range: whether the engine (auto resolved) can count n and takes the
 * split depth and thread count asked for. */
static int check_engine(const nq_settings *s, char *detail, size_t size)
{
    const enum nq_engine engine =
        s->engine == NQ_ENGINE_AUTO ? nq_auto_engine(s->n, s->threads) : s->engine;
    const struct nq_engine_ops *ops = nq_engine_ops_for(engine);
    const char *picked = s->engine == NQ_ENGINE_AUTO ? " (which auto picks for this N)" : "";
    if (!ops)
        return refuse(detail, size, NQ_EINVAL_ENGINE, "engine %d is not built into this library",
                      (int)engine);
    if (s->n > nq_engine_max_n(engine))
        return refuse(detail, size, NQ_EUNSUPPORTED,
                      "engine %s cannot count N=%d: it counts boards up to N=%d", ops->name, s->n,
                      nq_engine_max_n(engine));
    if (s->split_depth > 0 && !ops->has_split)
        return refuse(detail, size, NQ_EINVAL_SPLIT,
                      "split depth %d does not apply to engine %s%s: only mirror and full "
                      "expand rows into subproblems", s->split_depth, ops->name, picked);
    if (s->threads > 1 && engine == NQ_ENGINE_PLAIN)
        return refuse(detail, size, NQ_EINVAL_THREADS,
                      "thread count %d does not apply to engine plain: it runs on one thread",
                      s->threads);
    return 0;
}

int nq_check_settings(const nq_settings *s, char *detail, size_t size)
{
    if (detail && size)
        detail[0] = '\0';
    if (!s)
        return refuse(detail, size, NQ_EINVAL_ARG, "no settings given");
    if (s->n < NQ_MIN_N || s->n > NQ_MAX_N)
        return refuse(detail, size, NQ_EINVAL_N, "board size N=%d is out of range: allowed %d to %d",
                      s->n, NQ_MIN_N, NQ_MAX_N);
    if (s->threads < 0 || s->threads > NQ_MAX_THREADS)
        return refuse(detail, size, NQ_EINVAL_THREADS,
                      "thread count %d is out of range: allowed 1 to %d (0 = default)",
                      s->threads, NQ_MAX_THREADS);
    const char *env = NULL;
    if (s->threads == 0 && nq_env_threads(&env) < 0)
        /* Named as given: no setting holds the bad value, and the OpenMP
         * runtime's own reading of it (a wrapped 2^32, the first item of a
         * list) is not what the user wrote. */
        return refuse(detail, size, NQ_EINVAL_THREADS,
                      "OMP_NUM_THREADS='%.64s%s' is not a thread count: expected one integer "
                      "from 1 to %d", env, strlen(env) > 64 ? "..." : "", NQ_MAX_THREADS);
    if (s->threads == 0 && nq_resolve_threads(0) > NQ_MAX_THREADS) {
        /* The default comes from the core count: say so, since no setting
         * holds the bad value. */
        return refuse(detail, size, NQ_EINVAL_THREADS,
                      "the default thread count %d (one per core) is out of range: allowed 1 "
                      "to %d; set a thread count", nq_resolve_threads(0), NQ_MAX_THREADS);
    }
    const int level = nq_kernel_level();
    if (level < 0) {
        /* Named as given, like OMP_NUM_THREADS: no setting holds it. */
        const char *kernel = getenv("NQ_KERNEL");
        return refuse(detail, size, level,
                      level == NQ_EUNSUPPORTED
                          ? "NQ_KERNEL='%.64s%s': this CPU or build cannot run that kernel level"
                          : "NQ_KERNEL='%.64s%s' is not a kernel level: expected portable, avx2 "
                            "or avx512",
                      kernel, strlen(kernel) > 64 ? "..." : "");
    }
    if ((int)s->engine < 0 || s->engine >= NQ_ENGINE_COUNT_)
        return refuse(detail, size, NQ_EINVAL_ENGINE, "engine %d is not a known engine",
                      (int)s->engine);
    if ((int)s->schedule < 0 || s->schedule >= NQ_SCHEDULE_COUNT_)
        return refuse(detail, size, NQ_EINVAL_ARG, "schedule %d is not a known schedule",
                      (int)s->schedule);
    if (s->split_depth < 0 || s->split_depth > NQ_MAX_SPLIT_DEPTH)
        return refuse(detail, size, NQ_EINVAL_SPLIT,
                      "split depth %d is out of range: allowed 1 to %d (0 = automatic)",
                      s->split_depth, NQ_MAX_SPLIT_DEPTH);
    if (s->split_depth > s->n)
        return refuse(detail, size, NQ_EINVAL_SPLIT, "split depth %d exceeds the board size N=%d",
                      s->split_depth, s->n);
    if (s->progress && !(s->progress_interval >= 0))
        return refuse(detail, size, NQ_EINVAL_ARG,
                      "progress interval %g is not a number of seconds >= 0",
                      s->progress_interval);
    if (s->checkpoint_path && !*s->checkpoint_path)
        return refuse(detail, size, NQ_EINVAL_ARG, "checkpoint path is empty");
    if (s->checkpoint_path && !(s->checkpoint_interval > 0))
        return refuse(detail, size, NQ_EINVAL_ARG,
                      "checkpoint interval %g is not a number of seconds > 0",
                      s->checkpoint_interval);
    if (!(s->verify >= 0 && s->verify <= 1))
        return refuse(detail, size, NQ_EINVAL_ARG,
                      "verify fraction %g is out of range: allowed more than 0, at most 1 "
                      "(0 = off)", s->verify);
    return check_engine(s, detail, size);
}

/* nq_settings may grow only into its reserved words, so that a program
 * built against an older header still passes one the library can fill. */
_Static_assert(sizeof(void *) != 8 || sizeof(nq_settings) == 144,
               "nq_settings changed size: take new fields from reserved_");

int nq_validate_settings(const nq_settings *s)
{
    return nq_check_settings(s, NULL, 0);
}
