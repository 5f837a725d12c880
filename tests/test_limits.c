/* Worlds at every documented limit, stepped: the world definition's ranges
 * (fxs_world_def_validate), body definitions (sizes 1/1024 to 1000 m,
 * densities up to 30,000, speeds to the edge of Q16.16, any non-zero
 * quaternion), joints of every type with anchors at +-1000 m and every
 * number at its bound, meshes to +-4096 m, hulls to +-8 m, compounds of 16
 * children of 50 m at 100 m, 64 characters moving at 100 m/s, casts of
 * 10 km, the counts (max_bodies, bodies piled on one point), forces and
 * impulses of any int32. Each world runs with the direct solvers on (every
 * row count up to 1024) and off, and its snapshot is restored with flipped
 * bits (checksum fixed) and stepped on.
 *
 * What is asserted here: every step returns FXS_OK (saturation is allowed
 * and counted: these worlds are outside the supported ranges on purpose)
 * and the state every step leaves restores from its snapshot to the same
 * hash (a state the reader refused could not be replayed or rolled back). What
 * it is for: `make sanitize` runs it under UBSan, which stops at the first
 * signed overflow, bad shift or other undefined behaviour. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "fixstep/character.h"
#include "fixstep/fixstep.h"
#include "fixstep/query.h"
#include "test.h"

/* steps per definition: 64 sub-steps and 16 relax iterations (0), 1/4096 s
 * steps (1), and every row count up to 1024 in the boxed LCP (2), whose
 * pivots at mass ratios of 10^9 can cost seconds a step (fewer for some
 * worlds: limit_world.steps) */
static const int steps_of[3] = { 10, 60, 3 };
#define BIG FXG_I(1000)
#define TINY ((fix16_t)64) /* 1/1024 m, the smallest shape dimension */

typedef void (*limit_build)(fxs_world *w);

static fxs_body_id body(fxs_world *w, fxs_body_type type, int32_t shape, fix16_t size, fxg_vec3 p, fix16_t density)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.shape.type = shape;
	d.shape.radius = size;
	d.shape.half_height = size;
	d.shape.half_extents = fxg_v3(size, size, size);
	d.position = p;
	d.density = density;
	return fxs_body_create(w, &d);
}

static fxs_body_id ground(fxs_world *w, fix16_t y)
{
	return body(w, FXS_BODY_STATIC, FXS_SHAPE_BOX, BIG, fxg_v3(0, y - BIG, 0), FXG_ONE);
}

/* ---- the worlds ---- */

/* The smallest and largest of every primitive, at the lightest and
 * heaviest densities, dropped on each other and on a 2 km ground. */
static void sizes_and_densities(fxs_world *w)
{
	ground(w, 0);
	const fix16_t sizes[] = { TINY, BIG };
	const fix16_t dens[] = { 1, FXG_I(30000) };
	int k = 0;
	for (int shape = FXS_SHAPE_SPHERE; shape <= FXS_SHAPE_CAPSULE; ++shape)
		for (int s = 0; s < 2; ++s)
			for (int d = 0; d < 2; ++d, ++k)
				body(w, FXS_BODY_DYNAMIC, shape, sizes[s], fxg_v3(FXG_I(k % 3), sizes[s] + FXG_I(k), 0), dens[d]);
	/* a tiny, light sphere under a huge, heavy box */
	body(w, FXS_BODY_DYNAMIC, FXS_SHAPE_SPHERE, TINY, fxg_v3(FXG_I(3000), TINY, 0), 1);
	body(w, FXS_BODY_DYNAMIC, FXS_SHAPE_BOX, BIG, fxg_v3(FXG_I(3000), BIG + 2 * TINY, 0), FXG_I(30000));
}

/* Bodies at the edge of the Q16.16 range, at full speed outwards and
 * inwards, spinning as fast as a fix16_t allows, with the largest forces,
 * torques and impulses. */
