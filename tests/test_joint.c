/* Joints: physics against physics with stated tolerances (pendulum period,
 * chain error, spring frequency, limits, motors), plus ids, destruction,
 * the contact filter and snapshot round trips. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "fixstep/fixstep.h"
#include "scenes/scenes.h"
#include "test.h"
#include "snapshot_util.h"

#define PI 3.14159265358979323846

static double fx(fix16_t v) { return v / 65536.0; }
static fix16_t tofx(double v) { return (fix16_t)lround(v * 65536.0); }

static fxs_world *world_with(fxg_vec3 gravity)
{
	fxs_world_def def = fxs_default_world_def();
	def.gravity = gravity;
	return fxs_world_create(&def);
}

static fxs_body_id sphere(fxs_world *w, fxs_body_type type, double x, double y, double z, double r)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.position = fxg_v3(tofx(x), tofx(y), tofx(z));
	d.shape.radius = tofx(r);
	return fxs_body_create(w, &d);
}

static double dist(fxg_vec3 a, fxg_vec3 b)
{
	double dx = fx(a.x) - fx(b.x), dy = fx(a.y) - fx(b.y), dz = fx(a.z) - fx(b.z);
	return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Mean period of a signal from its upward zero crossings (linear
 * interpolation between steps); 0 if fewer than three. */
static double period_from_crossings(const double *s, int n, double dt, int *crossings)
{
	double first = -1, last = -1;
	int count = 0;
	for (int i = 1; i < n; ++i) {
		if (s[i - 1] < 0 && s[i] >= 0) {
			double t = (i - 1 + s[i - 1] / (s[i - 1] - s[i])) * dt;
			if (count == 0)
				first = t;
			last = t;
			++count;
		}
	}
	*crossings = count;
	return count >= 3 ? (last - first) / (count - 1) : 0;
}

/* Small-angle period of a hinge pendulum: 1 m, released at 0.1 rad, within
 * 2% of 2 pi sqrt(L / g), measured over about six periods. */
TEST(joint_hinge_pendulum_period_within_2_percent)
{
	fxs_world *w = world_with(fxg_v3(0, FXG_I(-10), 0));
	const double L = 1.0, th = 0.1;
	fxs_body_id pivot = sphere(w, FXS_BODY_STATIC, 0, 0, 0, 0.05);
	fxs_body_id bob = sphere(w, FXS_BODY_DYNAMIC, L * sin(th), -L * cos(th), 0, 0.05);
	fxs_joint_def h = fxs_default_hinge_joint_def();
	h.body_a = pivot;
	h.body_b = bob;
	h.local_anchor_b = fxg_v3(tofx(-L * sin(th)), tofx(L * cos(th)), 0);
	fxs_joint_id j = fxs_joint_create(w, &h);
	CHECK(fxs_joint_is_valid(w, j));
	const int n = 720;
	double *x = malloc(sizeof *x * n), dt = fx(fxs_world_get_def(w).dt);
	for (int i = 0; i < n; ++i) {
		fxs_world_step(w);
		x[i] = fx(fxs_body_get_position(w, bob).x);
	}
	int crossings;
	double T = period_from_crossings(x, n, dt, &crossings);
	free(x);
	double expect = 2 * PI * sqrt(L / 10.0);
	double err = fabs(T - expect) / expect;
	printf("  hinge pendulum: period %.4f s, 2 pi sqrt(L/g) %.4f s, error %.2f%% over %d crossings\n", T, expect,
	       100 * err, crossings);
	CHECKF(crossings >= 5 && err < 0.02, "period %.4f vs %.4f (%.2f%%)", T, expect, 100 * err);
	/* the hinge keeps the bob in its plane */
	CHECK(fabs(fx(fxs_body_get_position(w, bob).z)) < 1e-3);
	fxs_world_destroy(w);
}

/* The exact period of a pendulum of length L released at th0 (rad) at g,
 * whose moment of inertia about the pivot is L^2 + k2 per unit mass:
 * 4 sqrt((L^2 + k2) / (g L)) K(sin(th0 / 2)), K by the arithmetic-geometric
 * mean. */
static double pendulum_period(double L, double k2, double g, double th0)
{
	double a = 1, b = sqrt(1 - pow(sin(th0 / 2), 2));
	for (int i = 0; i < 30; ++i) {
		double m = (a + b) / 2;
		b = sqrt(a * b), a = m;
	}
	return 4 * sqrt((L * L + k2) / (g * L)) * (PI / (2 * a));
}

/* A 2 m pendulum released at 90 degrees at the default settings, with a
 * 0.1 m ball bob: on a hinge (rows in joint.c's wide form) and on a ball
 * joint (in a batch, joint_batch.c), both anchored at the pivot so that
 * the bob turns with the swing (a physical pendulum, 3.3183 s); and on a
 * distance joint between the centres, where the bob does not turn (a point
 * mass, 3.3167 s). The first period (the first and third crossings of the
 * bottom, interpolated between steps) within 0.1% of the exact one, and
 * the swing after ten periods (the peak between the 20th and 21st
 * crossings) between 89 and 90.5 degrees: the joints neither lose nor make
 * more than 2% of the energy in ten swings. */
