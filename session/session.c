/* Lockstep and rollback sessions (session.h). */
#include "session/session.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_run.h"

typedef struct snap_slot {
	uint8_t *buf;
	size_t len, cap;
	uint64_t tick; /* UINT64_MAX: empty */
} snap_slot;

struct fxs_session {
	fxs_session_config c;
	fxs_world *w;
	uint64_t cur;  /* simulated ticks */
	uint64_t conf; /* confirmed */
	uint64_t n;    /* ticks + 1 (arrays indexed by tick) */
	/* per player, per tick */
	fxs_input *inp[FXS_SESSION_MAX_PEERS]; /* real inputs */
	uint8_t *have[FXS_SESSION_MAX_PEERS];
	fxs_input *used[FXS_SESSION_MAX_PEERS]; /* what the latest simulation of t used */
	uint64_t contig[FXS_SESSION_MAX_PEERS]; /* all real inputs of the player held up to here */
	uint64_t local_gen;                     /* local inputs generated up to this tick */
	uint64_t *hash;                         /* after tick t */
	/* remote hashes */
	uint64_t *rhash[FXS_SESSION_MAX_PEERS];
	uint8_t *rhave[FXS_SESSION_MAX_PEERS];
	uint64_t rcontig[FXS_SESSION_MAX_PEERS]; /* their hashes held up to here */
	uint64_t compared[FXS_SESSION_MAX_PEERS];
	/* what the peers hold of ours */
	uint64_t their_input_ack[FXS_SESSION_MAX_PEERS], their_hash_ack[FXS_SESSION_MAX_PEERS];
	bool peer_done[FXS_SESSION_MAX_PEERS];
	uint64_t peer_packets[FXS_SESSION_MAX_PEERS];
	/* the keys of both directions with each peer (protocol.h) */
	uint8_t tx_key[FXS_SESSION_MAX_PEERS][FXS_PKT_KEY_BYTES];
	uint8_t rx_key[FXS_SESSION_MAX_PEERS][FXS_PKT_KEY_BYTES];
	/* sequence numbers */
	uint32_t tx_seq[FXS_SESSION_MAX_PEERS];
	uint32_t rx_max[FXS_SESSION_MAX_PEERS];
	uint64_t rx_window[FXS_SESSION_MAX_PEERS]; /* bit i: rx_max - i seen */
	uint64_t rollback_to;                      /* UINT64_MAX: none pending */
	snap_slot ring[FXS_SESSION_HISTORY];
	uint32_t perturb_slot;
	fxs_session_stats st;
	fxs_session_desync ds;
	bool nomem; /* a step or a snapshot ran out of memory: no further ticks */
};

static bool snap_save(fxs_session *s, uint64_t tick)
{
	snap_slot *r = &s->ring[tick % FXS_SESSION_HISTORY];
	size_t need = fxs_world_snapshot_size(s->w);
	if (need > r->cap) {
		uint8_t *nb = realloc(r->buf, need);
		if (!nb)
			return false;
		r->buf = nb;
		r->cap = need;
	}
	if (fxs_world_snapshot_save(s->w, r->buf, r->cap, &r->len) != FXS_OK)
		return false;
	r->tick = tick;
	return true;
}

static const snap_slot *snap_get(const fxs_session *s, uint64_t tick)
{
	const snap_slot *r = &s->ring[tick % FXS_SESSION_HISTORY];
	return r->tick == tick ? r : NULL;
}

fxs_input fxs_session_script_input(uint64_t tick, uint32_t player, void *seed_ptr)
{
	fxs_input in[FXS_MAX_PLAYERS];
	uint64_t seed = seed_ptr ? *(const uint64_t *)seed_ptr : 1;
	fxs_inputs_random(seed, tick, player + 1, in);
	return in[player];
}

static uint32_t first_dynamic_slot(const fxs_world *w)
{
	uint32_t n = fxs_world_slot_count(w);
	for (uint32_t i = 0; i < n; ++i) {
		fxs_body_id id = fxs_world_body_at(w, i);
		if (fxs_body_is_valid(w, id) && fxs_body_get_type(w, id) == FXS_BODY_DYNAMIC)
			return i;
	}
	return 0;
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
		fxs_packet_key(base, c->local, q, s->tx_key[q]);
		fxs_packet_key(base, q, c->local, s->rx_key[q]);
	}
	return true;
}

