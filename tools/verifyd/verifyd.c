/* fixstep-verifyd: replay verification as a service on Redis Streams
 * (docs/verifyd.md), with Debian's hiredis.
 *
 *   worker   reads jobs from a stream in a consumer group, verifies each with
 *            fxs_replay_verify, and writes its result, marks the job done
 *            and acknowledges it in one Lua script (atomic: a job redelivered
 *            after a crash is never counted twice); claims the jobs of a dead
 *            worker after --claim-idle-ms with XAUTOCLAIM; reconnects when
 *            Redis or the network goes away.
 *   submit   adds jobs (one per line: ID GAME FILE [key=value ...]).
 *   results  prints the results, or their count. */
#define _POSIX_C_SOURCE 200809L
#include "fixstep/replay.h"
#include "fixstep/verifyd_game.h"
#include "replay_run.h"

#include <dlfcn.h>
#include <errno.h>
#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- options ---- */

typedef struct options {
	const char *host;
	int port;
	const char *jobs, *results, *done, *group;
	/* worker */
	const char *name, *game_lib;
	long claim_idle_ms;
	bool quiet;
	/* submit */
	const char *file;
	/* results */
	bool count;
} options;

static int usage(void)
{
	printf("usage: fixstep-verifyd worker  [common] [--game LIB.so] [--name NAME] [--claim-idle-ms MS] [--quiet]\n"
	       "       fixstep-verifyd submit  [common] [--file JOBS]   (else standard input)\n"
	       "       fixstep-verifyd results [common] [--count]\n"
	       "common: --redis HOST:PORT (127.0.0.1:6379) --jobs STREAM (fxs:jobs) --results STREAM\n"
	       "        (fxs:results) --done HASH (fxs:done) --group GROUP (verifiers)\n\n"
	       "A job line: ID GAME FILE [inline] [mode=inputs|calls] [start=HASH] [players=N]\n"
	       "[allow=NAME,...]. GAME is a built-in scene or the --game library's game; FILE is\n"
	       "read by the worker (a shared disk), or sent in the job with `inline`. The\n"
	       "worker's result: job, status (ok, diverged, refused, no_handler, bad_start,\n"
	       "truncated, checksum, corrupt, bad_magic, version, io, nomem, unknown_game),\n"
	       "ticks, final_hash, tick, message, worker, claimed. Exit 0; 2 on bad arguments\n"
	       "(docs/verifyd.md).\n");
	return 0;
}

static int bad_args(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "fixstep-verifyd: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (--help)\n");
	va_end(ap);
	return 2;
}

static int parse(int argc, char **argv, options *o)
{
	static char host[256];
	*o = (options){ "127.0.0.1", 6379, "fxs:jobs", "fxs:results", "fxs:done", "verifiers",
			NULL,        NULL, 5000,       false,         NULL,       false };
	for (int i = 2; i < argc; ++i) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;
		if (strcmp(a, "--help") == 0)
			return usage(), 1;
		if (strcmp(a, "--quiet") == 0)
			o->quiet = true, takes = false;
		else if (strcmp(a, "--count") == 0)
			o->count = true, takes = false;
		else if (!v)
			return bad_args("%s needs a value", a);
		else if (strcmp(a, "--redis") == 0) {
			const char *colon = strrchr(v, ':');
			if (!colon || colon == v || (size_t)(colon - v) >= sizeof host || (o->port = atoi(colon + 1)) <= 0 ||
			    o->port > 65535)
				return bad_args("--redis needs HOST:PORT");
			memcpy(host, v, (size_t)(colon - v));
			host[colon - v] = 0;
			o->host = host;
		} else if (strcmp(a, "--jobs") == 0)
			o->jobs = v;
		else if (strcmp(a, "--results") == 0)
			o->results = v;
		else if (strcmp(a, "--done") == 0)
			o->done = v;
		else if (strcmp(a, "--group") == 0)
			o->group = v;
		else if (strcmp(a, "--name") == 0)
			o->name = v;
		else if (strcmp(a, "--game") == 0)
			o->game_lib = v;
		else if (strcmp(a, "--file") == 0)
			o->file = v;
		else if (strcmp(a, "--claim-idle-ms") == 0) {
			char *end;
			o->claim_idle_ms = strtol(v, &end, 10);
			if (*end || o->claim_idle_ms < 100 || o->claim_idle_ms > 86400000)
				return bad_args("--claim-idle-ms needs 100..86400000");
		} else
			return bad_args("unknown option %s", a);
		i += takes;
	}
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* ---- Redis ---- */

