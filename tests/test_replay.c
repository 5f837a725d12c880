/* Replays: the input record, detail deltas, input scripts, recording and
 * re-simulation, and the reader on hostile bytes (truncation at every byte,
 * every single-bit flip, mutations behind recomputed checksums). Then
 * replays of any world (fixstep/replay.h): a game's own input size and
 * apply callback, and the API-call mode (CALLS), which proves a program with
 * no input layer; the call log changes no hash, and hostile call records
 * get their status and offset. */
#include "test.h"
#include "replay_run.h"
#include "fixstep/joint.h"

#include <inttypes.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *temp_path(const char *tag)
{
	static char buf[4][256];
	static int k;
	char *p = buf[k++ & 3];
	snprintf(p, 256, "/tmp/fixstep_test_%ld_%s.fxr", (long)getpid(), tag);
	return p;
}

static uint8_t *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16;
	uint8_t *b = malloc(cap);
	*n = 0;
	size_t got;
	while ((got = fread(b + *n, 1, cap - *n, f)) > 0) {
		*n += got;
		if (*n == cap)
			b = realloc(b, cap *= 2);
	}
	fclose(f);
	return b;
}

/* record a small replay and return its bytes */
static uint8_t *record_bytes(const char *scene, uint32_t steps, uint32_t chunk, uint32_t flags, uint64_t perturb,
			     bool tamper, size_t *n)
{
	fxs_record_options o;
	memset(&o, 0, sizeof o);
	o.scene = fxs_scene_find(scene);
	o.steps = steps;
	o.chunk_ticks = chunk;
	o.flags = flags;
	o.seed = 11;
	o.perturb_tick = perturb;
	o.tamper = tamper;
	char err[256];
	const char *path = temp_path("rec");
	if (fxs_replay_record(path, &o, NULL, err, sizeof err) != FXS_REPLAY_OK)
		return NULL;
	uint8_t *b = read_all(path, n);
	remove(path);
	return b;
}

/* Re-simulate from the replay's own start (checked only by the
 * replay_start tests): -1 when every tick matches, else the first bad tick
 * index (-2: the start does not restore). */
static int64_t resimulate(const fxs_replay *r)
{
	char err[256];
	const fxs_scene *sc;
	fxs_replay_expect own = { .snapshot = r->data + r->snapshot_off, .snapshot_len = r->snapshot_len };
	fxs_world *w = fxs_replay_start(r, &own, &sc, err, sizeof err);
	if (!w)
		return -2;
	int64_t bad = -1;
	for (uint64_t i = 0; i < r->tick_count && bad < 0; ++i) {
		fxs_replay_step(r, sc, w, i);
		if (fxs_world_hash(w) != fxs_replay_tick_hash(r, i))
			bad = (int64_t)i;
	}
	fxs_world_destroy(w);
	return bad;
}

TEST(replay_input_record_layout)
{
	fxs_input in = { -2, 32767, 0xBEEF, -32768, 0x80000001u };
	uint8_t b[FXS_INPUT_SIZE];
	fxs_input_write(&in, b);
	static const uint8_t want[FXS_INPUT_SIZE] = { 0xfe, 0xff, 0xff, 0x7f, 0xef, 0xbe, 0x00, 0x80, 0x01, 0, 0, 0x80 };
	CHECK(memcmp(b, want, sizeof want) == 0);
	fxs_input back = fxs_input_read(b);
	CHECK(fxs_input_equal(&in, &back));
	/* every byte pattern reads and writes back unchanged */
	uint64_t s = 5;
	for (int k = 0; k < 10000; ++k) {
		uint8_t r[FXS_INPUT_SIZE], r2[FXS_INPUT_SIZE];
		for (int i = 0; i < FXS_INPUT_SIZE; ++i)
			r[i] = (uint8_t)test_rng_next(&s);
		fxs_input x = fxs_input_read(r);
		fxs_input_write(&x, r2);
		CHECK(memcmp(r, r2, sizeof r) == 0);
	}
}

