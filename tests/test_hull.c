/* Convex hulls: the build (closed, convex, contains every input point,
 * independent of input order) and mass properties against closed forms. */
#include <math.h>

#include "fixstep/fixstep.h"
#include "geometry/hull.h"
#include "test.h"

static double W(fxg_wide w) { return (double)w / 4294967296.0; }
static double F(fix16_t f) { return f / 65536.0; }

/* the bound stated in hull.h, with T <= 60 */
static int close_enough(double got, double want, double rho)
{
	double tol = fabs(want) * ldexp(1.0, -30) + (2 * 60 + 8) * ldexp(1.0, -32) * (1 + rho);
	return fabs(got - want) <= tol;
}

static fxg_vec3 P(double x, double y, double z)
{
	return fxg_v3((fix16_t)lround(x * 65536), (fix16_t)lround(y * 65536), (fix16_t)lround(z * 65536));
}

TEST(hull_of_box_corners_matches_box_mass)
{
	double hx = 0.5, hy = 1.25, hz = 2.0, rho = 1000;
	fxg_vec3 pts[9];
	for (int i = 0; i < 8; ++i)
		pts[i] = P(i & 1 ? hx : -hx, i & 2 ? hy : -hy, i & 4 ? hz : -hz);
	pts[8] = P(0.25, 0.5, -1); /* interior: dropped */
	fxs_hull h;
	CHECK(fxs_hull_build(pts, 9, &h) == FXS_HULL_OK);
	CHECK(h.n_verts == 8);
	CHECK(h.n_tris == 12); /* six square faces, two triangles each */
	fxg_wide m, I[6];
	fxg_vec3 c;
	uint32_t ovf = 0;
	fxs_hull_mass(&h, FXG_I(1000), &m, &c, I, &ovf);
	CHECK(ovf == 0);
	double em = rho * 8 * hx * hy * hz;
	CHECKF(close_enough(W(m), em, rho), "mass %.12g want %.12g", W(m), em);
	CHECK(c.x == 0 && c.y == 0 && c.z == 0);
	double ei[3] = { em * (hy * hy + hz * hz) / 3, em * (hx * hx + hz * hz) / 3, em * (hx * hx + hy * hy) / 3 };
	for (int k = 0; k < 3; ++k)
		CHECKF(close_enough(W(I[k]), ei[k], rho), "I%d %.12g want %.12g", k, W(I[k]), ei[k]);
	for (int k = 3; k < 6; ++k)
		CHECKF(close_enough(W(I[k]), 0, rho), "I%d %.12g want 0", k, W(I[k]));
}

TEST(hull_tetrahedron_and_octahedron_match_closed_forms)
{
	double a = 1.5, rho = 700;
	fxg_vec3 tet[4] = { P(0, 0, 0), P(a, 0, 0), P(0, a, 0), P(0, 0, a) };
	fxs_hull h;
	CHECK(fxs_hull_build(tet, 4, &h) == FXS_HULL_OK);
	CHECK(h.n_verts == 4 && h.n_tris == 4);
	fxg_wide m, I[6];
	fxg_vec3 c;
	uint32_t ovf = 0;
	fxs_hull_mass(&h, FXG_I(700), &m, &c, I, &ovf);
	CHECK(ovf == 0);
	double a5 = pow(a, 5);
	CHECKF(close_enough(W(m), rho * a * a * a / 6, rho), "tet mass %.12g", W(m));
	CHECK(fabs(F(c.x) - a / 4) <= 1.0 / 65536 && fabs(F(c.y) - a / 4) <= 1.0 / 65536);
	for (int k = 0; k < 3; ++k)
		CHECKF(close_enough(W(I[k]), rho * a5 / 80, rho), "tet I%d %.12g want %.12g", k, W(I[k]), rho * a5 / 80);
	for (int k = 3; k < 6; ++k)
		CHECKF(close_enough(W(I[k]), rho * a5 / 480, rho), "tet I%d %.12g want %.12g", k, W(I[k]),
		       rho * a5 / 480);

	fxg_vec3 oct[6] = { P(a, 0, 0), P(-a, 0, 0), P(0, a, 0), P(0, -a, 0), P(0, 0, a), P(0, 0, -a) };
	CHECK(fxs_hull_build(oct, 6, &h) == FXS_HULL_OK);
	CHECK(h.n_verts == 6 && h.n_tris == 8);
	fxs_hull_mass(&h, FXG_I(700), &m, &c, I, &ovf);
	CHECK(ovf == 0);
	double om = rho * 4 * a * a * a / 3;
	CHECKF(close_enough(W(m), om, rho), "oct mass %.12g want %.12g", W(m), om);
	CHECK(c.x == 0 && c.y == 0 && c.z == 0);
	for (int k = 0; k < 3; ++k)
		CHECKF(close_enough(W(I[k]), om * a * a / 5, rho), "oct I%d %.12g want %.12g", k, W(I[k]), om * a * a / 5);
	for (int k = 3; k < 6; ++k)
		CHECKF(close_enough(W(I[k]), 0, rho), "oct I%d %.12g", k, W(I[k]));
}

