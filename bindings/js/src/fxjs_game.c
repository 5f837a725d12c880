/* The flat API's game features (fxjs.c says how values travel): why a
 * creator failed, world and body settings at run time, events, a body's
 * contacts, sensor overlaps, overlap queries and (filtered) casts. Thin
 * adapters over kernel/include/fixstep: fixstep.h, events.h, query.h.
 *
 * Arrays of records are written to `out` only when `cap` (int32 or ids)
 * is large enough; every function returns what it needs, so that the
 * caller sizes its buffer with a first call (cap 0) and copies with the
 * second. */
#include "fxjs.h"

#include "fixstep/events.h"
#include "fixstep/query.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* ---- why a creator failed ---- */
FXJS_EXPORT int32_t fxjs_world_last_error(const fxs_world *w) { return (int32_t)fxs_world_get_last_error(w); }
FXJS_EXPORT const char *fxjs_world_last_error_message(const fxs_world *w) { return fxs_world_get_last_error_message(w); }

/* ---- world settings after creation ----
 * op 0: gravity x y z; 1: contact hertz, damping ratio, push max; 2:
 * restitution threshold; 3: hit event threshold; 4: sleeping on (a[0] != 0) */
FXJS_EXPORT int32_t fxjs_world_set(fxs_world *w, int32_t op, const int32_t *a)
{
	switch (op) {
	case 0: return (int32_t)fxs_world_set_gravity(w, fxjs_v3(a));
	case 1: return (int32_t)fxs_world_set_contact_tuning(w, a[0], a[1], a[2]);
	case 2: return (int32_t)fxs_world_set_restitution_threshold(w, a[0]);
	case 3: return (int32_t)fxs_world_set_hit_event_threshold(w, a[0]);
	case 4: return (int32_t)fxs_world_enable_sleeping(w, a[0] != 0);
	default: return FXS_ERR_INVALID_ARGUMENT;
	}
}

/* ---- bodies at run time ----
 * op 0: awake (a[0]); 1: enabled (a[0]); 2: type; 3: friction; 4:
 * restitution; 5: density; 6: mass data (mass lo hi, inertia x, y, z lo hi:
 * Q32.32); 7: gravity scale; 8: damping (linear, angular); 9: motion locks
 * (bits, fxjs.h); 10: filter (5); 11: user data; 12, 13, 14: contact, hit,
 * sensor events on (a[0]); 15: rolling resistance. Returns the kernel's
 * fxs_result. */
FXJS_EXPORT int32_t fxjs_body_change(fxs_world *w, int32_t i, int32_t g, int32_t op, const int32_t *a)
{
	fxs_body_id id = fxjs_bid(i, g);
	fxs_result r;
	switch (op) {
	case 0: r = fxs_body_set_awake(w, id, a[0] != 0); break;
	case 1: r = a[0] ? fxs_body_enable(w, id) : fxs_body_disable(w, id); break;
	case 2:
		if (a[0] < FXS_BODY_STATIC || a[0] > FXS_BODY_DYNAMIC)
			return FXS_ERR_INVALID_ARGUMENT;
		r = fxs_body_set_type(w, id, (fxs_body_type)a[0]);
		break;
	case 3: r = fxs_body_set_friction(w, id, a[0]); break;
	case 4: r = fxs_body_set_restitution(w, id, a[0]); break;
	case 5: r = fxs_body_set_density(w, id, a[0]); break;
	case 6: {
		const fxg_wide in[3] = { (fxg_wide)fxjs_get64(a + 2), (fxg_wide)fxjs_get64(a + 4), (fxg_wide)fxjs_get64(a + 6) };
		r = fxs_body_set_mass_data(w, id, (fxg_wide)fxjs_get64(a), in);
		break;
	}
	case 7: r = fxs_body_set_gravity_scale(w, id, a[0]); break;
	case 8: r = fxs_body_set_damping(w, id, a[0], a[1]); break;
	case 9: r = fxs_body_set_motion_locks(w, id, fxjs_locks(a[0])); break;
	case 10: r = fxs_body_set_filter(w, id, fxjs_filter(a)); break;
	case 11: r = fxs_body_set_user_data(w, id, (uint32_t)a[0]); break;
	case 12: r = fxs_body_enable_contact_events(w, id, a[0] != 0); break;
	case 13: r = fxs_body_enable_hit_events(w, id, a[0] != 0); break;
	case 14: r = fxs_body_enable_sensor_events(w, id, a[0] != 0); break;
	case 15: r = fxs_body_set_rolling_resistance(w, id, a[0]); break;
	default: return FXS_ERR_INVALID_ARGUMENT;
	}
	return (int32_t)r;
}

