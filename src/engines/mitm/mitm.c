/*
 * mitm.c - the meet-in-the-middle engine: counts by joining
 * quarter-board placements instead of searching the whole board.
 *
 * Let h = N / 2.  For even N the board is four h x h quarters; for odd N
 * the middle row and column are first given their queens, and the four
 * quarters around them remain.  Every solution puts, in each quarter row,
 * its queen either east or west of the middle: the set E of rows whose
 * queen stands east has one row per free east column, and it is unique, so
 * summing over E is exact.  A unit is one (odd-N configuration, E, weight).
 *
 * Odd N: the middle row's queen stands in column m + a, the middle
 * column's in row m + b.  a = b = 0 is one queen in the centre; all 2h
 * quarter rows and columns stay free.  Otherwise (a, b both non-zero) the
 * two queens also hold one quarter column (m + a) and one quarter row
 * (m + b), so 2h - 1 rows and columns remain and |E| = h - 1 when a > 0.
 *
 * Inside a unit the east half-boards are built by pairing the north-east
 * placements on rows E-north with the south-east placements on rows
 * E-south over complementary column sets (rows and columns are then right
 * by construction, only diagonals are tested), and reduced to the shared
 * diagonals they occupy: the signature.  The west half-boards are built the
 * same way on the other rows.  An east and a west half make a solution
 * exactly when their signatures are disjoint, which join.c counts.
 *
 * This file solves a unit: it gathers the halves (half.c) and joins them.
 * Which units there are, with their weights (the symmetry), is units.c's;
 * what the files share is in mitm_plan.h.
 */
#include "engines/mitm/mitm_plan.h"

/* Trivial counter for the boards below NQ_MITM_MIN_N. */
static uint64_t tiny_count(int n, int row, uint32_t cols, uint32_t d1, uint32_t d2)
{
    if (row == n)
        return 1;
    uint64_t count = 0;
    for (int c = 0; c < n; c++)
        if (!(cols >> c & 1) && !(d1 >> (row + c) & 1) && !(d2 >> (row - c + n - 1) & 1))
            count += tiny_count(n, row + 1, cols | 1u << c, d1 | 1u << (row + c),
                                d2 | 1u << (row - c + n - 1));
    return count;
}

/*
 * Even N: the diagonal reflections.  The unit list folds E by the
 * north-south and east-west reflections (units.c); the reflection s in
 * the anti-diagonal (row + column = N - 1), which with those two gives all
 * eight symmetries, folds the pairs of each unit instead.  Rank a set X of
 * a quarter's h rows or columns (bit i: its i-th) up to complement,
 * rank(X) = min(X, ~X) as h-bit numbers (nq_mitm_set_rank), and give each
 * solution x the rank of its unit, floor(x) = min(rank(P), rank(rev Q)),
 * with P and Q the north and south rows of E and rev the reversal of h
 * bits (nq_mitm_unit_floor).  The two reflections of the unit list map
 * (P, Q) to (rev Q, rev P) and to (~P, ~Q): floor is the same on each
 * orbit of units.  s maps the north-east quarter onto itself and the
 * north-west one onto the south-east: the rows east in s(x) are the
 * reversed columns of x's north-east queens (north) and of its north-west
 * queens (south), so
 *
 *     floor(s(x)) = min(a, b),  a = rank(rev C_NE)  (the east half's),
 *                               b = rank(C_NW)      (the west half's),
 *
 * C_NE and C_NW the columns those quarters use, as the walk's north column
 * sets number them.  Each solution counts
 *
 *     c(x) = 2 when floor(s(x)) > floor(x), 1 when equal, 0 when less.
 *
 * s is an involution, so c(x) + c(s(x)) = 2 and the sum of c over all
 * solutions is the total; and c is the same on x's images under the two
 * reflections (they keep floor, and commute with s up to one another), so
 * a unit's c-weighted count times its orbit size stands for its orbit, as
 * its solution count did.  Within a unit floor(x) is fixed: a half whose
 * a (or b) is below it has c = 0 with every partner and is never built
 * (its north column set decides, half_iter.floor), a pair of halves both
 * above it counts 2, and a pair with a half at it (marked by
 * NQ_MITM_TIE_BIT, the sort's one class bit) counts 1.  The kept halves
 * are about two thirds of each side and the kept pairs about half;
 * docs/engines.md has the proof at length.
 */
