/* The seed 000 complete binary tree (JP5967786B2, claims 1-6) for moving
 * bodies, made canonical.
 *
 * Layout: a perfect binary tree of L = 2^k leaves (k >= 1) kept as level
 * arrays: level 0 holds the L leaf boxes, level m the L >> m boxes of its
 * nodes, the children of node i of level m are nodes 2i and 2i+1 of level
 * m - 1. leaf_obj[i] is the proxy (body slot) on leaf i or FXS_BPT_EMPTY.
 * leaf_obj is the only persistent state of the tree (with the options and
 * the perturbation counter): every box is recomputed from it each step.
 *
 * Padding: L is the smallest power of two >= the number of members (at
 * least 2). Unused leaves are EMPTY: box lo = INT32_MAX, hi = INT32_MIN, the
 * identity of the union, size 0. EMPTY leaves take part in swapping like any
 * other leaf (they cost nothing to pair with), and a pair is never emitted
 * for them (tested explicitly: a box spanning the whole coordinate range
 * overlaps the EMPTY box under the closed test).
 *
 * Membership each step, canonical (depends only on leaf_obj and the input):
 *   1. a leaf whose proxy is no longer a member becomes EMPTY;
 *   2. new members, in insertion order (ascending slot, or ascending Morton
 *      code of the box centre then slot; see fxs_bpt_order), fill the EMPTY
 *      leaves in ascending leaf index; if they run out, L doubles (the old
 *      tree becomes the left half, the new right half starts EMPTY) as often
 *      as needed;
 *   3. if members * 4 <= L (and L > 2), the members are compacted to the
 *      left keeping their order and L becomes the smallest power of two
 *      >= members (at least 2).
 *
 * Step (one bottom-up pass, no separate refit): leaves take this step's
 * boxes in last step's order (claim 6); then for each level m = 1 .. top-1,
 * each group of two sibling nodes (nodes 2g, 2g+1 of level m, children
 * c0..c3 = nodes 4g..4g+3 of level m-1) picks the pairing of its four
 * children with the smallest total parent size (seed §3.2 variant B):
 *   cand0 = c0c1 | c2c3,  cand1 = c0c2 | c1c3,  cand2 = c0c3 | c1c2,
 * size(box) = sum of its three edge lengths in int64 (negative extents count
 * 0). Strict < scanning cand0, cand1, cand2: ties keep the current layout.
 * cand1 swaps the subtrees of c1 and c2, cand2 those of c1 and c3 (the
 * seed's single-transposition convention); a subtree swap moves the boxes
 * of every level below and the leaf_obj block. Then the two parents are
 * written. With perturbation on (claim 3), each term's size is multiplied
 * by (1 + alpha), alpha in [1/65536, 1) drawn from a counter-based hash of
 * (seed, step counter, level, group, term): no shared generator, and the
 * state is just (seed, counter).
 *
 * Re-sort (Morton insertion order only): the local swaps cannot carry a
 * leaf out of its subtree, so under fast motion the tree decays. After the
 * pass, if quality / 5 > quality_ref / 4 (about 25% worse than the best
 * quality seen since the last re-sort), every member is re-sorted by
 * (Morton code of its centre, slot) and the pass runs again; quality_ref
 * is then that quality. quality_ref is state (snapshotted); the rule is a
 * pure function of it, the leaf order and the boxes.
 *
 * Pairs: every internal node contributes CROSS(left, right) when its two
 * children overlap; CROSS(X, Y) recurses into the four child pairs that
 * overlap; at the leaves a pair is emitted. This is the seed's top-down
 * determination (claims 4-5) decomposed so that each pair is visited once. */
#ifndef FXS_BROADPHASE_TREE_H
#define FXS_BROADPHASE_TREE_H

#include "geometry/aabb.h"
#include "broadphase/broadphase.h"
#include "broadphase/octree.h"

#define FXS_BPT_EMPTY UINT32_MAX
#define FXS_BPT_MAX_LEVELS 32

/* Where new members go (both canonical). */
enum fxs_bpt_order {
	FXS_BPT_ORDER_ID = 0,    /* ascending slot: the seed's first-frame rule */
	FXS_BPT_ORDER_MORTON = 1 /* ascending Morton code of the box centre, then slot */
};

