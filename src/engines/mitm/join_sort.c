/*
 * join_sort.c - ordering the two lists of a join by class and key (see
 * join.h): the bits sampled, the key picked, and a counting sort that cuts
 * the class and key bits out of the stored signatures.
 *
 * Two members whose keys share a bit cannot match, so a join over sorted
 * lists skips whole runs (join.c); the key takes the bits the most
 * sampled pairs share (wide keys: that cut the most sampled pairs
 * together), best on top, so consecutive keys, and the members of one
 * block, agree on the bits that skip the most.  A kernel source:
 * compiled once per kernel level (core/kernel.h; mitm/kernels.c picks the
 * copy), so BMI2's pext gathers the key bits where the level has it, the
 * AVX-512 copies count a sampled member's 64 bits with one subtraction
 * (nq_join_sample_bits: on the odd boards whose lists are just long enough
 * for keys, N = 19, bit by bit it took 4% of the count), and the ICL copy
 * gathers eight members' key and class bits with one bit shuffle
 * (tags_avx512), inlined into the sort's first pass.
 */
#include <string.h>

#if defined(__BMI2__) || defined(__AVX512BW__)
#include <immintrin.h>
#endif

#include "core/kernel.h"
#include "engines/mitm/join.h"

#ifdef __AVX512BW__
/* Adds the byte counters of acc (lane j: bit j) to count[0 .. bits). */
static void add_bit_counts(__m512i acc, int bits, uint32_t *count)
{
    uint8_t lanes[64];
    _mm512_storeu_si512(lanes, acc);
    for (int j = 0; j < bits; j++)
        count[j] += lanes[j];
}
#endif

void NQ_KERNEL_FN(nq_join_sample_bits)(const uint64_t *v, size_t n, int bits, uint32_t *count)
{
    const size_t step = nq_join_sample_step(n);
    const uint64_t mask = bits < 64 ? (UINT64_C(1) << bits) - 1 : ~UINT64_C(0);
#ifdef __AVX512BW__
    /* vpmovm2b turns a member into 64 bytes, -1 where it has the bit and 0
     * where not, so subtracting it counts every bit at once; a byte holds
     * 255 members before the counters are added up (at most 1024 are). */
    __m512i acc = _mm512_setzero_si512();
    unsigned held = 0;
    for (size_t i = 0; i < n; i += step) {
        acc = _mm512_sub_epi8(acc, _mm512_movm_epi8((__mmask64)(v[i] & mask)));
        if (++held == 255) {
            add_bit_counts(acc, bits, count);
            acc = _mm512_setzero_si512();
            held = 0;
        }
    }
    add_bit_counts(acc, bits, count);
#else
    for (size_t i = 0; i < n; i += step)
        /* Visit only the set bits: x &= x - 1 clears the lowest one. */
        for (uint64_t x = v[i] & mask; x; x &= x - 1)
            count[__builtin_ctzll(x)]++;
#endif
}

/* Sets o's key to the n signature bits best[0 .. n), best first: the
 * first on top, so that consecutive keys agree on the bits that skip the
 * most. */
static void set_key(nq_join_order *o, const int *best, int n)
{
    int rank_of[NQ_JOIN_MAX_BITS]; /* bit j is the key's rank_of[j]-th best bit */
    o->key_mask = 0;
    o->key_bits = n;
    for (int r = 0; r < n; r++) {
        o->key_mask |= UINT64_C(1) << best[r];
        rank_of[best[r]] = r;
    }
    /* Packed bit i (the i-th lowest bit of the mask) becomes key bit
     * key_bits - 1 - rank: the best bit on top. */
    int to[NQ_JOIN_KEY_BITS_MAX], i = 0;
    for (uint64_t m = o->key_mask; m; m &= m - 1) { /* m & (m - 1): the next set bit */
        to[i] = n - 1 - rank_of[__builtin_ctzll(m)];
        o->key_pos[to[i++]] = (uint8_t)__builtin_ctzll(m);
    }
    for (uint32_t packed = 0; packed < (UINT32_C(1) << n); packed++) {
        uint32_t key = 0;
        for (int b = 0; b < n; b++)
            /* cppcheck-suppress uninitvar ; the loop above set to[0 .. n) */
            key |= (packed >> b & 1) << to[b];
        o->key_of[packed] = (uint16_t)key;
    }
}

