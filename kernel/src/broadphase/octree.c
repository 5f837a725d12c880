/* The seed 001 octree, canonical and integer-only: see octree.h. */
#include "broadphase/octree.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- exact segment test */

int fxs_frac_cmp(fxs_frac a, fxs_frac b)
{
	int sa = (a.num > 0) - (a.num < 0), sb = (b.num > 0) - (b.num < 0);
	if (sa != sb)
		return sa < sb ? -1 : 1;
	if (sa == 0)
		return 0;
	/* |num| < 2^32 and den < 2^32 (differences of int32 coordinates), so
	 * both cross products are exact in uint64 */
	uint64_t ma = (a.num < 0 ? (uint64_t)0 - (uint64_t)a.num : (uint64_t)a.num) * b.den;
	uint64_t mb = (b.num < 0 ? (uint64_t)0 - (uint64_t)b.num : (uint64_t)b.num) * a.den;
	int c = (ma > mb) - (ma < mb);
	return sa > 0 ? c : -c;
}

fix16_t fxs_frac_to_fix16(fxs_frac t)
{
	if (t.num <= 0)
		return 0;
	uint64_t v = ((uint64_t)t.num << 16) / t.den;
	return v > 65536 ? 65536 : (fix16_t)v;
}

bool fxs_segment_box_entry(const fxs_segment *s, const fxs_aabb *b, fxs_frac *entry)
{
	fxs_frac enter = { 0, 1 }, leave = { 1, 1 };
	const fix16_t p0[3] = { s->p0.x, s->p0.y, s->p0.z }, p1[3] = { s->p1.x, s->p1.y, s->p1.z };
	const fix16_t lo[3] = { b->lo.x, b->lo.y, b->lo.z }, hi[3] = { b->hi.x, b->hi.y, b->hi.z };
	for (int a = 0; a < 3; ++a) {
		int64_t p = p0[a], d = (int64_t)p1[a] - p0[a];
		if (lo[a] > hi[a])
			return false;
		if (d == 0) {
			if (p < lo[a] || p > hi[a])
				return false;
			continue;
		}
		fxs_frac tl, th;
		if (d > 0) {
			tl = (fxs_frac){ lo[a] - p, (uint64_t)d };
			th = (fxs_frac){ hi[a] - p, (uint64_t)d };
		} else {
			tl = (fxs_frac){ p - hi[a], (uint64_t)-d };
			th = (fxs_frac){ p - lo[a], (uint64_t)-d };
		}
		if (fxs_frac_cmp(tl, enter) > 0)
			enter = tl;
		if (fxs_frac_cmp(th, leave) < 0)
			leave = th;
		if (fxs_frac_cmp(enter, leave) > 0)
			return false;
	}
	*entry = enter;
	return true;
}

/* ------------------------------------------------------------------- cells */

static inline uint32_t to_unsigned(fix16_t v) { return (uint32_t)v ^ 0x80000000u; }

static inline uint32_t bitlen(uint32_t x)
{
	uint32_t n = 0;
	while (x) {
		++n;
		x >>= 1;
	}
	return n;
}

static inline uint32_t cell_key(uint32_t u, uint32_t shift) { return (uint32_t)((uint64_t)u >> shift); }

/* The closed box [lo, hi] of each axis, normalised so lo <= hi (an inverted
 * box is placed like its normalised twin; queries still test the box as
 * given), mapped to unsigned. */
static void unsigned_box(const fxs_aabb *b, uint32_t lo[3], uint32_t hi[3])
{
	const fix16_t l[3] = { b->lo.x, b->lo.y, b->lo.z }, h[3] = { b->hi.x, b->hi.y, b->hi.z };
	for (int a = 0; a < 3; ++a) {
		fix16_t mn = l[a] < h[a] ? l[a] : h[a], mx = l[a] < h[a] ? h[a] : l[a];
		lo[a] = to_unsigned(mn);
		hi[a] = to_unsigned(mx);
	}
}

static uint32_t clamp_shift(uint32_t s) { return s < FXS_OCTREE_MIN_SHIFT ? FXS_OCTREE_MIN_SHIFT : s; }

void fxs_octree_cell_of(const fxs_aabb *b, uint32_t *shift, uint32_t key[3])
{
	uint32_t lo[3], hi[3];
	unsigned_box(b, lo, hi);
	uint32_t s = clamp_shift(bitlen((lo[0] ^ hi[0]) | (lo[1] ^ hi[1]) | (lo[2] ^ hi[2])));
	*shift = s;
	for (int a = 0; a < 3; ++a)
		key[a] = cell_key(lo[a], s);
}

/* ------------------------------------------------------------------- build */

void fxs_octree_init(fxs_octree *t) { memset(t, 0, sizeof *t); }