static volatile sig_atomic_t stopping;
static void on_term(int sig) { (void)sig, stopping = 1; }

/* A connection, retried every 200 ms until it comes (or a signal stops us). */
static redisContext *connect_redis(const options *o, bool quiet)
{
	bool said = false;
	while (!stopping) {
		struct timeval tv = { 2, 0 };
		redisContext *c = redisConnectWithTimeout(o->host, o->port, tv);
		if (c && !c->err) {
			struct timeval cmd = { 10, 0 }; /* longer than any BLOCK below */
			redisSetTimeout(c, cmd);
			if (said && !quiet)
				fprintf(stderr, "fixstep-verifyd: connected to %s:%d\n", o->host, o->port);
			return c;
		}
		if (!said && !quiet)
			fprintf(stderr, "fixstep-verifyd: waiting for Redis at %s:%d (%s)\n", o->host, o->port,
				c ? c->errstr : "out of memory");
		said = true;
		redisFree(c);
		sleep_ms(200);
	}
	return NULL;
}

/* A reply, or NULL when the connection failed (then the caller reconnects). */
static redisReply *command_argv(redisContext *c, int argc, const char **argv, const size_t *len)
{
	return redisCommandArgv(c, argc, argv, len);
}

/* ---- the games ---- */

typedef struct game_ref {
	const fxs_verifyd_game *lib; /* the --game library's, or NULL */
	uint64_t lib_start;          /* its create_start's state hash */
	bool lib_has_start;
} game_ref;

static bool load_game(const char *path, game_ref *g)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "fixstep-verifyd: --game %s: %s\n", path, dlerror());
		return false;
	}
	fxs_verifyd_game_entry_fn entry;
	*(void **)&entry = dlsym(h, FXS_VERIFYD_GAME_ENTRY);
	const fxs_verifyd_game *d = entry ? entry() : NULL;
	if (!d || d->abi != FXS_VERIFYD_GAME_ABI || !d->name || !d->apply || d->input_size < 1 ||
	    d->input_size > FXS_REPLAY_MAX_INPUT_SIZE || d->players > FXS_REPLAY_MAX_PLAYERS) {
		fprintf(stderr, "fixstep-verifyd: --game %s: no valid %s() (ABI %u, a name, an apply callback, an input size)\n",
			path, FXS_VERIFYD_GAME_ENTRY, FXS_VERIFYD_GAME_ABI);
		return false;
	}
	g->lib = d;
	if (d->create_start) {
		fxs_world *w = d->create_start();
		if (!w) {
			fprintf(stderr, "fixstep-verifyd: --game %s: its start cannot be created\n", path);
			return false;
		}
		g->lib_start = fxs_world_hash(w), g->lib_has_start = true;
		fxs_world_destroy(w);
	}
	return true;
}

/* ---- one job ---- */

typedef struct job {
	const char *id, *game, *path, *mode, *start, *allow;
	const char *bytes;
	size_t bytes_len;
	uint32_t players;
} job;

typedef struct result {
	const char *status;
	uint64_t ticks, tick, final_hash;
	char message[400];
} result;

