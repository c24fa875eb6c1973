/*
 * plot.c - the sweep's scaling drawn as SVG, written directly (no gnuplot
 * or other program to install): a speedup panel and an efficiency panel
 * against threads, the legend in a column of its own beside them.
 *
 * Thread counts are usually powers of two reaching far past the cores
 * (1..64 on 2 cores), so the thread axis is log2, one tick per power, and
 * the speedup axis is log2 too: the ideal line (speedup = threads) is then
 * a diagonal and a curve at 2 stays readable beside an ideal at 64.  Each
 * point is the case's median; its bar spans the speedups of its fastest and
 * slowest run (against the 1-thread median).  The scheduling model's
 * prediction is the dashed line in the series' colour, the ideal is grey,
 * and a dotted vertical line marks the logical CPU count.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

#define WIDTH 1140
#define HEIGHT 560
#define TOP 96
#define BOTTOM 488
#define PANEL_W 360
#define LEGEND_X 920
#define MAX_SERIES 24

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                      "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};

/* One panel's frame and scales: x is log2(threads), y log2 or linear. */
typedef struct panel {
    double left;
    double x0, x1; /* log2 of the thread range */
    double y0, y1; /* axis range (log2 values when logy) */
    int logy;
} panel;

static double px(const panel *p, double threads)
{
    return p->left + (log2(threads) - p->x0) / (p->x1 - p->x0) * PANEL_W;
}

static double py(const panel *p, double v)
{
    const double y = p->logy ? log2(v) : v;
    return BOTTOM - (y - p->y0) / (p->y1 - p->y0) * (BOTTOM - TOP);
}

/* Clamps a y coordinate into the panel (for lines that leave it). */
static double clampy(double y)
{
    return y < TOP ? TOP : y > BOTTOM ? BOTTOM : y;
}

/* Writes s as SVG text content. */
static void put_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
    }
}

static int has_speedup(const bench_case *bc)
{
    return bc->engine != NQ_ENGINE_PLAIN && !isnan(bc->speedup) && bc->median > 0;
}

/* The base (1-thread) median of the series of bc: median * speedup. */
static double base_of(const bench_case *bc)
{
    return bc->median * bc->speedup;
}

static void axes(FILE *f, const panel *p, const char *title, const char *ylabel, int cores)
{
    const double right = p->left + PANEL_W;
    fprintf(f, "<rect x='%.1f' y='%d' width='%d' height='%d' fill='none' stroke='#444'/>\n",
            p->left, TOP, PANEL_W, BOTTOM - TOP);
    fprintf(f, "<text x='%.1f' y='%d' text-anchor='middle' font-size='15'>", p->left + PANEL_W / 2,
            TOP - 10);
    put_text(f, title);
    fputs("</text>\n", f);
    for (int k = (int)ceil(p->x0); k <= (int)floor(p->x1); k++) {
        const double x = px(p, ldexp(1, k));
        fprintf(f, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#e4e4e4'/>\n", x, TOP, x,
                BOTTOM);
        fprintf(f, "<text x='%.1f' y='%d' text-anchor='middle'>%d</text>\n", x, BOTTOM + 18,
                1 << k);
    }
    fprintf(f, "<text x='%.1f' y='%d' text-anchor='middle'>threads (log2 scale)</text>\n",
            p->left + PANEL_W / 2, BOTTOM + 40);
    if (p->logy) {
        for (int k = (int)ceil(p->y0); k <= (int)floor(p->y1); k++) {
            const double y = py(p, ldexp(1, k));
            fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#e4e4e4'/>\n",
                    p->left, y, right, y);
            if (k >= 0)
                fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='end'>%d</text>\n", p->left - 6,
                        y + 4, 1 << k);
            else /* 1/2, 1/4, ...: shorter than 0.0078125 */
                fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='end'>1/%d</text>\n",
                        p->left - 6, y + 4, 1 << -k);
        }
    } else {
        const double step = p->y1 - p->y0 > 1.2 ? 0.5 : 0.2;
        for (double v = 0; v <= p->y1 + 1e-9; v += step) {
            const double y = py(p, v);
            fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#e4e4e4'/>\n",
                    p->left, y, right, y);
            fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='end'>%.1f</text>\n", p->left - 6,
                    y + 4, v);
        }
    }
    fprintf(f, "<text transform='translate(%.1f %d) rotate(-90)' text-anchor='middle'>%s</text>\n",
            p->left - 52, (TOP + BOTTOM) / 2, ylabel);
    if (log2(cores) >= p->x0 && log2(cores) <= p->x1) {
        const double x = px(p, cores);
        fprintf(f, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#555' "
                   "stroke-dasharray='2 3'/>\n", x, TOP, x, BOTTOM);
        fprintf(f, "<text x='%.1f' y='%d' font-size='11' fill='#555'>%d CPU%s</text>\n", x + 3,
                TOP + 14, cores, cores == 1 ? "" : "s");
    }
}

