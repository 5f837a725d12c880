/* The direct solver (seed 002: L D L^T and the boxed Murty LCP) against the
 * iterative one, on a 10-link chain of ball joints and a 5-box stack:
 * constraint error (joint gap, penetration) and cost (ms per step, printed,
 * never asserted). Also: the contact path is opt-in (def.direct_contact_rows)
 * and survives a snapshot. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixstep/fixstep.h"
#include "collide/contact.h"
#include "world/world.h"
#include "test.h"

static double fx(fix16_t v) { return v / 65536.0; }
static fix16_t tofx(double v) { return (fix16_t)lround(v * 65536.0); }
static fxg_vec3 v3(double x, double y, double z) { return fxg_v3(tofx(x), tofx(y), tofx(z)); }

static double dist(fxg_vec3 a, fxg_vec3 b)
{
	double dx = fx(a.x) - fx(b.x), dy = fx(a.y) - fx(b.y), dz = fx(a.z) - fx(b.z);
	return sqrt(dx * dx + dy * dy + dz * dz);
}

static fxs_body_id box(fxs_world *w, fxs_body_type type, fxg_vec3 p, fxg_vec3 half)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.position = p;
	d.shape.type = FXS_SHAPE_BOX;
	d.shape.half_extents = half;
	d.friction = tofx(0.6);
	return fxs_body_create(w, &d);
}

/* deepest penetration over the world's touching manifolds (m, >= 0) */
static double penetration(const fxs_world *w)
{
	double worst = 0;
	for (uint32_t i = 0; i < w->contact_count; ++i)
		for (int k = 0; k < w->contacts[i].point_count; ++k) {
			double s = -fx(w->contacts[i].points[k].separation);
			if (s > worst)
				worst = s;
		}
	return worst;
}

typedef struct result {
	double gap_hanging, gap_swinging; /* chain: worst joint gap, m */
	double pen_max, pen_end;          /* worst penetration over the run and at its end, m */
	double top_y, drift;              /* stack: top box height, worst horizontal drift, m */
	double ms;                        /* ms per step */
	fxs_lcp_stats lcp;
	uint64_t hash;
	uint64_t overflows; /* saturations over the run */
} result;

/* A 10-link chain of ball joints (spheres of 0.1 m, 0.25 m apart, 1/s
 * damping) released horizontally from a static pivot, 600 steps (10 s);
 * with hang_on_ground the last link is a box resting on a static ground
 * box, so the island has contacts too (the boxed LCP path when enabled). */
static result chain(uint32_t joint_rows, uint32_t contact_rows, int on_ground)
{
	result res;
	memset(&res, 0, sizeof res);
	fxs_world_def def = fxs_default_world_def();
	def.direct_joint_rows = joint_rows;
	def.direct_contact_rows = contact_rows;
	def.enable_sleep = false; /* cost of the solve, not of sleeping */
	fxs_world *w = fxs_world_create(&def);
	fxs_body_def pd = fxs_default_body_def();
	pd.type = FXS_BODY_STATIC;
	pd.shape.radius = tofx(0.05);
	fxs_body_id prev = fxs_body_create(w, &pd);
	if (on_ground)
		box(w, FXS_BODY_STATIC, v3(0, -2.8, 0), v3(5, 0.5, 5)); /* top at -2.3 m */
	fxs_joint_id joints[10];
	for (int i = 0; i < 10; ++i) {
		fxs_body_def d = fxs_default_body_def();
		d.position = v3(0.25 * (i + 1), 0, 0);
		d.shape.radius = tofx(0.1);
		if (on_ground && i == 9) {
			d.shape.type = FXS_SHAPE_BOX;
			d.shape.half_extents = v3(0.1, 0.1, 0.1);
		}
		d.linear_damping = FXG_ONE;
		d.angular_damping = FXG_ONE;
		fxs_body_id link = fxs_body_create(w, &d);
		fxs_joint_def j = fxs_default_ball_joint_def();
		j.body_a = prev;
		j.body_b = link;
		j.local_anchor_a = v3(0.125, 0, 0);
		j.local_anchor_b = v3(-0.125, 0, 0);
		joints[i] = fxs_joint_create(w, &j);
		prev = link;
	}
	const int steps = 600;
	uint64_t t0 = test_now_ns();
	for (int s = 0; s < steps; ++s) {
		fxs_world_step(w);
		for (int i = 0; i < 10; ++i) {
			double e = dist(fxs_joint_get_anchor_a(w, joints[i]), fxs_joint_get_anchor_b(w, joints[i]));
			if (e > res.gap_swinging)
				res.gap_swinging = e;
		}
		double p = penetration(w);
		if (p > res.pen_max)
			res.pen_max = p;
	}
	res.ms = (double)(test_now_ns() - t0) / 1e6 / steps;
	for (int i = 0; i < 10; ++i) {
		double e = dist(fxs_joint_get_anchor_a(w, joints[i]), fxs_joint_get_anchor_b(w, joints[i]));
		if (e > res.gap_hanging)
			res.gap_hanging = e;
	}
	res.pen_end = penetration(w);
	res.lcp = w->lcp_stats;
	res.hash = fxs_world_hash(w);
	res.overflows = fxs_world_get_stats(w).overflows_total;
	fxs_world_destroy(w);
	return res;
}

