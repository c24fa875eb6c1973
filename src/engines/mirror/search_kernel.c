/*
 * search_kernel.c - the mirror engine's kernel source: a unit's search,
 * compiled once per kernel level (see core/kernel.h), so each copy gets the
 * finishers its instruction sets allow (core/search.h) inlined whole.
 */
#include "core/search.h"
#include "engines/mirror/kernels.h"

uint64_t NQ_KERNEL_FN(nq_mirror_count)(int rows_left, uint32_t blocked_cols, uint32_t diag_left,
                                        uint32_t diag_right)
{
    return nq_search_count(rows_left, blocked_cols, diag_left, diag_right);
}
