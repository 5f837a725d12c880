/* marbles: a small rollback game on fixstep, one process per peer over UDP.
 *
 * Two to four marbles roll on a walled floor among crates; each player
 * steers one with a stick and jumps. The game is its own: its world is
 * built here through the public API, its input is its own 3-byte struct,
 * and the session (fixstep/session.h) runs it with the ready callbacks
 * over an fxs_world, so the game writes only apply_inputs. Every peer
 * prints the final state hash; peers that agree print the same one.
 *
 *   marbles --peers 3 --local 0 --port 47000 --key-file session.key &
 *   marbles --peers 3 --local 1 --port 47000 --key-file session.key &
 *   marbles --peers 3 --local 2 --port 47000 --key-file session.key
 *
 * Peer k listens on 127.0.0.1:(port + k) unless --addrs lists every peer's
 * HOST:PORT or [IPV6]:PORT. The players steer themselves (each chases the
 * next marble), so the processes need no keyboard. --record FILE writes a
 * replay of the confirmed inputs (fixstep/replay.h) and verifies it. */
#define _POSIX_C_SOURCE 200809L
#include "fixstep/authoring.h"
#include "fixstep/fixstep.h"
#include "fixstep/replay.h"
#include "fixstep/session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PLAYERS 4
#define CRATES 6

/* ---- the game ---- */

/* One player's input for one tick, and its 3 bytes on the wire. */
typedef struct marble_input {
	int8_t stick_x, stick_z; /* -127..127 */
	uint8_t buttons;         /* bit 0: jump */
} marble_input;
enum { INPUT_BYTES = 3,
       BUTTON_JUMP = 1 };

static void input_write(const marble_input *in, uint8_t *out)
{
	out[0] = (uint8_t)in->stick_x;
	out[1] = (uint8_t)in->stick_z;
	out[2] = in->buttons;
}

static marble_input input_read(const uint8_t *b)
{
	marble_input in;
	/* any bytes are an input: a stick of -128 is clamped below */
	in.stick_x = (int8_t)(b[0] == 0x80 ? 0x81 : b[0]);
	in.stick_z = (int8_t)(b[1] == 0x80 ? 0x81 : b[1]);
	in.buttons = b[2];
	return in;
}

typedef struct game {
	fxs_world *world;
	uint32_t players;
	uint32_t marble_slot[MAX_PLAYERS]; /* the marbles' body slots (stable across snapshots) */
	uint64_t seed;
	uint64_t perturb;                   /* --perturb: after this tick, marble 0 moves by 1 LSB (a desync) */
	fxs_session_callbacks world_cb;     /* the session's ready callbacks over the world */
} game;

static fxs_body_id static_box(fxs_world *w, fix16_t x, fix16_t y, fix16_t z, fix16_t hx, fix16_t hy, fix16_t hz)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = FXS_BODY_STATIC;
	d.position = fxg_v3(x, y, z);
	d.shape.type = FXS_SHAPE_BOX;
	d.shape.half_extents = fxg_v3(hx, hy, hz);
	return fxs_body_create(w, &d);
}

/* The arena: a 16 m floor with walls, crates in the middle, a marble per
 * player at the corners. false when the world cannot be made. */
static bool game_build(game *g, uint32_t players)
{
	fxs_world_def wd = fxs_default_world_def();
	g->world = fxs_world_create(&wd);
	if (!g->world)
		return false;
	fxs_world *w = g->world;
	g->players = players;
	static_box(w, 0, -FXG_ONE, 0, FXG_I(8), FXG_ONE, FXG_I(8));
	static_box(w, FXG_I(8), FXG_ONE, 0, FXG_HALF, FXG_ONE, FXG_I(8));
	static_box(w, -FXG_I(8), FXG_ONE, 0, FXG_HALF, FXG_ONE, FXG_I(8));
	static_box(w, 0, FXG_ONE, FXG_I(8), FXG_I(8), FXG_ONE, FXG_HALF);
	static_box(w, 0, FXG_ONE, -FXG_I(8), FXG_I(8), FXG_ONE, FXG_HALF);
	for (int i = 0; i < CRATES; ++i) {
		fxs_body_def d = fxs_default_body_def();
		d.position = fxg_v3(FXG_I(i % 3 - 1) * 2, FXG_HALF + FXG_I(i / 3), FXG_I(i % 2));
		d.shape.type = FXS_SHAPE_BOX;
		d.shape.half_extents = fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF);
		if (!fxs_body_is_valid(w, fxs_body_create(w, &d)))
			return false;
	}
	static const int corner[MAX_PLAYERS][2] = { { -5, -5 }, { 5, 5 }, { 5, -5 }, { -5, 5 } };
	for (uint32_t p = 0; p < players; ++p) {
		fxs_body_def d = fxs_default_body_def(); /* a 0.5 m sphere */
		d.position = fxg_v3(FXG_I(corner[p][0]), FXG_HALF, FXG_I(corner[p][1]));
		fxs_body_id id = fxs_body_create(w, &d);
		if (!fxs_body_is_valid(w, id))
			return false;
		g->marble_slot[p] = fxs_world_slot_count(w) - 1;
	}
	return true;
}

