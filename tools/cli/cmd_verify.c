/* fixstep verify | diff | dump | replay: every one reads its replays chunk
 * by chunk (fxs_replay_reader), so a replay of any length is read in the
 * memory of one chunk plus the world. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "replay_run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Exit statuses of verify and diff (docs/replays.md): 0 ok, 1 diverged, 2 not a
 * valid replay (or bad arguments), 3 this machine ran out of memory (nothing is
 * said about the replay), 4 a valid replay that does not start from the start
 * it must have, 5 a valid replay of a kind the verifier does not accept (its
 * mode, or a call not allowed), 6 a valid replay this program has no input
 * handler for (a game's own inputs). */
#define EXIT_DIVERGED 1
#define EXIT_BAD_FILE 2
#define EXIT_NOMEM 3
#define EXIT_BAD_START 4
#define EXIT_REFUSED 5
#define EXIT_NO_HANDLER 6

static int exit_of(fxs_replay_status s)
{
	switch (s) {
	case FXS_REPLAY_NOMEM: return EXIT_NOMEM;
	case FXS_REPLAY_BAD_START: return EXIT_BAD_START;
	case FXS_REPLAY_REFUSED: return EXIT_REFUSED;
	case FXS_REPLAY_NO_HANDLER: return EXIT_NO_HANDLER;
	default: return EXIT_BAD_FILE;
	}
}

static int report(const char *path, fxs_replay_status s, const char *why)
{
	fprintf(stderr, "fixstep: %s: %s\n", path, why);
	return exit_of(s);
}

/* Open a replay and read its header: 0, or the exit status after the
 * reason (the reader closed). */
static int open_replay(const char *path, fxs_replay_reader *r)
{
	if (fxs_replay_open(r, path) == FXS_REPLAY_OK)
		return 0;
	int e = report(path, r->status, r->error);
	fxs_replay_close(r);
	return e;
}

static void kernel_note(const char *path, const fxs_replay_reader *r)
{
	uint32_t mine = fxs_version();
	if (r->kernel_version != mine)
		fprintf(stderr, "fixstep: note: %s was recorded by kernel %u.%u.%u, this is %u.%u.%u\n", path,
			r->kernel_version >> 16, (r->kernel_version >> 8) & 0xff, r->kernel_version & 0xff, FXS_VERSION_MAJOR,
			FXS_VERSION_MINOR, FXS_VERSION_PATCH);
}

/* A world from a recorded state (a tick's, DETAIL), or NULL with why. */
static fxs_world *recorded_world(const uint8_t *state, size_t len, uint64_t tick, char *err, size_t n)
{
	fxs_result e;
	fxs_world *w = fxs_world_create_from_snapshot(state, len, &e);
	if (!w)
		snprintf(err, n, "corrupt: the recorded state of tick %" PRIu64 " does not restore (%s)", tick,
			 fxs_result_string(e));
	return w;
}

/* ---- what the start must be (verify --start-hash / --start) ---- */

typedef struct start_options {
	const char *hash_arg, *file;
	uint8_t *snapshot;
	size_t snapshot_len;
	fxs_replay_expect expect;
} start_options;

/* 16 hex digits (as `fixstep run SCENE --steps 0` prints the hash) */
static bool parse_hash(const char *s, uint64_t *out)
{
	uint8_t b[8];
	if (!cli_parse_hex(s, b, sizeof b))
		return false;
	*out = 0;
	for (int i = 0; i < 8; ++i)
		*out = *out << 8 | b[i];
	return true;
}

/* The start snapshot file (--start), read whole up to the format's limit:
 * CLI_GO, or the exit status after the reason. */