/* Five 1 m boxes (1000 kg each, friction 0.6) on a static ground, 60 Hz, 4
 * sub-steps, dropped from 1 cm gaps, 600 steps (10 s), sleep off. */
static result stack(uint32_t contact_rows)
{
	result res;
	memset(&res, 0, sizeof res);
	fxs_world_def def = fxs_default_world_def();
	def.direct_contact_rows = contact_rows;
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	box(w, FXS_BODY_STATIC, v3(0, -1, 0), v3(20, 1, 20));
	fxs_body_id b[5];
	for (int i = 0; i < 5; ++i)
		b[i] = box(w, FXS_BODY_DYNAMIC, v3(0, 0.5 + 1.01 * i + 0.005, 0), v3(0.5, 0.5, 0.5));
	const int steps = 600;
	uint64_t t0 = test_now_ns();
	for (int s = 0; s < steps; ++s) {
		fxs_world_step(w);
		double p = penetration(w);
		if (p > res.pen_max)
			res.pen_max = p;
		for (int i = 0; i < 5; ++i) {
			fxg_vec3 q = fxs_body_get_position(w, b[i]);
			double h = sqrt(fx(q.x) * fx(q.x) + fx(q.z) * fx(q.z));
			if (h > res.drift)
				res.drift = h;
		}
	}
	res.ms = (double)(test_now_ns() - t0) / 1e6 / steps;
	res.pen_end = penetration(w);
	res.top_y = fx(fxs_body_get_position(w, b[4]).y);
	res.lcp = w->lcp_stats;
	res.hash = fxs_world_hash(w);
	res.overflows = fxs_world_get_stats(w).overflows_total;
	fxs_world_destroy(w);
	return res;
}

static void print_lcp(const fxs_lcp_stats *s)
{
	printf("      LCP: %u solves, %u passes, %u pivots, %u factorisations, %u fallbacks, %u floored pivots\n", s->solves,
	       s->passes, s->pivots, s->factors, s->fallbacks, s->floored);
}

/* The 10-link chain: the iterative solver (sequential impulses, the ball
 * joint's 3x3 block exact), the direct L D L^T (one island of 30 rows), and
 * the same chain with its last link a box resting on the ground, iterative
 * and as one boxed LCP (30 joint rows + 3 rows per contact point, at most
 * 96 rows). Asserted: the direct error below the iterative one in both,
 * the boxed LCP falls back in at most 1% of its passes, penetration at rest
 * below 1 mm. */
TEST(direct_compare_chain_10)
{
	result it = chain(0, 0, 0), dir = chain(96, 0, 0);
	printf("  10-link chain, 60 Hz, 4 sub-steps, 10 s:\n");
	printf("    iterative:        joint gap %.4f mm hanging, %.4f mm swinging, %.3f ms/step\n", it.gap_hanging * 1e3,
	       it.gap_swinging * 1e3, it.ms);
	printf("    direct (L D L^T): joint gap %.4f mm hanging, %.4f mm swinging, %.3f ms/step\n", dir.gap_hanging * 1e3,
	       dir.gap_swinging * 1e3, dir.ms);
	CHECKF(dir.gap_hanging < it.gap_hanging && dir.gap_swinging < it.gap_swinging, "direct %.5f/%.5f, iterative %.5f/%.5f",
	       dir.gap_hanging, dir.gap_swinging, it.gap_hanging, it.gap_swinging);
	result git = chain(0, 0, 1), glcp = chain(0, 96, 1);
	printf("  10-link chain, last link a box on the ground:\n");
	printf("    iterative:        joint gap %.4f mm at rest, %.4f mm moving, penetration %.3f mm max, %.3f mm at rest, "
	       "%.3f ms/step\n",
	       git.gap_hanging * 1e3, git.gap_swinging * 1e3, git.pen_max * 1e3, git.pen_end * 1e3, git.ms);
	printf("    boxed LCP:        joint gap %.4f mm at rest, %.4f mm moving, penetration %.3f mm max, %.3f mm at rest, "
	       "%.3f ms/step\n",
	       glcp.gap_hanging * 1e3, glcp.gap_swinging * 1e3, glcp.pen_max * 1e3, glcp.pen_end * 1e3, glcp.ms);
	print_lcp(&glcp.lcp);
	CHECK(glcp.overflows == 0 && dir.overflows == 0);
	CHECK(git.lcp.solves == 0 && glcp.lcp.solves > 0);
	CHECKF(glcp.gap_hanging < git.gap_hanging, "LCP %.5f, iterative %.5f", glcp.gap_hanging, git.gap_hanging);
	CHECK(glcp.lcp.fallbacks * 100 <= glcp.lcp.passes);
	/* the links hit the ground at several m/s while swinging (about 4 cm
	 * deep for both solvers: the narrowphase's speculative margin, not the
	 * solver); at rest */
	CHECKF(glcp.pen_end < 0.001 && git.pen_end < 0.001, "penetration %.4f / %.4f", glcp.pen_end, git.pen_end);
}

