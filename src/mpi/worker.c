/*
 * worker.c - a non-zero rank of nqueens-mpi (see worker.h).
 *
 * Waits are never blocking MPI calls: the main thread polls with
 * MPI_Iprobe/MPI_Test and naps between polls, so it notices a signal, and
 * so it does not spin a core that the compute threads need.  If rank 0
 * dies, the MPI runtime ends this process (Open MPI aborts the whole job
 * when any rank exits abnormally); nothing here waits forever on its own.
 * Between polls the main thread also keeps rank 0 hearing from it: a
 * heartbeat goes out whenever nothing else did for a heartbeat interval,
 * however long the chunks in hand take.
 *
 * A thread must never wait for a round trip to rank 0, whose main thread
 * answers only between its naps (NQ_COORD_NAP_NS, coordinator.c).  So the
 * queue holds enough spare chunks to keep the threads busy for NQ_WORKER_LEAD_S
 * at the rate they have been finishing chunks (at least one spare, at most
 * NQ_WORKER_MAX_SPARE per thread).  Nor may the main thread take the
 * compute threads' cores: on a node with as many compute threads as cores,
 * every turn of its loop preempts one of them.  So it works in batches:
 * the compute threads wake it only when half the spares are gone (it then
 * sends the counts finished so far with the next REQUEST), when twice as
 * many counts wait to be sent, when they run out of chunks, or when they
 * have all stopped (then the goodbye goes out at once, not at the end of a
 * nap: the job's end waits for it); between those it sleeps up to
 * NQ_WORKER_IDLE_NAP_S, and it looks for the answer
 * to a REQUEST only once it is likely to be there (NQ_WORKER_ASK_FIRST_S).
 * A count waits NQ_WORKER_RESULT_AGE_S at most, so that rank 0's journal
 * and progress see long chunks finish.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "core/util.h"
#include "mpi/nap.h"
#include "mpi/protocol.h"
#include "mpi/team.h"
#include "mpi/trace.h"
#include "mpi/worker.h"

/* Seconds of work the spare chunks should cover.  A REQUEST goes out when
 * half of them are gone, so half of it must cover rank 0's nap, this
 * thread's wait for the answer and a message's way there and back, with
 * room to spare for a loaded machine and for a stretch of chunks cheaper
 * than the pace (a running mean) says: mitm's units differ in cost by
 * orders of magnitude from one to the next. */
#define NQ_WORKER_LEAD_S 0.05
/* Most spare chunks per thread: bounds the queue and an ASSIGN.  It must
 * not bound the lead: a rank whose spares cover less than the wait for
 * rank 0's answer runs dry between answers, and with chunks of a tenth of a
 * millisecond (mitm at N = 19) the lead is hundreds of chunks.  What waits
 * in the queue at the end is bounded by the lead and by rank 0, which
 * hands out no more than a share of the chunks left (coordinator.c). */
#define NQ_WORKER_MAX_SPARE 1024
/* Spare chunks per thread before the rank knows its pace: a rank whose
 * chunks are short would otherwise run dry a few times at the start, one
 * round trip each, while its pace is learnt; long ones are held fairly by
 * rank 0's shares near the end (coordinator.c). */
#define NQ_WORKER_FIRST_SPARES 4
/* Longest sleep of the main thread while no REQUEST is unanswered: how
 * late a STOP or the compute threads' end may be seen (the threads see a
 * signal of this rank's own at once). */
#define NQ_WORKER_IDLE_NAP_S 0.01
/* While a REQUEST is unanswered, the main thread first looks for the
 * answer this long after asking, then every NQ_WORKER_ASK_NAP_NS: rank 0
 * answers between naps of its own (NQ_COORD_NAP_NS, coordinator.c), so an
 * earlier look would mostly find nothing yet, and every look takes a core
 * from a compute thread for a moment. */
#define NQ_WORKER_ASK_FIRST_S 0.003
#define NQ_WORKER_ASK_NAP_NS 1000000L
/* Longest wait of a finished chunk's count before it is sent. */
#define NQ_WORKER_RESULT_AGE_S 0.1

