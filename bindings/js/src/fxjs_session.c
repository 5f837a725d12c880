/* The flat API's sessions (fxjs.c says how values travel): a session of
 * session/ (fixstep/session.h) over one fxs_world, whose game code is
 * JavaScript. The game's apply_inputs, its local input function and the
 * transport's send and receive are calls into JavaScript (EM_JS below:
 * Module.fxjsSession* functions that api.js installs), identified by the
 * handle api.js gave at creation. Everything else (MACs, windows,
 * rollbacks, time sync, events, the desync exchange) is the C library as
 * native games link it, with libsodium compiled to wasm (tools/crosscheck.sh,
 * ensure_wasm_sodium). */
#include "fxjs.h"

#include "fixstep/session.h"
#include "replay_run.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef __EMSCRIPTEN__ /* a native compiler (the package's syntax check): the calls as declarations */
#define EM_JS(ret, name, params, ...) ret name params;
#endif

/* The game's apply_inputs: 0 (FXS_OK), or the result that stops the
 * session (a JavaScript exception, which api.js keeps and rethrows). */
EM_JS(int32_t, fxjs_js_apply, (int32_t handle, fxs_world *w, int32_t tick_lo, int32_t tick_hi, const uint8_t *inputs, int32_t players), {
	return Module.fxjsSessionApply(handle, w, tick_lo, tick_hi, inputs, players);
});
/* The local input of `player` for the tick into out (size bytes, zeroed). */
EM_JS(void, fxjs_js_input, (int32_t handle, int32_t tick_lo, int32_t tick_hi, int32_t player, uint8_t *out, int32_t size), {
	Module.fxjsSessionInput(handle, tick_lo, tick_hi, player, out, size);
});
/* The transport: 0 when the datagram was handed over. */
EM_JS(int32_t, fxjs_js_send, (int32_t handle, int32_t to, const uint8_t *buf, int32_t len), {
	return Module.fxjsSessionSend(handle, to, buf, len);
});
/* The next received datagram into buf (at most cap bytes; a longer one is
 * cut to cap + 0, which the session drops as oversized): its length, 0
 * when none; *from = the peer it came from, or -1. */
EM_JS(int32_t, fxjs_js_recv, (int32_t handle, uint8_t *buf, int32_t cap, int32_t *from), {
	return Module.fxjsSessionRecv(handle, buf, cap, from);
});

typedef struct fxjs_session {
	fxs_session *s;
	fxs_session_world gw;
	fxs_transport t;
	int32_t handle;
	uint32_t input_size;
	fxs_session_event ev;
} fxjs_session;

static fxs_result js_apply(fxs_world *w, uint64_t tick, const uint8_t *inputs, uint32_t players, void *ctx)
{
	const fxjs_session *f = ctx;
	return (fxs_result)fxjs_js_apply(f->handle, w, (int32_t)(uint32_t)tick, (int32_t)(uint32_t)(tick >> 32), inputs,
					 (int32_t)players);
}

static void js_input(void *ctx, uint64_t tick, uint32_t player, uint8_t *out)
{
	const fxjs_session *f = ctx;
	fxjs_js_input(f->handle, (int32_t)(uint32_t)tick, (int32_t)(uint32_t)(tick >> 32), (int32_t)player, out,
		      (int32_t)f->input_size);
}

static int js_send(void *ctx, uint32_t to, const uint8_t *buf, size_t len)
{
	const fxjs_session *f = ctx;
	return fxjs_js_send(f->handle, (int32_t)to, buf, (int32_t)len);
}

static size_t js_recv(void *ctx, uint8_t *buf, size_t cap, int *from)
{
	const fxjs_session *f = ctx;
	int32_t src = -1;
	int32_t n = fxjs_js_recv(f->handle, buf, (int32_t)cap, &src);
	*from = src;
	return n > 0 ? (size_t)n : 0;
}

static char create_error[256];
FXJS_EXPORT const char *fxjs_session_error(void) { return create_error; }

/* cfg (FXJS_SESSION_CFG_INTS, 14 int32): peers, local, input size, session
 * id, mode, ticks, input delay, max rollback, seq window, absent ms, join,
 * interrupt ms, has an input function, has an apply function; players:
 * peers bytes (NULL: one each); key: 32 bytes (or pair_keys: peers x 32
 * bytes when pair is set). NULL with why in fxjs_session_error(). */