/* The game's rules (the session's apply_inputs, and the replay's): a stick
 * accelerates its marble by up to 8 m/s^2 horizontally; jump adds 4 m/s
 * upwards when the marble is not already rising or falling fast. Integer
 * only; the units written with fixstep/authoring.h (a raw `stick * 8` would
 * be 8/65536 m/s). */
static fxs_result apply_inputs(fxs_world *w, uint64_t tick, const uint8_t *inputs, uint32_t players, void *ctx)
{
	const game *g = ctx;
	(void)tick;
	/* at full stick, 8 m/s^2 over one 60 Hz tick: 8/60 m/s a tick */
	const fix16_t full = fxs_q16_from_ratio(8, 60);
	for (uint32_t p = 0; p < players && p < g->players; ++p) {
		marble_input in = input_read(inputs + p * INPUT_BYTES);
		fxs_body_id id = fxs_world_body_at(w, g->marble_slot[p]);
		fxg_vec3 v = fxs_body_get_linear_velocity(w, id);
		v.x += fxs_q16_from_axis(in.stick_x, 127, full);
		v.z += fxs_q16_from_axis(in.stick_z, 127, full);
		if ((in.buttons & BUTTON_JUMP) && v.y < fxs_q16_from_milli(250) && v.y > fxs_q16_from_milli(-250))
			v.y += fxs_q16_from_int(4);
		fxs_result r = fxs_body_set_linear_velocity(w, id, v);
		if (r != FXS_OK)
			return r; /* not this game's world */
	}
	return FXS_OK;
}

/* The session's callbacks: the world's, with --perturb's desync on purpose
 * after its tick. */
static size_t game_state_size(void *ctx)
{
	game *g = ctx;
	return g->world_cb.state_size(g->world_cb.ctx);
}
static bool game_save(void *ctx, uint8_t *buf, size_t cap, size_t *len)
{
	game *g = ctx;
	return g->world_cb.save(g->world_cb.ctx, buf, cap, len);
}
static bool game_load(void *ctx, const uint8_t *buf, size_t len)
{
	game *g = ctx;
	return g->world_cb.load(g->world_cb.ctx, buf, len);
}
static uint64_t game_checksum(void *ctx)
{
	game *g = ctx;
	return g->world_cb.checksum(g->world_cb.ctx);
}
static bool game_advance(void *ctx, uint64_t tick, const uint8_t *inputs, uint32_t players)
{
	game *g = ctx;
	if (!g->world_cb.advance(g->world_cb.ctx, tick, inputs, players))
		return false;
	if (g->perturb == tick && g->players) {
		fxs_body_id id = fxs_world_body_at(g->world, g->marble_slot[0]);
		fxg_vec3 pos = fxs_body_get_position(g->world, id);
		pos.x += 1;
		fxs_body_set_transform(g->world, id, pos, fxs_body_get_rotation(g->world, id));
	}
	return true;
}

/* A player's stick: towards the next player's marble, with a jump now and
 * then. A local decision (the session sends what it returns). */
