/*
 * options.c - the command-line parsing and the help text shared by the
 * counting programs (see options.h); what a run prints is in render.c.
 *
 * Kept free of exit() and of any printing during parsing so that the MPI
 * program can parse on every rank and let only rank 0 talk.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "cli/size.h"

enum long_only {
    OPT_SPLIT_DEPTH = 256,
    OPT_JSON,
    OPT_SOLUTIONS,
    OPT_LIMIT,
    OPT_FORMAT,
    OPT_PROGRESS,
    OPT_NO_PROGRESS,
    OPT_CHECKPOINT,
    OPT_RANK_TIMEOUT,
    OPT_SCHEDULE,
    OPT_OUTPUT,
    OPT_VERIFY,
    OPT_MEMORY,
};

static const struct option long_options[] = {
    {"threads", required_argument, NULL, 't'},
    {"engine", required_argument, NULL, 'e'},
    {"split-depth", required_argument, NULL, OPT_SPLIT_DEPTH},
    {"schedule", required_argument, NULL, OPT_SCHEDULE},
    {"json", no_argument, NULL, OPT_JSON},
    {"quiet", no_argument, NULL, 'q'},
    {"solutions", no_argument, NULL, OPT_SOLUTIONS},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"checkpoint", required_argument, NULL, OPT_CHECKPOINT},
    {"rank-timeout", required_argument, NULL, OPT_RANK_TIMEOUT},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"verify", required_argument, NULL, OPT_VERIFY},
    {"memory", required_argument, NULL, OPT_MEMORY},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

void nq_cli_usage(FILE *out, const char *prog)
{
    fprintf(out,
            "Usage: %s N [options]\n"
            "Counts the placements of N non-attacking queens on an N x N board.\n"
            "\n"
            "  N                     board size, 1..32 (required)\n"
            "  -t, --threads T       worker threads, 1..%d (default, or 0: OMP_NUM_THREADS\n"
            "                        or all cores)\n"
            "  -e, --engine E        auto, plain, mirror, full, mitm (default: auto)\n"
            "      --split-depth D   rows expanded into subproblems, 1..8 (default: automatic)\n"
            "      --schedule S      how threads share the work: tasks, dynamic, guided,\n"
            "                        static (default: dynamic)\n"
            "      --json            print one JSON object instead of text\n"
            "  -q, --quiet           print only the total (not with --json)\n"
            "      --output FILE     write the result to FILE (replaced whole, synced)\n"
            "                        instead of standard output\n"
            "      --solutions       list the solutions instead of counting them\n"
            "      --limit K         list at most K solutions (default: all, N <= %d only)\n"
            "      --format F        listing format: board, columns (default: board)\n"
            "      --progress        show progress on stderr even when it is not a terminal\n"
            "      --no-progress     never show progress (default: shown on a terminal)\n"
            "      --checkpoint FILE record finished work in FILE; rerun the same command\n"
            "                        to resume after an interruption or a crash\n"
            "      --verify F        count a sample of F (0 < F <= 1, e.g. 0.01) of the\n"
            "                        chunks a second time on another thread (nqueens-mpi:\n"
            "                        another rank) and compare; differing counts exit %d\n"
            "      --memory SIZE     memory a process may plan for, e.g. 8G (K, M, G, T:\n"
            "                        KiB..TiB); mitm at N >= 24 joins in longer batches\n"
            "                        where it allows (default: batches of 2^25)\n"
            "  -h, --help            show this help and exit\n"
            "  -V, --version         show the version and exit\n",
            prog, NQ_MAX_THREADS, NQ_CLI_LIST_MAX_N, NQ_CLI_EXIT_VERIFY);
}

void nq_cli_usage_mpi(FILE *out)
{
    fprintf(out,
            "\n"
            "nqueens-mpi only:\n"
            "      --rank-timeout S  a rank silent for S seconds (1..%d) is taken for\n"
            "                        stalled; its chunks go to the others (default: %d)\n",
            NQ_CLI_RANK_TIMEOUT_MAX, NQ_CLI_RANK_TIMEOUT_DEFAULT);
}

void nq_cli_report_bad(const char *prog, const char *message)
{
    fprintf(stderr, "%s: %s (try --help)\n", prog, message);
}

/* Formats a bad-input message into err and returns NQ_CLI_BAD.  Control
 * characters in what was typed become '?': the message stays one line and
 * cannot drive the terminal. */
