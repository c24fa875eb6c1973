/*
 * options.c - nqueens-bench's command line: the option table, --help, the
 * parsing of lists and engines, and the checks that span options.
 *
 * Every mistake is found here, before a sweep starts: a long sweep that
 * fails at its end on a typo in a file name loses the minutes it ran.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/size.h"
#include "cli/version.h"
#include "options.h"
#include "engines/mitm/mitm.h"
#include "run/model.h"

enum long_only {
    OPT_CSV = 256,
    OPT_JSON,
    OPT_PLOT,
    OPT_WARMUP,
    OPT_SPLIT,
    OPT_PROFILE,
    OPT_PREDICT,
    OPT_CORES,
    OPT_RANKS,
    OPT_AUDIT,
    OPT_PROJECT,
    OPT_PROJECT_LIMIT,
    OPT_PROJECT_PART,
    OPT_MIN_RUNS,
    OPT_MAX_RUNS,
    OPT_PRECISION,
    OPT_MARKDOWN,
    OPT_PROC_BIND,
    OPT_PLACES,
    OPT_CHILD_FD,
    OPT_SCHEDULE,
    OPT_MEMORY,
};

static const struct option long_options[] = {
    {"n", required_argument, NULL, 'n'},
    {"threads", required_argument, NULL, 't'},
    {"engine", required_argument, NULL, 'e'},
    {"repeat", required_argument, NULL, 'r'},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"split-depth", required_argument, NULL, OPT_SPLIT},
    {"csv", required_argument, NULL, OPT_CSV},
    {"json", required_argument, NULL, OPT_JSON},
    {"plot", required_argument, NULL, OPT_PLOT},
    {"profile", no_argument, NULL, OPT_PROFILE},
    {"predict", no_argument, NULL, OPT_PREDICT},
    {"cores", no_argument, NULL, OPT_CORES},
    {"ranks", required_argument, NULL, OPT_RANKS},
    {"audit", required_argument, NULL, OPT_AUDIT},
    {"project", required_argument, NULL, OPT_PROJECT},
    {"project-limit", required_argument, NULL, OPT_PROJECT_LIMIT},
    {"project-part", required_argument, NULL, OPT_PROJECT_PART},
    {"min-runs", required_argument, NULL, OPT_MIN_RUNS},
    {"max-runs", required_argument, NULL, OPT_MAX_RUNS},
    {"precision", required_argument, NULL, OPT_PRECISION},
    {"markdown", required_argument, NULL, OPT_MARKDOWN},
    {"quiet", no_argument, NULL, 'q'},
    {"proc-bind", required_argument, NULL, OPT_PROC_BIND},
    {"places", required_argument, NULL, OPT_PLACES},
    {"schedule", required_argument, NULL, OPT_SCHEDULE},
    {"memory", required_argument, NULL, OPT_MEMORY},
    {"child-fd", required_argument, NULL, OPT_CHILD_FD}, /* internal: see variants.c */
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* Default thread counts: 1, 2, 4, ... below `cores`, then `cores`. */
static void default_threads(bench_list *list, int cores)
{
    list->count = 0;
    for (int t = 1; t < cores && list->count < BENCH_MAX_LIST - 1; t *= 2)
        list->values[list->count++] = t;
    list->values[list->count++] = cores;
}