static void local_input(void *ctx, uint64_t tick, uint32_t player, uint8_t *out)
{
	const game *g = ctx;
	const fxs_world *w = g->world;
	fxg_vec3 me = fxs_body_get_position(w, fxs_world_body_at(w, g->marble_slot[player]));
	fxg_vec3 it = fxs_body_get_position(w, fxs_world_body_at(w, g->marble_slot[(player + 1) % g->players]));
	marble_input in = { 0, 0, 0 };
	int64_t dx = (int64_t)it.x - me.x, dz = (int64_t)it.z - me.z;
	in.stick_x = (int8_t)(dx > FXG_ONE ? 127 : dx < -FXG_ONE ? -127
								 : dx * 127 / FXG_ONE);
	in.stick_z = (int8_t)(dz > FXG_ONE ? 127 : dz < -FXG_ONE ? -127
								 : dz * 127 / FXG_ONE);
	uint64_t h = (tick / 20 + 1) * 0x9E3779B97F4A7C15ull ^ (player + 1) * 0xBF58476D1CE4E5B9ull ^ g->seed;
	if ((h >> 60) == 0)
		in.buttons |= BUTTON_JUMP;
	input_write(&in, out);
}

/* --record: the confirmed inputs simulated again from a new arena (the
 * session's start) into a replay, then verified from the start's hash as
 * another machine would: 0, or 1 after saying why. */
static int record(const fxs_session *s, uint32_t players, const char *path)
{
	game fresh;
	char err[256];
	memset(&fresh, 0, sizeof fresh);
	if (!game_build(&fresh, players)) {
		fprintf(stderr, "marbles: the world cannot be made\n");
		fxs_world_destroy(fresh.world);
		return 1;
	}
	/* the start, and the kind of replay this game makes: its inputs, its size, its players */
	fxs_replay_expect start = { .has_hash = true,
				    .hash = fxs_world_hash(fresh.world),
				    .modes = FXS_REPLAY_ACCEPT_INPUTS,
				    .input_size = INPUT_BYTES,
				    .players = players };
	uint64_t final = 0;
	fxs_replay_status st =
		fxs_session_write_replay(s, fresh.world, apply_inputs, &fresh, path, "marbles", &final, err, sizeof err);
	fxs_replay_verify_result vr;
	if (st == FXS_REPLAY_OK)
		fxs_replay_verify(path, &start, apply_inputs, &fresh, &vr); /* the same rules */
	fxs_world_destroy(fresh.world);
	if (st != FXS_REPLAY_OK) {
		fprintf(stderr, "marbles: cannot record %s: %s\n", path, err);
		return 1;
	}
	if (vr.status != FXS_REPLAY_OK || vr.final_hash != final) {
		fprintf(stderr, "marbles: the replay %s does not verify: %s\n", path, vr.message);
		return 1;
	}
	printf("replay %s: %" PRIu64 " ticks, verified, hash %016" PRIx64 "\n", path, vr.ticks, vr.final_hash);
	return 0;
}

/* ---- the command line ---- */

typedef struct options {
	uint32_t peers, local, port, ticks, tick_ms, spectators, timeout_ms;
	uint64_t perturb;
	const char *addrs, *bind, *desync_dir, *key_file, *record;
	fxs_impair imp;
	char addr[FXS_SESSION_MAX_PEERS][80];
	const char *addr_of[FXS_SESSION_MAX_PEERS];
} options;

static int usage(void)
{
	fprintf(stderr, "usage: marbles --peers N --local K --port BASE --key-file FILE [--addrs A,B,..] [--bind ADDR]\n"
			"               [--ticks T] [--tick-ms MS] [--spectators S] [--perturb TICK]\n"
			"               [--desync-dir DIR] [--loss P] [--jitter MS] [--timeout-ms MS] [--record FILE]\n");
	return 2;
}

static bool parse_u32(const char *s, uint32_t *out)
{
	char *end;
	errno = 0;
	unsigned long v = s ? strtoul(s, &end, 10) : 0;
	if (!s || !*s || *end || errno || v > 0xffffffffu || s[0] == '-')
		return false;
	*out = (uint32_t)v;
	return true;
}

