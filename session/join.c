/* Late join and reconnect (join.h). */
#include "session/join.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/xfer.h"
#include "session/le.h"

#define JOIN_PURPOSE 3u
#define JOIN_MAGIC 0x4a535846u /* "FXSJ" */
#define RESEND_MS 64u          /* roster messages again after this */
#define REQ_MS 250u            /* a joiner asks again after this */
#define CATCHUP_BACK 30u       /* a join's state is this many ticks before the host's confirmed tick */
#define VOUCH_WAIT_MS 2000u    /* a peer that has not vouched for a join's state by then is not waited for */
#define JOIN_ALIVE_MS 2000u    /* without absent_ms: an absent peer not heard for this long is not waited for */
#define REPORT_HEAD 36u        /* a report's bytes before its inputs */

enum { P_PRESENT = 0,
       P_FROZEN,
       P_PROXIED,
       P_BACK };
enum { OP_ABSENT = 1,
       OP_REPORT,
       OP_PROXY,
       OP_JOIN_REQ,
       OP_READY,
       OP_JOINED,
       OP_VOUCH_REQ,
       OP_VOUCH };
enum { DUE_ABSENT = 1,
       DUE_REPORT = 2,
       DUE_PROXY = 4,
       DUE_JOINED = 8,
       DUE_REQ = 16,
       DUE_READY = 32,
       DUE_VOUCH_REQ = 64,
       DUE_VOUCH = 128 };

/* What this peer knows of peer j as an absentee. */
typedef struct jpeer {
	uint32_t epoch;
	uint8_t phase;
	/* j's host: the peer that declared j's absence, or the one that took
	 * its place when it was itself declared absent (UINT32_MAX: never
	 * absent yet, the lowest player peer in) */
	uint32_t host;
	uint64_t frozen_c, M, R, C;
	/* the host's M (from its reports) and whose reports it counted */
	bool m_told;
	uint64_t m_host, m_from;
	uint64_t hash_cap; /* j absent: its checksums compared up to here only */
	uint8_t rep_have[FXS_SESSION_MAX_PEERS];
	uint64_t rep_frozen[FXS_SESSION_MAX_PEERS], rep_now[FXS_SESSION_MAX_PEERS], rep_R[FXS_SESSION_MAX_PEERS];
	uint64_t last_heard;
	bool heard; /* a packet since the last frame: heard at that frame's time */
	/* the host's */
	uint64_t proxy_gen, A;
	bool wants, ready;
	bool holds; /* j holds a state (of C), maybe another host's: no blob for it */
	fxs_xfer_sender tx;
	uint64_t last_sent[FXS_SESSION_MAX_PEERS]; /* per destination: when roster news went */
	uint64_t vouch_T, vouch_C; /* j joins: the ticks it asked us to vouch for */
	/* we join: what peer j said of the state we were offered */
	uint8_t vouched; /* 0: nothing yet, 1: its confirmed checksums match */
} jpeer;

struct fxs_join {
	jpeer p[FXS_SESSION_MAX_PEERS];
	uint8_t due[FXS_SESSION_MAX_PEERS][FXS_SESSION_MAX_PEERS]; /* [to][j] */
	uint64_t now;
	/* this peer as a joiner */
	bool joining, loaded, dropped;
	uint32_t epoch;
	uint64_t base, M, R, last_req, last_ready;
	fxs_xfer_receiver rx;
	uint32_t absences; /* declared by us as a host */
	/* we join: the state offered, held until the other peers vouch for it */
	uint8_t *offer;
	size_t offer_len;
	uint64_t offer_T, offer_C, offer_hT, offer_hC, offer_at, last_vouch_req;
	uint32_t refusals, vouchers;
	char refused[200];
	uint32_t asked; /* the host we ask to join */
	fxs_join_tamper_fn tamper; /* tests: the host's blob, changed (a cheating host) */
	void *tamper_ctx;
};

/* Peer k out of the session as we see it: declared absent and not back,
 * or ourselves while we join (or once dropped). */
static bool out(const fxs_session *s, uint32_t k)
{
	const fxs_join *y = s->join;
	if (k == s->config.local)
		return (y->joining && !(y->loaded && y->R)) || y->dropped;
	return y->p[k].phase == P_FROZEN || y->p[k].phase == P_PROXIED;
}

/* j taken for in by its host: present, or back (its return tick picked) */
static bool present_or_back(const jpeer *x) { return x->phase == P_PRESENT || x->phase == P_BACK; }

/* the lowest player peer other than j that is in */
static uint32_t lowest_in(const fxs_session *s, uint32_t j)
{
	for (uint32_t k = 0; k < s->config.peers; ++k)
		if (k != j && s->peer[k].count && !out(s, k))
			return k;
	return UINT32_MAX;
}

/* j's host: the one that declared its absence, kept until it is itself out
 * (then the lowest player peer in takes its place, for good: a host that
 * comes back does not take it back); the lowest player peer in before j
 * was ever absent. */
static uint32_t host_of(const fxs_session *s, uint32_t j)
{
	uint32_t h = s->join->p[j].host;
	return h < s->config.peers && h != j && !out(s, h) ? h : lowest_in(s, j);
}

fxs_join *fxs_join_create(fxs_session *s)
{
	fxs_join *y = calloc(1, sizeof *y);
	if (!y)
		return NULL;
	for (uint32_t k = 0; k < FXS_SESSION_MAX_PEERS; ++k) {
		y->p[k].host = UINT32_MAX;
		y->p[k].hash_cap = UINT64_MAX;
	}
	y->joining = s->config.join && s->peer[s->config.local].count;
	fxs_xfer_recv_init(&y->rx, 0, JOIN_PURPOSE, 0);
	return y;
}

void fxs_join_destroy(fxs_join *y)
{
	if (!y)
		return;
	for (uint32_t k = 0; k < FXS_SESSION_MAX_PEERS; ++k)
		fxs_xfer_send_reset(&y->p[k].tx);
	fxs_xfer_recv_free(&y->rx);
	free(y->offer);
	free(y);
}

/* every peer but j and us */
static void due_all(fxs_session *s, uint32_t j, uint8_t what)
{
	for (uint32_t k = 0; k < s->config.peers; ++k)
		if (k != j && k != s->config.local)
			s->join->due[k][j] |= what;
}

/* j is absent, epoch e, declared by host h: freeze it (no more of its
 * inputs taken) and report. */
