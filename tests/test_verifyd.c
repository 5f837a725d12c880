/* The verification service (fixstep-verifyd, docs/verifyd.md) against a
 * redis-server of its own on a loopback port (append-only file on, in a
 * scratch directory): 1,000 replay jobs (honest ones of two built-in scenes
 * and of the example game library, forgeries, corrupt files, by path and
 * inline) through two workers while one of them is killed with SIGKILL
 * (once a quarter of the jobs are done, then every 10 s) and restarted, and Redis restarted once mid-run: every job has
 * exactly one result, each the right one. Also the replays verified per
 * second with 1 and 2 workers, and how long a dead worker's jobs waited.
 * Skipped (and said so) where redis-server or the worker is not built
 * (make builds it when libhiredis-dev is installed). */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "replay_forge.h"
#include "replay_run.h"
#include "fixstep/verifyd_game.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef __EMSCRIPTEN__

const fxs_verifyd_game *fxs_verifyd_game_v1(void); /* examples/verifyd_game/game.c, linked in */

static char dir[128];
static int port;

static const char *worker_prog(void)
{
	const char *p = getenv("FIXSTEP_VERIFYD");
	return p && *p ? p : NULL;
}

static const char *game_lib(void)
{
	const char *p = getenv("FIXSTEP_EXAMPLE_GAME");
	return p && *p ? p : "build/libfixstep_example_game.so";
}

