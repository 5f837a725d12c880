/* The hinge joint: the ball part (impulses 0..2, joint_rows.h), two angular
 * rows perpendicular to the axis that keep a's and b's axes parallel (3, 4),
 * and along the axis a motor (5) and the lower and upper limits (6, 7),
 * which share one angular row. The angle is measured from the reference
 * pose: the part of rotation_error about the axis. */
#include "joint/joint_rows.h"
#include "joint/joint_types.h"

fxs_joint_def fxs_default_hinge_joint_def(void) { return fxs_joint_base_def(FXS_JOINT_HINGE); }

static bool valid(const fxs_joint *j)
{
	return in_range(j->lower, -PI_RAW, PI_RAW) && in_range(j->upper, -PI_RAW, PI_RAW);
}

/* the hinge angle: the rotation error's part about a's axis (world axa) */
static fix16_t angle(const fxs_body *ba, const fxs_body *bb, fxg_quat ref, fxg_vec3 axa, uint32_t *ovf)
{
	fxg_quat q = rotation_error(ba, bb, ref, ovf);
	return half_angle_to_rad(fxg_v3_dot(axa, fxg_v3(q.x, q.y, q.z), ovf), q.w);
}

static fix16_t position(const fxs_joint *j, const fxs_body *ba, const fxs_body *bb, fxg_vec3 d, uint32_t *ovf)
{
	return angle(ba, bb, j->ref_rotation, fxg_q_rotate(ba->xf.q, j->local_axis_a, ovf), ovf);
}

static void setup(solver_joint *sj, const fxs_joint *j, const solver_body *A, const solver_body *B,
		  const fxs_body *ba, const fxs_body *bb, fxg_vec3 pa, fxg_vec3 pb, uint32_t *ovf)
{
	fix16_t ms = sj->head.s.mass_scale;
	prepare_point_rows(sj, A, B, ovf);
	prepare_point_block(sj, A, B, ovf);
	fxg_vec3 axa = fxg_q_rotate(ba->xf.q, j->local_axis_a, ovf);
	fxg_vec3 axb = fxg_q_rotate(bb->xf.q, j->local_axis_b, ovf);
	sj->axis = axa;
	tangents(axa, sj->t, ovf);
	/* a x b = the rotation that would bring a onto b, for small errors */
	fxg_vec3 e = fxg_v3_cross(axa, axb, ovf);
	sj->ang0 = fxg_v3(fxg_v3_dot(sj->t[0], e, ovf), fxg_v3_dot(sj->t[1], e, ovf), 0);
	prepare_angular_row(A, B, sj->t[0], ms, &sj->row[3], ovf);
	prepare_angular_row(A, B, sj->t[1], ms, &sj->row[4], ovf);
	prepare_angular_row(A, B, axa, FXG_ONE, &sj->row[5], ovf);
	if (j->enable_limit) {
		sj->pos0 = angle(ba, bb, j->ref_rotation, axa, ovf);
		sj->row[5].soft_mass = fxg_wmul(sj->row[5].mass, ms, ovf);
	}
}

static void warm_start(const solver_joint *sj, solver_body *A, solver_body *B, const int64_t *P, uint32_t *ovf)
{
	point_warm_start(sj, A, B, P, ovf);
	apply_angular(A, B, &sj->row[3], P[3], ovf);
	apply_angular(A, B, &sj->row[4], P[4], ovf);
	apply_angular(A, B, &sj->row[5], fxg_add64(P[5], fxg_add64(P[6], -P[7], ovf), ovf), ovf);
}

static void solve(solver_joint *sj, fxs_joint *j, solver_body *A, solver_body *B, const fxs_body *ba,
		  const fxs_body *bb, bool use_bias, fix16_t inv_h, uint32_t *ovf)
{
	int64_t *P = j->impulse;
	const soft *s = &sj->head.s;
	if (j->enable_motor)
		solve_motor(A, B, NULL, &sj->row[5], &P[5], j->motor_speed, sj->max_motor_impulse, ovf);
	if (j->enable_limit) {
		fix16_t a = sj->pos0; /* on the poses setup saw, the current ones */
		solve_limit(A, B, NULL, &sj->row[5], 1, &P[6], fxg_sub(a, j->lower, ovf), s, use_bias, inv_h, ovf);
		solve_limit(A, B, NULL, &sj->row[5], -1, &P[7], fxg_sub(j->upper, a, ovf), s, use_bias, inv_h, ovf);
	}
	for (int k = 0; k < 2; ++k) {
		fix16_t C = use_bias ? (k ? sj->ang0.y : sj->ang0.x) : 0;
		solve_equal(A, B, NULL, &sj->row[3 + k], &P[3 + k], C, s, sj->row[3 + k].soft_mass, use_bias, ovf);
	}
	solve_point(sj, A, B, P, sj->c0, use_bias, ovf);
}

const fxs_joint_kind fxs_hinge_kind = {
	.rows = 8,
	.axis = true,
	.axis_b = true,
	.ref = true,
	.motor_row = 5,
	.limit_row = 6,
	.valid = valid,
	.position = position,
	.setup = setup,
	.warm_start = warm_start,
	.solve = solve,
};
