/* fixstep scenes | run */
#include "cli/cli.h"
#include "cli/commands.h"
#include "scenes/scenes.h"

#include <inttypes.h>
#include <libfixmath/fix16.h>
#include <string.h>

const char *cli_fix_str(fix16_t v, char buf[16])
{
	fix16_to_str(v, buf, 5);
	return buf;
}

int cmd_scenes(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		printf("usage: fixstep scenes\n\nLists the built-in scenes, one per line: name, default steps, description.\n");
		return 0;
	}
	if (argc > 1)
		return cli_usage_error("scenes takes no arguments");
	uint32_t n;
	const fxs_scene *s = fxs_scenes(&n);
	for (uint32_t i = 0; i < n; ++i)
		printf("%-20s %5u  %s\n", s[i].name, s[i].default_steps, s[i].description);
	return 0;
}

static void print_trace(const fxs_world *w, uint32_t slot, uint64_t step)
{
	fxs_body_id id = fxs_world_body_at(w, slot);
	fxg_vec3 p = fxs_body_get_position(w, id), v = fxs_body_get_linear_velocity(w, id);
	char a[16], b[16], c[16], d[16], e[16], f[16];
	printf("trace %" PRIu64 " body %u p %s %s %s v %s %s %s\n", step, slot, cli_fix_str(p.x, a), cli_fix_str(p.y, b),
	       cli_fix_str(p.z, c), cli_fix_str(v.x, d), cli_fix_str(v.y, e), cli_fix_str(v.z, f));
}

int cmd_run(int argc, char **argv)
{
	const char *name = NULL;
	uint32_t steps = 0, every = 0, trace = 0;
	int has_steps = 0, has_trace = 0, kernels = -1;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			printf("usage: fixstep run SCENE [--steps N] [--hash-every K] [--trace BODY] [--kernels K]\n\n"
			       "Runs SCENE for N steps (default: the scene's own count). Prints 'step S HASH'\n"
			       "every K steps (K > 0) and, always as its last line, 'hash ' and the final\n"
			       "state hash in 16 lowercase hex digits. --trace prints body BODY's (slot index)\n"
			       "position and velocity after every step, in decimal. --kernels portable, avx2\n"
			       "or avx512: the solver kernels to use at most (default: the widest this machine\n"
			       "has; the hashes are the same with any).\n");
			return 0;
		} else if (strcmp(a, "--steps") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &steps))
				return cli_usage_error("--steps needs a non-negative integer");
			has_steps = 1;
		} else if (strcmp(a, "--hash-every") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &every))
				return cli_usage_error("--hash-every needs a non-negative integer");
		} else if (strcmp(a, "--trace") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &trace))
				return cli_usage_error("--trace needs a body slot index");
			has_trace = 1;
		} else if (strcmp(a, "--kernels") == 0) {
			if (++i >= argc || (kernels = cli_parse_kernels(argv[i])) < 0)
				return cli_usage_error("--kernels needs portable, avx2 or avx512");
		} else if (a[0] == '-') {
			return cli_usage_error("run: unknown option '%s'", a);
		} else if (!name) {
			name = a;
		} else {
			return cli_usage_error("run: unexpected argument '%s'", a);
		}
	}
	if (!name)
		return cli_usage_error("run needs a scene name (see fixstep scenes)");
	const fxs_scene *sc = fxs_scene_find(name);
	if (!sc)
		return cli_usage_error("unknown scene '%s' (see fixstep scenes)", name);
	fxs_world *w = sc->create();
	if (!w)
		return cli_usage_error("scene '%s' could not be created", name);
	cli_use_kernels(w, kernels);
	if (has_trace && !fxs_body_is_valid(w, fxs_world_body_at(w, trace))) {
		fxs_world_destroy(w);
		return cli_usage_error("--trace: scene '%s' has no body %u", name, trace);
	}
	if (!has_steps)
		steps = sc->default_steps;
	for (uint32_t s = 1; s <= steps; ++s) {
		if (!cli_step(w)) {
			fxs_world_destroy(w);
			return 1;
		}
		if (has_trace)
			print_trace(w, trace, s);
		if (every && s % every == 0)
			printf("step %u %016" PRIx64 "\n", s, fxs_world_hash(w));
	}
	printf("hash %016" PRIx64 "\n", fxs_world_hash(w));
	fxs_world_destroy(w);
	return 0;
}

/* fixstep settle: when a scene falls asleep, for the crosscheck's golden
 * sleep steps (tests/test_solver.c holds the x86-64 values). */
int cmd_settle(int argc, char **argv)
{
	const char *name = NULL;
	uint32_t steps = 3000;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			printf("usage: fixstep settle SCENE [--steps N]\n\n"
			       "Runs SCENE for N steps (default 3000) and prints, as its last line,\n"
			       "'asleep S hash H': S the first step after which no body is awake (0 if\n"
			       "none), H the final state hash.\n");
			return 0;
		} else if (strcmp(a, "--steps") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &steps))
				return cli_usage_error("--steps needs a non-negative integer");
		} else if (a[0] == '-') {
			return cli_usage_error("settle: unknown option '%s'", a);
		} else if (!name) {
			name = a;
		} else {
			return cli_usage_error("settle: unexpected argument '%s'", a);
		}
	}
	if (!name)
		return cli_usage_error("settle needs a scene name (see fixstep scenes)");
	const fxs_scene *sc = fxs_scene_find(name);
	if (!sc)
		return cli_usage_error("unknown scene '%s' (see fixstep scenes)", name);
	fxs_world *w = sc->create();
	if (!w)
		return cli_usage_error("scene '%s' could not be created", name);
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