static uint64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* argv run in the background, its output to log (appended) */
static pid_t spawn(char *const argv[], const char *log)
{
	pid_t p = fork();
	if (p == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (fd >= 0)
			dup2(fd, 1), dup2(fd, 2), close(fd);
		setpgid(0, 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	return p;
}

static int finish(pid_t p, int sig)
{
	int st = 0;
	if (p <= 0)
		return -1;
	if (sig)
		kill(p, sig);
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

static pid_t start_redis(void)
{
	char ports[16], log[256];
	snprintf(ports, sizeof ports, "%d", port);
	snprintf(log, sizeof log, "%s/redis.log", dir);
	char *argv[] = { "redis-server", "--port", ports, "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "yes",
			 "--appendfsync", "always", "--save", "", "--protected-mode", "yes", NULL };
	pid_t p = spawn(argv, log);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "redis-cli -p %d ping >/dev/null 2>&1", port);
	for (int i = 0; i < 100 && system(cmd) != 0; ++i)
		nap(50);
	return p;
}

static pid_t start_worker(const char *name, const char *jobs, long claim_ms)
{
	char redis[64], claim[24], log[256], rs[96], done[96];
	snprintf(redis, sizeof redis, "127.0.0.1:%d", port);
	snprintf(claim, sizeof claim, "%ld", claim_ms);
	snprintf(log, sizeof log, "%s/worker_%s.log", dir, name);
	snprintf(rs, sizeof rs, "%s:results", jobs);
	snprintf(done, sizeof done, "%s:done", jobs);
	char *argv[] = { (char *)worker_prog(), "worker", "--redis", redis, "--game", (char *)game_lib(), "--name", (char *)name,
			 "--jobs", (char *)jobs, "--results", rs, "--done", done, "--claim-idle-ms", claim, "--quiet", NULL };
	return spawn(argv, log);
}

/* `fixstep-verifyd CMD ...` for jobs stream `jobs`, its output into out */
static int verifyd(const char *jobs, const char *args, char *out, size_t n)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "%s %s --redis 127.0.0.1:%d --jobs %s --results %s:results --done %s:done 2>&1",
		 worker_prog(), args, port, jobs, jobs, jobs);
	FILE *p = popen(cmd, "r");
	size_t got = 0;
	if (!p)
		return -1;
	for (size_t k; got + 1 < n && (k = fread(out + got, 1, n - 1 - got, p)) > 0;)
		got += k;
	out[got] = 0;
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static long jobs_done(const char *jobs)
{
	char out[256];
	long r = -1, j = -1;
	if (verifyd(jobs, "results --count", out, sizeof out) != 0 || sscanf(out, "results %ld jobs %ld", &r, &j) != 2)
		return -1;
	return j;
}

/* the jobs consumer `name` of the verifiers group holds on stream `jobs`
 * (XPENDING's summary for it), -1 when Redis does not answer */
static long pending_of(const char *jobs, const char *name)
{
	char cmd[256], out[64] = "";
	snprintf(cmd, sizeof cmd, "redis-cli -p %d XPENDING %s verifiers - + 10 %s 2>/dev/null | wc -l", port, jobs, name);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	long n = fgets(out, sizeof out, p) ? atol(out) : -1;
	pclose(p);
	return n < 0 ? -1 : n / 4; /* four lines an entry: id, consumer, idle, deliveries */
}

/* ---- the replays ---- */

typedef struct kase {
	char path[200];
	const char *game, *status;
	char fields[160]; /* the job's fields after its file */
	uint64_t hash;    /* ok: the final hash */
} kase;

static kase cases[32];
static int ncases;

static kase *add(const char *name, const char *game, const char *fields, const char *status)
{
	kase *k = &cases[ncases++];
	snprintf(k->path, sizeof k->path, "%s/%s.fxr", dir, name);
	k->game = game, k->status = status, k->hash = 0;
	snprintf(k->fields, sizeof k->fields, "%s", fields);
	return k;
}

static bool record_scene(kase *k, const char *scene, uint64_t seed, uint64_t tamper_tick)
{
	fxs_record_options ro = { .scene = fxs_scene_find(scene), .steps = 300, .seed = seed };
	if (tamper_tick)
		ro.perturb_tick = tamper_tick, ro.perturb_player = 1, ro.tamper = true;
	char err[256];
	return fxs_replay_record(k->path, &ro, &k->hash, err, sizeof err) == FXS_REPLAY_OK;
}

/* the example game, 300 ticks of seeded inputs; tamper: one input byte of
 * tick 100 changed after recording (checksums fixed) */
static bool record_game(kase *k, uint64_t seed, bool tamper)
{
	const fxs_verifyd_game *g = fxs_verifyd_game_v1();
	fxs_world *w = g->create_start();
	fxs_replay_writer rw;
	bool ok = w && fxs_replay_writer_open(&rw, k->path, g->name, w, g->players, g->input_size, 0, 0) == FXS_REPLAY_OK;
	uint8_t in[4 * 4];
	uint64_t s = seed;
	for (uint64_t t = 1; ok && t <= 300; ++t) {
		for (size_t b = 0; b < sizeof in; ++b)
			in[b] = (uint8_t)test_rng_next(&s);
		ok = g->apply(w, t, in, g->players, g->ctx) == FXS_OK && fxs_world_step(w) == FXS_OK &&
		     fxs_replay_writer_tick(&rw, in, w) == FXS_REPLAY_OK;
	}
	ok = ok && fxs_replay_writer_close(&rw) == FXS_REPLAY_OK;
	k->hash = w ? fxs_world_hash(w) : 0;
	fxs_world_destroy(w);
	if (ok && tamper) {
		fxs_replay r;
		fxs_replay_tick t;
		ok = fxs_replay_load(&r, k->path) == FXS_REPLAY_OK && fxs_replay_get_tick(&r, 99, &t);
		if (ok) {
			r.data[(size_t)(t.input - r.data)] ^= 0x55;
			fxs_replay_fix_checksums(r.data, r.len);
			FILE *f = fopen(k->path, "wb");
			ok = f && fwrite(r.data, 1, r.len, f) == r.len;
			ok = f && fclose(f) == 0 && ok;
		}
		fxs_replay_free(&r);
	}
	return ok;
}

/* a copy of src's first `keep` bytes (0: all) with byte `flip` changed (SIZE_MAX: none) */
static bool mangle(const char *src, const char *dst, size_t keep, size_t flip)
{
	FILE *f = fopen(src, "rb");
	if (!f)
		return false;
	static uint8_t buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	if (keep && keep < n)
		n = keep;
	if (flip < n)
		buf[flip] ^= 0x10;
	f = fopen(dst, "wb");
	bool ok = f && fwrite(buf, 1, n, f) == n;
	return f && fclose(f) == 0 && ok;
}

/* An offset in the middle of the replay's second chunk (its tick records:
 * a flipped bit there is the chunk checksum's to find); SIZE_MAX if none. */
static size_t inside_a_chunk(const char *path)
{
	fxs_replay r;
	size_t at = SIZE_MAX;
	if (fxs_replay_load(&r, path) == FXS_REPLAY_OK && r.chunk_count > 1)
		at = r.chunks[1].offset + r.chunks[1].size / 2;
	fxs_replay_free(&r);
	return at;
}

static bool make_cases(void)
{
	ncases = 0;
	bool ok = true;
	for (uint64_t s = 1; s <= 4 && ok; ++s) {
		char name[32];
		snprintf(name, sizeof name, "shapes_%d", (int)s);
		ok = record_scene(add(name, "shapes", "", "ok"), "shapes", s, 0);
	}
	ok = ok && record_scene(add("box_stack", "box_stack", "", "ok"), "box_stack", 9, 0);
	ok = ok && record_scene(add("tampered", "shapes", "", "diverged"), "shapes", 5, 150);
	ok = ok && forge_restore_replay(add("forged", "shapes", "", "refused")->path, "shapes", 5, 30);
	/* asked as calls, from the scene's start: refused at the restore */
	uint64_t start = 0;
	ok = ok && fxs_scene_start_hash("shapes", &start);
	kase *fc = add("forged_calls", "shapes", "", "refused");
	snprintf(fc->fields, sizeof fc->fields, " mode=calls allow=fxs_body_apply_force start=%016" PRIx64, start);
	ok = ok && forge_restore_replay(fc->path, "shapes", 5, 30);
	ok = ok && forge_calls_as_scene(add("calls_as_scene", "box_stack", "", "refused")->path, "box_stack", 20);
	kase *cd = add("calls_demo", "shapes", " mode=calls allow=*", "ok");
	char err[256];
	ok = ok && fxs_calls_demo_record(cd->path, 120, 0, 0, &cd->hash, err, sizeof err) == FXS_REPLAY_OK;
	ok = ok && mangle(cases[0].path, add("truncated", "shapes", "", "truncated")->path, 9000, SIZE_MAX);
	ok = ok && mangle(cases[1].path, add("bitflip", "shapes", "", "checksum")->path, 0, inside_a_chunk(cases[1].path));
	ok = ok && mangle(cases[2].path, add("not_a_replay", "shapes", "", "bad_magic")->path, 0, 2);
	for (uint64_t s = 1; s <= 3 && ok; ++s) {
		char name[32];
		snprintf(name, sizeof name, "marbles_%d", (int)s);
		ok = record_game(add(name, "marbles4", "", "ok"), s, false);
	}
	ok = ok && record_game(add("marbles_tampered", "marbles4", "", "diverged"), 7, true);
	ok = ok && forge_game_replay(add("marbles_1byte", "marbles4", "", "refused")->path, 4, 1, 50, NULL, NULL);
	add("missing", "shapes", "", "io");
	kase *u = add("unknown_game", "no_such_game", "", "unknown_game");
	ok = ok && mangle(cases[0].path, u->path, 0, SIZE_MAX);
	return ok;
}

/* n jobs id PREFIX-i cycling through the cases (every third inline) into a
 * job file; the expected case of job i is cases[i % ncases] */
static bool write_jobs(const char *path, const char *prefix, int n, bool honest_only)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	for (int i = 0; i < n; ++i) {
		const kase *k = honest_only ? &cases[i % 4] : &cases[i % ncases];
		bool inl = i % 3 == 0 && strcmp(k->status, "io") != 0;
		fprintf(f, "%s-%d %s %s%s%s\n", prefix, i, k->game, k->path, inl ? " inline" : "", k->fields);
	}
	return fclose(f) == 0;
}

