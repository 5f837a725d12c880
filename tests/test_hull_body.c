/* Convex hulls as bodies: resting, the full inertia tensor, snapshots and
 * the hull section of the state as untrusted input. Tolerances are stated
 * per test. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixstep/fixstep.h"
#include "test.h"
#include "snapshot_util.h"

static double fx(fix16_t v) { return v / 65536.0; }
static fix16_t tofx(double v) { return (fix16_t)lround(v * 65536.0); }
static fxg_vec3 v3(double x, double y, double z) { return fxg_v3(tofx(x), tofx(y), tofx(z)); }

static fxs_body_id ground(fxs_world *w)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = FXS_BODY_STATIC;
	d.shape.type = FXS_SHAPE_BOX;
	d.shape.half_extents = v3(20, 0.5, 20);
	d.position = v3(0, -0.5, 0);
	return fxs_body_create(w, &d);
}

/* the 8 corners of a box of half extents (hx, hy, hz) around c */
static void box_points(double hx, double hy, double hz, fxg_vec3 *p)
{
	for (int i = 0; i < 8; ++i)
		p[i] = v3(i & 1 ? -hx : hx, i & 2 ? -hy : hy, i & 4 ? -hz : hz);
}

static fxs_body_id hull_body(fxs_world *w, fxs_hull_id h, fxg_vec3 pos, fxg_quat q)
{
	fxs_body_def d = fxs_default_body_def();
	d.shape = fxs_hull_shape(w, h);
	d.position = pos;
	d.rotation = q;
	return fxs_body_create(w, &d);
}

/* A hull made of a unit cube's corners dropped from 0.3 m on a static box:
 * rests with its centre at 0.5 m within 5 mm (the contact softness), its
 * rotation unchanged within 0.001, and falls asleep within 3 s. */
TEST(hull_cube_comes_to_rest_on_a_box)
{
	fxs_world_def wd = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&wd);
	ground(w);
	fxg_vec3 pts[8], com;
	box_points(0.5, 0.5, 0.5, pts);
	fxs_hull_id h = fxs_world_create_hull(w, pts, 8, &com);
	CHECK(h == 1);
	CHECK(com.x == 0 && com.y == 0 && com.z == 0);
	fxs_body_id b = hull_body(w, h, v3(0, 0.8, 0), fxg_q_identity());
	CHECK(fxs_body_is_valid(w, b));
	int slept = -1;
	for (int i = 0; i < 180; ++i) {
		fxs_world_step(w);
		if (slept < 0 && fxs_world_get_stats(w).awake_body_count == 0)
			slept = i;
	}
	fxg_vec3 p = fxs_body_get_position(w, b);
	fxg_quat q = fxs_body_get_rotation(w, b);
	CHECKF(fabs(fx(p.y) - 0.5) < 0.005 && fabs(fx(p.x)) < 0.001 && fabs(fx(p.z)) < 0.001, "rest at %.5f %.5f %.5f",
	       fx(p.x), fx(p.y), fx(p.z));
	CHECKF(fabs(fx(q.w)) > 0.999, "turned: w %.5f", fx(q.w));
	CHECKF(slept >= 0, "still awake after 3 s");
	CHECK(fxs_world_get_stats(w).overflows_total == 0);
	fxs_world_destroy(w);
}

/* A 4-sided pyramid (square base 1 m, apex 1 m up) resting on its base: the
 * centre of mass of a pyramid is a quarter of the height above the base,
 * so it rests at 0.25 m within 5 mm. */
