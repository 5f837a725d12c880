/* Joints, internal: the stored joint (state), the solver hooks, the contact
 * filter for jointed pairs and the state section. */
#ifndef FXS_JOINT_INTERNAL_H
#define FXS_JOINT_INTERNAL_H

#include "world/world.h"
#include "state/serialize.h"
#include "solve/solver.h"
#include "solve/solver_tasks.h"

#define FXS_JOINT_MAX_ROWS 8

typedef struct fxs_joint {
	/* --- state: snapshotted and hashed (state.c, fxs_joint_write) --- */
	uint32_t generation;
	uint8_t alive;
	uint8_t type;
	uint8_t collide_connected;
	uint8_t enable_limit, enable_motor, enable_spring, enable_cone;
	uint32_t a, b; /* body slots, a != b */
	fxg_vec3 local_anchor_a, local_anchor_b;
	/* the axes and the reference rotation, or a motor joint's target: no
	 * type has both (canonicalize, joint.c, clears the parts of the one a
	 * type has not) */
	union {
		struct {
			fxg_vec3 local_axis_a, local_axis_b; /* unit; b's is a's in the reference pose */
			fxg_quat ref_rotation;               /* conj(qa) qb in the reference pose */
		};
		struct {
			fxg_vec3 linear_offset;  /* motor: the target */
			fxg_quat angular_offset; /* motor: unit */
			fix16_t max_force, max_torque, correction;
		};
	};
	fix16_t hertz, damping_ratio;
	fix16_t lower, upper;
	fix16_t motor_speed, max_motor_force;
	fix16_t length, spring_hertz, spring_damping_ratio;
	fix16_t cone_angle;
	fxg_vec3 spin_axis_a, spin_axis_b; /* wheel: unit; b's is a's in the reference pose */
	fix16_t steering;                  /* wheel, rad */
	int64_t impulse[FXS_JOINT_MAX_ROWS]; /* accumulated, Q16.16 N s (N m s for angular rows) */
} fxs_joint;

/* Every joint the solver takes in a step, in solve order (solver_ctx.joints):
 * what the plan, the ball joint batches (joint_batch.h) and the direct
 * solver's islands (solver_direct.c) need of it. Only the joints that are
 * not batched, the wide ones, get their rows too (solver_joint). */
typedef struct solver_joint_head {
	uint32_t index; /* joint slot */
	uint32_t a, b;  /* body slots */
	uint8_t type;
	uint8_t rows;  /* rows with impulses (fxs_joint_row_count) */
	uint8_t stage; /* its stage (stage.h); joints are in stage order */
	bool hot;      /* a ball joint in a batch (joint_batch.h) instead of the wide rows */
	uint32_t wide; /* a wide joint's solver_joint in solver_ctx.joint_rows (fxs_wide_joint) */
	soft s, s_alt; /* the joint's softness, and the other sub-step length's (solver.h) */
} solver_joint_head;

/* A wide joint as the solver sees it for one step, with its rows (joint.c
 * and the type files, joint_types.h; solver_direct.c): its head, copied
 * whole from solver_ctx.joints (fxs_joints_plan), then its rows. */
typedef struct solver_joint {
	solver_joint_head head; /* a copy of its solver_ctx.joints entry */
	fxg_vec3 ra, rb;        /* world lever arms for the linear rows (prismatic: a's includes the separation) */
	fxg_vec3 c0;            /* (pb + rb) - (pa + ra) when the step began */
	/* the rest */
	soft spring;   /* distance spring */
	fxg_vec3 ang0; /* angular error when the step began (world; hinge: along t[0], t[1]) */
	fxg_vec3 axis; /* hinge / prismatic axis, distance direction (world) */
	fxg_vec3 t[2]; /* perpendiculars of the axis */
	fix16_t pos0;  /* hinge angle, prismatic translation, distance length when the step began */
	int64_t max_motor_impulse;
	/* spring and max_motor_impulse for the step's other sub-step length
	 * (solver.h; fxs_joints_swap_softness trades them, and head.s with
	 * head.s_alt) */
	soft spring_alt;
	int64_t max_motor_impulse_alt;
	fxg_sym3w point_inv_k; /* inverse of the ball part's 3x3 effective mass matrix K, Q32.32 */
	fxg_wide spring_mass;  /* distance spring: row 0's mass times the spring's mass scale */
	solver_row row[6];     /* ball/linear rows and angular rows; see row_of */
} solver_joint;

/* the wide joint whose head is solver_ctx.joints[i] (after fxs_joints_plan) */
static inline solver_joint *fxs_wide_joint(const solver_ctx *c, uint32_t i) { return &c->joint_rows[c->joints[i].wide]; }

/* Rows a joint of this type stores impulses for. */
int fxs_joint_row_count(int type);

/* solver hooks (solver.c): bytes of the solver's scratch for the joints'
 * heads, prepare after the contacts, setup, then per sub-step warm start
 * and solve before the contacts */
size_t fxs_joints_scratch_size(const fxs_world *w);
void fxs_joints_prepare(solver_ctx *c);
/* after fxs_direct_prepare: which ball joints the direct solver takes, the
 * hot form for the other ball joints, and the rows of the rest (in the
 * world's joint_scratch); false when out of memory */
bool fxs_joints_plan(solver_ctx *c);
/* after the sub-steps: the hot joints' impulses back into the joints */
void fxs_joints_store(solver_ctx *c);
/* the rows from the bodies' current poses (when the step begins, first,
 * then after every integrate_positions); the warm start applies the
 * impulses */
void fxs_joints_setup(solver_ctx *c, bool first);
void fxs_joints_warm_start(solver_ctx *c);
/* the other sub-step length's softness becomes the joints' (solver.h) */
void fxs_joints_swap_softness(solver_ctx *c);
void fxs_joints_solve(solver_ctx *c, bool use_bias);

/* body.c: destroy every joint of body slot s */
void fxs_joints_remove_body(fxs_world *w, uint32_t s);

/* contact.c: the sorted (min, max) body pairs that must not collide; valid
 * until the joints change. NULL with *count 0 when there are none. */
const uint64_t *fxs_joints_filter(fxs_world *w, uint32_t *count);

/* state.c: the joint section (the slot count, then every slot's record);
 * the records of slots [first, end) alone, each at most
 * FXS_STATE_JOINT_RECORD_MAX bytes and depending on its joint alone (hash.c
 * writes blocks of them apart, in parallel) */
void fxs_joints_write(const fxs_world *w, fxs_writer *wr);
void fxs_joints_write_records(const fxs_world *w, fxs_writer *wr, uint32_t first, uint32_t end);
bool fxs_joints_read(fxs_world *w, fxs_reader *r);

#endif
