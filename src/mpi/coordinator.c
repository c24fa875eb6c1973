/*
 * coordinator.c - rank 0 of nqueens-mpi (see coordinator.h).
 *
 * Like the workers, the main thread polls and naps instead of blocking in
 * MPI, so it stays responsive to signals and leaves the cores to the
 * compute threads.  It is the only thread that calls MPI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpi/coordinator.h"
#include "mpi/nap.h"
#include "mpi/protocol.h"
#include "mpi/team.h"

/* Rank 0's state while the run lasts. */
typedef struct coord {
    const nq_mpi_coord_config *cfg;
    nq_ledger *ledger;
    atomic_int *stop;        /* the run's stop flag: cancel or a failed journal */
    atomic_int team_stop;    /* tells rank 0's own team to stop */
    unsigned char *gone;     /* ranks that said BYE */
    int left;                /* ranks still to say BYE */
    uint64_t *assign;        /* ASSIGN message buffer */
    uint64_t *results;       /* RESULT message buffer */
    size_t results_words;
    int closed;              /* STOP sent, no more chunks go out */
    double stop_deadline;    /* when a closed run gives up on silent ranks */
    int failure, failed_rank;
} coord;

static int coord_take(void *user, uint64_t *chunk)
{
    return nq_ledger_take(user, chunk);
}

static void coord_done(void *user, uint64_t chunk, const nq_counts *counts)
{
    nq_ledger_finish(user, chunk, counts);
}

