/*
 * join.h - counting the disjoint pairs between two lists of bit signatures.
 *
 * The meet-in-the-middle engine ends every unit with this question: given
 * the east half-boards and the west half-boards, each reduced to the set of
 * shared diagonals it occupies, how many (east, west) pairs occupy no common
 * diagonal?  From N ~ 19 on this is where nearly all the time goes, so the
 * kernel is bit-sliced (see join.c).
 */
#ifndef NQ_JOIN_H
#define NQ_JOIN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define NQ_JOIN_BLOCK 512        /* signatures per bit-sliced block */
#define NQ_JOIN_WORDS (NQ_JOIN_BLOCK / 64)
/* Query bits resolved by one table look-up: 6 to 10, chosen per block by
 * how many queries share its tables (join.c, chunk_bits). */
#define NQ_JOIN_CHUNK_BITS_MIN 6
#define NQ_JOIN_CHUNK_BITS_MAX 10
#define NQ_JOIN_CHUNK_VALUES (1 << NQ_JOIN_CHUNK_BITS_MAX)
#define NQ_JOIN_MAX_BITS 64
#define NQ_JOIN_MAX_CHUNKS ((NQ_JOIN_MAX_BITS + NQ_JOIN_CHUNK_BITS_MIN - 1) / NQ_JOIN_CHUNK_BITS_MIN)

/* The lowest run of consecutive set bits of x (x != 0): returns its
 * length and sets *from to its lowest bit.  The run ends at the lowest
 * clear bit of x >> *from, which the complement finds (all 64 bits set
 * is the one run with none).  The join's member masks (join.c) and the
 * sort's bit gathering without pext (join_sort.c) go run by run. */
static inline int nq_lowest_bit_run(uint64_t x, int *from)
{
    const int i = __builtin_ctzll(x);
    const uint64_t up = x >> i;
    *from = i;
    return ~up ? __builtin_ctzll(~up) : 64 - i;
}

/* x without its bits below `end` (0 <= end <= 64): a run taken off. */
static inline uint64_t nq_bits_from(uint64_t x, int end)
{
    return end >= 64 ? 0 : x & ~((UINT64_C(1) << end) - 1);
}

/*
 * Sorted lists (below) are sorted by class and key: a member's class is how
 * many of at most two "class bits" it has (0, 1 or 2; the engine uses one,
 * its mark of an even board's halves at the unit's floor), and its key is
 * the value of a few chosen "key bits" (the bits most pairs of the two
 * lists share).  Two members whose keys share a bit
 * cannot match, so the join skips whole runs of the other list per block
 * (see join.c).  The key is 0 to NQ_JOIN_KEY_BITS_MAX bits wide, chosen per
 * join by the caller: wider keys skip more pairs but cut the lists into
 * more, shorter runs.
 */
#define NQ_JOIN_KEY_BITS_MAX 16
#define NQ_JOIN_KEYS_MAX (1 << NQ_JOIN_KEY_BITS_MAX)
#define NQ_JOIN_MAX_CLASSES 3
#define NQ_JOIN_BUCKETS_MAX (NQ_JOIN_MAX_CLASSES * NQ_JOIN_KEYS_MAX)
/* Distinct keys one block tells apart; a block that would hold more is
 * cut short (join.c). */
#define NQ_JOIN_BLOCK_KEYS 64
/* A block that holds this many members ends where the next key starts:
 * a query run that meets only that key then pays for a block of it alone
 * (fewer query-block pairs and runs than filling every block to 512).
 * Past half a block, so that keys may start in its high half and a run
 * that meets only those takes that half alone (nq_join_run): with 256 no
 * key starts there, and units of N = 20 to 26 took 1.02 to 1.04 times as
 * long (docs/performance.md, "Figures the code's choices rest on"). */
#define NQ_JOIN_BLOCK_FULL 384

/* A bucket of the sliced list at least NQ_JOIN_WINDOW_MIN long is joined
 * window by window, each of at most NQ_JOIN_WINDOW members (a multiple of
 * the block) sorted by NQ_JOIN_SUBKEY_BITS more bits of their own
 * (nq_join_sort_window) and cut into blocks there: the members of a
 * block then share bits beyond the key, and the queries that hold one of
 * them are dropped before the block's tables see them (the loops'
 * filter, join_kernels.h).  Blocks of one key, cut from such buckets,
 * took two thirds of N = 28's query evaluations and found a pair in 17%
 * of them; sorted so, a block's shared bits drop a third of its queries
 * (docs/performance.md, "Figures the code's choices rest on").  More bits
 * than four cut the window into runs shorter than a block, and so drop
 * no more; windows of 16384 drop as many as whole buckets sorted so, and
 * their copy stays in the L2 cache for the blocks cut from it.  Buckets
 * of a block and a half are long enough: their runs are found once for
 * all their blocks (join.c, bucket_runs), and at N = 28 windows from
 * there on (not four blocks) cut 5 to 11% of whole units' evaluations. */
