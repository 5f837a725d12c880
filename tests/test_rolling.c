/* Rolling resistance (solve/rolling.c) against closed forms: a round body
 * rolling on flat ground under a resisting torque c r N decelerates at
 * a = c g / (1 + I / (m r^2)) until it stops (a sphere 5/7 c g, a cylinder
 * on its side 2/3 c g, a capsule on its side with its own inertia); with
 * c = 0 it keeps its speed. Also the setter's bounds and the state: a
 * snapshot restores to the same bits, a rolling resistance is hashed, and
 * a CALLS replay carries it (from a definition and from the setter). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixstep/fixstep.h"
#include "fixstep/replay.h"
#include "snapshot_util.h"
#include "test.h"

#include <stdio.h>
#include <unistd.h>

#define PI 3.14159265358979323846

static double fx(fix16_t v) { return v / 65536.0; }
static fix16_t tofx(double v) { return (fix16_t)lround(v * 65536.0); }

enum { SPHERE, CYLINDER, CAPSULE };
static const char *const kind_name[] = { "sphere", "cylinder", "capsule" };

/* I / (m r^2) about the axis the body rolls on: the closed forms */
static double inertia_ratio(int kind, double r, double hh)
{
	if (kind == SPHERE)
		return 0.4;
	if (kind == CYLINDER)
		return 0.5;
	/* capsule about its axis: the cylinder's m r^2 / 2 and the two
	 * hemispheres' (a ball's) 2/5 m r^2 */
	double mc = PI * r * r * 2 * hh, ms = 4.0 / 3.0 * PI * r * r * r;
	return (mc * 0.5 + ms * 0.4) / (mc + ms);
}

static fxs_world *flat_world(void)
{
	fxs_world_def def = fxs_default_world_def();
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	fxs_body_def g = fxs_default_body_def();
	g.type = FXS_BODY_STATIC;
	g.shape.type = FXS_SHAPE_BOX;
	g.shape.half_extents = fxg_v3(FXG_I(100), FXG_ONE, FXG_I(10));
	g.position = fxg_v3(FXG_I(60), -FXG_ONE, 0);
	g.friction = FXG_ONE;
	fxs_body_create(w, &g);
	return w;
}

/* a round body of radius r resting on y = 0 (axis along z for the
 * cylinder and capsule), rolling along +x at speed v */
static fxs_body_id roller(fxs_world *w, int kind, double r, double hh, double v, double c)
{
	fxs_body_def d = fxs_default_body_def();
	d.shape.radius = tofx(r);
	if (kind != SPHERE) {
		d.shape.type = kind == CYLINDER ? FXS_SHAPE_CYLINDER : FXS_SHAPE_CAPSULE;
		d.shape.half_height = tofx(hh);
		/* local y (their axis) to world z: a quarter turn about x */
		d.rotation = (fxg_quat){ tofx(sin(PI / 4)), 0, 0, tofx(cos(PI / 4)) };
	}
	d.position = fxg_v3(0, tofx(r), 0);
	d.linear_velocity = fxg_v3(tofx(v), 0, 0);
	d.angular_velocity = fxg_v3(0, 0, tofx(-v / r)); /* rolling without slipping */
	d.friction = FXG_ONE;
	d.rolling_resistance = tofx(c);
	return fxs_body_create(w, &d);
}

static double speed_x(fxs_world *w, fxs_body_id b) { return fx(fxs_body_get_linear_velocity(w, b).x); }

/* From 4 m/s the deceleration between 0.5 s and 1.5 s is c g / (1 + I /
 * (m r^2)) within 1.5% (g = 10); the body then stops (|v| and |w| below
 * 1 mm/s and 1 mrad/s) near where v^2 / 2a puts it (5%), and stays (it
 * moves less than 1 mm in its last second). */
