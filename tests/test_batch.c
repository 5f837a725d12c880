/* The contact solver's kernels (contact_batch.h): the portable one and,
 * where the CPU has them, the vector ones (AVX2 and AVX-512 on x86, NEON on
 * aarch64; under qemu in `make crosscheck`) give the same bits on
 * every scene, step by step, overflow counts included; also on a body with
 * more contacts than there are stages (the overflow stage, which the
 * portable kernel runs after the vectors) and on states built to saturate.
 * The ball joints' kernels (joint_batch.h) likewise: a grid of ball joints
 * whose bodies spin fast enough to saturate. And the vector packing of the
 * rows, field by field against the portable one, with its one-lane
 * reciprocal and scale against solver.h's (named packing_*, so that the
 * SIMD128 run of batch_* under node, which has no vector packing, leaves
 * them out). */
#include <stdlib.h>
#include <string.h>

#include "solve/contact_batch.h"
#include "fixstep/fixstep.h"
#include "fixstep/joint.h"
#include "scenes/scenes.h"
#include "test.h"
#include "vector_levels.h"
#include "world/world.h"
#include "collide/contact.h"

/* the first step at which a world solved with kernel `level` differs from
 * one solved with the portable kernel, or -1; the sum of overflows seen */
static int64_t first_difference(fxs_world *a, fxs_world *b, fxs_kernels level, uint32_t steps, uint64_t *overflows)
{
	fxs_world_set_kernels(a, level);
	fxs_world_set_kernels(b, FXS_KERNELS_PORTABLE);
	*overflows = 0;
	for (uint32_t s = 1; s <= steps; ++s) {
		fxs_world_step(a);
		fxs_world_step(b);
		if (fxs_world_hash(a) != fxs_world_hash(b))
			return s;
		*overflows += fxs_world_get_stats(b).overflows;
	}
	return -1;
}

static int64_t scene_difference(const fxs_scene *sc, fxs_kernels level, uint32_t steps)
{
	fxs_world *a = sc->create(), *b = sc->create();
	uint64_t ovf;
	int64_t d = first_difference(a, b, level, steps, &ovf);
	fxs_world_destroy(a);
	fxs_world_destroy(b);
	return d;
}

static const char *level_name(fxs_kernels level)
{
	return level == FXS_KERNELS_NEON ? "NEON" : level == FXS_KERNELS_SIMD128 ? "SIMD128"
		: level == FXS_KERNELS_AVX512                                    ? "AVX-512"
		: level == FXS_KERNELS_SSE4                                      ? "SSE4"
										 : "AVX2";
}

/* the levels from narrow to wide, as fixstep.h states them */
static const fxs_kernels by_width[FXS_KERNELS_LEVELS] = { FXS_KERNELS_PORTABLE, FXS_KERNELS_SSE4,    FXS_KERNELS_AVX2,
							  FXS_KERNELS_AVX512,   FXS_KERNELS_SIMD128, FXS_KERNELS_NEON };

/* the widest kernel level no wider than k that this CPU and build have */
static fxs_kernels available_at_most(int k)
{
	int r = 0;
	while (by_width[r] != (fxs_kernels)k)
		++r;
	while (r > 0 && !fxs_kernels_available(by_width[r]))
		--r;
	return by_width[r];
}

/* a world that never sleeps, so that every step solves every contact */
static fxs_world *awake_world(void)
{
	fxs_world_def def = fxs_default_world_def();
	def.enable_sleep = false;
	return fxs_world_create(&def);
}

static void scenes_agree(const fxs_kernel_table *k)
{
	const fxs_kernels level = k->level;
	uint32_t n;
	const fxs_scene *scenes = fxs_scenes(&n);
	{
		for (uint32_t i = 0; i < n; ++i) {
			const fxs_scene *sc = &scenes[i];
			/* the big benchmark scenes for a few steps, the rest longer */
			uint32_t steps = test_quick ? 20 : 120;
			if (strstr(sc->name, "large_pyramid") == sc->name && strcmp(sc->name, "large_pyramid_b20") != 0)
				steps = test_quick ? 3 : 10;
			if (strcmp(sc->name, "many_pyramids") == 0 || strcmp(sc->name, "falling_spheres") == 0 ||
			    strcmp(sc->name, "joint_grid") == 0)
				steps = test_quick ? 2 : 6;
			int64_t d = scene_difference(sc, level, steps);
			CHECKF(d < 0, "%s: %s and the portable kernel differ at step %lld", sc->name, level_name(level), (long long)d);
		}
		printf("  %s: the same bits as the portable kernel on all %u scenes\n", level_name(level), n);
	}
}

TEST(batch_kernels_agree_on_every_scene)
{
	test_each_vector_level(scenes_agree);
}

