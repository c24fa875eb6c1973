/*
 * coordinator.c - rank 0 of nqueens-mpi (see coordinator.h).
 *
 * Like the workers, the main thread polls and naps instead of blocking in
 * MPI, so it stays responsive to signals and leaves the cores to the
 * compute threads.  It is the only thread that calls MPI.  Every turn of
 * its loop takes a core from a compute thread for a moment, so it naps as
 * long as the others can wait for an answer (NQ_COORD_NAP_NS: a worker
 * asks for chunks while it still holds several times that much work), and
 * alone in the job, where nobody waits for an answer, longer still; its
 * own threads wake it when they run out of chunks or a check needs it.  It never waits
 * on another rank either: what it sends goes out with MPI_Isend, since a
 * large ASSIGN to a stopped rank would never complete, and a rank silent
 * for longer than the rank timeout is left behind (roster.h).
 */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpi/coordinator.h"
#include "mpi/nap.h"
#include "mpi/protocol.h"
#include "mpi/roster.h"
#include "mpi/team.h"
#include "mpi/trace.h"
#include "run/pool.h"
#include "run/verify.h"

/* Rank 0's nap between polls beside other ranks, busy or not (a poll
 * takes every message waiting): a worker asks for chunks while it still
 * holds several times this much work (worker.c), and each turn of the
 * loop takes a core from a compute thread for a moment. */
#define NQ_COORD_NAP_NS 5000000L
/* Rank 0's nap alone in the job, where nobody waits for an answer. */
#define NQ_COORD_ALONE_NAP_NS 50000000L
/* A rank learns its pace (the seconds between chunks finished) from its
 * first chunks, and asks for a few spares until it knows it (worker.c):
 * its first NQ_COORD_QUICK_ANSWERS REQUESTs are answered quickly (short
 * naps, coord_nap), or it would run dry waiting for each.  For at most
 * NQ_COORD_QUICK_START_S after the run's start: every rank asks as soon as
 * it knows it planned rank 0's job, so one not heard by then is slow to
 * start, and rank 0's threads get their core back. */
#define NQ_COORD_QUICK_ANSWERS 3
#define NQ_COORD_QUICK_START_S 1.0

/* Rank 0's side of the conversation with one other rank. */
typedef struct outbox {
    MPI_Request assign_req;  /* the last ASSIGN, while MPI may still read it */
    uint64_t *assign;        /* that ASSIGN's chunks */
    uint64_t cap;
    int asked;               /* its REQUEST is unanswered... */
    uint64_t wants;          /* ...and asks for this many chunks */
    int answers;             /* ASSIGNs it has had, up to NQ_COORD_QUICK_ANSWERS */
} outbox;

