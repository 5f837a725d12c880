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
	fix16_t hh = h >> 1; /* h / 2, exact for even h, floor otherwise: stated */
	fxg_quat r = fxg_q(fxg_sat((int64_t)q.x + fxg_shr_round((int64_t)hh * wq.x, 16), ovf),
			   fxg_sat((int64_t)q.y + fxg_shr_round((int64_t)hh * wq.y, 16), ovf),
			   fxg_sat((int64_t)q.z + fxg_shr_round((int64_t)hh * wq.z, 16), ovf),
			   fxg_sat((int64_t)q.w + fxg_shr_round((int64_t)hh * wq.w, 16), ovf));
	return fxg_q_normalize(r, ovf);
}

#ifdef __cplusplus
}
#endif

#endif
