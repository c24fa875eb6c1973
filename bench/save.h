/*
 * save.h - output files replaced whole, only when a sweep ends or is
 * interrupted (see save.c for how, and why).
 */
#ifndef NQ_BENCH_SAVE_H
#define NQ_BENCH_SAVE_H

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "bench.h"

typedef struct bench_save {
    const char *target;
    char work[4096]; /* written after each case ... */
    char snap[4096]; /* ... then renamed here: always a complete file */
    int direct;      /* target is not a regular file: written at the end only */
    volatile sig_atomic_t have_snap;
    volatile sig_atomic_t failed; /* a write failed (said on stderr) */
} bench_save;

/* Prepares target: checks that its folder can be written (creating the
 * work file) and registers it with the signal handler.  Returns 0, or -1
 * with a one-line message naming target in err. */
int bench_save_open(bench_save *s, const char *target, char *err, size_t err_size);

/* A stream to write the whole file to, or NULL when there is nothing to do
 * now (a direct target before the end, or an earlier failure).  `final`:
 * the sweep has ended. */
FILE *bench_save_begin(bench_save *s, int final);

/* Closes f and makes what it holds the snapshot.  Returns 0, or -1 after
 * saying why on stderr. */
int bench_save_commit(bench_save *s, FILE *f);

/* Renames the snapshot over the target and forgets s.  Returns 0, or 1
 * when the file could not be written (said on stderr). */
int bench_save_finish(bench_save *s);

/* The child process a signal is passed on to (a binding sweep's, see
 * variants.c), or 0 for none. */
void bench_save_watch_child(pid_t pid);

/* SIGINT, SIGTERM and SIGHUP rename every snapshot over its target, then
 * end the process by the same signal. */
void bench_save_catch_signals(void);

/* Brackets the commits of one set of outputs that must hold the same
 * cases: a stop signal that comes in between, on any thread, waits for
 * bench_save_release, which then handles it.  bench_save_hold does not
 * return when a stop signal is already being handled (the process is
 * about to end); the files are left as the handler saves them. */
void bench_save_hold(void);
void bench_save_release(void);

#endif /* NQ_BENCH_SAVE_H */
