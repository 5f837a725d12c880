/* The session's wire format: one datagram per packet, little-endian, no
 * padding, closed by a MAC of everything before it.
 *   off size field
 *   0   4    magic        "FXSP"
 *   4   1    version      2
 *   5   1    type         1 = data
 *   6   1    from         sender's peer id
 *   7   1    to           receiver's peer id
 *   8   4    session      session id (both ends must agree)
 *   12  4    seq          sender's packet sequence number towards `to` (from 1)
 *   16  4    ack_seq      highest seq the sender has received from `to`
 *   20  1    flags        bit 0: the sender has finished (all confirmed)
 *   21  1    player       player whose inputs follow (must be owned by `from`)
 *   22  1    n_inputs     <= FXS_PKT_MAX_INPUTS
 *   23  1    n_hashes     <= FXS_PKT_MAX_HASHES
 *   24  4    input_first  tick of the first input (1-based)
 *   28  4    input_ack    highest tick up to which the sender holds all of `to`'s inputs
 *   32  4    hash_first   tick of the first confirmed-tick hash
 *   36  4    hash_ack     highest tick up to which the sender holds all of `to`'s hashes
 *   40  4    tick         the sender's simulated tick (information)
 *   44  12*n_inputs      inputs (fixstep/input.h records), redundant: every unacked one
 *   ..  8*n_hashes       state hashes of confirmed ticks hash_first..
 *   ..  32   mac          HMAC-SHA-512-256 (libsodium's crypto_auth) of bytes 0 .. here,
 *                        keyed with the key of the direction from -> to
 * A packet whose length is not exactly 76 + 12 n_inputs + 8 n_hashes is
 * malformed. Decoding never reads outside [buf, buf + len), and nothing but
 * the frame (length, magic, version, type, counts, from, to) is read before
 * the MAC is verified.
 *
 * Keys: every session has a 32-byte key, agreed out of band (the game's
 * lobby hands it to every peer over its own authenticated channel). Each
 * direction's key is derived from it with libsodium's crypto_kdf (BLAKE2b),
 * subkey from * 256 + to + 1, context "FXSPKT02": a packet is good for one
 * direction of one session only. */
#ifndef FXS_SESSION_PROTOCOL_H
#define FXS_SESSION_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fixstep/input.h"

#define FXS_PKT_MAGIC 0x50535846u /* "FXSP" */
#define FXS_PKT_VERSION 2u
#define FXS_PKT_DATA 1u
#define FXS_PKT_HEAD 44u
#define FXS_PKT_MAX_INPUTS 32u
#define FXS_PKT_MAX_HASHES 32u
#define FXS_PKT_MAX 1024u /* anything longer is dropped as oversized */
#define FXS_PKT_FLAG_DONE 1u
#define FXS_PKT_MAC_BYTES 32u /* crypto_auth_BYTES */
#define FXS_PKT_KEY_BYTES 32u /* crypto_auth_KEYBYTES, and the session key's size */

typedef struct fxs_packet {
	uint8_t type, from, to, flags, player, n_inputs, n_hashes;
	uint32_t session, seq, ack_seq;
	uint32_t input_first, input_ack, hash_first, hash_ack, tick;
	fxs_input inputs[FXS_PKT_MAX_INPUTS];
	uint64_t hashes[FXS_PKT_MAX_HASHES];
} fxs_packet;

/* Why a packet was dropped (decode and session checks). */
typedef enum fxs_drop {
	FXS_DROP_NONE = 0,
	FXS_DROP_TRUNCATED, /* shorter than its header or its counts say */
	FXS_DROP_OVERSIZED, /* longer than FXS_PKT_MAX or than its counts say */
	FXS_DROP_MAGIC,
	FXS_DROP_VERSION,
	FXS_DROP_TYPE,
	FXS_DROP_COUNT,     /* n_inputs / n_hashes above the maximum */
	FXS_DROP_MAC,       /* the MAC fails: not made with the session's key (forged or damaged) */
	FXS_DROP_SESSION,   /* another session id */
	FXS_DROP_PEER,      /* from / to not a peer of this session, or from == us */
	FXS_DROP_SPOOFED,   /* the transport's source is not the peer the packet claims */
	FXS_DROP_NOT_OWNER, /* inputs for a player the sender does not own */
	FXS_DROP_REPLAYED,  /* a sequence number already seen or too old (duplicates too) */
	FXS_DROP_RANGE,     /* ticks outside the session */
	FXS_DROP_CONFLICT,  /* an input that contradicts one already received */
	FXS_DROP_WINDOW,    /* a sequence number further ahead than the peer can have sent */
	FXS_DROP_REASONS
} fxs_drop;

const char *fxs_drop_name(fxs_drop d);

/* libsodium ready (sodium_init): false when it cannot be. */
bool fxs_packet_crypto_init(void);
/* The key of direction from -> to, derived from a session key. */
void fxs_packet_key(const uint8_t session_key[FXS_PKT_KEY_BYTES], uint32_t from, uint32_t to,
		    uint8_t out[FXS_PKT_KEY_BYTES]);

/* Bytes p encodes to. */
size_t fxs_packet_size(const fxs_packet *p);
/* Encode p into out, with the MAC of `key` (the direction's); returns the
 * length, 0 when cap is too small or counts too big. */
size_t fxs_packet_encode(const fxs_packet *p, const uint8_t key[FXS_PKT_KEY_BYTES], uint8_t *out, size_t cap);
/* The frame of an untrusted datagram: its length, magic, version, type and
 * counts, and the from and to it claims (not yet authentic): FXS_DROP_NONE,
 * or the reason. */
fxs_drop fxs_packet_frame(const uint8_t *buf, size_t len, uint32_t *from, uint32_t *to);
/* A framed datagram: its MAC checked with `key` (the direction's, picked by
 * the frame's from and to), then its fields into *p: FXS_DROP_NONE, or
 * FXS_DROP_MAC (p untouched). */
fxs_drop fxs_packet_open(const uint8_t *buf, size_t len, const uint8_t key[FXS_PKT_KEY_BYTES], fxs_packet *p);

#endif
