/* The fixed joint: the ball part (impulses 0..2, joint_rows.h) and three
 * angular rows along world x, y, z (3..5) that hold the relative rotation
 * of the reference pose. Its error is the small-angle rotation vector of
 * rotation_error, measured when the sub-step begins. */
#include "joint/joint_rows.h"
#include "joint/joint_types.h"

fxs_joint_def fxs_default_fixed_joint_def(void)
{
	fxs_joint_def d = fxs_joint_base_def(FXS_JOINT_FIXED);
	d.damping_ratio = FXG_I(5);
	return d;
}

static void setup(solver_joint *sj, const fxs_joint *j, const solver_body *A, const solver_body *B,
		  const fxs_body *ba, const fxs_body *bb, fxg_vec3 pa, fxg_vec3 pb, uint32_t *ovf)
{
	fix16_t ms = sj->head.s.mass_scale;
	prepare_point_rows(sj, A, B, ovf);
	prepare_point_block(sj, A, B, ovf);
	for (int k = 0; k < 3; ++k)
		prepare_angular_row(A, B, unit_axes[k], ms, &sj->row[3 + k], ovf);
	sj->ang0 = rotation_vector(rotation_error(ba, bb, j->ref_rotation, ovf), ovf);
}

static void warm_start(const solver_joint *sj, solver_body *A, solver_body *B, const int64_t *P, uint32_t *ovf)
{
	point_warm_start(sj, A, B, P, ovf);
	for (int k = 0; k < 3; ++k)
		apply_angular(A, B, &sj->row[3 + k], P[3 + k], ovf);
}

static void solve(solver_joint *sj, fxs_joint *j, solver_body *A, solver_body *B, const fxs_body *ba,
		  const fxs_body *bb, bool use_bias, fix16_t inv_h, uint32_t *ovf)
{
	int64_t *P = j->impulse;
	const soft *s = &sj->head.s;
	fxg_vec3 C = sj->ang0;
	solve_equal(A, B, NULL, &sj->row[3], &P[3], C.x, s, sj->row[3].soft_mass, use_bias, ovf);
	solve_equal(A, B, NULL, &sj->row[4], &P[4], C.y, s, sj->row[4].soft_mass, use_bias, ovf);
	solve_equal(A, B, NULL, &sj->row[5], &P[5], C.z, s, sj->row[5].soft_mass, use_bias, ovf);
	solve_point(sj, A, B, P, sj->c0, use_bias, ovf);
}

const fxs_joint_kind fxs_fixed_kind = {
	.rows = 6,
	.ref = true,
	.setup = setup,
	.warm_start = warm_start,
	.solve = solve,
};
