/* Broadphase glue: the seed 000 tree for everything that moves (or could),
 * the seed 001 octree for static proxies, one canonical sorted pair list.
 * See broadphase.h for the contract and broadphase_tree.h / octree.h for
 * the structures. */
#include "broadphase/broadphase.h"
#include "world/tasks.h"

#include <stdlib.h>
#include <string.h>

#include "broadphase/broadphase_tree.h"
#include "broadphase/octree.h"

struct fxs_broadphase {
	fxs_bptree tree;
	fxs_octree oct;
	uint32_t count, cap;  /* slots given to the last update; allocated slots */
	uint8_t *flags;       /* per slot, as given */
	uint8_t *member;      /* per slot: tree member this update */
	uint8_t *in_tree;     /* per slot: has a leaf (kept by the tree) */
	uint8_t *is_static;   /* per slot: in the octree */
	fxs_aabb *static_box; /* per slot: its box when it went into the octree */
	uint32_t *static_ids; /* build input, ascending */
	fxs_aabb *static_boxes;
	uint32_t static_count;
	bool oct_dirty;
	uint32_t oct_builds;
	uint32_t *counts; /* cap + 1: the pair radix sort */
	fxs_pair_buf raw, tmp, sorted;
	/* with workers (fxs_bp_find_pairs_on): the tree's jobs, and each
	 * block's pairs (FXS_TASK_BLOCKS_MAX of them, made when first needed) */
	fxs_bpt_jobs jobs;
	fxs_pair_buf *block_pairs;
	uint32_t *qids; /* query results */
	uint32_t qn, qcap;
	bool qfail;
};

fxs_broadphase *fxs_bp_create(void)
{
	fxs_broadphase *bp = calloc(1, sizeof *bp);
	if (!bp)
		return NULL;
	fxs_bpt_init(&bp->tree);
	fxs_octree_init(&bp->oct);
	return bp;
}

void fxs_bp_destroy(fxs_broadphase *bp)
{
	if (!bp)
		return;
	fxs_bpt_free(&bp->tree);
	fxs_octree_free(&bp->oct);
	free(bp->flags);
	free(bp->member);
	free(bp->in_tree);
	free(bp->is_static);
	free(bp->static_box);
	free(bp->static_ids);
	free(bp->static_boxes);
	free(bp->counts);
	free(bp->raw.p);
	free(bp->tmp.p);
	free(bp->sorted.p);
	free(bp->jobs.job);
	if (bp->block_pairs)
		for (uint32_t k = 0; k < FXS_TASK_BLOCKS_MAX; ++k)
			free(bp->block_pairs[k].p);
	free(bp->block_pairs);
	free(bp->qids);
	free(bp);
}

#define GROW(ptr, n)                                                     \
	do {                                                             \
		void *np_ = realloc((ptr), (size_t)(n) * sizeof *(ptr)); \
		if (!np_)                                                \
			return FXS_ERR_NOMEM;                            \
		(ptr) = np_;                                             \
	} while (0)

static fxs_result reserve_slots(fxs_broadphase *bp, uint32_t count)
{
	if (count <= bp->cap)
		return FXS_OK;
	uint32_t nc = bp->cap ? bp->cap : 64;
	while (nc < count)
		nc = nc > 0x7FFFFFFFu ? count : nc * 2;
	GROW(bp->flags, nc);
	GROW(bp->member, nc);
	GROW(bp->in_tree, nc);
	GROW(bp->is_static, nc);
	GROW(bp->static_box, nc);
	GROW(bp->static_ids, nc);
	GROW(bp->static_boxes, nc);
	GROW(bp->counts, (size_t)nc + 1);
	memset(bp->flags + bp->cap, 0, nc - bp->cap);
	memset(bp->member + bp->cap, 0, nc - bp->cap);
	memset(bp->in_tree + bp->cap, 0, nc - bp->cap);
	memset(bp->is_static + bp->cap, 0, nc - bp->cap);
	bp->cap = nc;
	return FXS_OK;
}

