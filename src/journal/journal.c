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
 * Workers record chunks into a memory buffer under a mutex; whoever owns
 * the journal (the monitor thread) flushes that buffer with write() and
 * fsync() now and then, so workers never block on I/O.
 */
/* lseek's SEEK_DATA (Linux, the BSDs, Solaris) skips a sparse tail's holes;
 * where it is missing the tail is read as before. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "journal/block.h"
#include "journal/crc.h"
#include "journal/file.h"
#include "journal/journal.h"

/* Records read from disk per pread() while loading. */
#define LOAD_BATCH 1024u

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

/* Writes a printf-style line into detail (when not NULL). */
static void say(char *detail, size_t size, const char *fmt, ...)
{
    if (!detail || !size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, size, fmt, ap);
    va_end(ap);
}

static int all_zero(const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i])
            return 0;
    return 1;
}

/* Reads exactly len bytes at off; returns 0, or -1 with errno set (EIO for
 * a file that ended early). */
static int read_at(int fd, void *buf, size_t len, off_t off)
{
    unsigned char *p = buf;
    while (len) {
        ssize_t got = pread(fd, p, len, off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got == 0)
                errno = EIO;
            return -1;
        }
        p += got;
        len -= (size_t)got;
        off += got;
    }
    return 0;
}

static const char *engine_label(uint32_t e)
{
    const char *name = e < NQ_ENGINE_COUNT_ ? nq_engine_name((enum nq_engine)e) : NULL;
    return name ? name : "unknown";
}

/* Compares a decoded header with the job.  Returns 0 or NQ_EJOURNAL_MISMATCH
 * with the first difference written to detail. */
static int check_header(const nq_journal_header *h, const nq_job *job, uint64_t chunk_units,
                        const char *path, char *detail, size_t size)
{
    if (h->version < NQ_JOURNAL_VERSION) {
        say(detail, size, "journal '%s' has format version %u, written by an older nqueens; this "
            "build reads version %u (finish that run with the build that started it, or start a "
            "new journal)", path, h->version, NQ_JOURNAL_VERSION);
        return NQ_EJOURNAL_MISMATCH;
    }
    if (h->version != NQ_JOURNAL_VERSION) {
        say(detail, size, "journal '%s' has format version %u, written by a newer nqueens; this "
            "build reads version %u", path, h->version, NQ_JOURNAL_VERSION);
        return NQ_EJOURNAL_MISMATCH;
    }
    if (h->header_size != NQ_JOURNAL_BLOCK || h->record_size != NQ_JOURNAL_BLOCK) {
        say(detail, size, "journal '%s' has an unknown record layout", path);
        return NQ_EJOURNAL_MISMATCH;
    }
    if (h->n != (uint32_t)job->n) {
        say(detail, size, "journal '%s' is for N=%u, this run is N=%d", path, h->n, job->n);
        return NQ_EJOURNAL_MISMATCH;
    }
    if (h->engine != (uint32_t)job->ops->id) {
        say(detail, size, "journal '%s' is for engine %s, this run uses engine %s", path,
            engine_label(h->engine), job->ops->name);
        return NQ_EJOURNAL_MISMATCH;
    }
    if (h->split != (uint32_t)job->split_depth) {
        say(detail, size, "journal '%s' is for split depth %u, this run uses split depth %d", path,
            h->split, job->split_depth);
        return NQ_EJOURNAL_MISMATCH;
    }
    if (h->units != job->units || h->identity != job->identity) {
        say(detail, size, "journal '%s' lists other subproblems than this run (job identity differs)",
            path);
        return NQ_EJOURNAL_MISMATCH;
    }
    if (h->chunk_units != chunk_units) {
        say(detail, size, "journal '%s' groups %llu units per chunk, this run plans %llu", path,
            (unsigned long long)h->chunk_units, (unsigned long long)chunk_units);
        return NQ_EJOURNAL_MISMATCH;
    }
    return 0;
}

/* Result of scanning the records of an existing journal. */
typedef struct scan {
    uint64_t valid_end;   /* file offset just past the last good record */
    uint64_t torn_bytes;  /* bytes after it that a crash left (to discard) */
    int has_done;
    nq_counts done_counts;
    uint64_t chunk_records; /* CHNK records read (a chunk recorded twice counts twice) */
} scan;

/* Takes one record with a valid checksum, at file offset off, into j and
 * *sc.  Returns 0, or NQ_EJOURNAL_CORRUPT with detail written when the
 * record cannot stand where it is. */
