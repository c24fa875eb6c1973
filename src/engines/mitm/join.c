/*
 * join.c - the bit-sliced disjoint-pair counter (see join.h).
 *
 * The longer list is cut into blocks of 512 signatures and each block is
 * stored transposed: for every signature bit j, one 512-bit set of the
 * block's members that have bit j.  A query q is compatible with exactly
 * the members that lack every bit of q, i.e. the AND over the set bits j of
 * q of the complements of those sets.  Rather than one AND per set bit, the
 * bits are taken c = 6, 7 or 8 (see join.h) at a time: for each c-bit
 * chunk of the signature a table of all 2^c possible ANDs is precomputed per
 * block, so a query costs ceil(bits / c) 512-bit ANDs and one popcount for
 * 512 candidates.  Blocks are the outer loop and queries the inner one, so
 * a block's tables (4 KiB per 6-bit chunk, 16 KiB per 8-bit one) stay in
 * the L1 or L2 cache while every query streams past them.  A query's table
 * offsets are recomputed per block: a few shifts cost less than storing
 * them once per join and loading them.
 *
 * nq_join_sorted_count() joins lists sorted by class and key (join.h).
 * The sliced list's blocks are cut within a class, and for each block the
 * keys of its members say which keys of the other list can match any of
 * them: a query key must miss every bit of at least one member key.  Only
 * the runs of the other list with such keys are queried against the
 * block; the rest of the pairs share a key bit and are skipped unseen.
 * With six key bits chosen per unit, that skips three quarters of the
 * pairs at N = 20 and 21, at the price of one counting sort per list.
 * The sort cuts the key bits out of the stored signatures, which saves a
 * table look-up per query where that drops a chunk; in exchange the join
 * decides them per block: a query key may meet exactly the members whose
 * keys share no bit with it, so a run of query keys that meets only some
 * of a block's members carries the mask of those (find_block_keys).
 *
 * The transpose and the query loop come per architecture (join_kernels.h):
 * the portable ones are here, with the table that is the only place a
 * kernel's loops are chosen; the x86-64 ones are in x86/.
 */
#include <string.h>

#ifdef __BMI2__
#include <immintrin.h>
#endif

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

/* The portable transpose: member i goes into occ[j] for each bit j it has. */
static void transpose_scalar(nq_join_scratch *js, const uint64_t *b, size_t len, int rows)
{
    memset(js->occ, 0, (size_t)rows * sizeof js->occ[0]);
    for (size_t i = 0; i < len; i++) {
        uint64_t s = b[i];
        const uint64_t bit = UINT64_C(1) << (i & 63);
        while (s) {
            js->occ[__builtin_ctzll(s)][i >> 6] |= bit;
            s &= s - 1; /* clears the lowest set bit */
        }
    }
}

/* Hot loop of the portable kernel: per query, one AND per chunk on each of
 * the eight words, then their popcounts. */
static inline __attribute__((always_inline)) uint64_t
block_queries_scalar(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch, int cbits,
                     const uint64_t *mask)
{
    const uint64_t cmask = (UINT64_C(1) << cbits) - 1;
    uint64_t total = 0;
    for (size_t i = 0; i < nq; i++) {
        const uint64_t s = q[i];
        uint64_t acc[NQ_JOIN_WORDS];
        memcpy(acc, js->table[0][s & cmask], sizeof acc);
        if (mask)
            for (int w = 0; w < NQ_JOIN_WORDS; w++)
                acc[w] &= mask[w];
        for (int c = 1; c < nch; c++) {
            const uint64_t *t = js->table[c][(s >> (cbits * c)) & cmask];
            for (int w = 0; w < NQ_JOIN_WORDS; w++)
                acc[w] &= t[w];
        }
        for (int w = 0; w < NQ_JOIN_WORDS; w++)
            total += (uint64_t)__builtin_popcountll(acc[w]);
    }
    return total;
}

static uint64_t queries_scalar(const nq_join_scratch *js, const uint64_t *q, size_t nq, int nch,
                               int cbits, const uint64_t *mask)
{
    NQ_JOIN_SPECIALIZE(block_queries_scalar);
}

/* A kernel's two loops. */
typedef struct join_loops {
    nq_join_transpose_fn *transpose;
    nq_join_queries_fn *queries;
} join_loops;

