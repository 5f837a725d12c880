/* Helpers shared by the tests of the game features (filters, sensors,
 * events, queries, run-time setters). */
#ifndef FXS_TEST_GAME_UTIL_H
#define FXS_TEST_GAME_UTIL_H

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "fixstep/fixstep.h"
#include "fixstep/query.h"

static inline fxs_world *game_world(void)
{
	fxs_world_def def = fxs_default_world_def();
	return fxs_world_create(&def);
}

static inline fxs_world *game_world_no_gravity(void)
{
	fxs_world_def def = fxs_default_world_def();
	def.gravity = fxg_v3_zero();
	def.enable_sleep = false;
	return fxs_world_create(&def);
}

/* a box (r == 0) or a ball of radius r */
static inline fxs_body_def game_body_def(fxs_body_type type, fxg_vec3 p, fxg_vec3 half, fix16_t r)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.position = p;
	d.shape.type = r ? FXS_SHAPE_SPHERE : FXS_SHAPE_BOX;
	d.shape.radius = r;
	d.shape.half_extents = r ? fxg_v3_zero() : half;
	return d;
}
#define game_box_def(type, p, half) game_body_def((type), (p), (half), 0)
#define game_ball_def(type, p, r) game_body_def((type), (p), fxg_v3_zero(), (r))

/* The ground: a static 40 x 2 x 40 box with its top at y = 0. */
static inline fxs_body_id game_ground(fxs_world *w)
{
	fxs_body_def d = game_box_def(FXS_BODY_STATIC, fxg_v3(0, -FXG_ONE, 0), fxg_v3(FXG_I(20), FXG_ONE, FXG_I(20)));
	return fxs_body_create(w, &d);
}

static inline bool game_same_id(fxs_body_id a, fxs_body_id b) { return a.index1 == b.index1 && a.generation == b.generation; }

/* XXH3 of the last step's events (every field, in order): what two runs
 * that should agree are compared by. */
static inline uint64_t game_events_digest(const fxs_world *w)
{
	XXH3_state_t *st = XXH3_createState();
	XXH3_64bits_reset(st);
	fxs_contact_events c = fxs_world_get_contact_events(w);
	fxs_sensor_events s = fxs_world_get_sensor_events(w);
	const uint32_t counts[5] = { c.begin_count, c.end_count, c.hit_count, s.begin_count, s.end_count };
	XXH3_64bits_update(st, counts, sizeof counts);
	/* field by field: the structs have no padding (ids, u32, fix16 only) */
	if (c.begin_count)
		XXH3_64bits_update(st, c.begin_events, c.begin_count * sizeof *c.begin_events);
	if (c.end_count)
		XXH3_64bits_update(st, c.end_events, c.end_count * sizeof *c.end_events);
	if (c.hit_count)
		XXH3_64bits_update(st, c.hit_events, c.hit_count * sizeof *c.hit_events);
	if (s.begin_count)
		XXH3_64bits_update(st, s.begin_events, s.begin_count * sizeof *s.begin_events);
	if (s.end_count)
		XXH3_64bits_update(st, s.end_events, s.end_count * sizeof *s.end_events);
	uint64_t h = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	return h;
}

static inline void *game_save(const fxs_world *w, size_t *len)
{
	size_t n = fxs_world_snapshot_size(w);
	void *buf = malloc(n);
	if (!buf || fxs_world_snapshot_save(w, buf, n, len) != FXS_OK) {
		free(buf);
		return NULL;
	}
	return buf;
}

#endif