static const uint8_t rank_weight[NQ_JOIN_MAX_CLASSES][NQ_JOIN_MAX_CLASSES] = {
    {2, 1},
    {1, 1},
};

/* Odd N: one class, every pair counts once. */
static const uint8_t plain_weight[NQ_JOIN_MAX_CLASSES][NQ_JOIN_MAX_CLASSES] = {{1}};

/* The class bit of the sort (join.h): even N's mark of the halves at
 * the unit's floor (see rank_weight), none for odd N. */
static uint64_t class_bit(const mitm_plan *p)
{
    return p->n & 1 ? 0 : NQ_MITM_TIE_BIT;
}

/* State of one unit's join: the west halves (all of them when west_whole)
 * and the east halves gathered so far. */
typedef struct unit_join {
    const mitm_plan *p;
    const mitm_scratch *s;
    uint32_t west_n, west_s; /* west rows, north and south quarter */
    uint64_t wp1, wp2;       /* pre-placed diagonals the west must avoid */
    size_t nw, ne;
    int west_whole;
    /* West halves in batches: s->west still holds the first batch, built
     * to find out whether they fit, and west_rest resumes after it, until
     * the first join uses them (then every join walks the west anew). */
    int west_first_kept;
    half_iter west_rest;
    int keyed;               /* sorted by key bits too (long lists only) */
    int ordered;             /* *order chosen (at the first join) */
    /* How both sides are sorted for every join: not a member, so that
     * setting up a unit does not clear its 32 KiB of key table, which on
     * the small boards took longer than many a unit's pairs. */
    nq_join_order *order;
    uint64_t pairs;
    uint32_t floor;          /* even N: the unit's rank (see rank_weight) */
    /* How far the unit is (when p->progress): the pairs each side's walks
     * try in all (walk_pairs), those of the east configurations before the
     * one walked now, the share of the east halves joined so far, and the
     * walk the east halves come from now (NULL once all are in). */
    double west_pairs, east_pairs, east_before, east_joined;
    const half_iter *east_walk;
    /* The work of building and sorting halves since the last join, which
     * the next join's progress starts from (join.h, progress_prepared). */
    double prepared;
} unit_join;

/* The work of building a half and of sorting one, in the join's units of
 * estimated work (a member of a block against one query): about 2 and 7
 * to 12 ns against 3.5 to 4.3 ps on the Zen 4 VM at N = 28, batches of
 * 2^25 and 2^27.  Counting it keeps a unit's progress in step with its
 * time where a long batch is built and sorted before its join (a twentieth
 * of a unit at 2^27), which a unit timed in part would otherwise scale up
 * with its share (nqueens-bench --project-part). */
#define NQ_MITM_BUILD_WORK 500.0
#define NQ_MITM_SORT_WORK 2500.0

/* Key bits for joining lists of nw and ne halves.  Wider keys skip more
 * pairs and cut two more bits from the stored signatures (a table look-up
 * fewer where that crosses a chunk width), but cut the lists into four
 * times the runs and sort into four times the buckets, and each block
 * walks every key of the other list that might meet it, which costs more
 * than it saves where a block meets few queries.  Six bits below 2^32
 * pairs a unit, eight from there on; from 2^35 pairs, where the longer
 * list (the one cut into blocks) holds NQ_MITM_WIDEST_KEY_LIST halves or
 * more, twelve (its buckets are then long enough that a block holds few
 * keys), fourteen where the shorter one holds NQ_MITM_LONGEST_LISTS or
 * more too, and sixteen where it holds NQ_MITM_FULL_BATCHES (most of
 * N = 28's batches of 2^25; shorter lists of N = 26 and 28 took longer
 * with sixteen).  docs/performance.md, "Figures the code's choices rest
 * on", has the measurements behind the thresholds. */
#define NQ_MITM_WIDE_KEY_PAIRS (UINT64_C(1) << 32)
#define NQ_MITM_WIDEST_KEY_PAIRS (UINT64_C(1) << 35)
#define NQ_MITM_WIDEST_KEY_LIST ((size_t)3 << 18)
#define NQ_MITM_LONGEST_LISTS ((size_t)3 << 20)
#define NQ_MITM_FULL_BATCHES ((size_t)3 << 23)

