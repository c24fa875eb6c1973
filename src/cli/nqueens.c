/*
 * nqueens.c - the command-line counter.
 *
 * Parses options with getopt_long, fills nq_settings, calls the library and
 * renders the result (text, JSON or a listing of solutions).  The library
 * never prints; everything a user sees is written here.  Bad input gets one
 * line on stderr naming the value and what is allowed, and exit status 2.
 */
#include <errno.h>
#include <getopt.h>
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

enum output_format { FORMAT_BOARD, FORMAT_COLUMNS };

typedef struct cli_options {
    nq_settings settings;
    int json;
    int quiet;
    int list;
    uint64_t limit;
    enum output_format format;
} cli_options;

enum long_only {
    OPT_SPLIT_DEPTH = 256,
    OPT_JSON,
    OPT_SOLUTIONS,
    OPT_LIMIT,
    OPT_FORMAT,
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
           "\"subproblems\": %" PRIu64 ", \"total\": %s, \"unique\": %s, ",
           opt->settings.n, nq_engine_name(r->engine), r->threads, r->split_depth,
           r->subproblems, total,
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
    printf(", %" PRIu64 " subproblem%s, %.3f s", r->subproblems, r->subproblems == 1 ? "" : "s",
           r->seconds);
    if (r->has_nodes && r->seconds > 0)
        printf(", %.3g nodes/s", (double)r->nodes / r->seconds);
    putchar('\n');
}

int main(int argc, char **argv)
{
    cli_options opt = {0};
    parse_args(argc, argv, &opt);
    if (opt.list)
        return list_solutions(&opt);

    nq_result result;
    int ret = nq_count(&opt.settings, &result);
    if (ret < 0) {
        fprintf(stderr, "nqueens: %s\n", nq_strerror(ret));
        return ret == NQ_ENOMEM || ret == NQ_EIO ? 1 : EXIT_USAGE;
    }
    if (opt.json)
        print_json(&opt, &result);
    else
        print_text(&opt, &result);
    return 0;
}
