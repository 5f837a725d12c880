/* fixmath_glue wide (Q32.32) operations and wide symmetric 3x3 matrices.
 * Exact references use unsigned/signed __int128 where the compiler has it;
 * on targets without it (32-bit) the exact comparisons are skipped and only
 * the properties that need no 128-bit arithmetic run. */
#include "fxg.h"
#include "test.h"

/* test-local double references (tests/test_glue_ref.c): no libm needed */
double glue_ref_abs(double x);
double glue_ref_max(double a, double b);
double glue_ref_floor(double x);
int64_t glue_ref_round(double x);
double glue_ref_pow2(int k);
double glue_ref_sqrt(double x);
double glue_ref_sin_turns(uint32_t a);
double glue_ref_cos_turns(uint32_t a);
double glue_ref_atan2_turns(double y, double x);
double glue_ref_sin(double x);
double glue_ref_cos(double x);
double glue_ref_pi(void);
#define fabs glue_ref_abs
#define fmax glue_ref_max
#define floor glue_ref_floor
#define llround glue_ref_round

static int32_t rnd_i32(uint64_t *s)
{
	uint64_t r = test_rng_next(s);
	return (int32_t)(uint32_t)r >> (int)((r >> 32) % 32);
}

#ifdef __SIZEOF_INT128__
static int64_t rnd_i64(uint64_t *s)
{
	uint64_t r = test_rng_next(s);
	return (int64_t)r >> (int)(test_rng_next(s) % 64);
}

static const int64_t wedges[] = {
	0,
	1,
	-1,
	2,
	-2,
	0x7FFFFFFF,
	-0x7FFFFFFF,
	0x80000000LL,
	-0x80000000LL,
	0xFFFFFFFFLL,
	-0xFFFFFFFFLL,
	0x100000000LL,
	-0x100000000LL,
	0x100000001LL,
	-0x100000001LL,
	0x1000000000000LL,
	-0x1000000000000LL,
	-0xFFFFFFFFFFFFLL,
	0x7FFFFFFFFFFFFFFFLL,
	-0x7FFFFFFFFFFFFFFFLL,
	INT64_MIN,
	0x4000000000000000LL,
};
#define NW ((int)(sizeof wedges / sizeof wedges[0]))
static const int32_t fedges[] = { 0, 1, -1, 0x8000, -0x8000, 0x10000, -0x10000, 0xFFFF, INT32_MAX, INT32_MIN, -INT32_MAX };
#define NF ((int)(sizeof fedges / sizeof fedges[0]))

__extension__ typedef __int128 i128; /* -Wpedantic: a GNU extension, guarded */

/* saturate an exact value to int64: returns the expected result and whether
 * the glue must count an overflow */
static int64_t sat64(i128 v, int *over)
{
	*over = v > INT64_MAX || v < INT64_MIN;
	return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN
							 : (int64_t)v;
}

/* floor((v + 2^(s-1)) / 2^s): round half up; >> on a negative __int128 is an
 * arithmetic shift on gcc and clang */
static i128 round_half_up(i128 v, int s) { return (v + ((i128)1 << (s - 1))) >> s; }

static int check_wmul(int64_t w, int32_t f)
{
	uint32_t ovf = 0;
	int over;
	int64_t want = sat64(round_half_up((i128)w * f, 16), &over);
	return fxg_wmul(w, f, &ovf) == want && ovf == (uint32_t)over;
}

static int check_wmul_wide(int64_t a, int64_t b)
{
	uint32_t ovf = 0;
	int over;
	int64_t want = sat64(round_half_up((i128)a * b, 32), &over);
	return fxg_wmul_wide(a, b, &ovf) == want && ovf == (uint32_t)over;
}

/* round(a 2^32 / b), ties away from zero */
static i128 ref_wdiv(int64_t a, int64_t b)
{
	i128 ua = a < 0 ? -(i128)a : (i128)a, ub = b < 0 ? -(i128)b : (i128)b;
	i128 n = ua << 32, q = n / ub, r = n % ub;
	if (2 * r >= ub)
		++q;
	return (a < 0) != (b < 0) ? -q : q;
}