TEST(replay_delta_round_trip)
{
	uint64_t s = 9;
	uint8_t *out = NULL, *enc = NULL;
	size_t out_len, out_cap = 0, enc_len, enc_cap = 0;
	for (int k = 0; k < 300; ++k) {
		size_t pn = test_rng_next(&s) % 700, cn = test_rng_next(&s) % 700;
		uint8_t *p = malloc(pn + 1), *c = malloc(cn + 1);
		for (size_t i = 0; i < pn; ++i)
			p[i] = (uint8_t)(test_rng_next(&s) & 3);
		for (size_t i = 0; i < cn; ++i)
			c[i] = (i < pn && test_rng_next(&s) % 4) ? p[i] : (uint8_t)(test_rng_next(&s) & 3);
		CHECK(fxs_delta_encode(p, pn, c, cn, &enc, &enc_len, &enc_cap));
		CHECK(fxs_delta_decode(p, pn, enc, enc_len, &out, &out_len, &out_cap) == FXS_REPLAY_OK);
		CHECK(out_len == cn && memcmp(out, c, cn) == 0);
		/* garbage deltas: an error or some output, never a crash */
		for (size_t i = 0; i < enc_len; ++i) {
			uint8_t save = enc[i];
			enc[i] ^= (uint8_t)(1u << (test_rng_next(&s) & 7));
			fxs_replay_status st = fxs_delta_decode(p, pn, enc, enc_len, &out, &out_len, &out_cap);
			CHECK(st == FXS_REPLAY_OK || st == FXS_REPLAY_CORRUPT);
			if (st == FXS_REPLAY_OK)
				CHECK(out_len <= pn + enc_len);
			enc[i] = save;
		}
		free(p);
		free(c);
	}
	free(out);
	free(enc);
}

TEST(replay_input_scripts)
{
	fxs_input_script sc;
	char err[200];
	const char *good = "# demo\nplayers 2\n0 0 100 -200 0 0 0   # start\n\n5 1 0 32767 16384 -5 0x3\n5 0 0 0 0 0 1\n";
	CHECK(fxs_input_script_parse(&sc, good, strlen(good), err, sizeof err));
	CHECK(sc.players == 2 && sc.count == 3);
	fxs_input cur[FXS_MAX_PLAYERS];
	for (int p = 0; p < FXS_MAX_PLAYERS; ++p)
		cur[p] = fxs_input_neutral();
	size_t cursor = 0;
	fxs_input_script_at(&sc, &cursor, 4, cur);
	CHECK(cur[0].move_x == 100 && cur[0].move_z == -200 && cur[1].move_z == 0);
	fxs_input_script_at(&sc, &cursor, 5, cur);
	CHECK(cur[0].move_x == 0 && cur[0].buttons == 1 && cur[1].move_z == 32767 && cur[1].yaw == 16384 &&
	      cur[1].pitch == -5 && cur[1].buttons == 3);
	fxs_input_script_free(&sc);
	static const char *bad[] = { "1 0 0 0 0 0\n", "1 0 0 0 0 0 0 7\n", "1 0 40000 0 0 0 0\n", "5 0 0 0 0 0 0\n1 0 0 0 0 0 0\n",
				     "players 2\n1 2 0 0 0 0 0\n", "1 16 0 0 0 0 0\n", "1 0 0 0 65536 0 0\n", "players 0\n",
				     "1 0 x 0 0 0 0\n", "1 0 0 0 0 0 0x100000000\n" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
		err[0] = 0;
		CHECKF(!fxs_input_script_parse(&sc, bad[i], strlen(bad[i]), err, sizeof err), "accepted: %s", bad[i]);
		CHECKF(strncmp(err, "line ", 5) == 0, "message '%s'", err);
	}
}

TEST(replay_record_verify_every_scene_small)
{
	uint32_t n;
	const fxs_scene *s = fxs_scenes(&n);
	for (uint32_t k = 0; k < n; ++k) {
		fxs_world *w = s[k].create();
		uint32_t bodies = fxs_world_body_count(w);
		fxs_world_destroy(w);
		if (bodies > 1000)
			continue; /* the corpus test covers the big ones */
		size_t len;
		uint8_t *b = record_bytes(s[k].name, 20, 8, FXS_REPLAY_FLAG_DETAIL, 0, false, &len);
		CHECKF(b, "record %s", s[k].name);
		fxs_replay r;
		CHECKF(fxs_replay_parse(&r, b, len) == FXS_REPLAY_OK, "%s: %s", s[k].name, r.error);
		CHECK(r.complete && r.tick_count == 20 && r.chunk_count == 3 && r.players == s[k].players);
		CHECKF(resimulate(&r) == -1, "%s does not re-simulate", s[k].name);
		/* the recorded detail is the state: every tick's snapshot hashes to its hash */
		fxs_replay_detail d;
		CHECK(fxs_replay_detail_init(&r, &d) == FXS_REPLAY_OK);
		for (uint64_t i = 0; i < r.tick_count; ++i) {
			CHECK(fxs_replay_detail_next(&r, &d) == FXS_REPLAY_OK);
			fxs_result e;
			fxs_world *rw = fxs_world_create_from_snapshot(d.snap, d.len, &e);
			CHECK(rw && fxs_world_hash(rw) == fxs_replay_tick_hash(&r, i));
			fxs_world_destroy(rw);
		}
		fxs_replay_detail_free(&d);
		fxs_replay_free(&r);
		free(b);
	}
}

