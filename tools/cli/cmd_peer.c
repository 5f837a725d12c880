/* fixstep peer: one session peer over UDP (IPv4 or IPv6), a client of
 * the session library (fixstep/session.h) on a built-in scene. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/scene_session.h"
#include "fixstep/session.h"
#include "fixstep/replay.h"

#include <errno.h>
#include <inttypes.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(uint32_t ms)
{
	struct timespec ts = { 0, (long)ms * 1000000L };
	nanosleep(&ts, NULL);
}

static uint64_t now_ms(void) { return cli_now_ns() / 1000000u; }

/* The confirmed inputs' replay, simulated again from the scene's start
 * (the library's fxs_session_write_replay): true, or false with why in err. */
static bool record_confirmed(const fxs_session *s, const fxs_scene *sc, const char *path, uint64_t *final, char *err,
			     size_t n)
{
	fxs_world *w = sc->create();
	if (!w) {
		snprintf(err, n, "out of memory");
		return false;
	}
	fxs_replay_status st =
		fxs_session_write_replay(s, w, cli_scene_apply, (void *)(uintptr_t)sc, path, sc->name, final, err, n);
	fxs_world_destroy(w);
	return st == FXS_REPLAY_OK;
}

/* A session key from a file: 32 bytes, or 64 hex digits (and white space
 * after them). false with why in err. */
static bool read_key_file(const char *path, uint8_t key[FXS_SESSION_KEY_BYTES], char *err, size_t n)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, n, "%s: %s", path, strerror(errno));
		return false;
	}
	uint8_t b[160];
	size_t len = fread(b, 1, sizeof b, f);
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		snprintf(err, n, "%s: cannot read it", path);
		return false;
	}
	if (len == FXS_SESSION_KEY_BYTES) {
		memcpy(key, b, FXS_SESSION_KEY_BYTES);
		return true;
	}
	while (len && (b[len - 1] == '\n' || b[len - 1] == '\r' || b[len - 1] == ' ' || b[len - 1] == '\t'))
		--len;
	char hex[2 * FXS_SESSION_KEY_BYTES + 1];
	if (len == 2 * FXS_SESSION_KEY_BYTES) {
		memcpy(hex, b, len);
		hex[len] = 0;
		if (cli_parse_hex(hex, key, FXS_SESSION_KEY_BYTES))
			return true;
	}
	snprintf(err, n, "%s: a session key is 32 bytes, or 64 hex digits", path);
	return false;
}

typedef struct peer_options {
	uint32_t port, player, ticks, delay, tick_ms, timeout_ms, session_id, perturb, max_rb;
	uint32_t absent_ms; /* --absent-ms: late join and reconnect */
	bool join;
	uint64_t seed; /* the session's input_ctx points here */
	const char *peers_arg, *scene_name, *record, *desync_dir, *bind, *players_arg;
	uint8_t key[FXS_SESSION_KEY_BYTES];
	bool has_key;
	const fxs_scene *sc;
	fxs_session_mode mode;
	fxs_impair imp;
	bool has_port, has_player;
	/* --players: players of each peer (0: a spectator), and in all */
	uint8_t owned[FXS_SESSION_MAX_PEERS];
	uint32_t total;
	/* --peers in player order */
	uint32_t np;
	char addr_buf[FXS_SESSION_MAX_PEERS][80];
	const char *addrs[FXS_SESSION_MAX_PEERS];
	uint16_t ports[FXS_SESSION_MAX_PEERS];
	char bind_buf[80];
} peer_options;

/* How the session ended: the peer that fell silent (-1: none), and the
 * status word and exit status of the result line. */
typedef struct peer_end {
	int vanished, rc;
	const char *status;
} peer_end;

