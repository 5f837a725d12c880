/* The contact solver against physics, with stated tolerances: stacks and a
 * pyramid that stand and fall asleep (with their golden sleep step and hash),
 * friction on a slope, momentum and restitution in collisions, and the ends
 * of the supported ranges of mass, size and mass ratio. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixstep/fixstep.h"
#include "scenes/scenes.h"
#include "test.h"

#define PI 3.14159265358979323846

static double fx(fix16_t v) { return v / 65536.0; }
static fix16_t tofx(double v) { return (fix16_t)lround(v * 65536.0); }
static double wide_d(fxg_wide v) { return (double)v / 4294967296.0; } /* Q32.32 */
static fxg_vec3 v3(double x, double y, double z) { return fxg_v3(tofx(x), tofx(y), tofx(z)); }

static fxs_body_id box(fxs_world *w, fxs_body_type type, fxg_vec3 p, fxg_quat q, fxg_vec3 half, double density,
		       double friction)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.position = p;
	d.rotation = q;
	d.shape.type = FXS_SHAPE_BOX;
	d.shape.half_extents = half;
	d.density = tofx(density);
	d.friction = tofx(friction);
	return fxs_body_create(w, &d);
}

static fxs_body_id ball(fxs_world *w, fxg_vec3 p, fxg_vec3 v, double r, double density, double restitution)
{
	fxs_body_def d = fxs_default_body_def();
	d.position = p;
	d.linear_velocity = v;
	d.shape.radius = tofx(r);
	d.density = tofx(density);
	d.restitution = tofx(restitution);
	return fxs_body_create(w, &d);
}

static const fxg_quat identity = { 0, 0, 0, FXG_ONE };

/* ---- stacks that stand and fall asleep ---- */

typedef struct settle_result {
	uint64_t asleep_at; /* first step after which no body was awake; 0 if never */
	double worst_sag;   /* largest drop of a body below where it started, m */
	double worst_slide; /* largest horizontal distance from where it started, m */
	uint64_t hash;
} settle_result;

static settle_result settle(const char *scene, int steps)
{
	settle_result r = { 0, 0, 0, 0 };
	fxs_world *w = fxs_scene_find(scene)->create();
	uint32_t slots = fxs_world_slot_count(w);
	fxg_vec3 *start = malloc(slots * sizeof *start);
	for (uint32_t i = 0; i < slots; ++i)
		start[i] = fxs_body_get_position(w, fxs_world_body_at(w, i));
	for (int s = 0; s < steps; ++s) {
		fxs_world_step(w);
		if (!r.asleep_at && fxs_world_get_stats(w).awake_body_count == 0)
			r.asleep_at = fxs_world_get_step(w);
	}
	for (uint32_t i = 0; i < slots; ++i) {
		fxg_vec3 p = fxs_body_get_position(w, fxs_world_body_at(w, i));
		double dx = fx(p.x) - fx(start[i].x), dy = fx(p.y) - fx(start[i].y), dz = fx(p.z) - fx(start[i].z);
		double h = sqrt(dx * dx + dz * dz);
		if (-dy > r.worst_sag)
			r.worst_sag = -dy;
		if (h > r.worst_slide)
			r.worst_slide = h;
	}
	r.hash = fxs_world_hash(w);
	free(start);
	fxs_world_destroy(w);
	return r;
}

/* Golden values, produced by the code and checked on every crosscheck target
 * (`fixstep settle SCENE --steps 3000`, tools/crosscheck.sh). A change here
 * needs a reason in the commit message. */
#define BOX_STACK_ASLEEP_AT 42
#define BOX_STACK_HASH 0x3507017be21e89b2ull
#define PYRAMID_20_ASLEEP_AT 51
#define PYRAMID_20_HASH 0x37900d9249bdd684ull

/* A 10-box stack and a 20-row pyramid (210 boxes) stand for 3,000 steps at
 * 60 Hz and fall asleep. Tolerances: no box slides more than 3 cm sideways,
 * and none sinks more than 4 cm. The sinking is the contacts' softness, by
 * design: at rest a soft contact is a spring of stiffness m_eff w^2 (w = 2 pi
 * 30 Hz, m_eff the point's effective mass, about m / 8 for a cube's corner),
 * so a contact carrying k cubes is compressed about 0.5 k mm until its
 * rest depth (contact.h) lifts it back, over about a second (these two
 * fall asleep sooner, and sag about 2 cm). */
static void check_settle(const char *scene, uint64_t golden_step, uint64_t golden_hash)
{
	settle_result s = settle(scene, 3000);
	printf("  %s: asleep at step %" PRIu64 ", worst sag %.2f mm, worst slide %.2f mm, hash %016" PRIx64 "\n", scene,
	       s.asleep_at, s.worst_sag * 1000, s.worst_slide * 1000, s.hash);
	CHECKF(s.worst_sag < 0.04 && s.worst_slide < 0.03, "%s: sag %.4f m, slide %.4f m", scene, s.worst_sag,
	       s.worst_slide);
	CHECKF(s.asleep_at > 0 && s.asleep_at < 3000, "%s: asleep at %" PRIu64, scene, s.asleep_at);
	CHECKF(s.asleep_at == golden_step && s.hash == golden_hash, "%s golden: asleep at %" PRIu64 ", hash %016" PRIx64,
	       scene, s.asleep_at, s.hash);
}

