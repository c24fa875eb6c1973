/*
 * nqueens.c - the command-line counter.
 *
 * Parses options with getopt_long, fills nq_settings, calls the library and
 * renders the result (text, JSON or a listing of solutions).  The library
 * never prints; everything a user sees is written here.  Bad input gets one
 * line on stderr naming the value and what is allowed, and exit status 2.
 *
 * Long runs: progress is drawn on stderr (redrawn in place on a terminal,
 * a plain line every few seconds otherwise), --checkpoint keeps a journal
 * the library resumes from, and SIGINT/SIGTERM stop the run cleanly: the
 * journal is flushed, the command that resumes is printed, and the exit
 * status is 128 + the signal.  A second signal exits at once.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <unistd.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nqueens/nqueens.h"

#define EXIT_USAGE 2
/* Largest N whose full listing is printed without --limit (N=12: 14200). */
#define LIST_MAX_N 12
/* Seconds between progress redraws on a terminal, and between plain
 * progress lines when stderr is a file or a pipe. */
#define PROGRESS_TTY_INTERVAL 0.25
#define PROGRESS_LINE_INTERVAL 5.0
/* Progress samples kept for the current rate: 16 x 0.25 s = a 4 s window. */
#define RATE_SAMPLES 16

enum progress_mode { PROGRESS_AUTO, PROGRESS_ON, PROGRESS_OFF };

enum output_format { FORMAT_BOARD, FORMAT_COLUMNS };

typedef struct cli_options {
    nq_settings settings;
    int json;
    int quiet;
    int list;
    uint64_t limit;
    enum output_format format;
    enum progress_mode progress;
} cli_options;

enum long_only {
    OPT_SPLIT_DEPTH = 256,
    OPT_JSON,
    OPT_SOLUTIONS,
    OPT_LIMIT,
    OPT_FORMAT,
    OPT_PROGRESS,
    OPT_NO_PROGRESS,
    OPT_CHECKPOINT,
};

static const struct option long_options[] = {
    {"threads", required_argument, NULL, 't'},
    {"engine", required_argument, NULL, 'e'},
    {"split-depth", required_argument, NULL, OPT_SPLIT_DEPTH},
    {"json", no_argument, NULL, OPT_JSON},
    {"quiet", no_argument, NULL, 'q'},
    {"solutions", no_argument, NULL, OPT_SOLUTIONS},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"checkpoint", required_argument, NULL, OPT_CHECKPOINT},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: nqueens N [options]\n"
            "Counts the placements of N non-attacking queens on an N x N board.\n"
            "\n"
            "  N                     board size, 1..32 (required)\n"
            "  -t, --threads T       worker threads, 1..%d (default: OMP_NUM_THREADS or all cores)\n"
            "  -e, --engine E        auto, plain, mirror, full, mitm (default: auto)\n"
            "      --split-depth D   rows expanded into subproblems, 1..8 (default: automatic)\n"
            "      --json            print one JSON object instead of text\n"
            "  -q, --quiet           print only the total\n"
            "      --solutions       list the solutions instead of counting them\n"
            "      --limit K         list at most K solutions (default: all, N <= %d only)\n"
            "      --format F        listing format: board, columns (default: board)\n"
            "      --progress        show progress on stderr even when it is not a terminal\n"
            "      --no-progress     never show progress (default: shown on a terminal)\n"
            "      --checkpoint FILE record finished work in FILE; rerun the same command\n"
            "                        to resume after an interruption or a crash\n"
            "  -h, --help            show this help and exit\n"
            "  -V, --version         show the version and exit\n",
            NQ_MAX_THREADS, LIST_MAX_N);
}

/* One-line error on stderr and exit status 2: nothing reaches stdout. */
static void die_usage(const char *fmt, ...)
{
    va_list ap;
    fputs("nqueens: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (try --help)\n", stderr);
    exit(EXIT_USAGE);
}

/* Parses a whole decimal integer in [lo, hi]; 0 on success, -1 otherwise. */
static int parse_long(const char *text, long lo, long hi, long *value)
{
    if (!text || !*text)
        return -1;
    for (const char *p = text; *p; p++)
        if (!(*p >= '0' && *p <= '9') && !(p == text && (*p == '-' || *p == '+')))
            return -1;
    errno = 0;
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (errno == ERANGE || *end != '\0' || end == text || v < lo || v > hi)
        return -1;
    *value = v;
    return 0;
}