static int peer_usage(void)
{
	printf("usage: fixstep peer --port P --peers HOST:PORT,... --player K [--scene S] [--ticks N]\n"
	       "                    [--bind HOST:PORT] [--players N,N,...]\n"
	       "                    [--mode lockstep|rollback] [--input-delay D] [--perturb-at T]\n"
	       "                    [--seed S] [--session ID] [--tick-ms MS] [--timeout-ms MS]\n"
	       "                    [--max-rollback R] [--loss P] [--jitter MS] [--dup P]\n"
	       "                    [--record FILE] [--desync-dir DIR] [--absent-ms MS] [--join on]\n"
	       "                    (--key-file FILE | --key HEX)\n\n"
	       "Runs one peer of a session over UDP, IPv4 or IPv6. --peers lists every peer\n"
	       "in player order, this one included (entry K is ours and has port P), each\n"
	       "HOST:PORT or [IPV6]:PORT; peer K owns player K. The socket binds entry K's\n"
	       "address, or --bind's (0.0.0.0:P, [::]:P for every interface); a datagram\n"
	       "counts only from the address and port of the peer it claims to come from.\n"
	       "--players lists how many players each peer owns, in peer order (default one\n"
	       "each; 0: a spectator, which plays the confirmed inputs and sends none);\n"
	       "player numbers follow peer order. Local inputs are the seeded script\n"
	       "(fxs_inputs_random of --seed, player K). One tick every --tick-ms (default 16).\n"
	       "  --mode lockstep      wait for every input of a tick (default)\n"
	       "  --mode rollback      predict, roll back and re-simulate (--max-rollback, default 8)\n"
	       "  --perturb-at T       move the first dynamic body by 1 LSB after tick T (a desync)\n"
	       "  --loss/--jitter/--dup seeded impairments in front of sendto\n"
	       "  --record FILE        write a replay of the confirmed inputs (fixstep verify)\n"
	       "  --desync-dir DIR     on a desync write the tick's per-body hashes and snapshot\n"
	       "  --absent-ms MS       a peer silent this long is absent: its inputs are neutral\n"
	       "                       until it rejoins (the same on every peer; no 'vanished')\n"
	       "  --join on            join the session in progress (late, or after a restart)\n"
	       "  --key-file FILE      the session key the game's lobby gave every peer: 32 bytes,\n"
	       "                       or 64 hex digits (--key HEX: the same on the command line,\n"
	       "                       where other users of the machine can read it)\n"
	       "Every packet carries a MAC made with the session key (libsodium's crypto_auth);\n"
	       "one that fails it, repeats a sequence number or jumps too far ahead changes\n"
	       "nothing and is counted by reason ('dropped:' line).\n"
	       "A peer silent for --timeout-ms (default 3000) is reported as vanished; exit 3.\n"
	       "Exit 4 on a desync, 5 out of memory, 1 when --record cannot be written (checked\n"
	       "before the session starts, with the system's reason). Last line:\n"
	       "'result key=value ...'.\n");
	return 0;
}

/* The numeric options (a then has its value v): CLI_GO, or 2 after a bad
 * value's error; NOT_NUMERIC for any other option. */
#define NOT_NUMERIC (-2)
static int peer_number(const char *a, const char *v, peer_options *o)
{
	if (strcmp(a, "--port") == 0) {
		if (!cli_parse_u32(v, &o->port) || o->port < 1 || o->port > 65535)
			return cli_usage_error("--port needs 1..65535");
		o->has_port = true;
	} else if (strcmp(a, "--player") == 0) {
		if (!cli_parse_u32(v, &o->player))
			return cli_usage_error("--player needs a number");
		o->has_player = true;
	} else if (strcmp(a, "--ticks") == 0) {
		if (!cli_parse_u32(v, &o->ticks) || o->ticks < 1 || o->ticks > 1000000)
			return cli_usage_error("--ticks needs 1..1000000");
	} else if (strcmp(a, "--input-delay") == 0) {
		if (!cli_parse_u32(v, &o->delay) || o->delay > 60)
			return cli_usage_error("--input-delay needs 0..60");
	} else if (strcmp(a, "--perturb-at") == 0) {
		if (!cli_parse_u32(v, &o->perturb) || o->perturb < 1)
			return cli_usage_error("--perturb-at needs a tick >= 1");
	} else if (strcmp(a, "--seed") == 0) {
		uint32_t s32;
		if (!cli_parse_u32(v, &s32))
			return cli_usage_error("--seed needs a number");
		o->seed = s32;
	} else if (strcmp(a, "--session") == 0) {
		if (!cli_parse_u32(v, &o->session_id))
			return cli_usage_error("--session needs a number");
	} else if (strcmp(a, "--tick-ms") == 0) {
		if (!cli_parse_u32(v, &o->tick_ms) || o->tick_ms < 1 || o->tick_ms > 1000)
			return cli_usage_error("--tick-ms needs 1..1000");
	} else if (strcmp(a, "--timeout-ms") == 0) {
		if (!cli_parse_u32(v, &o->timeout_ms) || o->timeout_ms < 100)
			return cli_usage_error("--timeout-ms needs >= 100");
	} else if (strcmp(a, "--absent-ms") == 0) {
		if (!cli_parse_u32(v, &o->absent_ms) || o->absent_ms < 100)
			return cli_usage_error("--absent-ms needs >= 100");
	} else if (strcmp(a, "--max-rollback") == 0) {
		if (!cli_parse_u32(v, &o->max_rb) || o->max_rb < 1 || o->max_rb > FXS_SESSION_MAX_ROLLBACK)
			return cli_usage_error("--max-rollback needs 1..%u", FXS_SESSION_MAX_ROLLBACK);
	} else {
		return NOT_NUMERIC;
	}
	return CLI_GO;
}

