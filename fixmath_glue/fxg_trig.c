/* fixmath_glue: sin, cos, atan2 and radian conversions on binary angles.
 *
 * Integer only (builds with -mgeneral-regs-only), no tables, no state.
 * Every constant below is an integer literal produced at authoring time by
 * fxg_trig_gen.py (mpmath, 80 digits); nothing is computed with libm.
 *
 * Measured bounds (tests/test_glue_trig.c asserts them):
 *   fxg_sin / fxg_cos : |error| <= 0.5005 LSB of Q16.16 (fit 0.0005 + final rounding)
 *   fxg_atan2         : |error| <= 2 binary-angle units (1 unit = 2^-32 turn,
 *                       i.e. 0.0002 LSB when expressed in Q16.16 radians)
 *   angle <-> radian  : correctly rounded (proof in the comment of mul_q96_round)
 */
#include "fxg_trig.h"

/* ---- sin / cos ---- */

/* sin(pi/2 * x) = x * S(x^2) for x in [0, 1]: S is the degree-4 Chebyshev
 * fit of sin(pi/2 sqrt(u)) / sqrt(u) on u in [0, 1]; coefficients in Q30,
 * highest degree first. Fit error 0.00045 LSB of Q16.16. */
static const int64_t fxg_sin_coef[5] = { 162856, -5018824, 85566398, -693598305, 1686629706 };

/* x in Q30 with 0 <= x <= 2^30 (a quarter turn); returns sin(pi/2 x) in Q30.
 * Ranges: u <= 2^30, |p| <= 1.571 * 2^30 < 2^31, so p * u < 2^61: no overflow.
 * Products of negative p are shifted right: arithmetic shift is asserted in
 * fxg_scalar.h. */
static int64_t fxg_sin_quarter_q30(int64_t x)
{
	const int64_t half = (int64_t)1 << 29;
	int64_t u = (x * x + half) >> 30;
	int64_t p = fxg_sin_coef[0];
	for (int i = 1; i < 5; ++i)
		p = fxg_sin_coef[i] + ((p * u + half) >> 30);
	return (p * x + half) >> 30;
}

fix16_t fxg_sin(fxg_angle a)
{
	/* Fold to the first quadrant on the exact binary angle, so that
	 * sin(-a) == -sin(a), sin(a + half) == -sin(a) and sin(half - a) == sin(a)
	 * hold bit for bit. */
	uint32_t quadrant = a >> 30;
	int64_t f = (int64_t)(a & 0x3FFFFFFFu);
	if (quadrant & 1u)
		f = ((int64_t)1 << 30) - f;                                /* 2^30 (a quarter) is reachable: sin = 1 */
	fix16_t s = (fix16_t)((fxg_sin_quarter_q30(f) + (1 << 13)) >> 14); /* Q30 -> Q16, half up */
	return (quadrant & 2u) ? -s : s;
}

fix16_t fxg_cos(fxg_angle a)
{
	/* unsigned wrap-around is the exact cos(a) == sin(a + quarter) */
	return fxg_sin(a + FXG_ANGLE_QUARTER);
}

/* ---- atan2 ---- */

/* (2/pi) atan(t) = t * A(t^2) for t in [0, 1]: A is the degree-11 Chebyshev
 * fit of (2/pi) atan(sqrt(u)) / sqrt(u) on u in [0, 1], i.e. the arctangent
 * in quarter turns. Coefficients in Q32, highest degree first.
 * Fit error 0.05 binary-angle units. */
/* clang-format off */
static const int64_t fxg_atan_coef[12] = {
	-1813896,   12939847,   -43278767, 92489715,   -147531653, 197640003,
	-245377293, 303282135, -390556750, 546849516, -911420312, 2734261102,
};
/* clang-format on */

/* t in Q31 with 0 <= t <= 2^31; returns atan(t) as a binary angle (Q30 of
 * a quarter turn, so the result lies in [0, 2^29]).
 * Ranges: u <= 2^31 and every partial Horner sum |p| <= 0.6367 * 2^32 < 2^32
 * (checked on a dense grid by fxg_trig_gen.py), so |p * u| < 2^63. */
