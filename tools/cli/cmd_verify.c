/* fixstep verify | diff | dump | replay */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "cli/commands.h"
#include "replay_run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Exit statuses of verify and diff: 0 ok, 1 diverged, 2 not a valid replay,
 * 3 this machine ran out of memory re-simulating it (nothing is said about the replay). */
#define EXIT_DIVERGED 1
#define EXIT_BAD_FILE 2
#define EXIT_NOMEM 3

static int bad_file(const char *path, const char *why)
{
	fprintf(stderr, "fixstep: %s: %s\n", path, why);
	return EXIT_BAD_FILE;
}

/* Load a replay whose header is good; *r holds whatever verified. Returns 0,
 * or exit status 2 with the reason printed. */
static int load(const char *path, fxs_replay *r)
{
	fxs_replay_load(r, path);
	if (!fxs_replay_header_ok(r)) {
		int e = bad_file(path, r->error);
		fxs_replay_free(r);
		return e;
	}
	return 0;
}

static void kernel_note(const char *path, const fxs_replay *r)
{
	uint32_t mine = fxs_version();
	if (r->kernel_version != mine)
		fprintf(stderr, "fixstep: note: %s was recorded by kernel %u.%u.%u, this is %u.%u.%u\n", path,
			r->kernel_version >> 16, (r->kernel_version >> 8) & 0xff, r->kernel_version & 0xff, FXS_VERSION_MAJOR,
			FXS_VERSION_MINOR, FXS_VERSION_PATCH);
}

/* ---- progress bar (only when stdout is a terminal) ---- */

typedef struct progress {
	bool on;
	uint64_t total, last_ns;
	bool drawn;
} progress;

static void progress_init(progress *p, uint64_t total, bool quiet)
{
#ifdef __EMSCRIPTEN__
	/* emscripten's isatty says yes for a pipe too: never draw under node */
	p->on = false;
	(void)quiet;
#else
	p->on = !quiet && isatty(STDOUT_FILENO) && total > 0;
#endif
	p->total = total;
	p->last_ns = cli_now_ns();
	p->drawn = false;
}

static void progress_update(progress *p, uint64_t done)
{
	if (!p->on)
		return;
	uint64_t now = cli_now_ns();
	if (now - p->last_ns < 100000000ull && done != p->total)
		return;
	p->last_ns = now;
	int width = 40, fill = (int)((done * (uint64_t)width) / p->total);
	printf("\rverifying [");
	for (int i = 0; i < width; ++i)
		putchar(i < fill ? '#' : '.');
	printf("] %" PRIu64 "/%" PRIu64 " ticks %3u%%", done, p->total, (unsigned)(done * 100 / p->total));
	fflush(stdout);
	p->drawn = true;
}

static void progress_end(progress *p)
{
	if (p->on && p->drawn) {
		printf("\r\033[K");
		fflush(stdout);
	}
}

/* The recorded state after tick i, as a world (detail replays only). */
static fxs_world *recorded_world(const fxs_replay *r, fxs_replay_detail *d, uint64_t i, char *err, size_t n)
{
	while (d->applied < i + 1) {
		fxs_replay_status s = fxs_replay_detail_next(r, d);
		if (s != FXS_REPLAY_OK) {
			snprintf(err, n, "corrupt: the detail of tick %" PRIu64 " does not decode (%s)",
				 fxs_replay_tick_number(r, d->applied), fxs_replay_status_string(s));
			return NULL;
		}
	}
	fxs_result e;
	fxs_world *w = fxs_world_create_from_snapshot(d->snap, d->len, &e);
	if (!w)
		snprintf(err, n, "corrupt: the recorded state of tick %" PRIu64 " does not restore (%s)",
			 fxs_replay_tick_number(r, i), fxs_result_string(e));
	return w;
}

/* The world at the start of a loaded replay, or NULL (r freed) with *status
 * the exit status after the reason is printed. */
static fxs_world *start(const char *path, fxs_replay *r, const fxs_scene **sc, int *status)
{
	char err[256];
	fxs_world *w = fxs_replay_start(r, sc, err, sizeof err);
	if (!w) {
		fxs_replay_free(r);
		*status = bad_file(path, err);
	}
	return w;
}

/* ---- verify ---- */

typedef struct verify_options {
	const char *path;
	bool allow_truncated, quiet;
	int kernels; /* -1: the widest */
} verify_options;

