/*
 * console.h - what a long count shows and how it reacts to signals, shared
 * by `nqueens` and `nqueens-mpi` (rank 0 draws; every rank handles signals).
 *
 * Progress is drawn on stderr: redrawn in place on a terminal, a plain line
 * every few seconds otherwise.  SIGINT/SIGTERM/SIGHUP (a closed terminal or
 * SSH session): with a journal, the first raises the cancel flag (the run
 * stops between units and the journal is flushed) and a second exits at
 * once; without a journal there is nothing to save, so the first exits at
 * once.  Exit status is 128 + the signal.
 */
#ifndef NQ_CLI_CONSOLE_H
#define NQ_CLI_CONSOLE_H

#include <signal.h>
#include <stdatomic.h>

#include "cli/options.h"
#include "nqueens/nqueens.h"

/* Seconds between progress redraws on a terminal, and between plain
 * progress lines when stderr is a file or a pipe. */
#define NQ_CLI_PROGRESS_TTY_INTERVAL 0.25
#define NQ_CLI_PROGRESS_LINE_INTERVAL 5.0
/* Progress samples kept for the current rate: 16 x 0.25 s = a 4 s window. */
#define NQ_CLI_RATE_SAMPLES 16
/* A count expected to take longer than this (seconds) is announced on
 * stderr before it starts, and its progress line shows the estimate. */
#define NQ_CLI_LONG_RUN 3600.0

typedef struct nq_cli_progress_view {
    int tty;       /* redraw one line in place, else print plain lines */
    int line_open; /* a redrawn line is on screen without its newline */
    double at[NQ_CLI_RATE_SAMPLES];     /* elapsed time of recent samples... */
    nq_u128 done[NQ_CLI_RATE_SAMPLES];  /* ...and solutions counted then */
    unsigned samples;
    const char *prog;
    nq_cli_options *opt;   /* receives the estimate, for --json */
    int announced;         /* 0, or 1/2/3 once a lower bound/extrapolated/calibrated
                            * estimate was said */
    int at_least;          /* the last estimate was a lower bound */
} nq_cli_progress_view;

/* Raised (to 1) by the first SIGINT/SIGTERM/SIGHUP; hand it to settings.cancel. */
extern atomic_int nq_cli_cancel;
/* The first signal received, or 0. */
extern atomic_int nq_cli_first_signal;

/*
 * Prepares *view for program `prog` and, when *opt asks for progress (or
 * leaves it to a terminal), points the progress and notice callbacks of
 * opt->settings at it, and the estimate callback always: a count expected
 * to take over NQ_CLI_LONG_RUN is announced on stderr (engine, threads,
 * duration) before it starts, the estimate goes into opt->estimate for
 * --json.  The callbacks must be called one at a time.
 */
void nq_cli_progress_setup(nq_cli_options *opt, nq_cli_progress_view *view, const char *prog);

/* Installs the SIGINT/SIGTERM/SIGHUP handlers (have_journal picks the
 * policy above) and ignores SIGXFSZ, so a journal that outgrows a file size
 * limit fails with a message, as on a full disk. */
void nq_cli_install_signal_handlers(int have_journal);

/* One line on stderr telling how far the run got (units done) and the
 * command that resumes it: `how` introduces the argv words as typed. */
void nq_cli_print_resume_hint(const char *prog, uint64_t units_done, const char *how, int argc,
                              char **argv);

#endif /* NQ_CLI_CONSOLE_H */
