/* fixmath_glue trigonometry on binary angles (2^32 == one turn), against a
 * double reference (floating point is allowed in tests only). */
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

#define TURN 4294967296.0

static double ref_sin(uint32_t a)
{
	return glue_ref_sin_turns(a) * 65536.0;
}
static double ref_cos(uint32_t a) { return glue_ref_cos_turns(a) * 65536.0; }

/* Bound: |fxg_sin(a) - 65536 sin(a)| <= 0.5005 LSB (and the same for cos):
 * polynomial fit 0.00045 LSB + Q30 arithmetic + the final rounding. The
 * contract in fxg_trig.h is 1 LSB; the measured maximum is 0.50042.
 * Dense grid over the whole turn (every 2^7-th angle; 2^11 with --quick)
 * plus every angle in windows around 0, a quarter, a half and 3/4 turn. */
#define SIN_BOUND 0.5005
SLOW_TEST(glue_sin_cos_error)
{
	uint64_t step = test_quick ? (1u << 11) : (1u << 7);
	double worst = 0;
	for (uint64_t a = 0; a < ((uint64_t)1 << 32); a += step) {
		double es = fabs(fxg_sin((uint32_t)a) - ref_sin((uint32_t)a));
		double ec = fabs(fxg_cos((uint32_t)a) - ref_cos((uint32_t)a));
		worst = fmax(worst, fmax(es, ec));
		CHECKF(es <= SIN_BOUND && ec <= SIN_BOUND, "angle 0x%08x: sin err %.4f cos err %.4f", (unsigned)a, es, ec);
	}
	uint32_t win = test_quick ? (1u << 14) : (1u << 20);
	for (uint32_t c = 0; c < 4; ++c)
		for (uint32_t d = 0; d < 2 * win; ++d) {
			uint32_t a = c * FXG_ANGLE_QUARTER - win + d;
			double es = fabs(fxg_sin(a) - ref_sin(a));
			CHECKF(es <= SIN_BOUND, "angle 0x%08x: sin err %.4f", (unsigned)a, es);
		}
	CHECKF(worst > 0.45, "suspiciously small error %.4f: is the reference right?", worst);
}

/* Exact identities that come from folding on the binary angle, over a grid:
 * sin(-a) == -sin(a), sin(a + half) == -sin(a), sin(half - a) == sin(a),
 * cos(a) == sin(a + quarter), |sin| <= 1.0, exact values at the quadrant
 * points, and sin non-decreasing on the first quadrant (checked between
 * grid neighbours). */
SLOW_TEST(glue_sin_cos_identities)
{
	CHECK(fxg_sin(0) == 0 && fxg_sin(FXG_ANGLE_QUARTER) == FXG_ONE && fxg_sin(FXG_ANGLE_HALF) == 0);
	CHECK(fxg_sin(3u * FXG_ANGLE_QUARTER) == -FXG_ONE && fxg_cos(0) == FXG_ONE && fxg_cos(FXG_ANGLE_HALF) == -FXG_ONE);
	CHECK(fxg_cos(FXG_ANGLE_QUARTER) == 0);
	uint32_t step = test_quick ? (1u << 12) : (1u << 8);
	fix16_t prev = -1;
	for (uint64_t la = 0; la < ((uint64_t)1 << 32); la += step) {
		uint32_t a = (uint32_t)la;
		fix16_t s = fxg_sin(a);
		CHECK(fxg_sin(0u - a) == -s);
		CHECK(fxg_sin(a + FXG_ANGLE_HALF) == -s);
		CHECK(fxg_sin(FXG_ANGLE_HALF - a) == s);
		CHECK(fxg_cos(a) == fxg_sin(a + FXG_ANGLE_QUARTER));
		CHECK(s >= -FXG_ONE && s <= FXG_ONE);
		if (a <= FXG_ANGLE_QUARTER) {
			CHECKF(s >= prev, "sin decreases at 0x%08x", (unsigned)a);
			prev = s;
		}
	}
}

/* signed error of a binary angle against a real-valued reference in units
 * (both taken modulo one turn) */
static double angle_err(uint32_t got, double ref_units)
{
	double fl = floor(ref_units);
	uint32_t base = (uint32_t)(int64_t)fl; /* conversion to unsigned is modulo 2^32 */
	return (double)(int32_t)(got - base) - (ref_units - fl);
}

static double ref_atan2(int32_t y, int32_t x) { return glue_ref_atan2_turns((double)y, (double)x) * TURN; }

