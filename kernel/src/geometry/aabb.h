/* Axis-aligned bounding boxes in fix16_t world coordinates (closed intervals). */
#ifndef FXS_AABB_H
#define FXS_AABB_H

#include "fixstep/types.h" /* fxs_aabb */

/* Closed-interval overlap on all three axes (touching boxes overlap). */
static inline bool fxs_aabb_overlap(const fxs_aabb *a, const fxs_aabb *b)
{
	return a->lo.x <= b->hi.x && a->hi.x >= b->lo.x && a->lo.y <= b->hi.y && a->hi.y >= b->lo.y &&
		a->lo.z <= b->hi.z && a->hi.z >= b->lo.z;
}

static inline fxs_aabb fxs_aabb_union(const fxs_aabb *a, const fxs_aabb *b)
{
	fxs_aabb r = { fxg_v3_min(a->lo, b->lo), fxg_v3_max(a->hi, b->hi) };
	return r;
}

static inline bool fxs_aabb_contains(const fxs_aabb *outer, const fxs_aabb *inner)
{
	return outer->lo.x <= inner->lo.x && outer->lo.y <= inner->lo.y && outer->lo.z <= inner->lo.z &&
		outer->hi.x >= inner->hi.x && outer->hi.y >= inner->hi.y && outer->hi.z >= inner->hi.z;
}

#endif
