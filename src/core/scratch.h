/*
 * scratch.h - a solver's working memory: zeroed, as the engine contract
 * promises at the start of a run, and paid for only where it is used.
 */
#ifndef NQ_CORE_SCRATCH_H
#define NQ_CORE_SCRATCH_H

#include <stddef.h>

/* bytes of zeroed memory (bytes > 0), or NULL when there is none.  Large
 * blocks are mapped fresh from the system, so pages the engine never
 * touches cost nothing: a mitm scratch holds tables for the widest keys
 * (tens of MiB) that small boards never reach, and calloc would clear all
 * of it whenever the allocator reuses freed memory.  From
 * NQ_SCRATCH_HUGE_MIN bytes on it asks for huge pages (see scratch.c).
 * Give it back with nq_scratch_free and the same size. */
void *nq_scratch_alloc(size_t bytes);

/* From this size on a scratch asks for huge pages: mitm's from N = 24 on
 * (0.86 GiB and more a thread), where they were measured to pay.  Below
 * it (tens of MiB up to N = 23) they showed no gain, and a sparse scratch
 * would be made resident 2 MiB at a time. */
#define NQ_SCRATCH_HUGE_MIN ((size_t)256 << 20)

/* Frees what nq_scratch_alloc(bytes) returned (NULL does nothing). */
void nq_scratch_free(void *scratch, size_t bytes);

#endif
