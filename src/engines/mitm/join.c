/*
 * join.c - the bit-sliced disjoint-pair counter (see join.h).
 *
 * The longer list is cut into blocks of 512 signatures and each block is
 * stored transposed: for every signature bit j, one 512-bit set of the
 * block's members that have bit j.  A query q is compatible with exactly
 * the members that lack every bit of q, i.e. the AND over the set bits j of
 * q of the complements of those sets.  Rather than one AND per set bit, the
 * bits are taken c = 6 to 10 (see join.h) at a time: for each c-bit
 * chunk of the signature a table of all 2^c possible ANDs is precomputed per
 * block, so a query costs ceil(bits / c) 512-bit ANDs and one popcount for
 * 512 candidates.  Blocks are the outer loop and queries the inner one, so
 * a block's tables (4 KiB per 6-bit chunk, 16 KiB per 8-bit one, 64 KiB
 * per 10-bit one) stay in the L1 or L2 cache while every query streams
 * past them.  A query's table offsets are recomputed per block: a few
 * shifts cost less than storing them once per join and loading them.
 *
 * nq_join_sorted_count() joins lists sorted by class and key (join.h).
 * The sliced list's blocks are cut within a class, and for each block the
 * keys of its members say which keys of the other list can match any of
 * them: a query key must miss every bit of at least one member key.  Only
 * the runs of the other list with such keys are queried against the
 * block; the rest of the pairs share a key bit and are skipped unseen, at
 * the price of one counting sort per list (join_sort.c; docs/engines.md
 * says how many pairs the keys skip).  Keys put the bit that skips the
 * most on top, so consecutive keys, and the members of one block, agree
 * on the best bits.
 * The sort cuts the key bits out of the stored signatures, which saves a
 * table look-up per query where that drops a chunk; in exchange the join
 * decides them per block: a query key may meet exactly the members whose
 * keys share no bit with it, so a run of query keys that meets only some
 * of a block's members carries the mask of those (block_runs).
 *
 * A block's tables and the query loop over its runs come per architecture
 * (join_kernels.h): join_kernels.c holds the portable ones, the x86-64
 * ones are in x86/, and the caller names the kernel (kernels.c has the
 * table).
 */
#include <string.h>

#include "core/util.h"
#include "engines/mitm/join.h"
#include "engines/mitm/join_kernels.h"

/* Below this many pairs, building tables costs more than it saves. */
#define NQ_JOIN_NAIVE_PAIRS 2048

uint64_t nq_join_count_naive(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    uint64_t count = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            count += (a[i] & b[j]) == 0;
    return count;
}


/* Rough cost, in cycles, of slicing a list of nb into blocks and running
 * na queries against them: transposing and tabling each block, then a few
 * cycles per query and block.  Used only to choose the block side. */
static double join_cost(size_t na, size_t nb)
{
    const double blocks = (double)((nb + NQ_JOIN_BLOCK - 1) / NQ_JOIN_BLOCK);
    return 15.0 * (double)nb + 1500.0 * blocks + 6.0 * (double)na * blocks;
}

/* Table look-ups per query for `bits` bits of cbits each: at least one, as
 * the first table also marks which members exist. */
static int chunk_count(int bits, int cbits)
{
    return bits > cbits ? (bits + cbits - 1) / cbits : 1;
}

/* Chunks of 9 or 10 bits are worth their tables (128 and 256 KiB at four
 * chunks, past the L1 cache) only where they take a look-up off the 8-bit
 * chunks' and leave at least this many: four of 9 or 10 bits in place of
 * five of 8 (the 33 to 40 stored bits of N = 23 and 25 to 28) cut whole
 * units' time by a tenth, while three of 10 or 11 bits in place of four
 * of 7 or 8 (N = 20, 24) made them slower (docs/performance.md, "Figures
 * the code's choices rest on"). */
#define NQ_JOIN_WIDE_CHUNKS_MIN 4

/* The chunk width for signatures of `bits` bits when about `queries`
 * queries meet each block: the cheapest by a rough count of cycles per
 * block, a table entry costing about two and a look-up about one, of 6 to
 * 8 bits and, where NQ_JOIN_WIDE_CHUNKS_MIN allows them, 9 and 10.  Wide
 * chunks save look-ups but cost 2^c entries a chunk, so they pay only
 * where many queries share a block's tables. */
