/* Lockstep and rollback sessions (fixstep/session.h). */
#include "fixstep/session.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "session/protocol.h"
#include "session/join.h"
#include "session/session_impl.h"
#include "session/sync.h"
#include "session/timesync.h"

static bool spectator(const fxs_session *s, uint32_t k) { return s->peer[k].count == 0; }
static uint8_t *inp_at(const fxs_session *s, uint8_t *base, uint64_t t, uint32_t player)
{
	return base + (size_t)t * s->tick_in + (size_t)player * s->isz;
}

static bool snap_save(fxs_session *s, uint64_t tick)
{
	snap_slot *r = &s->ring[tick % FXS_SESSION_HISTORY];
	size_t need = s->config.game.state_size(s->config.game.ctx);
	if (need > r->cap) {
		uint8_t *nb = realloc(r->buf, need);
		if (!nb)
			return false;
		r->buf = nb;
		r->cap = need;
	}
	r->tick = UINT64_MAX;
	if (!s->config.game.save(s->config.game.ctx, r->buf, r->cap, &r->len) || r->len > r->cap)
		return false;
	r->tick = tick;
	return true;
}

static const snap_slot *snap_get(const fxs_session *s, uint64_t tick)
{
	const snap_slot *r = &s->ring[tick % FXS_SESSION_HISTORY];
	return r->tick == tick ? r : NULL;
}

static bool all_zero(const uint8_t *k, size_t n)
{
	uint8_t any = 0;
	for (size_t i = 0; i < n; ++i)
		any |= k[i];
	return any == 0;
}

/* The keys of both directions with every peer, from c's key or pair keys:
 * false when one is missing (all zero). */
static bool derive_keys(fxs_session *s, const fxs_session_config *c)
{
	for (uint32_t q = 0; q < c->peers; ++q) {
		if (q == c->local)
			continue;
		const uint8_t *base = c->pair_keys ? c->pair_keys[q] : c->key;
		if (all_zero(base, FXS_PKT_KEY_BYTES))
			return false;
		fxs_packet_key(base, c->local, q, s->peer[q].tx_key);
		fxs_packet_key(base, q, c->local, s->peer[q].rx_key);
	}
	return true;
}

fxs_session_config fxs_session_default_config(void)
{
	fxs_session_config c;
	memset(&c, 0, sizeof c);
	c.peers = 2;
	for (uint32_t k = 0; k < FXS_SESSION_MAX_PEERS; ++k)
		c.players[k] = 1;
	c.input_size = 12;
	c.session_id = 1;
	c.mode = FXS_SESSION_LOCKSTEP;
	c.ticks = 600;
	c.max_rollback = 8;
	return c;
}