/* The 5-box stack, iterative and as one boxed LCP (5 manifolds x 4 points
 * x 3 rows = 60 rows). Asserted: both stand (top box within 2 cm of 4.5 m,
 * drift below 1 cm), penetration below 1 cm throughout, fallbacks in at
 * most 1% of the LCP's passes (they happen at the first impacts). */
TEST(direct_compare_stack_5)
{
	result it = stack(0), lcp = stack(64);
	printf("  5-box stack, 60 Hz, 4 sub-steps, 10 s:\n");
	printf("    iterative: top at %.4f m, drift %.3f mm, penetration %.3f mm max, %.3f mm at rest, %.3f ms/step\n", it.top_y,
	       it.drift * 1e3, it.pen_max * 1e3, it.pen_end * 1e3, it.ms);
	printf("    boxed LCP: top at %.4f m, drift %.3f mm, penetration %.3f mm max, %.3f mm at rest, %.3f ms/step\n",
	       lcp.top_y, lcp.drift * 1e3, lcp.pen_max * 1e3, lcp.pen_end * 1e3, lcp.ms);
	print_lcp(&lcp.lcp);
	printf("    final hashes: iterative %016" PRIx64 ", boxed LCP %016" PRIx64 "; saturations %" PRIu64 " / %" PRIu64 "\n",
	       it.hash, lcp.hash, it.overflows, lcp.overflows);
	CHECK(lcp.overflows == 0);
	CHECK(it.lcp.solves == 0 && lcp.lcp.solves > 0);
	CHECKF(fabs(it.top_y - 4.5) < 0.02 && it.drift < 0.01, "iterative: top %.4f drift %.4f", it.top_y, it.drift);
	CHECKF(fabs(lcp.top_y - 4.5) < 0.02 && lcp.drift < 0.01, "LCP: top %.4f drift %.4f", lcp.top_y, lcp.drift);
	CHECKF(it.pen_max < 0.01 && lcp.pen_max < 0.01, "penetration %.4f / %.4f", it.pen_max, lcp.pen_max);
	CHECK(lcp.lcp.fallbacks * 100 <= lcp.lcp.passes);
}

/* Opt-in and deterministic: direct_contact_rows = 0 is the default; a run
 * repeats bit for bit; the setting survives a snapshot, and snapshot ->
 * restore -> step gives the same hash as never stopping. */
TEST(direct_contact_rows_opt_in_and_snapshot)
{
	CHECK(fxs_default_world_def().direct_contact_rows == 0);
	fxs_world_def bad = fxs_default_world_def();
	bad.direct_contact_rows = 1025;
	CHECK(fxs_world_def_validate(&bad) != FXS_OK);
	result a = stack(64), b = stack(64);
	CHECK(a.hash == b.hash);
	fxs_world_def def = fxs_default_world_def();
	def.direct_contact_rows = 64;
	fxs_world *w = fxs_world_create(&def);
	box(w, FXS_BODY_STATIC, v3(0, -1, 0), v3(20, 1, 20));
	for (int i = 0; i < 3; ++i)
		box(w, FXS_BODY_DYNAMIC, v3(0.1 * i, 0.5 + 1.01 * i, 0), v3(0.5, 0.5, 0.5));
	for (int s = 0; s < 30; ++s)
		fxs_world_step(w);
	size_t n = fxs_world_snapshot_size(w);
	void *buf = malloc(n);
	CHECK(fxs_world_snapshot_save(w, buf, n, NULL) == FXS_OK);
	fxs_result err;
	fxs_world *r = fxs_world_create_from_snapshot(buf, n, &err);
	free(buf);
	CHECK(r != NULL);
	CHECK(fxs_world_get_def(r).direct_contact_rows == 64 && fxs_world_get_def(r).direct_joint_rows == 96);
	CHECK(fxs_world_hash(r) == fxs_world_hash(w));
	for (int s = 0; s < 30; ++s) {
		fxs_world_step(w);
		fxs_world_step(r);
	}
	CHECK(fxs_world_hash(r) == fxs_world_hash(w));
	CHECK(w->lcp_stats.solves > 0);
	fxs_world_destroy(w);
	fxs_world_destroy(r);
}

