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
	{ "drop", 0xe45ed45cb8e6d372ull },
	{ "falling_spheres_500", 0x63fe5829c50a4382ull },
	{ "falling_spheres", 0xb27a5f2aaab8c76eull },
	{ "box_stack", 0x3af0d9a4d585ec2cull },
	{ "moving_1000", 0x14f19ef18d99bdd0ull },
	{ "shapes", 0xed3d2b0b3fcab6c1ull },
	{ "mesh_level", 0x14a45bdd9d498377ull },
	{ "all_shapes", 0x006ed3c322743832ull },
	{ "pyramid_20", 0x3ff4dd72d006040aull },
	{ "large_pyramid_b20", 0x46f8be8e446d12a1ull },
	{ "large_pyramid_b40", 0xddb11a8acb55cf6aull },
	{ "large_pyramid", 0xe5f398db9db376dfull },
	{ "many_pyramids_3x3", 0x49372e0ef54d3920ull },
	{ "many_pyramids", 0x9a786b67012e24deull },
	{ "school", 0x1b5bb55070e05581ull },
	{ "stack_lcp", 0x5a21f9f8fc29ee71ull },
	{ "pendulum", 0x1d3db5758da340e3ull },
	{ "joint_grid_10", 0xcc70f9ece9a6a1aaull },
	{ "joint_grid_50", 0x65667bb02ab6e443ull },
	{ "joint_grid", 0xe22ec616490c5b3aull },
	{ "arena", 0xc72b65207ab4916bull },
	{ "cylinders", 0x2b9dc7d7250f6dddull },
	{ "ragdoll", 0xb4423afcca5862c2ull },
	{ "vehicle", 0xd89b392940150019ull },
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
