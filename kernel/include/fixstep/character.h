/* Characters: kinematic capsule controllers driven by inputs.
 *
 * A character is an upright capsule (a kinematic body the world owns) moved
 * by its controller at the start of every step, before the broadphase (step
 * stage 1, "inputs"): it walks at the velocity it was given, slides along
 * walls, climbs steps up to step_height and slopes up to max_slope, falls
 * under gravity, jumps, stands on moving bodies (it takes on the velocity of
 * the body it stands on) and pushes dynamic bodies (the solver sees a
 * kinematic body moving at its velocity: infinitely strong). Deterministic:
 * integer only, pinned iteration counts, bodies visited in slot order, ties
 * by slot. Its state (input, vertical speed, ground) is hashed and in
 * snapshots.
 *
 * The controller moves in pieces of at most half the radius (so it cannot
 * pass through anything thinner than its radius at any speed), and after
 * each piece pushes itself out of static and kinematic bodies (deepest
 * contact first, at most FXS_CHARACTER_ITERATIONS times). A contact whose
 * normal is within max_slope of up is ground; any other is a wall, pushed
 * out of horizontally only (so a steep slope cannot be climbed) and slid
 * along. Blocked by a wall while on the ground, it tries the same piece
 * raised by step_height and then lowered onto walkable ground (a step up).
 * At the end it looks down (a shape cast) up to step_height to stay on
 * the ground while walking down stairs and slopes. */
#ifndef FIXSTEP_CHARACTER_H
#define FIXSTEP_CHARACTER_H

#include "fixstep/fixstep.h"

#ifdef __cplusplus
extern "C" {
#endif
FXG_EXPORT_BEGIN

#define FXS_MAX_CHARACTERS 64
#define FXS_CHARACTER_ITERATIONS 4

/* index + 1; 0 is the null id */
typedef uint32_t fxs_character_id;

typedef struct fxs_character_def {
	fxg_vec3 position;     /* the capsule's centre */
	fix16_t radius;        /* default 0.3 m */
	fix16_t half_height;   /* of the segment: total height 2 (half_height + radius); default 0.6 m */
	fix16_t step_height;   /* default 0.35 m */
	fix16_t max_slope_cos; /* cos of the steepest walkable slope; default cos 45 deg */
	fix16_t jump_speed;    /* m/s, default 5 */
	fix16_t density;       /* of the capsule body (for the bodies it pushes: none, it is kinematic); default 1000 */
} fxs_character_def;

fxs_character_def fxs_default_character_def(void);

/* 0 when the world already has FXS_MAX_CHARACTERS or the definition is bad
 * (radius 0.05..10 m, half height 0..10 m, step height 0..2 m, slope cosine
 * 0..1, jump speed 0..100 m/s). */
fxs_character_id fxs_character_create(fxs_world *w, const fxs_character_def *def);
bool fxs_character_destroy(fxs_world *w, fxs_character_id id);

/* The move for the next step: a horizontal velocity (its y is ignored;
 * each component clamped to +-100 m/s) and a jump (taken if on the ground). */
void fxs_character_set_move(fxs_world *w, fxs_character_id id, fxg_vec3 velocity, bool jump);

fxs_body_id fxs_character_get_body(const fxs_world *w, fxs_character_id id);
fxg_vec3 fxs_character_get_position(const fxs_world *w, fxs_character_id id);
bool fxs_character_is_grounded(const fxs_world *w, fxs_character_id id);
/* The body it stands on (null when in the air). */
fxs_body_id fxs_character_get_ground(const fxs_world *w, fxs_character_id id);
uint32_t fxs_world_character_count(const fxs_world *w);

FXG_EXPORT_END
#ifdef __cplusplus
}
#endif

#endif
