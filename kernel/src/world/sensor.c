/* Sensors (events.h): at the end of each step, every enabled sensor finds
 * the bodies that overlap it now, and the difference from last step's
 * overlaps is its begin and end events.
 *
 * Candidates come from the broadphase's boxes of this step (a query of the
 * sensor's bounds now), in ascending slot order; each is tested exactly
 * (fxs_shapes_overlap, the narrowphase at zero distance) at the positions
 * the step ended on. The overlaps are state (a sorted list of (sensor slot,
 * sensor generation, visitor slot, visitor generation)): the next step's
 * events depend on them. A sensor or visitor destroyed or disabled since
 * simply is not found again, and its overlaps end with the ids they had. */
#include "world/world.h"
#include "broadphase/broadphase.h"
#include "query/overlap.h"

#include <string.h>

static int cmp_overlap(const fxs_sensor_overlap *a, const fxs_sensor_overlap *b)
{
	const uint32_t ka[4] = { a->sensor, a->sensor_gen, a->visitor, a->visitor_gen };
	const uint32_t kb[4] = { b->sensor, b->sensor_gen, b->visitor, b->visitor_gen };
	for (int i = 0; i < 4; ++i)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return 0;
}

/* Whether visitor v can be seen by sensor s at all (filters and flags). */
static bool visible(const fxs_body *s, const fxs_body *v)
{
	if (!v->alive || (v->game & (FXS_BODY_SENSOR | FXS_BODY_DISABLED | FXS_BODY_NO_SENSOR_EVENTS)))
		return false;
	return fxs_filters_collide(&s->filter, &v->filter);
}

static void push_event(fxs_world *w, bool begin, const fxs_sensor_overlap *o)
{
	fxs_sensor_event e = { { o->sensor + 1, o->sensor_gen }, { o->visitor + 1, o->visitor_gen } };
	if (begin) {
		if (!FXS_RESERVE(w, ev_sensor_begin, w->ev_sensor_begin_count + 1)) {
			fxs_world_nomem(w);
			return;
		}
		w->ev_sensor_begin[w->ev_sensor_begin_count++] = e;
	} else {
		if (!FXS_RESERVE(w, ev_sensor_end, w->ev_sensor_end_count + 1)) {
			fxs_world_nomem(w);
			return;
		}
		w->ev_sensor_end[w->ev_sensor_end_count++] = e;
	}
}

void fxs_sensors_update(fxs_world *w)
{
	if (w->step_sensors == 0 && w->overlaps_count == 0)
		return;
	w->overlaps_next_count = 0;
	for (uint32_t s = 0; s < w->slot_count && w->step_sensors; ++s) {
		const fxs_body *sb = &w->bodies[s];
		if (!sb->alive || (sb->game & (FXS_BODY_SENSOR | FXS_BODY_DISABLED)) != FXS_BODY_SENSOR)
			continue;
		uint32_t ovf = 0; /* bounds only select candidates */
		fxs_aabb box = fxs_body_compute_aabb(sb, &ovf);
		uint32_t count = 0;
		const uint32_t *ids = fxs_bp_query_aabb(w->bp, &box, &count);
		if (fxs_bp_query_failed(w->bp)) {
			fxs_world_nomem(w);
			return;
		}
		for (uint32_t k = 0; k < count; ++k) {
			uint32_t v = ids[k];
			if (v == s || v >= w->slot_count || !visible(sb, &w->bodies[v]))
				continue;
			const fxs_body *vb = &w->bodies[v];
			if (!fxs_shapes_overlap(&sb->shape, &sb->xf, &vb->shape, &vb->xf))
				continue;
			if (!FXS_RESERVE(w, overlaps_next, w->overlaps_next_count + 1)) {
				fxs_world_nomem(w);
				return;
			}
			fxs_sensor_overlap *o = &w->overlaps_next[w->overlaps_next_count++];
			o->sensor = s, o->sensor_gen = sb->generation;
			o->visitor = v, o->visitor_gen = vb->generation;
		}
	}
	/* the difference, in order (both lists are sorted) */
	const fxs_sensor_overlap *old = w->overlaps, *cur = w->overlaps_next;
	uint32_t i = 0, j = 0, no = w->overlaps_count, nc = w->overlaps_next_count;
	while (i < no || j < nc) {
		int c = i == no ? 1 : j == nc ? -1
					      : cmp_overlap(&old[i], &cur[j]);
		if (c == 0)
			++i, ++j;
		else if (c < 0)
			push_event(w, false, &old[i++]);
		else
			push_event(w, true, &cur[j++]);
	}
	fxs_sensor_overlap *t = w->overlaps;
	uint32_t tc = w->overlaps_cap;
	w->overlaps = w->overlaps_next;
	w->overlaps_cap = w->overlaps_next_cap;
	w->overlaps_count = w->overlaps_next_count;
	w->overlaps_next = t;
	w->overlaps_next_cap = tc;
	w->overlaps_next_count = 0;
}

uint32_t fxs_sensor_get_overlaps(const fxs_world *w, fxs_body_id sensor, fxs_body_id *out, uint32_t cap)
{
	const fxs_body *b = fxs_world_get_body(w, sensor);
	if (!b || !(b->game & FXS_BODY_SENSOR))
		return 0;
	uint32_t s = sensor.index1 - 1, n = 0;
	for (uint32_t i = 0; i < w->overlaps_count; ++i) {
		const fxs_sensor_overlap *o = &w->overlaps[i];
		if (o->sensor != s || o->sensor_gen != b->generation)
			continue;
		if (out && n < cap) {
			fxs_body_id id = { o->visitor + 1, o->visitor_gen };
			out[n] = id;
		}
		++n;
	}
	return n;
}