static void edges_and_speeds(fxs_world *w)
{
	const fix16_t e = FXG_MAX, n = FXG_MIN;
	const fxg_vec3 corners[] = { { e, e, e }, { n, n, n }, { e, n, 0 }, { 0, 0, 0 }, { n, e, e } };
	for (size_t i = 0; i < sizeof corners / sizeof corners[0]; ++i)
		for (int shape = FXS_SHAPE_SPHERE; shape <= FXS_SHAPE_CAPSULE; ++shape) {
			fxs_body_def d = fxs_default_body_def();
			d.shape.type = shape;
			d.shape.radius = d.shape.half_height = BIG;
			d.shape.half_extents = fxg_v3(BIG, TINY, BIG);
			d.position = corners[i];
			d.rotation = i % 2 ? fxg_q(FXG_MAX, FXG_MIN, FXG_MAX, FXG_MIN) : fxg_q(1, 0, 0, 0);
			d.linear_velocity = i % 2 ? fxg_v3(e, n, e) : fxg_v3(n, e, n);
			d.angular_velocity = fxg_v3(e, n, e);
			d.linear_damping = d.angular_damping = i == 2 ? BIG : 0;
			d.gravity_scale = i % 2 ? FXG_I(100) : FXG_I(-100);
			d.friction = FXG_I(100);
			d.restitution = FXG_ONE;
			d.density = FXG_I(30000);
			fxs_body_id b = fxs_body_create(w, &d);
			fxs_body_apply_force(w, b, fxg_v3(e, n, e), corners[(i + 1) % 5]);
			fxs_body_apply_torque(w, b, fxg_v3(n, e, n));
			fxs_body_apply_linear_impulse(w, b, fxg_v3(e, e, n), corners[(i + 2) % 5]);
			fxs_body_apply_angular_impulse(w, b, fxg_v3(e, n, n));
		}
	/* two heavy boxes meeting head on at the largest speed */
	fxs_body_def d = fxs_default_body_def();
	d.shape.type = FXS_SHAPE_BOX;
	d.shape.half_extents = fxg_v3(BIG, BIG, BIG);
	d.density = FXG_I(30000);
	d.linear_velocity = fxg_v3(FXG_MAX, 0, 0);
	d.position = fxg_v3(FXG_I(-2100), FXG_I(20000), 0);
	fxs_body_create(w, &d);
	d.linear_velocity = fxg_v3(FXG_MIN, 0, 0);
	d.position = fxg_v3(FXG_I(2100), FXG_I(20000), 0);
	fxs_body_create(w, &d);
}

static fxs_joint_id joint(fxs_world *w, int type, fxs_body_id a, fxs_body_id b, fxg_vec3 la, fxg_vec3 lb, int variant)
{
	fxs_joint_def j = type == FXS_JOINT_BALL ? fxs_default_ball_joint_def()
		: type == FXS_JOINT_HINGE        ? fxs_default_hinge_joint_def()
		: type == FXS_JOINT_FIXED        ? fxs_default_fixed_joint_def()
		: type == FXS_JOINT_DISTANCE     ? fxs_default_distance_joint_def()
						 : fxs_default_prismatic_joint_def();
	j.body_a = a, j.body_b = b;
	j.local_anchor_a = la, j.local_anchor_b = lb;
	j.local_axis_a = variant ? fxg_v3(BIG, -BIG, BIG) : fxg_v3(0, 0, TINY);
	j.hertz = variant ? BIG : 1;
	j.damping_ratio = variant ? BIG : 0;
	j.enable_limit = true;
	if (type == FXS_JOINT_HINGE)
		j.lower = variant ? -205887 : 205887, j.upper = 205887; /* +-pi */
	else if (type == FXS_JOINT_DISTANCE)
		j.lower = 0, j.upper = variant ? BIG : 0, j.length = variant ? BIG : 0;
	else
		j.lower = variant ? -BIG : BIG, j.upper = BIG;
	j.enable_motor = true;
	j.motor_speed = variant ? -BIG : BIG;
	j.max_motor_force = FXG_MAX;
	j.enable_spring = variant;
	j.spring_hertz = variant ? BIG : 0;
	j.spring_damping_ratio = variant ? BIG : 0;
	return fxs_joint_create(w, &j);
}

