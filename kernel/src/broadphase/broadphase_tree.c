/* The seed 000 complete binary tree: see broadphase_tree.h for the rules. */
#include "broadphase/broadphase_tree.h"
#include "world/tasks.h"

#include <stdlib.h>
#include <string.h>

static const fxs_aabb empty_box = { { INT32_MAX, INT32_MAX, INT32_MAX }, { INT32_MIN, INT32_MIN, INT32_MIN } };

void fxs_bpt_init(fxs_bptree *t)
{
	memset(t, 0, sizeof *t);
	t->order = FXS_BPT_ORDER_MORTON;
}

void fxs_bpt_free(fxs_bptree *t)
{
	free(t->leaf_obj);
	free(t->box);
	free(t->ins);
	free(t->ins_tmp);
	memset(t, 0, sizeof *t);
}

bool fxs_pair_buf_push(fxs_pair_buf *b, uint32_t a, uint32_t c)
{
	if (b->n == b->cap) {
		uint32_t nc = b->cap ? b->cap * 2 : 1024;
		if (nc <= b->cap)
			return false;
		fxs_pair *np = realloc(b->p, (size_t)nc * sizeof *np);
		if (!np)
			return false;
		b->p = np;
		b->cap = nc;
	}
	b->p[b->n].a = a;
	b->p[b->n].b = c;
	b->n++;
	return true;
}

static inline fxs_aabb box_union(const fxs_aabb *a, const fxs_aabb *b)
{
	fxs_aabb r;
	r.lo.x = a->lo.x < b->lo.x ? a->lo.x : b->lo.x;
	r.lo.y = a->lo.y < b->lo.y ? a->lo.y : b->lo.y;
	r.lo.z = a->lo.z < b->lo.z ? a->lo.z : b->lo.z;
	r.hi.x = a->hi.x > b->hi.x ? a->hi.x : b->hi.x;
	r.hi.y = a->hi.y > b->hi.y ? a->hi.y : b->hi.y;
	r.hi.z = a->hi.z > b->hi.z ? a->hi.z : b->hi.z;
	return r;
}

/* The closed overlap test without short-circuit branches: in the traversal
 * half the tests fail at an unpredictable axis, and a mispredicted branch
 * costs more than the six compares. Same result as fxs_aabb_overlap. */
static inline bool overlap(const fxs_aabb *a, const fxs_aabb *b)
{
	return (a->lo.x <= b->hi.x) & (a->hi.x >= b->lo.x) & (a->lo.y <= b->hi.y) & (a->hi.y >= b->lo.y) &
		(a->lo.z <= b->hi.z) & (a->hi.z >= b->lo.z);
}

/* ------------------------------------------------------------------ layout */

static void set_layout(fxs_bptree *t)
{
	uint32_t L = t->leaf_count, m = 0, off = 0;
	t->levels = 0;
	if (L == 0)
		return;
	while ((L >> m) != 0) {
		t->level_off[m] = off;
		off += L >> m;
		++m;
	}
	t->levels = m;
}

/* Make room for L leaves (leaf_obj keeps its content; new entries EMPTY). */
static fxs_result reserve_leaves(fxs_bptree *t, uint32_t L)
{
	if (L <= t->leaf_cap)
		return FXS_OK;
	uint32_t *lo = realloc(t->leaf_obj, (size_t)L * sizeof *lo);
	if (!lo)
		return FXS_ERR_NOMEM;
	t->leaf_obj = lo;
	fxs_aabb *nb = realloc(t->box, (size_t)2 * L * sizeof *nb);
	if (!nb)
		return FXS_ERR_NOMEM;
	t->box = nb;
	t->leaf_cap = L;
	return FXS_OK;
}

/* --------------------------------------------------------------- insertion */

static inline uint32_t to_unsigned(fix16_t v) { return (uint32_t)v ^ 0x80000000u; }

/* Spread the low 21 bits of v to every third bit. */
static uint64_t spread3(uint64_t v)
{
	v &= 0x1FFFFF;
	v = (v | v << 32) & 0x1F00000000FFFFull;
	v = (v | v << 16) & 0x1F0000FF0000FFull;
	v = (v | v << 8) & 0x100F00F00F00F00Full;
	v = (v | v << 4) & 0x10C30C30C30C30C3ull;
	v = (v | v << 2) & 0x1249249249249249ull;
	return v;
}

