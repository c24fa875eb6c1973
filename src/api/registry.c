/*
 * registry.c - the engine registry: which engines are built, their
 * capabilities and the automatic engine choice (their names are core's,
 * core/names.c).
 */
#include "api/registry.h"
#include "engines/engines.h"

/* Smallest N for which auto picks mitm. */
#define NQ_AUTO_MITM_MIN_N 12

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

int nq_engine_max_n(enum nq_engine engine)
{
    const struct nq_engine_ops *ops = nq_engine_ops_for(engine);
    if (!ops)
        return 0;
    return ops->max_n ? ops->max_n : NQ_MAX_N;
}

/*
 * The choice follows the measured speed of the engines (docs/performance.md,
 * "Figures the code's choices rest on"): on small boards every engine is
 * done before its threads matter and mirror plans least; from
 * NQ_AUTO_MITM_MIN_N to mitm's limit meet in the middle is the fastest at
 * every thread count; beyond it full symmetry does the least work.  The
 * thread count does not change the order, so the choice depends on n alone.
 */
enum nq_engine nq_auto_engine(int n, int threads)
{
    (void)threads;
    if (n < NQ_AUTO_MITM_MIN_N)
        return NQ_ENGINE_MIRROR;
    if (n <= nq_engine_max_n(NQ_ENGINE_MITM))
        return NQ_ENGINE_MITM;
    return NQ_ENGINE_FULL;
}

int nq_engine_has_unique(enum nq_engine engine)
{
    const struct nq_engine_ops *ops = nq_engine_ops_for(engine);
    return ops ? ops->has_unique : 0;
}