static int check_wdiv(int64_t a, int64_t b)
{
	uint32_t ovf = 0;
	int64_t got = fxg_wide_div(a, b, &ovf);
	if (b == 0)
		return ovf == 1 && got == (a > 0 ? INT64_MAX : a < 0 ? INT64_MIN
								     : 0);
	int over;
	int64_t want = sat64(ref_wdiv(a, b), &over);
	return got == want && ovf == (uint32_t)over;
}
#endif

/* fxg_wmul (Q32.32 x Q16.16), fxg_wmul_wide (Q32.32 x Q32.32): exact product
 * rounded half up once (error <= 0.5 unit of 2^-32), saturated to int64 and
 * counted exactly when the rounded result does not fit. Every edge pair,
 * the saturation boundary, and 10^6 log-uniform pairs (10^5 quick). */
SLOW_TEST(glue_wide_mul_exact)
{
#ifdef __SIZEOF_INT128__
	for (int i = 0; i < NW; ++i) {
		for (int j = 0; j < NF; ++j)
			CHECKF(check_wmul(wedges[i], fedges[j]), "wmul(%" PRId64 ", %d)", wedges[i], fedges[j]);
		for (int j = 0; j < NW; ++j)
			CHECKF(check_wmul_wide(wedges[i], wedges[j]), "wmul_wide(%" PRId64 ", %" PRId64 ")", wedges[i],
			       wedges[j]);
	}
	/* just inside the range although the high partial product alone is not:
	 * (-2^48 + 1) * -2^31 / 2^16 = 2^63 - 2^15 (saturated before the fix) */
	uint32_t ovf = 0;
	CHECK(fxg_wmul(-((int64_t)1 << 48) + 1, INT32_MIN, &ovf) == INT64_MAX - 0x7FFF && ovf == 0);
	for (int64_t lo = -3; lo <= 3; ++lo)
		for (int d = 0; d <= 4; ++d) { /* INT32_MIN + d must not overflow */
			CHECK(check_wmul(-((int64_t)1 << 48) + lo, INT32_MIN + d));
			CHECK(check_wmul(((int64_t)1 << 48) + lo, INT32_MIN + d));
			CHECK(check_wmul(((int64_t)1 << 48) + lo, INT32_MAX - d));
		}
	uint64_t s = 11;
	long n = test_quick ? 100000 : 1000000;
	for (long i = 0; i < n; ++i) {
		int64_t w = rnd_i64(&s), b = rnd_i64(&s);
		int32_t f = rnd_i32(&s);
		CHECKF(check_wmul(w, f), "wmul(%" PRId64 ", %d)", w, f);
		CHECKF(check_wmul_wide(w, b), "wmul_wide(%" PRId64 ", %" PRId64 ")", w, b);
	}
#endif
	/* properties without a 128-bit reference */
	uint32_t o = 0;
	CHECK(fxg_wmul(FXG_WIDE_ONE, FXG_ONE, &o) == FXG_WIDE_ONE && fxg_wmul_wide(FXG_WIDE_ONE, -FXG_WIDE_ONE, &o) == -FXG_WIDE_ONE);
	CHECK(fxg_wmul_wide(INT64_MAX, INT64_MAX, &o) == INT64_MAX && o == 1);
	CHECK(fxg_wmul_wide(INT64_MIN, INT64_MAX, &o) == INT64_MIN && o == 2);
}

/* fxg_wide_div: correctly rounded (error <= 0.5 unit, ties away from zero),
 * saturated and counted; b == 0 gives +max / min / 0 by the sign of a.
 * fxg_wide_recip(w) == fxg_wide_div(1.0, w); w == 0 gives INT64_MAX, counted. */