static void parse_args(int argc, char **argv, cli_options *opt)
{
    long v;
    int limit_given = 0;
    nq_default_settings(&opt->settings);

    int c;
    opterr = 0; /* we print our own one-line errors */
    while ((c = getopt_long(argc, argv, ":t:e:qhV", long_options, NULL)) != -1) {
        switch (c) {
        case 't':
            if (parse_long(optarg, 1, NQ_MAX_THREADS, &v) < 0)
                die_usage("invalid thread count '%s': expected an integer from 1 to %d", optarg,
                          NQ_MAX_THREADS);
            opt->settings.threads = (int)v;
            break;
        case 'e':
            if (nq_engine_from_name(optarg, &opt->settings.engine) < 0)
                die_usage("unknown engine '%s': expected auto, plain, mirror, full or mitm", optarg);
            break;
        case OPT_SPLIT_DEPTH:
            if (parse_long(optarg, 1, NQ_MAX_SPLIT_DEPTH, &v) < 0)
                die_usage("invalid split depth '%s': expected an integer from 1 to %d", optarg,
                          NQ_MAX_SPLIT_DEPTH);
            opt->settings.split_depth = (int)v;
            break;
        case OPT_JSON: opt->json = 1; break;
        case 'q': opt->quiet = 1; break;
        case OPT_SOLUTIONS: opt->list = 1; break;
        case OPT_LIMIT:
            if (parse_long(optarg, 1, LONG_MAX, &v) < 0)
                die_usage("invalid limit '%s': expected a positive integer", optarg);
            opt->limit = (uint64_t)v;
            limit_given = 1;
            break;
        case OPT_FORMAT:
            if (!strcmp(optarg, "board"))
                opt->format = FORMAT_BOARD;
            else if (!strcmp(optarg, "columns"))
                opt->format = FORMAT_COLUMNS;
            else
                die_usage("unknown format '%s': expected board or columns", optarg);
            break;
        case OPT_PROGRESS: opt->progress = PROGRESS_ON; break;
        case OPT_NO_PROGRESS: opt->progress = PROGRESS_OFF; break;
        case OPT_CHECKPOINT:
            if (!*optarg)
                die_usage("invalid checkpoint file '': expected a path");
            opt->settings.checkpoint_path = optarg;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        case 'V':
            printf("nqueens %s\n", nq_version());
            exit(0);
        case ':':
            die_usage("option '%s' needs a value", argv[optind - 1]);
            break;
        default:
            if (optopt)
                die_usage("unknown option '-%c'", optopt);
            die_usage("unknown option '%s'", argv[optind - 1]);
        }
    }

    if (optind >= argc)
        die_usage("missing board size N: expected an integer from %d to %d", NQ_MIN_N, NQ_MAX_N);
    const char *arg = argv[optind++];
    if (parse_long(arg, NQ_MIN_N, NQ_MAX_N, &v) < 0)
        die_usage("invalid board size '%s': expected an integer from %d to %d", arg, NQ_MIN_N,
                  NQ_MAX_N);
    opt->settings.n = (int)v;
    if (optind < argc)
        die_usage("unexpected argument '%s': only one board size may be given", argv[optind]);
    if (limit_given && !opt->list)
        die_usage("--limit applies only with --solutions");
    if (opt->list && !limit_given && opt->settings.n > LIST_MAX_N)
        die_usage("listing every solution for N=%d would be too long: give --limit K (or N <= %d)",
                  opt->settings.n, LIST_MAX_N);
    if (opt->list && opt->settings.checkpoint_path)
        die_usage("--checkpoint applies only to counting, not with --solutions");
    if (opt->settings.split_depth > opt->settings.n)
        die_usage("invalid split depth %d: must not exceed N=%d", opt->settings.split_depth,
                  opt->settings.n);
}