static void swing(int type, double *period, double *amplitude)
{
	fxs_world *w = world_with(fxg_v3(0, FXG_I(-10), 0));
	fxs_body_id pivot = sphere(w, FXS_BODY_STATIC, 0, 0, 0, 0.05);
	fxs_body_id bob = sphere(w, FXS_BODY_DYNAMIC, 2, 0, 0, 0.1);
	fxs_joint_def j = type == FXS_JOINT_HINGE ? fxs_default_hinge_joint_def()
						  : (type == FXS_JOINT_BALL ? fxs_default_ball_joint_def() : fxs_default_distance_joint_def());
	j.body_a = pivot;
	j.body_b = bob;
	if (type != FXS_JOINT_DISTANCE)
		j.local_anchor_b = fxg_v3(tofx(-2), 0, 0);
	fxs_joint_create(w, &j);
	double dt = fx(fxs_world_get_def(w).dt), prev = 90, peak = 0, cross[24], peaks[24];
	int n = 0;
	for (int s = 1; s <= 3000 && n < 22; ++s) {
		fxs_world_step(w);
		fxg_vec3 p = fxs_body_get_position(w, bob);
		double a = atan2(fx(p.x), -fx(p.y)) * 180 / PI;
		peak = fmax(peak, fabs(a));
		if ((prev > 0) != (a > 0)) {
			cross[n] = (s - 1 + prev / (prev - a)) * dt;
			peaks[n++] = peak;
			peak = 0;
		}
		prev = a;
	}
	*period = n >= 3 ? cross[2] - cross[0] : 0;
	*amplitude = n >= 22 ? peaks[21] : 0;
	fxs_world_destroy(w);
}

TEST(joint_pendulum_released_at_90_degrees_keeps_its_period_and_swing)
{
	const double g = 10, L = 2, r = 0.1;
	const double exact_ball = pendulum_period(L, 0.4 * r * r, g, PI / 2), exact_point = pendulum_period(L, 0, g, PI / 2);
	const int types[3] = { FXS_JOINT_HINGE, FXS_JOINT_BALL, FXS_JOINT_DISTANCE };
	const char *names[3] = { "hinge", "ball", "distance" };
	for (int k = 0; k < 3; ++k) {
		double T, amp, exact = types[k] == FXS_JOINT_DISTANCE ? exact_point : exact_ball;
		swing(types[k], &T, &amp);
		double err = (T - exact) / exact;
		printf("  2 m pendulum at 90 deg, %-8s first period %.4f s (exact %.4f s, %+.3f%%), swing after 10 periods %.2f deg\n",
		       names[k], T, exact, 100 * err, amp);
		CHECKF(fabs(err) < 0.001, "%s: period %.5f s, exact %.5f s", names[k], T, exact);
		CHECKF(amp >= 89 && amp <= 90.5, "%s: swing %.3f deg after 10 periods", names[k], amp);
	}
}

/* A 20-link chain of ball joints (spheres of 0.1 m, 0.25 m apart) released
 * horizontally, damped, settles and hangs straight. A soft joint sags like a
 * spring of stiffness m omega^2 (omega = 2 pi hertz): the top joint, which
 * carries 20 links, opens by about (20 g / (m/2)) / omega^2. At the default
 * 4 sub-steps and 60 Hz that is 2.8 mm (tolerance 3 mm); at 8 sub-steps and
 * 120 Hz it is 0.7 mm, and every joint's error is below 1 mm. */
static double chain_error(int substeps, int hertz, uint32_t direct_rows, double *swinging, double *bottom)
{
	fxs_world_def def = fxs_default_world_def();
	def.substeps = substeps;
	def.direct_joint_rows = direct_rows;
	fxs_world *w = fxs_world_create(&def);
	fxs_body_id prev = sphere(w, FXS_BODY_STATIC, 0, 0, 0, 0.05);
	fxs_joint_id joints[20];
	for (int i = 0; i < 20; ++i) {
		fxs_body_def d = fxs_default_body_def();
		d.position = fxg_v3(tofx(0.25 * (i + 1)), 0, 0);
		d.shape.radius = tofx(0.1);
		d.linear_damping = FXG_ONE;
		d.angular_damping = FXG_ONE;
		fxs_body_id link = fxs_body_create(w, &d);
		fxs_joint_def j = fxs_default_ball_joint_def();
		j.body_a = prev;
		j.body_b = link;
		j.local_anchor_a = fxg_v3(tofx(0.125), 0, 0);
		j.local_anchor_b = fxg_v3(tofx(-0.125), 0, 0);
		j.hertz = FXG_I(hertz);
		joints[i] = fxs_joint_create(w, &j);
		prev = link;
	}
	*swinging = 0;
	for (int s = 0; s < 1800; ++s) {
		fxs_world_step(w);
		for (int i = 0; i < 20; ++i) {
			double e = dist(fxs_joint_get_anchor_a(w, joints[i]), fxs_joint_get_anchor_b(w, joints[i]));
			if (e > *swinging)
				*swinging = e;
		}
	}
	double worst = 0;
	for (int i = 0; i < 20; ++i) {
		double e = dist(fxs_joint_get_anchor_a(w, joints[i]), fxs_joint_get_anchor_b(w, joints[i]));
		if (e > worst)
			worst = e;
	}
	*bottom = fx(fxs_body_get_position(w, fxs_joint_get_body_b(w, joints[19])).y);
	fxs_world_destroy(w);
	return worst;
}