static int chunk_bits(int bits, size_t queries)
{
    const int chunks_of_8 = chunk_count(bits, 8);
    int best = NQ_JOIN_CHUNK_BITS_MIN;
    double best_cost = 0;
    for (int c = NQ_JOIN_CHUNK_BITS_MIN; c <= NQ_JOIN_CHUNK_BITS_MAX; c++) {
        const int chunks = chunk_count(bits, c);
        if (c > 8 && (chunks >= chunks_of_8 || chunks < NQ_JOIN_WIDE_CHUNKS_MIN))
            continue;
        const double cost = chunks * (2.0 * (1 << c) + (double)queries);
        if (c == NQ_JOIN_CHUNK_BITS_MIN || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

/* The half of a block holding its members lo .. hi - 1 (lo < hi), or
 * NQ_JOIN_BOTH_HALVES (nq_join_run). */
static uint16_t members_half(size_t lo, size_t hi)
{
    return hi <= NQ_JOIN_HALF_BLOCK ? NQ_JOIN_LOW_HALF
           : lo >= NQ_JOIN_HALF_BLOCK ? NQ_JOIN_HIGH_HALF
                                : NQ_JOIN_BOTH_HALVES;
}

uint64_t nq_join_count(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, int bits,
                       enum nq_join_kernel kernel, nq_join_scratch *js)
{
    if (na == 0 || nb == 0)
        return 0;
    if ((uint64_t)na * nb <= NQ_JOIN_NAIVE_PAIRS)
        return nq_join_count_naive(a, na, b, nb);
    /* b becomes the sliced list: whichever choice the cost model prefers
     * (full blocks favour the longer list, transposing the shorter). */
    if (join_cost(nb, na) < join_cost(na, nb)) {
        const uint64_t *t = a;
        a = b;
        b = t;
        size_t tn = na;
        na = nb;
        nb = tn;
    }
    const int cbits = chunk_bits(bits, na), nch = chunk_count(bits, cbits);
    const nq_join_loops *loops = nq_join_loops_of(kernel);
    uint64_t count = 0;
    for (size_t first = 0; first < nb; first += NQ_JOIN_BLOCK) {
        const size_t len = nb - first < NQ_JOIN_BLOCK ? nb - first : NQ_JOIN_BLOCK;
        const nq_join_run whole = {0, (uint32_t)na, 1, members_half(0, len), NQ_JOIN_ALL_MEMBERS};
        loops->build(js, b + first, len, nch, cbits);
        count += loops->queries(js, a, &whole, 1, nch, cbits);
    }
    return count;
}

void nq_join_sort_window(const uint64_t *v, size_t n, int bits, uint64_t *out)
{
    uint32_t held[NQ_JOIN_MAX_BITS] = {0};
    nq_join_sample_bits(v, n, bits, held);
    const size_t step = nq_join_sample_step(n);
    const uint32_t sampled = (uint32_t)((n + step - 1) / step);
    /* The sub-key's bits, most held first, each held by some sampled
     * member but not all (a bit all hold is shared already). */
    int pos[NQ_JOIN_SUBKEY_BITS], nsub = 0;
    uint64_t taken = 0;
    for (; nsub < NQ_JOIN_SUBKEY_BITS; nsub++) {
        int best = -1;
        for (int j = 0; j < bits; j++)
            if (!(taken >> j & 1) && held[j] && held[j] < sampled &&
                (best < 0 || held[j] > held[best]))
                best = j;
        if (best < 0)
            break;
        pos[nsub] = best;
        taken |= UINT64_C(1) << best;
    }
    /* A counting sort by the sub-key; its first bit on top. */
    uint32_t next[1 << NQ_JOIN_SUBKEY_BITS] = {0};
    uint8_t sub[NQ_JOIN_WINDOW];
    for (size_t i = 0; i < n; i++) {
        uint32_t k = 0;
        for (int t = 0; t < nsub; t++)
            k = k << 1 | (uint32_t)(v[i] >> pos[t] & 1);
        sub[i] = (uint8_t)k;
        next[k]++;
    }
    uint32_t at = 0;
    for (int k = 0; k < 1 << NQ_JOIN_SUBKEY_BITS; k++) {
        const uint32_t size = next[k];
        next[k] = at;
        at += size;
    }
    for (size_t i = 0; i < n; i++)
        out[next[sub[i]]++] = v[i];
}

/* The keys of one block, in order, with the members holding each (offsets
 * into the block, lo .. hi - 1). */
typedef struct block_keys {
    int count;
    uint32_t key[NQ_JOIN_BLOCK_KEYS];
    uint32_t lo[NQ_JOIN_BLOCK_KEYS], hi[NQ_JOIN_BLOCK_KEYS];
} block_keys;

/* Sets bits lo .. hi - 1 of the 512-bit set m. */
static void set_range(uint64_t m[NQ_JOIN_WORDS], size_t lo, size_t hi)
{
    for (int w = 0; w < NQ_JOIN_WORDS; w++) {
        const size_t wlo = (size_t)w * 64, whi = wlo + 64;
        const size_t a = lo > wlo ? lo : wlo, b = hi < whi ? hi : whi;
        if (a < b) /* bits a - wlo .. b - wlo - 1 of word w */
            m[w] |= (b - a == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << (b - a)) - 1)) << (a - wlo);
    }
}

/* The mask index of a run that meets the block members `meets` (of
 * `all`): NQ_JOIN_ALL_MEMBERS, or the last mask made when it holds the
 * same members (*masked), else a new one in js->masks. */
static uint32_t run_mask(nq_join_scratch *js, const block_keys *bk, uint64_t meets, uint64_t all,
                         size_t *nmasks, uint64_t *masked)
{
    if (meets == all)
        return NQ_JOIN_ALL_MEMBERS;
    if (!*nmasks || meets != *masked) {
        uint64_t *m = js->masks[(*nmasks)++];
        memset(m, 0, sizeof js->masks[0]);
        /* The keys' members follow each other in key order, so each run of
         * consecutive keys in meets is one range of members: one set_range
         * per run, not per key. */
        for (uint64_t left = meets; left;) {
            int i;
            const int len = nq_lowest_bit_run(left, &i); /* keys i .. i + len - 1 */
            set_range(m, bk->lo[i], bk->hi[i + len - 1]);
            left = nq_bits_from(left, i + len);
        }
        *masked = meets;
    }
    return (uint32_t)(*nmasks - 1);
}

/* The half of the block holding the members of the keys in `meets` (not
 * 0): the keys' members follow each other in key order, so they lie
 * between the first member of the lowest key and the last of the highest. */
static uint16_t meets_half(const block_keys *bk, uint64_t meets)
{
    return members_half(bk->lo[__builtin_ctzll(meets)], bk->hi[63 - __builtin_clzll(meets)]);
}

/* Fills js->runs with the runs of query list a that may meet the block
 * with keys bk, of the block's class cb: for each query class whose
 * weight with cb is not 0, the query keys that miss every bit of some
 * member key, all of them submasks of the complement of the bits every
 * member key has.  Consecutive query buckets meeting the same members
 * form one run, whose mask (when not every member) goes to js->masks.
 * Returns the number of runs; *queries gets their total length.
 *
 * Which block keys a query key q may meet (bit i: q misses every bit of
 * the block's key i; the stored signatures lack the key bits, so this is
 * the only place they are compared) is the AND, over q's bits j, of the
 * keys lacking bit j: that of q without its lowest bit ANDed with one
 * mask.  The submasks come in increasing order, in which q without its
 * lowest bit is the last q seen whose lowest bit is that one's, so one
 * entry per bit position (meets_at) holds what the walk needs.  A q that
 * meets no block key stands for the submasks right after it, those that
 * add bits below its lowest (more bits meet no more keys), and the walk
 * skips them; of the rest it reads the bucket starts of the filled
 * buckets alone (a->filled).  With sixteen key bits the starts are
 * 768 KiB, past the L2 cache, half the keys walked met no block key and
 * most buckets of those that did were empty: loading their starts was
 * most of this function's time, a fifth of N = 28's (docs/performance.md,
 * "Figures the code's choices rest on"). */
static size_t block_runs(const nq_join_list *a, const block_keys *bk, const uint8_t *weight,
                         nq_join_scratch *js, size_t *queries)
{
    const int kb = a->key_bits;
    const uint32_t keys = UINT32_C(1) << kb;
    const uint64_t all = bk->count == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bk->count) - 1;
    uint32_t common = keys - 1;
    uint64_t lack[NQ_JOIN_KEY_BITS_MAX]; /* lack[j]: the block keys without bit j */
    for (int j = 0; j < kb; j++)
        lack[j] = all;
    for (int i = 0; i < bk->count; i++) {
        common &= bk->key[i];
        for (uint32_t m = bk->key[i]; m; m &= m - 1) /* m & (m - 1): the next set bit */
            lack[__builtin_ctz(m)] &= ~(UINT64_C(1) << i);
    }
    const uint32_t free_bits = (keys - 1) & ~common;
    size_t nruns = 0, nmasks = 0, total = 0;
    uint64_t masked = 0; /* the member set js->masks[nmasks - 1] holds */
    for (int ca = 0; ca < NQ_JOIN_MAX_CLASSES; ca++) {
        if (!weight[ca])
            continue;
        const uint32_t base = (uint32_t)ca << kb; /* the class's first bucket */
        const uint32_t *as = a->start + base;
        uint64_t prev = 0; /* the block keys the class's last run meets */
        /* meets_at[j]: what the last q seen whose lowest bit is j meets */
        uint64_t meets_at[NQ_JOIN_KEY_BITS_MAX];
        /* Submasks of free_bits in increasing order: setting the bits
         * outside it lets the +1 carry straight to the next one. */
        for (uint32_t q = 0;;) {
            uint64_t meets = all;
            uint32_t last = q; /* the last submask this q stands for */
            if (q) {
                const uint32_t rest = q & (q - 1); /* q without its lowest bit */
                const int low = __builtin_ctz(q);
                meets = (rest ? meets_at[__builtin_ctz(rest)] : all) & lack[low];
                meets_at[low] = meets;
                if (!meets) /* q with any free bits below its lowest */
                    last = q | (free_bits & ((UINT32_C(1) << low) - 1));
            }
            const uint32_t bucket = base + q;
            if (meets && (a->filled[bucket / 64] >> (bucket % 64) & 1)) {
                total += as[q + 1] - as[q];
                if (nruns && meets == prev && js->runs[nruns - 1].end == as[q])
                    js->runs[nruns - 1].end = as[q + 1]; /* the run before goes on */
                else
                    js->runs[nruns++] =
                        (nq_join_run){as[q], as[q + 1], weight[ca], meets_half(bk, meets),
                                      run_mask(js, bk, meets, all, &nmasks, &masked)};
                prev = meets;
            }
            if (last == free_bits)
                break;
            q = ((last | ~free_bits) + 1) & free_bits;
        }
    }
    *queries = total;
    return nruns;
}