/* A stack of n 1 m cubes resting on a static ground, 300 steps with
 * direct_contact_rows = cap: false (with the step) when a step fails;
 * *hash a hash of every body's state at the end. */
static bool stack_steps(int n, uint32_t cap, uint64_t *hash, int *failed_at)
{
	fxs_world_def def = fxs_default_world_def();
	def.direct_contact_rows = cap;
	fxs_world *w = fxs_world_create(&def);
	box(w, FXS_BODY_STATIC, v3(0, -1, 0), v3(20, 1, 20));
	for (int i = 0; i < n; ++i)
		box(w, FXS_BODY_DYNAMIC, v3(0, 0.5 + i, 0), v3(0.5, 0.5, 0.5));
	bool ok = true;
	for (int s = 1; s <= 300 && ok; ++s)
		if (fxs_world_step(w) != FXS_OK)
			ok = false, *failed_at = s;
	/* the bodies' hashes (the world hash covers the setting itself) */
	*hash = 0;
	for (uint32_t i = 0; i < fxs_world_slot_count(w); ++i)
		*hash = *hash * 0x9E3779B97F4A7C15ull + fxs_body_hash(w, fxs_world_body_at(w, i));
	fxs_world_destroy(w);
	return ok;
}

/* An island that does not fit under direct_contact_rows stays with the
 * iterative solver, as documented; it used to be reported as out of memory
 * (FXS_ERR_NOMEM at step 1, the world failed for good) whenever no island
 * of the step fitted: 9 cubes at the setting 96. Stacks of 1 to 40 cubes
 * run 300 steps at the settings of 0 to 1024 where that changes anything:
 * a setting acts only through `cap < 3` and `rows <= cap` with rows a
 * multiple of 3, and a resting stack of n cubes is one island of 12 n rows
 * (4 points per contact), so the runs are the settings 0, 1, 2, 3, the
 * classes just below and at 12 n, and the fixed settings 96, 300, 600,
 * 900 and 1024. Every setting from 12 n up is the same run (the whole
 * stack in the boxed LCP, compared by the bodies' bits): checked on the
 * stacks up to 12 cubes, run once (at 1024) up to 24 cubes and for the
 * tallest, 40; the boxed LCP of the stacks of 25 to 39 cubes (300 to 468
 * rows) costs 1 to 8 s a run and is left out. --quick: 1 to 12 cubes. */
SLOW_TEST(direct_stacks_at_every_contact_rows_setting)
{
	int top = test_quick ? 12 : 40, runs = 0;
	uint64_t t0 = test_now_ns();
	for (int n = 1; n <= top; ++n) {
		uint32_t full = 12u * (uint32_t)n;
		const uint32_t fixed[] = { 0, 1, 2, 3, full - 3, full - 1, 96, 300, 600, 900, 1024 };
		uint64_t lcp_hash = 0;
		bool have_lcp = false;
		for (size_t k = 0; k < sizeof fixed / sizeof fixed[0] + 1; ++k) {
			uint32_t cap = k < sizeof fixed / sizeof fixed[0] ? fixed[k] : full;
			if (cap > 1024)
				continue;
			bool lcp_class = cap >= full;
			if (lcp_class && (n > 12 && cap != 1024))
				continue; /* the same run as 1024 (checked up to 12 cubes) */
			if (lcp_class && n > 24 && n < top)
				continue; /* 1 to 8 s each: the tallest stack stands for them */
			uint64_t h;
			int at = 0;
			CHECKF(stack_steps(n, cap, &h, &at), "%d cubes, direct_contact_rows %u: step %d fails", n, cap, at);
			++runs;
			if (lcp_class) {
				CHECKF(!have_lcp || h == lcp_hash, "%d cubes: direct_contact_rows %u is not the run of the others >= %u",
				       n, cap, full);
				lcp_hash = h, have_lcp = true;
			}
		}
	}
	printf("      %d runs of 300 steps, stacks of 1 to %d cubes, %.1f s\n", runs, top, (double)(test_now_ns() - t0) / 1e9);
}