/* The bit j < bits outside `taken` with the highest score[j] (the lowest
 * such bit on a tie), or -1 when every such score is 0. */
static int best_bit(const uint64_t *score, int bits, uint64_t taken)
{
    int best = -1;
    for (int j = 0; j < bits; j++)
        if (!(taken >> j & 1) && score[j] > (best < 0 ? 0 : score[best]))
            best = j;
    return best;
}

void NQ_KERNEL_FN(nq_join_pick_key)(const uint32_t *count_a, const uint32_t *count_b, int bits,
                                     int key_bits, nq_join_order *o)
{
    uint64_t pairs[NQ_JOIN_MAX_BITS]; /* the sampled pairs that share bit j */
    for (int j = 0; j < bits; j++)
        pairs[j] = (uint64_t)count_a[j] * count_b[j];
    int best_first[NQ_JOIN_KEY_BITS_MAX], n = 0;
    uint64_t taken = o->class_mask;
    for (int best; n < key_bits && (best = best_bit(pairs, bits, taken)) >= 0; n++) {
        taken |= UINT64_C(1) << best;
        best_first[n] = best;
    }
    set_key(o, best_first, n);
}

/* The sampled members of a list: NQ_JOIN_PAIR_SAMPLE of them spread
 * evenly over it, or all of a shorter one.  Returns how many. */
static size_t pair_sample(const uint64_t *v, size_t n, uint64_t *out)
{
    const size_t m = n < NQ_JOIN_PAIR_SAMPLE ? n : NQ_JOIN_PAIR_SAMPLE;
    for (size_t i = 0; i < m; i++)
        out[i] = v[i * n / m]; /* i * n < 2^9 * 2^32: no overflow */
    return m;
}

void NQ_KERNEL_FN(nq_join_pick_key_by_pairs)(const uint64_t *a, size_t na, const uint64_t *b,
                                              size_t nb, int bits, int key_bits, nq_join_order *o)
{
    enum { WORDS = NQ_JOIN_PAIR_SAMPLE / 64 };
    uint64_t sa[NQ_JOIN_PAIR_SAMPLE], sb[NQ_JOIN_PAIR_SAMPLE];
    const size_t ma = pair_sample(a, na, sa), mb = pair_sample(b, nb, sb);
    /* with[j]: the sampled members of b that have bit j; alive[i]: those
     * whose pair with a's member i shares none of the bits taken so far. */
    uint64_t with[NQ_JOIN_MAX_BITS][WORDS] = {{0}}, alive[NQ_JOIN_PAIR_SAMPLE][WORDS];
    for (size_t k = 0; k < mb; k++)
        for (uint64_t m = sb[k]; m; m &= m - 1) /* m & (m - 1): the next set bit */
            if (__builtin_ctzll(m) < bits)
                with[__builtin_ctzll(m)][k / 64] |= UINT64_C(1) << (k % 64);
    for (size_t i = 0; i < ma; i++)
        for (int w = 0; w < WORDS; w++) {
            const size_t lo = (size_t)w * 64;
            alive[i][w] = mb >= lo + 64 ? ~UINT64_C(0)
                          : mb > lo     ? (UINT64_C(1) << (mb - lo)) - 1
                                        : 0;
        }
    int best_first[NQ_JOIN_KEY_BITS_MAX], n = 0;
    uint64_t taken = o->class_mask;
    for (; n < key_bits; n++) {
        uint64_t cut[NQ_JOIN_MAX_BITS] = {0}; /* the live pairs that share bit j */
        for (int j = 0; j < bits; j++)
            for (size_t i = 0; i < ma && !(taken >> j & 1); i++)
                if (sa[i] >> j & 1)
                    for (int w = 0; w < WORDS; w++)
                        cut[j] += (uint64_t)__builtin_popcountll(alive[i][w] & with[j][w]);
        const int best = best_bit(cut, bits, taken);
        if (best < 0) /* no live sampled pair shares a bit left */
            break;
        taken |= UINT64_C(1) << best;
        best_first[n] = best;
        for (size_t i = 0; i < ma; i++)
            if (sa[i] >> best & 1)
                for (int w = 0; w < WORDS; w++)
                    alive[i][w] &= ~with[best][w];
    }
    set_key(o, best_first, n);
}

