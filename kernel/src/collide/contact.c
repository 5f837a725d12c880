/* Contacts: the persistent list of touching pairs, sorted by (a, b) and,
 * for compound bodies, by the pair of children (one manifold each).
 *
 * Every step the narrowphase recomputes each pair's manifold from the
 * positions; the new points inherit the normal impulses of last step's
 * points with the same feature id, and the manifold its friction and twist
 * impulses (warm starting). The old and new lists are
 * both sorted by pair, so matching is a merge walk: no hashing, canonical. */
#include "world/world.h"
#include "world/events.h"
#include "collide/contact.h"
#include "collide/collide_common.h"
#include "collide/recycle.h"
#include "geometry/compound.h"
#include "geometry/shape.h"
#include "island/island.h"
#include "joint/joint.h"
#include "simd/kernels.h"
#include "solve/stage.h"
#include "world/tasks.h"

#include <stdlib.h>
#include <string.h>

static bool reserve(fxs_contact **arr, uint32_t *cap, uint32_t n)
{
	if (n <= *cap)
		return true;
	uint32_t c = *cap ? *cap : 256;
	while (c < n)
		c *= 2;
	fxs_contact *na = realloc(*arr, (size_t)c * sizeof *na);
	if (!na)
		return false;
	*arr = na;
	*cap = c;
	return true;
}

/* sqrt(fa fb), the friction mix of Box2D/Box3D, correctly rounded */
static fix16_t mix_friction(fix16_t fa, fix16_t fb, uint32_t *ovf)
{
	return fxg_sqrt_wide(fxg_mul_wide(fa, fb), ovf);
}

/* How far apart two bodies may be and still get contact points: the world's
 * speculative distance plus the distance their relative linear velocity can
 * close in one step (an upper bound of it: |dv|_1 dt), capped at 10 m. */
static fix16_t speculative_distance(const fxs_world *w, const fxs_body *a, const fxs_body *b)
{
	uint32_t ovf = 0; /* saturation here only widens the bound: not a state error */
	fxg_vec3 dv = fxg_v3_sub(b->v, a->v, &ovf);
	int64_t l1 = (int64_t)(dv.x < 0 ? -(int64_t)dv.x : dv.x) + (dv.y < 0 ? -(int64_t)dv.y : dv.y) +
		(dv.z < 0 ? -(int64_t)dv.z : dv.z);
	int64_t d = w->def.speculative_distance + ((l1 * w->def.dt) >> 16);
	return d > FXG_I(10) ? FXG_I(10) : (fix16_t)d;
}

static uint64_t contact_key(uint32_t a, uint32_t b, uint32_t sa, uint32_t sb)
{
	return (uint64_t)a << 40 | (uint64_t)b << 16 | (uint64_t)sa << 8 | sb;
}

static uint64_t key_of(const fxs_contact *c) { return contact_key(c->a, c->b, c->sub_a, c->sub_b); }

/* A body's rotation, made the first time a step needs it: a box meets
 * three to six others in a stack, and made per pair it cost 2% of a step.
 * Entries are valid when their stamp is this update's (rot_gen). */
typedef struct rot_entry {
	fxs_rotation r;
	uint32_t stamp;
} rot_entry;

typedef struct update_ctx {
	fxs_world *w;
	const fxs_contact *old;
	uint32_t old_count, oi, n;
	bool nomem;
	/* where the new contacts go: the world's next list, or with workers a
	 * block's region of it (borrowed: it cannot grow) until the block needs
	 * more room, then the block's own buffer (spill; contact_tasks below);
	 * and the saturation count */
	fxs_contact **out;
	uint32_t *out_cap;
	bool borrowed;
	struct fxs_contact_block *spill;
	uint32_t *ovf;
	rot_entry *rot; /* NULL: every pair makes its own (no memory for the cache) */
	uint32_t gen;
	const fxs_kernel_table *kernels; /* the world's (fxs_world_get_kernels), NULL: the portable tests */
	/* the last friction mix made (mixed): its two frictions, its value and
	 * the saturations it counted; most pairs of a scene mix the same two */
	fix16_t mix_a, mix_b, mix;
	uint32_t mix_ovf;
	bool mixed;
} update_ctx;