static int load_start(start_options *so)
{
	if (so->hash_arg && so->file)
		return cli_usage_error("give one of --start-hash and --start");
	if (so->hash_arg) {
		if (!parse_hash(so->hash_arg, &so->expect.hash))
			return cli_usage_error("--start-hash needs a state hash of 16 hex digits");
		so->expect.has_hash = true;
		return CLI_GO;
	}
	if (!so->file)
		return CLI_GO;
	FILE *f = fopen(so->file, "rb");
	if (!f)
		return cli_usage_error("--start %s: %s", so->file, strerror(errno));
	size_t cap = 0, n = 0;
	uint8_t *b = NULL;
	int rc = CLI_GO;
	for (;;) {
		if (n == cap) {
			if (cap > FXS_REPLAY_MAX_SNAPSHOT_BYTES) {
				rc = cli_usage_error("--start %s: not a snapshot (over %zu bytes)", so->file, FXS_REPLAY_MAX_SNAPSHOT_BYTES);
				break;
			}
			uint8_t *nb = realloc(b, cap ? cap * 2 : 65536);
			if (!nb) {
				fprintf(stderr, "fixstep: --start %s: out of memory\n", so->file);
				rc = EXIT_NOMEM;
				break;
			}
			b = nb, cap = cap ? cap * 2 : 65536;
		}
		size_t k = fread(b + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
	}
	if (rc == CLI_GO && ferror(f))
		rc = cli_usage_error("--start %s: %s", so->file, strerror(errno));
	fclose(f);
	if (rc != CLI_GO) {
		free(b);
		return rc;
	}
	fxs_result e;
	fxs_world *w = fxs_world_create_from_snapshot(b, n, &e);
	if (!w) {
		free(b);
		return cli_usage_error("--start %s: not a snapshot that restores (%s)", so->file, fxs_result_string(e));
	}
	fxs_world_destroy(w);
	so->snapshot = b, so->snapshot_len = n;
	so->expect.snapshot = b, so->expect.snapshot_len = n;
	return CLI_GO;
}

/* The world at the replay's start, checked: NULL after the reason (*status
 * the exit status). */
static fxs_world *start(const char *path, const fxs_replay_reader *r, const fxs_replay_expect *expect,
			const fxs_scene **sc, int *status)
{
	char err[512];
	fxs_replay_status s;
	fxs_world *w = fxs_replay_reader_start(r, expect, sc, &s, err, sizeof err);
	if (!w)
		*status = report(path, s, err);
	return w;
}

/* ---- verify ---- */

typedef struct verify_options {
	const char *path;
	bool allow_truncated, quiet;
	int kernels; /* -1: the widest */
	start_options start;
	const char *calls[64]; /* --allow-calls, or "*" */
	char *calls_arg;       /* their text (owned) */
} verify_options;

static int verify_usage(void)
{
	printf("usage: fixstep verify FILE [--start-hash H | --start SNAPSHOT] [--mode inputs|calls]\n"
	       "                      [--allow-calls NAME,...] [--allow-truncated] [--quiet] [--kernels K]\n\n"
	       "Re-simulates a replay from its start with its inputs and checks the state\n"
	       "hash after every tick, reading it chunk by chunk (any length, in the memory\n"
	       "of one chunk and the world). The start must be the one the replay claims:\n"
	       "the built-in scene's own start (its state hash is compiled into this program),\n"
	       "or, for another start, the state hash H (--start-hash, 16 hex digits) or the\n"
	       "snapshot file (--start) the verifier is given.\n"
	       "  exit 0  every tick matches; the last line is 'hash ' and the final hash\n"
	       "  exit 1  'diverged at step S: body B field F (expected E, got G)' (the body\n"
	       "          and field come from the recorded per-tick state; a replay recorded\n"
	       "          with --no-detail names the step and the hashes only)\n"
	       "  exit 2  not a valid replay, with the reason (truncated, bad checksum, unknown\n"
	       "          version, corrupt ...). A truncated file (a recorder that was killed)\n"
	       "          still has its complete chunks verified first; --allow-truncated\n"
	       "          then exits 0 when they all match.\n"
	       "  exit 3  this machine ran out of memory (nothing is said about the replay)\n"
	       "  exit 4  a valid replay, but not from the start it must have\n"
	       "  exit 5  a valid replay of a kind not accepted: API calls without --mode calls,\n"
	       "          inputs with --mode calls, or a call not on --allow-calls\n"
	       "  exit 6  a valid replay of a game's own inputs: this program has no input\n"
	       "          handler for them (the game verifies it with its own)\n"
	       "--mode: what the replay must record: inputs (the default: the scenes' players)\n"
	       "or calls (every mutating API call, which can set any state: a replay of calls\n"
	       "verifies only when asked for). --allow-calls: with --mode calls, the calls\n"
	       "allowed, by function name (default: every call).\n"
	       "--quiet: only the result lines, no 'ok' line and no progress bar (which shows\n"
	       "when stdout is a terminal). --kernels portable, sse4, avx2, avx512, simd128 or\n"
	       "neon: the solver kernels to use at most, default the widest this machine has\n"
	       "(the same bits).\n");
	return 0;
}

static int verify_parse(int argc, char **argv, verify_options *o)
{
	*o = (verify_options){ .kernels = -1 };
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			return verify_usage();
		} else if (strcmp(a, "--allow-truncated") == 0) {
			o->allow_truncated = true;
		} else if (strcmp(a, "--quiet") == 0) {
			o->quiet = true;
		} else if (strcmp(a, "--kernels") == 0) {
			if ((o->kernels = cli_parse_kernels(++i < argc ? argv[i] : NULL)) < 0)
				return 2;
		} else if (strcmp(a, "--mode") == 0) {
			if (++i >= argc || (strcmp(argv[i], "inputs") != 0 && strcmp(argv[i], "calls") != 0))
				return cli_usage_error("--mode needs inputs or calls");
			o->start.expect.modes = strcmp(argv[i], "calls") == 0 ? FXS_REPLAY_ACCEPT_CALLS : FXS_REPLAY_ACCEPT_INPUTS;
		} else if (strcmp(a, "--allow-calls") == 0) {
			if (++i >= argc || o->calls_arg)
				return cli_usage_error("--allow-calls needs one list of call names, separated by commas");
			if (!(o->calls_arg = strdup(argv[i])))
				return cli_usage_error("out of memory");
			uint32_t n = 0;
			for (char *save = NULL, *c = strtok_r(o->calls_arg, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
				if (n == sizeof o->calls / sizeof o->calls[0])
					return cli_usage_error("--allow-calls: at most %zu names", sizeof o->calls / sizeof o->calls[0]);
				o->calls[n++] = c;
			}
			o->start.expect.allowed_call_count = n;
		} else if (strcmp(a, "--start-hash") == 0 || strcmp(a, "--start") == 0) {
			if (++i >= argc)
				return cli_usage_error("%s needs a value", a);
			if (strcmp(a, "--start") == 0)
				o->start.file = argv[i];
			else
				o->start.hash_arg = argv[i];
		} else if (!cli_positional("verify", a, &o->path, 1)) {
			return 2;
		}
	}
	if (!o->path)
		return cli_usage_error("verify needs a replay file");
	if (o->calls_arg && o->start.expect.modes != FXS_REPLAY_ACCEPT_CALLS)
		return cli_usage_error("--allow-calls needs --mode calls");
	if (!o->calls_arg) /* --mode calls alone: every call */
		o->calls[0] = "*", o->start.expect.allowed_call_count = 1;
	o->start.expect.allowed_calls = o->calls;
	o->start.expect.input_size = FXS_INPUT_SIZE;
	return load_start(&o->start);
}