SLOW_TEST(glue_wide_div_and_recip)
{
#ifdef __SIZEOF_INT128__
	for (int i = 0; i < NW; ++i)
		for (int j = 0; j < NW; ++j)
			CHECKF(check_wdiv(wedges[i], wedges[j]), "wide_div(%" PRId64 ", %" PRId64 ")", wedges[i], wedges[j]);
	uint64_t s = 12;
	long n = test_quick ? 100000 : 1000000;
	for (long i = 0; i < n; ++i) {
		int64_t a = rnd_i64(&s), b = rnd_i64(&s);
		CHECKF(check_wdiv(a, b), "wide_div(%" PRId64 ", %" PRId64 ")", a, b);
		uint32_t o1 = 0, o2 = 0;
		CHECK(fxg_wide_recip(b, &o1) == (b == 0 ? INT64_MAX : fxg_wide_div(FXG_WIDE_ONE, b, &o2)));
		CHECK(b == 0 ? o1 == 1 : o1 == o2);
	}
#endif
	uint32_t o = 0;
	CHECK(fxg_wide_recip(FXG_WIDE_ONE * 4, &o) == FXG_WIDE_ONE / 4 && fxg_wide_recip(-FXG_WIDE_ONE, &o) == -FXG_WIDE_ONE);
	CHECK(fxg_wide_recip(1, &o) == INT64_MAX && o == 1); /* 2^64 does not fit */
	CHECK(fxg_wide_recip(0, &o) == INT64_MAX && o == 2);
	CHECK(fxg_wide_div(0, 0, &o) == 0 && fxg_wide_div(-5, 0, &o) == INT64_MIN && o == 4);
}

/* ---- symmetric wide matrices ---- */

static double wd(fxg_wide w) { return (double)w / 4294967296.0; }
static fxg_wide dw(double d) { return (fxg_wide)llround(d * 4294967296.0); }

static fxg_quat rnd_unit_quat(uint64_t *s)
{
	uint32_t ovf = 0;
	fxg_quat q;
	do {
		q = fxg_q(rnd_i32(s) >> 12, rnd_i32(s) >> 12, rnd_i32(s) >> 12, rnd_i32(s) >> 12);
	} while ((int64_t)q.x * q.x + (int64_t)q.y * q.y + (int64_t)q.z * q.z + (int64_t)q.w * q.w < 100);
	return fxg_q_normalize(q, &ovf);
}

static double rnd_unit(uint64_t *s) { return (double)(test_rng_next(s) >> 11) / 9007199254740992.0; }

/* fxg_s3w_inverse on random SPD matrices R diag(l) R^T whose overall scale is
 * log-uniform in [1e-6, 1e6] and whose condition number is at most 100.
 * Bound (per entry of A X - I, with A the exact Q32.32 input and X the
 * returned inverse):  |A X - I| <= 2^-24 cond + 3 |A|max 2^-33.
 * The first term covers the cofactor arithmetic on the matrix scaled to
 * [1, 2); the second is the unavoidable rounding of X to Q32.32 (large A has
 * a tiny inverse with few significant bits). Also: exact for diagonal powers
 * of two, false and zeros for a singular matrix. */
