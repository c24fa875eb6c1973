/*
 * even_model.c - a model of what the meet-in-the-middle engine's unit
 * decompositions cost, to decide whether even boards should decompose by
 * the queens of their two main diagonals (docs/engines.md, "Even boards").
 *
 * For one board size it builds, unit by unit, the east and west half-board
 * lists a decomposition joins, by a plain backtracking walk that shares no
 * code with the engine, and adds up what dominates a count: units, half-
 * boards built, pairs tried by the join (east x west, over the class pairs
 * a unit joins), and the pairs left when a 6-bit key skips the pairs that
 * share one of the six diagonals most pairs share (as the engine's keyed
 * join does).  With --check it also joins every pair and checks that the
 * weighted unit counts of each decomposition add up to the board's total,
 * found by an independent search: the weights are then exact, not argued
 * (exit status 1 when a decomposition misses it).
 *
 * Decompositions (h = N / 2):
 *   today  odd N: the centre queen (canonical E) and the units (b, E) that
 *          gather the east halves of every a (west filtered by b alone).
 *   rank   even N, the engine's units: canonical E under the two
 *          reflections that keep E a set of rows, each solution weighted
 *          by c, which compares the rank of E with that of its image in
 *          the anti-diagonal (docs/engines.md, "The diagonal reflections"):
 *          the halves whose north column set ranks below E's floor are
 *          left out, those at it form a class of their own.
 *   v      even N, the units before the rank weight: canonical E, lists
 *          split by main-diagonal class, weighted by v; the base the
 *          decompositions below compare with.
 *   da     even N: by the queens on the main diagonals D and A -- none on
 *          either (canonical E, class-0 lists, weight = orbit of E), one on
 *          D in the south-east and none on A (weight 4, every E), one on
 *          each, D in the south-east at row d and A in the south-west at
 *          row a > d (weight 8, every E); each list leaves out its
 *          configuration's rows, columns and diagonals.
 *   da-ne  as da, but the pair's A queen in the north-east (a + d < N - 1).
 *   da-g   as da, the (a, E) units gathering the east halves of every d
 *          (west lists filtered by the A queen alone), as odd N gathers a.
 *
 *   midrows  even N: by the queens of the two middle rows, (h - 1, c1) and
 *          (h, c2), the triples (c1, c2, E) folded by the two reflections
 *          that keep E a set of rows (orbit weights), v's classes and v
 *          (both reflections keep v, so it stays valid).
 *   midrows-g  as midrows, the (c2, E) units gathering the east halves of
 *          every c1 (c1 east, west lists filtered by the (h, c2) queen
 *          alone), as odd N gathers a.
 *
 * The lists and their joins are even_lists.c's; this file holds the
 * decompositions and main().
 *
 * Usage: even-model N [--check] [--sample K] [--threads T] [--keybits B]
 *                    [--midrows | --da | --rank]
 *   --sample K: every K-th E of each list only, scaled by K (large N).
 *   --keybits B: key bits of the keyed pair count (default 6).
 *   --midrows, --da: v's units and only that decomposition; --rank: the
 *   rank weight's units and v's alone.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "even_model.h"

/* The run's settings (even_model.h), set by main() once. */
int N;
int check;
/* Key bits per join (--keybits; the engine takes 6 or 8). */
int keybits = 6;
static int sample = 1, threads = 1;
/* 0: every decomposition, 1: midrows only, 2: the main diagonals only,
 * 3: the rank weight's units only (and v's, their base) */
static int which;

/* A thread's lists for the units of one decomposition: each side's
 * halves, and each side's by class. */
typedef struct unit_lists {
    hlist e, w, ec[3], wc[3];
} unit_lists;

/* Adds the cost of the unit E of weight wt (its orbit) to c, from the
 * thread's lists l, whose e and w hold the unit's east and west halves;
 * arg is the decomposition's own. */
typedef void unit_fn(uint32_t E, int wt, int arg, unit_lists *l, cost *c);

/* Even N: the cost of a decomposition by canonical E (every sample-th
 * one, scaled up): each unit's halves built, its cost added by `unit`. */