static int parse(int argc, char **argv, options *o)
{
	memset(o, 0, sizeof *o);
	o->peers = 2, o->ticks = 600, o->tick_ms = 16, o->timeout_ms = 5000;
	bool has_port = false, has_local = false;
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint32_t n = 0;
		bool num = v && parse_u32(v, &n);
		if (!v)
			return usage();
		if (strcmp(a, "--peers") == 0 && num && n >= 1 && n <= MAX_PLAYERS + 4)
			o->peers = n;
		else if (strcmp(a, "--local") == 0 && num)
			o->local = n, has_local = true;
		else if (strcmp(a, "--port") == 0 && num && n >= 1 && n < 65000)
			o->port = n, has_port = true;
		else if (strcmp(a, "--ticks") == 0 && num && n >= 1)
			o->ticks = n;
		else if (strcmp(a, "--tick-ms") == 0 && num && n >= 1 && n <= 1000)
			o->tick_ms = n;
		else if (strcmp(a, "--spectators") == 0 && num)
			o->spectators = n;
		else if (strcmp(a, "--timeout-ms") == 0 && num && n >= 100)
			o->timeout_ms = n;
		else if (strcmp(a, "--perturb") == 0 && num && n >= 1)
			o->perturb = n;
		else if (strcmp(a, "--jitter") == 0 && num && n <= 10000)
			o->imp.jitter_ms = n;
		else if (strcmp(a, "--loss") == 0)
			o->imp.loss = atof(v);
		else if (strcmp(a, "--addrs") == 0)
			o->addrs = v;
		else if (strcmp(a, "--bind") == 0)
			o->bind = v;
		else if (strcmp(a, "--record") == 0)
			o->record = v;
		else if (strcmp(a, "--desync-dir") == 0)
			o->desync_dir = v;
		else if (strcmp(a, "--key-file") == 0)
			o->key_file = v;
		else {
			fprintf(stderr, "marbles: bad option or value: %s %s\n", a, v);
			return usage();
		}
	}
	uint32_t players = o->peers - (o->spectators < o->peers ? o->spectators : o->peers);
	if (!has_local || o->local >= o->peers || !o->key_file || (!has_port && !o->addrs) || players < 2 ||
	    players > MAX_PLAYERS || o->imp.loss < 0 || o->imp.loss > 1) {
		fprintf(stderr, "marbles: needs --local K < --peers, --key-file, --port or --addrs, 2..4 players\n");
		return usage();
	}
	if (o->addrs) {
		char list[2048];
		snprintf(list, sizeof list, "%s", o->addrs);
		uint32_t k = 0;
		for (char *t = strtok(list, ","); t && k < FXS_SESSION_MAX_PEERS; t = strtok(NULL, ","), ++k)
			snprintf(o->addr[k], sizeof o->addr[k], "%s", t);
		if (k != o->peers) {
			fprintf(stderr, "marbles: --addrs lists %u addresses for %u peers\n", k, o->peers);
			return 2;
		}
	} else {
		for (uint32_t k = 0; k < o->peers; ++k)
			snprintf(o->addr[k], sizeof o->addr[k], "127.0.0.1:%u", o->port + k);
	}
	for (uint32_t k = 0; k < o->peers; ++k)
		o->addr_of[k] = o->addr[k];
	if (!o->bind)
		o->bind = o->addr_of[o->local];
	o->imp.seed = 1000003u * (o->local + 1);
	return 0;
}

/* 32 bytes, or 64 hex digits: the session key the lobby gave every peer. */
static bool read_key(const char *path, uint8_t key[FXS_SESSION_KEY_BYTES])
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	uint8_t b[130];
	size_t n = fread(b, 1, sizeof b, f);
	fclose(f);
	if (n == FXS_SESSION_KEY_BYTES) {
		memcpy(key, b, n);
		return true;
	}
	for (size_t i = 0; i < FXS_SESSION_KEY_BYTES; ++i) {
		unsigned v;
		char hex[3] = { (char)b[2 * i], (char)b[2 * i + 1], 0 };
		if (n < 64 || sscanf(hex, "%2x", &v) != 1)
			return false;
		key[i] = (uint8_t)v;
	}
	return true;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Play until every peer is done (or a second after we are), a player's
 * peer falls silent, or a callback fails. Returns the silent peer, or -1. */
static int play(const options *o, fxs_session *s, fxs_udp *u)
{
	fxs_transport t = fxs_udp_transport(u);
	uint64_t complete_at = 0, now = now_ms();
	int silent = -1;
	for (;; now = now_ms()) {
		fxs_session_pump(s, &t, now, o->tick_ms); /* receive, simulate what is due, send */
		fxs_udp_flush(u);                         /* (the --loss/--jitter queue) */
		if (fxs_session_complete(s) && !complete_at)
			complete_at = now;
		if (fxs_session_all_done(s) || (complete_at && now - complete_at > 1000) ||
		    (silent = fxs_session_silent_peer(s, now, o->timeout_ms)) >= 0 || fxs_session_out_of_memory(s))
			break;
		struct timespec nap = { 0, 1000000 };
		nanosleep(&nap, NULL);
	}
	fxs_session_pump(s, &t, now + o->tick_ms, o->tick_ms); /* our last acknowledgements */
	fxs_udp_flush(u);
	return silent;
}

