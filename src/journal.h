/*
 * journal.h - the crash-safe checkpoint journal (contract; implemented in
 * journal.c).
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

#include "job.h"

typedef struct nq_journal nq_journal;

/* Units per journal chunk for a job: a function of the job alone (never of
 * threads or ranks), so a run can resume with other thread or rank counts. */
uint64_t nq_journal_chunk_units(const nq_job *job);

/*
 * Opens `path` for `job`, creating it (header written and fsynced) when it
 * does not exist.  An existing journal must match the job exactly.
 * Returns 0, NQ_EIO (unwritable path, a directory...), NQ_EJOURNAL_MISMATCH
 * or NQ_EJOURNAL_CORRUPT; on error the file is left byte-for-byte unchanged.
 */
int nq_journal_open(nq_journal **out, const char *path, const nq_job *job,
                    void (*notice)(const char *message, void *user), void *user);

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
/* Writes buffered records; with sync != 0 also fsyncs.  Returns 0 or NQ_EIO. */
int nq_journal_flush(nq_journal *j, int sync);
/* Marks the run complete (after every chunk is recorded), flushes, fsyncs. */
int nq_journal_finish(nq_journal *j);
/* Flushes and closes; accepts NULL. */
void nq_journal_close(nq_journal **j);

#endif /* NQ_JOURNAL_H */