/* Stable LSD radix sort of t->ins[0..n) by key (6 passes of 11 bits cover
 * the 63-bit Morton key). The input is in ascending id order, so equal keys
 * stay in id order: the result is fully keyed by (key, id). */
static void radix_sort_ins(fxs_bptree *t, uint32_t n)
{
	struct fxs_bpt_ins *src = t->ins, *dst = t->ins_tmp;
	uint32_t cnt[2048];
	for (int pass = 0; pass < 6; ++pass) {
		int sh = 11 * pass;
		memset(cnt, 0, sizeof cnt);
		for (uint32_t k = 0; k < n; ++k)
			++cnt[(src[k].key >> sh) & 2047];
		uint32_t sum = 0;
		for (int d = 0; d < 2048; ++d) {
			uint32_t c = cnt[d];
			cnt[d] = sum;
			sum += c;
		}
		for (uint32_t k = 0; k < n; ++k)
			dst[cnt[(src[k].key >> sh) & 2047]++] = src[k];
		struct fxs_bpt_ins *tmp = src;
		src = dst;
		dst = tmp;
	}
	/* six passes: the sorted data is back in t->ins */
}

static fxs_result reserve_ins(fxs_bptree *t, uint32_t n)
{
	if (n <= t->ins_cap)
		return FXS_OK;
	struct fxs_bpt_ins *a = realloc(t->ins, (size_t)n * sizeof *a);
	if (!a)
		return FXS_ERR_NOMEM;
	t->ins = a;
	struct fxs_bpt_ins *b = realloc(t->ins_tmp, (size_t)n * sizeof *b);
	if (!b)
		return FXS_ERR_NOMEM;
	t->ins_tmp = b;
	t->ins_cap = n;
	return FXS_OK;
}

/* Morton order of the box centres, quantised to 21 bits per axis over the
 * bounds of the centres being inserted (integers only, exact). */
static void morton_keys(struct fxs_bpt_ins *ins, uint32_t n, const fxs_aabb *aabbs)
{
	uint64_t mn[3] = { UINT64_MAX, UINT64_MAX, UINT64_MAX }, mx[3] = { 0, 0, 0 };
	for (uint32_t k = 0; k < n; ++k) {
		const fxs_aabb *b = &aabbs[ins[k].id];
		uint64_t c[3] = { ((uint64_t)to_unsigned(b->lo.x) + to_unsigned(b->hi.x)) >> 1,
				  ((uint64_t)to_unsigned(b->lo.y) + to_unsigned(b->hi.y)) >> 1,
				  ((uint64_t)to_unsigned(b->lo.z) + to_unsigned(b->hi.z)) >> 1 };
		for (int a = 0; a < 3; ++a) {
			mn[a] = c[a] < mn[a] ? c[a] : mn[a];
			mx[a] = c[a] > mx[a] ? c[a] : mx[a];
		}
		ins[k].key = c[0] | c[1] << 32; /* stash; z recomputed below */
	}
	for (uint32_t k = 0; k < n; ++k) {
		const fxs_aabb *b = &aabbs[ins[k].id];
		uint64_t c[3] = { ins[k].key & 0xFFFFFFFFull, ins[k].key >> 32,
				  ((uint64_t)to_unsigned(b->lo.z) + to_unsigned(b->hi.z)) >> 1 };
		uint64_t key = 0;
		for (int a = 0; a < 3; ++a) {
			/* c - mn < 2^32, so the shifted value stays below 2^53 */
			uint64_t q = ((c[a] - mn[a]) << 21) / (mx[a] - mn[a] + 1);
			key |= spread3(q) << a;
		}
		ins[k].key = key;
	}
}

