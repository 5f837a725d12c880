/* fixmath_glue scalar operations: each test states the error bound it proves.
 * libfixmath's fix16_mul is the oracle for fxg_mul; everything else is checked
 * against exact integer references written independently of the glue code. */
#include <stdlib.h>

#include "fxg.h"
#include "test.h"

/* A random int32 with a log-uniform magnitude: every bit length is equally
 * likely, so small, unit-size and huge operands all get exercised. */
static int32_t rnd_i32(uint64_t *s)
{
	uint64_t r = test_rng_next(s);
	int32_t v = (int32_t)(uint32_t)r;
	return v >> (int)((r >> 32) % 32);
}

static const int32_t edges[] = {
	0,
	1,
	-1,
	2,
	-2,
	0x7FFF,
	-0x7FFF,
	0x8000,
	-0x8000,
	0x8001,
	-0x8001,
	0xFFFF,
	-0xFFFF,
	0x10000,
	-0x10000,
	0x10001,
	-0x10001,
	0xB504F3,
	-0xB504F3,
	0x7FFF0000,
	-0x7FFF0000,
	0x7FFFFFFF,
	-0x7FFFFFFF,
	INT32_MIN,
	0x40000000,
	-0x40000000,
	0x00FFFFFF,
	0x01000000,
};
#define NEDGES ((int)(sizeof edges / sizeof edges[0]))

/* Exact a * b / 2^16, rounded half away from zero, in int64 (not saturated). */
static int64_t ref_mul(int32_t a, int32_t b)
{
	int64_t p = (int64_t)a * b;
	uint64_t m = p < 0 ? (uint64_t)0 - (uint64_t)p : (uint64_t)p;
	int64_t q = (int64_t)((m + 0x8000) >> 16);
	return p < 0 ? -q : q;
}

static int check_mul(int32_t a, int32_t b)
{
	uint32_t ovf = 0;
	fix16_t got = fxg_mul(a, b, &ovf);
	int64_t ref = ref_mul(a, b);
	fix16_t lib = fix16_mul(a, b);
	if (ref >= INT32_MIN && ref <= INT32_MAX)
		return got == ref && ovf == 0 && lib == got; /* bit-identical to libfixmath */
	/* libfixmath returns its overflow sentinel; we saturate and count */
	return got == (ref > 0 ? INT32_MAX : INT32_MIN) && ovf == 1 && lib == fix16_overflow;
}

/* fxg_mul: exact (0 error beyond the specified round-half-away), bit-identical
 * to fix16_mul on every non-overflowing pair, saturated and counted otherwise.
 * 10^7 log-uniform pairs (10^6 with --quick) plus every pair of edge values. */
SLOW_TEST(glue_mul_vs_libfixmath)
{
	for (int i = 0; i < NEDGES; ++i)
		for (int j = 0; j < NEDGES; ++j)
			CHECKF(check_mul(edges[i], edges[j]), "fxg_mul(%d, %d)", edges[i], edges[j]);
	uint64_t s = 1;
	long n = test_quick ? 1000000 : 10000000;
	for (long i = 0; i < n; ++i) {
		int32_t a = rnd_i32(&s), b = rnd_i32(&s);
		CHECKF(check_mul(a, b), "fxg_mul(%d, %d) = %d, ref %" PRId64, a, b, fxg_mul(a, b, &(uint32_t){ 0 }),
		       ref_mul(a, b));
	}
}

/* Exact round(a 2^16 / b), half away from zero, via quotient and remainder. */
static int64_t ref_div(int32_t a, int32_t b)
{
	uint64_t ua = a < 0 ? (uint64_t)0 - (uint64_t)(int64_t)a : (uint64_t)a;
	uint64_t ub = b < 0 ? (uint64_t)0 - (uint64_t)(int64_t)b : (uint64_t)b;
	uint64_t n = ua << 16, q = n / ub, r = n % ub;
	if (r >= ub - r) /* 2r >= ub */
		++q;
	return (a < 0) != (b < 0) ? -(int64_t)q : (int64_t)q;
}

static int check_div(int32_t a, int32_t b)
{
	uint32_t ovf = 0;
	fix16_t got = fxg_div(a, b, &ovf);
	if (b == 0)
		return ovf == 1 && got == (a > 0 ? FXG_MAX : (a < 0 ? FXG_MIN : 0));
	int64_t ref = ref_div(a, b);
	if (ref > INT32_MAX)
		return got == INT32_MAX && ovf == 1;
	if (ref < INT32_MIN)
		return got == INT32_MIN && ovf == 1;
	return got == ref && ovf == 0;
}

/* fxg_div: correctly rounded (error <= 0.5 LSB, ties away from zero),
 * saturated and counted; b == 0 gives +max / min / 0 by the sign of a. */