/* FXJS_BODY_GAME_INTS (14) int32: awake, enabled, sensor, friction,
 * restitution, density, gravity scale, motion locks (bits), filter (5),
 * rolling resistance */
FXJS_EXPORT void fxjs_body_get_game(const fxs_world *w, int32_t i, int32_t g, int32_t *o)
{
	fxs_body_id id = fxjs_bid(i, g);
	o[0] = fxs_body_is_awake(w, id), o[1] = fxs_body_is_enabled(w, id), o[2] = fxs_body_is_sensor(w, id);
	o[3] = fxs_body_get_friction(w, id), o[4] = fxs_body_get_restitution(w, id), o[5] = fxs_body_get_density(w, id);
	o[6] = fxs_body_get_gravity_scale(w, id), o[7] = fxjs_lock_bits(fxs_body_get_motion_locks(w, id));
	fxjs_put_filter(o + 8, fxs_body_get_filter(w, id));
	o[13] = fxs_body_get_rolling_resistance(w, id);
}

/* the velocity (3) of the body's point at world point p (3) */
FXJS_EXPORT void fxjs_body_point_velocity(const fxs_world *w, int32_t i, int32_t g, const int32_t *p, int32_t *out)
{
	fxjs_put_v3(out, fxs_body_get_point_velocity(w, fxjs_bid(i, g), fxjs_v3(p)));
}

/* the body's bounds now: lo x y z, hi x y z */
FXJS_EXPORT void fxjs_body_aabb(const fxs_world *w, int32_t i, int32_t g, int32_t *out)
{
	fxs_aabb b = fxs_body_get_aabb(w, fxjs_bid(i, g));
	fxjs_put_v3(out, b.lo);
	fxjs_put_v3(out + 3, b.hi);
}

/* ---- events ----
 * Contact events: begin count, end count, hit count, then the begin events
 * (14 int32 each: body a (2), body b (2), child a, child b, normal x y z,
 * point x y z, separation, point count), the end events (6 each: body a,
 * body b, child a, child b) and the hit events (13 each: body a, body b,
 * child a, child b, point x y z, normal x y z, approach speed). Returns the
 * int32 needed; writes them when cap allows. */
FXJS_EXPORT int32_t fxjs_world_contact_events(const fxs_world *w, int32_t *out, int32_t cap)
{
	fxs_contact_events e = fxs_world_get_contact_events(w);
	int32_t need = 3 + 14 * (int32_t)e.begin_count + 6 * (int32_t)e.end_count + 13 * (int32_t)e.hit_count;
	if (cap < need)
		return need;
	int32_t *o = out;
	*o++ = (int32_t)e.begin_count, *o++ = (int32_t)e.end_count, *o++ = (int32_t)e.hit_count;
	for (uint32_t k = 0; k < e.begin_count; ++k, o += 14) {
		const fxs_contact_begin_event *b = &e.begin_events[k];
		fxjs_put_id(o, b->body_a), fxjs_put_id(o + 2, b->body_b);
		o[4] = (int32_t)b->child_a, o[5] = (int32_t)b->child_b;
		fxjs_put_v3(o + 6, b->normal), fxjs_put_v3(o + 9, b->point);
		o[12] = b->separation, o[13] = b->point_count;
	}
	for (uint32_t k = 0; k < e.end_count; ++k, o += 6) {
		const fxs_contact_end_event *x = &e.end_events[k];
		fxjs_put_id(o, x->body_a), fxjs_put_id(o + 2, x->body_b);
		o[4] = (int32_t)x->child_a, o[5] = (int32_t)x->child_b;
	}
	for (uint32_t k = 0; k < e.hit_count; ++k, o += 13) {
		const fxs_contact_hit_event *h = &e.hit_events[k];
		fxjs_put_id(o, h->body_a), fxjs_put_id(o + 2, h->body_b);
		o[4] = (int32_t)h->child_a, o[5] = (int32_t)h->child_b;
		fxjs_put_v3(o + 6, h->point), fxjs_put_v3(o + 9, h->normal);
		o[12] = h->approach_speed;
	}
	return need;
}

