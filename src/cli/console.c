/*
 * console.c - progress display, signal handling and the resume hint shared
 * by the counting programs (see console.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/console.h"

/* Lock-free atomics rather than volatile sig_atomic_t: a signal may be
 * handled on any of the process's threads (the pool's, the monitor's), and
 * two signals on two threads at once must still see each other. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal handler needs lock-free atomic ints");

atomic_int nq_cli_cancel;
atomic_int nq_cli_first_signal;

/* Set while a redrawn progress line lacks its newline, so that a signal
 * handler exiting at once can end the line first. */
static atomic_int progress_line_open;
static atomic_int exit_at_once; /* no journal: nothing to save */

/* Writes seconds as H:MM:SS or M:SS into buf, or "--" for no figure (an
 * unknown ETA) or one past NQ_CLI_DURATION_MAX.  An N = 28 count on a
 * few cores runs to decades, well past 1e9 s on a slower machine, and is
 * shown; only a figure past any count's length is not. */
#define NQ_CLI_DURATION_MAX 1e12 /* about 31,700 years */
static const char *format_duration(double seconds, char *buf, size_t size)
{
    if (!(seconds >= 0) || seconds > NQ_CLI_DURATION_MAX) {
        snprintf(buf, size, "--");
        return buf;
    }
    const unsigned long long t = (unsigned long long)(seconds + 0.5);
    if (t >= 3600)
        snprintf(buf, size, "%llu:%02llu:%02llu", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, size, "%llu:%02llu", t / 60, t % 60);
    return buf;
}

/* Writes a long duration in words: "40 minutes", "2.5 hours", "3.1 days",
 * "4.2 years". */
static const char *format_long(double seconds, char *buf, size_t size)
{
    static const struct {
        double seconds;
        const char *name;
    } units[] = {{365.25 * 86400, "years"}, {86400, "days"}, {3600, "hours"}, {60, "minutes"}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (seconds >= 1.5 * units[i].seconds || i + 1 == sizeof units / sizeof *units) {
            snprintf(buf, size, "%.1f %s", seconds / units[i].seconds, units[i].name);
            return buf;
        }
    return buf;
}

/* Solutions counted per second over the last few seconds (the library's
 * rate is the average over the whole run, which hides a slowdown).  In
 * solutions, not units: a run's units differ in cost by orders of
 * magnitude, its solutions far less (each is one leaf of the search). */
static double current_rate(nq_cli_progress_view *v, const nq_progress *p)
{
    unsigned slot = v->samples % NQ_CLI_RATE_SAMPLES;
    unsigned oldest = v->samples >= NQ_CLI_RATE_SAMPLES ? slot : 0;
    v->at[slot] = p->elapsed;
    v->done[slot] = p->total_done;
    v->samples++;
    if (v->samples < 2)
        return p->total_rate;
    double dt = p->elapsed - v->at[oldest];
    return dt > 0 ? (double)(p->total_done - v->done[oldest]) / dt : p->total_rate;
}

/* Writes v with a metric prefix and three significant digits, and a space
 * for the unit to follow: "950 ", "1.23 k ", "45.6 G ". */
static const char *format_metric(double v, char *buf, size_t size)
{
    static const char prefixes[] = "kMGTPEZY";
    int i = -1;
    while (v >= 999.5 && prefixes[i + 1]) {
        v /= 1000;
        i++;
    }
    if (i < 0)
        snprintf(buf, size, "%.0f ", v);
    else
        snprintf(buf, size, v < 9.995 ? "%.2f %c " : v < 99.95 ? "%.1f %c " : "%.0f %c ", v,
                 prefixes[i]);
    return buf;
}

/* Columns of the terminal on stderr: its reported size, else COLUMNS,
 * else 80.  Asked at every redraw, so a resized window is followed. */
static int terminal_width(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *env = getenv("COLUMNS");
    const int cols = env ? atoi(env) : 0;
    return cols > 0 ? cols : 80;
}

/* Appends the pieces of a progress line to out (size bytes), most
 * important first, as many as fit in `room` characters; a piece that does
 * not fit is left out whole, never cut.  Returns the length written. */
static size_t fit_pieces(char *out, size_t size, size_t room, const char *const *pieces,
                         size_t count)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        if (!pieces[i][0])
            continue;
        const char *sep = len ? ", " : "";
        const size_t add = strlen(sep) + strlen(pieces[i]);
        if (len + add > room || len + add >= size)
            continue;
        len += (size_t)snprintf(out + len, size - len, "%s%s", sep, pieces[i]);
    }
    return len;
}