int main(int argc, char **argv)
{
	options o;
	if (parse(argc, argv, &o) != 0)
		return 2;
	uint32_t players = o.peers - o.spectators;
	game g;
	memset(&g, 0, sizeof g);
	g.seed = 7;
	if (!game_build(&g, players)) {
		fprintf(stderr, "marbles: the world cannot be made\n");
		return 1;
	}
	fxs_session_world gw = { .world = g.world, .apply_inputs = apply_inputs, .ctx = &g };
	g.perturb = o.perturb;
	g.world_cb = fxs_session_world_callbacks(&gw);
	fxs_session_config c = fxs_session_default_config();
	c.peers = o.peers;
	c.local = o.local;
	for (uint32_t k = 0; k < o.peers; ++k)
		c.players[k] = k < players ? 1 : 0; /* the last --spectators peers watch */
	c.input_size = INPUT_BYTES;
	c.mode = FXS_SESSION_ROLLBACK;
	c.ticks = o.ticks;
	c.game = (fxs_session_callbacks){ &g, game_state_size, game_save, game_load, game_advance, game_checksum,
					  FXS_SESSION_STATE_WORLD };
	c.input = local_input;
	c.input_ctx = &g;
	c.desync_dir = o.desync_dir;
	if (!read_key(o.key_file, c.key)) {
		fprintf(stderr, "marbles: %s: a session key is 32 bytes or 64 hex digits\n", o.key_file);
		return 2;
	}
	char err[256];
	fxs_udp *u = fxs_udp_open(o.bind, o.addr_of, o.peers, &o.imp, err, sizeof err);
	fxs_session *s = u ? fxs_session_create(&c, err, sizeof err) : NULL;
	memset(c.key, 0, sizeof c.key);
	if (!s) {
		fprintf(stderr, "marbles: %s\n", err);
		fxs_udp_close(u);
		fxs_world_destroy(g.world);
		return 1;
	}
	int silent = play(&o, s, u);
	const fxs_session_stats *st = fxs_session_stats_get(s);
	const fxs_session_desync *d = fxs_session_desync_get(s);
	int rc = 0;
	if (silent >= 0) {
		printf("marbles %u: peer %d fell silent at tick %" PRIu64 "\n", o.local, silent, fxs_session_tick(s));
		rc = 3;
	} else if (d->tick) {
		printf("marbles %u: desync at tick %" PRIu64 " with peer %u (ours %016" PRIx64 ", theirs %016" PRIx64 ")%s%s\n",
		       o.local, d->tick, d->peer, d->local_hash, d->remote_hash, d->snap_file[0] ? "; state in " : "",
		       d->snap_file);
		/* named with the other peer over the protocol: the same line on both */
		if (fxs_session_desync_line(s)[0])
			printf("marbles %u: %s\n", o.local, fxs_session_desync_line(s));
		rc = 4;
	} else if (!fxs_session_complete(s)) {
		printf("marbles %u: stopped at tick %" PRIu64 " (out of memory)\n", o.local, fxs_session_tick(s));
		rc = 5;
	}
	printf("marbles %u (%s): %" PRIu64 " ticks, %" PRIu64 " confirmed, %" PRIu64 " rollbacks, %" PRIu64
	       " packets, %" PRIu64 " dropped\n",
	       o.local, fxs_session_peer_players(s, o.local) ? "player" : "spectator", fxs_session_tick(s),
	       fxs_session_confirmed(s), st->rollbacks, st->packets_sent, st->dropped_total);
	if (o.record && rc == 0 && record(s, players, o.record) != 0)
		rc = 1;
	printf("final hash %016" PRIx64 "\n", fxs_session_hash(s, fxs_session_tick(s)));
	fxs_session_destroy(s);
	fxs_udp_close(u);
	fxs_world_destroy(g.world);
	return rc;
}