TEST(joint_chain_of_20_hangs_with_error_below_1mm)
{
	/* the default: the chain's island (60 rows) is solved exactly (L D L^T,
	 * solver_direct.c); the iterative solver alone for comparison */
	double swinging, bottom;
	uint64_t t0 = test_now_ns();
	double e = chain_error(4, 60, 96, &swinging, &bottom);
	double t_direct = (double)(test_now_ns() - t0) / 1800e6;
	printf("  chain, 4 sub-steps, 60 Hz, direct:    worst joint error %.3f mm hanging (%.3f mm while swinging), "
	       "%.3f ms/step, bottom at y = %.3f m\n",
	       e * 1000, swinging * 1000, t_direct, bottom);
	CHECKF(e < 0.001, "joint error %.4f m", e);
	/* 0.125 + 19 x 0.25 m below the pivot */
	CHECKF(fabs(bottom + 4.875) < 0.01, "bottom at %.4f", bottom);
	t0 = test_now_ns();
	double ei = chain_error(4, 60, 0, &swinging, &bottom);
	double t_iter = (double)(test_now_ns() - t0) / 1800e6;
	printf("  chain, 4 sub-steps, 60 Hz, iterative: worst joint error %.3f mm hanging (%.3f mm while swinging), "
	       "%.3f ms/step\n",
	       ei * 1000, swinging * 1000, t_iter);
	CHECKF(ei < 0.004 && e < ei / 10, "iterative %.4f, direct %.4f", ei, e);
	e = chain_error(8, 120, 0, &swinging, &bottom);
	printf("  chain, 8 sub-steps, 120 Hz, iterative: worst joint error %.3f mm hanging (%.3f mm while swinging)\n",
	       e * 1000, swinging * 1000);
	CHECKF(e < 0.001, "joint error %.4f m", e);
}

/* A distance joint with a spring of 2 Hz (no damping, no gravity) holding a
 * ball to a static body oscillates at 2 Hz within 3%. */
TEST(joint_distance_spring_oscillates_at_its_hertz)
{
	fxs_world *w = world_with(fxg_v3_zero());
	fxs_body_id anchor = sphere(w, FXS_BODY_STATIC, 0, 0, 0, 0.05);
	fxs_body_id ball = sphere(w, FXS_BODY_DYNAMIC, 1.1, 0, 0, 0.1);
	fxs_joint_def d = fxs_default_distance_joint_def();
	d.body_a = anchor;
	d.body_b = ball;
	d.length = FXG_ONE;
	d.enable_spring = true;
	d.spring_hertz = FXG_I(2);
	d.spring_damping_ratio = 0;
	fxs_joint_id j = fxs_joint_create(w, &d);
	CHECK(fxs_joint_is_valid(w, j));
	const int n = 300;
	double *x = malloc(sizeof *x * n), dt = fx(fxs_world_get_def(w).dt);
	double amp_end = 0;
	for (int i = 0; i < n; ++i) {
		fxs_world_step(w);
		x[i] = fx(fxs_body_get_position(w, ball).x) - 1.0;
		if (i >= n - 40 && fabs(x[i]) > amp_end)
			amp_end = fabs(x[i]);
	}
	int crossings;
	double T = period_from_crossings(x, n, dt, &crossings);
	free(x);
	double f = T > 0 ? 1 / T : 0, err = fabs(f - 2.0) / 2.0;
	printf("  distance spring: %.4f Hz (set 2 Hz), error %.2f%%, amplitude 0.1 -> %.4f m after 5 s\n", f, 100 * err,
	       amp_end);
	CHECKF(crossings >= 5 && err < 0.03, "frequency %.4f Hz", f);
	fxs_world_destroy(w);
}

/* A rigid distance joint (a rod) keeps its length within 1 mm while the ball
 * swings, and a min/max range lets it move only inside the range. */