/* Chains of every joint type with anchors at +-1000 m on every axis, stiff
 * and soft, limits at their bounds, motors at full speed and force; one of
 * each pinned to a static body, one between two heavy spinning bodies. */
static void joints_far_anchors(fxs_world *w)
{
	const fxg_vec3 far[] = { { BIG, BIG, BIG }, { -BIG, -BIG, -BIG }, { BIG, 0, -BIG }, { 0, -BIG, 0 } };
	fxs_body_id pin = body(w, FXS_BODY_STATIC, FXS_SHAPE_SPHERE, FXG_ONE, fxg_v3(0, FXG_I(100), 0), FXG_ONE);
	for (int type = 0; type < FXS_JOINT_TYPE_COUNT; ++type)
		for (int variant = 0; variant < 2; ++variant) {
			fxs_body_id prev = pin;
			for (int k = 0; k < 6; ++k) {
				fix16_t size = k % 2 ? TINY : FXG_I(10);
				fxs_body_id b = body(w, FXS_BODY_DYNAMIC, k % 3, size,
						     fxg_v3(FXG_I(400 * type + 50 * k), FXG_I(100 - 20 * variant), 0),
						     k % 2 ? 1 : FXG_I(30000));
				fxs_body_set_angular_velocity(w, b, fxg_v3(FXG_MAX, FXG_MIN, FXG_MAX));
				fxs_joint_id j = joint(w, type, prev, b, far[k % 4], far[(k + 1) % 4], variant);
				CHECKF(j.index1 != 0, "joint type %d variant %d link %d refused", type, variant, k);
				prev = b;
			}
		}
}

/* The same chains solved as one boxed LCP with contacts: ball joints with
 * anchors at 1000 m hanging onto a ground (direct_contact_rows 1024). */
static void ball_chain_on_ground(fxs_world *w)
{
	ground(w, 0);
	fxs_body_id prev = body(w, FXS_BODY_DYNAMIC, FXS_SHAPE_BOX, FXG_ONE, fxg_v3(0, FXG_ONE, 0), FXG_I(30000));
	for (int k = 1; k < 12; ++k) {
		fxs_body_id b = body(w, FXS_BODY_DYNAMIC, FXS_SHAPE_BOX, FXG_ONE, fxg_v3(FXG_I(3 * k), FXG_ONE, 0),
				     k % 2 ? 1 : FXG_I(30000));
		CHECK(joint(w, FXS_JOINT_BALL, prev, b, fxg_v3(BIG, 0, 0), fxg_v3(-BIG, BIG, 0), k % 2).index1 != 0);
		prev = b;
	}
}

/* A mesh with vertices at +-4096 m (huge, thin and sliver triangles), a
 * heightfield of 4097 x 2 points with cliffs of 8 km, and fast bodies. */
