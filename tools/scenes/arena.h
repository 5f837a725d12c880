/* The arena (arena.c): a small team game on every game feature of the
 * public API. Plain C against the public headers only, so that a game
 * written in another language (examples/arena_cpp) compiles the same
 * rules and gets the same bits. */
#ifndef FXS_SCENE_ARENA_H
#define FXS_SCENE_ARENA_H

#include "fixstep/fixstep.h"
#include "fixstep/input.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FXS_ARENA_PLAYERS 4
#define FXS_ARENA_STEPS 600

fxs_world *fxs_scene_arena_create(void);
/* The rules, before each step: last step's events scored, bullets aged,
 * each player's input applied (moves, fire, blast, jump). */
void fxs_scene_arena_inputs(fxs_world *w, const fxs_input *inputs, uint32_t players, uint64_t tick);
/* Scripted players (from the world and the tick only: no memory). */
void fxs_scene_arena_script(const fxs_world *w, uint64_t tick, uint32_t players, fxs_input out[FXS_MAX_PLAYERS]);

/* The score board: hits on the enemy and capture points of team 0 or 1. */
typedef struct fxs_arena_score {
	uint32_t hits[2], capture[2];
} fxs_arena_score;
fxs_arena_score fxs_scene_arena_score(const fxs_world *w);

#ifdef __cplusplus
}
#endif

#endif
