/*
 * verify.h - checked results (nq_settings.verify): which chunks of a run
 * are counted a second time, and the comparison of their two counts.
 *
 * A silent error (a flipped bit in a node's memory, a miscompiled kernel
 * on one machine) turns a count into a wrong number without any sign.
 * Counting a sample of the chunks twice, the second time by another solver
 * (another thread, or under MPI another rank), bounds how often that can
 * pass unseen.  The sample is a hash of the chunk index seeded with the
 * job's identity: the same chunks whatever the thread or rank count, and
 * the same when a run resumes.  A sampled chunk is finished (in the
 * ledger and the journal, flagged as checked) only when its two counts
 * agree: a chunk whose counts differ is left out, so a rerun counts it
 * twice afresh.  A resumed run counts again the sampled chunks that the
 * journal holds unchecked (a run without the check wrote them) and
 * compares with the journal's count.
 *
 * Solvers are plain integers here (a thread number, or a rank); the
 * caller says which word the message uses for them.  All calls are
 * thread-safe: one mutex, taken only for sampled chunks.
 */
#ifndef NQ_RUN_VERIFY_H
#define NQ_RUN_VERIFY_H

#include "core/engine.h"
#include "journal/journal.h"

typedef struct nq_verify nq_verify;

/* Picks the sample: about fraction (0 < fraction <= 1) of `chunks`, never
 * none, by a hash seeded with `seed`.  With a journal (may be NULL), its
 * sampled chunks that are finished but unchecked wait for their second
 * count (nq_verify_pending), compared with the journal's count.  Returns
 * 0 or NQ_ENOMEM. */
int nq_verify_create(nq_verify **out, double fraction, uint64_t seed, uint64_t chunks,
                     nq_journal *journal);

/* Frees; accepts NULL. */
void nq_verify_free(nq_verify **v);

/* 1 when chunk c is in the sample. */
int nq_verify_sampled(const nq_verify *v, uint64_t c);

/* Chunks in the sample. */
uint64_t nq_verify_sample_size(const nq_verify *v);

/* The first count of sampled chunk c, by `solver`: kept for the
 * comparison.  A later first count of the same chunk by the same solver
 * (a chunk handed out again) is ignored; one by another solver is taken as
 * the second count, and what nq_verify_second() returns is returned.
 * Returns 0 otherwise. */
int nq_verify_first(nq_verify *v, uint64_t c, const nq_counts *counts, int solver);

/* 1 when sampled chunk c has a first count (from this run or the
 * journal) and waits for its second. */
int nq_verify_pending(nq_verify *v, uint64_t c);

/* The solver of chunk c's first count, or -1 when it came from the
 * journal (any solver may count it again). */
int nq_verify_first_solver(nq_verify *v, uint64_t c);

/* The second count of chunk c, by `solver`: compared with the first.
 * When they agree the chunk is checked: returns 1, and the caller records
 * it (nq_ledger_finish_checked).  When they differ the first disagreement
 * is kept for nq_verify_failure() and NQ_EVERIFY returned.  Returns 0 when
 * the chunk was not waiting for a second count. */
int nq_verify_second(nq_verify *v, uint64_t c, const nq_counts *counts, int solver);

/* Chunks checked: both counts agreed, in this run or an earlier one. */
uint64_t nq_verify_checked(nq_verify *v);

/* Returns NQ_EVERIFY after any disagreement, writing one line to detail
 * (size bytes) naming the chunk, both solvers (as "<word> <number>", or
 * "the journal") and both counts; 0 otherwise. */
int nq_verify_failure(nq_verify *v, const char *word, char *detail, size_t size);

#endif /* NQ_RUN_VERIFY_H */
