/* The wheel joint, for vehicles: a is the chassis, b the wheel. b's anchor
 * slides along the suspension axis (local_axis_a, fixed in a) with a
 * spring-damper and travel limits; b turns freely about its spin axis
 * (local_spin_axis_a in a's frame, turned about the suspension axis by the
 * steering angle), driven by a motor; the other two rotations are held.
 *
 * Impulses: two linear rows perpendicular to the suspension axis (0, 1);
 * along it the spring (2) and the lower and upper travel limits (3, 4),
 * which share one linear row; two angular rows perpendicular to the steered
 * spin axis that keep a's and b's spin axes parallel (5, 6), as the hinge
 * does; and the spin motor (7). As in the prismatic joint the axis turns
 * with a, so a's lever arm reaches b's anchor; the translation is the
 * anchors' separation along the axis, 0 where the joint was created (the
 * spring's rest). Like the distance joint's, the spring has its own
 * softness and acts in every pass: stiffness m_eff (2 pi spring_hertz)^2,
 * m_eff being the row's effective mass. */
#include "joint/joint_rows.h"
#include "joint/joint_types.h"

#define STEER_MAX 102944 /* pi / 2 in Q16.16, rounded up */

fxs_joint_def fxs_default_wheel_joint_def(void)
{
	fxs_joint_def d = fxs_joint_base_def(FXS_JOINT_WHEEL);
	d.local_axis_a = fxg_v3(0, FXG_ONE, 0);
	d.local_spin_axis_a = fxg_v3(FXG_ONE, 0, 0);
	d.enable_spring = true;
	d.spring_hertz = FXG_I(5);
	d.spring_damping_ratio = FXG_RATIO(7, 10);
	return d;
}

static bool valid(const fxs_joint *j)
{
	return in_range(j->lower, -ANCHOR_MAX, ANCHOR_MAX) && in_range(j->upper, -ANCHOR_MAX, ANCHOR_MAX) &&
	       j->length == 0 && in_range(j->spring_hertz, 0, FXG_I(1000)) &&
	       in_range(j->spring_damping_ratio, 0, FXG_I(1000)) && in_range(j->steering, -STEER_MAX, STEER_MAX);
}

static fix16_t position(const fxs_joint *j, const fxs_body *ba, const fxs_body *bb, fxg_vec3 d, uint32_t *ovf)
{
	return fxg_v3_dot(fxg_q_rotate(ba->xf.q, j->local_axis_a, ovf), d, ovf);
}

/* the spring's softness; no spring (or 0 Hz): no spring impulse */
static void prepare(solver_joint *sj, fxs_joint *j, fix16_t h, uint32_t *ovf)
{
	if (!j->enable_spring || j->spring_hertz == 0) {
		j->impulse[2] = 0;
		return;
	}
	sj->spring = make_soft(j->spring_hertz, j->spring_damping_ratio, h, ovf);
}

/* a's spin axis turned by the steering angle about the suspension axis, in a's frame */
static fxg_vec3 steered_spin_axis(const fxs_joint *j, uint32_t *ovf)
{
	if (j->steering == 0)
		return j->spin_axis_a;
	fxg_angle half = fxg_angle_from_rad(j->steering / 2);
	fix16_t s = fxg_sin(half), c = fxg_cos(half);
	fxg_vec3 u = j->local_axis_a;
	fxg_quat q = fxg_q(fxg_mul(u.x, s, ovf), fxg_mul(u.y, s, ovf), fxg_mul(u.z, s, ovf), c);
	return fxg_q_rotate(q, j->spin_axis_a, ovf);
}