#define NQ_JOIN_WINDOW 16384
#define NQ_JOIN_WINDOW_MIN (3 * NQ_JOIN_BLOCK / 2)
#define NQ_JOIN_SUBKEY_BITS 4
/* Queries a filter pass keeps at most before the tables take them, and
 * their runs where the bucket's are not kept whole. */
#define NQ_JOIN_FILTER_QUERIES 4096
#define NQ_JOIN_FILTER_RUNS 256
/* A long bucket's queries and runs that its blocks' filter keeps whole
 * at most, and those of the list nested in it, filtered from it by more
 * bits (join.c, bucket_queries): half as many, as N = 28's estimate on 2
 * threads (nq_mitm_memory_estimate) stays within 4 GiB so. */
#define NQ_JOIN_KEPT_QUERIES (1 << 18)
#define NQ_JOIN_KEPT_RUNS (1 << 14)
#define NQ_JOIN_NESTED_QUERIES (NQ_JOIN_KEPT_QUERIES / 2)
#define NQ_JOIN_NESTED_RUNS (NQ_JOIN_KEPT_RUNS / 2)
_Static_assert(NQ_JOIN_KEPT_QUERIES >= NQ_JOIN_FILTER_QUERIES &&
                   NQ_JOIN_KEPT_RUNS >= NQ_JOIN_FILTER_RUNS,
               "a bucket not kept whole is filtered a piece at a time into the same room");
_Static_assert(NQ_JOIN_WINDOW % NQ_JOIN_BLOCK == 0, "a window is whole blocks");

/* The sort (nq_join_sort) counts four parts of a list at once, each
 * with a counter per tag: a key and two class bits. */
#define NQ_JOIN_SORT_PARTS 4
#define NQ_JOIN_SORT_TAGS (4 * NQ_JOIN_KEYS_MAX)
/* One part's row of counters: a cache line longer than the tags need, so
 * that the parts' counters of one tag do not lie a multiple of 4 KiB
 * apart.  They would then share their low 12 address bits, which is all
 * the CPU compares when it checks a load against the stores before it:
 * each part's counter update would wait on the previous part's (the
 * four parts count the same few tags most of the time), and all four
 * would sit in one cache set (docs/performance.md, "Figures the code's
 * choices rest on"). */
#define NQ_JOIN_SORT_ROW (NQ_JOIN_SORT_TAGS + 16)
_Static_assert(NQ_JOIN_SORT_ROW * sizeof(uint32_t) % 4096 != 0,
               "the parts' counter rows must not be a multiple of 4 KiB long");

/* A run of the query list joined with one block: members begin .. end - 1,
 * the weight of their pairs, the half of the block that holds every
 * member they may meet (NQ_JOIN_LOW_HALF: members 0 .. 255,
 * NQ_JOIN_HIGH_HALF: 256 .. 511, or NQ_JOIN_BOTH_HALVES), and those
 * members (an index into the scratch's masks, or NQ_JOIN_ALL_MEMBERS).  A
 * kernel may look at that half alone; looking at the whole block counts
 * the same. */
#define NQ_JOIN_ALL_MEMBERS UINT32_MAX
#define NQ_JOIN_HALF_BLOCK (NQ_JOIN_BLOCK / 2)
enum { NQ_JOIN_LOW_HALF, NQ_JOIN_HIGH_HALF, NQ_JOIN_BOTH_HALVES };
typedef struct nq_join_run {
    uint32_t begin, end;
    uint16_t weight, half;
    uint32_t mask;
} nq_join_run;

