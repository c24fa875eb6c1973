/*
 * engines.h - the engine registry: which engines exist and which one
 * NQ_ENGINE_AUTO picks.
 */
#ifndef NQ_ENGINES_H
#define NQ_ENGINES_H

#include "job.h"

/* The ops of an engine, or NULL for NQ_ENGINE_AUTO, unknown or unbuilt ones. */
const struct nq_engine_ops *nq_engine_ops_for(enum nq_engine engine);

#endif /* NQ_ENGINES_H */
