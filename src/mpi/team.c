/*
 * team.c - the compute threads of one rank (see team.h).
 */
#include "core/engine.h"
#include "mpi/team.h"

/* 1 when the team must stop before its next unit. */
static int halted(const nq_mpi_team *t)
{
    return (t->cancel && atomic_load_explicit(t->cancel, memory_order_relaxed)) ||
           (t->stop && atomic_load_explicit(t->stop, memory_order_relaxed)) ||
           atomic_load_explicit(&t->error, memory_order_relaxed);
}

/* Solves chunk c into *sum.  Returns 0, NQ_ECANCELLED when halted before the
 * chunk was complete (its partial sum is then meaningless), or an error. */
static int solve_chunk(nq_mpi_team *t, uint64_t c, nq_counts *sum)
{
    const uint64_t units = nq_job_units(t->job);
    const uint64_t begin = c * t->chunk_units;
    const uint64_t end = begin + t->chunk_units < units ? begin + t->chunk_units : units;
    *sum = (nq_counts){0, 0};
    for (uint64_t u = begin; u < end; u++) {
        if (halted(t))
            return NQ_ECANCELLED;
        nq_counts one;
        int ret = nq_job_solve_unit(t->job, u, &one);
        if (ret < 0)
            return ret;
        nq_counts_add(sum, &one);
    }
    return 0;
}

static void *team_main(void *arg)
{
    nq_mpi_team *t = arg;
#ifdef _OPENMP
#pragma omp parallel num_threads(t->threads)
#endif
    {
        uint64_t chunk;
        while (t->source.take(t->source.user, &chunk)) {
            nq_counts sum;
            int ret = solve_chunk(t, chunk, &sum);
            if (ret == NQ_ECANCELLED)
                break;
            if (ret < 0) {
                int none = 0;
                atomic_compare_exchange_strong(&t->error, &none, ret);
                break;
            }
            t->source.done(t->source.user, chunk, &sum);
        }
    }
    atomic_store(&t->finished, 1);
    return NULL;
}

int nq_mpi_team_start(nq_mpi_team *team)
{
    atomic_init(&team->finished, 0);
    atomic_init(&team->error, 0);
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
    if (halted(team))
        return NQ_ECANCELLED;
    return 0;
}
