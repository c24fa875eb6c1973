/*
 * engines.h - the engines the library is built with.  This is the only
 * header of src/engines/ that code outside an engine's own folder may
 * include (the registry does); each engine's other headers are private to
 * it and to its white-box tests.
 */
#ifndef NQ_ENGINES_ENGINES_H
#define NQ_ENGINES_ENGINES_H

#include "core/engine.h"

extern const struct nq_engine_ops nq_engine_plain;
extern const struct nq_engine_ops nq_engine_mirror;
extern const struct nq_engine_ops nq_engine_full;
extern const struct nq_engine_ops nq_engine_mitm;

#endif /* NQ_ENGINES_ENGINES_H */