static const char *status_token(fxs_replay_status s)
{
	switch (s) {
	case FXS_REPLAY_OK: return "ok";
	case FXS_REPLAY_TRUNCATED: return "truncated";
	case FXS_REPLAY_BAD_MAGIC: return "bad_magic";
	case FXS_REPLAY_VERSION: return "version";
	case FXS_REPLAY_CHECKSUM: return "checksum";
	case FXS_REPLAY_CORRUPT: return "corrupt";
	case FXS_REPLAY_IO: return "io";
	case FXS_REPLAY_NOMEM: return "nomem";
	case FXS_REPLAY_BAD_START: return "bad_start";
	case FXS_REPLAY_DIVERGED: return "diverged";
	case FXS_REPLAY_REFUSED: return "refused";
	case FXS_REPLAY_NO_HANDLER: return "no_handler";
	}
	return "unknown";
}

static bool parse_hex64(const char *s, uint64_t *out)
{
	char *end;
	if (!s || strlen(s) != 16)
		return false;
	errno = 0;
	*out = strtoull(s, &end, 16);
	return !*end && errno == 0;
}

static void verify_job(const job *j, const game_ref *g, result *r)
{
	memset(r, 0, sizeof *r);
	fxs_replay_expect e = { 0 };
	fxs_replay_apply_fn apply = NULL;
	void *ctx = NULL;
	const char *allowed[64];
	char allow_buf[2048];
	bool calls = j->mode && strcmp(j->mode, "calls") == 0;
	if (j->mode && !calls && strcmp(j->mode, "inputs") != 0) {
		r->status = "refused";
		snprintf(r->message, sizeof r->message, "the job's mode '%s' is neither inputs nor calls", j->mode);
		return;
	}
	bool has_start = j->start && parse_hex64(j->start, &e.hash);
	if (j->start && !has_start) {
		r->status = "bad_start";
		snprintf(r->message, sizeof r->message, "the job's start '%s' is not a state hash of 16 hex digits", j->start);
		return;
	}
	const fxs_scene *sc = g->lib && j->game && strcmp(j->game, g->lib->name) == 0 ? NULL : fxs_scene_find(j->game);
	if (g->lib && j->game && strcmp(j->game, g->lib->name) == 0) {
		apply = g->lib->apply, ctx = g->lib->ctx;
		e.input_size = g->lib->input_size, e.players = g->lib->players;
		if (!has_start && g->lib_has_start && !calls)
			e.hash = g->lib_start, has_start = true;
	} else if (sc) {
		apply = fxs_scene_apply_replay_inputs, ctx = (void *)sc;
		e.input_size = FXS_INPUT_SIZE;
		if (!has_start && !calls)
			has_start = fxs_scene_start_hash(sc->name, &e.hash);
	} else {
		r->status = "unknown_game";
		snprintf(r->message, sizeof r->message, "no game '%s' here (a built-in scene, or the --game library's)",
			 j->game ? j->game : "");
		return;
	}
	if (j->players)
		e.players = j->players;
	e.has_hash = has_start;
	e.modes = calls ? FXS_REPLAY_ACCEPT_CALLS : FXS_REPLAY_ACCEPT_INPUTS;
	if (calls && j->allow) {
		snprintf(allow_buf, sizeof allow_buf, "%s", j->allow);
		uint32_t n = 0;
		for (char *save = NULL, *c = strtok_r(allow_buf, ",", &save); c && n < 64; c = strtok_r(NULL, ",", &save))
			allowed[n++] = c;
		e.allowed_calls = allowed, e.allowed_call_count = n;
	}
	fxs_replay_verify_result v;
	fxs_replay_status s = j->bytes ? fxs_replay_verify_memory(j->bytes, j->bytes_len, &e, apply, ctx, &v)
				       : fxs_replay_verify(j->path, &e, apply, ctx, &v);
	r->status = status_token(s);
	r->ticks = v.ticks, r->tick = v.tick, r->final_hash = v.final_hash;
	snprintf(r->message, sizeof r->message, "%s", s == FXS_REPLAY_OK ? "" : v.message);
}