/* How the re-simulation went: status 0 (every tick matches), EXIT_NOMEM, or
 * EXIT_DIVERGED at tick index `at`, whose recorded hash is want and ours got. */
typedef struct verify_result {
	int status;
	uint64_t at, want, got;
} verify_result;

static int verify_usage(void)
{
	printf("usage: fixstep verify FILE [--allow-truncated] [--quiet] [--kernels K]\n\n"
	       "(--quiet: only the result lines, no 'ok' line and no progress bar;\n"
	       " --kernels portable, avx2 or avx512: the solver kernels to use at most, default\n"
	       " the widest this machine has: the bits are the same with any, and portable\n"
	       " rules the vector kernels out when two machines disagree)\n"
	       "Re-simulates a replay from its initial snapshot with its inputs and checks the\n"
	       "state hash after every tick.\n"
	       "  exit 0  every tick matches; the last line is 'hash ' and the final hash\n"
	       "  exit 1  'diverged at step S: body B field F (expected E, got G)' (the body\n"
	       "          and field come from the recorded per-tick state; a replay recorded\n"
	       "          with --no-detail names the step and the hashes only)\n"
	       "  exit 2  not a valid replay, with the reason (truncated, bad checksum, unknown\n"
	       "          version, corrupt ...). A truncated file (a recorder that was killed)\n"
	       "          still has its complete chunks verified first; --allow-truncated\n"
	       "          then exits 0 when they all match.\n"
	       "A progress bar shows when stdout is a terminal.\n");
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
			if (++i >= argc || (o->kernels = cli_parse_kernels(argv[i])) < 0)
				return cli_usage_error("--kernels needs portable, avx2 or avx512");
		} else if (!cli_positional("verify", a, &o->path, 1)) {
			return 2;
		}
	}
	return o->path ? CLI_GO : cli_usage_error("verify needs a replay file");
}

/* Re-simulates the ticks up to the first whose hash differs from the
 * recorded one, drawing the progress bar (ended when it stops early). */
static verify_result verify_ticks(const char *path, const fxs_replay *r, const fxs_scene *sc, fxs_world *w,
				  progress *pr)
{
	verify_result v = { 0, 0, 0, 0 };
	for (uint64_t i = 0; i < r->tick_count; ++i) {
		if (fxs_replay_step(r, sc, w, i) != FXS_OK) {
			progress_end(pr);
			fprintf(stderr, "fixstep: %s: out of memory re-simulating step %" PRIu64 ": not verified\n", path,
				fxs_replay_tick_number(r, i));
			v.status = EXIT_NOMEM;
			return v;
		}
		v.want = fxs_replay_tick_hash(r, i), v.got = fxs_world_hash(w);
		progress_update(pr, i + 1);
		if (v.want != v.got) {
			progress_end(pr);
			v.status = EXIT_DIVERGED, v.at = i;
			return v;
		}
	}
	return v;
}

/* "diverged at step S: ...", naming the body and field when the replay has
 * its per-tick state (d); the exit status. */
static int verify_report_divergence(const char *path, const fxs_replay *r, fxs_replay_detail *d, const fxs_world *w,
				    const verify_result *v)
{
	uint64_t tick = fxs_replay_tick_number(r, v->at);
	if (!d) {
		printf("diverged at step %" PRIu64 ": state hash (expected %016" PRIx64 ", got %016" PRIx64
		       "); the replay has no per-tick state (recorded with --no-detail) to name the body\n",
		       tick, v->want, v->got);
		return EXIT_DIVERGED;
	}
	char err[256];
	fxs_world *rec = recorded_world(r, d, v->at, err, sizeof err);
	if (!rec)
		return bad_file(path, err);
	fxs_state_diff df;
	if (fxs_world_first_difference(rec, w, &df)) {
		fxs_state_diff_format(&df, err, sizeof err);
		printf("diverged at step %" PRIu64 ": %s\n", tick, err);
	} else {
		printf("diverged at step %" PRIu64 ": recorded state hash %016" PRIx64 " but the recorded state hashes to %016" PRIx64
		       " here, as does this run: the hash field was changed\n",
		       tick, v->want, v->got);
	}
	fxs_world_destroy(rec);
	return EXIT_DIVERGED;
}

/* Every tick matched: the 'ok' line, a truncated file's reason, and the
 * final hash; the exit status. */