static void usage(FILE *out)
{
    bench_list def;
    char here[128] = "";
    default_threads(&def, bench_cores());
    for (int i = 0; i < def.count; i++)
        snprintf(here + strlen(here), sizeof here - strlen(here), "%s%d", i ? "," : "",
                 def.values[i]);
    fprintf(out,
            "Usage: nqueens-bench [options]\n"
            "Times the N-Queens counter over board sizes, thread counts and engines.\n"
            "\n"
            "  -n, --n LIST          board sizes, e.g. 14-17 or 12,14 (default: 12-14)\n"
            "  -t, --threads LIST    thread counts, e.g. 1,2,4 or 1-4 (default: 1, 2, 4, ...\n"
            "                        up to the cores, plus the core count: here %s)\n"
            "  -e, --engine LIST     engines, e.g. mirror,full; plain runs once per N, on\n"
            "                        1 thread (default: mirror)\n"
            "  -r, --repeat R        timed runs per case, 1..1000 (default: 3); the same\n"
            "                        as --min-runs R --max-runs R\n"
            "      --min-runs R      at least R timed runs per case, 1..1000\n"
            "      --max-runs R      at most R timed runs per case, 1..1000 (default: the\n"
            "                        minimum, or 20 with --precision)\n"
            "      --precision P     after the minimum, run a case again until the standard\n"
            "                        error of its mean is within P of the mean (0.02 or 2%%)\n"
            "      --warmup W        untimed runs before them, 0..100 (default: 1)\n"
            "      --split-depth D   rows expanded into units, 1..%d (default: automatic)\n"
            "      --csv FILE        write every run as CSV; the machine header and the\n"
            "                        command line go to FILE.meta\n"
            "      --json FILE       write every case and run as JSON, with the machine\n"
            "      --markdown FILE   write one table line per case as Markdown\n"
            "      --plot FILE.svg   draw speedup and efficiency against threads as SVG\n"
            "                        (the files are rewritten as each case finishes and\n"
            "                        replace FILE when the sweep ends or is interrupted)\n"
            "      --schedule LIST   how threads share the work, each a case of its own:\n"
            "                        tasks, dynamic, guided, static (default: the\n"
            "                        library's); plain keeps the library's\n"
            "      --memory SIZE     memory each case may plan for, e.g. 8G (K, M, G, T:\n"
            "                        KiB..TiB): mitm at N >= 24 joins in longer batches\n"
            "                        where it allows (default: batches of 2^25)\n"
            "      --proc-bind LIST  sweep over OMP_PROC_BIND values: false, true, close,\n"
            "                        spread, primary (each in a process of its own)\n"
            "      --places LIST     sweep over OMP_PLACES values: threads, cores,\n"
            "                        ll_caches, numa_domains, sockets\n"
            "  -q, --quiet           no progress lines and warnings on standard error\n"
            "      --profile         time every unit of the job planned for the largest\n"
            "                        --threads value, print the cost distribution and the\n"
            "                        model's predictions next to measured runs\n"
            "      --predict         print the model's predicted efficiency for each thread\n"
            "                        count from cheap estimates, counting nothing\n"
            "                        (default threads: 1, 2, 4, ..., 1024)\n"
            "      --cores           time the CPUs against each other (the same work on\n"
            "                        each at once, about 0.1 s), print how far apart they\n"
            "                        ran, and exit; counting nothing\n"
            "      --ranks R         with --predict: nqueens-mpi on R ranks of each thread\n"
            "                        count, in journal chunks; R x threads <= %d\n"
            "      --audit K         check K units of each N's mitm job against an\n"
            "                        independent backtracking count of each, on the\n"
            "                        largest --threads value; exit 1 on a mismatch\n"
            "      --project S       time runs of units in S or more strata of each N's\n"
            "                        job (doubled until within 10%%), one thread each, on\n"
            "                        the largest --threads value, and project the\n"
            "                        core-hours of the whole count (at most 16 x S runs;\n"
            "                        the figure so far on stderr before each doubling)\n"
            "      --project-limit SECONDS\n"
            "                        with --project: keep doubling past 16 x S runs\n"
            "                        while the next doubling should end within SECONDS\n"
            "                        of the projection's start (1..10000000)\n"
            "      --project-part SHARE\n"
            "                        with --project: solve SHARE of each unit's join\n"
            "                        blocks (0..1, or a percentage; evenly spread) and\n"
            "                        the rest of it whole, and scale the blocks' time up,\n"
            "                        for units too long to time whole (mitm at N = 28;\n"
            "                        default: whole units)\n"
            "  -h, --help            show this help and exit\n"
            "  -V, --version         show the version and exit\n",
            here, NQ_MAX_SPLIT_DEPTH, NQ_MODEL_MAX_WORKERS);
    bench_flush_stdout();
}

/* One-line error on stderr and exit status 2. */
static _Noreturn void die_usage(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    bench_one_line(line);
    fprintf(stderr, "nqueens-bench: %s (try --help)\n", line);
    exit(BENCH_EXIT_USAGE);
}