static fxs_body_id add_body(fxs_world *w, int type, int shape, fxg_vec3 p, fxg_vec3 h, fix16_t r)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.shape.type = shape;
	d.shape.half_extents = h;
	d.shape.radius = r;
	d.position = p;
	return fxs_body_create(w, &d);
}

/* A 20 m plank resting on the ground with 100 balls on it: the plank has
 * more than 64 contacts, so some go to the overflow stage, which the
 * portable kernel solves after the vector kernel's batches. Then the same
 * with velocities near the edge of Q16.16, so that impulses and velocities
 * saturate: the overflow counts must agree too. Then boxes and balls each
 * on the ground alone, as fast: their contacts are all in the vector
 * kernels' batches, which must saturate there (their fast path clamps
 * nothing and reruns a batch that left its range). */
static void overflow_stage_and_saturation_agree(const fxs_kernel_table *kt)
{
	const fxs_kernels level = kt->level;
	for (int pass = 0; pass < 3; ++pass) {
		{
			fxs_world *w[2];
			for (int k = 0; k < 2; ++k) {
				w[k] = awake_world();
				add_body(w[k], FXS_BODY_STATIC, FXS_SHAPE_BOX, fxg_v3(0, -FXG_ONE, 0), fxg_v3(FXG_I(30), FXG_ONE, FXG_I(30)), 0);
				if (pass == 2) {
					for (int i = 0; i < 64; ++i) {
						fxg_vec3 p = fxg_v3(FXG_I(-20 + 5 * (i % 8)), FXG_HALF, FXG_I(-20 + 5 * (i / 8)));
						fxs_body_id b = i % 2 ? add_body(w[k], FXS_BODY_DYNAMIC, FXS_SHAPE_BOX, p,
										 fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF), 0)
								      : add_body(w[k], FXS_BODY_DYNAMIC, FXS_SHAPE_SPHERE, p, fxg_v3(0, 0, 0), FXG_HALF);
						fxs_body_set_linear_velocity(w[k], b, fxg_v3(FXG_I(i % 3 ? 30000 : -30000), FXG_I(-30000), FXG_I(i % 5 ? 100 : -30000)));
						fxs_body_set_angular_velocity(w[k], b, fxg_v3(FXG_I(i % 4 ? 20000 : -20000), FXG_I(-20000), FXG_I(20000)));
					}
					continue;
				}
				fxs_body_id plank = add_body(w[k], FXS_BODY_DYNAMIC, FXS_SHAPE_BOX, fxg_v3(0, FXG_HALF, 0),
							     fxg_v3(FXG_I(10), FXG_HALF, FXG_I(2)), 0);
				for (int i = 0; i < 100; ++i) {
					fxg_vec3 p = fxg_v3(FXG_I(-9) + (i % 25) * FXG_RATIO(3, 4), FXG_I(1) + FXG_RATIO(1, 4),
							    FXG_I(-1) + (i / 25) * FXG_RATIO(3, 4));
					fxs_body_id b = add_body(w[k], FXS_BODY_DYNAMIC, FXS_SHAPE_SPHERE, p, fxg_v3(0, 0, 0), FXG_RATIO(1, 4));
					if (pass == 1) /* fast enough to saturate impulses and velocities */
						fxs_body_set_linear_velocity(w[k], b, fxg_v3(FXG_I(i % 2 ? 30000 : -30000), FXG_I(-30000), 0));
				}
				if (pass == 1)
					fxs_body_set_angular_velocity(w[k], plank, fxg_v3(FXG_I(20000), FXG_I(-20000), FXG_I(20000)));
			}
			uint64_t ovf;
			int64_t d = first_difference(w[0], w[1], level, test_quick ? 20 : 60, &ovf);
			CHECKF(d < 0, "%s, %s: the kernels differ at step %lld", pass == 2 ? "saturating on the ground" : pass ? "saturating"
															       : "at rest",
			       level_name(level),
			       (long long)d);
			if (pass == 0)
				CHECKF(w[1]->contact_count > 64, "only %u contacts", w[1]->contact_count);
			else
				CHECKF(ovf > 0, "%s: nothing saturated: the saturating case is not tested", level_name(level));
			if (pass >= 1)
				printf("  %s: the same bits while saturating, %s (%llu saturations counted)\n", level_name(level),
				       pass == 1 ? "on a plank" : "on the ground", (unsigned long long)ovf);
			fxs_world_destroy(w[0]);
			fxs_world_destroy(w[1]);
		}
	}
}

TEST(batch_kernels_agree_on_the_overflow_stage_and_saturation)
{
	test_each_vector_level(overflow_stage_and_saturation_agree);
}

/* The ball joints of joint_grid's layout between the n x n bodies
 * id[x n + y] (x across, y down): each to the one above and the one to the
 * left, the anchors meeting halfway. */
