/*
 * registry.h - which engines exist, by id, and which one NQ_ENGINE_AUTO
 * picks (the public nq_engine_* calls are in registry.c, but for the
 * names, in core/names.c).
 */
#ifndef NQ_API_REGISTRY_H
#define NQ_API_REGISTRY_H

#include "core/engine.h"

/* The ops of an engine, or NULL for NQ_ENGINE_AUTO, unknown or unbuilt ones. */
const struct nq_engine_ops *nq_engine_ops_for(enum nq_engine engine);

/* Largest board the engine can count (NQ_MAX_N when it has no limit of its
 * own), or 0 for NQ_ENGINE_AUTO and unknown engines. */
int nq_engine_max_n(enum nq_engine engine);

#endif /* NQ_API_REGISTRY_H */
