#include "cli/scene_play.h"
#include "cli/cli.h"

int cli_scene_open(const char *name, const char *command, const fxs_scene **sc, fxs_world **w)
{
	if (!name)
		return cli_usage_error("%s needs a scene name (see fixstep scenes)", command);
	if (!(*sc = fxs_scene_find(name)))
		return cli_usage_error("unknown scene '%s' (see fixstep scenes)", name);
	if (!(*w = (*sc)->create()))
		return cli_usage_error("scene '%s' could not be created", name);
	return 0;
}

bool cli_scene_play_tick(const fxs_scene *sc, fxs_world *w)
{
	fxs_input in[FXS_MAX_PLAYERS];
	uint64_t tick = fxs_world_get_step(w) + 1;
	for (uint32_t p = 0; p < FXS_MAX_PLAYERS; ++p)
		in[p] = fxs_input_neutral();
	if (sc->script)
		sc->script(w, tick, sc->players, in);
	sc->apply_inputs(w, in, sc->players, tick);
	return cli_step(w);
}
