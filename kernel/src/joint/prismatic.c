/* The prismatic joint: b slides along an axis fixed in a. Two linear rows
 * perpendicular to the axis (impulses 0, 1), three angular rows along
 * world x, y, z that hold the relative rotation (2..4), and along the axis
 * a motor (5) and the lower and upper limits (6, 7), which share one linear
 * row. The axis turns with a, so a's lever arm reaches b's anchor; the
 * translation is the anchors' separation along the axis. */
#include "joint/joint_rows.h"
#include "joint/joint_types.h"

fxs_joint_def fxs_default_prismatic_joint_def(void)
{
	fxs_joint_def d = fxs_joint_base_def(FXS_JOINT_PRISMATIC);
	d.local_axis_a = fxg_v3(FXG_ONE, 0, 0);
	d.damping_ratio = FXG_I(5);
	return d;
}

static bool valid(const fxs_joint *j)
{
	return in_range(j->lower, -ANCHOR_MAX, ANCHOR_MAX) && in_range(j->upper, -ANCHOR_MAX, ANCHOR_MAX);
}

static fix16_t position(const fxs_joint *j, const fxs_body *ba, const fxs_body *bb, fxg_vec3 d, uint32_t *ovf)
{
	return fxg_v3_dot(fxg_q_rotate(ba->xf.q, j->local_axis_a, ovf), d, ovf);
}

static void setup(solver_joint *sj, const fxs_joint *j, const solver_body *A, const solver_body *B,
		  const fxs_body *ba, const fxs_body *bb, fxg_vec3 pa, fxg_vec3 pb, uint32_t *ovf)
{
	fix16_t ms = sj->head.s.mass_scale;
	fxg_vec3 axa = fxg_q_rotate(ba->xf.q, j->local_axis_a, ovf);
	sj->axis = axa;
	tangents(axa, sj->t, ovf);
	/* the axis turns with a: a's lever arm reaches b's anchor */
	sj->ra = fxg_v3_add(sj->ra, sj->c0, ovf);
	sj->c0 = fxg_v3_zero(); /* rows measure from a's (moved) lever arm, now at b's anchor */
	prepare_row(A, B, sj->ra, sj->rb, sj->t[0], ms, &sj->row[0], ovf);
	prepare_row(A, B, sj->ra, sj->rb, sj->t[1], ms, &sj->row[1], ovf);
	for (int k = 0; k < 3; ++k)
		prepare_angular_row(A, B, unit_axes[k], ms, &sj->row[2 + k], ovf);
	sj->ang0 = rotation_vector(rotation_error(ba, bb, j->ref_rotation, ovf), ovf);
	prepare_row(A, B, sj->ra, sj->rb, axa, ms, &sj->row[5], ovf);
	/* perpendicular errors and the translation, on these poses */
	fxg_vec3 d = fxg_v3_sub(pb, pa, ovf);
	sj->c0 = fxg_v3(fxg_v3_dot(sj->t[0], d, ovf), fxg_v3_dot(sj->t[1], d, ovf), fxg_v3_dot(axa, d, ovf));
	sj->pos0 = sj->c0.z;
}

static void warm_start(const solver_joint *sj, solver_body *A, solver_body *B, const int64_t *P, uint32_t *ovf)
{
	apply(A, B, sj->t[0], &sj->row[0], P[0], ovf);
	apply(A, B, sj->t[1], &sj->row[1], P[1], ovf);
	for (int k = 0; k < 3; ++k)
		apply_angular(A, B, &sj->row[2 + k], P[2 + k], ovf);
	apply(A, B, sj->axis, &sj->row[5], fxg_add64(P[5], fxg_add64(P[6], -P[7], ovf), ovf), ovf);
}

/* c0 = (t0 . d, t1 . d, axis . d) on the poses setup saw (joint.c): the current ones */
static void solve(solver_joint *sj, fxs_joint *j, solver_body *A, solver_body *B, const fxs_body *ba,
		  const fxs_body *bb, bool use_bias, fix16_t inv_h, uint32_t *ovf)
{
	int64_t *P = j->impulse;
	const soft *s = &sj->head.s;
	if (j->enable_motor)
		solve_motor(A, B, &sj->axis, &sj->row[5], &P[5], j->motor_speed, sj->max_motor_impulse, ovf);
	if (j->enable_limit) {
		fix16_t x = sj->c0.z;
		solve_limit(A, B, &sj->axis, &sj->row[5], 1, &P[6], fxg_sub(x, j->lower, ovf), s, use_bias, inv_h, ovf);
		solve_limit(A, B, &sj->axis, &sj->row[5], -1, &P[7], fxg_sub(j->upper, x, ovf), s, use_bias, inv_h, ovf);
	}
	fxg_vec3 C = sj->ang0;
	solve_equal(A, B, NULL, &sj->row[2], &P[2], C.x, s, sj->row[2].soft_mass, use_bias, ovf);
	solve_equal(A, B, NULL, &sj->row[3], &P[3], C.y, s, sj->row[3].soft_mass, use_bias, ovf);
	solve_equal(A, B, NULL, &sj->row[4], &P[4], C.z, s, sj->row[4].soft_mass, use_bias, ovf);
	for (int k = 0; k < 2; ++k) {
		fix16_t Ck = use_bias ? (k ? sj->c0.y : sj->c0.x) : 0;
		solve_equal(A, B, &sj->t[k], &sj->row[k], &P[k], Ck, s, sj->row[k].soft_mass, use_bias, ovf);
	}
}

const fxs_joint_kind fxs_prismatic_kind = {
	.rows = 8,
	.axis = true,
	.ref = true,
	.motor_row = 5,
	.limit_row = 6,
	.valid = valid,
	.position = position,
	.setup = setup,
	.warm_start = warm_start,
	.solve = solve,
};
