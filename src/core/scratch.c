/*
 * scratch.c - a solver's zeroed working memory (see scratch.h).
 *
 * glibc's calloc takes blocks above its mmap threshold straight from the
 * system (zero pages, each cleared by the kernel when first touched), but
 * that threshold rises to the size of any such block freed, so a second
 * solver's scratch of the same size comes from the heap and is cleared
 * whole, used or not.  Mapping large scratches here keeps every one of
 * them lazy.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */

#include <stdlib.h>
#include <sys/mman.h>

#include "core/scratch.h"

/* From this size on a scratch is mapped: a few pages' system calls are
 * nothing next to what a solver with that much scratch does. */
#define NQ_SCRATCH_MAP_MIN ((size_t)1 << 20)

void *nq_scratch_alloc(size_t bytes)
{
    if (bytes < NQ_SCRATCH_MAP_MIN)
        return calloc(1, bytes);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    /* mitm's lists, their sort buckets and the join's tables span
     * hundreds of MiB touched all over: 2 MiB pages take a 512th of the
     * TLB entries and first-touch faults of 4 KiB ones
     * (docs/performance.md, "Huge pages").  Where transparent huge pages
     * are given only on request (mode `madvise`) this is the request; in
     * mode `always` it changes nothing, and in `never` none is given. */
    if (bytes >= NQ_SCRATCH_HUGE_MIN)
        (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

void nq_scratch_free(void *scratch, size_t bytes)
{
    if (!scratch)
        return;
    if (bytes < NQ_SCRATCH_MAP_MIN)
        free(scratch);
    else
        munmap(scratch, bytes);
}