void fxs_octree_free(fxs_octree *t)
{
	free(t->nodes);
	free(t->ids);
	free(t->boxes);
	free(t->scratch);
	memset(t, 0, sizeof *t);
}

typedef struct build_ctx {
	fxs_octree *t;
	const uint32_t *in_ids;
	const fxs_aabb *in_boxes;
	uint32_t *work, *tmp;    /* input indices */
	uint32_t *shift, *lo[3]; /* per input index */
	bool ok;
} build_ctx;

static uint32_t new_node(build_ctx *bc)
{
	fxs_octree *t = bc->t;
	if (t->node_count == t->node_cap) {
		uint32_t nc = t->node_cap ? t->node_cap * 2 : 64;
		fxs_octree_node *nn = realloc(t->nodes, (size_t)nc * sizeof *nn);
		if (!nn) {
			bc->ok = false;
			return UINT32_MAX;
		}
		t->nodes = nn;
		t->node_cap = nc;
	}
	return t->node_count++;
}

/* Build the node for work[b, e): its cell is the smallest aligned cell that
 * contains the cells of all of them (a compressed octree: chains of
 * single-child cells are skipped; still a pure function of the set). */
static uint32_t build_node(build_ctx *bc, uint32_t b, uint32_t e)
{
	fxs_octree *t = bc->t;
	uint32_t first = bc->work[b];
	uint32_t spread = 0, s = 0;
	for (uint32_t k = b; k < e; ++k) {
		uint32_t o = bc->work[k];
		for (int a = 0; a < 3; ++a)
			spread |= bc->lo[a][o] ^ bc->lo[a][first];
		s = bc->shift[o] > s ? bc->shift[o] : s;
	}
	uint32_t ns = bitlen(spread);
	s = clamp_shift(ns > s ? ns : s);
	uint32_t idx = new_node(bc);
	if (!bc->ok)
		return UINT32_MAX;
	/* partition: objects whose cell is this one stay (category 8), the
	 * others go to the octant of bit s-1; stable, so ids stay ascending */
	uint32_t cnt[9] = { 0 };
	for (uint32_t k = b; k < e; ++k) {
		uint32_t o = bc->work[k];
		uint32_t cat = 8;
		if (bc->shift[o] < s && s > FXS_OCTREE_MIN_SHIFT)
			cat = ((bc->lo[0][o] >> (s - 1)) & 1) | ((bc->lo[1][o] >> (s - 1)) & 1) << 1 |
				((bc->lo[2][o] >> (s - 1)) & 1) << 2;
		++cnt[cat];
	}
	uint32_t off[9], pos = b + cnt[8];
	off[8] = b;
	for (int c = 0; c < 8; ++c) {
		off[c] = pos;
		pos += cnt[c];
	}
	uint32_t start[9];
	memcpy(start, off, sizeof off);
	for (uint32_t k = b; k < e; ++k) {
		uint32_t o = bc->work[k];
		uint32_t cat = 8;
		if (bc->shift[o] < s && s > FXS_OCTREE_MIN_SHIFT)
			cat = ((bc->lo[0][o] >> (s - 1)) & 1) | ((bc->lo[1][o] >> (s - 1)) & 1) << 1 |
				((bc->lo[2][o] >> (s - 1)) & 1) << 2;
		bc->tmp[off[cat]++] = o;
	}
	memcpy(bc->work + b, bc->tmp + b, (size_t)(e - b) * sizeof *bc->work);

	fxs_octree_node node;
	node.shift = s;
	for (int a = 0; a < 3; ++a)
		node.key[a] = cell_key(bc->lo[a][first], s);
	node.first = t->obj_count;
	node.count = cnt[8];
	node.tight = (fxs_aabb){ { INT32_MAX, INT32_MAX, INT32_MAX }, { INT32_MIN, INT32_MIN, INT32_MIN } };
	for (uint32_t k = start[8]; k < start[8] + cnt[8]; ++k) {
		uint32_t o = bc->work[k];
		t->ids[t->obj_count] = bc->in_ids[o];
		t->boxes[t->obj_count] = bc->in_boxes[o];
		node.tight = fxs_aabb_union(&node.tight, &bc->in_boxes[o]);
		++t->obj_count;
	}
	for (int c = 0; c < 8; ++c) {
		node.child[c] = -1;
		if (cnt[c] == 0)
			continue;
		uint32_t ci = build_node(bc, start[c], start[c] + cnt[c]);
		if (!bc->ok)
			return UINT32_MAX;
		node.child[c] = (int32_t)ci;
		node.tight = fxs_aabb_union(&node.tight, &t->nodes[ci].tight);
	}
	t->nodes[idx] = node;
	return idx;
}