typedef struct fxs_contact_block {
	fxs_contact *buf;
	uint32_t cap;
} fxs_contact_block;

/* room for n new contacts; a borrowed region that is full moves to the
 * block's own buffer */
static bool reserve_out(update_ctx *u, uint32_t n)
{
	if (n <= *u->out_cap)
		return true;
	if (!u->borrowed)
		return reserve(u->out, u->out_cap, n);
	fxs_contact_block *blk = u->spill;
	if (!reserve(&blk->buf, &blk->cap, n))
		return false;
	memcpy(blk->buf, *u->out, (size_t)u->n * sizeof *blk->buf);
	u->out = &blk->buf, u->out_cap = &blk->cap, u->borrowed = false;
	return true;
}

/* mix_friction, remembered for the last pair of frictions (a square root a
 * contact was a twentieth of the narrowphase) */
static fix16_t mix_friction_of(update_ctx *u, fix16_t fa, fix16_t fb)
{
	if (!u->mixed || fa != u->mix_a || fb != u->mix_b) {
		uint32_t ovf = 0;
		u->mix = mix_friction(fa, fb, &ovf);
		u->mix_a = fa, u->mix_b = fb, u->mix_ovf = ovf, u->mixed = true;
	}
	*u->ovf += u->mix_ovf;
	return u->mix;
}

/* Scratch, never state: a fresh stamp per update, and one entry per slot */
static void rot_cache_begin(fxs_world *w, update_ctx *u)
{
	u->rot = NULL;
	if (w->rot_cache_cap < w->slot_count) {
		rot_entry *r = realloc(w->rot_cache, (size_t)w->slot_count * sizeof *r);
		if (!r)
			return;
		memset(r + w->rot_cache_cap, 0, (size_t)(w->slot_count - w->rot_cache_cap) * sizeof *r);
		w->rot_cache = r;
		w->rot_cache_cap = w->slot_count;
	}
	rot_entry *r = w->rot_cache;
	if (++w->rot_gen == 0) { /* after 2^32 updates: no stale entry may match */
		for (uint32_t i = 0; i < w->rot_cache_cap; ++i)
			r[i].stamp = 0;
		w->rot_gen = 1;
	}
	u->rot = r;
	u->gen = w->rot_gen;
}

/* body slot s's rotation for a box pair, or NULL (made by the pair) */
static const fxs_rotation *rot_of(update_ctx *u, uint32_t s)
{
	if (!u->rot)
		return NULL;
	rot_entry *e = &u->rot[s];
	if (e->stamp != u->gen) {
		e->r = fxs_rotation_of(u->w->bodies[s].xf.q);
		e->stamp = u->gen;
	}
	return &e->r;
}

/* c's hold after this step's narrowphase (contact.h): a box or hull pair
 * between two dynamic bodies has one, any other none */
static void hold_step(fxs_contact *c, const fxs_body *ba, const fxs_body *bb, fix16_t dt, uint32_t *ovf)
{
	if (fxs_contact_recyclable(&ba->shape, &bb->shape) && ba->type == FXS_BODY_DYNAMIC && bb->type == FXS_BODY_DYNAMIC)
		fxs_contact_hold_step(c, dt, ovf);
	else
		c->hold = 0;
}

/* The manifold of one pair of (child) shapes; a contact when it has points,
 * warm-started from last step's contact with the same key (or that
 * contact's manifold, recycled). Keys arrive in increasing order. `rot`:
 * a box pair, whose bodies' rotations come from the cache (made only for a
 * pair not recycled). */
