/* The spherical joint (cone and twist limits, twist motor) and the filter
 * joint: limits that hold within 2 degrees at rest, a ragdoll that keeps
 * every joint within its limits, the motor's speed, a filter that removes
 * one pair's contacts and nothing else, and both in the snapshot. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "fixstep/fixstep.h"
#include "test.h"
#include "snapshot_util.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180)

static double fx(fix16_t v) { return v / 65536.0; }
static fix16_t tofx(double v) { return (fix16_t)lround(v * 65536.0); }
static fxg_vec3 v3(double x, double y, double z) { return fxg_v3(tofx(x), tofx(y), tofx(z)); }

static double dist3(fxg_vec3 a, fxg_vec3 b)
{
	double dx = fx(a.x) - fx(b.x), dy = fx(a.y) - fx(b.y), dz = fx(a.z) - fx(b.z);
	return sqrt(dx * dx + dy * dy + dz * dz);
}

static fxs_world *world_g(double gy)
{
	fxs_world_def def = fxs_default_world_def();
	def.gravity = v3(0, gy, 0);
	return fxs_world_create(&def);
}

static fxs_body_id box(fxs_world *w, fxs_body_type type, fxg_vec3 p, fxg_vec3 half)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.position = p;
	d.shape.type = FXS_SHAPE_BOX;
	d.shape.half_extents = half;
	return fxs_body_create(w, &d);
}

static fxs_body_id ball(fxs_world *w, fxs_body_type type, fxg_vec3 p, double r)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.position = p;
	d.shape.radius = tofx(r);
	return fxs_body_create(w, &d);
}

/* A 1 m bar held at its end by a spherical joint whose twist axis is the
 * bar (horizontal, +x) and whose cone is 30 degrees: gravity swings it
 * down onto the cone, where it rests at 30 degrees within 2. */
TEST(joint_spherical_cone_limit_holds)
{
	fxs_world *w = world_g(-10);
	fxs_body_id pivot = ball(w, FXS_BODY_STATIC, v3(0, 0, 0), 0.05);
	fxs_body_def bd = fxs_default_body_def();
	bd.position = v3(0.5, 0, 0);
	bd.shape.type = FXS_SHAPE_BOX;
	bd.shape.half_extents = v3(0.5, 0.05, 0.05);
	bd.angular_damping = FXG_I(1);
	fxs_body_id bar = fxs_body_create(w, &bd);
	fxs_joint_def d = fxs_default_spherical_joint_def();
	d.body_a = pivot;
	d.body_b = bar;
	d.local_anchor_b = v3(-0.5, 0, 0);
	d.local_axis_a = v3(1, 0, 0);
	d.enable_cone = true;
	d.cone_angle = tofx(30 * DEG);
	fxs_joint_id j = fxs_joint_create(w, &d);
	CHECK(fxs_joint_is_valid(w, j));
	double most = 0;
	for (int i = 0; i < 300; ++i) {
		fxs_world_step(w);
		double s = fx(fxs_joint_get_swing_angle(w, j)) / DEG;
		most = s > most ? s : most;
	}
	double s = fx(fxs_joint_get_swing_angle(w, j)) / DEG;
	double gap = dist3(fxs_joint_get_anchor_a(w, j), fxs_joint_get_anchor_b(w, j));
	printf("  cone 30 deg: swing at rest %.3f deg, most %.3f deg, anchor gap %.2f mm\n", s, most, gap * 1000);
	CHECKF(fabs(s - 30) < 2 && most < 35, "swing %.3f, most %.3f", s, most);
	CHECK(gap < 0.005);
	/* the twist stays free: the bar hangs without turning about itself */
	CHECK(fabs(fx(fxs_joint_get_position(w, j))) < 2 * DEG);
	fxs_world_destroy(w);
}

