/* Forged replays for the tests (tests/replay_forge.c): files a hostile
 * player could upload, made with the library. */
#ifndef FXS_TEST_REPLAY_FORGE_H
#define FXS_TEST_REPLAY_FORGE_H

#include "fixstep/replay.h"

/* The forgery of issue 31: a CALLS replay labelled `scene`, starting from
 * that scene's real start, whose tick 1 restores a doctored snapshot (body
 * `body` moved 30 m up), then `steps` ticks of no calls; every hash is the
 * one its calls give. false when it cannot be written. */
bool forge_restore_replay(const char *path, const char *scene, uint32_t body, uint32_t steps);
/* An honest CALLS replay labelled `scene` from an empty world (the body
 * creates of a few spheres, then steps): valid, but not the scene's kind. */
bool forge_calls_as_scene(const char *path, const char *scene, uint32_t steps);
/* An honest inputs replay of players x input_size bytes a tick (a game's
 * own world: a ground and one sphere per player; byte 0 of a player's
 * input pushes its sphere). The start snapshot to *start (malloc'd) when
 * start is not NULL. */
bool forge_game_replay(const char *path, uint32_t players, uint32_t input_size, uint32_t steps, uint8_t **start,
		       size_t *start_len);
/* That game's apply callback, for a game of ctx->input_size bytes per
 * player: it reads all of them (the first and the last byte push), and
 * counts its calls. */
typedef struct forge_game {
	uint32_t input_size;
	uint32_t calls;
} forge_game;
fxs_result forge_game_apply(fxs_world *w, uint64_t tick, const uint8_t *inputs, uint32_t players, void *ctx);

#endif
