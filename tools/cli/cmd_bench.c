/* fixstep bench: ms per step (median of runs), the hashing share, bytes per
 * body of a snapshot, and the final hash (identical across runs, checked).
 * With Bullet's or Box3D's programs beside it, they run the same scene in
 * turns with each fixstep run (peer_start below), so that all see the same
 * moments of a shared machine; a ratio printed is the median of the runs'
 * ratios. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "cli/commands.h"
#include "scenes/scenes.h"

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Peers on the same scene: Bullet (build/bullet_scenes from `make
 * bench-bullet`, next to this program) and Box3D (programs built by `make
 * bench-box3d`, given with --box3d), each in its --serve mode, stepped in
 * alternation with fixstep: fixstep runs `chunk` steps, then each peer the
 * same `chunk` steps, and so on, each timing its own. A shared machine's
 * speed moves by up to 2x from one minute to the next; this way all see the
 * same moments of it (the worlds fit this machine's L3 together, so the
 * switch costs little). */
typedef struct peer_run {
	double ms, bytes_per_body, drop;
	int substeps, iterations; /* iterations: Bullet's; 0 for Box3D */
	int workers;              /* Box3D's worker count, as it reports it; 1 for Bullet */
} peer_run;

#define MAX_PEERS 4

typedef struct peer_proc {
	pid_t pid;
	FILE *to, *from;
} peer_proc;

/* A peer: its program and its name in the report (bullet, or the Box3D
 * program's file name, e.g. box3d_sse2). */
typedef struct peer {
	char path[4096];
	const char *label;
	bool bullet;
} peer;

/* Starts the peer's program on scene for `steps` steps and waits until it
 * has built the scene; false when it cannot run or does not know the scene.
 * A Box3D program is asked for fixstep's worker count when it is above 1
 * (Box3D's own scheduler on that many threads); Bullet steps on one. */
static bool peer_start(const peer *pe, const char *scene, uint32_t steps, uint32_t workers, peer_proc *bp)
{
	if (access(pe->path, X_OK) != 0)
		return false;
	int in[2], out[2];
	if (pipe(in) != 0)
		return false;
	if (pipe(out) != 0) {
		close(in[0]), close(in[1]);
		return false;
	}
	char nsteps[16], nworkers[16];
	snprintf(nsteps, sizeof nsteps, "%u", steps);
	snprintf(nworkers, sizeof nworkers, "%u", workers);
	/* a peer that dies makes a write to it fail, not kill this program */
	signal(SIGPIPE, SIG_IGN);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(in[0], 0), dup2(out[1], 1);
		close(in[0]), close(in[1]), close(out[0]), close(out[1]);
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, 2);
		if (!pe->bullet && workers > 1)
			execl(pe->path, pe->path, scene, nsteps, "--workers", nworkers, "--serve", (char *)NULL);
		else
			execl(pe->path, pe->path, scene, nsteps, "--serve", (char *)NULL);
		_exit(127);
	}
	close(in[0]), close(out[1]);
	bp->pid = pid;
	bp->to = pid > 0 ? fdopen(in[1], "w") : NULL;
	bp->from = pid > 0 ? fdopen(out[0], "r") : NULL;
	if (!bp->to || !bp->from) {
		if (bp->to)
			fclose(bp->to);
		else
			close(in[1]);
		if (bp->from)
			fclose(bp->from);
		else
			close(out[0]);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		return false;
	}
	char line[512];
	if (fgets(line, sizeof line, bp->from) && strcmp(line, "ready\n") == 0)
		return true;
	fclose(bp->to), fclose(bp->from);
	waitpid(pid, NULL, 0);
	return false;
}

/* The peer's next n steps; their ms, or a negative value if it failed */
static double peer_chunk(peer_proc *bp, uint32_t n)
{
	char line[512];
	double ms;
	if (fprintf(bp->to, "%u\n", n) < 0 || fflush(bp->to) != 0 || !fgets(line, sizeof line, bp->from) ||
	    sscanf(line, "chunk ms=%lf", &ms) != 1)
		return -1;
	return ms;
}