static void meshes_at_limits(fxs_world *w)
{
	const fix16_t M = FXG_I(4096);
	const fxg_vec3 v[] = { { -M, 0, -M }, { M, 0, -M }, { M, 0, M }, { -M, 0, M }, { 0, M, 0 }, { 0, -M, 0 }, { 1, 0, 0 }, { 0, 0, 1 } };
	const uint32_t t[] = { 0, 2, 1, 0, 3, 2, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4, 0, 6, 7, 5, 6, 7 };
	fxs_mesh_id m = fxs_world_create_mesh(w, v, 8, t, 8, BIG);
	CHECK(m != 0);
	fxs_body_def d = fxs_default_body_def();
	d.type = FXS_BODY_STATIC;
	d.shape = fxs_mesh_shape(w, m);
	fxs_body_create(w, &d);
	fix16_t heights[4097 * 2];
	for (int i = 0; i < 4097 * 2; ++i)
		heights[i] = i % 3 ? M : -M;
	/* 4097 x 2 points 1 m apart: x from 0 to 4096 m */
	fxs_mesh_id hf = fxs_world_create_heightfield(w, heights, 4097, 2, FXG_ONE, FXS_QUERY_TOLERANCE);
	CHECK(hf != 0);
	d.shape = fxs_mesh_shape(w, hf);
	d.position = fxg_v3(FXG_I(-4000), FXG_I(-100), FXG_I(-4000));
	fxs_body_create(w, &d);
	for (int k = 0; k < 12; ++k) {
		fxs_body_id b = body(w, FXS_BODY_DYNAMIC, k % 3, k % 2 ? TINY : FXG_I(100),
				     fxg_v3(FXG_I(300 * k - 1800), FXG_I(200), FXG_I(20 * k)), k % 2 ? 1 : FXG_I(30000));
		fxs_body_set_linear_velocity(w, b, fxg_v3(FXG_I(100 * k), FXG_MIN, FXG_I(-50 * k)));
	}
}

/* Hulls of 64 points at +-8 m and of 4 points on the 1/256 m grid, and
 * compounds of 16 children of 50 m up to 100 m from their origin, heavy and
 * light, colliding with each other. */
static void hulls_and_compounds(fxs_world *w)
{
	ground(w, 0);
	fxg_vec3 pts[64];
	for (int i = 0; i < 64; ++i) {
		int a = i * 37 % 64;
		pts[i] = fxg_v3((fix16_t)((a % 4) * 2 - 3) * FXG_I(8) / 3, (fix16_t)(((a / 4) % 4) * 2 - 3) * FXG_I(8) / 3,
				(fix16_t)((a / 16) * 2 - 3) * FXG_I(8) / 3);
	}
	fxs_hull_id big = fxs_world_create_hull(w, pts, 64, NULL);
	const fxg_vec3 tiny_pts[] = { { 0, 0, 0 }, { 256, 0, 0 }, { 0, 256, 0 }, { 0, 0, 256 } };
	fxs_hull_id tiny = fxs_world_create_hull(w, tiny_pts, 4, NULL);
	CHECK(big != 0 && tiny != 0);
	fxs_compound_child ch[FXS_COMPOUND_MAX_CHILDREN];
	for (int i = 0; i < FXS_COMPOUND_MAX_CHILDREN; ++i) {
		memset(&ch[i], 0, sizeof ch[i]);
		ch[i].shape.type = i % 4 == 3 ? FXS_SHAPE_HULL : i % 3;
		ch[i].shape.radius = ch[i].shape.half_height = i % 2 ? TINY : FXG_I(50);
		ch[i].shape.half_extents = fxg_v3(FXG_I(50), i % 2 ? TINY : FXG_I(50), FXG_I(50));
		if (ch[i].shape.type == FXS_SHAPE_HULL)
			ch[i].shape = fxs_hull_shape(w, i % 8 == 3 ? big : tiny);
		fix16_t off = (fix16_t)((i % 2) ? FXG_I(57) : -FXG_I(57)); /* |(57, 57, 57)| < 100 m */
		ch[i].xf.p = fxg_v3(off, (i / 2) % 2 ? off : -off, (i / 4) % 2 ? off : -off);
		ch[i].xf.q = fxg_q(0, 0, 0, FXG_ONE);
	}
	/* 16 children of 50 m, 100 m out, refuse (their inertia leaves the
	 * range): the largest that the world takes, halving the sizes */
	fxs_compound_id c = 0;
	for (int halve = 0; halve < 10 && !c; ++halve) {
		c = fxs_world_create_compound(w, ch, FXS_COMPOUND_MAX_CHILDREN, NULL);
		for (int i = 0; i < FXS_COMPOUND_MAX_CHILDREN && !c; ++i)
			if (ch[i].shape.type != FXS_SHAPE_HULL) {
				ch[i].shape.radius = ch[i].shape.radius > 2 * TINY ? ch[i].shape.radius / 2 : TINY;
				ch[i].shape.half_height = ch[i].shape.radius;
				ch[i].shape.half_extents.x = ch[i].shape.half_extents.z = ch[i].shape.radius;
			}
	}
	CHECK(c != 0);
	for (int k = 0; k < 6; ++k) {
		fxs_body_def d = fxs_default_body_def();
		d.shape = k < 2 ? fxs_compound_shape(w, c) : fxs_hull_shape(w, k % 2 ? big : tiny);
		d.position = fxg_v3(FXG_I(30 * k), FXG_I(200 + 250 * k), 0);
		d.density = k % 2 ? 1 : FXG_I(30000);
		d.angular_velocity = fxg_v3(FXG_MAX, 0, FXG_MIN);
		d.linear_velocity = fxg_v3(0, FXG_MIN, 0);
		CHECK(fxs_body_create(w, &d).index1 != 0);
	}
}