/* The weights of the sliced list's class cb, taken [query class] from
 * weight, which is [a's class][b's class] and swapped when the lists were. */
static void class_weights(uint8_t w[NQ_JOIN_MAX_CLASSES],
                          const uint8_t weight[NQ_JOIN_MAX_CLASSES][NQ_JOIN_MAX_CLASSES],
                          int swapped, int cb)
{
    for (int ca = 0; ca < NQ_JOIN_MAX_CLASSES; ca++)
        w[ca] = swapped ? weight[cb][ca] : weight[ca][cb];
}

/* Sets js->key_queries[k], for every key k, to the queries of `a` (in the
 * classes w weighs) that may meet a member with key k: those whose key
 * shares no bit with k, i.e. whose key is a subset of k's complement.
 * First each key's own queries, then a sum over subsets one bit at a
 * time (after step j, entry s holds the keys that differ from s only by
 * dropping some of its bits 0 .. j): kb * 2^kb additions, against the
 * join's many blocks of queries. */
static void key_queries(const nq_join_list *a, const uint8_t *w, nq_join_scratch *js)
{
    const int kb = a->key_bits;
    const uint32_t keys = UINT32_C(1) << kb;
    uint64_t *sums = js->key_queries;
    memset(sums, 0, keys * sizeof *sums);
    for (int ca = 0; ca < NQ_JOIN_MAX_CLASSES; ca++) {
        const uint32_t *as = a->start + ((size_t)ca << kb);
        for (uint32_t q = 0; q < keys && w[ca]; q++)
            sums[q] += as[q + 1] - as[q];
    }
    for (int j = 0; j < kb; j++)
        for (uint32_t s = 0; s < keys; s++)
            if (s >> j & 1)
                sums[s] += sums[s & ~(UINT32_C(1) << j)];
    /* Complementing in place: entry k takes the sum of ~k. */
    for (uint32_t k = 0; k < keys / 2; k++) {
        const uint64_t t = sums[k];
        sums[k] = sums[keys - 1 - k];
        sums[keys - 1 - k] = t;
    }
}

