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
 * of it whenever the allocator reuses freed memory.  The largest ask
 * for huge pages where the system grants them on request (see scratch.c).
 * Give it back with nq_scratch_free and the same size. */
void *nq_scratch_alloc(size_t bytes);

/* Frees what nq_scratch_alloc(bytes) returned (NULL does nothing). */
void nq_scratch_free(void *scratch, size_t bytes);

#endif
