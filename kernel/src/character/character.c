/* The kinematic character controller (fixstep/character.h for what it
 * does; this file for how).
 *
 * Everything here runs in world coordinates on Q16.16, with gravity taken
 * along y (the world's gravity.y). Bodies are visited in slot order and the
 * deepest contact wins, ties to the smaller slot, then the smaller feature
 * id: nothing depends on anything but the state. */
#include "character/character.h"
#include "world/call_log.h"
#include "collide/collide_common.h"
#include "fixstep/query.h"
#include "geometry/shape.h"

#include <stdlib.h>
#include <string.h>

#define CHAR_MAGIC 0x52414843u /* "CHAR" */
#define SKIN ((fix16_t)33)     /* 0.5 mm: contacts shallower than this are touching */
#define MAX_PIECES 64

fxs_character_def fxs_default_character_def(void)
{
	fxs_character_def d;
	d.position = fxg_v3_zero();
	d.radius = FXG_RATIO(3, 10);
	d.half_height = FXG_RATIO(6, 10);
	d.step_height = FXG_RATIO(35, 100);
	d.max_slope_cos = 46341; /* cos 45 deg */
	d.jump_speed = FXG_I(5);
	d.density = FXG_I(1000);
	return d;
}

static fxs_character *get(const fxs_world *w, fxs_character_id id)
{
	if (!w || id == 0 || id > w->character_slot_count)
		return NULL;
	fxs_character *c = &w->characters[id - 1];
	return c->alive ? c : NULL;
}

fxs_character_id fxs_character_create(fxs_world *w, const fxs_character_def *def)
{
	FXS_CALL_LOG(w, FXS_OP_CHARACTER_CREATE, def);
	if (!w)
		return 0;
	if (!def)
		return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT, "character def: NULL"), 0;
	const char *bad = def->radius < FXG_RATIO(5, 100) || def->radius > FXG_I(10) ? "radius out of range 0.05..10"
		: def->half_height < 0 || def->half_height > FXG_I(10)               ? "half_height out of range 0..10"
		: def->step_height < 0 || def->step_height > FXG_I(2)                ? "step_height out of range 0..2"
		: def->max_slope_cos < 0 || def->max_slope_cos > FXG_ONE             ? "max_slope_cos out of range 0..1"
		: def->jump_speed < 0 || def->jump_speed > FXG_I(100)                ? "jump_speed out of range 0..100"
										     : NULL;
	if (bad)
		return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT, "character def: %s", bad), 0;
	uint32_t slot = 0;
	while (slot < w->character_slot_count && w->characters[slot].alive)
		++slot;
	if (slot >= FXS_MAX_CHARACTERS)
		return fxs_world_fail(w, FXS_ERR_LIMIT, "the world has FXS_MAX_CHARACTERS characters"), 0;
	if (slot == w->character_slot_count) {
		fxs_character *nc = realloc(w->characters, (size_t)(slot + 1) * sizeof *nc);
		if (!nc)
			return fxs_world_fail(w, FXS_ERR_NOMEM, "out of memory"), 0;
		w->characters = nc;
		w->character_slot_count = slot + 1;
	}
	fxs_body_def bd = fxs_default_body_def();
	bd.type = FXS_BODY_KINEMATIC;
	bd.position = def->position;
	bd.shape.type = FXS_SHAPE_CAPSULE;
	bd.shape.radius = def->radius;
	bd.shape.half_height = def->half_height;
	bd.density = def->density;
	fxs_body_id body;
	FXS_CALL_MUTED(w, body = fxs_body_create(w, &bd));
	if (!fxs_body_is_valid(w, body))
		return 0; /* the last error is the body's */
	fxs_character *c = &w->characters[slot];
	memset(c, 0, sizeof *c);
	c->alive = 1;
	c->body = body;
	c->radius = def->radius;
	c->half_height = def->half_height;
	c->step_height = def->step_height;
	c->max_slope_cos = def->max_slope_cos;
	c->jump_speed = def->jump_speed;
	fxs_world_touch(w);
	fxs_world_ok(w);
	return slot + 1;
}