/* How to pack the bits of a mask into the low bits in their order: pext
 * where the level has BMI2; elsewhere one shift, AND and OR per run of
 * consecutive bits of the mask (a sort's masks keep or drop a few runs:
 * its kept bits, cut by at most 18 class and key bits, are at most 19), not
 * one per bit. */
typedef struct bit_gather {
    uint64_t mask;
#ifndef __BMI2__
    int runs;
    uint8_t from[32], to[32]; /* run r: bits from[r] .. of v to bits to[r] .. */
    uint64_t bits[32];        /* run r's bits, shifted down to bit 0 */
#endif
} bit_gather;

static void bit_gather_init(bit_gather *g, uint64_t mask)
{
    g->mask = mask;
#ifndef __BMI2__
    g->runs = 0;
    int to = 0;
    for (uint64_t left = mask; left;) {
        int from;
        const int len = nq_lowest_bit_run(left, &from);
        g->from[g->runs] = (uint8_t)from;
        g->to[g->runs] = (uint8_t)to;
        g->bits[g->runs++] = len == 64 ? ~UINT64_C(0) : (UINT64_C(1) << len) - 1;
        to += len;
        left = nq_bits_from(left, from + len);
    }
#endif
}

/* The bits of v under g's mask, packed into the low bits in their order. */
static inline uint64_t gather_bits(uint64_t v, const bit_gather *g)
{
#ifdef __BMI2__
    return _pext_u64(v, g->mask);
#else
    uint64_t out = 0;
    for (int r = 0; r < g->runs; r++) /* a count fixed per sort: predicted */
        out |= (v >> g->from[r] & g->bits[r]) << g->to[r];
    return out;
#endif
}

/* The sort works on four parts of the list at once, each with its own
 * counters: members in a row of one bucket would otherwise wait on each
 * other's counter updates (store to load), as a bucket holds many. */
#define SORT_PARTS NQ_JOIN_SORT_PARTS

/* Members ahead of the one the scatter writes whose slot it prefetches,
 * in lists of at least SCATTER_PREFETCH_MIN members: 2 MiB of slots, more
 * than a core's L2 cache holds.  A shorter list's slot lines mostly come
 * from the L2 cache anyway, and the prefetch's own loads (the tag and the
 * counter of the member ahead) cost more than it saves: whole units of
 * N = 19 to 21 and 23, whose lists hold 2^13 to 2^18 members, took 0.97
 * to 0.98 of the time without it, while N = 22's longer lists gain from
 * it (docs/performance.md, "Figures the code's choices rest on"). */
#define SCATTER_AHEAD 16
#define SCATTER_PREFETCH_MIN ((size_t)1 << 18)

/* Long lists with wide keys (past NQ_JOIN_WHOLE_TAG_BITS: the sixteen
 * bits of N = 28's batches) are sorted in two passes, by the key's low
 * half and then by the rest (a radix sort, least significant digit
 * first): one pass writes each member to one of 3 * 2^16 buckets (times
 * the parts), far more write streams than the L2 cache holds lines, so
 * most writes fetch their line again; each of two passes writes to a
 * few hundred.  N = 28's units whose batches take sixteen bits take
 * about 0.94 of their time (the whole board 0.99); with the fourteen bits
 * of N = 26's long lists two passes were a little slower
 * (docs/performance.md, "Figures the code's choices rest on"). */
