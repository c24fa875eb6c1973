/*
 * engines.c - the engine registry and the automatic engine choice.
 */
#include "engines.h"

const struct nq_engine_ops *nq_engine_ops_for(enum nq_engine engine)
{
    switch (engine) {
    case NQ_ENGINE_PLAIN: return &nq_engine_plain;
    case NQ_ENGINE_MIRROR: return &nq_engine_mirror;
    case NQ_ENGINE_FULL: return &nq_engine_full;
    case NQ_ENGINE_MITM: return &nq_engine_mitm;
    default: return NULL;
    }
}

enum nq_engine nq_auto_engine(int n, int threads)
{
    (void)n;
    (void)threads;
    return NQ_ENGINE_MIRROR;
}