/* Every other option (a with its value v): CLI_GO, or 2 after the error. */
static int peer_option(const char *a, const char *v, peer_options *o)
{
	int rc = peer_number(a, v, o);
	if (rc != NOT_NUMERIC)
		return rc;
	if (strcmp(a, "--peers") == 0) {
		o->peers_arg = v;
	} else if (strcmp(a, "--scene") == 0) {
		o->scene_name = v;
	} else if (strcmp(a, "--mode") == 0) {
		if (strcmp(v, "lockstep") == 0)
			o->mode = FXS_SESSION_LOCKSTEP;
		else if (strcmp(v, "rollback") == 0)
			o->mode = FXS_SESSION_ROLLBACK;
		else
			return cli_usage_error("--mode is lockstep or rollback");
	} else if (strcmp(a, "--loss") == 0) {
		if (!cli_parse_prob(v, &o->imp.loss))
			return cli_usage_error("--loss needs a probability 0..1");
	} else if (strcmp(a, "--dup") == 0) {
		if (!cli_parse_prob(v, &o->imp.dup))
			return cli_usage_error("--dup needs a probability 0..1");
	} else if (strcmp(a, "--jitter") == 0) {
		if (!cli_parse_u32(v, &o->imp.jitter_ms) || o->imp.jitter_ms > 10000)
			return cli_usage_error("--jitter needs 0..10000 ms");
	} else if (strcmp(a, "--record") == 0 && v[0]) {
		o->record = v;
	} else if (strcmp(a, "--players") == 0) {
		o->players_arg = v;
	} else if (strcmp(a, "--bind") == 0) {
		o->bind = v;
	} else if (strcmp(a, "--desync-dir") == 0) {
		o->desync_dir = v;
	} else if (strcmp(a, "--join") == 0) {
		if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
			return cli_usage_error("--join is on or off");
		o->join = strcmp(v, "on") == 0;
	} else if (strcmp(a, "--key") == 0) {
		if (!cli_parse_hex(v, o->key, FXS_SESSION_KEY_BYTES))
			return cli_usage_error("--key needs 64 hex digits (32 bytes)");
		o->has_key = true;
	} else if (strcmp(a, "--key-file") == 0) {
		char err[300];
		if (!read_key_file(v, o->key, err, sizeof err))
			return cli_usage_error("--key-file %s", err);
		o->has_key = true;
	} else if (strcmp(a, "--record") == 0 && !v[0]) {
		return cli_usage_error("--record needs a file name");
	} else {
		return cli_usage_error("peer: unknown argument '%s'", a);
	}
	return CLI_GO;
}

/* --peers HOST:PORT,... ([V6]:PORT too) into o->addrs and o->ports
 * ("localhost" as 127.0.0.1): CLI_GO, or 2 after the error. */
