/* Forged replays for the tests (tests/replay_forge.h). */
#include "replay_forge.h"
#include "replay_run.h"

#include <stdlib.h>
#include <string.h>

bool forge_restore_replay(const char *path, const char *scene, uint32_t body, uint32_t steps)
{
	const fxs_scene *sc = fxs_scene_find(scene);
	fxs_world *w = sc ? sc->create() : NULL, *d = sc ? sc->create() : NULL;
	bool ok = w && d;
	fxs_body_id id = ok ? fxs_world_body_at(d, body) : (fxs_body_id){ 0, 0 };
	ok = ok && fxs_body_is_valid(d, id);
	if (ok) { /* the doctored state: the body 30 m up */
		fxg_vec3 p = fxs_body_get_position(d, id);
		p.y += FXG_I(30);
		fxs_body_set_transform(d, id, p, fxs_body_get_rotation(d, id));
	}
	size_t n = ok ? fxs_world_snapshot_size(d) : 0;
	uint8_t *snap = ok ? malloc(n) : NULL;
	ok = snap && fxs_world_snapshot_save(d, snap, n, &n) == FXS_OK;
	fxs_replay_writer rw;
	ok = ok && fxs_replay_writer_open_calls(&rw, path, scene, w, 0, FXS_REPLAY_FLAG_DETAIL) == FXS_REPLAY_OK;
	for (uint32_t t = 1; ok && t <= steps; ++t) {
		if (t == 1)
			ok = fxs_world_snapshot_restore(w, snap, n) == FXS_OK;
		ok = ok && fxs_world_step(w) == FXS_OK && fxs_replay_writer_tick(&rw, NULL, w) == FXS_REPLAY_OK;
	}
	if (ok)
		ok = fxs_replay_writer_close(&rw) == FXS_REPLAY_OK;
	else if (w && d && snap)
		fxs_replay_writer_abandon(&rw);
	free(snap);
	fxs_world_destroy(w);
	fxs_world_destroy(d);
	return ok;
}

bool forge_calls_as_scene(const char *path, const char *scene, uint32_t steps)
{
	fxs_world_def wd = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&wd);
	fxs_replay_writer rw;
	bool ok = w && fxs_replay_writer_open_calls(&rw, path, scene, w, 0, 0) == FXS_REPLAY_OK;
	for (uint32_t t = 1; ok && t <= steps; ++t) {
		if (t <= 3) {
			fxs_body_def b = fxs_default_body_def();
			b.position = fxg_v3(FXG_I((int32_t)t), FXG_I(5), 0);
			fxs_body_create(w, &b);
		}
		ok = fxs_world_step(w) == FXS_OK && fxs_replay_writer_tick(&rw, NULL, w) == FXS_REPLAY_OK;
	}
	ok = w && (ok ? fxs_replay_writer_close(&rw) == FXS_REPLAY_OK : (fxs_replay_writer_abandon(&rw), false));
	fxs_world_destroy(w);
	return ok;
}

fxs_result forge_game_apply(fxs_world *w, uint64_t tick, const uint8_t *inputs, uint32_t players, void *ctx)
{
	(void)tick;
	forge_game *g = ctx;
	g->calls++;
	for (uint32_t p = 0; p < players; ++p) {
		const uint8_t *in = inputs + (size_t)p * g->input_size;
		fxs_body_id id = fxs_world_body_at(w, p + 1);
		fxg_vec3 push = fxg_v3((int8_t)in[0] * 256, (in[g->input_size - 1] & 1) ? FXG_I(2) : 0, 0);
		fxs_body_apply_linear_impulse(w, id, push, fxs_body_get_position(w, id));
	}
	return FXS_OK;
}

bool forge_game_replay(const char *path, uint32_t players, uint32_t input_size, uint32_t steps, uint8_t **start,
		       size_t *start_len)
{
	fxs_world_def wd = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&wd);
	if (!w)
		return false;
	fxs_body_def g = fxs_default_body_def();
	g.type = FXS_BODY_STATIC;
	g.shape.type = FXS_SHAPE_BOX;
	g.shape.half_extents = fxg_v3(FXG_I(40), FXG_I(1), FXG_I(40));
	g.position = fxg_v3(0, FXG_I(-1), 0);
	fxs_body_create(w, &g);
	for (uint32_t p = 0; p < players; ++p) {
		fxs_body_def b = fxs_default_body_def();
		b.position = fxg_v3(FXG_I((int32_t)p * 2 - 30), FXG_I(1), 0);
		fxs_body_create(w, &b);
	}
	bool ok = true;
	if (start) {
		*start_len = fxs_world_snapshot_size(w);
		ok = (*start = malloc(*start_len)) != NULL &&
		     fxs_world_snapshot_save(w, *start, *start_len, start_len) == FXS_OK;
	}
	fxs_replay_writer rw;
	ok = ok && fxs_replay_writer_open(&rw, path, "forge_game", w, players, input_size, 0, 0) == FXS_REPLAY_OK;
	uint8_t *in = malloc((size_t)players * input_size);
	forge_game game = { input_size, 0 };
	for (uint32_t t = 1; ok && in && t <= steps; ++t) {
		for (size_t k = 0; k < (size_t)players * input_size; ++k)
			in[k] = (uint8_t)(t * 31 + k * 7);
		forge_game_apply(w, t, in, players, &game);
		ok = fxs_world_step(w) == FXS_OK && fxs_replay_writer_tick(&rw, in, w) == FXS_REPLAY_OK;
	}
	ok = ok && in && fxs_replay_writer_close(&rw) == FXS_REPLAY_OK;
	free(in);
	fxs_world_destroy(w);
	return ok;
}