SLOW_TEST(glue_div_correctly_rounded)
{
	for (int i = 0; i < NEDGES; ++i)
		for (int j = 0; j < NEDGES; ++j)
			CHECKF(check_div(edges[i], edges[j]), "fxg_div(%d, %d)", edges[i], edges[j]);
	uint64_t s = 2;
	long n = test_quick ? 1000000 : 10000000;
	for (long i = 0; i < n; ++i) {
		int32_t a = rnd_i32(&s), b = rnd_i32(&s);
		CHECKF(check_div(a, b), "fxg_div(%d, %d) = %d, ref %" PRId64, a, b, fxg_div(a, b, &(uint32_t){ 0 }),
		       ref_div(a, b));
	}
	/* exact ties round away from zero: 1 raw / 2.0 = 0.5 raw -> 1 */
	uint32_t ovf = 0;
	CHECK(fxg_div(1, FXG_I(2), &ovf) == 1 && fxg_div(-1, FXG_I(2), &ovf) == -1 && ovf == 0);
}

/* r is round(sqrt(n)) for integer n <=> (2r - 1)^2 <= 4n < (2r + 1)^2 (no ties).
 * Used with n <= 2^49 so that everything fits in uint64. */
static int is_round_sqrt(uint64_t n, uint64_t r)
{
	uint64_t lo = r == 0 ? 0 : (2 * r - 1) * (2 * r - 1);
	return lo <= 4 * n && 4 * n < (2 * r + 1) * (2 * r + 1);
}

static int check_sqrt(fix16_t x)
{
	uint32_t ovf = 0;
	fix16_t r = fxg_sqrt(x, &ovf);
	return ovf == 0 && r >= 0 && is_round_sqrt((uint64_t)x << 16, (uint64_t)r);
}

/* fxg_sqrt: correctly rounded (error < 0.5 LSB; ties are impossible).
 * Exhaustive on [0, 2^25) (2^21 with --quick), the top 2^20 values, every
 * perfect square and the rounding boundaries (r + 1/2)^2 around 10^6 random
 * roots, and 10^6 random values; x < 0 returns 0, counted. */
SLOW_TEST(glue_sqrt_correctly_rounded)
{
	int32_t top = test_quick ? (1 << 21) : (1 << 25);
	for (int32_t x = 0; x < top; ++x)
		CHECKF(check_sqrt(x), "fxg_sqrt(%d) = %d", x, fxg_sqrt(x, &(uint32_t){ 0 }));
	for (int32_t x = INT32_MAX; x > INT32_MAX - (1 << 20); --x)
		CHECKF(check_sqrt(x), "fxg_sqrt(%d)", x);
	/* perfect squares of raw m (root 256 m exact) and their neighbours */
	for (int64_t m = 1; m * m <= INT32_MAX; ++m)
		for (int64_t d = -1; d <= 1; ++d)
			if (m * m + d <= INT32_MAX)
				CHECKF(check_sqrt((fix16_t)(m * m + d)), "fxg_sqrt(%" PRId64 ")", m * m + d);
	uint64_t s = 3;
	for (int i = 0; i < 1000000; ++i) {
		/* the rounding boundary of root r: x 2^16 ~ (r + 1/2)^2 */
		uint64_t r = test_rng_next(&s) % 11863283u; /* sqrt(2^47) */
		uint64_t x = ((2 * r + 1) * (2 * r + 1) / 4) >> 16;
		for (uint64_t y = x ? x - 1 : 0; y <= x + 1 && y <= INT32_MAX; ++y)
			CHECKF(check_sqrt((fix16_t)y), "fxg_sqrt(%" PRIu64 ")", y);
		int32_t z = (int32_t)(test_rng_next(&s) >> 33);
		CHECKF(check_sqrt(z), "fxg_sqrt(%d)", z);
	}
	uint32_t ovf = 0;
	CHECK(fxg_sqrt(-1, &ovf) == 0 && fxg_sqrt(INT32_MIN, &ovf) == 0 && ovf == 2);
	CHECK(fxg_sqrt(FXG_ONE, &ovf) == FXG_ONE && fxg_sqrt(FXG_I(4), &ovf) == FXG_I(2) && ovf == 2);
}

/* r is round(2^24 / sqrt(x)) <=> (2r - 1)^2 x <= 2^50 < (2r + 1)^2 x (no ties);
 * checked only when r is within 2 of the double estimate so nothing overflows. */
