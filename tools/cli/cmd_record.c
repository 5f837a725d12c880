/* fixstep record | log */
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "replay_run.h"

#include <errno.h>
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

/* A seed: decimal (a leading 0 is not octal), or 0x hex; 0 when it is not
 * one or does not fit 64 bits. */
static int parse_u64(const char *s, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return 0;
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	if (hex && !s[2])
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s + (hex ? 2 : 0), &end, hex ? 16 : 10);
	if (*end || errno == ERANGE)
		return 0;
	*out = v;
	return 1;
}

/* The options record and log share: how many steps, and whose inputs. */
typedef struct input_options {
	uint32_t steps, players; /* players 0: not given */
	uint64_t seed;
	const char *inputs; /* an input script */
	bool has_steps, has_seed;
} input_options;

/* input_option's answer for an argument that is none of its options */
#define NOT_AN_INPUT_OPTION (-2)

/* argv[*i] if it is --steps, --inputs, --random-inputs or --players: CLI_GO
 * (*i then on its value) or 2 after a bad value's error; otherwise
 * NOT_AN_INPUT_OPTION. */
static int input_option(int argc, char **argv, int *i, input_options *o)
{
	const char *a = argv[*i];
	if (strcmp(a, "--steps") == 0) {
		if (++*i >= argc || !cli_parse_u32(argv[*i], &o->steps))
			return cli_usage_error("--steps needs a non-negative integer");
		o->has_steps = true;
	} else if (strcmp(a, "--inputs") == 0) {
		if (++*i >= argc)
			return cli_usage_error("--inputs needs a file");
		o->inputs = argv[*i];
	} else if (strcmp(a, "--random-inputs") == 0) {
		if (++*i >= argc || !parse_u64(argv[*i], &o->seed))
			return cli_usage_error("--random-inputs needs a seed: a decimal or 0x hex integer below 2^64");
		o->has_seed = true;
	} else if (strcmp(a, "--players") == 0) {
		if (++*i >= argc || !cli_parse_u32(argv[*i], &o->players) || o->players < 1 || o->players > FXS_MAX_PLAYERS)
			return cli_usage_error("--players needs 1..%d", FXS_MAX_PLAYERS);
	} else {
		return NOT_AN_INPUT_OPTION;
	}
	return CLI_GO;
}

/* --inputs FILE loaded into *script (left empty without it): CLI_GO, or 2
 * after the file's error. */
static int load_script(const input_options *o, fxs_input_script *script)
{
	char err[256];
	memset(script, 0, sizeof *script);
	if (o->inputs && !fxs_input_script_load(script, o->inputs, err, sizeof err))
		return cli_usage_error("%s: %s", o->inputs, err);
	return CLI_GO;
}

/* The first line of the script for a player at or beyond `players`, or NULL. */
static const fxs_input_script_entry *script_beyond(const fxs_input_script *s, uint32_t players)
{
	for (size_t k = 0; k < s->count; ++k)
		if (s->entries[k].player >= players)
			return &s->entries[k];
	return NULL;
}

/* ---- record ---- */

typedef struct record_args {
	const char *name, *out;
	bool calls; /* --calls: the API-call demo */
	input_options in;
	fxs_record_options o; /* the scene, and all but the inputs and players */
} record_args;

