/*
 * verify.c - the sample of chunks counted twice and the comparison of
 * their counts (see verify.h).
 *
 * Each chunk has a state: not sampled, sampled and waiting for its first
 * count, waiting for its second, checked, or failed.  Only sampled chunks
 * ever take the mutex, so a run without a large sample pays nothing per
 * chunk but one flag lookup.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "run/verify.h"

enum verify_state { V_OFF = 0, V_FIRST, V_SECOND, V_CHECKED, V_FAILED };

struct nq_verify {
    uint64_t chunks, sampled;
    nq_journal *journal;
    unsigned char *in_sample; /* per chunk; fixed at creation, read without the lock */
    pthread_mutex_t lock;  /* guards everything below */
    unsigned char *state;  /* enum verify_state per chunk */
    nq_counts *first;      /* the first count of each sampled chunk */
    int *solver;           /* who made it; -1: the journal */
    uint64_t checked;
    int failed;            /* the first disagreement: */
    uint64_t bad_chunk;
    nq_counts bad_first, bad_second;
    int bad_first_solver, bad_second_solver;
};

/* SplitMix64's finaliser: every input bit moves every output bit, so
 * consecutive chunk indices land all over the range. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

static uint64_t chunk_hash(uint64_t seed, uint64_t c)
{
    return mix(seed ^ mix(c + UINT64_C(0x9e3779b97f4a7c15)));
}

int nq_verify_create(nq_verify **out, double fraction, uint64_t seed, uint64_t chunks,
                     nq_journal *journal)
{
    *out = NULL;
    nq_verify *v = calloc(1, sizeof *v);
    if (!v)
        return NQ_ENOMEM;
    const size_t n = chunks ? (size_t)chunks : 1;
    v->chunks = chunks;
    v->journal = journal;
    v->state = calloc(n, 1);
    v->in_sample = calloc(n, 1);
    v->first = calloc(n, sizeof *v->first);
    v->solver = calloc(n, sizeof *v->solver);
    pthread_mutex_init(&v->lock, NULL);
    if (!v->state || !v->in_sample || !v->first || !v->solver) {
        nq_verify_free(&v);
        return NQ_ENOMEM;
    }
    /* Chunk c is sampled when its hash falls below fraction of the range;
     * 2^64 as a double is exact, and a fraction of 1 takes every chunk. */
    const int all = fraction >= 1;
    const uint64_t below = all ? 0 : (uint64_t)(fraction * 18446744073709551616.0);
    uint64_t lowest = UINT64_MAX, lowest_chunk = 0;
    for (uint64_t c = 0; c < chunks; c++) {
        const uint64_t h = chunk_hash(seed, c);
        if (all || h < below) {
            v->state[c] = V_FIRST;
            v->sampled++;
        }
        if (h < lowest) {
            lowest = h;
            lowest_chunk = c;
        }
    }
    /* A small run with a small fraction still checks one chunk. */
    if (chunks && !v->sampled) {
        v->state[lowest_chunk] = V_FIRST;
        v->sampled = 1;
    }
    for (uint64_t c = 0; c < chunks; c++)
        v->in_sample[c] = v->state[c] != V_OFF;
    if (journal) {
        const unsigned char *done = nq_journal_done(journal);
        const unsigned char *verified = nq_journal_verified(journal);
        for (uint64_t c = 0; c < chunks; c++) {
            if (v->state[c] != V_FIRST || !done[c])
                continue;
            if (verified[c]) {
                v->state[c] = V_CHECKED;
                v->checked++;
            } else {
                v->state[c] = V_SECOND;
                v->first[c] = nq_journal_chunk_counts(journal, c);
                v->solver[c] = -1;
            }
        }
    }
    *out = v;
    return 0;
}

void nq_verify_free(nq_verify **vp)
{
    if (!vp || !*vp)
        return;
    nq_verify *v = *vp;
    pthread_mutex_destroy(&v->lock);
    free(v->state);
    free(v->in_sample);
    free(v->first);
    free(v->solver);
    free(v);
    *vp = NULL;
}

int nq_verify_sampled(const nq_verify *v, uint64_t c)
{
    return c < v->chunks && v->in_sample[c];
}

uint64_t nq_verify_sample_size(const nq_verify *v)
{
    return v->sampled;
}