/* Rank 0's state while the run lasts. */
typedef struct coord {
    const nq_mpi_coord_config *cfg;
    nq_ledger *ledger;
    nq_mpi_roster *roster;
    outbox *out;             /* per rank (0 unused) */
    int waiting;             /* ranks whose REQUEST is unanswered */
    int gave_back;           /* chunks went back to the ledger since the last
                                look at the waiting REQUESTs */
    atomic_int *stop;        /* the run's stop flag: cancel or a failed journal */
    atomic_int team_stop;    /* tells rank 0's own team to stop */
    uint64_t *results;       /* RESULT message buffer */
    size_t results_words;
    int closed;              /* STOP sent, no more chunks go out */
    double stop_deadline;    /* when a closed run gives up on silent ranks */
    double beat;             /* the other ranks' heartbeat interval */
    double last_poll;        /* nq_now() at the main loop's last turn */
    double next_check;       /* when to look for silent ranks next */
    int failure, failed_rank;
    int left_rank, left_signal; /* the first rank that left on its own signal */
    /* settings.verify (NULL without): the sampled chunks whose first count
     * is in and that wait to go out again, to another solver. */
    nq_verify *verify;
    int solvers;             /* ranks, or rank 0's threads when it is alone */
    pthread_mutex_t recheck_lock; /* guards the three below */
    uint64_t *recheck;       /* chunks waiting to go out for their second count */
    unsigned char *queued;   /* per chunk: in recheck */
    uint64_t recheck_len;
    atomic_int recheck_added; /* tells the main thread to answer waiting REQUESTs */
    atomic_int others_gone;   /* every other rank is gone or silent (main thread sets it) */
    atomic_int verify_failed;
    /* Wakes the main thread from its nap (coord_wake). */
    pthread_mutex_t wake_lock;
    pthread_cond_t wake;
    unsigned wakes;
    int unserved;            /* other ranks still learning their pace... */
    double quick_until;      /* ...are answered quickly until nq_now() is this */
    atomic_int starving;     /* rank 0's threads waiting for a chunk */
    long quick_ns;           /* the nap while answers are urgent (coord_nap) */
    /* For the trace: the main loop's turns and the messages by tag. */
    unsigned long long polls, messages[NQ_MPI_TAG_HEARTBEAT + 1];
    unsigned long long counted, repeats; /* counts received; of chunks already counted */
    /* Rank 0's threads: the times one found no chunk free (the others held
     * the rest), and the microseconds they waited for one or for the end. */
    atomic_llong waits, waited_us;
} coord;

/* Cuts the main thread's nap short: something needs it now. */
static void coord_wake(coord *c)
{
    pthread_mutex_lock(&c->wake_lock);
    c->wakes++;
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->wake_lock);
}

/* The count of coord_wake() calls, read before a poll. */
static unsigned coord_wakes(coord *c)
{
    pthread_mutex_lock(&c->wake_lock);
    const unsigned w = c->wakes;
    pthread_mutex_unlock(&c->wake_lock);
    return w;
}

/* The main thread's nap after a poll: NQ_COORD_NAP_NS, or
 * NQ_COORD_ALONE_NAP_NS when no other rank is in the job; cut short by
 * coord_wake() since `seen` was read.  While an answer is `urgent`, the
 * nap is nq_mpi_nap's, short and growing while nothing comes (`busy`: the
 * poll took a message): while a rank learns its pace (it holds few
 * spares), and while a core of rank 0 is idle anyway: a thread found no
 * chunk (the others hold the last ones, and their counts end its wait),
 * or every thread is done and the job's end waits for the others' last
 * counts and goodbyes. */
static void coord_nap(coord *c, unsigned seen, int urgent, int busy)
{
    long nap = c->cfg->ranks > 1 ? NQ_COORD_NAP_NS : NQ_COORD_ALONE_NAP_NS;
    if (urgent) {
        if (busy)
            c->quick_ns = NQ_MPI_NAP_MIN_NS;
        nap = c->quick_ns;
        c->quick_ns = nap * 2 > NQ_MPI_NAP_MAX_NS ? NQ_MPI_NAP_MAX_NS : nap * 2;
    } else {
        c->quick_ns = NQ_MPI_NAP_MIN_NS;
    }
    nq_mpi_nap_unless_woken(&c->wake_lock, &c->wake, &c->wakes, seen, nap);
}

/* Rank 0's team stopped: the main thread ends the job or waits for the
 * other ranks now. */
static void team_finished(void *user)
{
    coord_wake(user);
}

/* Queues sampled chunk `chunk` to go out for its second count. */
static void recheck_push(coord *c, uint64_t chunk)
{
    pthread_mutex_lock(&c->recheck_lock);
    if (!c->queued[chunk]) {
        c->queued[chunk] = 1;
        c->recheck[c->recheck_len++] = chunk;
    }
    pthread_mutex_unlock(&c->recheck_lock);
    atomic_store(&c->recheck_added, 1);
    coord_wake(c);
}

/* Takes a queued chunk that `solver` may count a second time: one whose
 * first count another solver made, or any when no other solver is left.
 * Returns 1 with *chunk set, or 0. */