TEST(replay_inputs_change_the_state)
{
	size_t la, lb;
	uint8_t *a = record_bytes("box_stack", 40, 0, 0, 0, false, &la);
	uint8_t *b = record_bytes("box_stack", 40, 0, 0, 25, false, &lb);
	CHECK(a && b);
	fxs_replay ra, rb;
	CHECK(fxs_replay_parse(&ra, a, la) == FXS_REPLAY_OK && fxs_replay_parse(&rb, b, lb) == FXS_REPLAY_OK);
	for (uint64_t i = 0; i < 40; ++i) {
		bool same = fxs_replay_tick_hash(&ra, i) == fxs_replay_tick_hash(&rb, i);
		CHECKF(same == (i < 24), "tick index %llu", (unsigned long long)i); /* tick 25 is index 24 */
	}
	fxs_replay_free(&ra);
	fxs_replay_free(&rb);
	free(a);
	free(b);
}

TEST(replay_tampered_input_diverges_at_its_tick_and_names_the_body)
{
	size_t n;
	uint8_t *b = record_bytes("drop", 120, 16, FXS_REPLAY_FLAG_DETAIL, 70, true, &n);
	CHECK(b);
	fxs_replay r;
	CHECK(fxs_replay_parse(&r, b, n) == FXS_REPLAY_OK);
	CHECK(resimulate(&r) == 69);
	/* name it: the recorded state at tick 70 against the re-simulated one */
	char err[256];
	const fxs_scene *sc;
	fxs_world *w = fxs_replay_start(&r, NULL, &sc, err, sizeof err);
	for (uint64_t i = 0; i < 70; ++i)
		fxs_replay_step(&r, sc, w, i);
	fxs_replay_detail d;
	CHECK(fxs_replay_detail_init(&r, &d) == FXS_REPLAY_OK);
	while (d.applied < 70)
		CHECK(fxs_replay_detail_next(&r, &d) == FXS_REPLAY_OK);
	fxs_result e;
	fxs_world *rec = fxs_world_create_from_snapshot(d.snap, d.len, &e);
	CHECK(rec);
	fxs_state_diff df;
	CHECK(fxs_world_first_difference(rec, w, &df));
	CHECKF(df.body == 1 && (df.field[0] == 'p' || df.field[0] == 'v'), "body %lld field %s", (long long)df.body, df.field);
	fxs_world_destroy(rec);
	fxs_world_destroy(w);
	fxs_replay_detail_free(&d);
	fxs_replay_free(&r);
	free(b);
}

SLOW_TEST(replay_truncation_at_every_byte)
{
	size_t n;
	uint8_t *b = record_bytes("box_stack", 40, 8, FXS_REPLAY_FLAG_DETAIL, 0, false, &n);
	CHECK(b);
	fxs_replay full;
	CHECK(fxs_replay_parse(&full, b, n) == FXS_REPLAY_OK);
	size_t step = test_quick ? 7 : 1;
	for (size_t len = 0; len < n; len += step) {
		fxs_replay r;
		fxs_replay_status s = fxs_replay_parse(&r, b, len);
		CHECKF(s == FXS_REPLAY_TRUNCATED, "cut at %zu of %zu: %s", len, n, r.error);
		/* exactly the chunks that fit are kept, and they are the originals */
		uint32_t fit = 0;
		while (fit < full.chunk_count && full.chunks[fit].offset + full.chunks[fit].size <= len)
			++fit;
		CHECKF(r.chunk_count == fit, "cut at %zu: %u chunks, %u fit", len, r.chunk_count, fit);
		for (uint64_t i = 0; i < r.tick_count; ++i)
			CHECK(fxs_replay_tick_hash(&r, i) == fxs_replay_tick_hash(&full, i));
		fxs_replay_free(&r);
	}
	fxs_replay_free(&full);
	free(b);
}