static void emit(update_ctx *u, uint32_t a, uint32_t b, uint32_t sa, uint32_t sb, const fxs_shape *shape_a,
		 const fxs_transform *xa, const fxs_shape *shape_b, const fxs_transform *xb, bool rot,
		 const fxs_box_sat_result *sat, const fxs_recycle_lanes *rl, int rk, fix16_t speculative)
{
	fxs_world *w = u->w;
	const fxs_body *ba = &w->bodies[a], *bb = &w->bodies[b];
	uint64_t k = contact_key(a, b, sa, sb);
	while (u->oi < u->old_count && key_of(&u->old[u->oi]) < k)
		++u->oi;
	const fxs_contact *prev = (u->oi < u->old_count && key_of(&u->old[u->oi]) == k) ? &u->old[u->oi] : NULL;
	if (!reserve_out(u, u->n + 1)) {
		u->nomem = true;
		return;
	}
	fxs_contact *c = &(*u->out)[u->n];
	/* the lines of the contact eight ahead, for writing: the new list is
	 * written whole every step and had left the cache (a kept manifold's
	 * copy waited for them) */
	if (u->n + 8 < *u->out_cap) {
		const char *ahead = (const char *)(const void *)&(*u->out)[u->n + 8];
		for (size_t o = 0; o < sizeof *c; o += 64)
			__builtin_prefetch(ahead + o, 1);
	}
	if (prev && fxs_contact_recyclable(&ba->shape, &bb->shape) &&
	    (rl ? fxs_recycle_lane(rl, rk, prev, speculative, c)
		: fxs_recycle(prev, &ba->xf, &bb->xf, w->def.linear_slop, speculative, c, u->ovf))) {
		if (c->point_count > 0) {
			c->friction = mix_friction_of(u, ba->friction, bb->friction);
			c->restitution = fxg_max(ba->restitution, bb->restitution);
			hold_step(c, ba, bb, w->def.dt, u->ovf);
			u->n++;
		}
		return;
	}
	fxs_manifold m;
	fxs_collide_rot(shape_a, xa, rot ? rot_of(u, a) : NULL, shape_b, xb, rot ? rot_of(u, b) : NULL, sat, speculative,
			&m, u->ovf);
	if (m.point_count <= 0)
		return;
	u->n++;
	memset(c, 0, sizeof *c); /* and no slip: a fresh manifold is its own anchor */
	c->a = a;
	c->b = b;
	c->sub_a = (uint8_t)sa;
	c->sub_b = (uint8_t)sb;
	c->normal = m.normal;
	/* lever arms from the bodies' centres (a compound child's transform is not the body's) */
	c->qa0 = ba->xf.q, c->qb0 = bb->xf.q;
	c->d0 = fxg_v3_sub(bb->xf.p, ba->xf.p, u->ovf);
	c->friction = mix_friction_of(u, ba->friction, bb->friction);
	c->restitution = fxg_max(ba->restitution, bb->restitution);
	c->point_count = m.point_count;
	c->stage = prev ? prev->stage : FXS_STAGE_NONE;
	if (prev) {
		memcpy(c->friction_impulse, prev->friction_impulse, sizeof c->friction_impulse);
		c->twist_impulse = prev->twist_impulse;
		c->hold = prev->hold;
	}
	for (int k2 = 0; k2 < m.point_count; ++k2) {
		fxs_contact_point *p = &c->points[k2];
		p->id = m.points[k2].feature_id;
		p->anchor_a = fxg_v3_sub(m.points[k2].point, ba->xf.p, u->ovf);
		p->anchor_b = fxg_v3_sub(m.points[k2].point, bb->xf.p, u->ovf);
		p->separation = p->base_separation = m.points[k2].separation;
		if (!prev)
			continue;
		for (int j = 0; j < prev->point_count; ++j) {
			if (prev->points[j].id == p->id) {
				p->normal_impulse = prev->points[j].normal_impulse;
				break;
			}
		}
	}
	hold_step(c, ba, bb, w->def.dt, u->ovf);
}

void fxs_contact_hold_step(fxs_contact *c, fix16_t dt, uint32_t *ovf)
{
	int64_t sum = 0;
	for (int k = 0; k < c->point_count; ++k)
		sum += c->points[k].separation;
	/* the mean depth's excess over FXS_HOLD_DEPTH, raw (below 2^33) */
	const int64_t e = -fxg_div_round64(sum, c->point_count) - FXS_HOLD_DEPTH;
	if (e >= -FXS_HOLD_BAND && e <= FXS_HOLD_BAND)
		return;
	/* e dt rate in 2^-24 m: below 2^33 2^16 2^8 */
	const int64_t h = (int64_t)c->hold + ((e * fxg_mul(dt, FXS_HOLD_RATE, ovf)) >> 8);
	c->hold = (int32_t)(h < 0 ? 0 : (h > FXS_HOLD_MAX ? FXS_HOLD_MAX : h));
}