#define TWO_PASS_MIN ((size_t)1 << 21)

/* A member's tag: its key (low key_bits bits) and above it its two class
 * bits as they stand.  A bucket (class << key_bits | key) is one tag, or
 * two for class 1 (either class bit).  The tag array keeps each member's
 * tag while it is sorted, apart from the signatures so that the first
 * pass only reads the list (a quarter of the bytes written back); its 16
 * bits hold the whole tag for keys of up to 14 bits, and the key alone
 * for wider ones, whose class bits the second pass takes from the member
 * again (a wider array would take 64 MiB more a thread at N = 28). */
_Static_assert(NQ_JOIN_KEY_BITS_MAX <= 16, "a key fits the tag array's 16 bits");
#define NQ_JOIN_WHOLE_TAG_BITS 14

static inline uint32_t tag_of(uint64_t v, const nq_join_order *o, const bit_gather *key,
                              const bit_gather *classes)
{
    return o->key_of[gather_bits(v, key)] | (uint32_t)gather_bits(v, classes) << o->key_bits;
}

/* The tag of member v whose tag array entry is kept: the entry, with the
 * class bits added from v where the array keeps the key alone (wide). */
static inline uint32_t kept_tag(uint16_t kept, uint64_t v, int wide, const bit_gather *classes,
                                int key_bits)
{
    return kept | (wide ? (uint32_t)gather_bits(v, classes) << key_bits : 0);
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
                          uint32_t count[SORT_PARTS][NQ_JOIN_SORT_ROW])
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

/* What the sort's second pass reads (nq_join_sort). */
typedef struct scatter_args {
    const uint64_t *src;
    size_t n, part, ahead; /* prefetching while j < ahead */
    const uint16_t *tag;
    int key_bits;
    const bit_gather *keep, *classes;
    uint64_t *dst;
} scatter_args;

/* The second pass: each member, cut to its kept bits, to its slot; count
 * holds each tag's next slot in its part.  wide as in kept_tag. */
static inline __attribute__((always_inline)) void
scatter(const scatter_args *a, uint32_t (*count)[NQ_JOIN_SORT_ROW], const int wide)
{
    const uint64_t *src = a->src;
    const uint16_t *tag = a->tag;
    const size_t part = a->part;
    const int kb = a->key_bits;
    size_t j;
    for (j = 0; j < a->ahead; j++)
        for (int p = 0; p < SORT_PARTS; p++) {
            const size_t i = p * part + j, next = i + SCATTER_AHEAD;
            __builtin_prefetch(
                &a->dst[count[p][kept_tag(tag[next], src[next], wide, a->classes, kb)]], 1);
            a->dst[count[p][kept_tag(tag[i], src[i], wide, a->classes, kb)]++] =
                gather_bits(src[i], a->keep);
        }
    for (; j < part; j++)
        for (int p = 0; p < SORT_PARTS; p++) {
            const size_t i = p * part + j;
            a->dst[count[p][kept_tag(tag[i], src[i], wide, a->classes, kb)]++] =
                gather_bits(src[i], a->keep);
        }
    for (size_t i = SORT_PARTS * part; i < a->n; i++)
        a->dst[count[SORT_PARTS - 1][kept_tag(tag[i], src[i], wide, a->classes, kb)]++] =
            gather_bits(src[i], a->keep);
}

/* The bucket of a whole tag: class bits 00, 01 or 10, 11 are classes 0,
 * 1 and 2, (bits + 1) / 2, above the key. */
static inline uint32_t tag_bucket(uint32_t t, int key_bits)
{
    return (((t >> key_bits) + 1) >> 1) << key_bits | (t & ((UINT32_C(1) << key_bits) - 1));
}

