/* Mass properties against the analytic formulas (double in tests only).
 * Stated bound (shape.h): 2^-30 relative plus 2^-22 absolute (2.4e-7 kg or
 * kg m^2), for sizes 0.05 .. 8 m and densities 1 .. 2000 kg/m^3. */
#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include "fixstep/fixstep.h"
#include "geometry/shape.h"
#include "test.h"

static double W(fxg_wide w) { return (double)w / 4294967296.0; }
static double F(fix16_t f) { return f / 65536.0; }

static int close_enough(double got, double want)
{
	double tol = fabs(want) * ldexp(1.0, -30) + ldexp(1.0, -22);
	return fabs(got - want) <= tol;
}

SLOW_TEST(mass_properties_match_analytic_values)
{
	uint64_t rng = 7;
	int n = test_quick ? 2000 : 50000;
	for (int i = 0; i < n; ++i) {
		fxs_shape s = { 0 };
		s.type = (int32_t)(test_rng_next(&rng) % 3);
		/* sizes 0.05 .. 8 m, densities 1 .. 2000: masses stay below 2^31 kg */
		fix16_t a = 3277 + (fix16_t)(test_rng_next(&rng) % (8 * 65536));
		fix16_t b = 3277 + (fix16_t)(test_rng_next(&rng) % (8 * 65536));
		fix16_t c = 3277 + (fix16_t)(test_rng_next(&rng) % (8 * 65536));
		fix16_t rho = 65536 + (fix16_t)(test_rng_next(&rng) % (2000 * 65536));
		s.radius = a;
		s.half_height = b;
		s.half_extents = fxg_v3(a, b, c);
		fxg_wide m, I[3];
		uint32_t ovf = 0;
		fxs_shape_mass(&s, rho, &m, I, &ovf);
		double r = F(a), h = F(b), x = F(a), y = F(b), z = F(c), d = F(rho);
		double em, ei[3];
		if (s.type == FXS_SHAPE_SPHERE) {
			em = d * 4.0 / 3.0 * M_PI * r * r * r;
			ei[0] = ei[1] = ei[2] = 0.4 * em * r * r;
		} else if (s.type == FXS_SHAPE_BOX) {
			em = d * 8 * x * y * z;
			ei[0] = em * (y * y + z * z) / 3;
			ei[1] = em * (x * x + z * z) / 3;
			ei[2] = em * (x * x + y * y) / 3;
		} else {
			double H = 2 * h, mc = d * M_PI * r * r * H, ms = d * 4.0 / 3.0 * M_PI * r * r * r;
			em = mc + ms;
			ei[1] = mc * r * r / 2 + ms * 0.4 * r * r;
			ei[0] = ei[2] = mc * (H * H / 12 + r * r / 4) + ms * (0.4 * r * r + H * H / 4 + 3 * H * r / 8);
		}
		if (em >= 2147483647.0 || ei[0] >= 2147483647.0 || ei[1] >= 2147483647.0)
			continue; /* beyond Q32.32: saturates, counted (tested below) */
		CHECKF(ovf == 0, "type %d: %u saturations", s.type, ovf);
		CHECKF(close_enough(W(m), em), "type %d mass %.9g want %.9g", s.type, W(m), em);
		for (int k = 0; k < 3; ++k)
			CHECKF(close_enough(W(I[k]), ei[k]), "type %d I%d %.9g want %.9g", s.type, k, W(I[k]), ei[k]);
	}
}

TEST(mass_beyond_range_saturates_and_counts)
{
	fxs_shape s = { 0 };
	s.type = FXS_SHAPE_BOX;
	s.half_extents = fxg_v3(FXG_I(1000), FXG_I(1000), FXG_I(1000));
	fxg_wide m, I[3];
	uint32_t ovf = 0;
	fxs_shape_mass(&s, FXG_I(1000), &m, I, &ovf);
	CHECK(ovf > 0 && m == INT64_MAX);
}