/* A 1 m bar hanging from a spherical joint whose twist axis is the bar
 * (down, -y), its twist limited to [-20, 20] degrees and its cone to 45: a
 * torque of 2 N m about +y turns it (a twist about -y of minus the turn)
 * onto the lower limit, where it rests at -20 degrees within 2. Then a
 * twist motor (1.5 rad/s, 50 N m) spins it at its speed within 1%. */
static fxs_world *hanging_bar(fxs_joint_id *j, fxs_body_id *bar, bool limit)
{
	fxs_world *w = world_g(-10);
	fxs_body_id pivot = ball(w, FXS_BODY_STATIC, v3(0, 0, 0), 0.05);
	fxs_body_def bd = fxs_default_body_def();
	bd.position = v3(0, -0.5, 0);
	bd.shape.type = FXS_SHAPE_BOX;
	bd.shape.half_extents = v3(0.2, 0.5, 0.05);
	bd.angular_damping = FXG_I(1);
	*bar = fxs_body_create(w, &bd);
	fxs_joint_def d = fxs_default_spherical_joint_def();
	d.body_a = pivot;
	d.body_b = *bar;
	d.local_anchor_b = v3(0, 0.5, 0);
	d.local_axis_a = v3(0, -1, 0);
	d.enable_cone = true;
	d.cone_angle = tofx(45 * DEG);
	d.enable_limit = limit;
	d.lower = limit ? tofx(-20 * DEG) : 0;
	d.upper = limit ? tofx(20 * DEG) : 0;
	*j = fxs_joint_create(w, &d);
	return w;
}

TEST(joint_spherical_twist_limit_holds)
{
	fxs_joint_id j;
	fxs_body_id bar;
	fxs_world *w = hanging_bar(&j, &bar, true);
	CHECK(fxs_joint_is_valid(w, j));
	double least = 0;
	for (int i = 0; i < 300; ++i) {
		fxs_body_apply_torque(w, bar, v3(0, 2, 0));
		fxs_world_step(w);
		double t = fx(fxs_joint_get_position(w, j)) / DEG;
		least = t < least ? t : least;
	}
	double t = fx(fxs_joint_get_position(w, j)) / DEG, s = fx(fxs_joint_get_swing_angle(w, j)) / DEG;
	printf("  twist limit -20 deg under 2 N m: at rest %.3f deg, least %.3f deg, swing %.3f deg\n", t, least, s);
	CHECKF(fabs(t + 20) < 2 && least > -25, "twist %.3f, least %.3f", t, least);
	CHECK(s < 2);
	/* the other way, onto the upper limit */
	for (int i = 0; i < 300; ++i) {
		fxs_body_apply_torque(w, bar, v3(0, -2, 0));
		fxs_world_step(w);
	}
	t = fx(fxs_joint_get_position(w, j)) / DEG;
	printf("  twist limit +20 deg under -2 N m: at rest %.3f deg\n", t);
	CHECKF(fabs(t - 20) < 2, "twist %.3f", t);
	fxs_world_destroy(w);
}

TEST(joint_spherical_twist_motor_reaches_its_speed)
{
	fxs_joint_id j;
	fxs_body_id bar;
	fxs_world *w = hanging_bar(&j, &bar, false);
	fxs_joint_set_motor(w, j, true, tofx(1.5), FXG_I(50));
	for (int i = 0; i < 120; ++i)
		fxs_world_step(w);
	double wy = fx(fxs_body_get_angular_velocity(w, bar).y);
	printf("  twist motor 1.5 rad/s about -y: omega_y %.4f rad/s\n", wy);
	CHECKF(fabs(wy + 1.5) < 0.015, "omega_y %.4f", wy);
	fxs_world_destroy(w);
}

/* ---- a ragdoll ---- */

typedef struct limb {
	int type; /* 0 box, 1 sphere, 2 capsule along y */
	double x, y, z, a, b, c; /* centre; half extents, or radius, or radius and half height */
} limb;

enum { PELVIS, TORSO, HEAD, UARM_L, UARM_R, FARM_L, FARM_R, THIGH_L, THIGH_R, SHIN_L, SHIN_R, LIMBS };

