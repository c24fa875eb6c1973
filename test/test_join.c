/*
 * test_join.c - the mitm engine's join on its own (engines/mitm/join.h):
 * the bit-sliced count against the naive double loop, and the sort by
 * class and key with the sorted, weighted join against a double loop over
 * the unsorted lists, on random lists across the block edges, with every
 * join kernel and every kernel level's sort this machine runs.  (A whole
 * engine's joins, each kernel named by a job's tuning, are test_mitm.c's.)
 * The bit sampling that picks the keys is checked on its own, each kernel
 * level's copy against a count written here, and the join's progress
 * against where its work lies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/kernel.h"
#include "engines/mitm/join.h"
#include "engines/mitm/join_kernels.h"
#include "engines/mitm/kernels.h"
#include "mitm_util.h"

/* Signatures of `bits` bits, each bit set with probability about 1/density. */
static void random_sigs(uint64_t *v, size_t n, int bits, int density, uint64_t *x)
{
    const uint64_t mask = bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t s = ~UINT64_C(0);
        for (int d = 1; d < density; d++) /* AND of `density` words: 1/2^density per bit */
            s &= nq_test_random(x);
        v[i] = s & nq_test_random(x) & mask;
    }
}

/* The disjoint pairs of a and b by the obvious double loop: the reference,
 * written here so that it shares nothing with join.c (whose own naive loop
 * takes the smallest joins). */
static uint64_t pairs_naive(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    uint64_t count = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            count += (a[i] & b[j]) == 0;
    return count;
}

/* One kernel against the naive double loop, on random lists of sizes
 * around the block edges and signature widths the engine uses and more. */
static void join_kernel_against_naive(enum nq_join_kernel kernel)
{
    static const size_t sizes[] = {0, 1, 7, 63, 64, 65, 511, 512, 513, 1500, 2049};
    static const int bits[] = {1, 5, 12, 17, 24, 28, 32, 34, 38, 42, 61, 64};
    nq_join_scratch *js = aligned_alloc(64, sizeof *js);
    uint64_t *a = malloc(2100 * sizeof *a), *b = malloc(2100 * sizeof *b);
    assert_non_null(js);
    assert_non_null(a);
    assert_non_null(b);
    uint64_t x = 12345;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (size_t j = 0; j < sizeof sizes / sizeof *sizes; j++)
            for (size_t k = 0; k < sizeof bits / sizeof *bits; k++) {
                const int density = 1 + (int)((i + j + k) % 3);
                random_sigs(a, sizes[i], bits[k], density + 1, &x);
                random_sigs(b, sizes[j], bits[k], density + 1, &x);
                const uint64_t want = pairs_naive(a, sizes[i], b, sizes[j]);
                const uint64_t got =
                    nq_join_count(a, sizes[i], b, sizes[j], bits[k], kernel, js);
                if (got != want)
                    fail_msg("join kernel %d, %zu x %zu, %d bits: %llu, expected %llu", kernel,
                             sizes[i], sizes[j], bits[k], (unsigned long long)got,
                             (unsigned long long)want);
            }
    free(a);
    free(b);
    free(js);
}

/* One kernel against the naive double loop where each block meets enough
 * queries for the wide chunks (join.h): 33 to 40 bits take 9 or 10 a
 * chunk past 1,500 and 5,600 queries a block (join.c, chunk_bits). */
static void join_wide_chunks_against_naive(enum nq_join_kernel kernel)
{
    static const int bits[] = {33, 34, 36, 38, 40};
    const size_t nq = 6000, nb = 600;
    nq_join_scratch *js = aligned_alloc(64, sizeof *js);
    uint64_t *a = malloc(nq * sizeof *a), *b = malloc(nb * sizeof *b);
    assert_non_null(js);
    assert_non_null(a);
    assert_non_null(b);
    uint64_t x = 4242;
    for (size_t k = 0; k < sizeof bits / sizeof *bits; k++) {
        /* A bit in 8 set: about half the pairs match. */
        random_sigs(a, nq, bits[k], 3, &x);
        random_sigs(b, nb, bits[k], 3, &x);
        const uint64_t want = pairs_naive(a, nq, b, nb);
        const uint64_t got = nq_join_count(a, nq, b, nb, bits[k], kernel, js);
        assert_true(want > 0);
        if (got != want)
            fail_msg("join kernel %d, wide chunks, %d bits: %llu, expected %llu", kernel, bits[k],
                     (unsigned long long)got, (unsigned long long)want);
    }
    free(a);
    free(b);
    free(js);
}