static cost each_canonical_e(unit_fn *unit, int arg)
{
    const uint32_t all = (UINT32_C(1) << N) - 1, westc = (UINT32_C(1) << N / 2) - 1;
    size_t ne;
    uint32_t *es = subsets(all, N / 2, &ne);
    cost tot = {0};
#pragma omp parallel num_threads(threads)
    {
        cost c = {0};
        unit_lists l = {0};
#pragma omp for schedule(dynamic, 16)
        for (long i = 0; i < (long)ne; i += sample) {
            const int wt = canon_weight(es[i], all);
            /* A canonical E stands for wt units of the list; sampling
             * every sample-th E scales by sample. */
            if (wt) {
                c.units += sample;
                halves(es[i], all & ~westc, 0, 0, &l.e);
                halves(all & ~es[i], westc, 0, 0, &l.w);
                unit(es[i], wt, arg, &l, &c);
            }
        }
#pragma omp critical
        add(&tot, &c);
        free_lists(&l.e, &l.w, l.ec, l.wc);
    }
    free(es);
    return tot;
}

/* Even N, v's units: canonical E, classes, v (arg: class 0 alone). */
static void v_unit(uint32_t E, int wt, int class0_only, unit_lists *l, cost *c)
{
    (void)E;
    const hlist *e = &l->e, *w = &l->w;
    hlist *ec = l->ec, *wc = l->wc;
    if (class0_only) {
        select_class(e, 0, 0, &ec[0]);
        select_class(w, 0, 0, &wc[0]);
        c->halves += sample * (double)(ec[0].n + wc[0].n);
        cost one = {0};
        join(&one, &ec[0], &wc[0], wt);
        c->pairs += sample * one.pairs;
        c->keyed += sample * one.keyed;
        c->count += one.count;
        return;
    }
    c->halves += sample * (double)(e->n + w->n);
    /* class k: holds k of the two main diagonals (D and A count
     * alike for the weights, as the engine sorts them). */
    for (int k = 0; k < 3; k++) {
        ec[k].n = wc[k].n = 0;
    }
    const uint64_t dbit = qbit(N - 1);
    for (size_t j = 0; j < e->n; j++) {
        const int k = !!(e->v[j].d & dbit) + !!(e->v[j].s & dbit);
        push(&ec[k], e->v[j].s, e->v[j].d);
    }
    for (size_t j = 0; j < w->n; j++) {
        const int k = !!(w->v[j].d & dbit) + !!(w->v[j].s & dbit);
        push(&wc[k], w->v[j].s, w->v[j].d);
    }
    static const int v[3][3] = {{1, 1, 2}, {1, 0, 0}, {2, 0, 0}};
    const hlist *eall[3] = {&ec[0], &ec[1], &ec[2]}, *wall[3] = {&wc[0], &wc[1], &wc[2]};
    int key[KEYBITS_MAX];
    pick_key(eall, 3, wall, 3, 0, key);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            if (v[a][b]) {
                c->pairs += sample * (double)ec[a].n * (double)wc[b].n;
                c->keyed += sample * keyed_pairs(&ec[a], &wc[b], key);
                if (check)
                    c->count += (unsigned __int128)compat(&ec[a], &wc[b]) * v[a][b] * wt;
            }
}

static cost even_v(int class0_only)
{
    return each_canonical_e(v_unit, class0_only);
}

/* The rank of a set x of h bits up to complement: the smaller of x and
 * its complement, as numbers.  The model's own, from the definition in
 * docs/engines.md, as the rest of it shares no code with the engine. */
static uint32_t rank_h(uint32_t x, int h)
{
    const uint32_t c = x ^ ((UINT32_C(1) << h) - 1);
    return x < c ? x : c;
}

/* The class of a half whose north column set ranks r against the floor:
 * -1 below it (left out), 1 at it, 0 above. */
static int rank_class(uint32_t r, uint32_t floor)
{
    return r < floor ? -1 : r == floor;
}

/* Even N, the rank weight's units: canonical E (orbit weight wt) with
 * floor f, the smaller of the rank of its north rows and that of its
 * south rows reversed.  A solution whose east half's north columns,
 * reversed, rank a and whose west half's north columns rank b counts c =
 * 2, 1 or 0 times as min(a, b) is above, at or below f: so the halves
 * below f are left out, and the pairs weigh {{2, 1}, {1, 1}} by class
 * (0 above f, 1 at it). */
