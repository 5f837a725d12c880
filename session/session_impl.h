/* The session's state, shared by session.c and the parts that work on it
 * from outside (join.c: late join and reconnect). Private. */
#ifndef FXS_SESSION_IMPL_H
#define FXS_SESSION_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fixstep/session.h"
#include "session/events.h"
#include "session/protocol.h"

struct fxs_sync;
struct fxs_join;

typedef struct snap_slot {
	uint8_t *buf;
	size_t len, cap;
	uint64_t tick; /* UINT64_MAX: empty */
} snap_slot;

/* What this peer knows of peer k. */
typedef struct peer_state {
	uint32_t first, count; /* its players */
	uint8_t *have;         /* [t]: its inputs of tick t are here (player peers) */
	uint64_t contig;       /* all its inputs held up to here */
	uint64_t *rhash;       /* its checksums of confirmed ticks */
	uint8_t *rhave;
	uint64_t rcontig;  /* its checksums held up to here */
	uint64_t compared; /* its checksums compared with ours up to here */
	/* what it holds of ours */
	uint64_t their_input_ack, their_hash_ack;
	bool done;
	uint64_t packets;
	uint64_t pumped, heard_ms; /* packets when the pump last looked, and then */
	/* the keys of both directions with it (protocol.h) */
	uint8_t tx_key[FXS_PKT_KEY_BYTES], rx_key[FXS_PKT_KEY_BYTES];
	/* time sync (timesync.h): our lead over it and its over us (1/16
	 * ticks), its last ping and when it came, the round trip */
	int64_t ts_lead16, ts_their16;
	bool ts_have_lead, ts_have_their, ts_have_ping;
	uint16_t ts_ping;
	uint64_t ts_ping_at;
	uint32_t ts_rtt, ts_trips;
	/* events: when it was last heard (the session's clock), silent now */
	uint64_t rx_ms;
	bool interrupted;
	/* sequence numbers */
	uint32_t tx_seq, rx_max;
	uint64_t rx_window; /* bit i: rx_max - i seen */
} peer_state;

struct fxs_session {
	fxs_session_config config;
	uint32_t players;    /* in all */
	size_t isz, tick_in; /* bytes per player, per tick (every player) */
	uint32_t per_packet; /* ticks of our inputs a packet holds */
	uint64_t simulated;  /* ticks simulated */
	uint64_t confirmed;  /* ticks confirmed (every input known) */
	uint64_t n;          /* ticks + 1 (arrays indexed by tick) */
	peer_state *peer;
	uint8_t *inp; /* [t][player][isz]: real inputs */
	/* [t % HISTORY][player][isz]: what the latest simulation of t used (only
	 * ticks after the confirmed one matter: the rollback window) */
	uint8_t *used;
	uint8_t *block;       /* one tick's inputs being simulated */
	uint64_t local_gen;   /* local inputs taken up to this tick */
	uint64_t *hash;       /* after tick t */
	uint64_t rollback_to; /* UINT64_MAX: none pending */
	snap_slot ring[FXS_SESSION_HISTORY];
	fxs_session_stats stats;
	fxs_session_desync desync;
	bool nomem;   /* a callback failed: no further ticks */
	bool pumping; /* fxs_session_pump: tick t is due at pace0 + (t - 1) x tick_ms */
	int64_t pace0; /* (session ms; below 0 when a joiner's state is older than its clock) */
	uint64_t next_send;
	struct fxs_sync *sync; /* packets beyond data: the desync exchange (sync.h) */
	bool first_mismatch[FXS_SESSION_MAX_PEERS];
	struct fxs_join *join; /* late join and reconnect (join.h) */
	/* The session's clock (ms): 0 at creation, 16 ms per advance call
	 * until the caller gives its own; from the first fxs_session_set_time
	 * or pump, the caller's milliseconds since that call (added to what the
	 * session's clock held then). Every timer is on this clock, so the
	 * caller's may start anywhere (an opaque, monotonic number). */
	uint64_t now_ms;
	bool caller_clock;
	uint64_t caller0, session0; /* the caller's clock and ours at its first call */
	bool join_paced;            /* the pump's pace moved to a joiner's state */
	uint64_t ts_waited_at;      /* the tick of the last time sync wait (0: none) */
	uint64_t ts_waited_ticks;   /* ticks waited out in all */
	fxs_event_queue events;
	bool desync_named_told[FXS_SESSION_MAX_PEERS];
};

/* an event into the queue (events.h): its queued copy */
fxs_session_event *fxs_sess_event(fxs_session *s, fxs_session_event_type type, uint32_t peer, uint64_t tick);

/* session.c's own steps, for join.c */
void fxs_sess_set_input(fxs_session *s, uint32_t k, uint64_t t, const uint8_t *in);
void fxs_sess_simulate(fxs_session *s, uint64_t t);
bool fxs_sess_snap_save(fxs_session *s, uint64_t tick);
const snap_slot *fxs_sess_snap_get(const fxs_session *s, uint64_t tick);
uint8_t *fxs_sess_inp_at(const fxs_session *s, uint8_t *base, uint64_t t, uint32_t player);
void fxs_sess_update_confirmed(fxs_session *s);
/* the furthest tick a peer's inputs or checksums are taken for now (the input window) */
uint64_t fxs_sess_input_limit(const fxs_session *s);

#endif