fxs_session *fxs_session_create(const fxs_session_config *c, char *err, size_t errlen)
{
	if (!c->scene || c->peers < 1 || c->peers > FXS_SESSION_MAX_PEERS || c->local >= c->peers || c->ticks < 1 ||
	    c->ticks > (1u << 30) || c->max_rollback > FXS_SESSION_MAX_ROLLBACK || c->input_delay > 60) {
		snprintf(err, errlen, "bad session configuration");
		return NULL;
	}
	if (!fxs_packet_crypto_init()) {
		snprintf(err, errlen, "libsodium cannot start");
		return NULL;
	}
	fxs_session *s = calloc(1, sizeof *s);
	if (!s)
		goto nomem;
	s->c = *c;
	if (!s->c.seq_window)
		s->c.seq_window = FXS_SESSION_SEQ_WINDOW;
	bool keyed = derive_keys(s, c);
	/* only the derived keys are kept */
	s->c.pair_keys = NULL;
	sodium_memzero(s->c.key, sizeof s->c.key);
	if (!keyed) {
		snprintf(err, errlen, "the session needs its key (32 bytes from the game's lobby; all zero is not one)");
		sodium_memzero(s, sizeof *s);
		free(s);
		return NULL;
	}
	if (!s->c.max_rollback)
		s->c.max_rollback = 8;
	if (!s->c.input)
		s->c.input = fxs_session_script_input;
	s->n = (uint64_t)c->ticks + 1;
	s->w = c->scene->create();
	s->hash = calloc(s->n, sizeof *s->hash);
	if (!s->w || !s->hash)
		goto nomem;
	for (uint32_t p = 0; p < c->peers; ++p) {
		s->inp[p] = calloc(s->n, sizeof(fxs_input));
		s->used[p] = calloc(s->n, sizeof(fxs_input));
		s->have[p] = calloc(s->n, 1);
		s->rhash[p] = calloc(s->n, sizeof(uint64_t));
		s->rhave[p] = calloc(s->n, 1);
		if (!s->inp[p] || !s->used[p] || !s->have[p] || !s->rhash[p] || !s->rhave[p])
			goto nomem;
		s->inp[p][0] = fxs_input_neutral();
		s->have[p][0] = 1;
	}
	for (uint32_t i = 0; i < FXS_SESSION_HISTORY; ++i)
		s->ring[i].tick = UINT64_MAX;
	s->rollback_to = UINT64_MAX;
	s->hash[0] = fxs_world_hash(s->w);
	s->perturb_slot = first_dynamic_slot(s->w);
	if (!snap_save(s, 0))
		goto nomem;
	return s;
nomem:
	snprintf(err, errlen, "out of memory");
	fxs_session_destroy(s);
	return NULL;
}

void fxs_session_destroy(fxs_session *s)
{
	if (!s)
		return;
	fxs_world_destroy(s->w);
	free(s->hash);
	for (uint32_t p = 0; p < FXS_SESSION_MAX_PEERS; ++p) {
		free(s->inp[p]);
		free(s->used[p]);
		free(s->have[p]);
		free(s->rhash[p]);
		free(s->rhave[p]);
	}
	for (uint32_t i = 0; i < FXS_SESSION_HISTORY; ++i)
		free(s->ring[i].buf);
	free(s->ds.snapshot);
	sodium_memzero(s->tx_key, sizeof s->tx_key);
	sodium_memzero(s->rx_key, sizeof s->rx_key);
	free(s);
}

/* ---- inputs ---- */

static void set_input(fxs_session *s, uint32_t p, uint64_t t, const fxs_input *in)
{
	s->inp[p][t] = *in;
	s->have[p][t] = 1;
	while (s->contig[p] + 1 < s->n && s->have[p][s->contig[p] + 1])
		++s->contig[p];
	/* a tick simulated with another input must be simulated again */
	if (t <= s->cur && !fxs_input_equal(&s->used[p][t], in)) {
		++s->st.mispredictions;
		if (t < s->rollback_to)
			s->rollback_to = t;
	}
}

