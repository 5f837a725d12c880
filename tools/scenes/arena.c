/* The arena: two teams of two, a capture zone in the middle, crates,
 * bullets and blasts. Every game feature of the public API at once:
 *
 *   - collision filtering: a team's bullets pass through its own players
 *     (category and mask bits) and never meet another bullet (a shared
 *     negative group index); the zone sees players only;
 *   - a sensor: the capture zone; a team alone in it scores a capture
 *     point every 30 ticks (fxs_sensor_get_overlaps);
 *   - events: a bullet's hit events (approach above 2 m/s) score a hit when
 *     what it hit is an enemy player, and end the bullet;
 *   - an overlap query: a player's blast finds the crates and enemies
 *     within 3.5 m in front of it and pushes them away (impulses);
 *   - motion locks: players are dynamic capsules that never tip over.
 *
 * All the game's state lives in the world (bodies' user data: tags, teams,
 * cooldowns, ages, scores), so a snapshot or replay carries it, and the
 * rules read the last step's events before the next step: a restored world
 * plays on exactly as the one that never stopped. Numbers come from
 * decimal strings (fixstep/authoring.h): integer parsing, the same bits
 * everywhere.
 *
 * user_data: bits 0-7 the tag; players: bit 8 team, bit 9 index, bits
 * 16-23 the fire cooldown, 24-31 the blast cooldown (ticks); bullets: bit
 * 8 team, bits 16-31 age; bases: bit 8 team, bits 10-20 hits, 21-31
 * capture points. */
#include "scenes/arena.h"

#include "fixstep/authoring.h"
#include "fixstep/events.h"
#include "fixstep/query.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_PLAYER = 1,
       TAG_BULLET = 2,
       TAG_BASE = 3,
       TAG_ZONE = 4,
       TAG_CRATE = 5 };
enum { CAT_WORLD = 1,
       CAT_TEAM0 = 2,
       CAT_TEAM1 = 4,
       CAT_CRATE = 8,
       CAT_BULLET0 = 16,
       CAT_BULLET1 = 32,
       CAT_ZONE = 64 };

#define TAG(u) ((u)&0xFFu)
#define TEAM(u) (((u) >> 8) & 1u)
#define FIRE_COOLDOWN 12
#define BLAST_COOLDOWN 90
#define BULLET_LIFE 100
#define MAX_BULLETS 128

/* a decimal literal of the scene (a bad one is a bug in this file) */
static fix16_t num(const char *s)
{
	fix16_t v;
	if (!fxs_q16_from_string(s, &v))
		abort();
	return v;
}

static fxg_vec3 vec(const char *x, const char *y, const char *z) { return fxg_v3(num(x), num(y), num(z)); }

static uint64_t team_cat(uint32_t team) { return team ? CAT_TEAM1 : CAT_TEAM0; }
static uint64_t bullet_cat(uint32_t team) { return team ? CAT_BULLET1 : CAT_BULLET0; }

static fxs_body_id add_box(fxs_world *w, fxs_body_type type, fxg_vec3 p, fxg_vec3 half, uint64_t cat, uint32_t user)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.position = p;
	d.shape.type = FXS_SHAPE_BOX;
	d.shape.half_extents = half;
	d.filter.category_bits = cat;
	d.user_data = user;
	return fxs_body_create(w, &d);
}

