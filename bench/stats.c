/*
 * stats.c - the clocks and the median every timing in the bench goes
 * through, so the sweep and the profile measure and summarize alike.
 */
#include <stdlib.h>
#include <time.h>

#include "bench.h"

double bench_cpu_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int bench_compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int count)
{
    qsort(v, (size_t)count, sizeof *v, bench_compare_double);
    return count % 2 ? v[count / 2] : (v[count / 2 - 1] + v[count / 2]) / 2;
}