TEST(hull_pyramid_rests_on_its_base_at_its_centre_of_mass)
{
	fxs_world_def wd = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&wd);
	ground(w);
	fxg_vec3 pts[5] = { v3(-0.5, 0, -0.5), v3(0.5, 0, -0.5), v3(0.5, 0, 0.5), v3(-0.5, 0, 0.5), v3(0, 1, 0) };
	fxg_vec3 com;
	fxs_hull_id h = fxs_world_create_hull(w, pts, 5, &com);
	CHECK(h != 0);
	CHECKF(fabs(fx(com.y) - 0.25) < 1.0 / 65536, "com y %.6f", fx(com.y));
	fxs_body_id b = hull_body(w, h, v3(0, 0.35, 0), fxg_q_identity());
	for (int i = 0; i < 240; ++i)
		fxs_world_step(w);
	fxg_vec3 p = fxs_body_get_position(w, b);
	CHECKF(fabs(fx(p.y) - 0.25) < 0.005, "rest at %.5f", fx(p.y));
	CHECK(fxs_world_get_stats(w).awake_body_count == 0);
	fxs_world_destroy(w);
}

/* The full tensor: a lopsided tetrahedron's products of inertia are not zero,
 * so an angular impulse L gives w = I^-1 L off the axis of L. Checked against
 * the inverse computed here in double from the kernel's tensor, to 1e-4
 * relative. */
TEST(hull_full_inertia_tensor_turns_an_angular_impulse)
{
	fxs_world_def wd = fxs_default_world_def();
	wd.gravity = fxg_v3_zero();
	fxs_world *w = fxs_world_create(&wd);
	fxg_vec3 pts[4] = { v3(0, 0, 0), v3(2, 0, 0), v3(0, 1, 0), v3(0.5, 0.25, 1.5) };
	fxs_hull_id h = fxs_world_create_hull(w, pts, 4, NULL);
	CHECK(h != 0);
	fxs_body_id b = hull_body(w, h, v3(0, 0, 0), fxg_q_identity());
	/* the tensor in double, from the same vertices (about the centroid) */
	double V = 0, c[3] = { 0, 0, 0 };
	double P[4][3] = { { 0, 0, 0 }, { 2, 0, 0 }, { 0, 1, 0 }, { 0.5, 0.25, 1.5 } };
	for (int i = 0; i < 4; ++i)
		for (int k = 0; k < 3; ++k)
			c[k] += P[i][k] / 4;
	double e1[3], e2[3], e3[3];
	for (int k = 0; k < 3; ++k)
		e1[k] = P[1][k] - P[0][k], e2[k] = P[2][k] - P[0][k], e3[k] = P[3][k] - P[0][k];
	V = fabs(e1[0] * (e2[1] * e3[2] - e2[2] * e3[1]) - e1[1] * (e2[0] * e3[2] - e2[2] * e3[0]) +
		 e1[2] * (e2[0] * e3[1] - e2[1] * e3[0])) /
		6;
	/* covariance of a tetrahedron: V/20 (sum_i q_i q_i^T + s s^T), q about c */
	double S[3][3] = { { 0 } }, s[3] = { 0, 0, 0 }, q[4][3];
	for (int i = 0; i < 4; ++i)
		for (int k = 0; k < 3; ++k)
			q[i][k] = P[i][k] - c[k], s[k] += q[i][k];
	for (int a = 0; a < 3; ++a)
		for (int bb = 0; bb < 3; ++bb) {
			double t = s[a] * s[bb];
			for (int i = 0; i < 4; ++i)
				t += q[i][a] * q[i][bb];
			S[a][bb] = 1000 * V / 20 * t;
		}
	double tr = S[0][0] + S[1][1] + S[2][2];
	double I[3][3];
	for (int a = 0; a < 3; ++a)
		for (int bb = 0; bb < 3; ++bb)
			I[a][bb] = (a == bb ? tr : 0) - S[a][bb];
	fxg_wide T[6];
	fxs_body_get_inertia_tensor(w, b, T);
	const double want[6] = { I[0][0], I[1][1], I[2][2], I[0][1], I[0][2], I[1][2] };
	for (int k = 0; k < 6; ++k)
		CHECKF(fabs((double)T[k] / 4294967296.0 - want[k]) < 1e-6 * tr + 1e-6, "tensor %d: %.9f want %.9f", k,
		       (double)T[k] / 4294967296.0, want[k]);
	double L[3] = { 0, 0, 1 }; /* N m s about z */
	fxs_body_apply_angular_impulse(w, b, v3(L[0], L[1], L[2]));
	/* solve I w = L by Cramer */
	double det = I[0][0] * (I[1][1] * I[2][2] - I[1][2] * I[2][1]) - I[0][1] * (I[1][0] * I[2][2] - I[1][2] * I[2][0]) +
		I[0][2] * (I[1][0] * I[2][1] - I[1][1] * I[2][0]);
	double wx = (L[0] * (I[1][1] * I[2][2] - I[1][2] * I[2][1]) - I[0][1] * (L[1] * I[2][2] - I[1][2] * L[2]) +
		     I[0][2] * (L[1] * I[2][1] - I[1][1] * L[2])) /
		det;
	double wy = (I[0][0] * (L[1] * I[2][2] - I[1][2] * L[2]) - L[0] * (I[1][0] * I[2][2] - I[1][2] * I[2][0]) +
		     I[0][2] * (I[1][0] * L[2] - L[1] * I[2][0])) /
		det;
	double wz = (I[0][0] * (I[1][1] * L[2] - L[1] * I[2][1]) - I[0][1] * (I[1][0] * L[2] - L[1] * I[2][0]) +
		     L[0] * (I[1][0] * I[2][1] - I[1][1] * I[2][0])) /
		det;
	fxg_vec3 got = fxs_body_get_angular_velocity(w, b);
	double n = sqrt(wx * wx + wy * wy + wz * wz);
	CHECKF(fabs(wx) > 0.05 * n || fabs(wy) > 0.05 * n, "the test hull is too symmetric");
	CHECKF(fabs(fx(got.x) - wx) < 1e-4 * n + 2.0 / 65536 && fabs(fx(got.y) - wy) < 1e-4 * n + 2.0 / 65536 &&
		       fabs(fx(got.z) - wz) < 1e-4 * n + 2.0 / 65536,
	       "w (%.6f %.6f %.6f) want (%.6f %.6f %.6f)", fx(got.x), fx(got.y), fx(got.z), wx, wy, wz);
	fxs_world_destroy(w);
}

