/* The joint types as joint.c sees them, private to kernel/src/joint: each
 * type's file (ball.c, hinge.c, fixed.c, distance.c, prismatic.c,
 * spherical.c, filter.c, wheel.c, motor.c) fills one
 * fxs_joint_kind, and joint.c looks the kind up by type. The shared code
 * (slots, create, the state section, the solver loops) then asks the kind
 * which parts a joint stores and calls it for what only the type knows,
 * so adding a type is a file and a line in joint.c's table. */
#ifndef FXS_JOINT_TYPES_H
#define FXS_JOINT_TYPES_H

#include "joint/joint.h"

#define ANCHOR_MAX FXG_I(1000)
#define SPEED_MAX FXG_I(1000)
#define PI_RAW 205887 /* pi in Q16.16, rounded up */

static inline bool in_range(fix16_t v, fix16_t lo, fix16_t hi) { return v >= lo && v <= hi; }
static inline bool vec_in_range(fxg_vec3 v, fix16_t m)
{
	return in_range(v.x, -m, m) && in_range(v.y, -m, m) && in_range(v.z, -m, m);
}

typedef struct fxs_joint_kind {
	/* the parts its state has (the rest stays zero: the state is canonical) */
	uint8_t rows;      /* accumulated impulses */
	bool axis;         /* an axis in a's frame (local_axis_a) */
	bool axis_b;       /* and in b's frame (local_axis_b) */
	bool ref;          /* the reference rotation */
	bool spring;       /* a rest length and a spring */
	uint8_t motor_row; /* the motor's impulse; 0: no motor */
	uint8_t limit_row; /* the lower limit's impulse, the upper's next; 0: no limit */
	uint8_t cone_row;  /* the swing cone's impulse; 0: no cone */
	bool wheel;        /* spin axes in a's and b's frames, and a steering angle */
	bool target;       /* a motor joint's target and bounds */
	/* fxs_joint_create: the type's own fields from the definition; NULL: none */
	void (*init)(fxs_joint *j, const fxs_joint_def *def, const fxs_body *ba, const fxs_body *bb, uint32_t *ovf);
	/* the type's own ranges, beyond the checks every joint gets; NULL: none */
	bool (*valid)(const fxs_joint *j);
	/* fxs_joint_get_position, d being b's anchor minus a's; NULL: 0 */
	fix16_t (*position)(const fxs_joint *j, const fxs_body *ba, const fxs_body *bb, fxg_vec3 d, uint32_t *ovf);
	/* fxs_joint_get_swing_angle; NULL: 0 */
	fix16_t (*swing)(const fxs_joint *j, const fxs_body *ba, const fxs_body *bb, uint32_t *ovf);
	/* fxs_joints_prepare, once a step after the joint's softness; NULL: none */
	void (*prepare)(solver_joint *sj, fxs_joint *j, fix16_t h, uint32_t *ovf);
	/* every sub-step: the rows from the current poses, after joint.c set
	 * ra, rb and c0 from the anchors pa and pb */
	void (*setup)(solver_joint *sj, const fxs_joint *j, const solver_body *A, const solver_body *B,
		      const fxs_body *ba, const fxs_body *bb, fxg_vec3 pa, fxg_vec3 pb, uint32_t *ovf);
	/* every sub-step after setup: apply the accumulated impulses P */
	void (*warm_start)(const solver_joint *sj, solver_body *A, solver_body *B, const int64_t *P, uint32_t *ovf);
	/* every iteration: the rows, with bias (the position error) or without */
	void (*solve)(solver_joint *sj, fxs_joint *j, solver_body *A, solver_body *B, const fxs_body *ba,
		      const fxs_body *bb, bool use_bias, fix16_t inv_h, uint32_t *ovf);
} fxs_joint_kind;

extern const fxs_joint_kind fxs_ball_kind;      /* ball.c */
extern const fxs_joint_kind fxs_hinge_kind;     /* hinge.c */
extern const fxs_joint_kind fxs_fixed_kind;     /* fixed.c */
extern const fxs_joint_kind fxs_distance_kind;  /* distance.c */
extern const fxs_joint_kind fxs_prismatic_kind; /* prismatic.c */
extern const fxs_joint_kind fxs_spherical_kind; /* spherical.c */
extern const fxs_joint_kind fxs_filter_kind;    /* filter.c */
extern const fxs_joint_kind fxs_wheel_kind;     /* wheel.c */
extern const fxs_joint_kind fxs_motor_kind;     /* motor.c */

/* the definition every type's default starts from (joint.c) */
fxs_joint_def fxs_joint_base_def(int type);

#endif