static inline bool is_octree_proxy(uint8_t f)
{
	return (f & FXS_PROXY_LIVE) && (f & FXS_PROXY_STATIC) && !(f & FXS_PROXY_MOVING);
}

static inline bool box_eq(const fxs_aabb *a, const fxs_aabb *b)
{
	return a->lo.x == b->lo.x && a->lo.y == b->lo.y && a->lo.z == b->lo.z && a->hi.x == b->hi.x &&
		a->hi.y == b->hi.y && a->hi.z == b->hi.z;
}

fxs_result fxs_bp_update(fxs_broadphase *bp, const fxs_aabb *aabbs, const uint8_t *flags, uint32_t count)
{
	return fxs_bp_update_on(bp, NULL, aabbs, flags, count);
}

fxs_result fxs_bp_update_on(fxs_broadphase *bp, const fxs_world *w, const fxs_aabb *aabbs, const uint8_t *flags,
			    uint32_t count)
{
	fxs_result e = reserve_slots(bp, count);
	if (e != FXS_OK)
		return e;
	bp->sorted.n = 0;
	/* slots beyond the new count are gone */
	for (uint32_t s = count; s < bp->count; ++s) {
		bp->flags[s] = 0;
		bp->member[s] = 0;
		if (bp->is_static[s]) {
			bp->is_static[s] = 0;
			bp->oct_dirty = true;
		}
	}
	for (uint32_t s = 0; s < count; ++s) {
		uint8_t f = flags[s];
		bp->flags[s] = f;
		bool st = is_octree_proxy(f);
		bp->member[s] = (f & FXS_PROXY_LIVE) && !st;
		if (st != (bp->is_static[s] != 0) || (st && !box_eq(&bp->static_box[s], &aabbs[s]))) {
			bp->oct_dirty = true;
			bp->is_static[s] = st;
			if (st)
				bp->static_box[s] = aabbs[s];
		}
	}
	bp->count = count;
	e = fxs_bpt_update(&bp->tree, aabbs, bp->member, bp->in_tree, count, w);
	if (e != FXS_OK)
		return e;
	if (bp->oct_dirty) {
		uint32_t n = 0;
		for (uint32_t s = 0; s < count; ++s)
			if (bp->is_static[s]) {
				bp->static_ids[n] = s;
				bp->static_boxes[n] = bp->static_box[s];
				++n;
			}
		bp->static_count = n;
		e = fxs_octree_build(&bp->oct, bp->static_ids, bp->static_boxes, n);
		if (e != FXS_OK)
			return e;
		bp->oct_dirty = false;
		++bp->oct_builds;
	}
	return FXS_OK;
}

/* moving leaf vs the octree */
typedef struct static_pair_ctx {
	fxs_pair_buf *out;
	uint32_t id;
	bool ok;
} static_pair_ctx;

static bool static_pair_visit(void *ctx, uint32_t sid)
{
	static_pair_ctx *c = ctx;
	uint32_t a = c->id < sid ? c->id : sid, b = c->id < sid ? sid : c->id;
	if (!fxs_pair_buf_push(c->out, a, b)) {
		c->ok = false;
		return false;
	}
	return true;
}

static bool reserve_pairs(fxs_pair_buf *b, uint32_t n)
{
	if (n <= b->cap)
		return true;
	fxs_pair *np = realloc(b->p, (size_t)n * sizeof *np);
	if (!np)
		return false;
	b->p = np;
	b->cap = n;
	return true;
}

