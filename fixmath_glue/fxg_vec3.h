/* fixmath_glue: 3-vectors of fix16_t.
 *
 * Products accumulate exactly in int64 and round once (half away from zero),
 * so dot and cross are more accurate than chains of fxg_mul. Input range for
 * the int64 sums to be exact: every component |c| <= 16384.0 (then each
 * product is <= 2^60 and a sum of three stays below 2^63). Outside it the
 * sums saturate and are counted, never wrap. */
#ifndef FXG_VEC3_H
#define FXG_VEC3_H

#include "fxg_scalar.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fxg_vec3 {
	fix16_t x, y, z;
} fxg_vec3;

static inline fxg_vec3 fxg_v3(fix16_t x, fix16_t y, fix16_t z)
{
	fxg_vec3 v = { x, y, z };
	return v;
}

static inline fxg_vec3 fxg_v3_zero(void) { return fxg_v3(0, 0, 0); }

static inline bool fxg_v3_eq(fxg_vec3 a, fxg_vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

static inline fxg_vec3 fxg_v3_add(fxg_vec3 a, fxg_vec3 b, uint32_t *ovf)
{
	return fxg_v3(fxg_add(a.x, b.x, ovf), fxg_add(a.y, b.y, ovf), fxg_add(a.z, b.z, ovf));
}

static inline fxg_vec3 fxg_v3_sub(fxg_vec3 a, fxg_vec3 b, uint32_t *ovf)
{
	return fxg_v3(fxg_sub(a.x, b.x, ovf), fxg_sub(a.y, b.y, ovf), fxg_sub(a.z, b.z, ovf));
}

static inline fxg_vec3 fxg_v3_neg(fxg_vec3 a, uint32_t *ovf)
{
	return fxg_v3(fxg_neg(a.x, ovf), fxg_neg(a.y, ovf), fxg_neg(a.z, ovf));
}

/* s * a */
static inline fxg_vec3 fxg_v3_scale(fix16_t s, fxg_vec3 a, uint32_t *ovf)
{
	return fxg_v3(fxg_mul(s, a.x, ovf), fxg_mul(s, a.y, ovf), fxg_mul(s, a.z, ovf));
}

/* a + s * b, each component rounded once */
static inline fxg_vec3 fxg_v3_mul_add(fxg_vec3 a, fix16_t s, fxg_vec3 b, uint32_t *ovf)
{
	return fxg_v3(fxg_sat((int64_t)a.x + fxg_shr_round((int64_t)s * b.x, 16), ovf),
		      fxg_sat((int64_t)a.y + fxg_shr_round((int64_t)s * b.y, 16), ovf),
		      fxg_sat((int64_t)a.z + fxg_shr_round((int64_t)s * b.z, 16), ovf));
}

/* Exact dot product as Q32.32 (saturating sum). */
static inline fxg_wide fxg_v3_dot_wide(fxg_vec3 a, fxg_vec3 b, uint32_t *ovf)
{
	int64_t s = fxg_add64((int64_t)a.x * b.x, (int64_t)a.y * b.y, ovf);
	return fxg_add64(s, (int64_t)a.z * b.z, ovf);
}

/* Dot product rounded once to Q16.16. */
static inline fix16_t fxg_v3_dot(fxg_vec3 a, fxg_vec3 b, uint32_t *ovf)
{
	fxg_wide d = fxg_v3_dot_wide(a, b, ovf);
	if (d > INT64_MAX - 0x8000 || d < INT64_MIN + 0x8000)
		return fxg_sat(d > 0 ? INT64_MAX : INT64_MIN, ovf);
	return fxg_sat(fxg_shr_round(d, 16), ovf);
}

static inline fix16_t fxg_cross_comp(fix16_t a, fix16_t b, fix16_t c, fix16_t d, uint32_t *ovf)
{
	/* a*b - c*d, exact in int64 (each product <= 2^62 in magnitude), rounded once */
	int64_t p = (int64_t)a * b, q = (int64_t)c * d, r;
	if (__builtin_sub_overflow(p, q, &r))
		return fxg_sat(p > 0 ? INT64_MAX : INT64_MIN, ovf);
	if (r > INT64_MAX - 0x8000 || r < INT64_MIN + 0x8000)
		return fxg_sat(r, ovf);
	return fxg_sat(fxg_shr_round(r, 16), ovf);
}

static inline fxg_vec3 fxg_v3_cross(fxg_vec3 a, fxg_vec3 b, uint32_t *ovf)
{
	return fxg_v3(fxg_cross_comp(a.y, b.z, a.z, b.y, ovf), fxg_cross_comp(a.z, b.x, a.x, b.z, ovf),
		      fxg_cross_comp(a.x, b.y, a.y, b.x, ovf));
}

/* Squared length, exact, as Q32.32. */
static inline fxg_wide fxg_v3_len2_wide(fxg_vec3 a, uint32_t *ovf) { return fxg_v3_dot_wide(a, a, ovf); }

/* Length, correctly rounded from the exact squared length. */
static inline fix16_t fxg_v3_len(fxg_vec3 a, uint32_t *ovf) { return fxg_sqrt_wide(fxg_v3_len2_wide(a, ovf), ovf); }

/* Division by a square root, for normalisation: a / sqrt(n) in Q16.16 where
 * n (raw units squared, exact, up to 2^64 - 1) is the squared length of the
 * vector that a belongs to, so |a| <= sqrt(n).
 *
 * Rounding the length to Q16.16 first loses everything for short vectors
 * (raw (1, 1, 0) has length 1.414 raw, which rounds to 1, and the "unit"
 * vector came out with length 1.414). Instead the root is taken of n scaled
 * by 4^k into [2^60, 2^62): 31 significant bits, relative error <= 2^-31.
 * Each component is then a / sqrt(n) within 0.5 + 2^-15 LSB. */
typedef struct fxg_rnorm {
	uint64_t root; /* the square root of n 4^k, rounded (fxg_isqrt64_round), in [2^30, 2^31] */
	int shift;     /* 16 + k, in [15, 47] */
} fxg_rnorm;

/* n > 0 */
static inline fxg_rnorm fxg_rnorm_make(uint64_t n)
{
	fxg_rnorm r;
	int k = (__builtin_clzll(n) - 2) >> 1; /* -1..31 */
	uint64_t m = k >= 0 ? n << (2 * k) : n >> 2;
	r.root = fxg_isqrt64_round(m);
	r.shift = 16 + k;
	return r;
}

/* a / sqrt(n), rounded half away from zero. |a| 2^k <= sqrt(n 4^k) < 2^31
 * keeps the numerator below 2^47; the quotient is at most 2^16 (+1). */
static inline fix16_t fxg_rnorm_apply(fxg_rnorm r, fix16_t a)
{
	if (a == 0)
		return 0; /* no division (a tangent's zero component) */
	uint64_t ua = a < 0 ? (uint64_t)0 - (uint64_t)(int64_t)a : (uint64_t)a;
	uint64_t num = ua << r.shift;
	uint64_t q = (num + (r.root >> 1)) / r.root;
	return a < 0 ? -(fix16_t)q : (fix16_t)q;
}

/* Exact squared length in raw units as uint64: each square is <= 2^62, the
 * sum of three < 2^64, so unlike fxg_v3_len2_wide it never saturates. */
static inline uint64_t fxg_v3_len2_u64(fxg_vec3 a)
{
	return (uint64_t)((int64_t)a.x * a.x) + (uint64_t)((int64_t)a.y * a.y) + (uint64_t)((int64_t)a.z * a.z);
}

/* a / |a|. Every component is within 0.5 + 2^-15 LSB of the exact unit
 * vector, whatever the length of a (any fix16_t input, no saturation), so
 * | |result| - 1 | <= 0.87 LSB. The zero vector returns zero (not counted: it
 * is a valid input). out_len, when given, receives the correctly rounded
 * length (saturated and counted above FXG_MAX). */
static inline fxg_vec3 fxg_v3_normalize(fxg_vec3 a, fix16_t *out_len, uint32_t *ovf)
{
	uint64_t n = fxg_v3_len2_u64(a);
	if (out_len)
		*out_len = fxg_sat((int64_t)fxg_isqrt64_round(n), ovf); /* sqrt < 2^32.8: fits int64 */
	if (n == 0)
		return fxg_v3_zero();
	fxg_rnorm r = fxg_rnorm_make(n);
	return fxg_v3(fxg_rnorm_apply(r, a.x), fxg_rnorm_apply(r, a.y), fxg_rnorm_apply(r, a.z));
}

static inline fxg_vec3 fxg_v3_min(fxg_vec3 a, fxg_vec3 b)
{
	return fxg_v3(fxg_min(a.x, b.x), fxg_min(a.y, b.y), fxg_min(a.z, b.z));
}

static inline fxg_vec3 fxg_v3_max(fxg_vec3 a, fxg_vec3 b)
{
	return fxg_v3(fxg_max(a.x, b.x), fxg_max(a.y, b.y), fxg_max(a.z, b.z));
}

static inline fix16_t fxg_v3_comp(fxg_vec3 a, int axis) { return axis == 0 ? a.x : (axis == 1 ? a.y : a.z); }

static inline void fxg_v3_set_comp(fxg_vec3 *a, int axis, fix16_t x)
{
	if (axis == 0)
		a->x = x;
	else if (axis == 1)
		a->y = x;
	else
		a->z = x;
}

#ifdef __cplusplus
}
#endif

#endif