static int check_rsqrt(fix16_t x)
{
	uint32_t ovf = 0;
	fix16_t r = fxg_rsqrt(x, &ovf);
	if (ovf != 0 || r < 362 || r > (1 << 24))
		return 0;
	uint64_t ur = (uint64_t)r, ux = (uint64_t)x;
	/* (2r +- 1)^2 x stays below 2^51 for r in range */
	return (2 * ur - 1) * (2 * ur - 1) * ux <= ((uint64_t)1 << 50) &&
		(2 * ur + 1) * (2 * ur + 1) * ux > ((uint64_t)1 << 50);
}

/* fxg_rsqrt: correctly rounded 1/sqrt(x) (error < 0.5 LSB) for every x > 0
 * tested: exhaustive on [1, 2^24] (2^20 with --quick), the top 2^20 values,
 * powers of two and their neighbours, 10^6 random values. x <= 0 saturates
 * to FXG_MAX, counted. */
SLOW_TEST(glue_rsqrt_correctly_rounded)
{
	int32_t top = test_quick ? (1 << 20) : (1 << 24);
	for (int32_t x = 1; x <= top; ++x)
		CHECKF(check_rsqrt(x), "fxg_rsqrt(%d) = %d", x, fxg_rsqrt(x, &(uint32_t){ 0 }));
	for (int32_t x = INT32_MAX; x > INT32_MAX - (1 << 20); --x)
		CHECKF(check_rsqrt(x), "fxg_rsqrt(%d)", x);
	for (int k = 0; k < 31; ++k)
		for (int d = -1; d <= 1; ++d) {
			int64_t x = ((int64_t)1 << k) + d;
			if (x > 0 && x <= INT32_MAX)
				CHECKF(check_rsqrt((fix16_t)x), "fxg_rsqrt(%" PRId64 ")", x);
		}
	uint64_t s = 4;
	for (int i = 0; i < 1000000; ++i) {
		int32_t x = rnd_i32(&s) & INT32_MAX;
		if (x > 0)
			CHECKF(check_rsqrt(x), "fxg_rsqrt(%d)", x);
	}
	uint32_t ovf = 0;
	CHECK(fxg_rsqrt(FXG_ONE, &ovf) == FXG_ONE && fxg_rsqrt(FXG_I(4), &ovf) == FXG_HALF);
	CHECK(fxg_rsqrt(1, &ovf) == (1 << 24) && ovf == 0);
	CHECK(fxg_rsqrt(0, &ovf) == FXG_MAX && fxg_rsqrt(-5, &ovf) == FXG_MAX && fxg_rsqrt(INT32_MIN, &ovf) == FXG_MAX);
	CHECK(ovf == 3);
}

/* floor: r^2 <= n < (r+1)^2, written so that nothing overflows (r < 2^32). */
static int is_floor_sqrt(uint64_t n, uint64_t r)
{
	return r <= 0xFFFFFFFFu && r * r <= n && n - r * r <= 2 * r;
}

/* round: r^2 - r < n <= r^2 + r (from (r - 1/2)^2 <= n < (r + 1/2)^2, n integer);
 * r may be 2^32, so compare through the floor root. */
static int is_round_sqrt64(uint64_t n, uint64_t r)
{
	uint64_t f = fxg_isqrt64(n);
	if (!is_floor_sqrt(n, f))
		return 0;
	/* round is f or f + 1; it is f + 1 exactly when n > f^2 + f */
	return r == (n - f * f > f ? f + 1 : f);
}

/* fxg_isqrt64 is the exact floor root and fxg_isqrt64_round the exact rounded
 * root for every uint64 tested: all n < 2^20, the edges around every k^2 for
 * k = 2^j +- 1 and k near 2^32 (including UINT64_MAX), 10^6 random n of
 * every bit length, and the edges around k^2 for 10^6 random k (where an
 * estimate off by one shows). */