/* Two stable counting passes (by b, then by a): linear, no worst case. */
static bool sort_pairs(fxs_broadphase *bp)
{
	uint32_t n = bp->raw.n, slots = bp->count;
	bp->sorted.n = 0;
	if (n == 0)
		return true;
	if (!reserve_pairs(&bp->tmp, n) || !reserve_pairs(&bp->sorted, n))
		return false;
	uint32_t *cnt = bp->counts;
	const fxs_pair *src = bp->raw.p;
	fxs_pair *dst = bp->tmp.p;
	for (int pass = 0; pass < 2; ++pass) {
		memset(cnt, 0, ((size_t)slots + 1) * sizeof *cnt);
		for (uint32_t k = 0; k < n; ++k)
			++cnt[pass ? src[k].a : src[k].b];
		uint32_t sum = 0;
		for (uint32_t s = 0; s <= slots; ++s) {
			uint32_t c = cnt[s];
			cnt[s] = sum;
			sum += c;
		}
		for (uint32_t k = 0; k < n; ++k)
			dst[cnt[pass ? src[k].a : src[k].b]++] = src[k];
		src = dst;
		dst = bp->sorted.p;
	}
	bp->sorted.n = n;
	return true;
}

/* a search in blocks on the workers: each block's pairs in a list of its
 * own (bp->block_pairs), and whether it had the memory */
typedef struct pairs_job {
	fxs_broadphase *bp;
	uint32_t block;
	bool ok[FXS_TASK_BLOCKS_MAX];
} pairs_job;

/* the blocks' lists appended to bp->raw in block order; false when a block
 * or the list ran out of memory */
static bool append_block_pairs(fxs_broadphase *bp, const bool *ok, uint32_t blocks)
{
	uint32_t total = bp->raw.n;
	for (uint32_t k = 0; k < blocks; ++k) {
		if (!ok[k] || bp->block_pairs[k].n > UINT32_MAX - total)
			return false;
		total += bp->block_pairs[k].n;
	}
	if (!reserve_pairs(&bp->raw, total))
		return false;
	for (uint32_t k = 0; k < blocks; ++k) {
		if (bp->block_pairs[k].n)
			memcpy(bp->raw.p + bp->raw.n, bp->block_pairs[k].p, (size_t)bp->block_pairs[k].n * sizeof(fxs_pair));
		bp->raw.n += bp->block_pairs[k].n;
	}
	return true;
}

static void pairs_block(void *ctx, uint32_t k)
{
	pairs_job *j = ctx;
	fxs_broadphase *bp = j->bp;
	fxs_pair_buf *out = &bp->block_pairs[k];
	out->n = 0;
	const uint32_t first = k * j->block, n = bp->jobs.n, end = n - first < j->block ? n : first + j->block;
	bool ok = true;
	for (uint32_t i = first; i < end && ok; ++i)
		ok = fxs_bpt_run_job(&bp->tree, bp->flags, bp->jobs.job[i], out);
	j->ok[k] = ok;
}

/* the tree's pairs into bp->raw, in blocks of jobs on w's workers */
static bool tree_pairs_on(fxs_broadphase *bp, const fxs_world *w)
{
	if (!bp->block_pairs && !(bp->block_pairs = calloc(FXS_TASK_BLOCKS_MAX, sizeof *bp->block_pairs)))
		return false;
	if (!fxs_bpt_pair_jobs(&bp->tree, &bp->jobs))
		return false;
	pairs_job j;
	j.bp = bp;
	const uint32_t blocks = fxs_task_blocks(bp->jobs.n, w->task_fine ? 1 : 16, &j.block);
	fxs_tasks_run(w, pairs_block, &j, blocks);
	return append_block_pairs(bp, j.ok, blocks);
}

/* the moving leaves' pairs with the octree's static boxes, appended to
 * bp->raw in leaf order (as the serial loop below): in blocks of leaves on
 * w's workers, each into a list of its own, the lists joined in block order
 * (tree_pairs_on has made bp->block_pairs) */