bool fxs_character_destroy(fxs_world *w, fxs_character_id id)
{
	FXS_CALL_LOG(w, FXS_OP_CHARACTER_DESTROY, id);
	fxs_character *c = get(w, id);
	if (!c)
		return false;
	FXS_CALL_MUTED(w, fxs_body_destroy(w, c->body));
	c->alive = 0;
	fxs_world_touch(w);
	return true;
}

static fix16_t clamp100(fix16_t v) { return v > FXG_I(100) ? FXG_I(100) : (v < -FXG_I(100) ? -FXG_I(100) : v); }

void fxs_character_set_move(fxs_world *w, fxs_character_id id, fxg_vec3 velocity, bool jump)
{
	FXS_CALL_LOG(w, FXS_OP_CHARACTER_SET_MOVE, id, velocity, jump);
	fxs_character *c = get(w, id);
	if (!c)
		return;
	c->move = fxg_v3(clamp100(velocity.x), 0, clamp100(velocity.z));
	c->jump = jump ? 1 : 0;
	fxs_world_touch(w);
}

fxs_body_id fxs_character_get_body(const fxs_world *w, fxs_character_id id)
{
	const fxs_character *c = get(w, id);
	return c ? c->body : fxs_null_body;
}

fxg_vec3 fxs_character_get_position(const fxs_world *w, fxs_character_id id)
{
	const fxs_character *c = get(w, id);
	return c ? fxs_body_get_position(w, c->body) : fxg_v3_zero();
}

bool fxs_character_is_grounded(const fxs_world *w, fxs_character_id id)
{
	const fxs_character *c = get(w, id);
	return c && c->grounded;
}

fxs_body_id fxs_character_get_ground(const fxs_world *w, fxs_character_id id)
{
	const fxs_character *c = get(w, id);
	return c && c->grounded ? c->ground : fxs_null_body;
}

uint32_t fxs_world_character_count(const fxs_world *w)
{
	uint32_t n = 0;
	if (!w)
		return 0;
	for (uint32_t i = 0; i < w->character_slot_count; ++i)
		n += w->characters[i].alive;
	return n;
}

/* ---- the controller ---- */

typedef struct mover {
	fxs_world *w;
	const fxs_character *c;
	fxs_shape shape;
	uint32_t self; /* body slot */
	bool ground_hit, wall_hit, ceiling_hit;
	uint32_t ground_slot;
	fxg_vec3 wall_n; /* horizontal unit normal of the last wall, pointing out of it */
} mover;

/* The deepest contact of the capsule at p with a static or kinematic body
 * (not itself): false when nothing is deeper than SKIN. n points from the
 * body hit towards the capsule. */
static bool deepest(mover *mv, fxg_vec3 p, fix16_t *depth, fxg_vec3 *n, uint32_t *slot)
{
	fxs_world *w = mv->w;
	uint32_t ovf = 0;
	fxs_transform xf = { p, { 0, 0, 0, FXG_ONE } };
	fxs_aabb a = fxs_shape_aabb(&mv->shape, &xf, &ovf);
	bool have = false;
	fix16_t best = -SKIN;
	uint32_t best_id = 0;
	for (uint32_t i = 0; i < w->slot_count; ++i) {
		const fxs_body *b = &w->bodies[i];
		if (!b->alive || i == mv->self || b->type == FXS_BODY_DYNAMIC || (b->game & FXS_BODY_DISABLED) ||
		    !fxs_bodies_touch(&w->bodies[mv->self], b))
			continue;
		fxs_aabb bb = fxs_body_compute_aabb(b, &ovf);
		if (!fxs_aabb_overlap(&a, &bb))
			continue;
		fxs_manifold m;
		fxs_collide(&mv->shape, &xf, &b->shape, &b->xf, 0, &m, &ovf);
		for (int k = 0; k < m.point_count; ++k) {
			fix16_t s = m.points[k].separation;
			if (s < best || (have && s == best && i == *slot && m.points[k].feature_id < best_id)) {
				best = s;
				best_id = m.points[k].feature_id;
				*n = np_neg(m.normal);
				*slot = i;
				have = true;
			}
		}
	}
	*depth = -best;
	return have;
}

