/*
 * variants.h - a sweep over OMP_PROC_BIND and OMP_PLACES values, each in a
 * child process of its own (see variants.c).
 */
#ifndef NQ_BENCH_VARIANTS_H
#define NQ_BENCH_VARIANTS_H

#include <stdio.h>
#include <sys/types.h>

#include "options.h"

/* Starts the child that measures the sweep's cases under binding v of the
 * options (o->binds[v]): this program again, the sweep's own options with
 * no output files, the two variables set in its environment, its finished
 * cases written to the pipe returned in *in.  Returns 0, or -1 after
 * saying why on stderr. */
int bench_variant_spawn(const bench_options *o, int v, pid_t *pid, FILE **in);

/* Reads the next finished case from a child into *c (runs allocated; the
 * caller frees them).  Returns 1, 0 at the end, or -1 for a malformed
 * record. */
int bench_variant_read(FILE *in, bench_case *c);

/* The child's side: writes a finished case to f. */
void bench_variant_write(FILE *f, const bench_case *c);

#endif /* NQ_BENCH_VARIANTS_H */