SLOW_TEST(replay_every_bit_flip_is_detected)
{
	size_t n;
	uint8_t *b = record_bytes("drop", 40, 8, FXS_REPLAY_FLAG_DETAIL, 0, false, &n);
	CHECK(b);
	size_t step = test_quick ? 13 : 1;
	for (size_t bit = 0; bit < n * 8; bit += step) {
		b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		fxs_replay r;
		fxs_replay_status s = fxs_replay_parse(&r, b, n);
		CHECKF(s != FXS_REPLAY_OK, "flip of bit %zu not detected", bit);
		CHECK(r.error[0] != 0);
		fxs_replay_free(&r);
		b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	free(b);
}

SLOW_TEST(replay_mutations_behind_fixed_checksums_never_crash)
{
	size_t n;
	uint8_t *b = record_bytes("drop", 24, 8, FXS_REPLAY_FLAG_DETAIL, 0, false, &n);
	CHECK(b);
	uint8_t *m = malloc(n);
	uint64_t s = 77;
	int rounds = test_quick ? 300 : 3000, valid = 0;
	for (int k = 0; k < rounds; ++k) {
		memcpy(m, b, n);
		int flips = 1 + (int)(test_rng_next(&s) % 4);
		for (int f = 0; f < flips; ++f) {
			size_t at = test_rng_next(&s) % n;
			m[at] = (test_rng_next(&s) & 1) ? (uint8_t)test_rng_next(&s) : (uint8_t)(m[at] ^ (1u << (test_rng_next(&s) & 7)));
		}
		fxs_replay_fix_checksums(m, n);
		fxs_replay r;
		fxs_replay_parse(&r, m, n);
		if (fxs_replay_header_ok(&r)) {
			++valid;
			resimulate(&r); /* any result, no crash */
			if (r.flags & FXS_REPLAY_FLAG_DETAIL) {
				fxs_replay_detail d;
				if (fxs_replay_detail_init(&r, &d) == FXS_REPLAY_OK) {
					while (d.applied < r.tick_count && fxs_replay_detail_next(&r, &d) == FXS_REPLAY_OK)
						;
					fxs_replay_detail_free(&d);
				}
			}
		}
		fxs_replay_free(&r);
	}
	CHECK(valid > 0);
	free(m);
	free(b);
}

TEST(replay_killed_recorder_keeps_complete_chunks)
{
	const fxs_scene *sc = fxs_scene_find("drop");
	fxs_world *w = sc->create();
	fxs_replay_writer rw;
	const char *path = temp_path("kill");
	CHECK(fxs_replay_writer_open(&rw, path, "drop", w, 1, FXS_INPUT_SIZE, 8, 0) == FXS_REPLAY_OK);
	fxs_input in[FXS_MAX_PLAYERS];
	for (uint64_t t = 1; t <= 21; ++t) { /* two complete chunks and 5 ticks in memory */
		fxs_inputs_random(1, t, 1, in);
		sc->apply_inputs(w, in, 1, t);
		fxs_world_step(w);
		CHECK(fxs_replay_writer_tick_inputs(&rw, in, w) == FXS_REPLAY_OK);
	}
	fxs_replay_writer_abandon(&rw); /* as a kill -9 leaves it */
	fxs_world_destroy(w);
	size_t n;
	uint8_t *b = read_all(path, &n);
	remove(path);
	CHECK(b);
	/* and a half-written third chunk on top */
	b = realloc(b, n + 30);
	memcpy(b + n, "FXSC\x02\0\0\0", 8);
	memset(b + n + 8, 0x55, 22);
	for (int extra = 0; extra <= 1; ++extra) {
		fxs_replay r;
		CHECK(fxs_replay_parse(&r, b, n + (extra ? 30 : 0)) == FXS_REPLAY_TRUNCATED);
		CHECK(r.chunk_count == 2 && r.tick_count == 16 && !r.complete);
		CHECK(strstr(r.error, "truncated") != NULL);
		CHECK(resimulate(&r) == -1);
		fxs_replay_free(&r);
	}
	free(b);
}

TEST(replay_header_errors_are_named)
{
	size_t n;
	uint8_t *b = record_bytes("drop", 10, 0, 0, 0, false, &n);
	CHECK(b);
	fxs_replay r;
	b[8] = 9; /* format version 9 */
	CHECK(fxs_replay_parse(&r, b, n) == FXS_REPLAY_VERSION && strstr(r.error, "unknown version"));
	fxs_replay_free(&r);
	b[8] = FXS_REPLAY_FORMAT_VERSION;
	b[0] = 'X';
	CHECK(fxs_replay_parse(&r, b, n) == FXS_REPLAY_BAD_MAGIC);
	fxs_replay_free(&r);
	b[0] = 'F';
	b[n - 40] ^= 1; /* inside the last chunk */
	CHECK(fxs_replay_parse(&r, b, n) == FXS_REPLAY_CHECKSUM && strstr(r.error, "bad checksum"));
	CHECK(r.chunk_count == 0);
	fxs_replay_free(&r);
	b[n - 40] ^= 1;
	b[24] = 65; /* 65 players, checksum fixed: a range error */
	fxs_replay_fix_checksums(b, n);
	CHECK(fxs_replay_parse(&r, b, n) == FXS_REPLAY_CORRUPT && strstr(r.error, "players"));
	fxs_replay_free(&r);
	free(b);
}

/* the encoded size of a body definition (docs/replay-format.md) */
#define FXS_CALL_BODY_DEF_SIZE_TEST 144u

/* ---- a game's own world and inputs: 20 players of 3 bytes ---- */

#define GAME_PLAYERS 20
#define GAME_INPUT 3

/* Its world: a ground and one sphere per player. */
static fxs_world *game_world(fxs_body_id *ids)
{
	fxs_world_def wd = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&wd);
	fxs_body_def g = fxs_default_body_def();
	g.type = FXS_BODY_STATIC;
	g.shape.type = FXS_SHAPE_BOX;
	g.shape.half_extents = fxg_v3(FXG_I(40), FXG_I(1), FXG_I(40));
	g.position = fxg_v3(0, FXG_I(-1), 0);
	fxs_body_create(w, &g);
	for (int i = 0; i < GAME_PLAYERS; ++i) {
		fxs_body_def b = fxs_default_body_def();
		b.shape.type = FXS_SHAPE_SPHERE;
		b.shape.radius = FXG_RATIO(1, 2);
		b.position = fxg_v3(FXG_I(i % 5 * 2 - 4), FXG_I(1 + i / 5), FXG_I(i / 5 * 2));
		ids[i] = fxs_body_create(w, &b);
	}
	return w;
}