/* Push the capsule at p out of static and kinematic bodies: ground contacts
 * lift it straight up (it does not slide down a walkable slope), walls push
 * it out horizontally (it cannot climb a steep one), ceilings push it down. */
static fxg_vec3 resolve(mover *mv, fxg_vec3 p)
{
	for (int it = 0; it < FXS_CHARACTER_ITERATIONS; ++it) {
		fix16_t depth;
		fxg_vec3 n;
		uint32_t slot = 0;
		if (!deepest(mv, p, &depth, &n, &slot))
			break;
		if (n.y > 0 && n.y >= mv->c->max_slope_cos) {
			/* up by depth / n.y: the penetration along n is undone (a
			 * vertical face is a wall even at max_slope_cos 0) */
			int64_t up = fxg_div_round64((int64_t)depth * 65536, n.y);
			p.y = fxg_sat((int64_t)p.y + up + 1, &mv->w->ovf);
			mv->ground_hit = true;
			mv->ground_slot = slot;
		} else {
			fxg_vec3 h = fxg_v3(n.x, 0, n.z);
			fix16_t hl;
			uint32_t ovf = 0;
			fxg_vec3 hu = fxg_v3_normalize(h, &hl, &ovf);
			if (hl < FXG_RATIO(1, 10)) {
				/* a ceiling (or a floor too steep to tell): straight along n */
				p = fxg_v3_add(p, fxg_v3(fxg_mul(n.x, depth + 1, &ovf), fxg_mul(n.y, depth + 1, &ovf), fxg_mul(n.z, depth + 1, &ovf)), &mv->w->ovf);
				if (n.y < 0)
					mv->ceiling_hit = true;
				continue;
			}
			int64_t s = fxg_div_round64((int64_t)depth * 65536, hl) + 1;
			if (s > mv->c->radius)
				s = mv->c->radius;
			p = fxg_v3_add(p, fxg_v3(fxg_mul(hu.x, (fix16_t)s, &ovf), 0, fxg_mul(hu.z, (fix16_t)s, &ovf)), &mv->w->ovf);
			mv->wall_hit = true;
			mv->wall_n = hu;
		}
	}
	return p;
}

/* d without its component into the wall (n horizontal, out of the wall) */
static fxg_vec3 slide(fxg_vec3 d, fxg_vec3 n)
{
	int64_t into = fxg_shr_round((int64_t)d.x * n.x + (int64_t)d.z * n.z, 16);
	if (into >= 0)
		return d;
	uint32_t ovf = 0;
	return fxg_v3(d.x - fxg_mul((fix16_t)into, n.x, &ovf), d.y, d.z - fxg_mul((fix16_t)into, n.z, &ovf));
}

static int64_t hlen2(fxg_vec3 a, fxg_vec3 b)
{
	int64_t dx = (int64_t)a.x - b.x, dz = (int64_t)a.z - b.z;
	return dx * dx + dz * dz;
}

/* The ground under the capsule at p, within `dist` below its feet, whose
 * surface is not above max_y (a step up must not land on a tread higher
 * than step_height): a cast of the bottom sphere straight down decides when
 * it meets a walkable surface (exact on slopes). When it meets something
 * steeper (a step's nose, or a mesh whose one manifold normal in a corner of
 * floor and riser is the riser's), five rays down from the bottom sphere's
 * height (on the axis and 0.9 radius out along x and z; each exact per
 * face) find the highest walkable support under the foot. */