/* Result, done mark and acknowledgement in one step: KEYS done, results,
 * jobs; ARGV group, entry id, job id, then the result's fields. A job
 * already done (redelivered after a crash) is only acknowledged. */
static const char *RESULT_SCRIPT =
	"if redis.call('HSETNX', KEYS[1], ARGV[3], ARGV[2]) == 1 then\n"
	"  local f = {}\n"
	"  for i = 4, #ARGV do f[#f + 1] = ARGV[i] end\n"
	"  redis.call('XADD', KEYS[2], '*', 'job', ARGV[3], unpack(f))\n"
	"  redis.call('XACK', KEYS[3], ARGV[1], ARGV[2])\n"
	"  return 1\n"
	"end\n"
	"redis.call('XACK', KEYS[3], ARGV[1], ARGV[2])\n"
	"return 0\n";

/* false when the connection failed */
static bool write_result(redisContext *c, const options *o, const char *consumer, const char *entry, const char *job_id,
			 const result *r, bool claimed)
{
	char ticks[24], tick[24], hash[20];
	snprintf(ticks, sizeof ticks, "%" PRIu64, r->ticks);
	snprintf(tick, sizeof tick, "%" PRIu64, r->tick);
	snprintf(hash, sizeof hash, "%016" PRIx64, r->final_hash);
	const char *argv[] = { "EVAL",   RESULT_SCRIPT, "3",        o->done,    o->results, o->jobs,  o->group,
			       entry,    job_id,        "status",   r->status,  "ticks",    ticks,    "final_hash",
			       hash,     "tick",        tick,       "message",  r->message, "worker", consumer,
			       "claimed", claimed ? "1" : "0" };
	int argc = (int)(sizeof argv / sizeof argv[0]);
	redisReply *rep = command_argv(c, argc, argv, NULL);
	if (!rep)
		return false;
	if (rep->type == REDIS_REPLY_ERROR)
		fprintf(stderr, "fixstep-verifyd: writing the result of %s: %s\n", job_id, rep->str);
	bool ok = rep->type != REDIS_REPLY_ERROR;
	freeReplyObject(rep);
	return ok;
}

static const redisReply *field(const redisReply *fields, const char *name)
{
	for (size_t i = 0; fields && fields->type == REDIS_REPLY_ARRAY && i + 1 < fields->elements; i += 2)
		if (fields->element[i]->type == REDIS_REPLY_STRING && strcmp(fields->element[i]->str, name) == 0)
			return fields->element[i + 1];
	return NULL;
}

static const char *field_str(const redisReply *fields, const char *name)
{
	const redisReply *f = field(fields, name);
	return f && f->type == REDIS_REPLY_STRING ? f->str : NULL;
}

typedef struct worker_stats {
	uint64_t jobs, claimed;
} worker_stats;

/* One stream entry [id, [field, value, ...]]: verified and answered. false
 * when the connection failed. */
static bool handle_entry(redisContext *c, const options *o, const char *consumer, const game_ref *g,
			 const redisReply *e, bool claimed, worker_stats *st)
{
	if (e->type != REDIS_REPLY_ARRAY || e->elements < 2 || e->element[0]->type != REDIS_REPLY_STRING)
		return true;
	const char *entry = e->element[0]->str;
	const redisReply *f = e->element[1];
	job j = { 0 };
	j.id = field_str(f, "id");
	j.game = field_str(f, "game");
	j.path = field_str(f, "path");
	j.mode = field_str(f, "mode");
	j.start = field_str(f, "start");
	j.allow = field_str(f, "allow");
	const char *players = field_str(f, "players");
	j.players = players ? (uint32_t)strtoul(players, NULL, 10) : 0;
	const redisReply *b = field(f, "bytes");
	if (b && b->type == REDIS_REPLY_STRING)
		j.bytes = b->str, j.bytes_len = b->len;
	result r;
	if (!j.id) { /* a job without an id: answered under its entry id */
		j.id = entry;
		memset(&r, 0, sizeof r);
		r.status = "corrupt";
		snprintf(r.message, sizeof r.message, "a job without an id");
	} else if (!j.path && !j.bytes) {
		memset(&r, 0, sizeof r);
		r.status = "io";
		snprintf(r.message, sizeof r.message, "a job without a path or bytes");
	} else {
		verify_job(&j, g, &r);
	}
	if (!write_result(c, o, consumer, entry, j.id, &r, claimed))
		return false;
	st->jobs++, st->claimed += claimed;
	if (!o->quiet)
		printf("%s %s %s%s\n", j.id, r.status, r.message, claimed ? " (claimed)" : "");
	return true;
}

