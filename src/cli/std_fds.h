/*
 * std_fds.h - standard descriptors that stay what the user gave.  Shared by
 * every tool (nqueens, nqueens-mpi, nqueens-bench), in the library that also
 * carries the version line, so each links the one copy.
 */
#ifndef NQ_CLI_STD_FDS_H
#define NQ_CLI_STD_FDS_H

/* Makes sure descriptors 0, 1 and 2 are open, before anything opens a
 * file: one the caller closed (`nqueens 8 >&-`) is reopened on /dev/null,
 * read-only, so writes to it fail (EBADF) as on a closed descriptor and no
 * file opened later (a journal, a --csv file) is written as if it were
 * stdout. */
void nq_cli_guard_std_fds(void);

#endif /* NQ_CLI_STD_FDS_H */
