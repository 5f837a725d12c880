/* Sessions: 4 peers over the seeded simulated network (loss, jitter,
 * duplication, reordering) agree with each other and with an offline run, in
 * lockstep and rollback; a perturbed peer is named at its tick and body;
 * garbage packets are counted, never crash; synctest on several scenes. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "replay_run.h"
#include "session/session.h"
#include "session/synctest.h"
#include "session/transport.h"
#include "test.h"

#define NP 4

typedef struct simrun {
	fxs_session *s[NP];
	fxs_simnet *net;
	uint64_t frames;
} simrun;

static uint64_t seed = 7;

/* the session key every peer of the tests gets (a lobby's would be random) */
static const uint8_t test_key[FXS_SESSION_KEY_BYTES] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
							 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
							 23, 24, 25, 26, 27, 28, 29, 30, 31, 32 };

/* A datagram's fields with the key of its direction (from -> to), for the
 * tests that make packets of their own. */
static bool open_packet(const uint8_t *buf, size_t len, fxs_packet *p)
{
	uint32_t from, to;
	uint8_t key[FXS_PKT_KEY_BYTES];
	if (fxs_packet_frame(buf, len, &from, &to) != FXS_DROP_NONE)
		return false;
	fxs_packet_key(test_key, from, to, key);
	return fxs_packet_open(buf, len, key, p) == FXS_DROP_NONE;
}

/* p encoded with the key of its direction, or with `key` when not NULL */
static size_t seal_packet(const fxs_packet *p, const uint8_t *key, uint8_t *out, size_t cap)
{
	uint8_t k[FXS_PKT_KEY_BYTES];
	fxs_packet_key(test_key, p->from, p->to, k);
	return fxs_packet_encode(p, key ? key : k, out, cap);
}

static int simrun_open(simrun *r, const char *scene, fxs_session_mode mode, uint32_t ticks, uint32_t delay,
		       uint64_t perturb_tick, uint32_t perturb_peer, const fxs_impair *imp)
{
	memset(r, 0, sizeof *r);
	r->net = fxs_simnet_create(NP, imp);
	char err[128];
	for (uint32_t p = 0; p < NP; ++p) {
		fxs_session_config c = { 0 };
		c.scene = fxs_scene_find(scene);
		c.peers = NP;
		c.local = p;
		c.session_id = 0xabcd;
		c.mode = mode;
		c.ticks = ticks;
		c.input_delay = delay;
		c.perturb_tick = p == perturb_peer ? perturb_tick : 0;
		c.input_ctx = &seed;
		memcpy(c.key, test_key, sizeof c.key);
		r->s[p] = fxs_session_create(&c, err, sizeof err);
		if (!r->s[p])
			return 0;
	}
	return r->net != NULL;
}

static void simrun_close(simrun *r)
{
	for (uint32_t p = 0; p < NP; ++p)
		fxs_session_destroy(r->s[p]);
	fxs_simnet_destroy(r->net);
}

/* 16 ms frames: receive, advance (up to 2 ticks to catch up), send to all */
static int simrun_go(simrun *r, uint64_t max_frames)
{
	uint8_t buf[2048];
	for (r->frames = 0; r->frames < max_frames; ++r->frames) {
		int all = 1;
		for (uint32_t p = 0; p < NP; ++p) {
			fxs_transport t = fxs_simnet_endpoint(r->net, p);
			size_t n;
			int from;
			while ((n = t.recv(t.ctx, buf, sizeof buf, &from)) > 0)
				fxs_session_receive(r->s[p], buf, n, from);
			fxs_session_advance(r->s[p], fxs_session_tick(r->s[p]) < r->frames ? 2 : 1);
			for (uint32_t q = 0; q < NP; ++q) {
				size_t len = fxs_session_packet(r->s[p], q, buf, sizeof buf);
				if (len)
					t.send(t.ctx, q, buf, len);
			}
			all &= fxs_session_complete(r->s[p]);
		}
		if (all)
			return 1;
		fxs_simnet_advance(r->net, 16);
	}
	return 0;
}

