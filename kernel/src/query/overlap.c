/* Overlap queries (fixstep/query.h): what lies in a box, what a shape at a
 * transform overlaps. As the casts (query.c), a linear scan of the slots
 * with each body's bounds now (the broadphase holds last step's fattened
 * boxes, and misses bodies moved since by the API), so the answer is a
 * function of the state alone, ascending by slot. */
#include "query/overlap.h"

#include "collide/narrowphase.h"
#include "geometry/compound.h"
#include "geometry/hull.h"
#include "geometry/shape.h"

bool fxs_shapes_overlap(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb)
{
	fxs_manifold m;
	uint32_t ovf = 0; /* a test, not a step: saturation cannot reach the state */
	fxs_collide(a, xa, b, xb, 0, &m, &ovf);
	return m.point_count > 0;
}

fxs_query_filter fxs_default_query_filter(void)
{
	fxs_query_filter f = { 1, ~(uint64_t)0 };
	return f;
}

static bool box_valid(const fxs_aabb *b)
{
	return b->lo.x <= b->hi.x && b->lo.y <= b->hi.y && b->lo.z <= b->hi.z;
}

uint32_t fxs_world_overlap_aabb(const fxs_world *w, fxs_aabb box, const fxs_query_filter *filter, fxs_body_id *out,
				uint32_t cap)
{
	if (!w || !box_valid(&box))
		return 0;
	uint32_t n = 0, ovf = 0;
	for (uint32_t s = 0; s < w->slot_count; ++s) {
		const fxs_body *b = &w->bodies[s];
		if (!fxs_query_sees(filter, b))
			continue;
		fxs_aabb bb = fxs_body_compute_aabb(b, &ovf);
		if (!fxs_aabb_overlap(&box, &bb))
			continue;
		if (out && n < cap)
			out[n] = fxs_slot_id(w, s);
		++n;
	}
	return n;
}

/* the query shape as a body would hold it: hull and compound pointers from
 * this world (never the caller's), sizes in range */
static bool resolve(const fxs_world *w, const fxs_shape *in, fxs_shape *out)
{
	*out = *in;
	if (!fxs_shape_is_valid(in))
		return false;
	switch (in->type) {
	case FXS_SHAPE_SPHERE:
	case FXS_SHAPE_BOX:
	case FXS_SHAPE_CAPSULE:
	case FXS_SHAPE_CYLINDER:
		return true;
	case FXS_SHAPE_HULL:
		return (out->hull = fxs_world_get_hull(w, in->hull_id)) != NULL;
	case FXS_SHAPE_COMPOUND:
		return (out->compound = fxs_world_get_compound(w, in->compound_id)) != NULL;
	default:
		return false; /* a mesh is no query shape */
	}
}

static bool unit(fxg_quat q)
{
	int64_t n2 = (int64_t)q.x * q.x + (int64_t)q.y * q.y + (int64_t)q.z * q.z + (int64_t)q.w * q.w;
	const int64_t one = (int64_t)1 << 32, tol = (int64_t)1 << 22; /* as a snapshot's rotations */
	return n2 >= one - tol && n2 <= one + tol;
}

uint32_t fxs_world_overlap_shape(const fxs_world *w, const fxs_shape *shape, const fxs_transform *xf,
				 const fxs_query_filter *filter, fxs_body_id *out, uint32_t cap)
{
	fxs_shape q;
	if (!w || !shape || !xf || !unit(xf->q) || !resolve(w, shape, &q))
		return 0;
	uint32_t n = 0, ovf = 0;
	fxs_aabb qb = fxs_shape_aabb(&q, xf, &ovf);
	for (uint32_t s = 0; s < w->slot_count; ++s) {
		const fxs_body *b = &w->bodies[s];
		if (!fxs_query_sees(filter, b))
			continue;
		fxs_aabb bb = fxs_body_compute_aabb(b, &ovf);
		if (!fxs_aabb_overlap(&qb, &bb) || !fxs_shapes_overlap(&q, xf, &b->shape, &b->xf))
			continue;
		if (out && n < cap)
			out[n] = fxs_slot_id(w, s);
		++n;
	}
	return n;
}