fxs_world *fxs_scene_arena_create(void)
{
	fxs_world_def def = fxs_default_world_def();
	def.hit_event_threshold = num("2"); /* a bullet, not a player bumping into a crate */
	fxs_world *w = fxs_world_create(&def);
	if (!w)
		return NULL;
	add_box(w, FXS_BODY_STATIC, vec("0", "-0.5", "0"), vec("16", "0.5", "16"), CAT_WORLD, 0);
	add_box(w, FXS_BODY_STATIC, vec("16.5", "1", "0"), vec("0.5", "1", "17"), CAT_WORLD, 0);
	add_box(w, FXS_BODY_STATIC, vec("-16.5", "1", "0"), vec("0.5", "1", "17"), CAT_WORLD, 0);
	add_box(w, FXS_BODY_STATIC, vec("0", "1", "16.5"), vec("16", "1", "0.5"), CAT_WORLD, 0);
	add_box(w, FXS_BODY_STATIC, vec("0", "1", "-16.5"), vec("16", "1", "0.5"), CAT_WORLD, 0);
	/* the bases hold the scores */
	add_box(w, FXS_BODY_STATIC, vec("-13", "1", "0"), vec("1", "1", "2"), CAT_WORLD, TAG_BASE);
	add_box(w, FXS_BODY_STATIC, vec("13", "1", "0"), vec("1", "1", "2"), CAT_WORLD, TAG_BASE | 1u << 8);
	/* the capture zone: a sensor that sees players only */
	fxs_body_def z = fxs_default_body_def();
	z.type = FXS_BODY_STATIC;
	z.position = vec("0", "1", "0");
	z.shape.type = FXS_SHAPE_BOX;
	z.shape.half_extents = vec("2.5", "1", "2.5");
	z.is_sensor = true;
	z.filter.category_bits = CAT_ZONE;
	z.filter.mask_bits = CAT_TEAM0 | CAT_TEAM1;
	z.user_data = TAG_ZONE;
	fxs_body_create(w, &z);
	/* crates in two rows, with contact events (begin and end) */
	static const char *const cz[4] = { "-4.5", "-1.5", "1.5", "4.5" };
	for (int i = 0; i < 8; ++i) {
		fxs_body_def d = fxs_default_body_def();
		d.position = vec(i < 4 ? "-5" : "5", "0.4", cz[i % 4]);
		d.shape.type = FXS_SHAPE_BOX;
		d.shape.half_extents = vec("0.4", "0.4", "0.4");
		d.density = num("200");
		d.filter.category_bits = CAT_CRATE;
		d.enable_contact_events = true;
		d.user_data = TAG_CRATE;
		fxs_body_create(w, &d);
	}
	/* the players: upright capsules (rotation locked), whose own team's
	 * bullets pass through them */
	for (uint32_t p = 0; p < FXS_ARENA_PLAYERS; ++p) {
		uint32_t team = p / 2, index = p % 2;
		fxs_body_def d = fxs_default_body_def();
		d.position = vec(team ? "10" : "-10", "0.8", index ? "2" : "-2");
		d.shape.type = FXS_SHAPE_CAPSULE;
		d.shape.radius = num("0.35");
		d.shape.half_height = num("0.45");
		d.density = num("150");
		d.friction = num("0.2");
		d.motion_locks.angular_x = d.motion_locks.angular_y = d.motion_locks.angular_z = true;
		d.filter.category_bits = team_cat(team);
		d.filter.mask_bits = ~bullet_cat(team);
		d.user_data = TAG_PLAYER | team << 8 | index << 9;
		fxs_body_create(w, &d);
	}
	return w;
}

/* ---- the rules ---- */

typedef struct arena {
	fxs_body_id base[2], zone, player[FXS_ARENA_PLAYERS];
	fxs_body_id bullet[MAX_BULLETS];
	uint32_t bullets;
} arena;

/* the game's bodies, found by their tags in slot order */
static void find(const fxs_world *w, arena *a)
{
	memset(a, 0, sizeof *a);
	for (uint32_t s = 0; s < fxs_world_slot_count(w); ++s) {
		fxs_body_id id = fxs_world_body_at(w, s);
		if (!fxs_body_is_valid(w, id))
			continue;
		uint32_t u = fxs_body_get_user_data(w, id);
		switch (TAG(u)) {
		case TAG_PLAYER:
			a->player[TEAM(u) * 2 + (u >> 9 & 1u)] = id;
			break;
		case TAG_BULLET:
			if (a->bullets < MAX_BULLETS)
				a->bullet[a->bullets++] = id;
			break;
		case TAG_BASE:
			a->base[TEAM(u)] = id;
			break;
		case TAG_ZONE:
			a->zone = id;
			break;
		default:
			break;
		}
	}
}