static void gen_local(fxs_session *s)
{
	uint64_t want = s->cur + 1 + s->c.input_delay;
	if (want > s->c.ticks)
		want = s->c.ticks;
	while (s->local_gen < want) {
		uint64_t t = ++s->local_gen;
		fxs_input in = t <= s->c.input_delay ? fxs_input_neutral()
						     : s->c.input(t - s->c.input_delay, s->c.local, s->c.input_ctx);
		set_input(s, s->c.local, t, &in);
	}
}

/* ---- simulation ---- */

static void simulate(fxs_session *s, uint64_t t)
{
	fxs_input in[FXS_MAX_PLAYERS];
	for (uint32_t p = 0; p < s->c.peers; ++p) {
		if (s->have[p][t])
			in[p] = s->inp[p][t];
		else /* predict: the last input received in order, repeated */
			in[p] = s->inp[p][s->contig[p] < t ? s->contig[p] : t - 1];
		s->used[p][t] = in[p];
	}
	s->c.scene->apply_inputs(s->w, in, s->c.peers, t);
	if (fxs_world_step(s->w) != FXS_OK) {
		s->nomem = true;
		return;
	}
	if (s->c.perturb_tick == t) {
		fxs_body_id id = fxs_world_body_at(s->w, s->perturb_slot);
		fxg_vec3 pos = fxs_body_get_position(s->w, id);
		pos.x += pos.x < 0x7fffffff ? 1 : -1;
		fxs_body_set_transform(s->w, id, pos, fxs_body_get_rotation(s->w, id));
	}
	s->hash[t] = fxs_world_hash(s->w);
	if (!snap_save(s, t))
		s->nomem = true; /* a rollback to t could not restore it */
}

static void do_rollback(fxs_session *s)
{
	if (s->rollback_to == UINT64_MAX || s->nomem)
		return;
	uint64_t from = s->rollback_to;
	s->rollback_to = UINT64_MAX;
	if (from > s->cur)
		return;
	const snap_slot *r = snap_get(s, from - 1);
	if (!r || fxs_world_snapshot_restore(s->w, r->buf, r->len) != FXS_OK) {
		/* cannot happen: the window keeps from - 1 in the ring */
		fprintf(stderr, "session: rollback to tick %" PRIu64 " impossible\n", from);
		abort();
	}
	uint64_t depth = s->cur - from + 1;
	++s->st.rollbacks;
	s->st.resimulated += depth;
	if (depth > s->st.deepest_rollback)
		s->st.deepest_rollback = depth;
	for (uint64_t t = from; t <= s->cur && !s->nomem; ++t)
		simulate(s, t);
}

static void write_desync_files(fxs_session *s, const uint8_t *snap, size_t len)
{
	fxs_result e;
	fxs_world *w = fxs_world_create_from_snapshot(snap, len, &e);
	if (!w)
		return;
	snprintf(s->ds.body_file, sizeof s->ds.body_file, "%s/desync_peer%u_tick%" PRIu64 ".bodies", s->c.desync_dir,
		 s->c.local, s->ds.tick);
	snprintf(s->ds.snap_file, sizeof s->ds.snap_file, "%s/desync_peer%u_tick%" PRIu64 ".snap", s->c.desync_dir,
		 s->c.local, s->ds.tick);
	FILE *f = fopen(s->ds.body_file, "w");
	if (f) {
		fprintf(f, "# peer %u tick %" PRIu64 " state hash %016" PRIx64 "\n# slot body_hash\n", s->c.local,
			s->ds.tick, fxs_world_hash(w));
		uint32_t n = fxs_world_slot_count(w);
		for (uint32_t i = 0; i < n; ++i) {
			fxs_body_id id = fxs_world_body_at(w, i);
			if (fxs_body_is_valid(w, id))
				fprintf(f, "%u %016" PRIx64 "\n", i, fxs_body_hash(w, id));
		}
		fclose(f);
	}
	f = fopen(s->ds.snap_file, "wb");
	if (f) {
		fwrite(snap, 1, len, f);
		fclose(f);
	}
	fxs_world_destroy(w);
}

