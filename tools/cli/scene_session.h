/* The program's built-in scenes as a client of the session library
 * (fixstep/session.h): their fxs_input records are the session's 12-byte
 * inputs, their input handler its apply_inputs, and the seeded script
 * (fxs_inputs_random) the local players' inputs. */
#ifndef FXS_CLI_SCENE_SESSION_H
#define FXS_CLI_SCENE_SESSION_H

#include "fixstep/session.h"
#include "scenes/scenes.h"

/* apply_inputs of fxs_session_world: ctx is the fxs_scene; players above
 * FXS_MAX_PLAYERS are not seen by the scene. FXS_OK: a scene's handler
 * takes any input bits (they are clamped). */
fxs_result cli_scene_apply(fxs_world *w, uint64_t tick, const uint8_t *inputs, uint32_t players, void *ctx);
/* fxs_session_input_fn of the seeded script: ctx points to the uint64_t
 * seed; player p's input is fxs_inputs_random(seed, tick, p + 1)[p]. */
void cli_scene_script_input(void *ctx, uint64_t tick, uint32_t player, uint8_t *out);

/* A scene's world with the session's callbacks over it. */
typedef struct cli_scene_game {
	fxs_session_world gw;
	fxs_session_callbacks cb; /* the world's callbacks, advance with the perturbation */
	fxs_session_callbacks world_cb;
	uint64_t perturb_tick; /* a desync on purpose: after this tick (0: never) the first dynamic body moves 1 LSB */
} cli_scene_game;
/* false (and nothing to free) when the world cannot be made. */
bool cli_scene_game_open(cli_scene_game *g, const fxs_scene *sc, uint64_t perturb_tick);
void cli_scene_game_close(cli_scene_game *g);

#endif