static void freeze(fxs_session *s, uint32_t j, uint32_t e, uint32_t h)
{
	jpeer *x = &s->join->p[j];
	uint64_t heard = x->last_heard, cap = x->hash_cap;
	fxs_xfer_send_reset(&x->tx);
	memset(x, 0, sizeof *x);
	x->last_heard = heard;
	x->hash_cap = cap;
	x->epoch = e;
	x->host = h;
	x->phase = P_FROZEN;
	x->frozen_c = s->peer[j].contig;
	fxs_sess_event(s, FXS_SESSION_EVENT_ABSENT, j, x->frozen_c + 1);
	/* j's inputs past the contiguous ones are forgotten: the reports' M
	 * counts contiguous ones only, and what comes after M is the host's */
	for (uint64_t t = x->frozen_c + 1; t < s->n; ++t)
		s->peer[j].have[t] = 0;
	/* and its checksums past them: the ticks after M are simulated on the
	 * neutral inputs here, on its own inputs by a j that runs on unaware
	 * (until it is told, below), so they are never compared */
	for (uint64_t t = x->frozen_c + 1; t < s->n; ++t)
		s->peer[j].rhave[t] = 0;
	if (s->peer[j].rcontig > x->frozen_c)
		s->peer[j].rcontig = x->frozen_c;
	x->rep_have[s->config.local] = 1;
	x->rep_frozen[s->config.local] = x->frozen_c;
	x->A = s->simulated + 3u + 2u * s->config.input_delay + s->config.max_rollback; /* past anything the old j can have sent */
	due_all(s, j, DUE_REPORT);
}

/* The host: the report of every player peer in (absent ones are not
 * waited for: one gone for good would hold j frozen for good) is here; M is
 * the highest, `from` says whose. */
static bool reports_in(const fxs_session *s, uint32_t j, uint64_t *M, uint64_t *from)
{
	const jpeer *x = &s->join->p[j];
	uint64_t m = 0, f = 0;
	for (uint32_t k = 0; k < s->config.peers; ++k) {
		if (k == j || !s->peer[k].count || out(s, k))
			continue;
		if (!x->rep_have[k])
			return false;
		if (x->rep_frozen[k] > m)
			m = x->rep_frozen[k];
		f |= 1ull << k;
	}
	*M = m;
	*from = f;
	return true;
}

/* j's M taken: a peer whose report it does not count (absent as its host
 * saw it) may have held j's inputs past M and confirmed ticks on them; its
 * checksums past M are not compared until it is back on a state (whose
 * checksums count from that state's tick on). (One still in here is not
 * capped: it is declared absent soon, and it could only have confirmed a
 * tick past M on an input of j's that no peer counted had; a joiner whose
 * state is newer than its return never sees it absent at all.) */
static void cap_uncounted(fxs_session *s, uint32_t j)
{
	const jpeer *x = &s->join->p[j];
	for (uint32_t k = 0; k < s->config.peers; ++k)
		if (k != j && k != s->config.local && s->peer[k].count && !(x->m_from >> k & 1) && out(s, k) &&
		    s->join->p[k].hash_cap > x->m_host)
			s->join->p[k].hash_cap = x->m_host;
}

/* j's M as its host decided it (and whose reports it counted) */
static void take_m(fxs_session *s, uint32_t j, uint64_t M, uint64_t from)
{
	jpeer *x = &s->join->p[j];
	if (x->phase == P_FROZEN && !x->m_told) {
		x->m_told = true;
		x->m_host = M;
		x->m_from = from;
	}
}

/* j frozen, its M known and its inputs up to M here: neutral from M + 1 */
static void try_proxied(fxs_session *s, uint32_t j)
{
	jpeer *x = &s->join->p[j];
	if (x->phase == P_FROZEN && x->m_told && s->peer[j].contig >= x->m_host) {
		x->phase = P_PROXIED;
		x->M = x->proxy_gen = x->m_host;
		cap_uncounted(s, j);
	}
}

static void mark_hashes_before(fxs_session *s, uint32_t q, uint64_t C)
{
	peer_state *p = &s->peer[q];
	for (uint64_t t = 1; t <= C && t < s->n; ++t)
		if (!p->rhave[t])
			p->rhave[t] = 1, p->rhash[t] = 0;
	while (p->rcontig + 1 < s->n && p->rhave[p->rcontig + 1])
		++p->rcontig;
}

/* j is back from tick R (its state came at C): its inputs from R are its own. */
static void mark_rejoined(fxs_session *s, uint32_t j, uint64_t R, uint64_t C)
{
	jpeer *x = &s->join->p[j];
	x->phase = P_BACK;
	x->R = R;
	x->C = C;
	x->hash_cap = UINT64_MAX;
	fxs_sess_event(s, FXS_SESSION_EVENT_REJOINED, j, R);
	x->last_heard = s->join->now;
	mark_hashes_before(s, j, C);
}

/* the host: j's proxied (neutral) inputs up to what our own reach */
static void make_proxies(fxs_session *s, uint32_t j)
{
	jpeer *x = &s->join->p[j];
	uint64_t limit = s->local_gen > s->simulated ? s->local_gen : s->simulated + 1;
	if (x->R && limit > x->R - 1)
		limit = x->R - 1;
	if (limit > s->config.ticks)
		limit = s->config.ticks;
	uint8_t zero[FXS_SESSION_MAX_TICK_INPUT * 2] = { 0 };
	uint8_t *z = zero;
	size_t blk = (size_t)s->peer[j].count * s->isz;
	uint8_t *big = NULL;
	if (blk > sizeof zero && !(z = big = calloc(1, blk)))
		return;
	for (uint64_t t = x->proxy_gen + 1; t <= limit; ++t)
		if (!s->peer[j].have[t])
			fxs_sess_set_input(s, j, t, z);
	if (limit > x->proxy_gen)
		x->proxy_gen = limit;
	free(big);
}

/* the host: the state of a confirmed tick for j, and its confirmed inputs since */
static bool start_blob(fxs_session *s, uint32_t j)
{
	jpeer *x = &s->join->p[j];
	uint64_t C = s->confirmed, T = C > CATCHUP_BACK ? C - CATCHUP_BACK : 0;
	/* j's own inputs up to M (the last it sent before it went) reach it
	 * only in the state: the proxies it gets start past M */
	if (C < x->M)
		return false;
	/* and every other absent peer's real inputs (to its M) are in the
	 * blob: the joiner cannot take them from the reports it got before it
	 * had a state (beyond its input window then, and not sent again once
	 * that peer is back) */
	for (uint32_t k = 0; k < s->config.peers; ++k) {
		const jpeer *o = &s->join->p[k];
		if (k != j && k != s->config.local && s->peer[k].count &&
		    (o->phase == P_FROZEN || (o->phase >= P_PROXIED && C < o->M)))
			return false;
	}
	const snap_slot *r = fxs_sess_snap_get(s, T);
	if (!r) {
		T = C;
		r = fxs_sess_snap_get(s, T);
	}
	if (!r)
		return false;
	size_t len = 4 + 4 + 8 + 8 + 8 + 4 + r->len + (size_t)(C - T) * s->tick_in;
	uint8_t *b = malloc(len);
	if (!b)
		return false;
	put32(b, JOIN_MAGIC);
	put32(b + 4, x->epoch);
	put64(b + 8, T);
	put64(b + 16, C);
	put64(b + 24, x->M);
	x->C = C;
	put32(b + 32, r->len);
	memcpy(b + 36, r->buf, r->len);
	for (uint64_t t = T + 1; t <= C; ++t)
		memcpy(b + 36 + r->len + (size_t)(t - T - 1) * s->tick_in, fxs_sess_inp_at(s, s->inp, t, 0), s->tick_in);
	if (s->join->tamper)
		s->join->tamper(s->join->tamper_ctx, &b, &len);
	bool ok = b && fxs_xfer_send_start(&x->tx, JOIN_PURPOSE, x->epoch, b, len);
	free(b);
	return ok;
}