static int print_solution(const int *cols, int n, void *user)
{
    const cli_options *opt = user;
    if (opt->format == FORMAT_COLUMNS) {
        for (int r = 0; r < n; r++)
            printf(r ? " %d" : "%d", cols[r]);
        putchar('\n');
    } else {
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < n; c++)
                fputs(c == cols[r] ? (c ? " Q" : "Q") : (c ? " ." : "."), stdout);
            putchar('\n');
        }
        putchar('\n');
    }
    return 0;
}

static int list_solutions(cli_options *opt)
{
    uint64_t emitted = 0;
    int ret = nq_list_solutions(opt->settings.n, opt->limit, print_solution, opt, &emitted);
    if (ret < 0) {
        fprintf(stderr, "nqueens: %s\n", nq_strerror(ret));
        return 1;
    }
    if (!opt->quiet)
        fprintf(stderr, "%" PRIu64 " solution%s listed\n", emitted, emitted == 1 ? "" : "s");
    return 0;
}

static void print_json(const cli_options *opt, const nq_result *r)
{
    char total[48], unique[48];
    nq_u128_to_string(r->total, total, sizeof total);
    printf("{\"n\": %d, \"engine\": \"%s\", \"threads\": %d, \"split_depth\": %d, "
           "\"subproblems\": %" PRIu64 ", \"units_resumed\": %" PRIu64 ", "
           "\"total\": %s, \"unique\": %s, ",
           opt->settings.n, nq_engine_name(r->engine), r->threads, r->split_depth,
           r->subproblems, r->units_resumed, total,
           r->has_unique ? nq_u128_to_string(r->unique, unique, sizeof unique) : "null");
    if (r->has_nodes)
        printf("\"nodes\": %" PRIu64 ", ", r->nodes);
    else
        printf("\"nodes\": null, ");
    printf("\"seconds\": %.6f, \"version\": \"%s\"}\n", r->seconds, nq_version());
}

static void print_text(const cli_options *opt, const nq_result *r)
{
    char total[48], unique[48];
    nq_u128_to_string(r->total, total, sizeof total);
    if (opt->quiet) {
        printf("%s\n", total);
        return;
    }
    printf("N=%d: %s solutions", opt->settings.n, total);
    if (r->has_unique)
        printf(" (%s unique)", nq_u128_to_string(r->unique, unique, sizeof unique));
    printf("\nengine %s, %d thread%s", nq_engine_name(r->engine), r->threads,
           r->threads == 1 ? "" : "s");
    if (r->split_depth)
        printf(", split depth %d", r->split_depth);
    printf(", %" PRIu64 " subproblem%s", r->subproblems, r->subproblems == 1 ? "" : "s");
    if (r->units_resumed)
        printf(" (%" PRIu64 " resumed from the journal)", r->units_resumed);
    printf(", %.3f s", r->seconds);
    /* A resumed run's nodes were mostly searched by earlier processes. */
    if (r->has_nodes && r->seconds > 0 && !r->units_resumed)
        printf(", %.3g nodes/s", (double)r->nodes / r->seconds);
    putchar('\n');
}

/* ---- Progress ---- */

typedef struct progress_view {
    int tty;       /* redraw one line in place, else print plain lines */
    int line_open; /* a redrawn line is on screen without its newline */
    double at[RATE_SAMPLES];      /* elapsed time of recent samples... */
    uint64_t done[RATE_SAMPLES];  /* ...and units done then */
    unsigned samples;
} progress_view;

/* Set while a redrawn progress line lacks its newline, so that a signal
 * handler exiting at once can end the line first. */
static volatile sig_atomic_t progress_line_open;

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

/* Units per second over the last few seconds (the library's rate is the
 * average over the whole run, which hides a slowdown). */
static double current_rate(progress_view *v, const nq_progress *p)
{
    unsigned slot = v->samples % RATE_SAMPLES;
    unsigned oldest = v->samples >= RATE_SAMPLES ? slot : 0;
    v->at[slot] = p->elapsed;
    v->done[slot] = p->units_done;
    v->samples++;
    if (v->samples < 2)
        return p->rate;
    double dt = p->elapsed - v->at[oldest];
    return dt > 0 ? (double)(p->units_done - v->done[oldest]) / dt : p->rate;
}

