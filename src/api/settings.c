/*
 * settings.c - the default settings and their validation.
 */
#include <string.h>

#include "nqueens/nqueens.h"

void nq_default_settings(nq_settings *s)
{
    memset(s, 0, sizeof *s);
    s->n = 8;
    s->threads = 0;
    s->engine = NQ_ENGINE_AUTO;
    s->split_depth = 0;
    s->progress_interval = 0.25;
    s->checkpoint_interval = 2.0;
}

int nq_validate_settings(const nq_settings *s)
{
    if (!s)
        return NQ_EINVAL_ARG;
    if (s->n < NQ_MIN_N || s->n > NQ_MAX_N)
        return NQ_EINVAL_N;
    if (s->threads < 0 || s->threads > NQ_MAX_THREADS)
        return NQ_EINVAL_THREADS;
    if ((int)s->engine < 0 || s->engine >= NQ_ENGINE_COUNT_)
        return NQ_EINVAL_ENGINE;
    if (s->split_depth < 0 || s->split_depth > s->n || s->split_depth > NQ_MAX_SPLIT_DEPTH)
        return NQ_EINVAL_SPLIT;
    if (s->progress && !(s->progress_interval >= 0))
        return NQ_EINVAL_ARG;
    if (s->checkpoint_path && !(s->checkpoint_interval > 0))
        return NQ_EINVAL_ARG;
    return 0;
}
