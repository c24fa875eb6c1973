/*
 * plan.c - how a journalled run is planned, so that it can be resumed with
 * any thread or rank count: the engine and split depth come from the
 * journal, or from n alone.
 */
#include "api/plan.h"
#include "api/registry.h"
#include "journal/journal.h"

/* Deepest split nq_plan_default_split() picks: depth 6 already means
 * millions of 16-byte subproblems at N >= 21. */
#define PLAN_MAX_DEFAULT_SPLIT 6

int nq_plan_default_split(int n)
{
    /* Each extra board size multiplies the work by ~6.5 and each extra row
     * of split multiplies the units by ~8-10, so depth n - 15 keeps units
     * at 0.02..0.3 s on one core for 17 <= n <= 22 (measured: N=20 depth 5
     * 0.08 s average, 0.15 s largest sampled). */
    int depth = n - 15;
    if (depth < 2)
        depth = 2;
    if (depth > PLAN_MAX_DEFAULT_SPLIT)
        depth = PLAN_MAX_DEFAULT_SPLIT;
    return depth < n ? depth : n;
}

void nq_plan_journalled(const char *path, nq_settings *s)
{
    if (!s || s->n < NQ_MIN_N || s->n > NQ_MAX_N)
        return;
    int n = 0, split = 0;
    enum nq_engine was = NQ_ENGINE_AUTO;
    const int known = nq_journal_peek(path, &n, &was, &split) && n == s->n &&
                      was != NQ_ENGINE_AUTO && nq_engine_ops_for(was) != NULL;
    /* The automatic engine choice may one day depend on threads; the
     * journal's engine is the one this run must resume with. */
    if (s->engine == NQ_ENGINE_AUTO)
        s->engine = known ? was : nq_auto_engine(s->n, s->threads);
    if (s->split_depth != 0 || s->engine != NQ_ENGINE_MIRROR)
        return;
    if (known && was == s->engine && split >= 1 && split <= s->n && split <= NQ_MAX_SPLIT_DEPTH)
        s->split_depth = split;
    else
        s->split_depth = nq_plan_default_split(s->n);
}