static int recheck_take(coord *c, int solver, uint64_t *chunk)
{
    if (!c->verify)
        return 0;
    const int alone = c->solvers == 1 || (c->cfg->ranks > 1 && solver == 0 &&
                                          atomic_load(&c->others_gone));
    int got = 0;
    pthread_mutex_lock(&c->recheck_lock);
    for (uint64_t i = 0; i < c->recheck_len && !got; i++) {
        const uint64_t k = c->recheck[i];
        if (alone || nq_verify_first_solver(c->verify, k) != solver) {
            c->recheck[i] = c->recheck[--c->recheck_len];
            c->queued[k] = 0;
            *chunk = k;
            got = 1;
        }
    }
    pthread_mutex_unlock(&c->recheck_lock);
    return got;
}

/* A count of chunk `chunk` by `solver` (a rank, or rank 0's thread when it
 * is alone): to the ledger, or, for a sampled chunk, to the check, which
 * finishes it in the ledger once two counts by different solvers agree. */
static void finish_count(coord *c, uint64_t chunk, const nq_counts *counts, int solver)
{
    if (!c->verify || !nq_verify_sampled(c->verify, chunk)) {
        nq_ledger_finish(c->ledger, chunk, counts);
        return;
    }
    int r;
    if (c->solvers == 1 && nq_verify_pending(c->verify, chunk))
        r = nq_verify_second(c->verify, chunk, counts, solver);
    else
        r = nq_verify_first(c->verify, chunk, counts, solver);
    if (r == 1)
        nq_ledger_finish_checked(c->ledger, chunk, counts);
    else if (r == NQ_EVERIFY) {
        atomic_store(&c->verify_failed, 1);
        coord_wake(c);
    }
    else if (nq_verify_pending(c->verify, chunk))
        recheck_push(c, chunk); /* a first count, or the first solver's again */
}

/* Rank 0's own solver number: 0 beside other ranks, else its thread's. */
static int own_solver(const coord *c)
{
    return c->cfg->ranks > 1 ? 0 : nq_pool_thread();
}

/* Rank 0's team takes chunks straight from the ledger.  When none is free
 * but the count is not complete, other ranks hold the rest, and a rank
 * that stalls gives its chunks back: the thread waits for that, napping,
 * instead of leaving, so that rank 0 alone can still finish the count. */
static int coord_take(void *user, uint64_t *chunk)
{
    coord *c = user;
    long nap_ns = NQ_MPI_NAP_MIN_NS;
    double since = 0;
    int got = 1;
    while (!recheck_take(c, own_solver(c), chunk) && !nq_ledger_take(c->ledger, chunk)) {
        if (since == 0) {
            since = nq_now();
            atomic_fetch_add(&c->starving, 1);
            coord_wake(c); /* its naps shorten while we wait (coord_nap) */
        }
        if (atomic_load(&c->team_stop) || atomic_load(c->stop) ||
            nq_ledger_complete(c->ledger)) {
            coord_wake(c); /* the team is about to finish */
            got = 0;
            break;
        }
        nq_mpi_nap(&nap_ns, 0);
    }
    if (since > 0) {
        atomic_fetch_sub(&c->starving, 1);
        atomic_fetch_add(&c->waits, 1);
        atomic_fetch_add(&c->waited_us, (long long)((nq_now() - since) * 1e6));
    }
    return got;
}

static void coord_done(void *user, uint64_t chunk, const nq_counts *counts)
{
    coord *c = user;
    finish_count(c, chunk, counts, own_solver(c));
}

/* Tells the user about a rank (formatted like printf). */
static void notice(const coord *c, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (c->cfg->notice)
        c->cfg->notice(line, c->cfg->notice_user);
}

static void fail(coord *c, int code, int rank)
{
    if (!c->failure) {
        c->failure = code;
        c->failed_rank = rank;
    }
}

