/*
 * plot.c - the sweep drawn with gnuplot: speedup against threads (with the
 * ideal line) beside median time against N.
 *
 * gnuplot is optional: the bench checks for it before a sweep starts and
 * says how to install it, rather than failing after minutes of timing.  The
 * data go inline in the script fed to gnuplot's stdin; no temporary files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

int bench_have_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        return 0;
    char dir[4096];
    while (*path) {
        size_t len = strcspn(path, ":");
        if (len > 0 && len < sizeof dir - 16) {
            memcpy(dir, path, len);
            strcpy(dir + len, "/gnuplot");
            if (access(dir, X_OK) == 0)
                return 1;
        }
        path += len;
        if (*path == ':')
            path++;
    }
    return 0;
}

/* Writes a gnuplot string literal: single quotes, '' for a quote. */
static void put_quoted(FILE *g, const char *s)
{
    fputc('\'', g);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', g);
        fputc(*s, g);
    }
    fputc('\'', g);
}

/* The first case index of each distinct series, where a series is the
 * cases sharing (engine, key) with key = N (by_n) or threads; returns the
 * number of series.  `keep` filters cases. */
static int series(const bench_case *cases, int count, int by_n, int *first,
                  int (*keep)(const bench_case *))
{
    int k = 0;
    for (int i = 0; i < count; i++) {
        if (!keep(&cases[i]))
            continue;
        int seen = 0;
        for (int j = 0; j < k && !seen; j++) {
            const bench_case *a = &cases[first[j]], *b = &cases[i];
            seen = a->engine == b->engine && (by_n ? a->n == b->n : a->threads == b->threads);
        }
        if (!seen)
            first[k++] = i;
    }
    return k;
}

static int has_speedup(const bench_case *bc)
{
    return bc->speedup == bc->speedup && bc->engine != NQ_ENGINE_PLAIN;
}

static int any_case(const bench_case *bc)
{
    return bc->median > 0;
}

int bench_plot(const char *path, const bench_machine *m, const bench_case *cases, int count)
{
    int *first = malloc(((size_t)count + 1) * sizeof *first);
    if (!first)
        return -1;
    FILE *g = popen("gnuplot", "w");
    if (!g) {
        free(first);
        return -1;
    }
    const size_t len = strlen(path);
    if (len >= 4 && !strcmp(path + len - 4, ".png"))
        fputs("set terminal pngcairo size 1200,500 font 'sans,10'\n", g);
    else
        fputs("set terminal svg size 1200,500 dynamic font 'sans,11' background '#ffffff'\n", g);
    fputs("set output ", g);
    put_quoted(g, path);
    int max_threads = 1;
    for (int i = 0; i < count; i++)
        if (cases[i].threads > max_threads)
            max_threads = cases[i].threads;
    char title[400];
    snprintf(title, sizeof title, "nqueens-bench: %s, %d cores, %s, commit %s", m->cpu, m->cores,
             m->compiler, m->commit);
    fputs("\nset multiplot layout 1,2 title ", g);
    put_quoted(g, title);
    fprintf(g, "\nset key left top\nset grid\nset title 'Speedup vs 1 thread (median)'\n"
               "set xlabel 'threads'\nset ylabel 'speedup'\nset xrange [1:%d]\nset yrange [0:%d]\n"
               "set xtics 1\n",
            max_threads, max_threads + 1);

    int k = series(cases, count, 1, first, has_speedup);
    fputs("plot x title 'ideal' with lines dashtype 2 linecolor 'gray'", g);
    for (int s = 0; s < k; s++)
        fprintf(g, ", '-' with linespoints title '%s N=%d'", nq_engine_name(cases[first[s]].engine),
                cases[first[s]].n);
    fputc('\n', g);
    for (int s = 0; s < k; s++) {
        const bench_case *a = &cases[first[s]];
        for (int i = 0; i < count; i++)
            if (has_speedup(&cases[i]) && cases[i].engine == a->engine && cases[i].n == a->n)
                fprintf(g, "%d %.6g\n", cases[i].threads, cases[i].speedup);
        fputs("e\n", g);
    }

    fputs("set title 'Median time vs N'\nset xlabel 'N'\nset ylabel 'seconds'\n"
          "set logscale y\nset format y '%g'\nset autoscale\nset xtics 1\nset key left top\n", g);
    k = series(cases, count, 0, first, any_case);
    fputs(k ? "plot " : "plot NaN notitle", g);
    for (int s = 0; s < k; s++)
        fprintf(g, "%s'-' with linespoints title '%s, %d thread%s'", s ? ", " : "",
                nq_engine_name(cases[first[s]].engine), cases[first[s]].threads,
                cases[first[s]].threads == 1 ? "" : "s");
    fputc('\n', g);
    for (int s = 0; s < k; s++) {
        const bench_case *a = &cases[first[s]];
        for (int i = 0; i < count; i++)
            if (any_case(&cases[i]) && cases[i].engine == a->engine &&
                cases[i].threads == a->threads)
                fprintf(g, "%d %.6g\n", cases[i].n, cases[i].median);
        fputs("e\n", g);
    }
    fputs("unset multiplot\n", g);
    free(first);
    return pclose(g) == 0 ? 0 : -1;
}
