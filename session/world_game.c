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

/* The first dynamic body's slot (the perturbation's), or UINT32_MAX. */
static uint32_t first_dynamic(const fxs_world *w)
{
	uint32_t n = fxs_world_slot_count(w);
	for (uint32_t i = 0; i < n; ++i) {
		fxs_body_id id = fxs_world_body_at(w, i);
		if (fxs_body_is_valid(w, id) && fxs_body_get_type(w, id) == FXS_BODY_DYNAMIC)
			return i;
	}
	return UINT32_MAX;
}

static bool world_advance(void *ctx, uint64_t tick, const uint8_t *inputs, uint32_t players)
{
	fxs_session_world *g = ctx;
	if (g->apply_inputs)
		g->apply_inputs(g->world, tick, inputs, players, g->ctx);
	if (fxs_world_step(g->world) != FXS_OK)
		return false;
	uint32_t slot = g->perturb_tick == tick ? first_dynamic(g->world) : UINT32_MAX;
	if (slot != UINT32_MAX) {
		fxs_body_id id = fxs_world_body_at(g->world, slot);
		fxg_vec3 pos = fxs_body_get_position(g->world, id);
		pos.x += pos.x < 0x7fffffff ? 1 : -1;
		fxs_body_set_transform(g->world, id, pos, fxs_body_get_rotation(g->world, id));
	}
	return true;
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
