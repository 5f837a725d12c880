/* fixstep sessions: lockstep and rollback netcode for a game on fixstep,
 * GGPO-style. The game gives the session its state through callbacks (save,
 * load, advance, checksum), or uses the ready ones over an fxs_world
 * (fxs_session_world_callbacks) and writes only apply_inputs. Inputs are
 * opaque bytes: input_size bytes per player per tick, which the game encodes
 * and decodes itself (deterministically, endian-neutral).
 *
 * Peers and players. A session has `peers` peers (ids 0..peers-1); peer k
 * owns players[k] players (0: a spectator, which receives the confirmed
 * inputs, simulates them and never sends inputs). Players are numbered in
 * peer order: peer 0's first, then peer 1's, and so on.
 *
 * Ticks. Tick t (1-based) applies every player's input for t, then steps.
 *  - lockstep: tick t is simulated once every player's input for t is here.
 *  - rollback: a missing remote input is predicted (the player's last input
 *    received in order, repeated); when the real one arrives and differs,
 *    the session loads the state saved before it and advances again up to
 *    the present.
 * A local input is taken for tick t + input_delay when tick t is next. Peers
 * exchange the checksums of confirmed ticks (every input known); the first
 * mismatch is a desync.
 *
 * Packets are bytes in and out (fxs_session_packet, fxs_session_receive); a
 * transport (fxs_transport: UDP, the simulated network, or the game's own)
 * moves them. Every packet is authenticated with a key derived from the
 * session key the game's lobby gives every peer, and accepted only when its
 * MAC is right, its sequence number is new and within reach, and everything
 * in it fits the session. Anything else changes nothing but the counters of
 * dropped packets, by reason.
 *
 * Limits (and why):
 *  - FXS_SESSION_MAX_PEERS 64 peers, spectators included: a full mesh sends
 *    peers x (peers - 1) datagrams a tick (4032 at 64: 242,000 a second at
 *    60 Hz); a bigger game wants a relay, which is a transport.
 *  - FXS_SESSION_MAX_PLAYERS 64 players in all.
 *  - input_size x (players of one peer) <= FXS_SESSION_MAX_TICK_INPUT (124)
 *    bytes: a packet is at most FXS_SESSION_PACKET_MAX (1200) bytes, which
 *    fits the IPv6 minimum MTU (1280) with its headers; 87 of them are the
 *    frame, the MAC and the time sync's fields, and up to 120 are confirmed
 *    checksums, which leaves
 *    993 for inputs; a packet must hold at least FXS_SESSION_MIN_REDUNDANCY
 *    (8) ticks of its sender's inputs, so that a lost packet costs nothing
 *    once the next arrives: 993 / 8 = 124.
 *  - Memory: the session keeps every tick's inputs and checksums up to
 *    where it has got, (players x input_size + 8 + 10 x peers) bytes a
 *    tick (4 peers of one 12-byte player: 96 bytes a tick, 21 MB an hour at
 *    60 Hz; the arrays are reserved for `ticks` ticks, and the system gives
 *    their pages only as they are written), and 64 saved states. What
 *    another peer's packets can make it hold beyond its own progress is
 *    bounded by the input window: FXS_SESSION_INPUT_WINDOW (128) ticks of
 *    that peer's inputs and checksums (128 x (its players x input_size +
 *    10) bytes, in at most a few pages per array), whatever `ticks` is. */
#ifndef FIXSTEP_SESSION_H
#define FIXSTEP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fixstep/fixstep.h"
#include "fixstep/replay.h"