static uint64_t offline_hash(const char *scene, uint32_t ticks, uint32_t delay)
{
	const fxs_scene *sc = fxs_scene_find(scene);
	fxs_world *w = sc->create();
	fxs_input in[FXS_MAX_PLAYERS];
	for (uint64_t t = 1; t <= ticks; ++t) {
		for (uint32_t p = 0; p < NP; ++p)
			in[p] = t <= delay ? fxs_input_neutral() : fxs_session_script_input(t - delay, p, &seed);
		sc->apply_inputs(w, in, NP, t);
		fxs_world_step(w);
	}
	uint64_t h = fxs_world_hash(w);
	fxs_world_destroy(w);
	return h;
}

static void converge(fxs_session_mode mode, uint32_t delay)
{
	uint32_t ticks = test_quick ? 600 : 3600;
	fxs_impair imp = { 0.10, 0.05, 0, 60, 1234 };
	simrun r;
	CHECK(simrun_open(&r, "school", mode, ticks, delay, 0, 0, &imp));
	int ok = simrun_go(&r, (uint64_t)ticks * 4 + 1000);
	uint64_t want = offline_hash("school", ticks, delay);
	fxs_simnet_stats ns = fxs_simnet_stats_get(r.net);
	int good = ok && ns.lost > 0 && ns.duplicated > 0;
	uint64_t rollbacks = 0;
	for (uint32_t p = 0; p < NP; ++p) {
		const fxs_session_stats *st = fxs_session_stats_get(r.s[p]);
		good = good && fxs_session_tick(r.s[p]) == ticks && fxs_session_hash(r.s[p], ticks) == want &&
			fxs_session_desync_get(r.s[p])->tick == 0 && st->dropped[FXS_DROP_REPLAYED] > 0;
		rollbacks += st->rollbacks;
	}
	if (mode == FXS_SESSION_ROLLBACK)
		good = good && rollbacks > 0;
	else
		good = good && rollbacks == 0;
	uint64_t h0 = fxs_session_hash(r.s[0], ticks);
	simrun_close(&r);
	CHECKF(good, "ok %d final %016" PRIx64 " offline %016" PRIx64 " rollbacks %" PRIu64, ok, h0, want, rollbacks);
}

SLOW_TEST(session_lockstep_converges_under_loss) { converge(FXS_SESSION_LOCKSTEP, 0); }
SLOW_TEST(session_lockstep_input_delay_converges) { converge(FXS_SESSION_LOCKSTEP, 3); }
SLOW_TEST(session_rollback_converges_under_loss) { converge(FXS_SESSION_ROLLBACK, 0); }
SLOW_TEST(session_rollback_input_delay_converges) { converge(FXS_SESSION_ROLLBACK, 2); }

static void perturbed(fxs_session_mode mode)
{
	const uint64_t T = 100;
	fxs_impair imp = { 0.10, 0.05, 0, 60, 99 };
	simrun r;
	CHECK(simrun_open(&r, "pendulum", mode, 300, 0, T, 2, &imp));
	simrun_go(&r, 2000);
	/* everyone sees the desync at T: peer 2 against the others, the others against peer 2 */
	for (uint32_t p = 0; p < NP; ++p) {
		const fxs_session_desync *d = fxs_session_desync_get(r.s[p]);
		CHECKF(d->tick == T && (p == 2 || d->peer == 2), "peer %u desync tick %" PRIu64 " peer %u", p, d->tick,
		       d->peer);
		CHECK(d->have_state);
	}
	const fxs_session_desync *a = fxs_session_desync_get(r.s[0]), *b = fxs_session_desync_get(r.s[2]);
	char msg[256];
	CHECK(fxs_session_compare_snapshots(a->snapshot, a->snapshot_len, b->snapshot, b->snapshot_len, msg, sizeof msg));
	char want[64];
	snprintf(want, sizeof want, "body %u ", fxs_session_perturb_slot(r.s[2]));
	CHECKF(strstr(msg, want) == msg && strstr(msg, "field p.x"), "%s (want %s)", msg, want);
	simrun_close(&r);
}

TEST(session_perturbed_peer_named_lockstep) { perturbed(FXS_SESSION_LOCKSTEP); }
TEST(session_perturbed_peer_named_rollback) { perturbed(FXS_SESSION_ROLLBACK); }

/* Garbage against a running session: random bytes, mutated real packets,
 * truncations, spoofed sources, another player's inputs, replays. */
