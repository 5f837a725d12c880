/* Contacts: the persistent list of touching pairs, sorted by (a, b).
 *
 * Every step the narrowphase recomputes each pair's manifold from the
 * positions; the new points inherit the normal impulses of last step's
 * points with the same feature id, and the manifold its friction and twist
 * impulses (warm starting). The old and new lists are
 * both sorted by pair, so matching is a merge walk: no hashing, canonical. */
#include "world.h"
#include "island.h"
#include "joint.h"
#include "stage.h"

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

fxs_result fxs_contacts_update(fxs_world *w, const fxs_pair *pairs, uint32_t pair_count)
{
	if (!reserve(&w->contacts_next, &w->contacts_next_cap, pair_count))
		return FXS_ERR_NOMEM;
	const fxs_contact *old = w->contacts;
	uint32_t old_count = w->contact_count, oi = 0;
	uint32_t n = 0;
	/* jointed pairs without collide_connected get no contacts: a merge walk
	 * of the sorted pairs with the sorted filter */
	uint32_t filter_count, fi = 0;
	const uint64_t *filter = fxs_joints_filter(w, &filter_count);
	for (uint32_t i = 0; i < pair_count; ++i) {
		uint32_t a = pairs[i].a, b = pairs[i].b;
		if (fi < filter_count) {
			uint64_t key = ((uint64_t)a << 32) | b;
			while (fi < filter_count && filter[fi] < key)
				++fi;
			if (fi < filter_count && filter[fi] == key)
				continue;
		}
		const fxs_body *ba = &w->bodies[a], *bb = &w->bodies[b];
		/* advance the old list to this pair */
		while (oi < old_count && (old[oi].a < a || (old[oi].a == a && old[oi].b < b)))
			++oi;
		const fxs_contact *prev = (oi < old_count && old[oi].a == a && old[oi].b == b) ? &old[oi] : NULL;
		if (!fxs_body_active(ba) && !fxs_body_active(bb)) {
			/* both asleep (or asleep on a static body): nothing moved, keep
			 * the contact as it was; it is not solved while they sleep */
			if (prev)
				w->contacts_next[n++] = *prev;
			continue;
		}
		fxs_manifold m;
		fxs_collide(&ba->shape, &ba->xf, &bb->shape, &bb->xf, speculative_distance(w, ba, bb), &m, &w->ovf);
		if (m.point_count <= 0)
			continue;
		fxs_contact *c = &w->contacts_next[n++];
		memset(c, 0, sizeof *c);
		c->a = a;
		c->b = b;
		c->normal = m.normal;
		c->friction = mix_friction(ba->friction, bb->friction, &w->ovf);
		c->restitution = fxg_max(ba->restitution, bb->restitution);
		c->point_count = m.point_count;
		c->stage = prev ? prev->stage : FXS_STAGE_NONE;
		if (prev) {
			memcpy(c->friction_impulse, prev->friction_impulse, sizeof c->friction_impulse);
			c->twist_impulse = prev->twist_impulse;
		}
		for (int k = 0; k < m.point_count; ++k) {
			fxs_contact_point *p = &c->points[k];
			p->id = m.points[k].feature_id;
			p->point = m.points[k].point;
			p->separation = m.points[k].separation;
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
	/* swap lists */
	fxs_contact *t = w->contacts;
	uint32_t tc = w->contact_cap;
	w->contacts = w->contacts_next;
	w->contact_cap = w->contacts_next_cap;
	w->contacts_next = t;
	w->contacts_next_cap = tc;
	w->contact_count = n;
	return FXS_OK;
}

void fxs_contacts_remove_body(fxs_world *w, uint32_t s)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < w->contact_count; ++i) {
		if (w->contacts[i].a == s || w->contacts[i].b == s)
			continue;
		w->contacts[n++] = w->contacts[i];
	}
	w->contact_count = n;
}
