/*
 * file.h - the journal's file on disk (implemented in file.c): which paths
 * may hold a journal, the lock that keeps a second run out, and creating a
 * new journal so that no crash leaves half a header under its name.
 *
 * journal.c and load.c decide what the bytes mean; this file decides
 * whether a path can be used at all, and says why not in words a user can
 * act on ("is a FIFO", "is a symbolic link to 'x', which does not exist",
 * "is in use by another run (process 1234)").  Nothing here blocks: a FIFO
 * is refused before it is opened, and the lock is only tried.
 */
#ifndef NQ_JOURNAL_FILE_H
#define NQ_JOURNAL_FILE_H

#include <stddef.h>

/* Room for a path as messages show it: long paths are shortened in the
 * middle so that a message naming one still fits its line. */
#define NQ_JOURNAL_SHOWN_MAX 128

/* Writes path into shown (NQ_JOURNAL_SHOWN_MAX bytes), shortened in the
 * middle with "..." when it is longer, control characters as '?'. */
void nq_journal_shown_path(const char *path, char *shown);

/* An open journal file. */
typedef struct nq_journal_file {
    int fd;         /* open for appending */
    int created;    /* 1: made by this call, holding only the header */
    int lock_error; /* 0 when locked; else the errno of a file system that
                     * offers no locks (the file is then not locked) */
} nq_journal_file;

/*
 * Opens the journal at path for appending, locked against every other
 * opener (flock on the open file, so a second run in this process is kept
 * out too) until the descriptor is closed.  An existing path must be a
 * regular file on disk; a missing one is created holding the header_len
 * bytes of header, written to a temporary name beside it, fsynced and
 * linked into place.  Returns 0 with *out filled, or
 *   NQ_EJOURNAL_PATH  the path cannot hold a journal (detail says why:
 *                     not a regular file, a dangling symbolic link, a name
 *                     too long, no such folder, no permission...)
 *   NQ_EJOURNAL_BUSY  another run holds the lock (detail names its process
 *                     when /proc/locks tells)
 *   NQ_EIO            the machine failed (disk full, I/O error, no file
 *                     descriptors left)
 * with detail (size bytes) naming the file as `shown`.  An existing file
 * is never written here.
 */
int nq_journal_file_open(const char *path, const char *shown, const unsigned char *header,
                         size_t header_len, nq_journal_file *out, char *detail, size_t size);

/* Opens path read-only when it is a regular file on disk, without ever
 * blocking (a FIFO is not opened).  Returns the descriptor or -1. */
int nq_journal_file_peek(const char *path);

/* Writes all len bytes to fd; returns 0 or -1 with errno set. */
int nq_journal_write_all(int fd, const void *buf, size_t len);

#endif /* NQ_JOURNAL_FILE_H */