TEST(glue_isqrt64_edges)
{
	for (uint64_t n = 0; n < (1u << 20); ++n) {
		CHECKF(is_floor_sqrt(n, fxg_isqrt64(n)), "isqrt64(%" PRIu64 ")", n);
		CHECKF(is_round_sqrt64(n, fxg_isqrt64_round(n)), "isqrt64_round(%" PRIu64 ")", n);
	}
	CHECK(fxg_isqrt64(UINT64_MAX) == 0xFFFFFFFFu && fxg_isqrt64_round(UINT64_MAX) == ((uint64_t)1 << 32));
	uint64_t big = (uint64_t)0xFFFFFFFFu * 0xFFFFFFFFu; /* (2^32 - 1)^2 */
	CHECK(fxg_isqrt64(big) == 0xFFFFFFFFu && fxg_isqrt64(big - 1) == 0xFFFFFFFEu);
	CHECK(fxg_isqrt64_round(big + 0xFFFFFFFFu) == 0xFFFFFFFFu);             /* r^2 + r: rounds down */
	CHECK(fxg_isqrt64_round(big + 0xFFFFFFFFu + 1) == ((uint64_t)1 << 32)); /* r^2 + r + 1: up */
	for (int j = 1; j <= 32; ++j)
		for (int64_t dk = -1; dk <= 1; ++dk) {
			uint64_t k = ((uint64_t)1 << j) + (uint64_t)dk;
			if (k > 0xFFFFFFFFu)
				continue;
			for (int64_t dn = -2; dn <= 2; ++dn) {
				uint64_t n = k * k + (uint64_t)dn;
				if (dn > 0 && n < k * k)
					continue; /* wrapped past UINT64_MAX */
				CHECKF(is_floor_sqrt(n, fxg_isqrt64(n)), "isqrt64(%" PRIu64 ")", n);
				CHECKF(is_round_sqrt64(n, fxg_isqrt64_round(n)), "isqrt64_round(%" PRIu64 ")", n);
			}
		}
	uint64_t s = 5;
	for (int i = 0; i < 1000000; ++i) {
		uint64_t r = test_rng_next(&s);
		uint64_t n = r >> (test_rng_next(&s) % 64);
		CHECKF(is_floor_sqrt(n, fxg_isqrt64(n)), "isqrt64(%" PRIu64 ")", n);
		CHECKF(is_round_sqrt64(n, fxg_isqrt64_round(n)), "isqrt64_round(%" PRIu64 ")", n);
	}
	for (int i = 0; i < 1000000; ++i) {
		uint64_t k = test_rng_next(&s) >> (32 + test_rng_next(&s) % 32);
		const uint64_t near[5] = { k * k - 1, k * k, k * k + k, k * k + k + 1, k * k + 2 * k };
		for (int e = 0; e < 5; ++e) {
			uint64_t n = k == 0 ? 0 : near[e];
			CHECKF(is_floor_sqrt(n, fxg_isqrt64(n)), "isqrt64(%" PRIu64 ")", n);
			CHECKF(is_round_sqrt64(n, fxg_isqrt64_round(n)), "isqrt64_round(%" PRIu64 ")", n);
		}
	}
}

/* Saturating add/sub/neg/abs/from_int are exact inside the range and clip to
 * the nearest end outside it, counting once per clip; to_int_round is
 * fix16_to_int's rounding without its UB near 32768. */
TEST(glue_scalar_saturation_and_conversions)
{
	uint32_t ovf = 0;
	CHECK(fxg_add(FXG_MAX, 1, &ovf) == FXG_MAX && ovf == 1);
	CHECK(fxg_add(FXG_MIN, -1, &ovf) == FXG_MIN && ovf == 2);
	CHECK(fxg_add(0, FXG_MIN, &ovf) == FXG_MIN && ovf == 2); /* fix16_sadd gets this wrong */
	CHECK(fxg_sub(FXG_MIN, 1, &ovf) == FXG_MIN && ovf == 3);
	CHECK(fxg_sub(0, FXG_MIN, &ovf) == FXG_MAX && ovf == 4);
	CHECK(fxg_neg(FXG_MIN, &ovf) == FXG_MAX && ovf == 5);
	CHECK(fxg_abs(FXG_MIN, &ovf) == FXG_MAX && ovf == 6);
	CHECK(fxg_abs(-5, &ovf) == 5 && fxg_neg(7, &ovf) == -7 && ovf == 6);
	CHECK(fxg_from_int(32767, &ovf) == 0x7FFF0000 && fxg_from_int(-32768, &ovf) == FXG_MIN && ovf == 6);
	CHECK(fxg_from_int(32768, &ovf) == FXG_MAX && fxg_from_int(-32769, &ovf) == FXG_MIN && ovf == 8);
	CHECK(fxg_to_int_round(FXG_MAX) == 32768 && fxg_to_int_round(FXG_MIN) == -32768);
	CHECK(fxg_to_int_round(0x8000) == 1 && fxg_to_int_round(-0x8000) == -1 && fxg_to_int_round(0x7FFF) == 0);
	CHECK(fxg_to_int_floor(-1) == -1 && fxg_to_int_floor(FXG_MIN) == -32768);
	uint64_t s = 6;
	for (int i = 0; i < 100000; ++i) {
		int32_t a = rnd_i32(&s), b = rnd_i32(&s);
		int64_t sum = (int64_t)a + b;
		uint32_t o = 0;
		fix16_t r = fxg_add(a, b, &o);
		CHECK(r == (sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN
									  : sum));
		CHECK(o == (sum > INT32_MAX || sum < INT32_MIN));
		int64_t want = a >= 0 ? ((int64_t)a + 0x8000) >> 16 : -((-(int64_t)a + 0x8000) >> 16);
		CHECK(fxg_to_int_round(a) == want);
	}
}