/* Sensor events: begin count, end count, then the events (4 int32 each:
 * sensor (2), visitor (2)), begins first. */
FXJS_EXPORT int32_t fxjs_world_sensor_events(const fxs_world *w, int32_t *out, int32_t cap)
{
	fxs_sensor_events e = fxs_world_get_sensor_events(w);
	int32_t need = 2 + 4 * (int32_t)(e.begin_count + e.end_count);
	if (cap < need)
		return need;
	out[0] = (int32_t)e.begin_count, out[1] = (int32_t)e.end_count;
	int32_t *o = out + 2;
	for (uint32_t k = 0; k < e.begin_count; ++k, o += 4)
		fxjs_put_id(o, e.begin_events[k].sensor), fxjs_put_id(o + 2, e.begin_events[k].visitor);
	for (uint32_t k = 0; k < e.end_count; ++k, o += 4)
		fxjs_put_id(o, e.end_events[k].sensor), fxjs_put_id(o + 2, e.end_events[k].visitor);
	return need;
}

/* What overlaps a sensor: the count; at most cap ids written. */
FXJS_EXPORT int32_t fxjs_sensor_overlaps(const fxs_world *w, int32_t i, int32_t g, int32_t *out, int32_t cap)
{
	return (int32_t)fxs_sensor_get_overlaps(w, fxjs_bid(i, g), (fxs_body_id *)(void *)out, cap < 0 ? 0 : (uint32_t)cap);
}

/* A body's contacts, FXJS_CONTACT_INTS (30) int32 each: body a (2), body b
 * (2), child a, child b, normal x y z, point count, then 4 points (x y z),
 * their 4 separations and their 4 normal impulses. Returns the count
 * (written when cap allows), or -1 when out of memory. */
FXJS_EXPORT int32_t fxjs_body_contacts(const fxs_world *w, int32_t i, int32_t g, int32_t *out, int32_t cap)
{
	fxs_body_id id = fxjs_bid(i, g);
	uint32_t n = fxs_body_get_contacts(w, id, NULL, 0);
	if (n == 0 || (int32_t)n > cap)
		return (int32_t)n;
	fxs_contact_data *c = malloc(n * sizeof *c);
	if (!c)
		return -1;
	n = fxs_body_get_contacts(w, id, c, n);
	for (uint32_t k = 0; k < n; ++k) {
		int32_t *o = out + 30 * k;
		fxjs_put_id(o, c[k].body_a), fxjs_put_id(o + 2, c[k].body_b);
		o[4] = (int32_t)c[k].child_a, o[5] = (int32_t)c[k].child_b;
		fxjs_put_v3(o + 6, c[k].normal);
		o[9] = c[k].point_count;
		for (int p = 0; p < 4; ++p) {
			fxjs_put_v3(o + 10 + 3 * p, c[k].points[p]);
			o[22 + p] = c[k].separations[p];
			o[26 + p] = c[k].normal_impulses[p];
		}
	}
	free(c);
	return (int32_t)n;
}