/* Hulls in a snapshot: a world with two hull kinds (one body of each, one
 * falling on the other) restored into a fresh world steps to the same hash
 * for 120 steps. */
TEST(hull_snapshot_round_trip_steps_identically)
{
	fxs_world_def wd = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&wd);
	ground(w);
	fxg_vec3 cube[8];
	box_points(0.4, 0.3, 0.5, cube);
	fxg_vec3 oct[6] = { v3(0.6, 0, 0), v3(-0.6, 0, 0), v3(0, 0.6, 0), v3(0, -0.6, 0), v3(0, 0, 0.6), v3(0, 0, -0.6) };
	fxs_hull_id h1 = fxs_world_create_hull(w, cube, 8, NULL), h2 = fxs_world_create_hull(w, oct, 6, NULL);
	CHECK(h1 == 1 && h2 == 2);
	uint32_t ovf = 0;
	hull_body(w, h1, v3(0, 0.5, 0), fxg_q_identity());
	hull_body(w, h2, v3(0.2, 2.0, 0.1), fxg_q_normalize(fxg_q(tofx(0.2), tofx(0.1), 0, FXG_ONE), &ovf));
	for (int i = 0; i < 20; ++i)
		fxs_world_step(w);
	size_t n = fxs_world_snapshot_size(w), written = 0;
	uint8_t *buf = malloc(n);
	CHECK(buf && fxs_world_snapshot_save(w, buf, n, &written) == FXS_OK);
	fxs_world *r = fxs_world_create(&wd);
	CHECK(fxs_world_snapshot_restore(r, buf, written) == FXS_OK);
	CHECK(fxs_world_hash(r) == fxs_world_hash(w));
	CHECK(fxs_world_hull_count(r) == 2);
	for (int i = 0; i < 120; ++i) {
		fxs_world_step(w);
		fxs_world_step(r);
		CHECKF(fxs_world_hash(r) == fxs_world_hash(w), "diverged at step %d", i);
	}
	fxs_world_destroy(r);
	/* a vertex moved off the build (an interior point), checksum resealed:
	 * rejected by the hull's check, w intact */
	size_t raw_len = 0, off = 0;
	uint8_t *bad = raw_snapshot(w, &raw_len);
	CHECK(bad);
	for (size_t i = 0; i + 4 <= raw_len; ++i)
		if (memcmp(bad + i, "HULL", 4) == 0)
			off = i;
	CHECK(off > 0);
	uint64_t before = fxs_world_hash(w);
	/* first hull's first vertex: magic, count, nverts, then x, y, z; made
	 * (0, 0, 0), the box's centre, which is no vertex of its hull */
	memset(bad + off + 12, 0, 12);
	snapshot_reseal(bad, raw_len);
	fxs_world *r2 = fxs_world_create(&wd);
	fxs_result e = fxs_world_snapshot_restore(r2, bad, raw_len);
	CHECKF(e == FXS_ERR_CORRUPT, "restore gave %s", fxs_result_string(e));
	CHECK(fxs_world_hash(w) == before);
	fxs_world_destroy(r2);
	/* every truncation is rejected */
	for (size_t len = 24; len < written; len += 7) {
		fxs_world *r3 = fxs_world_create(&wd);
		CHECKF(fxs_world_snapshot_restore(r3, buf, len) != FXS_OK, "truncated at %zu accepted", len);
		fxs_world_destroy(r3);
	}
	free(bad);
	free(buf);
	fxs_world_destroy(w);
}