/* A bar of `width` cells (brackets included) filled to `fraction`. */
static void draw_bar(char *out, size_t width, double fraction)
{
    const size_t cells = width - 2;
    size_t full = (size_t)(fraction * (double)cells + 0.5);
    if (full > cells)
        full = cells;
    out[0] = '[';
    for (size_t i = 0; i < cells; i++)
        out[1 + i] = i < full ? '#' : '.';
    out[width - 1] = ']';
    out[width] = '\0';
}

/* Bar cells beside the text: at least this many or none, at most the other. */
#define BAR_MIN 12
#define BAR_MAX 40

/* The progress callback: one thread at a time, so no locking.  On a
 * terminal the line is redrawn in place and kept shorter than the
 * terminal's width, so it never wraps (erase-line clears one row only, and
 * a wrapped line would leave its first rows behind): the pieces that do
 * not fit are left out, least important first, and a bar takes the room
 * left.  The fraction and the ETA are by work when the library gives it.
 * A one-unit job (plain) has no fraction to show, so its line says so and
 * gives the elapsed time alone. */
static void show_progress(const nq_progress *p, void *user)
{
    nq_cli_progress_view *v = user;
    char elapsed[32], eta[32], words[32], metric[32];
    char count[64], pct[16], ela[48], eta_piece[48], rate_piece[48], expected[64] = "";
    /* By work when the library weighed the units (their costs differ by
     * orders of magnitude, so a count of units runs ahead of the time),
     * else by units. */
    const double fraction = p->work_fraction >= 0 ? p->work_fraction
                            : p->units_total  ? (double)p->units_done / (double)p->units_total
                                              : 1.0;
    const double rate = current_rate(v, p);
    const int one_unit = p->units_total == 1;
    format_duration(p->elapsed, elapsed, sizeof elapsed);
    if (v->announced)
        snprintf(expected, sizeof expected, "expected %s%s in all", v->at_least ? "over " : "",
                 format_long(v->opt->estimate, words, sizeof words));
    snprintf(ela, sizeof ela, "elapsed %s", elapsed);
    if (one_unit) {
        snprintf(count, sizeof count, "%s", p->final ? "one unit, done" : "one unit: no fraction");
        pct[0] = eta_piece[0] = rate_piece[0] = '\0';
    } else {
        snprintf(count, sizeof count, "%" PRIu64 "/%" PRIu64 " units", p->units_done,
                 p->units_total);
        snprintf(pct, sizeof pct, "%.1f%%", 100.0 * fraction);
        snprintf(eta_piece, sizeof eta_piece, "ETA %s",
                 format_duration(p->eta, eta, sizeof eta));
        snprintf(rate_piece, sizeof rate_piece, "%ssolutions/s",
                 format_metric(rate, metric, sizeof metric));
    }
    /* Most important first: the fraction done, how long it will take, how
     * long it has taken, the estimate of a long count, the units, how fast. */
    const char *pieces[] = {pct, eta_piece, ela, expected, count, rate_piece};
    const size_t npieces = sizeof pieces / sizeof *pieces;
    char text[240], line[320], bar[BAR_MAX + 1] = "";

    if (!v->tty) {
        fit_pieces(text, sizeof text, sizeof text - 1, pieces, npieces);
        fprintf(stderr, "progress: %s\n", text);
        fflush(stderr);
        return;
    }
    /* One column is kept free: a line as wide as the terminal leaves some
     * terminals' cursor on the next row. */
    const size_t room = (size_t)terminal_width() - 1;
    size_t len = fit_pieces(text, sizeof text, room, pieces, npieces);
    if (!one_unit && room >= len + 1 + BAR_MIN) {
        size_t width = room - len - 1;
        draw_bar(bar, width > BAR_MAX ? BAR_MAX : width, fraction);
    } else if (!one_unit) {
        /* No room for a bar beside everything: give it the room of the
         * least important pieces, but never that of the fraction, the ETA,
         * the elapsed time and the estimate; a terminal too narrow for those
         * and a bar gets no bar. */
        char fewer[240];
        size_t keep = npieces, flen = len;
        while (keep > 4 && room < flen + 1 + BAR_MIN)
            flen = fit_pieces(fewer, sizeof fewer, room, pieces, --keep);
        if (room >= flen + 1 + BAR_MIN) {
            size_t width = room - flen - 1;
            draw_bar(bar, width > BAR_MAX ? BAR_MAX : width, fraction);
            memcpy(text, fewer, flen + 1);
        }
    }
    snprintf(line, sizeof line, "%s%s%s", bar, bar[0] ? " " : "", text);
    /* \r and erase-line redraw in place; the final call ends the line. */
    fprintf(stderr, "\r\033[K%s%s", line, p->final ? "\n" : "");
    v->line_open = !p->final;
    atomic_store(&progress_line_open, v->line_open);
    fflush(stderr);
}

