/*
 * names.c - the engines' names, both ways (the public nq_engine_name() and
 * nq_engine_from_name()).
 *
 * In core/ because every layer names engines: the journal in its messages,
 * the API when it reads settings, the programs on their command lines.  A
 * name is a fact of the public enum, not of a built engine, so this needs
 * nothing above it (the registry, api/registry.c, says which engines exist).
 */
#include <string.h>

#include "nqueens/nqueens.h"

static const char *const engine_names[NQ_ENGINE_COUNT_] = {
    [NQ_ENGINE_AUTO] = "auto",     [NQ_ENGINE_PLAIN] = "plain", [NQ_ENGINE_MIRROR] = "mirror",
    [NQ_ENGINE_FULL] = "full",     [NQ_ENGINE_MITM] = "mitm",
};

const char *nq_engine_name(enum nq_engine engine)
{
    if ((int)engine < 0 || engine >= NQ_ENGINE_COUNT_)
        return NULL;
    return engine_names[engine];
}

int nq_engine_from_name(const char *name, enum nq_engine *engine)
{
    if (!name || !engine)
        return NQ_EINVAL_ARG;
    for (int e = 0; e < NQ_ENGINE_COUNT_; e++)
        if (!strcmp(name, engine_names[e])) {
            *engine = (enum nq_engine)e;
            return 0;
        }
    return NQ_EINVAL_ENGINE;
}