/* A pair with a compound: every pair of children whose bounds come within
 * the speculative distance, in child order. */
static void emit_children(update_ctx *u, uint32_t a, uint32_t b, fix16_t speculative)
{
	const fxs_body *ba = &u->w->bodies[a], *bb = &u->w->bodies[b];
	const fxs_compound *ca = ba->shape.type == FXS_SHAPE_COMPOUND ? ba->shape.compound : NULL;
	const fxs_compound *cb = bb->shape.type == FXS_SHAPE_COMPOUND ? bb->shape.compound : NULL;
	uint32_t na = ca ? ca->n : 1, nb = cb ? cb->n : 1;
	uint32_t ovf = 0; /* bounds only select candidates: not a state error */
	fxs_transform tb[FXS_COMPOUND_MAX_CHILDREN];
	fxs_aabb bbox[FXS_COMPOUND_MAX_CHILDREN];
	for (uint32_t j = 0; j < nb; ++j) {
		tb[j] = cb ? fxs_compound_child_xf(cb, j, &bb->xf, u->ovf) : bb->xf;
		bbox[j] = fxs_shape_aabb(cb ? &cb->child[j] : &bb->shape, &tb[j], &ovf);
	}
	for (uint32_t i = 0; i < na; ++i) {
		fxs_transform ta = ca ? fxs_compound_child_xf(ca, i, &ba->xf, u->ovf) : ba->xf;
		const fxs_shape *sa = ca ? &ca->child[i] : &ba->shape;
		fxs_aabb abox = fxs_shape_aabb(sa, &ta, &ovf);
		abox.lo = fxg_v3_sub(abox.lo, fxg_v3(speculative, speculative, speculative), &ovf);
		abox.hi = fxg_v3_add(abox.hi, fxg_v3(speculative, speculative, speculative), &ovf);
		for (uint32_t j = 0; j < nb; ++j)
			if (fxs_aabb_overlap(&abox, &bbox[j]))
				emit(u, a, b, i, j, sa, &ta, cb ? &cb->child[j] : &bb->shape, &tb[j], false, NULL, NULL, 0, speculative);
	}
}

/* A window of pairs, tested ahead of emit eight at a time by the vector
 * kernels (the same bits as the scalar code emit would run): first the
 * arithmetic of the recycling test (recycle.h) for the pairs that had a
 * manifold last step, then the separating-axis tests of the box pairs that
 * will not keep theirs (collide_box_box_vector.h). rec_at[k]: pair i0 + k's
 * lane in rec (group << 3 | lane), or NO_LANE; sat_done[k]: whether sat[k]
 * holds its box tests. A pair that keeps its manifold by the test's
 * arithmetic but turns out to have slid (fxs_recycle_lane) gets its box
 * tests from emit's scalar path: rare, the same bits. */
#define WINDOW 64
#define NO_LANE 0xFF
typedef struct window {
	fxs_recycle_lanes rec[WINDOW / 8];
	uint8_t rec_at[WINDOW];
	bool sat_done[WINDOW];
	fxs_box_sat_result sat[WINDOW];
} window;

static void recycle_tests(update_ctx *u, const fxs_pair *pairs, uint32_t i0, uint32_t i1, window *win)
{
	const fxs_world *w = u->w;
	const fxs_contact *prev[8];
	const fxs_body *ba[8], *bb[8];
	int n = 0, group = 0;
	uint32_t oi = u->oi;
	for (uint32_t i = i0; i <= i1; ++i) {
		if (n == 8 || (i == i1 && n > 0)) {
			u->kernels->recycle_x8(n, prev, ba, bb, w->def.linear_slop, &win->rec[group++]);
			n = 0;
		}
		if (i == i1)
			break;
		win->rec_at[i - i0] = NO_LANE;
		const uint32_t a = pairs[i].a, b = pairs[i].b;
		const fxs_body *A = &w->bodies[a], *B = &w->bodies[b];
		if (!fxs_contact_recyclable(&A->shape, &B->shape) || (!fxs_body_active(A) && !fxs_body_active(B)))
			continue;
		const uint64_t k = contact_key(a, b, 0, 0);
		while (oi < u->old_count && key_of(&u->old[oi]) < k)
			++oi;
		if (oi >= u->old_count || key_of(&u->old[oi]) != k)
			continue;
		prev[n] = &u->old[oi], ba[n] = A, bb[n] = B;
		win->rec_at[i - i0] = (uint8_t)(group << 3 | n++);
	}
	for (uint32_t i = i0; i < i1; ++i) {
		const uint8_t at = win->rec_at[i - i0];
		if (at != NO_LANE && !(win->rec[at >> 3].done >> (at & 7) & 1))
			win->rec_at[i - i0] = NO_LANE;
	}
}