static void compare_hashes(fxs_session *s)
{
	for (uint32_t q = 0; q < s->c.peers; ++q) {
		if (q == s->c.local)
			continue;
		uint64_t upto = s->conf < s->rcontig[q] ? s->conf : s->rcontig[q];
		while (s->compared[q] < upto) {
			uint64_t t = ++s->compared[q];
			if (s->rhash[q][t] != s->hash[t] && (!s->ds.tick || t < s->ds.tick)) {
				s->ds.tick = t;
				s->ds.peer = q;
				s->ds.local_hash = s->hash[t];
				s->ds.remote_hash = s->rhash[q][t];
				const snap_slot *r = snap_get(s, t);
				free(s->ds.snapshot);
				s->ds.snapshot = NULL;
				s->ds.have_state = false;
				if (r && (s->ds.snapshot = malloc(r->len)) != NULL) {
					memcpy(s->ds.snapshot, r->buf, r->len);
					s->ds.snapshot_len = r->len;
					s->ds.have_state = true;
					if (s->c.desync_dir)
						write_desync_files(s, r->buf, r->len);
				}
			}
		}
	}
}

static void update_confirmed(fxs_session *s)
{
	uint64_t c = s->cur;
	for (uint32_t p = 0; p < s->c.peers; ++p)
		if (s->contig[p] < c)
			c = s->contig[p];
	if (c > s->conf)
		s->conf = c;
	compare_hashes(s);
}

static bool can_step(const fxs_session *s)
{
	uint64_t t = s->cur + 1;
	if (t > s->c.ticks || s->nomem)
		return false;
	if (s->c.mode == FXS_SESSION_LOCKSTEP) {
		for (uint32_t p = 0; p < s->c.peers; ++p)
			if (!s->have[p][t])
				return false;
		return true;
	}
	return t - s->conf <= s->c.max_rollback;
}

uint32_t fxs_session_advance(fxs_session *s, uint32_t max_ticks)
{
	uint32_t done = 0;
	do_rollback(s);
	update_confirmed(s);
	while (done < max_ticks) {
		gen_local(s);
		if (!can_step(s)) {
			if (s->cur < s->c.ticks)
				++s->st.stalls;
			break;
		}
		simulate(s, ++s->cur);
		++s->st.ticks;
		++done;
		update_confirmed(s);
	}
	gen_local(s);
	return done;
}

/* ---- packets ---- */

/* The sequence number window (a packet of q's with seq): FXS_DROP_NONE
 * when it is new and within reach, with how to record it; nothing changes
 * here (the caller records it once every other check passed). */
static fxs_drop seq_check(const fxs_session *s, uint32_t q, uint32_t seq)
{
	if (seq == 0)
		return FXS_DROP_REPLAYED; /* never sent: sequence numbers start at 1 */
	if (seq > s->rx_max[q])
		return seq - s->rx_max[q] > s->c.seq_window ? FXS_DROP_WINDOW : FXS_DROP_NONE;
	uint32_t back = s->rx_max[q] - seq; /* 64 sequence numbers back from the highest seen */
	return back >= 64 || (s->rx_window[q] >> back & 1) ? FXS_DROP_REPLAYED : FXS_DROP_NONE;
}

static void seq_record(fxs_session *s, uint32_t q, uint32_t seq)
{
	if (seq > s->rx_max[q]) {
		uint32_t shift = seq - s->rx_max[q];
		s->rx_window[q] = shift >= 64 ? 0 : s->rx_window[q] << shift;
		s->rx_window[q] |= 1;
		s->rx_max[q] = seq;
	} else {
		s->rx_window[q] |= (uint64_t)1 << (s->rx_max[q] - seq);
	}
}

/* Every check but the frame's and the MAC's, on an authentic packet p that
 * came from transport source src: FXS_DROP_NONE or why not. */
