/* `fixstep bench broadphase`: the broadphase micro-benchmark of
 * docs/benchmarks.md, exactly (SplitMix64 seed 12345, boxes in
 * [0, L]^3 with L = cbrt(4N), fast and slow motion, 20 untimed warm-up
 * steps, 100 timed steps of update + pair finding), side by side with
 * Bullet's btDbvtBroadphase on the same float boxes (build/bullet_broadphase,
 * built by tools/bench/build.sh; optional), then the temporal-coherence
 * figures: swaps per step and tree quality against a tree rebuilt from
 * scratch every step.
 *
 * The motion is float, as the definition says (tools may use float); each
 * box is converted to Q16.16 outward (lo rounded down, hi up), so the
 * fixed-point boxes contain the float ones. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "broadphase/broadphase.h"

typedef struct motion {
	uint32_t n;
	float L;
	float *h, *c, *v; /* 3 per box */
	fxs_aabb *aabbs;
	uint8_t *flags;
} motion;

static uint64_t sm_state;
static uint64_t sm_next(void)
{
	uint64_t z = (sm_state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
static float uniform(float lo, float hi) { return lo + (hi - lo) * ((float)(sm_next() >> 40) * 0x1p-24f); }

/* floor and ceil of x * 65536 (exact in float: a power of two) without libm */
static fix16_t fix_floor(float x)
{
	float v = x * 65536.0f;
	int32_t i = (int32_t)v;
	return (float)i > v ? i - 1 : i;
}
static fix16_t fix_ceil(float x)
{
	float v = x * 65536.0f;
	int32_t i = (int32_t)v;
	return (float)i < v ? i + 1 : i;
}

/* cbrt(4n) by Newton in double, the same code as bullet_broadphase.cpp
 * (16, 32, 64 exactly for the three sizes) */
static float world_side(uint32_t n)
{
	double t = 4.0 * n, x = t > 1 ? t / 3 : 1;
	for (int k = 0; k < 200; ++k)
		x = (2 * x + t / (x * x)) / 3;
	return (float)x;
}

static void to_fixed(motion *m)
{
	for (uint32_t i = 0; i < m->n; ++i) {
		float lo[3], hi[3];
		for (int a = 0; a < 3; ++a) {
			lo[a] = m->c[3 * i + a] - m->h[3 * i + a];
			hi[a] = m->c[3 * i + a] + m->h[3 * i + a];
		}
		/* x * 65536 is exact in float (a power of two); then outward */
		m->aabbs[i].lo = (fxg_vec3){ fix_floor(lo[0]), fix_floor(lo[1]), fix_floor(lo[2]) };
		m->aabbs[i].hi = (fxg_vec3){ fix_ceil(hi[0]), fix_ceil(hi[1]), fix_ceil(hi[2]) };
	}
}

static int motion_init(motion *m, uint32_t n, float vmax)
{
	memset(m, 0, sizeof *m);
	m->n = n;
	m->L = world_side(n);
	m->h = malloc(sizeof(float) * 3 * n);
	m->c = malloc(sizeof(float) * 3 * n);
	m->v = malloc(sizeof(float) * 3 * n);
	m->aabbs = malloc(sizeof *m->aabbs * n);
	m->flags = malloc(n);
	if (!m->h || !m->c || !m->v || !m->aabbs || !m->flags)
		return 0;
	sm_state = 12345;
	for (uint32_t i = 0; i < n; ++i) {
		for (int a = 0; a < 3; ++a)
			m->h[3 * i + a] = uniform(0.25f, 0.75f);
		for (int a = 0; a < 3; ++a)
			m->c[3 * i + a] = uniform(m->h[3 * i + a], m->L - m->h[3 * i + a]);
		for (int a = 0; a < 3; ++a)
			m->v[3 * i + a] = uniform(-vmax, vmax);
		m->flags[i] = FXS_PROXY_LIVE | FXS_PROXY_MOVING;
	}
	to_fixed(m);
	return 1;
}

static void motion_free(motion *m)
{
	free(m->h);
	free(m->c);
	free(m->v);
	free(m->aabbs);
	free(m->flags);
}

/* c += v, reflect at the walls; damping < 1 slows everything (settling) */
static void motion_step(motion *m, float damping)
{
	for (uint32_t k = 0; k < 3 * m->n; ++k) {
		float h = m->h[k], c = m->c[k] + m->v[k];
		if (c < h) {
			c = 2 * h - c;
			m->v[k] = -m->v[k];
		} else if (c > m->L - h) {
			c = 2 * (m->L - h) - c;
			m->v[k] = -m->v[k];
		}
		m->c[k] = c;
		m->v[k] *= damping;
	}
	to_fixed(m);
}

typedef struct result {
	double ms;
	uint32_t pairs;
	double bytes_per_body;
	double swaps;      /* per timed step */
	double quality;    /* coherent tree / tree rebuilt from scratch, last step */
	double quality_id; /* coherent / rebuilt in slot order */
} result;

static uint64_t fresh_quality(const motion *m, int order)
{
	fxs_broadphase *bp = fxs_bp_create();
	if (!bp)
		return 0;
	fxs_bp_set_insert_order(bp, order);
	fxs_bp_update(bp, m->aabbs, m->flags, m->n);
	uint64_t q = fxs_bp_get_stats(bp).tree_quality;
	fxs_bp_destroy(bp);
	return q;
}

static int run_fixstep(uint32_t n, float vmax, uint32_t warm, uint32_t steps, result *res)
{
	motion m;
	if (!motion_init(&m, n, vmax))
		return 0;
	fxs_broadphase *bp = fxs_bp_create();
	if (!bp)
		return 0;
	uint32_t pc = 0;
	fxs_bp_update(bp, m.aabbs, m.flags, n);
	fxs_bp_find_pairs(bp, &pc);
	for (uint32_t s = 0; s < warm; ++s) {
		motion_step(&m, 1.0f);
		fxs_bp_update(bp, m.aabbs, m.flags, n);
		fxs_bp_find_pairs(bp, &pc);
	}
	uint64_t total = 0, swaps = 0;
	for (uint32_t s = 0; s < steps; ++s) {
		motion_step(&m, 1.0f);
		uint64_t t0 = cli_now_ns();
		fxs_bp_update(bp, m.aabbs, m.flags, n);
		fxs_bp_find_pairs(bp, &pc);
		total += cli_now_ns() - t0;
		swaps += fxs_bp_get_stats(bp).swaps;
	}
	fxs_bp_stats st = fxs_bp_get_stats(bp);
	res->ms = (double)total / 1e6 / steps;
	res->pairs = pc;
	res->bytes_per_body = (double)st.memory_bytes / n;
	res->swaps = (double)swaps / steps;
	res->quality = (double)st.tree_quality / (double)fresh_quality(&m, FXS_BP_ORDER_MORTON);
	res->quality_id = (double)st.tree_quality / (double)fresh_quality(&m, FXS_BP_ORDER_ID);
	fxs_bp_destroy(bp);
	motion_free(&m);
	return 1;
}

/* Bullet's figures from the helper program, or 0 if it is not there. */
static int run_bullet(const char *prog, uint32_t n, const char *mode, uint32_t warm, uint32_t steps, result *res,
		      uint32_t *exact_pairs)
{
	if (!prog || access(prog, X_OK) != 0)
		return 0;
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "'%s' %u %s %u %u", prog, n, mode, warm, steps);
	FILE *f = popen(cmd, "r");
	if (!f)
		return 0;
	char line[512];
	int ok = 0;
	while (fgets(line, sizeof line, f)) {
		double ms, bpb;
		unsigned pairs, exact;
		if (sscanf(line, "bullet ms=%lf pairs=%u exact=%u bytes_per_body=%lf", &ms, &pairs, &exact, &bpb) == 4) {
			res->ms = ms;
			res->pairs = pairs;
			res->bytes_per_body = bpb;
			*exact_pairs = exact;
			ok = 1;
		}
	}
	pclose(f);
	return ok;
}

static const char *default_bullet_path(char *buf, size_t cap)
{
	/* next to this program (build/fixstep -> build/bullet_broadphase) */
	ssize_t k = readlink("/proc/self/exe", buf, cap - 32);
	if (k > 0) {
		buf[k] = 0;
		char *slash = strrchr(buf, '/');
		if (slash) {
			strcpy(slash + 1, "bullet_broadphase");
			if (access(buf, X_OK) == 0)
				return buf;
		}
	}
	return "build/bullet_broadphase";
}

/* A settling scene: the benchmark boxes with their speed damped 3% per
 * step, until everything rests. */
static void coherence_report(uint32_t n, uint32_t steps)
{
	motion m;
	if (!motion_init(&m, n, 0.1f))
		return;
	fxs_broadphase *bp = fxs_bp_create();
	if (!bp)
		return;
	printf("\ntemporal coherence: settling scene, N = %u, fast motion damped 3%%/step\n", n);
	printf("%6s %10s %14s %14s %14s %10s\n", "step", "swaps", "quality", "q/rebuilt", "q/rebuilt-id", "pairs");
	fxs_bp_update(bp, m.aabbs, m.flags, n);
	for (uint32_t s = 0; s <= steps; ++s) {
		if (s) {
			motion_step(&m, 0.97f);
			fxs_bp_update(bp, m.aabbs, m.flags, n);
		}
		uint32_t pc;
		fxs_bp_find_pairs(bp, &pc);
		if (s == 0 || s == 1 || s == 2 || s == 5 || s % 50 == 0 || s == 10 || s == 20) {
			fxs_bp_stats st = fxs_bp_get_stats(bp);
			uint64_t qm = fresh_quality(&m, FXS_BP_ORDER_MORTON), qi = fresh_quality(&m, FXS_BP_ORDER_ID);
			printf("%6u %10u %14.4g %14.3f %14.3f %10u\n", s, st.swaps, (double)st.tree_quality / 65536.0,
			       (double)st.tree_quality / (double)qm, (double)st.tree_quality / (double)qi, pc);
		}
	}
	printf("quality = sum of internal node sizes (edge sums, m); rebuilt = a fresh tree each step\n"
	       "(Morton insertion + one swap pass), rebuilt-id = fresh in slot order + one swap pass\n");
	fxs_bp_destroy(bp);
	motion_free(&m);
}

typedef struct bpb_options {
	uint32_t only_n, steps, warm;
	bool quick;
	const char *bullet; /* Bullet's program, or NULL: none */
	char pathbuf[1024];
} bpb_options;

static int bpb_parse(int argc, char **argv, bpb_options *o)
{
	bool use_bullet = true;
	memset(o, 0, sizeof *o);
	o->steps = 100, o->warm = 20;
	/* argv[0] is the command's name ("broadphase"), as in main */
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			printf("usage: fixstep bench broadphase [--n N] [--steps S] [--quick] [--no-bullet] [--bullet PATH]\n"
			       "  N = 1024, 8192, 65536 boxes in [0, cbrt(4N)]^3, fast (0.1/step) and slow (0.01/step)\n"
			       "  motion; ms per step of update + pair finding over S timed steps (default 100) after\n"
			       "  20 warm-up steps; Bullet's btDbvtBroadphase alongside when build/bullet_broadphase\n"
			       "  exists (tools/bench/build.sh or make bench-bullet).\n");
			return 0;
		} else if (strcmp(a, "--quick") == 0) {
			o->quick = true;
		} else if (strcmp(a, "--no-bullet") == 0) {
			use_bullet = false;
		} else if (strcmp(a, "--bullet") == 0 && i + 1 < argc) {
			o->bullet = argv[++i];
		} else if (strcmp(a, "--n") == 0 && i + 1 < argc) {
			if (!cli_parse_u32(argv[++i], &o->only_n) || o->only_n < 2)
				return cli_usage_error("bench broadphase: bad --n '%s'", argv[i]);
		} else if (strcmp(a, "--steps") == 0 && i + 1 < argc) {
			if (!cli_parse_u32(argv[++i], &o->steps) || o->steps == 0)
				return cli_usage_error("bench broadphase: bad --steps '%s'", argv[i]);
		} else {
			return cli_usage_error("bench broadphase: unknown argument '%s'", a);
		}
	}
	if (!o->bullet)
		o->bullet = default_bullet_path(o->pathbuf, sizeof o->pathbuf);
	if (!use_bullet)
		o->bullet = NULL;
	return CLI_GO;
}