/* pair k's recycling lanes and lane *rk, or NULL */
static const fxs_recycle_lanes *rec_of(const window *win, uint32_t k, int *rk)
{
	const uint8_t at = win->rec_at[k];
	*rk = at & 7;
	return at == NO_LANE ? NULL : &win->rec[at >> 3];
}

static bool kept(const window *win, uint32_t k)
{
	int rk;
	const fxs_recycle_lanes *r = rec_of(win, k, &rk);
	return r && (r->keep >> rk & 1);
}

static void box_tests(update_ctx *u, const fxs_pair *pairs, uint32_t i0, uint32_t i1, window *win)
{
	const fxs_world *w = u->w;
	const fxs_shape *sa[8], *sb[8];
	const fxg_mat3 *ra[8], *rb[8];
	fxg_vec3 dw[8];
	uint32_t at[8];
	int n = 0;
	fxs_box_sat_result out[8];
	for (uint32_t i = i0; i <= i1; ++i) {
		if (n == 8 || (i == i1 && n > 0)) {
			uint32_t got = u->kernels->box_sat_x8(n, sa, sb, dw, ra, rb, out);
			for (int k = 0; k < n; ++k)
				if (got >> k & 1)
					win->sat[at[k] - i0] = out[k], win->sat_done[at[k] - i0] = true;
			n = 0;
		}
		if (i == i1)
			break;
		win->sat_done[i - i0] = false;
		uint32_t a = pairs[i].a, b = pairs[i].b;
		const fxs_body *ba = &w->bodies[a], *bb = &w->bodies[b];
		if (ba->shape.type != FXS_SHAPE_BOX || bb->shape.type != FXS_SHAPE_BOX ||
		    (!fxs_body_active(ba) && !fxs_body_active(bb)) || kept(win, i - i0))
			continue;
		if (fxs_collide_swaps(&ba->shape, &bb->shape)) {
			const fxs_body *t = ba;
			ba = bb, bb = t;
			uint32_t ts = a;
			a = b, b = ts;
		}
		if (!np_rel(ba->xf.p, bb->xf.p, &dw[n]))
			continue;
		sa[n] = &ba->shape, sb[n] = &bb->shape;
		ra[n] = &rot_of(u, a)->m, rb[n] = &rot_of(u, b)->m;
		at[n++] = i;
	}
}

/* The contacts of pairs [i0, i1) into u's list, from u->oi (the first old
 * contact of pair i0 or after) and fi (the first filter entry at pair i0 or
 * after); i0 a multiple of WINDOW. */