TEST(session_bad_packets_counted)
{
	fxs_impair imp = { 0, 0, 0, 0, 1 };
	simrun r;
	CHECK(simrun_open(&r, "pendulum", FXS_SESSION_ROLLBACK, 200, 0, 0, 0, &imp));
	uint64_t rng = 42;
	uint8_t buf[2048], good[2048];
	uint64_t injected = 0;
	for (int round = 0; round < 400; ++round) {
		/* a real packet from peer 1 to peer 0, then attacks on it */
		size_t len = fxs_session_packet(r.s[1], 0, good, sizeof good);
		CHECK(len > 0);
		uint64_t x = test_rng_next(&rng);
		size_t n;
		int from = 1;
		switch (x % 7) {
		case 0: /* random bytes */
			n = (size_t)(test_rng_next(&rng) % 1500);
			for (size_t i = 0; i < n; ++i)
				buf[i] = (uint8_t)test_rng_next(&rng);
			if (n >= 4 && (x >> 8) % 2) /* sometimes with the right magic */
				memcpy(buf, good, 4);
			break;
		case 1: /* one flipped bit */
			memcpy(buf, good, len);
			n = len;
			buf[(x >> 8) % len] ^= (uint8_t)(1u << ((x >> 20) % 8));
			break;
		case 2: /* truncated */
			n = (size_t)((x >> 8) % len);
			memcpy(buf, good, n);
			break;
		case 3: /* oversized */
			memcpy(buf, good, len);
			n = len + 1 + (size_t)((x >> 8) % 1200);
			memset(buf + len, 0xaa, n - len);
			break;
		case 4: /* spoofed: a real packet from an address that is not peer 1 */
			memcpy(buf, good, len);
			n = len;
			from = (x >> 8) % 2 ? -1 : 3;
			break;
		case 5: /* replayed: send it once for real first */
			fxs_session_receive(r.s[0], good, len, 1);
			memcpy(buf, good, len);
			n = len;
			break;
		default: { /* inputs for player 3, sent by peer 1 (with its key: an insider) */
			fxs_packet p;
			CHECK(open_packet(good, len, &p));
			p.player = 3;
			p.seq += 1;
			n = seal_packet(&p, NULL, buf, sizeof buf);
			break;
		}
		}
		uint64_t before = fxs_session_stats_get(r.s[0])->dropped_total;
		fxs_drop d = fxs_session_receive(r.s[0], buf, n, from);
		++injected;
		/* a bit flip can be accepted only when it changed nothing (impossible with the MAC) */
		CHECKF(d != FXS_DROP_NONE, "round %d kind %u accepted", round, (unsigned)(x % 7));
		CHECK(fxs_session_stats_get(r.s[0])->dropped_total == before + 1);
		fxs_session_advance(r.s[0], 1);
		fxs_session_advance(r.s[1], 1);
	}
	const fxs_session_stats *st = fxs_session_stats_get(r.s[0]);
	CHECK(st->dropped_total == injected);
	CHECK(st->dropped[FXS_DROP_SPOOFED] > 0 && st->dropped[FXS_DROP_NOT_OWNER] > 0 &&
	      st->dropped[FXS_DROP_REPLAYED] > 0 && st->dropped[FXS_DROP_TRUNCATED] > 0 &&
	      st->dropped[FXS_DROP_OVERSIZED] > 0 && st->dropped[FXS_DROP_MAC] > 0);
	/* and the session still runs to the end with honest traffic */
	CHECK(simrun_go(&r, 2000));
	CHECK(fxs_session_hash(r.s[0], 200) == offline_hash("pendulum", 200, 0));
	simrun_close(&r);
}

