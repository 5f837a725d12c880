/* The state hash (hash.c): XXH3-64 over the canonical serialisation
 * (state.c), computed at the end of every step. */
#ifndef FXS_HASH_H
#define FXS_HASH_H

#include "fixstep/fixstep.h"

#include <stdbool.h>

/* w->hash from w's state (w->hash_valid false when out of memory) */
void fxs_world_update_hash(fxs_world *w);
/* The hash's buffers, taken before a step changes anything. */
bool fxs_world_hash_reserve(fxs_world *w);

#endif