static fxs_result update_range(update_ctx *u_, const fxs_pair *pairs, uint32_t i0, uint32_t i1, const uint64_t *filter,
			       uint32_t filter_count, uint32_t fi)
{
	update_ctx u = *u_; /* a local copy: the compiler keeps its counters in registers */
	fxs_world *w = u.w;
	const uint32_t pair_count = i1;
	/* the window's tests eight at a time, a window ahead (scratch on the
	 * stack; the box tests need the rotations' cache) */
	const bool vector_tests = u.kernels != NULL;
	window win;
	/* jointed pairs without collide_connected get no contacts: a merge walk
	 * of the sorted pairs with the sorted filter */
	for (uint32_t i = i0; i < pair_count; ++i) {
		uint32_t a = pairs[i].a, b = pairs[i].b;
		if (vector_tests && i % WINDOW == 0) {
			const uint32_t end = pair_count - i < WINDOW ? pair_count : i + WINDOW;
			recycle_tests(&u, pairs, i, end, &win);
			if (u.rot)
				box_tests(&u, pairs, i, end, &win);
		}
		if (fi < filter_count) {
			uint64_t key = ((uint64_t)a << 32) | b;
			while (fi < filter_count && filter[fi] < key)
				++fi;
			if (fi < filter_count && filter[fi] == key)
				continue;
		}
		const fxs_body *ba = &w->bodies[a], *bb = &w->bodies[b];
		/* filtered pairs and pairs with a sensor never reach the
		 * narrowphase (their old contacts, if any, are not carried over:
		 * a filter changed since) */
		if (!fxs_bodies_touch(ba, bb))
			continue;
		/* advance the old list to this pair */
		uint64_t first = contact_key(a, b, 0, 0), last = contact_key(a, b, 255, 255);
		while (u.oi < u.old_count && key_of(&u.old[u.oi]) < first)
			++u.oi;
		if (!fxs_body_active(ba) && !fxs_body_active(bb)) {
			/* both asleep (or asleep on a static body): nothing moved, keep
			 * the pair's contacts as they were; not solved while they sleep */
			for (; u.oi < u.old_count && key_of(&u.old[u.oi]) <= last; ++u.oi) {
				if (!reserve_out(&u, u.n + 1)) {
					*u_ = u;
					return FXS_ERR_NOMEM;
				}
				(*u.out)[u.n++] = u.old[u.oi];
			}
			continue;
		}
		fix16_t spec = speculative_distance(w, ba, bb);
		int rk = 0;
		const fxs_recycle_lanes *rec = vector_tests ? rec_of(&win, i % WINDOW, &rk) : NULL;
		if (ba->shape.type == FXS_SHAPE_COMPOUND || bb->shape.type == FXS_SHAPE_COMPOUND)
			emit_children(&u, a, b, spec);
		else if (ba->shape.type == FXS_SHAPE_BOX && bb->shape.type == FXS_SHAPE_BOX)
			emit(&u, a, b, 0, 0, &ba->shape, &ba->xf, &bb->shape, &bb->xf, true,
			     vector_tests && u.rot && win.sat_done[i % WINDOW] ? &win.sat[i % WINDOW] : NULL, rec, rk, spec);
		else
			emit(&u, a, b, 0, 0, &ba->shape, &ba->xf, &bb->shape, &bb->xf, false, NULL, rec, rk, spec);
		if (u.nomem) {
			*u_ = u;
			return FXS_ERR_NOMEM;
		}
	}
	*u_ = u;
	return FXS_OK;
}

/* ---- with workers ----
 * The pairs in blocks of CONTACT_BLOCK (a multiple of WINDOW, so that the
 * windows' vector tests see the pairs the serial walk gives them) at once:
 * each block starts its walks of the old list and the joints' filter where
 * its first pair is (a binary search: the walks only ever move forwards),
 * writes its contacts into its own region of the next list (the slots of
 * its pairs: a pair makes at most one contact, but for a compound's
 * children) and counts its own saturations. A block that needs more room
 * than its pairs' moves to a buffer of its own. The blocks' lists are the
 * parts of the new list (contact.h), in block order (the pairs' order, so
 * the list's canonical order), which the commit copies into the world's
 * list at once too. The rotations' cache is filled first for every box
 * body, so that the blocks only read it. */
#define CONTACT_BLOCK 256

typedef struct contact_job {
	const update_ctx *base;
	const fxs_pair *pairs;
	uint32_t pair_count, block;
	const uint64_t *filter;
	uint32_t filter_count;
	uint32_t n[FXS_TASK_BLOCKS_MAX], ovf[FXS_TASK_BLOCKS_MAX];
	const fxs_contact *list[FXS_TASK_BLOCKS_MAX];
	bool nomem[FXS_TASK_BLOCKS_MAX];
} contact_job;

