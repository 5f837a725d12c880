/* fixstep scenes | run | settle */
#include "cli/cli.h"
#include "cli/commands.h"
#include "scenes/scenes.h"

#include <errno.h>
#include <inttypes.h>
#include <libfixmath/fix16.h>
#include <stdlib.h>
#include <string.h>

/* "12.34567" for a Q16.16 value (libfixmath's fix16_to_str, 5 decimals) */
static const char *fix_str(fix16_t v, char buf[16])
{
	fix16_to_str(v, buf, 5);
	return buf;
}

void cli_print_trace(const fxs_world *w, uint32_t slot, uint64_t step)
{
	fxs_body_id id = fxs_world_body_at(w, slot);
	fxg_vec3 p = fxs_body_get_position(w, id), v = fxs_body_get_linear_velocity(w, id);
	char a[16], b[16], c[16], d[16], e[16], f[16];
	printf("trace %" PRIu64 " body %u p %s %s %s v %s %s %s\n", step, slot, fix_str(p.x, a), fix_str(p.y, b),
	       fix_str(p.z, c), fix_str(v.x, d), fix_str(v.y, e), fix_str(v.z, f));
}

int cmd_scenes(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		printf("usage: fixstep scenes [--start-hashes]\n\nLists the built-in scenes, one per line: name, default steps, description.\n"
		       "--start-hashes: each scene's start state hash as this build computes it, as\n"
		       "the lines of tools/scenes/scene_starts.c's table of golden starts.\n");
		return 0;
	}
	bool starts = argc == 2 && strcmp(argv[1], "--start-hashes") == 0;
	if (argc > 1 && !starts)
		return cli_usage_error("scenes takes no arguments but --start-hashes");
	uint32_t n;
	const fxs_scene *s = fxs_scenes(&n);
	for (uint32_t i = 0; starts && i < n; ++i) {
		fxs_world *w = cli_scene_world(&s[i]);
		if (!w)
			return 1;
		printf("\t{ \"%s\", 0x%016" PRIx64 "ull },\n", s[i].name, fxs_world_hash(w));
		fxs_world_destroy(w);
	}
	if (starts)
		return 0;
	for (uint32_t i = 0; i < n; ++i)
		printf("%-20s %5u  %s\n", s[i].name, s[i].default_steps, s[i].description);
	return 0;
}

/* ---- run ---- */

typedef struct run_options {
	const fxs_scene *sc;
	const char *snapshot; /* --snapshot FILE */
	uint32_t steps, every, trace;
	bool has_trace;
	int kernels; /* -1: the widest */
	uint32_t workers; /* the step's threads (the built-in pool) */
} run_options;

/* --help; the exit status 0 */
static int run_usage(void)
{
	printf("usage: fixstep run SCENE [--steps N] [--hash-every K] [--trace BODY] [--kernels K]\n"
	       "                   [--workers N] [--snapshot FILE]\n\n"
	       "Runs SCENE for N steps (default: the scene's own count). Prints 'step S HASH'\n"
	       "every K steps (K > 0) and, always as its last line, 'hash ' and the final\n"
	       "state hash in 16 lowercase hex digits. --trace prints body BODY's (slot index)\n"
	       "position and velocity after every step, in decimal. --kernels portable, sse4,\n"
	       "avx2, avx512, simd128 or neon: the solver kernels to use at most (default: the\n"
	       "widest this machine has; the hashes are the same with any). --workers N: the step's\n"
	       "threads, 1..64 (default 1; the hashes are the same with any). --snapshot writes the state at\n"
	       "the end to FILE (a start for `fixstep verify --start`).\n");
	return 0;
}

static int run_parse(int argc, char **argv, run_options *o)
{
	const char *name = NULL;
	bool has_steps = false;
	*o = (run_options){ .kernels = -1, .workers = 1 };
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			return run_usage();
		} else if (strcmp(a, "--steps") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o->steps))
				return cli_usage_error("--steps needs a non-negative integer");
			has_steps = true;
		} else if (strcmp(a, "--hash-every") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o->every))
				return cli_usage_error("--hash-every needs a non-negative integer");
		} else if (strcmp(a, "--trace") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o->trace))
				return cli_usage_error("--trace needs a body slot index");
			o->has_trace = true;
		} else if (strcmp(a, "--workers") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o->workers) || o->workers == 0 || o->workers > FXS_MAX_WORKERS)
				return cli_usage_error("--workers needs an integer in 1..%d", FXS_MAX_WORKERS);
		} else if (strcmp(a, "--kernels") == 0) {
			if ((o->kernels = cli_parse_kernels(++i < argc ? argv[i] : NULL)) < 0)
				return 2;
		} else if (strcmp(a, "--snapshot") == 0) {
			if (++i >= argc || !argv[i][0])
				return cli_usage_error("--snapshot needs a file name");
			o->snapshot = argv[i];
		} else if (!cli_positional("run", a, &name, 1)) {
			return 2;
		}
	}
	if (!name)
		return cli_usage_error("run needs a scene name (see fixstep scenes)");
	if (!(o->sc = cli_scene(name)))
		return 2;
	if (!has_steps)
		o->steps = o->sc->default_steps;
	return CLI_GO;
}

