/*
 * test_header.c - what the public header promises beside counting: its
 * version macros name the library it ships with, and the nq_u128 accessors
 * that foreign-function interfaces use give back every bit of a count.
 *
 * Also the progress snapshot's work_fraction and total_done, which the
 * header added after the first release: work_fraction -1 without an
 * estimate, else rising to 1; total_done, read through the accessors as an
 * FFI caller reads it, never falling and the exact total at the end.
 *
 * Run as `test_header VERSION` with meson's project version, so the header,
 * nq_version() and meson.build cannot drift apart: a release that raises
 * one and not the others fails here.  Prints one line per failed check and
 * exits 1 when any failed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <nqueens/nqueens.h>

static int failures;

/* Records a failed check with its message. */
static void check(int ok, const char *what)
{
    if (!ok) {
        printf("FAIL %s\n", what);
        failures++;
    }
}

/* The version as the macros spell it, "MAJOR.MINOR.PATCH". */
static void macro_version(char *buf, size_t size)
{
    snprintf(buf, size, "%d.%d.%d", NQ_VERSION_MAJOR, NQ_VERSION_MINOR, NQ_VERSION_PATCH);
}

/* Checks high, low and decimal of v against the halves it was built from
 * and its expected decimal text. */
static void check_u128(uint64_t high, uint64_t low, const char *decimal)
{
    const nq_u128 v = ((nq_u128)high << 64) | low;
    char buf[48], msg[160];
    snprintf(msg, sizeof msg, "halves of %s", decimal);
    check(nq_u128_high(&v) == high && nq_u128_low(&v) == low, msg);
    snprintf(msg, sizeof msg, "nq_u128_decimal of %s", decimal);
    check(nq_u128_decimal(&v, buf, sizeof buf) == buf && strcmp(buf, decimal) == 0, msg);
    /* Too small a buffer: NULL, for the text's length plus its NUL. */
    snprintf(msg, sizeof msg, "nq_u128_decimal of %s into %zu bytes", decimal, strlen(decimal));
    check(nq_u128_decimal(&v, buf, strlen(decimal)) == NULL, msg);
}

/* What the progress callback saw of work_fraction. */
typedef struct progress_seen {
    int calls, finals, falls, total_falls;
    double last, final_fraction;
    uint64_t last_total, final_total;
} progress_seen;

static void on_progress(const nq_progress *p, void *user)
{
    progress_seen *seen = user;
    if (seen->calls++ && p->work_fraction < seen->last)
        seen->falls++;
    seen->last = p->work_fraction;
    const uint64_t total = nq_u128_low(&p->total_done);
    if (nq_u128_high(&p->total_done) != 0 || total < seen->last_total)
        seen->total_falls++;
    seen->last_total = total;
    if (p->final) {
        seen->finals++;
        seen->final_fraction = p->work_fraction;
        seen->final_total = total;
    }
}

static void on_estimate(const nq_estimate *e, void *user)
{
    (void)e;
    (void)user;
}

/* Counts N=13 with mirror and progress reports, with or without an
 * estimate (which weighs the units); checks work_fraction. */
static void check_work_fraction(int with_estimate)
{
    nq_settings s;
    nq_result r;
    progress_seen seen = {0};
    nq_default_settings(&s);
    s.n = 13;
    s.engine = NQ_ENGINE_MIRROR;
    s.progress = on_progress;
    s.progress_user = &seen;
    s.progress_interval = 0.001;
    if (with_estimate)
        s.estimate = on_estimate;
    check(nq_count(&s, &r) == 0 && nq_u128_low(&r.total) == 73712, "N=13 with progress");
    check(seen.finals == 1, "one final progress report");
    check(seen.final_total == 73712, "total_done ends at the total");
    check(seen.total_falls == 0, "total_done never falls");
    if (with_estimate) {
        check(seen.final_fraction == 1.0, "work_fraction ends at 1 with an estimate");
        check(seen.falls == 0, "work_fraction never falls");
    } else {
        check(seen.final_fraction == -1.0, "work_fraction is -1 without an estimate");
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_header VERSION\n");
        return 2;
    }
    char from_macros[64];
    macro_version(from_macros, sizeof from_macros);
    printf("header %s, library %s, meson %s\n", from_macros, nq_version(), argv[1]);
    check(strcmp(from_macros, nq_version()) == 0, "NQ_VERSION_* == nq_version()");
    check(strcmp(from_macros, argv[1]) == 0, "NQ_VERSION_* == meson's project version");
    check(NQ_VERSION_NUMBER ==
              NQ_VERSION_MAJOR * 10000 + NQ_VERSION_MINOR * 100 + NQ_VERSION_PATCH,
          "NQ_VERSION_NUMBER");

    check_u128(0, 0, "0");
    check_u128(0, 14200, "14200");
    check_u128(0, UINT64_MAX, "18446744073709551615");
    check_u128(1, 0, "18446744073709551616");
    check_u128(UINT64_MAX, UINT64_MAX, "340282366920938463463374607431768211455");
    char buf[48];
    check(nq_u128_high(NULL) == 0 && nq_u128_low(NULL) == 0 &&
              nq_u128_decimal(NULL, buf, sizeof buf) == NULL,
          "NULL count");

    /* A real count read through the accessors, as an FFI caller reads it. */
    nq_settings s;
    nq_result r;
    nq_default_settings(&s);
    s.n = 10;
    check(nq_count(&s, &r) == 0, "nq_count(10)");
    check(nq_u128_high(&r.total) == 0 && nq_u128_low(&r.total) == 724, "N=10 total 724");
    check_work_fraction(0);
    check_work_fraction(1);
    return failures ? 1 : 0;
}