FXJS_EXPORT fxjs_session *fxjs_session_create(int32_t handle, fxs_world *w, const int32_t *cfg, const uint8_t *players,
					      const uint8_t *key, int32_t pair)
{
	create_error[0] = 0;
	fxjs_session *f = calloc(1, sizeof *f);
	if (!f) {
		snprintf(create_error, sizeof create_error, "out of memory");
		return NULL;
	}
	f->handle = handle;
	f->gw.world = w;
	f->gw.apply_inputs = cfg[13] ? js_apply : NULL;
	f->gw.ctx = f;
	f->t = (fxs_transport){ f, js_send, js_recv };
	fxs_session_config c = fxs_session_default_config();
	c.peers = (uint32_t)cfg[0];
	c.local = (uint32_t)cfg[1];
	c.input_size = (uint32_t)cfg[2];
	c.session_id = (uint32_t)cfg[3];
	c.mode = (fxs_session_mode)cfg[4];
	c.ticks = (uint32_t)cfg[5];
	c.input_delay = (uint32_t)cfg[6];
	c.max_rollback = (uint32_t)cfg[7];
	c.seq_window = (uint32_t)cfg[8];
	c.absent_ms = (uint32_t)cfg[9];
	c.join = cfg[10] != 0;
	c.interrupt_ms = (uint32_t)cfg[11];
	if (players && c.peers <= FXS_SESSION_MAX_PEERS)
		memcpy(c.players, players, c.peers);
	c.game = fxs_session_world_callbacks(w ? &f->gw : NULL);
	c.input = cfg[12] ? js_input : NULL;
	c.input_ctx = f;
	if (pair)
		c.pair_keys = (const uint8_t(*)[FXS_SESSION_KEY_BYTES])key;
	else
		memcpy(c.key, key, FXS_SESSION_KEY_BYTES);
	f->s = fxs_session_create(&c, create_error, sizeof create_error);
	sodium_memzero(c.key, sizeof c.key);
	if (!f->s) {
		free(f);
		return NULL;
	}
	f->input_size = fxs_session_input_size(f->s);
	return f;
}

FXJS_EXPORT void fxjs_session_destroy(fxjs_session *f)
{
	if (!f)
		return;
	fxs_session_destroy(f->s);
	free(f);
}

FXJS_EXPORT int32_t fxjs_session_pump(fxjs_session *f, int32_t now_lo, int32_t now_hi, int32_t tick_ms)
{
	return (int32_t)fxs_session_pump(f->s, &f->t, fxjs_get64((const int32_t[2]){ now_lo, now_hi }), (uint32_t)tick_ms);
}
FXJS_EXPORT int32_t fxjs_session_advance(fxjs_session *f, int32_t max_ticks)
{
	return (int32_t)fxs_session_advance(f->s, (uint32_t)max_ticks);
}
FXJS_EXPORT void fxjs_session_set_time(fxjs_session *f, int32_t now_lo, int32_t now_hi)
{
	fxs_session_set_time(f->s, fxjs_get64((const int32_t[2]){ now_lo, now_hi }));
}
FXJS_EXPORT int32_t fxjs_session_receive(fxjs_session *f, const uint8_t *buf, int32_t len, int32_t src)
{
	return (int32_t)fxs_session_receive(f->s, buf, (size_t)len, src);
}
/* The packets for peer `to` (fxs_session_packet, then packet_more until
 * none), each sent through the JavaScript transport: the datagrams sent. */
FXJS_EXPORT int32_t fxjs_session_send_packets(fxjs_session *f, int32_t to)
{
	uint8_t buf[FXS_SESSION_PACKET_MAX];
	int32_t sent = 0;
	size_t n = fxs_session_packet(f->s, (uint32_t)to, buf, sizeof buf);
	if (n)
		js_send(f, (uint32_t)to, buf, n), ++sent;
	while ((n = fxs_session_packet_more(f->s, (uint32_t)to, buf, sizeof buf)) > 0)
		js_send(f, (uint32_t)to, buf, n), ++sent;
	return sent;
}

/* FXJS_SESSION_INFO_INTS (24 int32): tick (2), confirmed (2), complete,
 * all done, out of memory (a callback failed), frames ahead, ticks waited
 * (2), players, input size, join: joining, loaded, dropped, state tick (2),
 * return tick (2), absences, refusals, vouchers, apply failed result,
 * failed tick (lo) */