/* Every entry of a stream reply's array. false when the connection failed. */
static bool handle_entries(redisContext *c, const options *o, const char *consumer, const game_ref *g,
			   const redisReply *entries, bool claimed, worker_stats *st)
{
	for (size_t i = 0; entries && entries->type == REDIS_REPLY_ARRAY && i < entries->elements && !stopping; ++i)
		if (!handle_entry(c, o, consumer, g, entries->element[i], claimed, st))
			return false;
	return true;
}

/* A dead worker's jobs: those pending longer than claim_idle_ms, ours now.
 * false when the connection failed. */
static bool claim(redisContext *c, const options *o, const char *consumer, const game_ref *g, worker_stats *st)
{
	char idle[24];
	snprintf(idle, sizeof idle, "%ld", o->claim_idle_ms);
	const char *argv[] = { "XAUTOCLAIM", o->jobs, o->group, consumer, idle, "0-0", "COUNT", "8" };
	redisReply *rep = command_argv(c, 8, argv, NULL);
	if (!rep)
		return false;
	bool ok = true;
	if (rep->type == REDIS_REPLY_ARRAY && rep->elements >= 2)
		ok = handle_entries(c, o, consumer, g, rep->element[1], true, st);
	freeReplyObject(rep);
	return ok;
}

/* id ">" : new jobs; "0": ours not acknowledged (after a reconnect) */
static bool read_jobs(redisContext *c, const options *o, const char *consumer, const game_ref *g, const char *id,
		      worker_stats *st)
{
	const char *argv[] = { "XREADGROUP", "GROUP", o->group, consumer, "COUNT", "1", "BLOCK", "500", "STREAMS", o->jobs, id };
	redisReply *rep = command_argv(c, 11, argv, NULL);
	if (!rep)
		return false;
	bool ok = true;
	if (rep->type == REDIS_REPLY_ERROR && strstr(rep->str, "NOGROUP")) {
		freeReplyObject(rep);
		return false; /* the group went away (a Redis without its data): set it up again */
	}
	if (rep->type == REDIS_REPLY_ARRAY)
		for (size_t s = 0; s < rep->elements && ok; ++s) {
			const redisReply *stream = rep->element[s];
			if (stream->type == REDIS_REPLY_ARRAY && stream->elements == 2)
				ok = handle_entries(c, o, consumer, g, stream->element[1], false, st);
		}
	freeReplyObject(rep);
	return ok;
}

static bool setup_group(redisContext *c, const options *o)
{
	const char *argv[] = { "XGROUP", "CREATE", o->jobs, o->group, "0", "MKSTREAM" };
	redisReply *rep = command_argv(c, 6, argv, NULL);
	if (!rep)
		return false;
	bool ok = rep->type != REDIS_REPLY_ERROR || strstr(rep->str, "BUSYGROUP") != NULL;
	if (!ok)
		fprintf(stderr, "fixstep-verifyd: XGROUP CREATE: %s\n", rep->str);
	freeReplyObject(rep);
	return ok;
}