/* Steps 1-3 of the membership rules. */
static fxs_result sync_members(fxs_bptree *t, const fxs_aabb *aabbs, const uint8_t *member, uint8_t *in_tree,
			       uint32_t count)
{
	uint32_t L = t->leaf_count, members = 0;
	for (uint32_t i = 0; i < L; ++i) {
		uint32_t o = t->leaf_obj[i];
		if (o == FXS_BPT_EMPTY)
			continue;
		if (o >= count || !member[o]) {
			t->leaf_obj[i] = FXS_BPT_EMPTY;
			in_tree[o] = 0;
		} else {
			++members;
		}
	}
	uint32_t n_ins = 0;
	for (uint32_t s = 0; s < count; ++s)
		n_ins += member[s] && !in_tree[s];
	if (n_ins) {
		fxs_result e0 = reserve_ins(t, n_ins);
		if (e0 != FXS_OK)
			return e0;
		uint32_t k = 0;
		for (uint32_t s = 0; s < count; ++s)
			if (member[s] && !in_tree[s])
				t->ins[k++] = (struct fxs_bpt_ins){ 0, s };
		if (t->order == FXS_BPT_ORDER_MORTON && n_ins > 1) {
			morton_keys(t->ins, n_ins, aabbs);
			radix_sort_ins(t, n_ins);
		}
		uint32_t need = members + n_ins;
		if (need > 0x80000000u)
			return FXS_ERR_LIMIT;
		if (need > L) {
			uint32_t nl = L ? L : 2;
			while (nl < need)
				nl *= 2;
			fxs_result e = reserve_leaves(t, nl);
			if (e != FXS_OK)
				return e;
			for (uint32_t i = L; i < nl; ++i)
				t->leaf_obj[i] = FXS_BPT_EMPTY;
			L = t->leaf_count = nl;
		}
		uint32_t i = 0;
		for (k = 0; k < n_ins; ++k) {
			while (t->leaf_obj[i] != FXS_BPT_EMPTY)
				++i;
			t->leaf_obj[i] = t->ins[k].id;
			in_tree[t->ins[k].id] = 1;
		}
		members = need;
	}
	if (L > 2 && (uint64_t)members * 4 <= L) {
		uint32_t w = 0;
		for (uint32_t i = 0; i < L; ++i)
			if (t->leaf_obj[i] != FXS_BPT_EMPTY)
				t->leaf_obj[w++] = t->leaf_obj[i];
		uint32_t nl = 2;
		while (nl < members)
			nl *= 2;
		for (uint32_t i = w; i < nl; ++i)
			t->leaf_obj[i] = FXS_BPT_EMPTY;
		t->leaf_count = nl;
	}
	t->member_count = members;
	return FXS_OK;
}

/* Re-sort every member by Morton code (members gathered in ascending slot
 * order, so the radix sort is fully keyed by (key, slot)); EMPTY leaves go
 * to the end. */
static fxs_result resort_members(fxs_bptree *t, const fxs_aabb *aabbs, const uint8_t *in_tree, uint32_t count)
{
	fxs_result e = reserve_ins(t, t->member_count);
	if (e != FXS_OK)
		return e;
	uint32_t n = 0;
	for (uint32_t s = 0; s < count && n < t->member_count; ++s)
		if (in_tree[s])
			t->ins[n++] = (struct fxs_bpt_ins){ 0, s };
	if (n > 1) {
		morton_keys(t->ins, n, aabbs);
		radix_sort_ins(t, n);
	}
	for (uint32_t i = 0; i < t->leaf_count; ++i)
		t->leaf_obj[i] = i < n ? t->ins[i].id : FXS_BPT_EMPTY;
	return FXS_OK;
}

/* ------------------------------------------------------------ the swapping */

/* Exchange the subtrees of nodes a and b of level j: their boxes on every
 * level below and their blocks of leaves. */
static void swap_subtrees(fxs_bptree *t, uint32_t j, uint32_t a, uint32_t b)
{
	for (uint32_t m = 0; m <= j; ++m) {
		uint32_t span = 1u << (j - m);
		fxs_aabb *lv = t->box + t->level_off[m];
		fxs_aabb *pa = lv + (size_t)a * span, *pb = lv + (size_t)b * span;
		for (uint32_t k = 0; k < span; ++k) {
			fxs_aabb tmp = pa[k];
			pa[k] = pb[k];
			pb[k] = tmp;
		}
	}
	uint32_t span = 1u << j;
	uint32_t *la = t->leaf_obj + (size_t)a * span, *lb = t->leaf_obj + (size_t)b * span;
	for (uint32_t k = 0; k < span; ++k) {
		uint32_t tmp = la[k];
		la[k] = lb[k];
		lb[k] = tmp;
	}
}

/* quality can exceed 2^64 only in absurd scenes (2^31 nodes of 2^34): saturate */
static inline uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Six alphas in [1, 65535] (Q0.16) for one group: counter-based, so the
 * draw depends only on (seed, counter, level, group). */