/* 64 characters of the largest size, stepping and jumping at full speed
 * into each other, a wall and a pile of boxes. */
static fxs_character_id chars[FXS_MAX_CHARACTERS];
static void characters_at_limits(fxs_world *w)
{
	ground(w, 0);
	body(w, FXS_BODY_STATIC, FXS_SHAPE_BOX, FXG_I(10), fxg_v3(FXG_I(100), FXG_I(10), 0), FXG_ONE);
	for (int k = 0; k < 8; ++k)
		body(w, FXS_BODY_DYNAMIC, FXS_SHAPE_BOX, FXG_ONE, fxg_v3(FXG_I(50), FXG_I(1 + 2 * k), 0), k % 2 ? 1 : FXG_I(30000));
	for (int i = 0; i < FXS_MAX_CHARACTERS; ++i) {
		fxs_character_def d = fxs_default_character_def();
		d.radius = i % 2 ? FXG_I(10) : FXG_RATIO(5, 100);
		d.half_height = i % 3 ? FXG_I(10) : TINY; /* 0 is documented, but a capsule needs 1/1024 m */
		d.step_height = FXG_I(2);
		d.max_slope_cos = i % 2 ? FXG_ONE : 0;
		d.jump_speed = FXG_I(100);
		d.density = i % 2 ? 1 : FXG_I(30000);
		d.position = fxg_v3(FXG_I(25 * (i % 8)), FXG_I(30 + 25 * (i / 8)), 0);
		chars[i] = fxs_character_create(w, &d);
		CHECKF(chars[i] != 0, "character %d refused", i);
	}
	fxs_character_def one_more = fxs_default_character_def();
	CHECK(fxs_character_create(w, &one_more) == 0); /* the 65th */
}

static void characters_move(fxs_world *w, int step)
{
	for (int i = 0; i < FXS_MAX_CHARACTERS; ++i)
		fxs_character_set_move(w, chars[i], fxg_v3(i % 2 ? FXG_MAX : FXG_MIN, FXG_MAX, (step + i) % 3 ? FXG_I(100) : FXG_I(-100)),
				       (step + i) % 4 == 0);
}

/* The counts: a world of max_bodies refuses one more; 100 spheres and boxes
 * piled on one point (one island, every pair overlapping). */
static void counts_and_pile(fxs_world *w)
{
	ground(w, 0);
	for (int k = 0; k < 100; ++k)
		CHECK(body(w, FXS_BODY_DYNAMIC, k % 2 ? FXS_SHAPE_BOX : FXS_SHAPE_SPHERE, FXG_ONE, fxg_v3(0, FXG_I(2), 0),
			   k % 3 ? 1 : FXG_I(30000))
			      .index1 != 0);
	CHECK(body(w, FXS_BODY_DYNAMIC, FXS_SHAPE_SPHERE, FXG_ONE, fxg_v3(0, FXG_I(2), 0), FXG_ONE).index1 == 0);
}

