/* The school (seed 004's setting): a two-storey school building as one static
 * triangle mesh with thick faces, four players walking through it as
 * characters, and boxes they push around.
 *
 * The building, 24 x 12 m, storeys 3.5 m: a corridor along x (z 5..7) with a
 * classroom on each side at each end (four per floor), doors between
 * corridor and rooms, a west entrance at the corridor, and a straight stair
 * of 14 steps (0.25 m rise, 0.43 m run) in the corridor's east half rising to
 * a landing that opens into the two east classrooms upstairs. Everything is
 * made of axis-aligned boxes, each a closed piece of the one mesh (walls
 * 0.15-0.3 m thick: their thick faces are clamped to half the thickness).
 *
 * Scripted inputs (`fixstep record school --scripted`): each player follows
 * a route of waypoints, stick towards the next one: player 0 into the
 * south-west room and through its crates, player 1 up the stairs into the
 * south-east room upstairs, player 2 into the north-west room, player 3 up
 * the stairs into the north-east room upstairs (two lanes in the corridor). */
#include "scenes/scenes.h"

#include "fixstep/character.h"
#include "fxg_trig.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BOXES 96

typedef struct builder {
	fxg_vec3 v[MAX_BOXES * 8];
	uint32_t t[MAX_BOXES * 36];
	uint32_t nv, nt;
} builder;

/* an axis-aligned box lo..hi (metres, as decimals x 1000) as 12 outward triangles */
static void box(builder *b, int x0, int y0, int z0, int x1, int y1, int z1)
{
	static const uint32_t tris[36] = { 0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
					   2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5 };
	if (b->nv / 8 >= MAX_BOXES)
		abort(); /* a scene definition bug */
	uint32_t base = b->nv;
	for (int k = 0; k < 8; ++k)
		b->v[b->nv++] = fxg_v3(FXG_RATIO(k & 1 ? x1 : x0, 1000), FXG_RATIO(k & 2 ? y1 : y0, 1000),
				       FXG_RATIO(k & 4 ? z1 : z0, 1000));
	for (int k = 0; k < 36; ++k)
		b->t[b->nt++] = base + tris[k];
}

/* a wall along x (z0..z1 thick) from x0 to x1, y0..y1, with door openings
 * [dx, dx + w) of height h above y0 */
static void wall_x(builder *b, int x0, int x1, int z0, int z1, int y0, int y1, const int *doors, int ndoors, int dw,
		   int dh)
{
	int x = x0;
	for (int i = 0; i <= ndoors; ++i) {
		int end = i < ndoors ? doors[i] : x1;
		if (end > x)
			box(b, x, y0, z0, end, y1, z1);
		if (i < ndoors) {
			box(b, doors[i], y0 + dh, z0, doors[i] + dw, y1, z1); /* lintel */
			x = doors[i] + dw;
		}
	}
}

/* the same along z (x0..x1 thick) */
static void wall_z(builder *b, int z0, int z1, int x0, int x1, int y0, int y1, const int *doors, int ndoors, int dw,
		   int dh)
{
	int z = z0;
	for (int i = 0; i <= ndoors; ++i) {
		int end = i < ndoors ? doors[i] : z1;
		if (end > z)
			box(b, x0, y0, z, x1, y1, end);
		if (i < ndoors) {
			box(b, x0, y0 + dh, doors[i], x1, y1, doors[i] + dw);
			z = doors[i] + dw;
		}
	}
}