TEST(joint_distance_rod_and_range)
{
	fxs_world *w = world_with(fxg_v3(0, FXG_I(-10), 0));
	fxs_body_id anchor = sphere(w, FXS_BODY_STATIC, 0, 0, 0, 0.05);
	fxs_body_id ball = sphere(w, FXS_BODY_DYNAMIC, 1, 0, 0, 0.1);
	fxs_joint_def d = fxs_default_distance_joint_def();
	d.body_a = anchor;
	d.body_b = ball;
	fxs_joint_id j = fxs_joint_create(w, &d);
	CHECK(fxs_joint_is_valid(w, j));
	double worst = 0;
	for (int i = 0; i < 240; ++i) {
		fxs_world_step(w);
		double e = fabs(fx(fxs_joint_get_position(w, j)) - 1.0);
		worst = e > worst ? e : worst;
	}
	printf("  distance rod: worst length error %.3f mm\n", worst * 1000);
	CHECKF(worst < 0.002, "rod length error %.4f", worst);
	fxs_world_destroy(w);
	/* free between 0.5 and 1.5 m: falls from 1 m straight down to 1.5 m and stays */
	w = world_with(fxg_v3(0, FXG_I(-10), 0));
	anchor = sphere(w, FXS_BODY_STATIC, 0, 0, 0, 0.05);
	ball = sphere(w, FXS_BODY_DYNAMIC, 0, -1, 0, 0.1);
	d = fxs_default_distance_joint_def();
	d.body_a = anchor;
	d.body_b = ball;
	d.enable_spring = true;
	d.spring_hertz = 0;
	d.enable_limit = true;
	d.lower = FXG_HALF;
	d.upper = tofx(1.5);
	j = fxs_joint_create(w, &d);
	CHECK(fxs_joint_is_valid(w, j));
	double longest = 0;
	for (int i = 0; i < 240; ++i) {
		fxs_world_step(w);
		double l = fx(fxs_joint_get_position(w, j));
		longest = l > longest ? l : longest;
	}
	double l = fx(fxs_joint_get_position(w, j));
	printf("  distance range: longest %.4f m, at rest %.4f m (max 1.5)\n", longest, l);
	CHECKF(longest < 1.52 && fabs(l - 1.5) < 0.005, "length %.4f, longest %.4f", l, longest);
	fxs_world_destroy(w);
}

/* A horizontal hinge pendulum (1 m) with limits [-0.5, 0.5] rad falls onto
 * its lower limit (arriving at 3 rad/s) and rests there: the angle passes it
 * by less than 0.1 rad on impact and settles within 0.02 rad of it. */
TEST(joint_hinge_limit_holds)
{
	fxs_world *w = world_with(fxg_v3(0, FXG_I(-10), 0));
	fxs_body_id pivot = sphere(w, FXS_BODY_STATIC, 0, 0, 0, 0.05);
	fxs_body_def bd = fxs_default_body_def();
	bd.position = fxg_v3(FXG_ONE, 0, 0);
	bd.shape.radius = tofx(0.1);
	bd.angular_damping = FXG_I(2);
	fxs_body_id bob = fxs_body_create(w, &bd);
	fxs_joint_def h = fxs_default_hinge_joint_def();
	h.body_a = pivot;
	h.body_b = bob;
	h.local_anchor_b = fxg_v3(-FXG_ONE, 0, 0);
	h.enable_limit = true;
	h.lower = -FXG_HALF;
	h.upper = FXG_HALF;
	fxs_joint_id j = fxs_joint_create(w, &h);
	CHECK(fxs_joint_is_valid(w, j));
	double lowest = 0;
	for (int i = 0; i < 300; ++i) {
		fxs_world_step(w);
		double a = fx(fxs_joint_get_position(w, j));
		lowest = a < lowest ? a : lowest;
	}
	double a = fx(fxs_joint_get_position(w, j));
	printf("  hinge limit -0.5 rad: lowest %.4f rad, at rest %.4f rad\n", lowest, a);
	CHECKF(lowest > -0.6 && fabs(a + 0.5) < 0.02, "angle %.4f, lowest %.4f", a, lowest);
	fxs_world_destroy(w);
}

/* A hinge motor (2 rad/s, enough torque) spins a wheel up to its speed
 * within 1%; a weak motor (20 N m) accelerates it at torque / inertia
 * within 5%. */
TEST(joint_hinge_motor_reaches_its_speed)
{
	fxs_world *w = world_with(fxg_v3_zero());
	fxs_body_id base = sphere(w, FXS_BODY_STATIC, 0, 0, 0, 0.05);
	fxs_body_id wheel = sphere(w, FXS_BODY_DYNAMIC, 0, 0, 1, 0.5);
	fxs_joint_def h = fxs_default_hinge_joint_def();
	h.body_a = base;
	h.body_b = wheel;
	h.local_anchor_a = fxg_v3(0, 0, FXG_ONE);
	h.enable_motor = true;
	h.motor_speed = FXG_I(2);
	h.max_motor_force = FXG_I(1000);
	fxs_joint_id j = fxs_joint_create(w, &h);
	CHECK(fxs_joint_is_valid(w, j));
	for (int i = 0; i < 60; ++i)
		fxs_world_step(w);
	double wz = fx(fxs_body_get_angular_velocity(w, wheel).z);
	printf("  hinge motor: %.4f rad/s (set 2)\n", wz);
	CHECKF(fabs(wz - 2.0) < 0.02, "speed %.4f", wz);
	/* the weak motor: alpha = 20 / I, I = 2/5 m r^2 */
	fxs_joint_set_motor(w, j, true, FXG_I(100), FXG_I(20));
	fxs_body_set_angular_velocity(w, wheel, fxg_v3_zero());
	double I = 0.4 * (1000 * 4.0 / 3.0 * PI * 0.125) * 0.25;
	for (int i = 0; i < 60; ++i)
		fxs_world_step(w);
	double alpha = fx(fxs_body_get_angular_velocity(w, wheel).z) / (60 * fx(fxs_world_get_def(w).dt));
	printf("  weak motor: %.5f rad/s^2 (torque / inertia %.5f)\n", alpha, 20 / I);
	CHECKF(fabs(alpha - 20 / I) < 0.05 * 20 / I, "alpha %.5f", alpha);
	fxs_world_destroy(w);
}

