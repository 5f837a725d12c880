/* The GAME section of the state: everything the game features (fixstep.h
 * "bodies at run time", events.h) keep, after every other section, written
 * only when the world has any of it. A world that uses none of them writes
 * the same bytes, and hashes the same, as before they existed.
 *
 *   u32 "GAME"
 *   i32 hit_event_threshold
 *   u32 n, then n body records in ascending slot order, one per body with
 *       flags, locks or a filter that are not the defaults:
 *       u32 slot, u8 flags (FXS_BODY_*, less FILTERED), u8 locks,
 *       u64 category_bits, u64 mask_bits, i32 group_index,
 *       and with FXS_BODY_MASS_SET: i64 mass, i64 inertia[3] (Q32.32),
 *       and with FXS_BODY_ROLLING: i32 rolling_resistance (0 < r <= 1)
 *   u32 n, sensor overlaps: u32 sensor slot, generation, visitor slot, generation
 *   u32 n, contact end events waiting for the next step (below)
 *   the last step's events, each array as u32 n then its records:
 *       begin: ids, children, normal, point, i32 separation, i32 point count
 *       end: ids, children        hit: ids, children, point, normal, i32 speed
 *       sensor begin, sensor end: sensor id, visitor id
 *   (an id is u32 index1, u32 generation; children are u32)
 * All little-endian; the reader checks every field. */
#include "state/game_state.h"
#include "collide/narrowphase.h"
#include "state/serialize.h"

#include <string.h>

#define GAME_MAGIC 0x454D4147u /* "GAME" little-endian */
#define BODY_BYTES 26u
#define MASS_BYTES 32u

/* flags, locks or a filter that is not the default (FILTERED says so) */
static bool body_has_game(const fxs_body *b) { return b->alive && (b->game || b->locks); }

static bool world_has_game(const fxs_world *w)
{
	if (w->def.hit_event_threshold != FXG_ONE || w->overlaps_count || w->end_pending_count || w->ev_begin_count ||
	    w->ev_end_count || w->ev_hit_count || w->ev_sensor_begin_count || w->ev_sensor_end_count)
		return true;
	for (uint32_t s = 0; s < w->slot_count; ++s)
		if (body_has_game(&w->bodies[s]))
			return true;
	return false;
}

bool fxs_game_in_use(const fxs_world *w) { return world_has_game(w); }

static void write_id(fxs_writer *wr, fxs_body_id id)
{
	fxs_write_u32(wr, id.index1);
	fxs_write_u32(wr, id.generation);
}

void fxs_game_write_body(const fxs_body *b, uint32_t slot, fxs_writer *wr)
{
	fxs_write_u32(wr, slot);
	fxs_write_u8(wr, (uint8_t)(b->game & ~FXS_BODY_FILTERED));
	fxs_write_u8(wr, b->locks);
	fxs_write_u64(wr, b->filter.category_bits);
	fxs_write_u64(wr, b->filter.mask_bits);
	fxs_write_i32(wr, b->filter.group_index);
	if (b->game & FXS_BODY_MASS_SET) {
		fxs_write_i64(wr, b->mass);
		for (int i = 0; i < 3; ++i)
			fxs_write_i64(wr, b->inertia[i]);
	}
	if (b->game & FXS_BODY_ROLLING)
		fxs_write_i32(wr, b->rolling_resistance);
}

bool fxs_game_body_has_record(const fxs_body *b) { return body_has_game(b); }

static void write_end(fxs_writer *wr, const fxs_contact_end_event *e)
{
	write_id(wr, e->body_a);
	write_id(wr, e->body_b);
	fxs_write_u32(wr, e->child_a);
	fxs_write_u32(wr, e->child_b);
}