TEST(hull_rejects_bad_input)
{
	fxs_hull h;
	fxg_vec3 flat[5] = { P(0, 0, 0), P(1, 0, 0), P(0, 1, 0), P(1, 1, 0), P(0.5, 0.5, 0) };
	CHECK(fxs_hull_build(flat, 5, &h) == FXS_HULL_ERR_FLAT);
	CHECK(fxs_hull_build(flat, 3, &h) == FXS_HULL_ERR_COUNT);
	fxg_vec3 far[4] = { P(0, 0, 0), P(9, 0, 0), P(0, 1, 0), P(0, 0, 1) };
	CHECK(fxs_hull_build(far, 4, &h) == FXS_HULL_ERR_RANGE);
}

/* Random clouds: closed (every directed edge used once, reversed once),
 * T = 2V - 4, every input point on or behind every face, and the same
 * vertex set and volume for a permuted input. */
SLOW_TEST(hull_random_clouds_are_closed_convex_and_order_independent)
{
	uint64_t rng = 11;
	int n_runs = test_quick ? 300 : 3000;
	int built = 0;
	for (int r = 0; r < n_runs; ++r) {
		int n = 4 + (int)(test_rng_next(&rng) % 28);
		fxg_vec3 pts[32], perm[32];
		for (int i = 0; i < n; ++i)
			pts[i] = fxg_v3((fix16_t)(test_rng_next(&rng) % (4 * 65536)) - 2 * 65536,
					(fix16_t)(test_rng_next(&rng) % (4 * 65536)) - 2 * 65536,
					(fix16_t)(test_rng_next(&rng) % (4 * 65536)) - 2 * 65536);
		fxs_hull h;
		int rc = fxs_hull_build(pts, n, &h);
		CHECKF(rc == FXS_HULL_OK || rc == FXS_HULL_ERR_TOO_MANY, "rc %d", rc);
		if (rc != FXS_HULL_OK)
			continue;
		++built;
		CHECKF(h.n_tris == 2 * h.n_verts - 4, "V %d T %d", h.n_verts, h.n_tris);
		for (int t = 0; t < h.n_tris; ++t) {
			for (int e = 0; e < 3; ++e) {
				int a = h.tris[t][e], b = h.tris[t][(e + 1) % 3], twin = 0;
				for (int u = 0; u < h.n_tris; ++u)
					for (int f = 0; f < 3; ++f)
						twin += h.tris[u][f] == b && h.tris[u][(f + 1) % 3] == a;
				CHECKF(twin == 1, "edge %d-%d twins %d", a, b, twin);
			}
			fxg_vec3 A = h.verts[h.tris[t][0]], B = h.verts[h.tris[t][1]], C = h.verts[h.tris[t][2]];
			double ux = F(B.x) - F(A.x), uy = F(B.y) - F(A.y), uz = F(B.z) - F(A.z);
			double vx = F(C.x) - F(A.x), vy = F(C.y) - F(A.y), vz = F(C.z) - F(A.z);
			double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
			for (int i = 0; i < n; ++i) {
				/* inputs snap to 1/256 m: compare the snapped point */
				double px = round(F(pts[i].x) * 256) / 256, py = round(F(pts[i].y) * 256) / 256,
				       pz = round(F(pts[i].z) * 256) / 256;
				double s = nx * (px - F(A.x)) + ny * (py - F(A.y)) + nz * (pz - F(A.z));
				CHECKF(s <= 1e-9, "point %d in front of face %d by %g", i, t, s);
			}
		}
		/* reversed input: same vertices (as a set) and the same mass */
		for (int i = 0; i < n; ++i)
			perm[i] = pts[n - 1 - i];
		fxs_hull h2;
		CHECK(fxs_hull_build(perm, n, &h2) == FXS_HULL_OK);
		CHECK(h2.n_verts == h.n_verts && h2.n_tris == h.n_tris);
		for (int i = 0; i < h.n_verts; ++i) {
			int found = 0;
			for (int j = 0; j < h2.n_verts; ++j)
				found += h2.verts[j].x == h.verts[i].x && h2.verts[j].y == h.verts[i].y &&
					h2.verts[j].z == h.verts[i].z;
			CHECK(found == 1);
		}
		fxg_wide m1, m2, I1[6], I2[6];
		fxg_vec3 c1, c2;
		uint32_t ovf = 0;
		fxs_hull_mass(&h, FXG_I(1), &m1, &c1, I1, &ovf);
		fxs_hull_mass(&h2, FXG_I(1), &m2, &c2, I2, &ovf);
		CHECK(ovf == 0);
		CHECK(m1 == m2); /* volume is exact */
		CHECK(m1 > 0);
		for (int k = 0; k < 3; ++k)
			CHECKF(close_enough(W(I1[k]), W(I2[k]), 1), "I%d %.12g vs %.12g", k, W(I1[k]), W(I2[k]));
	}
	CHECKF(built > n_runs / 2, "only %d of %d built", built, n_runs);
}