/* Points, bars and the model's line of one series in one panel; `eff`
 * divides every speedup by the thread count. */
static void draw_series(FILE *f, const panel *p, const bench_case *cases, int count,
                        const bench_case *key, const char *colour, int eff)
{
    int any_model = 0;
    fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' points='", colour);
    for (int i = 0; i < count; i++) {
        const bench_case *c = &cases[i];
        if (has_speedup(c) && c->engine == key->engine && c->n == key->n &&
            bench_same_setup(c, key))
            fprintf(f, "%.1f,%.1f ", px(p, c->threads),
                    clampy(py(p, c->speedup / (eff ? c->threads : 1))));
        any_model |= has_speedup(c) && c->engine == key->engine && c->n == key->n &&
                     bench_same_setup(c, key) && !isnan(c->model_speedup);
    }
    fputs("'/>\n", f);
    if (any_model) {
        fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='1.5' "
                   "stroke-dasharray='6 4' opacity='0.8' points='", colour);
        for (int i = 0; i < count; i++) {
            const bench_case *c = &cases[i];
            if (has_speedup(c) && c->engine == key->engine && c->n == key->n &&
                bench_same_setup(c, key) && !isnan(c->model_speedup) && c->model_speedup > 0)
                fprintf(f, "%.1f,%.1f ", px(p, c->threads),
                        clampy(py(p, c->model_speedup / (eff ? c->threads : 1))));
        }
        fputs("'/>\n", f);
    }
    for (int i = 0; i < count; i++) {
        const bench_case *c = &cases[i];
        if (!has_speedup(c) || c->engine != key->engine || c->n != key->n ||
            !bench_same_setup(c, key))
            continue;
        const double div = eff ? c->threads : 1;
        const double x = px(p, c->threads);
        const double lo = clampy(py(p, base_of(c) / c->max / div));
        const double hi = clampy(py(p, base_of(c) / c->min / div));
        fprintf(f, "<path d='M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8' stroke='%s' "
                   "stroke-width='1.2'/>\n", x, lo, hi, x - 4, lo, x - 4, hi, colour);
        fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3.5' fill='%s'/>\n", x,
                clampy(py(p, c->speedup / div)), colour);
    }
}