/* the joiner: the state came; load it and catch up to C */
static bool load_blob(fxs_session *s, const uint8_t *b, size_t len)
{
	fxs_join *y = s->join;
	if (len < 36 || get32(b) != JOIN_MAGIC)
		return false;
	uint64_t e = get32(b + 4), T = get64(b + 8), C = get64(b + 16), M = get64(b + 24), sl = get32(b + 32);
	if (T > C || C > s->config.ticks || M > s->config.ticks || sl == 0 || sl > len - 36 ||
	    (len - 36 - sl) != (C - T) * (uint64_t)s->tick_in)
		return false;
	if (!s->config.game.load(s->config.game.ctx, b + 36, sl))
		return false;
	const uint8_t *in = b + 36 + sl;
	for (uint32_t k = 0; k < s->config.peers; ++k) {
		peer_state *p = &s->peer[k];
		if (!p->count)
			continue;
		for (uint64_t t = 1; t <= C; ++t) {
			if (t > T)
				memcpy(fxs_sess_inp_at(s, s->inp, t, p->first),
				       in + (size_t)(t - T - 1) * s->tick_in + (size_t)p->first * s->isz,
				       (size_t)p->count * s->isz);
			p->have[t] = 1;
		}
		if (p->contig < C)
			p->contig = C;
		while (p->contig + 1 < s->n && p->have[p->contig + 1])
			++p->contig;
	}
	s->simulated = T;
	s->hash[T] = s->config.game.checksum(s->config.game.ctx);
	fxs_sess_snap_save(s, T);
	for (uint64_t t = T + 1; t <= C && !s->nomem; ++t) {
		fxs_sess_simulate(s, t);
		s->simulated = t;
	}
	s->confirmed = C;
	s->local_gen = C;
	s->rollback_to = UINT64_MAX;
	for (uint32_t k = 0; k < s->config.peers; ++k) {
		if (k == s->config.local)
			continue;
		peer_state *p = &s->peer[k];
		mark_hashes_before(s, k, C);
		if (p->compared < C)
			p->compared = C;
		if (p->their_hash_ack < C)
			p->their_hash_ack = C;
		if (p->their_input_ack < C)
			p->their_input_ack = C;
	}
	y->loaded = true;
	y->epoch = (uint32_t)e;
	y->base = C;
	y->M = M;
	return true;
}

/* ---- a join that proves itself: the joiner's side ---- */

/* The offered state is not taken: why (a name and the facts), and we ask again. */
static void refuse(fxs_session *s, const char *reason, const char *fmt, unsigned long long a, unsigned long long b,
		   unsigned long long c)
{
	fxs_join *y = s->join;
	char facts[150];
	snprintf(facts, sizeof facts, fmt, a, b, c);
	snprintf(y->refused, sizeof y->refused, "join refused (%s): %s", reason, facts);
	++y->refusals;
	free(y->offer);
	y->offer = NULL;
	y->last_req = 0; /* ask the host again at once */
	for (uint32_t k = 0; k < s->config.peers; ++k)
		y->p[k].vouched = 0;
	fxs_sess_event(s, FXS_SESSION_EVENT_JOIN_REFUSED, host_of(s, s->config.local), y->offer_T)->line = y->refused;
}

/* A world state's own step (false: not a world's snapshot). */
static bool snapshot_step(const uint8_t *b, size_t len, uint64_t *step)
{
	fxs_result e;
	fxs_world *w = fxs_world_create_from_snapshot(b, len, &e);
	if (!w)
		return false;
	*step = fxs_world_get_step(w);
	fxs_world_destroy(w);
	return true;
}

/* The host's blob came: what the state and inputs say for themselves (its
 * form, its step, the checksums of T and C once simulated), kept until the
 * other peers vouch for those checksums. */
static void offer_blob(fxs_session *s, uint8_t *b, size_t len)
{
	fxs_join *y = s->join;
	uint64_t T = len >= 36 ? get64(b + 8) : 0, C = len >= 36 ? get64(b + 16) : 0, M = len >= 36 ? get64(b + 24) : 0,
		 sl = len >= 36 ? get32(b + 32) : 0;
	y->offer_T = T;
	if (len < 36 || get32(b) != JOIN_MAGIC || T > C || C > s->config.ticks || M > s->config.ticks || sl == 0 ||
	    sl > len - 36 || (len - 36 - sl) != (C - T) * (uint64_t)s->tick_in) {
		free(b);
		refuse(s, "malformed", "its ticks (state %llu, inputs to %llu) or lengths do not fit the session%.0llu",
		       T, C, 0);
		return;
	}
	const uint8_t *state = b + 36, *in = b + 36 + sl;
	/* a world's state: its own step must be its tick (counted from our
	 * own start's step) */
	const snap_slot *start = fxs_sess_snap_get(s, 0);
	uint64_t step, step0;
	if (s->config.game.format == FXS_SESSION_STATE_WORLD && start) {
		if (!snapshot_step(state, sl, &step) || !snapshot_step(start->buf, start->len, &step0)) {
			free(b);
			refuse(s, "state_unreadable", "the state of tick %llu is not a world's snapshot%.0llu%.0llu", T, 0, 0);
			return;
		}
		if (step != step0 + T) {
			free(b);
			refuse(s, "snapshot_step", "the state labelled tick %llu is the world after step %llu, not %llu", T,
			       step, step0 + T);
			return;
		}
	}
	/* its checksum, and the one its inputs lead to */
	if (!s->config.game.load(s->config.game.ctx, state, sl)) {
		free(b);
		refuse(s, "state_unreadable", "the game cannot load the state of tick %llu%.0llu%.0llu", T, 0, 0);
		return;
	}
	y->offer_hT = s->config.game.checksum(s->config.game.ctx);
	for (uint64_t t = T + 1; t <= C; ++t)
		if (!s->config.game.advance(s->config.game.ctx, t, in + (size_t)(t - T - 1) * s->tick_in, s->players)) {
			free(b);
			s->nomem = true;
			return;
		}
	y->offer_hC = s->config.game.checksum(s->config.game.ctx);
	free(y->offer);
	y->offer = b;
	y->offer_len = len;
	y->offer_C = C;
	y->offer_at = y->now;
	y->last_vouch_req = 0;
	y->vouchers = 0;
	for (uint32_t k = 0; k < s->config.peers; ++k)
		y->p[k].vouched = 0;
}