TEST(solver_stack_and_pyramid_stand_and_fall_asleep)
{
	check_settle("box_stack", BOX_STACK_ASLEEP_AT, BOX_STACK_HASH);
	if (test_failed)
		return;
	check_settle("pyramid_20", PYRAMID_20_ASLEEP_AT, PYRAMID_20_HASH);
}

/* ---- stacks that stand awake ---- */

/* a world with sleep off and a static ground slab, half size `half` m */
static fxs_world *awake_with_ground(double half)
{
	fxs_world_def def = fxs_default_world_def();
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	box(w, FXS_BODY_STATIC, v3(0, -1, 0), identity, v3(half, 1, half), 1000, 0.6);
	return w;
}

/* A column of 20 unit cubes (100 kg) on the ground with sleep off, for 3000
 * steps (50 s): it stands, its top cube within 5 mm of where it started,
 * sideways, throughout (Box3D's sways 15 mm in its first second; fixstep's
 * did too while the points of a face were solved in one order only:
 * contact_batch.c, points_flipped). At the default 30 Hz soft
 * contacts, a column whose contacts' lever arms follow every tilt buckles
 * from 16 cubes up (the weight above bears on an arm that grows with the
 * lean); recycled manifolds keep the arms they were made with, slow
 * corrective turns integrate (Q1.30 orientations), and friction anchors
 * pull back what the first second's settling slid. */
TEST(solver_column_of_20_stands_awake)
{
	fxs_world *w = awake_with_ground(20);
	fxs_body_id top = fxs_null_body;
	for (int i = 0; i < 20; ++i)
		top = box(w, FXS_BODY_DYNAMIC, v3(0, 0.5 + i, 0), identity, v3(0.5, 0.5, 0.5), 100, 0.6);
	double worst = 0, side = 0;
	for (int s = 0; s < 3000; ++s) {
		fxs_world_step(w);
		fxg_vec3 p = fxs_body_get_position(w, top);
		side = sqrt(fx(p.x) * fx(p.x) + fx(p.z) * fx(p.z));
		worst = fmax(worst, side);
	}
	double y = fx(fxs_body_get_position(w, top).y);
	printf("  20-cube column, sleep off, 3000 steps: top %.2f mm sideways at the end (%.2f mm at most), %.1f mm "
	       "lower\n",
	       side * 1e3, worst * 1e3, (19.5 - y) * 1e3);
	CHECKF(side < 0.005 && worst < 0.005, "top %.4f m sideways at the end, %.4f m at most", side, worst);
	fxs_world_destroy(w);
}

/* A unit cube set down on the ground (sleep off) is exactly at rest within
 * 60 steps: v = w = 0, bit for bit, and stays so. The solver's residue on a
 * body pressed by a contact is within FXS_REST_SPEED (2^-12 m/s and rad/s)
 * of zero, and then zeroed (solver.c); before, about 1e-4 rad/s stayed for
 * good and the cube crept 2e-5 m. */
TEST(solver_cube_on_the_floor_comes_exactly_to_rest)
{
	fxs_world *w = awake_with_ground(20);
	fxs_body_id c = box(w, FXS_BODY_DYNAMIC, v3(0, 0.5, 0), identity, v3(0.5, 0.5, 0.5), 100, 0.6);
	int rest = -1;
	fxg_vec3 p0 = fxs_body_get_position(w, c);
	for (int s = 1; s <= 180; ++s) {
		fxs_world_step(w);
		fxg_vec3 v = fxs_body_get_linear_velocity(w, c), om = fxs_body_get_angular_velocity(w, c);
		bool still = fxg_v3_eq(v, fxg_v3_zero()) && fxg_v3_eq(om, fxg_v3_zero());
		if (still && rest < 0)
			rest = s;
		CHECKF(rest < 0 || still, "moving again at step %d: v (%d %d %d) w (%d %d %d)", s, v.x, v.y, v.z, om.x, om.y, om.z);
	}
	fxg_vec3 p = fxs_body_get_position(w, c);
	printf("  cube on the floor: v = w = 0 exactly from step %d on; moved (%d, %d, %d) LSB in 180 steps\n", rest, p.x - p0.x,
	       p.y - p0.y, p.z - p0.z);
	CHECKF(rest > 0 && rest <= 60, "at rest from step %d", rest);
	fxs_world_destroy(w);
}

/* A unit cube on a static ramp tilted by deg degrees (friction mu for
 * both), set on its top face; sleep off. */
static fxs_world *ramp_with_box(double deg, double mu, fxs_body_id *out)
{
	fxs_world_def def = fxs_default_world_def();
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	const double th = deg * PI / 180;
	const fxg_quat q = { 0, 0, tofx(sin(th / 2)), tofx(cos(th / 2)) };
	box(w, FXS_BODY_STATIC, v3(0, 0, 0), q, v3(40, 1, 5), 1000, mu);
	*out = box(w, FXS_BODY_DYNAMIC, v3(-sin(th) * 1.5, cos(th) * 1.5, 0), q, v3(0.5, 0.5, 0.5), 1000, mu);
	return w;
}