static void join_sphere_grid(fxs_world *w, int n, const fxs_body_id *id)
{
	for (int x = 0; x < n; ++x)
		for (int y = 1; y < n; ++y) {
			fxs_joint_def jd = fxs_default_ball_joint_def();
			jd.body_a = id[x * n + y - 1], jd.body_b = id[x * n + y];
			jd.local_anchor_a = fxg_v3(0, -FXG_HALF, 0), jd.local_anchor_b = fxg_v3(0, FXG_HALF, 0);
			fxs_joint_create(w, &jd);
			if (x > 0) {
				jd.body_a = id[(x - 1) * n + y], jd.body_b = id[x * n + y];
				jd.local_anchor_a = fxg_v3(FXG_HALF, 0, 0), jd.local_anchor_b = fxg_v3(-FXG_HALF, 0, 0);
				fxs_joint_create(w, &jd);
			}
		}
}

/* A world of n x n spheres in joint_grid's layout (top row static, x
 * across, y down, radius(x, y) each) joined by join_sphere_grid, its
 * bodies in id[x n + y] */
static fxs_world *sphere_grid(int n, fix16_t (*radius)(int x, int y), fxs_body_id *id)
{
	fxs_world *w = awake_world();
	for (int x = 0; x < n; ++x)
		for (int y = 0; y < n; ++y)
			id[x * n + y] = add_body(w, y == 0 ? FXS_BODY_STATIC : FXS_BODY_DYNAMIC, FXS_SHAPE_SPHERE,
						 fxg_v3(FXG_I(x), FXG_I(-y), 0), fxg_v3(0, 0, 0), radius(x, y));
	join_sphere_grid(w, n, id);
	return w;
}

/* every seventh of a 12 x 12 grid a 1 cm bead: its inverse inertia takes
 * the setup's rare path (a scaled response below 2^16) */
static fix16_t bead_radius(int x, int y) { return (x * 12 + y) % 7 == 3 ? FXG_RATIO(1, 100) : FXG_RATIO(2, 5); }

/* every third column 0.1 m, the others 0.4 m */
static fix16_t two_sizes_radius(int x, int y) { return x % 3 == 0 ? FXG_RATIO(1, 10) : FXG_RATIO(2, 5); }

/* A 12 x 12 grid of ball-jointed spheres (joint_grid's layout: top row
 * static, joints to the left and above), some of them 1 cm beads (the
 * vector setup leaves their lanes to the portable code) and some turned by
 * quaternions far from unit, every sphere given a fast spin and drift:
 * impulses, the accumulated impulses, the velocities and the rotation
 * matrices saturate; the kernels agree step by step, overflow counts
 * included. */
static void ball_joints_agree_while_saturating(const fxs_kernel_table *kt)
{
	const fxs_kernels level = kt->level;
	{
		fxs_world *w[2];
		for (int k = 0; k < 2; ++k) {
			enum { N = 12 };
			fxs_body_id id[N * N];
			w[k] = sphere_grid(N, bead_radius, id);
			for (int x = 0; x < N; ++x)
				for (int y = 1; y < N; ++y) {
					int s = (x * 7 + y * 3) % 5 - 2;
					fxs_body_set_angular_velocity(w[k], id[x * N + y], fxg_v3(FXG_I(3000 * s), FXG_I(-2000 * s), FXG_I(1000)));
					fxs_body_set_linear_velocity(w[k], id[x * N + y], fxg_v3(FXG_I(500 * s), FXG_I(300), FXG_I(-400 * s)));
				}
		}
		/* a few bodies start from quaternions far from unit (a hostile
		 * snapshot's): the vector setup's rotations leave their range, it
		 * takes the portable ones, which saturate and count */
		for (int k = 0; k < 2; ++k)
			for (uint32_t s = 0; s < w[k]->slot_count; s += 11)
				w[k]->bodies[s].xf.q = fxg_q(1 << 24, -(1 << 23), 0, 1 << 22);
		uint64_t ovf;
		int64_t d = first_difference(w[0], w[1], level, test_quick ? 20 : 60, &ovf);
		CHECKF(d < 0, "%s: the ball joint kernels differ at step %lld", level_name(level), (long long)d);
		CHECKF(ovf > 0, "%s: no ball joint saturated: the saturating case is not tested", level_name(level));
		printf("  %s: ball joints, the same bits while saturating (%llu saturations counted)\n", level_name(level),
		       (unsigned long long)ovf);
		fxs_world_destroy(w[0]);
		fxs_world_destroy(w[1]);
	}
}

TEST(batch_ball_joint_kernels_agree_while_saturating)
{
	test_each_vector_level(ball_joints_agree_while_saturating);
}