TEST(session_packet_round_trip_and_bounds)
{
	fxs_packet p, q;
	memset(&p, 0, sizeof p);
	p.type = FXS_PKT_DATA;
	p.from = 1;
	p.n_inputs = 3;
	p.n_hashes = 2;
	p.input_first = 5;
	p.hashes[1] = 0x0123456789abcdefull;
	p.inputs[2].move_x = -7;
	uint8_t buf[FXS_PKT_MAX], key[FXS_PKT_KEY_BYTES], other[FXS_PKT_KEY_BYTES];
	fxs_packet_key(test_key, 1, 0, key);
	fxs_packet_key(test_key, 0, 1, other);
	CHECK(memcmp(key, other, sizeof key) != 0); /* each direction its own key */
	size_t n = fxs_packet_encode(&p, key, buf, sizeof buf);
	CHECK(n == 44 + 36 + 16 + 32);
	uint32_t from, to;
	CHECK(fxs_packet_frame(buf, n, &from, &to) == FXS_DROP_NONE && from == 1 && to == 0);
	CHECK(fxs_packet_open(buf, n, key, &q) == FXS_DROP_NONE);
	CHECK(q.hashes[1] == p.hashes[1] && q.inputs[2].move_x == -7 && q.input_first == 5);
	CHECK(fxs_packet_open(buf, n, other, &q) == FXS_DROP_MAC);
	for (size_t k = 0; k < n; ++k)
		CHECK(fxs_packet_frame(buf, k, &from, &to) == FXS_DROP_TRUNCATED);
	for (size_t bit = 0; bit < n * 8; ++bit) { /* every bit is covered by the MAC */
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		fxs_drop d = fxs_packet_frame(buf, n, &from, &to);
		CHECK(d != FXS_DROP_NONE || fxs_packet_open(buf, n, key, &q) == FXS_DROP_MAC);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	p.n_inputs = FXS_PKT_MAX_INPUTS + 1;
	CHECK(fxs_packet_encode(&p, key, buf, sizeof buf) == 0);
}

SLOW_TEST(session_synctest_scenes)
{
	/* contact scenes too: rollback restores them exactly since sleeping
	 * bodies' broadphase boxes are made from the state */
	const char *scenes[] = { "pendulum", "drop", "joint_grid_10", "box_stack", "shapes", "mesh_level", "school" };
	uint32_t ticks = test_quick ? 60 : 240;
	for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) {
		fxs_synctest_result res;
		char err[256] = "";
		const fxs_scene *sc = fxs_scene_find(scenes[i]);
		CHECK(sc);
		CHECKF(fxs_synctest(sc, 4, ticks, 8, 3, &res, err, sizeof err), "%s", err);
		CHECK(res.rollbacks == ticks && res.resimulated > ticks);
		fxs_world *w = sc->create();
		fxs_input in[FXS_MAX_PLAYERS];
		for (uint64_t t = 1; t <= ticks; ++t) {
			fxs_inputs_random(3, t, 4, in);
			sc->apply_inputs(w, in, 4, t);
			fxs_world_step(w);
		}
		uint64_t want = fxs_world_hash(w);
		fxs_world_destroy(w);
		CHECK(res.final_hash == want);
	}
}

/* ---- a session under forged packets ---- */

/* The attacks, each counted with the reason it must be dropped for. */
typedef struct attack_counts {
	uint64_t mac, window, replayed, spoofed;
} attack_counts;

/* Attacks on peer `to`, as if from peer `from`, made from a genuine packet
 * `good` that went out just before (its fields all valid) and `old`, one
 * that went out 100 frames ago: the same packet with every field valid but
 * the MAC (made with another key); the reported packet (sequence number
 * 2^32 - 1) without the key and, as an insider could make it, with it; the
 * old packet again; the genuine one from another address. */
static void attack(fxs_session *s, const uint8_t *good, size_t len, const uint8_t *old, size_t old_len, int from,
		   attack_counts *want)
{
	static const uint8_t wrong[FXS_PKT_KEY_BYTES] = { 0xde, 0xad, 0xbe, 0xef };
	uint8_t buf[FXS_PKT_MAX];
	fxs_packet p;
	if (!open_packet(good, len, &p))
		return;
	size_t n = seal_packet(&p, wrong, buf, sizeof buf); /* every field valid but the MAC */
	want->mac += fxs_session_receive(s, buf, n, from) == FXS_DROP_MAC;
	p.seq = UINT32_MAX;
	n = seal_packet(&p, wrong, buf, sizeof buf);
	want->mac += fxs_session_receive(s, buf, n, from) == FXS_DROP_MAC;
	n = seal_packet(&p, NULL, buf, sizeof buf);
	want->window += fxs_session_receive(s, buf, n, from) == FXS_DROP_WINDOW;
	if (old) /* an old packet with its valid MAC */
		want->replayed += fxs_session_receive(s, old, old_len, from) == FXS_DROP_REPLAYED;
	want->spoofed += fxs_session_receive(s, good, len, -1) == FXS_DROP_SPOOFED;
}