static uint32_t fxg_atan_octant(int64_t t)
{
	int64_t u = (t * t + ((int64_t)1 << 30)) >> 31;
	int64_t p = fxg_atan_coef[0];
	for (int i = 1; i < 12; ++i)
		p = fxg_atan_coef[i] + ((p * u + ((int64_t)1 << 30)) >> 31);
	/* Q32 * Q31 = Q63 -> Q30: shift by 33, rounded half up (p, t >= 0) */
	return (uint32_t)((p * t + ((int64_t)1 << 32)) >> 33);
}

static uint64_t fxg_uabs32(int32_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)(int64_t)v : (uint64_t)v; }

fxg_angle fxg_atan2(fix16_t y, fix16_t x)
{
	/* magnitudes as uint64: INT32_MIN becomes 2^31 without overflow */
	uint64_t ax = fxg_uabs32(x), ay = fxg_uabs32(y);
	if (ax == 0 && ay == 0)
		return 0;
	uint64_t lo = ax < ay ? ax : ay, hi = ax < ay ? ay : ax;
	uint32_t base;
	if (lo == hi) {
		base = FXG_ANGLE_QUARTER / 2; /* exact: the diagonal is 45 degrees */
	} else {
		/* t = lo / hi in Q31, rounded: lo < hi <= 2^31 keeps it below 2^63 */
		int64_t t = (int64_t)(((lo << 31) + (hi >> 1)) / hi);
		base = fxg_atan_octant(t);
	}
	/* octant -> quadrant -> full turn; unsigned arithmetic wraps exactly */
	uint32_t a = ay > ax ? FXG_ANGLE_QUARTER - base : base;
	if (x < 0)
		a = FXG_ANGLE_HALF - a;
	if (y < 0)
		a = 0u - a;
	return a;
}

/* ---- radians <-> binary angle ---- */

/* round(m * K) for K = k_int + (f1 2^-32 + f2 2^-64 + f3 2^-96), m <= 2^31.
 *
 * The chain below computes s1 = floor(m * F / 2^64) exactly, F being the
 * 96-bit fraction (floor((A + x) / n) == floor((A + floor(x)) / n) for
 * integer A, n), so the only error is the truncation of K itself: below
 * m 2^-96 <= 2^-65. Rounding can only go wrong if some 2m K lies within
 * 2^-64 of an integer. For 2m <= 2^32 the closest approach of q K to an
 * integer is at a continued-fraction convergent: 2^-33.7 for K = 2^15/pi and
 * 2^-32.2 for K = pi/2^15 (fxg_trig_gen.py). So the result is the correctly
 * rounded product, and ties never happen (no m > 0 gives an exact half).
 * Ranges: m f3, m f2, m f1 < 2^63 and each sum adds < 2^32: no wrap. */
static uint64_t fxg_mul_q96_round(uint64_t m, uint64_t k_int, uint64_t f1, uint64_t f2, uint64_t f3)
{
	uint64_t s3 = m * f3;
	uint64_t s2 = m * f2 + (s3 >> 32);
	uint64_t s1 = m * f1 + (s2 >> 32);
	return m * k_int + (s1 >> 32) + ((s1 >> 31) & 1u);
}

fxg_angle fxg_angle_from_rad(fix16_t rad)
{
	/* angle = rad * 2^16 / (2 pi) = raw * 2^15 / pi, modulo 2^32 */
	uint64_t r = fxg_mul_q96_round(fxg_uabs32(rad), 0x28BE, 0x60DB9391u, 0x054A7F09u, 0xD5F47D4Du);
	uint32_t a = (uint32_t)r; /* the high bits are whole turns */
	return rad < 0 ? 0u - a : a;
}

fix16_t fxg_angle_to_rad(fxg_angle a)
{
	/* the angle as a signed turn fraction in (-1/2, 1/2]: radians in (-pi, pi],
	 * the range of atan2. raw = s * 2 pi / 2^16 = s * pi / 2^15. */
	bool neg = a > FXG_ANGLE_HALF;
	uint64_t m = neg ? (uint64_t)(0u - a) : (uint64_t)a;
	fix16_t r = (fix16_t)fxg_mul_q96_round(m, 0, 0x0006487Eu, 0xD5110B46u, 0x11A62633u); /* <= 205887 */
	return neg ? -r : r;
}
