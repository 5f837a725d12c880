/* Built-in scenes: each builds a world from decimal values (authoring time)
 * and is the unit of the golden hashes, the crosscheck and the benchmarks. */
#ifndef FXS_SCENES_H
#define FXS_SCENES_H

#include "fixstep/fixstep.h"
#include "fixstep/input.h"

/* A scene's input handler: applies this tick's inputs (players records) to
 * the world before the step of number `tick` (1-based: the world's step
 * count after the step). Deterministic, integer only, and safe for any
 * input bits and any world (replays are untrusted). */
typedef void (*fxs_input_handler)(fxs_world *w, const fxs_input *inputs, uint32_t players, uint64_t tick);

typedef struct fxs_scene {
	const char *name;
	const char *description;
	uint32_t default_steps;
	fxs_world *(*create)(void);
	uint32_t players;               /* players a recording uses by default (1..FXS_MAX_PLAYERS) */
	fxs_input_handler apply_inputs; /* never NULL */
	/* Scripted players (`fixstep record --scripted`), or NULL: this tick's
	 * inputs from the world as it is. A recording tool, not part of the
	 * simulation: a replay stores the inputs it made. */
	void (*script)(const fxs_world *w, uint64_t tick, uint32_t players, fxs_input out[FXS_MAX_PLAYERS]);
} fxs_scene;

/* The golden start of a scene (scene_starts.c): the state hash of the
 * world its create() makes, compiled in; false for an unknown name. */
bool fxs_scene_start_hash(const char *name, uint64_t *hash);

/* All scenes, in a fixed order. */
const fxs_scene *fxs_scenes(uint32_t *count);
const fxs_scene *fxs_scene_find(const char *name);

/* The default handler: player p drives the dynamic body number
 * floor(p * n / players) of the n dynamic bodies in slot order. Its stick
 * (rotated by the yaw's quadrant) changes the body's horizontal velocity by
 * up to 15 m/s^2 * dt per tick; JUMP adds 4 m/s upwards when the body's
 * vertical speed is below 0.25 m/s. Look pitch and other buttons are unused. */
void fxs_scene_default_inputs(fxs_world *w, const fxs_input *inputs, uint32_t players, uint64_t tick);

/* The school (school.c). */
fxs_world *fxs_scene_school_create(void);
void fxs_scene_school_inputs(fxs_world *w, const fxs_input *inputs, uint32_t players, uint64_t tick);
void fxs_scene_school_script(const fxs_world *w, uint64_t tick, uint32_t players, fxs_input out[FXS_MAX_PLAYERS]);

/* The ragdolls falling down stairs (ragdoll.c) and the cars (vehicle.c;
 * player p drives car p). */
fxs_world *fxs_scene_ragdoll_create(void);
fxs_world *fxs_scene_vehicle_create(void);
void fxs_scene_vehicle_inputs(fxs_world *w, const fxs_input *inputs, uint32_t players, uint64_t tick);

/* Decimal string -> Q16.16 through libfixmath's fix16_from_str; aborts on
 * garbage (scene definitions are code, a bad literal is a bug). */
fix16_t fxs_dec(const char *s);

#endif