static void rank_unit(uint32_t E, int wt, int arg, unit_lists *l, cost *c)
{
    (void)arg;
    const int h = N / 2;
    const hlist *e = &l->e, *w = &l->w;
    hlist *ec = l->ec, *wc = l->wc;
    const uint32_t north = rank_h(E & ((UINT32_C(1) << h) - 1), h);
    const uint32_t south = rank_h(reverse_bits(E >> h, h), h);
    const uint32_t floor = north < south ? north : south;
    for (int k = 0; k < 2; k++)
        ec[k].n = wc[k].n = 0;
    for (size_t j = 0; j < e->n; j++) {
        const int k = rank_class(rank_h(reverse_bits(e->v[j].north_cols >> h, h), h), floor);
        if (k >= 0)
            push(&ec[k], e->v[j].s, e->v[j].d);
    }
    for (size_t j = 0; j < w->n; j++) {
        const int k = rank_class(rank_h(w->v[j].north_cols, h), floor);
        if (k >= 0)
            push(&wc[k], w->v[j].s, w->v[j].d);
    }
    /* The engine builds the halves it keeps alone. */
    c->halves += sample * (double)(ec[0].n + ec[1].n + wc[0].n + wc[1].n);
    static const int weight[2][2] = {{2, 1}, {1, 1}};
    const hlist *eall[2] = {&ec[0], &ec[1]}, *wall[2] = {&wc[0], &wc[1]};
    int key[KEYBITS_MAX];
    pick_key(eall, 2, wall, 2, 1, key);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            c->pairs += sample * (double)ec[a].n * (double)wc[b].n;
            c->keyed += sample * keyed_pairs(&ec[a], &wc[b], key);
            if (check)
                c->count += (unsigned __int128)compat(&ec[a], &wc[b]) * weight[a][b] * wt;
        }
}

static cost even_rank(void)
{
    return each_canonical_e(rank_unit, 0);
}

/* Even N, one queen: D at (d, d), d >= h, none on A; weight 4, every E. */
static cost even_one(void)
{
    const int h = N / 2;
    const uint32_t all = (UINT32_C(1) << N) - 1, westc = (UINT32_C(1) << h) - 1,
                   eastc = all & ~westc;
    cost tot = {0};
    for (int d = h; d < N; d++) {
        size_t ne;
        const uint32_t rows = all & ~(UINT32_C(1) << d);
        uint32_t *es = subsets(rows, h - 1, &ne);
        const uint64_t bs = qbit(2 * d) | qbit(N - 1), bd = qbit(N - 1);
#pragma omp parallel num_threads(threads)
        {
            cost c = {0};
            hlist e = {0}, w = {0};
#pragma omp for schedule(dynamic, 16)
            for (long i = 0; i < (long)ne; i += sample) {
                halves(es[i], eastc & ~(UINT32_C(1) << d), bs, bd, &e);
                halves(rows & ~es[i], westc, bs, bd, &w);
                cost one = {0};
                join(&one, &e, &w, 4);
                c.units += sample;
                c.halves += sample * (double)(e.n + w.n);
                c.pairs += sample * one.pairs;
                c.keyed += sample * one.keyed;
                c.count += one.count;
            }
#pragma omp critical
            add(&tot, &c);
            free_lists(&e, &w, NULL, NULL);
        }
        free(es);
    }
    return tot;
}

/* Even N, one queen on each main diagonal, weight 8: D at (d, d), d >= h;
 * A at (a, N - 1 - a), in the south-west (a > d) or, with ne, in the
 * north-east (a < h, a + d < N - 1).  gather: units (a, E) with E the rows
 * whose queen stands east including d's, east halves of every d joined
 * with one west list filtered by A alone (pairs counted that way). */