static int key_width(size_t nw, size_t ne)
{
    const uint64_t pairs = (uint64_t)nw * ne;
    const size_t longer = nw > ne ? nw : ne, shorter = nw > ne ? ne : nw;
    if (pairs >= NQ_MITM_WIDEST_KEY_PAIRS && longer >= NQ_MITM_WIDEST_KEY_LIST)
        return shorter >= NQ_MITM_FULL_BATCHES    ? 16
               : shorter >= NQ_MITM_LONGEST_LISTS ? 14
                                                  : 12;
    return pairs >= NQ_MITM_WIDE_KEY_PAIRS ? 8 : 6;
}

/* The pairs of placements (north placement, south group member) the walk
 * `it` tries before where it stands, or in all when `whole`: a side's
 * work, as its halves, their sorting and their joins grow with the pairs
 * it tries (it keeps about the same share of them throughout).  A step
 * per column set, against many pairs per set in the walk itself. */
static double walk_pairs(const mitm_plan *p, const half_iter *it, int whole)
{
    const uint32_t last = nq_last_same_popcount(it->k, p->h);
    double pairs = 0;
    for (uint32_t cols = (UINT32_C(1) << it->k) - 1;; cols = nq_next_same_popcount(cols)) {
        const uint32_t south_cols = it->avail & ~cols;
        const double ns = cols & ~it->avail || nq_mitm_cols_kept(it, cols, p->h) < 0
                              ? 0
                              : (double)it->south->size[south_cols];
        if (!whole && !it->done && cols == it->cols)
            return pairs + ns * it->next_i; /* the north placements before next_i are paired */
        pairs += ns * it->north->size[cols];
        if (cols == last)
            return pairs;
    }
}

/* done over all, 1 when all is 0. */
static double share(double done, double all)
{
    return all > 0 ? done / all : 1;
}

/* Before the join of an east batch holding the share e0 .. e1 of the east
 * halves with a west batch holding w0 .. w1 of the west ones: the join
 * moves the unit's progress across that rectangle of its pairs (the
 * rectangles before it are joined: each east batch meets every west
 * batch in turn).  Nothing where units do not report progress. */
static void join_span(const unit_join *u, double e0, double e1, double w0, double w1)
{
    if (!u->p->progress)
        return;
    nq_join_scratch *js = u->s->js;
    js->progress_base = 0x1p32 * (e0 + (e1 - e0) * w0);
    js->progress_span = 0x1p32 * (e1 - e0) * (w1 - w0);
}

/* Right before a join: the building and sorting since the last one start
 * its progress (nothing where units do not report progress). */
static void begin_join(unit_join *u)
{
    u->s->js->progress_prepared = u->prepared;
    u->prepared = 0;
}

/* Adds the work of building (`built`) and sorting (`sorted`) halves to
 * what the next join's progress starts from. */
static void prepare(unit_join *u, size_t built, size_t sorted)
{
    if (u->p->progress)
        u->prepared += NQ_MITM_BUILD_WORK * (double)built + NQ_MITM_SORT_WORK * (double)sorted;
}

/* After that join: the unit's progress at the rectangle's end (join.h,
 * nq_join_progress_to). */
static void joined(const unit_join *u)
{
    nq_join_scratch *js = u->s->js;
    if (u->p->progress)
        nq_join_progress_to(js, (uint64_t)(js->progress_base + js->progress_span));
}

/* The columns the east side's walk may use in configuration a: all of
 * them, or (a > 0, odd N) all but column a - 1, which the middle row's
 * queen holds (see mitm_solve). */
static uint32_t east_columns(uint32_t hm, int a)
{
    return a ? hm & ~(UINT32_C(1) << (a - 1)) : hm;
}

/* Keys of at least this many bits are picked by the sampled pairs they
 * cut (nq_join_pick_key_by_pairs): they come with lists long enough to
 * pay for it (units of a tenth of a second and more), and cut
 * noticeably fewer pairs than bits picked one by one. */
#define NQ_MITM_PAIR_KEY_BITS 12

/* Chooses the sort order of the unit's joins, once: the class bits, and
 * the key bits that the most pairs of sampled east and west halves share
 * (wide keys: that cut the most such pairs together).  The west halves
 * are still unsorted (all of them or their first batch). */
