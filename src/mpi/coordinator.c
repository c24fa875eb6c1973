/*
 * coordinator.c - rank 0 of nqueens-mpi (see coordinator.h).
 *
 * One mutex guards the dispenser cursor and the running totals; it is taken
 * once per chunk, by rank 0's compute threads and by the main thread when a
 * RESULT arrives, so it is never contended for long.  Like the workers, the
 * main thread polls and naps instead of blocking in MPI, so it stays
 * responsive to signals and leaves the cores to the compute threads.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "core/engine.h"
#include "journal/journal.h"
#include "mpi/coordinator.h"
#include "mpi/nap.h"
#include "mpi/protocol.h"
#include "mpi/team.h"


typedef struct coord {
    pthread_mutex_t lock;
    nq_job *job;
    uint64_t units, chunk_units, chunks;
    const unsigned char *skip; /* chunks already finished (journal), or NULL */
    uint64_t cursor;           /* next chunk the dispenser considers */
    int closed;                /* no more chunks go out (cancel or failure) */
    nq_counts sum;
    uint64_t units_done, chunks_done;
    atomic_int stop;           /* tells rank 0's own team to stop */
    nq_journal *journal;       /* optional */
    int journal_error;         /* first failed nq_journal_record(), else 0 */
} coord;

static uint64_t chunk_size(const coord *c, uint64_t chunk)
{
    uint64_t begin = chunk * c->chunk_units;
    return c->units - begin < c->chunk_units ? c->units - begin : c->chunk_units;
}

/* Next chunk to hand out, with c->lock held.  Returns 0 when none is left. */
static int dispense(coord *c, uint64_t *chunk)
{
    if (c->closed)
        return 0;
    while (c->cursor < c->chunks && c->skip && c->skip[c->cursor])
        c->cursor++;
    if (c->cursor >= c->chunks)
        return 0;
    *chunk = c->cursor++;
    return 1;
}

/* Adds a finished chunk, with c->lock held. */
static void record(coord *c, uint64_t chunk, const nq_counts *counts)
{
    nq_counts_add(&c->sum, counts);
    c->units_done += chunk_size(c, chunk);
    c->chunks_done++;
    if (c->journal) {
        int ret = nq_journal_record(c->journal, chunk, counts);
        if (ret < 0 && !c->journal_error)
            c->journal_error = ret;
    }
}

static int coord_take(void *user, uint64_t *chunk)
{
    coord *c = user;
    pthread_mutex_lock(&c->lock);
    int got = dispense(c, chunk);
    pthread_mutex_unlock(&c->lock);
    return got;
}

static void coord_done(void *user, uint64_t chunk, const nq_counts *counts)
{
    coord *c = user;
    pthread_mutex_lock(&c->lock);
    record(c, chunk, counts);
    pthread_mutex_unlock(&c->lock);
}