/* ---- queries ----
 * a query filter, 5 int32: on (0: every body), category bits lo hi, mask
 * bits lo hi */
static const fxs_query_filter *query_filter(const int32_t *p, fxs_query_filter *f)
{
	if (!p[0])
		return NULL;
	f->category_bits = fxjs_get64(p + 1);
	f->mask_bits = fxjs_get64(p + 3);
	return f;
}

/* box: lo x y z, hi x y z; then a query filter (5). The count of bodies
 * whose bounds overlap it, ascending by slot; at most cap ids written. */
FXJS_EXPORT int32_t fxjs_world_overlap_aabb(const fxs_world *w, const int32_t *a, int32_t *out, int32_t cap)
{
	fxs_aabb box = { fxjs_v3(a), fxjs_v3(a + 3) };
	fxs_query_filter f;
	return (int32_t)fxs_world_overlap_aabb(w, box, query_filter(a + 6, &f), (fxs_body_id *)(void *)out,
					       cap < 0 ? 0 : (uint32_t)cap);
}

/* a: shape (7), position x y z, rotation x y z w, query filter (5). The
 * count of bodies whose shape overlaps it, ascending (0 for a shape the
 * kernel cannot place: a mesh, an unknown hull, a rotation not unit). */
FXJS_EXPORT int32_t fxjs_world_overlap_shape(const fxs_world *w, const int32_t *a, int32_t *out, int32_t cap)
{
	fxs_shape s = fxjs_shape(w, a);
	fxs_transform xf = { fxjs_v3(a + 7), fxjs_q4(a + 10) };
	fxs_query_filter f;
	return (int32_t)fxs_world_overlap_shape(w, &s, &xf, query_filter(a + 14, &f), (fxs_body_id *)(void *)out,
						cap < 0 ? 0 : (uint32_t)cap);
}

/* a hit, FXJS_HIT_INTS (10) int32: body (index1, generation), fraction,
 * distance, point x y z, normal x y z */
static int32_t put_hit(int32_t *o, const fxs_cast_hit *h)
{
	fxjs_put_id(o, h->body);
	o[2] = h->fraction, o[3] = h->distance;
	fxjs_put_v3(o + 4, h->point);
	fxjs_put_v3(o + 7, h->normal);
	return 1;
}

/* seg: p0 x y z, p1 x y z, skip (index1, generation), query filter (5) */
FXJS_EXPORT int32_t fxjs_world_ray_cast(const fxs_world *w, const int32_t *seg, int32_t *hit)
{
	fxs_cast_hit h;
	fxs_query_filter f;
	memset(&h, 0, sizeof h);
	return fxs_world_ray_cast_filtered(w, fxjs_v3(seg), fxjs_v3(seg + 3), query_filter(seg + 8, &f),
					   fxjs_bid(seg[6], seg[7]), &h)
		? put_hit(hit, &h)
		: 0;
}

/* a: shape (7), rotation x y z w, p0 x y z, p1 x y z, skip (index1,
 * generation), query filter (5) */
FXJS_EXPORT int32_t fxjs_world_shape_cast(const fxs_world *w, const int32_t *a, int32_t *hit)
{
	fxs_cast_hit h;
	fxs_query_filter f;
	memset(&h, 0, sizeof h);
	fxs_shape s = fxjs_shape(w, a);
	return fxs_world_shape_cast_filtered(w, &s, fxjs_q4(a + 7), fxjs_v3(a + 11), fxjs_v3(a + 14),
					     query_filter(a + 19, &f), fxjs_bid(a[17], a[18]), &h)
		? put_hit(hit, &h)
		: 0;
}

/* ---- hashing bytes ----
 * XXH3-64 of len bytes (the hash of the world's state, over any bytes): lo,
 * hi in out */
FXJS_EXPORT void fxjs_xxh3(const void *p, int32_t len, int32_t *out)
{
	fxjs_put64(out, (uint64_t)XXH3_64bits(p, len < 0 ? 0 : (size_t)len));
}