/* The bit-sliced join equals the naive double loop, across block edges,
 * with every kernel this machine runs; the default is the fastest of them. */
static void test_join_kernel(void **state)
{
    (void)state;
    const enum nq_join_kernel chosen = nq_join_kernel_default();
    assert_true(nq_join_kernel_supported(NQ_JOIN_KERNEL_SCALAR));
    assert_true(nq_join_kernel_supported(chosen));
    for (int k = NQ_JOIN_KERNEL_SCALAR; k <= NQ_JOIN_KERNEL_AVX512; k++)
        if (nq_join_kernel_supported((enum nq_join_kernel)k)) {
            join_kernel_against_naive((enum nq_join_kernel)k);
            join_wide_chunks_against_naive((enum nq_join_kernel)k);
        }
    for (int k = NQ_JOIN_KERNEL_AVX512; k > (int)chosen; k--)
        assert_false(nq_join_kernel_supported((enum nq_join_kernel)k));
}

/* A checksum of v[0 .. n) that does not depend on the order. */
static uint64_t order_free_sum(const uint64_t *v, size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i] * 0x9e3779b97f4a7c15u;
    return sum;
}

/* Class (how many of the class bits) and stored value of x under order o,
 * from the definitions in join.h. */
static int class_of(uint64_t x, const nq_join_order *o)
{
    return __builtin_popcountll(x & o->class_mask);
}

/* The bits of x under mask, packed low in their order. */
static uint64_t bits_under(uint64_t x, uint64_t mask)
{
    uint64_t out = 0;
    for (int j = 0, k = 0; j < 64; j++)
        if (mask >> j & 1)
            out |= (x >> j & 1) << k++;
    return out;
}

/* x with the bits of `cut` taken out, the rest packed low. */
static uint64_t cut_bits(uint64_t x, uint64_t cut)
{
    return bits_under(x, ~cut);
}

/* The weighted pair count by the double loop over the unsorted lists. */
static uint64_t weighted_naive(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
                               const nq_join_order *o, const uint8_t weight[3][3])
{
    /* b's members without their class bits, and their classes, taken
     * once rather than once a pair: the windows' test joins lists of
     * thousands. */
    uint64_t *cut = malloc(nb * sizeof *cut);
    int *class = malloc(nb * sizeof *class);
    assert_true(cut && class);
    for (size_t j = 0; j < nb; j++) {
        cut[j] = cut_bits(b[j], o->class_mask);
        class[j] = class_of(b[j], o);
    }
    uint64_t count = 0;
    for (size_t i = 0; i < na; i++) {
        const uint64_t ai = cut_bits(a[i], o->class_mask);
        const uint8_t *w = weight[class_of(a[i], o)];
        for (size_t j = 0; j < nb; j++)
            if ((ai & cut[j]) == 0)
                count += w[class[j]];
    }
    free(cut);
    free(class);
    return count;
}

/* An order-free checksum of src[0 .. n) as sorting stores it: without
 * its class and key bits. */
static uint64_t cut_sum(const uint64_t *src, size_t n, const nq_join_order *o)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += cut_bits(src[i], o->class_mask | o->key_mask) * 0x9e3779b97f4a7c15u;
    return sum;
}

/* The key of x under order o, from the definition in join.h: key bit i
 * is signature bit key_pos[i]. */
static uint32_t key_under(uint64_t x, const nq_join_order *o)
{
    uint32_t key = 0;
    for (int i = 0; i < o->key_bits; i++)
        key |= (uint32_t)(x >> o->key_pos[i] & 1) << i;
    return key;
}

/* Each kernel level's copy of the sort, by level. */
static nq_join_sort_fn *const level_sorts[NQ_KERNEL_LEVELS] = {
    nq_join_sort_portable, nq_join_sort_avx2, nq_join_sort_avx512, nq_join_sort_avx512icl};

/* Sorts a copy of src with `sort` (one kernel level's copy) in `work`
 * and dst, and checks that the list, in whichever of them the sort says,
 * holds the cut members (by checksum), each bucket after the one before
 * and as large as the members of its class and key, and marked filled
 * exactly when it holds any. */