static const limb limbs[LIMBS] = {
	[PELVIS] = { 0, 0, 1.0, 0, 0.15, 0.1, 0.1 },     [TORSO] = { 0, 0, 1.35, 0, 0.17, 0.2, 0.1 },
	[HEAD] = { 1, 0, 1.72, 0, 0.11, 0, 0 },          [UARM_L] = { 2, -0.25, 1.38, 0, 0.05, 0.09, 0 },
	[UARM_R] = { 2, 0.25, 1.38, 0, 0.05, 0.09, 0 },  [FARM_L] = { 2, -0.25, 1.10, 0, 0.045, 0.09, 0 },
	[FARM_R] = { 2, 0.25, 1.10, 0, 0.045, 0.09, 0 }, [THIGH_L] = { 2, -0.1, 0.72, 0, 0.07, 0.13, 0 },
	[THIGH_R] = { 2, 0.1, 0.72, 0, 0.07, 0.13, 0 },  [SHIN_L] = { 2, -0.1, 0.31, 0, 0.06, 0.14, 0 },
	[SHIN_R] = { 2, 0.1, 0.31, 0, 0.06, 0.14, 0 },
};

typedef struct rjoint {
	int a, b;
	double x, y, z;      /* the anchor, in the standing pose */
	int hinge;           /* 1: a hinge about x, else spherical with its twist axis */
	double ax, ay, az;   /* twist axis */
	double cone, lo, hi; /* degrees */
} rjoint;

#define RJOINTS 10
static const rjoint rjoints[RJOINTS] = {
	{ PELVIS, TORSO, 0, 1.1, 0, 0, 0, 1, 0, 25, -20, 20 },    { TORSO, HEAD, 0, 1.58, 0, 0, 0, 1, 0, 40, -45, 45 },
	{ TORSO, UARM_L, -0.25, 1.52, 0, 0, 0, -1, 0, 80, -45, 45 }, { TORSO, UARM_R, 0.25, 1.52, 0, 0, 0, -1, 0, 80, -45, 45 },
	{ UARM_L, FARM_L, -0.25, 1.24, 0, 1, 1, 0, 0, 0, 0, 130 }, { UARM_R, FARM_R, 0.25, 1.24, 0, 1, 1, 0, 0, 0, 0, 130 },
	{ PELVIS, THIGH_L, -0.1, 0.92, 0, 0, 0, -1, 0, 60, -30, 30 }, { PELVIS, THIGH_R, 0.1, 0.92, 0, 0, 0, -1, 0, 60, -30, 30 },
	{ THIGH_L, SHIN_L, -0.1, 0.52, 0, 1, 1, 0, 0, 0, -130, 0 }, { THIGH_R, SHIN_R, 0.1, 0.52, 0, 1, 1, 0, 0, 0, -130, 0 },
};

/* rotate p about z by t then lift it by h (the standing pose laid over) */
static void pose(double t, double h, double x, double y, double z, fxg_vec3 *out)
{
	*out = v3(cos(t) * x - sin(t) * y, sin(t) * x + cos(t) * y + h, z);
}