static int peer_split_peers(peer_options *o)
{
	char list[1024];
	if (strlen(o->peers_arg) >= sizeof list)
		return cli_usage_error("--peers too long");
	strcpy(list, o->peers_arg);
	o->np = 0;
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		char *colon = strrchr(tok, ':');
		uint32_t pp;
		if (o->np >= FXS_SESSION_MAX_PEERS || !colon || colon - tok >= 64 || !cli_parse_u32(colon + 1, &pp) ||
		    pp < 1 || pp > 65535)
			return cli_usage_error("--peers: 'HOST:PORT,...' with at most %d peers", FXS_SESSION_MAX_PEERS);
		*colon = 0;
		snprintf(o->addr_buf[o->np], sizeof o->addr_buf[o->np], "%s:%u",
			 strcmp(tok, "localhost") == 0 ? "127.0.0.1" : tok, pp);
		o->addrs[o->np] = o->addr_buf[o->np];
		o->ports[o->np++] = (uint16_t)pp;
	}
	return CLI_GO;
}

/* --players N,N,... (one per peer; default one each) into o->owned and
 * o->total: CLI_GO, or 2 after the error. */
static int peer_split_players(peer_options *o)
{
	o->total = 0;
	if (!o->players_arg) {
		for (uint32_t k = 0; k < o->np; ++k)
			o->owned[k] = 1;
		o->total = o->np;
		return CLI_GO;
	}
	char list[512];
	snprintf(list, sizeof list, "%s", o->players_arg);
	uint32_t k = 0;
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","), ++k) {
		uint32_t n;
		if (k >= o->np || !cli_parse_u32(tok, &n) || n > FXS_MAX_PLAYERS)
			return cli_usage_error("--players: one count per peer of --peers (0..%d)", FXS_MAX_PLAYERS);
		o->owned[k] = (uint8_t)n;
		o->total += n;
	}
	if (k != o->np || o->total < 1 || o->total > FXS_MAX_PLAYERS)
		return cli_usage_error("--players: one count per peer of --peers, 1..%d players in all", FXS_MAX_PLAYERS);
	return CLI_GO;
}

static int peer_parse(int argc, char **argv, peer_options *o)
{
	memset(o, 0, sizeof *o);
	o->ticks = 600, o->tick_ms = 16, o->timeout_ms = 3000, o->session_id = 1, o->max_rb = 8, o->seed = 1;
	o->scene_name = "school";
	o->mode = FXS_SESSION_LOCKSTEP;
	for (int i = 1; i < argc; i += 2) { /* every option has a value */
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--help") == 0)
			return peer_usage();
		if (strncmp(a, "--", 2) == 0 && !v)
			return cli_usage_error("%s needs a value", a);
		int rc = peer_option(a, v, o);
		if (rc != CLI_GO)
			return rc;
	}
	if (!o->has_port || !o->peers_arg || !o->has_player)
		return cli_usage_error("peer needs --port, --peers and --player");
	if (!o->has_key)
		return cli_usage_error("peer needs the session key: --key-file FILE (32 bytes from the game's lobby) or --key HEX");
	if (!(o->sc = cli_scene(o->scene_name)))
		return 2;
	int rc = peer_split_peers(o);
	if (rc != CLI_GO)
		return rc;
	if (o->np < 2 || o->player >= o->np)
		return cli_usage_error("--player %u but --peers lists %u peers (2 or more, this one included)", o->player,
				       o->np);
	if ((rc = peer_split_players(o)) != CLI_GO)
		return rc;
	if (o->ports[o->player] != o->port)
		return cli_usage_error("--peers entry %u has port %u, but --port is %u", o->player, o->ports[o->player],
				       o->port);
	o->imp.seed = o->seed * 1000003u + o->player;
	if (!o->bind)
		o->bind = o->addrs[o->player];
	return CLI_GO;
}

/* This peer's packet to every other (an empty one is not sent). */
static void send_packets(fxs_session *s, const fxs_transport *t, uint32_t np)
{
	uint8_t buf[FXS_SESSION_PACKET_MAX];
	for (uint32_t q = 0; q < np; ++q) {
		size_t len = fxs_session_packet(s, q, buf, sizeof buf);
		if (len)
			t->send(t->ctx, q, buf, len);
		while ((len = fxs_session_packet_more(s, q, buf, sizeof buf)) > 0) /* desync naming */
			t->send(t->ctx, q, buf, len);
	}
}

