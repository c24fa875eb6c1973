/*
 * nqueens.c - the command-line counter.
 *
 * Parses options (options.c, shared with nqueens-mpi), fills nq_settings,
 * calls the library and renders the result (text, JSON or a listing of
 * solutions).  The library never prints; everything a user sees is written
 * here or in options.c.  Bad input gets one line on stderr naming the value
 * and what is allowed, and exit status 2.
 */
#include <stdio.h>

#include "nqueens/nqueens.h"
#include "options.h"

#define PROG "nqueens"

int main(int argc, char **argv)
{
    nq_cli_options opt;
    char err[256];
    switch (nq_cli_parse(argc, argv, &opt, err, sizeof err)) {
    case NQ_CLI_HELP:
        nq_cli_usage(stdout, PROG);
        return 0;
    case NQ_CLI_VERSION:
        printf(PROG " %s\n", nq_version());
        return 0;
    case NQ_CLI_BAD:
        nq_cli_report_bad(PROG, err);
        return NQ_CLI_EXIT_USAGE;
    case NQ_CLI_RUN:
        break;
    }
    if (opt.list)
        return nq_cli_list(&opt, PROG);

    nq_result result;
    int ret = nq_count(&opt.settings, &result);
    if (ret < 0) {
        fprintf(stderr, PROG ": %s\n", nq_strerror(ret));
        return ret == NQ_ENOMEM || ret == NQ_EIO ? 1 : NQ_CLI_EXIT_USAGE;
    }
    nq_cli_print_result(&opt, &result, 0);
    return 0;
}
