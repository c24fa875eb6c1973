/*
 * lib.c - settings, validation, error text, engine names and small helpers
 * shared by the rest of the library.
 */
#include <string.h>
#include <time.h>

#include "engines.h"
#include "job.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#ifndef NQ_VERSION_STRING
#define NQ_VERSION_STRING "0.0.0"
#endif

static const char *const engine_names[NQ_ENGINE_COUNT_] = {
    [NQ_ENGINE_AUTO] = "auto",     [NQ_ENGINE_PLAIN] = "plain", [NQ_ENGINE_MIRROR] = "mirror",
    [NQ_ENGINE_FULL] = "full",     [NQ_ENGINE_MITM] = "mitm",
};

void nq_default_settings(nq_settings *s)
{
    memset(s, 0, sizeof *s);
    s->n = 8;
    s->threads = 0;
    s->engine = NQ_ENGINE_AUTO;
    s->split_depth = 0;
    s->progress_interval = 0.25;
    s->checkpoint_interval = 2.0;
}

int nq_validate_settings(const nq_settings *s)
{
    if (!s)
        return NQ_EINVAL_ARG;
    if (s->n < NQ_MIN_N || s->n > NQ_MAX_N)
        return NQ_EINVAL_N;
    if (s->threads < 0 || s->threads > NQ_MAX_THREADS)
        return NQ_EINVAL_THREADS;
    if ((int)s->engine < 0 || s->engine >= NQ_ENGINE_COUNT_)
        return NQ_EINVAL_ENGINE;
    if (s->split_depth < 0 || s->split_depth > s->n || s->split_depth > NQ_MAX_SPLIT_DEPTH)
        return NQ_EINVAL_SPLIT;
    if (s->progress && !(s->progress_interval >= 0))
        return NQ_EINVAL_ARG;
    if (s->checkpoint_path && !(s->checkpoint_interval > 0))
        return NQ_EINVAL_ARG;
    return 0;
}

const char *nq_strerror(int code)
{
    switch (code) {
    case NQ_OK: return "success";
    case NQ_EINVAL_N: return "board size out of range (allowed: 1..32)";
    case NQ_EINVAL_THREADS: return "thread count out of range (allowed: 0..4096, 0 = default)";
    case NQ_EINVAL_ENGINE: return "unknown engine";
    case NQ_EINVAL_SPLIT: return "split depth out of range (allowed: 0..min(n, 8), 0 = automatic)";
    case NQ_EINVAL_ARG: return "invalid argument";
    case NQ_ENOMEM: return "out of memory";
    case NQ_EIO: return "input/output error";
    case NQ_EJOURNAL_MISMATCH: return "checkpoint journal belongs to a different run";
    case NQ_EJOURNAL_CORRUPT: return "checkpoint journal is damaged or not a journal";
    case NQ_ECANCELLED: return "run was cancelled";
    case NQ_EUNSUPPORTED: return "not supported by this engine";
    case NQ_ETOO_MANY: return "listing exceeds its limit";
    default: return "unknown error";
    }
}

const char *nq_engine_name(enum nq_engine engine)
{
    if ((int)engine < 0 || engine >= NQ_ENGINE_COUNT_)
        return NULL;
    return engine_names[engine];
}

int nq_engine_from_name(const char *name, enum nq_engine *engine)
{
    if (!name || !engine)
        return NQ_EINVAL_ARG;
    for (int e = 0; e < NQ_ENGINE_COUNT_; e++)
        if (!strcmp(name, engine_names[e])) {
            *engine = (enum nq_engine)e;
            return 0;
        }
    return NQ_EINVAL_ENGINE;
}

int nq_engine_has_unique(enum nq_engine engine)
{
    const struct nq_engine_ops *ops = nq_engine_ops_for(engine);
    return ops ? ops->has_unique : 0;
}

const char *nq_version(void)
{
    return NQ_VERSION_STRING;
}

char *nq_u128_to_string(nq_u128 v, char *buf, size_t size)
{
    char digits[40];
    size_t len = 0;
    do {
        digits[len++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    if (!buf || size < len + 1)
        return NULL;
    for (size_t i = 0; i < len; i++)
        buf[i] = digits[len - 1 - i];
    buf[len] = '\0';
    return buf;
}

int nq_resolve_threads(int threads)
{
    if (threads > 0)
        return threads;
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

double nq_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t nq_hash_bytes(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3); /* FNV-1a 64-bit prime */
    }
    return h;
}