typedef struct worker {
    pthread_mutex_t lock;
    pthread_cond_t changed;   /* queue refilled, end or stop */
    pthread_cond_t wake;      /* for the main thread: wake_if_due() found work... */
    unsigned events;          /* ...counted here */
    int asking;               /* a REQUEST is unanswered (set by the main thread) */
    double first_result;      /* nq_now() when the oldest unsent count came */
    int threads;
    double last_done;         /* nq_now() at the last chunk done, 0 before any */
    double gap;               /* running mean of the seconds between chunks done */
    uint64_t *queue;          /* ring of assigned chunks */
    size_t cap, head, len;
    size_t in_hand;           /* chunks taken by threads, not yet done */
    int starving;             /* threads waiting for a chunk */
    int end;                  /* rank 0 has no more chunks for us */
    atomic_int stop;          /* cancel or STOP: threads quit after their unit */
    uint64_t *results;        /* finished chunks waiting to be sent */
    size_t results_len;
    /* Main thread only. */
    double beat;              /* heartbeat interval, seconds */
    double last_sent;         /* nq_now() when rank 0 was last sent anything */
    double asked_at;          /* nq_now() when the last REQUEST went out */
    int answered;             /* an ASSIGN has come */
    long quick_ns;            /* the nap while an answer is urgent (nap_or_wake) */
    MPI_Request beat_req;     /* the heartbeat in flight, if any */
    MPI_Request result_req;   /* the RESULT in flight (from the outbox), if any */
    /* For the trace: the main loop's turns and what it sent; the times a
     * compute thread found the queue empty before the end, and how long
     * it waited (under the lock). */
    unsigned long long polls, requests, result_messages, results_sent, beats;
    unsigned long long starved;
    double starved_s;
} worker;

/* Chunks the rank should hold (queued, in hand or unsent): one per thread
 * plus the spares that cover NQ_WORKER_LEAD_S at the rank's pace (before
 * it has one, NQ_WORKER_FIRST_SPARES per thread), at least one and at most
 * cap - threads.  Called with the lock held. */
static size_t holding_target(const worker *w)
{
    const size_t most = w->cap - (size_t)w->threads;
    size_t spare = (size_t)w->threads * NQ_WORKER_FIRST_SPARES;
    if (spare > most)
        spare = most;
    if (w->gap > 0) {
        const double want = NQ_WORKER_LEAD_S / w->gap + 1;
        spare = want >= (double)most ? most : (size_t)want;
    }
    return (size_t)w->threads + (spare ? spare : 1);
}

/* The batch the main thread works in: half the spares (at least one).
 * It asks for more chunks once it can ask for this many, and sends the
 * finished counts once this many wait.  Called with the lock held. */
static size_t refill_batch(const worker *w)
{
    const size_t spare = holding_target(w) - (size_t)w->threads;
    return spare / 2 > 1 ? spare / 2 : 1;
}

/* Chunks to ask rank 0 for, after the unsent counts are sent: what brings
 * the chunks queued and in hand up to the target.  Called with the lock
 * held. */
static size_t room(const worker *w)
{
    const size_t held = w->len + w->in_hand, target = holding_target(w);
    return held < target ? target - held : 0;
}

/* Counts an event and wakes the main thread's nap (nap_or_wake).  Called
 * with the lock held. */
static void wake_main(worker *w)
{
    w->events++;
    pthread_cond_signal(&w->wake);
}

/* Wakes the main thread when it has work: room for a batch of chunks (and
 * no REQUEST unanswered), two batches of counts to send (one goes with
 * each REQUEST; a second waits only while a REQUEST is unanswered), or a
 * thread found no chunk (`starved`: the queue ran dry, the end came, or a
 * stop).  Called with the lock held, by the compute threads. */
static void wake_if_due(worker *w, int starved)
{
    const size_t batch = refill_batch(w);
    if (starved || w->results_len >= 2 * batch || (!w->asking && room(w) >= batch))
        wake_main(w);
}

static int worker_take(void *user, uint64_t *chunk)
{
    worker *w = user;
    int got = 0;
    pthread_mutex_lock(&w->lock);
    if (!atomic_load(&w->stop) && w->len == 0 && !w->end) {
        /* Starved (the spares did not cover the wait for rank 0's answer),
         * or at the end, until rank 0 says so: counted for the trace. */
        const double since = nq_now();
        w->starving++;
        wake_main(w); /* its naps shorten while we wait (nap_or_wake) */
        while (!atomic_load(&w->stop) && w->len == 0 && !w->end)
            pthread_cond_wait(&w->changed, &w->lock);
        w->starving--;
        w->starved++;
        w->starved_s += nq_now() - since;
    }
    if (!atomic_load(&w->stop) && w->len > 0) {
        *chunk = w->queue[w->head];
        w->head = (w->head + 1) % w->cap;
        w->len--;
        w->in_hand++;
        got = 1;
    }
    wake_if_due(w, !got);
    pthread_mutex_unlock(&w->lock);
    return got;
}

