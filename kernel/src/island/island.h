/* Islands: the connected components of the graph of touching non-static
 * bodies. An island sleeps and wakes as a whole. */
#ifndef FXS_ISLAND_H
#define FXS_ISLAND_H

#include "world/world.h"
#include "collide/contact.h"

/* island[s] = the smallest slot of s's island (s itself when alone), for
 * every live non-static slot; UINT32_MAX for static and dead slots.
 * Union-find over the contact list with the minimum slot as representative:
 * the result depends on the components only, never on the order of pairs. */
fxs_result fxs_islands_build(fxs_world *w);
/* The island arrays for the current slot count (the step takes them first). */
bool fxs_islands_reserve(fxs_world *w);

/* Before the narrowphase: wake every island that holds an awake body or
 * whose bounds overlap an awake moving body's (pairs from the broadphase). */
void fxs_islands_wake(fxs_world *w, const fxs_pair *pairs, uint32_t pair_count);

/* After the solve: advance sleep timers and put to sleep every island whose
 * bodies have all been slow for time_to_sleep. */
void fxs_islands_sleep(fxs_world *w);

/* A body is active (integrated, solved) when it moves and is awake. */
static inline bool fxs_body_active(const fxs_body *b) { return b->alive && b->type != FXS_BODY_STATIC && b->awake; }

#endif