static void sort_and_check(nq_join_sort_fn *sort, const uint64_t *src, size_t n,
                           const nq_join_order *o, nq_join_scratch *js, uint64_t *work,
                           uint64_t *dst, nq_join_list *l)
{
    const uint64_t want = cut_sum(src, n, o);
    const size_t buckets = (size_t)NQ_JOIN_MAX_CLASSES << o->key_bits;
    static size_t size[NQ_JOIN_BUCKETS_MAX];
    memset(size, 0, sizeof size);
    for (size_t i = 0; i < n; i++)
        size[(size_t)class_of(src[i], o) << o->key_bits | key_under(src[i], o)]++;
    uint16_t *tag = malloc((n + 1) * sizeof *tag);
    assert_non_null(tag);
    if (n)
        memcpy(work, src, n * sizeof *src);
    sort(work, n, o, tag, js, dst, l);
    free(tag);
    assert_true(l->sig == work || l->sig == dst);
    assert_true(l->len == n && l->start[0] == 0 && l->start[buckets] == n);
    assert_int_equal(l->key_bits, o->key_bits);
    assert_true(order_free_sum(l->sig, n) == want);
    for (size_t c = 0; c < buckets; c++) {
        assert_true(l->start[c] + size[c] == l->start[c + 1]);
        assert_int_equal(l->filled[c / 64] >> (c % 64) & 1, size[c] > 0);
    }
}

/* The sorted join equals the weighted double loop, with and without
 * classes, for keys of every width, across block edges, on every kernel. */
static void test_join_sorted(void **state)
{
    (void)state;
    static const size_t sizes[][2] = {{0, 5}, {30, 40}, {700, 1500}, {2100, 600}, {1100, 1100}};
    static const int bits[] = {8, 20, 38, 64};
    static const int key_bits[] = {0, 3, 6, 8, 10, 14, 15, NQ_JOIN_KEY_BITS_MAX};
    static const uint8_t weight[3][3] = {{1, 1, 2}, {1, 0, 0}, {2, 0, 0}};
    static const uint8_t plain[3][3] = {{1}};
    nq_join_scratch *js = aligned_alloc(64, sizeof *js);
    if (js) /* its progress fields 0: no unit's progress tracked (join.h) */
        memset(js, 0, sizeof *js);
    uint64_t *a = malloc(2100 * sizeof *a), *b = malloc(2100 * sizeof *b);
    uint64_t *sa = malloc(2100 * sizeof *a), *sb = malloc(2100 * sizeof *b);
    uint64_t *wa = malloc(2100 * sizeof *a), *wb = malloc(2100 * sizeof *b);
    static nq_join_order o;
    static nq_join_list la, lb;
    assert_non_null(js);
    assert_true(a && b && sa && sb && wa && wb);
    uint64_t x = 777;
    for (int k = NQ_JOIN_KERNEL_SCALAR; k <= NQ_JOIN_KERNEL_AVX512; k++) {
        const enum nq_join_kernel kernel = (enum nq_join_kernel)k;
        if (!nq_join_kernel_supported(kernel))
            continue;
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            for (size_t t = 0; t < sizeof bits / sizeof *bits; t++)
                for (int classes = 0; classes < 2; classes++) {
                    const size_t na = sizes[i][0], nb = sizes[i][1];
                    const int kb = key_bits[(i + t + (size_t)classes + (size_t)k) %
                                            (sizeof key_bits / sizeof *key_bits)];
                    random_sigs(a, na, bits[t], 2 + (int)(i + t) % 3, &x);
                    random_sigs(b, nb, bits[t], 2 + (int)(i + t) % 3, &x);
                    o.class_mask = 0;
                    if (classes)
                        o.class_mask = UINT64_C(1) << (bits[t] / 4) | UINT64_C(1) << (bits[t] - 2);
                    uint32_t ca[NQ_JOIN_MAX_BITS] = {0}, cb[NQ_JOIN_MAX_BITS] = {0};
                    nq_join_sample_bits(a, na, bits[t], ca);
                    nq_join_sample_bits(b, nb, bits[t], cb);
                    nq_join_pick_key(ca, cb, bits[t], kb, &o);
                    assert_true((o.key_mask & o.class_mask) == 0);
                    assert_int_equal(__builtin_popcountll(o.key_mask), o.key_bits);
                    assert_true(o.key_bits <= kb);
                    const uint8_t(*w)[3] = classes ? weight : plain;
                    const int stored = bits[t] - __builtin_popcountll(o.class_mask | o.key_mask);
                    const uint64_t want = weighted_naive(a, na, b, nb, &o, w);
                    /* Sorted by each kernel level's copy of the sort (their
                     * ways of gathering bits differ), joined by kernel k. */
                    for (int level = 0; level < NQ_KERNEL_LEVELS; level++) {
                        if (!nq_kernel_supported((enum nq_kernel_level)level))
                            continue;
                        sort_and_check(level_sorts[level], a, na, &o, js, wa, sa, &la);
                        sort_and_check(level_sorts[level], b, nb, &o, js, wb, sb, &lb);
                        const uint64_t got =
                            nq_join_sorted_count(&la, &lb, w, stored, kernel, js);
                        if (got != want)
                            fail_msg("sorted join, sort %s, kernel %d, %zu x %zu, %d bits, "
                                     "%d key bits, classes %d: %llu, expected %llu",
                                     nq_kernel_level_name(level), k, na, nb, bits[t],
                                     o.key_bits, classes, (unsigned long long)got,
                                     (unsigned long long)want);
                    }
                }
    }
    free(a);
    free(b);
    free(sa);
    free(sb);
    free(wa);
    free(wb);
    free(js);
}