/* Bad input: too few points, flat, out of range, too many hull vertices; a
 * hull id of another world or none; a hull body that is static works. */
TEST(hull_bad_input_and_ids)
{
	fxs_world_def wd = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&wd);
	fxg_vec3 flat[4] = { v3(0, 0, 0), v3(1, 0, 0), v3(0, 0, 1), v3(1, 0, 1) };
	fxg_vec3 far[4] = { v3(0, 0, 0), v3(9, 0, 0), v3(0, 1, 0), v3(0, 0, 1) };
	CHECK(fxs_world_create_hull(w, flat, 3, NULL) == 0);
	CHECK(fxs_world_create_hull(w, flat, 4, NULL) == 0);
	CHECK(fxs_world_create_hull(w, far, 4, NULL) == 0);
	fxg_vec3 ball[64];
	for (int i = 0; i < 64; ++i) {
		double t = i * 2.399963, z = 1 - (2.0 * i + 1) / 64, r = sqrt(1 - z * z);
		ball[i] = v3(r * cos(t), r * sin(t), z);
	}
	CHECK(fxs_world_create_hull(w, ball, 64, NULL) == 0); /* > 32 vertices */
	CHECK(fxs_world_create_hull(w, ball, 20, NULL) != 0);
	fxs_body_def d = fxs_default_body_def();
	d.shape = fxs_hull_shape(w, 7);
	CHECK(d.shape.hull == NULL);
	CHECK(!fxs_body_is_valid(w, fxs_body_create(w, &d)));
	d.shape = fxs_hull_shape(w, 1);
	d.type = FXS_BODY_STATIC;
	CHECK(fxs_body_is_valid(w, fxs_body_create(w, &d)));
	fxs_world_destroy(w);
}

/* Five cube hulls stacked on a box and one tetrahedron on a mesh floor:
 * after 600 steps the stack stands (each centre within 5 mm of its
 * starting x, z and 1 cm of its height: the contact softness), everything
 * is asleep, and nothing passed through the mesh. */