static int verify_report_ok(const verify_options *o, const fxs_replay *r, const fxs_world *w)
{
	int status = 0;
	if (!o->quiet)
		printf("%s: %" PRIu64 " ticks in %u %schunk%s verified (scene %s, %u player%s)\n",
		       r->status == FXS_REPLAY_OK ? "ok" : "partial", r->tick_count, r->chunk_count,
		       r->status == FXS_REPLAY_OK ? "" : "complete ", r->chunk_count == 1 ? "" : "s", r->scene, r->players,
		       r->players == 1 ? "" : "s");
	if (r->status != FXS_REPLAY_OK) {
		fprintf(stderr, "fixstep: %s: %s\n", o->path, r->error);
		if (!(o->allow_truncated && r->status == FXS_REPLAY_TRUNCATED))
			status = EXIT_BAD_FILE;
	}
	if (status == 0)
		printf("hash %016" PRIx64 "\n", fxs_world_hash(w));
	return status;
}

int cmd_verify(int argc, char **argv)
{
	verify_options o;
	fxs_replay r;
	int status = verify_parse(argc, argv, &o);
	if (status != CLI_GO || (status = load(o.path, &r)))
		return status;
	kernel_note(o.path, &r);
	const fxs_scene *sc;
	fxs_world *w = start(o.path, &r, &sc, &status);
	if (!w)
		return status;
	cli_use_kernels(w, o.kernels);
	bool detail = (r.flags & FXS_REPLAY_FLAG_DETAIL) != 0;
	fxs_replay_detail d;
	if (detail && fxs_replay_detail_init(&r, &d) != FXS_REPLAY_OK) {
		fxs_world_destroy(w);
		fxs_replay_free(&r);
		return bad_file(o.path, "out of memory");
	}
	progress pr;
	progress_init(&pr, r.tick_count, o.quiet);
	verify_result v = verify_ticks(o.path, &r, sc, w, &pr);
	status = v.status == EXIT_DIVERGED ? verify_report_divergence(o.path, &r, detail ? &d : NULL, w, &v) : v.status;
	progress_end(&pr);
	if (status == 0)
		status = verify_report_ok(&o, &r, w);
	if (detail)
		fxs_replay_detail_free(&d);
	fxs_world_destroy(w);
	fxs_replay_free(&r);
	return status;
}

/* ---- diff ---- */

/* The state after tick i of a replay: the recorded one (detail) or a re-simulation. */
static fxs_world *state_after(const fxs_replay *r, uint64_t i, bool *recorded, char *err, size_t n)
{
	if (r->flags & FXS_REPLAY_FLAG_DETAIL) {
		fxs_replay_detail d;
		if (fxs_replay_detail_init(r, &d) != FXS_REPLAY_OK) {
			snprintf(err, n, "out of memory");
			return NULL;
		}
		fxs_world *w = recorded_world(r, &d, i, err, n);
		fxs_replay_detail_free(&d);
		*recorded = true;
		return w;
	}
	const fxs_scene *sc;
	fxs_world *w = fxs_replay_start(r, &sc, err, n);
	if (!w)
		return NULL;
	for (uint64_t k = 0; k <= i; ++k)
		if (fxs_replay_step(r, sc, w, k) != FXS_OK) {
			snprintf(err, n, "out of memory re-simulating step %" PRIu64, fxs_replay_tick_number(r, k));
			fxs_world_destroy(w);
			return NULL;
		}
	*recorded = false;
	return w;
}

static void print_input(const char *label, const fxs_input *in)
{
	printf("  %s: move %d %d yaw %u pitch %d buttons 0x%x\n", label, in->move_x, in->move_z, in->yaw, in->pitch,
	       in->buttons);
}

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
			       "Exit 0 when they are identical, 1 when they part (or one is longer), 2 for\n"
			       "a file that is not a valid replay.\n");
			return 0;
		} else if (!cli_positional("diff", a, path, 2)) {
			return 2;
		}
	}
	return path[1] ? CLI_GO : cli_usage_error("diff needs two replay files");
}

/* Two recordings of different scenes, players or starts, or from different
 * initial states: true after saying so. */
static bool diff_headers(const fxs_replay *a, const fxs_replay *b)
{
	if (strcmp(a->scene, b->scene) != 0 || a->players != b->players || a->start_tick != b->start_tick) {
		printf("different recordings: A is %s with %u players from step %" PRIu64 ", B is %s with %u players from step %" PRIu64 "\n",
		       a->scene, a->players, a->start_tick, b->scene, b->players, b->start_tick);
		return true;
	}
	if (a->snapshot_len != b->snapshot_len ||
	    memcmp(a->data + a->snapshot_off, b->data + b->snapshot_off, a->snapshot_len) != 0) {
		printf("parted before the first tick: the initial snapshots differ\n");
		return true;
	}
	return false;
}