static cost even_both(int ne_side, int gather)
{
    const int h = N / 2;
    const uint32_t all = (UINT32_C(1) << N) - 1, westc = (UINT32_C(1) << h) - 1,
                   eastc = all & ~westc;
    cost tot = {0};
    for (int a = 0; a < N; a++) {
        const int ac = N - 1 - a;
        if (ne_side ? a >= h : a < h)
            continue;
        const uint64_t as = qbit(N - 1), ad = qbit(a - ac + N - 1);
        const uint32_t rows_a = all & ~(UINT32_C(1) << a);
        const uint32_t acol = UINT32_C(1) << ac;
        if (gather) {
            /* E: h rows (the D queen's among them), all east columns. */
            size_t ne;
            uint32_t *es = subsets(rows_a, h, &ne);
#pragma omp parallel num_threads(threads)
            {
                cost c = {0};
                hlist e = {0}, w = {0};
#pragma omp for schedule(dynamic, 16)
                for (long i = 0; i < (long)ne; i += sample) {
                    const uint32_t E = es[i];
                    /* West: no queen on D, none attacking the A queen. */
                    halves(rows_a & ~E, westc & ~acol, as, ad | qbit(N - 1), &w);
                    int any = 0;
                    double etot = 0;
                    for (int d = h; d < a; d++) {
                        if (!(E >> d & 1))
                            continue;
                        halves(E & ~(UINT32_C(1) << d), eastc & ~(UINT32_C(1) << d),
                               as | qbit(2 * d), ad | qbit(N - 1), &e);
                        /* The east halves carry the D queen's diagonals. */
                        for (size_t j = 0; j < e.n; j++) {
                            e.v[j].s |= qbit(2 * d);
                            e.v[j].d |= qbit(N - 1);
                        }
                        any = 1;
                        etot += (double)e.n;
                        cost one = {0};
                        join(&one, &e, &w, 8);
                        c.pairs += sample * one.pairs;
                        c.keyed += sample * one.keyed;
                        c.count += one.count;
                    }
                    if (any) {
                        c.units += sample;
                        c.halves += sample * (etot + (double)w.n);
                    }
                }
#pragma omp critical
                add(&tot, &c);
                free_lists(&e, &w, NULL, NULL);
            }
            free(es);
            continue;
        }
        for (int d = h; d < N; d++) {
            if (ne_side ? a + d >= N - 1 : d >= a)
                continue;
            const uint32_t rows = rows_a & ~(UINT32_C(1) << d);
            const uint32_t ecols = eastc & ~(UINT32_C(1) << d) & ~acol,
                           wcols = westc & ~acol;
            const uint64_t bs = as | qbit(2 * d), bd = ad | qbit(N - 1);
            size_t ne;
            uint32_t *es = subsets(rows, __builtin_popcount(ecols), &ne);
#pragma omp parallel num_threads(threads)
            {
                cost c = {0};
                hlist e = {0}, w = {0};
#pragma omp for schedule(dynamic, 16)
                for (long i = 0; i < (long)ne; i += sample) {
                    halves(es[i], ecols, bs, bd, &e);
                    halves(rows & ~es[i], wcols, bs, bd, &w);
                    cost one = {0};
                    join(&one, &e, &w, 8);
                    c.units += sample;
                    c.halves += sample * (double)(e.n + w.n);
                    c.pairs += sample * one.pairs;
                    c.keyed += sample * one.keyed;
                    c.count += one.count;
                }
#pragma omp critical
                add(&tot, &c);
                free_lists(&e, &w, NULL, NULL);
            }
            free(es);
        }
    }
    return tot;
}

/* Even N, by the queens of the two middle rows: (h - 1, c1) and (h, c2),
 * c1 != c2, |c1 - c2| != 1.  The four reflections that keep E a set of
 * rows act on (c1, c2, E) together; each canonical triple is a unit,
 * weighted by its orbit, with v's classes and v (the fixed queens
 * count in their side's class: v is a function of the solution, and the
 * four reflections keep it). */
