/*
 * size.h - sizes of memory as the command-line tools read them
 * (--memory): a whole number of bytes, or of KiB, MiB, GiB or TiB with a
 * suffix, so "8G", "8GiB" and "8192M" are the same budget.  Shared by
 * nqueens, nqueens-mpi and nqueens-bench, which each word their own error;
 * nqueens's counts (--limit) read their digits here too.
 */
#ifndef NQ_CLI_SIZE_H
#define NQ_CLI_SIZE_H

#include <stdint.h>

/* Reads the decimal digits text starts with into *value.  Returns where
 * they end (text itself when it starts with none, *value 0), or NULL when
 * they pass UINT64_MAX.  The one overflow-checked digit loop of the
 * tools' parsers of counts and sizes. */
const char *nq_cli_parse_digits(const char *text, uint64_t *value);

/* Parses text as a size: decimal digits, then optionally K, M, G or T (any
 * case, powers of 1024), then optionally "iB" or "B".  Returns 0 and sets
 * *bytes, or -1 for anything else, for 0 and for sizes past UINT64_MAX. */
int nq_cli_parse_size(const char *text, uint64_t *bytes);

#endif /* NQ_CLI_SIZE_H */
