/* fixmath_glue: unit quaternions (x, y, z, w) of fix16_t.
 * Products accumulate in int64 and round once per component. */
#ifndef FXG_QUAT_H
#define FXG_QUAT_H

#include "fxg_vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fxg_quat {
	fix16_t x, y, z, w;
} fxg_quat;

static inline fxg_quat fxg_q(fix16_t x, fix16_t y, fix16_t z, fix16_t w)
{
	fxg_quat q = { x, y, z, w };
	return q;
}

static inline fxg_quat fxg_q_identity(void) { return fxg_q(0, 0, 0, FXG_ONE); }

static inline fxg_quat fxg_q_conj(fxg_quat q) { return fxg_q(-q.x, -q.y, -q.z, q.w); }

static inline fix16_t fxg_sum4_round(int64_t a, int64_t b, int64_t c, int64_t d, uint32_t *ovf)
{
	/* each term is a product of two unit-range values: |term| <= 2^62 only
	 * when inputs are huge; sum with saturation to stay UB-free */
	int64_t s = fxg_add64(fxg_add64(a, b, ovf), fxg_add64(c, d, ovf), ovf);
	if (s > INT64_MAX - 0x8000 || s < INT64_MIN + 0x8000)
		return fxg_sat(s, ovf);
	return fxg_sat(fxg_shr_round(s, 16), ovf);
}

/* a * b (Hamilton product) */
static inline fxg_quat fxg_q_mul(fxg_quat a, fxg_quat b, uint32_t *ovf)
{
	typedef int64_t L;
	return fxg_q(fxg_sum4_round((L)a.w * b.x, (L)a.x * b.w, (L)a.y * b.z, -(L)a.z * b.y, ovf),
		     fxg_sum4_round((L)a.w * b.y, -(L)a.x * b.z, (L)a.y * b.w, (L)a.z * b.x, ovf),
		     fxg_sum4_round((L)a.w * b.z, (L)a.x * b.y, -(L)a.y * b.x, (L)a.z * b.w, ovf),
		     fxg_sum4_round((L)a.w * b.w, -(L)a.x * b.x, -(L)a.y * b.y, -(L)a.z * b.z, ovf));
}

/* Rotate v by unit q: v + w t + u x t with t = 2 (u x v). */
static inline fxg_vec3 fxg_q_rotate(fxg_quat q, fxg_vec3 v, uint32_t *ovf)
{
	fxg_vec3 u = fxg_v3(q.x, q.y, q.z);
	fxg_vec3 t = fxg_v3_cross(u, v, ovf);
	t = fxg_v3(fxg_sat((int64_t)t.x * 2, ovf), fxg_sat((int64_t)t.y * 2, ovf), fxg_sat((int64_t)t.z * 2, ovf));
	fxg_vec3 r = fxg_v3_mul_add(v, q.w, t, ovf);
	return fxg_v3_add(r, fxg_v3_cross(u, t, ovf), ovf);
}

/* Rotate v by the inverse of unit q. */
static inline fxg_vec3 fxg_q_inv_rotate(fxg_quat q, fxg_vec3 v, uint32_t *ovf)
{
	return fxg_q_rotate(fxg_q_conj(q), v, ovf);
}

/* The pinned renormalisation: q / |q| from the exact squared norm, each
 * component within 0.5 + 2^-15 LSB of the exact unit quaternion (see
 * fxg_rnorm). The squared norm saturates (counted) only for inputs far from
 * unit length (|components| near 2^31). A zero quaternion becomes the
 * identity (counted). */
static inline fxg_quat fxg_q_normalize(fxg_quat q, uint32_t *ovf)
{
	typedef int64_t L;
	int64_t n2 = fxg_add64(fxg_add64((L)q.x * q.x, (L)q.y * q.y, ovf), fxg_add64((L)q.z * q.z, (L)q.w * q.w, ovf), ovf);
	if (n2 == 0) {
		++*ovf;
		return fxg_q_identity();
	}
	fxg_rnorm r = fxg_rnorm_make((uint64_t)n2);
	return fxg_q(fxg_rnorm_apply(r, q.x), fxg_rnorm_apply(r, q.y), fxg_rnorm_apply(r, q.z), fxg_rnorm_apply(r, q.w));
}

/* One step of orientation integration: q + (h/2) (omega, 0) * q, then the
 * pinned renormalisation. omega in rad/s, h in s. */
