/* What a verifier accepts (fxs_replay_expect: modes, input size, players,
 * allowed calls): the forgeries of issue 31 refused by the library before
 * any callback runs, honest replays still verified. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "replay_forge.h"
#include "replay_run.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *temp(const char *tag)
{
	static char buf[4][256];
	static int k;
	char *b = buf[k++ & 3];
	snprintf(b, 256, "/tmp/fixstep_accept_%ld_%s.fxr", (long)getpid(), tag);
	return b;
}

/* A built-in scene's apply callback counting its calls. */
typedef struct counted {
	const fxs_scene *sc;
	uint32_t calls;
} counted;

static fxs_result scene_apply(fxs_world *w, uint64_t tick, const uint8_t *in, uint32_t players, void *ctx)
{
	counted *c = ctx;
	c->calls++;
	return fxs_scene_apply_replay_inputs(w, tick, in, players, (void *)c->sc);
}

static uint8_t *scene_start(const char *scene, size_t *n)
{
	fxs_world *w = fxs_scene_find(scene)->create();
	*n = fxs_world_snapshot_size(w);
	uint8_t *b = malloc(*n);
	fxs_world_snapshot_save(w, b, *n, n);
	fxs_world_destroy(w);
	return b;
}

/* The forgery of the issue: from the game's real start, labelled as the
 * game, tick 1 restores a doctored state. It used to verify ok without the
 * game's callback ever running. */
TEST(replay_accept_refuses_the_calls_forgery)
{
	const char *f = temp("forged"), *h = temp("honest");
	CHECK(forge_restore_replay(f, "shapes", 5, 30));
	fxs_record_options ro = { .scene = fxs_scene_find("shapes"), .steps = 30, .seed = 7 };
	char err[256];
	uint64_t final;
	CHECKF(fxs_replay_record(h, &ro, &final, err, sizeof err) == FXS_REPLAY_OK, "%s", err);
	size_t n;
	uint8_t *start = scene_start("shapes", &n);
	counted c = { fxs_scene_find("shapes"), 0 };
	fxs_replay_expect e = { .snapshot = start, .snapshot_len = n };
	fxs_replay_verify_result v;
	/* the default: inputs only */
	CHECK(fxs_replay_verify(f, &e, scene_apply, &c, &v) == FXS_REPLAY_REFUSED && c.calls == 0);
	CHECKF(strstr(v.message, "API calls") && v.ticks == 0, "%s", v.message);
	CHECK(fxs_replay_verify(f, NULL, scene_apply, &c, &v) == FXS_REPLAY_REFUSED && c.calls == 0);
	/* by the start's hash: the same */
	fxs_world *sw = fxs_world_create_from_snapshot(start, n, NULL);
	fxs_replay_expect by_hash = { .has_hash = true, .hash = fxs_world_hash(sw) };
	fxs_world_destroy(sw);
	CHECK(fxs_replay_verify(f, &by_hash, scene_apply, &c, &v) == FXS_REPLAY_REFUSED && c.calls == 0);
	/* a verifier that accepts calls, but not a snapshot restore: refused at tick 1, naming it */
	static const char *const moves[] = { "fxs_body_apply_linear_impulse", "fxs_body_apply_force" };
	fxs_replay_expect calls = e;
	calls.modes = FXS_REPLAY_ACCEPT_CALLS, calls.allowed_calls = moves, calls.allowed_call_count = 2;
	CHECK(fxs_replay_verify(f, &calls, NULL, NULL, &v) == FXS_REPLAY_REFUSED);
	CHECKF(strstr(v.message, "tick 1") && strstr(v.message, "fxs_world_snapshot_restore") && v.ticks == 0, "%s",
	       v.message);
	/* ... which is what the file holds: a verifier allowing every call verifies it (the test's own check) */
	static const char *const all[] = { "*" };
	calls.allowed_calls = all, calls.allowed_call_count = 1;
	CHECKF(fxs_replay_verify(f, &calls, NULL, NULL, &v) == FXS_REPLAY_OK && v.ticks == 30, "%s", v.message);
	/* and the honest inputs replay still verifies, through the callback */
	CHECKF(fxs_replay_verify(h, &e, scene_apply, &c, &v) == FXS_REPLAY_OK && v.final_hash == final && c.calls == 30,
	       "%s", v.message);
	/* a verifier of calls only refuses inputs */
	calls.modes = FXS_REPLAY_ACCEPT_CALLS;
	CHECK(fxs_replay_verify(h, &calls, scene_apply, &c, &v) == FXS_REPLAY_REFUSED && c.calls == 30);
	/* the reader's world: the kind checked there too */
	fxs_replay_reader r;
	CHECK(fxs_replay_open(&r, f) == FXS_REPLAY_OK);
	fxs_replay_status st;
	fxs_world *w = fxs_replay_reader_world(&r, &e, &st, err, sizeof err);
	CHECK(!w && st == FXS_REPLAY_REFUSED);
	fxs_replay_close(&r);
	free(start);
	remove(f);
	remove(h);
}