TEST(unit_cube_and_ball_reference_values)
{
	fxs_shape cube = { 0 }, ball = { 0 };
	cube.type = FXS_SHAPE_BOX;
	cube.half_extents = fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF);
	ball.type = FXS_SHAPE_SPHERE;
	ball.radius = FXG_RATIO(2, 5); /* 0.4 rounds to 26214 raw */
	fxg_wide m, I[3];
	uint32_t ovf = 0;
	fxs_shape_mass(&cube, FXG_I(100), &m, I, &ovf);
	CHECK(m == (fxg_wide)100 << 32);           /* 100 kg exactly */
	CHECK(close_enough(W(I[0]), 100.0 / 6.0)); /* m (1 + 1) / 12 */
	fxs_shape_mass(&ball, FXG_I(1000), &m, I, &ovf);
	double r = 26214 / 65536.0;
	CHECK(close_enough(W(m), 1000 * 4.0 / 3.0 * M_PI * r * r * r)); /* ~268.08 kg */
	CHECK(ovf == 0);
}

TEST(aabb_encloses_rotated_shapes)
{
	uint64_t rng = 11;
	for (int i = 0; i < 2000; ++i) {
		fxs_shape s = { 0 };
		s.type = (int32_t)(test_rng_next(&rng) % 3);
		s.radius = 3277 + (fix16_t)(test_rng_next(&rng) % 65536);
		s.half_height = 3277 + (fix16_t)(test_rng_next(&rng) % 65536);
		/* sequenced draws: arguments are evaluated in an unspecified order */
		fix16_t ex = 3277 + (fix16_t)(test_rng_next(&rng) % 65536);
		fix16_t ey = 3277 + (fix16_t)(test_rng_next(&rng) % 65536);
		fix16_t ez = 3277 + (fix16_t)(test_rng_next(&rng) % 65536);
		s.half_extents = fxg_v3(ex, ey, ez);
		uint32_t ovf = 0;
		fxs_transform xf;
		xf.p = fxg_v3((fix16_t)(test_rng_next(&rng) % (200 * 65536)) - 100 * 65536, 0, 0);
		fix16_t qc[4];
		for (int k = 0; k < 4; ++k)
			qc[k] = (fix16_t)(test_rng_next(&rng) >> 48) - 32768;
		xf.q = fxg_q_normalize(fxg_q(qc[0], qc[1], qc[2], qc[3]), &ovf);
		fxs_aabb box = fxs_shape_aabb(&s, &xf, &ovf);
		/* every corner / cap extreme, rotated in double, lies inside */
		double qx = F(xf.q.x), qy = F(xf.q.y), qz = F(xf.q.z), qw = F(xf.q.w);
		double R[3][3] = { { 1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qw * qz), 2 * (qx * qz + qw * qy) },
				   { 2 * (qx * qy + qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qw * qx) },
				   { 2 * (qx * qz - qw * qy), 2 * (qy * qz + qw * qx), 1 - 2 * (qx * qx + qy * qy) } };
		double e[3];
		for (int k = 0; k < 3; ++k) {
			if (s.type == FXS_SHAPE_SPHERE)
				e[k] = F(s.radius);
			else if (s.type == FXS_SHAPE_BOX)
				e[k] = fabs(R[k][0]) * F(s.half_extents.x) + fabs(R[k][1]) * F(s.half_extents.y) +
					fabs(R[k][2]) * F(s.half_extents.z);
			else
				e[k] = fabs(R[k][1]) * F(s.half_height) + F(s.radius);
		}
		double c[3] = { F(xf.p.x), F(xf.p.y), F(xf.p.z) };
		double lo[3] = { F(box.lo.x), F(box.lo.y), F(box.lo.z) }, hi[3] = { F(box.hi.x), F(box.hi.y), F(box.hi.z) };
		for (int k = 0; k < 3; ++k) {
			/* tolerance: the quaternion itself is rounded (a few LSB of rotation) */
			double tol = 8e-5 * (e[k] + 1);
			CHECKF(lo[k] <= c[k] - e[k] + tol && hi[k] >= c[k] + e[k] - tol, "type %d axis %d", s.type, k);
			CHECKF(hi[k] - lo[k] <= 2 * e[k] + 1e-3, "type %d axis %d too loose", s.type, k);
		}
	}
}