typedef struct game {
	fxs_body_id ids[GAME_PLAYERS];
	uint32_t applied;
} game;

/* Its input: a signed push in x and z and a jump bit. Any 3 bytes are valid. */
static fxs_result game_apply(fxs_world *w, uint64_t tick, const uint8_t *in, uint32_t players, void *ctx)
{
	game *g = ctx;
	(void)tick;
	for (uint32_t p = 0; p < players && p < GAME_PLAYERS; ++p) {
		const uint8_t *i = in + (size_t)p * GAME_INPUT;
		fxg_vec3 push = fxg_v3((int8_t)i[0] * 2048, (i[2] & 1) ? FXG_I(4) : 0, (int8_t)i[1] * 2048);
		fxs_body_apply_linear_impulse(w, g->ids[p], push, fxs_body_get_position(w, g->ids[p]));
	}
	g->applied++;
	return FXS_OK;
}

static void game_inputs(uint64_t tick, uint8_t *out)
{
	for (uint32_t p = 0; p < GAME_PLAYERS; ++p) {
		uint32_t x = (uint32_t)(tick * 2654435761u + p * 40503u);
		out[p * GAME_INPUT] = (uint8_t)(x >> 8), out[p * GAME_INPUT + 1] = (uint8_t)(x >> 16);
		out[p * GAME_INPUT + 2] = (uint8_t)(tick % 45 == p ? 1 : 0);
	}
}

/* Record steps ticks; the start's snapshot (malloc'd) to *start. */
static uint64_t game_record(const char *path, uint32_t steps, uint32_t flags, uint8_t **start, size_t *start_len)
{
	game g = { 0 };
	fxs_world *w = game_world(g.ids);
	*start_len = fxs_world_snapshot_size(w);
	*start = malloc(*start_len);
	fxs_world_snapshot_save(w, *start, *start_len, start_len);
	fxs_replay_writer rw;
	if (fxs_replay_writer_open(&rw, path, "sphere_push", w, GAME_PLAYERS, GAME_INPUT, 16, flags) != FXS_REPLAY_OK)
		return 0;
	uint8_t in[GAME_PLAYERS * GAME_INPUT];
	for (uint32_t t = 1; t <= steps; ++t) {
		game_inputs(t, in);
		game_apply(w, t, in, GAME_PLAYERS, &g);
		fxs_world_step(w);
		fxs_replay_writer_tick(&rw, in, w);
	}
	uint64_t h = fxs_world_hash(w);
	if (fxs_replay_writer_close(&rw) != FXS_REPLAY_OK)
		h = 0;
	fxs_world_destroy(w);
	return h;
}

