/*
 * half.c - a unit's half-boards: a thread's scratch laid out, the slices
 * of one side prepared, and the pairing of a north and a south placement
 * over complementary column sets into the signatures the join takes.
 *
 * Rows and columns of a half-board are right by construction (each quarter
 * placement holds its own rows, the two take complementary column sets),
 * so only diagonals are tested: the conflict word of each placement holds
 * both diagonal families in the north quarter's frame, and one AND tests a
 * pair.  The pairing loop, the hot one, is in half_kernel.c: compiled once
 * per kernel level (core/kernel.h), picked in kernels.c.
 */
#include <string.h>

#include "engines/mitm/mitm_plan.h"

/* Bytes a half-board takes in the lists: its signature in east, west and
 * split, and its tag. */
#define LIST_BYTES_PER_HALF (3 * sizeof(uint64_t) + sizeof(uint16_t))

/* Bytes of the lists of half_cap half-boards: east, west and split with
 * their slack, and the tags (one more), rounded up to whole words. */
static size_t lists_bytes(size_t half_cap)
{
    const size_t bytes = half_cap * LIST_BYTES_PER_HALF +
                         3 * NQ_MITM_HALF_SLACK * sizeof(uint64_t) + sizeof(uint16_t);
    return (bytes + 7) & ~(size_t)7;
}

size_t nq_mitm_scratch_bytes(int h, size_t half_cap, size_t slice_cap, int shared_slices)
{
    const size_t slices = shared_slices ? NQ_QUARTERS * nq_quarter_slice_bytes(h, 0) +
                                              2 * 2 * slice_cap * sizeof(uint64_t)
                                        : NQ_QUARTERS * nq_quarter_slice_bytes(h, slice_cap);
    return NQ_QUARTERS * sizeof(nq_quarter_slice) + 64 + sizeof(nq_join_scratch) +
           2 * sizeof(nq_join_list) + 64 + slices + lists_bytes(half_cap) + 64;
}

nq_join_scratch *nq_mitm_scratch_join(const void *raw)
{
    const uintptr_t at = (uintptr_t)((const nq_quarter_slice *)raw + NQ_QUARTERS);
    return (nq_join_scratch *)((at + 63) & ~(uintptr_t)63); /* round up to 64 */
}

/* Lays the lists of half_cap half-boards out from the room's start. */
static void carve_lists(mitm_scratch *s, size_t half_cap)
{
    s->half_cap = half_cap;
    s->east = (uint64_t *)s->room;
    s->west = s->east + half_cap + NQ_MITM_HALF_SLACK;
    s->split = s->west + half_cap + NQ_MITM_HALF_SLACK;
    s->tag = (uint16_t *)(s->split + half_cap + NQ_MITM_HALF_SLACK);
}

/* The layout: the four slices' and the two lists' descriptions and the
 * join's scratch first, then the slices' group indexes, then the room.  Without shared
 * slices the room holds the four slices' placements after the lists;
 * with them, the two buffers at its end, so that what a unit's slices
 * leave of them can go to its lists (nq_mitm_fit_lists). */
mitm_scratch nq_mitm_carve_scratch(const mitm_plan *p, void *raw)
{
    mitm_scratch s;
    s.quarter = raw;
    s.js = nq_mitm_scratch_join(raw);
    s.lists = (nq_join_list *)(s.js + 1);
    char *slices = (char *)(((uintptr_t)(s.lists + 2) + 63) & ~(uintptr_t)63);
    const size_t cap = p->shared_slices ? 0 : p->slice_cap;
    const size_t bytes = nq_quarter_slice_bytes(p->h, cap);
    for (int q = 0; q < NQ_QUARTERS; q++)
        if (!s.quarter[q].first) /* still zero: the thread's first unit of the run */
            nq_quarter_slice_init(&s.quarter[q], p->h, cap, slices + (size_t)q * bytes);
    s.room = (char *)(((uintptr_t)(slices + NQ_QUARTERS * bytes) + 63) & ~(uintptr_t)63);
    s.room_end = s.room + lists_bytes(p->half_cap) +
                 (p->shared_slices ? 2 * 2 * p->slice_cap * sizeof(uint64_t) : 0);
    uint64_t *shared = (uint64_t *)s.room_end - (p->shared_slices ? 4 * p->slice_cap : 0);
    for (int half = 0; half < 2; half++) {
        s.half_cw[half] = p->shared_slices ? shared + 2 * half * p->slice_cap : NULL;
        s.half_sig[half] = p->shared_slices ? s.half_cw[half] + p->slice_cap : NULL;
    }
    carve_lists(&s, p->half_cap);
    return s;
}

/* The frame of the quarter with origin (r0, c0), r0 = 0 (north) or N - h
 * (south), for pre-placed queens on the global diagonals p1, p2.
 *
 * Global diagonals: a queen at board (r, c) is on sum diagonal r + c and
 * difference diagonal r - c + N - 1.  A quarter at origin (r0, c0) holds
 * local masks (bit i + j, bit i - j + h - 1), so its global masks are the
 * local ones shifted by r0 + c0 and r0 - c0 + N - h (never negative as
 * c0 <= N - h).  Shared diagonals (those with squares in both halves) are
 * sum diagonals N-h .. N+h-2 and difference diagonals N-h .. N+h-2; the
 * signature holds them as bits 0 .. 2h-2 and 2h-1 .. 4h-3.  A south
 * quarter's conflict words move into the north frame, N - h rows up. */