/* Answers rank r's waiting REQUEST with chunks, or with the end once the
 * count is complete, the run closed or the rank said goodbye; otherwise the
 * REQUEST keeps waiting for chunks that a stalled rank gives back.  A
 * silent or gone rank gets no chunks, only the end. */
static void answer(coord *c, int r)
{
    outbox *o = &c->out[r];
    uint64_t k = 0;
    if (!o->asked)
        return;
    /* Near the end a rank gets no more than its share of what is left
     * (half of it spread over the ranks), so that no rank holds a queue of
     * spares while the others run out of chunks. */
    uint64_t left = nq_ledger_unassigned(c->ledger);
    if (c->verify) {
        pthread_mutex_lock(&c->recheck_lock);
        left += c->recheck_len;
        pthread_mutex_unlock(&c->recheck_lock);
    }
    const uint64_t share = left / (2 * (uint64_t)c->cfg->ranks);
    const uint64_t most = o->wants < share ? o->wants : share > 0 ? share : 1;
    if (nq_mpi_roster_state(c->roster, r) == NQ_MPI_RANK_LIVE)
        while (k < most && (recheck_take(c, r, &o->assign[k]) ||
                            nq_ledger_take(c->ledger, &o->assign[k])))
            nq_mpi_roster_assigned(c->roster, r, o->assign[k++]);
    if (k == 0 && !c->closed && !nq_ledger_complete(c->ledger) &&
        nq_mpi_roster_state(c->roster, r) != NQ_MPI_RANK_GONE)
        return;
    MPI_Isend(o->assign, (int)k, MPI_UINT64_T, r, NQ_MPI_TAG_ASSIGN, MPI_COMM_WORLD,
              &o->assign_req);
    if (o->answers < NQ_COORD_QUICK_ANSWERS && ++o->answers == NQ_COORD_QUICK_ANSWERS)
        c->unserved--;
    o->asked = 0;
    c->waiting--;
}

/* Receives a REQUEST from rank src and answers it if it can. */
static void take_request(coord *c, int src)
{
    outbox *o = &c->out[src];
    uint64_t want = 0;
    MPI_Recv(&want, 1, MPI_UINT64_T, src, NQ_MPI_TAG_REQUEST, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    want = want < 1 ? 1 : want > NQ_MPI_MAX_ASSIGN ? NQ_MPI_MAX_ASSIGN : want;
    /* A rank asks again only once our last ASSIGN reached it, so this wait
     * ends at once; then its buffer is free again. */
    nq_mpi_wait_napping(&o->assign_req);
    if (want > o->cap) {
        uint64_t *grown = realloc(o->assign, want * sizeof *grown);
        if (grown) {
            o->assign = grown;
            o->cap = want;
        } else {
            fail(c, NQ_ENOMEM, 0);
        }
    }
    if (!o->asked)
        c->waiting++;
    o->asked = 1;
    o->wants = want < o->cap ? want : o->cap;
    answer(c, src);
}

/* Answers every waiting REQUEST that can be answered now. */
static void answer_waiting(coord *c)
{
    for (int r = 1; r < c->cfg->ranks && c->waiting > 0; r++)
        answer(c, r);
    c->gave_back = 0;
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
        nq_mpi_roster_returned(c->roster, src, chunk);
        /* Counts a chunk once, even when a rank that stalled and came back
         * returns one that another rank already did; ignores one outside
         * the run. */
        if (chunk < nq_ledger_chunks(c->ledger)) {
            c->counted++;
            c->repeats += nq_ledger_finished(c->ledger, chunk) != 0;
            finish_count(c, chunk, &counts, src);
        }
    }
    return 0;
}

const char *nq_mpi_signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
    }
}

/* Receives a BYE from src: that rank's threads have stopped.  One that
 * stopped on its own signal leaves the count: the chunks it held go to the
 * others, and its unanswered REQUEST, if any, gets the end. */