/* Ends the peer's run and reads its figures; false if it gave none. */
static bool peer_finish(const peer *pe, peer_proc *bp, peer_run *out)
{
	fclose(bp->to);
	char line[512];
	bool got = false;
	while (fgets(line, sizeof line, bp->from)) {
		int n;
		size_t bodies;
		if (pe->bullet &&
		    sscanf(line, "bullet scene=%*s ms=%lf steps=%d bodies=%zu bytes_per_body=%lf substeps=%d iterations=%d top_drop=%lf",
			   &out->ms, &n, &bodies, &out->bytes_per_body, &out->substeps, &out->iterations, &out->drop) == 7)
			got = true, out->workers = 1;
		if (!pe->bullet &&
		    sscanf(line, "box3d scene=%*s ms=%lf steps=%d bodies=%zu bytes_per_body=%lf substeps=%d workers=%d top_drop=%lf",
			   &out->ms, &n, &bodies, &out->bytes_per_body, &out->substeps, &out->workers, &out->drop) == 7)
			got = true, out->iterations = 0;
	}
	fclose(bp->from);
	int status = 0;
	waitpid(bp->pid, &status, 0);
	return got && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Bullet's program next to this one, if it is there */
static bool bullet_peer(peer *pe)
{
	ssize_t k = readlink("/proc/self/exe", pe->path, sizeof pe->path - 32);
	if (k <= 0)
		return false;
	pe->path[k] = 0;
	char *slash = strrchr(pe->path, '/');
	if (!slash)
		return false;
	strcpy(slash + 1, "bullet_scenes");
	pe->label = "bullet", pe->bullet = true;
	return access(pe->path, X_OK) == 0;
}

static double median_of(const double *x, uint32_t n)
{
	double s[100];
	memcpy(s, x, n * sizeof *x);
	qsort(s, n, sizeof *s, cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

typedef struct bench_options {
	const fxs_scene *sc;
	uint32_t steps, runs, chunk;
	bool use_bullet;
	int kernels; /* -1: the widest */
	uint32_t workers; /* the step's threads (the built-in pool) */
	bool speedup;     /* a one-worker world beside each run (workers > 1) */
	peer peers[MAX_PEERS];
	int peer_count; /* Bullet's first when it is there, then the --box3d programs */
} bench_options;

/* The runs' figures: per run ms per step and of it hashing; per peer, its
 * ms per step and the ratio in each run it ran beside (runs <= 100). */
typedef struct peer_result {
	double ms[100], ratio[100];
	peer_run last; /* its last run's figures */
	uint32_t runs;
	bool failed; /* it stops being asked after a failure */
} peer_result;

typedef struct bench_result {
	double run_ms[100], hash_ms[100];
	/* with workers: the same scene on one worker, taking turns with the
	 * run (its ms per step), and one worker's time over the run's */
	double one_ms[100], speedup[100];
	peer_result peer[MAX_PEERS];
	uint32_t bodies;
	uint64_t final_hash;
	size_t snap;
	fxs_kernels used;
	uint32_t workers; /* the step's threads it ran on */
	/* the large_pyramid scenes (run 0): how far the top cube (the last
	 * slot) moved sideways by the end, and the farthest any cube left the
	 * pyramid's plane (z) by step 200 or the end, m; < 0: not measured */
	double top_drift, plane_drift;
	uint32_t plane_step;
} bench_result;

/* the largest |z - z0| of any body: out of a pyramid's plane */
static double out_of_plane(fxs_world *w, const fix16_t *z0)
{
	double m = 0;
	for (uint32_t i = 0; i < fxs_world_slot_count(w); ++i) {
		fxs_body_id id = fxs_world_body_at(w, i);
		if (fxs_body_is_valid(w, id)) {
			double d = fabs((double)(fxs_body_get_position(w, id).z - z0[i]) / 65536.0);
			m = d > m ? d : m;
		}
	}
	return m;
}

static int bench_usage(void)
{
	printf("usage: fixstep bench SCENE [--steps N] [--runs R] [--chunk C] [--no-bullet] [--kernels K]\n"
	       "                           [--workers N [--speedup]] [--box3d PROGRAM]...\n"
	       "       fixstep bench broadphase [--help]\n"
	       "       fixstep bench narrowphase [--help]\n"
	       "       fixstep bench rollback [--help]\n\n"
	       "Runs SCENE R times (default 3) for N steps (default: the scene's count) and\n"
	       "prints ms per step (median over runs), the share of the step spent hashing\n"
	       "the state, snapshot bytes per body, and the final hash; with build/bullet_scenes\n"
	       "(make bench-bullet) Bullet's figures on the same scene beside them, and with\n"
	       "--box3d PROGRAM (a program `make bench-box3d` built; up to three) Box3D's:\n"
	       "each peer runs beside each fixstep run, all taking turns every C steps\n"
	       "(default 10; fixstep first in every other turn), and fixstep/peer is the\n"
	       "median of the runs' ratios (with their\n"
	       "range), the figure to compare across machines.\n"
	       "--kernels portable, sse4, avx2, avx512, simd128 or neon: the solver kernels\n"
	       "to use at most (default: the widest this machine has; the hash is the same\n"
	       "with any).\n"
	       "--workers N: the threads of the step, 1..64 (default 1; the built-in pool;\n"
	       "the hash is the same with any); a Box3D program steps on as many (its own\n"
	       "scheduler), Bullet on one. --speedup (with N above 1): the same scene on one\n"
	       "worker takes turns with each run too, and bench prints its ms per step and\n"
	       "the speed-up at N workers in the same seconds (median and range); the two\n"
	       "must end on the same hash.\n");
	return 0;
}

static int bench_parse(int argc, char **argv, bench_options *o)
{
	const char *name = NULL;
	bool has_steps = false;
	const char *box3d[MAX_PEERS];
	int nbox3d = 0;
	*o = (bench_options){ .runs = 3, .chunk = 10, .use_bullet = true, .kernels = -1, .workers = 1 };
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			return bench_usage();
		} else if (strcmp(a, "--steps") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o->steps) || o->steps == 0)
				return cli_usage_error("--steps needs a positive integer");
			has_steps = true;
		} else if (strcmp(a, "--chunk") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o->chunk) || o->chunk == 0)
				return cli_usage_error("--chunk needs a positive integer");
		} else if (strcmp(a, "--no-bullet") == 0) {
			o->use_bullet = false;
		} else if (strcmp(a, "--box3d") == 0) {
			if (++i >= argc || !argv[i][0])
				return cli_usage_error("--box3d needs the path of a program (make bench-box3d)");
			if (nbox3d == MAX_PEERS - 1)
				return cli_usage_error("--box3d: at most %d programs", MAX_PEERS - 1);
			if (access(argv[i], X_OK) != 0)
				return cli_usage_error("--box3d: %s is not an executable program", argv[i]);
			if (strlen(argv[i]) >= sizeof o->peers[0].path)
				return cli_usage_error("--box3d: the path is too long");
			box3d[nbox3d++] = argv[i];
		} else if (strcmp(a, "--runs") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o->runs) || o->runs == 0 || o->runs > 100)
				return cli_usage_error("--runs needs an integer in 1..100");
		} else if (strcmp(a, "--workers") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o->workers) || o->workers == 0 || o->workers > FXS_MAX_WORKERS)
				return cli_usage_error("--workers needs an integer in 1..%d", FXS_MAX_WORKERS);
		} else if (strcmp(a, "--speedup") == 0) {
			o->speedup = true;
		} else if (strcmp(a, "--kernels") == 0) {
			if ((o->kernels = cli_parse_kernels(++i < argc ? argv[i] : NULL)) < 0)
				return 2;
		} else if (!cli_positional("bench", a, &name, 1)) {
			return 2;
		}
	}
	if (!name)
		return cli_usage_error("bench needs a scene name (see fixstep scenes)");
	if (o->speedup && o->workers < 2)
		return cli_usage_error("--speedup needs --workers above 1");
	if (!(o->sc = cli_scene(name)))
		return 2;
	if (!has_steps)
		o->steps = o->sc->default_steps;
	if (o->use_bullet && bullet_peer(&o->peers[0]))
		o->peer_count = 1;
	for (int k = 0; k < nbox3d; ++k) {
		peer *pe = &o->peers[o->peer_count++];
		strcpy(pe->path, box3d[k]);
		const char *slash = strrchr(box3d[k], '/');
		pe->label = slash ? slash + 1 : box3d[k];
		pe->bullet = false;
	}
	return CLI_GO;
}

