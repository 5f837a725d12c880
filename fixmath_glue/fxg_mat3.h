/* fixmath_glue: 3x3 matrices. fxg_mat3 holds fix16_t columns (rotations);
 * fxg_sym3w is a symmetric matrix of wide Q32.32 entries (inertia tensors and
 * their inverses, which span 1e-6 .. 1e9 and do not fit Q16.16). */
#ifndef FXG_MAT3_H
#define FXG_MAT3_H

#include "fxg_quat.h"

#ifdef __cplusplus
extern "C" {
#endif
FXG_EXPORT_BEGIN

typedef struct fxg_mat3 {
	fxg_vec3 cx, cy, cz; /* columns */
} fxg_mat3;

typedef struct fxg_sym3w {
	fxg_wide xx, yy, zz, xy, xz, yz;
} fxg_sym3w;

/* Rotation matrix of unit q; each entry rounded once from exact int64 sums. */
/* column k (0, 1, 2) of m */
static inline fxg_vec3 fxg_m3_col(const fxg_mat3 *m, int k) { return k == 0 ? m->cx : (k == 1 ? m->cy : m->cz); }

static inline fxg_mat3 fxg_m3_from_quat(fxg_quat q, uint32_t *ovf)
{
	typedef int64_t L;
	L xx = (L)q.x * q.x, yy = (L)q.y * q.y, zz = (L)q.z * q.z;
	L xy = (L)q.x * q.y, xz = (L)q.x * q.z, yz = (L)q.y * q.z;
	L wx = (L)q.w * q.x, wy = (L)q.w * q.y, wz = (L)q.w * q.z;
	const L one = (L)1 << 32;
	/* entries are 1 - 2(...) or 2(...): exact in int64 for unit-range inputs */
#define FXG_M3E(v) fxg_sat(fxg_shr_round((v), 16), ovf)
	fxg_mat3 m;
	m.cx = fxg_v3(FXG_M3E(one - 2 * (yy + zz)), FXG_M3E(2 * (xy + wz)), FXG_M3E(2 * (xz - wy)));
	m.cy = fxg_v3(FXG_M3E(2 * (xy - wz)), FXG_M3E(one - 2 * (xx + zz)), FXG_M3E(2 * (yz + wx)));
	m.cz = fxg_v3(FXG_M3E(2 * (xz + wy)), FXG_M3E(2 * (yz - wx)), FXG_M3E(one - 2 * (xx + yy)));
#undef FXG_M3E
	return m;
}

static inline fxg_vec3 fxg_m3_mul_v3(fxg_mat3 m, fxg_vec3 v, uint32_t *ovf)
{
	typedef int64_t L;
	fxg_vec3 r;
	r.x = fxg_sum4_round((L)m.cx.x * v.x, (L)m.cy.x * v.y, (L)m.cz.x * v.z, 0, ovf);
	r.y = fxg_sum4_round((L)m.cx.y * v.x, (L)m.cy.y * v.y, (L)m.cz.y * v.z, 0, ovf);
	r.z = fxg_sum4_round((L)m.cx.z * v.x, (L)m.cy.z * v.y, (L)m.cz.z * v.z, 0, ovf);
	return r;
}

/* transpose(m) * v */
static inline fxg_vec3 fxg_m3_tmul_v3(fxg_mat3 m, fxg_vec3 v, uint32_t *ovf)
{
	return fxg_v3(fxg_v3_dot(m.cx, v, ovf), fxg_v3_dot(m.cy, v, ovf), fxg_v3_dot(m.cz, v, ovf));
}

/* m * v for a wide symmetric m and a Q16.16 v, rounded once per component. */
static inline fxg_vec3 fxg_s3w_mul_v3(const fxg_sym3w *m, fxg_vec3 v, uint32_t *ovf)
{
	fxg_wide rx = fxg_add64(fxg_add64(fxg_wmul(m->xx, v.x, ovf), fxg_wmul(m->xy, v.y, ovf), ovf), fxg_wmul(m->xz, v.z, ovf), ovf);
	fxg_wide ry = fxg_add64(fxg_add64(fxg_wmul(m->xy, v.x, ovf), fxg_wmul(m->yy, v.y, ovf), ovf), fxg_wmul(m->yz, v.z, ovf), ovf);
	fxg_wide rz = fxg_add64(fxg_add64(fxg_wmul(m->xz, v.x, ovf), fxg_wmul(m->yz, v.y, ovf), ovf), fxg_wmul(m->zz, v.z, ovf), ovf);
	return fxg_v3(fxg_wide_to_fix(rx, ovf), fxg_wide_to_fix(ry, ovf), fxg_wide_to_fix(rz, ovf));
}

/* R diag(d) R^T: a diagonal wide tensor (body frame) rotated to world frame. */
fxg_sym3w fxg_s3w_rotate_diag(fxg_mat3 r, fxg_wide dx, fxg_wide dy, fxg_wide dz, uint32_t *ovf);

/* R m R^T for a full symmetric wide m (body frame) to world frame. */
fxg_sym3w fxg_s3w_rotate(fxg_mat3 r, const fxg_sym3w *m, uint32_t *ovf);

/* Inverse of a symmetric positive-definite wide matrix. The matrix is scaled
 * by an exact power of two into [1, 2) before the cofactor expansion, so that
 * tiny inertias (1e-6) keep their precision. Returns false (and zeros) for a
 * singular matrix. */
bool fxg_s3w_inverse(const fxg_sym3w *m, fxg_sym3w *out, uint32_t *ovf);

FXG_EXPORT_END
#ifdef __cplusplus
}
#endif

#endif