/* The library's progress callback: one thread at a time, so no locking. */
static void show_progress(const nq_progress *p, void *user)
{
    progress_view *v = user;
    char elapsed[32], eta[32];
    double pct = p->units_total ? 100.0 * (double)p->units_done / (double)p->units_total : 100.0;
    double rate = current_rate(v, p);
    char line[200];
    snprintf(line, sizeof line,
             "%" PRIu64 "/%" PRIu64 " subproblems (%.1f%%), elapsed %s, ETA %s, %.1f/s", p->units_done,
             p->units_total, pct, format_duration(p->elapsed, elapsed, sizeof elapsed),
             format_duration(p->eta, eta, sizeof eta), rate);
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

/* The library's notice callback (a torn journal tail was discarded). */
static void show_notice(const char *message, void *user)
{
    progress_view *v = user;
    if (v && v->line_open) {
        fputc('\n', stderr);
        v->line_open = 0;
        progress_line_open = 0;
    }
    fprintf(stderr, "nqueens: %s\n", message);
}

/* ---- Interruption ---- */

static atomic_int cancel_requested;
static volatile sig_atomic_t first_signal;
static volatile sig_atomic_t exit_at_once; /* no journal: nothing to save */

/* SIGINT/SIGTERM: the first asks the library to stop (it flushes the
 * journal); a second one, or any when there is no journal, exits now.
 * Only async-signal-safe calls here. */
static void on_signal(int sig)
{
    if (first_signal || exit_at_once) {
        if (progress_line_open)
            (void)!write(STDERR_FILENO, "\n", 1);
        _exit(128 + sig);
    }
    first_signal = sig;
    atomic_store(&cancel_requested, 1);
}

static void install_signal_handlers(int have_journal)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    exit_at_once = !have_journal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
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

/* One line telling how far the run got and the exact command that resumes. */
static void print_resume_hint(int argc, char **argv, const nq_result *r)
{
    fprintf(stderr, "nqueens: interrupted after %" PRIu64 " subproblems were done; resume with: ",
            r->subproblems);
    for (int i = 0; i < argc; i++) {
        if (i)
            fputc(' ', stderr);
        print_shell_word(stderr, argv[i]);
    }
    fputc('\n', stderr);
}

int main(int argc, char **argv)
{
    /* getopt_long permutes argv; the resume hint repeats it as typed. */
    char **typed = malloc(((size_t)argc + 1) * sizeof *typed);
    if (!typed) {
        fputs("nqueens: out of memory\n", stderr);
        return 1;
    }
    memcpy(typed, argv, ((size_t)argc + 1) * sizeof *typed);
    cli_options opt = {0};
    parse_args(argc, argv, &opt);
    if (opt.list) {
        free(typed);
        return list_solutions(&opt);
    }

    progress_view view = {.tty = isatty(STDERR_FILENO)};
    int show = opt.progress == PROGRESS_ON || (opt.progress == PROGRESS_AUTO && view.tty && !opt.quiet);
    if (show) {
        opt.settings.progress = show_progress;
        opt.settings.progress_user = &view;
        opt.settings.progress_interval = view.tty ? PROGRESS_TTY_INTERVAL : PROGRESS_LINE_INTERVAL;
    }
    opt.settings.notice = show_notice;
    opt.settings.notice_user = &view;
    opt.settings.cancel = &cancel_requested;
    install_signal_handlers(opt.settings.checkpoint_path != NULL);

    nq_result result;
    int ret = nq_count(&opt.settings, &result);
    if (ret == NQ_ECANCELLED && first_signal) {
        print_resume_hint(argc, typed, &result);
        free(typed);
        return 128 + first_signal;
    }
    free(typed);
    if (ret < 0) {
        /* Journal trouble (mismatch, damage, an unusable path) is a problem
         * with what the user gave: status 2, like any bad argument. */
        if (result.detail[0]) {
            fprintf(stderr, "nqueens: %s\n", result.detail);
            return EXIT_USAGE;
        }
        fprintf(stderr, "nqueens: %s\n", nq_strerror(ret));
        return ret == NQ_ENOMEM || ret == NQ_EIO ? 1 : EXIT_USAGE;
    }
    if (opt.json)
        print_json(&opt, &result);
    else
        print_text(&opt, &result);
    return 0;
}