/* Each live peer's next n steps (one that fails is finished and no longer
 * live). */
static void peers_take_turn(const bench_options *o, peer_proc *procs, bool *live, uint32_t n)
{
	for (int p = 0; p < o->peer_count; ++p) {
		if (live[p] && peer_chunk(&procs[p], n) < 0) {
			peer_run ignored;
			live[p] = false;
			peer_finish(&o->peers[p], &procs[p], &ignored);
		}
	}
}

/* n steps of the one-worker world beside a run with workers, timed into *one */
static void one_worker_steps(fxs_world *w1, uint32_t n, uint64_t *one)
{
	if (!w1)
		return;
	uint64_t t0 = cli_now_ns();
	for (uint32_t s = 0; s < n; ++s)
		if (!cli_step(w1))
			exit(1);
	*one += cli_now_ns() - t0;
}

/* Steps w o->steps times: the ns of the steps and of hashing (timed apart),
 * each live peer (live[p]) taking its turn every o->chunk steps (one that
 * fails is finished and no longer live), and the one-worker world w1
 * (or NULL) its own, its ns in *one. */
static void bench_steps(const bench_options *o, fxs_world *w, fxs_world *w1, peer_proc *procs, bool *live,
			uint64_t *total, uint64_t *hashing, uint64_t *one, bench_result *drift)
{
	*total = *hashing = *one = 0;
	/* the pyramid's drifts (untimed): its start, then the plane at step 200 */
	uint32_t slots = fxs_world_slot_count(w);
	fix16_t *z0 = drift ? malloc((slots ? slots : 1) * sizeof *z0) : NULL;
	fxg_vec3 top0 = { 0, 0, 0 };
	for (uint32_t i = 0; z0 && i < slots; ++i)
		z0[i] = fxs_body_get_position(w, fxs_world_body_at(w, i)).z;
	if (z0 && slots)
		top0 = fxs_body_get_position(w, fxs_world_body_at(w, slots - 1));
	/* turns of o->chunk steps: fixstep first in even turns, the peers first
	 * in odd ones, so neither always runs on the caches the other left (and
	 * the one-worker world after the run in even turns, before it in odd) */
	for (uint32_t s0 = 0, turn = 0; s0 < o->steps; s0 += o->chunk, ++turn) {
		uint32_t n = o->steps - s0 < o->chunk ? o->steps - s0 : o->chunk;
		if (turn % 2 == 1) {
			peers_take_turn(o, procs, live, n);
			one_worker_steps(w1, n, one);
		}
		for (uint32_t s = s0; s < s0 + n; ++s) {
			uint64_t t0 = cli_now_ns();
			if (!cli_step(w))
				exit(1); /* a benchmark has nothing to report (the peers end on their closed stdin) */
			uint64_t t1 = cli_now_ns();
			fxs_world_rehash(w); /* the same work the step did to hash, timed alone */
			uint64_t t2 = cli_now_ns();
			*total += t1 - t0;
			*hashing += t2 - t1;
			if (z0 && (s + 1 == 200 || (s + 1 == o->steps && o->steps < 200)))
				drift->plane_drift = out_of_plane(w, z0), drift->plane_step = s + 1;
		}
		if (turn % 2 == 0) {
			one_worker_steps(w1, n, one);
			peers_take_turn(o, procs, live, n);
		}
	}
	if (z0 && slots) {
		fxg_vec3 t = fxs_body_get_position(w, fxs_world_body_at(w, slots - 1));
		drift->top_drift = hypot((double)(t.x - top0.x) / 65536.0, (double)(t.z - top0.z) / 65536.0);
	}
	free(z0);
}