/* Tick t's recorded hash differs from ours (w): "diverged at step S: ...",
 * naming the body and field when the replay has its per-tick state. */
static void calls_of(const fxs_replay_tick *t)
{
	uint32_t op;
	if (!t->calls)
		return;
	printf("tick %" PRIu64 " made %u recorded call%s:", t->number, t->call_count, t->call_count == 1 ? "" : "s");
	for (uint32_t k = 0; fxs_replay_tick_call(t, k, &op, NULL); ++k)
		printf("%s call %u (%s)", k ? "," : "", k, fxs_replay_call_name(op));
	printf("\n");
}

static int verify_divergence(const char *path, const fxs_replay_tick *t, const fxs_world *w)
{
	uint64_t got = fxs_world_hash(w);
	if (!t->state) {
		calls_of(t);
		printf("diverged at step %" PRIu64 ": state hash (expected %016" PRIx64 ", got %016" PRIx64
		       "); the replay has no per-tick state (recorded with --no-detail) to name the body\n",
		       t->number, t->hash, got);
		return EXIT_DIVERGED;
	}
	char err[256];
	fxs_world *rec = recorded_world(t->state, t->state_len, t->number, err, sizeof err);
	if (!rec)
		return report(path, FXS_REPLAY_CORRUPT, err);
	fxs_state_diff df;
	if (fxs_world_first_difference(rec, w, &df)) {
		fxs_state_diff_format(&df, err, sizeof err);
		printf("diverged at step %" PRIu64 ": %s\n", t->number, err);
		if (fxs_replay_tick_suspect_calls(t, rec, w, err, sizeof err))
			printf("tick %" PRIu64 "'s calls on the bodies that differ: %s\n", t->number, err);
	} else {
		printf("diverged at step %" PRIu64 ": state hash (expected %016" PRIx64 ", got %016" PRIx64 ")\n", t->number,
		       t->hash, got);
	}
	fxs_world_destroy(rec);
	return EXIT_DIVERGED;
}

/* Every tick read matched: the 'ok' line, a bad file's reason, and the
 * final hash; the exit status. */
static int verify_report_ok(const verify_options *o, const fxs_replay_reader *r, const fxs_world *w)
{
	bool good = r->status == FXS_REPLAY_OK;
	if (!o->quiet) {
		char what[128];
		if (r->mode == FXS_REPLAY_MODE_CALLS)
			snprintf(what, sizeof what, "API calls of %s", r->scene[0] ? r->scene : "a program");
		else
			snprintf(what, sizeof what, "scene %s, %u player%s", r->scene, r->players, r->players == 1 ? "" : "s");
		printf("%s: %" PRIu64 " ticks in %u %schunk%s verified (%s)\n", good ? "ok" : "partial", r->tick_count,
		       r->chunk_count, good ? "" : "complete ", r->chunk_count == 1 ? "" : "s", what);
	}
	int status = 0;
	if (!good) {
		fprintf(stderr, "fixstep: %s: %s\n", o->path, r->error);
		if (!(o->allow_truncated && r->status == FXS_REPLAY_TRUNCATED))
			status = exit_of(r->status);
	}
	if (status == 0)
		printf("hash %016" PRIx64 "\n", fxs_world_hash(w));
	return status;
}

