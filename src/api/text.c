/*
 * text.c - the text the library hands out: error messages, its version and
 * 128-bit counts in decimal.
 */
#include "core/util.h"
#include "nqueens/nqueens.h"

#ifndef NQ_VERSION_STRING
#define NQ_VERSION_STRING "0.0.0"
#endif

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
    case NQ_EJOURNAL_PATH: return "checkpoint path cannot hold a journal";
    case NQ_EJOURNAL_BUSY: return "checkpoint journal is in use by another run";
    case NQ_EVERIFY: return "a chunk counted twice gave two different counts";
    default: return "unknown error";
    }
}

const char *nq_version(void)
{
    return NQ_VERSION_STRING;
}

char *nq_u128_to_string(nq_u128 v, char *buf, size_t size)
{
    return nq_decimal(v, buf, size);
}

uint64_t nq_u128_high(const nq_u128 *v)
{
    return v ? (uint64_t)(*v >> 64) : 0;
}

uint64_t nq_u128_low(const nq_u128 *v)
{
    return v ? (uint64_t)*v : 0;
}

char *nq_u128_decimal(const nq_u128 *v, char *buf, size_t size)
{
    return v ? nq_u128_to_string(*v, buf, size) : NULL;
}
