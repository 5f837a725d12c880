/* The API-call log (docs/replay-format.md, "Call records"): when a replay
 * writer in CALLS mode switches it on, every mutating public function
 * appends its op code and its arguments, canonical and little-endian, so
 * that the same calls can be made on another machine's world. The log is
 * no part of the world's state: not hashed, not in snapshots, kept by a
 * restore. Off (the default), a hook costs one predictable branch. */
#ifndef FXS_CALL_LOG_H
#define FXS_CALL_LOG_H

#include "world/world.h"

#include <stdarg.h>

typedef struct fxs_call_log {
	uint8_t *buf; /* the calls since the last drain */
	size_t len, cap;
	uint32_t count; /* calls in buf */
	uint32_t mute;  /* > 0: inside a public function that calls another one */
	bool failed;    /* out of memory: the writer reports it */
} fxs_call_log;

/* Op codes: stable numbers of the file format (never reused). */
enum fxs_call_op {
	FXS_OP_WORLD_SET_GRAVITY = 1,
	FXS_OP_WORLD_SET_CONTACT_TUNING,
	FXS_OP_WORLD_SET_RESTITUTION_THRESHOLD,
	FXS_OP_WORLD_SET_HIT_EVENT_THRESHOLD,
	FXS_OP_WORLD_ENABLE_SLEEPING,
	FXS_OP_BODY_CREATE,
	FXS_OP_BODY_DESTROY,
	FXS_OP_BODY_SET_TRANSFORM,
	FXS_OP_BODY_SET_LINEAR_VELOCITY,
	FXS_OP_BODY_SET_ANGULAR_VELOCITY,
	FXS_OP_BODY_APPLY_FORCE,
	FXS_OP_BODY_APPLY_FORCE_TO_CENTER,
	FXS_OP_BODY_APPLY_TORQUE,
	FXS_OP_BODY_APPLY_LINEAR_IMPULSE,
	FXS_OP_BODY_APPLY_ANGULAR_IMPULSE,
	FXS_OP_BODY_SET_USER_DATA,
	FXS_OP_BODY_SET_AWAKE,
	FXS_OP_BODY_DISABLE,
	FXS_OP_BODY_ENABLE,
	FXS_OP_BODY_SET_TYPE,
	FXS_OP_BODY_SET_FRICTION,
	FXS_OP_BODY_SET_RESTITUTION,
	FXS_OP_BODY_SET_DENSITY,
	FXS_OP_BODY_SET_MASS_DATA,
	FXS_OP_BODY_SET_GRAVITY_SCALE,
	FXS_OP_BODY_SET_DAMPING,
	FXS_OP_BODY_SET_MOTION_LOCKS,
	FXS_OP_BODY_SET_FILTER,
	FXS_OP_BODY_ENABLE_CONTACT_EVENTS,
	FXS_OP_BODY_ENABLE_HIT_EVENTS,
	FXS_OP_BODY_ENABLE_SENSOR_EVENTS,
	FXS_OP_WORLD_CREATE_MESH,
	FXS_OP_WORLD_CREATE_HEIGHTFIELD,
	FXS_OP_WORLD_CREATE_HULL,
	FXS_OP_WORLD_CREATE_COMPOUND,
	FXS_OP_WORLD_SNAPSHOT_RESTORE,
	FXS_OP_JOINT_CREATE,
	FXS_OP_JOINT_DESTROY,
	FXS_OP_JOINT_SET_MOTOR,
	FXS_OP_CHARACTER_CREATE,
	FXS_OP_CHARACTER_DESTROY,
	FXS_OP_CHARACTER_SET_MOVE,
	FXS_OP_JOINT_SET_STEERING,
	FXS_OP_JOINT_SET_MOTOR_TARGET,
	FXS_OP_BODY_SET_ROLLING_RESISTANCE,
	FXS_OP_COUNT
};

/* Each op's public function name and its argument signature, one letter
 * per encoded argument (after the world):
 *   I body id, J joint id (u32 index1, u32 generation)   u u32   i i32
 *   f fix16 (i32)   b bool (one byte, 0 or 1)   v vec3 (3 i32)   q quat (4 i32)
 *   w wide (i64)   F filter (u64 category, u64 mask, i32 group)   L locks (6 bools)
 * and pointers, each a presence byte (0: NULL) then, when present:
 *   W wide[3]   D fxs_body_def   j fxs_joint_def   c fxs_character_def
 *   V (vec3 array, u32 n): u32 n, n vec3     T (u32 triples, u32 n): u32 n, 3n u32
 *   H (heights, u32 nx, u32 nz): u32 nx, u32 nz, nx nz fix16 (absent unless 2..4097 each)
 *   C (compound children, u32 n): u32 n, n children (shape, transform)
 *   B (bytes, size_t n): u32 n, n bytes */
const char *fxs_call_name(uint32_t op);
const char *fxs_call_sig(uint32_t op);

/* Encoded sizes of the composite arguments (call_log.c writes them). */
#define FXS_CALL_SHAPE_SIZE 28u
#define FXS_CALL_BODY_DEF_SIZE 144u
#define FXS_CALL_JOINT_DEF_SIZE 96u
#define FXS_CALL_CHARACTER_DEF_SIZE 36u
#define FXS_CALL_CHILD_SIZE 56u

bool fxs_call_log_start(fxs_world *w); /* false: out of memory */
void fxs_call_log_stop(fxs_world *w);
const fxs_call_log *fxs_call_log_of(const fxs_world *w);
void fxs_call_log_clear(fxs_world *w); /* after a drain */

/* Append a call: op and its arguments as its signature lists them. */
void fxs_call_log_put(fxs_world *w, uint32_t op, ...);

#define FXS_CALL_LOG(w, ...)                                \
	do {                                                \
		if ((w) && (w)->call_log)                   \
			fxs_call_log_put((w), __VA_ARGS__); \
	} while (0)
/* A public function calling another: only the outer call is recorded. */
#define FXS_CALL_MUTED(w, stmt)                \
	do {                                   \
		if ((w)->call_log)             \
			(w)->call_log->mute++; \
		stmt;                          \
		if ((w)->call_log)             \
			(w)->call_log->mute--; \
	} while (0)

#endif