int cmd_verify(int argc, char **argv)
{
	verify_options o;
	fxs_replay_reader r;
	int status = verify_parse(argc, argv, &o);
	if (status != CLI_GO || (status = open_replay(o.path, &r))) {
		free(o.start.snapshot);
		free(o.calls_arg);
		return status;
	}
	kernel_note(o.path, &r);
	const fxs_scene *sc;
	fxs_world *w = NULL;
	char why[512];
	/* the kind first (the mode asked for), before the start and any tick: a
	 * game's own inputs are not refused for their size but for want of a
	 * handler (fxs_replay_reader_start) */
	fxs_replay_status kind = fxs_replay_accepts(r.mode, r.mode == FXS_REPLAY_MODE_INPUTS ? FXS_INPUT_SIZE : 0,
						    r.players > FXS_MAX_PLAYERS ? 1 : r.players, &o.start.expect, why,
						    sizeof why);
	if (kind != FXS_REPLAY_OK)
		status = report(o.path, kind, why);
	else
		w = start(o.path, &r, &o.start.expect, &sc, &status);
	free(o.start.snapshot);
	if (!w) {
		free(o.calls_arg);
		fxs_replay_close(&r);
		return status;
	}
	cli_use_kernels(w, o.kernels);
	cli_progress pr;
	cli_progress_init(&pr, "verifying", r.file_size, o.quiet);
	fxs_replay_tick t;
	status = -1;
	while (status < 0 && fxs_replay_next(&r, &t)) {
		if ((kind = fxs_replay_tick_allowed(&t, &o.start.expect, why, sizeof why)) != FXS_REPLAY_OK) {
			cli_progress_end(&pr);
			status = report(o.path, kind, why);
		} else if (fxs_replay_step_tick(sc, w, &t, r.players) != FXS_OK) {
			cli_progress_end(&pr);
			fprintf(stderr, "fixstep: %s: out of memory re-simulating step %" PRIu64 ": not verified\n", o.path,
				t.number);
			status = EXIT_NOMEM;
		} else if (fxs_world_hash(w) != t.hash) {
			cli_progress_end(&pr);
			status = verify_divergence(o.path, &t, w);
		}
		cli_progress_update(&pr, r.pos, r.tick_count);
	}
	if (status < 0) /* read to its end: the bar full before it goes */
		cli_progress_update(&pr, pr.total, r.tick_count);
	cli_progress_end(&pr);
	if (status < 0)
		status = verify_report_ok(&o, &r, w);
	fxs_world_destroy(w);
	fxs_replay_close(&r);
	free(o.calls_arg);
	return status;
}

/* ---- diff ---- */

static int diff_parse(int argc, char **argv, const char *path[2])
{
	path[0] = path[1] = NULL;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			printf("usage: fixstep diff A B\n\n"
			       "Where two replays part: the first tick whose inputs or recorded state hash\n"
			       "differ, and there the first body and field that differ (from the recorded\n"
			       "per-tick state, or by re-simulating a replay recorded with --no-detail).\n"
			       "Both files are read to their end and checked as verify reads them.\n"
			       "Exit 0 when they are identical, 1 when they part (or one is longer), 2 when\n"
			       "either is not a valid replay (after what it found), 3 out of memory.\n");
			return 0;
		} else if (!cli_positional("diff", a, path, 2)) {
			return 2;
		}
	}
	return path[1] ? CLI_GO : cli_usage_error("diff needs two replay files");
}

/* Two recordings of different scenes, players or starts, or from different
 * initial states: true after saying so. */
static bool diff_headers(const fxs_replay_reader *a, const fxs_replay_reader *b)
{
	if (strcmp(a->scene, b->scene) != 0 || a->players != b->players || a->start_tick != b->start_tick ||
	    a->mode != b->mode || a->input_size != b->input_size) {
		printf("different recordings: A is %s with %u players from step %" PRIu64 ", B is %s with %u players from step %" PRIu64 "\n",
		       a->scene, a->players, a->start_tick, b->scene, b->players, b->start_tick);
		return true;
	}
	if (a->snapshot_len != b->snapshot_len ||
	    memcmp(fxs_replay_reader_snapshot(a), fxs_replay_reader_snapshot(b), a->snapshot_len) != 0) {
		printf("parted before the first tick: the initial snapshots differ\n");
		return true;
	}
	return false;
}

static void print_input(const char *label, const fxs_input *in)
{
	printf("  %s: move %d %d yaw %u pitch %d buttons 0x%x\n", label, in->move_x, in->move_z, in->yaw, in->pitch,
	       in->buttons);
}

/* What the first pass found. */
typedef struct diff_scan {
	uint64_t n;             /* ticks both hold */
	uint64_t ticks[2];      /* ticks each holds */
	bool parted;            /* inputs or hashes differ at tick index `at` */
	uint64_t at, at_number; /* the first such tick */
	int player;             /* the first player whose input differs there, or -1 */
	fxs_input ia, ib;
	int call;            /* CALLS: the first call that differs there, or -1 */
	uint32_t call_op[2]; /* its op in each (0: none) */
	uint64_t at_hash;    /* A's hash at `at` */
	bool states_part;    /* some tick's hashes differ: the first is `state_at` */
	uint64_t state_at, state_number, state_hash[2];
	uint8_t *state[2]; /* their recorded states there (DETAIL), owned */
	size_t state_len[2];
} diff_scan;

static uint8_t *copy_bytes(const uint8_t *p, size_t n)
{
	uint8_t *b = malloc(n ? n : 1);
	if (b && n)
		memcpy(b, p, n);
	return b;
}

/* Both files to their end, tick by tick: where they part. false when out of
 * memory copying a recorded state. */