/* Working memory of one join; callers place it 64-byte aligned. */
typedef struct nq_join_scratch {
    /* table[c][v]: the block's signatures sharing no bit with the value v
     * of query chunk c, as a 512-bit set (v < 2^chunk bits).  Aligned to
     * a cache line, as its vectors are, and so the struct's size is a
     * whole number of lines (aligned_alloc(64, ...) asks for that). */
    _Alignas(64) uint64_t table[NQ_JOIN_MAX_CHUNKS][NQ_JOIN_CHUNK_VALUES][NQ_JOIN_WORDS];
    /* occ[j]: the block's signatures that have bit j, as a 512-bit set. */
    uint64_t occ[NQ_JOIN_MAX_CHUNKS * NQ_JOIN_CHUNK_BITS_MAX][NQ_JOIN_WORDS];
    /* The current block's query runs and the member sets they meet: at
     * most one of each per query bucket. */
    uint64_t masks[NQ_JOIN_BUCKETS_MAX][NQ_JOIN_WORDS];
    nq_join_run runs[NQ_JOIN_BUCKETS_MAX];
    /* The window of a long bucket the join cuts blocks from, sorted
     * (NQ_JOIN_WINDOW); the queries blocks' shared bits keep, with room
     * for a vector's store past the last, and their runs: all of the
     * bucket's where they fit, for the blocks after that share the same
     * bits or more, and a list nested in it (join.c, bucket_queries). */
    uint64_t window[NQ_JOIN_WINDOW];
    uint64_t kept[NQ_JOIN_KEPT_QUERIES + 8];
    nq_join_run kept_runs[NQ_JOIN_KEPT_RUNS];
    uint64_t nested[NQ_JOIN_NESTED_QUERIES + 8];
    nq_join_run nested_runs[NQ_JOIN_NESTED_RUNS];
    /* key_queries[k]: the queries that may meet a member with key k, for
     * the progress of a join that tracks it (join.c, key_queries). */
    uint64_t key_queries[NQ_JOIN_KEYS_MAX];
    /* The sort's counters (nq_join_sort), here rather than on a thread's
     * stack: 4 MiB with the widest keys. */
    uint32_t sort_count[NQ_JOIN_SORT_PARTS][NQ_JOIN_SORT_ROW];
    /* How far the thread's unit is (the engine's progress hook reads it
     * from another thread), in 2^-32 of the unit: a sorted join with
     * progress_span > 0 moves it from progress_base to progress_base +
     * progress_span (both in those units) as its blocks pass, in
     * proportion to their estimated work (their members, and the queries
     * that may meet each), after progress_prepared: the work of building
     * and sorting the join's lists, in the same units (a member against a
     * query), which the span covers too.  All 0 where no one tracks
     * progress (a zeroed scratch: the engine's is). */
    double progress_base, progress_span, progress_prepared;
    _Atomic uint64_t progress;
    /* A unit solved by sample (nqueens-bench --project-part): where
     * sample_every is not 0, sorted joins solve runs of sample_run
     * blocks, one run in sample_every, the unit's blocks numbered on from
     * sample_at (block i is solved when (sample_at + i) mod (sample_run *
     * sample_every) < sample_run), and add the thread CPU seconds of the
     * blocks they solve to sampled_seconds (a run is timed from
     * sample_since while sample_open).  0 otherwise (a zeroed scratch). */
    uint32_t sample_every, sample_run, sample_at;
    int sample_open;
    double sample_since, sampled_seconds;
} nq_join_scratch;

/* Publishes `at` as the unit's progress. */
static inline void nq_join_progress_to(nq_join_scratch *js, uint64_t at)
{
    atomic_store_explicit(&js->progress, at, memory_order_relaxed);
}

/* The inner loops the join can run.  Each is exact; they differ in speed. */
enum nq_join_kernel {
    NQ_JOIN_KERNEL_SCALAR, /* 64-bit words: any CPU */
    NQ_JOIN_KERNEL_AVX2,     /* x86-64 with AVX2 */
    NQ_JOIN_KERNEL_AVX512BW, /* x86-64 with AVX-512 F, BW (and AVX2): Skylake on */
    NQ_JOIN_KERNEL_AVX512,   /* x86-64 with AVX-512 F, BW, VBMI, VPOPCNTDQ, GFNI, BMI2 */
};

/* 1 when this build and this CPU can run kernel, else 0. */
int nq_join_kernel_supported(enum nq_join_kernel kernel);

/* The kernel of this process's kernel level (core/kernel.h): the one a
 * job's joins run unless its tuning names another (mitm.h). */
enum nq_join_kernel nq_join_kernel_default(void);

/*
 * Number of pairs (i, j) with (a[i] & b[j]) == 0.  Every signature must fit
 * in the low `bits` bits (1 <= bits <= 64).  kernel must be supported
 * (nq_join_kernel_supported).  js must be 64-byte aligned.  Either list
 * may be empty.
 */
uint64_t nq_join_count(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, int bits,
                       enum nq_join_kernel kernel, nq_join_scratch *js);

/* Copies the n <= NQ_JOIN_WINDOW members v[0 .. n) of one bucket to
 * out, ordered by the NQ_JOIN_SUBKEY_BITS bits that a sample of them
 * holds most often short of all (the most frequent on top): runs of the
 * copy, and so the blocks cut from it, then share those bits.  Bits at
 * or past `bits` are never taken. */
void nq_join_sort_window(const uint64_t *v, size_t n, int bits, uint64_t *out);

/* How to sort: class_mask is 0 (one class), one bit or two; key_mask holds
 * key_bits bits outside class_mask.  A member's key is its key bits
 * rearranged by key_of (indexed by those bits packed low in their order)
 * so that the bit the most pairs share is the key's top bit, the next one
 * below it, and so on: a block of consecutive members then agrees on the
 * bits that skip the most (nq_join_pick_key fills it). */
