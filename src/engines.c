/*
 * engines.c - the engine registry and the automatic engine choice.
 */
#include "engines.h"
#include "mitm.h"

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

/*
 * The choice, by measurement (README, "Speed"): below N=12 every engine
 * finishes in milliseconds, dominated by starting threads, and mirror plans
 * least; from 12 to mitm's limit, meet in the middle is 3x (N = 12, 15) to
 * 19x (N = 16) faster than the fastest search at every thread count; beyond
 * it, full symmetry does about a quarter of mirror's work.  Threads do not change the order.
 */
enum nq_engine nq_auto_engine(int n, int threads)
{
    (void)threads;
    if (n < NQ_AUTO_MITM_MIN_N)
        return NQ_ENGINE_MIRROR;
    if (n <= NQ_MITM_MAX_N)
        return NQ_ENGINE_MITM;
    return NQ_ENGINE_FULL;
}