/* CALLS: the first call of two ticks whose record differs (its ops to op[],
 * 0 where a tick has fewer calls), or -1 when the calls are the same. */
static int first_call_differing(const fxs_replay_tick *a, const fxs_replay_tick *b, uint32_t op[2])
{
	size_t oa = 0, ob = 0;
	if (!a->calls || !b->calls)
		return -1;
	for (uint32_t k = 0; k < a->call_count || k < b->call_count; ++k) {
		op[0] = op[1] = 0;
		bool ha = fxs_replay_tick_call(a, k, &op[0], &oa), hb = fxs_replay_tick_call(b, k, &op[1], &ob);
		/* a record ends where the next begins, or at the end of the tick's calls */
		size_t ea, eb;
		if (!fxs_replay_tick_call(a, k + 1, NULL, &ea))
			ea = a->calls_len;
		if (!fxs_replay_tick_call(b, k + 1, NULL, &eb))
			eb = b->calls_len;
		if (!ha || !hb || ea - oa != eb - ob || memcmp(a->calls + oa, b->calls + ob, ea - oa) != 0)
			return (int)k;
	}
	return -1;
}

static bool diff_scan_files(fxs_replay_reader *r, diff_scan *s)
{
	fxs_replay_tick ta, tb;
	bool ha = true, hb = true;
	memset(s, 0, sizeof *s);
	s->player = -1, s->call = -1;
	cli_progress pr; /* by the bytes of both files */
	cli_progress_init(&pr, "comparing", r[0].file_size + r[1].file_size, false);
	for (;;) {
		ha = ha && fxs_replay_next(&r[0], &ta);
		hb = hb && fxs_replay_next(&r[1], &tb);
		if (!ha || !hb)
			break;
		s->n++;
		cli_progress_update(&pr, r[0].pos + r[1].pos, s->n);
		if (s->states_part)
			continue;
		uint32_t ops[2] = { 0, 0 };
		int player = -1, call = first_call_differing(&ta, &tb, ops);
		size_t sz = r[0].input_size;
		for (uint32_t p = 0; p < r[0].players && player < 0; ++p)
			if (memcmp(ta.input + p * sz, tb.input + p * sz, sz) != 0)
				player = (int)p;
		if (!s->parted && (player >= 0 || call >= 0 || ta.hash != tb.hash)) {
			s->parted = true, s->at = ta.index, s->at_number = ta.number, s->at_hash = ta.hash;
			s->player = player, s->call = call;
			s->call_op[0] = ops[0], s->call_op[1] = ops[1];
			if (player >= 0)
				s->ia = ta.inputs[player], s->ib = tb.inputs[player];
		}
		if (ta.hash != tb.hash) {
			s->states_part = true, s->state_at = ta.index, s->state_number = ta.number;
			s->state_hash[0] = ta.hash, s->state_hash[1] = tb.hash;
			const fxs_replay_tick *t[2] = { &ta, &tb };
			for (int k = 0; k < 2; ++k)
				if (t[k]->state && !(s->state[k] = copy_bytes(t[k]->state, t[k]->state_len))) {
					cli_progress_end(&pr);
					return false;
				}
				else
					s->state_len[k] = t[k]->state_len;
		}
	}
	/* the longer one to its end: it is checked too */
	while (ha && fxs_replay_next(&r[0], &ta))
		;
	while (hb && fxs_replay_next(&r[1], &tb))
		;
	cli_progress_update(&pr, pr.total, s->n);
	cli_progress_end(&pr);
	s->ticks[0] = r[0].tick_count, s->ticks[1] = r[1].tick_count;
	return true;
}

/* The state after tick index i of the replay at path, re-simulated from its
 * own start (diff compares; verify judges the start), or NULL with why. */
static fxs_world *resimulated(const char *path, uint64_t i, fxs_replay_status *st, char *err, size_t n)
{
	fxs_replay_reader r;
	if (fxs_replay_open(&r, path) != FXS_REPLAY_OK) {
		*st = r.status;
		snprintf(err, n, "%s", r.error);
		fxs_replay_close(&r);
		return NULL;
	}
	fxs_replay_expect own = { .snapshot = fxs_replay_reader_snapshot(&r), .snapshot_len = r.snapshot_len };
	const fxs_scene *sc;
	fxs_world *w = fxs_replay_reader_start(&r, &own, &sc, st, err, n);
	fxs_replay_tick t;
	while (w && r.tick_count <= i && fxs_replay_next(&r, &t))
		if (fxs_replay_step_tick(sc, w, &t, r.players) != FXS_OK) {
			snprintf(err, n, "out of memory re-simulating step %" PRIu64, t.number);
			*st = FXS_REPLAY_NOMEM;
			fxs_world_destroy(w);
			w = NULL;
		}
	if (w && r.tick_count <= i) {
		snprintf(err, n, "%s", r.error);
		*st = r.status;
		fxs_world_destroy(w);
		w = NULL;
	}
	fxs_replay_close(&r);
	return w;
}

/* The states at the first tick whose hashes differ: the first body and
 * field; the exit status. */
