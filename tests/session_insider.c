/* A session attacked by one of its own peers (session_insider.h). */
#include "session_insider.h"

#include <string.h>

#include "cli/scene_session.h"
#include "fixstep/input.h"
#include "session/join.h"
#include "session/protocol.h"
#include "session/sync.h"
#include "session_util.h"

#define NP 4
#define TICKS 160u
#define MAX_FRAMES 420u /* a script's frames, its tail included */
#define MAX_OPS 400u
#define TAIL_FRAMES 50u

static const uint8_t insider_key[FXS_SESSION_KEY_BYTES] = { 7, 1, 7, 2, 7, 3, 7, 4, 7, 5, 7, 6, 7, 7, 7, 8,
							    7, 9, 7, 10, 7, 11, 7, 12, 7, 13, 7, 14, 7, 15, 7, 16 };
static uint64_t insider_seed = 5;

typedef struct reader {
	const uint8_t *p;
	size_t n, at;
} reader;

/* the script's next byte; zeros once it is used up */
static uint8_t next8(reader *r) { return r->at < r->n ? r->p[r->at++] : 0; }
static uint32_t next16(reader *r) { return next8(r) | (uint32_t)next8(r) << 8; }
/* the next n bytes as a reader of their own */
static reader take(reader *r, size_t n)
{
	reader s = { r->p + r->at, r->n - r->at < n ? r->n - r->at : n, 0 };
	r->at += s.n;
	return s;
}

typedef struct run {
	fxs_session *s[NP];
	cli_scene_game g[NP];
	bool open[NP], paused[NP];
	fxs_simnet *net;
	fxs_session_mode mode;
	uint32_t input_delay;
	uint64_t frame;
	uint32_t seq_hint[NP][NP]; /* a sequence number for a forged frame when the real peer sends none */
	insider_stats *st;
} run;

static bool peer_open(run *r, uint32_t p, bool join)
{
	if (!cli_scene_game_open(&r->g[p], fxs_scene_find("box_stack"), 0))
		return false;
	fxs_session_config c = fxs_session_default_config();
	c.game = r->g[p].cb;
	c.input = cli_scene_script_input;
	c.input_ctx = &insider_seed;
	c.peers = NP;
	c.local = p;
	c.session_id = 0x1d5;
	c.mode = r->mode;
	c.input_delay = r->input_delay;
	c.ticks = TICKS;
	c.absent_ms = 300;
	c.join = join;
	memcpy(c.key, insider_key, sizeof c.key);
	r->s[p] = fxs_session_create(&c, NULL, 0);
	if (!r->s[p]) {
		cli_scene_game_close(&r->g[p]);
		return false;
	}
	r->open[p] = true;
	return true;
}

static void peer_close(run *r, uint32_t p)
{
	if (!r->open[p])
		return;
	fxs_session_destroy(r->s[p]);
	cli_scene_game_close(&r->g[p]);
	r->s[p] = NULL;
	r->open[p] = false;
}

/* one 16 ms frame of every peer that runs */
static void frame(run *r)
{
	uint8_t buf[FXS_SESSION_PACKET_MAX + 8];
	for (uint32_t p = 0; p < NP; ++p) {
		if (!r->open[p] || r->paused[p])
			continue;
		fxs_session *s = r->s[p];
		fxs_transport t = fxs_simnet_endpoint(r->net, p);
		size_t n;
		int from;
		while ((n = t.recv(t.ctx, buf, sizeof buf, &from)) > 0)
			fxs_session_receive(s, buf, n, from);
		fxs_session_set_time(s, r->frame * 16);
		fxs_session_advance(s, 2);
		session_send_all(s, t, NP);
		uint64_t tick = fxs_session_tick(s);
		if (r->st && tick > r->st->max_tick)
			r->st->max_tick = tick;
	}
	fxs_simnet_advance(r->net, 16);
	++r->frame;
	if (r->st)
		++r->st->frames;
}

/* A real packet's frame from `from` to `to` (its body in body, *blen), or
 * a made-up frame with a fresh sequence number when that peer sends none. */
