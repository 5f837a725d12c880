/* Broadphase: from body AABBs to the canonical list of overlapping pairs.
 *
 * Contract (what the step relies on):
 *   - Proxies are body slot indices. fxs_bp_update receives every slot's AABB
 *     and flags each step; the broadphase keeps whatever state it wants
 *     between steps (e.g. tree leaf order), and that state goes into the
 *     snapshot and hash through fxs_bp_write_state / fxs_bp_read_state.
 *   - fxs_bp_find_pairs returns every pair of live proxies whose AABBs overlap
 *     (closed intervals) exactly once, with a < b, sorted by (a, b), skipping
 *     pairs where neither proxy is dynamic. The result never depends on
 *     the internal order of the structure. */
#ifndef FXS_BROADPHASE_H
#define FXS_BROADPHASE_H

#include "aabb.h"
#include "serialize.h"

typedef struct fxs_pair {
	uint32_t a, b; /* body slot indices, a < b */
} fxs_pair;

/* per-proxy flags passed to fxs_bp_update */
enum {
	FXS_PROXY_LIVE = 1,   /* the slot holds a body */
	FXS_PROXY_MOVING = 2, /* dynamic body: pairs need at least one moving proxy */
	FXS_PROXY_STATIC = 4  /* static body: never moves unless teleported (octree material) */
};

typedef struct fxs_broadphase fxs_broadphase;

fxs_broadphase *fxs_bp_create(void);
void fxs_bp_destroy(fxs_broadphase *bp);
/* Give the broadphase this step's boxes. aabbs[i] and flags[i] for slot i < count. */
fxs_result fxs_bp_update(fxs_broadphase *bp, const fxs_aabb *aabbs, const uint8_t *flags, uint32_t count);
/* Overlapping pairs, sorted by (a, b). The array stays owned by bp and valid
 * until the next update. */
const fxs_pair *fxs_bp_find_pairs(fxs_broadphase *bp, uint32_t *pair_count);
void fxs_bp_write_state(const fxs_broadphase *bp, fxs_writer *w);
fxs_result fxs_bp_read_state(fxs_broadphase *bp, fxs_reader *r, uint32_t slot_count);

#endif