/* A block's tables cost about as much as this many queries against it
 * (chunk_bits' count at 8-bit chunks: two cycles a table entry, one a
 * look-up), so a member of a full block weighs this plus its key's
 * queries in the join's progress. */
#define NQ_JOIN_TABLE_QUERIES 512.0

/* The estimated work of the sliced list's class whose bucket starts are
 * bs, with js->key_queries set for it: each member's key's queries plus
 * its share of its block's tables. */
static double class_work(const uint32_t *bs, uint32_t keys, const nq_join_scratch *js)
{
    double work = 0;
    for (uint32_t k = 0; k < keys; k++)
        work += (double)(bs[k + 1] - bs[k]) * ((double)js->key_queries[k] + NQ_JOIN_TABLE_QUERIES);
    return work;
}

/* The pairs of block b[0 .. len) with the runs, by the double loop. */
static uint64_t block_naive(const uint64_t *b, size_t len, const uint64_t *q,
                            const nq_join_scratch *js, size_t nruns)
{
    uint64_t count = 0;
    for (size_t r = 0; r < nruns; r++) {
        const nq_join_run *run = &js->runs[r];
        for (size_t j = 0; j < len; j++)
            if (run->mask == NQ_JOIN_ALL_MEMBERS || (js->masks[run->mask][j >> 6] >> (j & 63) & 1))
                count += run->weight * nq_join_count_naive(q + run->begin, run->end - run->begin,
                                                           b + j, 1);
    }
    return count;
}