/* Ends a redrawn progress line, so that a message can follow. */
static void end_open_line(nq_cli_progress_view *v)
{
    if (v->line_open) {
        fputc('\n', stderr);
        v->line_open = 0;
        atomic_store(&progress_line_open, 0);
    }
}

/* The notice callback (a torn journal tail was discarded). */
static void show_notice(const char *message, void *user)
{
    nq_cli_progress_view *v = user;
    end_open_line(v);
    fprintf(stderr, "%s: %s\n", v->prog, message);
}

/* The estimate callback: keeps the estimate for --json and the progress
 * line, and announces a long count, once as a lower bound and once as an
 * extrapolation when those came first, and again when calibrated. */
static void take_estimate(const nq_estimate *e, void *user)
{
    nq_cli_progress_view *v = user;
    v->opt->estimate = e->seconds;
    v->at_least = e->at_least;
    const int level = e->at_least ? 1 : e->extrapolated ? 2 : 3;
    if (e->seconds < NQ_CLI_LONG_RUN || v->announced >= level)
        return;
    char words[32];
    end_open_line(v);
    fprintf(stderr, "%s: this count is expected to take %s %s (engine %s, %d thread%s, %" PRIu64
            " subproblems; ", v->prog, e->at_least ? "at least" : "about",
            format_long(e->seconds, words, sizeof words), nq_engine_name(e->engine), e->threads,
            e->threads == 1 ? "" : "s", e->units);
    if (e->at_least)
        fputs("the subproblems timed to estimate it are still running)\n", stderr);
    else if (e->extrapolated)
        fputs("extrapolated from how far the subproblems timed to estimate it are)\n", stderr);
    else
        fprintf(stderr, "estimated from %" PRIu64 " timed along the list, part of the count)\n",
                e->sample_units);
    v->announced = level;
}

void nq_cli_progress_setup(nq_cli_options *opt, nq_cli_progress_view *view, const char *prog)
{
    memset(view, 0, sizeof *view);
    view->tty = isatty(STDERR_FILENO);
    view->prog = prog;
    view->opt = opt;
    opt->settings.estimate = take_estimate;
    opt->settings.estimate_user = view;
    int show = opt->progress == NQ_CLI_PROGRESS_ON ||
               (opt->progress == NQ_CLI_PROGRESS_AUTO && view->tty && !opt->quiet);
    if (show) {
        opt->settings.progress = show_progress;
        opt->settings.progress_user = view;
        opt->settings.progress_interval =
            view->tty ? NQ_CLI_PROGRESS_TTY_INTERVAL : NQ_CLI_PROGRESS_LINE_INTERVAL;
    }
    opt->settings.notice = show_notice;
    opt->settings.notice_user = view;
}

/* SIGINT/SIGTERM/SIGHUP: the first asks the run to stop (the journal is flushed);
 * a second one, or any when there is no journal, exits now.  Only
 * async-signal-safe calls here. */
static void on_signal(int sig)
{
    int none = 0;
    /* The exchange makes one handler the first even when two signals land
     * on two threads at once; the other sees it and exits. */
    if (atomic_load(&exit_at_once) || !atomic_compare_exchange_strong(&nq_cli_first_signal, &none, sig)) {
        if (atomic_load(&progress_line_open))
            (void)!write(STDERR_FILENO, "\n", 1);
        _exit(128 + sig);
    }
    atomic_store(&nq_cli_cancel, 1);
}

void nq_cli_install_signal_handlers(int have_journal)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    atomic_store(&exit_at_once, !have_journal);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    /* A journal write past a file size limit then fails with EFBIG and is
     * reported like a full disk, instead of killing the process. */
    signal(SIGXFSZ, SIG_IGN);
}

/* Prints arg quoted for a POSIX shell when it needs it. */
static void print_shell_word(FILE *out, const char *arg)
{
    int plain = *arg != '\0';
    for (const char *p = arg; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-",
                       *p) != NULL;
    if (plain) {
        fputs(arg, out);
        return;
    }
    fputc('\'', out);
    for (const char *p = arg; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", out);
        else
            fputc(*p, out);
    }
    fputc('\'', out);
}

void nq_cli_print_resume_hint(const char *prog, uint64_t units_done, const char *how, int argc,
                              char **argv)
{
    fprintf(stderr, "%s: interrupted after %" PRIu64 " subproblems were done; %s: ", prog,
            units_done, how);
    for (int i = 0; i < argc; i++) {
        if (i)
            fputc(' ', stderr);
        print_shell_word(stderr, argv[i]);
    }
    fputc('\n', stderr);
}