/* A grid of ball-jointed spheres of two sizes, column by column (every
 * third column 0.1 m, the others 0.4 m, density 1000): a joint's K is
 * about its bodies' inverse masses, 0.0075 kg^-1 between two large
 * spheres, 0.24 kg^-1 and more beside a small one, so that in the vector
 * setup a batch's lanes scale K up (below 2^30 in Q32.32) and down (above)
 * side by side, the case where it takes both scalings and a select. No
 * lane saturates; the kernels agree step by step. */
static void ball_joints_agree_on_mixed_sizes(const fxs_kernel_table *kt)
{
	const fxs_kernels level = kt->level;
	if (level == FXS_KERNELS_SIMD128) /* SIMD128: contacts only */
		return;
	{
		fxs_world *w[2];
		for (int k = 0; k < 2; ++k) {
			enum { N = 10 };
			fxs_body_id id[N * N];
			w[k] = sphere_grid(N, two_sizes_radius, id);
			for (int i = 0; i < N * N; ++i) /* a sideways push, so that the grid swings and turns */
				if (i % N > 0)
					fxs_body_set_linear_velocity(w[k], id[i], fxg_v3(FXG_I(i % N % 3), 0, FXG_I(i / N % 2)));
		}
		uint64_t ovf;
		int64_t d = first_difference(w[0], w[1], level, test_quick ? 30 : 120, &ovf);
		CHECKF(d < 0, "%s: spheres of two sizes, the ball joint kernels differ at step %lld", level_name(level),
		       (long long)d);
		printf("  %s: ball joints between spheres of two sizes, the same bits\n", level_name(level));
		fxs_world_destroy(w[0]);
		fxs_world_destroy(w[1]);
	}
}

TEST(batch_ball_joint_kernels_agree_on_mixed_sizes)
{
	test_each_vector_level(ball_joints_agree_on_mixed_sizes);
}

/* A step of two sub-step lengths (1/60 s in 8 sub-steps: 4 of 137 raw, 4
 * of 136), where the solver trades each contact's and ball joint's
 * softness for the other length's after the long sub-steps: a pyramid of
 * boxes beside hanging chains of ball-jointed spheres (in batches), the
 * same bits on every kernel. */
static void two_substep_lengths_agree(const fxs_kernel_table *kt)
{
	const fxs_kernels level = kt->level;
	{
		fxs_world *w[2];
		for (int k = 0; k < 2; ++k) {
			fxs_world_def def = fxs_default_world_def();
			def.enable_sleep = false;
			def.substeps = 8;
			def.direct_joint_rows = 0; /* the ball joints in batches */
			w[k] = fxs_world_create(&def);
			add_body(w[k], FXS_BODY_STATIC, FXS_SHAPE_BOX, fxg_v3(0, -FXG_ONE, 0), fxg_v3(FXG_I(40), FXG_ONE, FXG_I(40)), 0);
			for (int row = 0; row < 8; ++row)
				for (int i = row; i < 8; ++i)
					add_body(w[k], FXS_BODY_DYNAMIC, FXS_SHAPE_BOX,
						 fxg_v3(FXG_I(i) - FXG_HALF * row, FXG_HALF + FXG_I(row), 0),
						 fxg_v3(FXG_RATIO(9, 20), FXG_HALF, FXG_RATIO(9, 20)), 0);
			fxs_body_id prev[6];
			for (int y = 0; y < 6; ++y)
				for (int x = 0; x < 6; ++x) {
					fxs_body_id id = add_body(w[k], y == 0 ? FXS_BODY_STATIC : FXS_BODY_DYNAMIC, FXS_SHAPE_SPHERE,
								  fxg_v3(FXG_I(20 + x), FXG_I(10 - y), FXG_I(x % 2)), fxg_v3(0, 0, 0),
								  FXG_RATIO(3, 10));
					if (y > 0) {
						fxs_joint_def jd = fxs_default_ball_joint_def();
						jd.body_a = prev[x], jd.body_b = id;
						jd.local_anchor_a = fxg_v3(0, -FXG_HALF, 0), jd.local_anchor_b = fxg_v3(0, FXG_HALF, 0);
						fxs_joint_create(w[k], &jd);
					}
					prev[x] = id;
				}
		}
		uint64_t ovf;
		int64_t d = first_difference(w[0], w[1], level, test_quick ? 20 : 90, &ovf);
		CHECKF(d < 0, "%s: two sub-step lengths, the kernels differ at step %lld", level_name(level), (long long)d);
		fxs_world_destroy(w[0]);
		fxs_world_destroy(w[1]);
	}
}

TEST(batch_kernels_agree_with_two_substep_lengths)
{
	test_each_vector_level(two_substep_lengths_agree);
}

/* Boxes standing on one corner each, their centres off the corner's
 * vertical (so that a twist about the normal reaches their other rows),
 * spinning: one-point contacts, which the vector kernels solve in one-row
 * batches and whose twist they skip in a half batch where no lane has one
 * to do (a one-point manifold's lever is zero). With twist impulses carried
 * into a step, as a manifold that had more points leaves them, in some
 * lanes and not in others, every few steps, the kernels agree with the
 * portable one step by step; and the impulses change the world (against
 * the same world without them), so the lanes that run the twist are
 * tested. */