/* The session on the game g (NULL after the error): o->key stays, for a
 * session started again (cmd_peer). */
static fxs_session *peer_session(peer_options *o, cli_scene_game *g)
{
	char err[256];
	fxs_session_config c = fxs_session_default_config();
	c.game = g->cb;
	c.input = cli_scene_script_input;
	c.input_size = FXS_INPUT_SIZE;
	c.peers = o->np;
	memcpy(c.players, o->owned, sizeof o->owned);
	c.local = o->player;
	c.session_id = o->session_id;
	c.mode = o->mode;
	c.ticks = o->ticks;
	c.input_delay = o->delay;
	c.max_rollback = o->max_rb;
	c.input_ctx = &o->seed;
	c.desync_dir = o->desync_dir;
	c.absent_ms = o->absent_ms;
	c.join = o->join;
	memcpy(c.key, o->key, sizeof c.key);
	fxs_session *s = fxs_session_create(&c, err, sizeof err);
	sodium_memzero(c.key, sizeof c.key);
	if (!s)
		fprintf(stderr, "fixstep: %s\n", err);
	return s;
}

/* The socket and the session (and --record's file, written now so that a
 * path that cannot be is said before the session): 0, or 1 after the error. */
static int peer_open(peer_options *o, fxs_udp **u, fxs_session **s, cli_scene_game *g)
{
	char err[256];
	if (o->record) {
		FILE *f = fopen(o->record, "wb");
		if (!f || fclose(f) != 0) {
			fprintf(stderr, "fixstep: peer %u: cannot write --record %s: %s\n", o->player, o->record, strerror(errno));
			return 1;
		}
	}
	*u = fxs_udp_open(o->bind, o->addrs, o->np, &o->imp, err, sizeof err);
	if (!*u) {
		fprintf(stderr, "fixstep: %s\n", err);
		return 1;
	}
	if (!cli_scene_game_open(g, o->sc, o->perturb)) {
		fxs_udp_close(*u);
		fprintf(stderr, "fixstep: scene '%s' could not be created\n", o->sc->name);
		return 1;
	}
	if (!(*s = peer_session(o, g))) {
		sodium_memzero(o->key, sizeof o->key);
		fxs_udp_close(*u);
		cli_scene_game_close(g);
		return 1;
	}
	return 0;
}

/* The connection events of the session (and of the ones before it when it
 * started again), by type (printed at the end). */
static uint32_t peer_events[16];

/* Plays the session, one tick every tick_ms, until every peer is done (or
 * a second after we are), a peer falls silent, or memory runs out; then a
 * last round of packets so the others hold our acknowledgements. The peer
 * that fell silent, or -1. */