/* steps of w from `from` to `to` in which body b reports v = w = 0 exactly
 * and its pose does not change (counted from `from`) */
static int still_steps(fxs_world *w, fxs_body_id b, int from, int to)
{
	for (int s = 0; s < from; ++s)
		fxs_world_step(w);
	const fxg_vec3 p0 = fxs_body_get_position(w, b);
	const fxg_quat q0 = fxs_body_get_rotation(w, b);
	int still = 0;
	for (int s = from; s < to; ++s) {
		fxs_world_step(w);
		const fxg_vec3 p = fxs_body_get_position(w, b);
		const fxg_quat q = fxs_body_get_rotation(w, b);
		still += fxg_v3_eq(fxs_body_get_linear_velocity(w, b), fxg_v3_zero()) &&
			fxg_v3_eq(fxs_body_get_angular_velocity(w, b), fxg_v3_zero()) && fxg_v3_eq(p, p0) &&
			abs(q.x - q0.x) <= 1 && abs(q.y - q0.y) <= 1 && abs(q.z - q0.z) <= 1 && abs(q.w - q0.w) <= 1;
	}
	return still;
}

/* Rest on a slope and under a load reads as rest. A box held on a 30 degree
 * ramp by friction 0.8, after 1 s of settling, and a 100 kg cube on a 1 kg
 * cube on the ground, after 6 s (it rises to its rest depth for 5 s,
 * contact.h), report v = w = 0
 * exactly at every step until 10 s, their poses unchanged (the rotation within 1 LSB, the Q16.16
 * view of the finer quaternion). A pressed body that did not move in a step
 * is at rest (solver.c): before, the ramp box reported 4.7e-4 m/s and the
 * loaded cube 8e-4 m/s for good, velocities too small to move them a
 * sub-step's LSB, the relax pass's residue. */
TEST(solver_ramp_and_loaded_cube_report_rest)
{
	fxs_body_id b;
	fxs_world *w = ramp_with_box(30, 0.8, &b);
	int still = still_steps(w, b, 60, 600);
	printf("  box on a 30 degree ramp (mu 0.8): still (v = w = 0, pose unchanged) at %d of steps 60..599\n", still);
	CHECKF(still == 540, "still at %d of 540 steps", still);
	fxs_world_destroy(w);
	w = awake_with_ground(20);
	box(w, FXS_BODY_DYNAMIC, v3(0, 0.5, 0), identity, v3(0.5, 0.5, 0.5), 1, 0.6);
	fxs_body_id top = box(w, FXS_BODY_DYNAMIC, v3(0, 1.5, 0), identity, v3(0.5, 0.5, 0.5), 100, 0.6);
	still = still_steps(w, top, 360, 600);
	printf("  100 kg cube on a 1 kg cube: still at %d of steps 360..599\n", still);
	CHECKF(still == 240, "still at %d of 240 steps", still);
	fxs_world_destroy(w);
}

/* What should move still moves at its closed-form acceleration: a box on
 * a 30 degree ramp with friction 0.55 (just below tan 30 = 0.577) slides at
 * g (sin - mu cos) = 0.237 m/s^2, and a ball (r 0.5 m) on a 2 degree slope
 * rolls at 5/7 g sin = 0.249 m/s^2, each within 2% over 3 s from rest. */
TEST(solver_slow_slide_and_roll_keep_their_acceleration)
{
	const double g = 10, th = 30 * PI / 180;
	fxs_body_id b;
	fxs_world *w = ramp_with_box(30, 0.55, &b);
	for (int s = 0; s < 180; ++s)
		fxs_world_step(w);
	fxg_vec3 v = fxs_body_get_linear_velocity(w, b);
	double a = hypot(fx(v.x), fx(v.y)) / (180 * fx(fxs_world_get_def(w).dt)), want = g * (sin(th) - 0.55 * cos(th));
	printf("  slide, mu 0.55 on 30 degrees: a = %.4f m/s^2, g (sin - mu cos) = %.4f (%.2f%%)\n", a, want,
	       100 * (a / want - 1));
	CHECKF(fabs(a / want - 1) < 0.02, "slide a = %.4f, want %.4f", a, want);
	fxs_world_destroy(w);
	fxs_world_def def = fxs_default_world_def();
	def.enable_sleep = false;
	w = fxs_world_create(&def);
	const double t2 = 2 * PI / 180;
	const fxg_quat q = { 0, 0, tofx(sin(t2 / 2)), tofx(cos(t2 / 2)) };
	box(w, FXS_BODY_STATIC, v3(0, 0, 0), q, v3(40, 1, 5), 1000, 0.6);
	fxs_body_id ballb = ball(w, v3(-sin(t2) * 1.5, cos(t2) * 1.5, 0), v3(0, 0, 0), 0.5, 1000, 0);
	for (int s = 0; s < 180; ++s)
		fxs_world_step(w);
	v = fxs_body_get_linear_velocity(w, ballb);
	a = hypot(fx(v.x), fx(v.y)) / (180 * fx(fxs_world_get_def(w).dt));
	want = 5.0 / 7.0 * g * sin(t2);
	printf("  roll, ball on 2 degrees: a = %.4f m/s^2, 5/7 g sin = %.4f (%.2f%%)\n", a, want, 100 * (a / want - 1));
	CHECKF(fabs(a / want - 1) < 0.02, "roll a = %.4f, want %.4f", a, want);
	fxs_world_destroy(w);
}

