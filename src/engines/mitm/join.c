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
 * pairs at N = 20 and 21, at the price of one counting sort per list;
 * eight bits skip a fifth more at N = 22.  Keys put the bit that skips the
 * most on top, so consecutive keys, and the members of one block, agree
 * on the best bits.
 * The sort cuts the key bits out of the stored signatures, which saves a
 * table look-up per query where that drops a chunk; in exchange the join
 * decides them per block: a query key may meet exactly the members whose
 * keys share no bit with it, so a run of query keys that meets only some
 * of a block's members carries the mask of those (block_runs).
 *
 * A block's tables and the query loop over its runs come per architecture
 * (join_kernels.h): the portable ones are here, with the table that is the
 * only place a kernel's loops are chosen; the x86-64 ones are in x86/.
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

static uint64_t queries_scalar(const nq_join_scratch *js, const uint64_t *q,
                               const nq_join_run *runs, size_t nruns, int nch, int cbits)
{
    NQ_JOIN_SPECIALIZE(block_queries_scalar);
}

/* The portable tables (nq_join_build_fn): the scalar transpose, then each
 * entry from a smaller one: v is (v with its lowest bit cleared) plus that
 * bit, so reuse that entry and remove the members having the extra bit. */
static void build_portable(nq_join_scratch *js, const uint64_t *b, size_t len, int nch, int cbits)
{
    transpose_scalar(js, b, len, nch * cbits);
    uint64_t live[NQ_JOIN_WORDS];
    nq_join_live_members(len, live);
    for (int c = 0; c < nch; c++) {
        uint64_t (*t)[NQ_JOIN_WORDS] = js->table[c];
        memcpy(t[0], live, sizeof live);
        for (int v = 1; v < 1 << cbits; v++) {
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

/* A kernel's two loops. */
typedef struct join_loops {
    nq_join_build_fn *build;
    nq_join_queries_fn *queries;
} join_loops;

/* The dispatch point: each kernel's loops, indexed by kernel.  A kernel
 * this build lacks keeps NULL entries; nq_join_kernel_in_use() never
 * returns it. */
static const join_loops kernel_loops[NQ_JOIN_KERNEL_AVX512 + 1] = {
    [NQ_JOIN_KERNEL_SCALAR] = {build_portable, queries_scalar},
#ifdef NQ_JOIN_X86
    [NQ_JOIN_KERNEL_AVX2] = {build_portable, nq_join_queries_avx2},
    [NQ_JOIN_KERNEL_AVX512] = {nq_join_build_avx512, nq_join_queries_avx512},
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
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("gfni") &&
               __builtin_cpu_supports("avx512vpopcntdq");
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
    const nq_join_run whole = {0, (uint32_t)na, 1, NQ_JOIN_ALL_MEMBERS};
    uint64_t count = 0;
    for (size_t first = 0; first < nb; first += NQ_JOIN_BLOCK) {
        const size_t len = nb - first < NQ_JOIN_BLOCK ? nb - first : NQ_JOIN_BLOCK;
        loops->build(js, b + first, len, nch, cbits);
        count += loops->queries(js, a, &whole, 1, nch, cbits);
    }
    return count;
}

void nq_join_sample_bits(const uint64_t *v, size_t n, int bits, uint32_t *count)
{
    const size_t sample = n / 256 < NQ_JOIN_SAMPLE_MIN   ? NQ_JOIN_SAMPLE_MIN
                          : n / 256 > NQ_JOIN_SAMPLE_MAX ? NQ_JOIN_SAMPLE_MAX
                                                         : n / 256;
    const size_t step = n > sample ? n / sample : 1;
    const uint64_t mask = bits < 64 ? (UINT64_C(1) << bits) - 1 : ~UINT64_C(0);
    for (size_t i = 0; i < n; i += step)
        /* Visit only the set bits: x &= x - 1 clears the lowest one. */
        for (uint64_t x = v[i] & mask; x; x &= x - 1)
            count[__builtin_ctzll(x)]++;
}

void nq_join_pick_key(const uint32_t *count_a, const uint32_t *count_b, int bits, int key_bits,
                      nq_join_order *o)
{
    int rank_of[NQ_JOIN_MAX_BITS]; /* bit j is the key's rank_of[j]-th best bit */
    o->key_mask = 0;
    o->key_bits = 0;
    while (o->key_bits < key_bits) {
        int best = -1;
        uint64_t best_pairs = 0;
        for (int j = 0; j < bits; j++) {
            const uint64_t pairs = (uint64_t)count_a[j] * count_b[j];
            if (!((o->key_mask | o->class_mask) >> j & 1) && pairs > best_pairs) {
                best = j;
                best_pairs = pairs;
            }
        }
        if (best < 0) /* no bit left that any sampled pair shares */
            break;
        o->key_mask |= UINT64_C(1) << best;
        rank_of[best] = o->key_bits++;
    }
    /* Packed bit i (the i-th lowest bit of the mask) becomes key bit
     * key_bits - 1 - rank: the best bit on top. */
    int to[NQ_JOIN_KEY_BITS_MAX], i = 0;
    for (uint64_t m = o->key_mask; m; m &= m - 1) { /* m & (m - 1): the next set bit */
        to[i] = o->key_bits - 1 - rank_of[__builtin_ctzll(m)];
        o->key_pos[to[i++]] = (uint8_t)__builtin_ctzll(m);
    }
    for (uint32_t packed = 0; packed < (UINT32_C(1) << o->key_bits); packed++) {
        uint32_t key = 0;
        for (int b = 0; b < o->key_bits; b++)
            key |= (packed >> b & 1) << to[b];
        o->key_of[packed] = (uint16_t)key;
    }
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

/* A member's tag, kept in the tag array while it is sorted: its key (low
 * key_bits bits) and above it its two class bits as they stand.  A bucket
 * (class << key_bits | key) is one tag, or two for class 1 (either class
 * bit).  Tags live apart from the signatures so that the first pass only
 * reads the list (a quarter of the bytes written back). */
#define TAG_VALUES (4 * NQ_JOIN_KEYS_MAX)

static inline uint16_t tag_of(uint64_t v, const nq_join_order *o)
{
    return (uint16_t)(o->key_of[gather_bits(v, o->key_mask)] |
                      gather_bits(v, o->class_mask) << o->key_bits);
}

#if defined(__AVX512BITALG__) && defined(__AVX512BW__)
/* The control of a bit shuffle that gathers signature bits pos[0 .. n)
 * into bits 0 .. n - 1 of a byte; the other bytes name bit 63, and what
 * they gather is masked off (tags_avx512). */
static uint64_t shuffle_control(const uint8_t *pos, int n)
{
    uint64_t control = UINT64_C(0x3f3f3f3f3f3f3f3f);
    for (int i = 0; i < n; i++)
        control = (control & ~(UINT64_C(0xff) << 8 * i)) | (uint64_t)pos[i] << 8 * i;
    return control;
}

/* The tags of src[0 .. 8k) of each of the four parts of length part (the
 * parts start part apart) into tag[], counted, for keys of at most 8 bits:
 * vpshufbitqmb gathers the key bits of eight members into one byte each of
 * a 64-bit mask, and a second one their class bits; the tags are counted
 * four parts interleaved.  Returns 8k. */
static size_t tags_avx512(const uint64_t *src, size_t part, const nq_join_order *o, uint16_t *tag,
                          uint32_t count[SORT_PARTS][TAG_VALUES])
{
    uint8_t class_pos[2] = {63, 63}, nclass = 0;
    for (uint64_t m = o->class_mask; m; m &= m - 1) /* m & (m - 1): the next set bit */
        class_pos[nclass++] = (uint8_t)__builtin_ctzll(m);
    const __m512i key_ctl = _mm512_set1_epi64((long long)shuffle_control(o->key_pos, o->key_bits));
    const __m512i class_ctl = _mm512_set1_epi64((long long)shuffle_control(class_pos, 2));
    const int kb = o->key_bits;
    /* each byte's key bits and class bits (its other bits gathered bit 63) */
    const uint64_t key_bytes = UINT64_C(0x0101010101010101) * ((1u << kb) - 1);
    const uint64_t class_bytes = UINT64_C(0x0101010101010101) * ((1u << nclass) - 1);
    const size_t whole = part & ~(size_t)7;
    for (size_t j = 0; j < whole; j += 8) {
        uint64_t keys[SORT_PARTS], classes[SORT_PARTS];
        for (int p = 0; p < SORT_PARTS; p++) {
            const __m512i v = _mm512_loadu_si512(src + p * part + j);
            keys[p] = (uint64_t)_mm512_bitshuffle_epi64_mask(v, key_ctl) & key_bytes;
            classes[p] = (uint64_t)_mm512_bitshuffle_epi64_mask(v, class_ctl) & class_bytes;
            /* Byte l of each mask is member l's: widen each to a 16-bit lane. */
            const __m128i k = _mm_cvtepu8_epi16(_mm_cvtsi64_si128((long long)keys[p]));
            const __m128i c = _mm_cvtepu8_epi16(_mm_cvtsi64_si128((long long)classes[p]));
            _mm_storeu_si128((__m128i *)(tag + p * part + j),
                             _mm_or_si128(k, _mm_slli_epi16(c, kb)));
        }
        for (int l = 0; l < 8; l++)
            for (int p = 0; p < SORT_PARTS; p++)
                count[p][(keys[p] >> 8 * l & 0xff) | (classes[p] >> 8 * l & 0xff) << kb]++;
    }
    return whole;
}
#endif

void nq_join_sort(const uint64_t *src, size_t n, const nq_join_order *o, uint16_t *tag,
                  uint64_t *dst, nq_join_list *out)
{
    const size_t part = n / SORT_PARTS; /* part p: src[p * part ..], the rest goes with the last */
    const int kb = o->key_bits;
    const uint32_t keys = UINT32_C(1) << kb;
    uint32_t count[SORT_PARTS][TAG_VALUES];
    for (int p = 0; p < SORT_PARTS; p++)
        memset(count[p], 0, 4 * keys * sizeof count[p][0]);
    size_t j = 0;
#if defined(__AVX512BITALG__) && defined(__AVX512BW__)
    if (kb <= 8)
        j = tags_avx512(src, part, o, tag, count);
#endif
    for (; j < part; j++)
        for (int p = 0; p < SORT_PARTS; p++)
            count[p][tag[p * part + j] = tag_of(src[p * part + j], o)]++;
    for (size_t i = SORT_PARTS * part; i < n; i++)
        count[SORT_PARTS - 1][tag[i] = tag_of(src[i], o)]++;
    /* Buckets in order, each its tags' parts in turn; count becomes each
     * tag's next slot in its part. */
    uint32_t sum = 0;
    for (uint32_t b = 0; b < NQ_JOIN_MAX_CLASSES * keys; b++) {
        const uint32_t c = b >> kb, k = b & (keys - 1);
        const uint32_t tags[2] = {k | (c == 2 ? 3 : c) << kb, k | 2 << kb};
        out->start[b] = sum;
        for (int i = 0; i < (c == 1 ? 2 : 1); i++)
            for (int p = 0; p < SORT_PARTS; p++) {
                const uint32_t size = count[p][tags[i]];
                count[p][tags[i]] = sum;
                sum += size;
            }
    }
    out->start[NQ_JOIN_MAX_CLASSES * keys] = sum;
    out->sig = dst;
    out->len = n;
    out->key_bits = kb;
    const uint64_t keep = ~(o->class_mask | o->key_mask);
    for (j = 0; j < part; j++)
        for (int p = 0; p < SORT_PARTS; p++)
            dst[count[p][tag[p * part + j]]++] = gather_bits(src[p * part + j], keep);
    for (size_t i = SORT_PARTS * part; i < n; i++)
        dst[count[SORT_PARTS - 1][tag[i]]++] = gather_bits(src[i], keep);
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

/* Bit i set when query key q misses every bit of the block's key i, so
 * that q may meet its members (the stored signatures lack the key bits:
 * this is the only place they are compared). */
static inline uint64_t meets_of(uint32_t q, const block_keys *bk)
{
    uint64_t meets = 0;
    for (int i = 0; i < bk->count; i++)
        meets |= (uint64_t)((q & bk->key[i]) == 0) << i;
    return meets;
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
        for (int i = 0; i < bk->count; i++)
            if (meets >> i & 1)
                set_range(m, bk->lo[i], bk->hi[i]);
        *masked = meets;
    }
    return (uint32_t)(*nmasks - 1);
}

/* Fills js->runs with the runs of query list a that may meet the block
 * with keys bk, of the block's class cb: for each query class whose
 * weight with cb is not 0, the query keys that miss every bit of some
 * member key, all of them submasks of the complement of the bits every
 * member key has.  Consecutive query buckets meeting the same members
 * form one run, whose mask (when not every member) goes to js->masks.
 * Returns the number of runs; *queries gets their total length. */
static size_t block_runs(const nq_join_list *a, const block_keys *bk, const uint8_t *weight,
                         nq_join_scratch *js, size_t *queries)
{
    const int kb = a->key_bits;
    const uint32_t keys = UINT32_C(1) << kb;
    const uint64_t all = bk->count == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bk->count) - 1;
    uint32_t common = keys - 1;
    for (int i = 0; i < bk->count; i++)
        common &= bk->key[i];
    const uint32_t free_bits = (keys - 1) & ~common;
    size_t nruns = 0, nmasks = 0, total = 0;
    uint64_t masked = 0; /* the member set js->masks[nmasks - 1] holds */
    for (int ca = 0; ca < NQ_JOIN_MAX_CLASSES; ca++) {
        if (!weight[ca])
            continue;
        const uint32_t *as = a->start + ((size_t)ca << kb);
        uint64_t prev = 0;
        /* Submasks of free_bits in increasing order: setting the bits
         * outside it lets the +1 carry straight to the next one. */
        for (uint32_t q = 0;; q = ((q | ~free_bits) + 1) & free_bits) {
            if (as[q + 1] > as[q]) {
                const uint64_t meets = meets_of(q, bk);
                if (meets) {
                    total += as[q + 1] - as[q];
                    if (nruns && meets == prev && js->runs[nruns - 1].end == as[q])
                        js->runs[nruns - 1].end = as[q + 1]; /* the run before goes on */
                    else
                        js->runs[nruns++] = (nq_join_run){
                            as[q], as[q + 1], weight[ca],
                            run_mask(js, bk, meets, all, &nmasks, &masked)};
                }
                prev = meets;
            }
            if (q == free_bits)
                break;
        }
    }
    *queries = total;
    return nruns;
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

uint64_t nq_join_sorted_count(const nq_join_list *a, const nq_join_list *b,
                              const uint8_t weight[NQ_JOIN_MAX_CLASSES][NQ_JOIN_MAX_CLASSES],
                              int bits, nq_join_scratch *js)
{
    if (a->len == 0 || b->len == 0)
        return 0;
    /* b becomes the sliced list; the weights are taken [query class]
     * [block class] from here on.  Keyed lists slice the longer one: its
     * buckets are longer, so its blocks hold fewer keys and a query run
     * meets fewer members it cannot match (at N = 22 a third fewer
     * query-block pairs than slicing the shorter, for a few more runs and
     * blocks).  Unkeyed lists take nq_join_count's choice. */
    int swapped = 0;
    if (b->key_bits ? a->len > b->len : join_cost(b->len, a->len) < join_cost(a->len, b->len)) {
        const nq_join_list *t = a;
        a = b;
        b = t;
        swapped = 1;
    }
    const int kb = b->key_bits;
    const uint32_t keys = UINT32_C(1) << kb;
    const join_loops *loops = &kernel_loops[nq_join_kernel_in_use()];
    block_keys bk;
    uint64_t count = 0;
    for (int cb = 0; cb < NQ_JOIN_MAX_CLASSES; cb++) {
        uint8_t w[NQ_JOIN_MAX_CLASSES];
        for (int ca = 0; ca < NQ_JOIN_MAX_CLASSES; ca++)
            w[ca] = swapped ? weight[cb][ca] : weight[ca][cb];
        const uint32_t *bs = b->start + ((size_t)cb << kb);
        uint32_t k0 = 0; /* the first key of the class that can be in the block */
        size_t end;
        for (size_t first = bs[0]; first < bs[keys]; first = end) {
            end = bs[keys] - first < NQ_JOIN_BLOCK ? bs[keys] : first + NQ_JOIN_BLOCK;
            while (bs[k0 + 1] <= first)
                k0++;
            bk.count = 0;
            for (uint32_t k = k0; k < keys && bs[k] < end; k++) {
                if (bs[k + 1] == bs[k])
                    continue;
                if (bk.count == NQ_JOIN_BLOCK_KEYS || bs[k] >= first + NQ_JOIN_BLOCK_FULL) {
                    end = bs[k]; /* cut the block before key k */
                    break;
                }
                bk.key[bk.count] = k;
                bk.lo[bk.count] = (uint32_t)((bs[k] > first ? bs[k] : first) - first);
                bk.hi[bk.count++] = (uint32_t)((bs[k + 1] < end ? bs[k + 1] : end) - first);
            }
            size_t queries;
            const size_t nruns = block_runs(a, &bk, w, js, &queries);
            if (queries == 0)
                continue;
            if (queries * (end - first) <= NQ_JOIN_NAIVE_PAIRS) {
                count += block_naive(b->sig + first, end - first, a->sig, js, nruns);
                continue;
            }
            /* The chunk width by this block's queries (chunk_bits). */
            const int cbits = chunk_bits(bits, queries), nch = chunk_count(bits, cbits);
            loops->build(js, b->sig + first, end - first, nch, cbits);
            count += loops->queries(js, a->sig, js->runs, nruns, nch, cbits);
        }
    }
    return count;
}