/* What the two passes read (two_passes). */
typedef struct two_pass_args {
    uint64_t *list; /* the members, and at the end the sorted list */
    uint64_t *temp; /* the members between the passes */
    size_t n, part;
    const uint16_t *tag;
    int key_bits, wide, low_bits;
    const bit_gather *keep, *classes;
} two_pass_args;

/* The sort by two passes (TWO_PASS_MIN): the first writes each member
 * to temp in order of its key's low_bits low bits (first[p][digit]: the
 * next slot of part p's members with that digit), cut, with its bucket in
 * the top key_bits + 2 bits, which the cut left free; the second takes
 * them in that order to list in order of the rest of their bucket
 * (rest[digit]: that digit's next slot), so each bucket's members come
 * in order of their low bits, as their bucket's place in the order
 * needs, and the bucket bits go.  Within a bucket the order is any. */
static void two_passes(const two_pass_args *a, uint32_t (*first)[1 << (NQ_JOIN_KEY_BITS_MAX / 2)],
                       uint32_t *rest)
{
    const uint64_t *src = a->list;
    const int kb = a->key_bits, shift = 64 - (kb + 2);
    const uint32_t low = (UINT32_C(1) << a->low_bits) - 1;
    for (size_t j = 0; j < a->part; j++)
        for (int p = 0; p < SORT_PARTS; p++) {
            const size_t i = p * a->part + j;
            const uint32_t t = kept_tag(a->tag[i], src[i], a->wide, a->classes, kb);
            a->temp[first[p][t & low]++] =
                gather_bits(src[i], a->keep) | (uint64_t)tag_bucket(t, kb) << shift;
        }
    for (size_t i = SORT_PARTS * a->part; i < a->n; i++) {
        const uint32_t t = kept_tag(a->tag[i], src[i], a->wide, a->classes, kb);
        a->temp[first[SORT_PARTS - 1][t & low]++] =
            gather_bits(src[i], a->keep) | (uint64_t)tag_bucket(t, kb) << shift;
    }
    const uint64_t cut = (UINT64_C(1) << shift) - 1;
    for (size_t i = 0; i < a->n; i++) {
        const uint64_t v = a->temp[i];
        a->list[rest[v >> shift >> a->low_bits]++] = v & cut;
    }
}