static int peer_play(const peer_options *o, fxs_session *s, fxs_udp *u)
{
	fxs_transport t = fxs_udp_transport(u);
	uint64_t start = now_ms(), next_send = start, complete_at = 0;
	uint64_t last_heard[FXS_SESSION_MAX_PEERS], seen[FXS_SESSION_MAX_PEERS] = { 0 };
	for (uint32_t q = 0; q < o->np; ++q)
		last_heard[q] = start;
	int vanished = -1;
	bool rebased = false;
	uint64_t pace0 = start; /* tick t is due at pace0 + (t - 1) tick_ms */
	uint8_t buf[FXS_SESSION_PACKET_MAX + 1];
	for (;;) {
		uint64_t now = now_ms();
		size_t n;
		int from;
		fxs_session_set_time(s, now - start); /* first: what comes now is heard now */
		while ((n = t.recv(t.ctx, buf, sizeof buf, &from)) > 0)
			fxs_session_receive(s, buf, n, from);
		for (uint32_t q = 0; q < o->np; ++q)
			if (fxs_session_peer_packets(s, q) != seen[q])
				seen[q] = fxs_session_peer_packets(s, q), last_heard[q] = now;
		uint64_t due = (now - pace0) / o->tick_ms + 1;
		uint64_t cur = fxs_session_tick(s);
		if (o->join) { /* a joiner catches up with the state it got, then keeps the pace from there */
			fxs_session_join_status js;
			fxs_session_join_get(s, &js);
			if (js.loaded && !js.return_tick)
				due = cur + 2;
			else if (js.return_tick && !rebased)
				pace0 = now - cur * o->tick_ms, rebased = true;
		}
		fxs_session_advance(s, due > cur ? (due - cur > 2 ? 2 : (uint32_t)(due - cur)) : 0);
		/* time sync: a peer that runs ahead of the others waits for them */
		pace0 += (uint64_t)fxs_session_skip_ticks(s) * o->tick_ms;
		fxs_session_event ev;
		while (fxs_session_event_poll(s, &ev))
			if ((unsigned)ev.type < sizeof peer_events / sizeof peer_events[0])
				++peer_events[ev.type];
		if (now >= next_send) {
			send_packets(s, &t, o->np);
			next_send = now + o->tick_ms;
		}
		fxs_udp_flush(u);
		if (fxs_session_complete(s)) {
			if (!complete_at)
				complete_at = now;
			int all = 1;
			for (uint32_t q = 0; q < o->np; ++q)
				all &= q == o->player || fxs_session_peer_done(s, q);
			if (all || now - complete_at > 1000)
				break;
		}
		for (uint32_t q = 0; q < o->np && vanished < 0; ++q)
			if (q != o->player && o->owned[q] && !fxs_session_peer_done(s, q) && !o->absent_ms &&
			    now - last_heard[q] > o->timeout_ms)
				vanished = (int)q;
		if (vanished >= 0 || fxs_session_out_of_memory(s))
			break;
		fxs_session_join_status js;
		if (fxs_session_join_get(s, &js) && js.dropped)
			return -2; /* declared absent while running: the caller starts again with --join on */
		sleep_ms(1);
	}
	send_packets(s, &t, o->np);
	fxs_udp_flush(u);
	return vanished;
}

/* Why the session stopped, when it is not a clean end: a line saying so. */
static peer_end peer_report_end(const peer_options *o, const fxs_session *s, int vanished)
{
	peer_end e = { vanished, 0, "ok" };
	const fxs_session_desync *d = fxs_session_desync_get(s);
	fxs_session_join_status js;
	if (o->join && fxs_session_join_get(s, &js))
		printf("peer %u: joined with the state and inputs up to tick %" PRIu64 "; own inputs from tick %" PRIu64
		       "\n",
		       o->player, js.state_tick, js.return_tick);
	if (vanished >= 0) {
		printf("peer %u: peer %d vanished (nothing for %u ms) at tick %" PRIu64 "; stopping\n", o->player, vanished,
		       o->timeout_ms, fxs_session_tick(s));
		e.status = "vanished", e.rc = 3;
	} else if (d->tick) {
		printf("peer %u: DESYNC at tick %" PRIu64 " with peer %u (ours %016" PRIx64 ", theirs %016" PRIx64 ")%s%s\n",
		       o->player, d->tick, d->peer, d->local_hash, d->remote_hash, d->body_file[0] ? "; body hashes in " : "",
		       d->body_file);
		if (fxs_session_desync_line(s)[0]) /* named with the other peer, over the protocol */
			printf("peer %u: %s\n", o->player, fxs_session_desync_line(s));
		e.status = "desync", e.rc = 4;
	} else if (fxs_session_out_of_memory(s)) {
		printf("peer %u: out of memory at tick %" PRIu64 "; stopping\n", o->player, fxs_session_tick(s));
		e.status = "nomem", e.rc = 5;
	}
	return e;
}

/* --record: the confirmed inputs' replay, when every tick was confirmed;
 * 1 when it ends on the session's hash, 0 when not (said on stderr), -1
 * when not asked for or not all confirmed. */