/* Run r of the scene into res: 0, or 1 when it ends on another hash than
 * run 0, or 2 when the scene cannot be made (errors printed). */
static int bench_run(const bench_options *o, uint32_t r, bench_result *res)
{
	fxs_world *w = cli_scene_world(o->sc);
	if (!w)
		return 2;
	if (r == 0)
		cli_use_kernels(w, o->kernels);
	else if (o->kernels >= 0)
		fxs_world_set_kernels(w, (fxs_kernels)o->kernels);
	res->used = fxs_world_get_kernels(w);
	fxs_world_set_workers(w, o->workers, NULL, NULL, NULL);
	res->workers = fxs_world_get_def(w).worker_count;
	/* with workers, the same world on one beside it: the speed-up in the same seconds */
	fxs_world *w1 = NULL;
	if (o->speedup && res->workers > 1) {
		w1 = cli_scene_world(o->sc);
		if (!w1) {
			fxs_world_destroy(w);
			return 2;
		}
		fxs_world_set_kernels(w1, fxs_world_get_kernels(w));
	}
	/* the peers beside this run */
	peer_proc procs[MAX_PEERS];
	bool live[MAX_PEERS];
	for (int p = 0; p < o->peer_count; ++p) {
		peer_result *pr = &res->peer[p];
		live[p] = !pr->failed && peer_start(&o->peers[p], o->sc->name, o->steps, o->workers, &procs[p]);
		pr->failed = !live[p];
	}
	uint64_t total, hashing, one;
	const bool pyramid = r == 0 && strncmp(o->sc->name, "large_pyramid", 13) == 0;
	bench_steps(o, w, w1, procs, live, &total, &hashing, &one, pyramid ? res : NULL);
	int rc = 0;
	uint64_t h = fxs_world_hash(w);
	if (w1 && fxs_world_hash(w1) != h) {
		fprintf(stderr, "fixstep: bench: %u workers ended with hash %016" PRIx64 ", one worker with %016" PRIx64 "\n",
			res->workers, h, fxs_world_hash(w1));
		rc = 1;
	}
	if (r > 0 && h != res->final_hash) {
		fprintf(stderr, "fixstep: bench: run %u ended with hash %016" PRIx64 ", run 0 with %016" PRIx64 "\n", r, h,
			res->final_hash);
		rc = 1;
	}
	res->final_hash = h;
	res->bodies = fxs_world_body_count(w);
	res->snap = fxs_world_snapshot_size(w);
	res->run_ms[r] = (double)total / o->steps / 1e6;
	res->hash_ms[r] = (double)hashing / o->steps / 1e6;
	res->one_ms[r] = (double)one / o->steps / 1e6;
	res->speedup[r] = total ? (double)one / (double)total : 0;
	fxs_world_destroy(w);
	fxs_world_destroy(w1);
	for (int p = 0; p < o->peer_count; ++p) {
		peer_result *pr = &res->peer[p];
		if (!live[p])
			continue;
		if (!peer_finish(&o->peers[p], &procs[p], &pr->last) || pr->last.ms <= 0) {
			pr->failed = true;
			continue;
		}
		if (rc == 0) {
			pr->ms[pr->runs] = pr->last.ms;
			pr->ratio[pr->runs] = res->run_ms[r] / pr->last.ms;
			++pr->runs;
		}
	}
	return rc;
}