static fxs_world *boxes_on_corners(void)
{
	fxs_world *w = awake_world();
	add_body(w, FXS_BODY_STATIC, FXS_SHAPE_BOX, fxg_v3(0, -FXG_ONE, 0), fxg_v3(FXG_I(30), FXG_ONE, FXG_I(30)), 0);
	for (int i = 0; i < 64; ++i) {
		fxs_body_def d = fxs_default_body_def();
		d.shape.type = FXS_SHAPE_BOX;
		d.shape.half_extents = fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF);
		/* a corner 0.8576 m below the centre and 0.12 m aside, the next
		 * ones 0.34 m below */
		d.rotation = fxg_q(22321, -9245, 23313, 56283);
		d.position = fxg_v3(FXG_I(-16 + 4 * (i % 8)), FXG_RATIO(85, 100), FXG_I(-16 + 4 * (i / 8)));
		fxs_body_id b = fxs_body_create(w, &d);
		fxs_body_set_angular_velocity(w, b, fxg_v3(0, FXG_I(i % 5 - 2), 0));
	}
	return w;
}

static void carry_twists(fxs_world *w, uint32_t step)
{
	for (uint32_t i = 0; i < w->contact_count; ++i) {
		const uint32_t x = (i + step) * 2654435761u;
		w->contacts[i].twist_impulse = x % 3 == 0 ? 0 : (fxg_wide)(x >> 12) - (1 << 19);
	}
}

static void one_point_twist_agrees(const fxs_kernel_table *kt)
{
	const fxs_kernels level = kt->level;
	fxs_world *w[3] = { boxes_on_corners(), boxes_on_corners(), boxes_on_corners() };
	fxs_world_set_kernels(w[0], level);
	fxs_world_set_kernels(w[1], FXS_KERNELS_PORTABLE);
	fxs_world_set_kernels(w[2], level);
	int64_t differ = -1;
	uint32_t carried = 0, one_point = 0;
	for (uint32_t s = 1; s <= 12 && differ < 0; ++s) {
		if (s % 2 == 0) {
			carry_twists(w[0], s), carry_twists(w[1], s);
			carried += w[0]->contact_count;
			for (uint32_t i = 0; i < w[0]->contact_count; ++i)
				one_point += w[0]->contacts[i].point_count == 1;
		}
		for (int k = 0; k < 3; ++k)
			fxs_world_step(w[k]);
		if (fxs_world_hash(w[0]) != fxs_world_hash(w[1]))
			differ = s;
	}
	CHECKF(differ < 0, "%s: the kernels differ at step %lld with twists carried into one-point contacts", level_name(level),
	       (long long)differ);
	CHECKF(carried > 0 && one_point == carried, "%s: %u of %u contacts of one point", level_name(level), one_point, carried);
	CHECKF(fxs_world_hash(w[0]) != fxs_world_hash(w[2]), "%s: the carried twists changed nothing: the case is not tested",
	       level_name(level));
	printf("  %s: one-point contacts, the same bits with twists carried in (%u contacts)\n", level_name(level), carried);
	for (int k = 0; k < 3; ++k)
		fxs_world_destroy(w[k]);
}

TEST(batch_kernels_agree_on_twists_carried_into_one_point_contacts)
{
	test_each_vector_level(one_point_twist_agrees);
}

/* The kernels chosen through the public API (fxs_world_set_kernels, the
 * CLI's --kernels): never wider than the machine has, and the same hash
 * whichever runs, on a scene with contacts and one with ball joints. */
