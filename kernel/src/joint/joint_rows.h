/* The rows the joint types are made of, private to kernel/src/joint: the
 * geometry of a joint in the bodies' current poses, the ball part (three
 * coupled linear rows solved as one 3x3 block), angular rows, and the
 * three ways a scalar row is solved (equality, one-sided limit, motor).
 * Ball, hinge and fixed joints share the ball part; every type but the
 * ball solves equality rows, three solve limits and two drive motors.
 *
 * They are static inline here, not in a .c of their own, because they run
 * for every joint every sub-step (the setup) and every iteration (the
 * solve): each type's file keeps them in reach of the compiler, as they
 * were when all the types were in one file. */
#ifndef FXS_JOINT_ROWS_H
#define FXS_JOINT_ROWS_H

#include "joint/joint.h"

#include <string.h>

static const fxg_vec3 unit_axes[3] = { { FXG_ONE, 0, 0 }, { 0, FXG_ONE, 0 }, { 0, 0, FXG_ONE } };

/* ---- geometry of a joint in the current poses ---- */

static inline void world_point(const fxs_body *b, fxg_vec3 local, fxg_vec3 *r, fxg_vec3 *p, uint32_t *ovf)
{
	*r = fxg_q_rotate(b->xf.q, local, ovf);
	*p = fxg_v3_add(b->xf.p, *r, ovf);
}

/* b's anchor minus a's, from the bodies' current poses (the solver moves
 * them every sub-step) */
static inline fxg_vec3 separation(const fxs_joint *j, const fxs_body *ba, const fxs_body *bb, uint32_t *ovf)
{
	fxg_vec3 ra, rb, pa, pb;
	world_point(ba, j->local_anchor_a, &ra, &pa, ovf);
	world_point(bb, j->local_anchor_b, &rb, &pb, ovf);
	return fxg_v3_sub(pb, pa, ovf);
}

/* The world-frame rotation from where b should be to where it is:
 * qb conj(qa ref), with w >= 0. Identity when a fixed joint holds; a
 * rotation about the hinge axis by the hinge angle when a hinge holds. */
static inline fxg_quat rotation_error(const fxs_body *A, const fxs_body *B, fxg_quat ref, uint32_t *ovf)
{
	fxg_quat target = fxg_q_mul(A->xf.q, ref, ovf);
	fxg_quat e = fxg_q_mul(B->xf.q, fxg_q_conj(target), ovf);
	if (e.w < 0)
		e = fxg_q(-e.x, -e.y, -e.z, -e.w);
	return e;
}

/* 2 atan2(s, c) in rad, (-pi, pi], for c >= 0 */
static inline fix16_t half_angle_to_rad(fix16_t s, fix16_t c)
{
	fxg_angle h = fxg_atan2(s, c); /* in [-quarter, quarter] as a signed turn */
	return fxg_angle_to_rad((fxg_angle)(h * 2u));
}

/* 2 q.xyz: the small-angle rotation vector of q */
static inline fxg_vec3 rotation_vector(fxg_quat q, uint32_t *ovf)
{
	return fxg_v3(fxg_sat(2 * (int64_t)q.x, ovf), fxg_sat(2 * (int64_t)q.y, ovf), fxg_sat(2 * (int64_t)q.z, ovf));
}

/* ---- angular rows ---- */

static inline fix16_t rel_ang(const solver_body *A, const solver_body *B, const solver_row *r, uint32_t *ovf)
{
	int64_t s = dot_raw(B->w, r->rxb) - dot_raw(A->w, r->rxa);
	return fxg_sat(fxg_shr_round(s, 16), ovf);
}

/* an angular row about unit t: rxa = rxb = t */
static inline void prepare_angular_row(const solver_body *A, const solver_body *B, fxg_vec3 t, fix16_t mass_scale,
				       solver_row *r, uint32_t *ovf)
{
	r->rxa = r->rxb = t;
	wvec3 ia = sym_mul(&A->inv_i, t, ovf), ib = sym_mul(&B->inv_i, t, ovf);
	r->ia[0] = ia.x, r->ia[1] = ia.y, r->ia[2] = ia.z;
	r->ib[0] = ib.x, r->ib[1] = ib.y, r->ib[2] = ib.z;
	fxg_wide k = fxg_add64(wdot(ia, t, ovf), wdot(ib, t, ovf), ovf);
	r->mass = k > 0 ? fxg_wide_recip(k, ovf) : 0;
	r->soft_mass = fxg_wmul(r->mass, mass_scale, ovf);
}

static inline void apply_angular(solver_body *A, solver_body *B, const solver_row *r, int64_t P, uint32_t *ovf)
{
	if (P == 0)
		return;
	fix16_t p = fxg_sat(P, ovf);
	fix16_t np = p == INT32_MIN ? INT32_MAX : -p;
	add_response(&A->w, r->ia, np, ovf);
	add_response(&B->w, r->ib, p, ovf);
}

/* ---- scalar rows: equality, limit, motor ---- */

