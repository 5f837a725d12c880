/* fixstep bench: ms per step (median of runs), the hashing share, bytes per
 * body of a snapshot, and the final hash (identical across runs, checked).
 * With Bullet's program beside it, each fixstep run is followed by a Bullet
 * run on the same scene, so that both see the same moments of a shared
 * machine; the ratio printed is the median of the runs' ratios. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "cli/commands.h"
#include "scenes/scenes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Bullet on the same scene (build/bullet_scenes from `make bench-bullet`,
 * next to this program), when it is there and knows the scene: one run of
 * `steps` steps; false when there is none. */
typedef struct bullet_run {
	double ms, bytes_per_body, drop;
	int substeps, iterations;
} bullet_run;

static bool bullet_once(const char *scene, uint32_t steps, bullet_run *out)
{
	char path[4096];
	ssize_t k = readlink("/proc/self/exe", path, sizeof path - 32);
	if (k <= 0)
		return false;
	path[k] = 0;
	char *slash = strrchr(path, '/');
	if (!slash)
		return false;
	strcpy(slash + 1, "bullet_scenes");
	if (access(path, X_OK) != 0)
		return false;
	char cmd[4400];
	snprintf(cmd, sizeof cmd, "'%s' '%s' %u 2>/dev/null", path, scene, steps);
	FILE *f = popen(cmd, "r");
	if (!f)
		return false;
	char line[512];
	bool got = false;
	while (fgets(line, sizeof line, f)) {
		int n;
		size_t bodies;
		if (sscanf(line, "bullet scene=%*s ms=%lf steps=%d bodies=%zu bytes_per_body=%lf substeps=%d iterations=%d top_drop=%lf",
			   &out->ms, &n, &bodies, &out->bytes_per_body, &out->substeps, &out->iterations, &out->drop) == 7)
			got = true;
	}
	pclose(f);
	return got;
}

