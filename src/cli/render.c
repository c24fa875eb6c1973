/*
 * render.c - what a finished run writes: the result as text or JSON, a
 * listing of solutions, the one-line report of a failed count, and the
 * final check that stdout took everything (see render.h).
 *
 * Apart from parsing (options.c) because the two change for different
 * reasons: an option is added once in options.c, while the output formats
 * are a contract with scripts that read them, and they share nothing but
 * nq_cli_options.  Both nqueens and nqueens-mpi (rank 0) print through here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/render.h"

/* errno of the first failed write to stdout: a failed flush empties the
 * buffer, so by the time stdout is closed the reason would be gone. */
static int stdout_error;

int nq_cli_stdout_ok(void)
{
    const int err = errno;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 1;
    if (!stdout_error)
        stdout_error = errno ? errno : err ? err : EIO;
    return 0;
}

int nq_cli_report_failure(const char *prog, int ret, const char *detail)
{
    fprintf(stderr, "%s: %s\n", prog, detail && detail[0] ? detail : nq_strerror(ret));
    /* The library's codes say whose fault it was: NQ_EIO and NQ_ENOMEM are
     * the machine's (a disk that filled up mid-run included), NQ_EVERIFY
     * a count that --verify caught disagreeing, every other code names
     * something the user gave. */
    if (ret == NQ_EVERIFY)
        return NQ_CLI_EXIT_VERIFY;
    return ret == NQ_ENOMEM || ret == NQ_EIO ? 1 : NQ_CLI_EXIT_USAGE;
}

/* Prints one solution; stops the listing (returns 1) once stdout failed,
 * which nq_cli_close_stdout() then reports. */
static int print_solution(const int *cols, int n, void *user)
{
    const nq_cli_options *opt = user;
    if (opt->format == NQ_CLI_FORMAT_COLUMNS) {
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
    return ferror(stdout) && !nq_cli_stdout_ok();
}

int nq_cli_list(const nq_cli_options *opt, const char *prog)
{
    uint64_t emitted = 0;
    int ret = nq_list_solutions(opt->settings.n, opt->limit, print_solution, (void *)opt,
                                &emitted);
    if (ret < 0) {
        fprintf(stderr, "%s: %s\n", prog, nq_strerror(ret));
        return 1;
    }
    /* Flushed first: the count is only claimed once the solutions are out. */
    if (nq_cli_stdout_ok() && !opt->quiet)
        fprintf(stderr, "%" PRIu64 " solution%s listed\n", emitted, emitted == 1 ? "" : "s");
    return 0;
}

/* The JSON object of a count.  "total" and "unique" are JSON numbers, which
 * common readers hold in a double and so round past 2^53 (N = 27's unique
 * count); "total_decimal" and "unique_decimal" carry the same counts as
 * strings, exact in any reader.  The fields and their order are documented
 * in nqueens(1), which test_man_facts.py checks against this output. */
static void print_json(const nq_cli_options *opt, const nq_result *r, int ranks)
{
    char total[48], unique[48] = "null", unique_decimal[52] = "null";
    nq_u128_to_string(r->total, total, sizeof total);
    if (r->has_unique) {
        nq_u128_to_string(r->unique, unique, sizeof unique);
        snprintf(unique_decimal, sizeof unique_decimal, "\"%s\"", unique);
    }
    printf("{\"n\": %d, \"engine\": \"%s\", \"threads\": %d, ", opt->settings.n,
           nq_engine_name(r->engine), r->threads);
    if (ranks > 0)
        printf("\"ranks\": %d, ", ranks);
    printf("\"split_depth\": %d, \"subproblems\": %" PRIu64 ", \"units_resumed\": %" PRIu64
           ", \"total\": %s, \"unique\": %s, \"total_decimal\": \"%s\", \"unique_decimal\": %s, ",
           r->split_depth, r->subproblems, r->units_resumed, total, unique, total,
           unique_decimal);
    if (opt->estimate >= 0)
        printf("\"estimated_seconds\": %.6g, ", opt->estimate);
    else
        printf("\"estimated_seconds\": null, ");
    printf("\"seconds\": %.6f, \"version\": \"%s\"}\n", r->seconds, nq_version());
}

static void print_text(const nq_cli_options *opt, const nq_result *r, int ranks)
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
    if (ranks > 0)
        printf(" on %d rank%s", ranks, ranks == 1 ? "" : "s");
    if (r->split_depth)
        printf(", split depth %d", r->split_depth);
    printf(", %" PRIu64 " subproblem%s", r->subproblems, r->subproblems == 1 ? "" : "s");
    if (r->units_resumed)
        printf(" (%" PRIu64 " resumed from the journal)", r->units_resumed);
    printf(", %.3f s", r->seconds);
    putchar('\n');
}

int nq_cli_render_result(const nq_cli_options *opt, const nq_result *r, int ranks)
{
    errno = 0;
    if (opt->json)
        print_json(opt, r, ranks);
    else
        print_text(opt, r, ranks);
    /* An unbuffered or line-buffered stdout (stdbuf -o0, or MPICH's
     * MPI_Init) fails inside printf, the reason in errno until a later
     * call overwrites it; a buffered one fails at the flush instead. */
    return ferror(stdout) ? (errno ? errno : EIO) : 0;
}

void nq_cli_print_result(const nq_cli_options *opt, const nq_result *r, int ranks)
{
    const int err = nq_cli_render_result(opt, r, ranks);
    if (err && !stdout_error)
        stdout_error = err;
}

int nq_cli_close_stdout(const char *prog, int status)
{
    errno = 0;
    int failed = !nq_cli_stdout_ok();
    if (fclose(stdout) != 0 && !failed) {
        failed = 1;
        stdout_error = errno;
    }
    if (!failed)
        return status;
    fprintf(stderr, "%s: cannot write to standard output: %s\n", prog,
            stdout_error ? strerror(stdout_error) : "write error");
    return status ? status : 1;
}
