/*
 * load.c - opening an existing journal: its header checked against the
 * job, its records read in batches, and what follows the last good record
 * judged (see journal.c for the format).  A bad or partial last record,
 * or a zero-filled tail, as a crash or a power loss leaves, is a torn tail
 * and is cut off once everything before it checked out; a bad record with
 * good ones after it, a record after the completion record, or an intact
 * record of another job means the file was damaged some other way, and it
 * is refused untouched.  Apart from journal.c so that reading what a file
 * holds, the careful half, stands on its own.
 */
/* lseek's SEEK_DATA (Linux, the BSDs, Solaris) skips a sparse tail's holes;
 * where it is missing the tail is read as before. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "journal/block.h"
#include "journal/crc.h"
#include "journal/load.h"

/* Records read from disk per pread() while loading. */
#define LOAD_BATCH 1024u

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

int nq_journal_read_at(int fd, void *buf, size_t len, off_t off)
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
        ret = nq_journal_read_at(j->fd, buf, len, (off_t)(from + off));
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
    if (nq_journal_read_at(j->fd, first, NQ_JOURNAL_BLOCK, (off_t)sc->valid_end) == 0 &&
        all_zero(first, NQ_JOURNAL_BLOCK) && nonzero == 0) {
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
        if (nq_journal_read_at(j->fd, buf, (size_t)(count * NQ_JOURNAL_BLOCK),
                               (off_t)(NQ_JOURNAL_BLOCK + first * NQ_JOURNAL_BLOCK)) < 0) {
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

int nq_journal_load(nq_journal *j, const nq_job *job,
                    void (*notice)(const char *message, void *user), void *user, char *detail,
                    size_t size)
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
    if ((uint64_t)st.st_size < NQ_JOURNAL_BLOCK ||
        nq_journal_read_at(j->fd, got, NQ_JOURNAL_BLOCK, 0) < 0 ||
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