TEST(replay_game_inputs_of_any_size_verify_from_a_trusted_start)
{
	const char *path = temp_path("inputs");
	uint8_t *start;
	size_t start_len;
	uint64_t final = game_record(path, 90, FXS_REPLAY_FLAG_DETAIL, &start, &start_len);
	CHECK(final != 0);
	fxs_replay_reader r;
	CHECK(fxs_replay_open(&r, path) == FXS_REPLAY_OK);
	CHECK(r.format_version == 2 && r.players == GAME_PLAYERS && r.input_size == GAME_INPUT &&
	      r.mode == FXS_REPLAY_MODE_INPUTS && strcmp(r.scene, "sphere_push") == 0);
	fxs_replay_close(&r);

	game g = { 0 };
	fxs_world *w = game_world(g.ids);
	fxs_world_destroy(w);
	fxs_replay_expect expect = { .snapshot = start,
				     .snapshot_len = start_len,
				     .modes = FXS_REPLAY_ACCEPT_INPUTS,
				     .input_size = GAME_INPUT,
				     .players = GAME_PLAYERS };
	fxs_replay_verify_result v;
	CHECKF(fxs_replay_verify(path, &expect, game_apply, &g, &v) == FXS_REPLAY_OK, "%s", v.message);
	CHECK(v.ticks == 90 && v.final_hash == final && g.applied == 90);
	/* by its start hash too */
	fxs_world *sw = fxs_world_create_from_snapshot(start, start_len, NULL);
	fxs_replay_expect by_hash = { .has_hash = true, .hash = fxs_world_hash(sw), .input_size = GAME_INPUT };
	fxs_world_destroy(sw);
	CHECK(fxs_replay_verify(path, &by_hash, game_apply, &g, &v) == FXS_REPLAY_OK);
	/* no trusted start: an inputs replay proves nothing */
	fxs_replay_expect no_start = { .input_size = GAME_INPUT };
	CHECK(fxs_replay_verify(path, &no_start, game_apply, &g, &v) == FXS_REPLAY_BAD_START);
	CHECK(strstr(v.message, "not the expected start") != NULL);
	/* no expectation at all: fxs_input records only, so not this game's 3-byte inputs */
	g.applied = 0;
	CHECK(fxs_replay_verify(path, NULL, game_apply, &g, &v) == FXS_REPLAY_REFUSED && g.applied == 0);
	CHECKF(strstr(v.message, "input size 3") != NULL, "%s", v.message);
	/* no callback: a valid replay, not verified here (not "invalid") */
	CHECK(fxs_replay_verify(path, &expect, NULL, NULL, &v) == FXS_REPLAY_NO_HANDLER);

	/* one input byte of tick 40 changed (checksums fixed): diverges at tick 40, names the body */
	size_t n;
	uint8_t *b = read_all(path, &n);
	CHECK(b);
	fxs_replay p;
	CHECK(fxs_replay_parse(&p, b, n) == FXS_REPLAY_OK);
	fxs_replay_tick t;
	CHECK(fxs_replay_get_tick(&p, 39, &t) && t.number == 40 && t.input_len == GAME_PLAYERS * GAME_INPUT);
	size_t off = (size_t)(t.input - p.data) + 7 * GAME_INPUT; /* player 7's x push */
	fxs_replay_free(&p);
	b[off] ^= 0x40;
	fxs_replay_fix_checksums(b, n);
	g.applied = 0;
	CHECK(fxs_replay_verify_memory(b, n, &expect, game_apply, &g, &v) == FXS_REPLAY_DIVERGED);
	CHECKF(v.tick == 40 && strstr(v.message, "tick 40") && strstr(v.message, "body 8"), "%s", v.message);
	free(b);
	free(start);
	remove(path);
}

/* ---- API calls (CALLS mode) ---- */