/* The first player whose input at tick index i differs, or -1. */
static int diff_inputs(const fxs_replay *a, const fxs_replay *b, uint64_t i, fxs_input ia[FXS_MAX_PLAYERS],
		       fxs_input ib[FXS_MAX_PLAYERS])
{
	fxs_replay_tick_inputs(a, i, ia);
	fxs_replay_tick_inputs(b, i, ib);
	for (uint32_t p = 0; p < a->players; ++p)
		if (!fxs_input_equal(&ia[p], &ib[p]))
			return (int)p;
	return -1;
}

/* The states after tick index i: the first body and field that differ. */
static int diff_states(const char *const path[2], const fxs_replay *a, const fxs_replay *b, uint64_t i)
{
	uint64_t tick = fxs_replay_tick_number(a, i);
	uint64_t ha = fxs_replay_tick_hash(a, i), hb = fxs_replay_tick_hash(b, i);
	char err[256];
	bool ra, rb;
	fxs_world *wa = state_after(a, i, &ra, err, sizeof err);
	if (!wa)
		return bad_file(path[0], err);
	fxs_world *wb = state_after(b, i, &rb, err, sizeof err);
	if (!wb) {
		fxs_world_destroy(wa);
		return bad_file(path[1], err);
	}
	fxs_state_diff df;
	if (fxs_world_first_difference(wa, wb, &df)) {
		fxs_state_diff_format(&df, err, sizeof err);
		printf("diverged at step %" PRIu64 ": %s\n", tick, err);
		printf("(expected = A, got = B; states %s)\n", ra && rb ? "as recorded" : "re-simulated here where not recorded");
	} else {
		printf("diverged at step %" PRIu64 ": recorded hashes %016" PRIx64 " (A) and %016" PRIx64
		       " (B), but here both runs give the same state: they part on another platform or build\n",
		       tick, ha, hb);
	}
	fxs_world_destroy(wa);
	fxs_world_destroy(wb);
	return EXIT_DIVERGED;
}

/* They part at tick index i (of the n both hold): the inputs that differ
 * there, then the first tick whose states differ; the exit status. */
static int diff_report_parting(const char *const path[2], const fxs_replay *a, const fxs_replay *b, uint64_t i,
			       uint64_t n)
{
	fxs_input ia[FXS_MAX_PLAYERS], ib[FXS_MAX_PLAYERS];
	int player = diff_inputs(a, b, i, ia, ib);
	uint64_t tick = fxs_replay_tick_number(a, i), ha = fxs_replay_tick_hash(a, i);
	if (player >= 0) {
		printf("inputs part at step %" PRIu64 ": player %d\n", tick, player);
		print_input("A", &ia[player]);
		print_input("B", &ib[player]);
	}
	if (ha == fxs_replay_tick_hash(b, i)) {
		printf("states still agree at step %" PRIu64 " (hash %016" PRIx64 ")\n", tick, ha);
		/* look for the first tick whose state differs */
		do
			++i;
		while (i < n && fxs_replay_tick_hash(a, i) == fxs_replay_tick_hash(b, i));
		if (i == n) {
			printf("and on every tick both hold\n");
			return EXIT_DIVERGED;
		}
	}
	return diff_states(path, a, b, i);
}

/* Both agree on their first n ticks; the exit status. */
static int diff_report_same(const char *const path[2], const fxs_replay *a, const fxs_replay *b, uint64_t n)
{
	int status = 0;
	if (a->tick_count != b->tick_count) {
		printf("identical for %" PRIu64 " ticks, then %s ends (A has %" PRIu64 " ticks, B has %" PRIu64 ")\n", n,
		       a->tick_count < b->tick_count ? "A" : "B", a->tick_count, b->tick_count);
		status = EXIT_DIVERGED;
	} else
		printf("identical: %" PRIu64 " ticks\n", n);
	if (a->status != FXS_REPLAY_OK)
		fprintf(stderr, "fixstep: %s: %s\n", path[0], a->error);
	if (b->status != FXS_REPLAY_OK)
		fprintf(stderr, "fixstep: %s: %s\n", path[1], b->error);
	return status;
}

