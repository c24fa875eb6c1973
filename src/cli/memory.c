/*
 * memory.c - the memory check before a count (see memory.h).
 *
 * Linux only reads: /proc/meminfo, /proc/self/cgroup and the cgroup's
 * files.  Where none can be read, nothing is known and nothing is refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/memory.h"

/* What is known of the memory available: the least figure found, and
 * where it came from. */
typedef struct available {
    uint64_t bytes; /* UINT64_MAX when nothing is known */
    const char *source;
} available;

static void consider(available *a, uint64_t bytes, const char *source)
{
    if (bytes < a->bytes) {
        a->bytes = bytes;
        a->source = source;
    }
}

/* The first whole number in file `path` ("max" reads as no limit).
 * Returns 1 and sets *value, or 0 when the file cannot be read. */
static int read_number(const char *path, uint64_t *value)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[64] = "";
    const int got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!got)
        return 0;
    if (!strncmp(line, "max", 3)) {
        *value = UINT64_MAX;
        return 1;
    }
    char *end = NULL;
    errno = 0;
    const unsigned long long v = strtoull(line, &end, 10);
    if (errno || end == line)
        return 0;
    *value = v;
    return 1;
}

/* MemAvailable from /proc/meminfo, in bytes. */
static void from_meminfo(available *a)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return;
    char line[128];
    unsigned long long kib;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
            consider(a, (uint64_t)kib * 1024, "MemAvailable in /proc/meminfo");
            break;
        }
    fclose(f);
}

/* A cgroup's limit less its usage, from the files named `limit` and
 * `usage` in directory `dir`.  Returns 0 when there is no limit file. */
static int from_cgroup_dir(available *a, const char *dir, const char *limit, const char *usage,
                           const char *source)
{
    char path[4096];
    uint64_t max, used = 0;
    snprintf(path, sizeof path, "%s/%s", dir, limit);
    if (!read_number(path, &max))
        return 0;
    if (max == UINT64_MAX)
        return 1;
    snprintf(path, sizeof path, "%s/%s", dir, usage);
    if (!read_number(path, &used))
        used = 0;
    consider(a, max > used ? max - used : 0, source);
    return 1;
}

/* The limits of the cgroups /proc/self/cgroup names (v2 "0::/path", v1
 * "N:...memory...:/path").  In a container the path may be the host's
 * while the container's own cgroup is mounted at the root: then the root's
 * files are read. */
static void from_cgroups(available *a)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return;
    char line[4096], dir[4096 + 64];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *controllers = strchr(line, ':');
        char *path = controllers ? strchr(controllers + 1, ':') : NULL;
        if (!path)
            continue;
        *path++ = '\0';
        controllers++;
        if (!strcmp(line, "0") && !*controllers) {
            snprintf(dir, sizeof dir, "/sys/fs/cgroup%s", path);
            if (!from_cgroup_dir(a, dir, "memory.max", "memory.current",
                                 "the cgroup's memory.max less its use"))
                from_cgroup_dir(a, "/sys/fs/cgroup", "memory.max", "memory.current",
                                "the cgroup's memory.max less its use");
        } else if (strstr(controllers, "memory")) {
            snprintf(dir, sizeof dir, "/sys/fs/cgroup/memory%s", path);
            if (!from_cgroup_dir(a, dir, "memory.limit_in_bytes", "memory.usage_in_bytes",
                                 "the cgroup's memory.limit_in_bytes less its use"))
                from_cgroup_dir(a, "/sys/fs/cgroup/memory", "memory.limit_in_bytes",
                                "memory.usage_in_bytes",
                                "the cgroup's memory.limit_in_bytes less its use");
        }
    }
    fclose(f);
}

/* The memory available to this process; UINT64_MAX when unknown. */
static available memory_available(void)
{
    available a = {UINT64_MAX, NULL};
    const char *forced = getenv("NQ_MEMORY_AVAILABLE");
    if (forced && *forced) {
        char *end = NULL;
        errno = 0;
        const unsigned long long v = strtoull(forced, &end, 10);
        if (!errno && *end == '\0') {
            a.bytes = v;
            a.source = "NQ_MEMORY_AVAILABLE";
            return a;
        }
    }
    from_meminfo(&a);
    from_cgroups(&a);
    return a;
}

/* Bytes as a short figure: "285.3 GB". */
static const char *human(uint64_t bytes, char *buf, size_t size)
{
    static const char *const unit[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1000 && u < 5) {
        v /= 1000;
        u++;
    }
    snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return buf;
}

int nq_cli_memory_check(const char *prog, const nq_settings *s, int threads)
{
    const enum nq_engine engine =
        s->engine == NQ_ENGINE_AUTO ? nq_auto_engine(s->n, threads) : s->engine;
    if (engine != NQ_ENGINE_MITM)
        return 0;
    const size_t need = nq_mitm_memory_estimate_within(s->n, threads, s->memory);
    const available a = memory_available();
    if (need == 0 || need <= a.bytes)
        return 0;
    char needed[32], have[32], advice[96];
    if (s->memory && nq_mitm_memory_estimate_within(s->n, threads, a.bytes) <= a.bytes) {
        /* Shorter batches fit: say so before taking threads away. */
        snprintf(advice, sizeof advice, "a smaller budget would fit (--memory %" PRIu64 "M)",
                 a.bytes >> 20);
    } else {
        /* The estimate grows with the threads: the most that fit, by
         * bisection (fit fits or is 0, threads does not). */
        int fit = 0, over = threads;
        while (over - fit > 1) {
            const int mid = fit + (over - fit) / 2;
            if (nq_mitm_memory_estimate_within(s->n, mid, s->memory) <= a.bytes)
                fit = mid;
            else
                over = mid;
        }
        if (fit > 0)
            snprintf(advice, sizeof advice, "%d thread%s would fit (-t %d)", fit,
                     fit == 1 ? "" : "s", fit);
        else
            snprintf(advice, sizeof advice, "it does not fit even on 1 thread");
    }
    fprintf(stderr,
            "%s: engine mitm needs about %s for N=%d on %d thread%s, more than the %s available "
            "(%s): %s\n",
            prog, human(need, needed, sizeof needed), s->n, threads, threads == 1 ? "" : "s",
            human(a.bytes, have, sizeof have), a.source, advice);
    return 2;
}
