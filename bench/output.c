/*
 * output.c - the sweep's CSV and JSON files.
 *
 * Both hold every timed run (not only the medians), so a reader can redo
 * the statistics, and both start with the machine description.  Each CSV
 * row repeats its case's median, speedup and efficiency: a test (or a
 * spreadsheet) can check them against the runs in the same file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

/* errno of the first failed write to stdout: a failed flush empties the
 * buffer, so by the time stdout is closed the reason would be gone. */
static int stdout_error;

/* Flushes and closes f; returns 0, or the errno of the failure (EIO when
 * an earlier write failed and its reason is gone). */
static int close_stream(FILE *f)
{
    errno = 0;
    int err = fflush(f) != 0 || ferror(f) ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && !err)
        err = errno ? errno : EIO;
    return err;
}

void bench_flush_stdout(void)
{
    errno = 0;
    if ((fflush(stdout) != 0 || ferror(stdout)) && !stdout_error)
        stdout_error = errno ? errno : EIO;
}

void bench_close_stdout(void)
{
    int err = close_stream(stdout);
    if (stdout_error)
        err = stdout_error;
    if (!err)
        return;
    fprintf(stderr, "nqueens-bench: cannot write to standard output: %s\n", strerror(err));
    _exit(1);
}

int bench_close_output(FILE *f, const char *path)
{
    const int err = close_stream(f);
    if (err)
        fprintf(stderr, "nqueens-bench: cannot write '%s': %s\n", path, strerror(err));
    return err != 0;
}

/* A number, or `none` (CSV: empty, JSON: null) when it is NaN. */
static void put_double(FILE *f, double v, const char *none)
{
    if (isnan(v))
        fputs(none, f);
    else
        fprintf(f, "%.6g", v);
}

/* Writes s as a JSON string (machine strings hold no control characters,
 * but quotes and backslashes are escaped all the same). */
static void put_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
    }
    fputc('"', f);
}

int bench_write_csv(FILE *f, const bench_machine *m, const bench_case *cases, int count)
{
    fprintf(f, "# nqueens-bench %s\n# cpu: %s\n# cores: %d\n# compiler: %s\n# flags: %s\n"
               "# openmp: %s\n# OMP_PROC_BIND: %s\n# OMP_PLACES: %s\n# commit: %s\n# date: %s\n",
            m->library, m->cpu, m->cores, m->compiler, m->flags, m->openmp, m->proc_bind,
            m->places, m->commit, m->date);
    fputs("engine,n,threads,split_depth,units,repeat,seconds,cpu_seconds,total,expected,correct,"
          "case_median,case_min,case_max,speedup,efficiency,vs_plain,peak_kib\n", f);
    for (int i = 0; i < count; i++) {
        const bench_case *bc = &cases[i];
        for (int r = 0; r < bc->repeats; r++) {
            const bench_run *run = &bc->runs[r];
            char total[48], expected[48];
            nq_u128_to_string(run->total, total, sizeof total);
            nq_u128_to_string(bc->expected, expected, sizeof expected);
            fprintf(f, "%s,%d,%d,%d,%llu,%d,%.9f,%.9f,%s,%s,%s,", nq_engine_name(bc->engine),
                    bc->n, bc->threads, bc->split_depth, (unsigned long long)bc->units, r + 1,
                    run->seconds, run->cpu_seconds, total, bc->checked ? expected : "",
                    !bc->checked ? "" : run->total == bc->expected ? "yes" : "no");
            fprintf(f, "%.9f,%.9f,%.9f,", bc->median, bc->min, bc->max);
            put_double(f, bc->speedup, "");
            fputc(',', f);
            put_double(f, bc->efficiency, "");
            fputc(',', f);
            put_double(f, bc->vs_plain, "");
            if (run->peak_kib >= 0)
                fprintf(f, ",%ld\n", run->peak_kib);
            else
                fputs(",\n", f);
        }
    }
    return ferror(f) ? -1 : 0;
}

int bench_write_json(FILE *f, const bench_machine *m, const bench_case *cases, int count)
{
    fputs("{\n  \"machine\": {\"library\": ", f);
    put_json_string(f, m->library);
    fputs(", \"cpu\": ", f);
    put_json_string(f, m->cpu);
    fprintf(f, ", \"cores\": %d, \"compiler\": ", m->cores);
    put_json_string(f, m->compiler);
    fputs(", \"flags\": ", f);
    put_json_string(f, m->flags);
    fputs(", \"openmp\": ", f);
    put_json_string(f, m->openmp);
    fputs(", \"OMP_PROC_BIND\": ", f);
    put_json_string(f, m->proc_bind);
    fputs(", \"OMP_PLACES\": ", f);
    put_json_string(f, m->places);
    fputs(", \"commit\": ", f);
    put_json_string(f, m->commit);
    fputs(", \"date\": ", f);
    put_json_string(f, m->date);
    fputs("},\n  \"cases\": [", f);
    for (int i = 0; i < count; i++) {
        const bench_case *bc = &cases[i];
        char expected[48];
        fprintf(f, "%s\n    {\"engine\": \"%s\", \"n\": %d, \"threads\": %d, \"split_depth\": %d, "
                   "\"units\": %llu, \"expected\": %s, \"correct\": %s, \"median\": %.9f, "
                   "\"min\": %.9f, \"max\": %.9f, \"speedup\": ",
                i ? "," : "", nq_engine_name(bc->engine), bc->n, bc->threads, bc->split_depth,
                (unsigned long long)bc->units,
                bc->checked ? nq_u128_to_string(bc->expected, expected, sizeof expected) : "null",
                !bc->checked ? "null" : bc->correct ? "true" : "false", bc->median, bc->min,
                bc->max);
        put_double(f, bc->speedup, "null");
        fputs(", \"efficiency\": ", f);
        put_double(f, bc->efficiency, "null");
        fputs(", \"vs_plain\": ", f);
        put_double(f, bc->vs_plain, "null");
        fputs(", \"peak_kib\": ", f);
        put_double(f, bc->peak_kib < 0 ? NAN : (double)bc->peak_kib, "null");
        fputs(",\n     \"runs\": [", f);
        for (int r = 0; r < bc->repeats; r++) {
            char total[48];
            fprintf(f, "%s{\"repeat\": %d, \"seconds\": %.9f, \"cpu_seconds\": %.9f, "
                       "\"total\": %s",
                    r ? ", " : "", r + 1, bc->runs[r].seconds, bc->runs[r].cpu_seconds,
                    nq_u128_to_string(bc->runs[r].total, total, sizeof total));
            fputs(", \"peak_kib\": ", f);
            put_double(f, bc->runs[r].peak_kib < 0 ? NAN : (double)bc->runs[r].peak_kib, "null");
            fputc('}', f);
        }
        fputs("]}", f);
    }
    fputs("\n  ]\n}\n", f);
    return ferror(f) ? -1 : 0;
}