static void rotations_block(void *ctx, uint32_t k)
{
	const update_ctx *u = ctx;
	const uint32_t n = u->w->slot_count, a = k * CONTACT_BLOCK, b = n - a < CONTACT_BLOCK ? n : a + CONTACT_BLOCK;
	for (uint32_t s = a; s < b; ++s) {
		const fxs_body *body = &u->w->bodies[s];
		if (body->alive && body->shape.type == FXS_SHAPE_BOX) {
			u->rot[s].r = fxs_rotation_of(body->xf.q);
			u->rot[s].stamp = u->gen;
		}
	}
}

static void contacts_block(void *ctx, uint32_t k)
{
	contact_job *j = ctx;
	fxs_world *w = j->base->w;
	update_ctx u = *j->base;
	const uint32_t i0 = k * j->block, i1 = j->pair_count - i0 < j->block ? j->pair_count : i0 + j->block;
	j->ovf[k] = 0;
	fxs_contact *region = w->contacts_next + i0;
	uint32_t region_cap = i1 - i0;
	u.n = 0, u.ovf = &j->ovf[k], u.out = &region, u.out_cap = &region_cap, u.mixed = false;
	u.borrowed = true, u.spill = &w->contact_blocks[k];
	/* the first old contact and filter entry at pair i0 or after */
	const uint64_t first = contact_key(j->pairs[i0].a, j->pairs[i0].b, 0, 0);
	uint32_t lo = 0, hi = u.old_count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (key_of(&u.old[mid]) < first)
			lo = mid + 1;
		else
			hi = mid;
	}
	u.oi = lo;
	const uint64_t fkey = ((uint64_t)j->pairs[i0].a << 32) | j->pairs[i0].b;
	lo = 0, hi = j->filter_count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (j->filter[mid] < fkey)
			lo = mid + 1;
		else
			hi = mid;
	}
	j->nomem[k] = update_range(&u, j->pairs, i0, i1, j->filter, j->filter_count, lo) != FXS_OK;
	j->n[k] = u.n;
	j->list[k] = *u.out;
}

static fxs_result contact_tasks(update_ctx *u, const fxs_pair *pairs, uint32_t pair_count, const uint64_t *filter,
				uint32_t filter_count)
{
	fxs_world *w = u->w;
	if (!w->contact_blocks && !(w->contact_blocks = calloc(FXS_TASK_BLOCKS_MAX, sizeof *w->contact_blocks)))
		return FXS_ERR_NOMEM;
	if (u->rot)
		fxs_tasks_run(w, rotations_block, u, (w->slot_count + CONTACT_BLOCK - 1) / CONTACT_BLOCK);
	contact_job *j = malloc(sizeof *j);
	if (!j)
		return FXS_ERR_NOMEM;
	j->base = u, j->pairs = pairs, j->pair_count = pair_count, j->filter = filter, j->filter_count = filter_count;
	uint32_t blocks = fxs_task_blocks(pair_count, w->task_fine ? WINDOW : CONTACT_BLOCK, &j->block);
	j->block = (j->block + WINDOW - 1) / WINDOW * WINDOW;
	blocks = pair_count ? (pair_count + j->block - 1) / j->block : 0;
	fxs_tasks_run(w, contacts_block, j, blocks);
	uint32_t total = 0;
	bool nomem = false;
	for (uint32_t k = 0; k < blocks; ++k) {
		w->contact_parts[k] = (fxs_contact_part){ j->list[k], j->n[k], total };
		total += j->n[k];
		*u->ovf += j->ovf[k];
		nomem |= j->nomem[k];
	}
	w->contact_part_count = blocks;
	u->n = total;
	free(j);
	return nomem ? FXS_ERR_NOMEM : FXS_OK;
}

void fxs_contacts_free_blocks(fxs_world *w)
{
	for (uint32_t k = 0; w->contact_blocks && k < FXS_TASK_BLOCKS_MAX; ++k)
		free(w->contact_blocks[k].buf);
	free(w->contact_blocks);
	w->contact_blocks = NULL;
	free(w->contact_parts);
	w->contact_parts = NULL;
}