static void build_school(builder *b)
{
	memset(b, 0, sizeof *b);
	/* the ground (a yard around the building) */
	box(b, -10000, -500, -10000, 34000, 0, 22000);
	/* upper floor slab (3.3..3.5) with the stairwell open over x 15..21.5 in the corridor */
	box(b, 0, 3300, 0, 24000, 3500, 5000);
	box(b, 0, 3300, 7000, 24000, 3500, 12000);
	box(b, 0, 3300, 5000, 15000, 3500, 7000);
	box(b, 21500, 3300, 5000, 24000, 3500, 7000);
	/* roof */
	box(b, 0, 6800, 0, 24000, 7000, 12000);
	/* outer walls, full height; the west one has the entrance into the corridor */
	box(b, -300, 0, -300, 24300, 7000, 0);      /* south */
	box(b, -300, 0, 12000, 24300, 7000, 12300); /* north */
	box(b, 24000, 0, 0, 24300, 7000, 12000);    /* east */
	static const int entrance[1] = { 5300 };
	wall_z(b, 0, 12000, -300, 0, 0, 3300, entrance, 1, 1400, 2500); /* west, ground floor */
	box(b, -300, 3300, 0, 0, 7000, 12000);                          /* west, upper floor */
	/* corridor walls: rooms' doors at x 5..6.2 and 13..14.2; upstairs also
	 * the landing's doors at x 22..23.2 */
	static const int doors_ground[2] = { 5000, 13000 };
	static const int doors_upper[3] = { 5000, 13000, 22000 };
	wall_x(b, 0, 24000, 4850, 5000, 0, 3300, doors_ground, 2, 1200, 2300);
	wall_x(b, 0, 24000, 7000, 7150, 0, 3300, doors_ground, 2, 1200, 2300);
	wall_x(b, 0, 24000, 4850, 5000, 3500, 6800, doors_upper, 3, 1200, 2300);
	wall_x(b, 0, 24000, 7000, 7150, 3500, 6800, doors_upper, 3, 1200, 2300);
	/* room dividers at x = 12 */
	box(b, 11925, 0, 0, 12075, 3300, 4850);
	box(b, 11925, 0, 7150, 12075, 3300, 12000);
	box(b, 11925, 3500, 0, 12075, 6800, 4850);
	box(b, 11925, 3500, 7150, 12075, 6800, 12000);
	/* the stair: 14 steps in the corridor, x from 15, rising to the landing */
	for (int i = 0; i < 14; ++i)
		box(b, 15000 + 430 * i, 0, 5150, 21500, 250 * (i + 1), 6850);
}

static fxs_body_id add_crate(fxs_world *w, int x, int y, int z)
{
	fxs_body_def d = fxs_default_body_def();
	d.position = fxg_v3(FXG_RATIO(x, 1000), FXG_RATIO(y, 1000), FXG_RATIO(z, 1000));
	d.shape.type = FXS_SHAPE_BOX;
	d.shape.half_extents = fxg_v3(FXG_ONE / 4, FXG_ONE / 4, FXG_ONE / 4);
	d.density = FXG_I(100);
	return fxs_body_create(w, &d);
}

fxs_world *fxs_scene_school_create(void)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	builder *b = malloc(sizeof *b);
	if (!w || !b)
		abort();
	build_school(b);
	fxs_mesh_id mesh = fxs_world_create_mesh(w, b->v, b->nv, b->t, b->nt / 3, FXG_HALF);
	free(b);
	if (!mesh)
		abort();
	fxs_body_def md = fxs_default_body_def();
	md.type = FXS_BODY_STATIC;
	md.shape = fxs_mesh_shape(w, mesh);
	fxs_body_create(w, &md);
	/* four players outside the west entrance */
	for (int p = 0; p < 4; ++p) {
		fxs_character_def cd = fxs_default_character_def();
		cd.position = fxg_v3(-FXG_I(3) - FXG_I(p % 2), FXG_RATIO(9, 10), FXG_RATIO(5600 + 800 * (p / 2), 1000));
		if (!fxs_character_create(w, &cd))
			abort();
	}
	/* crates: three in each west room on the players' paths, two more in each,
	 * two in each east room upstairs */
	static const int crates[12][3] = {
		{ 5600, 250, 3000 }, { 4600, 250, 2000 }, { 6600, 250, 2000 }, /* south-west */
		{ 5600, 250, 9000 },
		{ 4600, 250, 10000 },
		{ 6600, 250, 10000 }, /* north-west */
		{ 22600, 3750, 9000 },
		{ 22000, 3750, 10000 }, /* north-east, upstairs */
		{ 22600, 3750, 3000 },
		{ 22000, 3750, 2000 }, /* south-east, upstairs */
		{ 9000, 250, 2500 },
		{ 9000, 250, 9500 }, /* west rooms, east halves */
	};
	for (int i = 0; i < 12; ++i)
		add_crate(w, crates[i][0], crates[i][1], crates[i][2]);
	return w;
}

/* Player p moves character p at up to 3 m/s: the stick (clamped to +-32767)
 * turned by the yaw (binary angle, 65536 per turn; 0 = sticks along world
 * x and z); JUMP jumps. Safe for any input bits. */