FXJS_EXPORT void fxjs_session_info(const fxjs_session *f, int32_t *o)
{
	fxjs_put64(o, fxs_session_tick(f->s));
	fxjs_put64(o + 2, fxs_session_confirmed(f->s));
	o[4] = fxs_session_complete(f->s), o[5] = fxs_session_all_done(f->s), o[6] = fxs_session_out_of_memory(f->s);
	o[7] = fxs_session_frames_ahead(f->s);
	fxjs_put64(o + 8, fxs_session_ticks_waited(f->s));
	o[10] = (int32_t)fxs_session_players(f->s), o[11] = (int32_t)fxs_session_input_size(f->s);
	fxs_session_join_status js;
	memset(&js, 0, sizeof js);
	fxs_session_join_get(f->s, &js);
	o[12] = js.joining, o[13] = js.loaded, o[14] = js.dropped;
	fxjs_put64(o + 15, js.state_tick);
	fxjs_put64(o + 17, js.return_tick);
	o[19] = (int32_t)js.absences, o[20] = (int32_t)js.refusals, o[21] = (int32_t)js.vouchers;
	o[22] = (int32_t)f->gw.failed, o[23] = (int32_t)(uint32_t)f->gw.failed_tick;
}
/* the last join refusal's reason ("" when none) */
FXJS_EXPORT const char *fxjs_session_join_refused(const fxjs_session *f)
{
	static fxs_session_join_status js;
	memset(&js, 0, sizeof js);
	fxs_session_join_get(f->s, &js);
	return js.refused;
}

/* FXJS_SESSION_STATS_INTS: 16 uint64 (2 int32 each: ticks, rollbacks,
 * deepest rollback, resimulated, mispredictions, packets sent, bytes sent,
 * packets received, packets accepted, dropped total, stalls, events lost,
 * ahead dropped, then 3 spare zeros) and FXS_DROP_REASONS uint64 of drops
 * by reason */
FXJS_EXPORT int32_t fxjs_session_stats(const fxjs_session *f, int32_t *o)
{
	const fxs_session_stats *st = fxs_session_stats_get(f->s);
	const uint64_t v[16] = { st->ticks,	       st->rollbacks,	     st->deepest_rollback, st->resimulated,
				 st->mispredictions,   st->packets_sent,     st->bytes_sent,	   st->packets_received,
				 st->packets_accepted, st->dropped_total,    st->stalls,	   st->events_lost,
				 st->ahead_dropped,    0,		     0,			   0 };
	for (int i = 0; i < 16; ++i)
		fxjs_put64(o + 2 * i, v[i]);
	for (int i = 0; i < FXS_DROP_REASONS; ++i)
		fxjs_put64(o + 32 + 2 * i, st->dropped[i]);
	return FXS_DROP_REASONS;
}
FXJS_EXPORT const char *fxjs_session_drop_name(int32_t d) { return fxs_drop_name((fxs_drop)d); }

/* the checksum after tick t into out (2): 1, or 0 when t is not simulated yet */
FXJS_EXPORT int32_t fxjs_session_hash(const fxjs_session *f, int32_t t_lo, int32_t t_hi, int32_t *out)
{
	uint64_t t = fxjs_get64((const int32_t[2]){ t_lo, t_hi });
	if (t > fxs_session_tick(f->s))
		return 0;
	fxjs_put64(out, fxs_session_hash(f->s, t));
	return 1;
}
FXJS_EXPORT int32_t fxjs_session_inputs(const fxjs_session *f, int32_t t_lo, int32_t t_hi, uint8_t *out, int32_t cap)
{
	return fxs_session_inputs(f->s, fxjs_get64((const int32_t[2]){ t_lo, t_hi }), out, cap < 0 ? 0 : (size_t)cap);
}

/* The next event into o (FXJS_SESSION_EVENT_INTS, 8 int32: type, peer,
 * tick (2), progress, total, state tick (2)); its line by
 * fxjs_session_event_line. 0 when none. */
FXJS_EXPORT int32_t fxjs_session_event_poll(fxjs_session *f, int32_t *o)
{
	if (!fxs_session_event_poll(f->s, &f->ev))
		return 0;
	o[0] = (int32_t)f->ev.type, o[1] = (int32_t)f->ev.peer;
	fxjs_put64(o + 2, f->ev.tick);
	o[4] = (int32_t)f->ev.progress, o[5] = (int32_t)f->ev.total;
	fxjs_put64(o + 6, f->ev.state_tick);
	return 1;
}
FXJS_EXPORT const char *fxjs_session_event_line(const fxjs_session *f) { return f->ev.line ? f->ev.line : ""; }
FXJS_EXPORT const char *fxjs_session_event_name(int32_t t) { return fxs_session_event_name((fxs_session_event_type)t); }

