/*
 * version.c - printing the version line (see version.h).  The line itself
 * is generated per build (build_version.c); this file only reads it.
 */
#include <string.h>

#include "cli/version.h"

void nq_cli_build_commit(char *buf, size_t size)
{
    static const char mark[] = " (git ";
    const char *line = nq_cli_version();
    const char *commit = strstr(line, mark);
    if (!commit) {
        snprintf(buf, size, "unknown");
        return;
    }
    commit += sizeof mark - 1;
    /* The commit runs up to the closing parenthesis the generator writes. */
    snprintf(buf, size, "%.*s", (int)strcspn(commit, ")"), commit);
}

void nq_cli_print_version(FILE *out, const char *prog)
{
    fprintf(out, "%s %s\n", prog, nq_cli_version());
}
