/* fixstep record | log */
#include "cli/cli.h"
#include "cli/commands.h"
#include "replay_run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* "T" or "T:P" */
static int parse_tick_player(const char *s, uint64_t *tick, uint32_t *player)
{
	char buf[64];
	if (!s || strlen(s) >= sizeof buf)
		return 0;
	strcpy(buf, s);
	char *colon = strchr(buf, ':');
	uint32_t t, p = 0;
	if (colon) {
		*colon = 0;
		if (!cli_parse_u32(colon + 1, &p) || p >= FXS_MAX_PLAYERS)
			return 0;
	}
	if (!cli_parse_u32(buf, &t) || t == 0)
		return 0;
	*tick = t;
	*player = p;
	return 1;
}

static int parse_u64(const char *s, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 0);
	if (*end)
		return 0;
	*out = v;
	return 1;
}

int cmd_record(int argc, char **argv)
{
	const char *name = NULL, *out = NULL, *inputs = NULL;
	fxs_record_options o;
	memset(&o, 0, sizeof o);
	o.flags = FXS_REPLAY_FLAG_DETAIL;
	int has_steps = 0, has_seed = 0;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			printf("usage: fixstep record SCENE --steps N (--inputs FILE | --random-inputs SEED | --scripted) -o FILE\n"
			       "                      [--players P] [--chunk-ticks K] [--no-detail]\n"
			       "                      [--perturb-input T[:P]] [--tamper-input T[:P]]\n\n"
			       "Runs SCENE for N steps, feeding its input handler every player's input each\n"
			       "tick, and records a replay (replays/FORMAT.md): the initial snapshot, the inputs\n"
			       "and the state hash of every tick, in chunks of K ticks (default 64), each\n"
			       "written, flushed and fsync'd as it completes (a killed recorder leaves a file\n"
			       "whose complete chunks verify).\n\n"
			       "  --inputs FILE         an input script (replays/FORMAT.md, 'Input scripts')\n"
			       "  --random-inputs SEED  seeded random inputs (the same SEED gives the same inputs)\n"
			       "  --scripted            the scene's scripted players (school: four routes through the building)\n"
			       "  --players P           players (1..16; default: the scene's, or the script's)\n"
			       "  --no-detail           leave out the per-tick state (smaller file; verify can then\n"
			       "                        name the tick of a divergence but not the body)\n"
			       "  --perturb-input T[:P] change player P's (default 0) input at tick T: a valid\n"
			       "                        replay of a different run (for `fixstep diff`)\n"
			       "  --tamper-input T[:P]  write a changed input at tick T but simulate the original:\n"
			       "                        a replay that `fixstep verify` must reject at tick T\n"
			       "Prints 'recorded ...' and, last, 'hash ' and the final state hash.\n");
			return 0;
		} else if (strcmp(a, "--steps") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o.steps))
				return cli_usage_error("--steps needs a non-negative integer");
			has_steps = 1;
		} else if (strcmp(a, "--inputs") == 0) {
			if (++i >= argc)
				return cli_usage_error("--inputs needs a file");
			inputs = argv[i];
		} else if (strcmp(a, "--random-inputs") == 0) {
			if (++i >= argc || !parse_u64(argv[i], &o.seed))
				return cli_usage_error("--random-inputs needs a seed (a non-negative integer)");
			has_seed = 1;
		} else if (strcmp(a, "--scripted") == 0) {
			o.scripted = true;
		} else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
			if (++i >= argc)
				return cli_usage_error("-o needs a file");
			out = argv[i];
		} else if (strcmp(a, "--players") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o.players) || o.players < 1 || o.players > FXS_MAX_PLAYERS)
				return cli_usage_error("--players needs 1..%d", FXS_MAX_PLAYERS);
		} else if (strcmp(a, "--chunk-ticks") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o.chunk_ticks) || o.chunk_ticks < 1 ||
			    o.chunk_ticks > FXS_REPLAY_MAX_CHUNK_TICKS)
				return cli_usage_error("--chunk-ticks needs 1..%u", FXS_REPLAY_MAX_CHUNK_TICKS);
		} else if (strcmp(a, "--no-detail") == 0) {
			o.flags &= ~FXS_REPLAY_FLAG_DETAIL;
		} else if (strcmp(a, "--detail") == 0) {
			o.flags |= FXS_REPLAY_FLAG_DETAIL;
		} else if (strcmp(a, "--perturb-input") == 0 || strcmp(a, "--tamper-input") == 0) {
			if (++i >= argc || !parse_tick_player(argv[i], &o.perturb_tick, &o.perturb_player))
				return cli_usage_error("%s needs TICK (>= 1) or TICK:PLAYER", a);
			o.tamper = strcmp(a, "--tamper-input") == 0;
		} else if (a[0] == '-') {
			return cli_usage_error("record: unknown option '%s'", a);
		} else if (!name) {
			name = a;
		} else {
			return cli_usage_error("record: unexpected argument '%s'", a);
		}
	}
	if (!name)
		return cli_usage_error("record needs a scene name (see fixstep scenes)");
	o.scene = fxs_scene_find(name);
	if (!o.scene)
		return cli_usage_error("unknown scene '%s' (see fixstep scenes)", name);
	if (!has_steps)
		return cli_usage_error("record needs --steps N");
	if (!out)
		return cli_usage_error("record needs -o FILE");
	if (!!inputs + has_seed + o.scripted != 1)
		return cli_usage_error("record needs exactly one of --inputs FILE, --random-inputs SEED and --scripted");
	if (o.scripted && !o.scene->script)
		return cli_usage_error("scene '%s' has no scripted players", name);
	fxs_input_script script;
	char err[256];
	if (inputs) {
		if (!fxs_input_script_load(&script, inputs, err, sizeof err))
			return cli_usage_error("%s: %s", inputs, err);
		if (o.players && script.players && o.players != script.players) {
			uint32_t says = script.players;
			fxs_input_script_free(&script);
			return cli_usage_error("--players %u but %s says 'players %u'", o.players, inputs, says);
		}
		o.script = &script;
	}
	uint32_t players = o.players ? o.players : (o.script && script.players ? script.players : o.scene->players);
	if (o.script) {
		for (size_t k = 0; k < script.count; ++k)
			if (script.entries[k].player >= players) {
				uint32_t bad = script.entries[k].player;
				fxs_input_script_free(&script);
				return cli_usage_error("%s: input for player %u, but the recording has %u players", inputs, bad,
						       players);
			}
	}
	if (o.perturb_tick && o.perturb_player >= players) {
		if (o.script)
			fxs_input_script_free(&script);
		return cli_usage_error("perturbed player %u, but the recording has %u players", o.perturb_player, players);
	}
	o.players = players;
	uint64_t final = 0;
	fxs_replay_status s = fxs_replay_record(out, &o, &final, err, sizeof err);
	if (o.script)
		fxs_input_script_free(&script);
	if (s != FXS_REPLAY_OK) {
		fprintf(stderr, "fixstep: %s\n", err);
		return 1;
	}
	FILE *f = fopen(out, "rb");
	long size = -1;
	if (f && fseek(f, 0, SEEK_END) == 0)
		size = ftell(f);
	if (f)
		fclose(f);
	uint32_t ck = o.chunk_ticks ? o.chunk_ticks : FXS_REPLAY_DEFAULT_CHUNK_TICKS;
	printf("recorded %s: %u ticks, %u player%s, %u chunks, %ld bytes -> %s\n", name, o.steps, players,
	       players == 1 ? "" : "s", (o.steps + ck - 1) / ck, size, out);
	printf("hash %016" PRIx64 "\n", final);
	return 0;
}