typedef struct fxs_bptree {
	/* --- persistent state (snapshotted) --- */
	uint32_t leaf_count; /* L: 0 before first use, else a power of two >= 2 */
	uint32_t *leaf_obj;  /* L entries */
	uint8_t order;       /* enum fxs_bpt_order */
	uint8_t perturb;     /* claim 3 on/off */
	uint64_t perturb_seed;
	uint64_t perturb_counter; /* updates done with perturbation on */
	uint64_t quality_ref;     /* best quality since the last re-sort */
	/* --- derived each step --- */
	uint32_t levels; /* log2(L) + 1 */
	uint32_t level_off[FXS_BPT_MAX_LEVELS + 1];
	fxs_aabb *box; /* 2L - 1 boxes, level m at box + level_off[m] */
	uint32_t member_count;
	uint32_t leaf_cap; /* allocated leaves */
	/* --- statistics of the last update --- */
	uint32_t swaps;    /* groups whose pairing changed */
	uint64_t quality;  /* sum of size() over internal nodes (saturating) */
	uint32_t resorted; /* the last update re-sorted the leaves */
	/* --- scratch --- */
	struct fxs_bpt_ins {
		uint64_t key;
		uint32_t id;
	} * ins, *ins_tmp; /* new members this step; radix sort buffer */
	uint32_t ins_cap;
} fxs_bptree;

void fxs_bpt_init(fxs_bptree *t);
void fxs_bpt_free(fxs_bptree *t);
/* Size measure of a box: sum of the three edge lengths (0 per inverted axis). */
static inline int64_t fxs_bpt_size(const fxs_aabb *b)
{
	int64_t dx = (int64_t)b->hi.x - b->lo.x, dy = (int64_t)b->hi.y - b->lo.y, dz = (int64_t)b->hi.z - b->lo.z;
	return (dx > 0 ? dx : 0) + (dy > 0 ? dy : 0) + (dz > 0 ? dz : 0);
}
/* Membership, refit and one swap pass. member[i] != 0 marks slot i as a
 * member (in_tree is the tree's own per-slot mark, kept in step). With w
 * (NULL: here) on more than one worker, the refit and swaps of subtrees
 * fixed by the leaf count run at once (the same tree). */
fxs_result fxs_bpt_update(fxs_bptree *t, const fxs_aabb *aabbs, const uint8_t *member, uint8_t *in_tree,
			  uint32_t count, const fxs_world *w);
/* Emit every overlapping member pair (a < b) with (flags[a] | flags[b]) &
 * FXS_PROXY_MOVING into out (unsorted). Returns false on out of memory. */
typedef struct fxs_pair_buf {
	fxs_pair *p;
	uint32_t n, cap;
} fxs_pair_buf;
bool fxs_pair_buf_push(fxs_pair_buf *b, uint32_t a, uint32_t c);
bool fxs_bpt_find_pairs(fxs_bptree *t, const uint8_t *flags, fxs_pair_buf *out);
/* The same search cut into independent jobs (for the step's workers):
 * fxs_bpt_pair_jobs lists them (false when out of memory), and
 * fxs_bpt_run_job emits one job's pairs into out; all the jobs together emit
 * what fxs_bpt_find_pairs does, in another order. A job is the CROSS of
 * nodes i and j of level m, or with m = FXS_BPT_JOB_SUB the SELF of every
 * node of the subtree of node j at level i. */
#define FXS_BPT_JOB_SUB UINT32_MAX
typedef struct fxs_bpt_job {
	uint32_t m, i, j;
} fxs_bpt_job;
typedef struct fxs_bpt_jobs {
	fxs_bpt_job *job;
	uint32_t n, cap;
} fxs_bpt_jobs;
bool fxs_bpt_pair_jobs(const fxs_bptree *t, fxs_bpt_jobs *out);
bool fxs_bpt_run_job(const fxs_bptree *t, const uint8_t *flags, fxs_bpt_job job, fxs_pair_buf *out);
/* Query: fn(ctx, id) for every member whose box overlaps q. */
bool fxs_bpt_query_aabb(fxs_bptree *t, const fxs_aabb *q, fxs_octree_visit_fn fn, void *ctx);
bool fxs_bpt_ray_cast(fxs_bptree *t, const fxs_segment *s, fxs_ray_hit *best, bool have_best);
/* Sum of size() over the internal nodes, recomputed (equals t->quality
 * right after an update). */
uint64_t fxs_bpt_quality(const fxs_bptree *t);
void fxs_bpt_write_state(const fxs_bptree *t, fxs_writer *w);
/* Reads the leaf order; fills in_tree (count slots). */
fxs_result fxs_bpt_read_state(fxs_bptree *t, fxs_reader *r, uint8_t *in_tree, uint32_t slot_count);
/* The tree inside a broadphase (tests, tools). */
const fxs_bptree *fxs_bp_get_tree(const fxs_broadphase *bp);

#endif
