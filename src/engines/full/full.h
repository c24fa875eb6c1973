/*
 * full.h - internal hooks of the full-symmetry engine, for tests.
 */
#ifndef NQ_FULL_H
#define NQ_FULL_H

#include <stdint.h>

#include "engines/full/symmetry.h"

/*
 * Plans the full engine for n and solves every unit on the calling thread
 * through its explicit path, storing in classes[k] the number of solution
 * classes of size k (k = 1, 2, 4, 8; other entries 0), as the engine's
 * weighting sees them.  Meant for small n: it is slow.  Returns 0,
 * NQ_EINVAL_ARG (classes NULL), NQ_EINVAL_N or NQ_ENOMEM.
 */
int nq_full_class_sizes(int n, uint64_t classes[NQ_SYMMETRIES + 1]);

#endif /* NQ_FULL_H */