static fxs_frame real_frame(run *r, uint32_t from, uint32_t to, uint8_t *body, size_t *blen)
{
	uint8_t buf[FXS_SESSION_PACKET_MAX], key[FXS_PKT_KEY_BYTES];
	fxs_frame f;
	const uint8_t *b;
	size_t n = 0;
	*blen = 0;
	if (r->open[from] && (n = fxs_session_packet_more(r->s[from], to, buf, sizeof buf)) == 0)
		n = fxs_session_packet(r->s[from], to, buf, sizeof buf);
	fxs_packet_key(insider_key, from, to, key);
	if (n && fxs_packet_frame(buf, n, &f) == FXS_DROP_NONE && fxs_packet_open(buf, n, key, &f, &b) == FXS_DROP_NONE) {
		memcpy(body, b, f.body_len);
		*blen = f.body_len;
		r->seq_hint[from][to] = f.seq;
		return f;
	}
	memset(&f, 0, sizeof f);
	f.type = FXS_PKT_DATA;
	f.from = (uint8_t)from;
	f.to = (uint8_t)to;
	f.session = 0x1d5;
	f.seq = ++r->seq_hint[from][to];
	return f;
}

/* the forged packet sealed with the direction's key and given to `to` */
static void deliver(run *r, fxs_frame f, const uint8_t *body, size_t blen)
{
	uint8_t buf[FXS_SESSION_PACKET_MAX], key[FXS_PKT_KEY_BYTES];
	if (!r->open[f.to] || blen > FXS_PKT_BODY_MAX)
		return;
	fxs_packet_key(insider_key, f.from, f.to, key);
	size_t n = fxs_packet_seal(&f, body, blen, key, buf, sizeof buf);
	if (!n)
		return;
	fxs_drop d = fxs_session_receive(r->s[f.to], buf, n, f.from);
	if (r->st) {
		++r->st->injected;
		++r->st->by_type[f.type & 15];
		if (d == FXS_DROP_NONE)
			++r->st->accepted;
		else if ((unsigned)d < FXS_DROP_REASONS)
			++r->st->dropped[d];
	}
	/* what the victim answers is read too */
	fxs_session_join_status js;
	fxs_session_join_get(r->s[f.to], &js);
	(void)fxs_session_desync_get(r->s[f.to]);
}

static void put32le(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; ++i)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* a packet type: mostly the session's own, sometimes any */
static uint8_t pick_type(uint8_t b)
{
	static const uint8_t types[] = { FXS_PKT_DATA, FXS_PKT_DESYNC, FXS_PKT_JOIN_XFER, FXS_PKT_ROSTER };
	return b < 224 ? types[b & 3] : (uint8_t)(b & 15);
}