/* Two lists of random 24-bit signatures to join sorted by a key of their
 * lowest bits, with a zeroed join scratch (on the heap: a sorted list's
 * bucket starts are hundreds of KiB). */
typedef struct keyed_lists {
    nq_join_scratch *js;
    uint64_t *a, *b, *sa, *sb;
    uint16_t *tag;
    size_t na, nb;
    nq_join_order o;
    nq_join_list la, lb;
} keyed_lists;

#define KEYED_BITS 24

/* Allocates k's lists and fills a and b with random signatures (each bit
 * set with chance 1 / 2^density, see random_sigs). */
static keyed_lists *keyed_lists_new(size_t na, size_t nb, int density, uint64_t seed)
{
    keyed_lists *k = calloc(1, sizeof *k);
    assert_non_null(k);
    k->na = na;
    k->nb = nb;
    k->js = aligned_alloc(64, sizeof *k->js);
    k->a = malloc(na * sizeof *k->a);
    k->b = malloc(nb * sizeof *k->b);
    k->sa = malloc(na * sizeof *k->sa);
    k->sb = malloc(nb * sizeof *k->sb);
    k->tag = malloc((na > nb ? na : nb) * sizeof *k->tag);
    assert_true(k->js && k->a && k->b && k->sa && k->sb && k->tag);
    memset(k->js, 0, sizeof *k->js);
    random_sigs(k->a, na, KEYED_BITS, density, &seed);
    random_sigs(k->b, nb, KEYED_BITS, density, &seed);
    return k;
}

/* Sorts both lists by a key of their key_bits lowest bits. */
static void keyed_lists_sort(keyed_lists *k, int key_bits)
{
    uint32_t count[NQ_JOIN_MAX_BITS] = {0};
    for (int j = 0; j < key_bits; j++)
        count[j] = 1; /* the lowest bits alone are shared: the key */
    nq_join_pick_key(count, count, KEYED_BITS, key_bits, &k->o);
    assert_true(k->o.key_mask == (UINT64_C(1) << key_bits) - 1 && k->o.class_mask == 0);
    nq_join_sort(k->a, k->na, &k->o, k->tag, k->js, k->sa, &k->la);
    nq_join_sort(k->b, k->nb, &k->o, k->tag, k->js, k->sb, &k->lb);
}

/* The sorted lists' join, one class, by the scalar kernel. */
static uint64_t keyed_lists_join(keyed_lists *k)
{
    static const uint8_t plain[3][3] = {{1}};
    return nq_join_sorted_count(&k->la, &k->lb, plain,
                                KEYED_BITS - __builtin_popcountll(k->o.key_mask),
                                NQ_JOIN_KERNEL_SCALAR, k->js);
}

static void keyed_lists_free(keyed_lists *k)
{
    free(k->js);
    free(k->a);
    free(k->b);
    free(k->sa);
    free(k->sb);
    free(k->tag);
    free(k);
}

/* The join's progress follows its work, not its members.  The sliced
 * list's members without the key bit (key 0, first in the sorted order)
 * may meet every query, those with it only the twentieth of the queries
 * without it, so the first half of the members holds most of the work.
 * Progress is published as each block starts, so after the join it
 * stands at the last block's start: a key-1 block of 512 members, about
 * 3.5% of the work (each member weighs its queries and 512 for its
 * block's tables), 12.5% of the members.  The count is the join's. */