/* a row is linear (direction d, lever arms in the row) or angular (d == NULL) */
static inline fix16_t row_speed(const solver_body *A, const solver_body *B, const fxg_vec3 *d, const solver_row *r,
				uint32_t *ovf)
{
	return d ? rel_vel(A, B, *d, r, ovf) : rel_ang(A, B, r, ovf);
}

static inline void row_apply(solver_body *A, solver_body *B, const fxg_vec3 *d, const solver_row *r, int64_t P,
			     uint32_t *ovf)
{
	if (d)
		apply(A, B, *d, r, P, ovf);
	else
		apply_angular(A, B, r, P, ovf);
}

/* An equality row: soft (spring-damper toward C = 0) with bias, rigid without. */
static inline void solve_equal(solver_body *A, solver_body *B, const fxg_vec3 *d, const solver_row *r, int64_t *acc,
			       fix16_t C, const soft *s, fxg_wide soft_mass, bool use_bias, uint32_t *ovf)
{
	fix16_t cdot = row_speed(A, B, d, r, ovf);
	int64_t bias = 0;
	fxg_wide mass = r->mass;
	fix16_t impulse_scale = 0;
	if (use_bias) {
		bias = fxg_mul(s->bias_rate, C, ovf);
		mass = soft_mass;
		impulse_scale = s->impulse_scale;
	}
	int64_t imp = -fxg_wmul_fix64(mass, fxg_sat((int64_t)cdot + bias, ovf));
	if (impulse_scale)
		imp = fxg_sub64(imp, fxg_wmul(*acc, impulse_scale, ovf), ovf);
	*acc = fxg_add64(*acc, imp, ovf);
	row_apply(A, B, d, r, imp, ovf);
}

/* A one-sided row keeping C >= 0 (sign -1: the row's direction reversed):
 * speculative while C > 0, soft below with bias, rigid without. */
static inline void solve_limit(solver_body *A, solver_body *B, const fxg_vec3 *d, const solver_row *r, int sign,
			       int64_t *acc, fix16_t C, const soft *s, bool use_bias, fix16_t inv_h, uint32_t *ovf)
{
	int64_t cdot = row_speed(A, B, d, r, ovf);
	if (sign < 0)
		cdot = -cdot;
	int64_t bias = 0;
	fxg_wide mass = r->mass;
	fix16_t impulse_scale = 0;
	if (C > 0) {
		bias = ((int64_t)C * inv_h) >> 16;
	} else if (use_bias) {
		bias = fxg_mul(s->bias_rate, C, ovf);
		mass = r->soft_mass;
		impulse_scale = s->impulse_scale;
	}
	int64_t imp = -fxg_wmul_fix64(mass, fxg_sat(cdot + bias, ovf));
	if (impulse_scale)
		imp = fxg_sub64(imp, fxg_wmul(*acc, impulse_scale, ovf), ovf);
	int64_t nw = fxg_add64(*acc, imp, ovf);
	if (nw < 0)
		nw = 0;
	int64_t delta = nw - *acc;
	*acc = nw;
	row_apply(A, B, d, r, sign < 0 ? -delta : delta, ovf);
}

/* A motor: drive the row's speed to `speed` with |accumulated| <= max. */
static inline void solve_motor(solver_body *A, solver_body *B, const fxg_vec3 *d, const solver_row *r, int64_t *acc,
			       fix16_t speed, int64_t max, uint32_t *ovf)
{
	int64_t cdot = row_speed(A, B, d, r, ovf);
	int64_t imp = -fxg_wmul_fix64(r->mass, fxg_sat(cdot - speed, ovf));
	int64_t nw = fxg_add64(*acc, imp, ovf);
	nw = nw < -max ? -max : (nw > max ? max : nw);
	int64_t delta = nw - *acc;
	*acc = nw;
	row_apply(A, B, d, r, delta, ovf);
}

/* ---- the ball part: rows 0..2, the anchors coincide ---- */

/* The ball part's rows along world x, y, z: ra x e_k is exact (a
 * permutation of ra's components), and the rows need no scalar effective
 * mass (the block's K^-1 replaces it). */
static inline void prepare_point_rows(solver_joint *sj, const solver_body *A, const solver_body *B, uint32_t *ovf)
{
	fxg_vec3 ra = sj->ra, rb = sj->rb;
	sj->row[0].rxa = fxg_v3(0, ra.z, -ra.y), sj->row[0].rxb = fxg_v3(0, rb.z, -rb.y);
	sj->row[1].rxa = fxg_v3(-ra.z, 0, ra.x), sj->row[1].rxb = fxg_v3(-rb.z, 0, rb.x);
	sj->row[2].rxa = fxg_v3(ra.y, -ra.x, 0), sj->row[2].rxb = fxg_v3(rb.y, -rb.x, 0);
	const wvec3 zero = { 0, 0, 0 };
	for (int k = 0; k < 3; ++k) {
		solver_row *r = &sj->row[k];
		/* a static, kinematic or sleeping body's inverse inertia is zero */
		wvec3 ia = A->dynamic ? sym_mul(&A->inv_i, r->rxa, ovf) : zero;
		wvec3 ib = B->dynamic ? sym_mul(&B->inv_i, r->rxb, ovf) : zero;
		r->ia[0] = ia.x, r->ia[1] = ia.y, r->ia[2] = ia.z;
		r->ib[0] = ib.x, r->ib[1] = ib.y, r->ib[2] = ib.z;
	}
}