TEST(rolling_resistance_decelerates_round_bodies_at_closed_form)
{
	const double r = 0.4, hh = 0.3, v0 = 4.0;
	const double cs[2] = { 0.05, 0.2 };
	for (int kind = SPHERE; kind <= CAPSULE; ++kind)
		for (int ci = 0; ci < 2; ++ci) {
			const double c = cs[ci];
			fxs_world *w = flat_world();
			fxs_body_id b = roller(w, kind, r, hh, v0, c);
			const double expect = c * 10 / (1 + inertia_ratio(kind, r, hh));
			const double t_stop = v0 / expect;
			double v1 = 0, v2 = 0;
			const int steps = (int)(t_stop * 60) + 120;
			int stopped_at = -1;
			double x_before = 0;
			for (int s = 1; s <= steps; ++s) {
				CHECK(fxs_world_step(w) == FXS_OK);
				if (s == steps - 60)
					x_before = fx(fxs_body_get_position(w, b).x);
				if (s == 30)
					v1 = speed_x(w, b);
				if (s == 90)
					v2 = speed_x(w, b);
				if (stopped_at < 0 && fabs(speed_x(w, b)) < 1e-3)
					stopped_at = s;
			}
			double a = v1 - v2;
			fxg_vec3 v = fxs_body_get_linear_velocity(w, b), om = fxs_body_get_angular_velocity(w, b);
			fxg_vec3 p = fxs_body_get_position(w, b);
			double vlen = sqrt(fx(v.x) * fx(v.x) + fx(v.y) * fx(v.y) + fx(v.z) * fx(v.z));
			double wlen = sqrt(fx(om.x) * fx(om.x) + fx(om.y) * fx(om.y) + fx(om.z) * fx(om.z));
			double dist = v0 * v0 / (2 * expect);
			printf("  %-8s c %.2f: a = %.5f m/s^2, closed form %.5f, error %.3f%%; stopped after %.2f s "
			       "(%.2f), at x %.3f m (%.3f), |v| %.2g |w| %.2g\n",
			       kind_name[kind], c, a, expect, 100 * fabs(a - expect) / expect, stopped_at / 60.0, t_stop,
			       fx(p.x), dist, vlen, wlen);
			CHECKF(fabs(a - expect) < 0.015 * expect, "%s c %.2f: a %.5f expected %.5f", kind_name[kind], c,
			       a, expect);
			CHECKF(stopped_at > 0 && vlen < 1e-3 && wlen < 1e-3 && fabs(fx(p.x) - x_before) < 1e-3,
			       "%s c %.2f does not stop (moved %.5f m in its last second)", kind_name[kind], c,
			       fx(p.x) - x_before);
			CHECKF(fabs(fx(p.x) - dist) < 0.05 * dist, "%s c %.2f: stopped at %.3f, expected %.3f",
			       kind_name[kind], c, fx(p.x), dist);
			fxs_world_destroy(w);
		}
}

/* Coefficient 0: rolling keeps its speed (within 0.1% over 5 s). */
TEST(rolling_resistance_zero_keeps_rolling)
{
	for (int kind = SPHERE; kind <= CAPSULE; ++kind) {
		fxs_world *w = flat_world();
		fxs_body_id b = roller(w, kind, 0.4, 0.3, 4.0, 0);
		for (int s = 0; s < 300; ++s)
			CHECK(fxs_world_step(w) == FXS_OK);
		double v = speed_x(w, b);
		printf("  %-8s c 0: v after 5 s %.5f m/s (4)\n", kind_name[kind], v);
		CHECKF(fabs(v - 4.0) < 0.004, "%s: v %.5f", kind_name[kind], v);
		fxs_world_destroy(w);
	}
}

/* Against another rolling body, the larger of the two c r is taken: a
 * sphere with c = 0.1 on a sphere-free floor rolls the same whether the
 * floor has 0 or 0.05 (the floor is a box: radius 0). */