static void test_join_progress(void **state)
{
    (void)state;
    const size_t na_clear = 200, nb_clear = 2048;
    keyed_lists *k = keyed_lists_new(3900, 4096, 3, 4242);
    for (size_t i = 0; i < k->na; i++)
        k->a[i] = i < na_clear ? k->a[i] & ~UINT64_C(1) : k->a[i] | 1;
    for (size_t i = 0; i < k->nb; i++)
        k->b[i] = i < nb_clear ? k->b[i] & ~UINT64_C(1) : k->b[i] | 1;
    keyed_lists_sort(k, 1);
    const double span = 0x1p32;
    k->js->progress_span = span;
    const uint64_t got = keyed_lists_join(k);
    const double last = (double)atomic_load(&k->js->progress) / span;
    assert_true(last > 0.95 && last < 0.98);
    assert_true(got == pairs_naive(k->a, k->na, k->b, k->nb));
    keyed_lists_free(k);
}

/* A join solved by sample (join.h, sample_every): runs of two blocks, one
 * in three, from each of the three phases that start a run in turn, over
 * lists of about five blocks a key with keys of three bits.  The three
 * counts add up to the whole join's, each block solved in exactly one
 * phase, none of them holds all or none of the pairs, and the sampled
 * blocks' CPU time is counted. */
static void test_join_sample(void **state)
{
    (void)state;
    keyed_lists *k = keyed_lists_new(8000, 20000, 4, 4243);
    keyed_lists_sort(k, 3);
    const uint64_t whole = keyed_lists_join(k);
    assert_true(whole == pairs_naive(k->a, k->na, k->b, k->nb));
    uint64_t sum = 0;
    for (uint32_t phase = 0; phase < 3; phase++) {
        k->js->sample_every = 3;
        k->js->sample_run = 2;
        k->js->sample_at = 2 * phase;
        k->js->sampled_seconds = 0;
        const uint64_t got = keyed_lists_join(k);
        assert_true(got > 0 && got < whole);
        assert_true(k->js->sampled_seconds > 0);
        sum += got;
    }
    assert_true(sum == whole);
    keyed_lists_free(k);
}

/* Lists long enough for the sort to prefetch each member's slot (join_sort.c,
 * SCATTER_PREFETCH_MIN, 2^18 members), and for keys of more than fourteen
 * bits to be sorted in two passes (TWO_PASS_MIN, 2^21), sorted by
 * each kernel level's copy, with classes: every member in its bucket, in
 * the parts' loops and in their tail alike, and the long list in two
 * passes (back where it was) exactly when its cut members leave the
 * bucket's bits free: not for members of 64 bits without class bits. */
static void test_sort_long(void **state)
{
    (void)state;
    static const struct {
        size_t n;
        int bits, key_bits, classes, two_passes;
    } cases[] = {
        {((size_t)1 << 18) + 37, 40, 6, 1, 0},
        {((size_t)1 << 18) + 37, 40, NQ_JOIN_KEY_BITS_MAX, 1, 0},
        {((size_t)1 << 21) + 37, 40, 14, 1, 0},
        {((size_t)1 << 21) + 37, 40, NQ_JOIN_KEY_BITS_MAX, 1, 1},
        {((size_t)1 << 21) + 37, 40, NQ_JOIN_KEY_BITS_MAX, 0, 1},
        /* cut to 48 bits: no room for the bucket's 18 */
        {((size_t)1 << 21) + 37, 64, NQ_JOIN_KEY_BITS_MAX, 0, 0},
    };
    const size_t most = ((size_t)1 << 21) + 37;
    nq_join_scratch *js = aligned_alloc(64, sizeof *js);
    uint64_t *src = malloc(most * sizeof *src), *work = malloc(most * sizeof *work),
             *dst = malloc(most * sizeof *dst);
    static nq_join_order o;
    static nq_join_list l;
    assert_non_null(js);
    assert_true(src && work && dst);
    memset(js, 0, sizeof *js);
    uint64_t x = 99;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const size_t n = cases[c].n;
        const int bits = cases[c].bits;
        random_sigs(src, n, bits, 2, &x);
        uint32_t count[NQ_JOIN_MAX_BITS] = {0};
        nq_join_sample_bits(src, n, bits, count);
        o.class_mask = cases[c].classes ? UINT64_C(1) << 3 | UINT64_C(1) << 30 : 0;
        nq_join_pick_key(count, count, bits, cases[c].key_bits, &o);
        assert_int_equal(o.key_bits, cases[c].key_bits);
        for (int level = 0; level < NQ_KERNEL_LEVELS; level++)
            if (nq_kernel_supported((enum nq_kernel_level)level)) {
                sort_and_check(level_sorts[level], src, n, &o, js, work, dst, &l);
                assert_true(l.sig == (cases[c].two_passes ? work : dst));
            }
    }
    free(src);
    free(work);
    free(dst);
    free(js);
}