/* A game of 256-byte inputs against a file that says 1 byte: refused before
 * the callback reads past the buffer (ASan: make sanitize). */
TEST(replay_accept_pins_input_size_and_players)
{
	const char *f = temp("one_byte");
	uint8_t *start;
	size_t n;
	CHECK(forge_game_replay(f, 4, 1, 20, &start, &n));
	forge_game big = { 256, 0 }, right = { 1, 0 };
	fxs_replay_expect e = { .snapshot = start, .snapshot_len = n, .input_size = 256, .players = 4 };
	fxs_replay_verify_result v;
	CHECK(fxs_replay_verify(f, &e, forge_game_apply, &big, &v) == FXS_REPLAY_REFUSED && big.calls == 0);
	CHECKF(strstr(v.message, "input size 1") && strstr(v.message, "has 256"), "%s", v.message);
	e.input_size = 64;
	CHECK(fxs_replay_verify(f, &e, forge_game_apply, &big, &v) == FXS_REPLAY_REFUSED && big.calls == 0);
	/* the right size, the wrong players */
	e.input_size = 1, e.players = 5;
	CHECK(fxs_replay_verify(f, &e, forge_game_apply, &right, &v) == FXS_REPLAY_REFUSED && right.calls == 0);
	CHECKF(strstr(v.message, "4 players") != NULL, "%s", v.message);
	/* all pinned right: ok, every tick through the callback */
	e.players = 4;
	CHECKF(fxs_replay_verify(f, &e, forge_game_apply, &right, &v) == FXS_REPLAY_OK && right.calls == 20, "%s",
	       v.message);
	/* players 0: any count (the callback is told) */
	e.players = 0;
	CHECK(fxs_replay_verify(f, &e, forge_game_apply, &right, &v) == FXS_REPLAY_OK);
	/* the default size is fxs_input's */
	e.input_size = 0;
	CHECK(fxs_replay_verify(f, &e, forge_game_apply, &right, &v) == FXS_REPLAY_REFUSED);
	/* a valid replay without a handler is not invalid */
	e.input_size = 1;
	CHECK(fxs_replay_verify(f, &e, NULL, NULL, &v) == FXS_REPLAY_NO_HANDLER);
	CHECK(strcmp(fxs_replay_status_string(FXS_REPLAY_NO_HANDLER), "no input handler") == 0);
	/* fxs_replay_accepts alone */
	char why[200];
	CHECK(fxs_replay_accepts(FXS_REPLAY_MODE_INPUTS, 12, 3, NULL, why, sizeof why) == FXS_REPLAY_OK);
	CHECK(fxs_replay_accepts(FXS_REPLAY_MODE_CALLS, 0, 0, NULL, why, sizeof why) == FXS_REPLAY_REFUSED);
	CHECK(fxs_replay_accepts(7, 12, 3, NULL, NULL, 0) == FXS_REPLAY_REFUSED);
	CHECK(fxs_replay_tick_allowed(NULL, NULL, why, sizeof why) == FXS_REPLAY_IO);
	free(start);
	remove(f);
}