static int record_usage(void)
{
	printf("usage: fixstep record SCENE --steps N (--inputs FILE | --random-inputs SEED | --scripted) -o FILE\n"
	       "                      [--players P] [--chunk-ticks K] [--no-detail]\n"
	       "                      [--perturb-input T[:P]] [--tamper-input T[:P]]\n"
	       "       fixstep record --calls --steps N -o FILE [--chunk-ticks K] [--no-detail]\n\n"
	       "Runs SCENE for N steps, feeding its input handler every player's input each\n"
	       "tick, and records a replay (docs/replay-format.md): the initial snapshot, the inputs\n"
	       "and the state hash of every tick, in chunks of K ticks (default 64), each\n"
	       "written, flushed and fsync'd as it completes (a killed recorder leaves a file\n"
	       "whose complete chunks verify).\n\n"
	       "  --inputs FILE         an input script (docs/replay-format.md, 'Input scripts')\n"
	       "  --random-inputs SEED  seeded random inputs (the same SEED gives the same inputs)\n"
	       "  --scripted            the scene's scripted players (school: four routes through the building)\n"
	       "  --players P           players (1..16; default: the scene's, or the script's)\n"
	       "  --no-detail           leave out the per-tick state (smaller file; verify can then\n"
	       "                        name the tick of a divergence but not the body)\n"
	       "  --perturb-input T[:P] change player P's (default 0) input at tick T: a valid\n"
	       "                        replay of a different run (for `fixstep diff`)\n"
	       "  --tamper-input T[:P]  write a changed input at tick T but simulate the original:\n"
	       "                        a replay that `fixstep verify` must reject at tick T\n"
	       "  --calls               record no scene but the API-call demo: a program that builds\n"
	       "                        its world through the API and changes it between steps with\n"
	       "                        no input layer; every call is recorded (a CALLS replay)\n"
	       "Prints 'recorded ...' and, last, 'hash ' and the final state hash.\n");
	return 0;
}

/* record's own options at argv[*i]: CLI_GO, or the exit status */
static int record_option(int argc, char **argv, int *i, record_args *ra)
{
	const char *a = argv[*i];
	fxs_record_options *o = &ra->o;
	if (strcmp(a, "--scripted") == 0) {
		o->scripted = true;
	} else if (strcmp(a, "--calls") == 0) {
		ra->calls = true;
	} else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
		if (++*i >= argc || !argv[*i][0])
			return cli_usage_error("-o needs a file name");
		ra->out = argv[*i];
	} else if (strcmp(a, "--chunk-ticks") == 0) {
		if (++*i >= argc || !cli_parse_u32(argv[*i], &o->chunk_ticks) || o->chunk_ticks < 1 ||
		    o->chunk_ticks > FXS_REPLAY_MAX_CHUNK_TICKS)
			return cli_usage_error("--chunk-ticks needs 1..%u", FXS_REPLAY_MAX_CHUNK_TICKS);
	} else if (strcmp(a, "--no-detail") == 0) {
		o->flags &= ~FXS_REPLAY_FLAG_DETAIL;
	} else if (strcmp(a, "--detail") == 0) {
		o->flags |= FXS_REPLAY_FLAG_DETAIL;
	} else if (strcmp(a, "--perturb-input") == 0 || strcmp(a, "--tamper-input") == 0) {
		if (++*i >= argc || !parse_tick_player(argv[*i], &o->perturb_tick, &o->perturb_player))
			return cli_usage_error("%s needs TICK (>= 1) or TICK:PLAYER", a);
		o->tamper = strcmp(a, "--tamper-input") == 0;
	} else if (!cli_positional("record", a, &ra->name, 1)) {
		return 2;
	}
	return CLI_GO;
}

static int record_parse(int argc, char **argv, record_args *ra)
{
	memset(ra, 0, sizeof *ra);
	ra->o.flags = FXS_REPLAY_FLAG_DETAIL;
	for (int i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--help") == 0)
			return record_usage();
		int rc = input_option(argc, argv, &i, &ra->in);
		if (rc == NOT_AN_INPUT_OPTION)
			rc = record_option(argc, argv, &i, ra);
		if (rc != CLI_GO)
			return rc;
	}
	if (ra->calls) {
		if (ra->name || ra->in.inputs || ra->in.has_seed || ra->o.scripted || ra->in.players || ra->o.perturb_tick)
			return cli_usage_error("record --calls takes no scene, inputs, players or perturbation");
		if (!ra->in.has_steps || !ra->out)
			return cli_usage_error("record --calls needs --steps N and -o FILE");
		ra->o.steps = ra->in.steps;
		return CLI_GO;
	}
	if (!ra->name)
		return cli_usage_error("record needs a scene name (see fixstep scenes)");
	if (!(ra->o.scene = cli_scene(ra->name)))
		return 2;
	if (!ra->in.has_steps)
		return cli_usage_error("record needs --steps N");
	if (!ra->out)
		return cli_usage_error("record needs -o FILE");
	if (!!ra->in.inputs + ra->in.has_seed + ra->o.scripted != 1)
		return cli_usage_error("record needs exactly one of --inputs FILE, --random-inputs SEED and --scripted");
	if (ra->o.scripted && !ra->o.scene->script)
		return cli_usage_error("scene '%s' has no scripted players", ra->name);
	if (ra->o.perturb_tick > ra->in.steps)
		return cli_usage_error("%s %llu is beyond --steps %u: nothing would change",
				       ra->o.tamper ? "--tamper-input" : "--perturb-input", (unsigned long long)ra->o.perturb_tick,
				       ra->in.steps);
	ra->o.steps = ra->in.steps;
	ra->o.seed = ra->in.seed;
	return CLI_GO;
}

