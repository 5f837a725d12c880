/* World core: free fall against the closed form, ids, determinism, hashes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixstep/fixstep.h"
#include "scenes/scenes.h"
#include "solve/solver.h"
#include "test.h"

static fxs_world *empty_world(void)
{
	fxs_world_def def = fxs_default_world_def();
	return fxs_world_create(&def);
}

static fxs_body_id ball(fxs_world *w, fix16_t y)
{
	fxs_body_def d = fxs_default_body_def();
	d.position = fxg_v3(0, y, 0);
	d.shape.radius = FXG_HALF;
	return fxs_body_create(w, &d);
}

/* Semi-implicit Euler with sub-step h and gravity g from rest:
 *   v_k = k * round(h g),  y_k = y_{k-1} + round(h v_k)
 * Every rounding is half away from zero (fxg_mul). The kernel must follow
 * this integer recurrence exactly: 0 LSB. */
TEST(free_fall_matches_semi_implicit_euler_exactly)
{
	fxs_world *w = empty_world();
	fxs_body_id id = ball(w, FXG_I(10));
	const int64_t h = 1092 / 4, g = -10 * 65536;
	const int64_t hg = h * g / 65536; /* exact: 273 * 10 = 2730 */
	CHECK(hg * 65536 == h * g);
	int64_t v = 0, y = 10 * 65536;
	for (int step = 1; step <= 120; ++step) {
		for (int sub = 0; sub < 4; ++sub) {
			v += hg;
			int64_t p = h * v;
			y += (p + 0x8000 - (p < 0)) >> 16;
		}
		fxs_world_step(w);
		fxg_vec3 pos = fxs_body_get_position(w, id);
		fxg_vec3 vel = fxs_body_get_linear_velocity(w, id);
		CHECKF(pos.y == y && vel.y == v, "step %d: y %d (expected %lld), v %d (expected %lld)", step, pos.y,
		       (long long)y, vel.y, (long long)v);
		CHECK(pos.x == 0 && pos.z == 0 && vel.x == 0 && vel.z == 0);
	}
	fxs_world_destroy(w);
}

/* Against the real-number closed form of semi-implicit Euler with the same
 * (rounded) h: y_n = y0 - g h^2 n (n + 1) / 2 after n sub-steps. Each
 * sub-step rounds once by at most 1/2 LSB, so |error| <= n / 2 LSB. */
TEST(free_fall_within_half_lsb_per_substep_of_closed_form)
{
	fxs_world *w = empty_world();
	fxs_body_id id = ball(w, FXG_I(10));
	const double h = 273.0 / 65536.0, g = 10.0;
	for (int step = 1; step <= 120; ++step) {
		fxs_world_step(w);
		int n = 4 * step;
		double exact = 10.0 - g * h * h * n * (n + 1) / 2.0;
		double got = fxs_body_get_position(w, id).y / 65536.0;
		double err_lsb = (got - exact) * 65536.0;
		if (err_lsb < 0)
			err_lsb = -err_lsb;
		CHECKF(err_lsb <= n / 2.0, "step %d: error %.2f LSB > %d/2", step, err_lsb, n);
	}
	fxs_world_destroy(w);
}

/* A step is dt long for every dt and sub-step count: 1/60 s and 1/120 s
 * (1092 and 546 raw) in 1, 2, 3, 4, 6 and 8 sub-steps, where 1092 / 8,
 * 546 / 4 and 546 / 8 do not divide. After 600 steps of free fall from
 * rest the speed is g t exactly (gravity adds g h per sub-step, exact for
 * an integer g: the sub-steps of a step add up to dt, 0 LSB), and the
 * distance fallen is semi-implicit Euler's own, g (t^2 + S) / 2 with S the
 * sum of the squared sub-step lengths (its error against the closed form
 * g t^2 / 2 is g S / 2 = g t h / 2 for equal sub-steps h: 0.21 m after 10 s
 * at 4 sub-steps of 1/240 s), within half an LSB per sub-step of
 * rounding. */
