/*
 * even_model.h - what the two files of the even-model program share (see
 * even_model.c for what it models and why): the half-board lists a
 * decomposition builds and what joining them costs (even_lists.c), and
 * the run's settings, which main() sets once before any list is built.
 * Private to the program; the engine shares none of it.
 */
#ifndef NQ_BENCH_EVEN_MODEL_H
#define NQ_BENCH_EVEN_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* Key bits a keyed pair count may take at most (--keybits). */
#define KEYBITS_MAX 12

/* The run's settings (even_model.c's main): the board size, --check (join
 * every pair and count the weighted solutions) and --keybits. */
extern int N;
extern int check;
extern int keybits;

typedef struct half {
    uint64_t s, d;       /* sum diagonals r + c, difference diagonals r - c + N - 1 */
    uint32_t north_cols; /* halves(): the columns of its queens on rows 0 .. N/2 - 1 */
} half;

typedef struct hlist {
    half *v;
    size_t n, cap;
} hlist;

/* What a decomposition costs, summed over its units. */
typedef struct cost {
    double units, halves, pairs, keyed;
    unsigned __int128 count; /* weighted solutions (with --check) */
} cost;

/* Appends the half x to l (exits with a message when out of memory). */
void push_half(hlist *l, half x);

/* Appends the half (s, d) to l, north columns unknown (0). */
void push(hlist *l, uint64_t s, uint64_t d);

/* The half-boards on rows `rowmask` over columns `cols`, missing the
 * diagonals bs, bd (which the stored diagonals leave out), into out. */
void halves(uint32_t rowmask, uint32_t cols, uint64_t bs, uint64_t bd, hlist *out);

/* Frees a thread's lists: e, w and, when not NULL, the three classes of
 * each side. */
void free_lists(hlist *e, hlist *w, hlist *ec, hlist *wc);

/* Keeps the members of l with (has D) == want_d and (has A) == want_a
 * (-1: either), into out. */
void select_class(const hlist *l, int want_d, int want_a, hlist *out);

/* The pairs of e x w that share no diagonal. */
uint64_t compat(const hlist *e, const hlist *w);

/* The keybits diagonals (bit < 64: sum, else difference) that the most
 * pairs of the lists es[0 .. ne) x ws[0 .. nw) share, into key; the two
 * main diagonals among them only when main_keys (with v's classes they
 * are the class bits). */
void pick_key(const hlist *const *es, int ne, const hlist *const *ws, int nw, int main_keys,
              int *key);

/* The pairs of e x w whose keys (under key) share no bit. */
double keyed_pairs(const hlist *e, const hlist *w, const int *key);

/* Adds one join of lists e x w, weight `mult` in the count, to c. */
void join(cost *c, const hlist *e, const hlist *w, uint64_t mult);

/* The low `width` bits of x in reverse order. */
uint32_t reverse_bits(uint32_t x, int width);

/* The row set e reflected north-south (row i <-> N - 1 - i). */
uint32_t mirror(uint32_t e);

/* Orbit size of E (a set of quarter rows, all in qrows) under north-south
 * reflection and complement in qrows, when E is its least member; else 0. */
int canon_weight(uint32_t e, uint32_t qrows);

/* Every k-subset of the set bits of `from`, into a fresh array of *count. */
uint32_t *subsets(uint32_t from, int k, size_t *count);

/* Adds c to *to, field by field. */
void add(cost *to, const cost *c);

/* The diagonal bit r. */
uint64_t qbit(int r);

#endif /* NQ_BENCH_EVEN_MODEL_H */
