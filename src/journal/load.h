/*
 * load.h - what the two files of the journal share: the in-memory journal
 * (struct nq_journal, opaque to every other file; journal.c makes, records
 * into, flushes and closes it), and reading an existing journal file into
 * it at open (load.c), the half that judges what a file holds: a job's
 * header, good records, a torn tail a crash left, or damage.
 */
#ifndef NQ_JOURNAL_LOAD_H
#define NQ_JOURNAL_LOAD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/engine.h"
#include "journal/file.h"
#include "journal/journal.h"

struct nq_journal {
    char shown[NQ_JOURNAL_SHOWN_MAX]; /* the path as messages show it */
    int fd;
    uint64_t units, chunk_units, chunks;
    uint64_t identity;     /* the job's, carried by every record */
    unsigned char *done;   /* loaded at open; never changed afterwards */
    unsigned char *verified; /* loaded at open: chunks recorded as checked */
    nq_counts *counts;     /* loaded at open: each done chunk's counts */
    nq_counts resumed;     /* sum of the chunks loaded at open */
    uint64_t resumed_units;
    int complete;

    pthread_mutex_t lock;  /* guards everything below it but io_* */
    unsigned char *recorded; /* chunks recorded by this process */
    unsigned char *recorded_verified; /* chunks recorded as checked by this process */
    nq_counts recorded_sum;
    unsigned char *pending; /* encoded records not yet written */
    size_t pending_len;

    pthread_mutex_t io_lock; /* serialises write/fsync and guards io_* */
    unsigned char *io_buf;   /* the batch being written */
    int io_failed;
    int unsynced; /* written since the last fsync */
    char io_error[NQ_JOURNAL_DETAIL_MAX];
};

/* Reads exactly len bytes of fd at off; returns 0, or -1 with errno set
 * (EIO for a file that ended early). */
int nq_journal_read_at(int fd, void *buf, size_t len, off_t off);

/* Loads the existing journal open on j->fd, whose in-memory side j was
 * made for job: the header checked against the job, the records read into
 * j->done, j->verified, j->counts and j->resumed, a completion record
 * checked against them, and a torn tail cut (told to notice, which may be
 * NULL).  Returns 0 or NQ_EIO, NQ_ENOMEM, NQ_EJOURNAL_MISMATCH or
 * NQ_EJOURNAL_CORRUPT with detail written; the file is changed only when
 * everything checked out. */
int nq_journal_load(nq_journal *j, const nq_job *job,
                    void (*notice)(const char *message, void *user), void *user, char *detail,
                    size_t size);

#endif /* NQ_JOURNAL_LOAD_H */