static nq_quarter_frame quarter_frame(const mitm_plan *p, int r0, int c0, uint64_t p1,
                                      uint64_t p2)
{
    const int n = p->n, h = p->h;
    return (nq_quarter_frame){r0 + c0, r0 - c0 + n - h, r0, n - h, 2 * h - 1, p1, p2};
}

/* Makes the slices of one side (columns from c0) hold its quarters'
 * placements on rows_n and rows_s that miss p1 and p2. */
void nq_mitm_prepare_side(const mitm_plan *p, const mitm_scratch *s, int west, uint32_t rows_n,
                          uint32_t rows_s, uint64_t p1, uint64_t p2)
{
    const nq_quarter_store *store = p->use_store ? &p->qs : NULL;
    const int c0 = west ? 0 : p->n - p->h;
    const nq_quarter_frame fn = quarter_frame(p, 0, c0, p1, p2);
    const nq_quarter_frame fs = quarter_frame(p, p->n - p->h, c0, p1, p2);
    nq_quarter_slice *north = &s->quarter[west ? NQ_NW : NQ_NE];
    nq_quarter_slice *south = &s->quarter[west ? NQ_SW : NQ_SE];
    if (p->shared_slices) {
        /* A unit's slices that nq_mitm_fit_lists moved lie where the
         * last unit's lists may have been written since, and where this
         * unit's slices may be written anew: none can be kept.  (When it
         * moved none, the west slice of the north half is where it was.) */
        if (west && s->quarter[NQ_NW].cw != s->half_cw[0])
            for (int q = 0; q < NQ_QUARTERS; q++)
                s->quarter[q].filled = 0;
        /* The west slice at the start of its half's buffer, the east one
         * after it: together they never hold more than slice_cap. */
        const size_t at_n = west ? 0 : s->quarter[NQ_NW].used;
        const size_t at_s = west ? 0 : s->quarter[NQ_SW].used;
        nq_quarter_slice_move(north, s->half_cw[0] + at_n, s->half_sig[0] + at_n,
                              p->slice_cap - at_n);
        nq_quarter_slice_move(south, s->half_cw[1] + at_s, s->half_sig[1] + at_s,
                              p->slice_cap - at_s);
    }
    nq_quarter_slice_fill(north, store, p->h, rows_n, &fn);
    nq_quarter_slice_fill(south, store, p->h, rows_s, &fs);
}

void nq_mitm_fit_lists(const mitm_plan *p, mitm_scratch *s)
{
    if (p->half_cap_max <= p->half_cap) /* above it only with shared slices */
        return; /* the lists cannot grow: the slices stay for the next unit */
    nq_quarter_slice *q = s->quarter;
    const size_t used[2] = {q[NQ_NW].used + q[NQ_NE].used, q[NQ_SW].used + q[NQ_SE].used};
    /* The four arrays, top first, each to just below the one before it:
     * every one moves up (used <= slice_cap) and lands above the arrays
     * still to move, so no move overwrites placements not yet moved. */
    uint64_t *at = (uint64_t *)s->room_end;
    uint64_t *cw[2], *sig[2];
    for (int half = 1; half >= 0; half--) {
        at -= used[half];
        sig[half] = memmove(at, s->half_sig[half], used[half] * sizeof(uint64_t));
        at -= used[half];
        cw[half] = memmove(at, s->half_cw[half], used[half] * sizeof(uint64_t));
    }
    for (int half = 0; half < 2; half++) {
        nq_quarter_slice *west = &q[half ? NQ_SW : NQ_NW], *east = &q[half ? NQ_SE : NQ_NE];
        nq_quarter_slice_relocate(west, cw[half], sig[half]);
        nq_quarter_slice_relocate(east, cw[half] + west->used, sig[half] + west->used);
    }
    /* The lists take the room up to the slices, each a whole number of
     * cache lines long (cap a multiple of 64, so the next starts aligned). */
    const size_t fixed = lists_bytes(0) + 64;
    const size_t room = (size_t)((char *)at - s->room);
    size_t cap = room > fixed ? (room - fixed) / LIST_BYTES_PER_HALF & ~(size_t)63 : 0;
    if (cap > p->half_cap_max)
        cap = p->half_cap_max;
    if (cap < p->half_cap)
        cap = p->half_cap;
    carve_lists(s, cap);
}

void nq_mitm_half_start(half_iter *it, const nq_quarter_slice *north,
                        const nq_quarter_slice *south, uint32_t avail, uint64_t avoid)
{
    it->north = north;
    it->south = south;
    it->avail = avail;
    it->avoid = avoid;
    it->k = __builtin_popcount(north->rows);
    it->cols = (UINT32_C(1) << it->k) - 1;
    it->next_i = 0;
    it->done = 0;
    it->ranked = it->rank_reversed = 0;
    it->floor = 0;
}
