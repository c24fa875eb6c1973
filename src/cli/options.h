/*
 * options.h - the command-line surface shared by `nqueens` and `nqueens-mpi`.
 *
 * Both programs accept the same options and print the same result, so the
 * parsing, the help text and the rendering of a result live here once.  The
 * parser never exits or prints: it returns what it found and leaves the
 * decision to the caller, because under MPI only rank 0 may speak and every
 * rank must leave through MPI_Finalize.
 */
#ifndef NQ_CLI_OPTIONS_H
#define NQ_CLI_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "nqueens/nqueens.h"

/* Exit status for bad input. */
#define NQ_CLI_EXIT_USAGE 2
/* Largest N whose full listing is printed without --limit (N=12: 14200). */
#define NQ_CLI_LIST_MAX_N 12
/* nqueens-mpi's --rank-timeout: seconds a rank may stay silent (its main
 * thread sends a heartbeat while the compute threads work) before rank 0
 * takes it for stalled. */
#define NQ_CLI_RANK_TIMEOUT_DEFAULT 60
#define NQ_CLI_RANK_TIMEOUT_MAX 86400

enum nq_cli_format { NQ_CLI_FORMAT_BOARD, NQ_CLI_FORMAT_COLUMNS };
/* --progress / --no-progress; AUTO shows progress on a terminal only. */
enum nq_cli_progress { NQ_CLI_PROGRESS_AUTO, NQ_CLI_PROGRESS_ON, NQ_CLI_PROGRESS_OFF };

typedef struct nq_cli_options {
    nq_settings settings;
    int json;
    int quiet;
    int list;
    uint64_t limit;
    enum nq_cli_format format;
    enum nq_cli_progress progress;
    int rank_timeout; /* nqueens-mpi --rank-timeout, seconds; 0 = default */
    double estimate; /* the library's expected seconds for the count, or -1 */
} nq_cli_options;

/* What the command line asks for. */
enum nq_cli_action {
    NQ_CLI_RUN = 0,  /* count (or list) as *opt says */
    NQ_CLI_HELP,     /* print the help and exit 0 */
    NQ_CLI_VERSION,  /* print the version and exit 0 */
    NQ_CLI_BAD,      /* bad input: print the message and exit NQ_CLI_EXIT_USAGE */
};

/*
 * Parses argv into *opt (settings start from nq_default_settings()).  On
 * NQ_CLI_BAD a one-line message naming the bad value and what is allowed is
 * written to err (without the program name or a newline).  Uses getopt_long,
 * so call it once per process.
 */
enum nq_cli_action nq_cli_parse(int argc, char **argv, nq_cli_options *opt, char *err,
                                size_t err_size);

/* nq_cli_parse() for nqueens-mpi: also accepts the options that only apply
 * to it (--rank-timeout), which nq_cli_parse() refuses. */
enum nq_cli_action nq_cli_parse_mpi(int argc, char **argv, nq_cli_options *opt, char *err,
                                    size_t err_size);

/* Writes the help text for program `prog` to out. */
void nq_cli_usage(FILE *out, const char *prog);

/* Writes the help text of the options only nqueens-mpi has, which follows
 * nq_cli_usage()'s in its --help. */
void nq_cli_usage_mpi(FILE *out);

/* Reports a bad-input message the way every program does: one line on stderr. */
void nq_cli_report_bad(const char *prog, const char *message);

/*
 * Prints a finished count on stdout as text or JSON, as *opt asks.  `ranks`
 * is the number of MPI processes that shared the run, or 0 for a plain run
 * (then the output is exactly that of `nqueens`).
 */
void nq_cli_print_result(const nq_cli_options *opt, const nq_result *r, int ranks);

/*
 * Reports a failed count (nq_count() or planning) on stderr, one line:
 * the library's detail line when it gave one, else the error's text.
 * Returns the exit status: 1 for a failure of the machine (NQ_ENOMEM, and
 * NQ_EIO: a journal that cannot be read or written, mid-run too), else
 * NQ_CLI_EXIT_USAGE, since something the user gave was at fault (a
 * setting; a journal path that cannot be used, a journal in use, another
 * run's or a damaged one).
 */
int nq_cli_report_failure(const char *prog, int ret, const char *detail);

/* Lists solutions as *opt asks (stdout; the count on stderr).  Returns the
 * exit status; a listing whose output fails stops at once (the failure is
 * reported by nq_cli_close_stdout). */
int nq_cli_list(const nq_cli_options *opt, const char *prog);

/* Flushes and closes stdout.  When any write to it failed (a full disk, a
 * closed descriptor), says so on stderr in one line with the first failure's
 * reason and returns 1 (or status, when that is already a failure); else
 * returns status.  A result lost is a failure, never a success. */
int nq_cli_close_stdout(const char *prog, int status);

#endif /* NQ_CLI_OPTIONS_H */
