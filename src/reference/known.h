/*
 * known.h - published solution counts: the reference the tests and
 * nqueens-bench check every computed total against (never the library).
 *
 * A000170 (all solutions) and A002562 (solutions up to the 8 symmetries of
 * the square), from the OEIS.  The library never sees these numbers: every
 * count it reports is computed.
 */
#ifndef NQ_REFERENCE_KNOWN_H
#define NQ_REFERENCE_KNOWN_H

#include <stdint.h>

/* known_total[n] for n = 1..27; index 0 unused. */
static const uint64_t known_total[28] = {
    0,
    1, 0, 0, 2, 10, 4, 40, 92, 352, 724,
    2680, 14200, 73712, 365596, 2279184, 14772512, 95815104, 666090624,
    UINT64_C(4968057848), UINT64_C(39029188884), UINT64_C(314666222712),
    UINT64_C(2691008701644), UINT64_C(24233937684440), UINT64_C(227514171973736),
    UINT64_C(2207893435808352), UINT64_C(22317699616364044), UINT64_C(234907967154122528),
};

/* known_unique[n] for n = 1..20; index 0 unused. */
static const uint64_t known_unique[21] = {
    0,
    1, 0, 0, 1, 2, 1, 6, 12, 46, 92,
    341, 1787, 9233, 45752, 285053, 1846955, 11977939, 83263591,
    UINT64_C(621012754), UINT64_C(4878666808),
};

#define KNOWN_MAX_TOTAL_N 27
#define KNOWN_MAX_UNIQUE_N 20

#endif /* NQ_REFERENCE_KNOWN_H */
