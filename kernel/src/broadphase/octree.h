/* The seed 001 octree for static geometry, and the exact segment query shared
 * by every broadphase structure.
 *
 * Canonical placement (the fix for the article's history-dependent shape,
 * seed 001 §12.4): the root is the whole Q16.16 range, a cube of side 2^32 raw
 * units, with coordinates mapped to unsigned by flipping the sign bit (an
 * order-preserving bijection, so INT32_MIN..INT32_MAX fit exactly). An
 * object lives in the smallest aligned power-of-two cell that contains its
 * closed box: depth d = bitlen(OR over axes of lo ^ hi), clamped below at
 * FXS_OCTREE_MIN_SHIFT, key = lo >> d per axis. So the node of an object is a
 * pure function of its integer AABB, never of insertion order.
 *
 * Straddling policy: an object that straddles a split plane stays in the
 * node where it straddles (the strict octree); nothing is ever duplicated,
 * and the closed-box "contains" test of the article (which put boxes lying
 * on a plane in two octants, §12.3) does not exist here. Cells are half-open
 * in the bit arithmetic, objects closed. Every node also keeps the tight
 * union of the boxes below it, and queries prune on that, so the "sticky
 * top" of the strict octree (§12.11) costs a test against the straddlers
 * only, never a visit of every cell below them.
 *
 * The octree is derived state: the broadphase rebuilds it (from scratch, so
 * it is identical to a fresh build) whenever the set of static proxies or
 * one of their boxes changes. Nothing of it goes into the snapshot. */
#ifndef FXS_OCTREE_H
#define FXS_OCTREE_H

#include "geometry/aabb.h"
#include "fixstep/types.h"

/* Smallest cell: 2^14 raw units = 0.25 m. Objects smaller than that share
 * a leaf cell and are tested one by one against a query (the article's
 * 1x1x1 minimum, §3). */
#define FXS_OCTREE_MIN_SHIFT 14

/* A point on a segment as the exact fraction num/den of its length
 * (den > 0). Compared exactly (no rounding), so ties are real ties. */
typedef struct fxs_frac {
	int64_t num;
	uint64_t den;
} fxs_frac;

/* The segment p0 -> p1 (p0 + t (p1 - p0), t in [0, 1]). */
typedef struct fxs_segment {
	fxg_vec3 p0, p1;
} fxs_segment;

/* First hit of a segment cast: the proxy id, the exact entry fraction and
 * the same rounded down to Q16.16 (0 when the segment starts inside). */
typedef struct fxs_ray_hit {
	uint32_t id;
	fxs_frac t;
	fix16_t fraction;
} fxs_ray_hit;

/* -1, 0, 1 as a <, ==, > b (exact). */
int fxs_frac_cmp(fxs_frac a, fxs_frac b);
/* Exact entry fraction of the segment into the closed box, false if the
 * segment misses it (an inverted box is missed). */
bool fxs_segment_box_entry(const fxs_segment *s, const fxs_aabb *b, fxs_frac *entry);
/* Is (t, id) an earlier hit than best (or best unset)? Ties break by id. */
static inline bool fxs_ray_hit_better(fxs_frac t, uint32_t id, const fxs_ray_hit *best, bool have_best)
{
	if (!have_best)
		return true;
	int c = fxs_frac_cmp(t, best->t);
	return c < 0 || (c == 0 && id < best->id);
}
fix16_t fxs_frac_to_fix16(fxs_frac t);

typedef struct fxs_octree_node {
	fxs_aabb tight;   /* union of every object box in this subtree */
	int32_t child[8]; /* node index or -1; octant = x | y << 1 | z << 2 */
	uint32_t first;   /* this node's objects: ids[first .. first + count) */
	uint32_t count;   /* ascending ids */
	uint32_t shift;   /* cell side is 2^shift raw units */
	uint32_t key[3];  /* cell index per axis: (coordinate ^ 0x80000000) >> shift */
} fxs_octree_node;

typedef struct fxs_octree {
	fxs_octree_node *nodes; /* nodes[0] is the root when node_count > 0 */
	uint32_t node_count, node_cap;
	uint32_t *ids;   /* object ids, grouped by node */
	fxs_aabb *boxes; /* boxes[k] is the box of ids[k] */
	uint32_t obj_count, obj_cap;
	/* build scratch */
	uint32_t *scratch;
	uint32_t scratch_cap;
	/* query stack: a node pushes at most 8 children and the compressed
	 * tree has at most 33 - FXS_OCTREE_MIN_SHIFT levels */
	uint32_t stack[8 * 34];
} fxs_octree;

void fxs_octree_init(fxs_octree *t);
void fxs_octree_free(fxs_octree *t);
/* Rebuild from (id, box) pairs; ids must be distinct. The result depends on
 * the set only (ids are placed in ascending order within a node). */
fxs_result fxs_octree_build(fxs_octree *t, const uint32_t *ids, const fxs_aabb *boxes, uint32_t count);
/* The cell of a box: shift and per-axis key (a pure function of the box). */
void fxs_octree_cell_of(const fxs_aabb *b, uint32_t *shift, uint32_t key[3]);

/* Call fn(ctx, id) for every object whose box overlaps q (closed), in
 * traversal order (canonical: node by node, octants ascending, ids
 * ascending in a node). Returns false if fn asked to stop. */
typedef bool (*fxs_octree_visit_fn)(void *ctx, uint32_t id);
/* (on a stack of its own: queries of one tree may run at once) */
bool fxs_octree_query_aabb(fxs_octree *t, const fxs_aabb *q, fxs_octree_visit_fn fn, void *ctx);
/* First hit of the segment among the objects (ties by smallest id). If
 * have_best is set, only hits better than *best are reported (so several
 * structures can be searched in turn). Returns true if *best was improved. */
bool fxs_octree_ray_cast(fxs_octree *t, const fxs_segment *s, fxs_ray_hit *best, bool have_best);

#endif