static uint32_t user(const fxs_world *w, fxs_body_id id) { return fxs_body_get_user_data(w, id); }

static bool same(fxs_body_id a, fxs_body_id b) { return a.index1 == b.index1 && a.generation == b.generation; }

/* add to a base's hits (bits 10-20) or capture points (21-31), saturating */
static void score(fxs_world *w, fxs_body_id base, bool capture)
{
	uint32_t u = user(w, base);
	int shift = capture ? 21 : 10;
	uint32_t v = (u >> shift) & 0x7FFu;
	if (v < 0x7FFu)
		fxs_body_set_user_data(w, base, (u & ~(0x7FFu << shift)) | (v + 1) << shift);
}

fxs_arena_score fxs_scene_arena_score(const fxs_world *w)
{
	arena a;
	find(w, &a);
	fxs_arena_score s = { { 0, 0 }, { 0, 0 } };
	for (int t = 0; t < 2; ++t) {
		uint32_t u = user(w, a.base[t]);
		s.hits[t] = (u >> 10) & 0x7FFu;
		s.capture[t] = (u >> 21) & 0x7FFu;
	}
	return s;
}

/* Last step's hit events: a bullet's hit ends it; on an enemy player it is
 * a point for the bullet's team. */
static void score_hits(fxs_world *w, arena *a, bool dead[MAX_BULLETS])
{
	fxs_contact_events e = fxs_world_get_contact_events(w);
	for (uint32_t i = 0; i < e.hit_count; ++i) {
		fxs_body_id x = e.hit_events[i].body_a, y = e.hit_events[i].body_b;
		if (!fxs_body_is_valid(w, x) || !fxs_body_is_valid(w, y))
			continue;
		if (TAG(user(w, x)) != TAG_BULLET) {
			fxs_body_id t = x;
			x = y, y = t;
		}
		uint32_t ub = user(w, x), uo = user(w, y);
		if (TAG(ub) != TAG_BULLET)
			continue;
		for (uint32_t k = 0; k < a->bullets; ++k)
			if (same(a->bullet[k], x)) {
				if (!dead[k] && TAG(uo) == TAG_PLAYER && TEAM(uo) != TEAM(ub))
					score(w, a->base[TEAM(ub)], false);
				dead[k] = true;
			}
	}
}

/* A team alone in the zone takes a capture point every 30 ticks. */
static void score_zone(fxs_world *w, const arena *a, uint64_t tick)
{
	if (tick % 30 != 0)
		return;
	fxs_body_id in[8];
	uint32_t n = fxs_sensor_get_overlaps(w, a->zone, in, 8), teams = 0;
	for (uint32_t i = 0; i < n && i < 8; ++i)
		if (TAG(user(w, in[i])) == TAG_PLAYER)
			teams |= 1u << TEAM(user(w, in[i]));
	if (teams == 1 || teams == 2)
		score(w, a->base[teams - 1], true);
}

/* the unit vector a player's yaw faces: (0, 0, 1) turned by yaw about y */
static fxg_vec3 facing(uint16_t yaw)
{
	fxg_angle t = (fxg_angle)yaw << 16;
	return fxg_v3(-fxg_sin(t), 0, fxg_cos(t));
}