/* A pyramid of 10 rows (55 unit cubes, the rows touching side by side)
 * with sleep off stands 3000 steps (50 s): no cube ends more than 1 cm from
 * where it started, sideways, nor lower than the soft contacts' sag (2 cm). */
TEST(solver_pyramid_of_10_rows_stands_awake)
{
	fxs_world *w = awake_with_ground(40);
	fxs_body_id ids[55];
	fxg_vec3 p0[55];
	int n = 0;
	for (int row = 0; row < 10; ++row)
		for (int i = row; i < 10; ++i) {
			ids[n] = box(w, FXS_BODY_DYNAMIC, v3(i - 0.5 * row - 4.5, 0.5 + row, 0), identity, v3(0.5, 0.5, 0.5), 100, 0.6);
			p0[n] = fxs_body_get_position(w, ids[n]);
			++n;
		}
	for (int s = 0; s < 3000; ++s)
		fxs_world_step(w);
	double side = 0, sag = 0;
	for (int i = 0; i < n; ++i) {
		fxg_vec3 p = fxs_body_get_position(w, ids[i]);
		side = fmax(side, hypot(fx(p.x) - fx(p0[i].x), fx(p.z) - fx(p0[i].z)));
		sag = fmax(sag, fx(p0[i].y) - fx(p.y));
	}
	printf("  10-row pyramid, sleep off, 3000 steps: worst %.2f mm sideways, %.2f mm sag\n", side * 1e3, sag * 1e3);
	CHECKF(side < 0.01 && sag < 0.02, "a cube %.4f m sideways, %.4f m lower", side, sag);
	fxs_world_destroy(w);
}

/* large_pyramid (5050 cubes, 100 rows, sleep off, the benchmark scene)
 * stands 1000 steps: its top cube within 5 cm of its start sideways at the
 * end, and after 200 steps no cube more than 2 cm out of the pyramid's plane
 * (Box3D on the same scene: 17.6 cm and 1.0 cm; this kernel before: the
 * pyramid fell by step 600, 12.4 cm out of plane at step 200). Long: skipped
 * under --quick. */
SLOW_TEST(solver_large_pyramid_stands_1000_steps)
{
	if (test_quick) {
		printf("  skipped under --quick (1000 steps of 5050 cubes)\n");
		return;
	}
	fxs_world *w = fxs_scene_find("large_pyramid")->create();
	uint32_t slots = fxs_world_slot_count(w);
	fxg_vec3 *p0 = malloc(slots * sizeof *p0);
	for (uint32_t i = 0; i < slots; ++i)
		p0[i] = fxs_body_get_position(w, fxs_world_body_at(w, i));
	double plane = 0;
	for (int s = 1; s <= 1000; ++s) {
		fxs_world_step(w);
		if (s == 200)
			for (uint32_t i = 0; i < slots; ++i)
				plane = fmax(plane, fabs(fx(fxs_body_get_position(w, fxs_world_body_at(w, i)).z)));
	}
	fxg_vec3 t = fxs_body_get_position(w, fxs_world_body_at(w, slots - 1)), t0 = p0[slots - 1];
	double top = hypot(fx(t.x) - fx(t0.x), fx(t.z) - fx(t0.z));
	printf("  large_pyramid, 1000 steps: top %.2f cm from its start sideways, %.2f m lower; after 200 steps at most "
	       "%.2f cm out of plane\n",
	       top * 100, fx(t0.y) - fx(t.y), plane * 100);
	CHECKF(top < 0.05 && plane < 0.02, "top %.4f m sideways, %.4f m out of plane", top, plane);
	free(p0);
	fxs_world_destroy(w);
}

/* ---- friction on a slope ---- */

/* A 1 m cube on a 30 degree slope, friction mu on both (the mix sqrt(mu mu)
 * = mu). Returns the cube's speed along the slope (downhill positive) at
 * t = 0.5 s and t = 1.5 s and its displacement at 1.5 s. */
static void slope(double mu, double *v_half, double *v_late, double *moved)
{
	fxs_world_def def = fxs_default_world_def();
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	const double th = PI / 6;
	fxg_quat q = { 0, 0, tofx(sin(th / 2)), tofx(cos(th / 2)) };
	double nx = -sin(th), ny = cos(th);  /* the slope's normal */
	double tx = -cos(th), ty = -sin(th); /* downhill */
	box(w, FXS_BODY_STATIC, v3(0, 0, 0), q, v3(20, 0.5, 3), 1000, mu);
	fxs_body_id b = box(w, FXS_BODY_DYNAMIC, v3(1.0 * nx, 1.0 * ny, 0), q, v3(0.5, 0.5, 0.5), 1000, mu);
	fxg_vec3 p0 = fxs_body_get_position(w, b);
	*v_half = *v_late = 0;
	for (int s = 1; s <= 90; ++s) {
		fxs_world_step(w);
		fxg_vec3 v = fxs_body_get_linear_velocity(w, b);
		double along = fx(v.x) * tx + fx(v.y) * ty;
		if (s == 30)
			*v_half = along;
		if (s == 90)
			*v_late = along;
	}
	fxg_vec3 p = fxs_body_get_position(w, b);
	*moved = (fx(p.x) - fx(p0.x)) * tx + (fx(p.y) - fx(p0.y)) * ty;
	fxs_world_destroy(w);
}

