/*
 * console.c - progress display, signal handling and the resume hint shared
 * by the counting programs (see console.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/console.h"

atomic_int nq_cli_cancel;
volatile sig_atomic_t nq_cli_first_signal;

/* Set while a redrawn progress line lacks its newline, so that a signal
 * handler exiting at once can end the line first. */
static volatile sig_atomic_t progress_line_open;
static volatile sig_atomic_t exit_at_once; /* no journal: nothing to save */

/* Writes seconds as H:MM:SS or M:SS into buf. */
static const char *format_duration(double seconds, char *buf, size_t size)
{
    if (!(seconds >= 0) || seconds > 1e9) {
        snprintf(buf, size, "--");
        return buf;
    }
    unsigned long t = (unsigned long)(seconds + 0.5);
    if (t >= 3600)
        snprintf(buf, size, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, size, "%lu:%02lu", t / 60, t % 60);
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

/* Units per second over the last few seconds (the library's rate is the
 * average over the whole run, which hides a slowdown). */
static double current_rate(nq_cli_progress_view *v, const nq_progress *p)
{
    unsigned slot = v->samples % NQ_CLI_RATE_SAMPLES;
    unsigned oldest = v->samples >= NQ_CLI_RATE_SAMPLES ? slot : 0;
    v->at[slot] = p->elapsed;
    v->done[slot] = p->units_done;
    v->samples++;
    if (v->samples < 2)
        return p->rate;
    double dt = p->elapsed - v->at[oldest];
    return dt > 0 ? (double)(p->units_done - v->done[oldest]) / dt : p->rate;
}

/* The progress callback: one thread at a time, so no locking. */
static void show_progress(const nq_progress *p, void *user)
{
    nq_cli_progress_view *v = user;
    char elapsed[32], eta[32];
    double pct = p->units_total ? 100.0 * (double)p->units_done / (double)p->units_total : 100.0;
    double rate = current_rate(v, p);
    char line[240], expected[64] = "";
    if (v->announced) {
        char words[32];
        snprintf(expected, sizeof expected, ", expected %s%s in all",
                 v->at_least ? "over " : "",
                 format_long(v->opt->estimate, words, sizeof words));
    }
    snprintf(line, sizeof line,
             "%" PRIu64 "/%" PRIu64 " subproblems (%.1f%%), elapsed %s, ETA %s, %.1f/s%s",
             p->units_done, p->units_total, pct,
             format_duration(p->elapsed, elapsed, sizeof elapsed),
             format_duration(p->eta, eta, sizeof eta), rate, expected);
    if (v->tty) {
        /* \r and erase-line redraw in place; the final call ends the line. */
        fprintf(stderr, "\r\033[K%s%s", line, p->final ? "\n" : "");
        v->line_open = !p->final;
    } else {
        fprintf(stderr, "progress: %s\n", line);
    }
    progress_line_open = v->line_open;
    fflush(stderr);
}

/* Ends a redrawn progress line, so that a message can follow. */
static void end_open_line(nq_cli_progress_view *v)
{
    if (v->line_open) {
        fputc('\n', stderr);
        v->line_open = 0;
        progress_line_open = 0;
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
 * line, and announces a long count, once as a lower bound when that came
 * first and again when calibrated. */
static void take_estimate(const nq_estimate *e, void *user)
{
    nq_cli_progress_view *v = user;
    v->opt->estimate = e->seconds;
    v->at_least = e->at_least;
    const int level = e->at_least ? 1 : 2;
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
    else
        fprintf(stderr, "estimated from %" PRIu64 " timed at random)\n", e->sample_units);
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
    if (nq_cli_first_signal || exit_at_once) {
        if (progress_line_open)
            (void)!write(STDERR_FILENO, "\n", 1);
        _exit(128 + sig);
    }
    nq_cli_first_signal = sig;
    atomic_store(&nq_cli_cancel, 1);
}

void nq_cli_install_signal_handlers(int have_journal)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    exit_at_once = !have_journal;
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