/* A fixed joint holds a box cantilevered off a static body: it sags less
 * than 5 mm and turns less than 0.01 rad. */
TEST(joint_fixed_holds_a_cantilever)
{
	fxs_world *w = world_with(fxg_v3(0, FXG_I(-10), 0));
	fxs_body_id wall = sphere(w, FXS_BODY_STATIC, 0, 0, 0, 0.05);
	fxs_body_def bd = fxs_default_body_def();
	bd.position = fxg_v3(FXG_ONE, 0, 0);
	bd.shape.type = FXS_SHAPE_BOX;
	bd.shape.half_extents = fxg_v3(tofx(0.5), tofx(0.1), tofx(0.1));
	fxs_body_id beam = fxs_body_create(w, &bd);
	fxs_joint_def f = fxs_default_fixed_joint_def();
	f.body_a = wall;
	f.body_b = beam;
	f.local_anchor_a = fxg_v3(tofx(0.5), 0, 0);
	f.local_anchor_b = fxg_v3(tofx(-0.5), 0, 0);
	CHECK(fxs_joint_is_valid(w, fxs_joint_create(w, &f)));
	for (int i = 0; i < 240; ++i)
		fxs_world_step(w);
	double y = fx(fxs_body_get_position(w, beam).y);
	fxg_quat q = fxs_body_get_rotation(w, beam);
	double turn = 2 * asin(fabs(fx(q.z)));
	printf("  fixed joint: beam sag %.3f mm, turn %.5f rad\n", -y * 1000, turn);
	CHECKF(fabs(y) < 0.005 && turn < 0.01, "sag %.4f, turn %.4f", y, turn);
	fxs_world_destroy(w);
}

/* A prismatic joint along a 45 degree slope: the body slides along the axis
 * only (off-axis error below 1 mm), stops at the upper limit, and a motor
 * drives it back at its speed. */
TEST(joint_prismatic_slides_on_its_axis)
{
	fxs_world *w = world_with(fxg_v3(0, FXG_I(-10), 0));
	fxs_body_id base = sphere(w, FXS_BODY_STATIC, 0, 0, 0, 0.05);
	fxs_body_id slider = sphere(w, FXS_BODY_DYNAMIC, 0, 0, 0, 0.2);
	fxs_joint_def p = fxs_default_prismatic_joint_def();
	p.body_a = base;
	p.body_b = slider;
	p.local_axis_a = fxg_v3(FXG_ONE, -FXG_ONE, 0); /* down the slope */
	p.enable_limit = true;
	p.lower = -FXG_ONE;
	p.upper = FXG_ONE;
	fxs_joint_id j = fxs_joint_create(w, &p);
	CHECK(fxs_joint_is_valid(w, j));
	double worst_off = 0;
	for (int i = 0; i < 180; ++i) {
		fxs_world_step(w);
		fxg_vec3 x = fxs_body_get_position(w, slider);
		double off = fabs(fx(x.x) + fx(x.y)) / sqrt(2.0) + fabs(fx(x.z));
		worst_off = off > worst_off ? off : worst_off;
	}
	double s = fx(fxs_joint_get_position(w, j));
	printf("  prismatic: at the upper limit %.4f m (1), worst off-axis %.3f mm\n", s, worst_off * 1000);
	CHECKF(fabs(s - 1.0) < 0.01 && worst_off < 0.001, "translation %.4f, off-axis %.4f", s, worst_off);
	fxs_joint_set_motor(w, j, true, -FXG_ONE, FXG_I(1000));
	for (int i = 0; i < 30; ++i)
		fxs_world_step(w);
	fxg_vec3 v = fxs_body_get_linear_velocity(w, slider);
	double along = (fx(v.x) - fx(v.y)) / sqrt(2.0);
	printf("  prismatic motor: %.4f m/s (set -1)\n", along);
	CHECKF(fabs(along + 1.0) < 0.02, "speed %.4f", along);
	fxs_world_destroy(w);
}

