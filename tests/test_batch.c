/* The contact solver's kernels (contact_batch.h): the portable one and,
 * where the CPU has them, the vector ones (AVX2 and AVX-512 on x86, NEON on
 * aarch64; under qemu in `make crosscheck`) give the same bits on
 * every scene, step by step, overflow counts included; also on a body with
 * more contacts than there are stages (the overflow stage, which the
 * portable kernel runs after the vectors) and on states built to saturate.
 * The ball joints' kernels (joint_batch.h) likewise: a grid of ball joints
 * whose bodies spin fast enough to saturate. */
#include <stdlib.h>
#include <string.h>

#include "solve/contact_batch.h"
#include "fixstep/fixstep.h"
#include "fixstep/joint.h"
#include "scenes/scenes.h"
#include "test.h"
#include "world/world.h"

/* the first step at which a world solved with kernel `level` differs from
 * one solved with the portable kernel, or -1; the sum of overflows seen */
static int64_t first_difference(fxs_world *a, fxs_world *b, int level, uint32_t steps, uint64_t *overflows)
{
	a->simd = level;
	b->simd = FXS_SIMD_NONE;
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

static int64_t scene_difference(const fxs_scene *sc, int level, uint32_t steps)
{
	fxs_world *a = sc->create(), *b = sc->create();
	uint64_t ovf;
	int64_t d = first_difference(a, b, level, steps, &ovf);
	fxs_world_destroy(a);
	fxs_world_destroy(b);
	return d;
}

static const char *level_name(int level)
{
	return level == FXS_SIMD_NEON ? "NEON" : level == FXS_SIMD_SIMD128 ? "SIMD128"
		: level == FXS_SIMD_AVX512                                 ? "AVX-512"
									   : "AVX2";
}

/* the widest kernel level at most k that this CPU and build have */
static int available_at_most(int k)
{
	while (k > FXS_SIMD_NONE && !fxs_batches_have_level(k))
		--k;
	return k;
}

/* a world that never sleeps, so that every step solves every contact */
static fxs_world *awake_world(void)
{
	fxs_world_def def = fxs_default_world_def();
	def.enable_sleep = false;
	return fxs_world_create(&def);
}

TEST(batch_kernels_agree_on_every_scene)
{
	int top = fxs_batches_simd_level();
	if (top == FXS_SIMD_NONE)
		printf("  no vector kernel on this CPU: only the portable kernel runs here (the crosscheck compares targets)\n");
	uint32_t n;
	const fxs_scene *scenes = fxs_scenes(&n);
	for (int level = FXS_SIMD_AVX2; level <= top; ++level) {
		if (!fxs_batches_have_level(level))
			continue;
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
TEST(batch_kernels_agree_on_the_overflow_stage_and_saturation)
{
	int top = fxs_batches_simd_level();
	for (int pass = 0; pass < 3; ++pass) {
		for (int level = FXS_SIMD_AVX2; level <= top; ++level) {
			if (!fxs_batches_have_level(level))
				continue;
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

/* A 12 x 12 grid of ball-jointed spheres (joint_grid's layout: top row
 * static, joints to the left and above), some of them 1 cm beads (the
 * vector setup leaves their lanes to the portable code) and some turned by
 * quaternions far from unit, every sphere given a fast spin and drift:
 * impulses, the accumulated impulses, the velocities and the rotation
 * matrices saturate; the kernels agree step by step, overflow counts
 * included. */
TEST(batch_ball_joint_kernels_agree_while_saturating)
{
	int top = fxs_batches_simd_level();
	if (top == FXS_SIMD_NONE)
		printf("  no vector ball-joint kernel on this CPU: the ball joints run the portable kernel only\n");
	for (int level = FXS_SIMD_AVX2; level <= top; ++level) {
		if (!fxs_batches_have_level(level))
			continue;
		fxs_world *w[2];
		for (int k = 0; k < 2; ++k) {
			w[k] = awake_world();
			enum { N = 12 };
			fxs_body_id id[N][N];
			for (int x = 0; x < N; ++x)
				for (int y = 0; y < N; ++y) {
					fxg_vec3 p = fxg_v3(FXG_I(x), FXG_I(-y), 0);
					/* every seventh a 1 cm bead: its inverse inertia takes the
					 * setup's rare path (a scaled response below 2^16) */
					fix16_t radius = (x * N + y) % 7 == 3 ? FXG_RATIO(1, 100) : FXG_RATIO(2, 5);
					id[x][y] = add_body(w[k], y == 0 ? FXS_BODY_STATIC : FXS_BODY_DYNAMIC, FXS_SHAPE_SPHERE, p, fxg_v3(0, 0, 0),
							    radius);
					if (y > 0) {
						int s = (x * 7 + y * 3) % 5 - 2;
						fxs_body_set_angular_velocity(w[k], id[x][y], fxg_v3(FXG_I(3000 * s), FXG_I(-2000 * s), FXG_I(1000)));
						fxs_body_set_linear_velocity(w[k], id[x][y], fxg_v3(FXG_I(500 * s), FXG_I(300), FXG_I(-400 * s)));
					}
				}
			for (int x = 0; x < N; ++x)
				for (int y = 1; y < N; ++y) {
					fxs_joint_def jd = fxs_default_ball_joint_def();
					jd.body_a = id[x][y - 1], jd.body_b = id[x][y];
					jd.local_anchor_a = fxg_v3(0, -FXG_HALF, 0), jd.local_anchor_b = fxg_v3(0, FXG_HALF, 0);
					fxs_joint_create(w[k], &jd);
					if (x > 0) {
						jd.body_a = id[x - 1][y], jd.body_b = id[x][y];
						jd.local_anchor_a = fxg_v3(FXG_HALF, 0, 0), jd.local_anchor_b = fxg_v3(-FXG_HALF, 0, 0);
						fxs_joint_create(w[k], &jd);
					}
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

/* A step of two sub-step lengths (1/60 s in 8 sub-steps: 4 of 137 raw, 4
 * of 136), where the solver trades each contact's and ball joint's
 * softness for the other length's after the long sub-steps: a pyramid of
 * boxes beside hanging chains of ball-jointed spheres (in batches), the
 * same bits on every kernel. */
TEST(batch_kernels_agree_with_two_substep_lengths)
{
	int top = fxs_batches_simd_level();
	for (int level = FXS_SIMD_AVX2; level <= top; ++level) {
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

/* The kernels chosen through the public API (fxs_world_set_kernels, the
 * CLI's --kernels): never wider than the machine has, and the same hash
 * whichever runs, on a scene with contacts and one with ball joints. */
TEST(batch_kernels_chosen_through_the_api)
{
	int top = fxs_batches_simd_level();
	const char *names[] = { "box_stack", "joint_grid_10" };
	for (int s = 0; s < 2; ++s) {
		const fxs_scene *sc = fxs_scene_find(names[s]);
		CHECK(sc != NULL);
		uint64_t hash[5];
		for (int k = FXS_KERNELS_PORTABLE; k <= FXS_KERNELS_NEON; ++k) {
			fxs_world *w = sc->create();
			fxs_kernels got = fxs_world_set_kernels(w, (fxs_kernels)k);
			CHECKF((int)got == available_at_most(k), "asked for %s, got %s with %d available", fxs_kernels_name((fxs_kernels)k),
			       fxs_kernels_name(got), top);
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
		CHECKF(hash[0] == hash[1] && hash[1] == hash[2] && hash[2] == hash[3] && hash[3] == hash[4],
		       "%s: the hash depends on the kernels", names[s]);
	}
	CHECK(strcmp(fxs_kernels_name(FXS_KERNELS_PORTABLE), "portable") == 0);
	CHECK(strcmp(fxs_kernels_name(FXS_KERNELS_AVX2), "avx2") == 0);
	CHECK(strcmp(fxs_kernels_name(FXS_KERNELS_AVX512), "avx512") == 0);
	CHECK(strcmp(fxs_kernels_name(FXS_KERNELS_SIMD128), "simd128") == 0);
	CHECK(strcmp(fxs_kernels_name(FXS_KERNELS_NEON), "neon") == 0);
}
