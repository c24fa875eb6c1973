/*
 * journal.c - the crash-safe checkpoint journal (see journal.h).
 *
 * File format, all integers little-endian, every block 64 bytes:
 *
 *   header   "NQJOURNL", version, header size, n, engine, split depth,
 *            record size, units, job identity, units per chunk, CRC-32
 *   records  type ("CHNK" or "DONE"), chunk index, total (128 bits),
 *            unique (128 bits), the job identity, CRC-32 of the record's
 *            first 60 bytes (so the checksum is keyed by the identity)
 *
 * A CHNK record says one chunk finished with those counts; the single DONE
 * record, last, holds the run's final counts.  A CHNK record whose flags
 * word (offset 4, zero otherwise) has NQ_JOURNAL_FLAG_VERIFIED says the chunk was
 * counted twice and both counts agreed (settings.verify); it follows the
 * chunk's first record, with the same counts.  Readers of format 3 that
 * predate the flag ignore the word, so the format version stays 3.  Records are only ever
 * appended, so a crash can damage at most the tail that was being written:
 * on open a bad or partial last record (or a zero-filled tail, as a power
 * loss may leave) is discarded and truncated away, while a bad record with
 * good ones after it means the file was damaged some other way and is
 * refused untouched.  Fixed-size records keep every record boundary on a
 * 64-byte multiple, so a write cut short at a page boundary tears nothing.
 *
 * Each record carries its job's identity under its checksum: a record
 * copied from another job's journal (journals concatenated, a tail pasted
 * on) has a valid checksum but another identity, and is refused as another
 * job's instead of being counted or taken for a torn tail.
 *
 * Reading an existing journal at open, and judging a torn tail from damage,
 * is load.c's; this file makes the journal, records, flushes and closes.
 *
 * Workers record chunks into a memory buffer under a mutex; whoever owns
 * the journal (the monitor thread) flushes that buffer with write() and
 * fsync() now and then, so workers never block on I/O.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "journal/block.h"
#include "journal/crc.h"
#include "journal/file.h"
#include "journal/journal.h"
#include "journal/load.h"

/* Allocates the in-memory side of a journal for job, cut into chunks of
 * chunk_units units. */
static nq_journal *journal_new(const char *path, const nq_job *job, uint64_t chunk_units)
{
    nq_journal *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->fd = -1;
    j->units = job->units;
    j->chunk_units = chunk_units;
    j->identity = job->identity;
    j->chunks = (job->units + j->chunk_units - 1) / j->chunk_units;
    const size_t flags = j->chunks ? (size_t)j->chunks : 1;
    /* Every chunk once, again when checked, plus DONE. */
    const size_t bytes = (size_t)(2 * j->chunks + 1) * NQ_JOURNAL_BLOCK;
    nq_journal_shown_path(path, j->shown);
    j->done = calloc(flags, 1);
    j->recorded = calloc(flags, 1);
    j->verified = calloc(flags, 1);
    j->recorded_verified = calloc(flags, 1);
    j->counts = calloc(flags, sizeof *j->counts);
    j->pending = malloc(bytes);
    j->io_buf = malloc(bytes);
    pthread_mutex_init(&j->lock, NULL);
    pthread_mutex_init(&j->io_lock, NULL);
    if (!j->done || !j->recorded || !j->verified || !j->recorded_verified || !j->counts ||
        !j->pending || !j->io_buf) {
        nq_journal_close(&j);
        return NULL;
    }
    return j;
}

int nq_journal_open(nq_journal **out, const char *path, const nq_job *job, uint64_t chunk_units,
                    void (*notice)(const char *message, void *user), void *user, char *detail,
                    size_t size)
{
    if (detail && size)
        detail[0] = '\0';
    if (!out || !path || !job || chunk_units == 0)
        return NQ_EINVAL_ARG;
    *out = NULL;
    nq_journal *j = journal_new(path, job, chunk_units);
    if (!j)
        return NQ_ENOMEM;
    unsigned char hdr[NQ_JOURNAL_BLOCK];
    nq_journal_encode_header(hdr, job, j->chunk_units);
    nq_journal_file file;
    int ret = nq_journal_file_open(path, j->shown, hdr, NQ_JOURNAL_BLOCK, &file, detail, size);
    j->fd = file.fd;
    if (ret == 0 && !file.created)
        ret = nq_journal_load(j, job, notice, user, detail, size);
    if (ret == 0 && file.lock_error && notice) {
        char line[NQ_JOURNAL_DETAIL_MAX + 96];
        snprintf(line, sizeof line, "journal '%s' is not locked: its file system has no locks "
                 "(%s); make sure no other run uses it", j->shown, strerror(file.lock_error));
        notice(line, user);
    }
    if (ret < 0) {
        nq_journal_close(&j);
        return ret;
    }
    *out = j;
    return 0;
}

uint64_t nq_journal_chunks(const nq_journal *j)
{
    return j->chunks;
}

const unsigned char *nq_journal_done(const nq_journal *j)
{
    return j->done;
}

nq_counts nq_journal_resumed_counts(const nq_journal *j)
{
    return j->resumed;
}

uint64_t nq_journal_resumed_units(const nq_journal *j)
{
    return j->resumed_units;
}

int nq_journal_is_complete(const nq_journal *j)
{
    return j->complete;
}