/* mu = 0.7 > tan 30 (0.577): the cube stays put (under 1 mm in 1.5 s).
 * mu = 0.4: it slides with a = g (sin 30 - mu cos 30) = 1.536 m/s^2 within 5%
 * (measured from the speed between 0.5 s and 1.5 s). */
TEST(solver_friction_on_a_slope)
{
	double v1, v2, moved;
	slope(0.7, &v1, &v2, &moved);
	printf("  mu 0.7: moved %.3f mm downhill in 1.5 s, speed %.5f m/s\n", moved * 1000, v2);
	CHECKF(fabs(moved) < 0.001, "mu 0.7 moved %.5f m", moved);
	slope(0.4, &v1, &v2, &moved);
	double a = (v2 - v1) / 1.0, expect = 10 * (sin(PI / 6) - 0.4 * cos(PI / 6));
	printf("  mu 0.4: a = %.4f m/s^2, g (sin - mu cos) = %.4f, error %.2f%%\n", a, expect,
	       100 * fabs(a - expect) / expect);
	CHECKF(fabs(a - expect) < 0.05 * expect, "a %.4f expected %.4f", a, expect);
}

/* ---- collisions ---- */

typedef struct collision {
	double p_before[3], p_after[3]; /* total linear momentum, kg m/s */
	double v1, v2;                  /* final x velocities */
	double vy2;                     /* final y velocity of the second ball */
	double m1, m2;
} collision;

/* Two balls (r 0.5) in zero gravity, head-on along x, or offset in y by
 * `offset` for a glancing hit; restitution e on both. */
static collision collide_balls(double d1, double d2, double u1, double u2, double e, double offset)
{
	fxs_world_def def = fxs_default_world_def();
	def.gravity = fxg_v3_zero();
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	fxs_body_id a = ball(w, v3(-2, 0, 0), v3(u1, 0, 0), 0.5, d1, e);
	fxs_body_id b = ball(w, v3(2, offset, 0.1 * offset), v3(u2, 0, 0), 0.5, d2, e);
	collision c;
	c.m1 = wide_d(fxs_body_get_mass(w, a));
	c.m2 = wide_d(fxs_body_get_mass(w, b));
	for (int pass = 0; pass < 2; ++pass) {
		fxg_vec3 va = fxs_body_get_linear_velocity(w, a), vb = fxs_body_get_linear_velocity(w, b);
		double *p = pass ? c.p_after : c.p_before;
		p[0] = c.m1 * fx(va.x) + c.m2 * fx(vb.x);
		p[1] = c.m1 * fx(va.y) + c.m2 * fx(vb.y);
		p[2] = c.m1 * fx(va.z) + c.m2 * fx(vb.z);
		c.v1 = fx(va.x), c.v2 = fx(vb.x), c.vy2 = fx(vb.y);
		if (pass == 0)
			for (int s = 0; s < 120; ++s)
				fxs_world_step(w);
	}
	fxs_world_destroy(w);
	return c;
}

static double momentum_error(const collision *c)
{
	double e = 0, mag = 0;
	for (int k = 0; k < 3; ++k) {
		e += (c->p_after[k] - c->p_before[k]) * (c->p_after[k] - c->p_before[k]);
		mag += c->p_before[k] * c->p_before[k];
	}
	return sqrt(e) / sqrt(mag);
}

/* Momentum is conserved to rounding: every impulse is applied to both
 * bodies, each velocity change rounded to 2^-16 m/s, so the error is a few
 * LSB times the masses per contact iteration: below 1e-4 of the total here.
 * Restitution: e = 1 gives the elastic outcome within 1%, e = 0.5 a
 * separation speed half the approach speed within 2%, e = 0 a common
 * velocity (relative speed below 1 cm/s). */