fxs_result fxs_contacts_update(fxs_world *w, const fxs_pair *pairs, uint32_t pair_count, uint32_t *count)
{
	*count = 0;
	w->contact_part_count = 0;
	if (!reserve(&w->contacts_next, &w->contacts_next_cap, pair_count) ||
	    (!w->contact_parts && !(w->contact_parts = calloc(FXS_TASK_BLOCKS_MAX, sizeof *w->contact_parts))))
		return FXS_ERR_NOMEM;
	update_ctx u = { .w = w, .old = w->contacts, .old_count = w->contact_count };
	u.out = &w->contacts_next, u.out_cap = &w->contacts_next_cap, u.ovf = &w->ovf;
	rot_cache_begin(w, &u);
	u.kernels = fxs_kernel_table_get(fxs_world_get_kernels(w));
	uint32_t filter_count;
	const uint64_t *filter = fxs_joints_filter(w, &filter_count);
	if (fxs_tasks_parallel(w)) {
		if (contact_tasks(&u, pairs, pair_count, filter, filter_count) != FXS_OK)
			return FXS_ERR_NOMEM;
	} else {
		if (update_range(&u, pairs, 0, pair_count, filter, filter_count, 0) != FXS_OK)
			return FXS_ERR_NOMEM;
		w->contact_parts[0] = (fxs_contact_part){ w->contacts_next, u.n, 0 };
		w->contact_part_count = u.n ? 1 : 0;
	}
	*count = u.n;
	return FXS_OK;
}

static void commit_part(void *ctx, uint32_t k)
{
	fxs_world *w = ctx;
	const fxs_contact_part *p = &w->contact_parts[k];
	if (p->count)
		memcpy(&w->contacts[p->at], p->list, (size_t)p->count * sizeof *w->contacts);
}

/* The list is copied rather than the two buffers swapped: the scratch buffer
 * then holds the solver's batches too (fxs_contacts_scratch), and the two
 * buffers are the list and the larger of the next list and the batches,
 * not twice the batches' size, as they would be if the batches took
 * whichever buffer was free that step. */
bool fxs_contacts_commit(fxs_world *w, uint32_t count)
{
	if (!reserve(&w->contacts, &w->contact_cap, count))
		return false;
	w->contact_count = count;
	fxs_tasks_run(w, commit_part, w, w->contact_part_count);
	w->contact_part_count = 0;
	return true;
}

uint8_t *fxs_contacts_scratch(fxs_world *w, size_t bytes)
{
	const size_t n = (bytes + 64 + sizeof(fxs_contact) - 1) / sizeof(fxs_contact);
	if (n > UINT32_MAX || !reserve(&w->contacts_next, &w->contacts_next_cap, (uint32_t)n))
		return NULL;
	uint8_t *p = (uint8_t *)(void *)w->contacts_next;
	return p + ((64 - (uintptr_t)p % 64) % 64);
}

/* An end event for a contact removed between steps, reported after the
 * next step (events.c) when either body asked for contact events. */
static void end_pending(fxs_world *w, const fxs_contact *c)
{
	const fxs_body *a = &w->bodies[c->a], *b = &w->bodies[c->b];
	if (!((a->game | b->game) & FXS_BODY_CONTACT_EVENTS))
		return;
	if (!FXS_RESERVE(w, end_pending, w->end_pending_count + 1)) {
		/* not between steps' worth failing a destroy for: the event is
		 * lost, and the world says so as a step would (fxs_world_status) */
		w->failed = true;
		return;
	}
	w->end_pending[w->end_pending_count++] = fxs_events_end_of(w, c);
}

void fxs_contacts_remove_body(fxs_world *w, uint32_t s)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < w->contact_count; ++i) {
		if (w->contacts[i].a == s || w->contacts[i].b == s) {
			end_pending(w, &w->contacts[i]);
			continue;
		}
		w->contacts[n++] = w->contacts[i];
	}
	w->contact_count = n;
}

void fxs_contacts_remove_filtered(fxs_world *w, uint32_t s)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < w->contact_count; ++i) {
		const fxs_contact *c = &w->contacts[i];
		if ((c->a == s || c->b == s) && !fxs_bodies_touch(&w->bodies[c->a], &w->bodies[c->b])) {
			end_pending(w, c);
			continue;
		}
		w->contacts[n++] = w->contacts[i];
	}
	w->contact_count = n;
}
