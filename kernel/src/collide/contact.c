/* Contacts: the persistent list of touching pairs, sorted by (a, b) and,
 * for compound bodies, by the pair of children (one manifold each).
 *
 * Every step the narrowphase recomputes each pair's manifold from the
 * positions; the new points inherit the normal impulses of last step's
 * points with the same feature id, and the manifold its friction and twist
 * impulses (warm starting). The old and new lists are
 * both sorted by pair, so matching is a merge walk: no hashing, canonical. */
#include "world/world.h"
#include "collide/collide_common.h"
#include "geometry/compound.h"
#include "geometry/shape.h"
#include "island/island.h"
#include "joint/joint.h"
#include "solve/stage.h"

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
	rot_entry *rot; /* NULL: every pair makes its own (no memory for the cache) */
	uint32_t gen;
} update_ctx;

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

/* The manifold of one pair of (child) shapes; a contact when it has points,
 * warm-started from last step's contact with the same key. Keys arrive in
 * increasing order. */
static void emit(update_ctx *u, uint32_t a, uint32_t b, uint32_t sa, uint32_t sb, const fxs_shape *shape_a,
		 const fxs_transform *xa, const fxs_rotation *ra, const fxs_shape *shape_b, const fxs_transform *xb,
		 const fxs_rotation *rb, const fxs_box_sat_result *sat, fix16_t speculative)
{
	fxs_world *w = u->w;
	const fxs_body *ba = &w->bodies[a], *bb = &w->bodies[b];
	fxs_manifold m;
	fxs_collide_rot(shape_a, xa, ra, shape_b, xb, rb, sat, speculative, &m, &w->ovf);
	if (m.point_count <= 0)
		return;
	uint64_t k = contact_key(a, b, sa, sb);
	while (u->oi < u->old_count && key_of(&u->old[u->oi]) < k)
		++u->oi;
	const fxs_contact *prev = (u->oi < u->old_count && key_of(&u->old[u->oi]) == k) ? &u->old[u->oi] : NULL;
	if (!reserve(&w->contacts_next, &w->contacts_next_cap, u->n + 1)) {
		u->nomem = true;
		return;
	}
	fxs_contact *c = &w->contacts_next[u->n++];
	memset(c, 0, sizeof *c);
	c->a = a;
	c->b = b;
	c->sub_a = (uint8_t)sa;
	c->sub_b = (uint8_t)sb;
	c->normal = m.normal;
	c->friction = mix_friction(ba->friction, bb->friction, &w->ovf);
	c->restitution = fxg_max(ba->restitution, bb->restitution);
	c->point_count = m.point_count;
	c->stage = prev ? prev->stage : FXS_STAGE_NONE;
	if (prev) {
		memcpy(c->friction_impulse, prev->friction_impulse, sizeof c->friction_impulse);
		c->twist_impulse = prev->twist_impulse;
	}
	for (int k2 = 0; k2 < m.point_count; ++k2) {
		fxs_contact_point *p = &c->points[k2];
		p->id = m.points[k2].feature_id;
		p->point = m.points[k2].point;
		p->separation = m.points[k2].separation;
		if (!prev)
			continue;
		for (int j = 0; j < prev->point_count; ++j) {
			if (prev->points[j].id == p->id) {
				p->normal_impulse = prev->points[j].normal_impulse;
				break;
			}
		}
	}
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
		tb[j] = cb ? fxs_compound_child_xf(cb, j, &bb->xf, &u->w->ovf) : bb->xf;
		bbox[j] = fxs_shape_aabb(cb ? &cb->child[j] : &bb->shape, &tb[j], &ovf);
	}
	for (uint32_t i = 0; i < na; ++i) {
		fxs_transform ta = ca ? fxs_compound_child_xf(ca, i, &ba->xf, &u->w->ovf) : ba->xf;
		const fxs_shape *sa = ca ? &ca->child[i] : &ba->shape;
		fxs_aabb abox = fxs_shape_aabb(sa, &ta, &ovf);
		abox.lo = fxg_v3_sub(abox.lo, fxg_v3(speculative, speculative, speculative), &ovf);
		abox.hi = fxg_v3_add(abox.hi, fxg_v3(speculative, speculative, speculative), &ovf);
		for (uint32_t j = 0; j < nb; ++j)
			if (fxs_aabb_overlap(&abox, &bbox[j]))
				emit(u, a, b, i, j, sa, &ta, NULL, cb ? &cb->child[j] : &bb->shape, &tb[j], NULL, NULL,
				     speculative);
	}
}

