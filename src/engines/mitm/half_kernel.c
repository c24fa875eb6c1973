/*
 * half_kernel.c - a kernel source of the mitm engine: the walk that pairs
 * a north and a south placement over complementary column sets into a
 * unit's half-boards (see half.c), with its hot loop, pair_group.
 * Compiled once per kernel level (core/kernel.h; kernels.c picks the copy
 * for each batch of half-boards), so the AVX-512 copy runs the pairing of
 * x86/half_avx512.h (chosen in half_kernels.h) inlined whole.
 */
#include "engines/mitm/kernels.h"
#include "engines/mitm/mitm_plan.h"

/*
 * Hot loop: pairs one placement, with conflict word cw and signature sig,
 * with each of the ns placements of a group of the other quarter, writing
 * sig | group_sig[j] to out for each j whose conflict word misses cw and
 * whose signature misses `avoid`, packed; returns how many.  Rows and
 * columns are disjoint by construction, so one AND tests both diagonal
 * families; the test is symmetric, so either quarter may be the group.
 * out needs ns + NQ_MITM_HALF_SLACK slots: past the pairs it keeps, it
 * may write up to a vector's worth.
 */
static inline size_t pair_group(uint64_t cw, uint64_t sig, const uint64_t *group_cw,
                                const uint64_t *group_sig, size_t ns, uint64_t avoid,
                                uint64_t *out)
{
#ifdef NQ_HALF_AVX512
    return nq_pair_group_avx512(cw, sig, group_cw, group_sig, ns, avoid, out);
#else
    size_t count = 0;
    /* Branch-free: always write, advance only when compatible. */
    for (size_t j = 0; j < ns; j++) {
        out[count] = sig | group_sig[j];
        count += ((cw & group_cw[j]) | (avoid & group_sig[j])) == 0;
    }
    return count;
#endif
}

/*
 * Writes the signatures (ORed with sig_or) of the side's next half-boards
 * to out[] (cap + NQ_MITM_HALF_SLACK slots, cap >= the largest group of a
 * slice) and returns how many; fewer than all only when out is full, and
 * then it->done stays 0 and the next call resumes.  A half-board is a placement of the north
 * slice and one of the south slice over complementary subsets of `avail`,
 * not attacking each other, neither having a signature bit of `avoid`.
 * The slices hold only placements that miss the queens placed beforehand
 * (quarter_slice.h); `avoid` holds the diagonals of one more such queen
 * when a side is built for several of them (see mitm_solve).
 */
size_t NQ_KERNEL_FN(nq_mitm_half_next)(const mitm_plan *p, half_iter *it, uint64_t sig_or,
                                       uint64_t *out, size_t cap)
{
    if (it->done)
        return 0;
    /* The walk's state in locals, stored back when it returns. */
    const uint32_t *north_size = it->north->size, *north_first = it->north->first;
    const uint32_t *south_size = it->south->size, *south_first = it->south->first;
    const uint64_t *north_cw = it->north->cw, *north_sig = it->north->sig;
    const uint64_t *south_cw = it->south->cw, *south_sig = it->south->sig;
    const uint64_t avoid = it->avoid;
    const uint32_t avail = it->avail, last = nq_last_same_popcount(it->k, p->h);
    uint32_t cols = it->cols;
    size_t next_i = it->next_i, count = 0;
    for (;; cols = nq_next_same_popcount(cols), next_i = 0) {
        /* A set with a column a pre-placed queen holds has no half-board. */
        const uint32_t south_cols = avail & ~cols;
        const int kept = nq_mitm_cols_kept(it, cols, p->h);
        const size_t ns = cols & ~avail || kept < 0 ? 0 : south_size[south_cols];
        const uint64_t set_or = kept > 0 ? sig_or | NQ_MITM_TIE_BIT : sig_or;
        const size_t nn = ns ? north_size[cols] : 0;
        if (next_i < nn) {
            const uint64_t *scw = south_cw + south_first[south_cols];
            const uint64_t *ssig = south_sig + south_first[south_cols];
            const uint64_t *ncw = north_cw + north_first[cols];
            const uint64_t *nsig = north_sig + north_first[cols];
            if (next_i == 0 && ns < nn && nn * ns <= cap - count) {
                /* Few south placements, many north ones, all pairs fit: the
                 * pairing is symmetric, so loop over the south group outside
                 * and fill whole vectors with north placements inside. */
                for (size_t j = 0; j < ns; j++)
                    if (!(ssig[j] & avoid))
                        count += pair_group(scw[j], ssig[j] | set_or, ncw, nsig, nn, avoid,
                                            out + count);
            } else {
                /* The north placements whose pairs surely fit: at most ns
                 * each (all of them, the usual case, without a division). */
                const size_t room = cap - count;
                const size_t end = (nn - next_i) * ns <= room ? nn : next_i + room / ns;
                for (size_t i = next_i; i < end; i++)
                    if (!(nsig[i] & avoid))
                        count += pair_group(ncw[i], nsig[i] | set_or, scw, ssig, ns, avoid,
                                            out + count);
                if (end < nn) { /* full: resume at the first north placement left */
                    it->cols = cols;
                    it->next_i = (uint32_t)end;
                    return count;
                }
            }
        }
        if (cols == last) {
            it->cols = cols;
            it->done = 1;
            return count;
        }
    }
}
