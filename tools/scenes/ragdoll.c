/* ragdoll: four humanoid ragdolls of 11 bodies each (a box pelvis and
 * torso, a sphere head, capsule limbs) on spherical joints with swing cones
 * and twist limits (neck, waist, shoulders, hips) and limited hinges
 * (elbows, knees), laid over at four angles on the landing of a flight of
 * stairs and pushed down it: they tumble down five steps onto the floor
 * and come to rest in a heap. Every joint of the ragdoll on every kind of
 * contact its limbs make with boxes and each other; the limbs have a
 * rolling resistance of 0.1 (without, a ragdoll rolled on along the floor
 * for seconds). */
#include "scenes.h"
#include "fixstep/joint.h"

#define D(s) fxs_dec(s)
#define V(x, y, z) fxg_v3(D(x), D(y), D(z))

/* a limb in the standing pose (pelvis at 1 m, facing +z): its shape and
 * centre, metres */
typedef struct limb {
	fxs_shape_type type;
	const char *x, *y, *a, *b, *c; /* centre x, y (z 0); half extents, or radius (and half height) */
} limb;

enum { PELVIS, TORSO, HEAD, UARM_L, UARM_R, FARM_L, FARM_R, THIGH_L, THIGH_R, SHIN_L, SHIN_R, LIMBS };

static const limb limbs[LIMBS] = {
	[PELVIS] = { FXS_SHAPE_BOX, "0", "1", "0.15", "0.1", "0.1" },
	[TORSO] = { FXS_SHAPE_BOX, "0", "1.35", "0.17", "0.2", "0.1" },
	[HEAD] = { FXS_SHAPE_SPHERE, "0", "1.72", "0.11", "0", "0" },
	[UARM_L] = { FXS_SHAPE_CAPSULE, "-0.25", "1.38", "0.05", "0.09", "0" },
	[UARM_R] = { FXS_SHAPE_CAPSULE, "0.25", "1.38", "0.05", "0.09", "0" },
	[FARM_L] = { FXS_SHAPE_CAPSULE, "-0.25", "1.1", "0.045", "0.09", "0" },
	[FARM_R] = { FXS_SHAPE_CAPSULE, "0.25", "1.1", "0.045", "0.09", "0" },
	[THIGH_L] = { FXS_SHAPE_CAPSULE, "-0.1", "0.72", "0.07", "0.13", "0" },
	[THIGH_R] = { FXS_SHAPE_CAPSULE, "0.1", "0.72", "0.07", "0.13", "0" },
	[SHIN_L] = { FXS_SHAPE_CAPSULE, "-0.1", "0.31", "0.06", "0.14", "0" },
	[SHIN_R] = { FXS_SHAPE_CAPSULE, "0.1", "0.31", "0.06", "0.14", "0" },
};

/* a joint: its bodies and anchor (standing pose); a hinge about x or a
 * spherical joint whose twist axis is y (up, or down for the limbs that
 * hang); limits in degrees (the cone, and the twist or hinge range) */
typedef struct rjoint {
	int a, b;
	const char *x, *y;
	int hinge;
	int axis_y; /* spherical: +1 or -1 */
	int cone, lo, hi;
} rjoint;

#define RJOINTS 10
static const rjoint rjoints[RJOINTS] = {
	{ PELVIS, TORSO, "0", "1.1", 0, 1, 25, -20, 20 },      { TORSO, HEAD, "0", "1.58", 0, 1, 40, -45, 45 },
	{ TORSO, UARM_L, "-0.25", "1.52", 0, -1, 80, -45, 45 }, { TORSO, UARM_R, "0.25", "1.52", 0, -1, 80, -45, 45 },
	{ UARM_L, FARM_L, "-0.25", "1.24", 1, 0, 0, 0, 130 },   { UARM_R, FARM_R, "0.25", "1.24", 1, 0, 0, 0, 130 },
	{ PELVIS, THIGH_L, "-0.1", "0.92", 0, -1, 60, -30, 30 }, { PELVIS, THIGH_R, "0.1", "0.92", 0, -1, 60, -30, 30 },
	{ THIGH_L, SHIN_L, "-0.1", "0.52", 1, 0, 0, -130, 0 },  { THIGH_R, SHIN_R, "0.1", "0.52", 1, 0, 0, -130, 0 },
};

/* degrees to radians, exactly as the integer products allow: d pi / 180 */
static fix16_t deg(int d)
{
	return (fix16_t)(((int64_t)d * 205887 + (d < 0 ? -90 : 90)) / 180); /* pi = 205887 raw */
}

