/* Sessions: 4 peers over the seeded simulated network (loss, jitter,
 * duplication, reordering) agree with each other and with an offline run, in
 * lockstep and rollback; a perturbed peer is named at its tick and body;
 * garbage packets are counted, never crash; synctest on several scenes. */
#include <stdlib.h>
#include <string.h>

#include "replay_run.h"
#include "session/session.h"
#include "session/transport.h"
#include "test.h"

#define NP 4

typedef struct simrun {
	fxs_session *s[NP];
	fxs_simnet *net;
	uint64_t frames;
} simrun;

static uint64_t seed = 7;

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
		default: { /* inputs for player 3, signed by peer 1 (re-encoded, valid checksum) */
			fxs_packet p;
			CHECK(fxs_packet_decode(good, len, &p) == FXS_DROP_NONE);
			p.player = 3;
			p.seq += 100000;
			n = fxs_packet_encode(&p, buf, sizeof buf);
			break;
		}
		}
		uint64_t before = fxs_session_stats_get(r.s[0])->dropped_total;
		fxs_drop d = fxs_session_receive(r.s[0], buf, n, from);
		++injected;
		/* a bit flip can be accepted only when it changed nothing (impossible with the checksum) */
		CHECKF(d != FXS_DROP_NONE, "round %d kind %u accepted", round, (unsigned)(x % 7));
		CHECK(fxs_session_stats_get(r.s[0])->dropped_total == before + 1);
		fxs_session_advance(r.s[0], 1);
		fxs_session_advance(r.s[1], 1);
	}
	const fxs_session_stats *st = fxs_session_stats_get(r.s[0]);
	CHECK(st->dropped_total == injected);
	CHECK(st->dropped[FXS_DROP_SPOOFED] > 0 && st->dropped[FXS_DROP_NOT_OWNER] > 0 &&
	      st->dropped[FXS_DROP_REPLAYED] > 0 && st->dropped[FXS_DROP_TRUNCATED] > 0 &&
	      st->dropped[FXS_DROP_OVERSIZED] > 0 && st->dropped[FXS_DROP_CHECKSUM] > 0);
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
	uint8_t buf[FXS_PKT_MAX];
	size_t n = fxs_packet_encode(&p, buf, sizeof buf);
	CHECK(n == 52 + 36 + 16);
	CHECK(fxs_packet_decode(buf, n, &q) == FXS_DROP_NONE);
	CHECK(q.hashes[1] == p.hashes[1] && q.inputs[2].move_x == -7 && q.input_first == 5);
	for (size_t k = 0; k < n; ++k)
		CHECK(fxs_packet_decode(buf, k, &q) == FXS_DROP_TRUNCATED);
	p.n_inputs = FXS_PKT_MAX_INPUTS + 1;
	CHECK(fxs_packet_encode(&p, buf, sizeof buf) == 0);
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
