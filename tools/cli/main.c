/* fixstep: the command-line program. Each command has --help; bad arguments
 * get a one-line error and exit status 2. */
#include "cli/cli.h"
#include "cli/commands.h"
#include "fixstep/replay.h"

#include <string.h>

static const cli_command commands[] = {
	{ "scenes", "list the built-in scenes", cmd_scenes },
	{ "run", "run a scene and print its state hashes", cmd_run },
	{ "settle", "run a scene until it sleeps: the step it fell asleep and the hash", cmd_settle },
	{ "spherewalls", "seed 004 wall spheres for a scene's mesh, compared with the thick faces", cmd_spherewalls },
	{ "bench", "time a scene (or the broadphase / narrowphase micro-benchmarks)", cmd_bench },
	{ "record", "record a replay of a scene driven by player inputs", cmd_record },
	{ "verify", "re-simulate a replay and check every tick's hash", cmd_verify },
	{ "diff", "the first tick, body and field where two replays part", cmd_diff },
	{ "dump", "a replay's header, chunk table and per-tick hashes", cmd_dump },
	{ "replay", "re-simulate a replay to a step (trace, body hashes, state bits)", cmd_replay },
	{ "log", "the determinism log: every body's state bits after every step", cmd_log },
#ifndef FXS_NO_SESSIONS
	{ "peer", "run one lockstep / rollback session peer over UDP", cmd_peer },
	{ "netdemo", "start peer processes on 127.0.0.1 and report their session", cmd_netdemo },
#endif
	{ "synctest", "roll back and re-simulate every tick, comparing hashes (GGPO)", cmd_synctest },
	{ "events", "play a scene: its events and queries, digested for the crosscheck", cmd_events },
	{ "draw", "one view of a scene after N steps as an SVG image (debug draw)", cmd_draw },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: fixstep COMMAND [ARGS]   (fixstep COMMAND --help for details)\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr), 2;
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0)
		return usage(stdout), 0;
	if (strcmp(argv[1], "--version") == 0) {
		printf("fixstep %s (snapshot format %u, replay format %u)\n", fxs_version_string(), (unsigned)fxs_snapshot_version(), (unsigned)FXS_REPLAY_FORMAT_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
#ifdef FXS_NO_SESSIONS
	if (strcmp(argv[1], "peer") == 0 || strcmp(argv[1], "netdemo") == 0)
		return cli_usage_error("%s: this build has no sessions (made with SESSIONS=0, without libsodium)", argv[1]);
#endif
	return cli_usage_error("unknown command '%s' (try fixstep --help)", argv[1]);
}