static int diff_states(const char *const path[2], const diff_scan *s)
{
	char err[512];
	fxs_world *w[2] = { NULL, NULL };
	int status = EXIT_DIVERGED;
	for (int k = 0; k < 2 && status == EXIT_DIVERGED; ++k) {
		fxs_replay_status st = FXS_REPLAY_CORRUPT;
		w[k] = s->state[k] ? recorded_world(s->state[k], s->state_len[k], s->state_number, err, sizeof err)
				   : resimulated(path[k], s->state_at, &st, err, sizeof err);
		if (!w[k])
			status = report(path[k], st, err);
	}
	if (status == EXIT_DIVERGED) {
		fxs_state_diff df;
		if (fxs_world_first_difference(w[0], w[1], &df)) {
			fxs_state_diff_format(&df, err, sizeof err);
			printf("diverged at step %" PRIu64 ": %s\n", s->state_number, err);
			printf("(expected = A, got = B; states %s)\n",
			       s->state[0] && s->state[1] ? "as recorded" : "re-simulated here where not recorded");
		} else {
			printf("diverged at step %" PRIu64 ": recorded hashes %016" PRIx64 " (A) and %016" PRIx64
			       " (B), but here both runs give the same state: they part on another platform or build\n",
			       s->state_number, s->state_hash[0], s->state_hash[1]);
		}
	}
	fxs_world_destroy(w[0]);
	fxs_world_destroy(w[1]);
	return status;
}

/* What the scan found, as diff prints it; the exit status. */
static int diff_report(const char *const path[2], const diff_scan *s)
{
	if (s->parted) {
		if (s->player >= 0) {
			printf("inputs part at step %" PRIu64 ": player %d\n", s->at_number, s->player);
			if (!fxs_input_equal(&s->ia, &s->ib)) { /* fxs_input records (a game's own: only their bytes) */
				print_input("A", &s->ia);
				print_input("B", &s->ib);
			}
		}
		if (s->call >= 0)
			printf("calls part at step %" PRIu64 ": call %d (A: %s, B: %s)\n", s->at_number, s->call,
			       s->call_op[0] ? fxs_replay_call_name(s->call_op[0]) : "none",
			       s->call_op[1] ? fxs_replay_call_name(s->call_op[1]) : "none");
		if (!s->states_part || s->state_at != s->at)
			printf("states still agree at step %" PRIu64 " (hash %016" PRIx64 ")\n", s->at_number, s->at_hash);
		if (!s->states_part) {
			printf("and on every tick both hold\n");
			return EXIT_DIVERGED;
		}
		return diff_states(path, s);
	}
	if (s->ticks[0] != s->ticks[1]) {
		printf("identical for %" PRIu64 " ticks, then %s ends (A has %" PRIu64 " ticks, B has %" PRIu64 ")\n", s->n,
		       s->ticks[0] < s->ticks[1] ? "A" : "B", s->ticks[0], s->ticks[1]);
		return EXIT_DIVERGED;
	}
	printf("identical: %" PRIu64 " ticks\n", s->n);
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	const char *path[2];
	fxs_replay_reader r[2];
	int status = diff_parse(argc, argv, path);
	if (status != CLI_GO || (status = open_replay(path[0], &r[0])))
		return status;
	if ((status = open_replay(path[1], &r[1]))) {
		fxs_replay_close(&r[0]);
		return status;
	}
	diff_scan s;
	if (diff_headers(&r[0], &r[1])) {
		status = EXIT_DIVERGED;
		diff_scan_files(r, &s); /* still read both to their end */
	} else if (!diff_scan_files(r, &s)) {
		fprintf(stderr, "fixstep: out of memory\n");
		status = EXIT_NOMEM;
	} else {
		status = diff_report(path, &s);
	}
	/* a file that is not a valid replay is said so, whatever came before */
	for (int k = 0; k < 2; ++k)
		if (r[k].status != FXS_REPLAY_OK) {
			int e = report(path[k], r[k].status, r[k].error);
			if (status != EXIT_NOMEM)
				status = e;
		}
	free(s.state[0]);
	free(s.state[1]);
	fxs_replay_close(&r[0]);
	fxs_replay_close(&r[1]);
	return status;
}

/* ---- dump ---- */

typedef struct dump_options {
	const char *path;
	bool ticks, inputs;
} dump_options;

static int dump_parse(int argc, char **argv, dump_options *o)
{
	*o = (dump_options){ .ticks = true };
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			printf("usage: fixstep dump FILE [--no-ticks] [--inputs]\n\n"
			       "Prints a replay's header, then its chunks, each followed by its ticks' state\n"
			       "hashes (--inputs: and every player's input; --no-ticks: no tick lines),\n"
			       "reading chunk by chunk. Exit 2 (3: out of memory), after printing what is\n"
			       "valid, when the file is not a complete valid replay.\n");
			return 0;
		} else if (strcmp(a, "--no-ticks") == 0) {
			o->ticks = false;
		} else if (strcmp(a, "--inputs") == 0) {
			o->inputs = true;
		} else if (!cli_positional("dump", a, &o->path, 1)) {
			return 2;
		}
	}
	return o->path ? CLI_GO : cli_usage_error("dump needs a replay file");
}

