/* The ready callbacks of a game whose state is one fxs_world
 * (fxs_session_world_callbacks in fixstep/session.h). */
#include "fixstep/session.h"

static size_t world_state_size(void *ctx)
{
	const fxs_session_world *g = ctx;
	return fxs_world_snapshot_size(g->world);
}

static bool world_save(void *ctx, uint8_t *buf, size_t cap, size_t *len)
{
	const fxs_session_world *g = ctx;
	return fxs_world_snapshot_save(g->world, buf, cap, len) == FXS_OK;
}

static bool world_load(void *ctx, const uint8_t *buf, size_t len)
{
	fxs_session_world *g = ctx;
	return fxs_world_snapshot_restore(g->world, buf, len) == FXS_OK;
}

static bool world_advance(void *ctx, uint64_t tick, const uint8_t *inputs, uint32_t players)
{
	fxs_session_world *g = ctx;
	fxs_result r = g->apply_inputs ? g->apply_inputs(g->world, tick, inputs, players, g->ctx) : FXS_OK;
	if (r == FXS_OK)
		r = fxs_world_step(g->world);
	if (r != FXS_OK && g->failed == FXS_OK)
		g->failed = r, g->failed_tick = tick;
	return r == FXS_OK;
}

static uint64_t world_checksum(void *ctx)
{
	const fxs_session_world *g = ctx;
	return fxs_world_hash(g->world);
}

fxs_session_callbacks fxs_session_world_callbacks(fxs_session_world *gw)
{
	fxs_session_callbacks c = { gw, world_state_size, world_save, world_load, world_advance, world_checksum,
				    FXS_SESSION_STATE_WORLD };
	if (!gw) /* no game: callbacks missing, which fxs_session_create refuses */
		c = (fxs_session_callbacks){ 0 };
	return c;
}