SLOW_TEST(glue_sym3w_inverse)
{
	uint64_t s = 13;
	int n = test_quick ? 2000 : 50000;
	double worst = 0;
	for (int it = 0; it < n; ++it) {
		uint32_t ovf = 0;
		fxg_mat3 r = fxg_m3_from_quat(rnd_unit_quat(&s), &ovf);
		/* log-uniform-ish: 2^k (1 + u), k in [-20, 19] spans 9.5e-7 .. 1.05e6 */
		double scale = glue_ref_pow2((int)(test_rng_next(&s) % 40) - 20) * (1 + rnd_unit(&s));
		double cond = glue_ref_pow2((int)(test_rng_next(&s) % 7)) * (1 + rnd_unit(&s)) / 1.28; /* 0.78 .. 100 */
		double l[3] = { scale, scale * cond, scale * (1 + (cond - 1) * rnd_unit(&s)) };
		if (cond < 1)
			cond = 1 / cond;
		double R[3][3] = { { wd((fxg_wide)r.cx.x * 65536), wd((fxg_wide)r.cy.x * 65536), wd((fxg_wide)r.cz.x * 65536) },
				   { wd((fxg_wide)r.cx.y * 65536), wd((fxg_wide)r.cy.y * 65536), wd((fxg_wide)r.cz.y * 65536) },
				   { wd((fxg_wide)r.cx.z * 65536), wd((fxg_wide)r.cy.z * 65536), wd((fxg_wide)r.cz.z * 65536) } };
		double e[3][3];
		for (int i = 0; i < 3; ++i)
			for (int j = 0; j < 3; ++j)
				e[i][j] = R[i][0] * R[j][0] * l[0] + R[i][1] * R[j][1] * l[1] + R[i][2] * R[j][2] * l[2];
		fxg_sym3w m = { dw(e[0][0]), dw(e[1][1]), dw(e[2][2]), dw(e[0][1]), dw(e[0][2]), dw(e[1][2]) };
		fxg_sym3w x;
		CHECK(fxg_s3w_inverse(&m, &x, &ovf));
		CHECKF(ovf == 0, "overflow counted at scale %g cond %g", scale, cond);
		/* A and X as doubles (A's raw values are exact below 2^53) */
		double A[3][3] = { { wd(m.xx), wd(m.xy), wd(m.xz) }, { wd(m.xy), wd(m.yy), wd(m.yz) }, { wd(m.xz), wd(m.yz), wd(m.zz) } };
		double X[3][3] = { { wd(x.xx), wd(x.xy), wd(x.xz) }, { wd(x.xy), wd(x.yy), wd(x.yz) }, { wd(x.xz), wd(x.yz), wd(x.zz) } };
		double amax = 0;
		for (int i = 0; i < 3; ++i)
			for (int j = 0; j < 3; ++j)
				amax = fmax(amax, fabs(A[i][j]));
		double bound = (cond)*glue_ref_pow2(-24) + 3 * amax * (1) * glue_ref_pow2(-33);
		for (int i = 0; i < 3; ++i)
			for (int j = 0; j < 3; ++j) {
				double p = A[i][0] * X[0][j] + A[i][1] * X[1][j] + A[i][2] * X[2][j] - (i == j);
				worst = fmax(worst, fabs(p) / bound);
				CHECKF(fabs(p) <= bound, "A X - I [%d][%d] = %g > %g (scale %g cond %g)", i, j, p, bound, scale, cond);
			}
	}
	(void)worst; /* measured: worst / bound ~ 0.3 */
	uint32_t ovf = 0;
	fxg_sym3w d = { FXG_WIDE_ONE * 4, FXG_WIDE_ONE / 2, FXG_WIDE_ONE * 1024, 0, 0, 0 }, x;
	CHECK(fxg_s3w_inverse(&d, &x, &ovf) && ovf == 0);
	CHECK(x.xx == FXG_WIDE_ONE / 4 && x.yy == FXG_WIDE_ONE * 2 && x.zz == FXG_WIDE_ONE / 1024);
	CHECK(x.xy == 0 && x.xz == 0 && x.yz == 0);
	fxg_sym3w sing = { FXG_WIDE_ONE, FXG_WIDE_ONE, FXG_WIDE_ONE, FXG_WIDE_ONE, FXG_WIDE_ONE, FXG_WIDE_ONE };
	CHECK(!fxg_s3w_inverse(&sing, &x, &ovf) && x.xx == 0 && x.yz == 0);
	fxg_sym3w zero = { 0, 0, 0, 0, 0, 0 };
	CHECK(!fxg_s3w_inverse(&zero, &x, &ovf) && x.xx == 0);
}

/* fxg_s3w_rotate_diag: R diag(d) R^T for a Q16.16 rotation R and Q32.32 d
 * spanning 1e-6 .. 1e6. Bound: every entry within 3 units of 2^-32 of the
 * exact value for that R and d (one exact-product rounding of at most 1 unit
 * per term), and within 2^-40 |d|max + 4 units of a double evaluation. */