static cost even_midrows(void)
{
    const int h = N / 2;
    const uint32_t all = (UINT32_C(1) << N) - 1, westc = (UINT32_C(1) << h) - 1,
                   eastc = all & ~westc;
    const uint32_t rows = all & ~(UINT32_C(3) << (h - 1));
    cost tot = {0};
    for (int c1 = 0; c1 < N; c1++)
        for (int c2 = 0; c2 < N; c2++) {
            if (c1 == c2 || c1 - c2 == 1 || c2 - c1 == 1)
                continue;
            const int neast = (c1 >= h) + (c2 >= h);
            const uint32_t fc = UINT32_C(1) << c1 | UINT32_C(1) << c2;
            const uint64_t bs = qbit(h - 1 + c1) | qbit(h + c2),
                           bd = qbit(h - 1 - c1 + N - 1) | qbit(h - c2 + N - 1);
            /* Each fixed queen's diagonals, for its own side's halves. */
            uint64_t es_ = 0, ed_ = 0, ws_ = 0, wd_ = 0;
            if (c1 >= h) {
                es_ |= qbit(h - 1 + c1);
                ed_ |= qbit(h - 1 - c1 + N - 1);
            } else {
                ws_ |= qbit(h - 1 + c1);
                wd_ |= qbit(h - 1 - c1 + N - 1);
            }
            if (c2 >= h) {
                es_ |= qbit(h + c2);
                ed_ |= qbit(h - c2 + N - 1);
            } else {
                ws_ |= qbit(h + c2);
                wd_ |= qbit(h - c2 + N - 1);
            }
            size_t ne;
            uint32_t *es = subsets(rows, h - neast, &ne);
#pragma omp parallel num_threads(threads)
            {
                cost c = {0};
                hlist e = {0}, w = {0}, ec[3] = {{0}}, wc[3] = {{0}};
#pragma omp for schedule(dynamic, 16)
                for (long i = 0; i < (long)ne; i += sample) {
                    const uint32_t E = es[i];
                    /* The orbit of (c1, c2, E); canonical when least. */
                    const int oc1[4] = {c1, c2, N - 1 - c1, N - 1 - c2};
                    const int oc2[4] = {c2, c1, N - 1 - c2, N - 1 - c1};
                    const uint32_t oe[4] = {E, mirror(E), rows & ~E, mirror(rows & ~E)};
                    uint64_t key[4];
                    for (int g = 0; g < 4; g++)
                        key[g] = (uint64_t)oc1[g] << 40 | (uint64_t)oc2[g] << 32 | oe[g];
                    int wt = 0, least = 1;
                    for (int g = 0; g < 4; g++) {
                        least &= key[g] >= key[0];
                        int seen = 0;
                        for (int k = 0; k < g; k++)
                            seen |= key[k] == key[g];
                        wt += !seen;
                    }
                    if (!least)
                        continue;
                    halves(E, eastc & ~fc, bs, bd, &e);
                    halves(rows & ~E, westc & ~fc, bs, bd, &w);
                    c.units += sample;
                    c.halves += sample * (double)(e.n + w.n);
                    for (int k = 0; k < 3; k++)
                        ec[k].n = wc[k].n = 0;
                    const uint64_t dbit = qbit(N - 1);
                    for (size_t j = 0; j < e.n; j++) {
                        const uint64_t s = e.v[j].s | es_, d = e.v[j].d | ed_;
                        push(&ec[!!(d & dbit) + !!(s & dbit)], s, d);
                    }
                    for (size_t j = 0; j < w.n; j++) {
                        const uint64_t s = w.v[j].s | ws_, d = w.v[j].d | wd_;
                        push(&wc[!!(d & dbit) + !!(s & dbit)], s, d);
                    }
                    static const int v[3][3] = {{1, 1, 2}, {1, 0, 0}, {2, 0, 0}};
                    const hlist *eall[3] = {&ec[0], &ec[1], &ec[2]},
                                *wall[3] = {&wc[0], &wc[1], &wc[2]};
                    int kb[KEYBITS_MAX];
                    pick_key(eall, 3, wall, 3, 0, kb);
                    for (int a = 0; a < 3; a++)
                        for (int b = 0; b < 3; b++)
                            if (v[a][b]) {
                                c.pairs += sample * (double)ec[a].n * (double)wc[b].n;
                                c.keyed += sample * keyed_pairs(&ec[a], &wc[b], kb);
                                if (check)
                                    c.count += (unsigned __int128)compat(&ec[a], &wc[b]) *
                                               v[a][b] * wt;
                            }
                }
#pragma omp critical
                add(&tot, &c);
                free_lists(&e, &w, ec, wc);
            }
            free(es);
        }
    return tot;
}