void fxs_game_write(const fxs_world *w, fxs_writer *wr)
{
	if (!world_has_game(w))
		return;
	fxs_write_u32(wr, GAME_MAGIC);
	fxs_write_i32(wr, w->def.hit_event_threshold);
	uint32_t n = 0;
	for (uint32_t s = 0; s < w->slot_count; ++s)
		n += body_has_game(&w->bodies[s]);
	fxs_write_u32(wr, n);
	for (uint32_t s = 0; s < w->slot_count; ++s)
		if (body_has_game(&w->bodies[s]))
			fxs_game_write_body(&w->bodies[s], s, wr);
	fxs_write_u32(wr, w->overlaps_count);
	for (uint32_t i = 0; i < w->overlaps_count; ++i) {
		const fxs_sensor_overlap *o = &w->overlaps[i];
		fxs_write_u32(wr, o->sensor);
		fxs_write_u32(wr, o->sensor_gen);
		fxs_write_u32(wr, o->visitor);
		fxs_write_u32(wr, o->visitor_gen);
	}
	fxs_write_u32(wr, w->end_pending_count);
	for (uint32_t i = 0; i < w->end_pending_count; ++i)
		write_end(wr, &w->end_pending[i]);
	fxs_write_u32(wr, w->ev_begin_count);
	for (uint32_t i = 0; i < w->ev_begin_count; ++i) {
		const fxs_contact_begin_event *e = &w->ev_begin[i];
		write_id(wr, e->body_a);
		write_id(wr, e->body_b);
		fxs_write_u32(wr, e->child_a);
		fxs_write_u32(wr, e->child_b);
		fxs_write_vec3(wr, e->normal);
		fxs_write_vec3(wr, e->point);
		fxs_write_i32(wr, e->separation);
		fxs_write_i32(wr, e->point_count);
	}
	fxs_write_u32(wr, w->ev_end_count);
	for (uint32_t i = 0; i < w->ev_end_count; ++i)
		write_end(wr, &w->ev_end[i]);
	fxs_write_u32(wr, w->ev_hit_count);
	for (uint32_t i = 0; i < w->ev_hit_count; ++i) {
		const fxs_contact_hit_event *e = &w->ev_hit[i];
		write_id(wr, e->body_a);
		write_id(wr, e->body_b);
		fxs_write_u32(wr, e->child_a);
		fxs_write_u32(wr, e->child_b);
		fxs_write_vec3(wr, e->point);
		fxs_write_vec3(wr, e->normal);
		fxs_write_i32(wr, e->approach_speed);
	}
	const fxs_sensor_event *arrays[2] = { w->ev_sensor_begin, w->ev_sensor_end };
	const uint32_t counts[2] = { w->ev_sensor_begin_count, w->ev_sensor_end_count };
	for (int a = 0; a < 2; ++a) {
		fxs_write_u32(wr, counts[a]);
		for (uint32_t i = 0; i < counts[a]; ++i) {
			write_id(wr, arrays[a][i].sensor);
			write_id(wr, arrays[a][i].visitor);
		}
	}
}

/* ---- reading (untrusted) ---- */

static fxs_body_id read_id(fxs_reader *r)
{
	fxs_body_id id;
	id.index1 = fxs_read_u32(r);
	id.generation = fxs_read_u32(r);
	if (id.index1 == 0)
		fxs_reader_fail(r, FXS_ERR_CORRUPT); /* an event names a body that was */
	return id;
}

static uint32_t read_child(fxs_reader *r)
{
	uint32_t c = fxs_read_u32(r);
	if (c >= FXS_COMPOUND_MAX_CHILDREN)
		fxs_reader_fail(r, FXS_ERR_CORRUPT);
	return c;
}

/* A count of records of `size` bytes, no more than the input holds; the
 * array reserved for it. */
static bool read_count(fxs_reader *r, uint32_t size, uint32_t *n)
{
	*n = fxs_read_u32(r);
	return r->err == FXS_OK && *n <= (r->len - r->pos) / size;
}

static bool reserve(fxs_reader *r, void **p, uint32_t *cap, uint32_t n, size_t size)
{
	if (fxs_grow(p, cap, n, size))
		return true;
	fxs_reader_fail(r, FXS_ERR_NOMEM); /* not the input's fault */
	return false;
}
#define RESERVE(r, w, name, n) reserve((r), (void **)&(w)->name, &(w)->name##_cap, (n), sizeof *(w)->name)

static bool read_bodies(fxs_world *w, fxs_reader *r)
{
	uint32_t n;
	if (!read_count(r, BODY_BYTES, &n))
		return false;
	uint32_t prev = 0;
	for (uint32_t i = 0; i < n; ++i) {
		uint32_t s = fxs_read_u32(r);
		uint8_t game = fxs_read_u8(r), locks = fxs_read_u8(r);
		fxs_filter f;
		f.category_bits = fxs_read_u64(r);
		f.mask_bits = fxs_read_u64(r);
		f.group_index = fxs_read_i32(r);
		if (r->err != FXS_OK || s >= w->slot_count || (i > 0 && s <= prev) || !w->bodies[s].alive)
			return false;
		prev = s;
		fxs_body *b = &w->bodies[s];
		/* the flags a body can have; locks only on a dynamic body; a
		 * disabled body is never awake */
		if ((game & FXS_BODY_FILTERED) || locks > 63 || (locks && b->type != FXS_BODY_DYNAMIC) ||
		    ((game & FXS_BODY_DISABLED) && b->awake))
			return false;
		b->game = game;
		b->locks = locks;
		b->filter = f;
		if (!fxs_filter_is_default(&f))
			b->game |= FXS_BODY_FILTERED;
		if (game & FXS_BODY_MASS_SET) {
			fxg_wide m = fxs_read_i64(r), in[3];
			for (int k = 0; k < 3; ++k)
				in[k] = fxs_read_i64(r);
			if (r->err != FXS_OK || b->type != FXS_BODY_DYNAMIC || !fxs_mass_data_valid(m, in))
				return false;
			b->mass = m;
			for (int k = 0; k < 3; ++k)
				b->inertia[k] = in[k];
			fxs_body_update_mass(b);
		}
		if (game & FXS_BODY_ROLLING) {
			fix16_t rr = fxs_read_i32(r);
			if (r->err != FXS_OK || rr <= 0 || rr > FXG_ONE)
				return false;
			b->rolling_resistance = rr;
			w->rolling_seen = true;
		}
		if (!body_has_game(b))
			return false; /* a record for a body with nothing to say: not what a writer makes */
	}
	return true;
}