static bool ground_below(mover *mv, fxg_vec3 p, fix16_t dist, fix16_t max_y, fix16_t *drop, fxs_body_id *ground)
{
	const fxs_character *c = mv->c;
	fxs_body_id self = fxs_world_body_at(mv->w, mv->self);
	fxg_vec3 centre = fxg_v3(p.x, p.y - c->half_height, p.z); /* the bottom sphere's */
	fxs_shape ball = mv->shape;
	ball.type = FXS_SHAPE_SPHERE;
	ball.half_height = 0;
	fxs_cast_hit h;
	/* what the character's filter lets it stand on (queries never see sensors) */
	const fxs_filter *f = &mv->w->bodies[mv->self].filter;
	const fxs_query_filter qf = { f->category_bits, f->mask_bits };
	bool cast = fxs_world_shape_cast_filtered(mv->w, &ball, (fxg_quat){ 0, 0, 0, FXG_ONE }, centre,
						  fxg_v3(centre.x, centre.y - dist, centre.z), &qf, self, &h);
	if (cast && h.normal.y >= c->max_slope_cos) {
		if (h.point.y > max_y)
			return false;
		*drop = h.distance;
		*ground = h.body;
		return true;
	}
	/* rays: the highest walkable support under the foot */
	fix16_t foot = centre.y - c->radius, half = (fix16_t)(((int64_t)c->radius * 9) / 10);
	static const int off[5][2] = { { 0, 0 }, { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } };
	bool have = false;
	fix16_t best = 0;
	fxs_body_id best_body = fxs_null_body;
	for (int k = 0; k < 5; ++k) {
		fxg_vec3 a = fxg_v3(centre.x + off[k][0] * half, centre.y, centre.z + off[k][1] * half);
		fxg_vec3 b = fxg_v3(a.x, foot - dist - SKIN, a.z);
		fxs_cast_hit e;
		if (!fxs_world_ray_cast_filtered(mv->w, a, b, &qf, self, &e) || e.normal.y < c->max_slope_cos ||
		    e.point.y > max_y)
			continue;
		if (!have || e.point.y > best) {
			have = true;
			best = e.point.y;
			best_body = e.body;
		}
	}
	if (!have)
		return false;
	int64_t d = (int64_t)foot - best;
	if (d > dist)
		return false;
	*drop = d < 0 ? 0 : (fix16_t)d;
	*ground = best_body;
	return true;
}