/* A calls replay of an empty world labelled as a built-in scene: refused
 * unless calls are asked for; the allowed list is checked call by call. */
TEST(replay_accept_allowed_calls)
{
	const char *f = temp("as_scene");
	CHECK(forge_calls_as_scene(f, "shapes", 10));
	fxs_replay_verify_result v;
	CHECK(fxs_replay_verify(f, NULL, NULL, NULL, &v) == FXS_REPLAY_REFUSED);
	static const char *const create[] = { "fxs_body_create" }, *const other[] = { "fxs_body_destroy" };
	fxs_replay_expect e = { .modes = FXS_REPLAY_ACCEPT_CALLS, .allowed_calls = other, .allowed_call_count = 1 };
	CHECK(fxs_replay_verify(f, &e, NULL, NULL, &v) == FXS_REPLAY_REFUSED);
	CHECKF(strstr(v.message, "call 0 (fxs_body_create)"), "%s", v.message);
	e.allowed_call_count = 0; /* none listed: no call */
	CHECK(fxs_replay_verify(f, &e, NULL, NULL, &v) == FXS_REPLAY_REFUSED);
	e.allowed_calls = create, e.allowed_call_count = 1;
	CHECKF(fxs_replay_verify(f, &e, NULL, NULL, &v) == FXS_REPLAY_OK && v.ticks == 10, "%s", v.message);
	remove(f);
}

/* Sizes known before reading: a no-detail inputs replay whose one chunk
 * says 1 GiB (a sparse file, every byte of it there) is refused from the
 * chunk's head, its payload never read. */
TEST(replay_chunk_size_fixed_by_the_header_is_checked_first)
{
	const char *h = temp("nodetail"), *f = temp("sparse");
	fxs_record_options ro = { .scene = fxs_scene_find("drop"), .steps = 10, .seed = 3 };
	char err[256];
	CHECKF(fxs_replay_record(h, &ro, NULL, err, sizeof err) == FXS_REPLAY_OK, "%s", err);
	fxs_replay_reader r;
	CHECK(fxs_replay_open(&r, h) == FXS_REPLAY_OK);
	size_t hs = r.header_size;
	fxs_replay_close(&r);
	FILE *in = fopen(h, "rb"), *out = fopen(f, "wb");
	CHECK(in && out);
	uint8_t head[24];
	for (size_t k = 0; k < hs; ++k)
		fputc(fgetc(in), out);
	CHECK(fread(head, 1, sizeof head, in) == sizeof head);
	fclose(in);
	uint32_t plen = (1u << 30) - 8; /* legal for the format, not for 10 ticks of inputs */
	for (int k = 0; k < 4; ++k)
		head[20 + k] = (uint8_t)(plen >> (8 * k));
	CHECK(fwrite(head, 1, sizeof head, out) == sizeof head && fclose(out) == 0);
	CHECK(truncate(f, (off_t)(hs + sizeof head + plen + 8)) == 0);
	uint64_t t0 = test_now_ns();
	CHECK(fxs_replay_open(&r, f) == FXS_REPLAY_OK);
	fxs_replay_tick t;
	CHECK(!fxs_replay_next(&r, &t));
	CHECKF(r.status == FXS_REPLAY_CORRUPT && strstr(r.error, "payload bytes"), "%s", r.error);
	CHECKF(r.pos <= hs + sizeof head, "read %llu bytes", (unsigned long long)r.pos);
	CHECK(r.chunk_cap < (1u << 20));
	fxs_replay_close(&r);
	printf("      a 1 GiB chunk of a no-detail replay refused in %.3f ms\n", (double)(test_now_ns() - t0) / 1e6);
	remove(h);
	remove(f);
}
