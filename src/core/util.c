/*
 * util.c - the thread count, the clock, the identity hash, the growing
 * array and decimal counts (see util.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "nqueens/nqueens.h"

#ifdef _OPENMP
#include <omp.h>
#endif

int nq_env_threads(const char **raw)
{
    const char *env = getenv("OMP_NUM_THREADS");
    if (raw)
        *raw = env;
    if (!env || !*env)
        return 0;
    long count = 0;
    for (const char *p = env; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        count = count * 10 + (*p - '0');
        if (count > NQ_MAX_THREADS)
            return -1;
    }
    return count >= 1 ? (int)count : -1;
}

int nq_resolve_threads(int threads)
{
    if (threads > 0)
        return threads;
    const int env = nq_env_threads(NULL);
    if (env != 0)
        return env;
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

int nq_local_threads(int threads)
{
    if (threads < 1)
        threads = 1;
#ifdef _OPENMP
    /* Below 1 when OMP_NUM_THREADS is out of the runtime's range. */
    const int own = omp_get_max_threads();
    if (own >= 1 && own < threads)
        return own;
#endif
    return threads;
}

char *nq_decimal(nq_u128 v, char *buf, size_t size)
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

double nq_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double nq_thread_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void nq_one_line(char *text)
{
    for (unsigned char *p = (unsigned char *)text; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
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

void nq_array_push(nq_array *a, const void *item, size_t size, size_t first)
{
    if (a->failed)
        return;
    if (a->count == a->cap) {
        const size_t grown = a->cap ? 2 * a->cap : first;
        void *more = grown > a->cap && grown <= SIZE_MAX / size ? realloc(a->items, grown * size)
                                                                : NULL;
        if (!more) {
            a->failed = 1;
            return;
        }
        a->items = more;
        a->cap = grown;
    }
    memcpy((char *)a->items + a->count++ * size, item, size);
}