/* the least and the greatest of v[0..n), n >= 1 */
static void range_of(const double *v, uint32_t n, double *lo, double *hi)
{
	*lo = *hi = v[0];
	for (uint32_t i = 1; i < n; ++i)
		*lo = v[i] < *lo ? v[i] : *lo, *hi = v[i] > *hi ? v[i] : *hi;
}

static void peer_report(const bench_options *o, const peer *pe, const peer_result *pr)
{
	uint32_t n = pr->runs;
	if (n == 0) {
		if (!pe->bullet)
			printf("%s: no figures (it failed or does not know the scene)\n", pe->label);
		return;
	}
	const peer_run *b = &pr->last;
	const double *ratio = pr->ratio;
	double lo, hi;
	range_of(ratio, n, &lo, &hi);
	if (pe->bullet)
		printf("bullet ms/step %.3f (%d sub-step%s x %d iterations), %.1f bytes/body, highest body sank %.3f m; "
		       "fixstep/bullet %.2f\n",
		       median_of(pr->ms, n), b->substeps, b->substeps == 1 ? "" : "s", b->iterations, b->bytes_per_body,
		       b->drop, median_of(ratio, n));
	else
		printf("%s ms/step %.3f (%d sub-step%s, %d worker%s), %.1f bytes/body, highest body sank %.3f m; "
		       "fixstep/%s %.2f\n",
		       pe->label, median_of(pr->ms, n), b->substeps, b->substeps == 1 ? "" : "s", b->workers,
		       b->workers == 1 ? "" : "s", b->bytes_per_body, b->drop, pe->label, median_of(ratio, n));
	if (n > 1)
		printf("fixstep/%s per run: median %.3f, range %.3f-%.3f over %u runs (taking turns every %u steps)\n",
		       pe->label, median_of(ratio, n), lo, hi, n, o->chunk);
}