static int diff_replays(const char *const path[2], const fxs_replay *a, const fxs_replay *b)
{
	if (diff_headers(a, b))
		return EXIT_DIVERGED;
	uint64_t n = a->tick_count < b->tick_count ? a->tick_count : b->tick_count;
	for (uint64_t i = 0; i < n; ++i) {
		fxs_input ia[FXS_MAX_PLAYERS], ib[FXS_MAX_PLAYERS];
		if (diff_inputs(a, b, i, ia, ib) >= 0 || fxs_replay_tick_hash(a, i) != fxs_replay_tick_hash(b, i))
			return diff_report_parting(path, a, b, i, n);
	}
	return diff_report_same(path, a, b, n);
}

int cmd_diff(int argc, char **argv)
{
	const char *path[2];
	fxs_replay a, b;
	int status = diff_parse(argc, argv, path);
	if (status != CLI_GO)
		return status;
	if ((status = load(path[0], &a)))
		return status;
	if ((status = load(path[1], &b))) {
		fxs_replay_free(&a);
		return status;
	}
	status = diff_replays(path, &a, &b);
	fxs_replay_free(&a);
	fxs_replay_free(&b);
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
			       "Prints a replay's header, its chunk table and every tick's state hash\n"
			       "(--inputs: and every player's input; --no-ticks: no per-tick lines). Exit 2,\n"
			       "after printing what is valid, when the file is not a complete valid replay.\n");
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

static void dump_header(const char *path, const fxs_replay *r)
{
	printf("file            %s (%zu bytes)\n", path, r->len);
	printf("format version  %u\n", r->format_version);
	printf("kernel version  %u.%u.%u\n", r->kernel_version >> 16, (r->kernel_version >> 8) & 0xff, r->kernel_version & 0xff);
	printf("numeric         Q%u.%u state, Q%u.%u wide\n", 32 - (r->numeric & 0xff), r->numeric & 0xff,
	       64 - ((r->numeric >> 8) & 0xff), (r->numeric >> 8) & 0xff);
	printf("scene           %s\n", r->scene);
	printf("players         %u\n", r->players);
	printf("chunk ticks     %u\n", r->chunk_ticks);
	printf("flags           0x%x%s\n", r->flags, (r->flags & FXS_REPLAY_FLAG_DETAIL) ? " (detail: per-tick state)" : "");
	printf("start step      %" PRIu64 "\n", r->start_tick);
	printf("snapshot        %zu bytes at offset %zu\n", r->snapshot_len, r->snapshot_off);
	printf("header          %zu bytes, checksum %016" PRIx64 "\n", r->header_size, r->header_checksum);
	printf("chunks          %u\n", r->chunk_count);
	printf("  %5s %10s %8s %10s %6s  %s\n", "index", "offset", "bytes", "first", "ticks", "checksum");
	for (uint32_t c = 0; c < r->chunk_count; ++c) {
		const fxs_replay_chunk *k = &r->chunks[c];
		printf("  %5u %10zu %8zu %10" PRIu64 " %6u  %016" PRIx64 "\n", k->index, k->offset, k->size, k->first_tick,
		       k->ticks, k->checksum);
	}
}

static void dump_ticks(const fxs_replay *r, bool inputs)
{
	printf("ticks           %" PRIu64 "\n", r->tick_count);
	for (uint64_t i = 0; i < r->tick_count; ++i) {
		printf("  %8" PRIu64 " %016" PRIx64 "\n", fxs_replay_tick_number(r, i), fxs_replay_tick_hash(r, i));
		if (!inputs)
			continue;
		fxs_input in[FXS_MAX_PLAYERS];
		fxs_replay_tick_inputs(r, i, in);
		for (uint32_t p = 0; p < r->players; ++p)
			printf("           player %2u move %6d %6d yaw %5u pitch %6d buttons 0x%x\n", p, in[p].move_x,
			       in[p].move_z, in[p].yaw, in[p].pitch, in[p].buttons);
	}
}

