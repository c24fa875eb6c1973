/*
 * even_lists.c - the half-board lists of the even-model program (see
 * even_model.c) and what joining them costs: each list built by a plain
 * backtracking walk that shares no code with the engine, split by the
 * main diagonals' classes, keyed as the engine's join keys them, and
 * joined pair by pair under --check; and the row-set helpers the
 * decompositions enumerate units with.  Apart from even_model.c, which
 * holds the decompositions themselves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "even_model.h"

void push_half(hlist *l, half x)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) {
            fprintf(stderr, "even-model: out of memory\n");
            exit(1);
        }
    }
    l->v[l->n++] = x;
}

void push(hlist *l, uint64_t s, uint64_t d)
{
    push_half(l, (half){s, d, 0});
}

/* Every placement of one queen on each row of rows[0 .. k) in the columns
 * cols (k of them), missing the diagonals bs, bd, onto out; north_cols
 * gathers the columns of the queens on rows 0 .. N/2 - 1. */
static uint64_t blk_s, blk_d; /* set by halves() for its walk (one per thread) */
#pragma omp threadprivate(blk_s, blk_d)

static void walk(const int *rows, int k, int i, uint32_t cols, uint32_t north_cols, uint64_t s,
                 uint64_t d, hlist *out)
{
    if (i == k) {
        push_half(out, (half){s & ~blk_s, d & ~blk_d, north_cols});
        return;
    }
    const int r = rows[i];
    for (uint32_t c = cols; c; c &= c - 1) {
        const int j = __builtin_ctz(c);
        const uint64_t sb = UINT64_C(1) << (r + j), db = UINT64_C(1) << (r - j + N - 1);
        if ((s & sb) | (d & db))
            continue;
        const uint32_t cb = UINT32_C(1) << j;
        walk(rows, k, i + 1, cols & ~cb, north_cols | (r < N / 2 ? cb : 0), s | sb, d | db, out);
    }
}

/* The half-boards on rows `rowmask` over columns `cols`, missing bs, bd. */
void halves(uint32_t rowmask, uint32_t cols, uint64_t bs, uint64_t bd, hlist *out)
{
    int rows[32], k = 0;
    for (uint32_t r = rowmask; r; r &= r - 1)
        rows[k++] = __builtin_ctz(r);
    out->n = 0;
    if (k != __builtin_popcount(cols))
        return;
    blk_s = bs;
    blk_d = bd;
    walk(rows, k, 0, cols, 0, bs, bd, out);
}

/* Frees a thread's lists: e, w and, when not NULL, the three classes of
 * each side. */
void free_lists(hlist *e, hlist *w, hlist *ec, hlist *wc)
{
    free(e->v);
    free(w->v);
    for (int k = 0; ec && k < 3; k++) {
        free(ec[k].v);
        free(wc[k].v);
    }
}

/* Keeps the members of l with (has D) == want_d and (has A) == want_a
 * (-1: either), into out. */
void select_class(const hlist *l, int want_d, int want_a, hlist *out)
{
    const uint64_t dbit = UINT64_C(1) << (N - 1), abit = UINT64_C(1) << (N - 1);
    out->n = 0;
    for (size_t i = 0; i < l->n; i++) {
        const int hd = !!(l->v[i].d & dbit), ha = !!(l->v[i].s & abit);
        if ((want_d < 0 || hd == want_d) && (want_a < 0 || ha == want_a))
            push(out, l->v[i].s, l->v[i].d);
    }
}

uint64_t compat(const hlist *e, const hlist *w)
{
    uint64_t c = 0;
    for (size_t i = 0; i < e->n; i++)
        for (size_t j = 0; j < w->n; j++)
            c += !((e->v[i].s & w->v[j].s) | (e->v[i].d & w->v[j].d));
    return c;
}

/* The keybits diagonals (bit < 64: sum, else difference) that the most
 * pairs of e x w share, chosen from per-bit counts. */
void pick_key(const hlist *const *es, int ne, const hlist *const *ws, int nw, int main_keys,
              int *key)
{
    double ce[128] = {0}, cw[128] = {0};
    for (int l = 0; l < ne; l++)
        for (size_t i = 0; i < es[l]->n; i++)
            for (int b = 0; b < 64; b++) {
                ce[b] += es[l]->v[i].s >> b & 1;
                ce[64 + b] += es[l]->v[i].d >> b & 1;
            }
    for (int l = 0; l < nw; l++)
        for (size_t i = 0; i < ws[l]->n; i++)
            for (int b = 0; b < 64; b++) {
                cw[b] += ws[l]->v[i].s >> b & 1;
                cw[64 + b] += ws[l]->v[i].d >> b & 1;
            }
    /* Where the main diagonals are the classes' bits (v's units), never
     * key bits, as in the engine's join order then. */
    int used[128] = {0};
    used[N - 1] = used[64 + N - 1] = !main_keys;
    for (int k = 0; k < keybits; k++) {
        int best = 0;
        double bv = -1;
        for (int b = 0; b < 128; b++)
            if (!used[b] && ce[b] * cw[b] > bv) {
                bv = ce[b] * cw[b];
                best = b;
            }
        used[best] = 1;
        key[k] = best;
    }
}