/* Four peers over the simulated network (jitter, no loss or duplication,
 * so every drop is an attack's); every frame every peer gets the attacks
 * above from every other. Every one is dropped for its reason (and counted
 * so), and all four finish on the hash of an offline run. */
static void under_attack(fxs_session_mode mode)
{
	const uint32_t ticks = test_quick ? 150 : 400;
	fxs_impair imp = { 0, 0, 0, 40, 5 };
	simrun r;
	CHECK(simrun_open(&r, "school", mode, ticks, 0, 0, 0, &imp));
	enum { HISTORY = 100 };
	static uint8_t hist[HISTORY][NP][NP][FXS_PKT_MAX];
	static size_t hist_len[HISTORY][NP][NP];
	memset(hist_len, 0, sizeof hist_len);
	attack_counts want[NP] = { { 0 } };
	uint8_t buf[FXS_PKT_MAX];
	bool all = false;
	for (r.frames = 0; r.frames < (uint64_t)ticks * 4 + 1000 && !all; ++r.frames) {
		all = true;
		uint32_t h = (uint32_t)(r.frames % HISTORY);
		for (uint32_t p = 0; p < NP; ++p) {
			fxs_transport t = fxs_simnet_endpoint(r.net, p);
			size_t n;
			int from;
			while ((n = t.recv(t.ctx, buf, sizeof buf, &from)) > 0)
				fxs_session_receive(r.s[p], buf, n, from);
			fxs_session_advance(r.s[p], fxs_session_tick(r.s[p]) < r.frames ? 2 : 1);
			for (uint32_t q = 0; q < NP; ++q) {
				size_t len = fxs_session_packet(r.s[p], q, buf, sizeof buf);
				if (!len)
					continue;
				t.send(t.ctx, q, buf, len);
				/* the genuine packet p -> q, and an old one, against q */
				const uint8_t *old = r.frames >= HISTORY && hist_len[h][p][q] ? hist[h][p][q] : NULL;
				attack(r.s[q], buf, len, old, hist_len[h][p][q], (int)p, &want[q]);
				memcpy(hist[h][p][q], buf, len);
				hist_len[h][p][q] = len;
			}
			all = all && fxs_session_complete(r.s[p]);
		}
		fxs_simnet_advance(r.net, 16);
	}
	uint64_t clean = offline_hash("school", ticks, 0);
	for (uint32_t p = 0; p < NP; ++p) {
		const fxs_session_stats *st = fxs_session_stats_get(r.s[p]);
		CHECKF(fxs_session_complete(r.s[p]) && fxs_session_tick(r.s[p]) == ticks, "peer %u did not finish: tick %" PRIu64, p,
		       fxs_session_tick(r.s[p]));
		CHECKF(fxs_session_hash(r.s[p], ticks) == clean && fxs_session_desync_get(r.s[p])->tick == 0,
		       "peer %u ends on %016" PRIx64 ", the clean run on %016" PRIx64, p, fxs_session_hash(r.s[p], ticks), clean);
		/* every attack was dropped for its reason, and nothing else was */
		CHECKF(st->dropped[FXS_DROP_MAC] == want[p].mac && st->dropped[FXS_DROP_WINDOW] == want[p].window &&
			       st->dropped[FXS_DROP_REPLAYED] == want[p].replayed && st->dropped[FXS_DROP_SPOOFED] == want[p].spoofed &&
			       st->dropped_total == want[p].mac + want[p].window + want[p].replayed + want[p].spoofed,
		       "peer %u: bad_mac %" PRIu64 "/%" PRIu64 ", out_of_window %" PRIu64 "/%" PRIu64 ", replayed %" PRIu64 "/%" PRIu64
		       ", spoofed %" PRIu64 "/%" PRIu64 ", total %" PRIu64,
		       p, st->dropped[FXS_DROP_MAC], want[p].mac, st->dropped[FXS_DROP_WINDOW], want[p].window,
		       st->dropped[FXS_DROP_REPLAYED], want[p].replayed, st->dropped[FXS_DROP_SPOOFED], want[p].spoofed,
		       st->dropped_total);
		CHECK(want[p].mac > 2 * ticks && want[p].window > ticks && want[p].replayed > ticks && want[p].spoofed > ticks);
	}
	const fxs_session_stats *st0 = fxs_session_stats_get(r.s[0]);
	printf("      peer 0 dropped %" PRIu64 " bad_mac, %" PRIu64 " out_of_window, %" PRIu64 " replayed, %" PRIu64
	       " spoofed, and accepted %" PRIu64 "\n",
	       st0->dropped[FXS_DROP_MAC], st0->dropped[FXS_DROP_WINDOW], st0->dropped[FXS_DROP_REPLAYED],
	       st0->dropped[FXS_DROP_SPOOFED], st0->packets_accepted);
	simrun_close(&r);
}