static fxs_drop content_check(const fxs_session *s, const fxs_packet *p, int src)
{
	if (p->session != s->c.session_id)
		return FXS_DROP_SESSION;
	if (src != (int)p->from)
		return FXS_DROP_SPOOFED;
	if (p->player != p->from) /* peer k owns player k */
		return FXS_DROP_NOT_OWNER;
	fxs_drop d = seq_check(s, p->from, p->seq);
	if (d != FXS_DROP_NONE)
		return d;
	if ((p->n_inputs && (p->input_first < 1 || (uint64_t)p->input_first + p->n_inputs - 1 > s->c.ticks)) ||
	    (p->n_hashes && (p->hash_first < 1 || (uint64_t)p->hash_first + p->n_hashes - 1 > s->c.ticks)) ||
	    p->input_ack > s->c.ticks || p->hash_ack > s->c.ticks || p->tick > s->c.ticks)
		return FXS_DROP_RANGE;
	/* an input or hash contradicting one we hold: the whole packet goes */
	uint32_t q = p->from;
	for (uint32_t i = 0; i < p->n_inputs; ++i) {
		uint64_t t = (uint64_t)p->input_first + i;
		if (s->have[q][t] && !fxs_input_equal(&s->inp[q][t], &p->inputs[i]))
			return FXS_DROP_CONFLICT;
	}
	for (uint32_t i = 0; i < p->n_hashes; ++i) {
		uint64_t t = (uint64_t)p->hash_first + i;
		if (s->rhave[q][t] && s->rhash[q][t] != p->hashes[i])
			return FXS_DROP_CONFLICT;
	}
	return FXS_DROP_NONE;
}

fxs_drop fxs_session_receive(fxs_session *s, const uint8_t *buf, size_t len, int src)
{
	fxs_packet p;
	uint32_t from = 0, to = 0;
	++s->st.packets_received;
	fxs_drop d = fxs_packet_frame(buf, len, &from, &to);
	if (d == FXS_DROP_NONE && (from >= s->c.peers || from == s->c.local || to != s->c.local))
		d = FXS_DROP_PEER; /* no key to check it with */
	if (d == FXS_DROP_NONE)
		d = fxs_packet_open(buf, len, s->rx_key[from], &p);
	if (d == FXS_DROP_NONE)
		d = content_check(s, &p, src);
	if (d != FXS_DROP_NONE) {
		++s->st.dropped[d];
		++s->st.dropped_total;
		return d;
	}
	/* authentic, new, within reach and consistent: only now does it count */
	uint32_t q = p.from;
	seq_record(s, q, p.seq);
	++s->st.packets_accepted;
	++s->peer_packets[q];
	for (uint32_t i = 0; i < p.n_inputs; ++i) {
		uint64_t t = (uint64_t)p.input_first + i;
		if (!s->have[q][t])
			set_input(s, q, t, &p.inputs[i]);
	}
	for (uint32_t i = 0; i < p.n_hashes; ++i) {
		uint64_t t = (uint64_t)p.hash_first + i;
		s->rhash[q][t] = p.hashes[i];
		s->rhave[q][t] = 1;
	}
	while (s->rcontig[q] + 1 < s->n && s->rhave[q][s->rcontig[q] + 1])
		++s->rcontig[q];
	if (p.input_ack > s->their_input_ack[q])
		s->their_input_ack[q] = p.input_ack;
	if (p.hash_ack > s->their_hash_ack[q])
		s->their_hash_ack[q] = p.hash_ack;
	if (p.flags & FXS_PKT_FLAG_DONE)
		s->peer_done[q] = true;
	return FXS_DROP_NONE;
}

