/* The built-in scenes on the session library (scene_session.h). */
#include "cli/scene_session.h"

#include "replay_run.h"

#include <string.h>

void cli_scene_apply(fxs_world *w, uint64_t tick, const uint8_t *inputs, uint32_t players, void *ctx)
{
	const fxs_scene *sc = ctx;
	fxs_input in[FXS_MAX_PLAYERS];
	uint32_t n = players < FXS_MAX_PLAYERS ? players : FXS_MAX_PLAYERS;
	for (uint32_t p = 0; p < n; ++p)
		in[p] = fxs_input_read(inputs + (size_t)p * FXS_INPUT_SIZE);
	sc->apply_inputs(w, in, n, tick);
}

void cli_scene_script_input(void *ctx, uint64_t tick, uint32_t player, uint8_t *out)
{
	fxs_input in[FXS_MAX_PLAYERS];
	uint64_t seed = ctx ? *(const uint64_t *)ctx : 1;
	if (player >= FXS_MAX_PLAYERS)
		return; /* (zero bytes: the neutral input) */
	fxs_inputs_random(seed, tick, player + 1, in);
	fxs_input_write(&in[player], out);
}

bool cli_scene_game_open(cli_scene_game *g, const fxs_scene *sc, uint64_t perturb_tick)
{
	memset(g, 0, sizeof *g);
	g->gw.world = sc->create();
	if (!g->gw.world)
		return false;
	g->gw.apply_inputs = cli_scene_apply;
	g->gw.ctx = (void *)(uintptr_t)sc;
	g->gw.perturb_tick = perturb_tick;
	g->cb = fxs_session_world_callbacks(&g->gw);
	return true;
}

void cli_scene_game_close(cli_scene_game *g)
{
	fxs_world_destroy(g->gw.world);
	g->gw.world = NULL;
}