/* The separating-axis tests of the box pairs among pairs[i0, i1), eight at a
 * time with AVX-512 (collide_box_box_avx512.c, the same bits as the scalar
 * tests emit would make): done[k] says whether sat[k] holds pair i0 + k's.
 * A pair's tests take its boxes in the order fxs_collide will. */
#define SAT_WINDOW 64
static void box_tests(update_ctx *u, const fxs_pair *pairs, uint32_t i0, uint32_t i1, fxs_box_sat_result *sat,
		      bool *done)
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
			uint32_t got = fxs_box_sat_x8(n, sa, sb, dw, ra, rb, out);
			for (int k = 0; k < n; ++k)
				if (got >> k & 1)
					sat[at[k] - i0] = out[k], done[at[k] - i0] = true;
			n = 0;
		}
		if (i == i1)
			break;
		done[i - i0] = false;
		uint32_t a = pairs[i].a, b = pairs[i].b;
		const fxs_body *ba = &w->bodies[a], *bb = &w->bodies[b];
		if (ba->shape.type != FXS_SHAPE_BOX || bb->shape.type != FXS_SHAPE_BOX ||
		    (!fxs_body_active(ba) && !fxs_body_active(bb)))
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

fxs_result fxs_contacts_update(fxs_world *w, const fxs_pair *pairs, uint32_t pair_count)
{
	if (!reserve(&w->contacts_next, &w->contacts_next_cap, pair_count))
		return FXS_ERR_NOMEM;
	update_ctx u = { w, w->contacts, w->contact_count, 0, 0, false, NULL, 0 };
	rot_cache_begin(w, &u);
	/* box pairs' tests eight at a time, a window ahead (scratch on the stack) */
	const bool vector_tests = u.rot && fxs_world_get_kernels(w) == FXS_KERNELS_AVX512;
	fxs_box_sat_result sat[SAT_WINDOW];
	bool sat_done[SAT_WINDOW] = { false };
	/* jointed pairs without collide_connected get no contacts: a merge walk
	 * of the sorted pairs with the sorted filter */
	uint32_t filter_count, fi = 0;
	const uint64_t *filter = fxs_joints_filter(w, &filter_count);
	for (uint32_t i = 0; i < pair_count; ++i) {
		uint32_t a = pairs[i].a, b = pairs[i].b;
		if (vector_tests && i % SAT_WINDOW == 0)
			box_tests(&u, pairs, i, pair_count - i < SAT_WINDOW ? pair_count : i + SAT_WINDOW, sat, sat_done);
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
				if (!reserve(&w->contacts_next, &w->contacts_next_cap, u.n + 1))
					return FXS_ERR_NOMEM;
				w->contacts_next[u.n++] = u.old[u.oi];
			}
			continue;
		}
		fix16_t spec = speculative_distance(w, ba, bb);
		if (ba->shape.type == FXS_SHAPE_COMPOUND || bb->shape.type == FXS_SHAPE_COMPOUND)
			emit_children(&u, a, b, spec);
		else if (ba->shape.type == FXS_SHAPE_BOX && bb->shape.type == FXS_SHAPE_BOX)
			emit(&u, a, b, 0, 0, &ba->shape, &ba->xf, rot_of(&u, a), &bb->shape, &bb->xf, rot_of(&u, b),
			     vector_tests && sat_done[i % SAT_WINDOW] ? &sat[i % SAT_WINDOW] : NULL, spec);
		else
			emit(&u, a, b, 0, 0, &ba->shape, &ba->xf, NULL, &bb->shape, &bb->xf, NULL, NULL, spec);
		if (u.nomem)
			return FXS_ERR_NOMEM;
	}
	/* swap lists */
	fxs_contact *t = w->contacts;
	uint32_t tc = w->contact_cap;
	w->contacts = w->contacts_next;
	w->contact_cap = w->contacts_next_cap;
	w->contacts_next = t;
	w->contacts_next_cap = tc;
	w->contact_count = u.n;
	return FXS_OK;
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