static void take_bye(coord *c, int src)
{
    uint64_t bye[NQ_MPI_BYE_WORDS] = {0, 0};
    MPI_Recv(bye, NQ_MPI_BYE_WORDS, MPI_UINT64_T, src, NQ_MPI_TAG_BYE, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    const uint64_t held = nq_mpi_roster_gone(c->roster, src, c->ledger);
    c->gave_back |= held > 0;
    answer(c, src);
    const int code = (int)(int64_t)bye[0], sig = (int)bye[1];
    if (code < 0 && code != NQ_ECANCELLED)
        fail(c, code, src);
    if (code == NQ_ECANCELLED && sig > 0 && !c->closed) {
        if (!c->left_rank) {
            c->left_rank = src;
            c->left_signal = sig;
        }
        char what[64] = "it held no chunk";
        if (held)
            snprintf(what, sizeof what, "the %llu chunk%s it held go%s to the other ranks",
                     (unsigned long long)held, held == 1 ? "" : "s", held == 1 ? "es" : "");
        notice(c, "rank %d stopped on %s and left the job: %s", src,
               nq_mpi_signal_name(sig), what);
    }
}

/* Rank src spoke: it is alive, and back in the run if it was silent. */
static void heard(coord *c, int src)
{
    const double was_silent = nq_mpi_roster_heard(c->roster, src, nq_now());
    if (was_silent > 0)
        notice(c, "rank %d answered again after %.1f s of silence; it is back in the run", src,
               was_silent);
}

/* Handles every message waiting.  Returns 1 if there was one. */
static int serve(coord *c)
{
    for (int took = 0;; took = 1) {
        int flag = 0, words = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            return took;
        if (st.MPI_TAG >= 0 && st.MPI_TAG <= NQ_MPI_TAG_HEARTBEAT)
            c->messages[st.MPI_TAG]++;
        heard(c, st.MPI_SOURCE);
        switch (st.MPI_TAG) {
        case NQ_MPI_TAG_REQUEST: take_request(c, st.MPI_SOURCE); break;
        case NQ_MPI_TAG_RESULT:
            MPI_Get_count(&st, MPI_UINT64_T, &words);
            if (take_results(c, st.MPI_SOURCE, words) < 0)
                fail(c, NQ_ENOMEM, 0);
            break;
        case NQ_MPI_TAG_BYE: take_bye(c, st.MPI_SOURCE); break;
        default: /* a HEARTBEAT, whose news was its arrival, or a stray tag:
                    drain it so it cannot clog the queue */
            MPI_Recv(NULL, 0, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            break;
        }
    }
}

/* Takes every live rank unheard for longer than the rank timeout for
 * stalled, and gives the chunks it holds to the others. */
static void check_silence(coord *c, double now)
{
    int r;
    while ((r = nq_mpi_roster_find_silent(c->roster, now, c->cfg->rank_timeout)) > 0) {
        double silent_for = 0;
        const uint64_t held = nq_mpi_roster_silence(c->roster, r, now, c->ledger, &silent_for);
        c->gave_back |= held > 0;
        char what[64] = "it held no chunk";
        if (held)
            snprintf(what, sizeof what, "the %llu chunk%s it held go%s to the other ranks",
                     (unsigned long long)held, held == 1 ? "" : "s", held == 1 ? "es" : "");
        notice(c, "rank %d has not been heard from for %.1f s (stopped, hung or cut off?): %s",
               r, silent_for, what);
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
        if (nq_mpi_roster_state(c->roster, r) != NQ_MPI_RANK_GONE) {
            MPI_Request req; /* no payload: nothing to keep alive until it is sent */
            MPI_Isend(NULL, 0, MPI_UINT64_T, r, NQ_MPI_TAG_STOP, MPI_COMM_WORLD, &req);
            MPI_Request_free(&req);
        }
}

/* One look at the clock: a long gap since the last turn means rank 0
 * itself did not run (stopped, or starved of CPU), which is no other
 * rank's silence; then, now and then, the search for silent ranks. */
static void watch_ranks(coord *c)
{
    const double now = nq_now();
    if (now - c->last_poll > c->beat)
        nq_mpi_roster_pause(c->roster, now - c->last_poll);
    c->last_poll = now;
    if (now >= c->next_check) {
        check_silence(c, now);
        c->next_check = now + c->beat / 2;
    }
}

/* The main thread's loop: serves the ranks until the team is done and
 * every other rank said goodbye or is silent, or a closed run's grace runs
 * out (then *abandoned). */
static void serve_until_done(coord *c, nq_mpi_team *team, int team_started, int *abandoned)
{
    for (;;) {
        c->polls++;
        const unsigned seen = coord_wakes(c);
        watch_ranks(c);
        const int busy = serve(c);
        if (team_started && atomic_load(&team->error))
            fail(c, atomic_load(&team->error), 0);
        if (atomic_load(&c->verify_failed))
            fail(c, NQ_EVERIFY, 0);
        if (atomic_exchange(&c->recheck_added, 0))
            c->gave_back = 1;
        if (c->verify)
            atomic_store(&c->others_gone, nq_mpi_roster_live(c->roster) == 0);
        if (c->failure || atomic_load(c->stop))
            close_run(c);
        if (c->waiting && (c->gave_back || c->closed || nq_ledger_complete(c->ledger)))
            answer_waiting(c);
        const int live = nq_mpi_roster_live(c->roster);
        if ((!team_started || nq_mpi_team_finished(team)) && live == 0)
            return;
        if (c->closed && nq_now() > c->stop_deadline && live > 0) {
            *abandoned = 1;
            return;
        }
        const int idle_core = !team_started || nq_mpi_team_finished(team) ||
                              atomic_load(&c->starving) > 0;
        const int starting = c->unserved > 0 && nq_now() < c->quick_until;
        coord_nap(c, seen, idle_core || starting, busy);
    }
}

/* The sample of chunks to count twice, and the queue of those whose
 * second count is due: at first, the ones a resumed journal holds
 * unchecked.  Returns 0 or NQ_ENOMEM. */
static int verify_create(coord *c)
{
    const uint64_t chunks = nq_ledger_chunks(c->ledger);
    const size_t n = chunks ? (size_t)chunks : 1;
    c->recheck = malloc(n * sizeof *c->recheck);
    c->queued = calloc(n, 1);
    if (!c->recheck || !c->queued ||
        nq_verify_create(&c->verify, c->cfg->verify, nq_job_identity(c->cfg->job), chunks,
                         c->cfg->run->cfg.journal) < 0)
        return NQ_ENOMEM;
    for (uint64_t k = 0; k < chunks; k++)
        if (nq_verify_pending(c->verify, k))
            recheck_push(c, k);
    return 0;
}

static void coord_free(coord *c, int keep);

/* Allocates rank 0's state; NULL when memory is short. */
static coord *coord_create(const nq_mpi_coord_config *cfg)
{
    coord *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->out = calloc((size_t)cfg->ranks, sizeof *c->out);
    const double now = nq_now();
    if (!c->out || nq_mpi_roster_create(&c->roster, cfg->ranks,
                                        nq_ledger_chunks(cfg->run->ledger), now) < 0) {
        free(c->out);
        free(c);
        return NULL;
    }
    for (int r = 0; r < cfg->ranks; r++)
        c->out[r].assign_req = MPI_REQUEST_NULL;
    c->cfg = cfg;
    c->ledger = cfg->run->ledger;
    c->stop = nq_run_stop_flag(cfg->run);
    c->beat = nq_mpi_heartbeat_interval(cfg->rank_timeout);
    c->last_poll = now;
    c->next_check = now;
    atomic_init(&c->team_stop, 0);
    atomic_init(&c->recheck_added, 0);
    atomic_init(&c->others_gone, 0);
    atomic_init(&c->verify_failed, 0);
    atomic_init(&c->waits, 0);
    atomic_init(&c->starving, 0);
    atomic_init(&c->waited_us, 0);
    pthread_mutex_init(&c->recheck_lock, NULL);
    pthread_mutex_init(&c->wake_lock, NULL);
    pthread_cond_init(&c->wake, NULL);
    c->solvers = cfg->ranks > 1 ? cfg->ranks : cfg->threads;
    c->unserved = cfg->ranks - 1;
    c->quick_until = now + NQ_COORD_QUICK_START_S;
    c->quick_ns = NQ_MPI_NAP_MIN_NS;
    if (cfg->verify > 0 && verify_create(c) < 0) {
        coord_free(c, 0);
        return NULL;
    }
    return c;
}

/* Frees rank 0's state once no send can still read it: each rank that
 * said goodbye had received its last ASSIGN.  With a rank silent or
 * abandoned, a send to it may never complete, so everything is left to the
 * process's end (the caller aborts the job). */
static void coord_free(coord *c, int keep)
{
    if (keep)
        return;
    for (int r = 1; r < c->cfg->ranks; r++) {
        nq_mpi_wait_napping(&c->out[r].assign_req);
        free(c->out[r].assign);
    }
    nq_mpi_roster_free(&c->roster);
    nq_verify_free(&c->verify);
    pthread_mutex_destroy(&c->recheck_lock);
    pthread_cond_destroy(&c->wake);
    pthread_mutex_destroy(&c->wake_lock);
    free(c->recheck);
    free(c->queued);
    free(c->results);
    free(c->out);
    free(c);
}

int nq_mpi_coordinate(const nq_mpi_coord_config *cfg, nq_mpi_outcome *out)
{
    memset(out, 0, sizeof *out);
    /* On the heap: when a rank is abandoned, our own team may still be
     * running and is left holding it while the caller aborts the job. */
    coord *c = coord_create(cfg);
    if (!c) {
        /* Too little memory to even track the ranks: end the whole job now
         * rather than leave the others waiting on us. */
        fprintf(stderr, "nqueens-mpi: rank 0: %s\n", nq_strerror(NQ_ENOMEM));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    nq_mpi_team team = {
        .job = cfg->job,
        .chunk_units = nq_ledger_chunk_units(c->ledger),
        .threads = cfg->threads,
        .cancel = c->stop,
        .stop = &c->team_stop,
        .source = {coord_take, coord_done, c},
        .prepare = cfg->prepare,
        .prepare_user = cfg->prepare_user,
        .on_finish = team_finished,
        .on_finish_user = c,
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
    if (c->failure == NQ_EVERIFY)
        nq_verify_failure(c->verify, c->cfg->ranks > 1 ? "rank" : "thread", out->message,
                          sizeof out->message);
    else if (c->failure)
        snprintf(out->message, sizeof out->message, "rank %d failed: %s", c->failed_rank,
                 nq_strerror(c->failure));
    out->silent_rank = nq_mpi_roster_first_silent(c->roster, nq_now(), &out->silent_for);
    out->left_rank = c->left_rank;
    out->left_signal = c->left_signal;
    nq_mpi_trace("served %llu requests, %llu result messages, %llu heartbeats, %llu goodbyes "
                 "in %llu polls; %llu counts came, %llu of chunks already counted; threads "
                 "waited for chunks %lld times, %.3f s in all",
                 c->messages[NQ_MPI_TAG_REQUEST], c->messages[NQ_MPI_TAG_RESULT],
                 c->messages[NQ_MPI_TAG_HEARTBEAT], c->messages[NQ_MPI_TAG_BYE], c->polls,
                 c->counted, c->repeats, (long long)atomic_load(&c->waits),
                 (double)atomic_load(&c->waited_us) * 1e-6);
    coord_free(c, out->abandoned || out->silent_rank);
    return ret;
}