/* Ends the run of sampled blocks that is being timed, if one is (join.h,
 * sample_run), adding its time to js->sampled_seconds. */
static void close_sample_run(nq_join_scratch *js)
{
    if (js->sample_open) {
        js->sampled_seconds += nq_thread_seconds() - js->sample_since;
        js->sample_open = 0;
    }
}

/* The kept lists of a long bucket's filter (bucket_queries), by level:
 * js->kept, and js->nested, filtered from it by more bits. */
#define KEPT_LEVELS 2
static const uint32_t kept_room[KEPT_LEVELS] = {NQ_JOIN_KEPT_QUERIES, NQ_JOIN_NESTED_QUERIES};
static const uint32_t kept_runs_room[KEPT_LEVELS] = {NQ_JOIN_KEPT_RUNS, NQ_JOIN_NESTED_RUNS};

/* A kept list: the queries of the bucket with none of the bits `shared`,
 * with nruns runs. */
typedef struct kept_list {
    uint64_t shared;
    size_t queries, nruns;
} kept_list;

/* A long bucket's query runs (solve_long_bucket), in js->runs: a block
 * of one key meets every run with all of its members, so all the
 * bucket's blocks meet the same runs, and block_runs' walk is made once a
 * bucket rather than once a block (at N = 28 the walk was a twentieth of
 * whole units' time).  With them, the lists its blocks' filters kept
 * whole, kept[0 .. depth) (bucket_queries). */
typedef struct bucket_runs {
    size_t nruns, queries;
    int depth;
    kept_list kept[KEPT_LEVELS];
} bucket_runs;

/* The block's tables against out[met .. ), the queries the filter has
 * just kept (bucket_queries), whose runs are runs[0 .. nruns): those from
 * *first on, past one that ended at met, the first of them cut to start
 * at met for the call.  *first moves to the last run, which the next
 * piece may lengthen. */
static uint64_t meet_kept(nq_join_scratch *js, const uint64_t *out, nq_join_run *runs,
                          size_t nruns, uint32_t met, size_t *first, int nch, int cbits,
                          const nq_join_loops *loops)
{
    if (runs[*first].end == met)
        ++*first;
    const uint32_t begin = runs[*first].begin;
    runs[*first].begin = met;
    const uint64_t count = loops->queries(js, out, runs + *first, nruns - *first, nch, cbits);
    runs[*first].begin = begin;
    *first = nruns - 1;
    return count;
}

/* The block's tables (built) against the long bucket's queries, each
 * query first tested against `shared`, the bits every member of the
 * block holds: a query holding one meets none of them.  The kept queries
 * go to a kept list with their runs (runs that follow each other with
 * the same weight and members as one) and meet the tables a piece at a
 * time, while the piece is in the L1 cache.
 *
 * Where they fit, they are kept whole for the blocks after it: a
 * window's blocks of one sub-key mostly share the same bits, or more.  A
 * block meets the kept list of its own bits as it is, and otherwise
 * filters the last list whose bits it holds all of (the queries it keeps
 * are among that list's, as every query it drops holds one of the
 * list's bits), or the bucket's runs where it holds none: at N = 28 the
 * filters read a quarter fewer queries so, nearly half of them from kept
 * lists in the L2 cache (docs/performance.md, "Figures the code's
 * choices rest on").  The lists whose bits it does not hold all of are
 * dropped; where it holds those of both, the nested one is filtered anew
 * from the first. */
