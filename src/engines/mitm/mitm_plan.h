/*
 * mitm_plan.h - what the files of the meet-in-the-middle engine share: a
 * job's plan (its unit list and list sizes), a thread's scratch, and the
 * half-board walk.
 *
 * The engine is three files around this header: units.c plans the unit
 * list (which E are solved, with which weight, in which order, under which
 * identity, and what each costs), half.c builds a unit's half-boards from
 * its quarter slices, and mitm.c solves a unit by joining them (join.h).
 */
#ifndef NQ_MITM_PLAN_H
#define NQ_MITM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "engines/engines.h"
#include "engines/mitm/half_kernels.h"
#include "engines/mitm/join.h"
#include "engines/mitm/mitm.h"
#include "engines/mitm/quarter_slice.h"
#include "engines/mitm/quarter_store.h"

/* Half-boards a batch holds at least, per list, by default: 256 MiB.
 * Units with more (the boards without a store) are joined in batches
 * (mitm.c).  Longer batches pay: at the widest key each key's bucket is
 * longer, so a join block holds fewer keys and its runs let fewer lanes go
 * to waste, and fewer east batches build the west halves again.  Twice
 * this for every unit would take nq_mitm_memory_estimate() at N = 28 past
 * 4 GiB on 2 threads (docs/performance.md, "mitm's batches"), so the
 * plan's lists are this long, longer only where nq_settings.memory allows;
 * but a unit's lists also take what its walked slices leave of their
 * buffers at N = 28 (nq_mitm_fit_lists), 1.4 to 2.1 times this. */
#define NQ_MITM_HALF_LIMIT ((size_t)1 << 25)
/* The range a memory budget chooses from (nq_mitm_half_limit): below the
 * shortest, batches rebuild the west halves too often to be worth it;
 * twice the longest left N = 28's units as they were. */
#define NQ_MITM_HALF_LIMIT_MIN ((size_t)1 << 22)
#define NQ_MITM_HALF_LIMIT_MAX ((size_t)1 << 27)

typedef struct mitm_plan {
    int n, h;
    int tiny;            /* N < NQ_MITM_MIN_N: one unit, trivial search */
    int sig_bits;        /* 4h - 2: shared sum and difference diagonals */
    int use_store;       /* slices come from qs, else from walks */
    size_t key_min;      /* shortest west list joined with key bits */
    int key_bits;        /* 0, or the key bits of every keyed join (the tuning's) */
    enum nq_join_kernel join_kernel; /* the joins' inner loops (the tuning's) */
    int model_costs;     /* even N: the estimate hook prices by model half-boards */
    nq_quarter_store qs;
    uint32_t *canon;     /* E up to the reflections, with their weights */
    uint8_t *canon_weight;
    uint64_t ncanon;
    /* With a store: the half-board bound of every side (units.c,
     * side_bounds), for the list size and the estimate hook, else NULL. */
    struct side_bounds *sides;
    /* Odd N, a != 0: every E as an (h-1)-subset of the 2h - 1 rows left,
     * numbered without the row of the middle column's queen. */
    uint32_t *all_e;
    uint64_t nall;
    uint64_t nb;         /* odd N: values of b (2 .. h), each a block of nall units */
    size_t half_cap;     /* half-boards a list holds (a batch, when a side has more) */
    size_t half_cap_max; /* what a unit's lists may grow to (nq_mitm_fit_lists) */
    size_t slice_cap;    /* placements a slice holds: the most of any row set, or with
                          * shared slices, the most a west and east pair hold */
    int shared_slices;   /* a unit's west and east slices of one half share a buffer */
    uint64_t stride;     /* 0, or unit u stands for entry u * stride mod units */
    size_t scratch_bytes;
    /* Units report how far they are (mitm.c, unit_join): the boards
     * without a store, whose units take from tenths of a second to many
     * minutes; on smaller ones the walk to measure it would cost more
     * than it tells. */
    int progress;
} mitm_plan;

/* The four quarters, by where their slices sit in the scratch. */
enum { NQ_NW, NQ_NE, NQ_SW, NQ_SE, NQ_QUARTERS };

/* Slots past the end of a half-board list that the pairing may write: it
 * stores whole vectors of eight signatures, unmasked, and only the ones
 * it counts are kept (the next vector's store starts where they end). */