/* Even N, the middle rows gathered as odd N gathers a: each orbit of
 * (c1, c2, E) is solved by its least member with c1 east (every orbit has
 * one: east-west reflection moves c1 across), weighted by the orbit's
 * size; a unit is (c2, E) and joins one west list, filtered by the (h, c2)
 * queen alone, with the east halves of every c1, which carry that queen's
 * diagonals. */
static cost even_midrows_gathered(void)
{
    const int h = N / 2;
    const uint32_t all = (UINT32_C(1) << N) - 1, westc = (UINT32_C(1) << h) - 1,
                   eastc = all & ~westc;
    const uint32_t rows = all & ~(UINT32_C(3) << (h - 1));
    cost tot = {0};
    for (int c2 = 0; c2 < N; c2++) {
        const int k = h - 1 - (c2 >= h); /* rows of E: the east columns c1 and c2 leave */
        const uint64_t bs2 = qbit(h + c2), bd2 = qbit(h - c2 + N - 1);
        uint64_t ws_ = 0, wd_ = 0;
        if (c2 < h) {
            ws_ = bs2;
            wd_ = bd2;
        }
        size_t ne;
        uint32_t *es = subsets(rows, k, &ne);
#pragma omp parallel num_threads(threads)
        {
            cost c = {0};
            hlist e = {0}, w = {0}, ec[3] = {{0}}, wc[3] = {{0}};
#pragma omp for schedule(dynamic, 16)
            for (long i = 0; i < (long)ne; i += sample) {
                const uint32_t E = es[i];
                int built = 0;
                double halves_e = 0;
                for (int c1 = h; c1 < N; c1++) {
                    if (c1 - c2 <= 1 && c2 - c1 <= 1)
                        continue;
                    const int oc1[4] = {c1, c2, N - 1 - c1, N - 1 - c2};
                    const int oc2[4] = {c2, c1, N - 1 - c2, N - 1 - c1};
                    const uint32_t oe[4] = {E, mirror(E), rows & ~E, mirror(rows & ~E)};
                    uint64_t key[4];
                    int wt = 0, least = 1;
                    for (int g = 0; g < 4; g++) {
                        key[g] = (uint64_t)oc1[g] << 40 | (uint64_t)oc2[g] << 32 | oe[g];
                        int seen = 0;
                        for (int b = 0; b < g; b++)
                            seen |= key[b] == key[g];
                        wt += !seen;
                        if (oc1[g] >= h && key[g] < key[0])
                            least = 0;
                    }
                    if (!least)
                        continue;
                    if (!built) { /* the west list, once per (c2, E) */
                        const uint32_t wcols = westc & ~(c2 < h ? UINT32_C(1) << c2 : 0);
                        halves(rows & ~E, wcols, bs2, bd2, &w);
                        for (int q = 0; q < 3; q++)
                            wc[q].n = 0;
                        const uint64_t dbit = qbit(N - 1);
                        for (size_t j = 0; j < w.n; j++) {
                            const uint64_t s = w.v[j].s | ws_, d = w.v[j].d | wd_;
                            push(&wc[!!(d & dbit) + !!(s & dbit)], s, d);
                        }
                        built = 1;
                    }
                    const uint64_t bs1 = qbit(h - 1 + c1), bd1 = qbit(h - 1 - c1 + N - 1);
                    const uint32_t ecols = eastc & ~(UINT32_C(1) << c1) &
                                           ~(c2 >= h ? UINT32_C(1) << c2 : 0);
                    halves(E, ecols, bs1 | bs2, bd1 | bd2, &e);
                    halves_e += (double)e.n;
                    for (int q = 0; q < 3; q++)
                        ec[q].n = 0;
                    const uint64_t dbit = qbit(N - 1);
                    for (size_t j = 0; j < e.n; j++) {
                        uint64_t s = e.v[j].s | bs1, d = e.v[j].d | bd1;
                        if (c2 >= h) {
                            s |= bs2;
                            d |= bd2;
                        }
                        push(&ec[!!(d & dbit) + !!(s & dbit)], s, d);
                    }
                    static const int v[3][3] = {{1, 1, 2}, {1, 0, 0}, {2, 0, 0}};
                    const hlist *eall[3] = {&ec[0], &ec[1], &ec[2]},
                                *wall[3] = {&wc[0], &wc[1], &wc[2]};
                    int kb[KEYBITS_MAX];
                    pick_key(eall, 3, wall, 3, 0, kb);
                    for (int a = 0; a < 3; a++)
                        for (int b = 0; b < 3; b++)
                            if (v[a][b]) {
                                c.pairs += sample * (double)ec[a].n * (double)wc[b].n;
                                c.keyed += sample * keyed_pairs(&ec[a], &wc[b], kb);
                                if (check)
                                    c.count += (unsigned __int128)compat(&ec[a], &wc[b]) *
                                               v[a][b] * wt;
                            }
                }
                if (built) {
                    c.units += sample;
                    c.halves += sample * (halves_e + (double)w.n);
                }
            }
#pragma omp critical
            add(&tot, &c);
            free_lists(&e, &w, ec, wc);
        }
        free(es);
    }
    return tot;
}