TEST(solver_collisions_conserve_momentum_and_restitution_behaves)
{
	const double u1 = 3, u2 = -0.5;
	for (int k = 0; k < 3; ++k) {
		double e = k == 0 ? 0 : (k == 1 ? 0.5 : 1);
		collision c = collide_balls(1000, 3000, u1, u2, e, 0);
		double err = momentum_error(&c);
		double sep = c.v2 - c.v1, approach = u1 - u2;
		printf("  head-on, e = %.1f: m %.1f/%.1f kg, v' = %.4f, %.4f m/s, separation/approach %.4f, momentum error %.2e\n",
		       e, c.m1, c.m2, c.v1, c.v2, sep / approach, err);
		CHECKF(err < 1e-4, "momentum error %.3e", err);
		if (e == 0) {
			CHECKF(fabs(sep) < 0.01, "e = 0: relative speed %.4f", sep);
		} else if (e == 1) {
			double v1 = ((c.m1 - c.m2) * u1 + 2 * c.m2 * u2) / (c.m1 + c.m2);
			double v2 = ((c.m2 - c.m1) * u2 + 2 * c.m1 * u1) / (c.m1 + c.m2);
			CHECKF(fabs(c.v1 - v1) < 0.01 * approach && fabs(c.v2 - v2) < 0.01 * approach,
			       "elastic: %.4f %.4f expected %.4f %.4f", c.v1, c.v2, v1, v2);
		} else {
			CHECKF(fabs(sep / approach - e) < 0.02, "e = %.1f: ratio %.4f", e, sep / approach);
		}
	}
	/* glancing, unequal masses: the momentum vector is kept */
	collision c = collide_balls(1000, 2000, 4, 0, 0.5, 0.6);
	double err = momentum_error(&c);
	printf("  glancing: momentum before (%.2f, %.2f, %.2f) after (%.2f, %.2f, %.2f), error %.2e\n", c.p_before[0],
	       c.p_before[1], c.p_before[2], c.p_after[0], c.p_after[1], c.p_after[2], err);
	CHECKF(err < 1e-4, "glancing momentum error %.3e", err);
	CHECKF(fabs(c.vy2) > 0.5, "vy %.4f", c.vy2); /* the hit really was glancing */
}

/* A ball (r 0.25 m) dropped from 5 m (its lowest point) onto the ground
 * with restitution e, sleep off: the apexes of its bounces, the lowest
 * point's highest between two ground contacts. */
static int bounce_apexes(double e, double *apex, int max)
{
	fxs_world *w = awake_with_ground(20);
	fxs_body_id b = ball(w, v3(0, 5.25, 0), v3(0, 0, 0), 0.25, 1000, e);
	int n = 0;
	double peak = -1, prev_v = -1;
	for (int s = 0; s < 1200 && n < max; ++s) {
		fxs_world_step(w);
		double y = fx(fxs_body_get_position(w, b).y) - 0.25, v = fx(fxs_body_get_linear_velocity(w, b).y);
		if (v > 0 || prev_v > 0)
			peak = fmax(peak, y);
		if (prev_v > 0 && v <= 0)
			apex[n++] = peak, peak = -1;
		prev_v = v;
	}
	fxs_world_destroy(w);
	return n;
}

/* Bounces against the closed form: e = 0.5 from 5 m rises to e^2 5 =
 * 1.25 m within 1%, then to 0.3125 m within 2%; e = 1 to 5 m within 1%.
 * The speed a bounce leaves with comes from the point's normal speed and
 * separation when the step began, and semi-implicit Euler's drift
 * velocities are read as the touch's and the launch's (restitution_speed,
 * solver.h); with e |v| at the step's start the apexes were 1.198, 0.277
 * and 4.81 m (Box3D's 1.9% low). */
TEST(solver_bounce_reaches_e_squared_the_drop)
{
	double a[3];
	CHECK(bounce_apexes(0.5, a, 2) == 2);
	printf("  e = 0.5 from 5 m: apexes %.4f m (%.3f%% from 1.25), %.4f m (%.3f%% from 0.3125)\n", a[0],
	       100 * (a[0] - 1.25) / 1.25, a[1], 100 * (a[1] - 0.3125) / 0.3125);
	CHECKF(fabs(a[0] - 1.25) < 0.01 * 1.25 && fabs(a[1] - 0.3125) < 0.02 * 0.3125, "apexes %.4f, %.4f", a[0], a[1]);
	CHECK(bounce_apexes(1, a, 3) == 3);
	printf("  e = 1 from 5 m: apexes %.4f, %.4f, %.4f m\n", a[0], a[1], a[2]);
	for (int k = 0; k < 3; ++k)
		CHECKF(fabs(a[k] - 5) < 0.01 * 5, "e = 1: apex %d at %.4f m", k + 1, a[k]);
}

/* Newton's cradle: five touching spheres (r 0.25 m, e = 1) in
 * zero gravity, the first at 1 m/s into the other four. The ideal outcome,
 * the last one leaving at 1 m/s and the rest still, is a known limit of
 * sequential impulses, and this solver does not reach it: the impulse is
 * shared through the touching row at once instead of passed along, and
 * restitution, applied contact by contact after the sub-steps, restores the
 * approach speed of the first contact only (the others met no approach).
 * Measured (printed): the first sphere rebounds at -0.348 m/s, the others
 * leave at 0.313, 0.313, 0.361, 0.361 m/s, 58% of the energy kept. What is
 * asserted is what holds: momentum kept within 0.1%, no energy made. */
TEST(solver_newtons_cradle_shares_the_impulse)
{
	fxs_world_def def = fxs_default_world_def();
	def.gravity = fxg_v3_zero();
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	fxs_body_id b[5];
	double m = 0;
	for (int i = 0; i < 5; ++i) {
		b[i] = ball(w, v3(0.5 * i, 0, 0), v3(i == 0 ? 1 : 0, 0, 0), 0.25, 1000, 1);
		m = wide_d(fxs_body_get_mass(w, b[i]));
	}
	for (int s = 0; s < 60; ++s)
		fxs_world_step(w);
	double v[5], p = 0, e = 0;
	for (int i = 0; i < 5; ++i) {
		v[i] = fx(fxs_body_get_linear_velocity(w, b[i]).x);
		p += m * v[i], e += 0.5 * m * v[i] * v[i];
	}
	const double p0 = m * 1, e0 = 0.5 * m;
	printf("  Newton's cradle (5 spheres, e = 1, 1 m/s): %.3f %.3f %.3f %.3f %.3f m/s (ideal 0 0 0 0 1); momentum "
	       "%.4f of its start, energy %.3f\n",
	       v[0], v[1], v[2], v[3], v[4], p / p0, e / e0);
	CHECKF(fabs(p / p0 - 1) < 0.001, "momentum %.5f of its start", p / p0);
	CHECKF(e <= e0 * 1.001, "energy %.4f of its start", e / e0);
	fxs_world_destroy(w);
}