TEST(free_fall_steps_last_dt_exactly_for_every_substep_count)
{
	const fix16_t dts[2] = { FXG_RATIO(1, 60), FXG_RATIO(1, 120) };
	const int counts[6] = { 1, 2, 3, 4, 6, 8 };
	const int steps = 600;
	for (int d = 0; d < 2; ++d) {
		for (int c = 0; c < 6; ++c) {
			fxs_world_def def = fxs_default_world_def();
			def.dt = dts[d];
			def.substeps = counts[c];
			CHECK(fxs_world_def_validate(&def) == FXS_OK);
			fxs_world *w = fxs_world_create(&def);
			fxs_body_id id = ball(w, FXG_I(1000));
			for (int s = 0; s < steps; ++s)
				fxs_world_step(w);
			int64_t v = fxs_body_get_linear_velocity(w, id).y;
			CHECKF(v == -10 * (int64_t)steps * def.dt, "dt %d, %d sub-steps: v %lld raw, -g t = %lld raw", def.dt,
			       def.substeps, (long long)v, (long long)(-10 * (int64_t)steps * def.dt));
			/* the lengths: q = dt / n, the first dt mod n of them one raw unit longer */
			int64_t q = def.dt / def.substeps, r = def.dt - q * def.substeps;
			double sq = ((double)(q + 1) * (q + 1) * r + (double)q * q * (def.substeps - r)) / 4294967296.0;
			double t = steps * (def.dt / 65536.0), fallen = 1000.0 - fxs_body_get_position(w, id).y / 65536.0;
			double closed = 5.0 * t * t, own = 5.0 * steps * sq;
			double lsb = (fallen - closed - own) * 65536.0;
			CHECKF(lsb <= 0.5 * steps * def.substeps && lsb >= -0.5 * steps * def.substeps,
			       "dt %d, %d sub-steps: fallen %.6f m, closed form %.6f m + the integrator's %.6f m, off by %.1f LSB",
			       def.dt, def.substeps, fallen, closed, own, lsb);
			if (d == 0 && c == 5)
				printf("  dt 1/60 s in 8 sub-steps (4 of 137 raw, 4 of 136): v = -g t exactly, fallen %.6f m = g t^2 / 2 "
				       "%.6f m + %.6f m (semi-implicit Euler's g S / 2), %.1f LSB of rounding\n",
				       fallen, closed, own, lsb);
			fxs_world_destroy(w);
		}
	}
}

/* Slow turns turn: a body in zero gravity spun at 0.001 rad/s (65 raw; a
 * turn of 0.14 LSB of a Q16.16 quaternion per sub-step, which rounded to
 * nothing before orientations were kept in Q1.30) about a tilted axis, for
 * 600 steps: it has turned 0.01 rad about that axis, within 1%, and at
 * 5 rad/s (an odd sub-step of 273 raw, whose h / 2 was rounded down) within
 * 0.1% of 50 rad. */
TEST(slow_and_fast_spins_turn_as_far_as_they_should)
{
	const double rates[2] = { 0.001, 5.0 }, tol[2] = { 0.01, 0.001 };
	for (int k = 0; k < 2; ++k) {
		fxs_world_def def = fxs_default_world_def();
		def.gravity = fxg_v3(0, 0, 0);
		def.enable_sleep = false; /* 0.001 rad/s is slow enough to sleep */
		fxs_world *w = fxs_world_create(&def);
		fxs_body_def d = fxs_default_body_def();
		d.shape.radius = FXG_HALF;
		const double ax[3] = { 0.6, 0.0, 0.8 };
		d.angular_velocity = fxg_v3((fix16_t)(rates[k] * ax[0] * 65536 + 0.5), 0, (fix16_t)(rates[k] * ax[2] * 65536 + 0.5));
		fxs_body_id id = fxs_body_create(w, &d);
		double wr = (d.angular_velocity.x * ax[0] + d.angular_velocity.z * ax[2]) / 65536.0; /* the rate as rounded */
		/* the angle turned, counted across the quaternion's double cover */
		double total = 0, prev = 0;
		for (int s = 0; s < 600; ++s) {
			fxs_world_step(w);
			fxg_quat q = fxs_body_get_rotation(w, id);
			double sv = (q.x * ax[0] + q.y * ax[1] + q.z * ax[2]) / 65536.0, cw = q.w / 65536.0;
			double a = 2 * atan2(sv, cw);
			double da = a - prev;
			while (da > 3.14159265358979)
				da -= 2 * 3.14159265358979;
			while (da < -3.14159265358979)
				da += 2 * 3.14159265358979;
			total += da, prev = a;
		}
		double expect = wr * 600 * (def.dt / 65536.0);
		printf("  spin at %.3f rad/s for 600 steps: turned %.6f rad, expected %.6f rad (%+.4f%%)\n", rates[k], total, expect,
		       100 * (total - expect) / expect);
		CHECKF(fabs(total - expect) <= tol[k] * expect, "%.3f rad/s: turned %.6f rad, expected %.6f", rates[k], total,
		       expect);
		fxs_world_destroy(w);
	}
}

/* The sub-step lengths the solver takes add up to dt for every dt and
 * count the definition accepts (dt in [16 n, 65536] raw, n in 1..64), each
 * q = dt / n or q + 1; a count whose sub-step would be below 16 raw is
 * refused. */
