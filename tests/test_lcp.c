/* The boxed LCP (kernel/src/lcp.c): hand-computed small cases with rows
 * free, at lower and at upper; random symmetric positive definite boxed
 * problems checked against the KKT conditions; friction-like bounds;
 * determinism. Tolerances in Q32.32 LSBs, stated per check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve/lcp.h"
#include "test.h"

#define ONE ((double)FXG_WIDE_ONE)
#define INF FXS_LCP_INF

static fxg_wide W(double v) { return (fxg_wide)llround(v * ONE); }
static double D(fxg_wide v) { return (double)v / ONE; }

/* |x - expect| within tol LSBs of Q32.32 */
static int near(fxg_wide x, double expect, double tol_lsb) { return fabs((double)x - expect * ONE) <= tol_lsb; }

static int solve(int m, const fxg_wide *a, const fxg_wide *b, const fxg_wide *lo, const fxg_wide *hi, fxg_wide *x,
		 fxs_lcp_stats *st)
{
	fxs_lcp p = { m, a, b, lo, hi, NULL, NULL, NULL, NULL, NULL, 0 };
	uint32_t ovf = 0;
	memset(st, 0, sizeof *st);
	bool ok = fxs_lcp_solve(&p, x, st, &ovf);
	return ok && ovf == 0;
}

/* 2x2, no active bounds: x = A^-1 b = (1/3, 1/3) within 4 LSB */
TEST(lcp_2x2_free)
{
	fxg_wide a[4] = { W(2), W(1), W(1), W(2) }, b[2] = { W(1), W(1) };
	fxg_wide lo[2] = { -INF, -INF }, hi[2] = { INF, INF }, x[2];
	fxs_lcp_stats st;
	CHECK(solve(2, a, b, lo, hi, x, &st));
	CHECKF(near(x[0], 1.0 / 3, 4) && near(x[1], 1.0 / 3, 4), "x = %.9f %.9f", D(x[0]), D(x[1]));
	CHECK(st.pivots == 0 && st.fallbacks == 0);
}

/* 2x2, row 1 at its lower bound 0: x = (1/2, 0), w_1 = 5/2 */
TEST(lcp_2x2_lower)
{
	fxg_wide a[4] = { W(2), W(1), W(1), W(2) }, b[2] = { W(1), W(-2) };
	fxg_wide lo[2] = { 0, 0 }, hi[2] = { INF, INF }, x[2];
	fxs_lcp_stats st;
	CHECK(solve(2, a, b, lo, hi, x, &st));
	CHECKF(near(x[0], 0.5, 4) && x[1] == 0, "x = %.9f %.9f", D(x[0]), D(x[1]));
	CHECK(st.pivots == 1 && st.fallbacks == 0);
}

/* 3x3 with one row of each kind: A = [4 1 0; 1 3 1; 0 1 2], b = (8, -9, -4),
 * x0 in [-1, 1], x1 free, x2 >= 0: x = (1, -10/3, 0), row 0 at upper
 * (w0 = -22/3), row 2 at lower (w2 = 2/3). And with b2 = 1 row 2 is free:
 * x = (1, -4.2, 2.6). */
TEST(lcp_3x3_upper_free_lower)
{
	fxg_wide a[9] = { W(4), W(1), 0, W(1), W(3), W(1), 0, W(1), W(2) };
	fxg_wide b[3] = { W(8), W(-9), W(-4) };
	fxg_wide lo[3] = { W(-1), -INF, 0 }, hi[3] = { W(1), INF, INF }, x[3];
	fxs_lcp_stats st;
	CHECK(solve(3, a, b, lo, hi, x, &st));
	CHECKF(x[0] == W(1) && near(x[1], -10.0 / 3, 4) && x[2] == 0, "x = %.9f %.9f %.9f", D(x[0]), D(x[1]), D(x[2]));
	CHECK(st.fallbacks == 0);
	b[2] = W(1);
	CHECK(solve(3, a, b, lo, hi, x, &st));
	CHECKF(x[0] == W(1) && near(x[1], -4.2, 8) && near(x[2], 2.6, 8), "x = %.9f %.9f %.9f", D(x[0]), D(x[1]),
	       D(x[2]));
}

/* A row with lower == upper is fixed there, whatever its residual. */
TEST(lcp_fixed_row)
{
	fxg_wide a[4] = { W(2), W(1), W(1), W(2) }, b[2] = { W(1), W(5) };
	fxg_wide lo[2] = { -INF, W(0.25) }, hi[2] = { INF, W(0.25) }, x[2];
	fxs_lcp_stats st;
	CHECK(solve(2, a, b, lo, hi, x, &st));
	/* x0 = (1 - 0.25) / 2 */
	CHECKF(x[1] == W(0.25) && near(x[0], 0.375, 4), "x = %.9f %.9f", D(x[0]), D(x[1]));
}