/* K = sum over both bodies of m^-1 I + [r]x^T I^-1 [r]x, column k from row
 * k's angular response: K e_k = (ma^-1 + mb^-1) e_k + ia_k x ra + ib_k x rb. */
static inline void prepare_point_block(solver_joint *sj, const solver_body *A, const solver_body *B, uint32_t *ovf)
{
	fxg_wide col[3][3];
	for (int k = 0; k < 3; ++k) {
		const solver_row *r = &sj->row[k];
		fxg_vec3 ra = sj->ra, rb = sj->rb;
		/* (i x r) with i wide: components as Q32.32 */
		col[k][0] = fxg_add64(fxg_sub64(fxg_wmul(r->ia[1], ra.z, ovf), fxg_wmul(r->ia[2], ra.y, ovf), ovf),
				      fxg_sub64(fxg_wmul(r->ib[1], rb.z, ovf), fxg_wmul(r->ib[2], rb.y, ovf), ovf), ovf);
		col[k][1] = fxg_add64(fxg_sub64(fxg_wmul(r->ia[2], ra.x, ovf), fxg_wmul(r->ia[0], ra.z, ovf), ovf),
				      fxg_sub64(fxg_wmul(r->ib[2], rb.x, ovf), fxg_wmul(r->ib[0], rb.z, ovf), ovf), ovf);
		col[k][2] = fxg_add64(fxg_sub64(fxg_wmul(r->ia[0], ra.y, ovf), fxg_wmul(r->ia[1], ra.x, ovf), ovf),
				      fxg_sub64(fxg_wmul(r->ib[0], rb.y, ovf), fxg_wmul(r->ib[1], rb.x, ovf), ovf), ovf);
		col[k][k] = fxg_add64(col[k][k], fxg_add64(A->inv_mass, B->inv_mass, ovf), ovf);
	}
	fxg_sym3w K;
	/* symmetric in exact arithmetic; average the two roundings of each
	 * off-diagonal pair so the matrix is exactly symmetric */
	K.xx = col[0][0], K.yy = col[1][1], K.zz = col[2][2];
	K.xy = (col[0][1] >> 1) + (col[1][0] >> 1);
	K.xz = (col[0][2] >> 1) + (col[2][0] >> 1);
	K.yz = (col[1][2] >> 1) + (col[2][1] >> 1);
	if (!fxg_s3w_inverse(&K, &sj->point_inv_k, ovf))
		memset(&sj->point_inv_k, 0, sizeof sj->point_inv_k);
}

static inline void point_warm_start(const solver_joint *sj, solver_body *A, solver_body *B, const int64_t *P,
				    uint32_t *ovf)
{
	for (int k = 0; k < 3; ++k)
		apply(A, B, unit_axes[k], &sj->row[k], P[k], ovf);
}

/* The ball part, solved as one 3x3 block (exact for the three coupled rows,
 * where Gauss-Seidel over them would lag): impulse = -K^-1 (Cdot + bias),
 * soft with bias, rigid without. Rows 0..2 are along world x, y, z. */
static inline void solve_point(solver_joint *sj, solver_body *A, solver_body *B, int64_t *P, fxg_vec3 C,
			       bool use_bias, uint32_t *ovf)
{
	int64_t v[3];
	for (int k = 0; k < 3; ++k)
		v[k] = rel_vel(A, B, unit_axes[k], &sj->row[k], ovf);
	if (use_bias) {
		v[0] += fxg_mul(sj->head.s.bias_rate, C.x, ovf);
		v[1] += fxg_mul(sj->head.s.bias_rate, C.y, ovf);
		v[2] += fxg_mul(sj->head.s.bias_rate, C.z, ovf);
	}
	wvec3 x = sym_mul(&sj->point_inv_k, fxg_v3(fxg_sat(v[0], ovf), fxg_sat(v[1], ovf), fxg_sat(v[2], ovf)), ovf);
	int64_t imp[3] = { -fxg_shr_round(x.x, 16), -fxg_shr_round(x.y, 16), -fxg_shr_round(x.z, 16) };
	for (int k = 0; k < 3; ++k) {
		if (use_bias) {
			imp[k] = fxg_wmul(imp[k], sj->head.s.mass_scale, ovf);
			imp[k] = fxg_sub64(imp[k], fxg_wmul(P[k], sj->head.s.impulse_scale, ovf), ovf);
		}
		P[k] = fxg_add64(P[k], imp[k], ovf);
	}
	for (int k = 0; k < 3; ++k)
		apply(A, B, unit_axes[k], &sj->row[k], imp[k], ovf);
}

#endif