static int key_of(const half *x, const int *key)
{
    int v = 0;
    for (int k = 0; k < keybits; k++) {
        const int b = key[k];
        v |= (int)((b < 64 ? x->s >> b : x->d >> (b - 64)) & 1) << k;
    }
    return v;
}

/* Pairs of e x w whose keys share no bit: the west counts summed over
 * every subset of each key (a zeta transform), read at the complement of
 * each east key. */
double keyed_pairs(const hlist *e, const hlist *w, const int *key)
{
    static _Thread_local double he[1 << KEYBITS_MAX], hw[1 << KEYBITS_MAX];
    const int size = 1 << keybits;
    double t = 0;
    memset(he, 0, (size_t)size * sizeof *he);
    memset(hw, 0, (size_t)size * sizeof *hw);
    for (size_t i = 0; i < e->n; i++)
        he[key_of(&e->v[i], key)]++;
    for (size_t i = 0; i < w->n; i++)
        hw[key_of(&w->v[i], key)]++;
    for (int b = 0; b < keybits; b++)
        for (int x = 0; x < size; x++)
            if (x >> b & 1)
                hw[x] += hw[x ^ 1 << b];
    for (int a = 0; a < size; a++)
        t += he[a] * hw[(size - 1) & ~a];
    return t;
}

/* One join of lists e x w, weight `mult` in the count. */
void join(cost *c, const hlist *e, const hlist *w, uint64_t mult)
{
    const hlist *es[1] = {e}, *ws[1] = {w};
    int key[KEYBITS_MAX];
    c->pairs += (double)e->n * (double)w->n;
    if (e->n && w->n) {
        pick_key(es, 1, ws, 1, 0, key);
        c->keyed += keyed_pairs(e, w, key);
    }
    if (check)
        c->count += (unsigned __int128)compat(e, w) * mult;
}

uint32_t reverse_bits(uint32_t x, int width)
{
    uint32_t r = 0;
    for (int i = 0; i < width; i++)
        r |= (x >> i & 1) << (width - 1 - i);
    return r;
}

uint32_t mirror(uint32_t e)
{
    return reverse_bits(e, N);
}

/* Orbit size of E (a set of quarter rows, all in qrows) under north-south
 * reflection and complement in qrows, when E is its least member; else 0. */
int canon_weight(uint32_t e, uint32_t qrows)
{
    const uint32_t o[4] = {e, mirror(e), qrows & ~e, mirror(qrows & ~e)};
    int distinct = 0;
    for (int a = 0; a < 4; a++) {
        if (o[a] < e)
            return 0;
        int seen = 0;
        for (int b = 0; b < a; b++)
            seen |= o[a] == o[b];
        distinct += !seen;
    }
    return distinct;
}

/* Every k-subset of the set bits of `from`, into a fresh array. */
uint32_t *subsets(uint32_t from, int k, size_t *count)
{
    int pos[32], m = 0;
    for (uint32_t r = from; r; r &= r - 1)
        pos[m++] = __builtin_ctz(r);
    size_t cap = 1024, n = 0;
    uint32_t *out = malloc(cap * sizeof *out);
    if (k > m || k < 0) {
        *count = 0;
        return out;
    }
    for (uint64_t x = (UINT64_C(1) << k) - 1; x < (UINT64_C(1) << m);) {
        uint32_t e = 0;
        for (int i = 0; i < m; i++)
            if (x >> i & 1)
                e |= UINT32_C(1) << pos[i];
        if (n == cap)
            out = realloc(out, (cap *= 2) * sizeof *out);
        out[n++] = e;
        if (k == 0)
            break;
        const uint64_t low = x & (0 - x), ripple = x + low;
        x = ripple | (((x ^ ripple) >> 2) / low);
    }
    *count = n;
    return out;
}

void add(cost *to, const cost *c)
{
    to->units += c->units;
    to->halves += c->halves;
    to->pairs += c->pairs;
    to->keyed += c->keyed;
    to->count += c->count;
}

uint64_t qbit(int r)
{
    return UINT64_C(1) << r;
}