static void update_one(fxs_world *w, fxs_character *c)
{
	fxs_body *b = fxs_world_get_body(w, c->body);
	if (!b)
		return;
	uint32_t *ovf = &w->ovf;
	mover mv;
	memset(&mv, 0, sizeof mv);
	mv.w = w;
	mv.c = c;
	mv.shape = b->shape;
	mv.self = c->body.index1 - 1;
	fix16_t dt = w->def.dt;
	fxg_vec3 p0 = b->xf.p, p = p0;
	bool was_grounded = c->grounded;

	/* the ground's velocity carries a character standing on it */
	fxg_vec3 gv = fxg_v3_zero();
	const fxs_body *gb = c->grounded ? fxs_world_get_body(w, c->ground) : NULL;
	if (gb && gb->type != FXS_BODY_STATIC)
		gv = gb->v;
	if (c->grounded && c->jump) {
		c->vy = c->jump_speed;
		c->grounded = 0;
	} else if (c->grounded) {
		c->vy = 0;
	} else {
		c->vy = fxg_add(c->vy, fxg_mul(w->def.gravity.y, dt, ovf), ovf);
		/* +-100 m/s both ways, as the reader wants (gravity may point up) */
		if (c->vy < -FXG_I(100))
			c->vy = -FXG_I(100);
		else if (c->vy > FXG_I(100))
			c->vy = FXG_I(100);
	}
	fxg_vec3 v = fxg_v3_add(c->move, gv, ovf);
	v.y = c->grounded ? gv.y : fxg_add(c->vy, gv.y, ovf);
	fxg_vec3 disp = fxg_v3(fxg_mul(v.x, dt, ovf), fxg_mul(v.y, dt, ovf), fxg_mul(v.z, dt, ovf));

	/* pieces of at most half the radius */
	int64_t big = disp.x < 0 ? -(int64_t)disp.x : disp.x;
	int64_t ay = disp.y < 0 ? -(int64_t)disp.y : disp.y, az = disp.z < 0 ? -(int64_t)disp.z : disp.z;
	big = ay > big ? ay : big;
	big = az > big ? az : big;
	int64_t half_r = c->radius / 2;
	int n = (int)((big + half_r - 1) / half_r);
	n = n < 1 ? 1 : (n > MAX_PIECES ? MAX_PIECES : n);
	fxg_vec3 walls[4];
	int wall_count = 0;
	for (int k = 0; k < n; ++k) {
		fxg_vec3 d = fxg_v3((fix16_t)(((int64_t)disp.x * (k + 1)) / n - ((int64_t)disp.x * k) / n),
				    (fix16_t)(((int64_t)disp.y * (k + 1)) / n - ((int64_t)disp.y * k) / n),
				    (fix16_t)(((int64_t)disp.z * (k + 1)) / n - ((int64_t)disp.z * k) / n));
		for (int i = 0; i < wall_count; ++i)
			d = slide(d, walls[i]);
		fxg_vec3 before = p;
		mv.wall_hit = false;
		p = resolve(&mv, fxg_v3_add(p, d, ovf));
		if (mv.ceiling_hit && c->vy > 0)
			c->vy = 0;
		if (!mv.wall_hit)
			continue;
		/* blocked: try the piece as a step up, if on the ground */
		bool stepped = false;
		if (was_grounded && c->step_height > 0 && (d.x | d.z)) {
			mover up = mv;
			up.wall_hit = up.ground_hit = false;
			fxg_vec3 raised = fxg_v3(before.x, before.y + c->step_height, before.z);
			fix16_t depth;
			fxg_vec3 nn;
			uint32_t slot;
			if (!deepest(&up, raised, &depth, &nn, &slot)) {
				fxg_vec3 ahead = resolve(&up, fxg_v3(raised.x + d.x, raised.y, raised.z + d.z));
				fix16_t drop;
				fxs_body_id g;
				fix16_t foot = before.y - c->half_height - c->radius;
				/* a step up: further than the blocked move, onto a tread
				 * higher than where it stood (and not above step_height) */
				if (hlen2(ahead, before) > hlen2(p, before) + 4 &&
				    ground_below(&mv, ahead, c->step_height + SKIN * 4, foot + c->step_height + SKIN, &drop, &g) &&
				    drop < c->step_height - SKIN) {
					p = fxg_v3(ahead.x, ahead.y - drop, ahead.z);
					mv.ground_hit = true;
					stepped = true;
				}
			}
		}
		if (!stepped && wall_count < 4)
			walls[wall_count++] = mv.wall_n;
	}

	/* on the ground? look down: as far as a step when it was on the ground
	 * (walking down stairs), a hair otherwise */
	c->grounded = 0;
	c->ground = fxs_null_body;
	if (c->vy <= 0) {
		fix16_t drop;
		fxs_body_id g;
		fix16_t reach = was_grounded ? c->step_height + SKIN * 4 : SKIN * 4;
		if (ground_below(&mv, p, reach, INT32_MAX, &drop, &g)) {
			p.y -= drop;
			c->grounded = 1;
			c->ground = g;
			c->vy = 0;
		} else if (mv.ground_hit) {
			c->grounded = 1;
			c->ground = fxs_world_body_at(w, mv.ground_slot);
			c->vy = 0;
		}
	}
	/* the body: moved by the solver at this velocity, so that what it
	 * pushes sees it moving (dt v = p - p0 up to the rounding of 1/dt) */
	fix16_t inv_dt = fxg_div(FXG_ONE, dt, ovf);
	fxg_vec3 bv = fxg_v3(fxg_mul((fix16_t)fxg_sat((int64_t)p.x - p0.x, ovf), inv_dt, ovf),
			     fxg_mul((fix16_t)fxg_sat((int64_t)p.y - p0.y, ovf), inv_dt, ovf),
			     fxg_mul((fix16_t)fxg_sat((int64_t)p.z - p0.z, ovf), inv_dt, ovf));
	b->v = bv;
	b->w = fxg_v3_zero();
	b->xf.q = (fxg_quat){ 0, 0, 0, FXG_ONE };
	b->q30 = fxg_q30_from_q(b->xf.q);
	b->awake = 1;
	b->sleep_time = 0;
	c->jump = 0;
}

void fxs_characters_update(fxs_world *w)
{
	for (uint32_t i = 0; i < w->character_slot_count; ++i) {
		const fxs_body *b;
		if (w->characters[i].alive && (b = fxs_world_get_body(w, w->characters[i].body)) &&
		    !(b->game & FXS_BODY_DISABLED))
			update_one(w, &w->characters[i]);
	}
}

uint32_t fxs_character_slot_body(const fxs_world *w, uint32_t i)
{
	if (i >= w->character_slot_count || !w->characters[i].alive)
		return UINT32_MAX;
	return w->characters[i].body.index1 - 1;
}