/* Each kernel level's bit sample against a count of the same members
 * (every step-th, step = n / sample size) bit by bit: lists short, long
 * and past the largest sample, so that byte counters that must be added
 * up every 255 members are, and bits above `bits` never counted. */
static void test_sample_bits(void **state)
{
    (void)state;
    typedef nq_join_sample_bits_fn *sampler;
    const sampler copies[NQ_KERNEL_LEVELS] = {
        nq_join_sample_bits_portable, nq_join_sample_bits_avx2, nq_join_sample_bits_avx512,
        nq_join_sample_bits_avx512icl};
    static const size_t sizes[] = {1, 100, 128, 700, 65280, 70000, 300000, 1000000};
    static const int bits[] = {1, 30, 38, 63, 64};
    uint64_t *v = malloc(1000000 * sizeof *v);
    assert_non_null(v);
    uint64_t x = 4242;
    random_sigs(v, 1000000, 64, 3, &x);
    for (size_t i = 0; i < 1000000; i++) /* dense: a byte counter would overflow at 256 */
        v[i] = ~v[i];
    int levels = 0;
    for (int level = 0; level < NQ_KERNEL_LEVELS; level++) {
        if (!nq_kernel_supported((enum nq_kernel_level)level))
            continue;
        levels++;
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            for (size_t t = 0; t < sizeof bits / sizeof *bits; t++) {
                const size_t n = sizes[i];
                size_t sample = n / 256;
                sample = sample < NQ_JOIN_SAMPLE_MIN   ? NQ_JOIN_SAMPLE_MIN
                         : sample > NQ_JOIN_SAMPLE_MAX ? NQ_JOIN_SAMPLE_MAX
                                                       : sample;
                const size_t step = n > sample ? n / sample : 1;
                uint32_t want[NQ_JOIN_MAX_BITS] = {0}, got[NQ_JOIN_MAX_BITS] = {0};
                for (size_t m = 0; m < n; m += step)
                    for (int j = 0; j < bits[t]; j++)
                        want[j] += (uint32_t)(v[m] >> j & 1);
                got[0] = 7; /* added to, never overwritten */
                want[0] += 7;
                copies[level](v, n, bits[t], got);
                for (int j = 0; j < NQ_JOIN_MAX_BITS; j++)
                    if (got[j] != want[j])
                        fail_msg("level %s, %zu members, %d bits: bit %d counted %u, "
                                 "expected %u",
                                 nq_kernel_level_name(level), n, bits[t], j, got[j], want[j]);
            }
    }
    assert_true(levels >= 1);
    free(v);
}

/* Keys picked by the pairs they cut: where two bits always come together
 * (as neighbouring diagonals often do), the second cuts no pair the first
 * left, so a two-bit key takes the first and a bit of its own (bit 2),
 * though the second is shared by more pairs; the bits one by one
 * (nq_join_pick_key) take the two together.  The best bit is on top, and
 * every kernel level's copy picks the same; a member of a sample that
 * is the whole of a short list counts too. */
static void test_pick_key_by_pairs(void **state)
{
    (void)state;
    typedef nq_join_pick_key_by_pairs_fn *picker;
    const picker copies[NQ_KERNEL_LEVELS] = {
        nq_join_pick_key_by_pairs_portable, nq_join_pick_key_by_pairs_avx2,
        nq_join_pick_key_by_pairs_avx512, nq_join_pick_key_by_pairs_avx512icl};
    enum { N = 3000, BITS = 6 };
    static uint64_t a[N], b[N];
    for (size_t i = 0; i < N; i++) {
        /* bits 0 and 1 in 3 of 5 members, bit 2 in every other run of 5 */
        a[i] = (i % 5 < 3 ? UINT64_C(3) : 0) | ((i / 5) % 2 ? UINT64_C(4) : 0);
        b[i] = ((i + 1) % 5 < 3 ? UINT64_C(3) : 0) | ((i / 5) % 2 ? 0 : UINT64_C(4)) |
               UINT64_C(1) << (3 + i % 3);
    }
    static nq_join_order o;
    uint32_t ca[NQ_JOIN_MAX_BITS] = {0}, cb[NQ_JOIN_MAX_BITS] = {0};
    nq_join_sample_bits(a, N, BITS, ca);
    nq_join_sample_bits(b, N, BITS, cb);
    o.class_mask = 0;
    nq_join_pick_key(ca, cb, BITS, 2, &o);
    assert_true(o.key_mask == 3); /* the pair that cuts the same pairs twice */
    int levels = 0;
    for (int level = 0; level < NQ_KERNEL_LEVELS; level++) {
        if (!nq_kernel_supported((enum nq_kernel_level)level))
            continue;
        levels++;
        for (int sizes = 0; sizes < 2; sizes++) {
            const size_t na = sizes ? 200 : N; /* 200: all of a sampled */
            memset(&o, 0, sizeof o);
            copies[level](a, na, b, N, BITS, 2, &o);
            assert_int_equal(o.key_bits, 2);
            assert_true(o.key_mask == 5);
            assert_int_equal(o.key_pos[1], 0); /* the best bit on top */
            assert_int_equal(o.key_pos[0], 2);
            assert_int_equal(o.key_of[1], 2); /* packed bit 0 is bit 0: key bit 1 */
            assert_int_equal(o.key_of[2], 1);
            /* With the class bit 0 aside, bit 1 takes its place. */
            o.class_mask = 1;
            copies[level](a, na, b, N, BITS, 2, &o);
            assert_true(o.key_mask == 6 && o.key_pos[1] == 1);
            /* Asked for three bits of a against itself, it stops at two:
             * once bits 0 and 2 are taken, no pair left shares bit 1. */
            o.class_mask = 0;
            copies[level](a, na, a, na, 3, 3, &o);
            assert_true(o.key_bits == 2 && o.key_mask == 5);
        }
    }
    assert_true(levels >= 1);
}