static uint64_t bucket_queries(const uint64_t *q, bucket_runs *bucket, uint64_t shared, int nch,
                               int cbits, const nq_join_loops *loops, nq_join_scratch *js)
{
    uint64_t *const lists[KEPT_LEVELS] = {js->kept, js->nested};
    nq_join_run *const lists_runs[KEPT_LEVELS] = {js->kept_runs, js->nested_runs};
    int level = bucket->depth;
    while (level && bucket->kept[level - 1].shared & ~shared)
        level--;
    if (level && bucket->kept[level - 1].shared == shared) {
        bucket->depth = level;
        const kept_list *k = &bucket->kept[level - 1];
        return k->nruns ? loops->queries(js, lists[level - 1], lists_runs[level - 1], k->nruns,
                                         nch, cbits)
                        : 0;
    }
    if (level == KEPT_LEVELS)
        level--;
    /* Filtered from the list at level - 1, or the bucket's runs, into the
     * list at level: whole where it has room for all of them (the bucket's
     * filtered anew where a list's has not). */
    if (level && (bucket->kept[level - 1].queries > kept_room[level] ||
                  bucket->kept[level - 1].nruns > kept_runs_room[level]))
        level = 0;
    const uint64_t *from = level ? lists[level - 1] : q;
    const nq_join_run *from_runs = level ? lists_runs[level - 1] : js->runs;
    const size_t from_nruns = level ? bucket->kept[level - 1].nruns : bucket->nruns;
    const int whole =
        level || (bucket->queries <= kept_room[0] && bucket->nruns <= kept_runs_room[0]);
    const size_t max_runs = whole ? kept_runs_room[level] : NQ_JOIN_FILTER_RUNS;
    uint64_t *out = lists[level];
    nq_join_run *out_runs = lists_runs[level];
    uint64_t count = 0;
    uint32_t kept = 0, met = 0; /* out[0 .. met) have met the block */
    size_t nkept_runs = 0, first_run = 0; /* the first run not wholly met */
    for (size_t r = 0; r < from_nruns; r++) {
        const nq_join_run run = from_runs[r];
        for (uint32_t at = run.begin; at < run.end;) {
            const uint32_t room = NQ_JOIN_FILTER_QUERIES - (kept - met);
            const uint32_t take = run.end - at < room ? run.end - at : room;
            /* The filter stores whole vectors past the last kept query:
             * at most to out + the queries it was given + 8. */
            const uint32_t got = (uint32_t)loops->filter(from + at, take, shared, out + kept);
            at += take;
            if (got) {
                nq_join_run *last = nkept_runs ? &out_runs[nkept_runs - 1] : NULL;
                if (last && last->end == kept && last->weight == run.weight &&
                    last->half == run.half && last->mask == run.mask)
                    last->end = kept + got;
                else
                    out_runs[nkept_runs++] =
                        (nq_join_run){kept, kept + got, run.weight, run.half, run.mask};
                kept += got;
            }
            if (kept - met == NQ_JOIN_FILTER_QUERIES || nkept_runs == max_runs) {
                count += meet_kept(js, out, out_runs, nkept_runs, met, &first_run, nch, cbits,
                                   loops);
                met = kept;
                if (!whole) /* the piece is done with: the next one starts over */
                    kept = met = 0, nkept_runs = first_run = 0;
            }
        }
    }
    if (kept > met)
        count += meet_kept(js, out, out_runs, nkept_runs, met, &first_run, nch, cbits, loops);
    bucket->depth = whole ? level + 1 : 0;
    bucket->kept[level] = (kept_list){shared, kept, nkept_runs};
    return count;
}

/* The pairs of the sliced list's block b[0 .. len), whose keys are in
 * *bk, with the queries of list a that may meet it (class weights w).
 * bucket: the runs of the block's long bucket, or NULL for a block that
 * finds its own.  shared: in a long bucket's block, the bits every
 * member holds, by which the queries are filtered first
 * (bucket_queries), or 0. */
static uint64_t join_block(const nq_join_list *a, const uint64_t *b, size_t len,
                           const block_keys *bk, const uint8_t w[NQ_JOIN_MAX_CLASSES], int bits,
                           uint64_t shared, bucket_runs *bucket, const nq_join_loops *loops,
                           nq_join_scratch *js)
{
    size_t queries, nruns;
    if (!bucket) {
        nruns = block_runs(a, bk, w, js, &queries);
    } else {
        nruns = bucket->nruns;
        queries = bucket->queries;
    }
    if (queries == 0)
        return 0;
    if (queries * len <= NQ_JOIN_NAIVE_PAIRS)
        return block_naive(b, len, a->sig, js, nruns);
    /* The chunk width by this block's queries (chunk_bits). */
    const int cbits = chunk_bits(bits, queries), nch = chunk_count(bits, cbits);
    loops->build(js, b, len, nch, cbits);
    if (shared)
        return bucket_queries(a->sig, bucket, shared, nch, cbits, loops, js);
    return loops->queries(js, a->sig, js->runs, nruns, nch, cbits);
}