#define NQ_MITM_HALF_SLACK 8

/* Per-thread scratch, carved from the pool's buffer.  The buffer is zeroed
 * when a run starts and stays the thread's own through the run, so the
 * slices it holds (their descriptions at its start) carry over from one
 * unit to the next. */
typedef struct mitm_scratch {
    nq_quarter_slice *quarter; /* NQ_QUARTERS slices, by the enum above */
    nq_join_scratch *js;
    nq_join_list *lists;       /* two sorted lists' descriptions (mitm.c, flush_east) */
    size_t half_cap;           /* the unit's: plan's, or more (nq_mitm_fit_lists) */
    uint64_t *east, *west;     /* half_cap + NQ_MITM_HALF_SLACK signatures each */
    uint64_t *split;           /* as many more: where lists are sorted to */
    uint16_t *tag;             /* half_cap + 1 bucket tags: the sort's working space */
    /* With shared slices: the buffers of the north and the south half
     * (slice_cap placements each), the west slice first, at the end of
     * the room [room, room_end) that the lists share with them. */
    uint64_t *half_cw[2], *half_sig[2];
    char *room, *room_end;
} mitm_scratch;

/* Next larger integer with the same number of set bits (Gosper's hack):
 * move the lowest block of ones' top bit up one, the rest to the bottom.
 * x != 0, below 2^30.  The block's bits that move down are x ^ ripple
 * (one more than the block, at its place), so shifting them down by the
 * block's lowest bit and two more leaves the rest at the bottom: the
 * hack's division by the lowest bit, which is a shift (the walks of the
 * half-boards take a step per column set, tens of millions a second). */
static inline uint32_t nq_next_same_popcount(uint32_t x)
{
    const uint32_t ripple = x + (x & (0u - x)); /* x & -x: the lowest set bit */
    return ripple | ((x ^ ripple) >> (__builtin_ctz(x) + 2));
}

/* The last k-subset of h bits in nq_next_same_popcount's order, where a
 * walk from the first, (1 << k) - 1, ends: the top k bits (0 when k = 0,
 * the walk's only subset). */
static inline uint32_t nq_last_same_popcount(int k, int h)
{
    return ((UINT32_C(1) << k) - 1) << (h - k);
}

/* --- half.c: a thread's scratch and the half-boards of one side --- */

/* Bytes of scratch for the given caps, including alignment slack: four
 * slices of slice_cap placements, or with shared_slices two buffers of
 * slice_cap (mitm_plan). */
size_t nq_mitm_scratch_bytes(int h, size_t half_cap, size_t slice_cap, int shared_slices);

/* The scratch laid out in the pool's buffer raw (plan p's scratch_bytes);
 * slices still zero (a thread's first unit of a run) are set up empty. */
mitm_scratch nq_mitm_carve_scratch(const mitm_plan *p, void *raw);

/* Where the join's scratch sits in the buffer raw, as carved; touches
 * nothing, so another thread may ask while the owner solves. */
nq_join_scratch *nq_mitm_scratch_join(const void *raw);

/* Makes the slices of one side (the west one when west, columns from 0,
 * else the east one) hold its quarters' placements on rows_n and rows_s
 * that miss the pre-placed diagonals p1 and p2.  With shared slices a unit
 * prepares its west side first: the east slices start where it ends. */
void nq_mitm_prepare_side(const mitm_plan *p, const mitm_scratch *s, int west, uint32_t rows_n,
                          uint32_t rows_s, uint64_t p1, uint64_t p2);

/* Once both sides are prepared: where the lists may grow (half_cap_max
 * above half_cap, which only shared slices have), packs the unit's slices
 * at the end of the room and gives its lists the rest (half_cap, east,
 * west, split and tag of *s), at least the plan's half_cap and at most
 * half_cap_max; elsewhere the lists keep the plan's size. */
void nq_mitm_fit_lists(const mitm_plan *p, mitm_scratch *s);

