/* The flat API's scenes and replays (fxjs.c says how values travel): the
 * built-in scenes of tools/scenes with their input handlers, and replays
 * (replays/): parse, re-simulate, verify, record, and the first difference
 * between two states. Files are written to emscripten's in-memory file
 * system and handed to JavaScript as bytes. */
#include "fxjs.h"

#include "replay_run.h"
#include "scenes/scenes.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scenes ---- */
static const fxs_scene *scene_at(int32_t i)
{
	uint32_t n;
	const fxs_scene *s = fxs_scenes(&n);
	return i >= 0 && (uint32_t)i < n ? &s[i] : NULL;
}

FXJS_EXPORT int32_t fxjs_scene_count(void)
{
	uint32_t n;
	fxs_scenes(&n);
	return (int32_t)n;
}

FXJS_EXPORT const char *fxjs_scene_name(int32_t i) { return scene_at(i) ? scene_at(i)->name : ""; }
FXJS_EXPORT const char *fxjs_scene_description(int32_t i) { return scene_at(i) ? scene_at(i)->description : ""; }
FXJS_EXPORT int32_t fxjs_scene_default_steps(int32_t i) { return scene_at(i) ? (int32_t)scene_at(i)->default_steps : 0; }
FXJS_EXPORT int32_t fxjs_scene_players(int32_t i) { return scene_at(i) ? (int32_t)scene_at(i)->players : 0; }
FXJS_EXPORT fxs_world *fxjs_scene_create(int32_t i) { return scene_at(i) ? scene_at(i)->create() : NULL; }

FXJS_EXPORT int32_t fxjs_scene_scripted(int32_t i) { return scene_at(i) && scene_at(i)->script; }

/* The scripted players' inputs of scene i for the step of number (tick_lo,
 * tick_hi), serialised (players x FXS_INPUT_SIZE bytes, fixstep/input.h;
 * neutral beyond what the script sets): 1, or 0 when the scene has no
 * script (out untouched). */
FXJS_EXPORT int32_t fxjs_scene_script(int32_t i, const fxs_world *w, int32_t tick_lo, int32_t tick_hi, int32_t players,
				      uint8_t *out)
{
	const fxs_scene *s = scene_at(i);
	if (!s || !s->script || players < 0 || players > FXS_MAX_PLAYERS)
		return 0;
	fxs_input in[FXS_MAX_PLAYERS];
	for (int32_t p = 0; p < FXS_MAX_PLAYERS; ++p)
		in[p] = fxs_input_neutral();
	s->script(w, fxjs_get64((const int32_t[2]){ tick_lo, tick_hi }), (uint32_t)players, in);
	for (int32_t p = 0; p < players; ++p)
		fxs_input_write(&in[p], out + FXS_INPUT_SIZE * p);
	return 1;
}

/* The scene's input handler before the step of number (tick_lo, tick_hi):
 * inputs are players x FXS_INPUT_SIZE bytes in the serialised form
 * (fixstep/input.h). */
FXJS_EXPORT int32_t fxjs_scene_apply_inputs(int32_t i, fxs_world *w, const uint8_t *inputs, int32_t players, int32_t tick_lo,
					    int32_t tick_hi)
{
	const fxs_scene *s = scene_at(i);
	if (!s || players < 0 || players > FXS_MAX_PLAYERS)
		return 0;
	fxs_input in[FXS_MAX_PLAYERS];
	for (int32_t p = 0; p < players; ++p)
		in[p] = fxs_input_read(inputs + FXS_INPUT_SIZE * p);
	s->apply_inputs(w, in, (uint32_t)players, fxjs_get64((const int32_t[2]){ tick_lo, tick_hi }));
	return 1;
}

/* ---- replays ---- */
typedef struct fxjs_replay {
	fxs_replay r;
	fxs_replay_detail d; /* the recorded states, walked forward; restarted to go back */
	bool detail_open;
} fxjs_replay;

/* A parsed replay (its status in fxjs_replay_info), or NULL when out of memory. */
FXJS_EXPORT fxjs_replay *fxjs_replay_parse(const void *buf, int32_t len)
{
	fxjs_replay *x = calloc(1, sizeof *x);
	if (!x)
		return NULL;
	fxs_replay_parse(&x->r, buf, len < 0 ? 0 : (size_t)len);
	if (x->r.status == FXS_REPLAY_NOMEM) {
		fxs_replay_free(&x->r);
		free(x);
		return NULL;
	}
	return x;
}