/* ---- the world definitions ---- */

static fxs_world_def def_variant(int v)
{
	fxs_world_def d = fxs_default_world_def();
	d.max_bodies = 1u << 24;
	switch (v) {
	case 0: /* everything at its upper bound (but direct_contact_rows) */
		d.gravity = fxg_v3(BIG, -BIG, BIG);
		d.dt = FXG_ONE;
		d.substeps = 64;
		d.relax_iterations = 16;
		d.contact_hertz = d.contact_damping = d.contact_push_max = BIG;
		d.linear_slop = FXG_ONE;
		d.speculative_distance = FXG_I(10);
		d.restitution_threshold = BIG;
		d.linear_sleep_tolerance = d.angular_sleep_tolerance = FXG_MAX;
		d.time_to_sleep = BIG;
		d.direct_contact_rows = 0; /* the boxed LCP 64 x 17 times a step: minutes; definition 2 has it */
		break;
	case 1: /* at the lower bounds */
		d.gravity = fxg_v3(-BIG, BIG, -BIG);
		d.dt = 16;
		d.substeps = 1;
		d.relax_iterations = 0;
		d.contact_hertz = 1;
		d.contact_damping = d.contact_push_max = 0;
		d.linear_slop = d.speculative_distance = d.restitution_threshold = 0;
		d.linear_sleep_tolerance = d.angular_sleep_tolerance = d.time_to_sleep = 0;
		d.direct_joint_rows = d.direct_contact_rows = 0;
		break;
	default: /* defaults with every direct solver on at its largest */
		d.direct_joint_rows = d.direct_contact_rows = 1024;
		break;
	}
	return d;
}

typedef struct limit_world {
	const char *name;
	limit_build build;
	uint32_t max_bodies; /* 0: the definition's */
	int steps[3];        /* steps under each definition (0: steps_of) */
} limit_world;

static const limit_world worlds[] = {
	{ "sizes_and_densities", sizes_and_densities, 0, { 0, 0, 1 } },
	{ "edges_and_speeds", edges_and_speeds, 0, { 0 } },
	{ "joints_far_anchors", joints_far_anchors, 0, { 4, 0, 0 } },
	{ "ball_chain_on_ground", ball_chain_on_ground, 0, { 0, 0, 1 } },
	{ "meshes_at_limits", meshes_at_limits, 0, { 0 } },
	{ "hulls_and_compounds", hulls_and_compounds, 0, { 0 } },
	{ "characters_at_limits", characters_at_limits, 0, { 0, 0, 1 } },
	{ "counts_and_pile", counts_and_pile, 101, { 1, 0, 0 } },
};

/* Casts of 10 km through the world, rays and shapes at the largest sizes. */
static void casts(const fxs_world *w)
{
	const fix16_t L = FXS_QUERY_MAX_LENGTH / 2;
	fxs_cast_hit hit;
	const fxg_vec3 from[] = { { -L, 0, 0 }, { 0, L, 0 }, { -3535 * 65536, 3535 * 65536, -3535 * 65536 } };
	const fxg_vec3 to[] = { { L, 0, 0 }, { 0, -L, 0 }, { 3535 * 65536, -3535 * 65536, 3535 * 65536 } };
	for (int i = 0; i < 3; ++i) {
		fxs_world_ray_cast(w, from[i], to[i], fxs_null_body, &hit);
		fxs_shape s = { 0 };
		s.type = i;
		s.radius = s.half_height = BIG;
		s.half_extents = fxg_v3(BIG, TINY, BIG);
		fxs_world_shape_cast(w, &s, fxg_q(FXG_MAX, 0, FXG_MIN, 1), from[i], to[i], fxs_null_body, &hit);
	}
}