/* one ragdoll: the standing pose turned by q about the origin (its feet),
 * then moved to `at`, moving at v */
static void add_ragdoll(fxs_world *w, fxg_quat q, fxg_vec3 at, fxg_vec3 v)
{
	uint32_t ovf = 0;
	fxs_body_id ids[LIMBS];
	for (int i = 0; i < LIMBS; ++i) {
		const limb *l = &limbs[i];
		fxs_body_def d = fxs_default_body_def();
		d.position = fxg_v3_add(fxg_q_rotate(q, fxg_v3(D(l->x), D(l->y), 0), &ovf), at, &ovf);
		d.rotation = q;
		d.linear_velocity = v;
		d.rolling_resistance = D("0.1"); /* limbs in clothes do not roll on like balls */
		d.shape.type = l->type;
		if (l->type == FXS_SHAPE_BOX)
			d.shape.half_extents = fxg_v3(D(l->a), D(l->b), D(l->c));
		else
			d.shape.radius = D(l->a);
		if (l->type == FXS_SHAPE_CAPSULE)
			d.shape.half_height = D(l->b);
		ids[i] = fxs_body_create(w, &d);
	}
	for (int k = 0; k < RJOINTS; ++k) {
		const rjoint *r = &rjoints[k];
		fxs_joint_def d = r->hinge ? fxs_default_hinge_joint_def() : fxs_default_spherical_joint_def();
		d.body_a = ids[r->a];
		d.body_b = ids[r->b];
		/* every body is turned by q: the anchors' local offsets are the standing pose's */
		const limb *la = &limbs[r->a], *lb = &limbs[r->b];
		d.local_anchor_a = fxg_v3(D(r->x) - D(la->x), D(r->y) - D(la->y), 0);
		d.local_anchor_b = fxg_v3(D(r->x) - D(lb->x), D(r->y) - D(lb->y), 0);
		d.local_axis_a = r->hinge ? fxg_v3(FXG_ONE, 0, 0) : fxg_v3(0, r->axis_y * FXG_ONE, 0);
		d.enable_limit = true;
		d.lower = deg(r->lo);
		d.upper = deg(r->hi);
		if (!r->hinge) {
			d.enable_cone = true;
			d.cone_angle = deg(r->cone);
		}
		fxs_joint_create(w, &d);
	}
}

static void add_static_box(fxs_world *w, fxg_vec3 p, fxg_vec3 half)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = FXS_BODY_STATIC;
	d.position = p;
	d.shape.type = FXS_SHAPE_BOX;
	d.shape.half_extents = half;
	fxs_body_create(w, &d);
}

fxs_world *fxs_scene_ragdoll_create(void)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	/* the floor (top y = 0); a landing 1.8 m up from x = -3 to 0.9; five
	 * steps of 0.3 m down to the floor, 0.8 m deep, 8 m wide */
	add_static_box(w, V("5", "-1", "0"), V("20", "1", "20"));
	add_static_box(w, V("-1.05", "0.9", "0"), V("1.95", "0.9", "4"));
	for (int i = 1; i <= 5; ++i) {
		fix16_t top = D("1.8") - D("0.3") * i;
		add_static_box(w, fxg_v3(D("1.3") + D("0.8") * (i - 1), top / 2, 0), fxg_v3(D("0.4"), top / 2, FXG_I(4)));
	}
	/* four ragdolls laid over about z (half-angle sines and cosines), heads
	 * up or down the stairs, pushed towards them */
	static const char *const turn[4][2] = {
		{ "0.573576", "0.819152" },   /* 70 degrees: the head uphill */
		{ "-0.573576", "0.819152" },  /* -70: the head downhill */
		{ "0.707107", "0.707107" },   /* 90 */
		{ "-0.642788", "0.766044" },  /* -80 */
	};
	static const char *const place[4][3] = {
		{ "0.2", "2.2", "-2.4" },
		{ "-1.8", "2.2", "-0.8" },
		{ "0.4", "2.3", "0.8" },
		{ "-1.6", "2.4", "2.4" },
	};
	for (int k = 0; k < 4; ++k) {
		fxg_quat q = { 0, 0, D(turn[k][0]), D(turn[k][1]) };
		add_ragdoll(w, q, V(place[k][0], place[k][1], place[k][2]), fxg_v3(FXG_I(3) + FXG_RATIO(k, 2), 0, 0));
	}
	return w;
}