/* Every joint type in one world, with limits, motors and a spring. */
static fxs_world *all_joints_world(void)
{
	fxs_world *w = world_with(fxg_v3(0, FXG_I(-10), 0));
	fxs_body_id ground = sphere(w, FXS_BODY_STATIC, 0, 0, 0, 0.05);
	int types[5] = { FXS_JOINT_BALL, FXS_JOINT_HINGE, FXS_JOINT_FIXED, FXS_JOINT_DISTANCE, FXS_JOINT_PRISMATIC };
	for (int t = 0; t < 5; ++t) {
		fxs_body_id a = sphere(w, FXS_BODY_DYNAMIC, 2.0 * t, 0, 0, 0.2);
		fxs_body_id b = sphere(w, FXS_BODY_DYNAMIC, 2.0 * t + 0.7, -0.3, 0.1, 0.2);
		fxs_joint_def d = fxs_default_ball_joint_def();
		d.body_a = ground;
		d.body_b = a;
		d.local_anchor_b = fxg_v3(tofx(-2.0 * t), 0, 0);
		fxs_joint_create(w, &d);
		switch (types[t]) {
		case FXS_JOINT_BALL: d = fxs_default_ball_joint_def(); break;
		case FXS_JOINT_HINGE:
			d = fxs_default_hinge_joint_def();
			d.enable_limit = true, d.lower = -FXG_HALF, d.upper = FXG_HALF / 2;
			d.enable_motor = true, d.motor_speed = FXG_ONE, d.max_motor_force = FXG_I(5);
			break;
		case FXS_JOINT_FIXED: d = fxs_default_fixed_joint_def(); break;
		case FXS_JOINT_DISTANCE:
			d = fxs_default_distance_joint_def();
			d.enable_spring = true, d.spring_hertz = FXG_I(3), d.spring_damping_ratio = FXG_HALF / 2;
			d.enable_limit = true, d.lower = FXG_HALF, d.upper = FXG_ONE;
			break;
		default:
			d = fxs_default_prismatic_joint_def();
			d.local_axis_a = fxg_v3(FXG_ONE, FXG_ONE, 0);
			d.enable_limit = true, d.lower = -FXG_HALF, d.upper = FXG_HALF;
			d.enable_motor = true, d.motor_speed = FXG_HALF, d.max_motor_force = FXG_I(50);
			break;
		}
		d.body_a = a;
		d.body_b = b;
		d.local_anchor_a = fxg_v3(tofx(0.35), tofx(-0.15), 0);
		d.local_anchor_b = fxg_v3(tofx(-0.35), tofx(0.15), tofx(-0.1));
		fxs_joint_create(w, &d);
	}
	return w;
}

TEST(joint_every_type_creates_and_moves)
{
	fxs_world *w = all_joints_world();
	CHECK(fxs_world_joint_count(w) == 10);
	for (int i = 0; i < 120; ++i)
		fxs_world_step(w);
	CHECK(fxs_world_get_stats(w).overflows_total == 0);
	fxs_world_destroy(w);
}

/* snapshot -> restore -> step gives the same hashes as never stopping */
static bool synctest_world(fxs_world *w, int k, int n)
{
	for (int i = 0; i < k; ++i)
		fxs_world_step(w);
	size_t len = fxs_world_snapshot_size(w);
	void *snap = malloc(len);
	if (!snap || fxs_world_snapshot_save(w, snap, len, &len) != FXS_OK)
		return false;
	fxs_result err;
	fxs_world *r = fxs_world_create_from_snapshot(snap, len, &err);
	bool ok = r && err == FXS_OK && fxs_world_hash(r) == fxs_world_hash(w);
	for (int i = 0; ok && i < n; ++i) {
		fxs_world_step(w);
		fxs_world_step(r);
		ok = fxs_world_hash(w) == fxs_world_hash(r);
	}
	/* and a restore into the running world itself */
	if (ok) {
		uint64_t h = fxs_world_hash(w);
		ok = fxs_world_snapshot_restore(r, snap, len) == FXS_OK;
		for (int i = 0; ok && i < n; ++i)
			fxs_world_step(r);
		ok = ok && fxs_world_hash(r) == h;
	}
	free(snap);
	fxs_world_destroy(r);
	return ok;
}

TEST(joint_synctest_with_every_type)
{
	fxs_world *w = all_joints_world();
	CHECK(synctest_world(w, 37, 50));
	fxs_world_destroy(w);
	w = fxs_scene_find("pendulum")->create();
	CHECK(synctest_world(w, 25, 40));
	fxs_world_destroy(w);
	w = fxs_scene_find("joint_grid_10")->create();
	CHECK(synctest_world(w, 10, 20));
	fxs_world_destroy(w);
}

/* the state covers the joints: a changed impulse or definition changes the hash */
TEST(joint_state_is_hashed_and_checked)
{
	fxs_world *a = all_joints_world(), *b = all_joints_world();
	CHECK(fxs_world_hash(a) == fxs_world_hash(b));
	fxs_joint_set_motor(b, fxs_world_joint_at(b, 3), true, FXG_I(2), FXG_I(5));
	CHECK(fxs_world_hash(a) != fxs_world_hash(b));
	fxs_world_destroy(b);
	/* a snapshot carries every joint (bad joint records: see
	 * joint_snapshot_reader_refuses_bad_joints) */
	for (int i = 0; i < 10; ++i)
		fxs_world_step(a);
	size_t len = fxs_world_snapshot_size(a);
	uint8_t *snap = malloc(len);
	CHECK(fxs_world_snapshot_save(a, snap, len, &len) == FXS_OK);
	fxs_result err;
	fxs_world *r = fxs_world_create_from_snapshot(snap, len, &err);
	CHECK(r && fxs_world_joint_count(r) == 10);
	fxs_world_destroy(r);
	free(snap);
	fxs_world_destroy(a);
}

/* Destroying a body destroys its joints (and only those); the slots are
 * reused lowest first with new generations. */