/* One row of the table: N boxes in fast or slow motion, fixstep and (when
 * have_bullet) Bullet; 0, or 1 when out of memory. */
static int bpb_row(const bpb_options *o, uint32_t n, int fast, int have_bullet)
{
	result r = { 0 }, b = { 0 };
	uint32_t exact = 0;
	if (!run_fixstep(n, fast ? 0.1f : 0.01f, o->warm, o->steps, &r)) {
		fprintf(stderr, "fixstep: bench broadphase: out of memory\n");
		return 1;
	}
	int hb = have_bullet && run_bullet(o->bullet, n, fast ? "fast" : "slow", o->warm, o->steps, &b, &exact);
	printf("%7u %5s | %10.3f %9u %9.0f %8.1f %8.3f |", n, fast ? "fast" : "slow", r.ms, r.pairs, r.bytes_per_body,
	       r.swaps, r.quality);
	if (hb)
		printf(" %10.3f %9u %9u %9.0f | %6.1fx\n", b.ms, b.pairs, exact, b.bytes_per_body, b.ms / r.ms);
	else
		printf(" %10s %9s %9s %9s | %7s\n", "-", "-", "-", "-", "-");
	fflush(stdout);
	return 0;
}

int cli_bench_broadphase(int argc, char **argv)
{
	bpb_options o;
	int rc = bpb_parse(argc, argv, &o);
	if (rc != CLI_GO)
		return rc;
	uint32_t ns[3] = { 1024, 8192, 65536 };
	uint32_t nn = o.quick ? 2 : 3;
	if (o.only_n) {
		ns[0] = o.only_n;
		nn = 1;
	}
	int have_bullet = o.bullet && access(o.bullet, X_OK) == 0;
	printf("broadphase micro-benchmark (docs/benchmarks.md): ms per step = update + pair finding,\n"
	       "mean of %u steps after %u warm-up steps; one thread\n",
	       o.steps, o.warm);
	if (!have_bullet)
		printf("(Bullet column empty: build it with tools/bench/build.sh)\n");
	printf("\n%7s %5s | %10s %9s %9s %8s %8s | %10s %9s %9s %9s | %7s\n", "N", "move", "fixstep ms", "pairs",
	       "B/body", "swaps", "q/rebuilt", "bullet ms", "pairs", "exact", "B/body", "speedup");
	for (uint32_t k = 0; k < nn; ++k)
		for (int fast = 1; fast >= 0; --fast)
			if (bpb_row(&o, ns[k], fast, have_bullet))
				return 1;
	printf("pairs: fixstep's exact pairs of the Q16.16 boxes (rounded outward); Bullet's pair cache\n"
	       "(fattened, lazily pruned) and, under exact, how many of those overlap exactly in float.\n"
	       "swaps: groups re-paired per step; q/rebuilt: tree quality against a tree rebuilt from scratch.\n");
	coherence_report(o.quick ? 1024 : 8192, o.quick ? 50 : 200);
	return 0;
}