static int peer_record(const peer_options *o, const fxs_session *s)
{
	if (!o->record || fxs_session_confirmed(s) != o->ticks)
		return -1;
	uint64_t rec_hash = 0;
	char err[256];
	if (!record_confirmed(s, o->sc, o->record, &rec_hash, err, sizeof err)) {
		fprintf(stderr, "fixstep: peer %u: cannot record %s: %s\n", o->player, o->record, err);
		return 0;
	}
	if (rec_hash != fxs_session_hash(s, o->ticks)) {
		fprintf(stderr, "fixstep: peer %u: the replay %s re-simulates to %016" PRIx64 ", the session ended on %016" PRIx64 "\n",
			o->player, o->record, rec_hash, fxs_session_hash(s, o->ticks));
		return 0;
	}
	return 1;
}

/* The last line, 'result key=value ...', and the dropped packets by reason. */
static void peer_report_result(const peer_options *o, const fxs_session *s, const peer_end *e, int rec_ok)
{
	const fxs_session_stats *st = fxs_session_stats_get(s);
	const fxs_session_desync *d = fxs_session_desync_get(s);
	uint64_t dropped = st->dropped_total;
	printf("result peer=%u status=%s mode=%s scene=%s ticks=%" PRIu64 " confirmed=%" PRIu64 " rollbacks=%" PRIu64
	       " deepest=%" PRIu64 " resimulated=%" PRIu64 " mispredictions=%" PRIu64 " packets=%" PRIu64
	       " bytes=%" PRIu64 " received=%" PRIu64 " dropped=%" PRIu64 " hash=%016" PRIx64 " desync_tick=%" PRIu64
	       " desync_peer=%u snap=%s record=%d vanished=%d\n",
	       o->player, e->status, o->mode == FXS_SESSION_ROLLBACK ? "rollback" : "lockstep", o->sc->name,
	       fxs_session_tick(s), fxs_session_confirmed(s), st->rollbacks, st->deepest_rollback, st->resimulated,
	       st->mispredictions, st->packets_sent, st->bytes_sent, st->packets_received, dropped,
	       fxs_session_hash(s, fxs_session_tick(s)), d->tick, d->peer, d->snap_file[0] ? d->snap_file : "-", rec_ok,
	       e->vanished);
	printf("events:");
	for (int k = 1; k < 16; ++k)
		if (peer_events[k])
			printf(" %s=%u", fxs_session_event_name((fxs_session_event_type)k), peer_events[k]);
	printf(" (stalls=%" PRIu64 " waited=%" PRIu64 ")\n", st->stalls, fxs_session_ticks_waited(s));
	if (dropped) {
		printf("dropped:");
		for (int r = 1; r < FXS_DROP_REASONS; ++r)
			if (st->dropped[r])
				printf(" %s=%" PRIu64, fxs_drop_name((fxs_drop)r), st->dropped[r]);
		printf("\n");
	}
	fflush(stdout);
}

int cmd_peer(int argc, char **argv)
{
	peer_options o;
	fxs_udp *u;
	fxs_session *s;
	cli_scene_game g;
	int rc = peer_parse(argc, argv, &o);
	if (rc != CLI_GO || (rc = peer_open(&o, &u, &s, &g)) != 0)
		return rc;
	int played;
	while ((played = peer_play(&o, s, u)) == -2) {
		/* the others declared us absent (our packets were late, not gone):
		 * what a restarted process does, on the same socket: a new game
		 * and session that join the one in progress */
		printf("peer %u: declared absent by the others at tick %" PRIu64 "; joining again\n", o.player,
		       fxs_session_tick(s));
		fflush(stdout);
		fxs_session_destroy(s);
		cli_scene_game_close(&g);
		o.join = true;
		if (!cli_scene_game_open(&g, o.sc, o.perturb) || !(s = peer_session(&o, &g))) {
			fprintf(stderr, "fixstep: peer %u: cannot start again\n", o.player);
			fxs_udp_close(u);
			sodium_memzero(o.key, sizeof o.key);
			return 1;
		}
	}
	sodium_memzero(o.key, sizeof o.key);
	peer_end e = peer_report_end(&o, s, played);
	int rec_ok = peer_record(&o, s);
	if (rec_ok == 0 && e.rc == 0)
		e.status = "record_failed", e.rc = 1;
	peer_report_result(&o, s, &e, rec_ok);
	fxs_session_destroy(s);
	cli_scene_game_close(&g);
	fxs_udp_close(u);
	return e.rc;
}