static enum nq_cli_action bad(char *err, size_t err_size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    for (unsigned char *p = (unsigned char *)err; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
    return NQ_CLI_BAD;
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

/* Parses a fraction in (0, 1] written as a decimal number; 0 on success,
 * -1 otherwise (NaN, infinities and hexadecimal are not fractions). */
static int parse_fraction(const char *text, double *value)
{
    if (!text || !*text)
        return -1;
    for (const char *p = text; *p; p++)
        if (!(*p >= '0' && *p <= '9') && *p != '.' && *p != 'e' && *p != 'E' && *p != '-' &&
            *p != '+')
            return -1;
    errno = 0;
    char *end = NULL;
    const double v = strtod(text, &end);
    if (errno == ERANGE || *end != '\0' || end == text || !(v > 0 && v <= 1))
        return -1;
    *value = v;
    return 0;
}

/* Parses a whole decimal integer in [1, UINT64_MAX]; 0 on success, -1
 * otherwise. */
static int parse_count(const char *text, uint64_t *value)
{
    uint64_t v;
    const char *end = text ? nq_cli_parse_digits(text, &v) : NULL;
    if (!end || end == text || *end || v == 0)
        return -1;
    *value = v;
    return 0;
}

/* Which options the command line gave, for the checks of what applies. */
typedef struct given {
    int threads, engine, split_depth, limit, format, progress, no_progress, rank_timeout,
        schedule, verify, memory;
} given;

/* Handles one option c with argument arg.  Returns NQ_CLI_RUN to go on,
 * or the action that ends parsing.  Only the syntax is checked here: the
 * ranges are the library's (nq_check_settings), checked once at the end. */
static enum nq_cli_action parse_option(int c, const char *arg, nq_cli_options *opt, given *g,
                                       char *err, size_t err_size)
{
    long v;
    switch (c) {
    case 't':
        if (parse_long(arg, 0, INT_MAX, &v) < 0)
            return bad(err, err_size,
                       "invalid thread count '%s': expected an integer from 1 to %d (0 = default)",
                       arg, NQ_MAX_THREADS);
        opt->settings.threads = (int)v;
        g->threads = 1;
        break;
    case 'e':
        if (nq_engine_from_name(arg, &opt->settings.engine) < 0)
            return bad(err, err_size,
                       "unknown engine '%s': expected auto, plain, mirror, full or mitm", arg);
        g->engine = 1;
        break;
    case OPT_SPLIT_DEPTH:
        if (parse_long(arg, 1, INT_MAX, &v) < 0)
            return bad(err, err_size, "invalid split depth '%s': expected an integer from 1 to %d",
                       arg, NQ_MAX_SPLIT_DEPTH);
        opt->settings.split_depth = (int)v;
        g->split_depth = 1;
        break;
    case OPT_SCHEDULE:
        /* "default" is the library's name for the setting's zero value, not
         * a schedule to ask for. */
        if (!strcmp(arg, "default") || nq_schedule_from_name(arg, &opt->settings.schedule) < 0)
            return bad(err, err_size,
                       "unknown schedule '%s': expected tasks, dynamic, guided or static", arg);
        g->schedule = 1;
        break;
    case OPT_VERIFY:
        if (parse_fraction(arg, &opt->settings.verify) < 0)
            return bad(err, err_size,
                       "invalid verify fraction '%s': expected a number more than 0 and at most "
                       "1 (e.g. 0.01)", arg);
        g->verify = 1;
        break;
    case OPT_MEMORY:
        if (nq_cli_parse_size(arg, &opt->settings.memory) < 0)
            return bad(err, err_size,
                       "invalid memory size '%s': expected a whole number of bytes, or with K, M, "
                       "G or T (e.g. 8G)", arg);
        g->memory = 1;
        break;
    case OPT_JSON: opt->json = 1; break;
    case 'q': opt->quiet = 1; break;
    case OPT_SOLUTIONS: opt->list = 1; break;
    case OPT_LIMIT:
        if (parse_count(arg, &opt->limit) < 0)
            return bad(err, err_size, "invalid limit '%s': expected an integer from 1 to %" PRIu64,
                       arg, UINT64_MAX);
        g->limit = 1;
        break;
    case OPT_FORMAT:
        if (!strcmp(arg, "board"))
            opt->format = NQ_CLI_FORMAT_BOARD;
        else if (!strcmp(arg, "columns"))
            opt->format = NQ_CLI_FORMAT_COLUMNS;
        else
            return bad(err, err_size, "unknown format '%s': expected board or columns", arg);
        g->format = 1;
        break;
    case OPT_PROGRESS: opt->progress = NQ_CLI_PROGRESS_ON; g->progress = 1; break;
    case OPT_NO_PROGRESS: opt->progress = NQ_CLI_PROGRESS_OFF; g->no_progress = 1; break;
    case OPT_CHECKPOINT:
        if (!*arg)
            return bad(err, err_size, "invalid checkpoint file '': expected a path");
        opt->settings.checkpoint_path = arg;
        break;
    case OPT_RANK_TIMEOUT:
        if (parse_long(arg, 1, NQ_CLI_RANK_TIMEOUT_MAX, &v) < 0)
            return bad(err, err_size,
                       "invalid rank timeout '%s': expected whole seconds from 1 to %d", arg,
                       NQ_CLI_RANK_TIMEOUT_MAX);
        opt->rank_timeout = (int)v;
        g->rank_timeout = 1;
        break;
    case OPT_OUTPUT:
        if (!*arg)
            return bad(err, err_size, "invalid output file '': expected a path");
        opt->output = arg;
        break;
    case 'h': return NQ_CLI_HELP;
    case 'V': return NQ_CLI_VERSION;
    default: break;
    }
    return NQ_CLI_RUN;
}

/* The message for an option getopt did not accept (c is ':' or '?'). */
static enum nq_cli_action unknown_option(int c, int argc, char **argv, char *err,
                                         size_t err_size)
{
    if (c == ':')
        return bad(err, err_size, "option '%s' needs a value", argv[optind - 1]);
    if (optopt >= '0' && optopt <= '9') {
        /* "-1" is a negative board size, not an option: say so.  getopt has
         * advanced optind past "-1" but not yet past "-12". */
        const char *arg = optind < argc && argv[optind][0] == '-' && argv[optind][1] == optopt
                              ? argv[optind]
                              : argv[optind - 1];
        return bad(err, err_size, "invalid board size '%s': expected an integer from %d to %d",
                   arg, NQ_MIN_N, NQ_MAX_N);
    }
    if (optopt)
        return bad(err, err_size, "unknown option '-%c'", optopt);
    return bad(err, err_size, "unknown option '%s'", argv[optind - 1]);
}

/* Refuses the options that do not apply to listing (--solutions) or to
 * counting, and the pairs that cannot both hold; nothing given is silently
 * ignored.  test_option_pairs.py walks every pair of options against this. */
static enum nq_cli_action check_mode(const nq_cli_options *opt, const given *g, char *err,
                                     size_t err_size)
{
    static const char *const counting_only = "applies only to counting, not with --solutions";
    if (opt->json && opt->quiet)
        return bad(err, err_size,
                   "--quiet does not apply with --json: the JSON object is the whole output");
    if (g->progress && g->no_progress)
        return bad(err, err_size, "--progress and --no-progress contradict each other");
    if (!opt->list) {
        if (g->limit)
            return bad(err, err_size, "--limit applies only with --solutions");
        if (g->format)
            return bad(err, err_size, "--format applies only with --solutions");
        return NQ_CLI_RUN;
    }
    const struct {
        int given;
        const char *name;
    } counting[] = {
        {g->threads, "--threads"},       {g->engine, "--engine"},
        {g->split_depth, "--split-depth"}, {opt->json, "--json"},
        {g->progress, "--progress"},     {opt->settings.checkpoint_path != NULL, "--checkpoint"},
        {g->rank_timeout, "--rank-timeout"}, {g->schedule, "--schedule"},
        {opt->output != NULL, "--output"}, {g->verify, "--verify"},
        {g->memory, "--memory"},
    };
    for (size_t i = 0; i < sizeof counting / sizeof counting[0]; i++)
        if (counting[i].given)
            return bad(err, err_size, "%s %s", counting[i].name, counting_only);
    if (!g->limit && opt->settings.n > NQ_CLI_LIST_MAX_N)
        return bad(err, err_size,
                   "listing every solution for N=%d would be too long: give --limit K (or N <= %d)",
                   opt->settings.n, NQ_CLI_LIST_MAX_N);
    return NQ_CLI_RUN;
}

/* nq_cli_parse() and nq_cli_parse_mpi(); `mpi` accepts nqueens-mpi's own options. */
static enum nq_cli_action parse_command_line(int argc, char **argv, int mpi,
                                             nq_cli_options *opt, char *err, size_t err_size)
{
    memset(opt, 0, sizeof *opt);
    nq_default_settings(&opt->settings);
    opt->estimate = -1;
    given g = {0};
    int c;
    opterr = 0; /* we report our own one-line errors */
    while ((c = getopt_long(argc, argv, ":t:e:qhV", long_options, NULL)) != -1) {
        if (c == ':' || c == '?')
            return unknown_option(c, argc, argv, err, err_size);
        enum nq_cli_action action = parse_option(c, optarg, opt, &g, err, err_size);
        if (action != NQ_CLI_RUN)
            return action;
    }
    if (g.rank_timeout && !mpi)
        return bad(err, err_size, "--rank-timeout applies only to nqueens-mpi");

    long v;
    if (optind >= argc)
        return bad(err, err_size, "missing board size N: expected an integer from %d to %d",
                   NQ_MIN_N, NQ_MAX_N);
    const char *arg = argv[optind++];
    if (parse_long(arg, INT_MIN, INT_MAX, &v) < 0)
        return bad(err, err_size, "invalid board size '%s': expected an integer from %d to %d",
                   arg, NQ_MIN_N, NQ_MAX_N);
    opt->settings.n = (int)v;
    if (optind < argc)
        return bad(err, err_size, "unexpected argument '%s': only one board size may be given",
                   argv[optind]);
    /* The library's one check of the settings: ranges, and what applies to
     * the engine that will run.  A listing needs only a valid N (check_mode
     * refuses the counting options given with it). */
    nq_settings checked = opt->settings;
    if (opt->list) {
        nq_default_settings(&checked);
        checked.n = opt->settings.n;
        checked.threads = 1; /* a listing runs on one thread, whatever OMP_NUM_THREADS says */
    }
    if (nq_check_settings(&checked, err, err_size) < 0)
        return NQ_CLI_BAD;
    return check_mode(opt, &g, err, err_size);
}

enum nq_cli_action nq_cli_parse(int argc, char **argv, nq_cli_options *opt, char *err,
                                size_t err_size)
{
    return parse_command_line(argc, argv, 0, opt, err, err_size);
}

enum nq_cli_action nq_cli_parse_mpi(int argc, char **argv, nq_cli_options *opt, char *err,
                                    size_t err_size)
{
    return parse_command_line(argc, argv, 1, opt, err, err_size);
}