static void bench_report(const bench_options *o, const bench_result *res)
{
	double med = median_of(res->run_ms, o->runs), hmed = median_of(res->hash_ms, o->runs);
	printf("scene %s: %u bodies, %u steps, %u runs\n", o->sc->name, res->bodies, o->steps, o->runs);
	printf("ms/step %.3f (median)\n", med);
	printf("kernels %s\n", fxs_kernels_name(res->used));
	printf("workers %u\n", res->workers);
	if (o->speedup && res->workers > 1) {
		double lo, hi;
		range_of(res->speedup, o->runs, &lo, &hi);
		printf("one worker beside it: ms/step %.3f (median); speed-up at %u workers: median %.2f, range %.2f-%.2f "
		       "over %u runs (taking turns every %u steps)\n",
		       median_of(res->one_ms, o->runs), res->workers, median_of(res->speedup, o->runs), lo, hi, o->runs,
		       o->chunk);
	}
	printf("hashing %.3f ms/step = %.2f%% of a step\n", hmed, 100.0 * hmed / med);
	printf("snapshot %zu bytes = %.1f bytes/body\n", res->snap, res->bodies ? (double)res->snap / res->bodies : 0.0);
	if (res->top_drift >= 0)
		printf("drift: top cube %.2f cm sideways from its start after %u steps; at most %.2f cm out of the "
		       "pyramid's plane after %u\n",
		       res->top_drift * 100, o->steps, res->plane_drift * 100, res->plane_step);
	for (int p = 0; p < o->peer_count; ++p)
		peer_report(o, &o->peers[p], &res->peer[p]);
	printf("hash %016" PRIx64 "\n", res->final_hash);
}

int cmd_bench(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "broadphase") == 0)
		return cli_bench_broadphase(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "narrowphase") == 0)
		return cli_bench_narrowphase(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "rollback") == 0)
		return cli_bench_rollback(argc - 1, argv + 1);
	bench_options o;
	int rc = bench_parse(argc, argv, &o);
	if (rc != CLI_GO)
		return rc;
	bench_result res = { .used = FXS_KERNELS_PORTABLE, .top_drift = -1 };
	rc = 0;
	for (uint32_t r = 0; r < o.runs && rc == 0; ++r)
		rc = bench_run(&o, r, &res);
	if (rc == 0)
		bench_report(&o, &res);
	return rc;
}
