/*
 * render.h - what `nqueens` and `nqueens-mpi` write once a run ends: the
 * result (text or JSON), a listing of solutions, a failed count's one-line
 * report and the exit status it maps to, and the check that stdout took it
 * all.  Kept apart from the parser (options.h): the output formats are read
 * by scripts and change on their own terms.
 */
#ifndef NQ_CLI_RENDER_H
#define NQ_CLI_RENDER_H

#include "cli/options.h"
#include "nqueens/nqueens.h"

/*
 * Prints a finished count on stdout as text or JSON, as *opt asks.  `ranks`
 * is the number of MPI processes that shared the run, or 0 for a plain run
 * (then the output is exactly that of `nqueens`).
 */
void nq_cli_print_result(const nq_cli_options *opt, const nq_result *r, int ranks);

/* Prints the result as nq_cli_print_result() does, to wherever stdout
 * points now, without remembering a failure as stdout's.  Returns 0, or
 * the errno value of a write that failed while printing (not flushed). */
int nq_cli_render_result(const nq_cli_options *opt, const nq_result *r, int ranks);

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

/* Whether everything written to stdout so far went out; remembers the
 * first failure's reason for nq_cli_close_stdout().  Called right after
 * printing, since where stdout is unbuffered or line-buffered (stdbuf -o0,
 * or MPICH's MPI_Init) the write fails inside printf, its reason in errno
 * only until a later call overwrites it. */
int nq_cli_stdout_ok(void);

/* Flushes and closes stdout.  When any write to it failed (a full disk, a
 * closed descriptor), says so on stderr in one line with the first failure's
 * reason and returns 1 (or status, when that is already a failure); else
 * returns status.  A result lost is a failure, never a success. */
int nq_cli_close_stdout(const char *prog, int status);

#endif /* NQ_CLI_RENDER_H */