/* Parses a share: a fraction (0.02) or a percentage (2%), into *share.
 * Returns 0, or -1 when it is neither or not above 0 and below 1 (at most
 * 1 when one_allowed). */
static int parse_share(const char *arg, int one_allowed, double *share)
{
    char *end;
    errno = 0;
    double p = strtod(arg, &end);
    if (end != arg && *end == '%' && end[1] == '\0') {
        p /= 100;
        end++;
    }
    if (end == arg || *end || errno || !(p > 0 && (p < 1 || (one_allowed && p == 1))))
        return -1;
    *share = p;
    return 0;
}

/* Parses a list into *list (see bench_parse_list); dies with a one-line
 * usage error naming `what` on bad input. */
static void parse_list(const char *text, long lo, long hi, const char *what, bench_list *list)
{
    char err[256];
    if (bench_parse_list(text, lo, hi, what, list, err, sizeof err) < 0)
        die_usage("%s", err);
}

static void parse_engines(const char *text, bench_options *o)
{
    char buf[256];
    if (strlen(text) >= sizeof buf)
        die_usage("engine list too long: '%.40s...'", text);
    strcpy(buf, text);
    o->engine_count = 0;
    char *save = NULL;
    for (char *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        enum nq_engine e;
        if (nq_engine_from_name(name, &e) < 0)
            die_usage("unknown engine '%s': expected auto, plain, mirror, full or mitm", name);
        int seen = 0;
        for (int i = 0; i < o->engine_count; i++)
            seen |= o->engines[i] == e;
        if (!seen && o->engine_count < NQ_ENGINE_COUNT_)
            o->engines[o->engine_count++] = e;
    }
    if (o->engine_count == 0)
        die_usage("empty engine list '%s'", text);
    /* plain first: every other case at the same N is compared with it. */
    for (int i = 1; i < o->engine_count; i++)
        if (o->engines[i] == NQ_ENGINE_PLAIN) {
            o->engines[i] = o->engines[0];
            o->engines[0] = NQ_ENGINE_PLAIN;
        }
}

static const char *const proc_bind_values[] = {"false", "true", "close", "spread", "primary",
                                               "master", NULL};
static const char *const schedule_values[] = {"tasks", "dynamic", "guided", "static", NULL};
static const char *const places_values[] = {"threads", "cores", "ll_caches", "numa_domains",
                                            "sockets", NULL};

/* Parses a comma-separated list of names, each one of `allowed`, into
 * out[] (duplicates dropped); dies with a one-line usage error otherwise. */
static void parse_names(const char *text, const char *what, const char *const *allowed,
                        char (*out)[16], int *count)
{
    char buf[256];
    if (strlen(text) >= sizeof buf)
        die_usage("%s list too long: '%.40s...'", what, text);
    strcpy(buf, text);
    *count = 0;
    char *save = NULL;
    for (char *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        int known = 0, seen = 0;
        for (int i = 0; allowed[i]; i++)
            known |= !strcmp(allowed[i], name);
        if (!known) {
            char expected[128] = "";
            for (int i = 0; allowed[i]; i++)
                snprintf(expected + strlen(expected), sizeof expected - strlen(expected),
                         "%s%s", i ? ", " : "", allowed[i]);
            die_usage("unknown %s value '%s': expected %s", what, name, expected);
        }
        for (int i = 0; i < *count; i++)
            seen |= !strcmp(out[i], name);
        if (!seen && *count < BENCH_MAX_BINDS)
            snprintf(out[(*count)++], 16, "%s", name);
    }
    if (*count == 0)
        die_usage("empty %s list '%s'", what, text);
}

/* Prepares an output file (see save.c), so that a bad path fails before a
 * long sweep; the target itself is not touched until the sweep ends. */