/* A sliced list with buckets long enough to be joined by windows
 * (join.h, NQ_JOIN_WINDOW_MIN), one of two windows, beside short ones,
 * with classes: each kernel's count is the weighted double loop's.  The
 * members' bits are set with chance 1/4, so each window's sub-key sorts
 * runs that share bits and the queries are filtered; blocks in a row
 * that share the same bits meet the queries kept for the first of them,
 * and blocks that share those bits and more filter the kept queries, not
 * the bucket's, into a nested list (join.c, bucket_queries); there are
 * enough queries that the kept ones pass in more than one piece. */
static void test_join_windows(void **state)
{
    (void)state;
    enum { NA = 6000, NB = 2 * NQ_JOIN_WINDOW + 5000, BITS = 30 };
    static const uint8_t weight[3][3] = {{1, 1, 2}, {1, 0, 0}, {2, 0, 0}};
    nq_join_scratch *js = aligned_alloc(64, sizeof *js);
    uint64_t *a = malloc(NA * sizeof *a), *b = malloc(NB * sizeof *b);
    uint64_t *sa = malloc(NA * sizeof *a), *sb = malloc(NB * sizeof *b);
    uint64_t *wa = malloc(NA * sizeof *a), *wb = malloc(NB * sizeof *b);
    static nq_join_order o;
    static nq_join_list la, lb;
    assert_non_null(js);
    assert_true(a && b && sa && sb && wa && wb);
    memset(js, 0, sizeof *js);
    uint64_t x = 31338;
    random_sigs(a, NA, BITS, 2, &x);
    random_sigs(b, NB, BITS, 2, &x);
    for (size_t i = 0; i < NB; i++) /* key 0 (bits 20, 21 clear) in 7 of 8: long */
        if (i % 8)
            b[i] &= ~(UINT64_C(3) << 20);
    o.class_mask = UINT64_C(1) << 7;
    uint32_t count[NQ_JOIN_MAX_BITS] = {0};
    count[20] = count[21] = 1;
    nq_join_pick_key(count, count, BITS, 2, &o);
    assert_true(o.key_mask == UINT64_C(3) << 20);
    const uint64_t want = weighted_naive(a, NA, b, NB, &o, weight);
    nq_join_sort(a, NA, &o, (uint16_t *)wa, js, sa, &la);
    nq_join_sort(b, NB, &o, (uint16_t *)wb, js, sb, &lb);
    assert_true(lb.start[1] - lb.start[0] > NQ_JOIN_WINDOW); /* class 0, key 0: two windows */
    /* and a last block of at most half a block, whose runs (found once
     * for the bucket's blocks) then take the low half alone */
    const uint32_t last = (lb.start[1] - lb.start[0]) % NQ_JOIN_BLOCK;
    assert_true(last > 0 && last <= NQ_JOIN_HALF_BLOCK);
    for (int k = NQ_JOIN_KERNEL_SCALAR; k <= NQ_JOIN_KERNEL_AVX512; k++) {
        if (!nq_join_kernel_supported((enum nq_join_kernel)k))
            continue;
        const uint64_t got = nq_join_sorted_count(&la, &lb, weight, BITS - 3,
                                                  (enum nq_join_kernel)k, js);
        if (got != want)
            fail_msg("kernel %d: %llu, expected %llu", k, (unsigned long long)got,
                     (unsigned long long)want);
    }
    free(a);
    free(b);
    free(sa);
    free(sb);
    free(wa);
    free(wb);
    free(js);
}