static int cmd_worker(const options *o)
{
	game_ref g = { 0 };
	if (o->game_lib && !load_game(o->game_lib, &g))
		return 2;
	char consumer[128];
	if (o->name)
		snprintf(consumer, sizeof consumer, "%s", o->name);
	else {
		char host[64] = "host";
		gethostname(host, sizeof host - 1);
		snprintf(consumer, sizeof consumer, "%s-%ld", host, (long)getpid());
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	worker_stats st = { 0 };
	if (!o->quiet)
		fprintf(stderr, "fixstep-verifyd: worker %s on %s:%d, stream %s, group %s%s%s, claims after %ld ms idle\n",
			consumer, o->host, o->port, o->jobs, o->group, g.lib ? ", game " : "", g.lib ? g.lib->name : "",
			o->claim_idle_ms);
	while (!stopping) {
		redisContext *c = connect_redis(o, o->quiet);
		if (!c)
			break;
		bool ok = setup_group(c, o) && read_jobs(c, o, consumer, &g, "0", &st);
		uint64_t next_claim = 0;
		while (ok && !stopping) {
			if (now_ms() >= next_claim) {
				ok = claim(c, o, consumer, &g, &st);
				next_claim = now_ms() + (uint64_t)o->claim_idle_ms / 4;
			}
			ok = ok && read_jobs(c, o, consumer, &g, ">", &st);
		}
		if (!stopping && !o->quiet)
			fprintf(stderr, "fixstep-verifyd: lost Redis (%s); reconnecting\n", c->err ? c->errstr : "error");
		redisFree(c);
	}
	if (!o->quiet)
		fprintf(stderr, "fixstep-verifyd: worker %s stopped: %" PRIu64 " jobs, %" PRIu64 " of them claimed\n", consumer,
			st.jobs, st.claimed);
	return 0;
}

/* ---- submit ---- */

static char *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *b = malloc(cap);
	for (size_t k; b && (k = fread(b + len, 1, cap - len, f)) > 0;) {
		len += k;
		if (len == cap) {
			if (cap >= FXS_REPLAY_MAX_CHUNK_BYTES) { /* a job's bytes: not more than a chunk */
				free(b);
				b = NULL;
				break;
			}
			char *nb = realloc(b, cap *= 2);
			if (!nb)
				free(b);
			b = nb;
		}
	}
	fclose(f);
	*n = len;
	return b;
}

static int cmd_submit(const options *o)
{
	FILE *in = o->file ? fopen(o->file, "r") : stdin;
	if (!in)
		return bad_args("--file %s: %s", o->file, strerror(errno));
	redisContext *c = connect_redis(o, true);
	if (!c)
		return 1;
	char line[4096];
	unsigned long n = 0, lineno = 0, pending = 0;
	int status = 0;
	while (status == 0 && fgets(line, sizeof line, in)) {
		lineno++;
		char *save = NULL, *w[16];
		int k = 0;
		for (char *t = strtok_r(line, " \t\r\n", &save); t && k < 16; t = strtok_r(NULL, " \t\r\n", &save))
			w[k++] = t;
		if (k == 0 || w[0][0] == '#')
			continue;
		if (k < 3) {
			status = bad_args("line %lu: ID GAME FILE [inline] [key=value ...]", lineno);
			break;
		}
		const char *argv[40];
		size_t len[40];
		int a = 0;
#define ARG(s, l) (argv[a] = (s), len[a] = (l), a++)
#define STR(s) ARG((s), strlen(s))
		STR("XADD");
		STR(o->jobs);
		STR("*");
		STR("id");
		STR(w[0]);
		STR("game");
		STR(w[1]);
		char *bytes = NULL;
		bool inl = false;
		for (int i = 3; i < k; ++i)
			inl = inl || strcmp(w[i], "inline") == 0;
		if (inl) {
			size_t bl;
			if (!(bytes = read_file(w[2], &bl))) {
				status = bad_args("line %lu: cannot read %s", lineno, w[2]);
				break;
			}
			STR("bytes");
			ARG(bytes, bl);
		} else {
			STR("path");
			STR(w[2]);
		}
		for (int i = 3; i < k && status == 0; ++i) {
			if (strcmp(w[i], "inline") == 0)
				continue;
			char *eq = strchr(w[i], '=');
			if (!eq || (strncmp(w[i], "mode=", 5) && strncmp(w[i], "start=", 6) && strncmp(w[i], "players=", 8) &&
				    strncmp(w[i], "allow=", 6))) {
				status = bad_args("line %lu: unknown job field %s", lineno, w[i]);
				break;
			}
			*eq = 0;
			STR(w[i]);
			STR(eq + 1);
		}
#undef STR
#undef ARG
		if (status == 0 && redisAppendCommandArgv(c, a, argv, len) != REDIS_OK)
			status = 1;
		free(bytes);
		pending++, n++;
		for (; status == 0 && pending > 256; --pending) { /* pipelined, 256 in flight */
			redisReply *rep;
			if (redisGetReply(c, (void **)&rep) != REDIS_OK)
				status = 1;
			else
				freeReplyObject(rep);
		}
	}
	for (; status == 0 && pending; --pending) {
		redisReply *rep;
		if (redisGetReply(c, (void **)&rep) != REDIS_OK || rep->type == REDIS_REPLY_ERROR) {
			fprintf(stderr, "fixstep-verifyd: XADD: %s\n", rep ? rep->str : c->errstr);
			status = 1;
		}
		freeReplyObject(rep);
	}
	if (status == 1)
		fprintf(stderr, "fixstep-verifyd: submitting: %s\n", c->err ? c->errstr : "refused");
	if (status == 0)
		printf("submitted %lu jobs to %s\n", n, o->jobs);
	redisFree(c);
	if (in != stdin)
		fclose(in);
	return status;
}

