/* Overlap queries and filtered casts: exact answers against the closed
 * form (sphere-sphere distance, box bounds), ascending order, filters,
 * and neither sensors nor disabled bodies seen. */
#include "game_util.h"
#include "test.h"

/* A 6 x 6 grid of balls of radius 0.5, 2 m apart, at y = 0 (no gravity);
 * category 1 for even columns, 2 for odd ones. */
static fxs_world *grid(fxs_body_id ids[36])
{
	fxs_world *w = game_world_no_gravity();
	for (int i = 0; i < 36; ++i) {
		fxs_body_def d = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3(FXG_I(2 * (i % 6)), 0, FXG_I(2 * (i / 6))), FXG_HALF);
		d.filter.category_bits = (i % 6) % 2 ? 2 : 1;
		ids[i] = fxs_body_create(w, &d);
	}
	return w;
}

TEST(overlap_sphere_matches_the_distance_rule)
{
	fxs_body_id ids[36];
	fxs_world *w = grid(ids);
	/* query spheres at many centres and radii: a ball is reported exactly
	 * when |c - p| <= r + 0.5, in ascending slot order */
	uint64_t rng = 19;
	int checked = 0;
	for (int q = 0; q < 200; ++q) {
		fix16_t cx = (fix16_t)(test_rng_next(&rng) % (12u << 16)) - FXG_ONE;
		fix16_t cz = (fix16_t)(test_rng_next(&rng) % (12u << 16)) - FXG_ONE;
		fix16_t cy = (fix16_t)(test_rng_next(&rng) % (2u << 16)) - FXG_ONE;
		fix16_t r = (fix16_t)(test_rng_next(&rng) % (3u << 16)) + FXG_ONE / 8;
		fxs_shape s;
		memset(&s, 0, sizeof s);
		s.type = FXS_SHAPE_SPHERE;
		s.radius = r;
		fxs_transform xf = { fxg_v3(cx, cy, cz), fxg_q_identity() };
		fxs_body_id out[36];
		uint32_t n = fxs_world_overlap_shape(w, &s, &xf, NULL, out, 36);
		uint32_t k = 0;
		for (int i = 0; i < 36; ++i) {
			int64_t dx = (int64_t)FXG_I(2 * (i % 6)) - cx, dy = -(int64_t)cy, dz = (int64_t)FXG_I(2 * (i / 6)) - cz;
			int64_t rr = (int64_t)r + FXG_HALF;
			int64_t d2 = dx * dx + dy * dy + dz * dz, r2 = rr * rr;
			/* a few LSB of the narrowphase's rounding either side */
			int64_t slack = 8 * rr;
			if (d2 < r2 - slack || d2 > r2 + slack) {
				bool want = d2 <= r2;
				bool got = k < n && game_same_id(out[k], ids[i]);
				CHECKF(want == got, "query %d ball %d: want %d got %d", q, i, want, got);
				++checked;
			}
			if (k < n && game_same_id(out[k], ids[i]))
				++k;
		}
		CHECK(k == n); /* every reported id was matched in ascending order */
	}
	CHECK(checked > 7000);
	fxs_world_destroy(w);
}