TEST(batch_kernels_chosen_through_the_api)
{
	const fxs_kernels top = fxs_world_get_kernels(NULL);
	const char *names[] = { "box_stack", "joint_grid_10" };
	for (int s = 0; s < 2; ++s) {
		const fxs_scene *sc = fxs_scene_find(names[s]);
		CHECK(sc != NULL);
		uint64_t hash[FXS_KERNELS_LEVELS];
		for (int k = FXS_KERNELS_PORTABLE; k < FXS_KERNELS_LEVELS; ++k) {
			fxs_world *w = sc->create();
			fxs_kernels got = fxs_world_set_kernels(w, (fxs_kernels)k);
			CHECKF(got == available_at_most(k), "asked for %s, got %s with %s available", fxs_kernels_name((fxs_kernels)k),
			       fxs_kernels_name(got), fxs_kernels_name(top));
			CHECK(fxs_world_get_kernels(w) == got);
			/* a rollback keeps the choice: it is the world's, not its state's */
			size_t len = fxs_world_snapshot_size(w);
			void *snap = malloc(len);
			size_t written = 0;
			CHECK(snap && fxs_world_snapshot_save(w, snap, len, &written) == FXS_OK);
			CHECK(fxs_world_snapshot_restore(w, snap, written) == FXS_OK);
			free(snap);
			CHECKF(fxs_world_get_kernels(w) == got, "%s after a restore", fxs_kernels_name(fxs_world_get_kernels(w)));
			for (int i = 0; i < 60; ++i)
				fxs_world_step(w);
			hash[k] = fxs_world_hash(w);
			fxs_world_destroy(w);
		}
		for (int k = 1; k < FXS_KERNELS_LEVELS; ++k)
			CHECKF(hash[k] == hash[0], "%s: the hash depends on the kernels (%s)", names[s],
			       fxs_kernels_name((fxs_kernels)k));
	}
	CHECK(strcmp(fxs_kernels_name(FXS_KERNELS_PORTABLE), "portable") == 0);
	CHECK(strcmp(fxs_kernels_name(FXS_KERNELS_AVX2), "avx2") == 0);
	CHECK(strcmp(fxs_kernels_name(FXS_KERNELS_AVX512), "avx512") == 0);
	CHECK(strcmp(fxs_kernels_name(FXS_KERNELS_SIMD128), "simd128") == 0);
	CHECK(strcmp(fxs_kernels_name(FXS_KERNELS_NEON), "neon") == 0);
	CHECK(strcmp(fxs_kernels_name(FXS_KERNELS_SSE4), "sse4") == 0);
	/* outside the enum: below it the portable level, above it the widest */
	fxs_world *w = awake_world();
	CHECK(fxs_world_set_kernels(w, (fxs_kernels)-1) == FXS_KERNELS_PORTABLE);
	CHECK(fxs_world_set_kernels(w, (fxs_kernels)FXS_KERNELS_LEVELS) == top);
	fxs_world_destroy(w);
}

/* The state hash's XXH3 update runs on the world's kernels' instruction set
 * (state/hash.h): on a world whose state streams through many of the hash's
 * 16 KiB chunks, every level gives the portable level's hash. */
TEST(batch_state_hash_same_on_every_update_path)
{
	const fxs_scene *sc = fxs_scene_find("large_pyramid_b40");
	CHECK(sc != NULL);
	fxs_world *w = sc->create();
	for (int i = 0; i < 5; ++i)
		fxs_world_step(w);
	CHECK(fxs_world_snapshot_size(w) > 8 * 16384);
	fxs_world_set_kernels(w, FXS_KERNELS_PORTABLE);
	const uint64_t portable = fxs_world_rehash(w);
	for (int k = FXS_KERNELS_PORTABLE + 1; k < FXS_KERNELS_LEVELS; ++k) {
		fxs_world_set_kernels(w, (fxs_kernels)k);
		CHECKF(fxs_world_rehash(w) == portable, "%s: the state hash differs", fxs_kernels_name(fxs_world_get_kernels(w)));
	}
	fxs_world_destroy(w);
}

/* ---- the packing, field by field ---- */

static uint64_t pack_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* a value of `bits` random bits (0 to 63), random sign when `sign` */
static int64_t pack_bits(uint64_t *s, int bits, bool sign)
{
	int64_t v = bits ? (int64_t)(pack_rand(s) >> (64 - bits)) : 0;
	return sign && (pack_rand(s) & 1) ? -v : v;
}

static int32_t pack_i32(uint64_t *s, int max_bits)
{
	if (pack_rand(s) % 1024 == 0)
		return (int32_t)(pack_rand(s) % 3 == 0 ? INT32_MIN : (pack_rand(s) & 1 ? INT32_MAX : (int32_t)pack_rand(s)));
	return (int32_t)pack_bits(s, 1 + (int)(pack_rand(s) % (uint64_t)max_bits), true);
}

/* a solver body as prepare_bodies makes one (solver.c): one that does not
 * move has zero inertia and shifts 62; or with values from the edges of
 * each field's range */