static void static_block(void *ctx, uint32_t k)
{
	pairs_job *j = ctx;
	fxs_broadphase *bp = j->bp;
	const fxs_bptree *t = &bp->tree;
	fxs_pair_buf *out = &bp->block_pairs[k];
	out->n = 0;
	const uint32_t first = k * j->block, end = t->leaf_count - first < j->block ? t->leaf_count : first + j->block;
	bool ok = true;
	for (uint32_t i = first; i < end && ok; ++i) {
		uint32_t o = t->leaf_obj[i];
		if (o == FXS_BPT_EMPTY || !(bp->flags[o] & FXS_PROXY_MOVING))
			continue;
		static_pair_ctx c = { out, o, true };
		fxs_octree_query_aabb(&bp->oct, &t->box[i], static_pair_visit, &c);
		ok = c.ok;
	}
	j->ok[k] = ok;
}

static bool static_pairs_on(fxs_broadphase *bp, const fxs_world *w)
{
	pairs_job j;
	j.bp = bp;
	const uint32_t blocks = fxs_task_blocks(bp->tree.leaf_count, w->task_fine ? 1 : 256, &j.block);
	fxs_tasks_run(w, static_block, &j, blocks);
	return append_block_pairs(bp, j.ok, blocks);
}

const fxs_pair *fxs_bp_find_pairs(fxs_broadphase *bp, uint32_t *pair_count)
{
	return fxs_bp_find_pairs_on(bp, NULL, pair_count);
}

const fxs_pair *fxs_bp_find_pairs_on(fxs_broadphase *bp, const fxs_world *w, uint32_t *pair_count)
{
	bp->raw.n = 0;
	bp->sorted.n = 0;
	const bool parallel = w && fxs_tasks_parallel(w);
	bool ok = parallel ? tree_pairs_on(bp, w) : fxs_bpt_find_pairs(&bp->tree, bp->flags, &bp->raw);
	if (ok && bp->oct.node_count && parallel) {
		ok = static_pairs_on(bp, w);
	} else if (ok && bp->oct.node_count) {
		const fxs_bptree *t = &bp->tree;
		for (uint32_t i = 0; i < t->leaf_count && ok; ++i) {
			uint32_t o = t->leaf_obj[i];
			if (o == FXS_BPT_EMPTY || !(bp->flags[o] & FXS_PROXY_MOVING))
				continue;
			static_pair_ctx c = { &bp->raw, o, true };
			fxs_octree_query_aabb(&bp->oct, &t->box[i], static_pair_visit, &c);
			ok = c.ok;
		}
	}
	if (!ok || !sort_pairs(bp)) {
		/* out of memory: no list, rather than a partial one */
		*pair_count = 0;
		return NULL;
	}
	static const fxs_pair none[1];
	*pair_count = bp->sorted.n;
	return bp->sorted.p ? bp->sorted.p : none;
}

void fxs_bp_write_state(const fxs_broadphase *bp, fxs_writer *w) { fxs_bpt_write_state(&bp->tree, w); }

fxs_result fxs_bp_read_state(fxs_broadphase *bp, fxs_reader *r, uint32_t slot_count)
{
	fxs_result e = reserve_slots(bp, slot_count);
	if (e != FXS_OK)
		return e;
	if (bp->cap > 0) { /* memset on a NULL array is undefined even for 0 bytes */
		memset(bp->in_tree, 0, bp->cap);
		memset(bp->member, 0, bp->cap);
		memset(bp->flags, 0, bp->cap);
		/* the octree is derived: rebuild it at the next update */
		memset(bp->is_static, 0, bp->cap);
	}
	fxs_octree_build(&bp->oct, NULL, NULL, 0);
	bp->static_count = 0;
	bp->oct_dirty = true;
	bp->count = 0;
	bp->sorted.n = 0;
	return fxs_bpt_read_state(&bp->tree, r, bp->in_tree, slot_count);
}

/* ---------------------------------------------------------------- options */

void fxs_bp_set_perturbation(fxs_broadphase *bp, bool enabled, uint64_t seed)
{
	bp->tree.perturb = enabled ? 1 : 0;
	bp->tree.perturb_seed = seed;
	bp->tree.perturb_counter = 0;
}

