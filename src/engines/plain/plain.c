/*
 * plain.c - the textbook recursive bitmask counter.
 *
 * No symmetry, no subproblems, one thread: the reference every faster
 * engine is checked against, and the baseline of the speed ratios.  It is
 * kept deliberately simple so that it is obviously right.
 */
#include "core/search.h"
#include "engines/engines.h"

/* Solutions below a board whose taken columns are `cols`; complete when
 * every column of `mask` is taken. */
static uint64_t plain_count(uint32_t mask, uint32_t cols, uint32_t diag_left,
                            uint32_t diag_right)
{
    if (cols == mask)
        return 1;
    uint64_t count = 0;
    uint32_t free_sq = mask & ~(cols | diag_left | diag_right);
    while (free_sq) {
        uint32_t bit = free_sq & (0u - free_sq); /* lowest free square */
        free_sq ^= bit;
        count += plain_count(mask, cols | bit, (diag_left | bit) << 1,
                             (diag_right | bit) >> 1);
    }
    return count;
}

static int plain_plan(nq_job *job, int split_depth)
{
    (void)split_depth;
    job->units = 1;
    job->split_depth = 0;
    job->threads = 1;
    job->identity = nq_hash_bytes(NQ_HASH_SEED, "plain", 5);
    job->identity = nq_hash_bytes(job->identity, &job->n, sizeof job->n);
    return 0;
}

static void plain_solve(const nq_job *job, uint64_t unit, nq_counts *out, void *scratch)
{
    (void)unit;
    (void)scratch;
    out->total = plain_count(nq_board_mask(job->n), 0, 0, 0);
    out->unique = 0;
}

const struct nq_engine_ops nq_engine_plain = {
    .id = NQ_ENGINE_PLAIN,
    .name = "plain",
    .plan = plain_plan,
    .solve = plain_solve,
};
