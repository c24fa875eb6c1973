/*
 * output.c - --output FILE (see output.h).
 *
 * The result is rendered by nq_cli_render_result(), the very code that
 * prints it on stdout, so FILE holds exactly what stdout would: for the
 * few lines of a result, descriptor 1 is pointed at the file meanwhile.
 */
#define _XOPEN_SOURCE 700 /* realpath() */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/output.h"
#include "cli/render.h"

/* Where the result goes: `path` itself, or the file a symbolic link names
 * (the link stays); `in_place` when that is not a regular file, or when
 * `path` names an open descriptor (/dev/stdout, /proc/self/fd/1: replacing
 * the file behind it would take the output away from whoever reads it). */
typedef struct target {
    char path[PATH_MAX];
    char temp[PATH_MAX + 32];
    int in_place;
} target;

/* Resolves `path` into *t.  Returns 0 or an errno value. */
static int resolve(const char *path, target *t)
{
    struct stat st;
    memset(t, 0, sizeof *t);
    if (strlen(path) >= sizeof t->path)
        return ENAMETOOLONG;
    if (stat(path, &st) == 0) {
        t->in_place = !S_ISREG(st.st_mode) || !strncmp(path, "/dev/", 5) ||
                      !strncmp(path, "/proc/", 6);
        char *real = t->in_place ? NULL : realpath(path, NULL);
        snprintf(t->path, sizeof t->path, "%s", real ? real : path);
        free(real);
    } else if (errno == ENOENT) {
        snprintf(t->path, sizeof t->path, "%s", path);
    } else {
        return errno;
    }
    snprintf(t->temp, sizeof t->temp, "%s.tmp.%ld", t->path, (long)getpid());
    return 0;
}

/* Opens what the result is written through: FILE itself in place, else a
 * fresh temporary file beside it.  Returns the descriptor or -errno. */
static int open_target(const target *t)
{
    /* In place: appended, so /dev/stdout redirected with >> keeps its
     * earlier lines. */
    int fd = t->in_place ? open(t->path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC)
                         : open(t->temp, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
    return fd >= 0 ? fd : -errno;
}

static int report(const char *prog, const char *path, int err)
{
    fprintf(stderr, "%s: cannot write the result to '%s': %s\n", prog, path, strerror(err));
    return 1;
}

/* Resolves `path` into *t and opens what the result will be written to.
 * Returns the descriptor, or -1 after reporting why it cannot. */
static int open_reported(const char *prog, const char *path, target *t)
{
    int err = resolve(path, t);
    if (err) {
        report(prog, path, err);
        return -1;
    }
    const int fd = open_target(t);
    if (fd < 0)
        report(prog, path, -fd);
    return fd < 0 ? -1 : fd;
}

int nq_cli_output_check(const char *prog, const char *path)
{
    target t;
    const int fd = open_reported(prog, path, &t);
    if (fd < 0)
        return 1;
    close(fd);
    if (!t.in_place)
        unlink(t.temp);
    return 0;
}

/* Renders the result into descriptor fd.  Returns 0 or an errno value. */
static int render_into(int fd, const nq_cli_options *opt, const nq_result *r, int ranks)
{
    /* Whatever stdout holds already is stdout's. */
    fflush(stdout);
    const int saved = dup(STDOUT_FILENO);
    if (saved < 0)
        return errno;
    if (dup2(fd, STDOUT_FILENO) < 0) {
        const int err = errno;
        close(saved);
        return err;
    }
    int err = nq_cli_render_result(opt, r, ranks);
    errno = 0;
    if (!err && (fflush(stdout) != 0 || ferror(stdout)))
        err = errno ? errno : EIO;
    /* A failed flush drops what it could not write: nothing of the result
     * reaches the real stdout later, and its error is not stdout's. */
    clearerr(stdout);
    if (dup2(saved, STDOUT_FILENO) < 0 && !err)
        err = errno;
    close(saved);
    return err;
}

/* Syncs the directory holding `path`, so that a rename survives a crash.
 * File systems that cannot sync a directory are not an error. */
static int sync_directory(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int err = fsync(fd) == 0 || errno == EINVAL || errno == EROFS ? 0 : errno;
    close(fd);
    return err;
}

int nq_cli_output_write(const char *prog, const char *path, const nq_cli_options *opt,
                        const nq_result *r, int ranks)
{
    target t;
    const int fd = open_reported(prog, path, &t);
    if (fd < 0)
        return 1;
    int err = render_into(fd, opt, r, ranks);
    /* A terminal or a pipe cannot be synced (EINVAL): nothing to keep. */
    if (!err && fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        err = errno;
    if (close(fd) != 0 && !err)
        err = errno;
    if (!t.in_place) {
        if (!err && rename(t.temp, t.path) != 0)
            err = errno;
        if (err)
            unlink(t.temp);
        else
            err = sync_directory(t.path);
    }
    return err ? report(prog, path, err) : 0;
}