static int32_t rnd_i32(uint64_t *s)
{
	uint64_t r = test_rng_next(s);
	return (int32_t)(uint32_t)r >> (int)((r >> 32) % 32);
}

/* Bound: |fxg_atan2(y, x) - atan2(y, x)| <= 2 binary-angle units (1 unit =
 * 2 pi / 2^32 rad, so 2 units = 0.0002 LSB of Q16.16 radians; the contract
 * asks for <= 10430). Measured maximum 1.53 units. 10^7 pairs (10^6 quick):
 * uniform over the full int32 square, log-uniform magnitudes, near-diagonal
 * pairs; every pair of edge values including INT32_MIN; atan2(0, 0) == 0. */
#define ATAN_BOUND 2.0
SLOW_TEST(glue_atan2_error)
{
	static const int32_t e[] = { 0, 1, -1, 2, -2, 0x7FFF, 0x8000, -0x8000, 0x10000, -0x10000, 46341, -46341,
				     0x7FFFFFFF, -0x7FFFFFFF, INT32_MIN, 0x40000000, -0x40000000 };
	const int ne = (int)(sizeof e / sizeof e[0]);
	for (int i = 0; i < ne; ++i)
		for (int j = 0; j < ne; ++j) {
			if (e[i] == 0 && e[j] == 0)
				continue;
			double err = angle_err(fxg_atan2(e[i], e[j]), ref_atan2(e[i], e[j]));
			CHECKF(fabs(err) <= ATAN_BOUND, "atan2(%d, %d) err %.3f units", e[i], e[j], err);
		}
	CHECK(fxg_atan2(0, 0) == 0);
	CHECK(fxg_atan2(0, 1) == 0 && fxg_atan2(0, -1) == FXG_ANGLE_HALF && fxg_atan2(0, INT32_MIN) == FXG_ANGLE_HALF);
	CHECK(fxg_atan2(1, 0) == FXG_ANGLE_QUARTER && fxg_atan2(INT32_MIN, 0) == 3u * FXG_ANGLE_QUARTER);
	CHECK(fxg_atan2(INT32_MIN, INT32_MIN) == 5u * (FXG_ANGLE_QUARTER / 2));
	CHECK(fxg_atan2(7, 7) == FXG_ANGLE_QUARTER / 2);
	uint64_t s = 21;
	long n = test_quick ? 1000000 : 10000000;
	double worst = 0;
	for (long i = 0; i < n; ++i) {
		int32_t y, x;
		uint64_t r = test_rng_next(&s);
		switch (i % 3) {
		case 0: /* uniform over the whole input square */
			y = (int32_t)(uint32_t)r, x = (int32_t)(uint32_t)(r >> 32);
			break;
		case 1: /* log-uniform, very different magnitudes */
			y = rnd_i32(&s), x = rnd_i32(&s);
			break;
		default: /* near the octant boundary |y| == |x| */
			x = rnd_i32(&s);
			{
				int64_t v = ((int64_t)x + (int64_t)(r % 64) - 32) * ((r >> 40) & 1 ? 1 : -1);
				y = (int32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN
											: v);
			}
			break;
		}
		if (x == 0 && y == 0)
			continue;
		double err = angle_err(fxg_atan2(y, x), ref_atan2(y, x));
		worst = fmax(worst, fabs(err));
		CHECKF(fabs(err) <= ATAN_BOUND, "atan2(%d, %d) err %.3f units", y, x, err);
		/* odd in y, exactly (the sign is applied to the exact octant angle) */
		if (y != INT32_MIN)
			CHECK(fxg_atan2(-y, x) == 0u - fxg_atan2(y, x));
	}
	CHECKF(worst > 0.5, "suspiciously small error %.3f", worst);
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128t; /* -Wpedantic: a GNU extension, guarded */

/* round(m * K) with K given to 128 fractional bits (kint + (fhi 2^64 + flo) 2^-128):
 * an independent, more precise reference for the Q96 conversions */
static uint64_t ref_mul_q128(uint64_t m, uint64_t kint, uint64_t fhi, uint64_t flo)
{
	u128t t = (u128t)m * fhi + (((u128t)m * flo) >> 64);
	return m * kint + (uint64_t)(t >> 64) + (uint64_t)((t >> 63) & 1);
}

static uint32_t ref_from_rad(int32_t rad)
{
	uint64_t m = rad < 0 ? (uint64_t)0 - (uint64_t)(int64_t)rad : (uint64_t)rad;
	uint32_t a = (uint32_t)ref_mul_q128(m, 0x28BE, 0x60DB9391054A7F09u, 0xD5F47D4D377036D8u);
	return rad < 0 ? 0u - a : a;
}

static int32_t ref_to_rad(uint32_t a)
{
	int neg = a > FXG_ANGLE_HALF;
	uint64_t m = neg ? (uint64_t)(0u - a) : a;
	int32_t r = (int32_t)ref_mul_q128(m, 0, 0x0006487ED5110B46u, 0x11A62633145C06E0u);
	return neg ? -r : r;
}
#endif

/* fxg_angle_from_rad: correctly rounded rad * 2^32 / (2 pi), modulo one turn,
 * for every fix16_t (equal to a 128-bit-constant reference, and within
 * 0.5 + 2^-7 units of a double evaluation). fxg_angle_to_rad: correctly
 * rounded radians in (-pi, pi]. Round trip: to_rad(from_rad(r)) == r for
 * every r in (-pi, pi] (exhaustive). Exhaustive on |rad| < 2^20 (2^16
 * quick), a stride over all 2^32 inputs of each function, and the edges. */
SLOW_TEST(glue_angle_rad_conversions)
{
	CHECK(fxg_angle_from_rad(0) == 0 && fxg_angle_to_rad(0) == 0);
	CHECK(fxg_angle_to_rad(FXG_ANGLE_HALF) == 205887 && fxg_angle_to_rad(FXG_ANGLE_HALF + 1) == -205887);
	CHECK(fxg_angle_to_rad(FXG_ANGLE_QUARTER) == 102944 && fxg_angle_to_rad(0u - FXG_ANGLE_QUARTER) == -102944);
	for (int32_t r = -205887; r <= 205887; ++r) {
		uint32_t a = fxg_angle_from_rad(r);
		CHECKF(fxg_angle_to_rad(a) == r, "round trip of %d gives %d", r, fxg_angle_to_rad(a));
		CHECK(fxg_angle_from_rad(-r) == 0u - a);
	}
	int32_t lim = test_quick ? (1 << 16) : (1 << 20);
	uint32_t step = test_quick ? (1u << 14) : (1u << 10);
	for (uint64_t i = 0; i < ((uint64_t)1 << 32) + 2u * (uint64_t)lim; i += 1) {
		/* first the dense window, then a stride over everything */
		int32_t rad;
		if (i < 2u * (uint64_t)lim)
			rad = (int32_t)((int64_t)i - lim);
		else {
			uint64_t j = i - 2u * (uint64_t)lim;
			if (j % step != 0) {
				i += step - 1 - j % step;
				continue;
			}
			rad = (int32_t)(uint32_t)j;
		}
		uint32_t a = fxg_angle_from_rad(rad);
		double ref = (double)rad * (32768.0 / glue_ref_pi()); /* double error < 2^-8 unit */
		CHECKF(fabs(angle_err(a, ref)) <= 0.5 + 1.0 / 128, "from_rad(%d) = %u, ref %.4f", rad, a, ref);
#ifdef __SIZEOF_INT128__
		CHECKF(a == ref_from_rad(rad), "from_rad(%d) not correctly rounded", rad);
		uint32_t ang = (uint32_t)rad; /* reuse the sweep as angles too */
		CHECKF(fxg_angle_to_rad(ang) == ref_to_rad(ang), "to_rad(0x%08x)", (unsigned)ang);
#endif
		int64_t sa = (int32_t)(uint32_t)rad == INT32_MIN ? (int64_t)1 << 31 : (int32_t)(uint32_t)rad;
		double rref = (double)sa * (glue_ref_pi() / 32768.0);
		CHECKF(fabs(fxg_angle_to_rad((uint32_t)rad) - rref) <= 0.5 + 1e-6, "to_rad(0x%08x)", (unsigned)(uint32_t)rad);
	}
	uint64_t s = 22;
	for (int i = 0; i < 1000000; ++i) {
		int32_t rad = (int32_t)(uint32_t)test_rng_next(&s);
#ifdef __SIZEOF_INT128__
		CHECKF(fxg_angle_from_rad(rad) == ref_from_rad(rad), "from_rad(%d)", rad);
		CHECKF(fxg_angle_to_rad((uint32_t)rad) == ref_to_rad((uint32_t)rad), "to_rad(%d)", rad);
#else
		(void)rad;
#endif
	}
}