/* The 11-body ragdoll, standing, laid over by `tilt` about z and lifted by h. */
static fxs_world *ragdoll_world(double tilt, double h, fxs_joint_id js[RJOINTS])
{
	fxs_world *w = world_g(-10);
	box(w, FXS_BODY_STATIC, v3(0, -0.5, 0), v3(20, 0.5, 20));
	fxs_body_id ids[LIMBS];
	fxg_quat q = fxg_q(0, 0, tofx(sin(tilt / 2)), tofx(cos(tilt / 2)));
	for (int i = 0; i < LIMBS; ++i) {
		const limb *l = &limbs[i];
		fxs_body_def d = fxs_default_body_def();
		pose(tilt, h, l->x, l->y, l->z, &d.position);
		d.rotation = q;
		d.shape.type = l->type == 0 ? FXS_SHAPE_BOX : (l->type == 1 ? FXS_SHAPE_SPHERE : FXS_SHAPE_CAPSULE);
		d.shape.half_extents = v3(l->a, l->b, l->c);
		d.shape.radius = tofx(l->a);
		d.shape.half_height = tofx(l->b);
		if (l->type != 0)
			d.shape.half_extents = fxg_v3_zero();
		if (l->type != 2)
			d.shape.half_height = 0;
		if (l->type == 0)
			d.shape.radius = 0;
		d.density = FXG_I(1000);
		ids[i] = fxs_body_create(w, &d);
	}
	for (int k = 0; k < RJOINTS; ++k) {
		const rjoint *r = &rjoints[k];
		fxs_joint_def d = r->hinge ? fxs_default_hinge_joint_def() : fxs_default_spherical_joint_def();
		d.body_a = ids[r->a];
		d.body_b = ids[r->b];
		/* the anchor in each body's frame: the bodies are all turned by q */
		d.local_anchor_a = v3(r->x - limbs[r->a].x, r->y - limbs[r->a].y, r->z - limbs[r->a].z);
		d.local_anchor_b = v3(r->x - limbs[r->b].x, r->y - limbs[r->b].y, r->z - limbs[r->b].z);
		d.local_axis_a = v3(r->ax, r->ay, r->az);
		d.enable_limit = true;
		d.lower = tofx(r->lo * DEG);
		d.upper = tofx(r->hi * DEG);
		if (!r->hinge) {
			d.enable_cone = true;
			d.cone_angle = tofx(r->cone * DEG);
		}
		js[k] = fxs_joint_create(w, &d);
	}
	return w;
}

/* the worst excess of any joint over its limits, in degrees (0: all within) */
static double worst_excess(const fxs_world *w, const fxs_joint_id js[RJOINTS], int *which)
{
	double worst = 0;
	for (int k = 0; k < RJOINTS; ++k) {
		const rjoint *r = &rjoints[k];
		double t = fx(fxs_joint_get_position(w, js[k])) / DEG;
		double e = t < r->lo ? r->lo - t : (t > r->hi ? t - r->hi : 0);
		if (!r->hinge) {
			double s = fx(fxs_joint_get_swing_angle(w, js[k])) / DEG - r->cone;
			e = s > e ? s : e;
		}
		if (e > worst)
			worst = e, *which = k;
	}
	return worst;
}

/* The ragdoll laid over by 70 degrees falls 1 m onto the ground: every
 * limit holds within 2 degrees at rest (after 4 s), and within 5 through
 * the fall and the impact; the anchors meet within 5 mm at rest and 5 cm
 * in the impact (soft joints, 60 Hz). */