static void perturb_alphas(const fxs_bptree *t, uint32_t level, uint32_t group, uint64_t alpha[6])
{
	uint64_t h = mix64(t->perturb_seed + 0x9E3779B97F4A7C15ull * (t->perturb_counter + 1));
	h = mix64(h ^ ((uint64_t)level << 32 | group));
	uint64_t h2 = mix64(h + 0x9E3779B97F4A7C15ull);
	for (int k = 0; k < 6; ++k) {
		uint64_t src = k < 4 ? h : h2;
		uint64_t a = (src >> (16 * (k & 3))) & 0xFFFF;
		alpha[k] = a ? a : 1;
	}
}

/* Claims 1-3 for group g of level m (two sibling nodes of level m, their
 * four children of level m - 1, cb and pb the boxes of levels m - 1 and m):
 * the pairing of the four that costs least (the children swapped into it),
 * the two nodes' boxes. It reads and writes only the subtree of node g of
 * level m + 1. Inlined: a call per group cost a tenth of the refit. */
static inline __attribute__((always_inline)) void refit_group(fxs_bptree *t, uint32_t m, uint32_t g,
							       const fxs_aabb *cb, fxs_aabb *pb, uint64_t *quality,
							       uint32_t *swaps)
{
	const fxs_aabb *c = cb + 4 * (size_t)g;
	fxs_aabb u01 = box_union(&c[0], &c[1]), u23 = box_union(&c[2], &c[3]);
	fxs_aabb u02 = box_union(&c[0], &c[2]), u13 = box_union(&c[1], &c[3]);
	fxs_aabb u03 = box_union(&c[0], &c[3]), u12 = box_union(&c[1], &c[2]);
	uint64_t s01 = (uint64_t)fxs_bpt_size(&u01), s23 = (uint64_t)fxs_bpt_size(&u23);
	uint64_t s02 = (uint64_t)fxs_bpt_size(&u02), s13 = (uint64_t)fxs_bpt_size(&u13);
	uint64_t s03 = (uint64_t)fxs_bpt_size(&u03), s12 = (uint64_t)fxs_bpt_size(&u12);
	uint64_t cost0, cost1, cost2;
	if (t->perturb) {
		/* sizes < 2^34, factors < 2^17: every cost < 2^52 */
		uint64_t al[6];
		perturb_alphas(t, m, g, al);
		cost0 = s01 * (65536 + al[0]) + s23 * (65536 + al[1]);
		cost1 = s02 * (65536 + al[2]) + s13 * (65536 + al[3]);
		cost2 = s03 * (65536 + al[4]) + s12 * (65536 + al[5]);
	} else {
		cost0 = s01 + s23;
		cost1 = s02 + s13;
		cost2 = s03 + s12;
	}
	uint32_t base = 4 * g;
	if (cost1 < cost0 && cost1 <= cost2) {
		/* strict < against cand0; cand1 before cand2 on a tie */
		swap_subtrees(t, m - 1, base + 1, base + 2);
		pb[2 * g] = u02;
		pb[2 * g + 1] = u13;
		*quality = sat_add(*quality, s02 + s13);
		++*swaps;
	} else if (cost2 < cost0 && cost2 < cost1) {
		swap_subtrees(t, m - 1, base + 1, base + 3);
		pb[2 * g] = u03;
		pb[2 * g + 1] = u12;
		*quality = sat_add(*quality, s03 + s12);
		++*swaps;
	} else {
		pb[2 * g] = u01;
		pb[2 * g + 1] = u23;
		*quality = sat_add(*quality, s01 + s23);
	}
}

/* The subtree of node r of level k (k < levels - 1): this step's boxes on
 * its leaves (claim 6), then its groups, level by level, up to level k - 1
 * (level k's nodes are made by the groups of level k, above it). A group
 * touches its own subtree alone, so the subtrees of one level are
 * independent: the order of the groups across them changes nothing. */
static void refit_subtree(fxs_bptree *t, const fxs_aabb *aabbs, uint32_t k, uint32_t r, uint64_t *quality,
			  uint32_t *swaps)
{
	const uint32_t lo = r << k, hi = (r + 1) << k;
	fxs_aabb *leaf = t->box;
	for (uint32_t i = lo; i < hi; ++i) {
		uint32_t o = t->leaf_obj[i];
		leaf[i] = o == FXS_BPT_EMPTY ? empty_box : aabbs[o];
	}
	uint64_t q = *quality;
	uint32_t sw = *swaps;
	for (uint32_t m = 1; m < k; ++m) {
		const fxs_aabb *cb = t->box + t->level_off[m - 1];
		fxs_aabb *pb = t->box + t->level_off[m];
		for (uint32_t g = lo >> (m + 1); g < hi >> (m + 1); ++g)
			refit_group(t, m, g, cb, pb, &q, &sw);
	}
	*quality = q, *swaps = sw;
}

