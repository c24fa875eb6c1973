/*
 * project.c - nqueens-bench --project S: the core-hours a whole count of N
 * would take, from the measured CPU time of S of its units.
 *
 * S runs of PROJECT_RUN consecutive units, spread evenly over the job (one
 * from the middle of each of S equal stretches), are each solved on one
 * thread as a run solves them (one scratch, which later units reuse), and
 * timed by the CPU time of that thread, so other load on the machine
 * barely moves it.  The projection is the mean unit time times the number
 * of units, with the standard error of that mean scaled alike; what a run
 * adds to the units (planning, the pool) is seconds, and left out.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"

#define PROJECT_RUN 8

static double thread_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int bench_project(const nq_settings *s, int samples)
{
    nq_settings one = *s;
    one.threads = 1; /* units are timed one per thread, side by side */
    nq_job *job = NULL;
    int ret = nq_job_create(&job, &one);
    if (ret < 0)
        return ret;
    const uint64_t units = nq_job_units(job);
    if ((uint64_t)samples * PROJECT_RUN > units)
        samples = (int)(units / PROJECT_RUN) + 1;
    double *seconds = calloc((size_t)samples, sizeof *seconds);
    if (!seconds) {
        nq_job_free(&job);
        return NQ_ENOMEM;
    }
    const int threads = s->threads > 0 ? s->threads : 1;
    int error = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
#endif
    for (int i = 0; i < samples; i++) {
        uint64_t u = (uint64_t)(((unsigned __int128)(2 * (uint64_t)i + 1) * units) /
                                (2 * (uint64_t)samples));
        const uint64_t len = units < PROJECT_RUN ? units : PROJECT_RUN;
        if (u + len > units)
            u = units - len;
        nq_counts c = {0, 0};
        const double t0 = thread_cpu_now();
        const int r = nq_job_solve(job, u, len, 1, NULL, &c);
        seconds[i] = (thread_cpu_now() - t0) / (double)len;
        if (r < 0) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            error = r;
        }
    }
    nq_job_free(&job);
    double sum = 0, sq = 0;
    for (int i = 0; i < samples; i++)
        sum += seconds[i];
    const double mean = sum / samples;
    for (int i = 0; i < samples; i++)
        sq += (seconds[i] - mean) * (seconds[i] - mean);
    const double se = samples > 1 ? sqrt(sq / (samples - 1) / samples) : 0;
    free(seconds);
    if (error < 0)
        return error;
    printf("project: %s N=%d, %" PRIu64 " units, %d x %d timed: %.4g s a unit (+- %.2g), "
           "%.4g core-hours (+- %.2g)\n",
           nq_engine_name(s->engine), s->n, units, samples, PROJECT_RUN, mean, se,
           mean * (double)units / 3600, se * (double)units / 3600);
    fflush(stdout);
    return 0;
}
