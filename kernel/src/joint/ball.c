/* The ball-and-socket joint: the anchors coincide, three linear rows along
 * world x, y, z (impulses 0..2) solved as one 3x3 block (joint_rows.h's
 * ball part, which the hinge and fixed joints share).
 *
 * These are the wide rows: the ball joints the iterative solver takes in
 * batches (joint_batch.c) or the direct solver takes exactly
 * (solver_direct.c) do not come here; the overflow stage's do. */
#include "joint/joint_rows.h"
#include "joint/joint_types.h"

fxs_joint_def fxs_default_ball_joint_def(void) { return fxs_joint_base_def(FXS_JOINT_BALL); }

static void setup(solver_joint *sj, const fxs_joint *j, const solver_body *A, const solver_body *B,
		  const fxs_body *ba, const fxs_body *bb, fxg_vec3 pa, fxg_vec3 pb, uint32_t *ovf)
{
	prepare_point_rows(sj, A, B, ovf);
	prepare_point_block(sj, A, B, ovf);
}

static void solve(solver_joint *sj, fxs_joint *j, solver_body *A, solver_body *B, const fxs_body *ba,
		  const fxs_body *bb, bool use_bias, fix16_t inv_h, uint32_t *ovf)
{
	solve_point(sj, A, B, j->impulse, sj->c0, use_bias, ovf);
}

const fxs_joint_kind fxs_ball_kind = {
	.rows = 3,
	.setup = setup,
	.warm_start = point_warm_start,
	.solve = solve,
};