/* Where a sorted join stands: its lists and weights, and what a block
 * needs for the unit's progress (join.h, progress_span). */
typedef struct join_walk {
    const nq_join_list *a;
    const uint8_t *w;
    int bits, tracked;
    double work, work_done;
    const nq_join_loops *loops;
    nq_join_scratch *js;
} join_walk;

/* Solves the sliced list's block b[0 .. len) with keys bk (join_block)
 * unless a sampled unit skips it, and moves the progress past it. */
static uint64_t solve_block(join_walk *jw, const uint64_t *b, size_t len, const block_keys *bk,
                            uint64_t shared, bucket_runs *bucket)
{
    nq_join_scratch *js = jw->js;
    if (jw->tracked) {
        nq_join_progress_to(js, (uint64_t)(js->progress_base +
                                           js->progress_span * jw->work_done / jw->work));
        for (int i = 0; i < bk->count; i++)
            jw->work_done += (double)(bk->hi[i] - bk->lo[i]) *
                             ((double)js->key_queries[bk->key[i]] + NQ_JOIN_TABLE_QUERIES);
    }
    /* Solved by sample: the blocks come in the same order whatever the
     * sample, so runs of them from a phase the caller draws are a
     * systematic sample of the unit's blocks.  Runs, not single blocks: a
     * block finds in cache some of the queries the one before it met,
     * which a block after a gap does not (mitm.c, NQ_MITM_SAMPLE_RUN); and
     * each run is timed as one, so the clock (a system call) is read twice
     * a run, and twice more for each window sorted within it
     * (solve_long_bucket stops the clock for the sort). */
    const uint32_t at = js->sample_at;
    if (js->sample_every) {
        js->sample_at = at + 1 == js->sample_run * js->sample_every ? 0 : at + 1;
        if (at >= js->sample_run)
            return 0;
        if (!js->sample_open) {
            js->sample_open = 1;
            js->sample_since = nq_thread_seconds();
        }
    }
    const uint64_t count =
        join_block(jw->a, b, len, bk, jw->w, jw->bits, shared, bucket, jw->loops, js);
    if (js->sample_every && at + 1 == js->sample_run)
        close_sample_run(js);
    return count;
}

/* The bits every member of b[0 .. len) holds. */
static uint64_t shared_bits(const uint64_t *b, size_t len)
{
    uint64_t shared = ~UINT64_C(0);
    for (size_t i = 0; i < len; i++)
        shared &= b[i];
    return shared;
}

/* Solves the sliced list's members b[0 .. n), all of key `key` (a bucket
 * of at least NQ_JOIN_WINDOW_MIN), window by window (NQ_JOIN_WINDOW):
 * the windows as even as whole blocks allow, each sorted by its own
 * sub-key (nq_join_sort_window) and cut into blocks, each block's queries
 * filtered by the bits its members share, all of them against the
 * bucket's query runs (bucket_runs).  The runs are found and every
 * window is sorted, sampled unit or not, outside the sample's clock:
 * their cost is counted once, as a count pays it, and not scaled with
 * the blocks'. */
static uint64_t solve_long_bucket(join_walk *jw, const uint64_t *b, size_t n, uint32_t key)
{
    nq_join_scratch *js = jw->js;
    const size_t blocks = (n + NQ_JOIN_BLOCK - 1) / NQ_JOIN_BLOCK;
    const size_t windows = (blocks * NQ_JOIN_BLOCK + NQ_JOIN_WINDOW - 1) / NQ_JOIN_WINDOW;
    block_keys bk;
    bk.count = 1;
    bk.key[0] = key;
    bk.lo[0] = 0;
    bk.hi[0] = NQ_JOIN_BLOCK;
    close_sample_run(js);
    bucket_runs bucket = {0};
    bucket.nruns = block_runs(jw->a, &bk, jw->w, js, &bucket.queries);
    uint64_t count = 0;
    for (size_t wi = 0, from = 0; wi < windows; wi++) {
        /* Window wi's blocks end at block (wi + 1) * blocks / windows. */
        const size_t to_block = (wi + 1) * blocks / windows;
        const size_t to = to_block * NQ_JOIN_BLOCK < n ? to_block * NQ_JOIN_BLOCK : n;
        close_sample_run(js);
        nq_join_sort_window(b + from, to - from, jw->bits, js->window);
        for (size_t first = 0; first < to - from; first += NQ_JOIN_BLOCK) {
            const size_t len =
                to - from - first < NQ_JOIN_BLOCK ? to - from - first : NQ_JOIN_BLOCK;
            if (len < NQ_JOIN_BLOCK) {
                /* The bucket's last block, short: its members may lie in
                 * one half of the tables' sets (nq_join_run), and the
                 * kept queries' runs still name the whole. */
                const uint16_t half = members_half(0, len);
                for (size_t r = 0; r < bucket.nruns; r++)
                    js->runs[r].half = half;
                bucket.depth = 0;
            }
            bk.hi[0] = (uint32_t)len;
            const uint64_t *block = js->window + first;
            count += solve_block(jw, block, len, &bk, shared_bits(block, len), &bucket);
        }
        from = to;
    }
    return count;
}

