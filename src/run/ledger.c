/*
 * ledger.c - the chunk bookkeeping of a run (see ledger.h).
 *
 * Chunks go out in index order from a cursor; chunks given back wait on a
 * stack and go out first, so a chunk lost with a stalled solver is redone
 * before the run moves on.  The units-done counter is atomic so that the
 * monitor can read it for progress without the mutex.
 */
#include <pthread.h>
#include <stdlib.h>

#include "run/ledger.h"

/* What a chunk is, as far as handing it out goes. */
enum chunk_state { CHUNK_WAITING = 0, CHUNK_OUT, CHUNK_FINISHED };

struct nq_ledger {
    uint64_t units, chunk_units, chunks;
    nq_journal *journal;
    unsigned char *resumed;  /* finished at the start; never changes */
    uint64_t units_resumed;
    nq_counts counts_resumed;
    atomic_uint_fast64_t units_done;

    pthread_mutex_t lock;    /* guards everything below */
    unsigned char *state;    /* enum chunk_state per chunk */
    uint64_t cursor;         /* next chunk never handed out */
    uint64_t *given_back;    /* stack of chunks to hand out again */
    uint64_t given_back_len;
    uint64_t finished;       /* chunks finished, resumed ones included */
    nq_counts counts;
    uint64_t *weight;        /* per chunk, of NQ_LEDGER_WORK in all; NULL until set */
    atomic_uint_fast64_t work_done; /* weights of the finished chunks */
    atomic_uint_fast64_t work_total; /* 0 until weights are set */
    int closed;
};

int nq_ledger_create(nq_ledger **out, uint64_t units, uint64_t chunk_units, nq_journal *journal)
{
    *out = NULL;
    nq_ledger *l = calloc(1, sizeof *l);
    if (!l)
        return NQ_ENOMEM;
    l->units = units;
    l->chunk_units = chunk_units ? chunk_units : 1;
    l->chunks = (units + l->chunk_units - 1) / l->chunk_units;
    l->journal = journal;
    const size_t flags = l->chunks ? (size_t)l->chunks : 1;
    l->resumed = calloc(flags, 1);
    l->state = calloc(flags, 1);
    l->given_back = malloc(flags * sizeof *l->given_back);
    pthread_mutex_init(&l->lock, NULL);
    if (!l->resumed || !l->state || !l->given_back) {
        nq_ledger_free(&l);
        return NQ_ENOMEM;
    }
    if (journal) {
        const unsigned char *done = nq_journal_done(journal);
        for (uint64_t c = 0; c < l->chunks; c++)
            if (done[c]) {
                l->resumed[c] = 1;
                l->state[c] = CHUNK_FINISHED;
                l->finished++;
            }
        l->counts = l->counts_resumed = nq_journal_resumed_counts(journal);
        l->units_resumed = nq_journal_resumed_units(journal);
    }
    atomic_init(&l->units_done, l->units_resumed);
    atomic_init(&l->work_done, 0);
    atomic_init(&l->work_total, 0);
    *out = l;
    return 0;
}

void nq_ledger_free(nq_ledger **lp)
{
    if (!lp || !*lp)
        return;
    nq_ledger *l = *lp;
    pthread_mutex_destroy(&l->lock);
    free(l->resumed);
    free(l->weight);
    free(l->state);
    free(l->given_back);
    free(l);
    *lp = NULL;
}

uint64_t nq_ledger_chunks(const nq_ledger *l)
{
    return l->chunks;
}

uint64_t nq_ledger_chunk_units(const nq_ledger *l)
{
    return l->chunk_units;
}

uint64_t nq_ledger_chunk_size(const nq_ledger *l, uint64_t c)
{
    const uint64_t begin = c * l->chunk_units;
    return l->units - begin < l->chunk_units ? l->units - begin : l->chunk_units;
}

const unsigned char *nq_ledger_resumed_flags(const nq_ledger *l)
{
    return l->resumed;
}

int nq_ledger_finished(nq_ledger *l, uint64_t c)
{
    if (c >= l->chunks)
        return 0;
    pthread_mutex_lock(&l->lock);
    const int done = l->state[c] == CHUNK_FINISHED;
    pthread_mutex_unlock(&l->lock);
    return done;
}

int nq_ledger_take(nq_ledger *l, uint64_t *chunk)
{
    int got = 0;
    pthread_mutex_lock(&l->lock);
    while (!l->closed && !got && l->given_back_len) {
        const uint64_t c = l->given_back[--l->given_back_len];
        if (l->state[c] == CHUNK_WAITING) { /* not finished meanwhile by its first solver */
            *chunk = c;
            got = 1;
        }
    }
    while (!l->closed && !got && l->cursor < l->chunks) {
        const uint64_t c = l->cursor++;
        if (l->state[c] == CHUNK_WAITING) {
            *chunk = c;
            got = 1;
        }
    }
    if (got)
        l->state[*chunk] = CHUNK_OUT;
    pthread_mutex_unlock(&l->lock);
    return got;
}

int nq_ledger_claim(nq_ledger *l, uint64_t c)
{
    int got = 0;
    pthread_mutex_lock(&l->lock);
    if (!l->closed && c < l->chunks && l->state[c] == CHUNK_WAITING) {
        l->state[c] = CHUNK_OUT;
        got = 1;
    }
    pthread_mutex_unlock(&l->lock);
    return got;
}