TEST(session_lockstep_survives_forged_packets) { under_attack(FXS_SESSION_LOCKSTEP); }
TEST(session_rollback_survives_forged_packets) { under_attack(FXS_SESSION_ROLLBACK); }

/* A session without its key, or with a zero one, is refused; one peer's
 * packets do not open with another session's key. */
TEST(session_needs_its_key)
{
	fxs_session_config c = { 0 };
	c.scene = fxs_scene_find("pendulum");
	c.peers = 2;
	c.ticks = 10;
	char err[200] = "";
	CHECK(fxs_session_create(&c, err, sizeof err) == NULL && strstr(err, "key"));
	memcpy(c.key, test_key, sizeof c.key);
	fxs_session *a = fxs_session_create(&c, err, sizeof err);
	c.local = 1;
	c.key[31] ^= 1; /* another session's key */
	fxs_session *b = fxs_session_create(&c, err, sizeof err);
	CHECK(a && b);
	uint8_t buf[FXS_PKT_MAX];
	fxs_session_advance(a, 1);
	size_t n = fxs_session_packet(a, 1, buf, sizeof buf);
	CHECK(n > 0 && fxs_session_receive(b, buf, n, 0) == FXS_DROP_MAC);
	fxs_session_destroy(a);
	fxs_session_destroy(b);
}

/* The report's attack on real sockets: two peers over UDP on 127.0.0.1,
 * and packets sent to peer 0 from peer 1's own socket (the real peer's
 * source address, as a spoofer's would have): every field valid but the
 * MAC, sequence number 2^32 - 1 with no key and with the key, old packets
 * again; and the same from a stranger's socket. Both peers finish on the
 * clean hash; every attack is dropped for one of those reasons. */
