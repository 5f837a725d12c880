/* Ball joints the iterative solver takes, in batches of eight lanes.
 *
 * As the contacts (contact_batch.h): the ball joints of one stage (no
 * dynamic body twice in a stage) are packed in solve order, eight to a
 * batch, field by field, so that a batch's lanes can be solved at once with
 * the bits of solving them one by one; a stage's last batch is padded with
 * empty lanes (the spare zero body, all zero: every update is zero). The
 * overflow stage's ball joints are not batched (they take the wide rows,
 * joint.c).
 *
 * At the step's start and after every integrate_positions, setup (the lever
 * arms from each body's rotation, then the hot form of solver.h: N = I^-1
 * [r]x per body and K^-1 of the 3x3 block by its adjugate with one 64-bit
 * division); every sub-step the warm start, then the biased and the relax
 * passes. N and K^-1 depend on the lever arms and the step's inverse
 * masses and inertias alone, so after the first setup of a step a batch
 * whose lanes' arms all stayed keeps them (the same bits, made once):
 * bodies that do not turn (joint_grid's hanging spheres) cost the arms and
 * the separation only. They cannot be kept for a step while the arms turn:
 * K of a light bob on a long arm is stiff across the arm and soft along it
 * (a ratio of a thousand for a 0.1 m ball on 2 m), and the step's K^-1
 * with arms turned by a twentieth of a radian made a 2 m ball-joint
 * pendulum lose a quarter of its swing in ten periods.
 *
 * Each pass writes its own batches and reads the bodies (the setup), or
 * moves the disjoint bodies of one stage's batches (the warm start and the
 * solve): with workers, blocks of batches run at once (joint.c).
 *
 * The kernels compute the same integer formulas: portable, lane by
 * lane (joint_batch.c), and the vector kernels written once
 * (joint_batch_vector.h) and built for AVX2, AVX-512, NEON and wasm SIMD128
 * into simd/kernels.h's tables (their setup makes the rotations of unit
 * quaternions itself); tests/test_batch.c compares them. The setup's rare branches (a response or an inverse beyond the
 * stated ranges, where a shift would leave [1, 62]) are recomputed lane by
 * lane by the portable code in all.
 *
 * Bounds (besides solver.h's mantissas): a block impulse is saturated to
 * int32 before it is softened, and the accumulated impulse is clamped to
 * FXS_BALL_IMPULSE_MAX (2^30 N s), both counted, so that every product is
 * exact in int64. */
#ifndef FXS_JOINT_BATCH_H
#define FXS_JOINT_BATCH_H

#include "joint/joint.h"

#define FXS_BALL_LANES 8
#define FXS_BALL_IMPULSE_MAX ((int64_t)1 << 46)

typedef struct ball_batch {
	uint32_t a[FXS_BALL_LANES], b[FXS_BALL_LANES]; /* solver body slots */
	uint32_t joint[FXS_BALL_LANES];                /* solver joint (its head: the joint's slot), or FXS_BALL_EMPTY */
	int32_t bias_rate[FXS_BALL_LANES], mass_scale[FXS_BALL_LANES], impulse_scale[FXS_BALL_LANES];
	/* the bodies' scaled inverse masses and their shifts (solver_body's im,
	 * sm), copied for the vector kernel's passes */
	int32_t ima[FXS_BALL_LANES], imb[FXS_BALL_LANES];
	uint8_t sma[FXS_BALL_LANES], smb[FXS_BALL_LANES];
	/* this sub-step's: lever arms, separation (b's anchor - a's), responses */
	int32_t ra[3][FXS_BALL_LANES], rb[3][FXS_BALL_LANES], c0[3][FXS_BALL_LANES];
	int32_t na[3][3][FXS_BALL_LANES], nb[3][3][FXS_BALL_LANES]; /* [j][k]: I^-1 [r]x, row j, column k */
	int32_t kinv[6][FXS_BALL_LANES];                            /* xx yy zz xy xz yz */
	uint8_t sna[FXS_BALL_LANES], snb[FXS_BALL_LANES], sk[FXS_BALL_LANES];
	int64_t P[3][FXS_BALL_LANES]; /* accumulated impulse (copied in and out of the joints) */
	int32_t local_a[3][FXS_BALL_LANES], local_b[3][FXS_BALL_LANES];
} ball_batch;

#define FXS_BALL_EMPTY UINT32_MAX

/* the orientations whose rotation the vector kernels make themselves:
 * components within 2^17 (every unit quaternion; lanes_common.h's
 * rotation_of) */
#define FXS_BALL_QUAT_MAX ((int64_t)1 << 17)

/* Each lane's softness again from its joint's (after the sub-step length
 * changed: solver.h). */
void fxs_ball_batches_softness(solver_ctx *c);

/* After fxs_joints_plan has marked the hot joints (hot of them): pack them
 * into batches (c->ball_batches, c->ball_batch_count, per stage
 * c->ball_stage_end); false when out of memory. */
bool fxs_ball_batches_build(solver_ctx *c, uint32_t hot);

/* The rotations of the bodies in solver body slots [first, end) that the
 * batches take (solver_body.rot), made again where the orientation
 * changed; with vector kernels, only those the kernels do not make
 * themselves (quaternions out of their range). Counts into *c->ovf: with
 * workers, c is a block's copy (solver_tasks.h). */
void fxs_ball_rotations(solver_ctx *c, uint32_t first, uint32_t end);

/* Batches [first, end): the setup, from the bodies' current poses (all:
 * at the step's start; then after each integrate_positions, the arms and
 * separations, and the rest for the batches whose arms changed: the relax
 * pass then works on the moved poses); per
 * sub-step the warm start; a pass. Each returns the saturations it
 * counted (it touches no shared count: blocks of batches run at once). */
uint32_t fxs_ball_setup(solver_ctx *c, uint32_t first, uint32_t end, bool all);
uint32_t fxs_ball_warm_start(solver_ctx *c, uint32_t first, uint32_t end);
uint32_t fxs_ball_solve(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias);
/* the impulses back into the joints, after the sub-steps */
void fxs_ball_store(solver_ctx *c);

/* the rotation of body slot s at its current pose (fxs_ball_rotations) */
static inline const fxg_mat3 *fxs_ball_body_rotation(const solver_ctx *c, uint32_t s) { return &c->bodies[s].rot; }
/* the setup of lane l alone, portable (the vector kernel's rare lanes) */
void fxs_ball_setup_lane(solver_ctx *c, ball_batch *bt, int l, uint32_t *ovf);

#endif