static int u32_cmp_by_id(const void *pa, const void *pb, const uint32_t *ids)
{
	uint32_t a = ids[*(const uint32_t *)pa], b = ids[*(const uint32_t *)pb];
	return (a > b) - (a < b);
}

fxs_result fxs_octree_build(fxs_octree *t, const uint32_t *ids, const fxs_aabb *boxes, uint32_t count)
{
	t->node_count = 0;
	t->obj_count = 0;
	if (count == 0)
		return FXS_OK;
	if (count > t->obj_cap) {
		uint32_t *ni = realloc(t->ids, (size_t)count * sizeof *ni);
		if (!ni)
			return FXS_ERR_NOMEM;
		t->ids = ni;
		fxs_aabb *nb = realloc(t->boxes, (size_t)count * sizeof *nb);
		if (!nb)
			return FXS_ERR_NOMEM;
		t->boxes = nb;
		t->obj_cap = count;
	}
	if ((size_t)count * 6 > t->scratch_cap) {
		uint32_t *ns = realloc(t->scratch, (size_t)count * 6 * sizeof *ns);
		if (!ns)
			return FXS_ERR_NOMEM;
		t->scratch = ns;
		t->scratch_cap = count * 6;
	}
	build_ctx bc = { t, ids, boxes, t->scratch, t->scratch + count, t->scratch + 2 * (size_t)count, { t->scratch + 3 * (size_t)count, t->scratch + 4 * (size_t)count, t->scratch + 5 * (size_t)count }, true };
	bool sorted = true;
	for (uint32_t k = 0; k < count; ++k) {
		uint32_t lo[3], hi[3];
		unsigned_box(&boxes[k], lo, hi);
		bc.shift[k] = clamp_shift(bitlen((lo[0] ^ hi[0]) | (lo[1] ^ hi[1]) | (lo[2] ^ hi[2])));
		for (int a = 0; a < 3; ++a)
			bc.lo[a][k] = lo[a];
		bc.work[k] = k;
		if (k && ids[k] <= ids[k - 1])
			sorted = false;
	}
	if (!sorted) {
		/* insertion sort by id (ids distinct): the build is then
		 * independent of the order the caller listed them in */
		for (uint32_t k = 1; k < count; ++k) {
			uint32_t v = bc.work[k], j = k;
			while (j > 0 && u32_cmp_by_id(&bc.work[j - 1], &v, ids) > 0) {
				bc.work[j] = bc.work[j - 1];
				--j;
			}
			bc.work[j] = v;
		}
	}
	build_node(&bc, 0, count);
	if (!bc.ok) {
		t->node_count = t->obj_count = 0;
		return FXS_ERR_NOMEM;
	}
	return FXS_OK;
}

/* ----------------------------------------------------------------- queries */

bool fxs_octree_query_aabb(fxs_octree *t, const fxs_aabb *q, fxs_octree_visit_fn fn, void *ctx)
{
	if (t->node_count == 0)
		return true;
	uint32_t stack[sizeof t->stack / sizeof *t->stack]; /* its own: queries may run at once (broadphase.c) */
	uint32_t sp = 0;
	stack[sp++] = 0;
	while (sp) {
		const fxs_octree_node *n = &t->nodes[stack[--sp]];
		if (!fxs_aabb_overlap(&n->tight, q))
			continue;
		for (uint32_t k = n->first; k < n->first + n->count; ++k)
			if (fxs_aabb_overlap(&t->boxes[k], q) && !fn(ctx, t->ids[k]))
				return false;
		for (int c = 7; c >= 0; --c)
			if (n->child[c] >= 0)
				stack[sp++] = (uint32_t)n->child[c];
	}
	return true;
}

bool fxs_octree_ray_cast(fxs_octree *t, const fxs_segment *s, fxs_ray_hit *best, bool have_best)
{
	if (t->node_count == 0)
		return false;
	bool have = have_best, improved = false;
	uint32_t sp = 0;
	t->stack[sp++] = 0;
	while (sp) {
		const fxs_octree_node *n = &t->nodes[t->stack[--sp]];
		fxs_frac e;
		if (!fxs_segment_box_entry(s, &n->tight, &e))
			continue;
		if (have && fxs_frac_cmp(e, best->t) > 0)
			continue;
		for (uint32_t k = n->first; k < n->first + n->count; ++k) {
			if (!fxs_segment_box_entry(s, &t->boxes[k], &e))
				continue;
			if (fxs_ray_hit_better(e, t->ids[k], best, have)) {
				best->id = t->ids[k];
				best->t = e;
				best->fraction = fxs_frac_to_fix16(e);
				have = improved = true;
			}
		}
		for (int c = 7; c >= 0; --c)
			if (n->child[c] >= 0)
				t->stack[sp++] = (uint32_t)n->child[c];
	}
	return improved;
}