/* Odd N, today's units: the centre queen (canonical E), and (b, E) units
 * gathering a = 1 .. b - 1 (west filtered by the b queen alone). */
static cost odd_today(void)
{
    const int h = N / 2, m = h;
    const uint32_t all = (UINT32_C(1) << N) - 1, qrows = all & ~(UINT32_C(1) << m),
                   westc = (UINT32_C(1) << h) - 1, eastc = qrows & ~westc;
    cost tot = {0};
    /* The centre queen. */
    {
        size_t ne;
        uint32_t *es = subsets(qrows, h, &ne);
        const uint64_t bs = qbit(2 * m), bd = qbit(N - 1);
#pragma omp parallel num_threads(threads)
        {
            cost c = {0};
            hlist e = {0}, w = {0};
#pragma omp for schedule(dynamic, 16)
            for (long i = 0; i < (long)ne; i += sample) {
                const int wt = canon_weight(es[i], qrows);
                if (!wt)
                    continue;
                halves(es[i], eastc, bs, bd, &e);
                halves(qrows & ~es[i], westc, bs, bd, &w);
                cost one = {0};
                join(&one, &e, &w, (uint64_t)wt);
                c.units += sample;
                c.halves += sample * (double)(e.n + w.n);
                c.pairs += sample * one.pairs;
                c.keyed += sample * one.keyed;
                c.count += one.count;
            }
#pragma omp critical
            add(&tot, &c);
            free_lists(&e, &w, NULL, NULL);
        }
        free(es);
    }
    for (int b = 2; b <= h; b++) {
        const int br = m + b; /* the middle column's queen at (m + b, m) */
        const uint32_t rows = qrows & ~(UINT32_C(1) << br);
        const uint64_t bs = qbit(br + m), bd = qbit(br - m + N - 1);
        size_t ne;
        uint32_t *es = subsets(rows, h - 1, &ne);
#pragma omp parallel num_threads(threads)
        {
            cost c = {0};
            hlist e = {0}, w = {0};
#pragma omp for schedule(dynamic, 16)
            for (long i = 0; i < (long)ne; i += sample) {
                halves(rows & ~es[i], westc, bs, bd, &w);
                double etot = 0;
                for (int a = 1; a < b; a++) {
                    const int ac = m + a; /* the middle row's queen at (m, m + a) */
                    halves(es[i], eastc & ~(UINT32_C(1) << ac), bs | qbit(m + ac),
                           bd | qbit(m - ac + N - 1), &e);
                    for (size_t j = 0; j < e.n; j++) {
                        e.v[j].s |= qbit(m + ac);
                        e.v[j].d |= qbit(m - ac + N - 1);
                    }
                    etot += (double)e.n;
                    cost one = {0};
                    join(&one, &e, &w, 8);
                    c.pairs += sample * one.pairs;
                    c.keyed += sample * one.keyed;
                    c.count += one.count;
                }
                c.units += sample;
                c.halves += sample * (etot + (double)w.n);
            }
#pragma omp critical
            add(&tot, &c);
            free_lists(&e, &w, NULL, NULL);
        }
        free(es);
    }
    return tot;
}

