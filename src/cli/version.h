/*
 * version.h - the version line of the command-line tools.
 *
 * nqueens, nqueens-mpi and nqueens-bench print the same line for --version:
 * the project version from meson.build and, in a build from a git checkout,
 * the commit it was built from ("0.1.0 (git 0123456789ab)").  Meson's
 * vcs_tag writes the line into build_version.c at build time (see
 * src/cli/vcs-version); a build from a release tarball has the plain version.
 */
#ifndef NQ_CLI_VERSION_H
#define NQ_CLI_VERSION_H

#include <stddef.h>
#include <stdio.h>

/* The version line: "0.1.0", or "0.1.0 (git COMMIT)" from a git checkout. */
const char *nq_cli_version(void);

/* Writes the commit of a git build into buf, or "unknown" from a tarball. */
void nq_cli_build_commit(char *buf, size_t size);

/* Prints "PROG VERSION-LINE" and a newline, as --version does everywhere. */
void nq_cli_print_version(FILE *out, const char *prog);

#endif /* NQ_CLI_VERSION_H */