/* with workers: the subtrees of at least FXS_BPT_REFIT_LEAVES leaves (4 with
 * the world's task_fine) at once, their counts added in subtree order (a
 * saturating sum of sizes and a count: any order gives the same) */
#define FXS_BPT_REFIT_LEAVES 256

typedef struct refit_job {
	fxs_bptree *t;
	const fxs_aabb *aabbs;
	uint32_t k;
	uint64_t quality[FXS_TASK_BLOCKS_MAX];
	uint32_t swaps[FXS_TASK_BLOCKS_MAX];
} refit_job;

static void refit_block(void *ctx, uint32_t r)
{
	refit_job *j = ctx;
	j->quality[r] = 0, j->swaps[r] = 0;
	refit_subtree(j->t, j->aabbs, j->k, r, &j->quality[r], &j->swaps[r]);
}

static void refit_and_swap(fxs_bptree *t, const fxs_aabb *aabbs, const fxs_world *w)
{
	const uint32_t L = t->leaf_count;
	uint64_t quality = 0;
	uint32_t swaps = 0, k = t->levels - 1; /* serial: the whole tree is the root's subtree */
	uint32_t block = 0, blocks = 0;
	if (w && fxs_tasks_parallel(w))
		blocks = fxs_task_blocks(L, w->task_fine ? 4 : FXS_BPT_REFIT_LEAVES, &block); /* L and both minima powers of two */
	if (blocks > 1) {
		refit_job j;
		j.t = t, j.aabbs = aabbs;
		for (j.k = 0; (1u << j.k) < block; ++j.k)
			;
		fxs_tasks_run(w, refit_block, &j, blocks);
		for (uint32_t r = 0; r < blocks; ++r)
			quality = sat_add(quality, j.quality[r]), swaps += j.swaps[r];
		k = j.k;
	} else {
		refit_subtree(t, aabbs, k, 0, &quality, &swaps);
	}
	/* the levels above the subtrees, one group of two sibling nodes at a time */
	for (uint32_t m = k; m < t->levels; ++m) {
		const fxs_aabb *cb = t->box + t->level_off[m - 1];
		fxs_aabb *pb = t->box + t->level_off[m];
		if (L >> m == 1) {
			pb[0] = box_union(&cb[0], &cb[1]);
			quality = sat_add(quality, (uint64_t)fxs_bpt_size(&pb[0]));
			break;
		}
		for (uint32_t g = 0; g < (L >> m) / 2; ++g)
			refit_group(t, m, g, cb, pb, &quality, &swaps);
	}
	t->swaps = swaps;
	t->quality = quality;
}

fxs_result fxs_bpt_update(fxs_bptree *t, const fxs_aabb *aabbs, const uint8_t *member, uint8_t *in_tree,
			  uint32_t count, const fxs_world *w)
{
	bool was_empty = t->member_count == 0;
	fxs_result e = sync_members(t, aabbs, member, in_tree, count);
	if (e != FXS_OK)
		return e;
	set_layout(t);
	t->swaps = 0;
	t->quality = 0;
	t->resorted = 0;
	if (t->leaf_count == 0)
		return FXS_OK;
	refit_and_swap(t, aabbs, w);
	if (was_empty) {
		t->quality_ref = t->quality;
	} else if (t->order == FXS_BPT_ORDER_MORTON && t->quality / 5 > t->quality_ref / 4) {
		/* the local swaps have lost ground (fast motion carries leaves
		 * across the world, and a swap only re-pairs siblings): re-sort */
		e = resort_members(t, aabbs, in_tree, count);
		if (e != FXS_OK)
			return e;
		uint32_t swaps = t->swaps;
		refit_and_swap(t, aabbs, w);
		t->swaps += swaps;
		t->quality_ref = t->quality;
		t->resorted = 1;
	} else if (t->quality < t->quality_ref) {
		t->quality_ref = t->quality;
	}
	if (t->perturb)
		++t->perturb_counter;
	return FXS_OK;
}

uint64_t fxs_bpt_quality(const fxs_bptree *t)
{
	uint64_t q = 0;
	for (uint32_t m = 1; m < t->levels; ++m) {
		const fxs_aabb *lv = t->box + t->level_off[m];
		for (uint32_t i = 0; i < (t->leaf_count >> m); ++i)
			q = sat_add(q, (uint64_t)fxs_bpt_size(&lv[i]));
	}
	return q;
}

