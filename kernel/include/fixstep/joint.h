/* fixstep joints: ball-and-socket, hinge, fixed, distance, prismatic,
 * spherical (ball with swing cone and twist limits), filter, wheel and motor.
 *
 * A joint connects two bodies at anchors given in each body's local frame
 * (relative to its centre of mass). Joints are soft constraints in impulse
 * form (Box2D v3's soft step): `hertz` and `damping_ratio` set how stiffly
 * the position error is removed; the accumulated impulses warm-start the
 * next step and are part of the state (hash and snapshots).
 *
 * Joints live in slots like bodies (lowest free slot first), and their ids
 * carry the slot's generation. Destroying a body destroys its joints.
 * Angles and limits are measured from the pose the bodies had when the joint
 * was created (the reference pose). */
#ifndef FIXSTEP_JOINT_H
#define FIXSTEP_JOINT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif
FXG_EXPORT_BEGIN

/* A joint handle: slot index + 1 (0 is the null id) and the slot's generation. */
typedef struct fxs_joint_id {
	uint32_t index1;
	uint32_t generation;
} fxs_joint_id;

static const fxs_joint_id fxs_null_joint = { 0, 0 };

typedef enum fxs_joint_type {
	FXS_JOINT_BALL = 0,      /* anchors coincide (3 linear rows) */
	FXS_JOINT_HINGE = 1,     /* ball + the axes stay aligned (2 angular rows); limit, motor */
	FXS_JOINT_FIXED = 2,     /* ball + the relative rotation stays (3 angular rows) */
	FXS_JOINT_DISTANCE = 3,  /* anchors keep their distance (1 row); spring, min/max */
	FXS_JOINT_PRISMATIC = 4, /* slides along an axis (2 linear + 3 angular rows); limit, motor */
	FXS_JOINT_SPHERICAL = 5, /* ball + a swing cone about the twist axis, twist limit and motor (ragdolls) */
	FXS_JOINT_FILTER = 6,    /* no rows: the two bodies only stop colliding (collide_connected is false) */
	FXS_JOINT_WHEEL = 7,     /* suspension along an axis (spring, limits), spin (motor), steering (vehicles) */
	FXS_JOINT_MOTOR = 8,     /* drives b towards a target pose relative to a with bounded force and torque */
	FXS_JOINT_TYPE_COUNT = 9
} fxs_joint_type;

/* One definition struct for every type; fields a type does not use are
 * ignored (and not stored). Start from fxs_default_<type>_joint_def(). */
typedef struct fxs_joint_def {
	int32_t type;               /* fxs_joint_type */
	fxs_body_id body_a, body_b; /* two different valid bodies */
	fxg_vec3 local_anchor_a;    /* m, in body a's frame (|components| <= 1000) */
	fxg_vec3 local_anchor_b;    /* m, in body b's frame */
	fxg_vec3 local_axis_a;      /* hinge / prismatic / spherical twist / wheel suspension axis in body a's frame
				     * (normalised; default +z / +x / +z / +y) */
	bool collide_connected;     /* default false: the two bodies get no contacts */
	fix16_t hertz;              /* constraint stiffness, default 60 (capped at a quarter of the sub-step rate) */
	fix16_t damping_ratio;      /* default 2 (ball, hinge, distance), 5 (fixed, prismatic) */
	/* hinge and spherical twist (rad, in [-pi, pi]), prismatic and wheel suspension (m), distance (m, min/max length) */
	bool enable_limit;
	fix16_t lower, upper; /* lower <= upper */
	/* hinge, spherical twist and wheel spin (rad/s, N m) and prismatic (m/s, N) */
	bool enable_motor;
	fix16_t motor_speed;
	fix16_t max_motor_force; /* >= 0: torque for a hinge, force for a prismatic joint */
	/* distance */
	fix16_t length;       /* rest length, m; < 0 (default): the anchors' distance at creation */
	/* distance, and wheel suspension (rest: where the joint was created) */
	bool enable_spring;   /* soft length: a spring-damper instead of a rod */
	fix16_t spring_hertz; /* Hz, 0: no spring force (free between min and max) */
	fix16_t spring_damping_ratio;
	/* spherical: b's twist axis stays within cone_angle (rad, in [0, pi])
	 * of a's (local_axis_a in a's frame, and in b's frame where it was in
	 * the reference pose) */
	bool enable_cone;
	fix16_t cone_angle;
	/* wheel: the spin axis in a's frame at steering 0 (default +x), and the
	 * steering angle about the suspension axis (rad, within +-pi/2) */
	fxg_vec3 local_spin_axis_a;
	fix16_t steering_angle;
	/* motor: the target, b's anchor at a's plus linear_offset (m, in a's
	 * frame, within 1000) and b's rotation qa angular_offset (normalised,
	 * default identity); max_motor_force (N, default 1000) and
	 * max_motor_torque (N m, default 1000) bound it, each in [0, 30000];
	 * correction_factor in [0, 1] (default 0.3): the share of the error
	 * the motor asks to remove per sub-step */
	fxg_vec3 linear_offset;
	fxg_quat angular_offset;
	fix16_t max_motor_torque;
	fix16_t correction_factor;
} fxs_joint_def;

