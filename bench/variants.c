/*
 * variants.c - a sweep over OMP_PROC_BIND and OMP_PLACES values.
 *
 * The OpenMP runtime reads both variables once, when the program starts,
 * so a process cannot measure one binding and then another.  Each binding
 * is measured by a child: this program again (/proc/self/exe), started
 * with the two variables set and the sweep's own options (rebuilt from the
 * parsed values, so no output file and no binding option reaches it), and
 * a hidden --child-fd option naming the pipe it writes each finished case
 * to.  The parent reads the cases, derives the figures, prints the table
 * and writes the files exactly as for a sweep in one process, so an
 * interrupted binding sweep keeps what it finished too.
 *
 * The record is one line per case, then one per run, space-separated;
 * the binding values carry no spaces (they are checked names, or an
 * inherited value with its spaces replaced).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "variants.h"

/* Appends the list's values as "1,2,4" to buf. */
static void list_text(const bench_list *l, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < l->count && len + 12 < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? "," : "", l->values[i]);
}

int bench_variant_spawn(const bench_options *o, int v, pid_t *pid, FILE **in)
{
    int fds[2];
    if (pipe(fds) < 0) {
        fprintf(stderr, "nqueens-bench: cannot start a child: %s\n", strerror(errno));
        return -1;
    }
    char n[BENCH_MAX_LIST * 12], threads[BENCH_MAX_LIST * 12], engines[128] = "";
    char min_runs[16], max_runs[16], precision[32], warmup[16], split[16], fd[16], memory[24];
    list_text(&o->n, n, sizeof n);
    list_text(&o->threads, threads, sizeof threads);
    for (int i = 0; i < o->engine_count; i++)
        snprintf(engines + strlen(engines), sizeof engines - strlen(engines), "%s%s",
                 i ? "," : "", nq_engine_name(o->engines[i]));
    snprintf(min_runs, sizeof min_runs, "%d", o->min_runs);
    snprintf(max_runs, sizeof max_runs, "%d", o->max_runs);
    snprintf(precision, sizeof precision, "%.17g", o->precision);
    snprintf(warmup, sizeof warmup, "%d", o->warmup);
    snprintf(split, sizeof split, "%d", o->split_depth);
    snprintf(fd, sizeof fd, "%d", fds[1]);
    char *argv[32];
    int argc = 0;
    argv[argc++] = o->argv[0];
    const char *pairs[][2] = {{"-n", n}, {"-t", threads}, {"-e", engines},
                              {"--min-runs", min_runs}, {"--max-runs", max_runs},
                              {"--warmup", warmup}, {"--child-fd", fd}};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        argv[argc++] = (char *)pairs[i][0];
        argv[argc++] = (char *)pairs[i][1];
    }
    if (o->precision > 0) {
        argv[argc++] = "--precision";
        argv[argc++] = precision;
    }
    if (o->split_depth > 0) {
        argv[argc++] = "--split-depth";
        argv[argc++] = split;
    }
    if (o->memory) {
        snprintf(memory, sizeof memory, "%" PRIu64, o->memory);
        argv[argc++] = "--memory";
        argv[argc++] = memory;
    }
    char schedules[64] = "";
    for (int i = 0; i < o->schedule_count && o->schedules[0] != NQ_SCHEDULE_DEFAULT; i++)
        snprintf(schedules + strlen(schedules), sizeof schedules - strlen(schedules), "%s%s",
                 i ? "," : "", nq_schedule_name(o->schedules[i]));
    if (schedules[0]) {
        argv[argc++] = "--schedule";
        argv[argc++] = schedules;
    }
    if (o->quiet)
        argv[argc++] = "--quiet";
    argv[argc] = NULL;
    fflush(NULL);
    /* Until the child has dropped the parent's handlers (which rename the
     * parent's files), a signal must wait. */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    *pid = fork();
    if (*pid != 0)
        sigprocmask(SIG_SETMASK, &old, NULL);
    if (*pid < 0) {
        fprintf(stderr, "nqueens-bench: cannot start a child: %s\n", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (*pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(fds[0]);
        const bench_binding *b = &o->binds[v];
        if (b->proc_bind[0])
            setenv("OMP_PROC_BIND", b->proc_bind, 1);
        if (b->places[0])
            setenv("OMP_PLACES", b->places, 1);
        execv("/proc/self/exe", argv);
        fprintf(stderr, "nqueens-bench: cannot run /proc/self/exe: %s\n", strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    *in = fdopen(fds[0], "r");
    if (!*in) {
        close(fds[0]);
        return -1;
    }
    return 0;
}

/* Parses a decimal 128-bit count. */
static int parse_u128(const char *s, nq_u128 *v)
{
    *v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        *v = *v * 10 + (nq_u128)(*s - '0');
    }
    return 0;
}

int bench_variant_read(FILE *in, bench_case *c)
{
    char line[512], engine[32], expected[48], schedule[32];
    if (!fgets(line, sizeof line, in))
        return 0;
    memset(c, 0, sizeof *c);
    if (sscanf(line, "case %31s %d %d %31s %d %llu %d %d %47s %15s %15s %d", engine, &c->n,
               &c->threads, schedule, &c->split_depth, (unsigned long long *)&c->units,
               &c->checked, &c->correct, expected, c->proc_bind, c->places, &c->repeats) != 12 ||
        nq_engine_from_name(engine, &c->engine) < 0 || parse_u128(expected, &c->expected) < 0 ||
        (strcmp(schedule, "default") && nq_schedule_from_name(schedule, &c->schedule) < 0) ||
        c->repeats < 1 || c->repeats > 1000)
        return -1;
    c->capacity = c->repeats;
    c->runs = calloc((size_t)c->repeats, sizeof *c->runs);
    if (!c->runs)
        return -1;
    for (int r = 0; r < c->repeats; r++) {
        char total[48];
        bench_run *run = &c->runs[r];
        if (!fgets(line, sizeof line, in) ||
            sscanf(line, "run %lf %lf %47s %ld", &run->seconds, &run->cpu_seconds, total,
                   &run->peak_kib) != 4 ||
            parse_u128(total, &run->total) < 0) {
            free(c->runs);
            c->runs = NULL;
            return -1;
        }
    }
    return 1;
}

void bench_variant_write(FILE *f, const bench_case *c)
{
    char expected[48];
    fprintf(f, "case %s %d %d %s %d %llu %d %d %s %s %s %d\n", nq_engine_name(c->engine), c->n,
            c->threads, nq_schedule_name(c->schedule), c->split_depth,
            (unsigned long long)c->units, c->checked, c->correct,
            nq_u128_to_string(c->expected, expected, sizeof expected), c->proc_bind, c->places,
            c->repeats);
    for (int r = 0; r < c->repeats; r++) {
        char total[48];
        fprintf(f, "run %.9f %.9f %s %ld\n", c->runs[r].seconds, c->runs[r].cpu_seconds,
                nq_u128_to_string(c->runs[r].total, total, sizeof total), c->runs[r].peak_kib);
    }
    fflush(f);
}
