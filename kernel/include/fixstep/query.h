/* Queries: ray casts and shape casts against the world's shapes.
 *
 * A cast goes from p0 to p1 (a segment, at most FXS_QUERY_MAX_LENGTH long);
 * the hit is the first point along it, as a fraction of its length in
 * Q16.16 and as a distance in metres. Ties (two bodies hit at the same
 * distance, to the LSB) go to the smaller body slot. Deterministic like the
 * rest of the kernel: integer only, fixed iteration caps, the same result on
 * every platform.
 *
 * Ray casts are exact to a few LSB per shape (sphere, box, capsule, hull, compound,
 * triangle meshes from their front side). Shape casts (a sphere, box, hull or
 * capsule translated without rotating) use conservative advancement on the
 * narrowphase's separations: the shape never ends inside what it hits, and
 * stops within FXS_QUERY_TOLERANCE of the surface. A body the shape starts
 * touching is a hit only if the cast moves into it (not along or away). */
#ifndef FIXSTEP_QUERY_H
#define FIXSTEP_QUERY_H

#include "fixstep/fixstep.h"

#ifdef __cplusplus
extern "C" {
#endif
FXG_EXPORT_BEGIN

#define FXS_QUERY_MAX_LENGTH FXG_I(10000) /* metres */
#define FXS_QUERY_TOLERANCE ((fix16_t)66) /* 1 mm */

typedef struct fxs_cast_hit {
	fxs_body_id body;
	fix16_t fraction; /* of the segment, 0..1 (0: it starts touching or inside) */
	fix16_t distance; /* metres along the segment */
	fxg_vec3 point;   /* world point on the surface hit */
	fxg_vec3 normal;  /* unit surface normal at the hit, facing the caster */
} fxs_cast_hit;

/* What a query sees (Box2D's b2QueryFilter): a body passes when
 * (body.filter.category_bits & mask_bits) != 0 and (body.filter.mask_bits &
 * category_bits) != 0. Queries never see sensors or disabled bodies.
 * Group indices do not apply to queries. A NULL filter pointer is
 * fxs_default_query_filter(): every body. */
typedef struct fxs_query_filter {
	uint64_t category_bits; /* what the query is; default 1 */
	uint64_t mask_bits;     /* what it sees; default every bit */
} fxs_query_filter;

fxs_query_filter fxs_default_query_filter(void);

/* Bodies whose bounds (tight, as fxs_body_get_aabb) overlap the box (closed
 * intervals), ascending by slot: the count; at most cap ids are written to
 * out (cap 0 to size). 0 for a NULL world or lo > hi on an axis. */
uint32_t fxs_world_overlap_aabb(const fxs_world *w, fxs_aabb box, const fxs_query_filter *filter, fxs_body_id *out,
				uint32_t cap);

/* Bodies whose shape overlaps `shape` (a sphere, box, capsule or hull; a
 * hull of this world) placed at xf, touching included, ascending by slot:
 * the count; at most cap written. 0 for a NULL world, an unusable shape or
 * a rotation that is not unit. */
uint32_t fxs_world_overlap_shape(const fxs_world *w, const fxs_shape *shape, const fxs_transform *xf,
				 const fxs_query_filter *filter, fxs_body_id *out, uint32_t cap);

/* One shape at a transform against the segment p0 -> p1. False if missed,
 * or the segment is longer than FXS_QUERY_MAX_LENGTH. hit->body is unset. */
bool fxs_shape_ray_cast(const fxs_shape *shape, const fxs_transform *xf, fxg_vec3 p0, fxg_vec3 p1, fxs_cast_hit *hit);

/* The first body the segment hits. `skip` (or a null id) is ignored.
 * False for a NULL world or hit. Sees every body that is not a sensor. */
bool fxs_world_ray_cast(const fxs_world *w, fxg_vec3 p0, fxg_vec3 p1, fxs_body_id skip, fxs_cast_hit *hit);
/* The same, seeing only the bodies that pass `filter`. */
bool fxs_world_ray_cast_filtered(const fxs_world *w, fxg_vec3 p0, fxg_vec3 p1, const fxs_query_filter *filter,
				 fxs_body_id skip, fxs_cast_hit *hit);

/* A shape (sphere, box, capsule, hull, compound) with rotation q (any
 * non-zero quaternion: one that is not unit is normalised) swept from p0 to p1:
 * the first body it touches. hit->point and hit->normal are the contact's
 * (normal pointing from what was hit towards the caster). */
bool fxs_world_shape_cast(const fxs_world *w, const fxs_shape *shape, fxg_quat q, fxg_vec3 p0, fxg_vec3 p1,
			  fxs_body_id skip, fxs_cast_hit *hit);
bool fxs_world_shape_cast_filtered(const fxs_world *w, const fxs_shape *shape, fxg_quat q, fxg_vec3 p0, fxg_vec3 p1,
				   const fxs_query_filter *filter, fxs_body_id skip, fxs_cast_hit *hit);

FXG_EXPORT_END
#ifdef __cplusplus
}
#endif

#endif
