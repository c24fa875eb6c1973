/*
 * output.c - the sweep's CSV, its companion header file, JSON and Markdown.
 *
 * CSV and JSON hold every timed run (not only the medians), so a reader can
 * redo the statistics.  The CSV is nothing but a header row and one row per
 * run, so csv.DictReader, pandas.read_csv and spreadsheets read it without
 * options; the machine description and the command line that belong with
 * it go to a companion file, FILE.meta, of "# key: value" lines (so that
 * `cat FILE.meta FILE` gives the commented form docs/perf/ keeps).  Each CSV
 * row repeats its case's figures: a test (or a spreadsheet) can check them
 * against the runs in the same file.  The columns are documented in
 * nqueens-bench(1).
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
    /* A write that failed inside the printf before (text longer than the
     * buffer, as --help is) left stdout's error flag, and its reason in
     * errno: the flush below would find nothing left to write. */
    if (ferror(stdout) && !stdout_error && errno)
        stdout_error = errno;
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

static const char *const warning_names[BENCH_WARN_COUNT_] = {"spread", "busy",
                                                               "oversubscribed", "load",
                                                               "uneven"};

const char *bench_warning_name(int i)
{
    return i >= 0 && i < BENCH_WARN_COUNT_ ? warning_names[i] : "?";
}

int bench_same_binding(const bench_case *a, const bench_case *b)
{
    return !strcmp(a->proc_bind, b->proc_bind) && !strcmp(a->places, b->places);
}

int bench_same_setup(const bench_case *a, const bench_case *b)
{
    return a->schedule == b->schedule && bench_same_binding(a, b);
}

void bench_warning_list(unsigned w, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < BENCH_WARN_COUNT_; i++)
        if (w & (1u << i)) {
            const int k = snprintf(buf + len, size - len, "%s%s", len ? ";" : "",
                                   warning_names[i]);
            if (k < 0 || (size_t)k >= size - len)
                break;
            len += (size_t)k;
        }
}

void bench_core_spread_text(const bench_machine *m, char *out, size_t size)
{
    if (m->core_spread <= 0)
        snprintf(out, size, "unknown");
    else
        snprintf(out, size, "%.3f (%d CPU%s at once; slowest CPU %d, fastest CPU %d)",
                 m->core_spread, m->core_cpus, m->core_cpus == 1 ? "" : "s", m->core_slowest,
                 m->core_fastest);
}

int bench_write_meta(FILE *f, const bench_machine *m)
{
    char spread[96];
    bench_core_spread_text(m, spread, sizeof spread);
    fprintf(f, "# nqueens-bench %s\n# command: %s\n# cpu: %s\n# cores: %d\n"
               "# physical_cores: %d\n# smt: %d\n# numa_nodes: %d\n# governor: %s\n"
               "# kernel: %s\n# load: %.2f %.2f %.2f\n# core_spread: %s\n# compiler: %s\n"
               "# flags: %s\n"
               "# kernels: %s\n# openmp: %s\n# OMP_PROC_BIND: %s\n# OMP_PLACES: %s\n# commit: %s\n"
               "# date: %s\n",
            m->library, m->command, m->cpu, m->cores, m->physical_cores, m->smt, m->numa_nodes,
            m->governor, m->kernel, m->load[0], m->load[1], m->load[2], spread, m->compiler,
            m->flags, m->kernels, m->openmp, m->proc_bind, m->places, m->commit, m->date);
    return ferror(f) ? -1 : 0;
}

int bench_write_csv(FILE *f, const bench_case *cases, int count)
{
    fputs("engine,n,threads,split_depth,units,repeat,seconds,cpu_seconds,total,expected,correct,"
          "case_median,case_min,case_max,speedup,efficiency,vs_plain,peak_kib,case_mean,case_sd,"
          "karp_flatt,model_speedup,warnings,proc_bind,places,schedule\n", f);
    for (int i = 0; i < count; i++) {
        const bench_case *bc = &cases[i];
        char warnings[128];
        bench_warning_list(bc->warnings, warnings, sizeof warnings);
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
                fprintf(f, ",%ld,", run->peak_kib);
            else
                fputs(",,", f);
            fprintf(f, "%.9f,", bc->mean);
            put_double(f, bc->sd, "");
            fputc(',', f);
            put_double(f, bc->karp_flatt, "");
            fputc(',', f);
            put_double(f, bc->model_speedup, "");
            fprintf(f, ",%s,%s,%s,%s\n", warnings, bc->proc_bind, bc->places,
                    nq_schedule_name(bc->schedule));
        }
    }
    return ferror(f) ? -1 : 0;
}