static void worker_done(void *user, uint64_t chunk, const nq_counts *counts)
{
    worker *w = user;
    pthread_mutex_lock(&w->lock);
    /* Room is certain: queued + in hand + unsent never exceeds cap. */
    nq_mpi_pack_counts(&w->results[w->results_len * NQ_MPI_RESULT_WORDS], chunk, counts);
    w->results_len++;
    w->in_hand--;
    /* The rank's pace: the mean gap between finished chunks, which with
     * every thread busy is a chunk's time divided by the threads. */
    const double now = nq_now();
    if (w->last_done > 0)
        w->gap = w->gap > 0 ? 0.875 * w->gap + 0.125 * (now - w->last_done) : now - w->last_done;
    w->last_done = now;
    if (w->results_len == 1)
        w->first_result = now;
    wake_if_due(w, 0);
    pthread_mutex_unlock(&w->lock);
}

/* The team's on_finish hook: every compute thread has stopped, so the
 * main thread can say goodbye now rather than at the end of its nap. */
static void team_finished(void *user)
{
    worker *w = user;
    pthread_mutex_lock(&w->lock);
    wake_main(w);
    pthread_mutex_unlock(&w->lock);
}

/* The count of chunks taken or done, read before a poll. */
static unsigned events(worker *w)
{
    pthread_mutex_lock(&w->lock);
    const unsigned e = w->events;
    pthread_mutex_unlock(&w->lock);
    return e;
}

/* Sleeps until a compute thread wakes the main thread (wake_if_due() or
 * team_finished(); not at all when one did since the poll began, when
 * `seen` was read) or for at most: while a REQUEST is unanswered and the
 * answer is urgent, nq_mpi_nap's short and growing nap (the first answer,
 * before which the threads have nothing to do and which rank 0 gives
 * quickly; or one that a thread waits for, its core idle anyway); while
 * another is, until NQ_WORKER_ASK_FIRST_S after it went out (`asked_at`),
 * and NQ_WORKER_ASK_NAP_NS once that is past, so the answer is taken
 * soon; else NQ_WORKER_IDLE_NAP_S. */
static void nap_or_wake(worker *w, unsigned seen, int asking, double asked_at)
{
    long nap = (long)(NQ_WORKER_IDLE_NAP_S * 1e9);
    pthread_mutex_lock(&w->lock);
    const int starving = w->starving > 0;
    pthread_mutex_unlock(&w->lock);
    if (asking && (!w->answered || starving)) {
        nap = w->quick_ns;
        w->quick_ns = nap * 2 > NQ_MPI_NAP_MAX_NS ? NQ_MPI_NAP_MAX_NS : nap * 2;
    } else if (asking) {
        const double first = asked_at + NQ_WORKER_ASK_FIRST_S - nq_now();
        nap = first * 1e9 > NQ_WORKER_ASK_NAP_NS ? (long)(first * 1e9) : NQ_WORKER_ASK_NAP_NS;
    }
    nq_mpi_nap_unless_woken(&w->lock, &w->wake, &w->events, seen, nap);
}

/* What the main thread should do now: *request when there is room for a
 * batch of chunks and no REQUEST unanswered (no more come after the end
 * or a stop); *results when counts wait and a REQUEST goes out, or two
 * batches of them wait, or the oldest waited NQ_WORKER_RESULT_AGE_S, or
 * the threads hold no chunk (the end is near, or here). */
static void due(worker *w, int pending, int *request, int *results)
{
    pthread_mutex_lock(&w->lock);
    const size_t batch = refill_batch(w);
    *request = !pending && !w->end && !atomic_load(&w->stop) && room(w) >= batch;
    *results = w->results_len > 0 &&
               (*request || w->results_len >= 2 * batch || w->len + w->in_hand == 0 ||
                nq_now() - w->first_result >= NQ_WORKER_RESULT_AGE_S);
    pthread_mutex_unlock(&w->lock);
}

/* Sends the finished chunks' counts to rank 0, unless the last RESULT is
 * still in flight (they go with the next one).  Returns 1 if any were
 * sent.  Not MPI_Send: a message too long to be sent inline is complete
 * only once rank 0 took it, and a blocking send would spin a core until
 * rank 0's next poll. */
static int send_results(worker *w, uint64_t *out)
{
    if (w->result_req != MPI_REQUEST_NULL) {
        int sent = 0;
        MPI_Test(&w->result_req, &sent, MPI_STATUS_IGNORE);
        if (!sent)
            return 0;
    }
    pthread_mutex_lock(&w->lock);
    size_t k = w->results_len;
    memcpy(out, w->results, k * NQ_MPI_RESULT_WORDS * sizeof *out);
    w->results_len = 0;
    pthread_mutex_unlock(&w->lock);
    if (k) {
        MPI_Isend(out, (int)(k * NQ_MPI_RESULT_WORDS), MPI_UINT64_T, 0, NQ_MPI_TAG_RESULT,
                  MPI_COMM_WORLD, &w->result_req);
        w->result_messages++;
        w->results_sent += k;
        w->last_sent = nq_now();
    }
    return k > 0;
}

