/* fixstep bench rollback: the cost of rollback on a small scene and on
 * moving_1000 (1,000 bodies): snapshot save / restore time and bytes, and
 * the time of one 8-tick rollback (restore + 8 re-simulated steps). */
#include "cli/cli.h"
#include "cli/scene_session.h"
#include "scenes/scenes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { PLAYERS = 4 };

/* The scripted inputs of tick t (seed 1) applied to w, then a step. */
static void bench_tick(const fxs_scene *sc, fxs_world *w, uint64_t t)
{
	uint8_t in[PLAYERS * FXS_INPUT_SIZE] = { 0 };
	uint64_t seed = 1;
	for (uint32_t p = 0; p < PLAYERS; ++p)
		cli_scene_script_input(&seed, t, p, in + p * FXS_INPUT_SIZE);
	cli_scene_apply(w, t, in, PLAYERS, (void *)(uintptr_t)sc);
	if (!cli_step(w))
		exit(1); /* a benchmark has nothing to report */
}

static int bench_scene(const fxs_scene *sc, uint32_t warm, uint32_t depth, uint32_t reps)
{
	fxs_world *w = sc->create();
	for (uint64_t t = 1; t <= warm; ++t)
		bench_tick(sc, w, t);
	size_t cap = fxs_world_snapshot_size(w) * 2 + 4096, len = 0;
	uint8_t *snap = malloc(cap);
	if (!snap)
		return 1;
	/* save / restore */
	uint64_t t0 = cli_now_ns();
	for (uint32_t r = 0; r < reps; ++r)
		fxs_world_snapshot_save(w, snap, cap, &len);
	uint64_t t1 = cli_now_ns();
	for (uint32_t r = 0; r < reps; ++r)
		fxs_world_snapshot_restore(w, snap, len);
	uint64_t t2 = cli_now_ns();
	/* one plain step, then a rollback of `depth` ticks: restore + depth steps */
	uint64_t base = warm; /* the world has stepped warm times */
	uint64_t s0 = cli_now_ns();
	for (uint32_t k = 0; k < depth; ++k)
		bench_tick(sc, w, base + k + 1);
	uint64_t s1 = cli_now_ns();
	uint64_t h = fxs_world_hash(w);
	uint32_t rb_reps = reps / 10 ? reps / 10 : 1;
	uint64_t r0 = cli_now_ns();
	int same = 1;
	for (uint32_t r = 0; r < rb_reps; ++r) {
		fxs_world_snapshot_restore(w, snap, len);
		for (uint32_t k = 0; k < depth; ++k)
			bench_tick(sc, w, base + k + 1);
		same &= fxs_world_hash(w) == h;
	}
	uint64_t r1 = cli_now_ns();
	printf("%-20s %6u bodies  snapshot %8zu bytes  save %8.1f us  restore %8.1f us  step %8.1f us  "
	       "%u-tick rollback %8.3f ms%s\n",
	       sc->name, fxs_world_body_count(w), len, (double)(t1 - t0) / reps / 1e3, (double)(t2 - t1) / reps / 1e3,
	       (double)(s1 - s0) / depth / 1e3, depth, (double)(r1 - r0) / rb_reps / 1e6,
	       same ? "" : "  (RE-SIMULATION DIFFERS)");
	free(snap);
	fxs_world_destroy(w);
	return !same;
}

int cli_bench_rollback(int argc, char **argv)
{
	const char *names[4] = { "school", "box_stack", "moving_1000", NULL };
	const char *only = NULL;
	uint32_t depth = 8, reps = 200;
	for (int i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--help") == 0) {
			printf("usage: fixstep bench rollback [--scene S] [--depth D] [--reps R]\n\n"
			       "Per scene (default school, box_stack and moving_1000, after 60 ticks of\n"
			       "seeded inputs): the snapshot's bytes, save and restore time (mean of R, 200),\n"
			       "the time of one step and of one D-tick rollback (restore + D steps, default 8).\n"
			       "Every re-simulation must end on the first run's hash.\n");
			return 0;
		} else if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc) {
			only = argv[++i];
		} else if (strcmp(argv[i], "--depth") == 0 && i + 1 < argc) {
			if (!cli_parse_u32(argv[++i], &depth) || depth < 1 || depth > 64)
				return cli_usage_error("--depth needs 1..64");
		} else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
			if (!cli_parse_u32(argv[++i], &reps) || reps < 1)
				return cli_usage_error("--reps needs >= 1");
		} else {
			return cli_usage_error("bench rollback: unknown argument '%s'", argv[i]);
		}
	}
	int bad = 0;
	if (only) {
		const fxs_scene *sc = fxs_scene_find(only);
		if (!sc)
			return cli_usage_error("unknown scene '%s'", only);
		return bench_scene(sc, 60, depth, reps);
	}
	for (int k = 0; names[k]; ++k)
		bad |= bench_scene(fxs_scene_find(names[k]), 60, depth, reps);
	return bad;
}