/* The input script (when there is one) and the players, checked against
 * each other: CLI_GO, or 2 after the error (the script then freed). */
static int record_inputs(record_args *ra, fxs_input_script *script)
{
	int rc = load_script(&ra->in, script);
	if (rc != CLI_GO)
		return rc;
	uint32_t players = ra->in.players;
	if (players && script->players && players != script->players)
		rc = cli_usage_error("--players %u but %s says 'players %u'", players, ra->in.inputs, script->players);
	if (!players)
		players = script->players ? script->players : ra->o.scene->players;
	const fxs_input_script_entry *e = script_beyond(script, players);
	if (rc == CLI_GO && e)
		rc = cli_usage_error("%s: input for player %u, but the recording has %u players", ra->in.inputs, e->player,
				     players);
	if (rc == CLI_GO && ra->o.perturb_tick && ra->o.perturb_player >= players)
		rc = cli_usage_error("perturbed player %u, but the recording has %u players", ra->o.perturb_player, players);
	if (rc != CLI_GO)
		fxs_input_script_free(script);
	ra->o.script = ra->in.inputs ? script : NULL;
	ra->o.players = players;
	return rc;
}

/* Records the replay: 0 with its final hash and size (-1 if it cannot be
 * read back), or 1 after the error. */
static void record_progress(uint64_t tick, void *ctx) { cli_progress_update(ctx, tick, tick); }

static int record_run(const record_args *ra, uint64_t *final, long *size)
{
	char err[256];
	cli_progress pr; /* by ticks recorded */
	fxs_record_options o = ra->o;
	cli_progress_init(&pr, "recording", o.steps, false);
	o.on_tick = record_progress, o.ctx = &pr;
	fxs_replay_status st = fxs_replay_record(ra->out, &o, final, err, sizeof err);
	cli_progress_end(&pr);
	if (st != FXS_REPLAY_OK) {
		fprintf(stderr, "fixstep: %s\n", err);
		return 1;
	}
	FILE *f = fopen(ra->out, "rb");
	*size = -1;
	if (f && fseek(f, 0, SEEK_END) == 0)
		*size = ftell(f);
	if (f)
		fclose(f);
	return 0;
}

static void record_report(const record_args *ra, uint64_t final, long size)
{
	const fxs_record_options *o = &ra->o;
	uint32_t ck = o->chunk_ticks ? o->chunk_ticks : FXS_REPLAY_DEFAULT_CHUNK_TICKS;
	printf("recorded %s: %u ticks, %u player%s, %u chunks, %ld bytes -> %s\n", ra->name, o->steps, o->players,
	       o->players == 1 ? "" : "s", (o->steps + ck - 1) / ck, size, ra->out);
	printf("hash %016" PRIx64 "\n", final);
}

/* record --calls: the API-call demo as a CALLS replay */
static int record_calls(const record_args *ra)
{
	char err[256];
	uint64_t final = 0;
	const fxs_record_options *o = &ra->o;
	if (fxs_calls_demo_record(ra->out, o->steps, o->chunk_ticks, o->flags, &final, err, sizeof err) != FXS_REPLAY_OK) {
		fprintf(stderr, "fixstep: %s\n", err);
		return 1;
	}
	printf("recorded calls_demo: %u ticks of API calls -> %s\n", o->steps, ra->out);
	printf("hash %016" PRIx64 "\n", final);
	return 0;
}

int cmd_record(int argc, char **argv)
{
	record_args ra;
	fxs_input_script script;
	int rc = record_parse(argc, argv, &ra);
	if (rc == CLI_GO && ra.calls)
		return record_calls(&ra);
	if (rc != CLI_GO || (rc = record_inputs(&ra, &script)) != CLI_GO)
		return rc;
	uint64_t final = 0;
	long size;
	rc = record_run(&ra, &final, &size);
	fxs_input_script_free(&script);
	if (rc == 0)
		record_report(&ra, final, size);
	return rc;
}