int cmd_dump(int argc, char **argv)
{
	dump_options o;
	fxs_replay r;
	int status = dump_parse(argc, argv, &o);
	if (status != CLI_GO || (status = load(o.path, &r)))
		return status;
	dump_header(o.path, &r);
	if (o.ticks)
		dump_ticks(&r, o.inputs);
	if (r.complete)
		printf("end             complete: %" PRIu64 " ticks, final hash %016" PRIx64 "\n", r.tick_count, r.end_final_hash);
	if (r.status != FXS_REPLAY_OK) {
		printf("status          %s (offset %zu)\n", r.error, r.error_offset);
		status = EXIT_BAD_FILE;
	}
	fxs_replay_free(&r);
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
	       "Re-simulates a replay up to step STEP (default: its last) and compares each\n"
	       "tick's hash with the recorded one (a mismatch is reported, and the run goes on).\n"
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

/* --to against the steps the replay holds (its last when not given). */
static int replay_check_to(replay_options *o, const fxs_replay *r)
{
	uint64_t last = r->start_tick + r->tick_count;
	if (!o->has_to)
		o->to = (uint32_t)(last > UINT32_MAX ? UINT32_MAX : last);
	if (o->to < r->start_tick || o->to > last)
		return cli_usage_error("--to %u: the replay holds steps %" PRIu64 "..%" PRIu64, o->to, r->start_tick, last);
	return CLI_GO;
}

/* Re-simulates up to step o->to, printing a mismatch, the trace and the
 * state bits as they come; 0, or EXIT_NOMEM after saying so. */
static int replay_ticks(const replay_options *o, const fxs_replay *r, const fxs_scene *sc, fxs_world *w)
{
	uint64_t first_bad = 0;
	if (o->log_bits)
		fxs_world_log_bits(stdout, w, r->start_tick);
	for (uint64_t i = 0; r->start_tick + i < o->to; ++i) {
		if (fxs_replay_step(r, sc, w, i) != FXS_OK) {
			fprintf(stderr, "fixstep: %s: out of memory re-simulating step %" PRIu64 "\n", o->path,
				fxs_replay_tick_number(r, i));
			return EXIT_NOMEM;
		}
		uint64_t tick = fxs_replay_tick_number(r, i);
		if (!first_bad && fxs_world_hash(w) != fxs_replay_tick_hash(r, i)) {
			first_bad = tick;
			printf("mismatch at step %" PRIu64 ": recorded %016" PRIx64 ", got %016" PRIx64 "\n", tick,
			       fxs_replay_tick_hash(r, i), fxs_world_hash(w));
		}
		if (o->has_trace)
			cli_print_trace(w, o->trace, tick);
		if (o->log_bits)
			fxs_world_log_bits(stdout, w, tick);
	}
	return 0;
}

/* At step o->to: the body hashes (--body-hashes), whether the state is the
 * recorded one, and the hash. */
static void replay_report(const replay_options *o, const fxs_replay *r, const fxs_world *w)
{
	if (o->body_hashes) {
		uint32_t slots = fxs_world_slot_count(w);
		printf("body hashes at step %u (%u slots)\n", o->to, slots);
		for (uint32_t s = 0; s < slots; ++s) {
			fxs_body_id id = fxs_world_body_at(w, s);
			if (fxs_body_is_valid(w, id))
				printf("body %u %016" PRIx64 "\n", s, fxs_body_hash(w, id));
			else
				printf("body %u dead\n", s);
		}
	}
	if (o->to > r->start_tick)
		printf("step %u %s recorded hash\n", o->to,
		       fxs_world_hash(w) == fxs_replay_tick_hash(r, o->to - r->start_tick - 1) ? "matches the" : "DIFFERS from the");
	printf("hash %016" PRIx64 "\n", fxs_world_hash(w));
}

int cmd_replay(int argc, char **argv)
{
	replay_options o;
	fxs_replay r;
	int status = replay_parse(argc, argv, &o);
	if (status != CLI_GO || (status = load(o.path, &r)))
		return status;
	if (r.status != FXS_REPLAY_OK)
		fprintf(stderr, "fixstep: %s: %s (replaying the %" PRIu64 " ticks before it)\n", o.path, r.error, r.tick_count);
	if ((status = replay_check_to(&o, &r)) != CLI_GO) {
		fxs_replay_free(&r);
		return status;
	}
	const fxs_scene *sc;
	fxs_world *w = start(o.path, &r, &sc, &status);
	if (!w)
		return status;
	if (o.has_trace && !fxs_body_is_valid(w, fxs_world_body_at(w, o.trace))) {
		status = cli_usage_error("--trace: the replay's world has no body %u", o.trace);
	} else if ((status = replay_ticks(&o, &r, sc, w)) == 0) {
		replay_report(&o, &r, w);
	}
	fxs_world_destroy(w);
	fxs_replay_free(&r);
	return status;
}