uint64_t nq_join_sorted_count(const nq_join_list *a, const nq_join_list *b,
                              const uint8_t weight[NQ_JOIN_MAX_CLASSES][NQ_JOIN_MAX_CLASSES],
                              int bits, enum nq_join_kernel kernel, nq_join_scratch *js)
{
    if (a->len == 0 || b->len == 0)
        return 0;
    /* b becomes the sliced list; the weights are taken [query class]
     * [block class] from here on.  Keyed lists slice the longer one: its
     * buckets are longer, so its blocks hold fewer keys and a query run
     * meets fewer members it cannot match (fewer query-block pairs than
     * slicing the shorter, for a few more runs and blocks).  Unkeyed
     * lists take nq_join_count's choice. */
    int swapped = 0;
    if (b->key_bits ? a->len > b->len : join_cost(b->len, a->len) < join_cost(a->len, b->len)) {
        const nq_join_list *t = a;
        a = b;
        b = t;
        swapped = 1;
    }
    const int kb = b->key_bits;
    const uint32_t keys = UINT32_C(1) << kb;
    block_keys bk;
    uint64_t count = 0;
    /* Where the unit's progress is tracked, the join's work by estimate,
     * in all and done, from the building and sorting before it: blocks
     * differ in cost by the queries that meet them (a block of a key with
     * few bits meets most of the other list, one of many bits few of it),
     * and keys come in increasing order, so counting members alone, a
     * long join at N = 28 showed half its progress at three quarters of
     * its time. */
    join_walk jw = {a, NULL, bits, js->progress_span > 0, js->progress_prepared,
                    js->progress_prepared, nq_join_loops_of(kernel), js};
    for (int cb = 0; cb < NQ_JOIN_MAX_CLASSES && jw.tracked; cb++) {
        uint8_t w[NQ_JOIN_MAX_CLASSES];
        class_weights(w, weight, swapped, cb);
        key_queries(a, w, js);
        jw.work += class_work(b->start + ((size_t)cb << kb), keys, js);
    }
    for (int cb = 0; cb < NQ_JOIN_MAX_CLASSES; cb++) {
        uint8_t w[NQ_JOIN_MAX_CLASSES];
        class_weights(w, weight, swapped, cb);
        jw.w = w;
        if (jw.tracked)
            key_queries(a, w, js);
        const uint32_t *bs = b->start + ((size_t)cb << kb);
        uint32_t k0 = 0; /* the first key of the class that can be in the block */
        size_t end;
        for (size_t first = bs[0]; first < bs[keys]; first = end) {
            end = bs[keys] - first < NQ_JOIN_BLOCK ? bs[keys] : first + NQ_JOIN_BLOCK;
            while (bs[k0 + 1] <= first)
                k0++;
            /* A long bucket is met at its start (it is cut from the
             * blocks before it, below), and taken whole by windows. */
            if (bs[k0 + 1] - bs[k0] >= NQ_JOIN_WINDOW_MIN) {
                end = bs[k0 + 1];
                count += solve_long_bucket(&jw, b->sig + first, end - first, k0);
                continue;
            }
            bk.count = 0;
            for (uint32_t k = k0; k < keys && bs[k] < end; k++) {
                if (bs[k + 1] == bs[k])
                    continue;
                if (bk.count == NQ_JOIN_BLOCK_KEYS || bs[k] >= first + NQ_JOIN_BLOCK_FULL ||
                    bs[k + 1] - bs[k] >= NQ_JOIN_WINDOW_MIN) {
                    end = bs[k]; /* cut the block before key k */
                    break;
                }
                bk.key[bk.count] = k;
                bk.lo[bk.count] = (uint32_t)((bs[k] > first ? bs[k] : first) - first);
                bk.hi[bk.count++] = (uint32_t)((bs[k + 1] < end ? bs[k + 1] : end) - first);
            }
            count += solve_block(&jw, b->sig + first, end - first, &bk, 0, NULL);
        }
    }
    close_sample_run(js); /* a run goes on in the next join, not the sorts before it */
    return count;
}