TEST(replay_call_log_changes_no_hash)
{
	/* the demo run twice, once recording its calls: the same hash every step */
	fxs_world_def wd = fxs_default_world_def();
	fxs_world *a = fxs_world_create(&wd), *b = fxs_world_create(&wd);
	fxs_calls_demo da, db;
	memset(&da, 0, sizeof da);
	memset(&db, 0, sizeof db);
	const char *path = temp_path("nolog");
	fxs_replay_writer rw;
	CHECK(fxs_replay_writer_open_calls(&rw, path, NULL, b, 0, 0) == FXS_REPLAY_OK);
	bool same = true;
	for (uint64_t t = 1; t <= 120; ++t) {
		fxs_calls_demo_tick(a, &da, t);
		fxs_calls_demo_tick(b, &db, t);
		fxs_world_step(a);
		fxs_world_step(b);
		CHECK(fxs_replay_writer_tick(&rw, NULL, b) == FXS_REPLAY_OK);
		same = same && fxs_world_hash(a) == fxs_world_hash(b);
	}
	CHECK(same);
	CHECK(fxs_replay_writer_close(&rw) == FXS_REPLAY_OK);
	fxs_calls_demo_free(&da);
	fxs_calls_demo_free(&db);
	fxs_world_destroy(a);
	fxs_world_destroy(b);
	remove(path);
}

/* A verifier that accepts API calls, every one of them. */
static const char *const every_call[] = { "*" };
static const fxs_replay_expect calls_ok = { .modes = FXS_REPLAY_ACCEPT_CALLS,
					    .allowed_calls = every_call,
					    .allowed_call_count = 1 };

/* Record the demo; its bytes (the file removed). */
static uint8_t *demo_bytes(uint32_t steps, uint32_t flags, uint64_t *final, size_t *n)
{
	const char *path = temp_path("calls");
	char err[256];
	if (fxs_calls_demo_record(path, steps, 16, flags, final, err, sizeof err) != FXS_REPLAY_OK)
		return NULL;
	uint8_t *b = read_all(path, n);
	remove(path);
	return b;
}

/* The offset in b of call k of tick i's record, its op to *op. */
static size_t call_at(const uint8_t *b, size_t n, uint64_t i, uint32_t k, uint32_t *op)
{
	fxs_replay p;
	size_t off = 0;
	fxs_replay_tick t;
	if (fxs_replay_parse(&p, b, n) == FXS_REPLAY_OK && fxs_replay_get_tick(&p, i, &t) &&
	    fxs_replay_tick_call(&t, k, op, &off))
		off += (size_t)(t.calls - p.data);
	else
		off = 0;
	fxs_replay_free(&p);
	return off;
}

TEST(replay_calls_of_a_program_without_inputs_verify)
{
	uint64_t final = 0;
	size_t n;
	uint8_t *b = demo_bytes(120, FXS_REPLAY_FLAG_DETAIL, &final, &n);
	CHECK(b);
	fxs_replay_verify_result v;
	/* from an empty world: no start to give */
	CHECKF(fxs_replay_verify_memory(b, n, &calls_ok, NULL, NULL, &v) == FXS_REPLAY_OK, "%s", v.message);
	CHECK(v.ticks == 120 && v.final_hash == final);
	fxs_replay p;
	CHECK(fxs_replay_parse(&p, b, n) == FXS_REPLAY_OK && p.mode == FXS_REPLAY_MODE_CALLS && p.players == 0);
	/* every kind of call the demo makes is there, tick 1 first */
	fxs_replay_tick t;
	uint32_t op, calls = 0;
	bool joint = false, destroy = false, character = false, hull = false, restore = false;
	for (uint64_t i = 0; i < p.tick_count; ++i) {
		CHECK(fxs_replay_get_tick(&p, i, &t));
		for (uint32_t k = 0; fxs_replay_tick_call(&t, k, &op, NULL); ++k, ++calls) {
			const char *name = fxs_replay_call_name(op);
			joint |= strcmp(name, "fxs_joint_create") == 0;
			destroy |= strcmp(name, "fxs_body_destroy") == 0;
			character |= strcmp(name, "fxs_character_set_move") == 0;
			hull |= strcmp(name, "fxs_world_create_hull") == 0;
			restore |= strcmp(name, "fxs_world_snapshot_restore") == 0;
		}
	}
	CHECK(joint && destroy && character && hull && restore && calls > 100);
	CHECK(fxs_replay_get_tick(&p, 0, &t) && t.call_count == 10); /* ground, a refused body, 6 bodies, 2 setters */
	fxs_replay_free(&p);
	free(b);
}