/* Peer k's word on the offer (its tick, confirmed tick and checksums of T and C). */
static void vouch_heard(fxs_session *s, uint32_t k, uint64_t T, uint64_t C, uint64_t kcur, uint64_t kconf,
			uint64_t hT, uint64_t hC)
{
	fxs_join *y = s->join;
	if (!y->offer || T != y->offer_T || C != y->offer_C || y->p[k].vouched || k == host_of(s, s->config.local))
		return;
	if (kconf >= C) {
		if (hT != y->offer_hT)
			refuse(s, "state_hash", "peer %llu confirmed another checksum for tick %llu than the state's "
			       "(%016llx)", k, T, y->offer_hT);
		else if (hC != y->offer_hC)
			refuse(s, "inputs", "the inputs up to tick %llu lead to %016llx, not to the checksum peer %llu "
			       "confirmed", C, y->offer_hC, k);
		else
			y->p[k].vouched = 1, ++y->vouchers;
		return;
	}
	/* the host confirmed C only with k's inputs up to C, which k takes one
	 * tick and input_delay ahead of its simulation */
	if (kcur + 1u + s->config.input_delay < C)
		refuse(s, "beyond_confirmed", "the state comes with inputs up to tick %llu, but peer %llu has simulated "
		       "only %llu ticks", C, k, kcur);
}

/* The offer proven (every other player peer vouched, or the ones that did
 * not answer within VOUCH_WAIT_MS are not waited for): taken. */
static void offer_frame(fxs_session *s)
{
	fxs_join *y = s->join;
	uint32_t me = s->config.local, h = host_of(s, me);
	bool all = true;
	for (uint32_t k = 0; k < s->config.peers; ++k)
		if (k != me && k != h && s->peer[k].count && !y->p[k].vouched)
			all = false;
	if (!all && y->now - y->offer_at < VOUCH_WAIT_MS) {
		if (!y->last_vouch_req || y->now - y->last_vouch_req >= REQ_MS) {
			for (uint32_t k = 0; k < s->config.peers; ++k) /* (the host's word is the offer itself) */
				if (k != me && k != h && s->peer[k].count && !y->p[k].vouched)
					y->due[k][me] |= DUE_VOUCH_REQ;
			y->last_vouch_req = y->now;
		}
		return;
	}
	uint8_t *b = y->offer;
	y->offer = NULL;
	if (!load_blob(s, b, y->offer_len)) {
		y->dropped = true; /* a state that does not load: nothing to go on with */
		fxs_sess_event(s, FXS_SESSION_EVENT_DISCONNECTED, me, s->simulated);
	}
	free(b);
}

void fxs_join_set_tamper(fxs_session *s, fxs_join_tamper_fn fn, void *ctx)
{
	if (s) {
		s->join->tamper = fn;
		s->join->tamper_ctx = ctx;
	}
}

void fxs_join_frame(fxs_session *s, uint64_t now)
{
	fxs_join *y = s->join;
	y->now = now;
	uint32_t me = s->config.local;
	if (y->joining) {
		/* ours is kept too (a host back does not take its place back) */
		if (y->p[me].host >= s->config.peers)
			y->p[me].host = lowest_in(s, me);
		uint32_t h = host_of(s, me);
		if (h != y->asked) { /* a new host: ask it at once */
			y->asked = h;
			y->last_req = 0;
		}
		if (!y->loaded) {
			uint8_t *b;
			size_t len;
			if (!y->offer && (b = fxs_xfer_recv_take(&y->rx, &len, NULL, NULL)) != NULL)
				offer_blob(s, b, len);
			if (y->offer)
				offer_frame(s);
			if (!y->loaded && !y->offer && h != UINT32_MAX && (!y->last_req || now - y->last_req >= REQ_MS)) {
				s->join->due[h][me] |= DUE_REQ;
				y->last_req = now;
			}
		}
		/* what we hold of our own (proxied) inputs, for the host's proxies */
		if (y->loaded && h != UINT32_MAX && now - y->p[me].last_sent[h] >= RESEND_MS) {
			s->join->due[h][me] |= DUE_REPORT;
			y->p[me].last_sent[h] = now;
		}
		/* caught up with the inputs that came: ready for our own */
		if (y->loaded && !y->R && h != UINT32_MAX) {
			uint64_t behind = s->peer[h].contig;
			if (s->simulated + 4u >= behind && (!y->last_ready || now - y->last_ready >= RESEND_MS)) {
				s->join->due[h][me] |= DUE_READY;
				y->last_ready = now;
			}
		}
	}
	for (uint32_t j = 0; j < s->config.peers; ++j) {
		jpeer *x = &y->p[j];
		if (x->heard)
			x->last_heard = now, x->heard = false;
		/* a host declared absent: the lowest player peer in takes its
		 * place for good */
		if (x->host < s->config.peers && out(s, x->host))
			x->host = lowest_in(s, j);
		if (j == me || !s->peer[j].count)
			continue;
		bool host = host_of(s, j) == me;
		/* (and a j back that goes silent before its return is done: gone
		 * for good, or restarted, it would hold the session for good) */
		if (host && present_or_back(x) && s->config.absent_ms &&
		    now - x->last_heard >= s->config.absent_ms && s->simulated < s->config.ticks && !y->joining && !y->dropped) {
			++y->absences;
			freeze(s, j, x->epoch + 1, me);
		}
		if (x->phase == P_PRESENT)
			continue;
		/* M: the host's, from the reports of every peer in (told to the
		 * others in its reports); proxies from M + 1 once j's inputs up to
		 * M are here (from the reports, taken up to M only) */
		uint64_t M, from;
		if (x->phase == P_FROZEN && !x->m_told && host && reports_in(s, j, &M, &from)) {
			take_m(s, j, M, from);
			due_all(s, j, DUE_REPORT);
		}
		try_proxied(s, j);
		/* j asked to join and went silent before it was ready (a joiner
		 * reports while it loads and catches up): gone again. Forgotten,
		 * so that it is told its absence again, from which one that
		 * restarts learns who its host is (it asks the lowest peer it
		 * knows, which may be out) */
		if (host && x->wants && !x->ready && x->phase != P_BACK && s->config.absent_ms &&
		    now - x->last_heard >= s->config.absent_ms) {
			x->wants = x->holds = false;
			fxs_xfer_send_reset(&x->tx);
		}
		if (host) {
			if (x->phase >= P_PROXIED)
				make_proxies(s, j);
			if (x->wants && !x->holds && !x->ready && x->phase >= P_PROXIED && x->tx.state == FXS_XFER_SEND_IDLE)
				start_blob(s, j);
			if (x->ready && x->phase == P_PROXIED) {
				uint64_t R = x->proxy_gen + 1 > x->A ? x->proxy_gen + 1 : x->A;
				if (R > (uint64_t)s->config.ticks + 1)
					R = (uint64_t)s->config.ticks + 1;
				mark_rejoined(s, j, R, x->C);
				make_proxies(s, j);
			}
		}
		for (uint32_t k = 0; k < s->config.peers; ++k) {
			if (k == me || now - x->last_sent[k] < RESEND_MS)
				continue;
			uint8_t d = 0;
			/* reports until j is back and every input below R is here, and
			 * to a peer in that lacks j's inputs up to M, until it has them */
			if (k != j && (!(x->phase == P_BACK && s->peer[j].contig + 1 >= x->R) ||
				       (x->m_told && s->peer[k].count && !out(s, k) && x->rep_now[k] < x->m_host &&
					x->phase != P_PRESENT)))
				d |= DUE_REPORT;
			if (host && !x->rep_have[k] && k != j && x->phase != P_BACK)
				d |= DUE_ABSENT;
			/* and j itself, until it asks to join again: a j that is
			 * alive (its packets late, not gone) learns it was dropped */
			if (host && k == j && (x->phase == P_FROZEN || x->phase == P_PROXIED) && !x->wants)
				d |= DUE_ABSENT;
			/* (each JOINED brings a report: until k holds every input below R) */
			if (host && x->phase == P_BACK &&
			    (x->rep_R[k] != x->R || (k != j && s->peer[k].count && x->rep_now[k] + 1 < x->R)))
				d |= DUE_JOINED;
			if (d) {
				y->due[k][j] |= d;
				x->last_sent[k] = now;
			}
		}
		if (host && x->phase >= P_PROXIED)
			for (uint32_t k = 0; k < s->config.peers; ++k)
				if (k != me && x->rep_now[k] < x->proxy_gen && (k != j || x->wants))
					y->due[k][j] |= DUE_PROXY;
		/* back for good: every input below R here (and, the host, everyone
		 * told); then j is an ordinary peer again, which can leave again */
		if (x->phase == P_BACK && s->peer[j].contig + 1 >= x->R) {
			bool told = true;
			/* every other player peer told, and holding j's proxies below
			 * R (one that joined itself meanwhile gets them late) */
			for (uint32_t k = 0; host && k < s->config.peers; ++k)
				if (k != me && k != j && s->peer[k].count && (x->rep_R[k] != x->R || x->rep_now[k] + 1 < x->R))
					told = false;
			/* and (the host) j holds its proxies below R: the host sends
			 * them only until then (j stalled on a lost one for good);
			 * and j says it knows R: the host sends JOINED only until
			 * then (with every input below R already here, as when j
			 * comes back after the last tick, j was taken for back in
			 * the frame R was picked, before a JOINED was ever sent, and
			 * never learnt R) */
			if (host && (x->rep_now[j] + 1 < x->R || x->rep_R[j] != x->R))
				told = false;
			if (told) {
				x->phase = P_PRESENT;
				x->last_heard = now;
			}
		}
	}
}

