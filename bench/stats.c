/*
 * stats.c - the process CPU clock, the median, mean and standard deviation
 * every timing in the bench goes through, so the sweep and the profile
 * measure and summarize alike.
 */
#include <math.h>
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

void bench_mean_sd(const double *v, int count, double *mean, double *sd)
{
    double sum = 0;
    for (int i = 0; i < count; i++)
        sum += v[i];
    *mean = count > 0 ? sum / count : NAN;
    if (count < 2) {
        *sd = NAN;
        return;
    }
    double sq = 0;
    for (int i = 0; i < count; i++)
        sq += (v[i] - *mean) * (v[i] - *mean);
    *sd = sqrt(sq / (count - 1));
}