/* The desync into o (8 int32: tick (2), peer, local hash (2), remote hash
 * (2), have state): 0 when none. */
FXJS_EXPORT int32_t fxjs_session_desync(const fxjs_session *f, int32_t *o)
{
	const fxs_session_desync *d = fxs_session_desync_get(f->s);
	if (!d || !d->tick)
		return 0;
	fxjs_put64(o, d->tick);
	o[2] = (int32_t)d->peer;
	fxjs_put64(o + 3, d->local_hash);
	fxjs_put64(o + 5, d->remote_hash);
	o[7] = d->have_state;
	return 1;
}
FXJS_EXPORT const char *fxjs_session_desync_line(const fxjs_session *f) { return fxs_session_desync_line(f->s); }

FXJS_EXPORT int32_t fxjs_session_skip_ticks(fxjs_session *f) { return (int32_t)fxs_session_skip_ticks(f->s); }
FXJS_EXPORT int32_t fxjs_session_rtt_ms(const fxjs_session *f, int32_t peer) { return (int32_t)fxs_session_rtt_ms(f->s, (uint32_t)peer); }
FXJS_EXPORT int32_t fxjs_session_peer_done(const fxjs_session *f, int32_t peer) { return fxs_session_peer_done(f->s, (uint32_t)peer); }
FXJS_EXPORT int32_t fxjs_session_first_player(const fxjs_session *f, int32_t peer)
{
	return (int32_t)fxs_session_first_player(f->s, (uint32_t)peer);
}
FXJS_EXPORT int32_t fxjs_session_peer_players(const fxjs_session *f, int32_t peer)
{
	return (int32_t)fxs_session_peer_players(f->s, (uint32_t)peer);
}
/* ms since the last packet from `peer` (the caller's clock) */
FXJS_EXPORT int32_t fxjs_session_peer_silence(const fxjs_session *f, int32_t peer, int32_t now_lo, int32_t now_hi)
{
	uint64_t ms = fxs_session_peer_silence(f->s, (uint32_t)peer, fxjs_get64((const int32_t[2]){ now_lo, now_hi }));
	return ms > INT32_MAX ? INT32_MAX : (int32_t)ms;
}

/* ---- libsodium in wasm (for the package's test against native) ---- */
/* crypto_auth (HMAC-SHA-512-256) of msg under key (32 bytes) into out (32):
 * 0, or -1 when libsodium cannot start */
FXJS_EXPORT int32_t fxjs_crypto_auth(uint8_t *out, const uint8_t *msg, int32_t len, const uint8_t *key)
{
	if (sodium_init() < 0)
		return -1;
	return crypto_auth(out, msg, (unsigned long long)len, key);
}
/* crypto_kdf_derive_from_key (BLAKE2b): len bytes of subkey id under
 * ctx (8 chars) and key (32 bytes) */
FXJS_EXPORT int32_t fxjs_crypto_kdf(uint8_t *out, int32_t len, int32_t id_lo, int32_t id_hi, const char *ctx, const uint8_t *key)
{
	if (sodium_init() < 0)
		return -1;
	return crypto_kdf_derive_from_key(out, (size_t)len, fxjs_get64((const int32_t[2]){ id_lo, id_hi }), ctx, key);
}

/* The seeded random input of `player` for `tick` (12 bytes, fixstep/input.h):
 * fxs_inputs_random(seed, tick, player + 1)[player], as `fixstep peer`,
 * `fixstep netdemo` and `fixstep synctest` play the built-in scenes. */
FXJS_EXPORT void fxjs_random_input(int32_t seed_lo, int32_t seed_hi, int32_t tick_lo, int32_t tick_hi, int32_t player,
				   uint8_t *out)
{
	fxs_input in[FXS_MAX_PLAYERS];
	if (player < 0 || player >= FXS_MAX_PLAYERS)
		return;
	fxs_inputs_random(fxjs_get64((const int32_t[2]){ seed_lo, seed_hi }), fxjs_get64((const int32_t[2]){ tick_lo, tick_hi }),
			  (uint32_t)player + 1, in);
	fxs_input_write(&in[player], out);
}