/* Answers a REQUEST from rank src with up to the chunks it wants. */
static void answer_request(coord *c, int src, uint64_t *assign)
{
    uint64_t want = 0;
    MPI_Recv(&want, 1, MPI_UINT64_T, src, NQ_MPI_TAG_REQUEST, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (want > NQ_MPI_MAX_ASSIGN)
        want = NQ_MPI_MAX_ASSIGN;
    int k = 0;
    pthread_mutex_lock(&c->lock);
    while ((uint64_t)k < want && dispense(c, &assign[k]))
        k++;
    pthread_mutex_unlock(&c->lock);
    MPI_Send(assign, k, MPI_UINT64_T, src, NQ_MPI_TAG_ASSIGN, MPI_COMM_WORLD);
}

/* Receives a RESULT message of `words` words from src and records it.
 * Returns 0 or NQ_ENOMEM. */
static int take_results(coord *c, int src, int words, uint64_t **buf, size_t *buf_words)
{
    if ((size_t)words > *buf_words) {
        uint64_t *grown = realloc(*buf, (size_t)words * sizeof **buf);
        if (!grown)
            return NQ_ENOMEM;
        *buf = grown;
        *buf_words = (size_t)words;
    }
    MPI_Recv(*buf, words, MPI_UINT64_T, src, NQ_MPI_TAG_RESULT, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    pthread_mutex_lock(&c->lock);
    for (int i = 0; i + NQ_MPI_RESULT_WORDS <= words; i += NQ_MPI_RESULT_WORDS) {
        nq_counts counts;
        uint64_t chunk = nq_mpi_unpack_counts(&(*buf)[i], &counts);
        if (chunk < c->chunks)
            record(c, chunk, &counts);
    }
    pthread_mutex_unlock(&c->lock);
    return 0;
}

/* Stops the run: no more chunks go out and every rank still working is
 * told to stop after its current unit. */
static void close_run(coord *c, atomic_int *stop, const unsigned char *gone, int ranks)
{
    pthread_mutex_lock(&c->lock);
    int was_closed = c->closed;
    c->closed = 1;
    pthread_mutex_unlock(&c->lock);
    if (was_closed)
        return;
    atomic_store(stop, 1);
    for (int r = 1; r < ranks; r++)
        if (!gone[r])
            MPI_Send(NULL, 0, MPI_UINT64_T, r, NQ_MPI_TAG_STOP, MPI_COMM_WORLD);
}

static void report_progress(const nq_mpi_coord_config *cfg, coord *c, uint64_t resumed,
                            double start, int final)
{
    nq_progress p;
    memset(&p, 0, sizeof p);
    pthread_mutex_lock(&c->lock);
    p.units_done = c->units_done;
    pthread_mutex_unlock(&c->lock);
    p.units_total = c->units;
    p.units_resumed = resumed;
    p.elapsed = nq_now() - start;
    p.rate = p.elapsed > 0 ? (double)(p.units_done - resumed) / p.elapsed : 0;
    p.eta = p.rate > 0 ? (double)(p.units_total - p.units_done) / p.rate : -1;
    p.final = final;
    cfg->progress(&p, cfg->progress_user);
}

int nq_mpi_coordinate(const nq_mpi_coord_config *cfg, nq_mpi_outcome *out)
{
    memset(out, 0, sizeof *out);
    const double start = nq_now();
    /* On the heap: when a rank is abandoned, our own team may still be
     * running and is left holding it while the caller aborts the job. */
    coord *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "nqueens-mpi: rank 0: %s\n", nq_strerror(NQ_ENOMEM));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    pthread_mutex_init(&c->lock, NULL);
    c->job = cfg->job;
    c->units = nq_job_units(cfg->job);
    c->chunk_units = nq_mpi_chunk_units(cfg->job);
    c->chunks = nq_mpi_chunks(cfg->job, c->chunk_units);
    uint64_t resumed = 0;
    if (cfg->journal) {
        /* Resume: the journal's finished chunks are counted and skipped. */
        c->journal = cfg->journal;
        c->skip = nq_journal_done(cfg->journal);
        c->sum = nq_journal_resumed_counts(cfg->journal);
        resumed = nq_journal_resumed_units(cfg->journal);
        c->units_done = resumed;
        for (uint64_t i = 0; i < c->chunks; i++)
            c->chunks_done += c->skip[i] != 0;
    }
    double next_flush = start + cfg->checkpoint_interval;

    atomic_init(&c->stop, 0);
    unsigned char *gone = calloc((size_t)cfg->ranks, 1); /* ranks that said BYE */
    uint64_t *assign = malloc(NQ_MPI_MAX_ASSIGN * sizeof *assign);
    uint64_t *buf = NULL;
    size_t buf_words = 0;
    if (!gone || !assign) {
        /* Too little memory to even track the ranks: end the whole job now
         * rather than leave the others waiting on us. */
        fprintf(stderr, "nqueens-mpi: rank 0: %s\n", nq_strerror(NQ_ENOMEM));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int ret = 0;
    int failed_rank = -1, failure = 0;

    nq_mpi_team team = {
        .job = cfg->job,
        .chunk_units = c->chunk_units,
        .threads = cfg->threads,
        .cancel = cfg->cancel,
        .stop = &c->stop,
        .source = {coord_take, coord_done, c},
    };
    int team_started = 0;
    if (ret == 0 && (ret = nq_mpi_team_start(&team)) == 0)
        team_started = 1;
    if (ret < 0) {
        /* No compute threads: keep serving the protocol so the others end
         * cleanly, and fail the run. */
        failure = ret;
        failed_rank = 0;
        ret = 0;
    }

    int left = cfg->ranks - 1;
    double stop_deadline = 0; /* set when the run is closed early */
    int flushed_on_stop = 0;
    int journal_failed = 0; /* no more writes once the journal failed */
    double next_progress = start + cfg->progress_interval;
    long nap_ns = NQ_MPI_NAP_MIN_NS;
    for (;;) {
        int busy = 0, flag = 1;
        while (flag) {
            MPI_Status st;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
            if (!flag)
                break;
            busy = 1;
            int src = st.MPI_SOURCE, words = 0;
            switch (st.MPI_TAG) {
            case NQ_MPI_TAG_REQUEST:
                answer_request(c, src, assign);
                break;
            case NQ_MPI_TAG_RESULT:
                MPI_Get_count(&st, MPI_UINT64_T, &words);
                if (take_results(c, src, words, &buf, &buf_words) < 0 && !failure) {
                    failure = NQ_ENOMEM;
                    failed_rank = 0;
                }
                break;
            case NQ_MPI_TAG_BYE: {
                uint64_t status = 0;
                MPI_Recv(&status, 1, MPI_UINT64_T, src, NQ_MPI_TAG_BYE, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                if (!gone[src]) {
                    gone[src] = 1;
                    left--;
                }
                int code = (int)(int64_t)status;
                if (code < 0 && code != NQ_ECANCELLED && !failure) {
                    failure = code;
                    failed_rank = src;
                }
                break;
            }
            default: /* not ours: drain it so it cannot clog the queue */
                MPI_Recv(NULL, 0, MPI_BYTE, src, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                break;
            }
        }
        if (team_started && !failure && atomic_load(&team.error))
            failure = atomic_load(&team.error), failed_rank = 0;
        if (((cfg->cancel && atomic_load(cfg->cancel)) || failure) && stop_deadline == 0) {
            close_run(c, &c->stop, gone, cfg->ranks);
            stop_deadline = nq_now() + NQ_MPI_STOP_GRACE;
        }
        if ((!team_started || nq_mpi_team_finished(&team)) && left <= 0)
            break;
        if (stop_deadline > 0 && nq_now() > stop_deadline && left > 0) {
            out->abandoned = 1;
            break;
        }
        if (c->journal && (nq_now() >= next_flush || (stop_deadline > 0 && !flushed_on_stop))) {
            /* On a stop, flush at once: mpiexec may kill us soon. */
            flushed_on_stop = stop_deadline > 0;
            if (!journal_failed && nq_journal_flush(c->journal, 1) < 0) {
                journal_failed = 1;
                if (!failure) {
                    failure = NQ_EIO;
                    failed_rank = 0;
                    snprintf(out->message, sizeof out->message, "rank 0: %s",
                             nq_journal_last_error(c->journal));
                }
            }
            next_flush = nq_now() + cfg->checkpoint_interval;
        }
        if (cfg->progress && nq_now() >= next_progress) {
            report_progress(cfg, c, resumed, start, 0);
            next_progress = nq_now() + cfg->progress_interval;
        }
        nq_mpi_nap(&nap_ns, busy);
    }
    if (team_started && !out->abandoned) {
        int joined = nq_mpi_team_join(&team);
        if (joined < 0 && joined != NQ_ECANCELLED && !failure)
            failure = joined, failed_rank = 0;
    }

    pthread_mutex_lock(&c->lock);
    if (c->journal_error) {
        journal_failed = 1;
        if (!failure)
            failure = c->journal_error, failed_rank = 0;
    }
    const int complete = c->chunks_done >= c->chunks;
    pthread_mutex_unlock(&c->lock);
    if (c->journal && !journal_failed) {
        /* Complete: mark it so; otherwise keep what finished for a rerun
         * (after a failed rank too: what the others finished is good). */
        int jr = complete && !failure && !out->abandoned ? nq_journal_finish(c->journal)
                                                         : nq_journal_flush(c->journal, 1);
        if (jr < 0 && !failure) {
            failure = jr, failed_rank = 0;
            snprintf(out->message, sizeof out->message, "rank 0: %s",
                     nq_journal_last_error(c->journal));
        }
    }
    if (ret == 0) {
        if (failure) {
            ret = failure;
            if (!out->message[0])
                snprintf(out->message, sizeof out->message, "rank %d failed: %s", failed_rank,
                         nq_strerror(failure));
        } else if (!complete) {
            ret = NQ_ECANCELLED;
        }
    }
    if (cfg->progress && ret == 0)
        report_progress(cfg, c, resumed, start, 1);
    pthread_mutex_lock(&c->lock); /* an abandoned run's team may still record */
    out->sum = c->sum;
    out->units_done = c->units_done;
    pthread_mutex_unlock(&c->lock);
    out->units_resumed = resumed;

    free(buf);
    free(assign);
    free(gone);
    if (!out->abandoned) {
        pthread_mutex_destroy(&c->lock);
        free(c);
    }
    return ret;
}