int nq_verify_first(nq_verify *v, uint64_t c, const nq_counts *counts, int solver)
{
    if (!nq_verify_sampled(v, c))
        return 0;
    pthread_mutex_lock(&v->lock);
    const int state = v->state[c];
    if (state == V_FIRST) {
        v->state[c] = V_SECOND;
        v->first[c] = *counts;
        v->solver[c] = solver;
    }
    pthread_mutex_unlock(&v->lock);
    if (state == V_SECOND && nq_verify_first_solver(v, c) != solver)
        return nq_verify_second(v, c, counts, solver);
    return 0;
}

int nq_verify_pending(nq_verify *v, uint64_t c)
{
    if (!nq_verify_sampled(v, c))
        return 0;
    pthread_mutex_lock(&v->lock);
    const int pending = v->state[c] == V_SECOND;
    pthread_mutex_unlock(&v->lock);
    return pending;
}

int nq_verify_first_solver(nq_verify *v, uint64_t c)
{
    pthread_mutex_lock(&v->lock);
    const int solver = v->solver[c];
    pthread_mutex_unlock(&v->lock);
    return solver;
}

int nq_verify_second(nq_verify *v, uint64_t c, const nq_counts *counts, int solver)
{
    if (!nq_verify_sampled(v, c))
        return 0;
    pthread_mutex_lock(&v->lock);
    int ret = 0;
    if (v->state[c] == V_SECOND) {
        const nq_counts *a = &v->first[c];
        if (a->total == counts->total && a->unique == counts->unique) {
            v->state[c] = V_CHECKED;
            v->checked++;
            ret = 1;
        } else {
            v->state[c] = V_FAILED;
            ret = NQ_EVERIFY;
            if (!v->failed) {
                v->failed = 1;
                v->bad_chunk = c;
                v->bad_first = *a;
                v->bad_second = *counts;
                v->bad_first_solver = v->solver[c];
                v->bad_second_solver = solver;
            }
        }
    }
    pthread_mutex_unlock(&v->lock);
    return ret;
}

uint64_t nq_verify_checked(nq_verify *v)
{
    pthread_mutex_lock(&v->lock);
    const uint64_t checked = v->checked;
    pthread_mutex_unlock(&v->lock);
    return checked;
}

/* v in decimal into buf (40 bytes hold any 128-bit value); the run layer
 * keeps to itself rather than call the API's formatter. */
static void decimal(nq_u128 v, char *buf, size_t size)
{
    char rev[40];
    size_t len = 0;
    do {
        rev[len++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v && len < sizeof rev);
    size_t i = 0;
    for (; i < len && i + 1 < size; i++)
        buf[i] = rev[len - 1 - i];
    buf[i] = '\0';
}

/* "thread 3" or "the journal" into buf. */
static const char *who(char *buf, size_t size, const char *word, int solver)
{
    if (solver < 0)
        snprintf(buf, size, "the journal");
    else
        snprintf(buf, size, "%s %d", word, solver);
    return buf;
}

int nq_verify_failure(nq_verify *v, const char *word, char *detail, size_t size)
{
    pthread_mutex_lock(&v->lock);
    const int failed = v->failed;
    if (failed && detail && size) {
        char a[32], b[32], ta[48], tb[48];
        decimal(v->bad_first.total, ta, sizeof ta);
        decimal(v->bad_second.total, tb, sizeof tb);
        char ua[48] = "", ub[48] = "";
        if (v->bad_first.unique != v->bad_second.unique) {
            decimal(v->bad_first.unique, ua + 1, sizeof ua - 1);
            decimal(v->bad_second.unique, ub + 1, sizeof ub - 1);
            ua[0] = ub[0] = '/';
        }
        snprintf(detail, size, "verify: chunk %llu was counted twice and the counts differ: "
                 "%s%s by %s, %s%s by %s (the journal, if any, keeps every finished chunk, "
                 "this one unchecked)",
                 (unsigned long long)v->bad_chunk, ta, ua,
                 who(a, sizeof a, word, v->bad_first_solver), tb, ub,
                 who(b, sizeof b, word, v->bad_second_solver));
    }
    pthread_mutex_unlock(&v->lock);
    return failed ? NQ_EVERIFY : 0;
}