static void open_save(bench_save *save, const char *path)
{
    char err[512];
    if (path && bench_save_open(save, path, err, sizeof err) < 0)
        die_usage("%s", err);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* Handles one option c of the command line (exits on bad input). */
static void parse_option(int c, const char *arg, char **argv, bench_options *o)
{
    int value;
    switch (c) {
    case 'n': parse_list(arg, NQ_MIN_N, NQ_MAX_N, "board size", &o->n); break;
    case 't':
        parse_list(arg, 1, NQ_MAX_THREADS, "thread count", &o->threads);
        o->threads_given = 1;
        break;
    case 'e':
        parse_engines(arg, o);
        o->engines_given = 1;
        break;
    case 'r':
        if (bench_parse_int(arg, strlen(arg), 1, 1000, &value) < 0)
            die_usage("invalid repeat count '%s': expected an integer from 1 to 1000", arg);
        o->min_runs = o->max_runs = value;
        break;
    case OPT_WARMUP:
        if (bench_parse_int(arg, strlen(arg), 0, 100, &value) < 0)
            die_usage("invalid warm-up count '%s': expected an integer from 0 to 100", arg);
        o->warmup = value;
        break;
    case OPT_SPLIT:
        if (bench_parse_int(arg, strlen(arg), 1, INT_MAX, &value) < 0)
            die_usage("invalid split depth '%s': expected an integer from 1 to %d", arg,
                      NQ_MAX_SPLIT_DEPTH);
        o->split_depth = value;
        break;
    case OPT_MIN_RUNS:
    case OPT_MAX_RUNS:
        if (bench_parse_int(arg, strlen(arg), 1, 1000, &value) < 0)
            die_usage("invalid run count '%s' for --%s: expected an integer from 1 to 1000", arg,
                      c == OPT_MIN_RUNS ? "min-runs" : "max-runs");
        if (c == OPT_MIN_RUNS)
            o->min_runs = value;
        else
            o->max_runs_given = o->max_runs = value;
        break;
    case OPT_PRECISION:
        if (parse_share(arg, 0, &o->precision) < 0)
            die_usage("invalid precision '%s': expected a fraction of the mean between 0 and "
                      "1 (0.02) or a percentage (2%%)", arg);
        break;
    case OPT_MARKDOWN: o->markdown_path = arg; break;
    case OPT_SCHEDULE: {
        char names[NQ_SCHEDULE_COUNT_][16];
        int count;
        parse_names(arg, "schedule", schedule_values, names, &count);
        o->schedule_count = 0;
        for (int i = 0; i < count; i++)
            nq_schedule_from_name(names[i], &o->schedules[o->schedule_count++]);
        break;
    }
    case OPT_PROC_BIND:
        parse_names(arg, "OMP_PROC_BIND", proc_bind_values, o->proc_binds, &o->proc_bind_count);
        break;
    case OPT_PLACES:
        parse_names(arg, "OMP_PLACES", places_values, o->places, &o->places_count);
        break;
    case OPT_CHILD_FD:
        if (bench_parse_int(arg, strlen(arg), 3, 1024, &value) < 0)
            die_usage("invalid --child-fd '%s' (an internal option)", arg);
        o->child_fd = value;
        break;
    case 'q': o->quiet = 1; break;
    case OPT_CSV: o->csv_path = arg; break;
    case OPT_JSON: o->json_path = arg; break;
    case OPT_PLOT: o->plot_path = arg; break;
    case OPT_PROFILE: o->mode = MODE_PROFILE; break;
    case OPT_PREDICT: o->mode = MODE_PREDICT; break;
    case OPT_CORES: o->mode = MODE_CORES; break;
    case OPT_AUDIT:
        if (bench_parse_int(arg, strlen(arg), 1, 1000000, &value) < 0)
            die_usage("invalid audit count '%s': expected an integer from 1 to 1000000", arg);
        o->audit = value;
        o->mode = MODE_AUDIT;
        break;
    case OPT_PROJECT:
        if (bench_parse_int(arg, strlen(arg), 1, 1000000, &value) < 0)
            die_usage("invalid run count '%s' for --project: expected an integer from 1 to "
                      "1000000", arg);
        o->project = value;
        o->mode = MODE_PROJECT;
        break;
    case OPT_MEMORY:
        if (nq_cli_parse_size(arg, &o->memory) < 0)
            die_usage("invalid memory size '%s': expected a whole number of bytes, or with K, M, "
                      "G or T (e.g. 8G)", arg);
        break;
    case OPT_PROJECT_LIMIT:
        if (bench_parse_int(arg, strlen(arg), 1, 10000000, &value) < 0)
            die_usage("invalid time limit '%s' for --project-limit: expected whole seconds "
                      "from 1 to 10000000", arg);
        o->project_limit = value;
        break;
    case OPT_PROJECT_PART:
        if (parse_share(arg, 1, &o->project_part) < 0 || o->project_part < 1e-6)
            die_usage("invalid share '%s' for --project-part: expected a fraction of a unit's "
                      "blocks from 0.000001 to 1 (0.1) or a percentage (10%%)", arg);
        break;
    case OPT_RANKS:
        if (bench_parse_int(arg, strlen(arg), 1, NQ_MODEL_MAX_WORKERS, &value) < 0)
            die_usage("invalid rank count '%s': expected an integer from 1 to %d", arg,
                      NQ_MODEL_MAX_WORKERS);
        o->ranks = value;
        break;
    case 'h': usage(stdout); exit(0);
    case 'V': nq_cli_print_version(stdout, "nqueens-bench"); exit(0);
    case ':': die_usage("option '%s' needs a value", argv[optind - 1]); break;
    default:
        if (optopt)
            die_usage("unknown option '-%c'", optopt);
        die_usage("unknown option '%s'", argv[optind - 1]);
    }
}

void bench_settings(const bench_options *o, int n, enum nq_engine engine, nq_settings *s)
{
    nq_default_settings(s);
    s->n = n;
    s->engine = engine;
    s->split_depth = o->split_depth;
    s->memory = o->memory;
}

/* Every case the options ask for goes through the library's settings
 * check before anything is timed.  A sweep with a case an engine cannot
 * count is refused too: a table with a silent gap reads as if it were
 * whole (the other modes say so per job at run time). */
static void check_cases(const bench_options *o)
{
    for (int ei = 0; ei < o->engine_count; ei++)
        for (int ni = 0; ni < o->n.count; ni++)
            for (int ti = 0; ti < o->threads.count; ti++) {
                nq_settings s;
                bench_settings(o, o->n.values[ni], o->engines[ei], &s);
                /* plain runs on one thread; the model modes plan without running */
                s.threads = o->engines[ei] == NQ_ENGINE_PLAIN ? 1 : o->threads.values[ti];
                if (o->mode == MODE_PREDICT && s.threads > NQ_MAX_THREADS)
                    s.threads = NQ_MAX_THREADS;
                char detail[256];
                int ret = nq_check_settings(&s, detail, sizeof detail);
                if (ret == NQ_EUNSUPPORTED && o->mode == MODE_SWEEP)
                    die_usage("%s: leave that N or engine out", detail);
                if (ret < 0 && ret != NQ_EUNSUPPORTED)
                    die_usage("%s", detail);
            }
}

/* The checks that span several options, and the defaults that depend on
 * the mode; opens the output files (exits on bad input). */
static void finish_options(bench_options *o)
{
    if (o->mode != MODE_SWEEP &&
        (o->csv_path || o->json_path || o->plot_path || o->markdown_path))
        die_usage("--csv, --json, --markdown and --plot apply to the sweep only");
    if (o->mode != MODE_SWEEP && (o->proc_bind_count || o->places_count))
        die_usage("--proc-bind and --places apply to the sweep only");
    if (o->mode != MODE_SWEEP && o->schedules[0] != NQ_SCHEDULE_DEFAULT)
        die_usage("--schedule applies to the sweep only");
    /* The binding sweep: every --proc-bind value with every --places value. */
    for (int b = 0; b < (o->proc_bind_count ? o->proc_bind_count : 1); b++)
        for (int p = 0; (o->proc_bind_count || o->places_count) &&
                        p < (o->places_count ? o->places_count : 1); p++) {
            if (o->bind_count == BENCH_MAX_BINDS)
                die_usage("more than %d --proc-bind x --places pairs", BENCH_MAX_BINDS);
            bench_binding *x = &o->binds[o->bind_count++];
            snprintf(x->proc_bind, sizeof x->proc_bind, "%s",
                     o->proc_bind_count ? o->proc_binds[b] : "");
            snprintf(x->places, sizeof x->places, "%s", o->places_count ? o->places[p] : "");
        }
    if (!o->max_runs_given && o->precision > 0)
        o->max_runs = 20;
    if (o->max_runs < o->min_runs)
        o->max_runs = o->min_runs;
    o->repeat = o->max_runs;
    if (o->ranks && o->mode != MODE_PREDICT)
        die_usage("--ranks applies to --predict only");
    if (o->project_limit > 0 && o->mode != MODE_PROJECT)
        die_usage("--project-limit applies to --project only");
    if (o->project_part > 0 && o->mode != MODE_PROJECT)
        die_usage("--project-part applies to --project only");
    if (o->mode == MODE_AUDIT) { /* audits mitm's units; no other engine has them */
        if (o->engines_given && (o->engine_count != 1 || o->engines[0] != NQ_ENGINE_MITM))
            die_usage("--audit checks the units of engine mitm only");
        o->engines[0] = NQ_ENGINE_MITM;
        o->engine_count = 1;
        /* Below NQ_MITM_MIN_N mitm solves the board whole, with no
         * join units to check. */
        for (int i = 0; i < o->n.count; i++)
            if (o->n.values[i] < NQ_MITM_MIN_N)
                die_usage("--audit checks mitm's join units, which boards below N=%d do not "
                          "have (N=%d asked)", NQ_MITM_MIN_N, o->n.values[i]);
    }
    if (o->project_part > 0 && (o->engine_count != 1 || o->engines[0] != NQ_ENGINE_MITM))
        die_usage("--project-part samples the join blocks of engine mitm's units only (-e mitm)");
    /* The model simulates at most NQ_MODEL_MAX_WORKERS workers (the
     * library's thread limit, which nqueens-mpi plans within too). */
    for (int i = 0; o->ranks && o->threads_given && i < o->threads.count; i++)
        if (o->threads.values[i] > NQ_MODEL_MAX_WORKERS / o->ranks)
            die_usage("invalid thread count %d with --ranks %d: ranks x threads must not "
                      "exceed %d", o->threads.values[i], o->ranks, NQ_MODEL_MAX_WORKERS);
    if (!o->threads_given && o->mode == MODE_PREDICT) {
        const int ranks = o->ranks ? o->ranks : 1;
        o->threads.count = 0;
        for (int t = 1; t <= 1024 && t <= NQ_MODEL_MAX_WORKERS / ranks; t *= 2)
            o->threads.values[o->threads.count++] = t;
    } else if (!o->threads_given) {
        default_threads(&o->threads, bench_cores());
    }
    check_cases(o);
    if (o->plot_path && !ends_with(o->plot_path, ".svg"))
        die_usage("invalid plot file '%s': the name must end in .svg (convert it with "
                  "rsvg-convert for a PNG)", o->plot_path);
    open_save(&o->csv, o->csv_path);
    if (o->csv_path && !o->csv.direct) { /* no companion beside /dev/stdout */
        if (snprintf(o->meta_path, sizeof o->meta_path, "%s.meta", o->csv_path) >=
            (int)sizeof o->meta_path)
            die_usage("cannot write '%s.meta': %s", o->csv_path, strerror(ENAMETOOLONG));
        open_save(&o->meta, o->meta_path);
    }
    open_save(&o->json, o->json_path);
    open_save(&o->markdown, o->markdown_path);
    open_save(&o->plot, o->plot_path);
}

void bench_parse_args(int argc, char **argv, bench_options *o)
{
    memset(o, 0, sizeof *o);
    o->argc = argc;
    o->argv = argv;
    o->child_fd = -1;
    o->schedule_count = 1; /* NQ_SCHEDULE_DEFAULT */
    o->min_runs = o->max_runs = 3;
    o->warmup = 1;
    o->engines[0] = NQ_ENGINE_MIRROR;
    o->engine_count = 1;
    parse_list("12-14", NQ_MIN_N, NQ_MAX_N, "board size", &o->n);
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":n:t:e:r:qhV", long_options, NULL)) != -1)
        parse_option(c, optarg, argv, o);
    if (optind < argc)
        die_usage("unexpected argument '%s'", argv[optind]);
    finish_options(o);
}
