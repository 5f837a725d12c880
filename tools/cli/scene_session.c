/* The built-in scenes on the session library (scene_session.h). */
#include "cli/scene_session.h"

#include "replay_run.h"

#include <string.h>

fxs_result cli_scene_apply(fxs_world *w, uint64_t tick, const uint8_t *inputs, uint32_t players, void *ctx)
{
	const fxs_scene *sc = ctx;
	fxs_input in[FXS_MAX_PLAYERS];
	uint32_t n = players < FXS_MAX_PLAYERS ? players : FXS_MAX_PLAYERS;
	for (uint32_t p = 0; p < n; ++p)
		in[p] = fxs_input_read(inputs + (size_t)p * FXS_INPUT_SIZE);
	sc->apply_inputs(w, in, n, tick);
	return FXS_OK;
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

/* The game's callbacks: the world's, and after tick perturb_tick the first
 * dynamic body moved by 1 LSB along x (a desync on purpose, for the tests
 * and demos; the game's business, not the session library's). */
static size_t scene_state_size(void *ctx)
{
	cli_scene_game *g = ctx;
	return g->world_cb.state_size(g->world_cb.ctx);
}
static bool scene_save(void *ctx, uint8_t *buf, size_t cap, size_t *len)
{
	cli_scene_game *g = ctx;
	return g->world_cb.save(g->world_cb.ctx, buf, cap, len);
}
static bool scene_load(void *ctx, const uint8_t *buf, size_t len)
{
	cli_scene_game *g = ctx;
	return g->world_cb.load(g->world_cb.ctx, buf, len);
}
static uint64_t scene_checksum(void *ctx)
{
	cli_scene_game *g = ctx;
	return g->world_cb.checksum(g->world_cb.ctx);
}
static bool scene_advance(void *ctx, uint64_t tick, const uint8_t *inputs, uint32_t players)
{
	cli_scene_game *g = ctx;
	if (!g->world_cb.advance(g->world_cb.ctx, tick, inputs, players))
		return false;
	fxs_world *w = g->gw.world;
	for (uint32_t i = 0; g->perturb_tick == tick && i < fxs_world_slot_count(w); ++i) {
		fxs_body_id id = fxs_world_body_at(w, i);
		if (fxs_body_is_valid(w, id) && fxs_body_get_type(w, id) == FXS_BODY_DYNAMIC) {
			fxg_vec3 pos = fxs_body_get_position(w, id);
			pos.x += pos.x < 0x7fffffff ? 1 : -1;
			fxs_body_set_transform(w, id, pos, fxs_body_get_rotation(w, id));
			break;
		}
	}
	return true;
}

bool cli_scene_game_open(cli_scene_game *g, const fxs_scene *sc, uint64_t perturb_tick)
{
	memset(g, 0, sizeof *g);
	g->gw.world = sc->create();
	if (!g->gw.world)
		return false;
	g->gw.apply_inputs = cli_scene_apply;
	g->gw.ctx = (void *)(uintptr_t)sc;
	g->perturb_tick = perturb_tick;
	g->world_cb = fxs_session_world_callbacks(&g->gw);
	g->cb = (fxs_session_callbacks){ g,	       scene_state_size, scene_save, scene_load, scene_advance,
					 scene_checksum, FXS_SESSION_STATE_WORLD };
	return true;
}

void cli_scene_game_close(cli_scene_game *g)
{
	fxs_world_destroy(g->gw.world);
	g->gw.world = NULL;
}
