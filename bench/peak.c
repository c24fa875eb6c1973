/*
 * peak.c - the peak resident memory of one count, for the sweep's peak
 * column.
 *
 * Linux keeps each process's resident high-water mark (VmHWM in
 * /proc/self/status) and resets it to the current resident size when "5"
 * is written to /proc/self/clear_refs.  Resetting before a count and
 * reading after gives that count's peak, from a floor of what the bench
 * process already holds (a few MiB).  Where the reset is refused (other
 * systems, old kernels), the high-water mark over the process's whole life
 * is what can be had: still an upper bound, and said so by
 * bench_peak_reset()'s result.
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "bench.h"

int bench_peak_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return 0;
    const int wrote = fputs("5", f) >= 0;
    /* The kernel acts on the write, which fclose() flushes. */
    return fclose(f) == 0 && wrote;
}

long bench_peak_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        long kib = -1;
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "VmHWM:", 6) == 0 && sscanf(line + 6, "%ld", &kib) == 1)
                break;
        fclose(f);
        if (kib >= 0)
            return kib;
    }
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        return ru.ru_maxrss; /* KiB on Linux */
    return -1;
}