/* The dispatch point: each kernel's loops, indexed by kernel.  A kernel
 * this build lacks keeps NULL entries; nq_join_kernel_in_use() never
 * returns it. */
static const join_loops kernel_loops[NQ_JOIN_KERNEL_AVX512 + 1] = {
    [NQ_JOIN_KERNEL_SCALAR] = {transpose_scalar, queries_scalar},
#ifdef NQ_JOIN_X86
    [NQ_JOIN_KERNEL_AVX2] = {transpose_scalar, nq_join_queries_avx2},
    [NQ_JOIN_KERNEL_AVX512] = {nq_join_transpose_avx512, nq_join_queries_avx512},
#endif
};

int nq_join_kernel_supported(enum nq_join_kernel kernel)
{
    switch (kernel) {
    case NQ_JOIN_KERNEL_SCALAR:
        return 1;
#ifdef NQ_JOIN_X86
    case NQ_JOIN_KERNEL_AVX2:
        return __builtin_cpu_supports("avx2");
    case NQ_JOIN_KERNEL_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
#endif
    default:
        return 0;
    }
}

/* The kernel joins run with: -1 until the first join picks the best this
 * CPU supports.  Relaxed atomics: every thread that races to pick it
 * stores the same value. */
static int join_kernel = -1;

enum nq_join_kernel nq_join_kernel_in_use(void)
{
    int k = __atomic_load_n(&join_kernel, __ATOMIC_RELAXED);
    if (k < 0) {
        k = nq_join_kernel_supported(NQ_JOIN_KERNEL_AVX512) ? NQ_JOIN_KERNEL_AVX512
            : nq_join_kernel_supported(NQ_JOIN_KERNEL_AVX2) ? NQ_JOIN_KERNEL_AVX2
                                                            : NQ_JOIN_KERNEL_SCALAR;
        __atomic_store_n(&join_kernel, k, __ATOMIC_RELAXED);
    }
    return (enum nq_join_kernel)k;
}

int nq_join_use_kernel(enum nq_join_kernel kernel)
{
    if (!nq_join_kernel_supported(kernel))
        return -1;
    __atomic_store_n(&join_kernel, (int)kernel, __ATOMIC_RELAXED);
    return 0;
}

/* Fills js->table for the block b[0 .. len), len <= NQ_JOIN_BLOCK, for
 * chunks 0 .. nch-1 of cbits bits each, transposing with `transpose`. */