TEST(substep_lengths_add_up_to_dt)
{
	for (int32_t n = 1; n <= 64; ++n) {
		for (fix16_t dt = 16 * n; dt <= FXG_ONE; dt += (dt < 4096 ? 1 : 61)) {
			int64_t sum = 0;
			fix16_t q = dt / n;
			for (int32_t k = 0; k < n; ++k) {
				fix16_t h = fxs_substep_length(dt, n, k);
				CHECKF(h == q || h == q + 1, "dt %d, n %d, sub-step %d: %d raw", dt, n, k, h);
				sum += h;
			}
			CHECKF(sum == dt, "dt %d in %d sub-steps: they add up to %lld raw", dt, n, (long long)sum);
		}
		fxs_world_def def = fxs_default_world_def();
		def.substeps = n;
		def.dt = 16 * n;
		CHECK(fxs_world_def_validate(&def) == FXS_OK);
		def.dt = 16 * n - 1;
		CHECK(fxs_world_def_validate(&def) != FXS_OK);
	}
}

/* A ball whose lowest point starts 10 m above the ground reaches it at
 * t = sqrt(2 h / g) = sqrt(2) s: within one step, with the world's dt. */
TEST(drop_reaches_ground_at_sqrt_2h_over_g_within_one_step)
{
	fxs_world *w = fxs_scene_find("drop")->create();
	fxs_body_id id = fxs_world_body_at(w, 1);
	double dt = fxs_world_get_def(w).dt / 65536.0;
	double t_expected = 1.4142135623730951; /* sqrt(2 * 10 / 10) */
	int landed = -1;
	for (int step = 1; step <= 200 && landed < 0; ++step) {
		fxs_world_step(w);
		fxg_vec3 v = fxs_body_get_linear_velocity(w, id);
		fxg_vec3 p = fxs_body_get_position(w, id);
		/* landed: the ground stopped it (vertical speed ~ 0 at rest height) */
		if (v.y > -FXG_RATIO(1, 10) && p.y < FXG_I(1))
			landed = step;
	}
	CHECK(landed > 0);
	double t = landed * dt;
	CHECKF(t >= t_expected - dt && t <= t_expected + dt, "landed at %.4f s, expected %.4f s +- %.4f", t, t_expected, dt);
	/* and it rests on the surface: centre at the radius within 1 mm */
	for (int i = 0; i < 60; ++i)
		fxs_world_step(w);
	fix16_t y = fxs_body_get_position(w, id).y;
	CHECKF(y > FXG_HALF - FXG_RATIO(1, 1000) && y < FXG_HALF + FXG_RATIO(1, 1000), "rest height %d", y);
	fxs_world_destroy(w);
}

TEST(ids_have_generations_and_slots_are_reused_lowest_first)
{
	fxs_world *w = empty_world();
	fxs_body_id ids[8];
	for (int i = 0; i < 8; ++i) {
		ids[i] = ball(w, FXG_I(i));
		CHECK(ids[i].index1 == (uint32_t)i + 1 && ids[i].generation == 0);
	}
	CHECK(fxs_body_destroy(w, ids[5]));
	CHECK(fxs_body_destroy(w, ids[2]));
	CHECK(!fxs_body_destroy(w, ids[2])); /* twice: the id is stale */
	CHECK(!fxs_body_is_valid(w, ids[2]) && !fxs_body_is_valid(w, ids[5]));
	CHECK(fxs_world_body_count(w) == 6 && fxs_world_slot_count(w) == 8);
	fxs_body_id a = ball(w, 0), b = ball(w, 0), c = ball(w, 0);
	CHECK(a.index1 == 3 && a.generation == 1); /* lowest free slot first */
	CHECK(b.index1 == 6 && b.generation == 1);
	CHECK(c.index1 == 9 && c.generation == 0);
	CHECK(!fxs_body_is_valid(w, ids[2]) && fxs_body_is_valid(w, a));
	/* accessors of stale ids are harmless */
	fxg_vec3 p = fxs_body_get_position(w, ids[5]);
	CHECK(p.x == 0 && p.y == 0 && p.z == 0);
	fxs_body_set_linear_velocity(w, ids[5], fxg_v3(1, 1, 1));
	CHECK(fxs_world_body_at(w, 100).index1 == 0);
	fxs_world_destroy(w);
}

/* Random create/destroy churn: two worlds given the same sequence end with
 * the same hash; every live id stays valid, every dead one invalid. */
