/* Narrowphase dispatch: picks the pair function and makes fxs_collide(b, a)
 * the exact mirror of fxs_collide(a, b).
 *
 * Each pair function is written for one order of its two shape types
 * (sphere < box < capsule, the enum order) and yields the normal from its
 * first shape to its second. fxs_collide calls it in that order and negates
 * the normal when the caller's order was the other one. For two shapes of the
 * same type the order is canonical too: larger shape first, then by
 * dimensions, rotation and position (compared as integers) — so swapping the arguments runs the
 * same computation, and points, separations and feature ids are bit-identical
 * with the normal negated. Only two identical shapes at the identical
 * transform have no order; both calls then return the same manifold.
 * Points are listed in increasing feature id. */
#include "collide_common.h"

typedef void (*pair_fn)(const fxs_shape *, const fxs_transform *, const fxs_shape *, const fxs_transform *, fix16_t,
			fxs_manifold *, uint32_t *);

static int cmp_i32(int32_t a, int32_t b) { return (a > b) - (a < b); }

/* Order of two shapes of one type: -1 when a goes first. The larger shape
 * (by the sum of its dimensions) goes first, so that a box-box pair prefers
 * the big box's face as reference: a box resting on a floor then keeps the
 * floor's face whatever small tilt it has. Then lexicographic by
 * (dimensions, rotation, position). */
static int same_type_order(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb)
{
	int64_t sa = (int64_t)a->radius + a->half_height + a->half_extents.x + a->half_extents.y + a->half_extents.z;
	int64_t sb = (int64_t)b->radius + b->half_height + b->half_extents.x + b->half_extents.y + b->half_extents.z;
	if (sa != sb)
		return sa > sb ? -1 : 1;
	const int32_t ka[] = { a->radius, a->half_height, a->half_extents.x, a->half_extents.y, a->half_extents.z,
			       xa->q.x, xa->q.y, xa->q.z, xa->q.w, xa->p.x, xa->p.y, xa->p.z };
	const int32_t kb[] = { b->radius, b->half_height, b->half_extents.x, b->half_extents.y, b->half_extents.z,
			       xb->q.x, xb->q.y, xb->q.z, xb->q.w, xb->p.x, xb->p.y, xb->p.z };
	for (size_t i = 0; i < sizeof ka / sizeof ka[0]; ++i) {
		int c = cmp_i32(ka[i], kb[i]);
		if (c != 0)
			return c;
	}
	return 0;
}

void fxs_collide(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
		 fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	/* table[first type][second type], first <= second */
	static const pair_fn table[FXS_SHAPE_TYPE_COUNT][FXS_SHAPE_TYPE_COUNT] = {
		[FXS_SHAPE_SPHERE][FXS_SHAPE_SPHERE] = fxs_collide_spheres,
		[FXS_SHAPE_SPHERE][FXS_SHAPE_BOX] = fxs_collide_sphere_box,
		[FXS_SHAPE_SPHERE][FXS_SHAPE_CAPSULE] = fxs_collide_sphere_capsule,
		[FXS_SHAPE_BOX][FXS_SHAPE_BOX] = fxs_collide_boxes,
		[FXS_SHAPE_BOX][FXS_SHAPE_CAPSULE] = fxs_collide_box_capsule,
		[FXS_SHAPE_CAPSULE][FXS_SHAPE_CAPSULE] = fxs_collide_capsules,
	};
	m->normal = fxg_v3_zero();
	m->point_count = 0;
	if (a->type < 0 || a->type >= FXS_SHAPE_TYPE_COUNT || b->type < 0 || b->type >= FXS_SHAPE_TYPE_COUNT)
		return;
	bool swap = a->type > b->type || (a->type == b->type && same_type_order(a, xa, b, xb) > 0);
	if (swap) {
		table[b->type][a->type](b, xb, a, xa, speculative, m, ovf);
		m->normal = np_neg(m->normal);
	} else {
		table[a->type][b->type](a, xa, b, xb, speculative, m, ovf);
	}
	/* points in feature-id order, so that a manifold whose features did not
	 * change lists its points in the same order (ids are unique) */
	for (int i = 1; i < m->point_count; ++i)
		for (int j = i; j > 0 && m->points[j - 1].feature_id > m->points[j].feature_id; --j) {
			fxs_manifold_point t = m->points[j];
			m->points[j] = m->points[j - 1];
			m->points[j - 1] = t;
		}
}