/* Answers a REQUEST from rank src with up to the chunks it wants. */
static void answer_request(coord *c, int src)
{
    uint64_t want = 0;
    MPI_Recv(&want, 1, MPI_UINT64_T, src, NQ_MPI_TAG_REQUEST, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (want > NQ_MPI_MAX_ASSIGN)
        want = NQ_MPI_MAX_ASSIGN;
    int k = 0;
    while ((uint64_t)k < want && nq_ledger_take(c->ledger, &c->assign[k]))
        k++;
    MPI_Send(c->assign, k, MPI_UINT64_T, src, NQ_MPI_TAG_ASSIGN, MPI_COMM_WORLD);
}

/* Receives a RESULT message of `words` words from src into the ledger.
 * Returns 0 or NQ_ENOMEM. */
static int take_results(coord *c, int src, int words)
{
    if ((size_t)words > c->results_words) {
        uint64_t *grown = realloc(c->results, (size_t)words * sizeof *grown);
        if (!grown)
            return NQ_ENOMEM;
        c->results = grown;
        c->results_words = (size_t)words;
    }
    MPI_Recv(c->results, words, MPI_UINT64_T, src, NQ_MPI_TAG_RESULT, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    for (int i = 0; i + NQ_MPI_RESULT_WORDS <= words; i += NQ_MPI_RESULT_WORDS) {
        nq_counts counts;
        uint64_t chunk = nq_mpi_unpack_counts(&c->results[i], &counts);
        nq_ledger_finish(c->ledger, chunk, &counts); /* ignores a chunk outside the run */
    }
    return 0;
}

static void fail(coord *c, int code, int rank)
{
    if (!c->failure) {
        c->failure = code;
        c->failed_rank = rank;
    }
}

/* Receives a BYE from src: that rank's threads have stopped. */
static void take_bye(coord *c, int src)
{
    uint64_t status = 0;
    MPI_Recv(&status, 1, MPI_UINT64_T, src, NQ_MPI_TAG_BYE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!c->gone[src]) {
        c->gone[src] = 1;
        c->left--;
    }
    const int code = (int)(int64_t)status;
    if (code < 0 && code != NQ_ECANCELLED)
        fail(c, code, src);
}

/* Handles every message waiting.  Returns 1 if there was any. */
static int serve(coord *c)
{
    int busy = 0;
    for (;;) {
        int flag = 0, words = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            return busy;
        busy = 1;
        switch (st.MPI_TAG) {
        case NQ_MPI_TAG_REQUEST: answer_request(c, st.MPI_SOURCE); break;
        case NQ_MPI_TAG_RESULT:
            MPI_Get_count(&st, MPI_UINT64_T, &words);
            if (take_results(c, st.MPI_SOURCE, words) < 0)
                fail(c, NQ_ENOMEM, 0);
            break;
        case NQ_MPI_TAG_BYE: take_bye(c, st.MPI_SOURCE); break;
        default: /* not ours: drain it so it cannot clog the queue */
            MPI_Recv(NULL, 0, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            break;
        }
    }
}

/* Stops the run: no more chunks go out and every rank still working is
 * told to stop after its current unit. */
static void close_run(coord *c)
{
    if (c->closed)
        return;
    c->closed = 1;
    c->stop_deadline = nq_now() + NQ_MPI_STOP_GRACE;
    nq_ledger_close(c->ledger);
    atomic_store(&c->team_stop, 1);
    for (int r = 1; r < c->cfg->ranks; r++)
        if (!c->gone[r])
            MPI_Send(NULL, 0, MPI_UINT64_T, r, NQ_MPI_TAG_STOP, MPI_COMM_WORLD);
}

/* The main thread's loop: serves the ranks until the team and every other
 * rank are done, or a closed run's grace runs out (then *abandoned). */
static void serve_until_done(coord *c, nq_mpi_team *team, int team_started, int *abandoned)
{
    long nap_ns = NQ_MPI_NAP_MIN_NS;
    for (;;) {
        int busy = serve(c);
        if (team_started && atomic_load(&team->error))
            fail(c, atomic_load(&team->error), 0);
        if (c->failure || atomic_load(c->stop))
            close_run(c);
        if ((!team_started || nq_mpi_team_finished(team)) && c->left <= 0)
            return;
        if (c->closed && nq_now() > c->stop_deadline && c->left > 0) {
            *abandoned = 1;
            return;
        }
        nq_mpi_nap(&nap_ns, busy);
    }
}

int nq_mpi_coordinate(const nq_mpi_coord_config *cfg, nq_mpi_outcome *out)
{
    memset(out, 0, sizeof *out);
    /* On the heap: when a rank is abandoned, our own team may still be
     * running and is left holding it while the caller aborts the job. */
    coord *c = calloc(1, sizeof *c);
    if (c) {
        c->gone = calloc((size_t)cfg->ranks, 1);
        c->assign = malloc(NQ_MPI_MAX_ASSIGN * sizeof *c->assign);
    }
    if (!c || !c->gone || !c->assign) {
        /* Too little memory to even track the ranks: end the whole job now
         * rather than leave the others waiting on us. */
        fprintf(stderr, "nqueens-mpi: rank 0: %s\n", nq_strerror(NQ_ENOMEM));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    c->cfg = cfg;
    c->ledger = cfg->run->ledger;
    c->stop = nq_run_stop_flag(cfg->run);
    c->left = cfg->ranks - 1;
    atomic_init(&c->team_stop, 0);

    nq_mpi_team team = {
        .job = cfg->job,
        .chunk_units = nq_ledger_chunk_units(c->ledger),
        .threads = cfg->threads,
        .cancel = c->stop,
        .stop = &c->team_stop,
        .source = {coord_take, coord_done, c->ledger},
    };
    const int team_started = nq_mpi_team_start(&team) == 0;
    if (!team_started) /* keep serving the protocol so the others end cleanly */
        fail(c, NQ_ENOMEM, 0);
    serve_until_done(c, &team, team_started, &out->abandoned);
    if (team_started && !out->abandoned) {
        int joined = nq_mpi_team_join(&team);
        if (joined < 0 && joined != NQ_ECANCELLED)
            fail(c, joined, 0);
    }

    int ret = c->failure ? c->failure : c->closed ? NQ_ECANCELLED : 0;
    if (c->failure)
        snprintf(out->message, sizeof out->message, "rank %d failed: %s", c->failed_rank,
                 nq_strerror(c->failure));
    free(c->results);
    free(c->assign);
    free(c->gone);
    if (!out->abandoned)
        free(c);
    return ret;
}