static void set_stop(worker *w)
{
    pthread_mutex_lock(&w->lock);
    atomic_store(&w->stop, 1);
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
}

/* Obeys a STOP from rank 0 or the local cancel flag.  Returns 1 if a STOP
 * arrived. */
static int check_stop(worker *w, atomic_int *cancel)
{
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(0, NQ_MPI_TAG_STOP, MPI_COMM_WORLD, &flag, &st);
    if (flag) {
        MPI_Recv(NULL, 0, MPI_UINT64_T, 0, NQ_MPI_TAG_STOP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        set_stop(w);
    }
    if (cancel && atomic_load(cancel) && !atomic_load(&w->stop))
        set_stop(w);
    return flag;
}

/* Asks rank 0 for as many chunks as the queue has room for, unless a
 * request is pending, no more will come, or the rank is stopping.
 * Returns 1 if a request went out. */
static int request_chunks(worker *w, uint64_t *assign, MPI_Request *pending)
{
    if (*pending != MPI_REQUEST_NULL || w->end || atomic_load(&w->stop))
        return 0;
    pthread_mutex_lock(&w->lock);
    /* What brings the chunks queued and in hand up to the target, as far
     * as the buffers allow: queued, in hand and unsent counts together
     * never exceed cap.  Unsent counts do not shrink the ask otherwise: a
     * RESULT still in flight (rank 0 takes it at its next poll) holds the
     * next counts back, and must not starve the threads too. */
    const size_t working = w->len + w->in_hand, target = holding_target(w);
    const size_t free = w->cap - working - w->results_len;
    uint64_t want = working < target ? target - working : 0;
    if (want > free)
        want = free;
    pthread_mutex_unlock(&w->lock);
    if (want == 0)
        return 0;
    MPI_Irecv(assign, (int)w->cap, MPI_UINT64_T, 0, NQ_MPI_TAG_ASSIGN, MPI_COMM_WORLD, pending);
    MPI_Send(&want, 1, MPI_UINT64_T, 0, NQ_MPI_TAG_REQUEST, MPI_COMM_WORLD);
    pthread_mutex_lock(&w->lock);
    w->asking = 1;
    pthread_mutex_unlock(&w->lock);
    w->requests++;
    w->last_sent = w->asked_at = nq_now();
    return 1;
}

/* Sends a heartbeat when rank 0 heard nothing from us for a heartbeat
 * interval and the last one has arrived.  It is a synchronous send, done
 * only once rank 0 took it, so a stopped rank 0 finds one heartbeat per
 * rank waiting, not one per interval.  Returns 1 if one went out. */
static int heartbeat(worker *w)
{
    int arrived = 1;
    if (w->beat_req != MPI_REQUEST_NULL)
        MPI_Test(&w->beat_req, &arrived, MPI_STATUS_IGNORE);
    const double now = nq_now();
    if (!arrived || now - w->last_sent < w->beat)
        return 0;
    MPI_Issend(NULL, 0, MPI_BYTE, 0, NQ_MPI_TAG_HEARTBEAT, MPI_COMM_WORLD, &w->beat_req);
    w->beats++;
    w->last_sent = now;
    return 1;
}

/* Queues the chunks of an ASSIGN that arrived (none: the end).  Returns 1
 * if one did. */
static int receive_chunks(worker *w, const uint64_t *assign, MPI_Request *pending)
{
    int flag = 0, k = 0;
    MPI_Status st;
    if (*pending == MPI_REQUEST_NULL)
        return 0;
    MPI_Test(pending, &flag, &st);
    if (!flag)
        return 0;
    MPI_Get_count(&st, MPI_UINT64_T, &k);
    pthread_mutex_lock(&w->lock);
    for (int i = 0; i < k; i++)
        w->queue[(w->head + w->len++) % w->cap] = assign[i];
    if (k == 0)
        w->end = 1;
    w->asking = 0;
    w->answered = 1;
    w->quick_ns = NQ_MPI_NAP_MIN_NS;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
    return 1;
}

/* The main thread's loop: keeps the queue topped up and the results
 * flowing until the team is done and rank 0 owes no answer, or the team
 * stopped: then an unanswered REQUEST stays *pending, and rank 0 answers
 * it with the end once it has our BYE. */
static void serve(worker *w, const nq_mpi_team *team, int team_started, atomic_int *cancel,
                  uint64_t *assign, uint64_t *outbox, MPI_Request *pending)
{
    for (;;) {
        w->polls++;
        const unsigned seen = events(w);
        check_stop(w, cancel);
        receive_chunks(w, assign, pending);
        int request, results;
        due(w, *pending != MPI_REQUEST_NULL, &request, &results);
        if (results) /* first: the REQUEST then asks for their room too */
            send_results(w, outbox);
        if (request)
            request_chunks(w, assign, pending);
        heartbeat(w);
        if ((!team_started || nq_mpi_team_finished(team)) &&
            (*pending == MPI_REQUEST_NULL || atomic_load(&w->stop)))
            return;
        nap_or_wake(w, seen, *pending != MPI_REQUEST_NULL, w->asked_at);
    }
}

int nq_mpi_work(nq_job *job, uint64_t chunk_units, int threads, double rank_timeout,
                atomic_int *cancel, const atomic_int *signal_seen)
{
    MPI_Request pending = MPI_REQUEST_NULL;
    worker w;
    memset(&w, 0, sizeof w);
    w.beat = nq_mpi_heartbeat_interval(rank_timeout);
    w.last_sent = nq_now();
    w.beat_req = MPI_REQUEST_NULL;
    w.result_req = MPI_REQUEST_NULL;
    w.threads = threads;
    w.quick_ns = NQ_MPI_NAP_MIN_NS;
    /* One chunk per thread and up to NQ_WORKER_MAX_SPARE spares each, in
     * what one ASSIGN may carry. */
    w.cap = (size_t)threads * (1 + NQ_WORKER_MAX_SPARE);
    if (w.cap > NQ_MPI_MAX_ASSIGN)
        w.cap = NQ_MPI_MAX_ASSIGN;
    w.queue = malloc(w.cap * sizeof *w.queue);
    w.results = malloc(w.cap * NQ_MPI_RESULT_WORDS * sizeof *w.results);
    uint64_t *assign = malloc(w.cap * sizeof *assign);
    uint64_t *outbox = malloc(w.cap * NQ_MPI_RESULT_WORDS * sizeof *outbox);
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.changed, NULL);
    pthread_cond_init(&w.wake, NULL);
    atomic_init(&w.stop, 0);

    int ret = (w.queue && w.results && assign && outbox) ? 0 : NQ_ENOMEM;
    nq_mpi_team team = {
        .job = job,
        .chunk_units = chunk_units,
        .threads = threads,
        .cancel = cancel,
        .stop = &w.stop,
        .source = {worker_take, worker_done, &w},
        .on_finish = team_finished,
        .on_finish_user = &w,
    };
    int team_started = 0;
    if (ret == 0 && (ret = nq_mpi_team_start(&team)) == 0)
        team_started = 1;
    if (ret == 0) {
        serve(&w, &team, team_started, cancel, assign, outbox, &pending);
        ret = nq_mpi_team_join(&team);
        nq_mpi_wait_napping(&w.result_req); /* then the last counts go */
        send_results(&w, outbox);
    }
    /* No send may be left pending at MPI_Finalize; rank 0 serves us until
     * our BYE, so the heartbeat and the counts in flight are taken soon. */
    nq_mpi_wait_napping(&w.beat_req);
    nq_mpi_wait_napping(&w.result_req);
    /* Said even after a failure, so rank 0 is not left waiting. */
    const int own_signal = cancel && atomic_load(cancel) && signal_seen ? atomic_load(signal_seen) : 0;
    uint64_t bye[NQ_MPI_BYE_WORDS] = {(uint64_t)(int64_t)ret, (uint64_t)own_signal};
    MPI_Send(bye, NQ_MPI_BYE_WORDS, MPI_UINT64_T, 0, NQ_MPI_TAG_BYE, MPI_COMM_WORLD);
    /* The REQUEST a stopped rank left unanswered gets its answer now. */
    nq_mpi_wait_napping(&pending);
    nq_mpi_trace("sent %llu requests, %llu result messages (%llu chunks), %llu heartbeats "
                 "in %llu polls; threads waited for chunks %llu times, %.3f s in all",
                 w.requests, w.result_messages, w.results_sent, w.beats, w.polls, w.starved,
                 w.starved_s);

    pthread_cond_destroy(&w.wake);
    pthread_cond_destroy(&w.changed);
    pthread_mutex_destroy(&w.lock);
    free(outbox);
    free(assign);
    free(w.results);
    free(w.queue);
    return ret;
}