typedef struct nq_join_order {
    uint64_t class_mask, key_mask;
    int key_bits;
    uint8_t key_pos[NQ_JOIN_KEY_BITS_MAX]; /* key bit i is signature bit key_pos[i] */
    uint16_t key_of[NQ_JOIN_KEYS_MAX];
} nq_join_order;

/* A sorted list: the members of class c with key k are
 * sig[start[c << key_bits | k] .. start[(c << key_bits | k) + 1]). */
typedef struct nq_join_list {
    uint64_t *sig;
    size_t len;
    int key_bits;
    uint32_t start[NQ_JOIN_BUCKETS_MAX + 1];
    /* Bit b: bucket b holds members.  A join looks for a block's runs
     * in buckets spread over start's 768 KiB (sixteen key bits), most of
     * them empty; these 24 KiB say which to look at (join.c). */
    uint64_t filled[NQ_JOIN_BUCKETS_MAX / 64];
} nq_join_list;

/* Adds to count[j], for each bit j < bits, how many of a sample of v[0 .. n)
 * have bit j: one member in 256, spread evenly, but at least
 * NQ_JOIN_SAMPLE_MIN and at most NQ_JOIN_SAMPLE_MAX members (long lists
 * need the larger sample to pick wide keys well; short ones cannot pay for
 * it). */
#define NQ_JOIN_SAMPLE_MIN 128
#define NQ_JOIN_SAMPLE_MAX 1024
/* The step between the members nq_join_sample_bits samples of a list of
 * n, and so how many it samples: ceil(n / step). */
static inline size_t nq_join_sample_step(size_t n)
{
    const size_t sample = n / 256 < NQ_JOIN_SAMPLE_MIN   ? NQ_JOIN_SAMPLE_MIN
                          : n / 256 > NQ_JOIN_SAMPLE_MAX ? NQ_JOIN_SAMPLE_MAX
                                                         : n / 256;
    return n > sample ? n / sample : 1;
}
void nq_join_sample_bits(const uint64_t *v, size_t n, int bits, uint32_t *count);

/* Sets o's key from two lists' sampled bit counts: the (up to) key_bits
 * bits (<= NQ_JOIN_KEY_BITS_MAX) outside o->class_mask that the most
 * sampled pairs share, best first (see nq_join_order).  Fewer when fewer
 * bits are shared by any sampled pair. */
void nq_join_pick_key(const uint32_t *count_a, const uint32_t *count_b, int bits, int key_bits,
                      nq_join_order *o);

/* Sets o's key to the (up to) key_bits bits (<= NQ_JOIN_KEY_BITS_MAX)
 * outside o->class_mask that cut the most pairs of two samples of lists a
 * and b, chosen one at a time: each the bit that the most sampled pairs
 * share among those that share none of the bits taken before it.  Bits
 * of one list go together (neighbouring diagonals), so the bits the most
 * pairs share one by one (nq_join_pick_key) cut many of the same pairs
 * twice: at N = 24 these keys let through about 0.8 of those pairs
 * (docs/performance.md, "Figures the code's choices rest on").  Fewer
 * bits when no sampled pair left shares one.  A few hundred thousand
 * steps: for the long lists of wide keys. */
#define NQ_JOIN_PAIR_SAMPLE 512
void nq_join_pick_key_by_pairs(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
                               int bits, int key_bits, nq_join_order *o);

/* Sorts src[0 .. n) by order o (class, then key), each signature with
 * the bits of o->class_mask and o->key_mask cut out, and describes the
 * sorted list in *out: written to dst, or, for wide keys on long lists,
 * in two passes by way of dst back to src (join_sort.c); out->sig says
 * which, and the other buffer's contents are then undefined.  n < 2^32.
 * tag[0 .. n) is working space: each member's bucket while it is sorted;
 * so are js's sort counters (the join's scratch, which a sort runs
 * between joins). */
void nq_join_sort(uint64_t *src, size_t n, const nq_join_order *o, uint16_t *tag,
                  nq_join_scratch *js, uint64_t *dst, nq_join_list *out);

/*
 * The sum, over the pairs (x of a, y of b) that share no bit, of
 * weight[class of x][class of y], for two lists sorted with one order;
 * `bits` is the width of the stored (cut) signatures.  kernel must be
 * supported.  js must be 64-byte aligned.
 */
uint64_t nq_join_sorted_count(const nq_join_list *a, const nq_join_list *b,
                              const uint8_t weight[NQ_JOIN_MAX_CLASSES][NQ_JOIN_MAX_CLASSES],
                              int bits, enum nq_join_kernel kernel, nq_join_scratch *js);

/* The same count by the obvious double loop (what the join runs below a
 * few thousand pairs, where tables cost more than they save). */
uint64_t nq_join_count_naive(const uint64_t *a, size_t na, const uint64_t *b, size_t nb);

#endif /* NQ_JOIN_H */