static void choose_order(unit_join *u)
{
    const mitm_plan *p = u->p;
    const int key_bits = !u->keyed ? 0 : p->key_bits ? p->key_bits : key_width(u->nw, u->ne);
    u->order->class_mask = class_bit(p);
    u->ordered = 1;
    if (key_bits >= NQ_MITM_PAIR_KEY_BITS) {
        nq_join_pick_key_by_pairs(u->s->east, u->ne, u->s->west, u->nw, p->sig_bits, key_bits,
                                  u->order);
        return;
    }
    uint32_t east_bits[NQ_JOIN_MAX_BITS] = {0}, west_bits[NQ_JOIN_MAX_BITS] = {0};
    if (u->keyed) {
        nq_join_sample_bits(u->s->east, u->ne, p->sig_bits, east_bits);
        nq_join_sample_bits(u->s->west, u->nw, p->sig_bits, west_bits);
    }
    nq_join_pick_key(east_bits, west_bits, p->sig_bits, key_bits, u->order);
}

/* The bits sorted lists keep: the signature's, less the key bits the sort
 * cuts out (join.h; the class bit, cut too, lies above them). */
static int sorted_bits(const unit_join *u)
{
    return u->p->sig_bits - __builtin_popcountll(u->order->key_mask);
}

/* Starts the walk of the unit's east or west half-boards over the columns
 * avail, skipping signature bits of avoid (nq_mitm_half_start); for even
 * N the walk keeps only the column sets that rank at the unit's floor or
 * above (the east side ranks its sets reversed; see rank_weight). */
static void start_walk(const unit_join *u, half_iter *it, int east, uint32_t avail,
                       uint64_t avoid)
{
    const nq_quarter_slice *q = u->s->quarter;
    nq_mitm_half_start(it, &q[east ? NQ_NE : NQ_NW], &q[east ? NQ_SE : NQ_SW], avail, avoid);
    if (u->p->n & 1)
        return;
    it->ranked = 1;
    it->rank_reversed = east;
    it->floor = u->floor;
}

/* Joins the gathered east halves with every west half and empties them.
 * The count is bilinear, so when the west halves did not fit one buffer,
 * the east batch is joined with each west batch in turn.  Each list is
 * sorted with a free buffer, into it or back into its own
 * (nq_join_sort): whole west halves with `split` at the first join, each
 * east batch then with whichever of `west` and `split` they do not hold;
 * otherwise the east batch with `split`, and each west batch with
 * whichever of `east` and `split` the east batch does not hold.  West
 * halves in batches are built anew for every east batch
 * but the first, which takes the west batch that mitm_solve built to try
 * whether they fit (so a unit whose east halves fit one batch, the usual
 * case, builds each west half once). */
static void flush_east(unit_join *u)
{
    const mitm_plan *p = u->p;
    const mitm_scratch *s = u->s;
    const uint8_t(*weight)[NQ_JOIN_MAX_CLASSES] = p->n & 1 ? plain_weight : rank_weight;
    /* The west halves sorted (west_whole: all of them, kept from the first
     * join on), and the east batch sorted. */
    nq_join_list *west = &s->lists[0], *east = &s->lists[1];
    /* The share of the east halves in this batch: from the last batch's
     * end to where their walk stands now. */
    double e0 = 0, e1 = 0;
    if (p->progress) {
        e0 = u->east_joined;
        e1 = u->east_walk ? share(u->east_before + walk_pairs(p, u->east_walk, 0), u->east_pairs)
                          : 1;
        u->east_joined = e1;
    }
    join_span(u, e0, e1, 0, 1);
    if (!u->keyed && (p->n & 1)) {
        /* Short lists of one class: sorting would cost more than it skips. */
        begin_join(u);
        u->pairs +=
            nq_join_count(s->east, u->ne, s->west, u->nw, p->sig_bits, p->join_kernel, s->js);
        joined(u);
    } else if (u->west_whole) {
        if (!u->ordered) {
            choose_order(u);
            nq_join_sort(s->west, u->nw, u->order, s->tag, s->js, s->split, west);
            prepare(u, 0, u->nw);
        }
        nq_join_sort(s->east, u->ne, u->order, s->tag, s->js,
                     west->sig == s->west ? s->split : s->west, east);
        prepare(u, 0, u->ne);
        begin_join(u);
        u->pairs +=
            nq_join_sorted_count(east, west, weight, sorted_bits(u), p->join_kernel, s->js);
        joined(u);
    } else {
        if (!u->ordered)
            choose_order(u);
        nq_join_sort(s->east, u->ne, u->order, s->tag, s->js, s->split, east);
        prepare(u, 0, u->ne);
        const uint32_t hm = (UINT32_C(1) << p->h) - 1;
        half_iter wi = u->west_rest;
        if (!u->west_first_kept)
            start_walk(u, &wi, 0, hm, 0);
        double w0 = 0; /* the share of the west halves before this batch */
        for (int kept = u->west_first_kept; kept || !wi.done; kept = 0) {
            if (!kept)
                u->nw = nq_mitm_half_next(p, &wi, 0, s->west, s->half_cap);
            nq_join_sort(s->west, u->nw, u->order, s->tag, s->js,
                         east->sig == s->east ? s->split : s->east, west);
            prepare(u, kept ? 0 : u->nw, u->nw);
            const double w1 = p->progress ? share(walk_pairs(p, &wi, 0), u->west_pairs) : 0;
            join_span(u, e0, e1, w0, w1);
            begin_join(u);
            u->pairs +=
                nq_join_sorted_count(east, west, weight, sorted_bits(u), p->join_kernel, s->js);
            joined(u);
            w0 = w1;
        }
        u->west_first_kept = 0;
    }
    u->ne = 0;
}

