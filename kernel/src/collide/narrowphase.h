/* Narrowphase: exact contact manifolds between two convex shapes.
 *
 * Contract:
 *   - The normal is unit length in world space and points from shape A to B.
 *   - Each point is in world space, midway between the two surfaces; its
 *     separation is the signed distance along the normal (negative when the
 *     shapes overlap). Points farther apart than `speculative` are dropped.
 *   - feature_id names the pair of features (vertex, edge, face indices) that
 *     produced the point, so that next step's manifold can be matched for
 *     warm starting. Ties are broken by feature index; fixed iteration caps;
 *     no result depends on evaluation order.
 *   - fxs_collide(b, a) is the mirror of fxs_collide(a, b) (normal negated). */
#ifndef FXS_NARROWPHASE_H
#define FXS_NARROWPHASE_H

#include "fixstep/types.h"

#define FXS_MAX_MANIFOLD_POINTS 4

typedef struct fxs_manifold_point {
	fxg_vec3 point;
	fix16_t separation;
	uint32_t feature_id;
} fxs_manifold_point;

typedef struct fxs_manifold {
	fxg_vec3 normal;
	int32_t point_count;
	fxs_manifold_point points[FXS_MAX_MANIFOLD_POINTS];
} fxs_manifold;

void fxs_collide(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
		 fix16_t speculative, fxs_manifold *m, uint32_t *ovf);

/* A body's rotation matrix as fxg_m3_from_quat makes it, with the
 * saturations that made it (none for a unit quaternion). The world collides
 * one body with several others in a step and keeps this per body instead of
 * making it per pair (contact.c); a pair function adds `ovf` to the count
 * each time it uses one, as if it had made it itself: same bits, same
 * counts. */
typedef struct fxs_rotation {
	fxg_mat3 m;
	uint32_t ovf;
} fxs_rotation;

static inline fxs_rotation fxs_rotation_of(fxg_quat q)
{
	fxs_rotation r = { .ovf = 0 };
	r.m = fxg_m3_from_quat(q, &r.ovf);
	return r;
}

/* fxs_collide with the rotations of xa->q and xb->q (fxs_rotation_of), or
 * NULL where the pair function should make them; for two boxes, also with
 * their separating-axis tests already made (collide_common.h), or NULL. */
struct fxs_box_sat_result;
void fxs_collide_rot(const fxs_shape *a, const fxs_transform *xa, const fxs_rotation *ra, const fxs_shape *b,
		     const fxs_transform *xb, const fxs_rotation *rb, const struct fxs_box_sat_result *sat,
		     fix16_t speculative, fxs_manifold *m, uint32_t *ovf);

/* Order of two shapes of one type: -1 when a goes first, 1 when b does, 0
 * when their sizes are equal (the caller's order stands). The larger shape (by
 * the sum of its dimensions) goes first, so that a box-box pair prefers the
 * big box's face as reference. */
static inline int fxs_same_type_order(const fxs_shape *a, const fxs_shape *b)
{
	int64_t sa = (int64_t)a->radius + a->half_height + a->half_extents.x + a->half_extents.y + a->half_extents.z;
	int64_t sb = (int64_t)b->radius + b->half_height + b->half_extents.x + b->half_extents.y + b->half_extents.z;
	if (sa != sb)
		return sa > sb ? -1 : 1;
	const int32_t ka[] = { a->radius, a->half_height, a->half_extents.x, a->half_extents.y, a->half_extents.z };
	const int32_t kb[] = { b->radius, b->half_height, b->half_extents.x, b->half_extents.y, b->half_extents.z };
	for (size_t i = 0; i < sizeof ka / sizeof ka[0]; ++i) {
		int c = (ka[i] > kb[i]) - (ka[i] < kb[i]);
		if (c != 0)
			return c;
	}
	return 0;
}

/* Pair order: sphere, box, capsule, hull, cylinder, then mesh (always second). */
static inline int fxs_collide_rank(int32_t type) { return type == FXS_SHAPE_MESH ? FXS_SHAPE_TYPE_COUNT : type; }

/* Whether fxs_collide takes the pair (a, b) as (b, a): its pair functions
 * are written for one order of the two shapes (narrowphase.c). Inline: the
 * world asks it twice for every box pair. */
static inline bool fxs_collide_swaps(const fxs_shape *a, const fxs_shape *b)
{
	int rank_a = fxs_collide_rank(a->type), rank_b = fxs_collide_rank(b->type);
	return rank_a > rank_b || (a->type == b->type && fxs_same_type_order(a, b) > 0);
}

#endif
