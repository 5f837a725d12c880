/* Heightfields (heightfield.c): a grid of heights built as a thick-face
 * mesh. Ray casts hit the surface at the height interpolated on the cell's
 * triangle, bodies rest on it at the analytic height, bad grids are refused,
 * snapshots carry it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixstep/fixstep.h"
#include "fixstep/query.h"
#include "test.h"

#define HF_N 9 /* 9 x 9 heights, 8 x 8 cells of 0.5 m: 4 x 4 m */

/* Rolling ground with a flat plateau at 1 m over the middle cells
 * (i, j in 3..5): elsewhere heights from a fixed pattern, 0 .. 0.5 m. */
static void hf_heights(fix16_t h[HF_N * HF_N])
{
	for (int j = 0; j < HF_N; ++j)
		for (int i = 0; i < HF_N; ++i) {
			bool plateau = i >= 3 && i <= 5 && j >= 3 && j <= 5;
			h[j * HF_N + i] = plateau ? FXG_ONE : (fix16_t)(((i * 7 + j * 13) % 11) * FXG_RATIO(5, 100));
		}
}

/* The world: the heightfield as a static body whose origin puts the grid
 * at x, z in [-2, 2]. */
static fxs_world *hf_world(fix16_t h[HF_N * HF_N])
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	hf_heights(h);
	fxs_mesh_id id = fxs_world_create_heightfield(w, h, HF_N, HF_N, FXG_HALF, FXG_HALF);
	if (!id)
		return w;
	fxs_body_def d = fxs_default_body_def();
	d.type = FXS_BODY_STATIC;
	d.shape = fxs_mesh_shape(w, id);
	d.position = fxg_v3(FXG_I(-2), 0, FXG_I(-2));
	fxs_body_create(w, &d);
	return w;
}

/* The surface height at local (x, z) (metres, inside the grid): linear on
 * the cell's triangle, the diagonal from (i, j) to (i + 1, j + 1). */
static double hf_expected(const fix16_t h[HF_N * HF_N], double x, double z)
{
	int i = (int)(x / 0.5), j = (int)(z / 0.5);
	double u = x / 0.5 - i, v = z / 0.5 - j;
	double ha = h[j * HF_N + i] / 65536.0, hb = h[j * HF_N + i + 1] / 65536.0;
	double hc = h[(j + 1) * HF_N + i] / 65536.0, hd = h[(j + 1) * HF_N + i + 1] / 65536.0;
	return u >= v ? ha + (u - v) * (hb - ha) + v * (hd - ha) : ha + (v - u) * (hc - ha) + u * (hd - ha);
}

TEST(heightfield_ray_casts_hit_the_height_interpolated_on_the_triangle)
{
	fix16_t h[HF_N * HF_N];
	fxs_world *w = hf_world(h);
	CHECK(fxs_world_mesh_count(w) == 1 && fxs_world_body_count(w) == 1);
	uint64_t rng = 17;
	int n = test_quick ? 300 : 3000;
	double worst = 0;
	for (int it = 0; it < n; ++it) {
		/* a point strictly inside the grid (local 0.01 .. 3.99 m) */
		fix16_t lx = FXG_RATIO(1, 100) + (fix16_t)(test_rng_next(&rng) % (uint64_t)FXG_RATIO(398, 100));
		fix16_t lz = FXG_RATIO(1, 100) + (fix16_t)(test_rng_next(&rng) % (uint64_t)FXG_RATIO(398, 100));
		fxg_vec3 p0 = fxg_v3(lx - FXG_I(2), FXG_I(5), lz - FXG_I(2)), p1 = fxg_v3(p0.x, FXG_I(-5), p0.z);
		fxs_cast_hit hit;
		CHECKF(fxs_world_ray_cast(w, p0, p1, fxs_null_body, &hit), "ray %d at (%d, %d) missed", it, lx, lz);
		double want = hf_expected(h, lx / 65536.0, lz / 65536.0), e = hit.point.y / 65536.0 - want;
		e = e < 0 ? -e : e;
		worst = e > worst ? e : worst;
		CHECK(hit.normal.y > 0); /* the front side, facing up */
	}
	printf("  %d vertical rays on a 9 x 9 heightfield: worst height error %.2e m\n", n, worst);
	CHECKF(worst <= 4.0 / 65536, "height off by %.2e m", worst); /* a few LSB, as ray casts on meshes */
	fxs_world_destroy(w);
}

/* A ball and a box dropped on the plateau come to rest on it: the ball's
 * centre at 1 + r, the box's at 1 + its half height (within the solver's
 * linear slop, 5 mm), at rest. */