static int submit(const char *jobs, const char *file)
{
	char args[512], out[512];
	snprintf(args, sizeof args, "submit --file %s", file);
	return verifyd(jobs, args, out, sizeof out);
}

/* Runs `workers` workers over n honest jobs: replays verified per second. */
static double throughput(const char *jobs, int n, int workers)
{
	char file[256];
	snprintf(file, sizeof file, "%s/%s.jobs", dir, jobs);
	if (!write_jobs(file, jobs, n, true) || submit(jobs, file) != 0)
		return -1;
	pid_t w[2] = { 0, 0 };
	uint64_t t0 = wall_ms();
	for (int i = 0; i < workers; ++i) {
		char name[32];
		snprintf(name, sizeof name, "%s_%d", jobs, i);
		w[i] = start_worker(name, jobs, 5000);
	}
	while (jobs_done(jobs) < n && wall_ms() - t0 < 60000)
		nap(20);
	double rate = jobs_done(jobs) == n ? n / ((double)(wall_ms() - t0) / 1000.0) : -1;
	for (int i = 0; i < workers; ++i)
		finish(w[i], SIGTERM);
	return rate;
}

static void cleanup(pid_t redis)
{
	finish(redis, SIGTERM);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("      (could not remove %s)\n", dir);
}

SLOW_TEST(verifyd_loses_no_job_when_workers_and_redis_die)
{
	if (!worker_prog() || access(worker_prog(), X_OK) != 0 || system("command -v redis-server >/dev/null 2>&1") != 0 ||
	    system("command -v redis-cli >/dev/null 2>&1") != 0) {
		printf("      skipped: needs redis-server, redis-cli and fixstep-verifyd (built with libhiredis-dev)\n");
		return;
	}
	snprintf(dir, sizeof dir, "/tmp/fixstep_verifyd_%ld", (long)getpid());
	mkdir(dir, 0700);
	port = 32000 + (int)(getpid() % 8000); /* clear of the session tests' ports (21000-29999) and the examples' (40000 up) */
	pid_t redis = start_redis();
	static char out[1 << 22];
	if (jobs_done("fxs:none") != 0) {
		cleanup(redis);
		CHECKF(0, "redis-server did not start on port %d", port);
	}
	if (!make_cases()) {
		cleanup(redis);
		CHECKF(0, "recording the replays failed");
	}
	/* throughput with 1 and 2 workers */
	int nb = test_quick ? 30 : 120;
	double r1 = throughput("bench1", nb, 1), r2 = throughput("bench2", nb, 2);
	printf("      %d honest replays (300 ticks of shapes): %.1f verified/s with 1 worker, %.1f with 2\n", nb, r1, r2);

	/* the run: N jobs, worker B killed once a quarter are done and then every
	 * 10 s, Redis restarted once half are done */
	int n = test_quick ? 300 : 1000;
	const long claim_ms = 2000;
	char file[256];
	snprintf(file, sizeof file, "%s/run.jobs", dir);
	if (r1 <= 0 || r2 <= 0 || !write_jobs(file, "job", n, false) || submit("run", file) != 0) {
		cleanup(redis);
		CHECKF(0, "throughput phase or submitting failed (%.1f, %.1f)", r1, r2);
	}
	uint64_t t0 = wall_ms(), kills[64];
	int nkill = 0, nb_started = 1, restarts = 0;
	pid_t a = start_worker("A", "run", claim_ms), b = start_worker("B0", "run", claim_ms);
	uint64_t next_kill = t0 + 10000;
	long done = 0;
	while ((done = jobs_done("run")) < n && wall_ms() - t0 < 110000) {
		/* the first kill once a quarter of the jobs are done (a fast
		 * machine may finish before 10 s), then every 10 s */
		char bname[16];
		snprintf(bname, sizeof bname, "B%d", nb_started - 1);
		bool holds = false; /* B stopped while it holds a job (which the others must then claim) */
		if (((nkill == 0 && done >= n / 4) || wall_ms() >= next_kill) && nkill < 64) {
			kill(b, SIGSTOP);
			holds = pending_of("run", bname) > 0;
			if (!holds)
				kill(b, SIGCONT); /* between two jobs: again at the next look */
		}
		if (holds) {
			finish(b, SIGKILL);
			/* a result B had sent as it was stopped still reaches Redis
			 * (seen under load: no job left to claim): only a job still
			 * pending once B is gone is one the others must claim; else
			 * the next look kills the next B */
			nap(200);
			if (pending_of("run", bname) > 0)
				kills[nkill++] = wall_ms(), next_kill = wall_ms() + 10000;
			char name[16];
			snprintf(name, sizeof name, "B%d", nb_started++);
			b = start_worker(name, "run", claim_ms);
		}
		if (!restarts && done >= n / 2) { /* Redis restarted mid-run (SIGTERM: it writes its AOF and stops) */
			finish(redis, SIGTERM);
			nap(300);
			redis = start_redis();
			restarts++;
		}
		nap(done < 0 ? 100 : 50);
	}
	double secs = (double)(wall_ms() - t0) / 1000.0;
	finish(a, SIGTERM);
	finish(b, SIGTERM);
	int rc = verifyd("run", "results", out, sizeof out);
	/* every job exactly one result, the expected one */
	static int seen[1000];
	memset(seen, 0, sizeof seen);
	int lines = 0, wrong = 0, claimed = 0;
	uint64_t waited_max = 0, waited_sum = 0;
	char first_wrong[400] = "";
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long at;
		int id;
		char status[32], hash[20], claim[4];
		const char *j = strstr(line, "job=job-"), *s = strstr(line, "status="), *h = strstr(line, "final_hash="),
			   *c = strstr(line, "claimed=");
		if (sscanf(line, "%llu-", &at) != 1 || !j || !s || !h || !c || sscanf(j, "job=job-%d", &id) != 1 ||
		    sscanf(s, "status=%31s", status) != 1 || sscanf(h, "final_hash=%19s", hash) != 1 ||
		    sscanf(c, "claimed=%3s", claim) != 1 || id < 0 || id >= n)
			continue;
		lines++;
		seen[id]++;
		const kase *k = &cases[id % ncases];
		uint64_t got = strtoull(hash, NULL, 16);
		if (strcmp(status, k->status) != 0 || (strcmp(k->status, "ok") == 0 && got != k->hash)) {
			if (!wrong++)
				snprintf(first_wrong, sizeof first_wrong, "job %d (%s): %.300s", id, strrchr(k->path, '/') + 1, line);
		}
		if (claim[0] == '1') {
			claimed++;
			uint64_t kill_at = 0;
			for (int i = 0; i < nkill; ++i)
				if (kills[i] <= at)
					kill_at = kills[i];
			if (kill_at) {
				uint64_t waited = at - kill_at;
				waited_sum += waited;
				waited_max = waited > waited_max ? waited : waited_max;
			}
		}
	}
	int missing = 0, twice = 0;
	for (int i = 0; i < n; ++i)
		missing += seen[i] == 0, twice += seen[i] > 1;
	printf("      %d jobs (%d replays: honest, forged, corrupt; 3 games) in %.1f s through 2 workers, B killed %d times "
	       "(kill -9), Redis restarted %d time%s: %d results, %d missing, %d twice, %d wrong\n",
	       n, ncases, secs, nkill, restarts, restarts == 1 ? "" : "s", lines, missing, twice, wrong);
	if (claimed)
		printf("      %d jobs of a killed worker claimed after %ld ms idle: they waited %.1f s at most, %.1f s on average "
		       "(from the kill to their result)\n",
		       claimed, claim_ms, (double)waited_max / 1000.0, (double)waited_sum / 1000.0 / claimed);
	cleanup(redis);
	CHECKF(rc == 0 && done == n, "%ld of %d jobs done (results: exit %d)", done, n, rc);
	CHECKF(lines == n && missing == 0 && twice == 0, "%d results for %d jobs: %d missing, %d twice", lines, n, missing,
	       twice);
	CHECKF(wrong == 0, "%d wrong results; the first: %s", wrong, first_wrong);
	CHECK(restarts == 1);
	CHECK(test_quick || (nkill >= 1 && claimed >= 1));
}

#else
typedef int verifyd_test_needs_processes; /* no processes under node: nothing to test */
#endif
