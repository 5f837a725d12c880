/* Lockstep and rollback sessions on top of the world API (no sockets here:
 * packets go in and out as bytes; transport.h moves them).
 *
 * Player k is owned by peer k (one player per peer). Ticks are numbered as
 * the world's step count after the tick (1-based); tick t applies every
 * player's input for t, then steps.
 *  - lockstep: tick t is simulated once every player's input for t is here.
 *  - rollback: a missing remote input is predicted (the player's last received
 *    input repeated); when the real one arrives and differs, the session
 *    restores the snapshot before it and re-simulates up to the present.
 * Either way a local input is sent for tick t + input_delay when tick t is
 * next. Peers exchange the state hashes of confirmed ticks (every input known,
 * no rollback can change them); the first mismatch is a desync: the session
 * records its tick and peer and, when desync_dir is set, writes its per-body
 * hash table and its snapshot of that tick.
 *
 * Every packet carries a MAC (protocol.h) made with a key of its direction,
 * derived from the session key that the game's lobby gives every peer; a
 * packet is accepted only when its MAC is right, its sequence number is new
 * and at most seq_window ahead of the sender's last, and everything in it
 * fits the session. A packet that fails any check changes nothing but the
 * counters of dropped packets (by reason). */
#ifndef FXS_SESSION_H
#define FXS_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenes/scenes.h"
#include "session/protocol.h"

#define FXS_SESSION_MAX_PEERS 8
#define FXS_SESSION_HISTORY 64u /* snapshot ring (rollback window + desync diagnosis) */
#define FXS_SESSION_MAX_ROLLBACK 15u
#define FXS_SESSION_SEQ_WINDOW 4096u /* default seq_window */
#define FXS_SESSION_KEY_BYTES FXS_PKT_KEY_BYTES

typedef enum fxs_session_mode { FXS_SESSION_LOCKSTEP = 0,
				FXS_SESSION_ROLLBACK = 1 } fxs_session_mode;

/* The local player's input for a tick (deterministic scripts in the demo). */
typedef fxs_input (*fxs_session_input_fn)(uint64_t tick, uint32_t player, void *ctx);

typedef struct fxs_session_config {
	const fxs_scene *scene;
	uint32_t peers; /* = players, 1..FXS_SESSION_MAX_PEERS */
	uint32_t local; /* this peer's id = its player */
	uint32_t session_id;
	fxs_session_mode mode;
	uint32_t ticks;        /* the session ends after this tick */
	uint32_t input_delay;  /* local input for tick t is taken when tick t - delay is next */
	uint32_t max_rollback; /* rollback: how far the simulation may run ahead of the confirmed tick (1..15; 0 = 8) */
	uint64_t perturb_tick; /* 0: none; else move one body by 1 LSB after tick T (a desync on purpose) */
	fxs_session_input_fn input;
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
	 * accepted (0: FXS_SESSION_SEQ_WINDOW); further is out_of_window */
	uint32_t seq_window;
} fxs_session_config;

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
} fxs_session_stats;

typedef struct fxs_session fxs_session;

/* NULL with a message on a bad configuration (a missing key too) or no
 * memory. */
fxs_session *fxs_session_create(const fxs_session_config *c, char *err, size_t errlen);
void fxs_session_destroy(fxs_session *s);

/* Feed one received datagram; src is the peer the transport knows it came
 * from (-1: an unknown address). Returns why it was dropped (or NONE). */
fxs_drop fxs_session_receive(fxs_session *s, const uint8_t *buf, size_t len, int src);
/* Process rollbacks, confirm ticks, compare hashes, and simulate at most
 * max_ticks new ticks when allowed. Returns the ticks simulated. */
uint32_t fxs_session_advance(fxs_session *s, uint32_t max_ticks);
/* The packet for peer `to` (0 when to is us); counts bytes sent. */
size_t fxs_session_packet(fxs_session *s, uint32_t to, uint8_t *out, size_t cap);

uint64_t fxs_session_tick(const fxs_session *s);      /* simulated */
uint64_t fxs_session_confirmed(const fxs_session *s); /* every input known */
/* Finished: every tick confirmed, every peer holds all our inputs and
 * hashes, we hold all of theirs and compared them. */
bool fxs_session_complete(const fxs_session *s);
/* A peer told us it finished. */
bool fxs_session_peer_done(const fxs_session *s, uint32_t peer);
/* Last tick of ours that any packet from `peer` arrived at (for timeouts the
 * caller keeps its own clock; this counts accepted packets). */
uint64_t fxs_session_peer_packets(const fxs_session *s, uint32_t peer);
const fxs_session_stats *fxs_session_stats_get(const fxs_session *s);
const fxs_world *fxs_session_world(const fxs_session *s);
/* Hash after tick t (t <= simulated; final when t <= confirmed); tick 0 = initial. */
uint64_t fxs_session_hash(const fxs_session *s, uint64_t t);
/* Confirmed inputs of tick t (1..confirmed) for every player. */
bool fxs_session_inputs(const fxs_session *s, uint64_t t, fxs_input out[FXS_MAX_PLAYERS]);
/* A step or a snapshot of the session's world ran out of memory: the
 * session simulates no further tick (fxs_world_step). */
bool fxs_session_out_of_memory(const fxs_session *s);
/* Body slot the perturbation moves (the first dynamic body). */
uint32_t fxs_session_perturb_slot(const fxs_session *s);

/* Desync: 0 when none; else the first mismatching tick, the peer and both hashes. */
typedef struct fxs_session_desync {
	uint64_t tick;
	uint32_t peer;
	uint64_t local_hash, remote_hash;
	bool have_state;   /* our state of that tick was still in the ring */
	uint8_t *snapshot; /* our snapshot of that tick (owned by the session) */
	size_t snapshot_len;
	char body_file[256], snap_file[256]; /* written when desync_dir was set */
} fxs_session_desync;
const fxs_session_desync *fxs_session_desync_get(const fxs_session *s);

/* Name the first diverging body and field between two snapshots of the same
 * tick (e.g. two peers' desync snapshots): "body S field F (expected E, got
 * G)". false when they do not differ or cannot be read. */
bool fxs_session_compare_snapshots(const void *a, size_t alen, const void *b, size_t blen, char *out, size_t n);

/* The scripted demo inputs: player p's input for tick t (fxs_inputs_random of seed). */
fxs_input fxs_session_script_input(uint64_t tick, uint32_t player, void *seed_ptr);

#endif