TEST(joint_ragdoll_falls_and_keeps_its_limits)
{
	fxs_joint_id js[RJOINTS];
	fxs_world *w = ragdoll_world(70 * DEG, 1.0, js);
	for (int k = 0; k < RJOINTS; ++k)
		CHECKF(fxs_joint_is_valid(w, js[k]), "joint %d", k);
	double most = 0, gap = 0;
	int which = -1, wmost = -1;
	for (int i = 0; i < 240; ++i) {
		fxs_world_step(w);
		double e = worst_excess(w, js, &which);
		if (e > most)
			most = e, wmost = which;
		for (int k = 0; k < RJOINTS; ++k) {
			double g = dist3(fxs_joint_get_anchor_a(w, js[k]), fxs_joint_get_anchor_b(w, js[k]));
			gap = g > gap ? g : gap;
		}
	}
	double rest = worst_excess(w, js, &which), rest_gap = 0;
	int at_limit = 0; /* joints that end within 2 degrees of a limit */
	for (int k = 0; k < RJOINTS; ++k) {
		const rjoint *r = &rjoints[k];
		double g = dist3(fxs_joint_get_anchor_a(w, js[k]), fxs_joint_get_anchor_b(w, js[k]));
		rest_gap = g > rest_gap ? g : rest_gap;
		double t = fx(fxs_joint_get_position(w, js[k])) / DEG;
		double s = r->hinge ? 0 : fx(fxs_joint_get_swing_angle(w, js[k])) / DEG;
		at_limit += fabs(t - r->lo) < 2 || fabs(t - r->hi) < 2 || (!r->hinge && fabs(s - r->cone) < 2);
	}
	double top = 0;
	for (uint32_t s = 1; s < fxs_world_slot_count(w); ++s) {
		double y = fx(fxs_body_get_position(w, fxs_world_body_at(w, s)).y);
		top = y > top ? y : top;
	}
	printf("  ragdoll: worst excess at rest %.3f deg, through the fall %.3f deg (joint %d), %d joints at a limit; "
	       "anchor gap at rest %.2f mm, through the fall %.2f mm; highest centre %.3f m\n",
	       rest, most, wmost, at_limit, rest_gap * 1000, gap * 1000, top);
	CHECKF(rest < 2, "at rest %.3f deg over (joint %d)", rest, which);
	CHECKF(most < 5, "through the fall %.3f deg over (joint %d)", most, wmost);
	CHECK(rest_gap < 0.005 && gap < 0.05);
	CHECK(at_limit >= 2); /* the limits were tested, not idle */
	CHECK(top < 0.5); /* it lies on the ground */
	CHECK(fxs_world_get_stats(w).overflows_total == 0);
	fxs_world_destroy(w);
}

/* ---- the filter joint ---- */

/* Two spheres flying at each other pass through each other under a filter
 * joint (no contact, no impulse: b's velocity stays exactly -2 m/s), and
 * b then still hits a third sphere c at rest in its path; without the
 * filter a and b collide head-on (equal masses: they stop, since the
 * default restitution is 0) and c is never reached. */
TEST(joint_filter_removes_one_pair_and_nothing_else)
{
	for (int filtered = 0; filtered < 2; ++filtered) {
		fxs_world *w = world_g(0);
		fxs_body_id a = ball(w, FXS_BODY_DYNAMIC, v3(-1, 0, 0), 0.25);
		fxs_body_id b = ball(w, FXS_BODY_DYNAMIC, v3(1, 0, 0), 0.25);
		fxs_body_id c = ball(w, FXS_BODY_DYNAMIC, v3(-3, 0, 0), 0.25);
		fxs_body_set_linear_velocity(w, a, v3(2, 0, 0));
		fxs_body_set_linear_velocity(w, b, v3(-2, 0, 0));
		if (filtered) {
			fxs_joint_def d = fxs_default_filter_joint_def();
			d.body_a = a;
			d.body_b = b;
			CHECK(fxs_joint_is_valid(w, fxs_joint_create(w, &d)));
			d.collide_connected = true; /* a filter that filters nothing is refused */
			CHECK(!fxs_joint_is_valid(w, fxs_joint_create(w, &d)));
			CHECK(fxs_world_get_last_error(w) == FXS_ERR_INVALID_ARGUMENT);
		}
		for (int i = 0; i < 45; ++i) /* 0.75 s: they have met (at 0.375 s) */
			fxs_world_step(w);
		double vb = fx(fxs_body_get_linear_velocity(w, b).x), xb = fx(fxs_body_get_position(w, b).x);
		for (int i = 0; i < 90; ++i) /* 2.25 s: b reaches c at 1.75 s */
			fxs_world_step(w);
		double vc = fx(fxs_body_get_linear_velocity(w, c).x);
		printf("  %s: at 0.75 s b at x %.3f moving %.3f m/s; at 2.25 s c moving %.3f m/s\n",
		       filtered ? "filter joint" : "no joint", xb, vb, vc);
		if (filtered)
			CHECKF(vb == -2 && fabs(xb + 0.5) < 0.01 && vc < -0.5, "b %.4f m/s at %.3f, c %.3f m/s", vb, xb, vc);
		else
			CHECKF(fabs(vb) < 0.1 && vc == 0, "b %.4f m/s, c %.3f m/s", vb, vc);
		fxs_world_destroy(w);
	}
}