static void pack_body(solver_body *b, uint64_t *s)
{
	memset(b, 0, sizeof *b);
	b->si = b->sm = 62;
	const int kind = (int)(pack_rand(s) % 16);
	b->v = fxg_v3(pack_i32(s, 20), pack_i32(s, 20), pack_i32(s, 20));
	b->w = fxg_v3(pack_i32(s, 20), pack_i32(s, 20), pack_i32(s, 20));
	if (kind == 0)
		return;                           /* static, or asleep */
	if (kind == 1 && pack_rand(s) % 4 == 0) { /* not dynamic, with an inverse mass near 2^-32 (k = 1 saturates) */
		b->inv_mass = (int64_t)(pack_rand(s) % 4);
		return;
	}
	b->dynamic = 1;
	/* inverse masses of every bit length: masses of every length (2^46, where the packing turns rare, included) */
	const int mb = kind <= 2 ? 17 + (int)(pack_rand(s) % 4) : kind == 3 ? 1 + (int)(pack_rand(s) % 62)
									    : 24 + (int)(pack_rand(s) % 16);
	b->inv_mass = pack_bits(s, mb, false);
	if (kind <= 8) { /* a cube's: diagonal, or nearly */
		const int32_t d = (int32_t)((1 << 29) + (int32_t)(pack_rand(s) % (1u << 29)));
		b->ii[0] = b->ii[1] = b->ii[2] = d;
		for (int k = 3; k < 6; ++k)
			b->ii[k] = kind >= 6 ? (int32_t)pack_bits(s, (int)(pack_rand(s) % 6), true) : 0;
		b->si = (uint8_t)(16 + pack_rand(s) % 30);
	} else {
		for (int k = 0; k < 6; ++k)
			b->ii[k] = (int32_t)pack_bits(s, (int)(pack_rand(s) % 31), true) / (k < 3 ? 1 : 2);
		b->si = (uint8_t)(kind == 9 ? 1 + pack_rand(s) % 62 : 14 + pack_rand(s) % 32);
	}
}

/* fxs_pack_rows_lane on every lane, and the vector packing with the
 * portable code on the lanes it leaves (as contact_batch.c's pack_rows):
 * the same rows, bit for bit, and the same saturation count, on batches
 * of random bodies, lever arms, directions and softness that reach every
 * rare case (cross products and relative speeds out of range, a
 * saturating reciprocal, masses of 2^46, responses whose shift clamps,
 * soft mass scales out of their range). */
static void packing_agrees_field_by_field(const fxs_kernel_table *kt)
{
	const fxs_kernels level = kt->level;
	const uint32_t nbody = 16;
	solver_body *bodies = aligned_alloc(64, sizeof(solver_body) * (nbody + 1));
	contact_batch *ref = aligned_alloc(64, sizeof *ref), *vec = aligned_alloc(64, sizeof *vec);
	CHECK(bodies && ref && vec);
	uint64_t seed = 21;
	const int rounds = test_quick ? 3000 : 30000;
	uint32_t rare_lanes = 0, lanes = 0;
	{
		for (int round = 0; round < rounds; ++round) {
			for (uint32_t i = 0; i < nbody; ++i)
				pack_body(&bodies[i], &seed);
			memset(&bodies[nbody], 0, sizeof bodies[nbody]); /* the spare */
			bodies[nbody].si = bodies[nbody].sm = 62;
			memset(ref, 0x5A, sizeof *ref);
			lane_arms arms;
			memset(&arms, 0, sizeof arms);
			/* directions: unit-sized mostly; anything sometimes */
			const int dbits = round % 16 == 0 ? 31 : 17;
			for (int l = 0; l < FXS_LANES; ++l) {
				const int count = (int)(pack_rand(&seed) % 5);
				ref->count[l] = count;
				ref->a[l] = count ? (uint32_t)(pack_rand(&seed) % nbody) : nbody;
				ref->b[l] = count ? (uint32_t)(pack_rand(&seed) % nbody) : nbody;
				for (int k = 0; k < 3; ++k)
					for (int j = 0; j < 3; ++j)
						ref->d[k][j][l] = count ? pack_i32(&seed, dbits) : 0;
				const int abits = round % 8 == 0 ? 31 : 22;
				for (int p = 0; p < count; ++p)
					for (int j = 0; j < 3; ++j)
						arms.ra[p][j][l] = pack_i32(&seed, abits), arms.rb[p][j][l] = pack_i32(&seed, abits);
				for (int j = 0; j < 3 && count; ++j)
					arms.ca[j][l] = pack_i32(&seed, abits), arms.cb[j][l] = pack_i32(&seed, abits);
				if (round % 4 == 1 && count) {
					/* cross products at the edge of int32 after rounding: n
					 * along z, a lever arm's y making r x n's x near 2^47 */
					const int32_t dz = (int32_t)((1 << 16) + 1 + pack_rand(&seed) % 64);
					ref->d[0][0][l] = ref->d[0][1][l] = 0, ref->d[0][2][l] = dz;
					const int64_t y = ((int64_t)1 << 47) - (int64_t)(pack_rand(&seed) % (1u << 17));
					arms.ra[0][1][l] = (int32_t)((pack_rand(&seed) & 1 ? y : -y) / dz);
				}
				const int32_t edges[] = { 0, 1, 1 << 16, 1 << 17, (1 << 17) + 1, -1, INT32_MIN, INT32_MAX };
				arms.mass_scale[l] = pack_rand(&seed) % 8 == 0 ? edges[pack_rand(&seed) % 8]
									       : (int32_t)(pack_rand(&seed) % ((1u << 16) + 1));
			}
			memcpy(vec, ref, sizeof *ref);
			uint32_t ovf_ref = 0, ovf_vec = 0;
			solver_ctx c;
			memset(&c, 0, sizeof c);
			c.bodies = bodies, c.body_count = nbody;
			c.ovf = &ovf_ref;
			for (int l = 0; l < FXS_LANES; ++l)
				fxs_pack_rows_lane(&c, ref, l, &arms);
			c.ovf = &ovf_vec;
			uint32_t todo = kt->pack_rows(&c, vec, &arms);
			for (int l = 0; l < FXS_LANES; ++l) {
				lanes += vec->count[l] > 0;
				if (todo >> l & 1 && vec->count[l])
					fxs_pack_rows_lane(&c, vec, l, &arms), ++rare_lanes;
			}
			if (memcmp(ref, vec, sizeof *ref) != 0 || ovf_ref != ovf_vec) {
				int lane = -1;
				for (int l = 0; l < FXS_LANES && lane < 0; ++l)
					for (int p = 0; p < 4; ++p)
						if (ref->n[p].mass[l] != vec->n[p].mass[l] || ref->n[p].sm[l] != vec->n[p].sm[l] ||
						    ref->n[p].soft_mass[l] != vec->n[p].soft_mass[l] || ref->n[p].ss[l] != vec->n[p].ss[l] ||
						    ref->n[p].ia[0][l] != vec->n[p].ia[0][l] || ref->n[p].sa[l] != vec->n[p].sa[l] ||
						    ref->relative_velocity[p][l] != vec->relative_velocity[p][l])
							lane = l;
				CHECKF(0, "%s: round %d: the packing differs (lane %d, rare %02x; saturations %u, %u)", level_name(level),
				       round, lane, todo, ovf_ref, ovf_vec);
			}
		}
		printf("  %s: the same rows on %d random batches (%u of %u lanes left to the portable code)\n",
		       level_name(level), rounds, rare_lanes, lanes);
		rare_lanes = lanes = 0;
	}
	free(bodies);
	free(ref);
	free(vec);
}