/* Friction-like bounds: a normal row (x0 >= 0) and two tangent rows bounded
 * by +-mu x0 (mu = 0.5), A = diag(1, 1, 1) + small coupling. The normal
 * settles at 1, tangent 1 wants 2 and stops at 0.5, tangent 2 wants 0.1 and
 * keeps it. The first pass starts from est = 0 (tangents fixed at zero), the
 * second from x0 = 1, which it confirms: two passes. */
TEST(lcp_friction_bounds_reestimated)
{
	fxg_wide a[9] = { W(1), 0, 0, 0, W(1), 0, 0, 0, W(1) };
	fxg_wide b[3] = { W(1), W(2), W(0.1) };
	fxg_wide lo[3] = { 0, 0, 0 }, hi[3] = { INF, 0, 0 }, est[3] = { 0, 0, 0 }, x[3];
	int32_t dep[3] = { -1, 0, 0 };
	fix16_t mu[3] = { 0, FXG_HALF, FXG_HALF };
	fxs_lcp p = { 3, a, b, lo, hi, NULL, dep, mu, est, NULL, 0 };
	fxs_lcp_stats st;
	memset(&st, 0, sizeof st);
	uint32_t ovf = 0;
	CHECK(fxs_lcp_solve(&p, x, &st, &ovf));
	CHECKF(x[0] == W(1) && x[1] == W(0.5) && near(x[2], 0.1, 2), "x = %.9f %.9f %.9f", D(x[0]), D(x[1]), D(x[2]));
	CHECKF(st.passes == 2 && st.fallbacks == 0, "passes %u", st.passes);
	/* with an offset (an impulse already applied): bounds on off + x; the
	 * first estimate is off (0.5), then 1.5: tangent total 0.75, x1 = 0.55 */
	fxg_wide off[3] = { W(0.5), W(0.2), 0 };
	p.off = off;
	p.est = NULL;
	memset(&st, 0, sizeof st);
	CHECK(fxs_lcp_solve(&p, x, &st, &ovf));
	CHECKF(x[0] == W(1) && near(x[1], 0.55, 2) && st.passes == 2, "x = %.9f %.9f %.9f", D(x[0]), D(x[1]), D(x[2]));
}

/* Random SPD boxed problems, m = 1..24: A = B B^T / m + 0.05 I (entries of
 * order one), b in [-2, 2], bounds a mix of none, one-sided, two-sided and
 * fixed. KKT within stated tolerances, w computed in double from the
 * Q32.32 A and x: every x in its box exactly; free rows |w| <= 2^-20 (4096
 * LSB: the L D L^T solve's rounding times A's conditioning); at lower w >=
 * -2^-16 and at upper w <= 2^-16 (FXS_LCP_TOL_W); no fallback. */
SLOW_TEST(lcp_random_spd_kkt)
{
	uint64_t seed = 7;
	int cases = test_quick ? 300 : 3000, worst_pivots = 0;
	double worst_free = 0;
	for (int c = 0; c < cases; ++c) {
		int m = 1 + (int)(test_rng_next(&seed) % 24);
		double *B = malloc(sizeof *B * m * m);
		fxg_wide *a = malloc(sizeof *a * m * m), *b = malloc(sizeof *b * m), *lo = malloc(sizeof *lo * m),
			 *hi = malloc(sizeof *hi * m), *x = malloc(sizeof *x * m), *x2 = malloc(sizeof *x2 * m);
		for (int i = 0; i < m * m; ++i)
			B[i] = (double)(test_rng_next(&seed) % 2001) / 1000.0 - 1.0;
		for (int i = 0; i < m; ++i)
			for (int j = 0; j <= i; ++j) {
				double s = 0;
				for (int k = 0; k < m; ++k)
					s += B[i * m + k] * B[j * m + k];
				s /= m;
				if (i == j)
					s += 0.05;
				a[i * m + j] = a[j * m + i] = W(s);
			}
		for (int i = 0; i < m; ++i) {
			b[i] = W((double)(test_rng_next(&seed) % 4001) / 1000.0 - 2.0);
			double l = -(double)(test_rng_next(&seed) % 1001) / 1000.0, h = (double)(test_rng_next(&seed) % 1001) / 1000.0;
			switch (test_rng_next(&seed) % 5) {
			case 0: lo[i] = -INF, hi[i] = INF; break;
			case 1: lo[i] = 0, hi[i] = INF; break;
			case 2: lo[i] = W(l), hi[i] = W(h); break;
			case 3: lo[i] = -INF, hi[i] = W(h); break;
			default: lo[i] = hi[i] = W(l / 2); break;
			}
		}
		fxs_lcp_stats st;
		CHECKF(solve(m, a, b, lo, hi, x, &st), "case %d: solve failed", c);
		CHECKF(st.fallbacks == 0, "case %d (m %d): fallback", c, m);
		if ((int)st.pivots > worst_pivots)
			worst_pivots = (int)st.pivots;
		for (int i = 0; i < m; ++i) {
			CHECKF((lo[i] == -INF || x[i] >= lo[i]) && (hi[i] == INF || x[i] <= hi[i]), "case %d row %d: out of box", c, i);
			double w = -D(b[i]);
			for (int j = 0; j < m; ++j)
				w += D(a[i * m + j]) * D(x[j]);
			bool at_lo = lo[i] != -INF && x[i] == lo[i], at_hi = hi[i] != INF && x[i] == hi[i];
			if (at_lo && at_hi)
				continue; /* fixed */
			if (at_lo) {
				CHECKF(w >= -1.0 / 65536, "case %d row %d: at lower, w = %g", c, i, w);
			} else if (at_hi) {
				CHECKF(w <= 1.0 / 65536, "case %d row %d: at upper, w = %g", c, i, w);
			} else {
				if (fabs(w) > worst_free)
					worst_free = fabs(w);
				CHECKF(fabs(w) <= 1.0 / (1 << 20), "case %d (m %d) row %d: free, w = %g", c, m, i, w);
			}
		}
		/* determinism: the same input, the same bits */
		fxs_lcp_stats st2;
		CHECK(solve(m, a, b, lo, hi, x2, &st2));
		CHECK(memcmp(x, x2, sizeof *x * m) == 0 && st.pivots == st2.pivots);
		free(B), free(a), free(b), free(lo), free(hi), free(x), free(x2);
	}
	printf("  %d random boxed LCPs (m <= 24): worst free-row residual %.3g, most pivots %d\n", cases, worst_free,
	       worst_pivots);
}