TEST(session_udp_survives_forged_packets)
{
	const uint32_t ticks = 200;
	fxs_udp *u[2] = { NULL, NULL }, *stranger = NULL;
	const char *hosts[3] = { "127.0.0.1", "127.0.0.1", "127.0.0.1" };
	uint16_t ports[3];
	char err[200];
	for (int attempt = 0; attempt < 20 && !stranger; ++attempt) {
		uint16_t base = (uint16_t)(30000 + (uint32_t)((getpid() * 7 + attempt * 131) % 9000) * 3);
		for (int k = 0; k < 3; ++k)
			ports[k] = (uint16_t)(base + k);
		u[0] = fxs_udp_open(ports[0], hosts, ports, 2, NULL, err, sizeof err);
		u[1] = u[0] ? fxs_udp_open(ports[1], hosts, ports, 2, NULL, err, sizeof err) : NULL;
		stranger = u[1] ? fxs_udp_open(ports[2], hosts, ports, 2, NULL, err, sizeof err) : NULL;
		if (!stranger)
			fxs_udp_close(u[0]), fxs_udp_close(u[1]), u[0] = u[1] = NULL;
	}
	CHECKF(stranger, "no free ports: %s", err);
	fxs_session *s[2];
	for (uint32_t p = 0; p < 2; ++p) {
		fxs_session_config c = { 0 };
		c.scene = fxs_scene_find("pendulum");
		c.peers = 2;
		c.local = p;
		c.session_id = 1; /* the default of `fixstep peer`, as in the report */
		c.ticks = ticks;
		c.input_ctx = &seed;
		memcpy(c.key, test_key, sizeof c.key);
		s[p] = fxs_session_create(&c, err, sizeof err);
		CHECK(s[p]);
	}
	fxs_transport t[2] = { fxs_udp_transport(u[0]), fxs_udp_transport(u[1]) }, ts = fxs_udp_transport(stranger);
	static const uint8_t wrong[FXS_PKT_KEY_BYTES] = { 7 };
	uint8_t buf[FXS_PKT_MAX], old[64][FXS_PKT_MAX];
	size_t old_len[64] = { 0 };
	uint64_t sent_attacks = 0, t0 = test_now_ns();
	bool done = false;
	for (uint64_t i = 0; !done && test_now_ns() - t0 < 30000000000ull; ++i) {
		done = true;
		for (uint32_t p = 0; p < 2; ++p) {
			size_t n;
			int from;
			while ((n = t[p].recv(t[p].ctx, buf, sizeof buf, &from)) > 0)
				fxs_session_receive(s[p], buf, n, from);
			fxs_session_advance(s[p], 1);
			size_t len = fxs_session_packet(s[p], 1 - p, buf, sizeof buf);
			if (len)
				t[p].send(t[p].ctx, 1 - p, buf, len);
			if (p == 1 && len) { /* the genuine 1 -> 0 packet: the attacks on peer 0 from it */
				fxs_packet pk;
				CHECK(open_packet(buf, len, &pk));
				uint8_t a[FXS_PKT_MAX];
				size_t an = seal_packet(&pk, wrong, a, sizeof a);
				t[1].send(t[1].ctx, 0, a, an), ts.send(ts.ctx, 0, a, an);
				pk.seq = UINT32_MAX;
				an = seal_packet(&pk, wrong, a, sizeof a);
				t[1].send(t[1].ctx, 0, a, an), ts.send(ts.ctx, 0, a, an);
				an = seal_packet(&pk, NULL, a, sizeof a);
				t[1].send(t[1].ctx, 0, a, an);
				if (old_len[(i + 1) % 64])
					t[1].send(t[1].ctx, 0, old[(i + 1) % 64], old_len[(i + 1) % 64]);
				ts.send(ts.ctx, 0, buf, len); /* a genuine packet from a stranger's address */
				memcpy(old[i % 64], buf, len), old_len[i % 64] = len;
				sent_attacks += 7;
			}
			done = done && fxs_session_complete(s[p]);
		}
		struct timespec nap = { 0, 200000 };
		nanosleep(&nap, NULL);
	}
	uint64_t clean = 0;
	{
		const fxs_scene *sc = fxs_scene_find("pendulum");
		fxs_world *w = sc->create();
		fxs_input in[FXS_MAX_PLAYERS];
		for (uint64_t k = 1; k <= ticks; ++k) {
			for (uint32_t p = 0; p < 2; ++p)
				in[p] = fxs_session_script_input(k, p, &seed);
			sc->apply_inputs(w, in, 2, k);
			fxs_world_step(w);
		}
		clean = fxs_world_hash(w);
		fxs_world_destroy(w);
	}
	const fxs_session_stats *st = fxs_session_stats_get(s[0]);
	uint64_t counted = st->dropped[FXS_DROP_MAC] + st->dropped[FXS_DROP_WINDOW] + st->dropped[FXS_DROP_REPLAYED] +
		st->dropped[FXS_DROP_SPOOFED];
	printf("      UDP: %" PRIu64 " attack datagrams sent to peer 0; it dropped %" PRIu64 " bad_mac, %" PRIu64
	       " out_of_window, %" PRIu64 " replayed, %" PRIu64 " spoofed\n",
	       sent_attacks, st->dropped[FXS_DROP_MAC], st->dropped[FXS_DROP_WINDOW], st->dropped[FXS_DROP_REPLAYED],
	       st->dropped[FXS_DROP_SPOOFED]);
	bool ok = done && fxs_session_hash(s[0], ticks) == clean && fxs_session_hash(s[1], ticks) == clean &&
		fxs_session_desync_get(s[0])->tick == 0 && counted == st->dropped_total && st->dropped[FXS_DROP_MAC] > 0 &&
		st->dropped[FXS_DROP_WINDOW] > 0 && st->dropped[FXS_DROP_REPLAYED] > 0 && st->dropped[FXS_DROP_SPOOFED] > 0;
	uint64_t h0 = fxs_session_hash(s[0], fxs_session_tick(s[0])), total = st->dropped_total;
	fxs_session_destroy(s[0]);
	fxs_session_destroy(s[1]);
	fxs_udp_close(u[0]);
	fxs_udp_close(u[1]);
	fxs_udp_close(stranger);
	CHECKF(ok, "done %d, peer 0 at %016" PRIx64 ", clean %016" PRIx64 ", %" PRIu64 " of %" PRIu64 " drops counted", done, h0,
	       clean, counted, total);
}