bool insider_run(const uint8_t *script, size_t len, insider_stats *st)
{
	reader rd = { script, len, 0 };
	run r;
	memset(&r, 0, sizeof r);
	r.st = st;
	uint8_t head = next8(&rd);
	r.mode = head & 1 ? FXS_SESSION_LOCKSTEP : FXS_SESSION_ROLLBACK;
	r.input_delay = (head >> 1) & 3;
	fxs_impair imp = { 0, 0, 0, 0, 1 };
	if (!(r.net = fxs_simnet_create(NP, &imp)))
		return false;
	bool ok = true;
	/* peers 0-2 from the start; peer 3 joins when the script says */
	for (uint32_t p = 0; p < 3 && ok; ++p)
		ok = peer_open(&r, p, false);
	uint8_t body[FXS_PKT_BODY_MAX + 64];
	size_t blen;
	for (uint32_t ops = 0; ok && rd.at < rd.n && ops < MAX_OPS && r.frame + TAIL_FRAMES < MAX_FRAMES; ++ops) {
		/* an op: its kind, who attacks whom (peer 0 hosts every other
		 * peer), then INSIDER_OP_BYTES of its own (a forged body's bytes
		 * follow those) */
		uint8_t op = next8(&rd) % 8;
		static const uint8_t pairs[4][2] = { { 1, 0 }, { 3, 0 }, { 2, 1 }, { 0, 3 } };
		const uint8_t *pr = pairs[next8(&rd) & 3];
		uint32_t from = pr[0], to = pr[1];
		reader rc = take(&rd, INSIDER_OP_BYTES);
		switch (op) {
		case 0:
		case 1: /* time passes */
			for (uint32_t k = 1 + next8(&rc) % 16; k-- && r.frame + TAIL_FRAMES < MAX_FRAMES;)
				frame(&r);
			break;
		case 2: { /* a body of the script's bytes, of any type */
			fxs_frame f = real_frame(&r, from, to, body, &blen);
			f.type = pick_type(next8(&rc));
			blen = next16(&rc) % (FXS_PKT_BODY_MAX + 1);
			for (size_t i = 0; i < blen; ++i)
				body[i] = next8(&rd);
			deliver(&r, f, body, blen);
			break;
		}
		case 3: { /* a real body, bytes changed or cut */
			fxs_frame f = real_frame(&r, from, to, body, &blen);
			if (!blen)
				break;
			uint8_t how = next8(&rc);
			if (how & 1) {
				blen = next16(&rc) % blen;
			} else {
				for (uint32_t k = 1 + (how >> 1) % 4; k--;)
					body[next16(&rc) % blen] ^= (uint8_t)(next8(&rc) | 1);
			}
			if (how & 2)
				f.type = pick_type(next8(&rc));
			deliver(&r, f, body, blen);
			break;
		}
		case 4: { /* a roster message of the right shape, its fields near the session's ticks */
			fxs_frame f = real_frame(&r, from, to, body, &blen);
			f.type = FXS_PKT_ROSTER;
			uint64_t near = r.open[to] ? fxs_session_tick(r.s[to]) : 0;
			body[0] = (uint8_t)(1 + next8(&rc) % 9); /* join.c's ops, and one past */
			body[1] = (uint8_t)(next8(&rc) % (NP + 1));
			put32le(body + 2, next8(&rc) % 4); /* epoch */
			for (int k = 0; k < 8; ++k) {
				int32_t dt = (int8_t)next8(&rc);
				put32le(body + 6 + 4 * k, (uint32_t)((int64_t)near + dt < 0 ? 0 : (int64_t)near + dt));
			}
			static const uint8_t lens[] = { 6, 10, 11, 14, 26, 36, 38 }; /* (join.c's messages) */
			blen = lens[next8(&rc) % 7];
			if (blen == 36 || blen == 11) { /* reports and proxies carry inputs: n of them */
				uint8_t n = next8(&rc) % 6;
				body[blen == 36 ? 22 : 10] = n;
				size_t add = (size_t)n * FXS_INPUT_SIZE + (next8(&rc) % 4 == 0 ? next8(&rc) % 5 : 0);
				for (size_t i = 0; i < add && blen < FXS_PKT_BODY_MAX; ++i)
					body[blen++] = next8(&rc);
			}
			deliver(&r, f, body, blen);
			break;
		}
		case 5: { /* a peer stops running for a while, or runs again */
			uint32_t p = next8(&rc) % NP;
			r.paused[p] = !r.paused[p];
			if (st && r.paused[p])
				++st->pauses;
			break;
		}
		case 6: { /* a peer restarts and joins again */
			uint32_t p = next8(&rc) % NP;
			peer_close(&r, p);
			ok = peer_open(&r, p, true);
			r.paused[p] = false;
			if (st)
				++st->restarts;
			break;
		}
		default: /* the late joiner arrives */
			if (!r.open[3])
				ok = peer_open(&r, 3, true);
			break;
		}
	}
	/* everyone runs on for a while */
	for (uint32_t p = 0; p < NP; ++p)
		r.paused[p] = false;
	for (uint32_t k = 0; ok && k < TAIL_FRAMES; ++k)
		frame(&r);
	for (uint32_t p = 0; p < NP; ++p)
		peer_close(&r, p);
	fxs_simnet_destroy(r.net);
	return ok;
}

/* splitmix64 */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

size_t insider_script(uint64_t *rng, uint8_t *out, size_t cap)
{
	size_t n = 0;
	if (cap < 1)
		return 0;
	out[n++] = (uint8_t)rng_next(rng);
	for (int op = 0; op < 70 && n + 2 + INSIDER_OP_BYTES + 400 <= cap; ++op) {
		uint64_t x = rng_next(rng);
		unsigned w = (unsigned)(x % 100);
		uint8_t kind = w < 30 ? INSIDER_FRAMES : w < 55 ? INSIDER_ROSTER : w < 75 ? INSIDER_MUTATED
			     : w < 85 ? INSIDER_FORGED : w < 91 ? INSIDER_PAUSE : w < 94 ? INSIDER_RESTART
									    : INSIDER_JOIN;
		out[n++] = kind;
		out[n++] = (uint8_t)(x >> 8);
		for (uint32_t k = 0; k < INSIDER_OP_BYTES; ++k)
			out[n + k] = (uint8_t)rng_next(rng);
		uint32_t len = (uint32_t)(x >> 16) % 400; /* a forged body's bytes follow */
		if (kind == INSIDER_FORGED)
			out[n + 1] = (uint8_t)len, out[n + 2] = (uint8_t)(len >> 8);
		n += INSIDER_OP_BYTES;
		for (uint32_t k = 0; kind == INSIDER_FORGED && k < len; ++k)
			out[n++] = (uint8_t)rng_next(rng);
	}
	return n;
}
