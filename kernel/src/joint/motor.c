/* The motor joint: drives b towards a target pose relative to a, with a
 * bounded force and torque (a character's carried object, a platform
 * following a path, a ragdoll pulled towards an animation). The target:
 * b's anchor at a's anchor plus linear_offset (in a's frame), b's rotation
 * qa angular_offset. Three linear rows along world x, y, z (impulses
 * 0..2) and three angular rows (3..5) drive the velocities towards
 * correction / h times the error, every pass; the linear impulse of a step
 * is clamped as a vector to max_force h, the angular one to max_torque h.
 * Far from the target that speed is capped at sqrt(2 a |C|), a the bound
 * over the rows' largest effective mass: the speed from which the bounded
 * force can still stop at the target, so that b arrives without
 * overshooting (a proportional speed alone overshoots by about the
 * distance it came from, a bounded force being unable to brake it). */
#include "joint/joint_rows.h"
#include "joint/joint_types.h"

#define MOTOR_FORCE_MAX FXG_I(30000)

fxs_joint_def fxs_default_motor_joint_def(void)
{
	fxs_joint_def d = fxs_joint_base_def(FXS_JOINT_MOTOR);
	d.angular_offset = fxg_q_identity();
	d.max_motor_force = FXG_I(1000);
	d.max_motor_torque = FXG_I(1000);
	d.correction_factor = FXG_RATIO(3, 10);
	return d;
}

static bool valid(const fxs_joint *j)
{
	return vec_in_range(j->linear_offset, ANCHOR_MAX) && in_range(j->max_force, 0, MOTOR_FORCE_MAX) &&
	       in_range(j->max_torque, 0, MOTOR_FORCE_MAX) && in_range(j->correction, 0, FXG_ONE);
}

static void init(fxs_joint *j, const fxs_joint_def *def, const fxs_body *ba, const fxs_body *bb, uint32_t *ovf)
{
	j->linear_offset = def->linear_offset;
	j->angular_offset = fxg_q_normalize(def->angular_offset, ovf);
	j->max_force = def->max_motor_force;
	j->max_torque = def->max_motor_torque;
	j->correction = def->correction_factor;
}

static void setup(solver_joint *sj, const fxs_joint *j, const solver_body *A, const solver_body *B,
		  const fxs_body *ba, const fxs_body *bb, fxg_vec3 pa, fxg_vec3 pb, uint32_t *ovf)
{
	/* a's lever arm reaches the target point */
	fxg_vec3 off = fxg_q_rotate(ba->xf.q, j->linear_offset, ovf);
	sj->ra = fxg_v3_add(sj->ra, off, ovf);
	sj->c0 = fxg_v3_sub(sj->c0, off, ovf);
	for (int k = 0; k < 3; ++k) {
		prepare_row(A, B, sj->ra, sj->rb, unit_axes[k], FXG_ONE, &sj->row[k], ovf);
		prepare_angular_row(A, B, unit_axes[k], FXG_ONE, &sj->row[3 + k], ovf);
	}
	sj->ang0 = rotation_vector(rotation_error(ba, bb, j->angular_offset, ovf), ovf);
}

static void warm_start(const solver_joint *sj, solver_body *A, solver_body *B, const int64_t *P, uint32_t *ovf)
{
	for (int k = 0; k < 3; ++k) {
		apply(A, B, unit_axes[k], &sj->row[k], P[k], ovf);
		apply_angular(A, B, &sj->row[3 + k], P[3 + k], ovf);
	}
}

/* min(k, sqrt(2 a / |C|)), a = bound / mass: the rate whose speed is
 * the braking curve's */
static fix16_t rate_of(fix16_t k, fix16_t bound, fxg_wide mass, fxg_vec3 C, uint32_t *ovf)
{
	int64_t m = mass >> 16; /* Q16.16 */
	fix16_t len = fxg_v3_len(C, ovf);
	if (m <= 0 || len <= 0)
		return k;
	int64_t a = ((int64_t)bound << 16) / m;
	if (a > ((int64_t)1 << 40))
		a = (int64_t)1 << 40;
	int64_t q = ((2 * a) << 16) / len;   /* 2 a / |C|, Q16.16 */
	int64_t k2 = ((int64_t)k * k) >> 16; /* k^2, Q16.16 */
	if (q >= k2)
		return k;
	return fxg_sqrt_wide(q << 16, ovf);
}

/* rows k0..k0+2 towards -rate * C, then the accumulated vector clamped to
 * length max */
static void drive(solver_joint *sj, solver_body *A, solver_body *B, bool linear, int64_t *P, fxg_vec3 C,
		  fix16_t gain, fix16_t bound, int64_t max, uint32_t *ovf)
{
	int k0 = linear ? 0 : 3;
	fxg_wide mass = 0;
	for (int i = 0; i < 3; ++i)
		mass = sj->row[k0 + i].mass > mass ? sj->row[k0 + i].mass : mass;
	fix16_t bias_rate = rate_of(gain, bound, mass, C, ovf);
	const fix16_t c[3] = { C.x, C.y, C.z };
	for (int k = 0; k < 3; ++k) {
		const solver_row *r = &sj->row[k0 + k];
		const fxg_vec3 *d = linear ? &unit_axes[k] : NULL;
		fix16_t cdot = row_speed(A, B, d, r, ovf);
		int64_t imp = -fxg_wmul_fix64(r->mass, fxg_sat((int64_t)cdot + fxg_mul(bias_rate, c[k], ovf), ovf));
		P[k] = fxg_add64(P[k], imp, ovf);
		row_apply(A, B, d, r, imp, ovf);
	}
	/* |P| <= max: components within int32 first, so the squared length fits a uint64 */
	int64_t p[3];
	uint64_t n2 = 0;
	for (int k = 0; k < 3; ++k) {
		p[k] = fxg_sat(P[k], ovf);
		n2 += (uint64_t)(p[k] * p[k]);
	}
	uint64_t len = fxg_isqrt64_round(n2);
	if (len <= (uint64_t)max && p[0] == P[0] && p[1] == P[1] && p[2] == P[2])
		return;
	for (int k = 0; k < 3; ++k) {
		int64_t nw = len > (uint64_t)max ? (p[k] * max) / (int64_t)len : p[k];
		const fxg_vec3 *d = linear ? &unit_axes[k] : NULL;
		row_apply(A, B, d, &sj->row[k0 + k], nw - P[k], ovf);
		P[k] = nw;
	}
}

static void solve(solver_joint *sj, fxs_joint *j, solver_body *A, solver_body *B, const fxs_body *ba,
		  const fxs_body *bb, bool use_bias, fix16_t inv_h, uint32_t *ovf)
{
	fix16_t rate = fxg_mul(j->correction, inv_h, ovf);
	/* the bounds for this sub-step's length h = 1 / inv_h */
	int64_t max_f = inv_h > 0 ? ((int64_t)j->max_force << 16) / inv_h : 0;
	int64_t max_t = inv_h > 0 ? ((int64_t)j->max_torque << 16) / inv_h : 0;
	drive(sj, A, B, false, &j->impulse[3], sj->ang0, rate, j->max_torque, max_t, ovf);
	drive(sj, A, B, true, &j->impulse[0], sj->c0, rate, j->max_force, max_f, ovf);
}

const fxs_joint_kind fxs_motor_kind = {
	.rows = 6,
	.target = true,
	.init = init,
	.valid = valid,
	.setup = setup,
	.warm_start = warm_start,
	.solve = solve,
};