static void build_block(nq_join_scratch *js, nq_join_transpose_fn *transpose, const uint64_t *b,
                        size_t len, int nch, int cbits)
{
    transpose(js, b, len, nch * cbits);
    uint64_t valid[NQ_JOIN_WORDS];
    for (int w = 0; w < NQ_JOIN_WORDS; w++) {
        const size_t lo = (size_t)w * 64;
        /* Members past len do not exist: they must never be counted. */
        valid[w] = len >= lo + 64 ? ~UINT64_C(0)
                   : len <= lo    ? 0
                                  : (UINT64_C(1) << (len - lo)) - 1;
    }
    for (int c = 0; c < nch; c++) {
        uint64_t (*t)[NQ_JOIN_WORDS] = js->table[c];
        memcpy(t[0], valid, sizeof valid);
        for (int v = 1; v < 1 << cbits; v++) {
            /* v = (v with its lowest bit cleared) plus that bit: reuse the
             * smaller entry and remove the members having the extra bit. */
            const uint64_t *occ = js->occ[c * cbits + __builtin_ctz((unsigned)v)];
            /* Through a local copy: the compiler cannot see that t[v] never
             * overlaps the rows it reads, and would not vectorize. */
            uint64_t entry[NQ_JOIN_WORDS];
            memcpy(entry, t[v & (v - 1)], sizeof entry);
            for (int w = 0; w < NQ_JOIN_WORDS; w++)
                entry[w] &= ~occ[w];
            memcpy(t[v], entry, sizeof entry);
        }
    }
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

/* The chunk width for signatures of `bits` bits when about `queries`
 * queries meet each block: of 6, 7 and 8 bits, the cheapest by a rough
 * count of cycles per block, a table entry costing about two and a look-up
 * about one.  Wide chunks save look-ups but cost 2^c entries a chunk, so
 * they pay only where many queries share a block's tables. */
static int chunk_bits(int bits, size_t queries)
{
    int best = NQ_JOIN_CHUNK_BITS_MIN;
    double best_cost = 0;
    for (int c = NQ_JOIN_CHUNK_BITS_MIN; c <= NQ_JOIN_CHUNK_BITS_MAX; c++) {
        const double cost = chunk_count(bits, c) * (2.0 * (1 << c) + (double)queries);
        if (c == NQ_JOIN_CHUNK_BITS_MIN || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

uint64_t nq_join_count(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, int bits,
                       nq_join_scratch *js)
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
    const join_loops *loops = &kernel_loops[nq_join_kernel_in_use()];
    uint64_t count = 0;
    for (size_t first = 0; first < nb; first += NQ_JOIN_BLOCK) {
        const size_t len = nb - first < NQ_JOIN_BLOCK ? nb - first : NQ_JOIN_BLOCK;
        build_block(js, loops->transpose, b + first, len, nch, cbits);
        count += loops->queries(js, a, na, nch, cbits, NULL);
    }
    return count;
}

void nq_join_sample_bits(const uint64_t *v, size_t n, int bits, uint32_t *count)
{
    const size_t step = n > NQ_JOIN_SAMPLE ? n / NQ_JOIN_SAMPLE : 1;
    const uint64_t mask = bits < 64 ? (UINT64_C(1) << bits) - 1 : ~UINT64_C(0);
    for (size_t i = 0; i < n; i += step)
        /* Visit only the set bits: x &= x - 1 clears the lowest one. */
        for (uint64_t x = v[i] & mask; x; x &= x - 1)
            count[__builtin_ctzll(x)]++;
}

uint64_t nq_join_pick_key(const uint32_t *count_a, const uint32_t *count_b, int bits,
                          uint64_t exclude)
{
    uint64_t key = 0;
    for (int k = 0; k < NQ_JOIN_KEY_BITS; k++) {
        int best = -1;
        uint64_t best_pairs = 0;
        for (int j = 0; j < bits; j++) {
            const uint64_t pairs = (uint64_t)count_a[j] * count_b[j];
            if (!((key | exclude) >> j & 1) && pairs > best_pairs) {
                best = j;
                best_pairs = pairs;
            }
        }
        if (best < 0) /* no bit left that any sampled pair shares */
            break;
        key |= UINT64_C(1) << best;
    }
    return key;
}

/* The bits of v under mask, packed into the low bits in their order. */
static inline uint64_t gather_bits(uint64_t v, uint64_t mask)
{
#ifdef __BMI2__
    return _pext_u64(v, mask);
#else
    uint64_t out = 0;
    for (int i = 0; mask; mask &= mask - 1, i++) /* mask & (mask - 1): next set bit */
        out |= (v >> __builtin_ctzll(mask) & 1) << i;
    return out;
#endif
}

/* The sort works on four parts of the list at once, each with its own
 * counters: members in a row of one bucket would otherwise wait on each
 * other's counter updates (store to load), as a bucket holds many. */
#define SORT_PARTS 4

/* A member's tag, kept in its top byte while it is sorted: its key bits
 * (low six) and its two class bits (bits 6 and 7).  Tags name buckets:
 * bucket = class (how many class bits) * NQ_JOIN_KEYS + key. */
#define TAG_VALUES 256

static inline uint64_t tag_of(uint64_t v, const nq_join_order *o)
{
    return gather_bits(v, o->key_mask) | gather_bits(v, o->class_mask) << NQ_JOIN_KEY_BITS;
}

/* Notes member *v's tag in its top bits and counts it. */
static inline void mark_tag(uint64_t *v, const nq_join_order *o, size_t *count)
{
    const uint64_t t = tag_of(*v, o);
    *v |= t << NQ_JOIN_BUCKET_SHIFT;
    count[t]++;
}

/* Stores marked member v, cut down to `keep`, at its tag's next slot. */
static inline void place(uint64_t v, uint64_t keep, uint64_t *dst, size_t *at)
{
    dst[at[v >> NQ_JOIN_BUCKET_SHIFT]++] = gather_bits(v, keep);
}

#if defined(__AVX512BITALG__) && defined(__AVX512BW__)
/* The bit positions of mask, lowest first, one a byte, the unused bytes
 * naming bit 63 (never set below NQ_JOIN_BUCKET_SHIFT): the control of a
 * bit shuffle that gathers those bits. */
static uint64_t bit_positions(uint64_t mask, int at, uint64_t into)
{
    for (; mask; mask &= mask - 1, at++) /* mask & (mask - 1): the next set bit */
        into = (into & ~(UINT64_C(0xff) << 8 * at)) | (uint64_t)__builtin_ctzll(mask) << 8 * at;
    return into;
}

/* mark_tag() for src[0 .. 8k) of each of the four parts of length part
 * (the parts start part apart): vpshufbitqmb gathers each member's tag
 * bits into one byte of a 64-bit mask, eight members at a time, and the
 * tags are counted four parts interleaved.  Returns 8k. */
static size_t mark_tags_avx512(uint64_t *src, size_t part, const nq_join_order *o,
                               size_t count[SORT_PARTS][TAG_VALUES])
{
    const uint64_t key_bits = bit_positions(o->key_mask, 0, UINT64_C(0x3f3f3f3f3f3f3f3f));
    const uint64_t control = bit_positions(o->class_mask, NQ_JOIN_KEY_BITS, key_bits);
    const __m512i ctl = _mm512_set1_epi64((long long)control);
    const size_t whole = part & ~(size_t)7;
    for (size_t j = 0; j < whole; j += 8) {
        uint64_t tags[SORT_PARTS];
        for (int p = 0; p < SORT_PARTS; p++) {
            uint64_t *at = src + p * part + j;
            const __m512i v = _mm512_loadu_si512(at);
            tags[p] = (uint64_t)_mm512_bitshuffle_epi64_mask(v, ctl);
            /* Byte l of tags[p] is member l's tag: widen each to its lane. */
            const __m512i t = _mm512_cvtepu8_epi64(_mm_cvtsi64_si128((long long)tags[p]));
            _mm512_storeu_si512(at, _mm512_or_si512(v, _mm512_slli_epi64(t, NQ_JOIN_BUCKET_SHIFT)));
        }
        for (int l = 0; l < 8; l++)
            for (int p = 0; p < SORT_PARTS; p++)
                count[p][tags[p] >> 8 * l & 0xff]++;
    }
    return whole;
}
#endif

void nq_join_sort(uint64_t *src, size_t n, const nq_join_order *o, uint64_t *dst,
                  nq_join_list *out)
{
    const size_t part = n / SORT_PARTS; /* part p: src[p * part ..], the rest goes with the last */
    size_t count[SORT_PARTS][TAG_VALUES] = {{0}};
    size_t j = 0;
#if defined(__AVX512BITALG__) && defined(__AVX512BW__)
    j = mark_tags_avx512(src, part, o, count);
#endif
    for (; j < part; j++)
        for (int p = 0; p < SORT_PARTS; p++)
            mark_tag(&src[p * part + j], o, count[p]);
    for (size_t i = SORT_PARTS * part; i < n; i++)
        mark_tag(&src[i], o, count[SORT_PARTS - 1]);
    /* Buckets in order, each the tags of its class and key: class 1 has
     * two, one per class bit. */
    size_t at[SORT_PARTS][TAG_VALUES], sum = 0;
    for (int b = 0; b < NQ_JOIN_BUCKETS; b++) {
        const int c = b / NQ_JOIN_KEYS, k = b % NQ_JOIN_KEYS;
        const int tags[2] = {k | (c == 2 ? 3 : c) << NQ_JOIN_KEY_BITS, k | 2 << NQ_JOIN_KEY_BITS};
        out->start[b] = sum;
        for (int i = 0; i < (c == 1 ? 2 : 1); i++)
            for (int p = 0; p < SORT_PARTS; p++) {
                at[p][tags[i]] = sum;
                sum += count[p][tags[i]];
            }
    }
    out->start[NQ_JOIN_BUCKETS] = sum;
    out->sig = dst;
    out->len = n;
    const uint64_t keep =
        ~(o->class_mask | o->key_mask) & ((UINT64_C(1) << NQ_JOIN_BUCKET_SHIFT) - 1);
    for (j = 0; j < part; j++)
        for (int p = 0; p < SORT_PARTS; p++)
            place(src[p * part + j], keep, dst, at[p]);
    for (size_t i = SORT_PARTS * part; i < n; i++)
        place(src[i], keep, dst, at[SORT_PARTS - 1]);
}

/* Runs of the query list to join with one block: [begin, end), the
 * weight of their pairs, and the block members they may pair with (NULL:
 * all of them). */
typedef struct query_run {
    size_t begin, end;
    uint64_t weight;
    const uint64_t *mask;
} query_run;

/* One block's view of the keys: which query keys can pair with which of
 * its members.  The stored signatures lack the key bits, so that is
 * decided here and nowhere else: a query key q may meet the members of
 * key k exactly when q & k == 0.  Query keys that meet the same members
 * form segments of consecutive keys (the list is sorted by key), each with
 * the mask of its members, or NULL when they are all the block's. */
typedef struct block_keys {
    int segments;
    int first[NQ_JOIN_KEYS + 1]; /* segment s: query keys first[s] .. end[s] - 1 */
    int end[NQ_JOIN_KEYS + 1];
    const uint64_t *mask[NQ_JOIN_KEYS + 1];
    _Alignas(64) uint64_t masks[NQ_JOIN_KEYS + 1][NQ_JOIN_WORDS];
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

/* The set of query keys that miss every bit of key k, for each k: the
 * submasks of its complement.  Built up from k with its lowest bit
 * cleared (k & (k - 1)), dropping the keys that have that bit. */
static void fill_compatible(uint64_t compatible[NQ_JOIN_KEYS])
{
    /* Bit q of without[j] is set when key q lacks bit j. */
    static const uint64_t without[NQ_JOIN_KEY_BITS] = {
        0x5555555555555555u, 0x3333333333333333u, 0x0f0f0f0f0f0f0f0fu,
        0x00ff00ff00ff00ffu, 0x0000ffff0000ffffu, 0x00000000ffffffffu,
    };
    compatible[0] = ~UINT64_C(0);
    for (int k = 1; k < NQ_JOIN_KEYS; k++)
        compatible[k] = compatible[k & (k - 1)] & without[__builtin_ctz((unsigned)k)];
}

/* Fills *bk for the block b[first .. end) of one class whose bucket starts
 * (of that class) are bs[0 .. NQ_JOIN_KEYS]; kb is the block's first key. */
static void find_block_keys(const size_t *bs, int kb, size_t first, size_t end,
                            const uint64_t compatible[NQ_JOIN_KEYS], block_keys *bk)
{
    int key[NQ_JOIN_KEYS], nkeys = 0;
    size_t lo[NQ_JOIN_KEYS], hi[NQ_JOIN_KEYS];
    uint64_t any = 0; /* query keys that meet some member */
    for (int k = kb; k < NQ_JOIN_KEYS && bs[k] < end; k++)
        if (bs[k + 1] > bs[k]) {
            key[nkeys] = k;
            lo[nkeys] = (bs[k] > first ? bs[k] : first) - first;
            hi[nkeys++] = (bs[k + 1] < end ? bs[k + 1] : end) - first;
            any |= compatible[k];
        }
    bk->segments = 0;
    const uint64_t all = nkeys == 64 ? ~UINT64_C(0) : (UINT64_C(1) << nkeys) - 1;
    uint64_t prev = 0;
    int last = -2; /* the query key visited before */
    for (; any; any &= any - 1) { /* any & (any - 1): the next key of the set */
        const int q = __builtin_ctzll(any);
        uint64_t meets = 0; /* bit i: q may meet the members of key[i] */
        for (int i = 0; i < nkeys; i++)
            meets |= (uint64_t)((q & key[i]) == 0) << i;
        if (meets == prev && q == last + 1) { /* the segment before goes on */
            bk->end[bk->segments - 1] = q + 1;
            last = q;
            continue;
        }
        const int sg = bk->segments++;
        bk->first[sg] = q;
        bk->end[sg] = q + 1;
        bk->mask[sg] = NULL;
        if (meets != all) {
            memset(bk->masks[sg], 0, sizeof bk->masks[sg]);
            for (int i = 0; i < nkeys; i++)
                if (meets >> i & 1)
                    set_range(bk->masks[sg], lo[i], hi[i]);
            bk->mask[sg] = bk->masks[sg];
        }
        prev = meets;
        last = q;
    }
}

/* The pairs of block b[0 .. len) with the runs, by the double loop. */
static uint64_t block_naive(const uint64_t *b, size_t len, const uint64_t *q,
                            const query_run *runs, size_t nruns)
{
    uint64_t count = 0;
    for (size_t r = 0; r < nruns; r++)
        for (size_t j = 0; j < len; j++)
            if (!runs[r].mask || (runs[r].mask[j >> 6] >> (j & 63) & 1))
                count += runs[r].weight *
                         nq_join_count_naive(q + runs[r].begin, runs[r].end - runs[r].begin,
                                             b + j, 1);
    return count;
}

uint64_t nq_join_sorted_count(const nq_join_list *a, const nq_join_list *b,
                              const uint8_t weight[NQ_JOIN_MAX_CLASSES][NQ_JOIN_MAX_CLASSES],
                              int bits, nq_join_scratch *js)
{
    if (a->len == 0 || b->len == 0)
        return 0;
    /* b becomes the sliced list (see nq_join_count); weight is indexed
     * [query class][block class] from here on. */
    int swapped = 0;
    if (join_cost(b->len, a->len) < join_cost(a->len, b->len)) {
        const nq_join_list *t = a;
        a = b;
        b = t;
        swapped = 1;
    }
    /* Keys leave about a quarter of the queries to each block (join.h). */
    int keyed = 0; /* some member has a key other than 0 */
    for (int c = 0; c < NQ_JOIN_MAX_CLASSES; c++)
        keyed |= a->start[c * NQ_JOIN_KEYS + 1] != a->start[(c + 1) * NQ_JOIN_KEYS];
    const int cbits = chunk_bits(bits, keyed ? a->len / 4 : a->len);
    const int nch = chunk_count(bits, cbits);
    const join_loops *loops = &kernel_loops[nq_join_kernel_in_use()];
    uint64_t compatible[NQ_JOIN_KEYS];
    fill_compatible(compatible);
    block_keys bk;
    query_run runs[NQ_JOIN_MAX_CLASSES * (NQ_JOIN_KEYS + 1)];
    uint64_t count = 0;
    for (int cb = 0; cb < NQ_JOIN_MAX_CLASSES; cb++) {
        const size_t *bs = b->start + cb * NQ_JOIN_KEYS;
        int kb = 0; /* the first key of the class that can be in the block */
        for (size_t first = bs[0]; first < bs[NQ_JOIN_KEYS]; first += NQ_JOIN_BLOCK) {
            const size_t end = bs[NQ_JOIN_KEYS] - first < NQ_JOIN_BLOCK ? bs[NQ_JOIN_KEYS]
                                                                          : first + NQ_JOIN_BLOCK;
            while (bs[kb + 1] <= first)
                kb++;
            find_block_keys(bs, kb, first, end, compatible, &bk);
            size_t nruns = 0, queries = 0;
            for (int ca = 0; ca < NQ_JOIN_MAX_CLASSES; ca++) {
                const uint8_t w = swapped ? weight[cb][ca] : weight[ca][cb];
                const size_t *as = a->start + ca * NQ_JOIN_KEYS;
                for (int sg = 0; w && sg < bk.segments; sg++)
                    if (as[bk.end[sg]] > as[bk.first[sg]]) {
                        runs[nruns++] = (query_run){as[bk.first[sg]], as[bk.end[sg]], w,
                                                    bk.mask[sg]};
                        queries += as[bk.end[sg]] - as[bk.first[sg]];
                    }
            }
            if (queries == 0)
                continue;
            if (queries * (end - first) <= NQ_JOIN_NAIVE_PAIRS) {
                count += block_naive(b->sig + first, end - first, a->sig, runs, nruns);
                continue;
            }
            build_block(js, loops->transpose, b->sig + first, end - first, nch, cbits);
            for (size_t r = 0; r < nruns; r++)
                count += runs[r].weight * loops->queries(js, a->sig + runs[r].begin,
                                                         runs[r].end - runs[r].begin, nch, cbits,
                                                         runs[r].mask);
        }
    }
    return count;
}
