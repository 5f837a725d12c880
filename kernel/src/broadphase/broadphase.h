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

#include "geometry/aabb.h"
#include "broadphase/octree.h"
#include "state/serialize.h"

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
/* The same, the tree's refit cut into subtrees run at once on w's workers
 * (world/tasks.h) when it has them: the same tree whatever the workers. */
fxs_result fxs_bp_update_on(fxs_broadphase *bp, const fxs_world *w, const fxs_aabb *aabbs, const uint8_t *flags,
			    uint32_t count);
/* Overlapping pairs, sorted by (a, b). The array stays owned by bp and valid
 * until the next update. NULL (and no pairs) when out of memory. */
const fxs_pair *fxs_bp_find_pairs(fxs_broadphase *bp, uint32_t *pair_count);
/* The same list, the tree's search cut into jobs run in blocks on w's
 * workers (world/tasks.h) when it has them: the same pairs, in the same
 * (sorted) order, whatever the workers. */
const fxs_pair *fxs_bp_find_pairs_on(fxs_broadphase *bp, const fxs_world *w, uint32_t *pair_count);
void fxs_bp_write_state(const fxs_broadphase *bp, fxs_writer *w);
fxs_result fxs_bp_read_state(fxs_broadphase *bp, fxs_reader *r, uint32_t slot_count);

/* ---- additions: options, queries, statistics ----
 *
 * Where things live: live proxies that are STATIC and not MOVING go into the
 * seed 001 octree (rebuilt whenever that set or one of its boxes changes);
 * every other live proxy is a leaf of the seed 000 tree. Tree pairs come
 * from the tree's traversal, moving-vs-static pairs from one octree query
 * per moving leaf, static-static pairs never. Boxes are used exactly as
 * given (no fattening margin: the tree is refit every step anyway, so a
 * margin would only add pairs to filter out). */

/* Options; both are part of the state (write_state/read_state), so set
 * them right after creation. Perturbation (seed 000 claim 3) is off by
 * default. New tree members are placed in Morton order of their box centres
 * (FXS_BP_ORDER_MORTON, default) or in slot order (FXS_BP_ORDER_ID, the
 * seed's first-frame rule). */
enum { FXS_BP_ORDER_ID = 0,
       FXS_BP_ORDER_MORTON = 1 };
void fxs_bp_set_perturbation(fxs_broadphase *bp, bool enabled, uint64_t seed);
void fxs_bp_set_insert_order(fxs_broadphase *bp, int order);

/* Proxies whose box (as of the last update) overlaps q, ascending. The
 * array is owned by bp and valid until the next query or update. */
const uint32_t *fxs_bp_query_aabb(fxs_broadphase *bp, const fxs_aabb *q, uint32_t *count);
/* The last query ran out of memory (and returned nothing). */
bool fxs_bp_query_failed(const fxs_broadphase *bp);
/* First proxy box hit by the segment p0 -> p1 (earliest entry, exact; ties
 * by smallest id; a segment starting inside a box hits it at 0). */
bool fxs_bp_ray_cast(fxs_broadphase *bp, fxg_vec3 p0, fxg_vec3 p1, fxs_ray_hit *hit);

typedef struct fxs_bp_stats {
	uint32_t tree_leaves;  /* L, the padded leaf count */
	uint32_t tree_members; /* proxies in the tree */
	uint32_t static_count; /* proxies in the octree */
	uint32_t octree_nodes;
	uint32_t swaps;         /* groups re-paired by the last update */
	uint32_t octree_builds; /* octree rebuilds since creation */
	uint64_t tree_quality;  /* sum of internal node sizes (edge sums, raw units) */
	size_t memory_bytes;    /* everything the broadphase has allocated */
} fxs_bp_stats;
fxs_bp_stats fxs_bp_get_stats(const fxs_broadphase *bp);
/* Leaf order (tests and tools): *leaf_count entries, FXS_BP_EMPTY_LEAF for padding. */
#define FXS_BP_EMPTY_LEAF UINT32_MAX
const uint32_t *fxs_bp_leaf_order(const fxs_broadphase *bp, uint32_t *leaf_count);

#endif