static inline fxg_quat fxg_q_integrate(fxg_quat q, fxg_vec3 omega, fix16_t h, uint32_t *ovf)
{
	fxg_quat wq = fxg_q_mul(fxg_q(omega.x, omega.y, omega.z, 0), q, ovf);
	/* (h / 2) wq rounded once, so that an odd h turns as far as it should
	 * (for an even h, the same bits as halving h first) */
	fxg_quat r = fxg_q(fxg_sat((int64_t)q.x + fxg_shr_round((int64_t)h * wq.x, 17), ovf),
			   fxg_sat((int64_t)q.y + fxg_shr_round((int64_t)h * wq.y, 17), ovf),
			   fxg_sat((int64_t)q.z + fxg_shr_round((int64_t)h * wq.z, 17), ovf),
			   fxg_sat((int64_t)q.w + fxg_shr_round((int64_t)h * wq.w, 17), ovf));
	return fxg_q_normalize(r, ovf);
}

/* ---- orientations in Q1.30 ----
 *
 * A body's orientation is kept with 30 fractional bits (int32 components,
 * 2^30 = 1), its Q16.16 quaternion rounded from it. In Q16.16 a turn of
 * (h / 2) |omega| below half an LSB per sub-step is lost: at 60 Hz and 4
 * sub-steps every rotation slower than 0.0037 rad/s (0.2 deg/s) stopped,
 * and a soft contact's slow correction of a tilt never happened. In Q1.30
 * the threshold is 16384 times lower. */
typedef struct fxg_quat30 {
	int32_t x, y, z, w;
} fxg_quat30;

#define FXG_Q30_ONE ((int32_t)1 << 30)

/* a Q16.16 quaternion as Q1.30, exactly (|components| <= 2 + 2^-15) */
static inline fxg_quat30 fxg_q30_from_q(fxg_quat q)
{
	fxg_quat30 r = { (int32_t)((uint32_t)q.x << 14), (int32_t)((uint32_t)q.y << 14), (int32_t)((uint32_t)q.z << 14),
			 (int32_t)((uint32_t)q.w << 14) };
	return r;
}

/* rounded to Q16.16, half away from zero */
static inline fxg_quat fxg_q30_to_q(fxg_quat30 q)
{
	return fxg_q((fix16_t)fxg_shr_round(q.x, 14), (fix16_t)fxg_shr_round(q.y, 14), (fix16_t)fxg_shr_round(q.z, 14),
		     (fix16_t)fxg_shr_round(q.w, 14));
}

/* (c0, c1, c2, c3) / |c| in Q1.30 for any int64 components (a quaternion
 * and its unnormalised update). When one is 2^31 or more, all are first
 * shifted right together to 2^30 or less, rounded (the quotient needs their
 * ratios only);
 * then the length from the exact squared norm (each square below 2^62,
 * summed in uint64 below 2^64), its root rounded (31 significant bits),
 * its reciprocal to 31 bits (one division), each component times it
 * rounded once (within an LSB of the exact quotient). A zero quaternion
 * becomes the identity (counted). */
static inline fxg_quat30 fxg_q30_normalize_wide(const int64_t c_in[4], uint32_t *ovf)
{
	uint64_t any = 0;
	for (int k = 0; k < 4; ++k)
		any |= c_in[k] < 0 ? (uint64_t)0 - (uint64_t)c_in[k] : (uint64_t)c_in[k];
	int bits = any ? 64 - __builtin_clzll(any) : 0;
	int sh = bits > 31 ? bits - 30 : 0; /* then |c| <= 2^30 */
	int64_t c[4];
	uint64_t n2 = 0;
	for (int k = 0; k < 4; ++k) {
		c[k] = sh > 0 ? fxg_shr_round(c_in[k], sh) : c_in[k]; /* |c| < 2^31: c^2 < 2^62 */
		n2 += (uint64_t)(c[k] * c[k]);
	}
	if (n2 == 0) {
		++*ovf;
		fxg_quat30 id = { 0, 0, 0, FXG_Q30_ONE };
		return id;
	}
	/* one division: 1 / |c| to 31 or more significant bits, scaled so that
	 * a component times it is below 2^62 */
	uint64_t len = fxg_isqrt64_round(n2);                          /* >= 1, <= 2^32 */
	int e = 64 - __builtin_clzll(len);                             /* len in [2^(e-1), 2^e) */
	uint64_t inv = (((uint64_t)1 << (e + 30)) + (len >> 1)) / len; /* 2^(e+30) / len in (2^30, 2^31] */
	int32_t r[4];
	for (int k = 0; k < 4; ++k) {
		uint64_t u = c[k] < 0 ? (uint64_t)0 - (uint64_t)c[k] : (uint64_t)c[k];
		/* u <= len + 1 < 2^(e+1) and inv <= 2^31: the product below 2^(e+32) <= 2^63 */
		uint64_t v = (u * inv + ((uint64_t)1 << (e - 1))) >> e; /* u 2^30 / len, <= 2^30 + 1 */
		r[k] = c[k] < 0 ? -(int32_t)v : (int32_t)v;
	}
	fxg_quat30 o = { r[0], r[1], r[2], r[3] };
	return o;
}