FXJS_EXPORT void fxjs_replay_free(fxjs_replay *x)
{
	if (!x)
		return;
	if (x->detail_open)
		fxs_replay_detail_free(&x->d);
	fxs_replay_free(&x->r);
	free(x);
}

/* status, header ok, format version, kernel version, flags, players,
 * chunk ticks, chunk count, start tick (lo, hi), tick count (lo, hi),
 * complete, final hash (lo, hi), error offset, input size, mode */
FXJS_EXPORT void fxjs_replay_info(const fxjs_replay *x, int32_t *o)
{
	const fxs_replay *r = &x->r;
	o[0] = (int32_t)r->status, o[1] = fxs_replay_header_ok(r), o[2] = (int32_t)r->format_version;
	o[3] = (int32_t)r->kernel_version, o[4] = (int32_t)r->flags, o[5] = (int32_t)r->players;
	o[6] = (int32_t)r->chunk_ticks, o[7] = (int32_t)r->chunk_count;
	fxjs_put64(o + 8, r->start_tick);
	fxjs_put64(o + 10, r->tick_count);
	o[12] = r->complete;
	fxjs_put64(o + 13, r->end_final_hash);
	o[15] = (int32_t)r->error_offset;
	o[16] = (int32_t)r->input_size, o[17] = (int32_t)r->mode;
}

FXJS_EXPORT const char *fxjs_replay_scene(const fxjs_replay *x) { return x->r.scene; }
FXJS_EXPORT const char *fxjs_replay_error(const fxjs_replay *x) { return x->r.error; }
FXJS_EXPORT const char *fxjs_replay_status_string(int32_t s) { return fxs_replay_status_string((fxs_replay_status)s); }

/* i < tick count (unchecked there: the JS side checks) */
FXJS_EXPORT void fxjs_replay_tick(const fxjs_replay *x, int32_t i, int32_t *hash_number)
{
	fxjs_put64(hash_number, fxs_replay_tick_hash(&x->r, (uint64_t)i));
	fxjs_put64(hash_number + 2, fxs_replay_tick_number(&x->r, (uint64_t)i));
}

/* players x FXS_INPUT_SIZE bytes */
FXJS_EXPORT void fxjs_replay_tick_inputs(const fxjs_replay *x, int32_t i, uint8_t *out)
{
	fxs_input in[FXS_MAX_PLAYERS];
	fxs_replay_tick_inputs(&x->r, (uint64_t)i, in);
	for (uint32_t p = 0; p < x->r.players && p < FXS_MAX_PLAYERS; ++p)
		fxs_input_write(&in[p], out + FXS_INPUT_SIZE * p);
}

/* The tick's input bytes as recorded (players x the replay's input size,
 * any size): their count, copied into out when it holds them (cap). */
FXJS_EXPORT int32_t fxjs_replay_tick_bytes(const fxjs_replay *x, int32_t i, uint8_t *out, int32_t cap)
{
	fxs_replay_tick t;
	if (i < 0 || !fxs_replay_get_tick(&x->r, (uint64_t)i, &t) || !t.input)
		return 0;
	if (out && (size_t)cap >= t.input_len)
		memcpy(out, t.input, t.input_len);
	return (int32_t)t.input_len;
}

static char g_err[256];
FXJS_EXPORT const char *fxjs_last_error(void) { return g_err; }

/* The world at the replay's start, from its initial snapshot; with
 * need_scene, only when this build has the scene's input handler. NULL
 * with the reason in fxjs_last_error. */
FXJS_EXPORT fxs_world *fxjs_replay_start(const fxjs_replay *x, int32_t need_scene)
{
	const fxs_scene *sc;
	if (need_scene) /* only from the scene's own start (its golden hash) */
		return fxs_replay_start(&x->r, NULL, &sc, g_err, sizeof g_err);
	fxs_result e;
	fxs_world *w = fxs_world_create_from_snapshot(x->r.data + x->r.snapshot_off, x->r.snapshot_len, &e);
	if (!w)
		snprintf(g_err, sizeof g_err, "corrupt: the initial snapshot does not restore (%s)", fxs_result_string(e));
	return w;
}

/* Tick i with the scene's own input handler (or, for a replay of API
 * calls, its recorded calls): fxs_world_step's result. */
FXJS_EXPORT int32_t fxjs_replay_step(const fxjs_replay *x, fxs_world *w, int32_t i)
{
	if (x->r.mode == FXS_REPLAY_MODE_CALLS)
		return (int32_t)fxs_replay_step(&x->r, NULL, w, (uint64_t)i);
	const fxs_scene *sc = fxs_scene_find(x->r.scene);
	if (!sc)
		return FXS_ERR_INVALID_ARGUMENT;
	return (int32_t)fxs_replay_step(&x->r, sc, w, (uint64_t)i);
}

