/* The golden start of every built-in scene: the state hash of its world as
 * create() makes it, compiled into the program. `fixstep verify` refuses a
 * replay of a scene whose start is not this (docs/replays.md), so a replay
 * cannot bring its own start. tests/test_replay.c checks the table against
 * the scenes' code: a change that moves a start fails there, and the table
 * is then updated (`fixstep scenes --start-hashes` prints it) in the same
 * commit, which says why. */
#include "scenes/scenes.h"

#include <string.h>

static const struct {
	const char *name;
	uint64_t hash;
} starts[] = {
	{ "drop", 0xca6f9896c932ff58ull },
	{ "falling_spheres_500", 0xa2826a01b108dec2ull },
	{ "falling_spheres", 0xd0c14431e3083387ull },
	{ "box_stack", 0xad5d6c0ea11e3d07ull },
	{ "moving_1000", 0x8abfd0adaaf8b4b5ull },
	{ "shapes", 0x3700bb5a7e3c8204ull },
	{ "mesh_level", 0xe107d6ae77ff1ffbull },
	{ "all_shapes", 0xa791b269578559f8ull },
	{ "pyramid_20", 0xa1734f79fa99289aull },
	{ "large_pyramid_b20", 0x115a628eb2ddce4cull },
	{ "large_pyramid_b40", 0x68c1561a3bf27d03ull },
	{ "large_pyramid", 0x1c7d6f905df2ecbdull },
	{ "many_pyramids_3x3", 0x993cfd40617efd1dull },
	{ "many_pyramids", 0x367b14b4f5041c7full },
	{ "school", 0x3103d76ac1534804ull },
	{ "stack_lcp", 0xc7d46de4e95ecaa7ull },
	{ "pendulum", 0x6f13bcff9bf2bd2bull },
	{ "joint_grid_10", 0x9db7730913d079e4ull },
	{ "joint_grid_50", 0x3324fadea37d6384ull },
	{ "joint_grid", 0x4aa5d61fe49808c8ull },
	{ "arena", 0xaec9654c5b1705bcull },
};

bool fxs_scene_start_hash(const char *name, uint64_t *hash)
{
	for (size_t i = 0; i < sizeof starts / sizeof starts[0]; ++i)
		if (strcmp(starts[i].name, name) == 0) {
			*hash = starts[i].hash;
			return true;
		}
	return false;
}