TEST(create_destroy_churn_is_canonical)
{
	uint64_t hashes[2];
	for (int run = 0; run < 2; ++run) {
		fxs_world *w = empty_world();
		fxs_body_id live[64];
		int n = 0;
		uint64_t rng = 42;
		for (int i = 0; i < 2000; ++i) {
			uint64_t r = test_rng_next(&rng);
			if (n < 64 && (n == 0 || (r & 3) != 0)) {
				live[n] = ball(w, (fix16_t)(r >> 40));
				CHECK(live[n].index1 != 0);
				++n;
			} else {
				int k = (int)((r >> 8) % (uint64_t)n);
				CHECK(fxs_body_destroy(w, live[k]));
				CHECK(!fxs_body_is_valid(w, live[k]));
				live[k] = live[--n];
			}
			if (i % 100 == 0)
				fxs_world_step(w);
		}
		for (int k = 0; k < n; ++k)
			CHECK(fxs_body_is_valid(w, live[k]));
		CHECK(fxs_world_body_count(w) == (uint32_t)n);
		hashes[run] = fxs_world_hash(w);
		fxs_world_destroy(w);
	}
	CHECK(hashes[0] == hashes[1]);
}

TEST(bad_definitions_are_refused)
{
	fxs_world_def def = fxs_default_world_def();
	def.substeps = 0;
	CHECK(fxs_world_create(&def) == NULL);
	def = fxs_default_world_def();
	def.dt = 0;
	CHECK(fxs_world_def_validate(&def) != FXS_OK);
	fxs_world *w = empty_world();
	fxs_body_def d = fxs_default_body_def();
	d.shape.radius = 0;
	CHECK(fxs_body_create(w, &d).index1 == 0);
	d = fxs_default_body_def();
	d.shape.type = 99;
	CHECK(fxs_body_create(w, &d).index1 == 0);
	d = fxs_default_body_def();
	d.rotation = fxg_q(0, 0, 0, 0);
	CHECK(fxs_body_create(w, &d).index1 == 0);
	d = fxs_default_body_def();
	d.density = 0;
	CHECK(fxs_body_create(w, &d).index1 == 0);
	CHECK(fxs_world_body_count(w) == 0);
	fxs_world_destroy(w);
}

/* Any change to any state field changes the hash, and the per-body hash
 * names the body that changed. */
TEST(hash_covers_state_and_body_hash_locates_change)
{
	fxs_world *a = fxs_scene_find("shapes")->create();
	fxs_world *b = fxs_scene_find("shapes")->create();
	for (int i = 0; i < 30; ++i)
		fxs_world_step(a), fxs_world_step(b);
	CHECK(fxs_world_hash(a) == fxs_world_hash(b));
	fxs_body_id id = fxs_world_body_at(b, 7);
	fxg_vec3 p = fxs_body_get_position(b, id);
	p.x += 1; /* one LSB */
	fxs_body_set_transform(b, id, p, fxs_body_get_rotation(b, id));
	CHECK(fxs_world_hash(a) != fxs_world_hash(b));
	for (uint32_t s = 0; s < fxs_world_slot_count(a); ++s) {
		uint64_t ha = fxs_body_hash(a, fxs_world_body_at(a, s)), hb = fxs_body_hash(b, fxs_world_body_at(b, s));
		CHECKF((ha == hb) == (s != 7), "slot %u", s);
	}
	/* the state's own hash equals the hash of its serialisation */
	size_t n = fxs_world_serialize_state(a, NULL, 0);
	CHECK(n > 0);
	fxs_world_destroy(a);
	fxs_world_destroy(b);
}

/* Two runs of every scene give the same hash at every step. */
SLOW_TEST(every_scene_is_repeatable)
{
	uint32_t n;
	const fxs_scene *sc = fxs_scenes(&n);
	for (uint32_t i = 0; i < n; ++i) {
		fxs_world *a = sc[i].create(), *b = sc[i].create();
		/* big scenes (by body count, so new scenes are covered) run a few steps */
		uint32_t bodies = fxs_world_body_count(a), steps = sc[i].default_steps;
		if (bodies > 2000)
			steps = 3;
		else if (test_quick || bodies > 600)
			steps = steps < 40 ? steps : 40;
		for (uint32_t s = 0; s < steps; ++s) {
			fxs_world_step(a);
			fxs_world_step(b);
			CHECKF(fxs_world_hash(a) == fxs_world_hash(b), "%s step %u", sc[i].name, s);
		}
		fxs_world_destroy(a);
		fxs_world_destroy(b);
	}
}

TEST(mesh_shapes_are_static_only)
{
	fxs_world *w = empty_world();
	const fxg_vec3 v[3] = { fxg_v3(0, 0, 0), fxg_v3(FXG_ONE, 0, 0), fxg_v3(0, 0, FXG_ONE) };
	const uint32_t t[3] = { 0, 1, 2 };
	fxs_mesh_id m = fxs_world_create_mesh(w, v, 3, t, 1, FXG_HALF);
	fxs_body_def d = fxs_default_body_def();
	d.shape = fxs_mesh_shape(w, m);
	d.type = FXS_BODY_DYNAMIC;
	CHECK(fxs_body_create(w, &d).index1 == 0);
	d.type = FXS_BODY_STATIC;
	CHECK(fxs_body_create(w, &d).index1 != 0);
	fxs_world_destroy(w);
}