SLOW_TEST(glue_sym3w_rotate_diag)
{
	uint64_t s = 14;
	int n = test_quick ? 20000 : 200000;
	for (int it = 0; it < n; ++it) {
		uint32_t ovf = 0;
		fxg_mat3 r = fxg_m3_from_quat(rnd_unit_quat(&s), &ovf);
		fxg_wide d[3];
		for (int k = 0; k < 3; ++k)
			d[k] = dw(glue_ref_pow2((int)(test_rng_next(&s) % 40) - 20) * (1 + rnd_unit(&s)));
		fxg_sym3w m = fxg_s3w_rotate_diag(r, d[0], d[1], d[2], &ovf);
		CHECK(ovf == 0);
		fix16_t R[3][3] = { { r.cx.x, r.cy.x, r.cz.x }, { r.cx.y, r.cy.y, r.cz.y }, { r.cx.z, r.cy.z, r.cz.z } };
		fxg_wide got[3][3] = { { m.xx, m.xy, m.xz }, { m.xy, m.yy, m.yz }, { m.xz, m.yz, m.zz } };
		double dmax = fmax(wd(d[0]), fmax(wd(d[1]), wd(d[2])));
		for (int i = 0; i < 3; ++i)
			for (int j = 0; j < 3; ++j) {
				double ref = 0;
				for (int k = 0; k < 3; ++k)
					ref += ((double)R[i][k]) * glue_ref_pow2(-16) * ((double)R[j][k]) * glue_ref_pow2(-16) * wd(d[k]);
				double err = fabs(wd(got[i][j]) - ref);
				CHECKF(err <= (dmax)*glue_ref_pow2(-40) + (4) * glue_ref_pow2(-32), "rotate_diag [%d][%d] off by %g", i, j, err);
#ifdef __SIZEOF_INT128__
				i128 ex = 0; /* exact, in units of 2^-64 */
				for (int k = 0; k < 3; ++k)
					ex += (i128)((int64_t)R[i][k] * R[j][k]) * d[k];
				i128 diff = (i128)got[i][j] * ((i128)1 << 32) - ex;
				if (diff < 0)
					diff = -diff;
				CHECKF(diff <= ((i128)3 << 32), "rotate_diag [%d][%d] not within 3 units", i, j);
#endif
			}
	}
}

/* fxg_wmul_fix64: floor((w f + 2^31) / 2^32) exactly, on both code paths
 * (this test runs with and without FXG_PORTABLE_WIDE in the crosscheck's i686
 * build, where there is no __int128: there the reference is the recurrence). */
TEST(glue_wmul_fix64_exact)
{
	uint64_t rng = 99;
	for (int i = 0; i < (test_quick ? 200000 : 2000000); ++i) {
		uint64_t r1 = test_rng_next(&rng), r2 = test_rng_next(&rng); /* sequenced draws */
		uint64_t r3 = test_rng_next(&rng), r4 = test_rng_next(&rng);
		int64_t w = (int64_t)r1 >> (r2 % 40);
		int32_t f = (int32_t)r3 >> (r4 % 28);
		if (i < 64) {
			static const int64_t ws[] = { INT64_MAX, INT64_MIN, -1, 0, 1, (int64_t)1 << 32, -((int64_t)1 << 32) };
			static const int32_t fs[] = { INT32_MAX, INT32_MIN, -1, 0, 1, 65536, -65536, 32768 };
			w = ws[i % 7];
			f = fs[i / 8 % 8];
		}
		int64_t got = fxg_wmul_fix64(w, f);
#ifdef __SIZEOF_INT128__
		__extension__ typedef __int128 wide128;
		wide128 p = (wide128)w * f + ((wide128)1 << 31);
		int64_t want = (int64_t)(p >> 32);
#else
		int64_t hi = w >> 32, lo = (int64_t)((uint64_t)w & 0xFFFFFFFFu);
		int64_t want = hi * f + ((lo * f + ((int64_t)1 << 31)) >> 32);
#endif
		CHECKF(got == want, "w %lld f %d: %lld, want %lld", (long long)w, f, (long long)got, (long long)want);
	}
}
