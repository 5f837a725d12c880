/* Playing a built-in scene as a game would: before each step, the scene's
 * scripted players (or, for a scene without a script, neutral inputs) go
 * through its input handler. For `fixstep events` and `fixstep draw`. */
#ifndef FXS_CLI_SCENE_PLAY_H
#define FXS_CLI_SCENE_PLAY_H

#include "scenes/scenes.h"

/* The scene called name and a new world of it: 0, or the exit status of a
 * usage error (printed) when there is no such scene or it cannot be made. */
int cli_scene_open(const char *name, const char *command, const fxs_scene **sc, fxs_world **w);

/* One tick: inputs, handler, step. False (with a message) when the step fails. */
bool cli_scene_play_tick(const fxs_scene *sc, fxs_world *w);

#endif