static inline fxg_quat30 fxg_q30_normalize(fxg_quat30 q, uint32_t *ovf)
{
	const int64_t c[4] = { q.x, q.y, q.z, q.w };
	return fxg_q30_normalize_wide(c, ovf);
}

/* One sub-step of orientation integration in Q1.30, as fxg_q_integrate:
 * q + (h / 2) (omega, 0) * q, then renormalised. Each component of the
 * product is an exact sum of three products (Q17.46, below 2^62 for
 * |omega| < 2^30 raw = 16384 rad/s, saturated and counted beyond), rounded
 * to Q17.30, then times h / 2 and rounded once more; the sum with q is held
 * in int64 (a fast spin's update can be several times q). */
static inline fxg_quat30 fxg_q30_integrate(fxg_quat30 q, fxg_vec3 omega, fix16_t h, uint32_t *ovf)
{
	typedef int64_t L;
	const L wx = omega.x, wy = omega.y, wz = omega.z;
	const L lim = (L)1 << 62; /* a 2^31 raw omega could reach 3 2^61 */
	L s[4];
	s[0] = fxg_add64(fxg_add64(wx * q.w, wy * q.z, ovf), -(wz * q.y), ovf);
	s[1] = fxg_add64(fxg_add64(wy * q.w, wz * q.x, ovf), -(wx * q.z), ovf);
	s[2] = fxg_add64(fxg_add64(wz * q.w, wx * q.y, ovf), -(wy * q.x), ovf);
	s[3] = fxg_add64(fxg_add64(-(wx * q.x), -(wy * q.y), ovf), -(wz * q.z), ovf);
	const int32_t c[4] = { q.x, q.y, q.z, q.w };
	L v[4];
	for (int k = 0; k < 4; ++k) {
		L t = s[k] > lim ? (++*ovf, lim) : (s[k] < -lim ? (++*ovf, -lim) : s[k]);
		v[k] = (L)c[k] + fxg_shr_round(fxg_shr_round(t, 16) * h, 17); /* |t| / 2^16 <= 2^46, h <= 2^16 */
	}
	/* |v|^2 = 1 + eps. While |eps| <= 2^-18 (a turn of h |omega| / 2 below
	 * 2^-9 a sub-step: at 240 sub-steps a second, slower than 1.9 rad/s,
	 * which is nearly every body of a scene at rest or settling) v / |v| is
	 * v (1 - eps / 2) within 3 eps^2 / 8 <= 2^-37.4: one product a component,
	 * each rounded once (within 0.51 LSB of the exact quotient), no root and
	 * no division. Beyond, the general normalisation. */
	uint64_t any = 0;
	for (int k = 0; k < 4; ++k)
		any |= (uint64_t)(v[k] < 0 ? -v[k] : v[k]); /* |v| < 2^45 + 2^31 */
	uint64_t n2 = 0;
	if (any < ((uint64_t)1 << 31)) /* each square below 2^62, the sum below 2^64 */
		n2 = (uint64_t)(v[0] * v[0]) + (uint64_t)(v[1] * v[1]) + (uint64_t)(v[2] * v[2]) + (uint64_t)(v[3] * v[3]);
	const L e = (L)(n2 - ((uint64_t)1 << 60)); /* eps 2^60 (-2^60 when not computed) */
	if (e >= -((L)1 << 42) && e <= ((L)1 << 42)) {
		const L e46 = fxg_shr_round(e, 14); /* eps 2^46, |e46| <= 2^28 */
		fxg_quat30 o;
		/* |v| < 2^31, |e46| <= 2^28: each product below 2^59; the result within 2^30 + 1 */
		o.x = (int32_t)(v[0] - fxg_shr_round(v[0] * e46, 47));
		o.y = (int32_t)(v[1] - fxg_shr_round(v[1] * e46, 47));
		o.z = (int32_t)(v[2] - fxg_shr_round(v[2] * e46, 47));
		o.w = (int32_t)(v[3] - fxg_shr_round(v[3] * e46, 47));
		return o;
	}
	return fxg_q30_normalize_wide(v, ovf);
}
#ifdef __cplusplus
}
#endif

#endif
