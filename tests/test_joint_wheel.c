/* The wheel joint: a car (a box chassis on four wheel joints, spheres as
 * wheels) whose suspension settles to the static deflection F / k, which
 * reaches its drive speed omega R, and which steers a circle of radius
 * L / tan(delta); steering and wheel fields in the snapshot. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixstep/fixstep.h"
#include "test.h"

#define PI 3.14159265358979323846

static double fx(fix16_t v) { return v / 65536.0; }
static double wide(fxg_wide v) { return (double)v / 4294967296.0; }
static fix16_t tofx(double v) { return (fix16_t)lround(v * 65536.0); }
static fxg_vec3 v3(double x, double y, double z) { return fxg_v3(tofx(x), tofx(y), tofx(z)); }

/* the car: chassis 2 x 0.5 x 4 m of 1000 kg, its forward +z; wheels of
 * radius 0.35 m at x = +-0.9, z = +-1.4 (wheelbase 2.8 m), 0.55 m below
 * the chassis centre; suspension +y at 2 Hz, damping ratio 0.7, travel
 * -0.1..0.3 m (the wheel up: compression); spin axis +x */
#define HALF_W 0.9
#define HALF_L 1.4
#define WHEEL_R 0.35
#define HZ 2.0

typedef struct car {
	fxs_world *w;
	fxs_body_id chassis, wheel[4];
	fxs_joint_id joint[4]; /* front left, front right, rear left, rear right */
} car;

static car make_car(double y)
{
	car c;
	fxs_world_def wd = fxs_default_world_def();
	wd.gravity = v3(0, -10, 0);
	wd.enable_sleep = false;
	c.w = fxs_world_create(&wd);
	fxs_body_def g = fxs_default_body_def();
	g.type = FXS_BODY_STATIC;
	g.position = v3(0, -0.5, 0);
	g.shape.type = FXS_SHAPE_BOX;
	g.shape.half_extents = v3(200, 0.5, 200);
	fxs_body_create(c.w, &g);
	fxs_body_def cd = fxs_default_body_def();
	cd.position = v3(0, y, 0);
	cd.shape.type = FXS_SHAPE_BOX;
	cd.shape.half_extents = v3(1, 0.25, 2);
	cd.density = FXG_I(250); /* 1000 kg */
	c.chassis = fxs_body_create(c.w, &cd);
	for (int i = 0; i < 4; ++i) {
		double x = (i & 1) ? HALF_W : -HALF_W, z = (i & 2) ? -HALF_L : HALF_L;
		fxs_body_def wd2 = fxs_default_body_def();
		wd2.position = v3(x, y - 0.55, z);
		wd2.shape.radius = tofx(WHEEL_R);
		wd2.friction = FXG_ONE;
		c.wheel[i] = fxs_body_create(c.w, &wd2);
		fxs_joint_def j = fxs_default_wheel_joint_def();
		j.body_a = c.chassis;
		j.body_b = c.wheel[i];
		j.local_anchor_a = v3(x, -0.55, z);
		j.spring_hertz = tofx(HZ);
		j.enable_limit = true;
		j.lower = tofx(-0.1);
		j.upper = tofx(0.3);
		c.joint[i] = fxs_joint_create(c.w, &j);
	}
	return c;
}

/* At rest on flat ground each spring carries a quarter of the chassis'
 * weight F = M g / 4 and is compressed by F / k, k = m_eff (2 pi f)^2, m_eff
 * the suspension row's effective mass 1 / (1/M + 1/m_wheel + (r x y) .
 * I^-1 (r x y)), r the chassis' lever arm to the wheel centre: within 2%. */
