/*
 * output.h - --output FILE: the result written by the program itself,
 * shared by `nqueens` and `nqueens-mpi`.
 *
 * Under mpiexec, rank 0's standard output is a pipe to mpiexec, which
 * forwards it: a result lost on the way (a full disk, a closed terminal)
 * fails in mpiexec, which does not say so, and the count still exits 0.
 * --output makes the program write the result to a file it checks: the
 * text or JSON the run would print goes to a temporary file beside FILE,
 * is synced to disk, then renamed over FILE (and the directory synced), so
 * FILE holds either its old content or the whole new result, never a part
 * of it, even across a crash.  A FILE that exists and is not a regular
 * file (a terminal, a pipe), or that lies under /dev or /proc (/dev/stdout),
 * is appended to in place instead: renaming over it would replace the
 * device or the file behind a descriptor, not write to it.
 */
#ifndef NQ_CLI_OUTPUT_H
#define NQ_CLI_OUTPUT_H

#include "cli/options.h"
#include "nqueens/nqueens.h"

/*
 * Before a count: checks that a result can be written to `path`, by
 * creating (then removing) the file the result will be written through.
 * On failure says why on stderr, one line naming the file, and returns 1
 * (the exit status); else 0.  Nothing is left behind either way.
 */
int nq_cli_output_check(const char *prog, const char *path);

/*
 * Writes the result as nq_cli_print_result() would print it (text or JSON
 * as *opt asks; `ranks` likewise) to `path`, atomically and synced (see
 * above).  Returns 0, or 1 after one line on stderr naming the file and
 * the reason; FILE is then as it was.  Standard output is untouched.
 */
int nq_cli_output_write(const char *prog, const char *path, const nq_cli_options *opt,
                        const nq_result *r, int ranks);

#endif /* NQ_CLI_OUTPUT_H */
