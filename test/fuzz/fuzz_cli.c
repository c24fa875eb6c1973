/*
 * fuzz_cli.c - libFuzzer target: the command line of nqueens and
 * nqueens-mpi (nq_cli_parse).
 *
 * The input is the argument list, words separated by NUL bytes (at most
 * 64).  Besides the sanitizers' checks, the parser's contract is checked:
 * a refusal is one non-empty line, and what it accepts for a count passes
 * the library's settings check.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"

#define MAX_WORDS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_WORDS + 2] = {"nqueens"};
    int argc = 1;
    for (size_t at = 0; at < size && argc <= MAX_WORDS; at += strlen(text + at) + 1)
        argv[argc++] = text + at;
    argv[argc] = NULL;

    optind = 0; /* glibc: start getopt afresh for every input */
    nq_cli_options opt;
    char err[256] = "";
    const enum nq_cli_action action = nq_cli_parse(argc, argv, &opt, err, sizeof err);
    if (action == NQ_CLI_BAD && (!err[0] || strchr(err, '\n')))
        abort(); /* a refusal is one line that says something */
    if (action == NQ_CLI_RUN && !opt.list && nq_check_settings(&opt.settings, NULL, 0) != 0)
        abort(); /* accepted settings are valid settings */
    free(text);
    return 0;
}
