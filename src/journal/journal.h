/*
 * journal.h - the crash-safe checkpoint journal (contract; implemented in
 * journal.c, with load.c reading an existing journal).
 *
 * A journal binds itself to one job (format version, n, engine, split
 * depth, unit count, job identity, units per chunk) in its header and then
 * holds append-only records, one per finished chunk, each with its own
 * checksum.  Opening an existing journal loads the finished chunks so the
 * caller can skip them; a torn last record is discarded (and reported via
 * the notice callback), anything else wrong refuses the file untouched.
 *
 * Writers: only one process (rank 0 under MPI) writes a journal.  Recording
 * is thread-safe and cheap (it buffers); flushing writes and fsyncs.
 */
#ifndef NQ_JOURNAL_H
#define NQ_JOURNAL_H

#include "core/engine.h"

typedef struct nq_journal nq_journal;

/* Room for any detail line the journal writes (path included). */
#define NQ_JOURNAL_DETAIL_MAX 256

/*
 * Opens `path` for `job`, cut into chunks of chunk_units units (the plan's
 * chunking, recorded in the header), creating it (header written and
 * fsynced) when it does not exist, and locks it until it is closed (see
 * file.h).  An existing journal must match the job and the chunking
 * exactly; its finished chunks are loaded and a torn last record is cut off
 * (reported through notice, which may be NULL, as is a file system without
 * locks).  Returns 0, NQ_EINVAL_ARG, NQ_ENOMEM, NQ_EJOURNAL_PATH (not a
 * regular file, no such folder...), NQ_EJOURNAL_BUSY (another run holds
 * it), NQ_EIO (the machine: disk full, I/O error), NQ_EJOURNAL_MISMATCH or
 * NQ_EJOURNAL_CORRUPT; on error the file is left byte-for-byte unchanged
 * and detail (may be NULL; size bytes, NUL-terminated) gets one line
 * naming the file and the problem ("journal 'run.j' is for N=14, this run
 * is N=15").
 */
int nq_journal_open(nq_journal **out, const char *path, const nq_job *job, uint64_t chunk_units,
                    void (*notice)(const char *message, void *user), void *user, char *detail,
                    size_t size);

/* Chunks in the job, and the done flags loaded at open (1 = finished). */
uint64_t nq_journal_chunks(const nq_journal *j);
const unsigned char *nq_journal_done(const nq_journal *j);
/* Sum of the counts and units of the chunks loaded at open. */
nq_counts nq_journal_resumed_counts(const nq_journal *j);
uint64_t nq_journal_resumed_units(const nq_journal *j);
/* 1 when the journal already holds a completed run; its final counts then
 * equal nq_journal_resumed_counts(). */
int nq_journal_is_complete(const nq_journal *j);

/* Records that `chunk` finished with `counts`.  Thread-safe; buffers. */
int nq_journal_record(nq_journal *j, uint64_t chunk, const nq_counts *counts);
/* Records that `chunk` was counted twice with the same `counts`
 * (settings.verify): a CHNK record with the verified flag, which also
 * finishes the chunk when it was not recorded before.  Once per chunk;
 * thread-safe; buffers. */
int nq_journal_record_verified(nq_journal *j, uint64_t chunk, const nq_counts *counts);
/* Flags of the chunks recorded as verified when the journal was opened. */
const unsigned char *nq_journal_verified(const nq_journal *j);
/* The counts of chunk `chunk`, which nq_journal_done() flags as loaded. */
nq_counts nq_journal_chunk_counts(const nq_journal *j, uint64_t chunk);

/* Writes buffered records; with sync != 0 also fsyncs.  Returns 0 or NQ_EIO. */
int nq_journal_flush(nq_journal *j, int sync);
/* Marks the run complete (after every chunk is recorded), flushes, fsyncs. */
int nq_journal_finish(nq_journal *j);
/* Flushes and closes; accepts NULL. */
void nq_journal_close(nq_journal **j);

/* After nq_journal_flush/finish returned NQ_EIO: one line naming the file
 * and the failed operation; "" otherwise.  Never NULL. */
const char *nq_journal_last_error(const nq_journal *j);

/* Reads the header of an existing journal without changing anything (how
 * the plan learns what a resumed run must plan).
 * Returns 1 and fills the fields (any pointer may be NULL) when path holds
 * a header with a valid checksum; 0 otherwise (missing, unreadable, not a
 * journal: nq_journal_open() then says why). */
int nq_journal_peek(const char *path, int *n, enum nq_engine *engine, int *split_depth);

#endif /* NQ_JOURNAL_H */