/* The board's total by a plain search (for --check). */
static uint64_t search(int r, uint32_t cols, uint64_t s, uint64_t d)
{
    if (r == N)
        return 1;
    uint64_t t = 0;
    for (int c = 0; c < N; c++)
        if (!(cols >> c & 1) && !(s >> (r + c) & 1) && !(d >> (r - c + N - 1) & 1))
            t += search(r + 1, cols | UINT32_C(1) << c, s | qbit(r + c), d | qbit(r - c + N - 1));
    return t;
}

static void print(const char *name, const cost *c, const cost *base)
{
    printf("%-9s units %12.0f  halves %14.4g  pairs %14.4g  keyed %14.4g", name, c->units,
           c->halves, c->pairs, c->keyed);
    if (base) /* fewer pairs is a gain, more halves and units a cost */
        printf("  gain: pairs %.2f keyed %.2f  cost: halves x%.2f units x%.1f",
               base->pairs / c->pairs, base->keyed / c->keyed, c->halves / base->halves,
               c->units / base->units);
    if (check)
        printf("  count %" PRIu64, (uint64_t)c->count);
    printf("\n");
}

static uint64_t board_total;
static int wrong; /* a whole decomposition's weighted count missed the total */

/* Prints a whole decomposition and, with --check, compares its weighted
 * count with the board's total. */
static void print_whole(const char *name, const cost *c, const cost *base)
{
    print(name, c, base);
    if (check && (uint64_t)c->count != board_total) {
        fprintf(stderr, "even-model: N=%d %s counts %" PRIu64 ", the total is %" PRIu64 "\n", N,
                name, (uint64_t)c->count, board_total);
        wrong = 1;
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr,
                "usage: even-model N [--check] [--sample K] [--threads T] [--keybits B] "
                "[--midrows | --da | --rank]\n");
        return 2;
    }
    N = atoi(argv[1]);
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--check"))
            check = 1;
        else if (!strcmp(argv[i], "--midrows"))
            which = 1;
        else if (!strcmp(argv[i], "--da"))
            which = 2;
        else if (!strcmp(argv[i], "--rank"))
            which = 3;
        else if (!strcmp(argv[i], "--sample") && i + 1 < argc)
            sample = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--keybits") && i + 1 < argc)
            keybits = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else {
            fprintf(stderr, "even-model: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (N < 4 || N > 26 || sample < 1 || threads < 1 || keybits < 1 || keybits > KEYBITS_MAX) {
        fprintf(stderr, "even-model: N must be 4..26, --sample and --threads >= 1, "
                        "--keybits 1..%d\n", KEYBITS_MAX);
        return 2;
    }
    if (check) {
        board_total = search(0, 0, 0, 0);
        printf("N=%d total %" PRIu64 "\n", N, board_total);
    }
    if (N & 1) {
        const cost t = odd_today();
        print_whole("today", &t, NULL);
        return wrong;
    }
    const cost t = even_v(0);
    print_whole("v", &t, NULL);
    const cost rk = even_rank();
    print_whole("rank", &rk, &t);
    if (which == 3)
        return wrong;
    if (which != 2) {
        const cost r = even_midrows();
        print_whole("midrows", &r, &t);
        const cost g = even_midrows_gathered();
        print_whole("midrows-g", &g, &t);
    }
    if (which == 1)
        return wrong;
    const cost z = even_v(1), o = even_one();
    print("da-none", &z, NULL);
    print("da-one", &o, NULL);
    const char *names[3] = {"da-both", "da-ne", "da-g"};
    const int ne_side[3] = {0, 1, 0}, gather[3] = {0, 0, 1};
    for (int k = 0; k < 3; k++) {
        const cost b = even_both(ne_side[k], gather[k]);
        cost s = z;
        add(&s, &o);
        add(&s, &b);
        print(names[k], &b, NULL);
        char label[16];
        snprintf(label, sizeof label, "=%s", names[k]);
        print_whole(label, &s, &t);
    }
    return wrong;
}
