/*
 * save.c - the sweep's output files, kept whole through a long sweep and
 * an interruption.
 *
 * A sweep can run for hours and be stopped at any moment, and a file name
 * is often reused from the last sweep.  So a target is never opened for
 * writing while the sweep runs: after each case the whole file is written
 * to a work file beside the target and renamed over a snapshot file (so
 * the snapshot is always complete), and only when the sweep ends or a
 * SIGINT, SIGTERM or SIGHUP stops it is the snapshot renamed over the
 * target.  rename() is atomic and async-signal-safe, so the signal handler
 * can do that last step itself; a target that held an older sweep keeps it
 * until then, and keeps it for good when no case finished.
 *
 * A target that exists and is not a regular file (/dev/stdout, a FIFO)
 * cannot be renamed over: it is written once, directly, at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "save.h"

#define MAX_SAVES 8

static bench_save *registered[MAX_SAVES];
static volatile sig_atomic_t registered_count;
static volatile pid_t watched_child;

void bench_save_watch_child(pid_t pid)
{
    watched_child = pid;
}

/* dir/.base.TAG-PID beside target. */
static int side_path(char *out, size_t size, const char *target, const char *tag)
{
    const char *slash = strrchr(target, '/');
    const int dir_len = slash ? (int)(slash - target + 1) : 0;
    const char *base = slash ? slash + 1 : target;
    const int len = snprintf(out, size, "%.*s.%s.%s-%ld", dir_len, target, base, tag,
                             (long)getpid());
    return len > 0 && (size_t)len < size ? 0 : -1;
}

int bench_save_open(bench_save *s, const char *target, char *err, size_t err_size)
{
    memset(s, 0, sizeof *s);
    s->target = target;
    struct stat st;
    if (stat(target, &st) == 0 && !S_ISREG(st.st_mode)) {
        s->direct = 1; /* a device or FIFO: written at the end, in place */
        int fd = open(target, O_WRONLY | O_NONBLOCK);
        if (fd < 0 && errno != ENXIO) {
            snprintf(err, err_size, "cannot write '%s': %s", target, strerror(errno));
            return -1;
        }
        if (fd >= 0)
            close(fd);
        return 0;
    }
    if (side_path(s->work, sizeof s->work, target, "part") < 0 ||
        side_path(s->snap, sizeof s->snap, target, "saved") < 0) {
        snprintf(err, err_size, "cannot write '%s': %s", target, strerror(ENAMETOOLONG));
        return -1;
    }
    /* The work file proves the folder writable without touching target. */
    int fd = open(s->work, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
        snprintf(err, err_size, "cannot write '%s': %s", target, strerror(errno));
        return -1;
    }
    close(fd);
    if (registered_count < MAX_SAVES) {
        registered[registered_count] = s;
        registered_count = registered_count + 1;
    }
    return 0;
}

FILE *bench_save_begin(bench_save *s, int final)
{
    if (s->failed || (s->direct && !final))
        return NULL;
    FILE *f = fopen(s->direct ? s->target : s->work, "w");
    if (!f) {
        fprintf(stderr, "nqueens-bench: cannot write '%s': %s\n", s->target, strerror(errno));
        s->failed = 1;
    }
    return f;
}

int bench_save_commit(bench_save *s, FILE *f)
{
    if (bench_close_output(f, s->target)) {
        s->failed = 1;
        return -1;
    }
    if (s->direct)
        return 0;
    if (rename(s->work, s->snap) < 0) {
        fprintf(stderr, "nqueens-bench: cannot write '%s': %s\n", s->target, strerror(errno));
        s->failed = 1;
        return -1;
    }
    s->have_snap = 1;
    return 0;
}

int bench_save_finish(bench_save *s)
{
    int status = s->failed;
    if (!s->direct) {
        unlink(s->work);
        if (s->have_snap && !s->failed && rename(s->snap, s->target) < 0) {
            fprintf(stderr, "nqueens-bench: cannot write '%s': %s\n", s->target,
                    strerror(errno));
            status = 1;
        }
        if (s->failed || status)
            unlink(s->snap);
        s->have_snap = 0;
    }
    for (int i = 0; i < registered_count; i++)
        if (registered[i] == s)
            registered[i] = NULL;
    return status;
}

/* Who may move the files: nobody is saving (SAVE_IDLE), the sweep is
 * committing a set of outputs (SAVE_BUSY: a signal then only leaves its
 * number in pending_stop), or a signal's handler has taken them and the
 * process is ending (SAVE_DYING).  A signal can be delivered to any thread
 * that does not block it, an OpenMP worker as well as the main thread, so
 * blocking it in the saving thread alone does not keep it out; and two
 * signals at once on two threads must not both move the files.  The
 * atomics are lock-free, so async-signal-safe. */
enum { SAVE_IDLE, SAVE_BUSY, SAVE_DYING };
static atomic_int save_state = SAVE_IDLE;
static atomic_int pending_stop;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "signal handlers need lock-free atomics");

/* Keeps what the sweep finished, then dies of the same signal; during a
 * save it leaves that to bench_save_release, and a second signal meanwhile
 * leaves it to the first, which ends the process. */
static void on_signal(int sig)
{
    static const char msg[] = "nqueens-bench: interrupted; the cases finished so far are "
                              "saved\n";
    atomic_store(&pending_stop, sig);
    int idle = SAVE_IDLE;
    if (!atomic_compare_exchange_strong(&save_state, &idle, SAVE_DYING))
        return;
    int saved = 0;
    if (watched_child > 0)
        kill(watched_child, sig);
    for (int i = 0; i < registered_count; i++) {
        bench_save *s = registered[i];
        if (!s)
            continue;
        unlink(s->work);
        if (s->have_snap && !s->failed)
            saved |= rename(s->snap, s->target) == 0;
    }
    if (saved && write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
        /* nothing more can be said */
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void bench_save_hold(void)
{
    int idle = SAVE_IDLE;
    while (!atomic_compare_exchange_strong(&save_state, &idle, SAVE_BUSY)) {
        pause(); /* SAVE_DYING: another thread's handler ends the process */
        idle = SAVE_IDLE;
    }
}

void bench_save_release(void)
{
    atomic_store(&save_state, SAVE_IDLE);
    /* A signal that came during the save, on any thread, is handled now
     * that the files agree (after the store: one that comes later finds
     * the state idle and handles itself). */
    const int sig = atomic_load(&pending_stop);
    if (sig)
        on_signal(sig);
}

void bench_save_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}