int nq_journal_record(nq_journal *j, uint64_t chunk, const nq_counts *counts)
{
    if (!j || !counts || chunk >= j->chunks)
        return NQ_EINVAL_ARG;
    pthread_mutex_lock(&j->lock);
    /* Chunks loaded at open or already recorded are not written again, so
     * the pending buffer (one slot per chunk) can never overflow. */
    if (!j->done[chunk] && !j->recorded[chunk] && !j->complete) {
        j->recorded[chunk] = 1;
        nq_counts_add(&j->recorded_sum, counts);
        nq_journal_encode_record(j->pending + j->pending_len, NQ_JOURNAL_REC_CHUNK, 0, chunk, counts, j->identity);
        j->pending_len += NQ_JOURNAL_BLOCK;
    }
    pthread_mutex_unlock(&j->lock);
    return 0;
}

int nq_journal_record_verified(nq_journal *j, uint64_t chunk, const nq_counts *counts)
{
    if (!j || !counts || chunk >= j->chunks)
        return NQ_EINVAL_ARG;
    pthread_mutex_lock(&j->lock);
    /* Once per chunk, so the pending buffer's second slot per chunk
     * suffices. */
    if (!j->verified[chunk] && !j->recorded_verified[chunk] && !j->complete) {
        j->recorded_verified[chunk] = 1;
        /* A chunk first recorded here is finished by this record. */
        if (!j->done[chunk] && !j->recorded[chunk]) {
            j->recorded[chunk] = 1;
            nq_counts_add(&j->recorded_sum, counts);
        }
        nq_journal_encode_record(j->pending + j->pending_len, NQ_JOURNAL_REC_CHUNK, NQ_JOURNAL_FLAG_VERIFIED, chunk, counts,
                      j->identity);
        j->pending_len += NQ_JOURNAL_BLOCK;
    }
    pthread_mutex_unlock(&j->lock);
    return 0;
}

const unsigned char *nq_journal_verified(const nq_journal *j)
{
    return j->verified;
}

nq_counts nq_journal_chunk_counts(const nq_journal *j, uint64_t chunk)
{
    return j->counts[chunk];
}

/* Writes the pending records; with sync also fsyncs.  Caller holds io_lock. */
static int flush_locked(nq_journal *j, int sync)
{
    if (j->io_failed)
        return NQ_EIO;
    pthread_mutex_lock(&j->lock);
    unsigned char *batch = j->pending;
    size_t len = j->pending_len;
    j->pending = j->io_buf;
    j->pending_len = 0;
    j->io_buf = batch;
    pthread_mutex_unlock(&j->lock);

    const char *op = NULL;
    if (len && nq_journal_write_all(j->fd, batch, len) < 0)
        op = "write to";
    j->unsynced |= len != 0;
    /* fsync only when something was written since the last one. */
    if (!op && sync && j->unsynced) {
        if (fsync(j->fd) < 0)
            op = "fsync";
        else
            j->unsynced = 0;
    }
    if (op) {
        /* After a failed write the file may end in a partial record; stop
         * writing so it stays a torn tail that the next open discards. */
        snprintf(j->io_error, sizeof j->io_error, "cannot %s journal '%s': %s", op, j->shown,
                 strerror(errno));
        j->io_failed = 1;
        return NQ_EIO;
    }
    return 0;
}

int nq_journal_flush(nq_journal *j, int sync)
{
    if (!j)
        return NQ_EINVAL_ARG;
    pthread_mutex_lock(&j->io_lock);
    int ret = flush_locked(j, sync);
    pthread_mutex_unlock(&j->io_lock);
    return ret;
}

int nq_journal_finish(nq_journal *j)
{
    if (!j)
        return NQ_EINVAL_ARG;
    if (j->complete)
        return 0;
    pthread_mutex_lock(&j->io_lock);
    pthread_mutex_lock(&j->lock);
    int all = 1;
    for (uint64_t c = 0; c < j->chunks && all; c++)
        all = j->done[c] || j->recorded[c];
    nq_counts final = j->resumed;
    nq_counts_add(&final, &j->recorded_sum);
    if (all) {
        nq_journal_encode_record(j->pending + j->pending_len, NQ_JOURNAL_REC_DONE, 0, j->chunks, &final, j->identity);
        j->pending_len += NQ_JOURNAL_BLOCK;
        j->complete = 1;
    }
    pthread_mutex_unlock(&j->lock);
    int ret = all ? flush_locked(j, 1) : NQ_EINVAL_ARG;
    pthread_mutex_unlock(&j->io_lock);
    return ret;
}

const char *nq_journal_last_error(const nq_journal *j)
{
    return j && j->io_failed ? j->io_error : "";
}

void nq_journal_close(nq_journal **jp)
{
    if (!jp || !*jp)
        return;
    nq_journal *j = *jp;
    if (j->fd >= 0) {
        nq_journal_flush(j, 1);
        close(j->fd);
    }
    pthread_mutex_destroy(&j->lock);
    pthread_mutex_destroy(&j->io_lock);
    free(j->done);
    free(j->recorded);
    free(j->verified);
    free(j->recorded_verified);
    free(j->counts);
    free(j->pending);
    free(j->io_buf);
    free(j);
    *jp = NULL;
}

int nq_journal_peek(const char *path, int *n, enum nq_engine *engine, int *split_depth)
{
    if (!path)
        return 0;
    int fd = nq_journal_file_peek(path);
    if (fd < 0)
        return 0;
    unsigned char b[NQ_JOURNAL_BLOCK];
    nq_journal_header h;
    const char *why;
    int ok = nq_journal_read_at(fd, b, NQ_JOURNAL_BLOCK, 0) == 0 &&
             nq_journal_decode_header(b, &h, &why) == 0;
    close(fd);
    if (!ok)
        return 0;
    if (n)
        *n = (int)h.n;
    if (engine)
        *engine = h.engine < NQ_ENGINE_COUNT_ ? (enum nq_engine)h.engine : NQ_ENGINE_AUTO;
    if (split_depth)
        *split_depth = (int)h.split;
    return 1;
}