TEST(rolling_resistance_of_a_box_is_nothing)
{
	double vs[2];
	for (int k = 0; k < 2; ++k) {
		fxs_world *w = flat_world();
		fxs_body_set_rolling_resistance(w, (fxs_body_id){ 1, 0 }, k ? tofx(0.05) : 0);
		CHECK(fxs_body_get_rolling_resistance(w, (fxs_body_id){ 1, 0 }) == (k ? tofx(0.05) : 0));
		fxs_body_id b = roller(w, SPHERE, 0.4, 0, 4.0, 0.1);
		for (int s = 0; s < 120; ++s)
			fxs_world_step(w);
		vs[k] = speed_x(w, b);
		fxs_world_destroy(w);
	}
	CHECKF(vs[0] == vs[1], "%.6f %.6f", vs[0], vs[1]);
	CHECK(vs[0] < 4.0 - 1.0);
}

/* The setter keeps 0..1 and answers stale ids; the definition likewise. */
TEST(rolling_resistance_setter_bounds)
{
	fxs_world *w = flat_world();
	fxs_body_id b = roller(w, SPHERE, 0.4, 0, 0, 0.1);
	CHECK(fxs_body_get_rolling_resistance(w, b) == tofx(0.1));
	CHECK(fxs_body_set_rolling_resistance(w, b, -1) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(fxs_body_set_rolling_resistance(w, b, FXG_ONE + 1) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(fxs_body_get_rolling_resistance(w, b) == tofx(0.1));
	CHECK(fxs_body_set_rolling_resistance(w, b, FXG_ONE) == FXS_OK);
	CHECK(fxs_body_set_rolling_resistance(NULL, b, 0) != FXS_OK);
	CHECK(fxs_body_get_rolling_resistance(NULL, b) == 0);
	fxs_body_destroy(w, b);
	CHECK(fxs_body_set_rolling_resistance(w, b, 0) != FXS_OK);
	CHECK(fxs_body_get_rolling_resistance(w, b) == 0);
	fxs_body_def d = fxs_default_body_def();
	d.rolling_resistance = FXG_ONE + 1;
	CHECK(fxs_body_create(w, &d).index1 == 0);
	fxs_world_destroy(w);
}

/* The rolling resistance is state: it changes the hash (a body's too), a
 * snapshot restores it to the same bits, and setting it back to 0 gives
 * the hash of a world that never had one. */
TEST(rolling_resistance_is_state)
{
	fxs_world *w0 = flat_world(), *w1 = flat_world();
	fxs_body_id b0 = roller(w0, SPHERE, 0.4, 0, 2.0, 0), b1 = roller(w1, SPHERE, 0.4, 0, 2.0, 0.1);
	CHECK(fxs_world_hash(w0) != fxs_world_hash(w1));
	CHECK(fxs_body_hash(w0, b0) != fxs_body_hash(w1, b1));
	CHECK(fxs_body_set_rolling_resistance(w1, b1, 0) == FXS_OK);
	CHECK(fxs_world_hash(w0) == fxs_world_hash(w1));
	CHECK(fxs_body_set_rolling_resistance(w1, b1, tofx(0.1)) == FXS_OK);
	for (int s = 0; s < 30; ++s)
		fxs_world_step(w1);
	size_t n = fxs_world_snapshot_size(w1);
	void *buf = malloc(n);
	CHECK(buf && fxs_world_snapshot_save(w1, buf, n, &n) == FXS_OK);
	fxs_world *w2 = fxs_world_create_from_snapshot(buf, n, NULL);
	CHECK(w2);
	CHECK(fxs_body_get_rolling_resistance(w2, b1) == tofx(0.1));
	for (int s = 0; s < 60; ++s) {
		fxs_world_step(w1);
		fxs_world_step(w2);
		CHECK(fxs_world_hash(w1) == fxs_world_hash(w2));
	}
	CHECK(speed_x(w1, b1) < 2.0 - 0.5);
	free(buf);
	fxs_world_destroy(w0);
	fxs_world_destroy(w1);
	fxs_world_destroy(w2);
}

/* A CALLS replay of a program that creates a rolling ball (the definition's
 * rolling resistance), and later sets another's with the setter, verifies
 * from the empty world: the log carries both. */
TEST(rolling_resistance_in_a_calls_replay)
{
	char path[256];
	snprintf(path, sizeof path, "/tmp/fixstep_test_%ld_rolling.fxr", (long)getpid());
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	fxs_replay_writer rw;
	CHECK(fxs_replay_writer_open_calls(&rw, path, NULL, w, 16, 0) == FXS_REPLAY_OK);
	fxs_body_def g = fxs_default_body_def();
	g.type = FXS_BODY_STATIC;
	g.shape.type = FXS_SHAPE_BOX;
	g.shape.half_extents = fxg_v3(FXG_I(50), FXG_ONE, FXG_I(10));
	g.position = fxg_v3(0, -FXG_ONE, 0);
	fxs_body_create(w, &g);
	fxs_body_id a = roller(w, SPHERE, 0.4, 0, 3.0, 0.2), b = roller(w, SPHERE, 0.4, 0, 3.0, 0);
	fxs_body_set_transform(w, b, fxg_v3(0, tofx(0.4), FXG_I(3)), fxs_body_get_rotation(w, b));
	for (int t = 1; t <= 90; ++t) {
		if (t == 30)
			CHECK(fxs_body_set_rolling_resistance(w, b, tofx(0.1)) == FXS_OK);
		CHECK(fxs_world_step(w) == FXS_OK);
		CHECK(fxs_replay_writer_tick(&rw, NULL, w) == FXS_REPLAY_OK);
	}
	CHECK(fxs_replay_writer_close(&rw) == FXS_REPLAY_OK);
	double va = speed_x(w, a), vb = speed_x(w, b);
	CHECKF(va < 3.0 - 1.0 && vb < 3.0 - 0.4 && vb > va, "va %.4f vb %.4f", va, vb);
	static const char *const every[] = { "*" };
	const fxs_replay_expect ok = { .modes = FXS_REPLAY_ACCEPT_CALLS, .allowed_calls = every, .allowed_call_count = 1 };
	fxs_replay_verify_result v;
	CHECKF(fxs_replay_verify(path, &ok, NULL, NULL, &v) == FXS_REPLAY_OK, "%s", v.message);
	CHECK(v.ticks == 90 && v.final_hash == fxs_world_hash(w));
	remove(path);
	fxs_world_destroy(w);
}

/* A snapshot from another machine: a rolling resistance out of 0..1, or 0
 * where its record says there is one, is refused with FXS_ERR_CORRUPT; 1
 * restores. */
TEST(rolling_resistance_snapshot_values_are_checked)
{
	fxs_world *w = flat_world();
	const fix16_t odd = 0xA5C3; /* 0.6475: a pattern found once in the state */
	fxs_body_id b = roller(w, SPHERE, 0.4, 0, 1.0, 0);
	CHECK(fxs_body_set_rolling_resistance(w, b, odd) == FXS_OK);
	size_t n;
	uint8_t *snap = raw_snapshot(w, &n);
	CHECK(snap);
	size_t at = 0;
	int found = 0;
	for (size_t i = RAW_SNAPSHOT_HEAD; i + 4 <= n - 8; ++i)
		if (snap[i] == 0xC3 && snap[i + 1] == 0xA5 && snap[i + 2] == 0 && snap[i + 3] == 0)
			at = i, ++found;
	CHECKF(found == 1, "the pattern found %d times", found);
	const int32_t tries[4] = { FXG_ONE + 1, 0, -1, FXG_ONE };
	for (int k = 0; k < 4; ++k) {
		for (int i = 0; i < 4; ++i)
			snap[at + (size_t)i] = (uint8_t)((uint32_t)tries[k] >> (8 * i));
		snapshot_reseal(snap, n);
		fxs_result err = FXS_OK;
		fxs_world *r = fxs_world_create_from_snapshot(snap, n, &err);
		if (k < 3) {
			CHECKF(!r && err == FXS_ERR_CORRUPT, "value %d: err %d", tries[k], (int)err);
		} else {
			CHECK(r && fxs_body_get_rolling_resistance(r, b) == FXG_ONE);
			fxs_world_destroy(r);
		}
	}
	free(snap);
	fxs_world_destroy(w);
}