/* ------------------------------------------------------------ overlap pairs */

typedef struct cross_ctx {
	const fxs_bptree *t;
	const uint8_t *flags;
	fxs_pair_buf *out;
	bool ok;
} cross_ctx;

static inline void emit(cross_ctx *cx, uint32_t a, uint32_t b)
{
	if (a == FXS_BPT_EMPTY || b == FXS_BPT_EMPTY)
		return;
	if (!((cx->flags[a] | cx->flags[b]) & FXS_PROXY_MOVING))
		return;
	if (!fxs_pair_buf_push(cx->out, a < b ? a : b, a < b ? b : a))
		cx->ok = false;
}

/* Nodes i and j of level m >= 1 overlap: descend into the child pairs.
 * At m == 1 the children are leaves and the pairs are emitted directly
 * (half of all calls would otherwise be leaf calls). */
static void cross(cross_ctx *cx, uint32_t m, uint32_t i, uint32_t j)
{
	const fxs_bptree *t = cx->t;
	const fxs_aabb *c = t->box + t->level_off[m - 1];
	const fxs_aabb *lv = t->box + t->level_off[m];
	uint32_t i0 = 2 * i, i1 = 2 * i + 1, j0 = 2 * j, j1 = 2 * j + 1;
	if (m == 1) {
		const uint32_t *lo = t->leaf_obj;
		if (overlap(&c[i0], &lv[j])) {
			if (overlap(&c[i0], &c[j0]))
				emit(cx, lo[i0], lo[j0]);
			if (overlap(&c[i0], &c[j1]))
				emit(cx, lo[i0], lo[j1]);
		}
		if (overlap(&c[i1], &lv[j])) {
			if (overlap(&c[i1], &c[j0]))
				emit(cx, lo[i1], lo[j0]);
			if (overlap(&c[i1], &c[j1]))
				emit(cx, lo[i1], lo[j1]);
		}
		return;
	}
	if (overlap(&c[i0], &lv[j])) {
		if (overlap(&c[i0], &c[j0]))
			cross(cx, m - 1, i0, j0);
		if (overlap(&c[i0], &c[j1]))
			cross(cx, m - 1, i0, j1);
	}
	if (overlap(&c[i1], &lv[j])) {
		if (overlap(&c[i1], &c[j0]))
			cross(cx, m - 1, i1, j0);
		if (overlap(&c[i1], &c[j1]))
			cross(cx, m - 1, i1, j1);
	}
}

/* SELF(X) of the nodes [first, end) of level m >= 1: CROSS of each one's
 * children where they overlap (two leaves' pair directly) */
static void self_nodes(cross_ctx *cx, uint32_t m, uint32_t first, uint32_t end)
{
	const fxs_bptree *t = cx->t;
	const fxs_aabb *c = t->box + t->level_off[m - 1];
	for (uint32_t i = first; i < end; ++i) {
		if (!overlap(&c[2 * i], &c[2 * i + 1]))
			continue;
		if (m == 1)
			emit(cx, t->leaf_obj[2 * i], t->leaf_obj[2 * i + 1]);
		else
			cross(cx, m - 1, 2 * i, 2 * i + 1);
	}
}

bool fxs_bpt_find_pairs(fxs_bptree *t, const uint8_t *flags, fxs_pair_buf *out)
{
	cross_ctx cx = { t, flags, out, true };
	/* SELF(X) for every internal node X is CROSS(X.left, X.right) */
	for (uint32_t m = 1; m < t->levels && cx.ok; ++m)
		self_nodes(&cx, m, 0, t->leaf_count >> m);
	return cx.ok;
}

/* ------------------------------------------ overlap pairs, in jobs (workers)
 * The same traversal cut into independent jobs: the SELF of every node of
 * the subtrees at level FXS_BPT_JOB_LEVEL (a SUB job each), and the CROSS
 * calls that the SELF of the nodes above make, expanded here until they
 * reach level FXS_BPT_JOB_LEVEL - 1 (a CROSS job each). Together they emit
 * exactly the pairs fxs_bpt_find_pairs emits, each once; in another order,
 * which the broadphase's sort (by (a, b)) takes away. */

/* the tree's levels below which a subtree is one job (2^5 = 32 leaves) */
#define FXS_BPT_JOB_LEVEL 5