TEST(replay_a_changed_call_is_reported_at_its_tick)
{
	uint64_t final;
	size_t n;
	uint8_t *b = demo_bytes(120, FXS_REPLAY_FLAG_DETAIL, &final, &n);
	CHECK(b);
	/* tick 30's first call is the ball joint's creation... */
	uint32_t op = 0;
	size_t off = call_at(b, n, 29, 0, &op);
	CHECK(off && strcmp(fxs_replay_call_name(op), "fxs_joint_create") == 0);
	/* ...tick 45's first: an impulse. Its x changes (checksums fixed) */
	off = call_at(b, n, 44, 0, &op);
	CHECKF(off && strcmp(fxs_replay_call_name(op), "fxs_body_apply_linear_impulse") == 0, "%s",
	       fxs_replay_call_name(op));
	b[off + 8 + 8 + 2] ^= 0x10; /* op, length, body id, then impulse.x's third byte */
	fxs_replay_fix_checksums(b, n);
	fxs_replay_verify_result v;
	CHECK(fxs_replay_verify_memory(b, n, &calls_ok, NULL, NULL, &v) == FXS_REPLAY_DIVERGED);
	/* the impulse on body 3 moves body 2 within the step: the first body that differs is 2, the call is named */
	CHECKF(v.tick == 45 && strstr(v.message, "tick 45: call 0 (fxs_body_apply_linear_impulse) on body 3; body 2 field p."),
	       "%s", v.message);
	free(b);
}

TEST(replay_hostile_call_records_get_their_status)
{
	uint64_t final;
	size_t n;
	uint8_t *b = demo_bytes(40, 0, &final, &n);
	CHECK(b);
	uint32_t op;
	size_t off = call_at(b, n, 0, 2, &op); /* tick 1, call 2 */
	CHECK(off);
	fxs_replay_verify_result v;
	fxs_replay p;
	/* an unknown op: CORRUPT at the call's offset */
	uint8_t keep = b[off];
	b[off] = 200;
	fxs_replay_fix_checksums(b, n);
	CHECK(fxs_replay_parse(&p, b, n) == FXS_REPLAY_CORRUPT && strstr(p.error, "unknown op 200"));
	CHECKF(p.error_offset == off, "%zu vs %zu", p.error_offset, off);
	fxs_replay_free(&p);
	CHECK(fxs_replay_verify_memory(b, n, &calls_ok, NULL, NULL, &v) == FXS_REPLAY_CORRUPT);
	b[off] = keep;
	/* an argument length past the record */
	b[off + 6] = 0x7f;
	fxs_replay_fix_checksums(b, n);
	CHECK(fxs_replay_parse(&p, b, n) == FXS_REPLAY_CORRUPT && strstr(p.error, "past"));
	fxs_replay_free(&p);
	b[off + 6] = 0;
	/* a bool that is not 0 or 1: the body definition's is_awake */
	CHECK(b[off + 8] == 1);
	uint8_t bk = b[off + 8 + 1 + FXS_CALL_BODY_DEF_SIZE_TEST - 1];
	b[off + 8 + 1 + FXS_CALL_BODY_DEF_SIZE_TEST - 1] = 7;
	fxs_replay_fix_checksums(b, n);
	CHECK(fxs_replay_parse(&p, b, n) == FXS_REPLAY_CORRUPT && strstr(p.error, "bool"));
	fxs_replay_free(&p);
	b[off + 8 + 1 + FXS_CALL_BODY_DEF_SIZE_TEST - 1] = bk;
	fxs_replay_fix_checksums(b, n);
	CHECK(fxs_replay_verify_memory(b, n, &calls_ok, NULL, NULL, &v) == FXS_REPLAY_OK);
	/* truncated at every 97th byte: TRUNCATED (or BAD_MAGIC for nothing), never a crash */
	for (size_t cut = 0; cut < n; cut += 97) {
		fxs_replay_status s = fxs_replay_verify_memory(b, cut, &calls_ok, NULL, NULL, &v);
		CHECKF(s == FXS_REPLAY_TRUNCATED || (cut < 8 && s == FXS_REPLAY_BAD_MAGIC), "cut %zu: %d %s", cut, s,
		       v.message);
	}
	/* a calls replay whose start is not an empty world needs its start given */
	free(b);
}