/* "key": "value" pairs of the machine object. */
static void put_json_pair(FILE *f, const char *key, const char *value)
{
    fprintf(f, ", \"%s\": ", key);
    put_json_string(f, value);
}

int bench_write_json(FILE *f, const bench_machine *m, const bench_case *cases, int count,
                     const bench_fit *fits, int fit_count, int complete)
{
    fputs("{\n  \"command\": ", f);
    put_json_string(f, m->command);
    fprintf(f, ",\n  \"complete\": %s,\n  \"machine\": {\"library\": ",
            complete ? "true" : "false");
    put_json_string(f, m->library);
    put_json_pair(f, "cpu", m->cpu);
    fprintf(f, ", \"cores\": %d, \"physical_cores\": %d, \"smt\": %d, \"numa_nodes\": %d",
            m->cores, m->physical_cores, m->smt, m->numa_nodes);
    put_json_pair(f, "governor", m->governor);
    put_json_pair(f, "kernel", m->kernel);
    fputs(", \"load\": [", f);
    for (int i = 0; i < 3; i++) {
        put_double(f, m->load[i] < 0 ? NAN : m->load[i], "null");
        fputs(i < 2 ? ", " : "]", f);
    }
    fputs(", \"core_spread\": ", f);
    put_double(f, m->core_spread > 0 ? m->core_spread : NAN, "null");
    fprintf(f, ", \"core_cpus\": %d, \"core_slowest\": %d, \"core_fastest\": %d",
            m->core_cpus, m->core_slowest, m->core_fastest);
    put_json_pair(f, "compiler", m->compiler);
    put_json_pair(f, "flags", m->flags);
    put_json_pair(f, "kernels", m->kernels);
    put_json_pair(f, "openmp", m->openmp);
    put_json_pair(f, "OMP_PROC_BIND", m->proc_bind);
    put_json_pair(f, "OMP_PLACES", m->places);
    put_json_pair(f, "commit", m->commit);
    put_json_pair(f, "date", m->date);
    fputs("},\n  \"amdahl\": [", f);
    for (int i = 0; i < fit_count; i++) {
        fprintf(f, "%s\n    {\"engine\": \"%s\", \"n\": %d, \"OMP_PROC_BIND\": ", i ? "," : "",
                nq_engine_name(fits[i].engine), fits[i].n);
        put_json_string(f, fits[i].proc_bind);
        fputs(", \"OMP_PLACES\": ", f);
        put_json_string(f, fits[i].places);
        fprintf(f, ", \"schedule\": \"%s\", \"points\": %d, \"serial_fraction\": ",
                nq_schedule_name(fits[i].schedule), fits[i].points);
        put_double(f, fits[i].serial, "null");
        fputc('}', f);
    }
    fputs(fit_count ? "\n  ],\n  \"cases\": [" : "],\n  \"cases\": [", f);
    for (int i = 0; i < count; i++) {
        const bench_case *bc = &cases[i];
        char expected[48];
        fprintf(f, "%s\n    {\"engine\": \"%s\", \"n\": %d, \"threads\": %d, \"split_depth\": %d, "
                   "\"units\": %llu, \"expected\": %s, \"correct\": %s, \"median\": %.9f, "
                   "\"mean\": %.9f, \"sd\": ",
                i ? "," : "", nq_engine_name(bc->engine), bc->n, bc->threads, bc->split_depth,
                (unsigned long long)bc->units,
                bc->checked ? nq_u128_to_string(bc->expected, expected, sizeof expected) : "null",
                !bc->checked ? "null" : bc->correct ? "true" : "false", bc->median, bc->mean);
        put_double(f, bc->sd, "null");
        fprintf(f, ", \"min\": %.9f, \"max\": %.9f, \"speedup\": ", bc->min, bc->max);
        put_double(f, bc->speedup, "null");
        fputs(", \"efficiency\": ", f);
        put_double(f, bc->efficiency, "null");
        fputs(", \"karp_flatt\": ", f);
        put_double(f, bc->karp_flatt, "null");
        fputs(", \"model_speedup\": ", f);
        put_double(f, bc->model_speedup, "null");
        fputs(", \"vs_plain\": ", f);
        put_double(f, bc->vs_plain, "null");
        fputs(", \"peak_kib\": ", f);
        put_double(f, bc->peak_kib < 0 ? NAN : (double)bc->peak_kib, "null");
        fputs(", \"OMP_PROC_BIND\": ", f);
        put_json_string(f, bc->proc_bind);
        fputs(", \"OMP_PLACES\": ", f);
        put_json_string(f, bc->places);
        fprintf(f, ", \"schedule\": \"%s\", \"warnings\": [", nq_schedule_name(bc->schedule));
        for (int w = 0, k = 0; w < BENCH_WARN_COUNT_; w++)
            if (bc->warnings & (1u << w))
                fprintf(f, "%s\"%s\"", k++ ? ", " : "", warning_names[w]);
        fputs("],\n     \"runs\": [", f);
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
    fputs(count ? "\n  ]\n}\n" : "]\n}\n", f);
    return ferror(f) ? -1 : 0;
}

/* A Markdown cell: the number in fmt, or an en dash where it is unknown. */
static void put_cell(FILE *f, const char *fmt, double v)
{
    fputs(" | ", f);
    if (isnan(v))
        fputs("–", f);
    else
        fprintf(f, fmt, v);
}

int bench_write_markdown(FILE *f, const bench_machine *m, const bench_case *cases, int count,
                         const bench_fit *fits, int fit_count)
{
    fprintf(f, "Measured with `%s` (nqueens-bench %s, commit %s, %s).\n\n", m->command,
            m->library, m->commit, m->date);
    char spread[64] = "";
    if (m->core_spread > 0)
        snprintf(spread, sizeof spread, "; the slowest CPU %.2f× the fastest's time",
                 m->core_spread);
    fprintf(f, "Machine: %s; %d logical CPUs, %d physical cores, %d thread%s per core, "
               "%d NUMA node%s; governor %s; %s; load %.2f at the start%s; %s, %s.\n\n",
            m->cpu, m->cores, m->physical_cores, m->smt, m->smt == 1 ? "" : "s", m->numa_nodes,
            m->numa_nodes == 1 ? "" : "s", m->governor, m->kernel, m->load[0], spread,
            m->compiler, m->openmp);
    fputs("| engine | N | schedule | binding | threads | runs | median s | mean ± σ s | min s | "
          "max s | CPU s | "
          "speedup | efficiency | Karp–Flatt | model | warnings |\n"
          "|---|--:|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n", f);
    for (int i = 0; i < count; i++) {
        const bench_case *bc = &cases[i];
        char warnings[128];
        bench_warning_list(bc->warnings, warnings, sizeof warnings);
        fprintf(f, "| %s | %d | %s | %s/%s | %d | %d | %.4f | %.4f", nq_engine_name(bc->engine),
                bc->n, nq_schedule_name(bc->schedule), bc->proc_bind, bc->places, bc->threads,
                bc->repeats, bc->median, bc->mean);
        if (!isnan(bc->sd))
            fprintf(f, " ± %.4f", bc->sd);
        fprintf(f, " | %.4f | %.4f | %.4f", bc->min, bc->max, bc->cpu_median);
        put_cell(f, "%.2f", bc->speedup);
        put_cell(f, "%.3f", bc->efficiency);
        put_cell(f, "%.3f", bc->karp_flatt);
        put_cell(f, "%.2f", bc->model_speedup);
        fprintf(f, " | %s |\n", warnings);
    }
    if (fit_count)
        fputs("\nAmdahl's law fitted to the speedups on up to the logical CPU count:\n\n", f);
    for (int i = 0; i < fit_count; i++) {
        if (isnan(fits[i].serial))
            fprintf(f, "* %s N=%d (%s, %s/%s): no fit (needs a case on 2 or more threads, "
                       "within the CPUs)\n", nq_engine_name(fits[i].engine), fits[i].n,
                    nq_schedule_name(fits[i].schedule), fits[i].proc_bind, fits[i].places);
        else
            fprintf(f, "* %s N=%d (%s, %s/%s): serial fraction %.4f from %d thread count%s "
                       "(speedup bound %.1f)\n", nq_engine_name(fits[i].engine), fits[i].n,
                    nq_schedule_name(fits[i].schedule), fits[i].proc_bind, fits[i].places,
                    fits[i].serial,
                    fits[i].points, fits[i].points == 1 ? "" : "s",
                    fits[i].serial > 0 ? 1 / fits[i].serial : INFINITY);
    }
    return ferror(f) ? -1 : 0;
}