static void setup(solver_joint *sj, const fxs_joint *j, const solver_body *A, const solver_body *B,
		  const fxs_body *ba, const fxs_body *bb, fxg_vec3 pa, fxg_vec3 pb, uint32_t *ovf)
{
	fix16_t ms = sj->head.s.mass_scale;
	fxg_vec3 ax = fxg_q_rotate(ba->xf.q, j->local_axis_a, ovf);
	sj->axis = ax;
	tangents(ax, sj->t, ovf);
	/* the axis turns with a: a's lever arm reaches b's anchor */
	sj->ra = fxg_v3_add(sj->ra, sj->c0, ovf);
	prepare_row(A, B, sj->ra, sj->rb, sj->t[0], ms, &sj->row[0], ovf);
	prepare_row(A, B, sj->ra, sj->rb, sj->t[1], ms, &sj->row[1], ovf);
	prepare_row(A, B, sj->ra, sj->rb, ax, ms, &sj->row[2], ovf);
	if (j->enable_spring && j->spring_hertz > 0)
		sj->spring_mass = fxg_wmul(sj->row[2].mass, sj->spring.mass_scale, ovf);
	/* perpendicular errors and the translation, on these poses */
	fxg_vec3 d = fxg_v3_sub(pb, pa, ovf);
	sj->c0 = fxg_v3(fxg_v3_dot(sj->t[0], d, ovf), fxg_v3_dot(sj->t[1], d, ovf), fxg_v3_dot(ax, d, ovf));
	sj->pos0 = sj->c0.z;
	/* the spin axes: a's (steered) and b's; a x b turns a onto b for small errors */
	fxg_vec3 sa = fxg_q_rotate(ba->xf.q, steered_spin_axis(j, ovf), ovf);
	fxg_vec3 sb = fxg_q_rotate(bb->xf.q, j->spin_axis_b, ovf);
	fxg_vec3 u[2];
	tangents(sa, u, ovf);
	fxg_vec3 e = fxg_v3_cross(sa, sb, ovf);
	sj->ang0 = fxg_v3(fxg_v3_dot(u[0], e, ovf), fxg_v3_dot(u[1], e, ovf), 0);
	prepare_angular_row(A, B, u[0], ms, &sj->row[3], ovf);
	prepare_angular_row(A, B, u[1], ms, &sj->row[4], ovf);
	prepare_angular_row(A, B, sa, FXG_ONE, &sj->row[5], ovf);
}

static void warm_start(const solver_joint *sj, solver_body *A, solver_body *B, const int64_t *P, uint32_t *ovf)
{
	apply(A, B, sj->t[0], &sj->row[0], P[0], ovf);
	apply(A, B, sj->t[1], &sj->row[1], P[1], ovf);
	apply(A, B, sj->axis, &sj->row[2], fxg_add64(P[2], fxg_add64(P[3], -P[4], ovf), ovf), ovf);
	apply_angular(A, B, &sj->row[3], P[5], ovf);
	apply_angular(A, B, &sj->row[4], P[6], ovf);
	apply_angular(A, B, &sj->row[5], P[7], ovf);
}

static void solve(solver_joint *sj, fxs_joint *j, solver_body *A, solver_body *B, const fxs_body *ba,
		  const fxs_body *bb, bool use_bias, fix16_t inv_h, uint32_t *ovf)
{
	int64_t *P = j->impulse;
	const soft *s = &sj->head.s;
	if (j->enable_motor)
		solve_motor(A, B, NULL, &sj->row[5], &P[7], j->motor_speed, sj->max_motor_impulse, ovf);
	fix16_t x = sj->pos0;
	if (j->enable_spring && j->spring_hertz > 0)
		solve_equal(A, B, &sj->axis, &sj->row[2], &P[2], x, &sj->spring, sj->spring_mass, true, ovf);
	if (j->enable_limit) {
		solve_limit(A, B, &sj->axis, &sj->row[2], 1, &P[3], fxg_sub(x, j->lower, ovf), s, use_bias, inv_h, ovf);
		solve_limit(A, B, &sj->axis, &sj->row[2], -1, &P[4], fxg_sub(j->upper, x, ovf), s, use_bias, inv_h, ovf);
	}
	for (int k = 0; k < 2; ++k) {
		fix16_t C = use_bias ? (k ? sj->ang0.y : sj->ang0.x) : 0;
		solve_equal(A, B, NULL, &sj->row[3 + k], &P[5 + k], C, s, sj->row[3 + k].soft_mass, use_bias, ovf);
	}
	for (int k = 0; k < 2; ++k) {
		fix16_t Ck = use_bias ? (k ? sj->c0.y : sj->c0.x) : 0;
		solve_equal(A, B, &sj->t[k], &sj->row[k], &P[k], Ck, s, sj->row[k].soft_mass, use_bias, ovf);
	}
}

const fxs_joint_kind fxs_wheel_kind = {
	.rows = 8,
	.axis = true,
	.spring = true,
	.wheel = true,
	.motor_row = 7,
	.limit_row = 3,
	.valid = valid,
	.position = position,
	.prepare = prepare,
	.setup = setup,
	.warm_start = warm_start,
	.solve = solve,
};