#ifdef __cplusplus
extern "C" {
#endif
FXG_EXPORT_BEGIN

#define FXS_SESSION_MAX_PEERS 64
#define FXS_SESSION_MAX_PLAYERS 64
#define FXS_SESSION_PACKET_MAX 1200u
#define FXS_SESSION_MAX_TICK_INPUT 124u
#define FXS_SESSION_MIN_REDUNDANCY 8u
#define FXS_SESSION_MAX_TICKS (1u << 30)
#define FXS_SESSION_HISTORY 64u /* saved states kept (rollback window + desync diagnosis) */
#define FXS_SESSION_MAX_ROLLBACK 15u
#define FXS_SESSION_SEQ_WINDOW 4096u /* default seq_window */
#define FXS_SESSION_KEY_BYTES 32u
/* Inputs and checksums are taken for ticks up to this many past the
 * furthest of our simulated tick, confirmed tick and local inputs; further
 * ones are dropped (FXS_DROP_AHEAD, or counted in stats.ahead_dropped when
 * only a packet's tail reaches there) and sent again once in reach. No
 * honest peer gets there: it runs at most max_rollback (15) ticks past what
 * it confirmed, which needs our inputs, and takes its own inputs at most
 * input_delay (60) + 1 ticks ahead. */
#define FXS_SESSION_INPUT_WINDOW 128u

typedef enum fxs_session_mode { FXS_SESSION_LOCKSTEP = 0,
				FXS_SESSION_ROLLBACK = 1 } fxs_session_mode;

/* ---- the game's state: GGPO-style callbacks ---- */

/* What the state bytes are: opaque to the session, or fxs_world snapshots
 * (fxs_world_create_from_snapshot reads them; desyncs name a body). */
typedef enum fxs_session_state_format {
	FXS_SESSION_STATE_OPAQUE = 0,
	FXS_SESSION_STATE_WORLD = 1
} fxs_session_state_format;

typedef struct fxs_session_callbacks {
	void *ctx;
	/* Bytes the state takes now (an upper bound is fine). */
	size_t (*state_size)(void *ctx);
	/* Write the whole state into buf (cap >= state_size()); *len = bytes
	 * written. false: it cannot (out of memory). */
	bool (*save)(void *ctx, uint8_t *buf, size_t cap, size_t *len);
	/* Put back a state save() wrote. false: it cannot. */
	bool (*load)(void *ctx, const uint8_t *buf, size_t len);
	/* Simulate tick `tick` (1-based) with every player's input: `inputs`
	 * holds players x input_size bytes, player p's at p x input_size. Any
	 * bytes must be safe (a peer's inputs are untrusted). Deterministic.
	 * false: out of memory (the session simulates no further tick). */
	bool (*advance)(void *ctx, uint64_t tick, const uint8_t *inputs, uint32_t players);
	/* The state's checksum (confirmed ticks' ones are compared between peers). */
	uint64_t (*checksum)(void *ctx);
	fxs_session_state_format format;
} fxs_session_callbacks;

/* A game whose state is one fxs_world: the ready callbacks. apply_inputs
 * turns this tick's inputs (players x input_size bytes) into forces,
 * impulses, moves on the world; the step follows. It is the replay's
 * fxs_replay_apply_fn: one function serves the session, its replay
 * (fxs_session_write_replay) and the verifier (fxs_replay_verify). FXS_OK,
 * or why it cannot apply them, which stops the session. */
typedef fxs_replay_apply_fn fxs_session_apply_fn;
typedef struct fxs_session_world {
	fxs_world *world; /* the game's; the session never destroys it */
	fxs_session_apply_fn apply_inputs;
	void *ctx;
	/* Set by advance when apply_inputs or the step failed (FXS_OK before):
	 * its result and the tick. The session then simulates no further tick
	 * (fxs_session_out_of_memory is true). */
	fxs_result failed;
	uint64_t failed_tick;
} fxs_session_world;
/* Callbacks over *gw (which must outlive the session): save / load are the
 * world's snapshots, checksum is fxs_world_hash, advance calls apply_inputs
 * then fxs_world_step, and fails (gw->failed says why) when either does. */
fxs_session_callbacks fxs_session_world_callbacks(fxs_session_world *gw);

/* ---- configuration ---- */

/* The local input of `player` (one of ours) for `tick`: input_size bytes
 * into out (zeroed before the call). Called once per tick and player, when
 * tick - input_delay is next. */
typedef void (*fxs_session_input_fn)(void *ctx, uint64_t tick, uint32_t player, uint8_t *out);

typedef struct fxs_session_config {
	uint32_t peers; /* 1..FXS_SESSION_MAX_PEERS, spectators included */
	uint32_t local; /* this peer's id */
	/* players[k]: players peer k owns (0: a spectator). All zero: one each. */
	uint8_t players[FXS_SESSION_MAX_PEERS];
	uint32_t input_size; /* bytes per player per tick (1..FXS_SESSION_MAX_TICK_INPUT; 0 = 12) */
	uint32_t session_id;
	fxs_session_mode mode;
	uint32_t ticks;        /* the session ends after this tick (1..FXS_SESSION_MAX_TICKS) */
	uint32_t input_delay;  /* 0..60 */
	uint32_t max_rollback; /* rollback: how far the simulation may run ahead of the confirmed tick (1..15; 0 = 8) */
	fxs_session_callbacks game;
	fxs_session_input_fn input; /* NULL: every local input is zero bytes */
	void *input_ctx;
	const char *desync_dir; /* NULL: no files */
	/* The session key: 32 random bytes the game's lobby makes for this
	 * session and gives every peer over its own authenticated channel (all
	 * zero is refused). pair_keys (NULL: none), when set, has one key per
	 * peer instead, the one this peer shares with peer q at [q], so that no
	 * peer can make packets that look like another's. */
	uint8_t key[FXS_SESSION_KEY_BYTES];
	const uint8_t (*pair_keys)[FXS_SESSION_KEY_BYTES];
	/* the largest jump forward in a peer's sequence numbers that is
	 * accepted (0: FXS_SESSION_SEQ_WINDOW; else 64..2^30); further is
	 * out_of_window */
	uint32_t seq_window;
	/* Late join and reconnect (docs/sessions.md, "Late join and
	 * reconnect"). absent_ms: a player peer that its host (the lowest
	 * other player peer) has heard nothing from for this long is declared
	 * absent, and its inputs are neutral (zero bytes) until it rejoins; 0:
	 * never (the session waits for it); else 100..3600000. Every peer of a session must have
	 * the same. join: this peer joins a session in progress (late, or
	 * after a restart): it asks its host for the state of a confirmed
	 * tick, simulates nothing before it has it, and takes its own inputs
	 * from the tick the host gives it. */
	uint32_t absent_ms;
	bool join;
	/* A player peer silent this long is reported INTERRUPTED (events);
	 * 0: 250 ms, or absent_ms / 2 when that is less; else at least 10 and
	 * below absent_ms. */
	uint32_t interrupt_ms;
} fxs_session_config;

/* Why a packet was dropped. */
typedef enum fxs_drop {
	FXS_DROP_NONE = 0,
	FXS_DROP_TRUNCATED, /* shorter than its frame says */
	FXS_DROP_OVERSIZED, /* longer than FXS_SESSION_PACKET_MAX or than its frame says */
	FXS_DROP_MAGIC,
	FXS_DROP_VERSION,
	FXS_DROP_TYPE,      /* a packet type this session does not handle */
	FXS_DROP_COUNT,     /* the body's counts disagree with its length */
	FXS_DROP_MAC,       /* the MAC fails: not made with the session's key (forged or damaged) */
	FXS_DROP_SESSION,   /* another session id */
	FXS_DROP_PEER,      /* from / to not a peer of this session, or from == us */
	FXS_DROP_SPOOFED,   /* the transport's source is not the peer the packet claims */
	FXS_DROP_NOT_OWNER, /* inputs for players the sender does not own (or of another size) */
	FXS_DROP_REPLAYED,  /* a sequence number already seen or too old (duplicates too) */
	FXS_DROP_RANGE,     /* ticks outside the session */
	FXS_DROP_CONFLICT,  /* an input that contradicts one already received */
	FXS_DROP_WINDOW,    /* a sequence number further ahead than the peer can have sent */
	FXS_DROP_AHEAD,     /* inputs or checksums from beyond the input window (FXS_SESSION_INPUT_WINDOW) */
	FXS_DROP_REASONS
} fxs_drop;
/* "truncated", "bad_mac", ...; "?" out of range. */
const char *fxs_drop_name(fxs_drop d);

typedef struct fxs_session_stats {
	uint64_t ticks; /* simulated (first time) */
	uint64_t rollbacks;
	uint64_t deepest_rollback;
	uint64_t resimulated; /* ticks simulated again by rollbacks */
	uint64_t mispredictions;
	uint64_t packets_sent, bytes_sent, packets_received, packets_accepted;
	uint64_t dropped[FXS_DROP_REASONS];
	uint64_t dropped_total;
	uint64_t stalls; /* advance calls that could not simulate */
	uint64_t events_lost; /* events dropped from a full queue (never drained) */
	uint64_t ahead_dropped; /* ticks of a peer's inputs or checksums beyond the input window, not taken */
} fxs_session_stats;

typedef struct fxs_session fxs_session;

/* A config with the defaults: one player per peer, 12-byte inputs,
 * lockstep, rollback window 8, no key (which must be set). */
fxs_session_config fxs_session_default_config(void);

/* NULL with why in err (when err is not NULL) on a bad configuration or
 * no memory: every field is checked, each with its reason ("mode must be
 * FXS_SESSION_LOCKSTEP (0) or FXS_SESSION_ROLLBACK (1)", "desync_dir must
 * be NULL or a directory that exists", a missing key or callback, ...). */
fxs_session *fxs_session_create(const fxs_session_config *c, char *err, size_t errlen);
void fxs_session_destroy(fxs_session *s); /* NULL: nothing */

/* Feed one received datagram; src is the peer the transport knows it came
 * from (-1: an unknown address). Returns why it was dropped (or NONE). */
fxs_drop fxs_session_receive(fxs_session *s, const uint8_t *buf, size_t len, int src);
/* Process rollbacks, confirm ticks, compare checksums, and simulate at
 * most max_ticks new ticks when allowed. Returns the ticks simulated. */
uint32_t fxs_session_advance(fxs_session *s, uint32_t max_ticks);
/* The packet for peer `to` (0 when to is us or not a peer); counts bytes
 * sent. cap >= FXS_SESSION_PACKET_MAX always suffices. */
size_t fxs_session_packet(fxs_session *s, uint32_t to, uint8_t *out, size_t cap);

/* The session's other packets for peer `to` (the desync exchange's and the
 * joins' transfers and messages): call it after fxs_session_packet until
 * it returns 0, and send each. cap >= FXS_SESSION_PACKET_MAX. */
size_t fxs_session_packet_more(fxs_session *s, uint32_t to, uint8_t *out, size_t cap);

/* The caller's clock (ms), for the absence timeout and the transfers'
 * resends; without it every advance call counts 16 ms. The milliseconds
 * are opaque: only their differences count, from the first call on (the
 * first fxs_session_set_time or fxs_session_pump), so a clock may start
 * anywhere and peers' clocks may differ by hours. A value below the
 * greatest seen is taken as that one (time never goes back). */
void fxs_session_set_time(fxs_session *s, uint64_t now_ms);

/* A join, as this peer sees it. */
typedef struct fxs_session_join_status {
	bool joining;         /* this peer joins and has not its return tick yet */
	bool loaded;          /* this peer joined: the state came and was loaded */
	bool dropped;         /* declared absent while running: it must restart to rejoin */
	uint64_t state_tick;  /* the confirmed tick up to which it got the state and inputs */
	uint64_t return_tick; /* its own inputs count from this tick */
	uint32_t absences;    /* absences this peer declared as a host */
	/* A join proves itself (docs/sessions.md, "What a join proves"):
	 * offers of the host's refused (each then asked for again), the last
	 * one's reason ("join refused (state_hash): ..."; reasons malformed,
	 * state_unreadable, snapshot_step, state_hash, inputs,
	 * beyond_confirmed), and the peers other than the host that vouched
	 * for the state loaded. */
	uint32_t refusals;
	char refused[200];
	uint32_t vouchers;
} fxs_session_join_status;
/* false for a NULL session. */
bool fxs_session_join_get(const fxs_session *s, fxs_session_join_status *st);

/* 0 on a NULL session below. */
uint64_t fxs_session_tick(const fxs_session *s);      /* simulated */
uint64_t fxs_session_confirmed(const fxs_session *s); /* every input known */
/* Players in the session, the first player of peer `peer` and how many it
 * owns (0: a spectator or not a peer). */
uint32_t fxs_session_players(const fxs_session *s);
uint32_t fxs_session_first_player(const fxs_session *s, uint32_t peer);
uint32_t fxs_session_peer_players(const fxs_session *s, uint32_t peer);
uint32_t fxs_session_input_size(const fxs_session *s);
/* Finished: every tick confirmed, every player peer holds all our inputs and
 * checksums, we hold all of theirs and compared them. Spectators are not
 * waited for. */
bool fxs_session_complete(const fxs_session *s);
/* A peer told us it finished. */
bool fxs_session_peer_done(const fxs_session *s, uint32_t peer);
/* Packets accepted from `peer` (for timeouts: the caller keeps its clock). */
uint64_t fxs_session_peer_packets(const fxs_session *s, uint32_t peer);
/* NULL for a NULL session. */
const fxs_session_stats *fxs_session_stats_get(const fxs_session *s);
/* Checksum after tick t (t <= simulated; final when t <= confirmed); tick 0 = initial. */
uint64_t fxs_session_hash(const fxs_session *s, uint64_t t);
/* Confirmed inputs of tick t (1..confirmed) for every player: players x
 * input_size bytes into out (cap at least that). */
bool fxs_session_inputs(const fxs_session *s, uint64_t t, uint8_t *out, size_t cap);
/* A callback failed (out of memory, or the game's own reason: for the
 * ready callbacks, fxs_session_world.failed): the session simulates no
 * further tick. */
bool fxs_session_out_of_memory(const fxs_session *s);
/* A replay (fixstep/replay.h, input mode) of what the session confirmed:
 * ticks 1..confirmed simulated again on `start`, the world as it was at the
 * session's start (a copy of the game's own, which this steps), with the
 * game's apply_inputs, written to path under `name` (a tag, may be NULL).
 * *final_hash (may be NULL): the world's hash after it, which must be the
 * session's. FXS_REPLAY_OK, or why (err; an apply failure is
 * FXS_REPLAY_CORRUPT, naming the tick and its result). fxs_replay_verify
 * proves it on any machine from the start's hash, with the same apply. */
fxs_replay_status fxs_session_write_replay(const fxs_session *s, fxs_world *start, fxs_session_apply_fn apply,
					   void *ctx, const char *path, const char *name, uint64_t *final_hash,
					   char *err, size_t errlen);

/* Desync: tick 0 when none; else the first mismatching tick, the peer and
 * both checksums. */
typedef struct fxs_session_desync {
	uint64_t tick;
	uint32_t peer;
	uint64_t local_hash, remote_hash;
	bool have_state;   /* our state of that tick was still in the ring */
	uint8_t *snapshot; /* our saved state of that tick (owned by the session) */
	size_t snapshot_len;
	fxs_session_state_format format;
	/* written when desync_dir was set: per-body hashes (a world) and the state */
	char body_file[256], snap_file[256];
} fxs_session_desync;
const fxs_session_desync *fxs_session_desync_get(const fxs_session *s);
/* A desync named with the other peer over the protocol, with no file read:
 * "desync at tick T: body B field F (peer P: X, peer Q: Y)" (the same line
 * on both peers; for an opaque state "state bytes A..B"); "" until named.
 * fxs_session_complete waits for it (for at most 10 s of the session's
 * clock when the other peer does not answer). */
const char *fxs_session_desync_line(const fxs_session *s);

/* ---- synctest (GGPO): no network, no key ---- */

/* Run `ticks` ticks of game with the inputs of `input` (all players'; NULL:
 * zero bytes); every tick load the state `depth` ticks back (1..64),
 * advance again and compare each checksum with the first run's. false with
 * the first mismatch in err. */
typedef struct fxs_synctest_result {
	uint64_t rollbacks, resimulated;
	uint64_t final_hash;
	size_t snapshot_bytes;
} fxs_synctest_result;
bool fxs_synctest(const fxs_session_callbacks *game, uint32_t players, uint32_t input_size, uint32_t ticks,
		  uint32_t depth, fxs_session_input_fn input, void *input_ctx, fxs_synctest_result *res, char *err,
		  size_t errlen);

/* ---- transports ---- */

/* A datagram goes to a peer id; a received one comes with the peer id its
 * source belongs to (-1: not a peer's). A game plugs in its own (a relay,
 * Steam sockets, WebRTC) by filling these. */
typedef struct fxs_transport {
	void *ctx;
	/* 0 on success (a datagram handed over, maybe to be lost) */
	int (*send)(void *ctx, uint32_t to, const uint8_t *buf, size_t len);
	/* length of the next datagram (0: none now); *from = peer id or -1 */
	size_t (*recv)(void *ctx, uint8_t *buf, size_t cap, int *from);
} fxs_transport;

/* Seeded impairments: the same seed loses, delays and duplicates the same
 * datagrams on every machine. */
typedef struct fxs_impair {
	double loss, dup;             /* probabilities */
	uint32_t delay_ms, jitter_ms; /* delay = delay_ms + uniform 0..jitter_ms */
	uint64_t seed;
} fxs_impair;

/* The simulated network: deterministic, in memory, on a virtual clock (ms),
 * with seeded loss, delay, jitter (and the reordering it makes) and
 * duplication. NULL on bad arguments (1..FXS_SESSION_MAX_PEERS endpoints)
 * or no memory. */
typedef struct fxs_simnet fxs_simnet;
fxs_simnet *fxs_simnet_create(uint32_t endpoints, const fxs_impair *imp);
void fxs_simnet_destroy(fxs_simnet *n);
/* the transport of endpoint `peer` (a transport that sends nothing for a bad id) */
fxs_transport fxs_simnet_endpoint(fxs_simnet *n, uint32_t peer);
void fxs_simnet_advance(fxs_simnet *n, uint32_t ms);
/* a raw datagram to `to` that the network says came from `from` (-1 unknown) */
void fxs_simnet_inject(fxs_simnet *n, uint32_t to, int from, const uint8_t *buf, size_t len);
typedef struct fxs_simnet_stats {
	uint64_t sent, lost, duplicated, delivered;
} fxs_simnet_stats;
fxs_simnet_stats fxs_simnet_stats_get(const fxs_simnet *n);

/* UDP (POSIX sockets), IPv4 or IPv6. bind_addr is "HOST:PORT" or
 * "[V6]:PORT" ("0.0.0.0:7000", "[::]:7000", "127.0.0.1:7000"; a name is
 * resolved with getaddrinfo); peer_addrs[i] the address of peer i in the
 * same form (ours included, unused). An IPv6 socket reaches IPv4 peers
 * through mapped addresses. A datagram is reported from peer i only when
 * its source address and port are peer i's; else from -1. imp may be NULL. */
typedef struct fxs_udp fxs_udp;
fxs_udp *fxs_udp_open(const char *bind_addr, const char *const *peer_addrs, uint32_t peers,
		      const fxs_impair *imp, char *err, size_t errlen);
void fxs_udp_close(fxs_udp *u);
fxs_transport fxs_udp_transport(fxs_udp *u);
/* send what the impairment queue holds and is due (call often) */
void fxs_udp_flush(fxs_udp *u);
/* The port bound (useful after binding port 0); 0 for NULL. */
uint16_t fxs_udp_port(const fxs_udp *u);

/* ---- driving a session in real time ---- */

/* One pass of a game's loop, on the caller's clock (ms, monotonic, any
 * origin: as fxs_session_set_time, which it calls): every datagram waiting
 * on t goes to fxs_session_receive; then the ticks due (one every tick_ms
 * since the first call, at most 2 a pass to catch up) are simulated; then,
 * once per tick_ms, a packet goes to every peer. Every timer (absence,
 * resends, pacing) starts at the first call. Returns the ticks simulated. */
uint32_t fxs_session_pump(fxs_session *s, const fxs_transport *t, uint64_t now_ms, uint32_t tick_ms);
/* ---- connection events ---- */

/* What happened to the session's connections, in order: drain them with
 * fxs_session_event_poll after each pump (or advance). The queue holds the
 * latest 128; older ones not drained are dropped (stats.events_lost). */
typedef enum fxs_session_event_type {
	FXS_SESSION_EVENT_NONE = 0,
	/* peer: a round trip with it measured; progress of total (5) */
	FXS_SESSION_EVENT_SYNCHRONIZING,
	/* peer: enough round trips: its clock and time sync are measured */
	FXS_SESSION_EVENT_SYNCHRONIZED,
	/* peer: a player peer silent for interrupt_ms (the session may stall on it) */
	FXS_SESSION_EVENT_INTERRUPTED,
	/* peer: heard from again after an interruption */
	FXS_SESSION_EVENT_RESUMED,
	/* peer: declared absent (absent_ms): its inputs are neutral from tick until it rejoins */
	FXS_SESSION_EVENT_ABSENT,
	/* peer = us: the others declared us absent (or a join's state did not
	 * load): this session goes on without us; restart and join to come back */
	FXS_SESSION_EVENT_DISCONNECTED,
	/* peer = us: our join is done: the state of state_tick loaded, our own
	 * inputs count from tick */
	FXS_SESSION_EVENT_JOINED,
	/* peer: it came back (a late join or a restart): its own inputs from tick */
	FXS_SESSION_EVENT_REJOINED,
	/* peer: its checksum of confirmed tick `tick` differs from ours */
	FXS_SESSION_EVENT_DESYNC,
	/* peer = our host: the state it offered for our join did not prove
	 * itself: line holds why (as join status' refused); we ask again */
	FXS_SESSION_EVENT_JOIN_REFUSED,
	/* the desync with peer named with it (one event a peer): tick, and
	 * line in the words of fxs_session_desync_line, which holds the lowest
	 * tick's of these lines */
	FXS_SESSION_EVENT_DESYNC_NAMED
} fxs_session_event_type;

typedef struct fxs_session_event {
	fxs_session_event_type type;
	uint32_t peer;
	uint64_t tick;
	uint32_t progress, total; /* SYNCHRONIZING */
	uint64_t state_tick;      /* JOINED */
	const char *line; /* DESYNC_NAMED, JOIN_REFUSED: the session's (valid while it lives); else "" */
} fxs_session_event;
/* The next event into *ev: false (and nothing written) when there is none
 * or s or ev is NULL. */
bool fxs_session_event_poll(fxs_session *s, fxs_session_event *ev);
/* "synchronizing", "desync", ...; "?" out of range. */
const char *fxs_session_event_name(fxs_session_event_type t);

/* Time sync (docs/sessions.md, "Time sync"). Every data packet carries the
 * sender's tick and its own measurement of its lead over the receiver;
 * half of (our lead over q - q's lead over us) is how many ticks we run
 * ahead of q at one instant, whatever the (symmetric) latency. The
 * session's advantage is the most it runs ahead of any present player
 * peer (0 before any measurement, and for a spectator).
 * fxs_session_frames_ahead: that advantage, in ticks (negative: behind).
 * fxs_session_skip_ticks: for a game with its own loop, ticks to simulate
 * nothing now (let the others catch up): half the advantage, rounded, once
 * it reaches 1.5 ticks, at most once every 32 ticks (0 in between), and
 * counted in fxs_session_ticks_waited. fxs_session_pump does this itself
 * (it delays its pace by that many ticks). The bound it keeps: once
 * settled, two peers' ticks at one instant differ by at most 2 (1.5 ticks
 * of threshold plus the measurement's rounding), plus half the difference
 * between the two directions' one-way delays.
 * fxs_session_rtt_ms: the averaged round trip to `peer` (0: none yet). */
int32_t fxs_session_frames_ahead(const fxs_session *s);
uint32_t fxs_session_skip_ticks(fxs_session *s);
uint64_t fxs_session_ticks_waited(const fxs_session *s);
uint32_t fxs_session_rtt_ms(const fxs_session *s, uint32_t peer);

/* ms since the last packet accepted from `peer` (since the first pump when
 * none yet); now_ms on the caller's clock, as given to the pump. */
uint64_t fxs_session_peer_silence(const fxs_session *s, uint32_t peer, uint64_t now_ms);
/* The first player peer (not us, not done) silent for more than
 * timeout_ms, or -1. Spectators are not waited for; with absent_ms set,
 * none is (a silent peer is declared absent instead). */
int fxs_session_silent_peer(const fxs_session *s, uint64_t now_ms, uint32_t timeout_ms);
/* Complete, and every other peer (but an absent one) said it finished
 * too: nothing more to send. */
bool fxs_session_all_done(const fxs_session *s);

FXG_EXPORT_END
#ifdef __cplusplus
}
#endif

#endif