static int take_record(nq_journal *j, const unsigned char *r, uint64_t off, scan *sc,
                       char *detail, size_t size)
{
    const uint32_t type = get32(r);
    const uint64_t chunk = get64(r + 8);
    const nq_counts c = {get128(r + 16), get128(r + 32)};
    const uint64_t identity = get64(r + 48);
    if (identity != j->identity) {
        /* Intact, but written for another job: never counted, and not a
         * torn tail to cut either (the file is left as it is). */
        say(detail, size, "journal '%s' holds a record of another job at offset %llu (job "
            "identity %016llx, this journal's is %016llx): records of another journal were "
            "added to it", j->shown, (unsigned long long)off, (unsigned long long)identity,
            (unsigned long long)j->identity);
        return NQ_EJOURNAL_MISMATCH;
    }
    if (sc->has_done) {
        say(detail, size, "journal '%s' is damaged: a record follows the completion record "
            "(offset %llu)", j->shown, (unsigned long long)off);
        return NQ_EJOURNAL_CORRUPT;
    }
    if (type == NQ_JOURNAL_REC_DONE && chunk == j->chunks) {
        sc->has_done = 1;
        sc->done_counts = c;
    } else if (type == NQ_JOURNAL_REC_CHUNK && chunk < j->chunks) {
        sc->chunk_records++;
        if (get32(r + 4) & NQ_JOURNAL_FLAG_VERIFIED)
            j->verified[chunk] = 1;
        /* A chunk has a second record when a later run checked it
         * (settings.verify) and both counts agreed, so the two records
         * hold the same counts; two that differ mean one was changed
         * after it was written (the checksum can be recomputed), and the
         * file cannot say which one is right. */
        if (j->done[chunk] && (j->counts[chunk].total != c.total ||
                               j->counts[chunk].unique != c.unique)) {
            say(detail, size, "journal '%s' is damaged: chunk %llu has two records with "
                "different counts (the second at offset %llu)", j->shown,
                (unsigned long long)chunk, (unsigned long long)off);
            return NQ_EJOURNAL_CORRUPT;
        }
        if (!j->done[chunk]) {
            j->done[chunk] = 1;
            j->counts[chunk] = c;
            nq_counts_add(&j->resumed, &c);
            const uint64_t begin = chunk * j->chunk_units;
            const uint64_t end =
                begin + j->chunk_units < j->units ? begin + j->chunk_units : j->units;
            j->resumed_units += end - begin;
        }
    } else {
        say(detail, size, "journal '%s' is damaged: record at offset %llu is invalid", j->shown,
            (unsigned long long)off);
        return NQ_EJOURNAL_CORRUPT;
    }
    sc->valid_end = off + NQ_JOURNAL_BLOCK;
    return 0;
}

/* Counts, in the `rest` bytes of j's file from offset `from`, the whole
 * records with a valid checksum and the non-zero bytes.  Returns 0 or -1
 * (read error, errno set). */
static int survey_tail(nq_journal *j, uint64_t from, uint64_t rest, uint64_t *valid,
                       uint64_t *nonzero)
{
    unsigned char *buf = malloc((size_t)LOAD_BATCH * NQ_JOURNAL_BLOCK);
    if (!buf) {
        errno = ENOMEM;
        return -1;
    }
    static const unsigned char zero_block[NQ_JOURNAL_BLOCK];
    const int zero_block_valid = nq_crc32(0, zero_block, NQ_JOURNAL_CRC_AT) == 0;
    *valid = *nonzero = 0;
    int ret = 0;
    for (uint64_t off = 0; off < rest && ret == 0; off += (uint64_t)LOAD_BATCH * NQ_JOURNAL_BLOCK) {
#ifdef SEEK_DATA
        if (!zero_block_valid) {
            /* A hole (a sparse tail, as truncate leaves) reads as zero
             * blocks, which change neither count: jump to the next data,
             * at a block boundary, instead of reading gigabytes of zeros. */
            const off_t data = lseek(j->fd, (off_t)(from + off), SEEK_DATA);
            if (data < 0 && errno == ENXIO)
                break; /* only a hole is left */
            if (data > (off_t)(from + off)) {
                const uint64_t skip = ((uint64_t)data - from - off) / NQ_JOURNAL_BLOCK *
                                      NQ_JOURNAL_BLOCK;
                off += skip;
                if (off >= rest)
                    break;
            }
        }
#endif
        const size_t len = rest - off < (uint64_t)LOAD_BATCH * NQ_JOURNAL_BLOCK ? (size_t)(rest - off)
                                                                      : (size_t)LOAD_BATCH * NQ_JOURNAL_BLOCK;
        ret = read_at(j->fd, buf, len, (off_t)(from + off));
        for (size_t r = 0; ret == 0 && r < len; r += NQ_JOURNAL_BLOCK) {
            const size_t have = len - r < NQ_JOURNAL_BLOCK ? len - r : NQ_JOURNAL_BLOCK;
            /* A zero-filled tail (what a power loss leaves) is read at the
             * speed of memcmp: a zero block adds no nonzero byte, and its
             * checksum is the same for every zero block. */
            if (memcmp(buf + r, zero_block, have) == 0) {
                *valid += have == NQ_JOURNAL_BLOCK && zero_block_valid;
                continue;
            }
            for (size_t i = 0; i < have; i++)
                *nonzero += buf[r + i] != 0;
            if (have == NQ_JOURNAL_BLOCK)
                *valid += get32(buf + r + NQ_JOURNAL_CRC_AT) ==
                          nq_crc32(0, buf + r, NQ_JOURNAL_CRC_AT);
        }
    }
    free(buf);
    return ret;
}