TEST(packing_kernels_agree_field_by_field)
{
	test_each_vector_level(packing_agrees_field_by_field);
}

/* The packing's one-lane reciprocal and scale (contact_batch.h) against
 * recip_q32 and scale1 (solver.h): every value up to 2^20, every value
 * within 2^10 of each power of two (2^18 among them, whose reciprocal is
 * 2^46, where the vector packing turns rare) and of INT64_MAX, and random
 * values of every bit length. */
static bool pack_recip_ok(uint64_t k)
{
	uint32_t ovf = 0;
	const int64_t want = recip_q32((int64_t)k, &ovf);
	return ovf || fxs_pack_recip(k) == (uint64_t)want; /* recip_q32 saturates only at k = 2 in this range */
}

static bool pack_scale1_ok(uint64_t x)
{
	uint32_t ovf = 0;
	int32_t want;
	const uint8_t ws = scale1((int64_t)x, &want, &ovf);
	uint8_t s;
	const int32_t got = fxs_pack_scale1(x, &s);
	return ovf == 0 && got == want && s == ws;
}

TEST(packing_reciprocal_and_scale_match_solver)
{
	for (uint64_t k = 3; k <= (1u << 20); ++k)
		CHECKF(pack_recip_ok(k), "recip of %" PRIu64, k);
	for (uint64_t x = 0; x <= (1u << 20); ++x)
		CHECKF(pack_scale1_ok(x), "scale1 of %" PRIu64, x);
	for (int j = 2; j <= 62; ++j)
		for (int64_t d = -1024; d <= 1024; ++d) {
			const int64_t k = (int64_t)((uint64_t)1 << j) + d;
			if (k < 0)
				continue;
			CHECKF(k < 3 || pack_recip_ok((uint64_t)k), "recip of 2^%d %+" PRId64, j, d);
			if (j <= 60 || (j == 61 && d < 0)) /* the domain: below 2^61 */
				CHECKF(pack_scale1_ok((uint64_t)k), "scale1 of 2^%d %+" PRId64, j, d);
		}
	for (uint64_t d = 0; d <= 1024; ++d)
		CHECKF(pack_recip_ok((uint64_t)INT64_MAX - d), "recip of INT64_MAX - %" PRIu64, d);
	uint64_t seed = 46;
	for (int i = 0; i < (test_quick ? 200000 : 2000000); ++i) {
		const uint64_t k = (uint64_t)pack_bits(&seed, 2 + (int)(pack_rand(&seed) % 62), false);
		if (k >= 3)
			CHECKF(pack_recip_ok(k), "recip of %" PRIu64, k);
		const uint64_t x = (uint64_t)pack_bits(&seed, (int)(pack_rand(&seed) % 62), false);
		CHECKF(pack_scale1_ok(x), "scale1 of %" PRIu64, x);
	}
}
