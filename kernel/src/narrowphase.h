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
 * NULL where the pair function should make them. */
void fxs_collide_rot(const fxs_shape *a, const fxs_transform *xa, const fxs_rotation *ra, const fxs_shape *b,
		     const fxs_transform *xb, const fxs_rotation *rb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf);

#endif