/* Judges what follows the last good record (sc->valid_end) when it does
 * not check out.  It is a torn tail only if it is the very end of the
 * file: one bad last record, a partial record, or zeros to the end (space
 * a crash allocated but never filled); then sc->torn_bytes says how much.
 * Anything else is damage, and the message says what follows the bad
 * record: valid records (damage in the middle) or bytes that hold none.
 * bad_last: the first bad record is the last whole one.  Returns 0, or
 * NQ_EJOURNAL_CORRUPT / NQ_EIO with detail written. */
static int check_tail(nq_journal *j, uint64_t file_size, int bad_last, uint64_t partial,
                      scan *sc, char *detail, size_t size)
{
    const uint64_t rest = file_size - sc->valid_end;
    if (rest < NQ_JOURNAL_BLOCK || (bad_last && !partial)) {
        sc->torn_bytes = rest;
        return 0;
    }
    uint64_t valid, nonzero;
    if (survey_tail(j, sc->valid_end + NQ_JOURNAL_BLOCK, rest - NQ_JOURNAL_BLOCK, &valid, &nonzero) < 0) {
        say(detail, size, "cannot read journal '%s': %s", j->shown, strerror(errno));
        return NQ_EIO;
    }
    unsigned char first[NQ_JOURNAL_BLOCK];
    if (read_at(j->fd, first, NQ_JOURNAL_BLOCK, (off_t)sc->valid_end) == 0 && all_zero(first, NQ_JOURNAL_BLOCK) &&
        nonzero == 0) {
        sc->torn_bytes = rest;
        return 0;
    }
    if (valid)
        say(detail, size, "journal '%s' is damaged: the record at offset %llu fails its checksum "
            "and %llu valid record%s it", j->shown, (unsigned long long)sc->valid_end,
            (unsigned long long)valid, valid == 1 ? " follows" : "s follow");
    else
        say(detail, size, "journal '%s' is damaged: the record at offset %llu fails its checksum "
            "and the %llu bytes after it hold no valid record (more than a torn last record)",
            j->shown, (unsigned long long)sc->valid_end, (unsigned long long)(rest - NQ_JOURNAL_BLOCK));
    return NQ_EJOURNAL_CORRUPT;
}

/* Reads every record after the header into j->done / j->resumed, in
 * batches.  Returns 0 or NQ_EJOURNAL_CORRUPT / NQ_EIO / NQ_ENOMEM with
 * detail written. */
static int load_records(nq_journal *j, uint64_t file_size, scan *sc, char *detail, size_t size)
{
    const uint64_t whole = (file_size - NQ_JOURNAL_BLOCK) / NQ_JOURNAL_BLOCK;
    const uint64_t partial = (file_size - NQ_JOURNAL_BLOCK) % NQ_JOURNAL_BLOCK;
    unsigned char *buf = malloc((size_t)LOAD_BATCH * NQ_JOURNAL_BLOCK);
    if (!buf)
        return NQ_ENOMEM;
    memset(sc, 0, sizeof *sc);
    sc->valid_end = NQ_JOURNAL_BLOCK;
    int ret = 0;
    uint64_t bad = UINT64_MAX; /* index of the first record failing its checksum */
    for (uint64_t first = 0; first < whole && bad == UINT64_MAX && ret == 0; first += LOAD_BATCH) {
        const uint64_t count = whole - first < LOAD_BATCH ? whole - first : LOAD_BATCH;
        if (read_at(j->fd, buf, (size_t)(count * NQ_JOURNAL_BLOCK), (off_t)(NQ_JOURNAL_BLOCK + first * NQ_JOURNAL_BLOCK)) < 0) {
            say(detail, size, "cannot read journal '%s': %s", j->shown, strerror(errno));
            ret = NQ_EIO;
            break;
        }
        for (uint64_t i = 0; i < count && ret == 0; i++) {
            const unsigned char *r = buf + i * NQ_JOURNAL_BLOCK;
            if (get32(r + NQ_JOURNAL_CRC_AT) != nq_crc32(0, r, NQ_JOURNAL_CRC_AT)) {
                bad = first + i;
                break;
            }
            ret = take_record(j, r, NQ_JOURNAL_BLOCK + (first + i) * NQ_JOURNAL_BLOCK, sc, detail, size);
        }
    }
    if (ret == 0 && (bad != UINT64_MAX || partial))
        ret = check_tail(j, file_size, bad == whole - 1, partial, sc, detail, size);
    free(buf);
    return ret;
}

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