fxs_joint_def fxs_default_ball_joint_def(void);
fxs_joint_def fxs_default_hinge_joint_def(void);
fxs_joint_def fxs_default_fixed_joint_def(void);
fxs_joint_def fxs_default_distance_joint_def(void);
fxs_joint_def fxs_default_prismatic_joint_def(void);
fxs_joint_def fxs_default_spherical_joint_def(void);
fxs_joint_def fxs_default_filter_joint_def(void);
fxs_joint_def fxs_default_wheel_joint_def(void);
fxs_joint_def fxs_default_motor_joint_def(void);

/* The null id on a bad definition (invalid bodies, same body twice, numbers
 * out of range) or out of memory. Wakes both bodies. */
fxs_joint_id fxs_joint_create(fxs_world *w, const fxs_joint_def *def);
bool fxs_joint_destroy(fxs_world *w, fxs_joint_id id);
bool fxs_joint_is_valid(const fxs_world *w, fxs_joint_id id);
uint32_t fxs_world_joint_count(const fxs_world *w);
/* Joint slots: slot i holds a joint when fxs_world_joint_at returns a valid id. */
uint32_t fxs_world_joint_slot_count(const fxs_world *w);
fxs_joint_id fxs_world_joint_at(const fxs_world *w, uint32_t slot);

fxs_joint_type fxs_joint_get_type(const fxs_world *w, fxs_joint_id id);
fxs_body_id fxs_joint_get_body_a(const fxs_world *w, fxs_joint_id id);
fxs_body_id fxs_joint_get_body_b(const fxs_world *w, fxs_joint_id id);
/* World positions of the two anchors (equal when a ball joint holds exactly). */
fxg_vec3 fxs_joint_get_anchor_a(const fxs_world *w, fxs_joint_id id);
fxg_vec3 fxs_joint_get_anchor_b(const fxs_world *w, fxs_joint_id id);
/* Hinge angle in rad (in (-pi, pi]), prismatic and wheel suspension
 * translation in m, distance length in m, spherical twist angle in rad (about a's twist axis, in
 * (-pi, pi]), from the current poses; 0 for the other types. */
fix16_t fxs_joint_get_position(const fxs_world *w, fxs_joint_id id);
/* Spherical: the swing, the angle in rad (in [0, pi]) between a's and b's
 * twist axes, from the current poses; 0 for the other types. */
fix16_t fxs_joint_get_swing_angle(const fxs_world *w, fxs_joint_id id);
void fxs_joint_set_motor(fxs_world *w, fxs_joint_id id, bool enable, fix16_t speed, fix16_t max_force);
/* Wheel: the steering angle (rad, within +-pi/2) from the next step on.
 * FXS_ERR_INVALID_ID for a stale id or a joint that is not a wheel,
 * FXS_ERR_INVALID_ARGUMENT for an angle out of range (nothing changes). */
fxs_result fxs_joint_set_steering(fxs_world *w, fxs_joint_id id, fix16_t angle);
/* Motor: a new target from the next step on (the offsets as in the
 * definition). FXS_ERR_INVALID_ID for a stale id or a joint that is not a
 * motor joint, FXS_ERR_INVALID_ARGUMENT for an offset beyond 1000 m or a
 * zero rotation (nothing changes). */
fxs_result fxs_joint_set_motor_target(fxs_world *w, fxs_joint_id id, fxg_vec3 linear_offset, fxg_quat angular_offset);

FXG_EXPORT_END
#ifdef __cplusplus
}
#endif

#endif