/* (stamped at the next frame: a caller that reads its packets before it
 * gives the time would otherwise stamp them with the time before its own
 * sleep, and take its own descheduling for the others' silence) */
void fxs_join_heard(fxs_session *s, uint32_t q)
{
	s->join->p[q].last_heard = s->join->now;
	s->join->p[q].heard = true;
}

bool fxs_join_take_input(const fxs_session *s, uint32_t q, uint64_t t)
{
	const jpeer *x = &s->join->p[q];
	if (s->join->joining && t <= s->join->base && s->join->loaded)
		return false;
	if (x->phase == P_PRESENT)
		return true;
	return x->phase == P_BACK && t >= x->R;
}

bool fxs_join_take_hash(const fxs_session *s, uint32_t q, uint64_t t)
{
	if (s->join->loaded && t <= s->join->base)
		return false;
	/* an absent q's checksums only of ticks on its own inputs (freeze), and
	 * not past the M of a peer whose M did not count q's report */
	const jpeer *x = &s->join->p[q];
	return !((x->phase == P_FROZEN && t > x->frozen_c) || (x->phase == P_PROXIED && t > x->M)) && t <= x->hash_cap;
}

uint64_t fxs_join_hash_limit(const fxs_session *s, uint32_t q)
{
	const jpeer *x = &s->join->p[q];
	return x->phase == P_FROZEN ? x->frozen_c : x->phase == P_PROXIED ? x->M : UINT64_MAX;
}

uint64_t fxs_join_compare_from(const fxs_session *s, uint32_t q)
{
	const jpeer *x = &s->join->p[q];
	uint64_t from = x->R ? x->C : 0; /* (kept once back: those checksums never came) */
	if (s->join->loaded && s->join->base > from)
		from = s->join->base;
	return from;
}

bool fxs_join_can_simulate(const fxs_session *s)
{
	return (!s->join->joining || s->join->loaded) && !s->join->dropped;
}

bool fxs_join_can_take_local(const fxs_session *s) { return (!s->join->joining || s->join->R) && !s->join->dropped; }

/* q numbers its packets from 1 again (a restart): its window starts over,
 * and what it holds of ours is what it says from now on */
static void restarted(fxs_session *s, uint32_t q)
{
	peer_state *p = &s->peer[q];
	p->rx_max = 0;
	p->rx_window = 0;
	p->their_input_ack = 0;
	p->their_hash_ack = 0;
}

bool fxs_join_seq_exempt(fxs_session *s, uint32_t q, uint32_t type, const uint8_t *body, size_t len, uint32_t seq)
{
	fxs_join *y = s->join;
	if (y->joining && s->peer[q].rx_max == 0 && seq)
		return true; /* a joiner has no history of anyone's numbers */
	if (y->p[q].phase != P_PRESENT && host_of(s, q) != s->config.local) {
		/* an absent (or returning) peer restarted: its packets count again;
		 * an old one replayed changes nothing (its inputs are frozen or
		 * the same, its checksums checked, its acknowledgements maxima) */
		restarted(s, q);
		return true;
	}
	if (type != FXS_PKT_ROSTER || len < 6 || body[0] != OP_JOIN_REQ || body[1] != q || host_of(s, q) != s->config.local)
		return false;
	jpeer *x = &y->p[q];
	if (present_or_back(x) &&
	    (!s->config.absent_ms || y->now - x->last_heard < s->config.absent_ms / 2))
		return false; /* q is alive and well: an old request replayed */
	restarted(s, q);
	return true;
}

static bool inputs_fit(const fxs_session *s, uint32_t j, uint64_t first, uint64_t n, size_t have, size_t *blk)
{
	*blk = (size_t)s->peer[j].count * s->isz;
	return first >= 1 && first + n - 1 <= s->config.ticks && have == n * *blk;
}

/* j's inputs first.. from a report or a proxy: every one new or equal, then taken */
static fxs_drop take_inputs(fxs_session *s, uint32_t j, uint64_t first, uint64_t n, const uint8_t *in, size_t blk,
			    uint64_t lo, uint64_t hi)
{
	peer_state *p = &s->peer[j];
	uint64_t limit = fxs_sess_input_limit(s); /* (the input window, as for data packets) */
	if (hi > limit)
		hi = limit;
	/* (a joiner holds the ticks up to its state's in that state, not as
	 * inputs: those before it are not compared, nor taken) */
	if (s->join->joining && s->join->loaded && lo <= s->join->base)
		lo = s->join->base + 1;
	for (uint64_t i = 0; i < n; ++i) {
		uint64_t t = first + i;
		if (t >= lo && t <= hi && p->have[t] &&
		    memcmp(fxs_sess_inp_at(s, s->inp, t, p->first), in + i * blk, blk) != 0)
			return FXS_DROP_CONFLICT;
	}
	for (uint64_t i = 0; i < n; ++i) {
		uint64_t t = first + i;
		if (t >= lo && t <= hi && !p->have[t])
			fxs_sess_set_input(s, j, t, in + i * blk);
	}
	return FXS_DROP_NONE;
}