/* ---- results ---- */

static int cmd_results(const options *o)
{
	redisContext *c = connect_redis(o, true);
	if (!c)
		return 1;
	if (o->count) {
		redisReply *a = redisCommand(c, "XLEN %s", o->results), *b = redisCommand(c, "HLEN %s", o->done);
		int rc = a && b && a->type == REDIS_REPLY_INTEGER && b->type == REDIS_REPLY_INTEGER ? 0 : 1;
		if (!rc)
			printf("results %lld jobs %lld\n", a->integer, b->integer);
		freeReplyObject(a);
		freeReplyObject(b);
		redisFree(c);
		return rc;
	}
	char from[64] = "-";
	for (;;) {
		redisReply *rep = redisCommand(c, "XRANGE %s %s + COUNT 500", o->results, from);
		if (!rep || rep->type != REDIS_REPLY_ARRAY) {
			fprintf(stderr, "fixstep-verifyd: XRANGE: %s\n", rep ? rep->str : c->errstr);
			freeReplyObject(rep);
			redisFree(c);
			return 1;
		}
		for (size_t i = 0; i < rep->elements; ++i) {
			const redisReply *e = rep->element[i], *f = e->element[1];
			const char *m = field_str(f, "message");
			printf("%s job=%s status=%s ticks=%s final_hash=%s tick=%s worker=%s claimed=%s%s%s\n", e->element[0]->str,
			       field_str(f, "job"), field_str(f, "status"), field_str(f, "ticks"), field_str(f, "final_hash"),
			       field_str(f, "tick"), field_str(f, "worker"), field_str(f, "claimed"), m && *m ? " | " : "",
			       m ? m : "");
		}
		size_t n = rep->elements;
		if (n)
			snprintf(from, sizeof from, "(%s", rep->element[n - 1]->element[0]->str);
		freeReplyObject(rep);
		if (n < 500)
			break;
	}
	redisFree(c);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0)
		return usage(), argc < 2 ? 2 : 0;
	options o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (strcmp(argv[1], "worker") == 0)
		return cmd_worker(&o);
	if (strcmp(argv[1], "submit") == 0)
		return cmd_submit(&o);
	if (strcmp(argv[1], "results") == 0)
		return cmd_results(&o);
	return bad_args("unknown command %s", argv[1]);
}