TEST(joint_destroying_a_body_removes_its_joints)
{
	fxs_world *w = fxs_scene_find("pendulum")->create();
	uint32_t before = fxs_world_joint_count(w);
	CHECK(before == 21);
	/* body slots: 0 pivot, 1 bob, 2 the chain's static anchor, 3.. links;
	 * joint 0 is the hinge, joint k joins body slots k + 1 and k + 2 */
	fxs_body_id link = fxs_world_body_at(w, 8);
	fxs_joint_id j5 = fxs_world_joint_at(w, 6), j6 = fxs_world_joint_at(w, 7);
	CHECK(fxs_joint_is_valid(w, j5) && fxs_joint_is_valid(w, j6));
	CHECK(fxs_joint_get_body_b(w, j5).index1 == link.index1 && fxs_joint_get_body_a(w, j6).index1 == link.index1);
	CHECK(fxs_body_destroy(w, link));
	CHECK(fxs_world_joint_count(w) == before - 2);
	CHECK(!fxs_joint_is_valid(w, j5) && !fxs_joint_is_valid(w, j6));
	for (int i = 0; i < 30; ++i)
		fxs_world_step(w);
	/* a new joint takes the lowest free slot, with a new generation */
	fxs_joint_def d = fxs_default_ball_joint_def();
	d.body_a = fxs_world_body_at(w, 9);
	d.body_b = fxs_world_body_at(w, 7);
	fxs_joint_id n = fxs_joint_create(w, &d);
	CHECK(n.index1 == j5.index1 && n.generation != j5.generation);
	CHECK(fxs_joint_destroy(w, n) && !fxs_joint_destroy(w, n));
	/* bad definitions */
	d.body_b = d.body_a;
	CHECK(!fxs_joint_is_valid(w, fxs_joint_create(w, &d)));
	d = fxs_default_hinge_joint_def();
	d.body_a = fxs_world_body_at(w, 0);
	d.body_b = fxs_world_body_at(w, 1);
	d.local_axis_a = fxg_v3_zero();
	CHECK(!fxs_joint_is_valid(w, fxs_joint_create(w, &d)));
	fxs_world_destroy(w);
}

/* Two bodies overlapping get a contact unless jointed (collide_connected
 * false); with collide_connected true they collide again. */
TEST(joint_jointed_bodies_do_not_collide)
{
	for (int cc = 0; cc < 2; ++cc) {
		fxs_world *w = world_with(fxg_v3_zero());
		fxs_body_id a = sphere(w, FXS_BODY_DYNAMIC, 0, 0, 0, 0.5);
		fxs_body_id b = sphere(w, FXS_BODY_DYNAMIC, 0.8, 0, 0, 0.5);
		fxs_joint_def d = fxs_default_distance_joint_def();
		d.body_a = a;
		d.body_b = b;
		d.collide_connected = cc;
		CHECK(fxs_joint_is_valid(w, fxs_joint_create(w, &d)));
		fxs_world_step(w);
		CHECKF(fxs_world_get_stats(w).contact_count == (uint32_t)cc, "collide_connected %d: %u contacts", cc,
		       fxs_world_get_stats(w).contact_count);
		fxs_world_destroy(w);
	}
}

/* The snapshot reader bounds-checks every joint field: a record with a bad
 * enum, flag, body slot, number or impulse is refused as corrupt (with a
 * valid checksum, so the check behind it is the one that answers), and the
 * world it was restored into is left unchanged. */

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; ++i)
		p[i] = (uint8_t)(v >> (8 * i));
}

TEST(joint_snapshot_reader_refuses_bad_joints)
{
	fxs_world *w = world_with(fxg_v3(0, FXG_I(-10), 0));
	fxs_body_id a = sphere(w, FXS_BODY_STATIC, 0, 0, 0, 0.05);
	fxs_body_id b = sphere(w, FXS_BODY_DYNAMIC, 1, 0, 0, 0.1);
	fxs_joint_def d = fxs_default_ball_joint_def();
	d.body_a = a;
	d.body_b = b;
	d.local_anchor_b = fxg_v3(-FXG_ONE, 0, 0);
	CHECK(fxs_joint_is_valid(w, fxs_joint_create(w, &d)));
	for (int i = 0; i < 5; ++i)
		fxs_world_step(w);
	uint64_t before = fxs_world_hash(w);
	size_t len;
	uint8_t *snap = raw_snapshot(w, &len); /* the state's bytes, to change them */
	uint8_t *bad = malloc(len);
	CHECK(snap && bad);
	/* the joints section ends the payload (no meshes): u32 slot count, then
	 * the one ball record of 71 bytes: generation 4, alive 1, type 1, flags 1,
	 * a 4, b 4, anchors 24, hertz 4, damping ratio 4, impulses 3 x 8 */
	size_t rec = len - 8 - 71;
	CHECK(snap[rec + 4] == 1 && snap[rec + 5] == FXS_JOINT_BALL && snap[rec + 7] == 0 && snap[rec + 11] == 1);
	struct {
		size_t at;
		uint32_t value;
		int width;
	} cases[] = {
		{ 4, 2, 1 },                      /* alive not 0 or 1 */
		{ 5, 9, 1 },                      /* type */
		{ 6, 2, 1 },                      /* a ball joint has no limit */
		{ 6, 0x10, 1 },                   /* unknown flag */
		{ 7, 1, 4 },                      /* a == b */
		{ 7, 7, 4 },                      /* a beyond the slots */
		{ 11, 0xFFFFFFFFu, 4 },           /* b beyond the slots */
		{ 39, 0, 4 },                     /* hertz 0 */
		{ 43, 0x80000000u, 4 },           /* negative damping ratio */
		{ 15, (uint32_t)FXG_I(2000), 4 }, /* anchor beyond 1000 m */
		{ 51, 0x00010000u, 4 },           /* impulse 0 high word 2^48: beyond 2^47 */
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
		memcpy(bad, snap, len);
		if (cases[k].width == 1)
			bad[rec + cases[k].at] = (uint8_t)cases[k].value;
		else
			put_u32(bad + rec + cases[k].at, cases[k].value);
		snapshot_reseal(bad, len);
		fxs_result e = fxs_world_snapshot_restore(w, bad, len);
		CHECKF(e == FXS_ERR_CORRUPT, "case %zu: %s", k, fxs_result_string(e));
		CHECK(fxs_world_hash(w) == before);
	}
	/* the untouched snapshot restores */
	CHECK(fxs_world_snapshot_restore(w, snap, len) == FXS_OK && fxs_world_hash(w) == before);
	free(snap);
	free(bad);
	fxs_world_destroy(w);
}