fxs_drop fxs_join_receive(fxs_session *s, uint32_t q, uint32_t type, const uint8_t *body, size_t len, uint64_t now)
{
	fxs_join *y = s->join;
	uint32_t me = s->config.local;
	if (type == FXS_PKT_JOIN_XFER) {
		fxs_xfer_head h;
		if (fxs_xfer_peek(body, len, &h) != FXS_XFER_OK)
			return FXS_DROP_COUNT;
		if (h.kind == FXS_XFER_KIND_CHUNK) { /* the state for us, from our host */
			if (!y->joining || host_of(s, me) != q)
				return FXS_DROP_PEER;
			/* the state we took, sent again: the host has not heard our
			 * ack that it is done (lost, or taken for a replay of the old
			 * process's packet), and sends it until it does. The receiver
			 * says so again; dropped, the host never moves on to send our
			 * own inputs of the ticks before our return, and we stall one
			 * tick past the state. Another blob: not for us now. */
			const fxs_xfer_receiver *r = &y->rx;
			if (y->loaded && (!r->done_id || h.purpose != r->done_purpose || h.id != r->done_id ||
					  h.size != r->done_size || h.hash != r->done_hash))
				return FXS_DROP_PEER;
			fxs_xfer_err e = fxs_xfer_recv_chunk(&y->rx, body, len);
			return e == FXS_XFER_OK || e == FXS_XFER_BUSY ? FXS_DROP_NONE : FXS_DROP_COUNT;
		}
		if (host_of(s, q) != me) /* an ack of a state only we (q's host) send */
			return FXS_DROP_PEER;
		fxs_xfer_err e = fxs_xfer_send_ack(&y->p[q].tx, body, len, now);
		return e == FXS_XFER_OK ? FXS_DROP_NONE : e == FXS_XFER_OTHER ? FXS_DROP_RANGE
									      : FXS_DROP_COUNT;
	}
	if (type != FXS_PKT_ROSTER || len < 6)
		return type == FXS_PKT_ROSTER ? FXS_DROP_COUNT : FXS_DROP_TYPE;
	uint32_t op = body[0], j = body[1];
	uint64_t e = get32(body + 2);
	if (j >= s->config.peers || !s->peer[j].count)
		return FXS_DROP_PEER;
	jpeer *x = &y->p[j];
	uint32_t host = host_of(s, j);
	switch (op) {
	case OP_ABSENT:
		if (len != 6)
			return FXS_DROP_COUNT;
		if (j == me && y->joining && !y->loaded) {
			/* we join: the peer that declared us absent is our host (the
			 * others' word, where ours could be another: one we do not
			 * know is absent, or one back that did not take its place
			 * back) */
			x->host = q;
			return FXS_DROP_NONE;
		}
		if (q != host)
			return FXS_DROP_PEER;
		if (j == me) {
			/* declared absent while alive (an epoch past the one we joined
			 * in, once we are back): only a restart brings us back */
			if (!y->dropped && e > y->epoch && (!y->joining || (y->loaded && y->R))) {
				y->dropped = true;
				fxs_sess_event(s, FXS_SESSION_EVENT_DISCONNECTED, me, s->simulated);
			}
			return FXS_DROP_NONE;
		}
		if (e > x->epoch)
			freeze(s, j, (uint32_t)e, q);
		return FXS_DROP_NONE;
	case OP_REPORT: {
		if (len >= REPORT_HEAD && q == j && host == me) { /* a joiner: its state's tick, what it holds of its own inputs, its return tick */
			uint64_t cp1 = get32(body + 6), nc = get32(body + 10), kr = get32(body + 14);
			if (len != REPORT_HEAD || cp1 > (uint64_t)s->config.ticks + 1 || nc > s->config.ticks ||
			    kr > (uint64_t)s->config.ticks + 1)
				return FXS_DROP_RANGE;
			/* j loaded a state (ours, or that of a host declared absent
			 * since, whose place we took): its proxies are ours to send */
			if (e == x->epoch && cp1 && x->phase >= P_PROXIED && !x->holds && !x->ready) {
				x->wants = x->holds = true;
				x->C = cp1 - 1;
			}
			/* its return tick, told by that host to the others, not to it */
			if (e == x->epoch && x->R && kr != x->R)
				y->due[j][j] |= DUE_JOINED;
			/* or told by that host to j and no one else: ours too when no
			 * proxy of j's reaches it (every proxy is below it), else j
			 * plays on a return tick nobody took, and is declared absent
			 * again to start over */
			if (e == x->epoch && kr && x->holds && x->phase == P_PROXIED) {
				if (x->proxy_gen < kr) {
					x->wants = x->ready = true;
					mark_rejoined(s, j, kr, x->C);
					make_proxies(s, j);
				} else {
					++y->absences;
					freeze(s, j, x->epoch + 1, me);
					return FXS_DROP_NONE;
				}
			}
			if (e == x->epoch && nc > x->rep_now[j])
				x->rep_now[j] = nc;
			if (e == x->epoch)
				x->rep_R[j] = kr;
			return FXS_DROP_NONE;
		}
		if (len < REPORT_HEAD || j == me || q == j)
			return len < REPORT_HEAD ? FXS_DROP_COUNT : FXS_DROP_PEER;
		uint64_t fc = get32(body + 6), nc = get32(body + 10), kr = get32(body + 14), first = get32(body + 18),
			 n = body[22], rh = body[23], mp1 = get32(body + 24), from = get64(body + 28);
		size_t blk = 0;
		if (fc > s->config.ticks || nc > s->config.ticks || kr > (uint64_t)s->config.ticks + 1 ||
		    mp1 > (uint64_t)s->config.ticks + 1 || (n && !inputs_fit(s, j, first, n, len - REPORT_HEAD, &blk)) ||
		    (!n && len != REPORT_HEAD))
			return FXS_DROP_RANGE;
		if (e > x->epoch) /* the host declared it; its ABSENT has not come yet */
			freeze(s, j, (uint32_t)e, rh < s->config.peers ? (uint32_t)rh : UINT32_MAX);
		if (e != x->epoch)
			return FXS_DROP_NONE; /* an old epoch's */
		/* M, from the host (or, the host itself absent since it told some,
		 * to us who took its place: the one it told) */
		if (mp1 && (q == host_of(s, j) || me == host_of(s, j)))
			take_m(s, j, mp1 - 1, from);
		/* j's inputs only once M is known, and up to M: a peer whose report
		 * M does not count may hold more of them than anyone else */
		if (n && x->m_told) {
			fxs_drop d = take_inputs(s, j, first, n, body + REPORT_HEAD, blk, 1, fc < x->m_host ? fc : x->m_host);
			if (d != FXS_DROP_NONE)
				return d;
		}
		if (!x->rep_have[q]) {
			x->rep_have[q] = 1;
			x->rep_frozen[q] = fc;
		}
		x->rep_now[q] = nc;
		x->rep_R[q] = kr;
		/* (the host) j is back, and q has not heard: q restarted and
		 * joined since we told everyone, or never heard: told again */
		if (me == host_of(s, j) && x->R && kr != x->R)
			y->due[q][j] |= DUE_JOINED;
		return FXS_DROP_NONE;
	}
	case OP_PROXY: {
		if (len < 11 || q != host)
			return len < 11 ? FXS_DROP_COUNT : FXS_DROP_PEER;
		uint64_t first = get32(body + 6), n = body[10];
		size_t blk;
		if (!n || !inputs_fit(s, j, first, n, len - 11, &blk))
			return FXS_DROP_RANGE;
		if (j == me) { /* our own inputs while we were away */
			if (!y->loaded || e != y->epoch)
				return FXS_DROP_NONE;
			return take_inputs(s, j, first, n, body + 11, blk, y->M + 1, y->R ? y->R - 1 : s->config.ticks);
		}
		if (e != x->epoch || x->phase < P_PROXIED)
			return FXS_DROP_NONE; /* not yet: it comes again */
		return take_inputs(s, j, first, n, body + 11, blk, x->M + 1, x->R ? x->R - 1 : s->config.ticks);
	}
	case OP_VOUCH_REQ: /* j joins and asks us what we confirmed of its offer */
		if (len != 14 || q != j || j == me)
			return len != 14 ? FXS_DROP_COUNT : FXS_DROP_PEER;
		if (get32(body + 6) > get32(body + 10) || get32(body + 10) > s->config.ticks)
			return FXS_DROP_RANGE;
		/* joining ourselves (absent too: our inputs the host's neutral
		 * ones, our ticks behind its confirmed one), we have no word of
		 * our own on it: no answer (j does not wait for us past
		 * VOUCH_WAIT_MS), rather than one that refuses an honest offer */
		if (y->joining && (!y->loaded || !y->R || s->simulated < y->R))
			return FXS_DROP_NONE; /* (nor until we simulate our own inputs: the ones before are the host's) */
		x->vouch_T = get32(body + 6);
		x->vouch_C = get32(body + 10);
		y->due[j][j] |= DUE_VOUCH;
		return FXS_DROP_NONE;
	case OP_VOUCH: /* peer q's word on the state we were offered */
		if (len != 38 || j != me || q == me)
			return len != 38 ? FXS_DROP_COUNT : FXS_DROP_PEER;
		if (get32(body + 6) > get32(body + 10) || get32(body + 10) > s->config.ticks || get32(body + 14) > s->config.ticks ||
		    get32(body + 18) > s->config.ticks)
			return FXS_DROP_RANGE;
		if (y->joining && !y->loaded)
			vouch_heard(s, q, get32(body + 6), get32(body + 10), get32(body + 14), get32(body + 18),
				    get64(body + 22), get64(body + 30));
		return FXS_DROP_NONE;
	case OP_JOIN_REQ:
		if (len != 6 || q != j || host != me)
			return len != 6 ? FXS_DROP_COUNT : FXS_DROP_PEER;
		/* asked again after a transfer that ended: the joiner refused it */
		if (x->phase != P_BACK && (x->tx.state == FXS_XFER_SENT || x->tx.state == FXS_XFER_FAILED))
			fxs_xfer_send_reset(&x->tx);
		/* a late copy of a request j made before it came back (only a j
		 * that has been away can have made one: a j that never was asks
		 * to join late, while its own packets keep it heard) */
		if (present_or_back(x) && x->epoch && s->config.absent_ms &&
		    now - x->last_heard < s->config.absent_ms / 2 && x->last_heard)
			return FXS_DROP_NONE;
		/* (j back, or on its way back, that asks again: it restarted) */
		if (present_or_back(x)) {
			++y->absences;
			freeze(s, j, x->epoch + 1, me);
		}
		if (x->phase != P_BACK) {
			x->wants = true;
			x->holds = false;
			x->rep_now[j] = 0; /* a new j holds nothing */
		}
		return FXS_DROP_NONE;
	case OP_READY:
		if (len != 10 || q != j || host != me)
			return len != 10 ? FXS_DROP_COUNT : FXS_DROP_PEER;
		if (get32(body + 6) > s->config.ticks)
			return FXS_DROP_RANGE;
		/* (or j loaded the state of a host declared absent since, whose
		 * place we took: j's proxies and return tick are ours to give) */
		if (e == x->epoch && (x->wants || x->phase == P_PROXIED)) {
			x->wants = x->ready = true;
			x->C = get32(body + 6);
			x->rep_now[j] = x->C;
		}
		return FXS_DROP_NONE;
	case OP_JOINED: {
		if (len != 26 || q != host)
			return len != 26 ? FXS_DROP_COUNT : FXS_DROP_PEER;
		uint64_t R = get32(body + 6), C = get32(body + 10), mp1 = get32(body + 14), from = get64(body + 18);
		if (R < 1 || R > (uint64_t)s->config.ticks + 1 || C >= R || mp1 < 1 || mp1 > R)
			return FXS_DROP_RANGE;
		if (j == me) {
			if (y->loaded && e == y->epoch && !y->R) {
				y->R = R;
				fxs_sess_event(s, FXS_SESSION_EVENT_JOINED, me, R)->state_tick = y->base;
				if (s->local_gen < R - 1)
					s->local_gen = R - 1;
			}
			if (y->loaded && e == y->epoch && y->R == R)
				y->due[q][me] |= DUE_REPORT; /* the host learns we know (again, if our answer was lost) */
			return FXS_DROP_NONE;
		}
		/* (with j's M: one that joined itself since, or missed the host's
		 * reports, may not have it yet) */
		if (e > x->epoch)
			freeze(s, j, (uint32_t)e, q);
		if (e == x->epoch) {
			take_m(s, j, mp1 - 1, from);
			try_proxied(s, j);
		}
		if (e == x->epoch && x->phase >= P_PROXIED)
			mark_rejoined(s, j, R, C);
		if (e == x->epoch && x->R == R)
			y->due[q][j] |= DUE_REPORT; /* the host learns we know (again, if our answer was lost) */
		return FXS_DROP_NONE;
	}
	default:
		return FXS_DROP_TYPE;
	}
}