/* The recorded state after tick i of a detail replay, as a new world; NULL
 * with the reason in fxjs_last_error. Walks forward from the last call
 * (restarting when asked for an earlier tick). */
FXJS_EXPORT fxs_world *fxjs_replay_recorded_world(fxjs_replay *x, int32_t i)
{
	if (!(x->r.flags & FXS_REPLAY_FLAG_DETAIL)) {
		snprintf(g_err, sizeof g_err, "the replay has no per-tick state (recorded with --no-detail)");
		return NULL;
	}
	if (x->detail_open && x->d.applied > (uint64_t)i + 1) {
		fxs_replay_detail_free(&x->d);
		x->detail_open = false;
	}
	if (!x->detail_open) {
		if (fxs_replay_detail_init(&x->r, &x->d) != FXS_REPLAY_OK) {
			snprintf(g_err, sizeof g_err, "out of memory");
			return NULL;
		}
		x->detail_open = true;
	}
	while (x->d.applied < (uint64_t)i + 1) {
		fxs_replay_status s = fxs_replay_detail_next(&x->r, &x->d);
		if (s != FXS_REPLAY_OK) {
			snprintf(g_err, sizeof g_err, "corrupt: the detail of tick %" PRIu64 " does not decode (%s)",
				 fxs_replay_tick_number(&x->r, x->d.applied), fxs_replay_status_string(s));
			return NULL;
		}
	}
	fxs_result e;
	fxs_world *w = fxs_world_create_from_snapshot(x->d.snap, x->d.len, &e);
	if (!w)
		snprintf(g_err, sizeof g_err, "corrupt: the recorded state of tick %" PRIu64 " does not restore (%s)",
			 fxs_replay_tick_number(&x->r, (uint64_t)i), fxs_result_string(e));
	return w;
}

/* The first difference between two states, in canonical order, written as
 * "BODY\tFIELD\tEXPECTED\tGOT\tTEXT" (BODY the slot, or -1); returns
 * whether they differ. */
FXJS_EXPORT int32_t fxjs_world_first_difference(const fxs_world *expected, const fxs_world *got, char *buf, int32_t cap)
{
	fxs_state_diff d;
	memset(&d, 0, sizeof d);
	bool differ = fxs_world_first_difference(expected, got, &d);
	char text[256];
	fxs_state_diff_format(&d, text, sizeof text);
	if (cap > 0)
		snprintf(buf, (size_t)cap, "%" PRId64 "\t%s\t%s\t%s\t%s", d.body, d.field, d.expected, d.got, text);
	return differ;
}

/* Re-simulates a replay with its scene's input handler and checks every
 * tick's hash, as `fixstep verify` does, from a known start: the scene's
 * (its golden hash) or, with has_start, the start whose state hash is
 * start (lo, hi). Returns 0 (every tick matches), 1 (diverged), 2 (not a
 * valid replay: the reason in msg), 3 (out of memory), 4 (not the expected
 * start). out: ticks verified (lo, hi), step (lo, hi), expected hash (lo,
 * hi), got hash (lo, hi), body slot (-1: not a body or not known); msg:
 * the line verify prints. kernels < 0: the widest. calls: the verifier
 * accepts an API-call replay (every call), and no input replay; else only
 * input replays, as `fixstep verify --mode`: 5 (refused) otherwise. */