/* ---- the supported ranges ---- */

/* A body resting on the ground for 3 s: how far it sank below (or rose
 * above) touching, its speed at the end, and whether it fell asleep. */
static void rest(double half, double density, double *gap, double *speed, int *asleep)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	box(w, FXS_BODY_STATIC, v3(0, -1, 0), identity, v3(200, 1, 200), 1000, 0.6);
	fxs_body_id b = box(w, FXS_BODY_DYNAMIC, v3(0, half, 0), identity, v3(half, half, half), density, 0.6);
	for (int s = 0; s < 180; ++s)
		fxs_world_step(w);
	fxg_vec3 p = fxs_body_get_position(w, b), v = fxs_body_get_linear_velocity(w, b);
	*gap = fx(p.y) - half;
	*speed = sqrt(fx(v.x) * fx(v.x) + fx(v.y) * fx(v.y) + fx(v.z) * fx(v.z));
	*asleep = fxs_world_get_stats(w).awake_body_count == 0;
	fxs_world_destroy(w);
}

/* Stated ranges: mass 0.01 to 10,000 kg, size 0.05 to 100 m. At each end a
 * cube rests on the ground within 1 cm (and 20% of its half size) of
 * touching and still (under 1 cm/s) after 3 s, and falls asleep — except
 * the light-and-small corner: impulses are Q16.16 N s, and one LSB
 * (1.5e-5 N s) turns a 0.01 kg, 0.1 m cube at 0.045 rad/s, above the sleep
 * tolerance (2 deg/s): such a body rests but keeps jittering by one LSB and
 * stays awake. The limit: mass x size^2 >= 4e-4 kg m^2 to sleep. */