static void fire(fxs_world *w, fxs_body_id player, uint32_t team, fxg_vec3 f)
{
	uint32_t ovf = 0;
	fxs_body_def d = fxs_default_body_def();
	d.position = fxg_v3_add(fxs_body_get_position(w, player), fxg_v3_add(fxg_v3_scale(num("0.6"), f, &ovf), vec("0", "0.2", "0"), &ovf), &ovf);
	d.linear_velocity = fxg_v3_scale(num("18"), f, &ovf);
	d.shape.radius = num("0.1");
	d.gravity_scale = 0;
	d.filter.category_bits = bullet_cat(team);
	d.filter.mask_bits = ~(team_cat(team) | CAT_BULLET0 | CAT_BULLET1 | CAT_ZONE);
	d.filter.group_index = -1; /* bullets never meet bullets, whatever the bits */
	d.enable_hit_events = true;
	d.enable_contact_events = true;
	d.enable_sensor_events = false;
	d.user_data = TAG_BULLET | team << 8;
	fxs_body_create(w, &d);
}

/* What lies within 3.5 m of the point 2 m in front of the player, crates
 * and enemies, is pushed away from it, harder the closer it is. */
static void blast(fxs_world *w, fxs_body_id player, uint32_t team, fxg_vec3 f)
{
	uint32_t ovf = 0;
	const fix16_t radius = num("3.5");
	fxg_vec3 c = fxg_v3_add(fxs_body_get_position(w, player), fxg_v3_scale(FXG_I(2), f, &ovf), &ovf);
	fxs_shape s;
	memset(&s, 0, sizeof s);
	s.type = FXS_SHAPE_SPHERE;
	s.radius = radius;
	fxs_transform xf = { c, fxg_q_identity() };
	fxs_query_filter q = { CAT_WORLD, CAT_CRATE | team_cat(!team) };
	fxs_body_id hit[16];
	uint32_t n = fxs_world_overlap_shape(w, &s, &xf, &q, hit, 16);
	for (uint32_t i = 0; i < n && i < 16; ++i) {
		fxg_vec3 p = fxs_body_get_position(w, hit[i]);
		fix16_t len;
		fxg_vec3 dir = fxg_v3_normalize(fxg_v3_sub(p, c, &ovf), &len, &ovf);
		fix16_t near = fxg_sub(radius, fxg_min(len, radius), &ovf); /* 0 .. radius */
		fix16_t strength = fxg_mul(FXG_I(200), near, &ovf);         /* up to 700 N s */
		fxg_vec3 up = fxg_v3_add(dir, vec("0", "0.5", "0"), &ovf);
		fxs_body_apply_linear_impulse(w, hit[i], fxg_v3_scale(strength, up, &ovf), p);
	}
}

static void drive(fxs_world *w, fxs_body_id id, const fxs_input *in)
{
	uint32_t u = user(w, id), team = TEAM(u);
	uint32_t fire_cd = (u >> 16) & 0xFFu, blast_cd = u >> 24;
	fire_cd -= fire_cd > 0, blast_cd -= blast_cd > 0;
	uint32_t ovf = 0;
	/* the stick sets the horizontal velocity: full deflection 5 m/s */
	int32_t sx = in->move_x < -32767 ? -32767 : in->move_x, sz = in->move_z < -32767 ? -32767 : in->move_z;
	fxg_vec3 v = fxs_body_get_linear_velocity(w, id);
	fxg_vec3 nv = fxg_v3((fix16_t)(sx * 10), v.y, (fix16_t)(sz * 10)); /* 32767 * 10 = 5.0 m/s */
	if ((in->buttons & FXS_BUTTON_JUMP) && v.y < FXG_ONE / 4 && v.y > -FXG_ONE / 4)
		nv.y = fxg_add(nv.y, FXG_I(5), &ovf);
	if (nv.x != v.x || nv.y != v.y || nv.z != v.z)
		fxs_body_set_linear_velocity(w, id, nv);
	fxg_vec3 f = facing(in->yaw);
	if ((in->buttons & FXS_BUTTON_FIRE) && fire_cd == 0) {
		fire(w, id, team, f);
		fire_cd = FIRE_COOLDOWN;
	}
	if ((in->buttons & FXS_BUTTON_USE) && blast_cd == 0) {
		blast(w, id, team, f);
		blast_cd = BLAST_COOLDOWN;
	}
	uint32_t nu = (u & 0xFFFFu) | fire_cd << 16 | blast_cd << 24;
	if (nu != u)
		fxs_body_set_user_data(w, id, nu);
}