static bool push_job(fxs_bpt_jobs *J, uint32_t m, uint32_t i, uint32_t j)
{
	if (J->n == J->cap) {
		uint32_t nc = J->cap ? J->cap * 2 : 256;
		fxs_bpt_job *nj = nc > J->cap ? realloc(J->job, (size_t)nc * sizeof *nj) : NULL;
		if (!nj)
			return false;
		J->job = nj, J->cap = nc;
	}
	J->job[J->n++] = (fxs_bpt_job){ m, i, j };
	return true;
}

/* cross(m, i, j) above the job level, as cross() descends: a CROSS job at
 * level FXS_BPT_JOB_LEVEL - 1 (or where it starts, if lower) */
static bool expand(const fxs_bptree *t, fxs_bpt_jobs *J, uint32_t m, uint32_t i, uint32_t j)
{
	if (m < FXS_BPT_JOB_LEVEL)
		return push_job(J, m, i, j);
	const fxs_aabb *c = t->box + t->level_off[m - 1];
	const fxs_aabb *lv = t->box + t->level_off[m];
	const uint32_t ch[2] = { 2 * i, 2 * i + 1 }, cj[2] = { 2 * j, 2 * j + 1 };
	for (int x = 0; x < 2; ++x) {
		if (!overlap(&c[ch[x]], &lv[j]))
			continue;
		for (int y = 0; y < 2; ++y)
			if (overlap(&c[ch[x]], &c[cj[y]]) && !expand(t, J, m - 1, ch[x], cj[y]))
				return false;
	}
	return true;
}

bool fxs_bpt_pair_jobs(const fxs_bptree *t, fxs_bpt_jobs *out)
{
	out->n = 0;
	if (t->levels < 2)
		return true;
	const uint32_t k = t->levels - 1 < FXS_BPT_JOB_LEVEL ? t->levels - 1 : FXS_BPT_JOB_LEVEL;
	/* the subtrees at level k: SELF of every node in them */
	for (uint32_t i = 0; i < (t->leaf_count >> k); ++i)
		if (!push_job(out, FXS_BPT_JOB_SUB, k, i))
			return false;
	/* the nodes above: their SELF, CROSS of their children */
	for (uint32_t m = k + 1; m < t->levels; ++m) {
		const fxs_aabb *c = t->box + t->level_off[m - 1];
		for (uint32_t i = 0; i < (t->leaf_count >> m); ++i)
			if (overlap(&c[2 * i], &c[2 * i + 1]) && !expand(t, out, m - 1, 2 * i, 2 * i + 1))
				return false;
	}
	return true;
}

bool fxs_bpt_run_job(const fxs_bptree *t, const uint8_t *flags, fxs_bpt_job job, fxs_pair_buf *out)
{
	cross_ctx cx = { t, flags, out, true };
	if (job.m != FXS_BPT_JOB_SUB) {
		cross(&cx, job.m, job.i, job.j);
		return cx.ok;
	}
	/* SELF of each node of the subtree of node j at level i */
	const uint32_t k = job.i, root = job.j;
	for (uint32_t m = 1; m <= k && cx.ok; ++m)
		self_nodes(&cx, m, root << (k - m), (root + 1) << (k - m));
	return cx.ok;
}

/* ----------------------------------------------------------------- queries */

typedef struct query_ctx {
	const fxs_bptree *t;
	const fxs_aabb *q;
	fxs_octree_visit_fn fn;
	void *ctx;
} query_ctx;

static bool query_node(query_ctx *qc, uint32_t m, uint32_t i)
{
	const fxs_bptree *t = qc->t;
	if (!overlap(&t->box[t->level_off[m] + i], qc->q))
		return true;
	if (m == 0) {
		uint32_t o = t->leaf_obj[i];
		return o == FXS_BPT_EMPTY || qc->fn(qc->ctx, o);
	}
	return query_node(qc, m - 1, 2 * i) && query_node(qc, m - 1, 2 * i + 1);
}

bool fxs_bpt_query_aabb(fxs_bptree *t, const fxs_aabb *q, fxs_octree_visit_fn fn, void *ctx)
{
	if (t->levels == 0)
		return true;
	query_ctx qc = { t, q, fn, ctx };
	return query_node(&qc, t->levels - 1, 0);
}

typedef struct ray_ctx {
	const fxs_bptree *t;
	const fxs_segment *s;
	fxs_ray_hit *best;
	bool have;
} ray_ctx;