/* Why c cannot make a session (NULL: it can); the players counted into *players. */
static const char *config_problem(const fxs_session_config *c, uint32_t *players)
{
	if (!c)
		return "no configuration";
	if (c->peers < 1 || c->peers > FXS_SESSION_MAX_PEERS)
		return "peers must be 1..64";
	if (c->local >= c->peers)
		return "local must be one of the peers";
	if (c->ticks < 1 || c->ticks > FXS_SESSION_MAX_TICKS)
		return "ticks must be 1..2^30";
	if (c->mode != FXS_SESSION_LOCKSTEP && c->mode != FXS_SESSION_ROLLBACK)
		return "mode must be FXS_SESSION_LOCKSTEP (0) or FXS_SESSION_ROLLBACK (1)";
	if (c->max_rollback > FXS_SESSION_MAX_ROLLBACK)
		return "max_rollback must be 0..15 (0: 8)";
	if (c->input_delay > 60)
		return "input_delay must be 0..60";
	const fxs_session_callbacks *g = &c->game;
	if (!g->state_size || !g->save || !g->load || !g->advance || !g->checksum)
		return "the game's callbacks (state_size, save, load, advance, checksum) are all needed";
	if (g->format != FXS_SESSION_STATE_OPAQUE && g->format != FXS_SESSION_STATE_WORLD)
		return "game.format must be FXS_SESSION_STATE_OPAQUE (0) or FXS_SESSION_STATE_WORLD (1)";
	if (c->input_size > FXS_SESSION_MAX_TICK_INPUT)
		return "input_size must be 0..124 (0: 12)";
	if (c->seq_window && (c->seq_window < 64 || c->seq_window > (1u << 30)))
		return "seq_window must be 0 (4096) or 64..2^30";
	if (c->absent_ms && (c->absent_ms < 100 || c->absent_ms > 3600000u))
		return "absent_ms must be 0 (never) or 100..3600000 (an hour)";
	if (c->interrupt_ms && (c->interrupt_ms < 10 || (c->absent_ms && c->interrupt_ms >= c->absent_ms)))
		return "interrupt_ms must be 0 (250) or 10.. and below absent_ms";
	if (c->desync_dir) {
		struct stat sb;
		if (!c->desync_dir[0] || stat(c->desync_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
			return "desync_dir must be NULL or a directory that exists";
	}
	uint32_t isz = c->input_size ? c->input_size : 12, total = 0, any = 0;
	for (uint32_t k = 0; k < c->peers; ++k)
		any |= c->players[k];
	for (uint32_t k = 0; k < c->peers; ++k) {
		uint32_t n = any ? c->players[k] : 1;
		if (n * isz > FXS_SESSION_MAX_TICK_INPUT)
			return "input_size x (players of one peer) must be at most 124 bytes";
		total += n;
	}
	if (total < 1 || total > FXS_SESSION_MAX_PLAYERS)
		return "1..64 players in all (spectators own none)";
	uint32_t player_peers = 0;
	for (uint32_t k = 0; k < c->peers; ++k)
		player_peers += (any ? c->players[k] : 1) != 0;
	if (c->join && (any ? c->players[c->local] : 1) && player_peers < 2)
		return "join needs another player peer (the host it joins through)";
	*players = total;
	return NULL;
}

static void say(char *err, size_t errlen, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
}

/* The per-tick arrays: false out of memory. */
static bool alloc_arrays(fxs_session *s)
{
	size_t n = (size_t)s->n;
	s->inp = calloc(n, s->tick_in);
	s->used = calloc(FXS_SESSION_HISTORY, s->tick_in);
	s->block = calloc(1, s->tick_in);
	s->hash = calloc(n, sizeof *s->hash);
	if (!s->inp || !s->used || !s->block || !s->hash)
		return false;
	for (uint32_t k = 0; k < s->config.peers; ++k) {
		peer_state *p = &s->peer[k];
		p->have = calloc(n, 1);
		p->rhash = calloc(n, sizeof(uint64_t));
		p->rhave = calloc(n, 1);
		if (!p->have || !p->rhash || !p->rhave)
			return false;
		p->have[0] = 1; /* tick 0: zero inputs (what predictions start from) */
	}
	return true;
}

fxs_session *fxs_session_create(const fxs_session_config *c, char *err, size_t errlen)
{
	uint32_t players = 0;
	const char *why = config_problem(c, &players);
	if (why) {
		say(err, errlen, why);
		return NULL;
	}
	if (!fxs_packet_crypto_init()) {
		say(err, errlen, "libsodium cannot start");
		return NULL;
	}
	fxs_session *s = calloc(1, sizeof *s);
	if (!s || !(s->peer = calloc(c->peers, sizeof *s->peer)))
		goto nomem;
	s->config = *c;
	bool keyed = derive_keys(s, c);
	/* only the derived keys are kept */
	s->config.pair_keys = NULL;
	sodium_memzero(s->config.key, sizeof s->config.key);
	if (!keyed) {
		say(err, errlen, "the session needs its key (32 bytes from the game's lobby; all zero is not one)");
		fxs_session_destroy(s);
		return NULL;
	}
	if (!s->config.seq_window)
		s->config.seq_window = FXS_SESSION_SEQ_WINDOW;
	if (!s->config.max_rollback)
		s->config.max_rollback = 8;
	if (!s->config.input_size)
		s->config.input_size = 12;
	uint32_t any = 0;
	for (uint32_t k = 0; k < c->peers; ++k)
		any |= c->players[k];
	for (uint32_t k = 0, first = 0; k < c->peers; ++k) {
		s->peer[k].first = first;
		s->peer[k].count = any ? c->players[k] : 1;
		s->config.players[k] = (uint8_t)s->peer[k].count;
		first += s->peer[k].count;
	}
	s->players = players;
	s->isz = s->config.input_size;
	s->tick_in = (size_t)players * s->isz;
	uint32_t mine = s->peer[s->config.local].count;
	s->per_packet = FXS_PKT_MAX_TICKS;
	if (mine && FXS_PKT_INPUT_BYTES / (mine * s->isz) < s->per_packet)
		s->per_packet = (uint32_t)(FXS_PKT_INPUT_BYTES / (mine * s->isz));
	s->n = (uint64_t)c->ticks + 1;
	if (!alloc_arrays(s))
		goto nomem;
	for (uint32_t i = 0; i < FXS_SESSION_HISTORY; ++i)
		s->ring[i].tick = UINT64_MAX;
	s->rollback_to = UINT64_MAX;
	s->hash[0] = s->config.game.checksum(s->config.game.ctx);
	s->sync = fxs_sync_create(c->local, c->peers, c->game.format);
	s->join = fxs_join_create(s);
	if (!s->sync || !s->join || !snap_save(s, 0))
		goto nomem;
	return s;
nomem:
	say(err, errlen, "out of memory");
	fxs_session_destroy(s);
	return NULL;
}

void fxs_session_destroy(fxs_session *s)
{
	if (!s)
		return;
	free(s->inp);
	free(s->used);
	free(s->block);
	free(s->hash);
	for (uint32_t k = 0; s->peer && k < s->config.peers; ++k) {
		free(s->peer[k].have);
		free(s->peer[k].rhash);
		free(s->peer[k].rhave);
	}
	if (s->peer)
		sodium_memzero(s->peer, s->config.peers * sizeof *s->peer);
	free(s->peer);
	for (uint32_t i = 0; i < FXS_SESSION_HISTORY; ++i)
		free(s->ring[i].buf);
	free(s->desync.snapshot);
	fxs_sync_destroy(s->sync);
	fxs_join_destroy(s->join);
	free(s);
}

/* ---- inputs ---- */

/* Peer k's inputs of tick t (count x isz bytes) are in. */
static void set_input(fxs_session *s, uint32_t k, uint64_t t, const uint8_t *in)
{
	peer_state *p = &s->peer[k];
	size_t len = (size_t)p->count * s->isz;
	memcpy(inp_at(s, s->inp, t, p->first), in, len);
	p->have[t] = 1;
	while (p->contig + 1 < s->n && p->have[p->contig + 1])
		++p->contig;
	/* a tick simulated with other inputs must be simulated again */
	if (t <= s->simulated && s->simulated - t < FXS_SESSION_HISTORY &&
	    memcmp(inp_at(s, s->used, t % FXS_SESSION_HISTORY, p->first), in, len) != 0) {
		++s->stats.mispredictions;
		if (t < s->rollback_to)
			s->rollback_to = t;
	}
}

static void connection_events(fxs_session *s);

static void gen_local(fxs_session *s)
{
	peer_state *me = &s->peer[s->config.local];
	if (!me->count || !fxs_join_can_take_local(s))
		return; /* (a joiner takes its own from its return tick) */
	uint64_t want = s->simulated + 1 + s->config.input_delay;
	if (want > s->config.ticks)
		want = s->config.ticks;
	uint8_t buf[FXS_SESSION_MAX_TICK_INPUT];
	while (s->local_gen < want) {
		uint64_t t = ++s->local_gen;
		memset(buf, 0, sizeof buf);
		if (t > s->config.input_delay && s->config.input)
			for (uint32_t i = 0; i < me->count; ++i)
				s->config.input(s->config.input_ctx, t - s->config.input_delay, me->first + i, buf + i * s->isz);
		set_input(s, s->config.local, t, buf);
	}
}

/* ---- simulation ---- */

static void simulate(fxs_session *s, uint64_t t)
{
	for (uint32_t k = 0; k < s->config.peers; ++k) {
		const peer_state *p = &s->peer[k];
		if (!p->count)
			continue;
		/* real, or predicted: the last input received in order, repeated */
		uint64_t from = p->have[t] ? t : p->contig < t ? p->contig
							       : t - 1;
		memcpy(inp_at(s, s->used, t % FXS_SESSION_HISTORY, p->first), inp_at(s, s->inp, from, p->first),
		       (size_t)p->count * s->isz);
	}
	memcpy(s->block, inp_at(s, s->used, t % FXS_SESSION_HISTORY, 0), s->tick_in);
	if (!s->config.game.advance(s->config.game.ctx, t, s->block, s->players)) {
		s->nomem = true;
		return;
	}
	s->hash[t] = s->config.game.checksum(s->config.game.ctx);
	if (!snap_save(s, t))
		s->nomem = true; /* a rollback to t could not load it */
}

static void do_rollback(fxs_session *s)
{
	if (s->rollback_to == UINT64_MAX || s->nomem)
		return;
	uint64_t from = s->rollback_to;
	s->rollback_to = UINT64_MAX;
	if (from > s->simulated)
		return;
	const snap_slot *r = snap_get(s, from - 1);
	if (!r || !s->config.game.load(s->config.game.ctx, r->buf, r->len)) {
		/* the window keeps from - 1 in the ring: only the game's load can fail */
		s->nomem = true;
		return;
	}
	uint64_t depth = s->simulated - from + 1;
	++s->stats.rollbacks;
	s->stats.resimulated += depth;
	if (depth > s->stats.deepest_rollback)
		s->stats.deepest_rollback = depth;
	for (uint64_t t = from; t <= s->simulated && !s->nomem; ++t)
		simulate(s, t);
}

static void write_desync_files(fxs_session *s, const uint8_t *snap, size_t len)
{
	const char *ext = s->desync.format == FXS_SESSION_STATE_WORLD ? "snap" : "state";
	snprintf(s->desync.snap_file, sizeof s->desync.snap_file, "%s/desync_peer%u_tick%" PRIu64 ".%s", s->config.desync_dir,
		 s->config.local, s->desync.tick, ext);
	FILE *f = fopen(s->desync.snap_file, "wb");
	if (f) {
		fwrite(snap, 1, len, f);
		fclose(f);
	}
	if (s->desync.format != FXS_SESSION_STATE_WORLD)
		return;
	fxs_result e;
	fxs_world *w = fxs_world_create_from_snapshot(snap, len, &e);
	if (!w)
		return;
	snprintf(s->desync.body_file, sizeof s->desync.body_file, "%s/desync_peer%u_tick%" PRIu64 ".bodies", s->config.desync_dir,
		 s->config.local, s->desync.tick);
	f = fopen(s->desync.body_file, "w");
	if (f) {
		fprintf(f, "# peer %u tick %" PRIu64 " state hash %016" PRIx64 "\n# slot body_hash\n", s->config.local,
			s->desync.tick, fxs_world_hash(w));
		uint32_t n = fxs_world_slot_count(w);
		for (uint32_t i = 0; i < n; ++i) {
			fxs_body_id id = fxs_world_body_at(w, i);
			if (fxs_body_is_valid(w, id))
				fprintf(f, "%u %016" PRIx64 "\n", i, fxs_body_hash(w, id));
		}
		fclose(f);
	}
	fxs_world_destroy(w);
}

static void record_desync(fxs_session *s, uint64_t t, uint32_t q)
{
	s->desync.tick = t;
	s->desync.peer = q;
	s->desync.local_hash = s->hash[t];
	s->desync.remote_hash = s->peer[q].rhash[t];
	s->desync.format = s->config.game.format;
	const snap_slot *r = snap_get(s, t);
	free(s->desync.snapshot);
	s->desync.snapshot = NULL;
	s->desync.have_state = false;
	if (r && (s->desync.snapshot = malloc(r->len ? r->len : 1)) != NULL) {
		memcpy(s->desync.snapshot, r->buf, r->len);
		s->desync.snapshot_len = r->len;
		s->desync.have_state = true;
		if (s->config.desync_dir)
			write_desync_files(s, r->buf, r->len);
	}
}

static void compare_hashes(fxs_session *s)
{
	for (uint32_t q = 0; q < s->config.peers; ++q) {
		peer_state *p = &s->peer[q];
		if (q == s->config.local || !p->count)
			continue; /* spectators send no checksums */
		uint64_t upto = s->confirmed < p->rcontig ? s->confirmed : p->rcontig;
		while (p->compared < upto) {
			uint64_t t = ++p->compared;
			if (p->rhash[t] == s->hash[t] || t <= fxs_join_compare_from(s, q))
				continue; /* (before a join's state: not ours to compare) */
			if (!s->desync.tick || t < s->desync.tick)
				record_desync(s, t, q);
			if (!s->first_mismatch[q])
				fxs_sess_event(s, FXS_SESSION_EVENT_DESYNC, q, t);
			if (!s->first_mismatch[q]) { /* name it with q, over the protocol */
				const snap_slot *r = snap_get(s, t);
				s->first_mismatch[q] = true;
				fxs_sync_mismatch(s->sync, q, t, r ? r->buf : NULL, r ? r->len : 0);
			}
		}
	}
}

/* Confirmed: every input of the tick in, and its checksum that of a
 * simulation with them, so never a tick a pending rollback has still to
 * simulate again (its checksum, compared and sent, is a prediction's). */
static void update_confirmed(fxs_session *s)
{
	uint64_t c = s->simulated;
	for (uint32_t k = 0; k < s->config.peers; ++k)
		if (s->peer[k].count && s->peer[k].contig < c)
			c = s->peer[k].contig;
	if (s->rollback_to != UINT64_MAX && c >= s->rollback_to)
		c = s->rollback_to - 1;
	if (c > s->confirmed)
		s->confirmed = c;
	compare_hashes(s);
}

static bool can_step(const fxs_session *s)
{
	uint64_t t = s->simulated + 1;
	if (t > s->config.ticks || s->nomem || !fxs_join_can_simulate(s))
		return false;
	/* a spectator simulates confirmed ticks only */
	if (s->config.mode == FXS_SESSION_LOCKSTEP || spectator(s, s->config.local)) {
		for (uint32_t k = 0; k < s->config.peers; ++k)
			if (s->peer[k].count && !s->peer[k].have[t])
				return false;
		return true;
	}
	return t - s->confirmed <= s->config.max_rollback;
}

uint32_t fxs_session_advance(fxs_session *s, uint32_t max_ticks)
{
	if (!s)
		return 0;
	uint32_t done = 0;
	if (!s->caller_clock)
		s->now_ms += FXS_SYNC_FRAME_MS;
	fxs_sync_set_time(s->sync, s->now_ms);
	fxs_join_frame(s, s->now_ms);
	connection_events(s);
	do_rollback(s);
	update_confirmed(s);
	while (done < max_ticks) {
		gen_local(s);
		/* a joiner told its return tick R once it has simulated R (on its
		 * own inputs predicted) takes its own from R here: those ticks
		 * are simulated again before it steps on from them */
		do_rollback(s);
		if (!can_step(s)) {
			if (s->simulated < s->config.ticks)
				++s->stats.stalls;
			break;
		}
		simulate(s, ++s->simulated);
		++s->stats.ticks;
		++done;
		update_confirmed(s);
	}
	gen_local(s);
	return done;
}

/* ---- packets ---- */

/* The sequence number window (a packet of q's with seq): FXS_DROP_NONE
 * when it is new and within reach; nothing changes here (the caller
 * records it once every other check passed). */
static fxs_drop seq_check(const fxs_session *s, uint32_t q, uint32_t seq)
{
	const peer_state *p = &s->peer[q];
	if (seq == 0)
		return FXS_DROP_REPLAYED; /* never sent: sequence numbers start at 1 */
	if (seq > p->rx_max)
		return seq - p->rx_max > s->config.seq_window ? FXS_DROP_WINDOW : FXS_DROP_NONE;
	uint32_t back = p->rx_max - seq; /* 64 sequence numbers back from the highest seen */
	return back >= 64 || (p->rx_window >> back & 1) ? FXS_DROP_REPLAYED : FXS_DROP_NONE;
}

static void seq_record(fxs_session *s, uint32_t q, uint32_t seq)
{
	peer_state *p = &s->peer[q];
	if (seq > p->rx_max) {
		uint32_t shift = seq - p->rx_max;
		p->rx_window = shift >= 64 ? 0 : p->rx_window << shift;
		p->rx_window |= 1;
		p->rx_max = seq;
	} else {
		p->rx_window |= (uint64_t)1 << (p->rx_max - seq);
	}
}

uint64_t fxs_sess_input_limit(const fxs_session *s)
{
	uint64_t base = s->simulated;
	if (s->confirmed > base)
		base = s->confirmed;
	if (s->local_gen > base)
		base = s->local_gen;
	return base + FXS_SESSION_INPUT_WINDOW;
}

/* Every check of a data body from peer q, before anything changes. */
static fxs_drop data_check(const fxs_session *s, uint32_t q, const fxs_data *d)
{
	const peer_state *p = &s->peer[q];
	if (d->players != p->count || d->input_size != s->isz)
		return FXS_DROP_NOT_OWNER;
	if (d->n_ticks > FXS_PKT_MAX_TICKS || (!p->count && (d->n_ticks || d->n_hashes)))
		return FXS_DROP_COUNT; /* a spectator sends acknowledgements only */
	if ((d->n_ticks && (d->input_first < 1 || (uint64_t)d->input_first + d->n_ticks - 1 > s->config.ticks)) ||
	    (d->n_hashes && (d->hash_first < 1 || (uint64_t)d->hash_first + d->n_hashes - 1 > s->config.ticks)) ||
	    d->input_ack > s->config.ticks || d->hash_ack > s->config.ticks || d->tick > s->config.ticks)
		return FXS_DROP_RANGE;
	/* inputs or checksums that start beyond the input window: nobody honest
	 * sends them (their memory is what a flood of them would cost) */
	uint64_t limit = fxs_sess_input_limit(s);
	if ((d->n_ticks && d->input_first > limit) || (d->n_hashes && d->hash_first > limit))
		return FXS_DROP_AHEAD;
	/* an input or checksum contradicting one we hold: the whole packet goes */
	size_t len = (size_t)p->count * s->isz;
	for (uint32_t i = 0; i < d->n_ticks; ++i) {
		uint64_t t = (uint64_t)d->input_first + i;
		if (t <= limit && p->have[t] && fxs_join_take_input(s, q, t) &&
		    memcmp(inp_at(s, s->inp, t, p->first), d->in + i * len, len) != 0)
			return FXS_DROP_CONFLICT;
	}
	for (uint32_t i = 0; i < d->n_hashes; ++i) {
		uint64_t t = (uint64_t)d->hash_first + i;
		if (t <= limit && p->rhave[t] && fxs_join_take_hash(s, q, t) && p->rhash[t] != d->hashes[i])
			return FXS_DROP_CONFLICT;
	}
	return FXS_DROP_NONE;
}

/* A data packet (type 1) of peer q: checked, then taken in. `newest`: its
 * sequence number is the highest of q's yet. */
static fxs_drop data_receive(fxs_session *s, uint32_t q, const uint8_t *body, size_t len, bool newest)
{
	fxs_data d;
	fxs_drop r = fxs_data_decode(body, len, &d);
	if (r == FXS_DROP_NONE)
		r = data_check(s, q, &d);
	if (r != FXS_DROP_NONE)
		return r;
	peer_state *p = &s->peer[q];
	size_t blk = (size_t)p->count * s->isz;
	uint64_t limit = fxs_sess_input_limit(s);
	for (uint32_t i = 0; i < d.n_ticks; ++i) {
		uint64_t t = (uint64_t)d.input_first + i;
		if (t > limit)
			++s->stats.ahead_dropped; /* (the tail of a packet: it comes again) */
		else if (!p->have[t] && fxs_join_take_input(s, q, t))
			set_input(s, q, t, d.in + i * blk);
	}
	for (uint32_t i = 0; i < d.n_hashes; ++i) {
		uint64_t t = (uint64_t)d.hash_first + i;
		if (t > limit) {
			++s->stats.ahead_dropped;
			continue;
		}
		if (!fxs_join_take_hash(s, q, t))
			continue; /* before the state a join brought */
		p->rhash[t] = d.hashes[i];
		p->rhave[t] = 1;
	}
	while (p->rcontig + 1 < s->n && p->rhave[p->rcontig + 1])
		++p->rcontig;
	/* what q holds of ours is what its newest packet says, not the most any
	 * packet said: a restarted q (its numbers passed the old process's
	 * before anything took it for a restart) holds nothing its old process
	 * acknowledged, and our resends must start from what it says now
	 * (within one process an older packet never says more); never below a
	 * join's state, whose ticks are not exchanged (a joiner does not hold
	 * its own inputs before that state) */
	if (newest) {
		uint64_t floor = fxs_join_compare_from(s, q);
		p->their_input_ack = d.input_ack > floor ? d.input_ack : floor;
		p->their_hash_ack = d.hash_ack > floor ? d.hash_ack : floor;
	}
	if (d.flags & FXS_PKT_FLAG_DONE)
		p->done = true;
	uint32_t trips = p->ts_trips;
	fxs_ts_heard(s, q, &d);
	if (p->ts_trips != trips && trips < FXS_TS_SYNCED_TRIPS) {
		fxs_session_event_type ty = p->ts_trips >= FXS_TS_SYNCED_TRIPS ? FXS_SESSION_EVENT_SYNCHRONIZED
										 : FXS_SESSION_EVENT_SYNCHRONIZING;
		fxs_session_event *e = fxs_sess_event(s, ty, q, s->simulated);
		e->progress = p->ts_trips;
		e->total = FXS_TS_SYNCED_TRIPS;
	}
	return FXS_DROP_NONE;
}

fxs_drop fxs_session_receive(fxs_session *s, const uint8_t *buf, size_t len, int src)
{
	if (!s || !buf)
		return FXS_DROP_TRUNCATED;
	fxs_frame f;
	const uint8_t *body = NULL;
	++s->stats.packets_received;
	/* one acceptance path for every type: frame, peer, MAC, session, source, sequence */
	fxs_drop d = fxs_packet_frame(buf, len, &f);
	if (d == FXS_DROP_NONE && (f.from >= s->config.peers || f.from == s->config.local || f.to != s->config.local))
		d = FXS_DROP_PEER; /* no key to check it with */
	if (d == FXS_DROP_NONE)
		d = fxs_packet_open(buf, len, s->peer[f.from].rx_key, &f, &body);
	if (d == FXS_DROP_NONE && f.session != s->config.session_id)
		d = FXS_DROP_SESSION;
	if (d == FXS_DROP_NONE && src != (int)f.from)
		d = FXS_DROP_SPOOFED;
	if (d == FXS_DROP_NONE) {
		d = seq_check(s, f.from, f.seq);
		/* a restarted peer numbers its packets from 1 again: its request
		 * to join (join.h) */
		if ((d == FXS_DROP_REPLAYED || d == FXS_DROP_WINDOW) &&
		    fxs_join_seq_exempt(s, f.from, f.type, body, f.body_len, f.seq))
			d = FXS_DROP_NONE;
	}
	/* then the type's own checks; a handler changes nothing unless it
	 * returns FXS_DROP_NONE */
	if (d == FXS_DROP_NONE) {
		switch (f.type) {
		case FXS_PKT_DATA:
			d = data_receive(s, f.from, body, f.body_len, f.seq > s->peer[f.from].rx_max);
			break;
		case FXS_PKT_JOIN_XFER:
		case FXS_PKT_ROSTER:
			d = fxs_join_receive(s, f.from, f.type, body, f.body_len, s->now_ms);
			break;
		default: /* the desync exchange's (sync.h) */
			d = fxs_sync_receive(s->sync, f.from, f.type, body, f.body_len);
			break;
		}
	}
	if (d != FXS_DROP_NONE) {
		++s->stats.dropped[d];
		++s->stats.dropped_total;
		return d;
	}
	/* authentic, new, within reach and consistent: only now does it count */
	seq_record(s, f.from, f.seq);
	fxs_join_heard(s, f.from);
	peer_state *p = &s->peer[f.from];
	p->rx_ms = s->now_ms;
	if (p->interrupted) {
		p->interrupted = false;
		fxs_sess_event(s, FXS_SESSION_EVENT_RESUMED, f.from, s->simulated);
	}
	++s->stats.packets_accepted;
	++s->peer[f.from].packets;
	return FXS_DROP_NONE;
}

/* The frame of our next packet to peer `to` (a new sequence number). */
static fxs_frame next_frame(fxs_session *s, uint32_t to, uint8_t type)
{
	fxs_frame f;
	memset(&f, 0, sizeof f);
	f.type = type;
	f.from = (uint8_t)s->config.local;
	f.to = (uint8_t)to;
	f.session = s->config.session_id;
	f.seq = ++s->peer[to].tx_seq;
	f.ack_seq = s->peer[to].rx_max;
	return f;
}

/* a packet of `type` to peer `to` around body[0, blen), sealed into out and
 * counted as sent; its length, 0 when it does not fit */
static size_t seal_to(fxs_session *s, uint32_t to, uint8_t type, const uint8_t *body, size_t blen, uint8_t *out,
		      size_t cap)
{
	fxs_frame f = next_frame(s, to, type);
	size_t n = fxs_packet_seal(&f, body, blen, s->peer[to].tx_key, out, cap);
	if (n) {
		++s->stats.packets_sent;
		s->stats.bytes_sent += n;
	}
	return n;
}

size_t fxs_session_packet(fxs_session *s, uint32_t to, uint8_t *out, size_t cap)
{
	if (!s || !out || to >= s->config.peers || to == s->config.local || s->peer[to].tx_seq == UINT32_MAX)
		return 0; /* (2^32 - 1 packets to one peer: 2 years at 60 a second) */
	const peer_state *me = &s->peer[s->config.local], *them = &s->peer[to];
	fxs_data d;
	memset(&d, 0, sizeof d);
	uint8_t in[FXS_PKT_INPUT_BYTES];
	d.flags = fxs_session_complete(s) ? FXS_PKT_FLAG_DONE : 0;
	d.players = (uint8_t)me->count;
	d.input_size = (uint8_t)s->isz;
	d.tick = (uint32_t)s->simulated;
	d.input_ack = (uint32_t)them->contig;
	d.hash_ack = (uint32_t)them->rcontig;
	fxs_ts_fill(s, to, &d);
	if (me->count) {
		/* every input the peer has not acknowledged, oldest first (redundancy) */
		uint64_t first = them->their_input_ack + 1, last = me->contig;
		size_t blk = (size_t)me->count * s->isz;
		if (first <= last) {
			uint64_t k = last - first + 1;
			d.n_ticks = (uint8_t)(k > s->per_packet ? s->per_packet : k);
			d.input_first = (uint32_t)first;
			for (uint32_t i = 0; i < d.n_ticks; ++i)
				memcpy(in + i * blk, inp_at(s, s->inp, first + i, me->first), blk);
			d.in = in;
		}
		first = them->their_hash_ack + 1;
		last = s->confirmed;
		if (last > fxs_join_hash_limit(s, to))
			last = fxs_join_hash_limit(s, to); /* an absent peer: none of the ticks on its neutral inputs */
		if (first <= last) {
			uint64_t k = last - first + 1;
			d.n_hashes = (uint8_t)(k > FXS_PKT_MAX_HASHES ? FXS_PKT_MAX_HASHES : k);
			d.hash_first = (uint32_t)first;
			for (uint32_t i = 0; i < d.n_hashes; ++i)
				d.hashes[i] = s->hash[first + i];
		}
	}
	uint8_t body[FXS_PKT_BODY_MAX];
	size_t blen = fxs_data_encode(&d, body, sizeof body);
	if (!blen || cap < FXS_PKT_FRAME + blen + FXS_PKT_MAC_BYTES)
		return 0;
	return seal_to(s, to, FXS_PKT_DATA, body, blen, out, cap);
}

/* ---- events (events.h) ---- */

fxs_session_event *fxs_sess_event(fxs_session *s, fxs_session_event_type type, uint32_t peer, uint64_t tick)
{
	fxs_session_event e;
	memset(&e, 0, sizeof e);
	e.type = type;
	e.peer = peer;
	e.tick = tick;
	e.line = "";
	fxs_session_event *q = fxs_events_push(&s->events, &e);
	s->stats.events_lost = s->events.lost;
	return q;
}

bool fxs_session_event_poll(fxs_session *s, fxs_session_event *ev)
{
	return s && ev && fxs_events_pop(&s->events, ev);
}

static uint64_t interrupt_ms(const fxs_session *s)
{
	uint64_t ms = s->config.interrupt_ms ? s->config.interrupt_ms : 250u;
	if (!s->config.interrupt_ms && s->config.absent_ms && s->config.absent_ms / 2 < ms)
		ms = s->config.absent_ms / 2;
	return ms;
}

/* Once per advance: silences, and a desync's name once it is known. */
static void connection_events(fxs_session *s)
{
	for (uint32_t q = 0; q < s->config.peers; ++q) {
		peer_state *p = &s->peer[q];
		if (q == s->config.local || !p->count || p->done || p->interrupted || fxs_join_absent(s, q))
			continue;
		if (s->now_ms - p->rx_ms >= interrupt_ms(s) && !fxs_session_complete(s)) {
			p->interrupted = true;
			fxs_sess_event(s, FXS_SESSION_EVENT_INTERRUPTED, q, s->simulated);
		}
	}
	for (uint32_t q = 0; q < s->config.peers; ++q) {
		uint64_t t = 0;
		const char *line = s->desync_named_told[q] ? "" : fxs_sync_line_with(s->sync, q, &t);
		if (line[0]) {
			s->desync_named_told[q] = true;
			fxs_sess_event(s, FXS_SESSION_EVENT_DESYNC_NAMED, q, t)->line = line;
		}
	}
}

/* ---- the desync exchange and joins (sync.h, join.h) ---- */

void fxs_sess_set_input(fxs_session *s, uint32_t k, uint64_t t, const uint8_t *in) { set_input(s, k, t, in); }
void fxs_sess_simulate(fxs_session *s, uint64_t t) { simulate(s, t); }
bool fxs_sess_snap_save(fxs_session *s, uint64_t tick) { return snap_save(s, tick); }
const snap_slot *fxs_sess_snap_get(const fxs_session *s, uint64_t tick) { return snap_get(s, tick); }
uint8_t *fxs_sess_inp_at(const fxs_session *s, uint8_t *base, uint64_t t, uint32_t player)
{
	return inp_at(s, base, t, player);
}
void fxs_sess_update_confirmed(fxs_session *s) { update_confirmed(s); }

size_t fxs_session_packet_more(fxs_session *s, uint32_t to, uint8_t *out, size_t cap)
{
	if (!s || !out || to >= s->config.peers || to == s->config.local || s->peer[to].tx_seq == UINT32_MAX ||
	    cap < FXS_PKT_MAX)
		return 0;
	uint8_t body[FXS_PKT_BODY_MAX], type = 0;
	size_t blen = fxs_sync_body(s->sync, to, &type, body, sizeof body);
	if (!blen)
		blen = fxs_join_body(s, to, &type, body, sizeof body, s->now_ms);
	if (!blen)
		return 0;
	return seal_to(s, to, type, body, blen, out, cap);
}

const char *fxs_session_desync_line(const fxs_session *s) { return s ? fxs_sync_line(s->sync) : ""; }

/* The caller's milliseconds on the session's clock (never before its start). */
static uint64_t session_ms(const fxs_session *s, uint64_t caller_ms)
{
	if (!s->caller_clock || caller_ms < s->caller0)
		return s->now_ms;
	return s->session0 + (caller_ms - s->caller0);
}

void fxs_session_set_time(fxs_session *s, uint64_t now_ms)
{
	if (!s)
		return;
	if (!s->caller_clock) { /* the caller's clock starts here, wherever it stands */
		s->caller_clock = true;
		s->caller0 = now_ms;
		s->session0 = s->now_ms;
		return;
	}
	uint64_t t = session_ms(s, now_ms);
	if (t > s->now_ms)
		s->now_ms = t;
}

bool fxs_session_join_get(const fxs_session *s, fxs_session_join_status *st)
{
	if (!s || !st)
		return false;
	fxs_join_status(s, st);
	return true;
}

/* ---- queries ---- */

uint64_t fxs_session_tick(const fxs_session *s) { return s ? s->simulated : 0; }
uint64_t fxs_session_confirmed(const fxs_session *s) { return s ? s->confirmed : 0; }
uint32_t fxs_session_players(const fxs_session *s) { return s ? s->players : 0; }
uint32_t fxs_session_first_player(const fxs_session *s, uint32_t peer)
{
	return s && peer < s->config.peers ? s->peer[peer].first : 0;
}
uint32_t fxs_session_peer_players(const fxs_session *s, uint32_t peer)
{
	return s && peer < s->config.peers ? s->peer[peer].count : 0;
}
uint32_t fxs_session_input_size(const fxs_session *s) { return s ? (uint32_t)s->isz : 0; }
bool fxs_session_peer_done(const fxs_session *s, uint32_t peer) { return s && peer < s->config.peers && s->peer[peer].done; }
uint64_t fxs_session_peer_packets(const fxs_session *s, uint32_t peer)
{
	return s && peer < s->config.peers ? s->peer[peer].packets : 0;
}
const fxs_session_stats *fxs_session_stats_get(const fxs_session *s) { return s ? &s->stats : NULL; }
const fxs_session_desync *fxs_session_desync_get(const fxs_session *s) { return s ? &s->desync : NULL; }
bool fxs_session_out_of_memory(const fxs_session *s) { return s && s->nomem; }
uint64_t fxs_session_hash(const fxs_session *s, uint64_t t) { return s && t <= s->simulated ? s->hash[t] : 0; }

bool fxs_session_complete(const fxs_session *s)
{
	if (!s || s->confirmed < s->config.ticks)
		return false;
	bool player = !spectator(s, s->config.local);
	for (uint32_t q = 0; q < s->config.peers; ++q) {
		const peer_state *p = &s->peer[q];
		if (q == s->config.local || !p->count || fxs_join_absent(s, q))
			continue; /* spectators (and absent peers, join.h) are not waited for */
		if (p->compared < s->config.ticks)
			return false;
		if (player && (p->their_input_ack < s->config.ticks || p->their_hash_ack < s->config.ticks))
			return false;
	}
	/* and every desync named over the protocol, and our join done */
	return fxs_sync_idle(s->sync) && fxs_join_idle(s);
}

bool fxs_session_inputs(const fxs_session *s, uint64_t t, uint8_t *out, size_t cap)
{
	if (!s || !out || t < 1 || t > s->confirmed || cap < s->tick_in)
		return false;
	memcpy(out, inp_at(s, s->inp, t, 0), s->tick_in);
	return true;
}

/* ---- driving a session in real time ---- */

uint32_t fxs_session_pump(fxs_session *s, const fxs_transport *t, uint64_t now_ms, uint32_t tick_ms)
{
	if (!s || !t || !t->send || !t->recv)
		return 0;
	if (!tick_ms)
		tick_ms = 1;
	/* every timer on the session's clock: it starts at the first call */
	fxs_session_set_time(s, now_ms);
	uint64_t now = s->now_ms;
	if (!s->pumping) {
		s->pumping = true;
		s->pace0 = (int64_t)now;
		s->next_send = now;
		for (uint32_t q = 0; q < s->config.peers; ++q)
			s->peer[q].heard_ms = now;
	}
	uint8_t buf[FXS_SESSION_PACKET_MAX + 1]; /* one more: a longer datagram is oversized */
	size_t n;
	int from;
	while ((n = t->recv(t->ctx, buf, sizeof buf, &from)) > 0)
		fxs_session_receive(s, buf, n, from);
	for (uint32_t q = 0; q < s->config.peers; ++q) {
		peer_state *p = &s->peer[q];
		if (p->packets != p->pumped)
			p->pumped = p->packets, p->heard_ms = now;
	}
	/* a joiner catches up with the state it got, then keeps the pace from
	 * there: tick simulated + 1 due now (pace0 may be before the clock's start) */
	fxs_session_join_status js;
	fxs_join_status(s, &js);
	if (js.return_tick && !s->join_paced)
		s->pace0 = (int64_t)now - (int64_t)(s->simulated * tick_ms), s->join_paced = true;
	int64_t since = (int64_t)now - s->pace0;
	uint64_t due = since >= 0 ? (uint64_t)since / tick_ms + 1 : 0;
	if (js.loaded && !js.return_tick)
		due = s->simulated + 2;
	uint32_t step = due > s->simulated ? (due - s->simulated > 2 ? 2 : (uint32_t)(due - s->simulated)) : 0;
	uint32_t done = fxs_session_advance(s, step);
	if (!js.loaded || js.return_tick) {
		/* a tick that could not be simulated (waiting for inputs) is not
		 * owed: the pace slips with the stall instead of bursting after it */
		if (done < step && s->simulated < s->config.ticks)
			s->pace0 = (int64_t)now - (int64_t)(s->simulated * tick_ms);
		/* time sync: wait out half of our lead over the others */
		uint32_t wait = fxs_ts_take_wait(s);
		s->pace0 += (int64_t)wait * tick_ms;
		s->ts_waited_ticks += wait;
	}
	if (now >= s->next_send) {
		for (uint32_t q = 0; q < s->config.peers; ++q) {
			if ((n = fxs_session_packet(s, q, buf, sizeof buf)) > 0)
				t->send(t->ctx, q, buf, n);
			while ((n = fxs_session_packet_more(s, q, buf, sizeof buf)) > 0)
				t->send(t->ctx, q, buf, n);
		}
		s->next_send = now + tick_ms;
	}
	return done;
}

int32_t fxs_session_frames_ahead(const fxs_session *s)
{
	if (!s)
		return 0;
	int32_t a = fxs_ts_ahead16(s);
	return a >= 0 ? (a + 8) / 16 : -((8 - a) / 16);
}

uint32_t fxs_session_skip_ticks(fxs_session *s)
{
	if (!s || fxs_session_complete(s))
		return 0;
	uint32_t w = fxs_ts_take_wait(s);
	s->ts_waited_ticks += w;
	return w;
}

uint64_t fxs_session_ticks_waited(const fxs_session *s) { return s ? s->ts_waited_ticks : 0; }

uint32_t fxs_session_rtt_ms(const fxs_session *s, uint32_t peer)
{
	return s && peer < s->config.peers && s->peer[peer].ts_trips ? s->peer[peer].ts_rtt : 0;
}

uint64_t fxs_session_peer_silence(const fxs_session *s, uint32_t peer, uint64_t now_ms)
{
	if (!s || peer >= s->config.peers || !s->pumping)
		return 0;
	uint64_t now = session_ms(s, now_ms);
	return now > s->peer[peer].heard_ms ? now - s->peer[peer].heard_ms : 0;
}

int fxs_session_silent_peer(const fxs_session *s, uint64_t now_ms, uint32_t timeout_ms)
{
	for (uint32_t q = 0; s && q < s->config.peers; ++q)
		if (q != s->config.local && s->peer[q].count && !s->peer[q].done && !s->config.absent_ms &&
		    fxs_session_peer_silence(s, q, now_ms) > timeout_ms)
			return (int)q;
	return -1;
}

bool fxs_session_all_done(const fxs_session *s)
{
	if (!fxs_session_complete(s))
		return false;
	for (uint32_t q = 0; q < s->config.peers; ++q)
		if (q != s->config.local && !s->peer[q].done && !fxs_join_absent(s, q))
			return false;
	return true;
}