TEST(solver_mass_and_size_range_ends_rest)
{
	static const struct {
		const char *what;
		double half, density; /* mass = 8 half^3 density */
	} cases[] = {
		{ "0.01 kg, 0.05 m", 0.025, 80 },
		{ "0.01 kg, 0.1 m", 0.05, 10 },
		{ "1 kg, 0.1 m", 0.05, 1000 },
		{ "0.01 kg, 0.2 m", 0.1, 1.25 },
		{ "1 m, 0.01 kg", 0.5, 0.01 },
		{ "1 m, 10,000 kg", 0.5, 10000 },
		{ "100 m, 10,000 kg", 50, 0.01 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		double gap, speed;
		int asleep;
		rest(cases[i].half, cases[i].density, &gap, &speed, &asleep);
		printf("  %-18s gap %+.3f mm, speed %.5f m/s, %s\n", cases[i].what, gap * 1000, speed,
		       asleep ? "asleep" : "awake");
		double tol = fmin(0.01, 0.2 * cases[i].half);
		double size = 2 * cases[i].half, mass = 8 * cases[i].half * cases[i].half * cases[i].half * cases[i].density;
		int must_sleep = mass * size * size >= 4e-4;
		if (fabs(gap) >= tol || speed >= 0.01 || (must_sleep && !asleep))
			test_fail(__FILE__, __LINE__, cases[i].what);
	}
}

/* A soft contact at rest is compressed by its load W over the pair's
 * effective mass m times (2 pi hertz)^2 (make_soft's spring, solver.h)
 * until its rest depth (contact.h) lifts what it carries back to
 * FXS_HOLD_DEPTH (0.24 mm) within FXS_HOLD_BAND (0.24 mm). A 100 kg cube
 * (1 m, sleep off) on a 1 kg cube on the ground: the pair's contact, with
 * m = 100 / 101 kg at the default 30 Hz, would hold the upper cube
 * W / (m (2 pi 30)^2) = 28.4 mm into the lower one; after 10 s it is
 * within 1 mm, and has been for its last 5 s. The lower cube against
 * the ground (static: no rest depth; W = 1010 N, m = 1 kg, at twice the
 * hertz) 7.11 mm, within 5% of the closed form. */
TEST(solver_mass_ratio_100_rests_at_its_rest_depth)
{
	fxs_world *w = awake_with_ground(20);
	fxs_body_id lo = box(w, FXS_BODY_DYNAMIC, v3(0, 0.5, 0), identity, v3(0.5, 0.5, 0.5), 1, 0.6);
	fxs_body_id hi = box(w, FXS_BODY_DYNAMIC, v3(0, 1.5, 0), identity, v3(0.5, 0.5, 0.5), 100, 0.6);
	const double g = 10, k30 = pow(2 * PI * 30, 2), k60 = pow(2 * PI * 60, 2);
	const double soft_hi = 100 * g / (100.0 / 101 * k30), want_lo = 101 * g / (1 * k60);
	double worst = 0, pen_hi = 0, pen_lo = 0;
	for (int s = 0; s < 600; ++s) {
		fxs_world_step(w);
		const double y_lo = fx(fxs_body_get_position(w, lo).y), y_hi = fx(fxs_body_get_position(w, hi).y);
		pen_hi = 1 - (y_hi - y_lo), pen_lo = 0.5 - y_lo;
		if (s >= 300)
			worst = fmax(worst, fabs(pen_hi));
	}
	printf("  100 kg on 1 kg: %.2f mm into the lower cube (at most %.2f mm in the last 5 s; soft alone %.2f), "
	       "the lower %.2f mm into the ground (closed form %.2f)\n",
	       pen_hi * 1e3, worst * 1e3, soft_hi * 1e3, pen_lo * 1e3, want_lo * 1e3);
	CHECKF(worst <= 0.001, "upper cube up to %.4f m in over the last 5 s", worst);
	CHECKF(fabs(pen_lo / want_lo - 1) < 0.05, "lower cube %.4f m in (want %.4f)", pen_lo, want_lo);
	fxs_world_destroy(w);
}

/* A column of 40 unit cubes (100 kg, sleep off, 3000 steps). Soft
 * contacts alone would sag by what they are compressed: the contact under
 * k cubes carries k 1000 N on the pair's effective mass 50 kg at 30 Hz,
 * the ground contact 40 000 N on 100 kg at 60 Hz; together sum_k k 1000 /
 * (50 (2 pi 30)^2) + 40 000 / (100 (2 pi 60)^2) = 442 mm. With the rest
 * depth (contact.h) each of the 39 contacts between cubes rests within
 * 0.5 mm, and the ground's 2.8 mm: the top within 30 mm of its height (the
 * issue's 5 cm) at the end, and within 1 cm of the column's axis
 * throughout (Box3D's: 442 mm low, 27.6 mm off). */
TEST(solver_column_of_40_stands_within_its_rest_depths)
{
	fxs_world *w = awake_with_ground(20);
	fxs_body_id top = fxs_null_body;
	for (int i = 0; i < 40; ++i)
		top = box(w, FXS_BODY_DYNAMIC, v3(0, 0.5 + i, 0), identity, v3(0.5, 0.5, 0.5), 100, 0.6);
	const double g = 10, k30 = pow(2 * PI * 30, 2), k60 = pow(2 * PI * 60, 2);
	double soft = 40 * 100 * g / (100 * k60);
	for (int k = 1; k < 40; ++k)
		soft += k * 100 * g / (50 * k30);
	double worst = 0;
	for (int s = 0; s < 3000; ++s) {
		fxs_world_step(w);
		const fxg_vec3 p = fxs_body_get_position(w, top);
		worst = fmax(worst, hypot(fx(p.x), fx(p.z)));
	}
	const fxg_vec3 p = fxs_body_get_position(w, top);
	const double sag = 39.5 - fx(p.y), side = hypot(fx(p.x), fx(p.z));
	printf("  40-cube column: top %.1f mm lower (soft contacts alone %.1f), %.2f mm sideways (%.2f mm at most)\n",
	       sag * 1e3, soft * 1e3, side * 1e3, worst * 1e3);
	CHECKF(sag > 0 && sag < 0.03 && worst < 0.01, "sag %.4f m, %.4f m sideways at most", sag, worst);
	fxs_world_destroy(w);
}

/* Stated mass ratio: 10:1 between touching dynamic bodies. A 100 kg cube on
 * a 10 kg cube on the ground, and a 10 kg on a 100 kg one, stand within 1 cm
 * (lower) and 2 cm (upper) of touching. 100:1: solver_mass_ratio_100_rests_
 * at_its_rest_depth. */
TEST(solver_mass_ratio_10_stacks_stand)
{
	for (int k = 0; k < 2; ++k) {
		fxs_world_def def = fxs_default_world_def();
		fxs_world *w = fxs_world_create(&def);
		box(w, FXS_BODY_STATIC, v3(0, -1, 0), identity, v3(20, 1, 20), 1000, 0.6);
		double d_low = k == 0 ? 10 : 100, d_high = k == 0 ? 100 : 10;
		fxs_body_id lo = box(w, FXS_BODY_DYNAMIC, v3(0, 0.5, 0), identity, v3(0.5, 0.5, 0.5), d_low, 0.6);
		fxs_body_id hi = box(w, FXS_BODY_DYNAMIC, v3(0, 1.5, 0), identity, v3(0.5, 0.5, 0.5), d_high, 0.6);
		for (int s = 0; s < 300; ++s)
			fxs_world_step(w);
		double y_lo = fx(fxs_body_get_position(w, lo).y), y_hi = fx(fxs_body_get_position(w, hi).y);
		printf("  %g kg on %g kg: lower at %.4f m, upper at %.4f m (1.5 when touching)\n", d_high, d_low, y_lo, y_hi);
		CHECKF(fabs(y_lo - 0.5) < 0.01 && fabs(y_hi - 1.5) < 0.02, "ratio stack: %.4f %.4f", y_lo, y_hi);
		fxs_world_destroy(w);
	}
}