TEST(hull_stack_stands_and_a_hull_rests_on_a_mesh)
{
	fxs_world_def wd = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&wd);
	ground(w);
	fxg_vec3 pts[8];
	box_points(0.5, 0.5, 0.5, pts);
	fxs_hull_id h = fxs_world_create_hull(w, pts, 8, NULL);
	fxs_body_id stack[5];
	for (int i = 0; i < 5; ++i)
		stack[i] = hull_body(w, h, v3(0, 0.5 + i, 0), fxg_q_identity());
	fxg_vec3 mv[4] = { v3(6, 0, -4), v3(14, 0, -4), v3(14, 0, 4), v3(6, 0, 4) };
	uint32_t tris[6] = { 0, 2, 1, 0, 3, 2 };
	fxs_body_def md = fxs_default_body_def();
	md.type = FXS_BODY_STATIC;
	md.shape = fxs_mesh_shape(w, fxs_world_create_mesh(w, mv, 4, tris, 2, FXG_HALF));
	md.position = v3(0, 0.001, 0);
	CHECK(fxs_body_is_valid(w, fxs_body_create(w, &md)));
	fxg_vec3 tet[4] = { v3(0, 0.6, 0), v3(0.5, -0.2, 0.3), v3(-0.5, -0.2, 0.3), v3(0, -0.2, -0.55) };
	fxg_vec3 com;
	fxs_hull_id th = fxs_world_create_hull(w, tet, 4, &com);
	uint32_t ovf = 0;
	fxs_body_id t = hull_body(w, th, v3(10, 1.5, 0), fxg_q_normalize(fxg_q(tofx(0.3), 0, tofx(0.2), FXG_ONE), &ovf));
	for (int i = 0; i < 600; ++i)
		fxs_world_step(w);
	for (int i = 0; i < 5; ++i) {
		fxg_vec3 p = fxs_body_get_position(w, stack[i]);
		CHECKF(fabs(fx(p.x)) < 0.005 && fabs(fx(p.z)) < 0.005 && fabs(fx(p.y) - (0.5 + i)) < 0.01,
		       "cube %d at %.4f %.4f %.4f", i, fx(p.x), fx(p.y), fx(p.z));
	}
	fxg_vec3 tp = fxs_body_get_position(w, t);
	/* resting on a face: the centre of mass 0.2 m + its offset above the
	 * base at most, and above the floor in any case */
	CHECKF(fx(tp.y) > 0.1 && fx(tp.y) < 0.5, "tetrahedron at height %.4f", fx(tp.y));
	CHECK(fxs_world_get_stats(w).awake_body_count == 0);
	CHECK(fxs_world_get_stats(w).overflows_total == 0);
	fxs_world_destroy(w);
}

/* A mesh corner poking into a hull face: a 2 x 0.2 x 2 m plate hull dropped
 * centred on the apex of a static mesh spike (apex at y = 1) rests on the
 * apex: its bottom within 1 cm of 1 m after 2 s (the mesh vertex is a
 * contact of its own; the plate's corners are far from every face). */
TEST(hull_plate_rests_on_a_mesh_spike)
{
	fxs_world_def wd = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&wd);
	fxg_vec3 mv[5] = { v3(0, 1, 0), v3(-0.5, 0, -0.5), v3(0.5, 0, -0.5), v3(0.5, 0, 0.5), v3(-0.5, 0, 0.5) };
	uint32_t tris[12] = { 0, 2, 1, 0, 3, 2, 0, 4, 3, 0, 1, 4 };
	fxs_body_def md = fxs_default_body_def();
	md.type = FXS_BODY_STATIC;
	md.shape = fxs_mesh_shape(w, fxs_world_create_mesh(w, mv, 5, tris, 4, FXG_HALF / 2));
	CHECK(fxs_body_is_valid(w, fxs_body_create(w, &md)));
	fxg_vec3 pts[8];
	box_points(1, 0.1, 1, pts);
	fxs_body_id p = hull_body(w, fxs_world_create_hull(w, pts, 8, NULL), v3(0, 1.3, 0), fxg_q_identity());
	for (int i = 0; i < 120; ++i)
		fxs_world_step(w);
	fxg_vec3 pp = fxs_body_get_position(w, p);
	CHECKF(fabs(fx(pp.y) - 0.1 - 1.0) < 0.01, "plate bottom at %.4f", fx(pp.y) - 0.1);
	fxs_world_destroy(w);
}