void fxs_bp_set_insert_order(fxs_broadphase *bp, int order)
{
	bp->tree.order = order == FXS_BP_ORDER_ID ? FXS_BPT_ORDER_ID : FXS_BPT_ORDER_MORTON;
}

/* ---------------------------------------------------------------- queries */

static bool collect_id(void *ctx, uint32_t id)
{
	fxs_broadphase *bp = ctx;
	if (bp->qn == bp->qcap) {
		uint32_t nc = bp->qcap ? bp->qcap * 2 : 64;
		uint32_t *nq = realloc(bp->qids, (size_t)nc * sizeof *nq);
		if (!nq) {
			bp->qfail = true;
			return false;
		}
		bp->qids = nq;
		bp->qcap = nc;
	}
	bp->qids[bp->qn++] = id;
	return true;
}

static int u32_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return (a > b) - (a < b);
}

const uint32_t *fxs_bp_query_aabb(fxs_broadphase *bp, const fxs_aabb *q, uint32_t *count)
{
	bp->qn = 0;
	bp->qfail = false;
	if (fxs_bpt_query_aabb(&bp->tree, q, collect_id, bp))
		fxs_octree_query_aabb(&bp->oct, q, collect_id, bp);
	if (bp->qfail)
		bp->qn = 0;
	/* ids are distinct, so any correct sort gives the same array */
	if (bp->qn > 1)
		qsort(bp->qids, bp->qn, sizeof *bp->qids, u32_cmp);
	*count = bp->qn;
	return bp->qids;
}

bool fxs_bp_query_failed(const fxs_broadphase *bp) { return bp->qfail; }

bool fxs_bp_ray_cast(fxs_broadphase *bp, fxg_vec3 p0, fxg_vec3 p1, fxs_ray_hit *hit)
{
	fxs_segment s = { p0, p1 };
	fxs_ray_hit best = { 0, { 0, 1 }, 0 };
	bool have = fxs_bpt_ray_cast(&bp->tree, &s, &best, false);
	have = fxs_octree_ray_cast(&bp->oct, &s, &best, have) || have;
	if (have)
		*hit = best;
	return have;
}

fxs_bp_stats fxs_bp_get_stats(const fxs_broadphase *bp)
{
	fxs_bp_stats st;
	const fxs_bptree *t = &bp->tree;
	st.tree_leaves = t->leaf_count;
	st.tree_members = t->member_count;
	st.static_count = bp->static_count;
	st.octree_nodes = bp->oct.node_count;
	st.swaps = t->swaps;
	st.octree_builds = bp->oct_builds;
	st.tree_quality = t->quality;
	size_t m = sizeof *bp;
	m += (size_t)t->leaf_cap * (sizeof(uint32_t) + 2 * sizeof(fxs_aabb)) + (size_t)t->ins_cap * sizeof *t->ins;
	m += (size_t)bp->oct.node_cap * sizeof(fxs_octree_node) +
		(size_t)bp->oct.obj_cap * (sizeof(uint32_t) + sizeof(fxs_aabb)) + (size_t)bp->oct.scratch_cap * 4;
	m += (size_t)bp->cap * (4 + sizeof(fxs_aabb) * 2 + sizeof(uint32_t) * 2) + 4;
	m += ((size_t)bp->raw.cap + bp->tmp.cap + bp->sorted.cap) * sizeof(fxs_pair) + (size_t)bp->qcap * 4;
	st.memory_bytes = m;
	return st;
}

const uint32_t *fxs_bp_leaf_order(const fxs_broadphase *bp, uint32_t *leaf_count)
{
	*leaf_count = bp->tree.leaf_count;
	return bp->tree.leaf_obj;
}

const fxs_bptree *fxs_bp_get_tree(const fxs_broadphase *bp) { return &bp->tree; }
