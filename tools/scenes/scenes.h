/* Built-in scenes: each builds a world from decimal values (authoring time)
 * and is the unit of the golden hashes, the crosscheck and the benchmarks. */
#ifndef FXS_SCENES_H
#define FXS_SCENES_H

#include "fixstep/fixstep.h"

typedef struct fxs_scene {
	const char *name;
	const char *description;
	uint32_t default_steps;
	fxs_world *(*create)(void);
} fxs_scene;

/* All scenes, in a fixed order. */
const fxs_scene *fxs_scenes(uint32_t *count);
const fxs_scene *fxs_scene_find(const char *name);

/* Decimal string -> Q16.16 through libfixmath's fix16_from_str; aborts on
 * garbage (scene definitions are code, a bad literal is a bug). */
fix16_t fxs_dec(const char *s);

#endif