static bool read_overlaps(fxs_world *w, fxs_reader *r)
{
	uint32_t n;
	if (!read_count(r, 16, &n) || !RESERVE(r, w, overlaps, n))
		return false;
	for (uint32_t i = 0; i < n; ++i) {
		fxs_sensor_overlap *o = &w->overlaps[i];
		o->sensor = fxs_read_u32(r);
		o->sensor_gen = fxs_read_u32(r);
		o->visitor = fxs_read_u32(r);
		o->visitor_gen = fxs_read_u32(r);
		if (r->err != FXS_OK || o->sensor >= w->slot_count || o->visitor >= w->slot_count || o->sensor == o->visitor)
			return false;
		if (i > 0) {
			const fxs_sensor_overlap *p = o - 1;
			const uint32_t kp[4] = { p->sensor, p->sensor_gen, p->visitor, p->visitor_gen };
			const uint32_t kc[4] = { o->sensor, o->sensor_gen, o->visitor, o->visitor_gen };
			int c = 0;
			for (int k = 0; k < 4 && c == 0; ++k)
				c = kp[k] < kc[k] ? -1 : kp[k] > kc[k] ? 1
								       : 0;
			if (c >= 0)
				return false; /* strictly sorted */
		}
	}
	w->overlaps_count = n;
	return true;
}

static void read_end(fxs_reader *r, fxs_contact_end_event *e)
{
	e->body_a = read_id(r);
	e->body_b = read_id(r);
	e->child_a = read_child(r);
	e->child_b = read_child(r);
}

static bool read_events(fxs_world *w, fxs_reader *r)
{
	uint32_t n;
	if (!read_count(r, 24, &n) || !RESERVE(r, w, end_pending, n))
		return false;
	for (uint32_t i = 0; i < n; ++i)
		read_end(r, &w->end_pending[i]);
	w->end_pending_count = n;
	if (!read_count(r, 56, &n) || !RESERVE(r, w, ev_begin, n))
		return false;
	for (uint32_t i = 0; i < n; ++i) {
		fxs_contact_begin_event *e = &w->ev_begin[i];
		e->body_a = read_id(r);
		e->body_b = read_id(r);
		e->child_a = read_child(r);
		e->child_b = read_child(r);
		e->normal = fxs_read_vec3(r);
		e->point = fxs_read_vec3(r);
		e->separation = fxs_read_i32(r);
		e->point_count = fxs_read_i32(r);
		if (e->point_count < 1 || e->point_count > FXS_MAX_MANIFOLD_POINTS)
			fxs_reader_fail(r, FXS_ERR_CORRUPT);
	}
	w->ev_begin_count = n;
	if (!read_count(r, 24, &n) || !RESERVE(r, w, ev_end, n))
		return false;
	for (uint32_t i = 0; i < n; ++i)
		read_end(r, &w->ev_end[i]);
	w->ev_end_count = n;
	if (!read_count(r, 52, &n) || !RESERVE(r, w, ev_hit, n))
		return false;
	for (uint32_t i = 0; i < n; ++i) {
		fxs_contact_hit_event *e = &w->ev_hit[i];
		e->body_a = read_id(r);
		e->body_b = read_id(r);
		e->child_a = read_child(r);
		e->child_b = read_child(r);
		e->point = fxs_read_vec3(r);
		e->normal = fxs_read_vec3(r);
		e->approach_speed = fxs_read_i32(r);
		if (e->approach_speed <= 0)
			fxs_reader_fail(r, FXS_ERR_CORRUPT);
	}
	w->ev_hit_count = n;
	if (!read_count(r, 16, &n) || !RESERVE(r, w, ev_sensor_begin, n))
		return false;
	for (uint32_t i = 0; i < n; ++i) {
		w->ev_sensor_begin[i].sensor = read_id(r);
		w->ev_sensor_begin[i].visitor = read_id(r);
	}
	w->ev_sensor_begin_count = n;
	if (!read_count(r, 16, &n) || !RESERVE(r, w, ev_sensor_end, n))
		return false;
	for (uint32_t i = 0; i < n; ++i) {
		w->ev_sensor_end[i].sensor = read_id(r);
		w->ev_sensor_end[i].visitor = read_id(r);
	}
	w->ev_sensor_end_count = n;
	return r->err == FXS_OK;
}

bool fxs_game_read(fxs_world *w, fxs_reader *r)
{
	w->def.hit_event_threshold = FXG_ONE; /* unless the section says otherwise */
	if (r->pos == r->len)
		return true; /* no section: nothing of the game features in use */
	if (fxs_read_u32(r) != GAME_MAGIC)
		return false;
	w->def.hit_event_threshold = fxs_read_i32(r);
	if (r->err != FXS_OK || fxs_world_def_validate(&w->def) != FXS_OK)
		return false;
	if (!read_bodies(w, r) || !read_overlaps(w, r) || !read_events(w, r))
		return false;
	/* a section with nothing in it is not what a writer makes: one world,
	 * one serialisation */
	return world_has_game(w);
}