/* Adds the east halves of one configuration (columns east_cols, no
 * signature bit of `avoid`, signatures ORed with sig_or), joining whenever
 * the buffer fills. */
static void add_east(unit_join *u, uint32_t east_cols, uint64_t avoid, uint64_t sig_or)
{
    const mitm_plan *p = u->p;
    half_iter ei;
    start_walk(u, &ei, 1, east_cols, avoid);
    u->east_walk = &ei;
    while (!ei.done) {
        const size_t built =
            nq_mitm_half_next(p, &ei, sig_or, u->s->east + u->ne, u->s->half_cap - u->ne);
        u->ne += built;
        prepare(u, built, 0);
        if (!ei.done)
            flush_east(u); /* buffer full: an empty one always makes progress */
    }
    if (p->progress)
        u->east_before += walk_pairs(p, &ei, 1);
    u->east_walk = NULL;
}

/* The pairs the east walks of all the unit's configurations try. */
static double east_pairs(const unit_join *u, const nq_mitm_unit *d)
{
    const uint32_t hm = (UINT32_C(1) << u->p->h) - 1;
    double pairs = 0;
    for (int a = d->a_first; a <= d->a_last; a++) {
        half_iter ei;
        start_walk(u, &ei, 1, east_columns(hm, a), 0);
        pairs += walk_pairs(u->p, &ei, 1);
    }
    return pairs;
}

/*
 * A unit's count.  Even N and the odd-N centre queen: one configuration.
 * Odd N, unit (b, E): the queen of the middle column stands at (m + b, m)
 * and holds south row b - 1; for every a = 1 .. b - 1 the queen of the
 * middle row stands at (m, m + a) and holds east column a - 1.  The west
 * halves do not depend on a except through that queen's two diagonals,
 * which are shared diagonals (bits h + a - 1 and 3h - a - 2 of a
 * signature, as a <= h - 1): ORing them into every east signature of
 * configuration a makes the join reject the west halves it attacks.  So
 * the west halves are built once and all configurations' east halves are
 * joined with them in one go.  The east slices likewise avoid only the
 * middle column's queen, and each configuration skips the east
 * placements that hold its queen's diagonals (those signature bits).
 */
