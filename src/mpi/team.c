/*
 * team.c - the compute threads of one rank (see team.h).
 *
 * The team is the chunk runner (run/pool.h) fed by a streaming source:
 * the rank's take/done calls.  The runner gives every thread one scratch
 * buffer for the whole run and does the stop checks and the per-thread
 * sums, exactly as for nq_count(); this file only starts it on its own
 * thread and tells the rank's main thread when it is done.
 */
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/engine.h"
#include "mpi/team.h"
#include "mpi/trace.h"
#include "run/pool.h"

/* The runner's streaming source: the rank's own. */
static int team_take(void *user, uint64_t *chunk)
{
    nq_mpi_team *t = user;
    const int got = t->source.take(t->source.user, chunk);
    if (got)
        nq_mpi_trace_once(&t->first_taken, "first chunk taken");
    return got;
}

static void team_done(void *user, uint64_t chunk, const nq_counts *counts)
{
    const nq_mpi_team *t = user;
    t->source.done(t->source.user, chunk, counts);
}

static void *team_main(void *arg)
{
    nq_mpi_team *t = arg;
#ifdef _OPENMP
    /* OpenMP's thread count is per native thread, and this one starts with
     * the runtime's default (every core of the node): what the prepare hook
     * runs on OpenMP (rank 0's duration estimate) must stay on the rank's
     * own threads, beside the other ranks on the node. */
    omp_set_num_threads(t->threads);
#endif
    if (t->prepare)
        t->prepare(t->prepare_user);
    const nq_pool_run run = {
        .job = t->job,
        .first_unit = 0,
        .unit_count = nq_job_units(t->job),
        .units_per_chunk = t->chunk_units,
        .source = {.take = team_take, .done = team_done, .user = t},
        .threads = t->threads,
        .schedule = t->job->schedule,
        .cancel = t->cancel,
        .stop = t->stop,
    };
    nq_counts ignored = {0, 0}; /* the rank reports each chunk through done */
    const int ret = nq_pool_solve(&run, &ignored);
    nq_mpi_trace("compute threads done");
    if (ret < 0 && ret != NQ_ECANCELLED)
        atomic_store(&t->error, ret);
    atomic_store(&t->finished, 1);
    if (t->on_finish)
        t->on_finish(t->on_finish_user);
    return NULL;
}

int nq_mpi_team_start(nq_mpi_team *team)
{
    atomic_init(&team->finished, 0);
    atomic_init(&team->error, 0);
    atomic_init(&team->first_taken, 0);
    if (pthread_create(&team->thread, NULL, team_main, team) != 0)
        return NQ_ENOMEM;
    return 0;
}

int nq_mpi_team_finished(const nq_mpi_team *team)
{
    return atomic_load((atomic_int *)&team->finished);
}

int nq_mpi_team_join(nq_mpi_team *team)
{
    pthread_join(team->thread, NULL);
    int err = atomic_load(&team->error);
    if (err < 0)
        return err;
    if ((team->cancel && atomic_load(team->cancel)) || (team->stop && atomic_load(team->stop)))
        return NQ_ECANCELLED;
    return 0;
}