TEST(joint_wheel_suspension_settles_to_the_static_deflection)
{
	car c = make_car(1.0);
	for (int i = 0; i < 4; ++i)
		CHECKF(fxs_joint_is_valid(c.w, c.joint[i]), "wheel %d", i);
	for (int i = 0; i < 300; ++i)
		fxs_world_step(c.w);
	double M = wide(fxs_body_get_mass(c.w, c.chassis)), mw = wide(fxs_body_get_mass(c.w, c.wheel[0]));
	fxg_wide I[3];
	fxs_body_get_inertia(c.w, c.chassis, I);
	double x0 = fx(fxs_joint_get_position(c.w, c.joint[0]));
	/* r x y = (-r.z, 0, r.x), r = (0.9, -0.55 + x0, 1.4) from the chassis centre */
	double inv = 1 / M + 1 / mw + HALF_L * HALF_L / wide(I[0]) + HALF_W * HALF_W / wide(I[2]);
	double k = (1 / inv) * pow(2 * PI * HZ, 2), expect = M * 10 / 4 / k; /* the wheel rises along +y */
	double worst = 0;
	for (int i = 0; i < 4; ++i) {
		double x = fx(fxs_joint_get_position(c.w, c.joint[i]));
		worst = fmax(worst, fabs(x / expect - 1));
	}
	printf("  suspension: M %.1f kg, wheel %.1f kg, k %.0f N/m, deflection %.5f m (F/k %.5f m), worst %.3f%%\n", M, mw, k,
	       x0, expect, worst * 100);
	CHECKF(worst < 0.02, "deflection %.5f, want %.5f", x0, expect);
	fxs_world_destroy(c.w);
}

/* the rear axle's midpoint in the world */
static void rear_axle(const car *c, double *x, double *z)
{
	uint32_t ovf = 0;
	fxg_vec3 p = fxs_body_get_position(c->w, c->chassis);
	fxg_vec3 r = fxg_q_rotate(fxs_body_get_rotation(c->w, c->chassis), v3(0, 0, -HALF_L), &ovf);
	*x = fx(p.x) + fx(r.x);
	*z = fx(p.z) + fx(r.z);
}

/* The rear wheels' motors at omega = 8 rad/s (300 N m each) drive the car
 * on flat ground: after 6 s it runs at omega R = 2.8 m/s within 1%,
 * straight ahead (sideways under 1 cm). */
TEST(joint_wheel_car_reaches_its_drive_speed)
{
	car c = make_car(0.9);
	for (int i = 2; i < 4; ++i)
		fxs_joint_set_motor(c.w, c.joint[i], true, FXG_I(8), FXG_I(300));
	for (int i = 0; i < 360; ++i)
		fxs_world_step(c.w);
	fxg_vec3 v = fxs_body_get_linear_velocity(c.w, c.chassis);
	double want = 8 * WHEEL_R, x = fx(fxs_body_get_position(c.w, c.chassis).x);
	printf("  drive: chassis v_z %.4f m/s (omega R %.4f), v_x %.5f, x %.4f m\n", fx(v.z), want, fx(v.x), x);
	CHECKF(fabs(fx(v.z) / want - 1) < 0.01, "v_z %.4f", fx(v.z));
	CHECK(fabs(x) < 0.01);
	fxs_world_destroy(c.w);
}

/* Kasa's circle fit: the radius of the circle through the points in the
 * least-squares sense of x^2 + z^2 + a x + b z + c = 0 */
static double fit_radius(const double *xs, const double *zs, int n)
{
	double m[3][4] = { { 0 } };
	for (int i = 0; i < n; ++i) {
		double row[3] = { xs[i], zs[i], 1 }, rhs = -(xs[i] * xs[i] + zs[i] * zs[i]);
		for (int r = 0; r < 3; ++r) {
			for (int k = 0; k < 3; ++k)
				m[r][k] += row[r] * row[k];
			m[r][3] += row[r] * rhs;
		}
	}
	for (int p = 0; p < 3; ++p) /* Gauss-Jordan, the matrix is positive definite */
		for (int r = 0; r < 3; ++r)
			if (r != p) {
				double f = m[r][p] / m[p][p];
				for (int k = p; k < 4; ++k)
					m[r][k] -= f * m[p][k];
			}
	double a = m[0][3] / m[0][0], b = m[1][3] / m[1][1], cc = m[2][3] / m[2][2];
	return sqrt(a * a / 4 + b * b / 4 - cc);
}