FXJS_EXPORT int32_t fxjs_replay_verify(fxjs_replay *x, int32_t kernels, int32_t allow_truncated, int32_t calls, int32_t has_start,
				       const int32_t *start, const uint8_t *snapshot, int32_t snapshot_len, int32_t *out,
				       char *msg, int32_t cap)
{
	const fxs_replay *r = &x->r;
	memset(out, 0, 9 * sizeof *out);
	out[8] = -1;
	msg[0] = 0;
	if (!fxs_replay_header_ok(r)) {
		snprintf(msg, (size_t)cap, "%s", r->error);
		return 2;
	}
	const fxs_scene *sc;
	fxs_replay_expect expect = { 0 };
	if (has_start)
		expect.has_hash = true, expect.hash = (uint64_t)(uint32_t)start[0] | (uint64_t)(uint32_t)start[1] << 32;
	if (snapshot && snapshot_len > 0) /* exactly this start state, as fxs_replay_expect says */
		expect.snapshot = snapshot, expect.snapshot_len = (size_t)snapshot_len;
	/* the kind first, before the start and any tick (a CALLS replay re-runs
	 * recorded calls, a snapshot restore among them: only when asked for) */
	static const char *const every_call[] = { "*" };
	expect.modes = calls ? FXS_REPLAY_ACCEPT_CALLS : FXS_REPLAY_ACCEPT_INPUTS;
	if (calls)
		expect.allowed_calls = every_call, expect.allowed_call_count = 1;
	if (fxs_replay_accepts(r->mode, r->mode == FXS_REPLAY_MODE_INPUTS ? FXS_INPUT_SIZE : 0,
			       r->players > FXS_MAX_PLAYERS ? 1 : r->players, &expect, msg, (size_t)cap) != FXS_REPLAY_OK)
		return 5;
	fxs_replay_status why;
	fxs_world *w = fxs_replay_start_world(r->scene, r->data + r->snapshot_off, r->snapshot_len, r->start_tick, r->mode, &expect,
					      &sc, &why, msg, (size_t)cap);
	if (!w)
		return why == FXS_REPLAY_BAD_START ? 4 : why == FXS_REPLAY_NOMEM ? 3
										 : 2;
	if (kernels >= 0)
		fxs_world_set_kernels(w, (fxs_kernels)kernels);
	int32_t status = 0;
	uint64_t i;
	for (i = 0; i < r->tick_count; ++i) {
		uint64_t tick = fxs_replay_tick_number(r, i);
		if (fxs_replay_step(r, sc, w, i) != FXS_OK) {
			snprintf(msg, (size_t)cap, "out of memory re-simulating step %" PRIu64 ": not verified", tick);
			status = 3;
			break;
		}
		uint64_t want = fxs_replay_tick_hash(r, i), got = fxs_world_hash(w);
		if (want == got)
			continue;
		status = 1;
		fxjs_put64(out + 2, tick);
		fxjs_put64(out + 4, want);
		fxjs_put64(out + 6, got);
		fxs_world *rec = fxjs_replay_recorded_world(x, (int32_t)i);
		if (!rec) {
			if (r->flags & FXS_REPLAY_FLAG_DETAIL) {
				snprintf(msg, (size_t)cap, "%s", g_err);
				status = 2;
			} else {
				snprintf(msg, (size_t)cap,
					 "diverged at step %" PRIu64 ": state hash (expected %016" PRIx64 ", got %016" PRIx64
					 "); the replay has no per-tick state (recorded with --no-detail) to name the body",
					 tick, want, got);
			}
			break;
		}
		fxs_state_diff d;
		char text[256];
		if (fxs_world_first_difference(rec, w, &d)) {
			fxs_state_diff_format(&d, text, sizeof text);
			snprintf(msg, (size_t)cap, "diverged at step %" PRIu64 ": %s", tick, text);
			out[8] = (int32_t)d.body;
		} else {
			snprintf(msg, (size_t)cap,
				 "diverged at step %" PRIu64 ": recorded state hash %016" PRIx64 " but the recorded state hashes to %016" PRIx64
				 " here, as does this run: the hash field was changed",
				 tick, want, got);
		}
		fxs_world_destroy(rec);
		break;
	}
	fxjs_put64(out, i);
	if (status == 0) {
		if (r->status != FXS_REPLAY_OK && !(allow_truncated && r->status == FXS_REPLAY_TRUNCATED)) {
			snprintf(msg, (size_t)cap, "%s", r->error);
			status = 2;
		} else {
			fxjs_put64(out + 6, fxs_world_hash(w));
			snprintf(msg, (size_t)cap, "hash %016" PRIx64, fxs_world_hash(w));
		}
	}
	fxs_world_destroy(w);
	return status;
}

/* ---- recording ---- */

/* The whole file at path (malloc'ed, *len bytes), removed afterwards. */
static uint8_t *slurp(const char *path, int32_t *len)
{
	uint8_t *buf = NULL;
	FILE *f = fopen(path, "rb");
	long n = -1;
	if (f && fseek(f, 0, SEEK_END) == 0)
		n = ftell(f);
	if (f && n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc(n ? (size_t)n : 1)) != NULL &&
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	remove(path);
	*len = buf ? (int32_t)n : 0;
	return buf;
}

/* Records a built-in scene as `fixstep record` does (random inputs from
 * seed, or the scene's scripted players). opts: steps, players (0: the
 * scene's), chunk ticks (0: default), flags, seed (lo, hi), perturb tick
 * (lo, hi; 0: none), perturb player, tamper, scripted. The file's bytes
 * (malloc'ed, *len) and its final hash in final (lo, hi); NULL with the
 * reason in fxjs_last_error. */