static void mitm_solve(const nq_job *job, uint64_t unit, nq_counts *out, void *scratch)
{
    const mitm_plan *p = job->plan;
    out->unique = 0;
    if (p->tiny) {
        out->total = tiny_count(p->n, 0, 0, 0, 0);
        return;
    }
    nq_mitm_unit d;
    nq_mitm_decode_unit(p, unit, &d);
    const int n = p->n, h = p->h, mid = n / 2;
    const uint32_t hm = (UINT32_C(1) << h) - 1;
    mitm_scratch s = nq_mitm_carve_scratch(p, scratch);
    nq_join_order order; /* set by the first join (choose_order) */
    unit_join u = {.p = p, .s = &s, .order = &order};
    uint32_t rows = (UINT32_C(1) << 2 * h) - 1;
    if (n & 1) {
        /* The middle column's queen (the centre queen when b = 0). */
        u.wp1 = UINT64_C(1) << (2 * mid + d.b);
        u.wp2 = UINT64_C(1) << (n - 1 + d.b);
        if (d.b)
            rows &= ~(UINT32_C(1) << (h + d.b - 1));
    }
    const uint32_t west = rows & ~d.east;
    u.west_n = west & hm;
    u.west_s = west >> h;
    /* Both sides' slices first: the lists get what they leave. */
    nq_mitm_prepare_side(p, &s, 1, u.west_n, u.west_s, u.wp1, u.wp2);
    nq_mitm_prepare_side(p, &s, 0, d.east & hm, d.east >> h, u.wp1, u.wp2);
    nq_mitm_fit_lists(p, &s);
    half_iter wi;
    if (!(n & 1))
        u.floor = nq_mitm_unit_floor(d.east, h);
    start_walk(&u, &wi, 0, hm, 0);
    if (p->progress)
        u.west_pairs = walk_pairs(p, &wi, 1);
    u.nw = nq_mitm_half_next(p, &wi, 0, s.west, s.half_cap);
    prepare(&u, u.nw, 0);
    u.west_whole = wi.done; /* the usual case: all west halves fit */
    u.west_first_kept = !u.west_whole;
    u.west_rest = wi;
    if (u.nw == 0 && u.west_whole) {
        out->total = 0;
        return;
    }
    /* Keys pay where a block's queries skip long runs: on long west lists
     * (and always when they come in batches). */
    u.keyed = !u.west_whole || u.nw >= p->key_min;
    if (p->progress)
        u.east_pairs = east_pairs(&u, &d);
    /* One configuration (a = 0: a_first = a_last = 0), or each a of the
     * unit, whose queen's diagonals every east half of it avoids. */
    for (int a = d.a_first; a <= d.a_last; a++) {
        const uint64_t abits =
            a ? UINT64_C(1) << (h + a - 1) | UINT64_C(1) << (3 * h - a - 2) : 0;
        add_east(&u, east_columns(hm, a), abits, abits);
    }
    if (u.ne)
        flush_east(&u);
    out->total = (nq_u128)u.pairs * d.weight;
    if (p->progress) /* between units, as the hook promises */
        atomic_store_explicit(&s.js->progress, 0, memory_order_relaxed);
}

/* Blocks a run of a unit solved by sample (join.h, sample_run): a block
 * after a gap meets out of cache queries that a block after its
 * neighbour finds in it.  One block in ten put two units of N = 28 at
 * 1.08 and 1.14 of their time whole; runs of 16 at 0.98 to 1.06, within
 * the VM's noise (docs/performance.md, "The records"). */
#define NQ_MITM_SAMPLE_RUN 16

/* A unit solved by sample (core/engine.h): its sorted joins solve runs of
 * NQ_MITM_SAMPLE_RUN blocks, one in `every` (join.h, sample_every), from a
 * phase drawn from the unit's index (Fibonacci hashing), so that a
 * projection's units sample the phases evenly: a systematic sample with
 * a random phase weighs each block alike, whatever the blocks cost. */
static double mitm_solve_sample(const nq_job *job, uint64_t unit, uint32_t every,
                                nq_counts *counts, void *scratch)
{
    const mitm_plan *p = job->plan;
    if (p->tiny) {
        mitm_solve(job, unit, counts, scratch);
        return 0;
    }
    nq_join_scratch *js = nq_mitm_scratch_join(scratch);
    js->sample_run = NQ_MITM_SAMPLE_RUN;
    js->sample_every = every;
    js->sample_at =
        (uint32_t)(((unit * UINT64_C(0x9E3779B97F4A7C15)) >> 32) % (js->sample_run * every));
    js->sample_open = 0;
    js->sampled_seconds = 0;
    mitm_solve(job, unit, counts, scratch);
    js->sample_every = js->sample_run = js->sample_at = 0;
    return js->sampled_seconds;
}

/* The share of the thread's unit joined (see unit_join), on the boards
 * whose units report it. */
static double mitm_progress(const nq_job *job, const void *scratch)
{
    const mitm_plan *p = job->plan;
    if (!p->progress || !scratch)
        return -1;
    const nq_join_scratch *js = nq_mitm_scratch_join(scratch);
    return (double)atomic_load_explicit(&js->progress, memory_order_relaxed) * 0x1p-32;
}


const struct nq_engine_ops nq_engine_mitm = {
    .id = NQ_ENGINE_MITM,
    .name = "mitm",
    .max_n = NQ_MITM_MAX_N,
    .plan = nq_mitm_plan_job,
    .solve = mitm_solve,
    .scratch_size = nq_mitm_scratch_size,
    .release = nq_mitm_release,
    .estimate = nq_mitm_estimate,
    .progress = mitm_progress,
    .solve_sample = mitm_solve_sample,
};