/* The lines of step s: the traced body, and the hash every K steps. */
static void run_report_step(const run_options *o, const fxs_world *w, uint32_t s)
{
	if (o->has_trace)
		cli_print_trace(w, o->trace, s);
	if (o->every && s % o->every == 0)
		printf("step %u %016" PRIx64 "\n", s, fxs_world_hash(w));
}

/* w's snapshot into path: 0, or 1 after the reason. */
static int save_snapshot(const fxs_world *w, const char *path)
{
	size_t n = fxs_world_snapshot_size(w);
	void *buf = malloc(n);
	FILE *f = NULL;
	int ok = buf && fxs_world_snapshot_save(w, buf, n, &n) == FXS_OK;
	if (!ok)
		fprintf(stderr, "fixstep: %s: out of memory\n", path);
	else if (!(f = fopen(path, "wb")) || fwrite(buf, 1, n, f) != n || fflush(f) != 0)
		fprintf(stderr, "fixstep: cannot write %s: %s\n", path, strerror(errno)), ok = 0;
	if (f && fclose(f) != 0 && ok)
		fprintf(stderr, "fixstep: cannot write %s: %s\n", path, strerror(errno)), ok = 0;
	free(buf);
	return ok ? 0 : 1;
}

/* Runs the scene, reporting every step as it goes; the exit status, and
 * when it is 0 the final hash. */
static int run_scene(const run_options *o, uint64_t *hash)
{
	fxs_world *w = cli_scene_world(o->sc);
	if (!w)
		return 2;
	cli_use_kernels(w, o->kernels);
	fxs_world_set_workers(w, o->workers, NULL, NULL, NULL);
	if (o->has_trace && !fxs_body_is_valid(w, fxs_world_body_at(w, o->trace))) {
		fxs_world_destroy(w);
		return cli_usage_error("--trace: scene '%s' has no body %u", o->sc->name, o->trace);
	}
	int rc = 0;
	for (uint32_t s = 1; s <= o->steps && rc == 0; ++s) {
		if (cli_step(w))
			run_report_step(o, w, s);
		else
			rc = 1;
	}
	if (rc == 0)
		*hash = fxs_world_hash(w);
	if (rc == 0 && o->snapshot)
		rc = save_snapshot(w, o->snapshot);
	fxs_world_destroy(w);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	run_options o;
	uint64_t hash = 0;
	int rc = run_parse(argc, argv, &o);
	if (rc != CLI_GO)
		return rc;
	rc = run_scene(&o, &hash);
	if (rc == 0)
		printf("hash %016" PRIx64 "\n", hash);
	return rc;
}

/* ---- settle ---- */

/* fixstep settle: when a scene falls asleep, for the crosscheck's golden
 * sleep steps (tests/test_solver.c holds the x86-64 values). */
static int settle_parse(int argc, char **argv, const fxs_scene **sc, uint32_t *steps)
{
	const char *name = NULL;
	*steps = 3000;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			printf("usage: fixstep settle SCENE [--steps N]\n\n"
			       "Runs SCENE for N steps (default 3000) and prints, as its last line,\n"
			       "'asleep S hash H': S the first step after which no body is awake (0 if\n"
			       "none), H the final state hash.\n");
			return 0;
		} else if (strcmp(a, "--steps") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], steps))
				return cli_usage_error("--steps needs a non-negative integer");
		} else if (!cli_positional("settle", a, &name, 1)) {
			return 2;
		}
	}
	if (!name)
		return cli_usage_error("settle needs a scene name (see fixstep scenes)");
	return (*sc = cli_scene(name)) ? CLI_GO : 2;
}

int cmd_settle(int argc, char **argv)
{
	const fxs_scene *sc = NULL;
	uint32_t steps;
	int rc = settle_parse(argc, argv, &sc, &steps);
	if (rc != CLI_GO)
		return rc;
	fxs_world *w = cli_scene_world(sc);
	if (!w)
		return 2;
	uint64_t asleep = 0;
	for (uint32_t s = 1; s <= steps; ++s) {
		if (!cli_step(w)) {
			fxs_world_destroy(w);
			return 1;
		}
		if (!asleep && fxs_world_get_stats(w).awake_body_count == 0)
			asleep = fxs_world_get_step(w);
	}
	printf("asleep %" PRIu64 " hash %016" PRIx64 "\n", asleep, fxs_world_hash(w));
	fxs_world_destroy(w);
	return 0;
}