static void dump_header(const char *path, const fxs_replay_reader *r)
{
	if (r->file_size)
		printf("file            %s (%" PRIu64 " bytes)\n", path, r->file_size);
	else
		printf("file            %s\n", path);
	printf("format version  %u\n", r->format_version);
	printf("kernel version  %u.%u.%u\n", r->kernel_version >> 16, (r->kernel_version >> 8) & 0xff, r->kernel_version & 0xff);
	printf("numeric         Q%u.%u state, Q%u.%u wide\n", 32 - (r->numeric & 0xff), r->numeric & 0xff,
	       64 - ((r->numeric >> 8) & 0xff), (r->numeric >> 8) & 0xff);
	printf("scene           %s\n", r->scene[0] ? r->scene : "(none)");
	if (r->mode == FXS_REPLAY_MODE_CALLS)
		printf("mode            calls (every mutating API call)\n");
	else
		printf("players         %u (%u input bytes each)\n", r->players, r->input_size);
	printf("chunk ticks     %u\n", r->chunk_ticks);
	printf("flags           0x%x%s\n", r->flags, (r->flags & FXS_REPLAY_FLAG_DETAIL) ? " (detail: per-tick state)" : "");
	printf("start step      %" PRIu64 "\n", r->start_tick);
	printf("snapshot        %zu bytes at offset %zu\n", r->snapshot_len, r->snapshot_off);
	printf("header          %zu bytes, checksum %016" PRIx64 "\n", r->header_size, r->header_checksum);
	printf("  %5s %10s %8s %10s %6s  %s\n", "chunk", "offset", "bytes", "first", "ticks", "checksum");
}

static void dump_tick(const fxs_replay_reader *r, const fxs_replay_tick *t, bool inputs)
{
	printf("  %8" PRIu64 " %016" PRIx64 "\n", t->number, t->hash);
	uint32_t op;
	size_t off;
	for (uint32_t k = 0; inputs && fxs_replay_tick_call(t, k, &op, &off); ++k)
		printf("           call %2u %s\n", k, fxs_replay_call_name(op));
	if (r->input_size != FXS_INPUT_SIZE) {
		for (uint32_t p = 0; inputs && p < r->players; ++p) {
			printf("           player %2u", p);
			for (uint32_t b = 0; b < r->input_size; ++b)
				printf(" %02x", t->input[(size_t)p * r->input_size + b]);
			printf("\n");
		}
		return;
	}
	for (uint32_t p = 0; inputs && p < r->players; ++p)
		printf("           player %2u move %6d %6d yaw %5u pitch %6d buttons 0x%x\n", p, t->inputs[p].move_x,
		       t->inputs[p].move_z, t->inputs[p].yaw, t->inputs[p].pitch, t->inputs[p].buttons);
}

int cmd_dump(int argc, char **argv)
{
	dump_options o;
	fxs_replay_reader r;
	int status = dump_parse(argc, argv, &o);
	if (status != CLI_GO || (status = open_replay(o.path, &r)))
		return status;
	dump_header(o.path, &r);
	fxs_replay_tick t;
	while (fxs_replay_next(&r, &t)) {
		if (t.first_of_chunk) {
			const fxs_replay_chunk *k = &r.cur;
			printf("  %5u %10zu %8zu %10" PRIu64 " %6u  %016" PRIx64 "\n", k->index, k->offset, k->size, k->first_tick,
			       k->ticks, k->checksum);
		}
		if (o.ticks)
			dump_tick(&r, &t, o.inputs);
	}
	printf("chunks          %u, %" PRIu64 " ticks\n", r.chunk_count, r.tick_count);
	if (r.complete)
		printf("end             complete: %" PRIu64 " ticks, final hash %016" PRIx64 "\n", r.tick_count, r.end_final_hash);
	if (r.status != FXS_REPLAY_OK) {
		printf("status          %s (offset %" PRIu64 ")\n", r.error, r.error_offset);
		status = exit_of(r.status);
	}
	fxs_replay_close(&r);
	return status;
}

/* ---- replay ---- */

typedef struct replay_options {
	const char *path;
	uint32_t to, trace;
	bool has_to, has_trace, body_hashes, log_bits;
} replay_options;

static int replay_usage(void)
{
	printf("usage: fixstep replay FILE [--to STEP] [--trace BODY] [--body-hashes] [--log-bits]\n\n"
	       "Re-simulates a replay from its own start up to step STEP (default: its last)\n"
	       "and compares each tick's hash with the recorded one (a mismatch is reported,\n"
	       "and the run goes on). It does not judge the start: verify does.\n"
	       "  --trace BODY    body BODY's (slot) position and velocity after every step\n"
	       "  --body-hashes   at STEP, the table 'body SLOT HASH' of every body's hash\n"
	       "  --log-bits      every body's state bits after every step (see fixstep log)\n"
	       "The last line is 'hash ' and the state hash at STEP.\n");
	return 0;
}

