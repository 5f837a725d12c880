/* The session's wire format, version 6: one datagram per packet,
 * little-endian, no padding. Every packet type shares one frame and one MAC:
 *   off size field
 *   0   4    magic     "FXSP"
 *   4   1    version   6
 *   5   1    type      1 = data; 2..15 transfers (session/xfer.*)
 *   6   1    from      sender's peer id
 *   7   1    to        receiver's peer id
 *   8   4    session   session id (both ends must agree)
 *   12  4    seq       sender's packet sequence number towards `to` (from 1; one counter for every type)
 *   16  4    ack_seq   highest seq the sender has received from `to`
 *   20  2    body_len  bytes of the body
 *   22  body_len       the body of the type
 *   ..  32   mac       HMAC-SHA-512-256 (libsodium's crypto_auth) of every byte before it,
 *                      keyed with the key of the direction from -> to
 * A datagram is framed when its length is exactly 54 + body_len and at most
 * FXS_SESSION_PACKET_MAX, and its magic, version and type are known. Nothing
 * but the frame is read before the MAC is verified; a body is decoded only
 * from its body_len bytes (never outside the datagram).
 *
 * The data body (type 1):
 *   0   1    flags        bit 0: the sender has finished (all confirmed)
 *   1   1    players      players the sender owns (0: a spectator), all in each tick's block
 *   2   1    input_size   bytes per player per tick
 *   3   1    n_ticks      ticks of inputs that follow
 *   4   1    n_hashes     <= FXS_PKT_MAX_HASHES
 *   5   4    input_first  tick of the first input block (1-based)
 *   9   4    input_ack    highest tick up to which the sender holds all of `to`'s inputs
 *   13  4    hash_first   tick of the first confirmed-tick checksum
 *   17  4    hash_ack     highest tick up to which the sender holds all of `to`'s checksums
 *   21  4    tick         the sender's simulated tick (time sync: timesync.h)
 *   25  2    lead         the sender's lead over `to` as it measures it, 1/16 ticks (signed)
 *   27  2    ping         the sender's clock (ms, low 16 bits) as it sends
 *   29  2    pong         the last ping the sender received from `to`
 *   31  2    pong_age     ms the sender held that ping (0xffff: none yet)
 *   33  n_ticks x players x input_size   input blocks, redundant: every unacked tick
 *   ..  8 x n_hashes      checksums of confirmed ticks hash_first..
 * The body is malformed (bad_count) unless body_len is exactly that.
 *
 * Keys: every session has a 32-byte key, agreed out of band (the game's
 * lobby hands it to every peer over its own authenticated channel). Each
 * direction's key is derived from it with libsodium's crypto_kdf (BLAKE2b),
 * subkey from * 256 + to + 1, context "FXSPKT03": a packet is good for one
 * direction of one session only. */
#ifndef FXS_SESSION_PROTOCOL_H
#define FXS_SESSION_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fixstep/session.h"

#define FXS_PKT_MAGIC 0x50535846u /* "FXSP" */
#define FXS_PKT_VERSION 6u
#define FXS_PKT_DATA 1u
#define FXS_PKT_TYPE_MAX 15u /* types 2..15: the transfers' */
#define FXS_PKT_FRAME 22u
#define FXS_PKT_MAC_BYTES 32u /* crypto_auth_BYTES */
#define FXS_PKT_KEY_BYTES 32u /* crypto_auth_KEYBYTES, and the session key's size */
#define FXS_PKT_MAX FXS_SESSION_PACKET_MAX
#define FXS_PKT_BODY_MAX (FXS_PKT_MAX - FXS_PKT_FRAME - FXS_PKT_MAC_BYTES)
#define FXS_PKT_DATA_HEAD 33u
#define FXS_PKT_MAX_HASHES 15u
#define FXS_PKT_MAX_TICKS 32u
/* bytes of a data body left for inputs with the most checksums */
#define FXS_PKT_INPUT_BYTES (FXS_PKT_BODY_MAX - FXS_PKT_DATA_HEAD - 8u * FXS_PKT_MAX_HASHES)
#define FXS_PKT_FLAG_DONE 1u

_Static_assert(FXS_PKT_INPUT_BYTES / FXS_SESSION_MIN_REDUNDANCY == FXS_SESSION_MAX_TICK_INPUT,
	       "the input limit follows from the packet size, the redundancy and the checksums");

/* The frame of every packet type. */
typedef struct fxs_frame {
	uint8_t type, from, to;
	uint32_t session, seq, ack_seq;
	uint16_t body_len;
} fxs_frame;

/* A data body, decoded: its inputs stay in the datagram (in points into
 * it, n_ticks x players x input_size bytes). */
typedef struct fxs_data {
	uint8_t flags, players, input_size, n_ticks, n_hashes;
	uint32_t input_first, input_ack, hash_first, hash_ack, tick;
	int16_t lead;
	uint16_t ping, pong, pong_age;
	const uint8_t *in;
	uint64_t hashes[FXS_PKT_MAX_HASHES];
} fxs_data;

/* libsodium ready (sodium_init): false when it cannot be. */
bool fxs_packet_crypto_init(void);
/* The key of direction from -> to, derived from a session key. */
void fxs_packet_key(const uint8_t session_key[FXS_PKT_KEY_BYTES], uint32_t from, uint32_t to,
		    uint8_t out[FXS_PKT_KEY_BYTES]);

/* Seal a packet: the frame f (its body_len set here) around body (body_len
 * bytes), then the MAC of `key`. Returns the length, 0 when cap is too
 * small or the body too long. */
size_t fxs_packet_seal(const fxs_frame *f, const uint8_t *body, size_t body_len, const uint8_t key[FXS_PKT_KEY_BYTES],
		       uint8_t *out, size_t cap);
/* The frame of an untrusted datagram (length, magic, version, type, and the
 * from and to it claims, not yet authentic): FXS_DROP_NONE or the reason. */
fxs_drop fxs_packet_frame(const uint8_t *buf, size_t len, fxs_frame *f);
/* A framed datagram's MAC checked with `key` (the direction's, picked by
 * the frame's from and to): FXS_DROP_NONE and *body = its body, or
 * FXS_DROP_MAC. */
fxs_drop fxs_packet_open(const uint8_t *buf, size_t len, const uint8_t key[FXS_PKT_KEY_BYTES], fxs_frame *f,
			 const uint8_t **body);

/* A data body: bytes it takes, encode (0 when it does not fit), decode an
 * authentic body (FXS_DROP_COUNT when its counts disagree with its length). */
size_t fxs_data_size(const fxs_data *d);
size_t fxs_data_encode(const fxs_data *d, uint8_t *out, size_t cap);
fxs_drop fxs_data_decode(const uint8_t *body, size_t len, fxs_data *d);

#endif