/* The spherical and filter joints in a snapshot: restore, step on, the same
 * hashes as never stopping; a record with a cone beyond pi, a negative
 * cone or a pulling cone impulse is refused and leaves the world as it
 * was. */
TEST(joint_spherical_and_filter_in_the_snapshot)
{
	fxs_joint_id js[RJOINTS];
	fxs_world *w = ragdoll_world(70 * DEG, 1.0, js);
	fxs_joint_def d = fxs_default_filter_joint_def();
	d.body_a = fxs_world_body_at(w, 1 + HEAD);
	d.body_b = fxs_world_body_at(w, 1 + SHIN_L);
	CHECK(fxs_joint_is_valid(w, fxs_joint_create(w, &d)));
	fxs_joint_set_motor(w, js[1], true, FXG_ONE, FXG_I(2));
	for (int i = 0; i < 30; ++i)
		fxs_world_step(w);
	size_t len = fxs_world_snapshot_size(w);
	uint8_t *snap = malloc(len);
	CHECK(snap && fxs_world_snapshot_save(w, snap, len, &len) == FXS_OK);
	fxs_result err;
	fxs_world *r = fxs_world_create_from_snapshot(snap, len, &err);
	CHECK(r && err == FXS_OK && fxs_world_hash(r) == fxs_world_hash(w) && fxs_world_joint_count(r) == RJOINTS + 1);
	for (int i = 0; i < 30; ++i) {
		fxs_world_step(w);
		fxs_world_step(r);
		CHECK(fxs_world_hash(w) == fxs_world_hash(r));
	}
	/* a second ragdoll: the same hash; then its record corrupted */
	fxs_joint_id js2[RJOINTS];
	fxs_world *a = ragdoll_world(70 * DEG, 1.0, js2), *b = ragdoll_world(70 * DEG, 1.0, js2);
	CHECK(fxs_world_hash(a) == fxs_world_hash(b));
	fxs_world_destroy(b);
	/* the neck's record: find its cone angle (40 deg) in the snapshot and corrupt it */
	fxs_world_destroy(r);
	uint8_t *s2 = raw_snapshot(a, &len); /* the state's bytes, to change them */
	uint8_t *bad = malloc(len);
	CHECK(s2 && bad);
	int32_t cone = tofx(40 * DEG);
	size_t at = 0;
	for (size_t i = 0; i + 4 <= len - 8 && !at; ++i)
		if (s2[i] == (uint8_t)cone && s2[i + 1] == (uint8_t)(cone >> 8) && s2[i + 2] == (uint8_t)(cone >> 16) &&
		    s2[i + 3] == (uint8_t)(cone >> 24))
			at = i;
	CHECK(at != 0);
	const uint32_t values[2] = { (uint32_t)tofx(3.2), 0x80000000u }; /* beyond pi; negative */
	for (int k = 0; k < 3; ++k) {
		memcpy(bad, s2, len);
		if (k < 2) {
			for (int i = 0; i < 4; ++i)
				bad[at + i] = (uint8_t)(values[k] >> (8 * i));
		} else {
			/* the cone impulse (the record's fourth, after the ball's three): negative */
			bad[at + 4 + 3 * 8 + 7] = 0x80;
		}
		snapshot_reseal(bad, len);
		uint64_t before = fxs_world_hash(w);
		fxs_result e = fxs_world_snapshot_restore(w, bad, len);
		CHECKF(e == FXS_ERR_CORRUPT, "case %d: %s", k, fxs_result_string(e));
		CHECK(fxs_world_hash(w) == before);
	}
	CHECK(fxs_world_snapshot_restore(w, s2, len) == FXS_OK && fxs_world_hash(w) == fxs_world_hash(a));
	free(s2);
	free(bad);
	free(snap);
	fxs_world_destroy(a);
	fxs_world_destroy(w);
}