void fxs_scene_arena_inputs(fxs_world *w, const fxs_input *inputs, uint32_t players, uint64_t tick)
{
	arena a;
	find(w, &a);
	bool dead[MAX_BULLETS] = { false };
	score_hits(w, &a, dead);
	score_zone(w, &a, tick);
	/* bullets age and end: after a hit, after BULLET_LIFE ticks, or lost */
	for (uint32_t k = 0; k < a.bullets; ++k) {
		uint32_t u = user(w, a.bullet[k]), age = (u >> 16) + 1;
		if (dead[k] || age > BULLET_LIFE || fxs_body_get_position(w, a.bullet[k]).y < -FXG_I(2))
			fxs_body_destroy(w, a.bullet[k]);
		else
			fxs_body_set_user_data(w, a.bullet[k], (u & 0xFFFFu) | age << 16);
	}
	for (uint32_t p = 0; p < players && p < FXS_ARENA_PLAYERS; ++p)
		if (fxs_body_is_valid(w, a.player[p]))
			drive(w, a.player[p], &inputs[p]);
}

/* ---- the scripted players ----
 * Index 0 of each team runs for the zone, index 1 keeps 6 m off the
 * nearest enemy on its own side; both aim at the nearest enemy and fire
 * whenever they may, blast now and then, jump now and then. */

static int64_t dist2(fxg_vec3 a, fxg_vec3 b)
{
	int64_t dx = (int64_t)a.x - b.x, dz = (int64_t)a.z - b.z;
	return dx * dx + dz * dz;
}

void fxs_scene_arena_script(const fxs_world *w, uint64_t tick, uint32_t players, fxs_input out[FXS_MAX_PLAYERS])
{
	for (uint32_t p = 0; p < FXS_MAX_PLAYERS; ++p)
		out[p] = fxs_input_neutral();
	arena a;
	find(w, &a);
	for (uint32_t p = 0; p < players && p < FXS_ARENA_PLAYERS; ++p) {
		if (!fxs_body_is_valid(w, a.player[p]))
			continue;
		uint32_t team = p / 2;
		fxg_vec3 me = fxs_body_get_position(w, a.player[p]);
		fxs_body_id e0 = a.player[(1 - team) * 2], e1 = a.player[(1 - team) * 2 + 1];
		fxg_vec3 enemy = fxs_body_get_position(w, dist2(me, fxs_body_get_position(w, e0)) <= dist2(me, fxs_body_get_position(w, e1)) ? e0 : e1);
		fxg_vec3 goal = fxg_v3_zero();
		if (p % 2 == 1)
			goal = fxg_v3(enemy.x + (team ? FXG_I(6) : -FXG_I(6)), 0, enemy.z);
		int64_t dx = (int64_t)goal.x - me.x, dz = (int64_t)goal.z - me.z;
		/* offsets within the arena: below 2^22 raw, the squares fit */
		int64_t m = (int64_t)fxg_isqrt64_round((uint64_t)(dx * dx + dz * dz));
		if (m > FXG_HALF) {
			out[p].move_x = (int16_t)(dx * 32767 / m);
			out[p].move_z = (int16_t)(dz * 32767 / m);
		}
		/* aim: facing() of yaw is (-sin, 0, cos), so yaw = atan2(-dx, dz) */
		int64_t ax = (int64_t)enemy.x - me.x, az = (int64_t)enemy.z - me.z;
		out[p].yaw = (uint16_t)(fxg_atan2((fix16_t)-ax, (fix16_t)az) >> 16);
		out[p].buttons = FXS_BUTTON_FIRE;
		if ((tick + 37 * p) % 120 == 0)
			out[p].buttons |= FXS_BUTTON_USE;
		if ((tick + 11 * p) % 97 == 0)
			out[p].buttons |= FXS_BUTTON_JUMP;
	}
}