size_t fxs_join_body(fxs_session *s, uint32_t to, uint8_t *type, uint8_t *out, size_t cap, uint64_t now)
{
	fxs_join *y = s->join;
	uint32_t me = s->config.local;
	if (cap < FXS_XFER_MSG_MAX)
		return 0;
	*type = FXS_PKT_JOIN_XFER;
	size_t n;
	/* the state transfer: its acks (we join), its chunks (we are the host) */
	if (y->joining && to == host_of(s, me) && (n = fxs_xfer_recv_poll(&y->rx, out, cap)) > 0)
		return n;
	if (host_of(s, to) == me && y->p[to].wants && (n = fxs_xfer_send_poll(&y->p[to].tx, now, out, cap)) > 0)
		return n;
	*type = FXS_PKT_ROSTER;
	for (uint32_t j = 0; j < s->config.peers; ++j) {
		uint8_t *d = &y->due[to][j];
		if (!*d)
			continue;
		jpeer *x = &y->p[j];
		out[1] = (uint8_t)j;
		put32(out + 2, j == me ? y->epoch : x->epoch);
		if ((*d & DUE_VOUCH_REQ) && j == me) {
			*d &= (uint8_t)~DUE_VOUCH_REQ;
			if (!y->offer)
				continue;
			out[0] = OP_VOUCH_REQ;
			put32(out + 6, y->offer_T);
			put32(out + 10, y->offer_C);
			return 14;
		}
		if ((*d & DUE_VOUCH) && j == to) { /* to joins: our word on its offer */
			*d &= (uint8_t)~DUE_VOUCH;
			out[0] = OP_VOUCH;
			put32(out + 6, x->vouch_T);
			put32(out + 10, x->vouch_C);
			put32(out + 14, s->simulated);
			put32(out + 18, s->confirmed);
			bool known = s->confirmed >= x->vouch_C;
			put64(out + 22, known ? s->hash[x->vouch_T] : 0);
			put64(out + 30, known ? s->hash[x->vouch_C] : 0);
			return 38;
		}
		if (*d & DUE_REQ) {
			*d &= (uint8_t)~DUE_REQ;
			/* a request made before the state came is not sent once it
			 * has: the host, its transfer done, would take it for a
			 * refusal and send another state, which we never take */
			if (!y->offer && !y->loaded && y->rx.state != FXS_XFER_RECEIVED) {
				out[0] = OP_JOIN_REQ;
				return 6;
			}
		}
		if (*d & DUE_READY) {
			*d &= (uint8_t)~DUE_READY;
			out[0] = OP_READY;
			put32(out + 6, y->base);
			return 10;
		}
		if (*d & DUE_ABSENT) {
			*d &= (uint8_t)~DUE_ABSENT;
			out[0] = OP_ABSENT;
			return 6;
		}
		if (*d & DUE_JOINED) {
			*d &= (uint8_t)~DUE_JOINED;
			out[0] = OP_JOINED;
			put32(out + 6, x->R);
			put32(out + 10, x->C);
			put32(out + 14, (uint32_t)(x->M + 1));
			put64(out + 18, x->m_from);
			return 26;
		}
		size_t blk = (size_t)s->peer[j].count * s->isz;
		uint64_t room = (cap - REPORT_HEAD) / blk;
		if (room > 255)
			room = 255;
		if ((*d & DUE_REPORT) && j == me) { /* a joiner's own */
			*d &= (uint8_t)~DUE_REPORT;
			out[0] = OP_REPORT;
			memset(out + 6, 0, REPORT_HEAD - 6);
			put32(out + 6, y->loaded ? (uint32_t)(y->base + 1) : 0);
			put32(out + 10, s->peer[me].contig);
			put32(out + 14, y->R); /* (0: not told yet) */
			return REPORT_HEAD;
		}
		if (*d & DUE_REPORT) {
			*d &= (uint8_t)~DUE_REPORT;
			out[0] = OP_REPORT;
			put32(out + 6, x->frozen_c);
			put32(out + 10, s->peer[j].contig);
			put32(out + 14, x->R);
			/* j's inputs that `to` lacks (from what it says it holds), up to
			 * M once M is known (what we hold of them past M is not j's
			 * for good), else up to where we froze j; a joiner holds none
			 * before its state's tick (the state has them) */
			uint64_t top = x->m_told ? x->m_host : x->frozen_c, first = x->rep_now[to] + 1;
			if (top > s->peer[j].contig)
				top = s->peer[j].contig;
			if (y->joining && y->loaded && first <= y->base)
				first = y->base + 1;
			uint64_t k = first <= top ? top - first + 1 : 0;
			if (k > room)
				k = room;
			put32(out + 18, k ? first : 0);
			out[22] = (uint8_t)k;
			uint32_t h = host_of(s, j);
			out[23] = h < s->config.peers ? (uint8_t)h : 0xff;
			put32(out + 24, x->m_told ? (uint32_t)(x->m_host + 1) : 0);
			put64(out + 28, x->m_told ? x->m_from : 0);
			for (uint64_t i = 0; i < k; ++i)
				memcpy(out + REPORT_HEAD + i * blk, fxs_sess_inp_at(s, s->inp, first + i, s->peer[j].first), blk);
			return REPORT_HEAD + k * blk;
		}
		if (*d & DUE_PROXY) {
			*d &= (uint8_t)~DUE_PROXY;
			uint64_t from = x->rep_now[to] > x->M ? x->rep_now[to] + 1 : x->M + 1;
			if (to == j && from <= x->C)
				from = x->C + 1; /* the state it has holds the rest */
			if (from > x->proxy_gen)
				continue;
			uint64_t k = x->proxy_gen - from + 1;
			if (k > room)
				k = room;
			out[0] = OP_PROXY;
			put32(out + 6, from);
			out[10] = (uint8_t)k;
			for (uint64_t i = 0; i < k; ++i)
				memcpy(out + 11 + i * blk, fxs_sess_inp_at(s, s->inp, from + i, s->peer[j].first), blk);
			return 11 + k * blk;
		}
	}
	return 0;
}