int cmd_log(int argc, char **argv)
{
	const char *name = NULL, *inputs = NULL;
	uint32_t steps = 0, players = 0;
	uint64_t seed = 0;
	int has_steps = 0, has_seed = 0;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			printf("usage: fixstep log SCENE [--steps N] [--inputs FILE | --random-inputs SEED] [--players P]\n\n"
			       "The determinism log: runs SCENE (default: its own step count; no inputs unless\n"
			       "given) and prints, after every step, one line per body slot with its state\n"
			       "bits in hex, 'STEP SLOT g GEN p X Y Z q X Y Z W v X Y Z w X Y Z h BODYHASH',\n"
			       "then 'STEP hash STATEHASH'. Run it on two platforms and diff the outputs: the\n"
			       "first differing line names the step, the body and the field.\n"
			       "(For a replay: fixstep replay FILE --to STEP --log-bits.)\n");
			return 0;
		} else if (strcmp(a, "--steps") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &steps))
				return cli_usage_error("--steps needs a non-negative integer");
			has_steps = 1;
		} else if (strcmp(a, "--inputs") == 0) {
			if (++i >= argc)
				return cli_usage_error("--inputs needs a file");
			inputs = argv[i];
		} else if (strcmp(a, "--random-inputs") == 0) {
			if (++i >= argc || !parse_u64(argv[i], &seed))
				return cli_usage_error("--random-inputs needs a seed (a non-negative integer)");
			has_seed = 1;
		} else if (strcmp(a, "--players") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &players) || players < 1 || players > FXS_MAX_PLAYERS)
				return cli_usage_error("--players needs 1..%d", FXS_MAX_PLAYERS);
		} else if (a[0] == '-') {
			return cli_usage_error("log: unknown option '%s'", a);
		} else if (!name) {
			name = a;
		} else {
			return cli_usage_error("log: unexpected argument '%s'", a);
		}
	}
	if (!name)
		return cli_usage_error("log needs a scene name (see fixstep scenes)");
	const fxs_scene *sc = fxs_scene_find(name);
	if (!sc)
		return cli_usage_error("unknown scene '%s' (see fixstep scenes)", name);
	if (inputs && has_seed)
		return cli_usage_error("log takes at most one of --inputs and --random-inputs");
	fxs_input_script script;
	memset(&script, 0, sizeof script);
	char err[256];
	if (inputs && !fxs_input_script_load(&script, inputs, err, sizeof err))
		return cli_usage_error("%s: %s", inputs, err);
	if (!players)
		players = script.players ? script.players : sc->players;
	for (size_t k = 0; k < script.count; ++k)
		if (script.entries[k].player >= players) {
			uint32_t bad = script.entries[k].player;
			fxs_input_script_free(&script);
			return cli_usage_error("%s: input for player %u of %u", inputs, bad, players);
		}
	if (!has_steps)
		steps = sc->default_steps;
	fxs_world *w = sc->create();
	if (!w) {
		fxs_input_script_free(&script);
		return cli_usage_error("scene '%s' could not be created", name);
	}
	fxs_input held[FXS_MAX_PLAYERS];
	for (int p = 0; p < FXS_MAX_PLAYERS; ++p)
		held[p] = fxs_input_neutral();
	size_t cursor = 0;
	fxs_world_log_bits(stdout, w, fxs_world_get_step(w));
	for (uint32_t s = 0; s < steps; ++s) {
		uint64_t tick = fxs_world_get_step(w) + 1;
		fxs_input in[FXS_MAX_PLAYERS];
		if (has_seed) {
			fxs_inputs_random(seed, tick, players, in);
			sc->apply_inputs(w, in, players, tick);
		} else if (inputs) {
			fxs_input_script_at(&script, &cursor, tick, held);
			sc->apply_inputs(w, held, players, tick);
		}
		if (!cli_step(w)) {
			fxs_world_destroy(w);
			fxs_input_script_free(&script);
			return 1;
		}
		fxs_world_log_bits(stdout, w, tick);
	}
	fxs_world_destroy(w);
	fxs_input_script_free(&script);
	return 0;
}