static void ray_node(ray_ctx *rc, uint32_t m, uint32_t i)
{
	const fxs_bptree *t = rc->t;
	fxs_frac e;
	if (!fxs_segment_box_entry(rc->s, &t->box[t->level_off[m] + i], &e))
		return;
	/* a node's entry is never later than that of a box inside it, so a
	 * node entered strictly after the best hit holds nothing better */
	if (rc->have && fxs_frac_cmp(e, rc->best->t) > 0)
		return;
	if (m == 0) {
		uint32_t o = t->leaf_obj[i];
		if (o != FXS_BPT_EMPTY && fxs_ray_hit_better(e, o, rc->best, rc->have)) {
			rc->best->id = o;
			rc->best->t = e;
			rc->best->fraction = fxs_frac_to_fix16(e);
			rc->have = true;
		}
		return;
	}
	ray_node(rc, m - 1, 2 * i);
	ray_node(rc, m - 1, 2 * i + 1);
}

bool fxs_bpt_ray_cast(fxs_bptree *t, const fxs_segment *s, fxs_ray_hit *best, bool have_best)
{
	if (t->levels == 0)
		return false;
	ray_ctx rc = { t, s, best, have_best };
	fxs_ray_hit before = *best;
	ray_node(&rc, t->levels - 1, 0);
	return rc.have && (!have_best || before.id != best->id || fxs_frac_cmp(before.t, best->t) != 0);
}

/* ---------------------------------------------------------------- snapshot */

#define BPT_STATE_VERSION 2u

void fxs_bpt_write_state(const fxs_bptree *t, fxs_writer *w)
{
	fxs_write_u32(w, BPT_STATE_VERSION);
	fxs_write_u8(w, t->order);
	fxs_write_u8(w, t->perturb);
	fxs_write_u64(w, t->perturb_seed);
	fxs_write_u64(w, t->perturb_counter);
	fxs_write_u64(w, t->quality_ref);
	fxs_write_u32(w, t->leaf_count);
	for (uint32_t i = 0; i < t->leaf_count; ++i)
		fxs_write_u32(w, t->leaf_obj[i]);
}

fxs_result fxs_bpt_read_state(fxs_bptree *t, fxs_reader *r, uint8_t *in_tree, uint32_t slot_count)
{
	t->leaf_count = 0;
	t->member_count = 0;
	set_layout(t);
	if (fxs_read_u32(r) != BPT_STATE_VERSION)
		fxs_reader_fail(r, FXS_ERR_VERSION);
	uint8_t order = fxs_read_u8(r), perturb = fxs_read_u8(r);
	uint64_t seed = fxs_read_u64(r), counter = fxs_read_u64(r), qref = fxs_read_u64(r);
	uint32_t L = fxs_read_u32(r);
	if (r->err != FXS_OK)
		return r->err;
	if (order > FXS_BPT_ORDER_MORTON || perturb > 1 || (L != 0 && (L < 2 || (L & (L - 1)) != 0)) ||
	    L > 0x80000000u) {
		fxs_reader_fail(r, FXS_ERR_CORRUPT);
		return r->err;
	}
	if ((uint64_t)L * 4 > r->len - r->pos) {
		fxs_reader_fail(r, FXS_ERR_TRUNCATED);
		return r->err;
	}
	fxs_result e = reserve_leaves(t, L);
	if (e != FXS_OK)
		return e;
	uint32_t members = 0;
	for (uint32_t i = 0; i < L; ++i) {
		uint32_t o = fxs_read_u32(r);
		if (o != FXS_BPT_EMPTY) {
			if (o >= slot_count || in_tree[o]) {
				fxs_reader_fail(r, FXS_ERR_CORRUPT);
				for (uint32_t k = 0; k < i; ++k)
					if (t->leaf_obj[k] != FXS_BPT_EMPTY)
						in_tree[t->leaf_obj[k]] = 0;
				return r->err;
			}
			in_tree[o] = 1;
			++members;
		}
		t->leaf_obj[i] = o;
	}
	t->order = order;
	t->perturb = perturb;
	t->perturb_seed = seed;
	t->perturb_counter = counter;
	t->quality_ref = qref;
	t->leaf_count = L;
	t->member_count = members;
	set_layout(t);
	/* the boxes are rebuilt by the next update; until then the tree is
	 * empty for queries */
	for (uint32_t i = 0; i < L; ++i)
		t->box[i] = empty_box;
	for (uint32_t i = L; i < 2 * L - (L ? 1 : 0); ++i)
		t->box[i] = empty_box;
	return r->err;
}
