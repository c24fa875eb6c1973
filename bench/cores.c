/*
 * cores.c - whether the logical CPUs this process may use run equally fast.
 *
 * On a virtual machine a CPU may share its physical core with another
 * guest's busy hardware thread.  Nothing in /proc says so (such hosts often
 * report no steal time) and the load average reads 0, yet everything timed
 * on that CPU takes longer, by a third on a 2-core VM of CI's kind, and the
 * next minute not at all.  A scaling curve then bends for no reason of the
 * program's, and an A/B comparison that puts one side on the slow CPU is
 * wrong.  So before a sweep the bench runs the same fixed work on every CPU
 * at once, one thread pinned to each, and reports the slowest CPU's time
 * over the fastest's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "core/util.h"

/* How long each CPU works (seconds): long enough that timer and start-up
 * jitter stay near a percent, short enough to go unnoticed before a sweep. */
#define PROBE_SECONDS 0.1
/* The board the work counts: a few hundred microseconds a pass. */
#define PROBE_N 10
#define PROBE_N_TOTAL 724

/* The probe's work: solutions of an n x n board by a plain bitmask search,
 * its own and not the library's, so that no change to the engines changes
 * what the probe measures.  Branchy integer work that stays in the L1
 * cache, as the search kernels do. */
static uint64_t probe_count(uint32_t all, uint32_t cols, uint32_t diag_left, uint32_t diag_right)
{
    if (cols == all)
        return 1;
    uint64_t n = 0;
    /* free squares of this row: no column or diagonal already taken */
    for (uint32_t free = all & ~(cols | diag_left | diag_right); free; free &= free - 1) {
        const uint32_t bit = free & -free; /* the lowest free square */
        n += probe_count(all, cols | bit, (diag_left | bit) << 1, (diag_right | bit) >> 1);
    }
    return n;
}

/* Runs `passes` counts of a board whose side is read through a volatile,
 * so that the compiler cannot fold the passes into one.  Returns the
 * number of passes whose count was right (all of them on a sound CPU). */
static long probe_work(long passes)
{
    static volatile int side = PROBE_N;
    long right = 0;
    for (long i = 0; i < passes; i++)
        right += probe_count((UINT32_C(1) << side) - 1, 0, 0, 0) == PROBE_N_TOTAL;
    return right;
}

/* The start line: the threads wait until every one is pinned and started,
 * so that all CPUs work at once, as a sweep's threads do. */
typedef struct probe_start {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int state; /* 0: wait, 1: run, -1: give up (a thread could not start) */
} probe_start;

typedef struct probe_thread {
    pthread_t thread;
    probe_start *start;
    long passes;
    double seconds;
    long right;
} probe_thread;

static void *probe_main(void *arg)
{
    probe_thread *t = arg;
    pthread_mutex_lock(&t->start->lock);
    while (t->start->state == 0)
        pthread_cond_wait(&t->start->changed, &t->start->lock);
    const int run = t->start->state > 0;
    pthread_mutex_unlock(&t->start->lock);
    if (!run)
        return NULL;
    const double t0 = nq_now();
    t->right = probe_work(t->passes);
    t->seconds = nq_now() - t0;
    return NULL;
}

/* Sets the start line's state and wakes every thread waiting at it. */
static void probe_release(probe_start *start, int state)
{
    pthread_mutex_lock(&start->lock);
    start->state = state;
    pthread_cond_broadcast(&start->changed);
    pthread_mutex_unlock(&start->lock);
}

int bench_core_spread(bench_machine *m)
{
    m->core_spread = 0;
    m->core_slowest = m->core_fastest = -1;
    cpu_set_t mine;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        return -errno;
    int cpus[CPU_SETSIZE], count = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mine))
            cpus[count++] = c;
    if (count == 0)
        return -EINVAL;
    /* Calibrate on this thread: double the passes until they take a tenth
     * of the probe's time, then scale to the whole of it. */
    long passes = 1;
    double took;
    for (;;) {
        const double t0 = nq_now();
        probe_work(passes);
        took = nq_now() - t0;
        if (took >= PROBE_SECONDS / 10 || passes > (1L << 40))
            break;
        passes *= 2;
    }
    passes = (long)((double)passes * PROBE_SECONDS / (took > 0 ? took : 1e-9)) + 1;

    probe_thread *t = calloc((size_t)count, sizeof *t);
    if (!t)
        return -ENOMEM;
    probe_start start = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    int started = 0, err = 0;
    for (; started < count; started++) {
        pthread_attr_t attr;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpus[started], &one);
        t[started] = (probe_thread){.start = &start, .passes = passes};
        if (pthread_attr_init(&attr) != 0) {
            err = -ENOMEM;
            break;
        }
        int rc = pthread_attr_setaffinity_np(&attr, sizeof one, &one);
        if (rc == 0)
            rc = pthread_create(&t[started].thread, &attr, probe_main, &t[started]);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            err = -rc;
            break;
        }
    }
    probe_release(&start, err ? -1 : 1);
    for (int i = 0; i < started; i++)
        pthread_join(t[i].thread, NULL);
    if (err) {
        free(t);
        return err;
    }
    double slowest = 0, fastest = 0;
    int wrong = 0;
    for (int i = 0; i < count; i++) {
        wrong |= t[i].right != passes;
        if (m->core_slowest < 0 || t[i].seconds > slowest) {
            slowest = t[i].seconds;
            m->core_slowest = cpus[i];
        }
        if (m->core_fastest < 0 || t[i].seconds < fastest) {
            fastest = t[i].seconds;
            m->core_fastest = cpus[i];
        }
    }
    free(t);
    if (wrong)
        return -EIO;
    m->core_cpus = count;
    m->core_spread = fastest > 0 ? slowest / fastest : 0;
    return 0;
}

int bench_cores_uneven(const bench_machine *m)
{
    return m->core_spread > BENCH_UNEVEN_LIMIT;
}

int bench_core_warning(const bench_machine *m, int err, char *out, size_t size)
{
    if (err)
        snprintf(out, size, "could not time the CPUs against each other: %s", strerror(-err));
    else if (bench_cores_uneven(m))
        snprintf(out, size, "the CPUs ran the same work at uneven speeds: CPU %d took %.2f times "
                 "as long as CPU %d (other work on it, or another machine's on its physical core",
                 m->core_slowest, m->core_spread, m->core_fastest);
    else
        return 0;
    return 1;
}

int bench_cores_report(void)
{
    bench_machine m;
    memset(&m, 0, sizeof m);
    const int err = bench_core_spread(&m);
    if (err) {
        char why[256];
        bench_core_warning(&m, err, why, sizeof why);
        fprintf(stderr, "nqueens-bench: %s\n", why);
        return 1;
    }
    printf("cores: %d CPU%s at once, the slowest (CPU %d) %.3f times the fastest's time "
           "(CPU %d): %s\n",
           m.core_cpus, m.core_cpus == 1 ? "" : "s", m.core_slowest, m.core_spread,
           m.core_fastest, bench_cores_uneven(&m) ? "uneven" : "even");
    return 0;
}