/* Each kernel's query filter against the rule: the queries holding no
 * shared bit, in order, for lengths around its vectors of eight, and no
 * write past the room it is given (n + 7). */
static void test_join_filter(void **state)
{
    (void)state;
    enum { MOST = 1000, GUARD = 0x5a5a5a5a5a5a5a5a };
    static uint64_t q[MOST], out[MOST + 8 + 1], want[MOST];
    uint64_t x = 2718;
    random_sigs(q, MOST, 40, 2, &x);
    static const size_t sizes[] = {0, 1, 7, 8, 9, 15, 16, 17, 63, MOST};
    int kernels = 0;
    for (int k = NQ_JOIN_KERNEL_SCALAR; k <= NQ_JOIN_KERNEL_AVX512; k++) {
        if (!nq_join_kernel_supported((enum nq_join_kernel)k))
            continue;
        kernels++;
        nq_join_filter_fn *filter = nq_join_loops_of((enum nq_join_kernel)k)->filter;
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            for (int t = 0; t < 4; t++) {
                const size_t n = sizes[i];
                const uint64_t shared = t == 0 ? 0 : t == 3 ? ~UINT64_C(0) : nq_test_random(&x) &
                                                                         nq_test_random(&x);
                size_t nwant = 0;
                for (size_t j = 0; j < n; j++)
                    if (!(q[j] & shared))
                        want[nwant++] = q[j];
                for (size_t j = 0; j < MOST + 8 + 1; j++)
                    out[j] = GUARD;
                const size_t got = filter(q, n, shared, out);
                assert_true(got == nwant);
                assert_true(memcmp(out, want, nwant * sizeof *out) == 0);
                for (size_t j = n + 7; j < MOST + 8 + 1; j++)
                    assert_true(out[j] == GUARD);
            }
    }
    assert_true(kernels >= 1);
}

static int compare_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A window's sort (nq_join_sort_window): the same members, ordered by
 * the four bits they hold most often short of all, the most held on
 * top; a bit every member holds (bit 0) and bits at or past `bits`
 * (bit 40) are never taken, and a window of one member stays itself. */
static void test_sort_window(void **state)
{
    (void)state;
    enum { N = NQ_JOIN_WINDOW };
    static uint64_t v[N], out[N], a[N], b[N];
    /* bit 5 in 9 members of 10, bit 9 in 7, bit 2 in 5, bit 11 in 3,
     * bit 13 in 1, bit 40 in all but one, bit 0 in all */
    static const int pos[] = {5, 9, 2, 11, 13};
    static const int tenths[] = {9, 7, 5, 3, 1};
    uint64_t x = 1618;
    for (size_t i = 0; i < N; i++) {
        v[i] = 1 | (i ? UINT64_C(1) << 40 : 0);
        for (int t = 0; t < 5; t++)
            v[i] |= (uint64_t)(nq_test_random(&x) % 10 < (uint64_t)tenths[t]) << pos[t];
    }
    nq_join_sort_window(v, N, 40, out);
    uint32_t prev = 0;
    for (size_t i = 0; i < N; i++) {
        uint32_t sub = 0;
        for (int t = 0; t < 4; t++)
            sub = sub << 1 | (uint32_t)(out[i] >> pos[t] & 1);
        assert_true(sub >= prev);
        prev = sub;
    }
    assert_true(prev == 15);
    memcpy(a, v, sizeof v);
    memcpy(b, out, sizeof out);
    qsort(a, N, sizeof *a, compare_u64);
    qsort(b, N, sizeof *b, compare_u64);
    assert_true(memcmp(a, b, sizeof a) == 0);
    nq_join_sort_window(v + 1, 1, 40, out);
    assert_true(out[0] == v[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_kernel),
        cmocka_unit_test(test_join_sorted),
        cmocka_unit_test(test_join_progress),
        cmocka_unit_test(test_join_sample),
        cmocka_unit_test(test_sort_long),
        cmocka_unit_test(test_sample_bits),
        cmocka_unit_test(test_pick_key_by_pairs),
        cmocka_unit_test(test_join_windows),
        cmocka_unit_test(test_join_filter),
        cmocka_unit_test(test_sort_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