/* Build world k under definition variant v and run it; its final hash. */
static uint64_t run(int k, int v, bool *ok, uint8_t **snap, size_t *snap_len)
{
	fxs_world_def def = def_variant(v);
	if (worlds[k].max_bodies)
		def.max_bodies = worlds[k].max_bodies;
	*ok = false;
	if (fxs_world_def_validate(&def) != FXS_OK)
		return 0;
	fxs_world *w = fxs_world_create(&def);
	if (!w)
		return 0;
	worlds[k].build(w);
	uint64_t h = 0;
	bool good = !test_failed;
	if (!good) {
		fxs_world_destroy(w);
		return 0;
	}
	int steps = worlds[k].steps[v] ? worlds[k].steps[v] : steps_of[v];
	for (int s = 0; s < steps && good; ++s) {
		if (worlds[k].build == characters_at_limits)
			characters_move(w, s);
		if (s % 20 == 0)
			casts(w);
		good = fxs_world_step(w) == FXS_OK;
	}
	if (good) {
		h = fxs_world_hash(w);
		*snap_len = fxs_world_snapshot_size(w);
		*snap = malloc(*snap_len);
		good = *snap && fxs_world_snapshot_save(w, *snap, *snap_len, snap_len) == FXS_OK;
	}
	fxs_world_destroy(w);
	*ok = good;
	return h;
}

/* A snapshot with one field's bits flipped and its checksum fixed: it
 * restores (then it steps) or is refused, never anything else. */
static void flipped_snapshots(const uint8_t *snap, size_t len, uint64_t seed, bool step)
{
	uint8_t *m = malloc(len);
	int restored = 0;
	for (int round = 0; round < (test_quick ? 4 : 12); ++round) {
		memcpy(m, snap, len);
		size_t at = 24 + (size_t)(test_rng_next(&seed) % (len - 32));
		m[at] ^= (uint8_t)(1u << (test_rng_next(&seed) % 8));
		uint64_t sum = XXH3_64bits(m, len - 8);
		for (int i = 0; i < 8; ++i)
			m[len - 8 + i] = (uint8_t)(sum >> (8 * i));
		fxs_result e;
		fxs_world *w = fxs_world_create_from_snapshot(m, len, &e);
		if (!w)
			continue;
		++restored;
		if (step)
			fxs_world_step(w);
		fxs_world_destroy(w);
	}
	free(m);
	(void)restored;
}

SLOW_TEST(limits_worlds_step_without_undefined_behaviour)
{
	for (int k = 0; k < (int)(sizeof worlds / sizeof worlds[0]); ++k)
		for (int v = 0; v < 3; ++v) {
			/* LIMITS_ONLY=N: only world N / 3 under definition N % 3 (to debug one) */
			if (getenv("LIMITS_ONLY") && (atoi(getenv("LIMITS_ONLY")) != k * 3 + v))
				continue;
			clock_t t0 = clock();
			bool ok1;
			uint8_t *s1 = NULL;
			size_t l1 = 0;
			uint64_t h1 = run(k, v, &ok1, &s1, &l1);
			if (test_failed)
				return;
			CHECKF(ok1, "%s, definition %d: a step failed", worlds[k].name, v);
			fxs_result e;
			fxs_world *r = fxs_world_create_from_snapshot(s1, l1, &e);
			CHECKF(r && fxs_world_hash(r) == h1, "%s, definition %d: snapshot does not restore (%s)", worlds[k].name,
			       v, fxs_result_string(e));
			fxs_world_destroy(r);
			flipped_snapshots(s1, l1, (uint64_t)(k * 3 + v + 1), v != 2); /* (2: restored only, for time) */
			free(s1);
			printf("      %s, definition %d: %.0f ms\n", worlds[k].name, v, 1000.0 * (double)(clock() - t0) / CLOCKS_PER_SEC);
			fflush(stdout);
		}
}