void NQ_KERNEL_FN(nq_join_sort)(uint64_t *src, size_t n, const nq_join_order *o, uint16_t *tag,
                                 nq_join_scratch *js, uint64_t *dst, nq_join_list *out)
{
    const size_t part = n / SORT_PARTS; /* part p: src[p * part ..], the rest goes with the last */
    const int kb = o->key_bits;
    const uint32_t keys = UINT32_C(1) << kb;
    /* Wide keys: the tag array keeps the key alone; the first pass counts
     * whole tags (tag_of), the second adds the class bits to the key
     * (kept_tag). */
    const int wide = kb > NQ_JOIN_WHOLE_TAG_BITS;
    const uint32_t kept = wide ? keys - 1 : UINT32_MAX; /* the tag bits the array keeps */
    uint32_t(*count)[NQ_JOIN_SORT_ROW] = js->sort_count;
    for (int p = 0; p < SORT_PARTS; p++)
        memset(count[p], 0, 4 * keys * sizeof count[p][0]);
    bit_gather key, classes;
    bit_gather_init(&key, o->key_mask);
    bit_gather_init(&classes, o->class_mask);
    size_t j = 0;
#if defined(__AVX512BITALG__) && defined(__AVX512BW__)
    if (kb <= 8)
        j = tags_avx512(src, part, o, tag, count);
#endif
    /* The bits of the members this loop counts: of all of them where two
     * passes may follow (wide keys, which the vector tags above never
     * take), and those need the top bits free. */
    uint64_t seen = 0;
    for (; j < part; j++)
        for (int p = 0; p < SORT_PARTS; p++) {
            const uint64_t v = src[p * part + j];
            const uint32_t t = tag_of(v, o, &key, &classes);
            tag[p * part + j] = (uint16_t)(t & kept);
            count[p][t]++;
            seen |= v;
        }
    for (size_t i = SORT_PARTS * part; i < n; i++) {
        const uint32_t t = tag_of(src[i], o, &key, &classes);
        tag[i] = (uint16_t)(t & kept);
        count[SORT_PARTS - 1][t]++;
        seen |= src[i];
    }
    bit_gather keep;
    bit_gather_init(&keep, ~(o->class_mask | o->key_mask));
    /* Two passes where they pay and the cut members leave the bucket's
     * kb + 2 bits free (always with two class bits; with fewer, members of
     * at most 62 bits, as every board's). */
    const int two = wide && n >= TWO_PASS_MIN &&
                    64 - __builtin_clzll(gather_bits(seen, &keep) | 1) <= 64 - (kb + 2);
    const int low_bits = kb / 2;
    uint32_t first[SORT_PARTS][1 << (NQ_JOIN_KEY_BITS_MAX / 2)];
    if (two)
        memset(first, 0, sizeof first);
    /* Buckets in order, each its tags' parts in turn; count becomes each
     * tag's next slot in its part. */
    const uint32_t buckets = NQ_JOIN_MAX_CLASSES * keys;
    memset(out->filled, 0, (buckets + 63) / 64 * sizeof out->filled[0]);
    uint32_t sum = 0;
    for (uint32_t b = 0; b < buckets; b++) {
        const uint32_t c = b >> kb, k = b & (keys - 1);
        const uint32_t tags[2] = {k | (c == 2 ? 3 : c) << kb, k | 2 << kb};
        out->start[b] = sum;
        for (int i = 0; i < (c == 1 ? 2 : 1); i++)
            for (int p = 0; p < SORT_PARTS; p++) {
                const uint32_t size = count[p][tags[i]];
                count[p][tags[i]] = sum;
                sum += size;
                if (two)
                    first[p][k & ((UINT32_C(1) << low_bits) - 1)] += size;
            }
        out->filled[b / 64] |= (uint64_t)(sum > out->start[b]) << (b % 64);
    }
    out->start[buckets] = sum;
    out->sig = two ? src : dst;
    out->len = n;
    out->key_bits = kb;
    if (two) {
        /* Slots in order of the low digit, each digit's parts in turn;
         * the rest of a bucket starts where its first bucket does. */
        uint32_t rest[NQ_JOIN_MAX_CLASSES << (NQ_JOIN_KEY_BITS_MAX - NQ_JOIN_KEY_BITS_MAX / 2)];
        uint32_t at = 0;
        for (uint32_t d = 0; d < (UINT32_C(1) << low_bits); d++)
            for (int p = 0; p < SORT_PARTS; p++) {
                const uint32_t size = first[p][d];
                first[p][d] = at;
                at += size;
            }
        for (uint32_t d = 0; d < (uint32_t)NQ_JOIN_MAX_CLASSES << (kb - low_bits); d++)
            rest[d] = out->start[d << low_bits];
        const two_pass_args a = {src, dst, n, part, tag, kb, wide, low_bits, &keep, &classes};
        two_passes(&a, first, rest);
        return;
    }
    /* Each member, cut, to its slot.  A long list's buckets (times the
     * parts) are more write streams than the hardware prefetcher follows,
     * and each first write to a line would wait for it from memory, so the
     * slot line of the member SCATTER_AHEAD on is asked for (for writing)
     * first where the list is long enough for that to pay.  That slot may
     * move on before the member comes (its bucket fills a little more), but
     * mostly stays on the same line; a prefetch never faults, whatever the
     * address. */
    const size_t ahead =
        n >= SCATTER_PREFETCH_MIN && part > SCATTER_AHEAD ? part - SCATTER_AHEAD : 0;
    const scatter_args a = {src, n, part, ahead, tag, kb, &keep, &classes, dst};
    /* Two copies, so that narrow keys' hot loop does no class work. */
    if (wide)
        scatter(&a, count, 1);
    else
        scatter(&a, count, 0);
}