int bench_plot(FILE *f, const bench_machine *m, const bench_case *cases, int count)
{
    int first[MAX_SERIES], series = 0, more = 0;
    int tmin = 0, tmax = 0;
    double smin = 1, smax = 1, emax = 1;
    for (int i = 0; i < count; i++) {
        const bench_case *c = &cases[i];
        if (!has_speedup(c))
            continue;
        int seen = 0;
        for (int s = 0; s < series && !seen; s++)
            seen = cases[first[s]].engine == c->engine && cases[first[s]].n == c->n &&
                   bench_same_setup(&cases[first[s]], c);
        if (!seen && series < MAX_SERIES)
            first[series++] = i;
        else if (!seen)
            more++;
        tmin = tmin && tmin < c->threads ? tmin : c->threads;
        tmax = tmax > c->threads ? tmax : c->threads;
        const double lo = base_of(c) / c->max, hi = base_of(c) / c->min;
        smin = fmin(smin, fmin(lo, isnan(c->model_speedup) ? lo : c->model_speedup));
        smax = fmax(smax, fmax(hi, isnan(c->model_speedup) ? hi : c->model_speedup));
        emax = fmax(emax, hi / c->threads);
        if (!isnan(c->model_speedup))
            emax = fmax(emax, c->model_speedup / c->threads);
    }
    if (!tmin)
        tmin = tmax = 1;
    smax = fmax(smax, tmax); /* the ideal line reaches the largest thread count */
    panel sp = {100, log2(tmin) - 0.3, log2(tmax) + 0.3, floor(log2(smin)) - 0.2,
                ceil(log2(smax)) + 0.2, 1};
    if (sp.x1 - sp.x0 < 1.6) {
        sp.x0 -= 0.5;
        sp.x1 += 0.5;
    }
    panel ep = sp;
    ep.left = 530;
    ep.logy = 0;
    ep.y0 = 0;
    ep.y1 = ceil(fmin(emax, 1.5) * 1.1 * 5) / 5; /* a runaway bar is clipped, not the scale */

    fprintf(f, "<?xml version='1.0' encoding='UTF-8'?>\n"
               "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
               "viewBox='0 0 %d %d' font-family='sans-serif' font-size='13'>\n"
               "<rect width='100%%' height='100%%' fill='#fff'/>\n",
            WIDTH, HEIGHT, WIDTH, HEIGHT);
    char line[1024];
    snprintf(line, sizeof line, "nqueens-bench %s, commit %s: %s, %d logical CPUs (%d cores, %d "
             "per core, %d NUMA node%s)", m->library, m->commit, m->cpu, m->cores,
             m->physical_cores, m->smt, m->numa_nodes, m->numa_nodes == 1 ? "" : "s");
    fputs("<text x='20' y='24' font-size='15' font-weight='bold'>", f);
    put_text(f, line);
    snprintf(line, sizeof line, "%s; governor %s; load %.2f at the start; %s, %s; %s",
             m->kernel, m->governor, m->load[0], m->compiler, m->openmp, m->date);
    fputs("</text>\n<text x='20' y='44' font-size='12' fill='#444'>", f);
    put_text(f, line);
    fputs("</text>\n<text x='20' y='62' font-size='12' fill='#444'>", f);
    snprintf(line, sizeof line, "%.160s%s", m->command, strlen(m->command) > 160 ? " ..." : "");
    put_text(f, line);
    fputs("</text>\n", f);

    axes(f, &sp, "Speedup over 1 thread (median)", "speedup (log2 scale)", m->cores);
    axes(f, &ep, "Efficiency: speedup / threads", "efficiency", m->cores);
    /* the ideal: speedup = threads, efficiency = 1 */
    fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#999' stroke-width='1.5' "
               "stroke-dasharray='8 4'/>\n",
            px(&sp, tmin), clampy(py(&sp, tmin)), px(&sp, tmax), clampy(py(&sp, tmax)));
    fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#999' stroke-width='1.5' "
               "stroke-dasharray='8 4'/>\n",
            px(&ep, tmin), py(&ep, 1), px(&ep, tmax), py(&ep, 1));
    for (int s = 0; s < series; s++) {
        const char *colour = palette[s % (int)(sizeof palette / sizeof *palette)];
        draw_series(f, &sp, cases, count, &cases[first[s]], colour, 0);
        draw_series(f, &ep, cases, count, &cases[first[s]], colour, 1);
    }

    /* The legend, in its own column: never over the data. */
    int vary = 0; /* 1: schedules differ, 2: bindings differ; the series say theirs */
    for (int s = 1; s < series; s++)
        vary |= (cases[first[0]].schedule != cases[first[s]].schedule) |
                !bench_same_binding(&cases[first[0]], &cases[first[s]]) << 1;
    int y = TOP + 6;
    fprintf(f, "<text x='%d' y='%d' font-weight='bold'>series (engine, N%s)</text>\n",
            LEGEND_X, y, vary ? "; setup" : "");
    for (int s = 0; s < series; s++) {
        y += 20;
        const char *colour = palette[s % (int)(sizeof palette / sizeof *palette)];
        fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='%s' stroke-width='2'/>"
                   "<circle cx='%d' cy='%d' r='3.5' fill='%s'/>"
                   "<text x='%d' y='%d'>%s N=%d</text>\n",
                LEGEND_X, y - 4, LEGEND_X + 24, y - 4, colour, LEGEND_X + 12, y - 4, colour,
                LEGEND_X + 32, y, nq_engine_name(cases[first[s]].engine), cases[first[s]].n);
        if (vary) { /* schedule and binding on a line of their own, to fit the column */
            y += 15;
            fprintf(f, "<text x='%d' y='%d' font-size='11' fill='#444'>%s", LEGEND_X + 32, y,
                    nq_schedule_name(cases[first[s]].schedule));
            if (vary & 2) {
                fputs(", ", f);
                put_text(f, cases[first[s]].proc_bind);
                fputc('/', f);
                put_text(f, cases[first[s]].places);
            }
            fputs("</text>\n", f);
        }
    }
    if (more)
        fprintf(f, "<text x='%d' y='%d'>and %d more (see the CSV)</text>\n", LEGEND_X,
                y += 20, more);
    y += 34;
    fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#999' stroke-width='1.5' "
               "stroke-dasharray='8 4'/><text x='%d' y='%d'>ideal</text>\n",
            LEGEND_X, y - 4, LEGEND_X + 24, y - 4, LEGEND_X + 32, y);
    y += 20;
    fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#333' stroke-width='1.5' "
               "stroke-dasharray='6 4'/><text x='%d' y='%d'>model's prediction</text>\n",
            LEGEND_X, y - 4, LEGEND_X + 24, y - 4, LEGEND_X + 32, y);
    y += 20;
    fprintf(f, "<path d='M%d %dV%dM%d %dh8M%d %dh8' stroke='#333'/>"
               "<text x='%d' y='%d'>fastest..slowest run</text>\n",
            LEGEND_X + 12, y - 11, y + 3, LEGEND_X + 8, y - 11, LEGEND_X + 8, y + 3,
            LEGEND_X + 32, y);
    y += 20;
    fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#555' stroke-dasharray='2 3'/>"
               "<text x='%d' y='%d'>logical CPUs</text>\n",
            LEGEND_X + 12, y - 12, LEGEND_X + 12, y + 2, LEGEND_X + 32, y);
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}