TEST(overlap_queries_filter_and_skip_sensors_and_disabled)
{
	fxs_body_id ids[36];
	fxs_world *w = grid(ids);
	fxs_aabb all = { fxg_v3(-FXG_I(1), -FXG_I(1), -FXG_I(1)), fxg_v3(FXG_I(11), FXG_I(1), FXG_I(11)) };
	CHECK(fxs_world_overlap_aabb(w, all, NULL, NULL, 0) == 36);
	fxs_query_filter odd = { 1, 2 }; /* sees category 2 */
	fxs_body_id out[36];
	uint32_t n = fxs_world_overlap_aabb(w, all, &odd, out, 36);
	CHECK(n == 18);
	for (uint32_t i = 0; i < n; ++i)
		CHECK(fxs_body_get_filter(w, out[i]).category_bits == 2 && (i == 0 || out[i].index1 > out[i - 1].index1));
	/* a box query: tight bounds, closed intervals (touching counts) */
	fxs_aabb edge = { fxg_v3(FXG_HALF, -FXG_ONE, -FXG_ONE), fxg_v3(FXG_HALF, FXG_ONE, FXG_ONE) };
	CHECK(fxs_world_overlap_aabb(w, edge, NULL, out, 36) == 1 && game_same_id(out[0], ids[0]));
	/* a disabled body and a sensor are not seen */
	CHECK(fxs_body_disable(w, ids[0]) == FXS_OK);
	CHECK(fxs_world_overlap_aabb(w, edge, NULL, out, 36) == 0);
	fxs_body_def s = game_box_def(FXS_BODY_STATIC, fxg_v3(FXG_I(5), 0, FXG_I(5)), fxg_v3(FXG_I(9), FXG_ONE, FXG_I(9)));
	s.is_sensor = true;
	fxs_body_id sensor = fxs_body_create(w, &s);
	CHECK(fxs_world_overlap_aabb(w, all, NULL, NULL, 0) == 35);
	/* nor by the casts */
	fxs_cast_hit hit;
	CHECK(fxs_world_ray_cast(w, fxg_v3(FXG_I(2), FXG_I(5), 0), fxg_v3(FXG_I(2), -FXG_I(5), 0), fxs_null_body, &hit));
	CHECK(game_same_id(hit.body, ids[1]) && !game_same_id(hit.body, sensor));
	/* a filtered ray passes the even column's ball and hits the odd one behind it */
	CHECK(fxs_world_ray_cast_filtered(w, fxg_v3(-FXG_I(3), 0, FXG_I(2)), fxg_v3(FXG_I(3), 0, FXG_I(2)), &odd,
					  fxs_null_body, &hit));
	CHECK(game_same_id(hit.body, ids[7]));
	fxs_shape ball;
	memset(&ball, 0, sizeof ball);
	ball.type = FXS_SHAPE_SPHERE;
	ball.radius = FXG_ONE / 4;
	CHECK(fxs_world_shape_cast_filtered(w, &ball, fxg_q_identity(), fxg_v3(-FXG_I(3), 0, FXG_I(2)),
					    fxg_v3(FXG_I(3), 0, FXG_I(2)), &odd, fxs_null_body, &hit));
	CHECK(game_same_id(hit.body, ids[7]));
	/* boxes and capsules and a rotated query shape */
	fxs_shape box;
	memset(&box, 0, sizeof box);
	box.type = FXS_SHAPE_BOX;
	box.half_extents = fxg_v3(FXG_ONE, FXG_ONE / 4, FXG_ONE / 4);
	fxs_transform xf = { fxg_v3(FXG_I(3), 0, FXG_I(4)), fxg_q_identity() };
	n = fxs_world_overlap_shape(w, &box, &xf, NULL, out, 36); /* reaches x 2..4: balls at 2 and 4 (their surface at 2.5, 3.5) */
	CHECK(n == 2 && game_same_id(out[0], ids[13]) && game_same_id(out[1], ids[14]));
	xf.q = (fxg_quat){ 0, 46341, 0, 46341 }; /* 90 degrees about y: now along z, 3 .. 5 at x = 3: nothing */
	CHECK(fxs_world_overlap_shape(w, &box, &xf, NULL, out, 36) == 0);
	fxs_shape cap;
	memset(&cap, 0, sizeof cap);
	cap.type = FXS_SHAPE_CAPSULE;
	cap.radius = FXG_ONE / 4;
	cap.half_height = FXG_I(3);
	fxs_transform cx = { fxg_v3(FXG_I(6), 0, FXG_I(6)), fxg_q_identity() };
	CHECK(fxs_world_overlap_shape(w, &cap, &cx, NULL, out, 36) == 1 && game_same_id(out[0], ids[21]));
	/* bad input: nothing, no crash */
	fxs_aabb inside_out = { fxg_v3(FXG_ONE, 0, 0), fxg_v3(0, 0, 0) };
	CHECK(fxs_world_overlap_aabb(w, inside_out, NULL, out, 36) == 0);
	fxs_transform bad = { fxg_v3(0, 0, 0), { 0, 0, 0, 0 } };
	CHECK(fxs_world_overlap_shape(w, &ball, &bad, NULL, out, 36) == 0);
	CHECK(fxs_world_overlap_shape(w, NULL, &xf, NULL, out, 36) == 0);
	fxs_world_destroy(w);
}