void fxs_scene_school_inputs(fxs_world *w, const fxs_input *inputs, uint32_t players, uint64_t tick)
{
	(void)tick;
	uint32_t n = fxs_world_character_count(w);
	for (uint32_t p = 0; p < players && p < n; ++p) {
		const fxs_input *in = &inputs[p];
		int32_t sx = in->move_x < -32767 ? -32767 : in->move_x, sz = in->move_z < -32767 ? -32767 : in->move_z;
		/* stick in [-1, 1] x 3 m/s: raw * 3 * 65536 / 32767 ~ raw * 6 */
		fix16_t vx = sx * 6, vz = sz * 6;
		fxg_angle a = (fxg_angle)in->yaw << 16;
		fix16_t c = fxg_cos(a), s = fxg_sin(a);
		uint32_t ovf = 0;
		fxg_vec3 v = fxg_v3(fxg_sub(fxg_mul(c, vx, &ovf), fxg_mul(s, vz, &ovf), &ovf), 0,
				    fxg_add(fxg_mul(s, vx, &ovf), fxg_mul(c, vz, &ovf), &ovf));
		fxs_character_set_move(w, p + 1, v, (in->buttons & FXS_BUTTON_JUMP) != 0);
	}
}

/* ---- the scripted players ---- */

typedef struct route {
	int n;
	int wp[12][2]; /* x, z in mm */
} route;

static const route routes[4] = {
	/* 0: into the corridor (south lane), the south-west room, through its crates */
	{ 7, { { -1000, 5700 }, { 3000, 5700 }, { 5600, 5700 }, { 5600, 4000 }, { 5600, 1500 }, { 2000, 1500 }, { 2000, 4000 } } },
	/* 1: up the stairs (south lane), through the landing's south door, into the south-east room */
	{ 8, { { -1000, 5700 }, { 14000, 5700 }, { 21800, 5700 }, { 22600, 5700 }, { 22600, 4000 }, { 22600, 1500 }, { 18000, 1500 }, { 18000, 3500 } } },
	/* 2: into the north-west room (north lane), through its crates */
	{ 7, { { -1000, 6300 }, { 3000, 6300 }, { 5600, 6300 }, { 5600, 8000 }, { 5600, 10500 }, { 2000, 10500 }, { 2000, 8000 } } },
	/* 3: up the stairs (north lane), through the landing's north door, into the north-east room */
	{ 8, { { -1000, 6300 }, { 14000, 6300 }, { 21800, 6300 }, { 22600, 6300 }, { 22600, 8000 }, { 22600, 10500 }, { 18000, 10500 }, { 18000, 8500 } } },
};

/* The bot keeps which waypoint each player is heading for; a recording runs
 * from tick 1 in order, so tick 1 starts it over. */
static int next_wp[FXS_MAX_PLAYERS];

void fxs_scene_school_script(const fxs_world *w, uint64_t tick, uint32_t players, fxs_input out[FXS_MAX_PLAYERS])
{
	if (tick <= 1)
		memset(next_wp, 0, sizeof next_wp);
	for (uint32_t p = 0; p < FXS_MAX_PLAYERS; ++p)
		out[p] = fxs_input_neutral();
	uint32_t n = fxs_world_character_count(w);
	for (uint32_t p = 0; p < players && p < n && p < 4; ++p) {
		const route *r = &routes[p];
		fxg_vec3 pos = fxs_character_get_position(w, p + 1);
		while (next_wp[p] < r->n) {
			int64_t dx = (int64_t)FXG_RATIO(r->wp[next_wp[p]][0], 1000) - pos.x;
			int64_t dz = (int64_t)FXG_RATIO(r->wp[next_wp[p]][1], 1000) - pos.z;
			if (dx * dx + dz * dz > (int64_t)FXG_RATIO(4, 10) * FXG_RATIO(4, 10))
				break;
			next_wp[p]++;
		}
		if (next_wp[p] >= r->n)
			continue; /* arrived: stand still */
		int64_t dx = (int64_t)FXG_RATIO(r->wp[next_wp[p]][0], 1000) - pos.x;
		int64_t dz = (int64_t)FXG_RATIO(r->wp[next_wp[p]][1], 1000) - pos.z;
		/* the stick along (dx, dz), full deflection (raw offsets below 2^22:
		 * the squares fit) */
		int64_t m = (int64_t)fxg_isqrt64_round((uint64_t)(dx * dx + dz * dz));
		if (m == 0)
			continue;
		out[p].move_x = (int16_t)(dx * 32767 / m);
		out[p].move_z = (int16_t)(dz * 32767 / m);
	}
}
