/*
 * nqueens_bench.c - nqueens-bench, the thread-scaling benchmark.
 *
 * Runs every (engine, N, threads) case of a sweep with warm-up runs and
 * repeats, checks each count against the known table, and prints one
 * aligned line per case: median/min/max seconds, CPU seconds, speedup
 * and efficiency against 1 thread of the same engine, and the ratio to the
 * plain reference engine.  --csv/--json keep every run with a description
 * of the machine; --plot draws the scaling as SVG.  Two further modes
 * look inside a run: --profile measures every unit and sets the scheduling
 * model's predictions next to measured times, --predict asks the model
 * alone (no counting) how a planned job would scale on bigger machines,
 * and with --ranks how nqueens-mpi would on R nodes of T threads.
 *
 * This file holds main() and the modes that look inside a run; the options
 * are parsed in options.c and the timed sweep is sweep.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/std_fds.h"
#include "options.h"

/* Before the modes that time units side by side (--project, --profile):
 * a warning when the CPUs run the same work at uneven speeds, which moves
 * every unit timed on the slow one (bench/cores.c); none with --quiet. */
static void check_cores(const bench_options *o)
{
    if (o->quiet)
        return;
    bench_machine m;
    memset(&m, 0, sizeof m);
    const int err = bench_core_spread(&m);
    char why[256];
    if (bench_core_warning(&m, err, why, sizeof why))
        fprintf(stderr, "nqueens-bench: warning: %s%s\n", why,
                err ? "" : "): the units timed on it read slow");
}

/* Applies a mode to every engine and N of the options. */
static int each_job(const bench_options *o)
{
    int status = 0;
    if (o->mode == MODE_PROJECT || o->mode == MODE_PROFILE)
        check_cores(o);
    for (int ei = 0; ei < o->engine_count; ei++)
        for (int ni = 0; ni < o->n.count; ni++) {
            nq_settings s;
            bench_settings(o, o->n.values[ni], o->engines[ei], &s);
            int ret;
            if (o->mode == MODE_PROJECT) {
                s.threads = o->threads.values[o->threads.count - 1];
                ret = bench_project(&s, o->project, o->project_limit, o->project_part,
                                    o->quiet);
            } else if (o->mode == MODE_PROFILE || o->mode == MODE_AUDIT) {
                s.threads = 0;
                for (int i = 0; i < o->threads.count; i++)
                    if (o->threads.values[i] > s.threads)
                        s.threads = o->threads.values[i];
                if (s.engine == NQ_ENGINE_PLAIN) /* one unit, one thread */
                    s.threads = 1;
                ret = o->mode == MODE_AUDIT ? bench_audit(&s, o->audit)
                                            : bench_profile(&s, &o->threads, o->repeat);
            } else {
                ret = bench_predict(&s, &o->threads, o->ranks, ei == 0 && ni == 0);
            }
            if (ret != 0) {
                if (ret < 0)
                    fprintf(stderr, "nqueens-bench: engine %s, N=%d: %s\n",
                            nq_engine_name(s.engine), s.n, nq_strerror(ret));
                status = 1;
            }
        }
    return status;
}

int main(int argc, char **argv)
{
    nq_cli_guard_std_fds();
    atexit(bench_close_stdout); /* a table lost to a full disk is a failure */
    bench_options o;
    bench_parse_args(argc, argv, &o);
    const int status = o.mode == MODE_SWEEP   ? bench_sweep(&o)
                       : o.mode == MODE_CORES ? bench_cores_report()
                                              : each_job(&o);
    /* Flushed here, where a failure's reason is still at hand: the OpenMP
     * runtime's own exit handler may flush stdout before ours runs. */
    bench_flush_stdout();
    return status;
}
