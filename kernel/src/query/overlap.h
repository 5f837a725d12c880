/* Overlap tests shared by the overlap queries (overlap.c) and the sensors
 * (world/sensor.c). */
#ifndef FXS_OVERLAP_H
#define FXS_OVERLAP_H

#include "world/world.h"
#include "fixstep/query.h"

/* Whether two shapes at their transforms overlap or touch: the narrowphase
 * at zero speculative distance finds a point (compounds child by child;
 * never for two meshes). */
bool fxs_shapes_overlap(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb);

/* Whether a query with this filter sees body b (enabled, not a sensor). */
static inline bool fxs_query_sees(const fxs_query_filter *f, const fxs_body *b)
{
	if (!b->alive || (b->game & (FXS_BODY_SENSOR | FXS_BODY_DISABLED)))
		return false;
	return !f || ((b->filter.category_bits & f->mask_bits) != 0 && (b->filter.mask_bits & f->category_bits) != 0);
}

#endif