static double median_of(const double *x, uint32_t n)
{
	double s[100];
	memcpy(s, x, n * sizeof *x);
	qsort(s, n, sizeof *s, cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

int cmd_bench(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "broadphase") == 0)
		return cli_bench_broadphase(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "narrowphase") == 0)
		return cli_bench_narrowphase(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "rollback") == 0)
		return cli_bench_rollback(argc - 1, argv + 1);
	const char *name = NULL;
	uint32_t steps = 0, runs = 3;
	int has_steps = 0, use_bullet = 1, kernels = -1;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			printf("usage: fixstep bench SCENE [--steps N] [--runs R] [--no-bullet] [--kernels K]\n"
			       "       fixstep bench broadphase [--help]\n"
			       "       fixstep bench narrowphase [--help]\n"
			       "       fixstep bench rollback [--help]\n\n"
			       "Runs SCENE R times (default 3) for N steps (default: the scene's count) and\n"
			       "prints ms per step (median over runs), the share of the step spent hashing\n"
			       "the state, snapshot bytes per body, and the final hash; with build/bullet_scenes\n"
			       "(make bench-bullet) Bullet's figures on the same scene beside them: Bullet\n"
			       "runs once after each fixstep run, and fixstep/bullet is the median of the\n"
			       "runs' ratios (with their range), the figure to compare across machines.\n"
			       "--kernels portable, avx2 or avx512: the solver kernels to use at most\n"
			       "(default: the widest this machine has; the hash is the same with any).\n");
			return 0;
		} else if (strcmp(a, "--steps") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &steps) || steps == 0)
				return cli_usage_error("--steps needs a positive integer");
			has_steps = 1;
		} else if (strcmp(a, "--no-bullet") == 0) {
			use_bullet = 0;
		} else if (strcmp(a, "--runs") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &runs) || runs == 0 || runs > 100)
				return cli_usage_error("--runs needs an integer in 1..100");
		} else if (strcmp(a, "--kernels") == 0) {
			if (++i >= argc || (kernels = cli_parse_kernels(argv[i])) < 0)
				return cli_usage_error("--kernels needs portable, avx2 or avx512");
		} else if (a[0] == '-') {
			return cli_usage_error("bench: unknown option '%s'", a);
		} else if (!name) {
			name = a;
		} else {
			return cli_usage_error("bench: unexpected argument '%s'", a);
		}
	}
	if (!name)
		return cli_usage_error("bench needs a scene name (see fixstep scenes)");
	const fxs_scene *sc = fxs_scene_find(name);
	if (!sc)
		return cli_usage_error("unknown scene '%s' (see fixstep scenes)", name);
	if (!has_steps)
		steps = sc->default_steps;
	/* per run: ms per step, of it hashing, Bullet's, the ratio (runs <= 100) */
	double run_ms[100], hash_ms[100], bullet_ms[100], ratio[100];
	bullet_run bullet = { 0 };
	uint32_t bullet_runs = 0;
	uint64_t final_hash = 0;
	uint32_t bodies = 0;
	size_t snap = 0;
	fxs_kernels used = FXS_KERNELS_PORTABLE;
	int rc = 0;
	for (uint32_t r = 0; r < runs && rc == 0; ++r) {
		fxs_world *w = sc->create();
		if (!w) {
			rc = cli_usage_error("scene '%s' could not be created", name);
			break;
		}
		if (r == 0)
			cli_use_kernels(w, kernels);
		else if (kernels >= 0)
			fxs_world_set_kernels(w, (fxs_kernels)kernels);
		used = fxs_world_get_kernels(w);
		uint64_t total = 0, hashing = 0;
		for (uint32_t s = 0; s < steps; ++s) {
			uint64_t t0 = cli_now_ns();
			fxs_world_step(w);
			uint64_t t1 = cli_now_ns();
			fxs_world_rehash(w); /* the same work the step did to hash, timed alone */
			uint64_t t2 = cli_now_ns();
			total += t1 - t0;
			hashing += t2 - t1;
		}
		uint64_t h = fxs_world_hash(w);
		if (r > 0 && h != final_hash) {
			fprintf(stderr, "fixstep: bench: run %u ended with hash %016" PRIx64 ", run 0 with %016" PRIx64 "\n", r, h,
				final_hash);
			rc = 1;
		}
		final_hash = h;
		bodies = fxs_world_body_count(w);
		snap = fxs_world_snapshot_size(w);
		run_ms[r] = (double)total / steps / 1e6;
		hash_ms[r] = (double)hashing / steps / 1e6;
		fxs_world_destroy(w);
		/* Bullet right after, on the same scene */
		if (rc == 0 && use_bullet && (r == 0 || bullet_runs == r) && bullet_once(name, steps, &bullet) && bullet.ms > 0) {
			bullet_ms[bullet_runs] = bullet.ms;
			ratio[bullet_runs] = run_ms[r] / bullet.ms;
			++bullet_runs;
		}
	}
	if (rc != 0)
		return rc;
	double med = median_of(run_ms, runs), hmed = median_of(hash_ms, runs);
	printf("scene %s: %u bodies, %u steps, %u runs\n", name, bodies, steps, runs);
	printf("ms/step %.3f (median)\n", med);
	printf("kernels %s\n", fxs_kernels_name(used));
	printf("hashing %.3f ms/step = %.2f%% of a step\n", hmed, 100.0 * hmed / med);
	printf("snapshot %zu bytes = %.1f bytes/body\n", snap, bodies ? (double)snap / bodies : 0.0);
	if (bullet_runs > 0) {
		double lo = ratio[0], hi = ratio[0];
		for (uint32_t r = 1; r < bullet_runs; ++r)
			lo = ratio[r] < lo ? ratio[r] : lo, hi = ratio[r] > hi ? ratio[r] : hi;
		printf("bullet ms/step %.3f (%d sub-step%s x %d iterations), %.1f bytes/body, highest body sank %.3f m; "
		       "fixstep/bullet %.2f\n",
		       median_of(bullet_ms, bullet_runs), bullet.substeps, bullet.substeps == 1 ? "" : "s", bullet.iterations,
		       bullet.bytes_per_body, bullet.drop, median_of(ratio, bullet_runs));
		if (bullet_runs > 1)
			printf("fixstep/bullet per run: median %.3f, range %.3f-%.3f over %u alternating runs\n",
			       median_of(ratio, bullet_runs), lo, hi, bullet_runs);
	}
	printf("hash %016" PRIx64 "\n", final_hash);
	return 0;
}