bool fxs_join_absent(const fxs_session *s, uint32_t q)
{
	uint8_t ph = s->join->p[q].phase;
	return ph == P_FROZEN || ph == P_PROXIED;
}

bool fxs_join_idle(const fxs_session *s)
{
	const fxs_join *y = s->join;
	if (y->joining && (!y->loaded || !y->R))
		return false;
	/* an absent peer that is heard (a restarted one, joining): brought back
	 * before the session ends here (its return tick past the last one when
	 * it catches up after that), or it never could be (its state, proxies,
	 * return tick and checksums come from us) */
	uint64_t alive_ms = s->config.absent_ms ? s->config.absent_ms : JOIN_ALIVE_MS;
	for (uint32_t j = 0; j < s->config.peers; ++j) {
		const jpeer *x = &y->p[j];
		if (j != s->config.local && (x->phase == P_FROZEN || x->phase == P_PROXIED) &&
		    y->now - x->last_heard < alive_ms)
			return false;
		/* (the host) a j back that has not said it knows its return
		 * tick: told until it does (it cannot end before) */
		if (j != s->config.local && x->phase == P_BACK && host_of(s, j) == s->config.local &&
		    x->rep_R[j] != x->R && y->now - x->last_heard < alive_ms)
			return false;
	}
	return true;
}

void fxs_join_status(const fxs_session *s, fxs_session_join_status *st)
{
	const fxs_join *y = s->join;
	memset(st, 0, sizeof *st);
	st->joining = y->joining && (!y->loaded || !y->R);
	st->loaded = y->loaded;
	st->state_tick = y->base;
	st->return_tick = y->R;
	st->dropped = y->dropped;
	st->absences = y->absences;
	st->refusals = y->refusals;
	st->vouchers = y->vouchers;
	snprintf(st->refused, sizeof st->refused, "%s", y->refused);
}