/* ---- state ---- */

void fxs_characters_write(const fxs_world *w, fxs_writer *wr)
{
	if (w->character_slot_count == 0)
		return;
	fxs_write_u32(wr, CHAR_MAGIC);
	fxs_write_u32(wr, w->character_slot_count);
	for (uint32_t i = 0; i < w->character_slot_count; ++i) {
		const fxs_character *c = &w->characters[i];
		fxs_write_u8(wr, c->alive);
		if (!c->alive)
			continue;
		fxs_write_u8(wr, c->jump);
		fxs_write_u8(wr, c->grounded);
		fxs_write_u32(wr, c->body.index1);
		fxs_write_u32(wr, c->body.generation);
		fxs_write_i32(wr, c->radius);
		fxs_write_i32(wr, c->half_height);
		fxs_write_i32(wr, c->step_height);
		fxs_write_i32(wr, c->max_slope_cos);
		fxs_write_i32(wr, c->jump_speed);
		fxs_write_vec3(wr, c->move);
		fxs_write_i32(wr, c->vy);
		fxs_write_u32(wr, c->ground.index1);
		fxs_write_u32(wr, c->ground.generation);
	}
}

bool fxs_characters_read(fxs_world *w, fxs_reader *r)
{
	/* no section: the end, or the next section's magic */
	if (r->len - r->pos < 4)
		return true;
	const uint8_t *q = r->buf + r->pos;
	if (((uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24) != CHAR_MAGIC)
		return true;
	fxs_read_u32(r);
	uint32_t n = fxs_read_u32(r);
	if (r->err != FXS_OK || n == 0 || n > FXS_MAX_CHARACTERS)
		return false;
	w->characters = calloc(n, sizeof *w->characters);
	if (!w->characters) {
		fxs_reader_fail(r, FXS_ERR_NOMEM); /* not the input's fault */
		return false;
	}
	w->character_slot_count = n;
	for (uint32_t i = 0; i < n; ++i) {
		fxs_character *c = &w->characters[i];
		c->alive = fxs_read_u8(r);
		if (c->alive > 1)
			return false;
		if (!c->alive)
			continue;
		c->jump = fxs_read_u8(r);
		c->grounded = fxs_read_u8(r);
		c->body.index1 = fxs_read_u32(r);
		c->body.generation = fxs_read_u32(r);
		c->radius = fxs_read_i32(r);
		c->half_height = fxs_read_i32(r);
		c->step_height = fxs_read_i32(r);
		c->max_slope_cos = fxs_read_i32(r);
		c->jump_speed = fxs_read_i32(r);
		c->move = fxs_read_vec3(r);
		c->vy = fxs_read_i32(r);
		c->ground.index1 = fxs_read_u32(r);
		c->ground.generation = fxs_read_u32(r);
		if (r->err != FXS_OK || c->jump > 1 || c->grounded > 1)
			return false;
		/* the same limits as fxs_character_create and set_move */
		const fxs_body *b = fxs_world_get_body(w, c->body);
		if (!b || b->type != FXS_BODY_KINEMATIC || b->shape.type != FXS_SHAPE_CAPSULE || b->shape.radius != c->radius ||
		    b->shape.half_height != c->half_height || c->radius < FXG_RATIO(5, 100) || c->radius > FXG_I(10) ||
		    c->step_height < 0 || c->step_height > FXG_I(2) || c->max_slope_cos < 0 || c->max_slope_cos > FXG_ONE ||
		    c->jump_speed < 0 || c->jump_speed > FXG_I(100) || c->move.y != 0 || clamp100(c->move.x) != c->move.x ||
		    clamp100(c->move.z) != c->move.z || c->vy < -FXG_I(100) || c->vy > FXG_I(100))
			return false;
		if (c->grounded && (c->ground.index1 != 0 || c->ground.generation != 0) &&
		    (c->ground.index1 > w->slot_count))
			return false;
	}
	return true;
}

void fxs_characters_free(fxs_world *w)
{
	free(w->characters);
	w->characters = NULL;
	w->character_slot_count = 0;
}