size_t fxs_session_packet(fxs_session *s, uint32_t to, uint8_t *out, size_t cap)
{
	if (to >= s->c.peers || to == s->c.local || s->tx_seq[to] == UINT32_MAX)
		return 0; /* (2^32 - 1 packets to one peer: 2 years at 60 a second) */
	fxs_packet p;
	memset(&p, 0, sizeof p);
	p.type = FXS_PKT_DATA;
	p.from = (uint8_t)s->c.local;
	p.to = (uint8_t)to;
	p.session = s->c.session_id;
	p.seq = ++s->tx_seq[to];
	p.ack_seq = s->rx_max[to];
	p.flags = fxs_session_complete(s) ? FXS_PKT_FLAG_DONE : 0;
	p.player = (uint8_t)s->c.local;
	p.tick = (uint32_t)s->cur;
	p.input_ack = (uint32_t)s->contig[to];
	p.hash_ack = (uint32_t)s->rcontig[to];
	/* every input the peer has not acknowledged, oldest first (redundancy) */
	uint64_t first = s->their_input_ack[to] + 1, last = s->contig[s->c.local];
	if (first <= last) {
		uint64_t k = last - first + 1;
		p.n_inputs = (uint8_t)(k > FXS_PKT_MAX_INPUTS ? FXS_PKT_MAX_INPUTS : k);
		p.input_first = (uint32_t)first;
		for (uint32_t i = 0; i < p.n_inputs; ++i)
			p.inputs[i] = s->inp[s->c.local][first + i];
	}
	first = s->their_hash_ack[to] + 1;
	last = s->conf;
	if (first <= last) {
		uint64_t k = last - first + 1;
		p.n_hashes = (uint8_t)(k > FXS_PKT_MAX_HASHES ? FXS_PKT_MAX_HASHES : k);
		p.hash_first = (uint32_t)first;
		for (uint32_t i = 0; i < p.n_hashes; ++i)
			p.hashes[i] = s->hash[first + i];
	}
	size_t n = fxs_packet_encode(&p, s->tx_key[to], out, cap);
	if (n) {
		++s->st.packets_sent;
		s->st.bytes_sent += n;
	}
	return n;
}

/* ---- queries ---- */

uint64_t fxs_session_tick(const fxs_session *s) { return s->cur; }
uint64_t fxs_session_confirmed(const fxs_session *s) { return s->conf; }
bool fxs_session_peer_done(const fxs_session *s, uint32_t peer) { return peer < s->c.peers && s->peer_done[peer]; }
uint64_t fxs_session_peer_packets(const fxs_session *s, uint32_t peer)
{
	return peer < s->c.peers ? s->peer_packets[peer] : 0;
}
const fxs_session_stats *fxs_session_stats_get(const fxs_session *s) { return &s->st; }
const fxs_world *fxs_session_world(const fxs_session *s) { return s->w; }
const fxs_session_desync *fxs_session_desync_get(const fxs_session *s) { return &s->ds; }
bool fxs_session_out_of_memory(const fxs_session *s) { return s->nomem; }
uint32_t fxs_session_perturb_slot(const fxs_session *s) { return s->perturb_slot; }
uint64_t fxs_session_hash(const fxs_session *s, uint64_t t) { return t <= s->cur ? s->hash[t] : 0; }

bool fxs_session_complete(const fxs_session *s)
{
	if (s->conf < s->c.ticks)
		return false;
	for (uint32_t q = 0; q < s->c.peers; ++q) {
		if (q == s->c.local)
			continue;
		if (s->their_input_ack[q] < s->c.ticks || s->their_hash_ack[q] < s->c.ticks || s->compared[q] < s->c.ticks)
			return false;
	}
	return true;
}

bool fxs_session_inputs(const fxs_session *s, uint64_t t, fxs_input out[FXS_MAX_PLAYERS])
{
	if (t < 1 || t > s->conf)
		return false;
	for (uint32_t p = 0; p < s->c.peers; ++p)
		out[p] = s->inp[p][t];
	return true;
}

bool fxs_session_compare_snapshots(const void *a, size_t alen, const void *b, size_t blen, char *out, size_t n)
{
	fxs_result e;
	fxs_world *wa = fxs_world_create_from_snapshot(a, alen, &e);
	fxs_world *wb = fxs_world_create_from_snapshot(b, blen, &e);
	bool differ = false;
	if (wa && wb) {
		fxs_state_diff d;
		differ = fxs_world_first_difference(wa, wb, &d);
		if (differ)
			fxs_state_diff_format(&d, out, n);
	}
	fxs_world_destroy(wa);
	fxs_world_destroy(wb);
	return differ;
}