void nq_ledger_give_back(nq_ledger *l, uint64_t chunk)
{
    pthread_mutex_lock(&l->lock);
    if (chunk < l->chunks && l->state[chunk] == CHUNK_OUT) {
        l->state[chunk] = CHUNK_WAITING;
        l->given_back[l->given_back_len++] = chunk;
    }
    pthread_mutex_unlock(&l->lock);
}

void nq_ledger_close(nq_ledger *l)
{
    pthread_mutex_lock(&l->lock);
    l->closed = 1;
    pthread_mutex_unlock(&l->lock);
}

/* nq_ledger_finish() and nq_ledger_finish_checked(). */
static int finish(nq_ledger *l, uint64_t c, const nq_counts *counts, int checked)
{
    if (c >= l->chunks)
        return NQ_EINVAL_ARG;
    pthread_mutex_lock(&l->lock);
    const int first = l->state[c] != CHUNK_FINISHED;
    if (first) {
        l->state[c] = CHUNK_FINISHED;
        l->finished++;
        nq_counts_add(&l->counts, counts);
        /* Under the lock, so that weights set meanwhile count it once. */
        if (l->weight)
            atomic_fetch_add_explicit(&l->work_done, l->weight[c], memory_order_relaxed);
    }
    pthread_mutex_unlock(&l->lock);
    if (first)
        atomic_fetch_add_explicit(&l->units_done, nq_ledger_chunk_size(l, c),
                                  memory_order_relaxed);
    /* The journal buffers the record under its own lock; no I/O here.  It
     * records a checked chunk's flag once, whether or not it holds the
     * chunk already. */
    if (checked && l->journal)
        return nq_journal_record_verified(l->journal, c, counts);
    return first && l->journal ? nq_journal_record(l->journal, c, counts) : 0;
}

int nq_ledger_finish(nq_ledger *l, uint64_t c, const nq_counts *counts)
{
    return finish(l, c, counts, 0);
}

int nq_ledger_finish_checked(nq_ledger *l, uint64_t c, const nq_counts *counts)
{
    return finish(l, c, counts, 1);
}

nq_counts nq_ledger_counts(const nq_ledger *cl)
{
    nq_ledger *l = (nq_ledger *)cl; /* the lock is not the ledger's state */
    pthread_mutex_lock(&l->lock);
    nq_counts c = l->counts;
    pthread_mutex_unlock(&l->lock);
    return c;
}

nq_counts nq_ledger_counts_resumed(const nq_ledger *l)
{
    return l->counts_resumed;
}

uint64_t nq_ledger_units_done(const nq_ledger *l)
{
    return atomic_load_explicit(&((nq_ledger *)l)->units_done, memory_order_relaxed);
}

uint64_t nq_ledger_units_resumed(const nq_ledger *l)
{
    return l->units_resumed;
}

uint64_t nq_ledger_units(const nq_ledger *l)
{
    return l->units;
}

uint64_t nq_ledger_unassigned(nq_ledger *l)
{
    pthread_mutex_lock(&l->lock);
    const uint64_t left = l->closed ? 0 : l->chunks - l->cursor + l->given_back_len;
    pthread_mutex_unlock(&l->lock);
    return left;
}

int nq_ledger_complete(nq_ledger *l)
{
    pthread_mutex_lock(&l->lock);
    const int all = l->finished >= l->chunks;
    pthread_mutex_unlock(&l->lock);
    return all;
}

int nq_ledger_set_weights(nq_ledger *l, const double *costs)
{
    if (!costs || l->chunks == 0)
        return NQ_EINVAL_ARG;
    uint64_t *weight = malloc((size_t)l->chunks * sizeof *weight);
    double *sums = malloc((size_t)l->chunks * sizeof *sums);
    if (!weight || !sums) {
        free(weight);
        free(sums);
        return NQ_ENOMEM;
    }
    double all = 0;
    for (uint64_t c = 0; c < l->chunks; c++) {
        const uint64_t first = c * l->chunk_units, end = first + nq_ledger_chunk_size(l, c);
        sums[c] = 0;
        for (uint64_t u = first; u < end; u++)
            sums[c] += costs[u] > 0 ? costs[u] : 0;
        all += sums[c];
    }
    if (!(all > 0)) {
        free(weight);
        free(sums);
        return NQ_EINVAL_ARG;
    }
    uint64_t total = 0;
    for (uint64_t c = 0; c < l->chunks; c++) {
        /* At least 1, so that every chunk moves the fraction. */
        weight[c] = (uint64_t)(sums[c] / all * (double)NQ_LEDGER_WORK + 0.5);
        weight[c] += weight[c] == 0;
        total += weight[c];
    }
    free(sums);
    pthread_mutex_lock(&l->lock);
    uint64_t done = 0;
    for (uint64_t c = 0; c < l->chunks; c++)
        if (l->state[c] == CHUNK_FINISHED)
            done += weight[c];
    free(l->weight);
    l->weight = weight;
    atomic_store(&l->work_done, done);
    atomic_store(&l->work_total, total);
    pthread_mutex_unlock(&l->lock);
    return 0;
}

double nq_ledger_work_fraction(const nq_ledger *l)
{
    const uint64_t total = atomic_load(&((nq_ledger *)l)->work_total);
    if (!total)
        return -1;
    const uint64_t done = atomic_load(&((nq_ledger *)l)->work_done);
    return done >= total ? 1.0 : (double)done / (double)total;
}