/* 41 spheres joined by 41 ball joints, the first to a static anchor: one
 * island of 123 rows, beyond the direct solver's 96 until cut */
static fxs_world *long_ball_chain(void)
{
	fxs_world_def d = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&d);
	fxs_body_id prev = fxs_null_body;
	for (int i = 0; i <= 41; ++i) {
		fxs_body_def b = fxs_default_body_def();
		b.type = i == 0 ? FXS_BODY_STATIC : FXS_BODY_DYNAMIC;
		b.shape.type = FXS_SHAPE_SPHERE;
		b.shape.radius = FXG_RATIO(1, 10);
		b.position = fxg_v3(FXG_HALF * i, FXG_I(5), 0);
		fxs_body_id id = fxs_body_create(w, &b);
		if (i > 0) {
			fxs_joint_def j = fxs_default_ball_joint_def();
			j.body_a = prev, j.body_b = id;
			j.local_anchor_a = fxg_v3(FXG_RATIO(1, 4), 0, 0), j.local_anchor_b = fxg_v3(-FXG_RATIO(1, 4), 0, 0);
			fxs_joint_create(w, &j);
		}
		prev = id;
	}
	return w;
}

/* A step gives the joints the stages of the last step, and the direct
 * solver the plan of the last step, when what they depend on is the same
 * (memos in joint.c and solver_direct.c, not state): every step's hash
 * equals that of a world restored from the step's start (which has no
 * memo), while joints are destroyed and made and bodies change type and
 * sleep; on the ragdolls, the pendulum's chain and a chain of ball joints
 * too long for the direct solver until a body turned kinematic cuts it in
 * two islands it takes (the joints to solve the same, their plan not). */
TEST(joint_stages_and_plan_from_the_last_step_equal_fresh_ones)
{
	const char *names[] = { "ragdoll", "pendulum", "long chain" };
	for (int k = 0; k < 3 && !test_failed; ++k) {
		fxs_world *a = k < 2 ? fxs_scene_find(names[k])->create() : long_ball_chain();
		CHECK(a && fxs_world_joint_count(a) >= 20);
		for (int s = 0; s < 60 && !test_failed; ++s) {
			if (s == 15)
				CHECK(fxs_joint_destroy(a, fxs_world_joint_at(a, 3)));
			if (s == 25) {
				fxs_joint_def j = fxs_default_ball_joint_def();
				j.body_a = fxs_world_body_at(a, 5), j.body_b = fxs_world_body_at(a, 9);
				CHECK(fxs_joint_is_valid(a, fxs_joint_create(a, &j)));
			}
			if (s == 35)
				CHECK(fxs_body_set_type(a, fxs_world_body_at(a, k == 2 ? 21 : 7), FXS_BODY_KINEMATIC) == FXS_OK);
			if (s == 45)
				CHECK(fxs_body_set_awake(a, fxs_world_body_at(a, 12), false) == FXS_OK);
			size_t len = fxs_world_snapshot_size(a);
			void *buf = malloc(len);
			CHECK(buf && fxs_world_snapshot_save(a, buf, len, NULL) == FXS_OK);
			fxs_world *b = fxs_world_create_from_snapshot(buf, len, NULL);
			CHECK(b);
			CHECK(fxs_world_step(a) == FXS_OK && fxs_world_step(b) == FXS_OK);
			CHECKF(fxs_world_hash(a) == fxs_world_hash(b), "%s, step %d: the hash differs from a fresh world's",
			       names[k], s + 1);
			fxs_world_destroy(b);
			free(buf);
		}
		fxs_world_destroy(a);
	}
}