/* ---- log ---- */

static int log_usage(void)
{
	printf("usage: fixstep log SCENE [--steps N] [--inputs FILE | --random-inputs SEED] [--players P]\n\n"
	       "The determinism log: runs SCENE (default: its own step count; no inputs unless\n"
	       "given) and prints, after every step, one line per body slot with its state\n"
	       "bits in hex, 'STEP SLOT g GEN p X Y Z q X Y Z W v X Y Z w X Y Z h BODYHASH',\n"
	       "then 'STEP hash STATEHASH'. Run it on two platforms and diff the outputs: the\n"
	       "first differing line names the step, the body and the field.\n"
	       "(For a replay: fixstep replay FILE --to STEP --log-bits.)\n");
	return 0;
}

static int log_parse(int argc, char **argv, const fxs_scene **sc, input_options *in)
{
	const char *name = NULL;
	memset(in, 0, sizeof *in);
	for (int i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--help") == 0)
			return log_usage();
		int rc = input_option(argc, argv, &i, in);
		if (rc == NOT_AN_INPUT_OPTION)
			rc = cli_positional("log", argv[i], &name, 1) ? CLI_GO : 2;
		if (rc != CLI_GO)
			return rc;
	}
	if (!name)
		return cli_usage_error("log needs a scene name (see fixstep scenes)");
	if (!(*sc = cli_scene(name)))
		return 2;
	if (in->inputs && in->has_seed)
		return cli_usage_error("log takes at most one of --inputs and --random-inputs");
	if (!in->has_steps)
		in->steps = (*sc)->default_steps;
	return CLI_GO;
}

/* The input script and the players (the scene's or the script's when not
 * given): CLI_GO, or 2 after the error (the script then freed). */
static int log_inputs(const fxs_scene *sc, input_options *in, fxs_input_script *script)
{
	int rc = load_script(in, script);
	if (rc != CLI_GO)
		return rc;
	if (!in->players)
		in->players = script->players ? script->players : sc->players;
	const fxs_input_script_entry *e = script_beyond(script, in->players);
	if (!e)
		return CLI_GO;
	rc = cli_usage_error("%s: input for player %u of %u", in->inputs, e->player, in->players);
	fxs_input_script_free(script);
	return rc;
}

/* Runs the scene, printing every body's state bits after every step: the
 * exit status. */
static int log_run(const fxs_scene *sc, const input_options *in, const fxs_input_script *script)
{
	fxs_world *w = cli_scene_world(sc);
	if (!w)
		return 2;
	fxs_input held[FXS_MAX_PLAYERS];
	for (int p = 0; p < FXS_MAX_PLAYERS; ++p)
		held[p] = fxs_input_neutral();
	size_t cursor = 0;
	int rc = 0;
	fxs_world_log_bits(stdout, w, fxs_world_get_step(w));
	for (uint32_t s = 0; s < in->steps && rc == 0; ++s) {
		uint64_t tick = fxs_world_get_step(w) + 1;
		fxs_input rnd[FXS_MAX_PLAYERS];
		if (in->has_seed) {
			fxs_inputs_random(in->seed, tick, in->players, rnd);
			sc->apply_inputs(w, rnd, in->players, tick);
		} else if (in->inputs) {
			fxs_input_script_at(script, &cursor, tick, held);
			sc->apply_inputs(w, held, in->players, tick);
		}
		if (cli_step(w))
			fxs_world_log_bits(stdout, w, tick);
		else
			rc = 1;
	}
	fxs_world_destroy(w);
	return rc;
}

int cmd_log(int argc, char **argv)
{
	const fxs_scene *sc = NULL;
	input_options in;
	fxs_input_script script;
	int rc = log_parse(argc, argv, &sc, &in);
	if (rc != CLI_GO || (rc = log_inputs(sc, &in, &script)) != CLI_GO)
		return rc;
	rc = log_run(sc, &in, &script);
	fxs_input_script_free(&script);
	return rc;
}
