/*
 * nqueens.c - the command-line counter.
 *
 * Parses options (options.c, shared with nqueens-mpi), fills nq_settings,
 * calls the library and renders the result (render.c: text, JSON or a
 * listing of solutions).  The library never prints; everything a user sees
 * is written here, in options.c, render.c or console.c.  Bad input gets one line on stderr
 * naming the value and what is allowed, and exit status 2.
 *
 * Long runs (console.c): progress on stderr, --checkpoint keeps a journal
 * the library resumes from, and SIGINT/SIGTERM/SIGHUP stop the run
 * cleanly: the journal is flushed, the command that resumes is printed,
 * and the exit status is 128 + the signal.  A second signal exits at once.
 * A result that cannot be written (full disk, closed stdout) exits 1;
 * --output FILE writes it to a file instead, whole or not at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/console.h"
#include "cli/cpus.h"
#include "cli/memory.h"
#include "cli/options.h"
#include "cli/render.h"
#include "cli/output.h"
#include "cli/std_fds.h"
#include "cli/version.h"
#include "nqueens/nqueens.h"

#define PROG "nqueens"

/* Counts as the command line asks; returns the exit status. */
static int run(int argc, char **argv)
{
    /* getopt_long permutes argv; the resume hint repeats it as typed. */
    char **typed = malloc(((size_t)argc + 1) * sizeof *typed);
    if (!typed) {
        fputs(PROG ": out of memory\n", stderr);
        return 1;
    }
    memcpy(typed, argv, ((size_t)argc + 1) * sizeof *typed);

    nq_cli_options opt;
    char err[256];
    int action = nq_cli_parse(argc, argv, &opt, err, sizeof err);
    if (action != NQ_CLI_RUN || opt.list) {
        free(typed);
        switch (action) {
        case NQ_CLI_HELP: nq_cli_usage(stdout, PROG); nq_cli_stdout_ok(); return 0;
        case NQ_CLI_VERSION: nq_cli_print_version(stdout, PROG); nq_cli_stdout_ok(); return 0;
        case NQ_CLI_BAD: nq_cli_report_bad(PROG, err); return NQ_CLI_EXIT_USAGE;
        default: return nq_cli_list(&opt, PROG);
        }
    }

    /* A result that could not be saved would make the whole count vain. */
    if (opt.output && nq_cli_output_check(PROG, opt.output) != 0) {
        free(typed);
        return 1;
    }
    /* Nor should a count start that runs out of memory on the way. */
    const int threads = nq_cli_default_threads(opt.settings.threads);
    const int memory = nq_cli_memory_check(PROG, &opt.settings, threads);
    if (memory != 0) {
        free(typed);
        return memory;
    }
    const nq_cli_cpus cpus = nq_cli_cpus_now();
    if (nq_cli_crowded(threads, cpus)) {
        char remedy[64];
        snprintf(remedy, sizeof remedy, "use -t %d or let it use more CPUs", cpus.usable);
        nq_cli_warn_crowded(stderr, PROG, "this process", threads, cpus, remedy);
    }
    nq_cli_progress_view view;
    nq_cli_progress_setup(&opt, &view, PROG);
    opt.settings.cancel = &nq_cli_cancel;
    nq_cli_install_signal_handlers(opt.settings.checkpoint_path != NULL);

    nq_result result;
    int ret = nq_count(&opt.settings, &result);
    if (ret == NQ_ECANCELLED && nq_cli_first_signal) {
        nq_cli_print_resume_hint(PROG, result.subproblems, "resume with", argc, typed);
        free(typed);
        return 128 + nq_cli_first_signal;
    }
    free(typed);
    if (ret < 0)
        return nq_cli_report_failure(PROG, ret, result.detail);
    if (opt.output)
        return nq_cli_output_write(PROG, opt.output, &opt, &result, 0);
    nq_cli_print_result(&opt, &result, 0);
    return 0;
}

int main(int argc, char **argv)
{
    nq_cli_guard_std_fds();
    return nq_cli_close_stdout(PROG, run(argc, argv));
}
