/* The distance joint: one linear row along the anchors' line (impulse 0)
 * keeps their distance at the rest length, as a rod (the joint's softness)
 * or a spring (its own softness, in every pass: it is physics, not error
 * correction); min and max length are one-sided rows on the same line
 * (1, 2). The length is measured by the setup (joint.c), on the poses the
 * pass works on. */
#include "joint/joint_rows.h"
#include "joint/joint_types.h"

fxs_joint_def fxs_default_distance_joint_def(void) { return fxs_joint_base_def(FXS_JOINT_DISTANCE); }

/* a rest length < 0: the anchors' distance at creation */
static void init(fxs_joint *j, const fxs_joint_def *def, const fxs_body *ba, const fxs_body *bb, uint32_t *ovf)
{
	j->length = def->length;
	if (j->length < 0 && vec_in_range(j->local_anchor_a, ANCHOR_MAX) && vec_in_range(j->local_anchor_b, ANCHOR_MAX))
		j->length = fxg_v3_len(separation(j, ba, bb, ovf), ovf);
}

static bool valid(const fxs_joint *j)
{
	return in_range(j->lower, 0, ANCHOR_MAX) && in_range(j->upper, 0, ANCHOR_MAX) && in_range(j->length, 0, ANCHOR_MAX) &&
		in_range(j->spring_hertz, 0, FXG_I(1000)) && in_range(j->spring_damping_ratio, 0, FXG_I(1000));
}

static fix16_t position(const fxs_joint *j, const fxs_body *ba, const fxs_body *bb, fxg_vec3 d, uint32_t *ovf)
{
	return fxg_v3_len(d, ovf);
}

/* the spring's softness; a spring of 0 Hz holds no impulse */
static void prepare(solver_joint *sj, fxs_joint *j, fix16_t h, uint32_t *ovf)
{
	if (!j->enable_spring)
		return;
	sj->spring = make_soft(j->spring_hertz, j->spring_damping_ratio, h, ovf);
	if (j->spring_hertz == 0)
		j->impulse[0] = 0;
}

static void setup(solver_joint *sj, const fxs_joint *j, const solver_body *A, const solver_body *B,
		  const fxs_body *ba, const fxs_body *bb, fxg_vec3 pa, fxg_vec3 pb, uint32_t *ovf)
{
	fix16_t len;
	sj->axis = fxg_v3_normalize(sj->c0, &len, ovf);
	sj->pos0 = len;
	prepare_row(A, B, sj->ra, sj->rb, sj->axis, sj->head.s.mass_scale, &sj->row[0], ovf);
	if (j->enable_spring)
		sj->spring_mass = fxg_wmul(sj->row[0].mass, sj->spring.mass_scale, ovf);
}

static void warm_start(const solver_joint *sj, solver_body *A, solver_body *B, const int64_t *P, uint32_t *ovf)
{
	apply(A, B, sj->axis, &sj->row[0], fxg_add64(P[0], fxg_add64(P[1], -P[2], ovf), ovf), ovf);
}

static void solve(solver_joint *sj, fxs_joint *j, solver_body *A, solver_body *B, const fxs_body *ba,
		  const fxs_body *bb, bool use_bias, fix16_t inv_h, uint32_t *ovf)
{
	int64_t *P = j->impulse;
	const soft *s = &sj->head.s;
	fix16_t len = sj->pos0;
	if (j->enable_spring) {
		if (j->spring_hertz > 0)
			solve_equal(A, B, &sj->axis, &sj->row[0], &P[0], fxg_sub(len, j->length, ovf), &sj->spring,
				    sj->spring_mass, true, ovf);
	} else {
		solve_equal(A, B, &sj->axis, &sj->row[0], &P[0], fxg_sub(len, j->length, ovf), s, sj->row[0].soft_mass,
			    use_bias, ovf);
	}
	if (j->enable_limit) {
		solve_limit(A, B, &sj->axis, &sj->row[0], 1, &P[1], fxg_sub(len, j->lower, ovf), s, use_bias, inv_h, ovf);
		solve_limit(A, B, &sj->axis, &sj->row[0], -1, &P[2], fxg_sub(j->upper, len, ovf), s, use_bias, inv_h, ovf);
	}
}

const fxs_joint_kind fxs_distance_kind = {
	.rows = 3,
	.spring = true,
	.limit_row = 1,
	.init = init,
	.valid = valid,
	.position = position,
	.prepare = prepare,
	.setup = setup,
	.warm_start = warm_start,
	.solve = solve,
};