/* Steered as the bicycle model's delta = 0.4 rad with Ackermann geometry
 * (the inner front wheel at atan(L / (R - w)), the outer at atan(L / (R +
 * w)), R = L / tan(delta), w the half track; the car turns towards +x) and
 * driven at 1.75 m/s as an open differential would (each rear wheel at
 * its own (R -+ w) / R share of 5 rad/s): the rear axle's midpoint runs on
 * a circle of radius R = 6.62 m within 5% (fitted over 12 s, more than a
 * lap). */
TEST(joint_wheel_car_steers_the_closed_form_circle)
{
	car c = make_car(0.9);
	const double delta = 0.4, L = 2 * HALF_L, R0 = L / tan(delta);
	/* wheels 0, 2 at x = -w (outer), 1, 3 at x = +w (inner) */
	CHECK(fxs_joint_set_steering(c.w, c.joint[0], tofx(atan(L / (R0 + HALF_W)))) == FXS_OK);
	CHECK(fxs_joint_set_steering(c.w, c.joint[1], tofx(atan(L / (R0 - HALF_W)))) == FXS_OK);
	fxs_joint_set_motor(c.w, c.joint[2], true, tofx(5 * (R0 + HALF_W) / R0), FXG_I(300));
	fxs_joint_set_motor(c.w, c.joint[3], true, tofx(5 * (R0 - HALF_W) / R0), FXG_I(300));
	/* refused: beyond pi/2, a stale id */
	CHECK(fxs_joint_set_steering(c.w, c.joint[0], tofx(1.6)) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(fxs_joint_set_steering(c.w, fxs_null_joint, 0) == FXS_ERR_INVALID_ID);
	for (int i = 0; i < 180; ++i)
		fxs_world_step(c.w);
	enum { N = 720 };
	double *xs = malloc(N * sizeof *xs), *zs = malloc(N * sizeof *zs);
	CHECK(xs && zs);
	for (int i = 0; i < N; ++i) {
		fxs_world_step(c.w);
		rear_axle(&c, &xs[i], &zs[i]);
	}
	double R = fit_radius(xs, zs, N), want = R0;
	double speed = hypot(fx(fxs_body_get_linear_velocity(c.w, c.chassis).x), fx(fxs_body_get_linear_velocity(c.w, c.chassis).z));
	printf("  steering 0.4 rad: rear axle radius %.3f m (L / tan delta %.3f m, %+.2f%%), speed %.3f m/s\n", R, want,
	       (R / want - 1) * 100, speed);
	CHECKF(fabs(R / want - 1) < 0.05, "radius %.3f, want %.3f", R, want);
	free(xs);
	free(zs);
	fxs_world_destroy(c.w);
}

/* The wheel joints in the snapshot: restored mid-turn, the copy steps on
 * with the same hashes (the steering changed on both); the steering is in
 * the hash. */
TEST(joint_wheel_in_the_snapshot_and_the_hash)
{
	car c = make_car(0.9);
	fxs_joint_set_motor(c.w, c.joint[2], true, FXG_I(5), FXG_I(300));
	fxs_joint_set_steering(c.w, c.joint[0], tofx(0.3));
	for (int i = 0; i < 60; ++i)
		fxs_world_step(c.w);
	size_t len = fxs_world_snapshot_size(c.w);
	void *snap = malloc(len);
	CHECK(snap && fxs_world_snapshot_save(c.w, snap, len, &len) == FXS_OK);
	fxs_result err;
	fxs_world *r = fxs_world_create_from_snapshot(snap, len, &err);
	CHECK(r && fxs_world_hash(r) == fxs_world_hash(c.w));
	uint64_t h = fxs_world_hash(r);
	CHECK(fxs_joint_set_steering(r, c.joint[1], tofx(-0.2)) == FXS_OK && fxs_world_hash(r) != h);
	CHECK(fxs_joint_set_steering(c.w, c.joint[1], tofx(-0.2)) == FXS_OK);
	for (int i = 0; i < 60; ++i) {
		fxs_world_step(c.w);
		fxs_world_step(r);
		CHECK(fxs_world_hash(r) == fxs_world_hash(c.w));
	}
	free(snap);
	fxs_world_destroy(r);
	fxs_world_destroy(c.w);
}
