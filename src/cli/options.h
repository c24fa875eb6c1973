/*
 * options.h - the command-line options shared by `nqueens` and `nqueens-mpi`.
 *
 * Both programs accept the same options, so the parsing and the help text
 * live here once (the rendering of what a run prints is in render.h).  The
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
/* Exit status when --verify found a chunk whose two counts differ
 * (NQ_EVERIFY): neither the machine's failure (1) nor bad input (2). */
#define NQ_CLI_EXIT_VERIFY 4
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
    const char *output; /* --output FILE: the result goes there (output.h), or NULL */
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

#endif /* NQ_CLI_OPTIONS_H */