static int replay_parse(int argc, char **argv, replay_options *o)
{
	*o = (replay_options){ 0 };
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			return replay_usage();
		} else if (strcmp(a, "--to") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o->to))
				return cli_usage_error("--to needs a step number");
			o->has_to = true;
		} else if (strcmp(a, "--trace") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o->trace))
				return cli_usage_error("--trace needs a body slot index");
			o->has_trace = true;
		} else if (strcmp(a, "--body-hashes") == 0) {
			o->body_hashes = true;
		} else if (strcmp(a, "--log-bits") == 0) {
			o->log_bits = true;
		} else if (!cli_positional("replay", a, &o->path, 1)) {
			return 2;
		}
	}
	return o->path ? CLI_GO : cli_usage_error("replay needs a replay file");
}

/* Re-simulates up to step o->to (or the last), printing a mismatch, the
 * trace and the state bits as they come; the step reached and its recorded
 * hash (*recorded; the state's own at the start), or -1 after the error. */
static int64_t replay_ticks(const replay_options *o, fxs_replay_reader *r, const fxs_scene *sc, fxs_world *w,
			    uint64_t *recorded)
{
	uint64_t first_bad = 0, at = r->start_tick;
	*recorded = fxs_world_hash(w);
	if (o->log_bits)
		fxs_world_log_bits(stdout, w, r->start_tick);
	fxs_replay_tick t;
	while ((!o->has_to || at < o->to) && fxs_replay_next(r, &t)) {
		if (fxs_replay_step_tick(sc, w, &t, r->players) != FXS_OK) {
			fprintf(stderr, "fixstep: %s: out of memory re-simulating step %" PRIu64 "\n", o->path, t.number);
			return -1;
		}
		at = t.number, *recorded = t.hash;
		if (!first_bad && fxs_world_hash(w) != t.hash) {
			first_bad = t.number;
			printf("mismatch at step %" PRIu64 ": recorded %016" PRIx64 ", got %016" PRIx64 "\n", t.number, t.hash,
			       fxs_world_hash(w));
		}
		if (o->has_trace)
			cli_print_trace(w, o->trace, t.number);
		if (o->log_bits)
			fxs_world_log_bits(stdout, w, t.number);
	}
	return (int64_t)at;
}

/* At the step reached: the body hashes (--body-hashes), whether the state is
 * the recorded one, and the hash. */
static void replay_report(const replay_options *o, const fxs_replay_reader *r, const fxs_world *w, uint64_t at,
			  uint64_t recorded)
{
	if (o->body_hashes) {
		uint32_t slots = fxs_world_slot_count(w);
		printf("body hashes at step %" PRIu64 " (%u slots)\n", at, slots);
		for (uint32_t s = 0; s < slots; ++s) {
			fxs_body_id id = fxs_world_body_at(w, s);
			if (fxs_body_is_valid(w, id))
				printf("body %u %016" PRIx64 "\n", s, fxs_body_hash(w, id));
			else
				printf("body %u dead\n", s);
		}
	}
	if (at > r->start_tick)
		printf("step %" PRIu64 " %s recorded hash\n", at, fxs_world_hash(w) == recorded ? "matches the" : "DIFFERS from the");
	printf("hash %016" PRIx64 "\n", fxs_world_hash(w));
}

int cmd_replay(int argc, char **argv)
{
	replay_options o;
	fxs_replay_reader r;
	int status = replay_parse(argc, argv, &o);
	if (status != CLI_GO || (status = open_replay(o.path, &r)))
		return status;
	if (o.has_to && o.to < r.start_tick) {
		status = cli_usage_error("--to %u: the replay starts at step %" PRIu64, o.to, r.start_tick);
		fxs_replay_close(&r);
		return status;
	}
	const fxs_scene *sc;
	fxs_replay_expect own = { .snapshot = fxs_replay_reader_snapshot(&r), .snapshot_len = r.snapshot_len };
	fxs_world *w = start(o.path, &r, &own, &sc, &status);
	if (!w) {
		fxs_replay_close(&r);
		return status;
	}
	uint64_t recorded;
	int64_t at;
	if (o.has_trace && !fxs_body_is_valid(w, fxs_world_body_at(w, o.trace))) {
		status = cli_usage_error("--trace: the replay's world has no body %u", o.trace);
	} else if ((at = replay_ticks(&o, &r, sc, w, &recorded)) < 0) {
		status = EXIT_NOMEM;
	} else {
		if (r.status != FXS_REPLAY_OK)
			fprintf(stderr, "fixstep: %s: %s (replayed the %" PRIu64 " ticks before it)\n", o.path, r.error,
				r.tick_count);
		if (o.has_to && (uint64_t)at < o.to)
			status = cli_usage_error("--to %u: the replay holds steps %" PRIu64 "..%" PRIu64, o.to, r.start_tick,
						 (uint64_t)at);
		else
			replay_report(&o, &r, w, (uint64_t)at, recorded);
	}
	fxs_world_destroy(w);
	fxs_replay_close(&r);
	return status;
}