FXJS_EXPORT uint8_t *fxjs_record(int32_t scene, const int32_t *opts, int32_t *final, int32_t *len)
{
	const fxs_scene *sc = scene_at(scene);
	*len = 0;
	if (!sc) {
		snprintf(g_err, sizeof g_err, "no such scene");
		return NULL;
	}
	fxs_record_options o;
	memset(&o, 0, sizeof o);
	o.scene = sc;
	o.steps = (uint32_t)opts[0];
	o.players = (uint32_t)opts[1];
	o.chunk_ticks = (uint32_t)opts[2];
	o.flags = (uint32_t)opts[3];
	o.seed = fxjs_get64(opts + 4);
	o.perturb_tick = fxjs_get64(opts + 6);
	o.perturb_player = (uint32_t)opts[8];
	o.tamper = opts[9] != 0;
	o.scripted = opts[10] != 0;
	const char *path = "/fxjs_record.fxr";
	uint64_t h = 0;
	if (fxs_replay_record(path, &o, &h, g_err, sizeof g_err) != FXS_REPLAY_OK) {
		remove(path);
		return NULL;
	}
	fxjs_put64(final, h);
	uint8_t *buf = slurp(path, len);
	if (!buf)
		snprintf(g_err, sizeof g_err, "cannot read the recording back");
	return buf;
}

/* A recorder for a world driven from JavaScript: the caller applies its
 * inputs, steps, then hands both to fxjs_writer_tick. */
typedef struct fxjs_writer {
	fxs_replay_writer w;
	char path[32];
} fxjs_writer;

FXJS_EXPORT fxjs_writer *fxjs_writer_open(const fxs_world *world, const char *scene, int32_t players, int32_t input_size,
					  int32_t chunk_ticks, int32_t flags)
{
	static uint32_t serial;
	fxjs_writer *x = calloc(1, sizeof *x);
	if (!x) {
		snprintf(g_err, sizeof g_err, "out of memory");
		return NULL;
	}
	snprintf(x->path, sizeof x->path, "/fxjs_w%u.fxr", ++serial);
	if (players < 1 || players > (int32_t)FXS_REPLAY_MAX_PLAYERS) {
		snprintf(g_err, sizeof g_err, "players must be 1..%u", FXS_REPLAY_MAX_PLAYERS);
		free(x);
		return NULL;
	}
	if (input_size < 1 || input_size > (int32_t)FXS_REPLAY_MAX_INPUT_SIZE) {
		snprintf(g_err, sizeof g_err, "inputSize must be 1..%u bytes", FXS_REPLAY_MAX_INPUT_SIZE);
		free(x);
		return NULL;
	}
	if (fxs_replay_writer_open(&x->w, x->path, scene, world, (uint32_t)players, (uint32_t)input_size,
				   (uint32_t)(chunk_ticks < 0 ? 0 : chunk_ticks), (uint32_t)flags) != FXS_REPLAY_OK) {
		snprintf(g_err, sizeof g_err, "%s", x->w.error);
		fxs_replay_writer_abandon(&x->w);
		remove(x->path);
		free(x);
		return NULL;
	}
	return x;
}

FXJS_EXPORT int32_t fxjs_writer_tick(fxjs_writer *x, const uint8_t *inputs, const fxs_world *world)
{
	/* players x the replay's input size bytes, as the game's handler reads them */
	if (fxs_replay_writer_tick(&x->w, inputs, world) != FXS_REPLAY_OK) {
		snprintf(g_err, sizeof g_err, "%s", x->w.error);
		return 0;
	}
	return 1;
}

/* Closes the file and returns its bytes (malloc'ed, *len); frees x. */
FXJS_EXPORT uint8_t *fxjs_writer_close(fxjs_writer *x, int32_t *len)
{
	*len = 0;
	uint8_t *buf = NULL;
	if (fxs_replay_writer_close(&x->w) != FXS_REPLAY_OK)
		snprintf(g_err, sizeof g_err, "%s", x->w.error);
	else if (!(buf = slurp(x->path, len)))
		snprintf(g_err, sizeof g_err, "cannot read the recording back");
	remove(x->path);
	free(x);
	return buf;
}

/* Drops a recording without writing its end. */
FXJS_EXPORT void fxjs_writer_abandon(fxjs_writer *x)
{
	fxs_replay_writer_abandon(&x->w);
	remove(x->path);
	free(x);
}