/* Walks the half-boards of one side in batches (see nq_mitm_half_next). */
typedef struct half_iter {
    const nq_quarter_slice *north, *south; /* the side's two quarters on its rows */
    uint32_t avail;          /* columns of the side that are free */
    uint64_t avoid;          /* signature bits no placement of the side may have */
    /* Even N (ranked): the walk keeps the north column sets whose rank
     * (of the set reversed, on the east side: rank_reversed) is at least
     * floor, and marks the halves of those at floor with NQ_MITM_TIE_BIT
     * (nq_mitm_cols_kept; mitm.c, rank_weight). */
    int ranked, rank_reversed;
    uint32_t floor;
    int k;                   /* queens in the north quarter */
    uint32_t cols;           /* current north column set */
    uint32_t next_i;         /* north placement to resume at */
    int done;
} half_iter;

/* Even N: the bit, above every signature bit, that marks a half-board
 * whose north column set ranks at the unit's floor (mitm.c, rank_weight);
 * the join's sort takes it as its class bit and cuts it out. */
#define NQ_MITM_TIE_BIT (UINT64_C(1) << 63)

/* The rank of a set x of h bits up to complement: the smaller of x and
 * its complement, as numbers (mitm.c, rank_weight). */
static inline uint32_t nq_mitm_set_rank(uint32_t x, int h)
{
    const uint32_t c = x ^ ((UINT32_C(1) << h) - 1); /* XOR with h ones: the complement */
    return x < c ? x : c;
}

/* Even N: the rank of unit E (bits as nq_mitm_unit.east), the smaller of
 * its north rows' rank and its south rows' reversed (mitm.c, rank_weight). */
static inline uint32_t nq_mitm_unit_floor(uint32_t east, int h)
{
    const uint32_t hm = (UINT32_C(1) << h) - 1;
    const uint32_t north = nq_mitm_set_rank(east & hm, h);
    const uint32_t south = nq_mitm_set_rank(nq_mirror_rows(east >> h, h), h);
    return north < south ? north : south;
}

/* Whether the walk it keeps north column set cols: -1 no, 0 yes, 1 yes
 * and at the floor (its half-boards carry NQ_MITM_TIE_BIT). */
static inline int nq_mitm_cols_kept(const half_iter *it, uint32_t cols, int h)
{
    if (!it->ranked)
        return 0;
    const uint32_t set = it->rank_reversed ? nq_mirror_rows(cols, h) : cols;
    const uint32_t r = nq_mitm_set_rank(set, h);
    return r < it->floor ? -1 : r == it->floor;
}

/* Starts the walk of the half-boards of the slices north and south over
 * the columns avail, skipping placements with a signature bit of avoid. */
void nq_mitm_half_start(half_iter *it, const nq_quarter_slice *north,
                        const nq_quarter_slice *south, uint32_t avail, uint64_t avoid);

/*
 * Writes the signatures (ORed with sig_or) of the side's next half-boards
 * to out[] (cap + NQ_MITM_HALF_SLACK slots, cap >= the largest group of a
 * slice) and returns how many; fewer than all only when out is full, and
 * then it->done stays 0 and the next call resumes.  A half-board is a placement of the north
 * slice and one of the south slice over complementary subsets of `avail`,
 * not attacking each other, neither having a signature bit of `avoid`.
 */
size_t nq_mitm_half_next(const mitm_plan *p, half_iter *it, uint64_t sig_or, uint64_t *out,
                         size_t cap);

/* --- units.c: the unit list --- */

/* Decodes unit u of plan p into configuration, E and weight. */
void nq_mitm_decode_unit(const mitm_plan *p, uint64_t u, nq_mitm_unit *d);

/* The engine hooks units.c implements (core/engine.h). */
int nq_mitm_plan_job(nq_job *job, int split_depth);
/* The most half-boards a batch holds for board n planned for `threads`
 * threads of this process within `memory` bytes (nq_settings.memory):
 * NQ_MITM_HALF_LIMIT for memory 0 and for boards with a store, else the
 * longest of the powers of two from NQ_MITM_HALF_LIMIT_MIN to _MAX whose
 * estimate fits, or the shortest when none does. */
size_t nq_mitm_half_limit(int n, int threads, uint64_t memory);
size_t nq_mitm_scratch_size(const nq_job *job);
void nq_mitm_release(nq_job *job);
int nq_mitm_estimate(const nq_job *job, double *costs);

#endif /* NQ_MITM_PLAN_H */