/* L D L^T alone: a 4x4 SPD system solved to within 16 LSB. */
TEST(lcp_ldlt_solves_spd)
{
	double ad[16] = { 4, 1, 0.5, 0, 1, 3, 0, 0.25, 0.5, 0, 2, 0.1, 0, 0.25, 0.1, 1 };
	double xs[4] = { 1, -2, 0.5, 3 };
	fxg_wide a[16], x[4];
	for (int i = 0; i < 16; ++i)
		a[i] = W(ad[i]);
	for (int i = 0; i < 4; ++i) {
		double s = 0;
		for (int j = 0; j < 4; ++j)
			s += ad[i * 4 + j] * xs[j];
		x[i] = W(s);
	}
	uint32_t ovf = 0;
	fxg_wide t[4];
	CHECK(fxs_ldlt_factor(a, 4, t, &ovf) == 0);
	fxs_ldlt_solve(a, 4, x, &ovf);
	for (int i = 0; i < 4; ++i)
		CHECKF(near(x[i], xs[i], 16), "x[%d] = %.9f", i, D(x[i]));
	CHECK(ovf == 0);
}

/* The fallback: the 3x3 case above needs two pivots (x0 to its upper bound,
 * x2 to its lower one); capped at one, the pass falls back (counted) to the
 * last iterate clamped into its box and 16 projected Gauss-Seidel sweeps,
 * which on this well-conditioned matrix land within 2^-20 of the answer. */
TEST(lcp_pivot_cap_falls_back_to_projected_gauss_seidel)
{
	fxg_wide a[9] = { W(4), W(1), 0, W(1), W(3), W(1), 0, W(1), W(2) };
	fxg_wide b[3] = { W(8), W(-9), W(-4) };
	fxg_wide lo[3] = { W(-1), -INF, 0 }, hi[3] = { W(1), INF, INF }, x[3], x2[3];
	fxs_lcp p = { 3, a, b, lo, hi, NULL, NULL, NULL, NULL, NULL, 0 };
	fxs_lcp_stats st;
	uint32_t ovf = 0;
	memset(&st, 0, sizeof st);
	CHECK(fxs_lcp_solve(&p, x, &st, &ovf));
	CHECKF(st.pivots == 2 && st.fallbacks == 0, "pivots %u", st.pivots);
	p.max_pivots = 1;
	memset(&st, 0, sizeof st);
	CHECK(fxs_lcp_solve(&p, x, &st, &ovf));
	CHECK(st.fallbacks == 1 && st.pivots == 1);
	CHECK(x[0] >= lo[0] && x[0] <= hi[0] && x[2] >= 0);
	CHECKF(near(x[0], 1, 4096) && near(x[1], -10.0 / 3, 4096) && near(x[2], 0, 4096), "x = %.9f %.9f %.9f", D(x[0]),
	       D(x[1]), D(x[2]));
	CHECK(fxs_lcp_solve(&p, x2, &st, &ovf));
	CHECK(memcmp(x, x2, sizeof x) == 0);
	CHECK(ovf == 0);
}
