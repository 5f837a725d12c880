/* The spherical joint, for ragdolls: the ball part (impulses 0..2,
 * joint_rows.h) and two limits on the relative rotation, split into a
 * swing and a twist about the twist axis (local_axis_a in a's frame,
 * local_axis_b in b's: the same axis in the reference pose).
 *
 * The swing is the angle between a's and b's twist axes, ta and tb; the
 * cone keeps it at most cone_angle with one one-sided angular row about
 * ta x tb (impulse 3). The twist is the part of the rotation error about
 * ta (the hinge's angle, joint_rows.h's rotation_error split as swing *
 * twist); one angular row carries the twist motor (4) and the lower and
 * upper twist limits (5, 6). That row's Jacobian is -ta for a and tb for
 * b: turning b about tb or a about ta changes the twist by exactly the
 * turn and leaves the swing alone. */
#include "joint/joint_rows.h"
#include "joint/joint_types.h"

fxs_joint_def fxs_default_spherical_joint_def(void) { return fxs_joint_base_def(FXS_JOINT_SPHERICAL); }

static bool valid(const fxs_joint *j)
{
	return in_range(j->lower, -PI_RAW, PI_RAW) && in_range(j->upper, -PI_RAW, PI_RAW) &&
	       in_range(j->cone_angle, 0, PI_RAW);
}

static fxg_vec3 twist_axis_b(const fxs_joint *j, const fxs_body *bb, uint32_t *ovf)
{
	return fxg_q_rotate(bb->xf.q, j->local_axis_b, ovf);
}

/* the twist about ta (world), in rad */
static fix16_t twist(const fxs_joint *j, const fxs_body *ba, const fxs_body *bb, fxg_vec3 ta, uint32_t *ovf)
{
	fxg_quat q = rotation_error(ba, bb, j->ref_rotation, ovf);
	return half_angle_to_rad(fxg_v3_dot(ta, fxg_v3(q.x, q.y, q.z), ovf), q.w);
}

/* the swing: the angle between ta and tb in rad, [0, pi], and the unit
 * axis that turns ta towards tb (a perpendicular of ta when they are
 * parallel) */
static fix16_t swing(fxg_vec3 ta, fxg_vec3 tb, fxg_vec3 *axis, uint32_t *ovf)
{
	fix16_t s;
	fxg_vec3 n = fxg_v3_normalize(fxg_v3_cross(ta, tb, ovf), &s, ovf);
	if (axis) {
		if (fxg_v3_eq(n, fxg_v3_zero())) {
			fxg_vec3 t[2];
			tangents(ta, t, ovf);
			n = t[0];
		}
		*axis = n;
	}
	return fxg_angle_to_rad(fxg_atan2(s, fxg_v3_dot(ta, tb, ovf)));
}

static fix16_t position(const fxs_joint *j, const fxs_body *ba, const fxs_body *bb, fxg_vec3 d, uint32_t *ovf)
{
	return twist(j, ba, bb, fxg_q_rotate(ba->xf.q, j->local_axis_a, ovf), ovf);
}

static fix16_t swing_angle(const fxs_joint *j, const fxs_body *ba, const fxs_body *bb, uint32_t *ovf)
{
	return swing(fxg_q_rotate(ba->xf.q, j->local_axis_a, ovf), twist_axis_b(j, bb, ovf), NULL, ovf);
}

/* the twist row: rxa = ta, rxb = tb */
static void prepare_twist_row(const solver_body *A, const solver_body *B, fxg_vec3 ta, fxg_vec3 tb, fix16_t mass_scale,
			      solver_row *r, uint32_t *ovf)
{
	r->rxa = ta;
	r->rxb = tb;
	wvec3 ia = sym_mul(&A->inv_i, ta, ovf), ib = sym_mul(&B->inv_i, tb, ovf);
	r->ia[0] = ia.x, r->ia[1] = ia.y, r->ia[2] = ia.z;
	r->ib[0] = ib.x, r->ib[1] = ib.y, r->ib[2] = ib.z;
	fxg_wide k = fxg_add64(wdot(ia, ta, ovf), wdot(ib, tb, ovf), ovf);
	r->mass = k > 0 ? fxg_wide_recip(k, ovf) : 0;
	r->soft_mass = fxg_wmul(r->mass, mass_scale, ovf);
}

static void setup(solver_joint *sj, const fxs_joint *j, const solver_body *A, const solver_body *B,
		  const fxs_body *ba, const fxs_body *bb, fxg_vec3 pa, fxg_vec3 pb, uint32_t *ovf)
{
	fix16_t ms = sj->head.s.mass_scale;
	prepare_point_rows(sj, A, B, ovf);
	prepare_point_block(sj, A, B, ovf);
	fxg_vec3 ta = fxg_q_rotate(ba->xf.q, j->local_axis_a, ovf);
	fxg_vec3 tb = twist_axis_b(j, bb, ovf);
	sj->t[0] = ta;
	sj->t[1] = tb;
	if (j->enable_cone) {
		sj->ang0.x = swing(ta, tb, &sj->axis, ovf);
		prepare_angular_row(A, B, sj->axis, ms, &sj->row[3], ovf);
	}
	if (j->enable_limit || j->enable_motor) {
		prepare_twist_row(A, B, ta, tb, ms, &sj->row[4], ovf);
		sj->pos0 = twist(j, ba, bb, ta, ovf);
	}
}

static void warm_start(const solver_joint *sj, solver_body *A, solver_body *B, const int64_t *P, uint32_t *ovf)
{
	point_warm_start(sj, A, B, P, ovf);
	apply_angular(A, B, &sj->row[3], -P[3], ovf); /* the cone pushes against the swing */
	apply_angular(A, B, &sj->row[4], fxg_add64(P[4], fxg_add64(P[5], -P[6], ovf), ovf), ovf);
}

static void solve(solver_joint *sj, fxs_joint *j, solver_body *A, solver_body *B, const fxs_body *ba,
		  const fxs_body *bb, bool use_bias, fix16_t inv_h, uint32_t *ovf)
{
	int64_t *P = j->impulse;
	const soft *s = &sj->head.s;
	if (j->enable_motor)
		solve_motor(A, B, NULL, &sj->row[4], &P[4], j->motor_speed, sj->max_motor_impulse, ovf);
	if (j->enable_limit) {
		fix16_t a = sj->pos0; /* on the poses setup saw, the current ones */
		solve_limit(A, B, NULL, &sj->row[4], 1, &P[5], fxg_sub(a, j->lower, ovf), s, use_bias, inv_h, ovf);
		solve_limit(A, B, NULL, &sj->row[4], -1, &P[6], fxg_sub(j->upper, a, ovf), s, use_bias, inv_h, ovf);
	}
	/* the swing grows along the row's axis: the cone is its upper limit */
	if (j->enable_cone)
		solve_limit(A, B, NULL, &sj->row[3], -1, &P[3], fxg_sub(j->cone_angle, sj->ang0.x, ovf), s, use_bias, inv_h,
			    ovf);
	solve_point(sj, A, B, P, sj->c0, use_bias, ovf);
}

const fxs_joint_kind fxs_spherical_kind = {
	.rows = 7,
	.axis = true,
	.axis_b = true,
	.ref = true,
	.motor_row = 4,
	.limit_row = 5,
	.cone_row = 3,
	.valid = valid,
	.position = position,
	.swing = swing_angle,
	.setup = setup,
	.warm_start = warm_start,
	.solve = solve,
};
