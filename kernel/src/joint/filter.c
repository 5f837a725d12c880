/* The filter joint: no rows, no impulses. The two bodies get no contacts
 * (the contact filter for jointed pairs, joint.c) and nothing else: they
 * do not join one island (island.c) and the solver never sees the joint. */
#include "joint/joint_types.h"

fxs_joint_def fxs_default_filter_joint_def(void) { return fxs_joint_base_def(FXS_JOINT_FILTER); }

/* collide_connected would leave it nothing to do */
static bool valid(const fxs_joint *j) { return !j->collide_connected; }

static void setup(solver_joint *sj, const fxs_joint *j, const solver_body *A, const solver_body *B,
		  const fxs_body *ba, const fxs_body *bb, fxg_vec3 pa, fxg_vec3 pb, uint32_t *ovf)
{
}

static void warm_start(const solver_joint *sj, solver_body *A, solver_body *B, const int64_t *P, uint32_t *ovf) {}

static void solve(solver_joint *sj, fxs_joint *j, solver_body *A, solver_body *B, const fxs_body *ba,
		  const fxs_body *bb, bool use_bias, fix16_t inv_h, uint32_t *ovf)
{
}

const fxs_joint_kind fxs_filter_kind = {
	.rows = 0,
	.valid = valid,
	.setup = setup,
	.warm_start = warm_start,
	.solve = solve,
};
