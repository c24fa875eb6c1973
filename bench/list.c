/*
 * list.c - the bench's number lists ("14-17", "1,2,4", "1,4-6") and
 * integers, parsed without exiting so that a fuzzer can drive them (see
 * test/fuzz/); nqueens_bench.c turns a failure into a usage error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

int bench_parse_int(const char *text, size_t len, long lo, long hi, int *value)
{
    /* Nine digits at most: v stays far below LONG_MAX and INT_MAX. */
    if (len == 0 || len > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        v = v * 10 + (text[i] - '0');
    }
    if (v < lo || v > hi)
        return -1;
    *value = (int)v;
    return 0;
}

void bench_one_line(char *text)
{
    for (unsigned char *p = (unsigned char *)text; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
}

/* Writes a printf-style message into err, one line, and returns -1. */
static int fail(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    bench_one_line(err);
    return -1;
}

/* Adds a..b to the list, skipping values it holds.  Returns 0, or -1 when
 * the list would exceed BENCH_MAX_LIST values. */
static int add_range(bench_list *list, int a, int b)
{
    for (int v = a; v <= b; v++) {
        int seen = 0;
        for (int i = 0; i < list->count; i++)
            seen |= list->values[i] == v;
        if (seen)
            continue;
        if (list->count == BENCH_MAX_LIST)
            return -1;
        list->values[list->count++] = v;
    }
    return 0;
}

int bench_parse_list(const char *text, long lo, long hi, const char *what, bench_list *list,
                     char *err, size_t err_size)
{
    list->count = 0;
    const char *p = text;
    if (!*p)
        return fail(err, err_size, "empty %s list: expected values from %ld to %ld like 1,2,4 "
                    "or 1-4", what, lo, hi);
    for (;;) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *dash = memchr(p, '-', len);
        int a = 0, b = 0;
        if (dash ? bench_parse_int(p, (size_t)(dash - p), lo, hi, &a) < 0 ||
                       bench_parse_int(dash + 1, len - (size_t)(dash - p) - 1, lo, hi, &b) < 0
                 : bench_parse_int(p, len, lo, hi, &a) < 0)
            return fail(err, err_size, "invalid %s '%.*s' in '%s': expected values from %ld to "
                        "%ld", what, (int)len, p, text, lo, hi);
        if (!dash)
            b = a;
        if (a > b)
            return fail(err, err_size, "invalid %s range '%.*s': the first value exceeds the "
                        "last", what, (int)len, p);
        if (add_range(list, a, b) < 0)
            return fail(err, err_size, "too many values in %s list '%s' (at most %d)", what,
                        text, BENCH_MAX_LIST);
        if (!end)
            break;
        p = end + 1;
    }
    /* Ascending, so that 1 thread is timed before the counts compared with it. */
    for (int i = 1; i < list->count; i++)
        for (int j = i; j > 0 && list->values[j - 1] > list->values[j]; j--) {
            const int t = list->values[j];
            list->values[j] = list->values[j - 1];
            list->values[j - 1] = t;
        }
    return 0;
}
