/* fixstep synctest: GGPO's synctest in one process (no network, no keys). */
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/scene_session.h"
#include "fixstep/session.h"

#include <inttypes.h>
#include <string.h>

int cmd_synctest(int argc, char **argv)
{
	const char *name = NULL;
	uint32_t ticks = 300, depth = 8, players = 4, seed = 1;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			printf("usage: fixstep synctest SCENE [--ticks N] [--depth D] [--players P] [--seed S]\n\n"
			       "GGPO's synctest in one process: every tick, roll back D ticks (default 8),\n"
			       "re-simulate them with the same inputs (seeded random, --seed) and compare each\n"
			       "hash with the first simulation. Exit 1 with the first mismatch.\n");
			return 0;
		}
		uint32_t *dst = strcmp(a, "--ticks") == 0 ? &ticks : strcmp(a, "--depth") == 0 ? &depth
			: strcmp(a, "--players") == 0                                          ? &players
			: strcmp(a, "--seed") == 0                                             ? &seed
											       : NULL;
		if (dst) {
			if (++i >= argc || !cli_parse_u32(argv[i], dst))
				return cli_usage_error("%s needs a number", a);
		} else if (a[0] == '-') {
			return cli_usage_error("synctest: unknown option '%s'", a);
		} else {
			name = a;
		}
	}
	const fxs_scene *sc = name ? fxs_scene_find(name) : NULL;
	if (!sc)
		return cli_usage_error("synctest needs a scene (see fixstep scenes)");
	if (depth < 1 || depth > 64 || players < 1 || players > FXS_MAX_PLAYERS)
		return cli_usage_error("--depth 1..64, --players 1..%d", FXS_MAX_PLAYERS);
	fxs_synctest_result r;
	char err[256];
	cli_scene_game g;
	if (!cli_scene_game_open(&g, sc, 0)) {
		printf("synctest %s: FAIL: out of memory\n", sc->name);
		return 1;
	}
	uint64_t seed64 = seed;
	bool ok = fxs_synctest(&g.cb, players, FXS_INPUT_SIZE, ticks, depth, cli_scene_script_input, &seed64, &r, err,
			       sizeof err);
	cli_scene_game_close(&g);
	if (!ok) {
		printf("synctest %s: FAIL: %s: %s\n", sc->name, sc->name, err);
		return 1;
	}
	printf("synctest %s: ok, %u ticks, %" PRIu64 " rollbacks of %u, %" PRIu64 " ticks re-simulated, snapshot %zu bytes\n"
	       "hash %016" PRIx64 "\n",
	       sc->name, ticks, r.rollbacks, depth, r.resimulated, r.snapshot_bytes, r.final_hash);
	return 0;
}
