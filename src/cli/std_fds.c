/*
 * std_fds.c - reopening a closed standard descriptor (see std_fds.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "cli/std_fds.h"

void nq_cli_guard_std_fds(void)
{
    /* In order, so open() (which takes the lowest free descriptor) lands
     * on the one that is missing. */
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int got = open("/dev/null", O_RDONLY);
        if (got >= 0 && got != fd) {
            dup2(got, fd);
            close(got);
        }
    }
}