TEST(heightfield_ball_and_box_rest_on_it_at_the_analytic_height)
{
	fix16_t h[HF_N * HF_N];
	fxs_world *w = hf_world(h);
	fxs_body_def bd = fxs_default_body_def();
	bd.shape.radius = FXG_RATIO(2, 10);
	bd.position = fxg_v3(FXG_RATIO(-3, 10), FXG_I(2), FXG_RATIO(-2, 10));
	fxs_body_id ball = fxs_body_create(w, &bd);
	fxs_body_def xd = fxs_default_body_def();
	xd.shape.type = FXS_SHAPE_BOX;
	xd.shape.half_extents = fxg_v3(FXG_RATIO(15, 100), FXG_RATIO(1, 10), FXG_RATIO(15, 100));
	xd.position = fxg_v3(FXG_RATIO(3, 10), FXG_RATIO(15, 10), FXG_RATIO(25, 100));
	fxs_body_id box = fxs_body_create(w, &xd);
	for (int i = 0; i < 240; ++i)
		fxs_world_step(w);
	fxg_vec3 pb = fxs_body_get_position(w, ball), px = fxs_body_get_position(w, box);
	fxg_vec3 vb = fxs_body_get_linear_velocity(w, ball), vx = fxs_body_get_linear_velocity(w, box);
	int64_t eb = (int64_t)pb.y - (FXG_ONE + FXG_RATIO(2, 10)), ex = (int64_t)px.y - (FXG_ONE + FXG_RATIO(1, 10));
	printf("  on the plateau: ball %.4f m (1.2 expected), box %.4f m (1.1 expected)\n", pb.y / 65536.0,
	       px.y / 65536.0);
	CHECKF(labs((long)eb) <= FXG_RATIO(5, 1000), "ball at %d", pb.y);
	CHECKF(labs((long)ex) <= FXG_RATIO(5, 1000), "box at %d", px.y);
	CHECK(labs((long)vb.y) < FXG_RATIO(1, 100) && labs((long)vx.y) < FXG_RATIO(1, 100));
	/* still over the plateau (x, z in -0.5 .. 0.5) */
	CHECK(labs((long)pb.x) < FXG_HALF && labs((long)pb.z) < FXG_HALF && labs((long)px.x) < FXG_HALF &&
	      labs((long)px.z) < FXG_HALF);
	fxs_world_destroy(w);
}

/* A ball rolling down the rolling ground stays on it (never below the
 * surface by more than the slop) and the heightfield's world snapshots and
 * restores like any mesh's. */
TEST(heightfield_ball_rolls_over_it_and_snapshots_restore)
{
	fix16_t h[HF_N * HF_N];
	fxs_world *w = hf_world(h);
	fxs_body_def bd = fxs_default_body_def();
	bd.shape.radius = FXG_RATIO(15, 100);
	bd.position = fxg_v3(FXG_RATIO(-17, 10), FXG_I(1), FXG_RATIO(-15, 10));
	bd.linear_velocity = fxg_v3(FXG_RATIO(15, 10), 0, FXG_RATIO(5, 10));
	fxs_body_id ball = fxs_body_create(w, &bd);
	double worst = 0, travelled = 0;
	fxg_vec3 start = bd.position;
	for (int i = 0; i < 120; ++i) {
		fxs_world_step(w);
		fxg_vec3 p = fxs_body_get_position(w, ball);
		travelled = ((double)p.x - start.x) * ((double)p.x - start.x) / 65536.0 / 65536.0 +
			((double)p.z - start.z) * ((double)p.z - start.z) / 65536.0 / 65536.0;
		double lx = p.x / 65536.0 + 2, lz = p.z / 65536.0 + 2;
		if (lx <= 0 || lx >= 4 || lz <= 0 || lz >= 4)
			break;
		/* the centre is at least r above the surface below it, less the slop
		 * (on a slope the contact is not under the centre: r over the
		 * triangle's plane is more than r over the point below) */
		double below = hf_expected(h, lx, lz) + 0.15 - p.y / 65536.0;
		worst = below > worst ? below : worst;
	}
	printf("  ball rolling over the heightfield (%.2f m across it): deepest below r over the surface %.4f m\n",
	       sqrt(travelled), worst);
	CHECKF(worst <= 0.01, "ball %.4f m into the ground", worst);
	CHECK(travelled > 0.25); /* it rolled over half a metre: several cells */
	size_t n = fxs_world_snapshot_size(w), written = 0;
	uint8_t *buf = malloc(n);
	CHECK(buf && fxs_world_snapshot_save(w, buf, n, &written) == FXS_OK);
	fxs_result err;
	fxs_world *r = fxs_world_create_from_snapshot(buf, written, &err);
	CHECK(r && fxs_world_hash(r) == fxs_world_hash(w));
	for (int i = 0; i < 30; ++i) {
		fxs_world_step(w);
		fxs_world_step(r);
	}
	CHECK(fxs_world_hash(r) == fxs_world_hash(w));
	free(buf);
	fxs_world_destroy(r);
	fxs_world_destroy(w);
}

TEST(heightfield_bad_grids_are_refused)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	fix16_t h[HF_N * HF_N];
	hf_heights(h);
	CHECK(fxs_world_create_heightfield(w, h, 1, HF_N, FXG_HALF, FXG_HALF) == 0);
	CHECK(fxs_world_create_heightfield(w, h, HF_N, 1, FXG_HALF, FXG_HALF) == 0);
	CHECK(fxs_world_create_heightfield(w, h, HF_N, HF_N, 0, FXG_HALF) == 0);
	CHECK(fxs_world_create_heightfield(w, h, HF_N, HF_N, FXG_HALF, 0) == 0);
	CHECK(fxs_world_create_heightfield(w, NULL, HF_N, HF_N, FXG_HALF, FXG_HALF) == 0);
	CHECK(fxs_world_create_heightfield(w, h, HF_N, HF_N, FXG_I(1000), FXG_HALF) == 0); /* 8 km wide */
	CHECK(fxs_world_mesh_count(w) == 0);
	CHECK(fxs_world_create_heightfield(w, h, HF_N, HF_N, FXG_HALF, FXG_HALF) == 1);
	fxs_world_destroy(w);
}