/* Checks that a loaded journal's completion record, if any, agrees with
 * its chunk records: every chunk has one, and their counts add up to the
 * completion record's.  This is what lets a finished journal answer
 * without counting: a chunk record changed with its checksum recomputed
 * passes the record checks but not the sum.  The records are in memory by
 * now, so the check costs one pass over the chunk flags.  Returns 0 or
 * NQ_EJOURNAL_CORRUPT with detail written. */
static int check_completion(nq_journal *j, const scan *sc, char *detail, size_t size)
{
    if (!sc->has_done)
        return 0;
    for (uint64_t c = 0; c < j->chunks; c++)
        if (!j->done[c]) {
            say(detail, size, "journal '%s' is damaged: it has a completion record but no record "
                "of chunk %llu", j->shown, (unsigned long long)c);
            return NQ_EJOURNAL_CORRUPT;
        }
    if (sc->done_counts.total != j->resumed.total ||
        sc->done_counts.unique != j->resumed.unique) {
        char done[48], sum[48];
        const int total = sc->done_counts.total != j->resumed.total;
        nq_decimal(total ? sc->done_counts.total : sc->done_counts.unique, done, sizeof done);
        nq_decimal(total ? j->resumed.total : j->resumed.unique, sum, sizeof sum);
        say(detail, size, "journal '%s' is damaged: its completion record's %s count %s differs "
            "from the sum of its chunk records, %s", j->shown, total ? "total" : "unique", done,
            sum);
        return NQ_EJOURNAL_CORRUPT;
    }
    j->complete = 1;
    return 0;
}

/* Cuts the torn tail a crash left, once everything before it checked out
 * (only then is the file changed), so new records follow the last good one
 * directly; tells `notice`.  Returns 0 or NQ_EIO with detail written. */
static int cut_torn_tail(nq_journal *j, const scan *sc,
                         void (*notice)(const char *message, void *user), void *user,
                         char *detail, size_t size)
{
    if (!sc->torn_bytes)
        return 0;
    if (ftruncate(j->fd, (off_t)sc->valid_end) < 0 || fsync(j->fd) < 0) {
        say(detail, size, "cannot truncate the torn tail of journal '%s': %s", j->shown,
            strerror(errno));
        return NQ_EIO;
    }
    if (notice) {
        char line[NQ_JOURNAL_DETAIL_MAX + 64];
        snprintf(line, sizeof line,
                 "journal '%s': discarded a torn last record (%llu bytes at offset %llu), "
                 "kept %llu finished chunk%s",
                 j->shown, (unsigned long long)sc->torn_bytes, (unsigned long long)sc->valid_end,
                 (unsigned long long)sc->chunk_records, sc->chunk_records == 1 ? "" : "s");
        notice(line, user);
    }
    return 0;
}

/* Loads the existing journal open on j->fd: header checked against the
 * job, records read, torn tail cut.  Returns 0 or an NQ_E* code with
 * detail written; the file is changed only when everything checked out. */
static int load_existing(nq_journal *j, const nq_job *job,
                         void (*notice)(const char *message, void *user), void *user,
                         char *detail, size_t size)
{
    struct stat st;
    if (fstat(j->fd, &st) < 0) {
        say(detail, size, "cannot read journal '%s': %s", j->shown, strerror(errno));
        return NQ_EIO;
    }
    if (st.st_size == 0) {
        say(detail, size, "journal '%s' is an empty file, not a checkpoint journal", j->shown);
        return NQ_EJOURNAL_CORRUPT;
    }
    unsigned char got[NQ_JOURNAL_BLOCK];
    nq_journal_header h;
    const char *why = "not a checkpoint journal (too short)";
    if ((uint64_t)st.st_size < NQ_JOURNAL_BLOCK || read_at(j->fd, got, NQ_JOURNAL_BLOCK, 0) < 0 ||
        nq_journal_decode_header(got, &h, &why) < 0) {
        say(detail, size, "journal '%s': %s", j->shown, why);
        return NQ_EJOURNAL_CORRUPT;
    }
    int ret = check_header(&h, job, j->chunk_units, j->shown, detail, size);
    scan sc;
    if (ret == 0)
        ret = load_records(j, (uint64_t)st.st_size, &sc, detail, size);
    if (ret == 0)
        ret = check_completion(j, &sc, detail, size);
    if (ret == 0)
        ret = cut_torn_tail(j, &sc, notice, user, detail, size);
    return ret;
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
        ret = load_existing(j, job, notice, user, detail, size);
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
    int ok = read_at(fd, b, NQ_JOURNAL_BLOCK, 0) == 0 && nq_journal_decode_header(b, &h, &why) == 0;
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
