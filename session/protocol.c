/* The session's wire format (protocol.h). */
#include "session/protocol.h"
#include "session/le.h"

#include <sodium.h>
#include <string.h>

static const char *const drop_names[FXS_DROP_REASONS] = {
	"none",
	"truncated",
	"oversized",
	"bad_magic",
	"bad_version",
	"bad_type",
	"bad_count",
	"bad_mac",
	"wrong_session",
	"bad_peer",
	"spoofed",
	"not_owner",
	"replayed",
	"out_of_range",
	"conflict",
	"out_of_window",
	"too_far_ahead",
};

const char *fxs_drop_name(fxs_drop d)
{
	return (unsigned)d < FXS_DROP_REASONS ? drop_names[d] : "?";
}


bool fxs_packet_crypto_init(void) { return sodium_init() >= 0; }

_Static_assert(FXS_PKT_MAC_BYTES == crypto_auth_BYTES && FXS_PKT_KEY_BYTES == crypto_auth_KEYBYTES &&
		       FXS_PKT_KEY_BYTES == crypto_kdf_KEYBYTES && FXS_PKT_KEY_BYTES == FXS_SESSION_KEY_BYTES,
	       "the wire format's sizes are libsodium's");

void fxs_packet_key(const uint8_t session_key[FXS_PKT_KEY_BYTES], uint32_t from, uint32_t to,
		    uint8_t out[FXS_PKT_KEY_BYTES])
{
	static const char ctx[crypto_kdf_CONTEXTBYTES] = { 'F', 'X', 'S', 'P', 'K', 'T', '0', '3' };
	crypto_kdf_derive_from_key(out, FXS_PKT_KEY_BYTES, (uint64_t)from * 256u + to + 1u, ctx, session_key);
}

size_t fxs_packet_seal(const fxs_frame *f, const uint8_t *body, size_t body_len, const uint8_t key[FXS_PKT_KEY_BYTES],
		       uint8_t *out, size_t cap)
{
	size_t n = FXS_PKT_FRAME + body_len + FXS_PKT_MAC_BYTES;
	if (body_len > FXS_PKT_BODY_MAX || n > cap)
		return 0;
	put32(out, FXS_PKT_MAGIC);
	out[4] = FXS_PKT_VERSION;
	out[5] = f->type;
	out[6] = f->from;
	out[7] = f->to;
	put32(out + 8, f->session);
	put32(out + 12, f->seq);
	put32(out + 16, f->ack_seq);
	put16(out + 20, (uint32_t)body_len);
	if (body_len)
		memmove(out + FXS_PKT_FRAME, body, body_len);
	crypto_auth(out + FXS_PKT_FRAME + body_len, out, FXS_PKT_FRAME + body_len, key);
	return n;
}

fxs_drop fxs_packet_frame(const uint8_t *buf, size_t len, fxs_frame *f)
{
	if (len > FXS_PKT_MAX)
		return FXS_DROP_OVERSIZED;
	if (len < FXS_PKT_FRAME + FXS_PKT_MAC_BYTES)
		return FXS_DROP_TRUNCATED;
	if (get32(buf) != FXS_PKT_MAGIC)
		return FXS_DROP_MAGIC;
	if (buf[4] != FXS_PKT_VERSION)
		return FXS_DROP_VERSION;
	if (buf[5] < 1 || buf[5] > FXS_PKT_TYPE_MAX)
		return FXS_DROP_TYPE;
	size_t want = FXS_PKT_FRAME + get16(buf + 20) + FXS_PKT_MAC_BYTES;
	if (len < want)
		return FXS_DROP_TRUNCATED;
	if (len > want)
		return FXS_DROP_OVERSIZED;
	memset(f, 0, sizeof *f);
	f->type = buf[5];
	f->from = buf[6];
	f->to = buf[7];
	return FXS_DROP_NONE;
}

fxs_drop fxs_packet_open(const uint8_t *buf, size_t len, const uint8_t key[FXS_PKT_KEY_BYTES], fxs_frame *f,
			 const uint8_t **body)
{
	size_t mac_at = len - FXS_PKT_MAC_BYTES; /* framed: len >= the frame and the MAC */
	if (crypto_auth_verify(buf + mac_at, buf, mac_at, key) != 0)
		return FXS_DROP_MAC;
	f->type = buf[5];
	f->from = buf[6];
	f->to = buf[7];
	f->session = get32(buf + 8);
	f->seq = get32(buf + 12);
	f->ack_seq = get32(buf + 16);
	f->body_len = (uint16_t)get16(buf + 20);
	*body = buf + FXS_PKT_FRAME;
	return FXS_DROP_NONE;
}

size_t fxs_data_size(const fxs_data *d)
{
	return FXS_PKT_DATA_HEAD + (size_t)d->n_ticks * d->players * d->input_size + (size_t)d->n_hashes * 8u;
}

size_t fxs_data_encode(const fxs_data *d, uint8_t *out, size_t cap)
{
	size_t n = fxs_data_size(d);
	if (d->n_hashes > FXS_PKT_MAX_HASHES || n > cap || n > FXS_PKT_BODY_MAX)
		return 0;
	out[0] = d->flags;
	out[1] = d->players;
	out[2] = d->input_size;
	out[3] = d->n_ticks;
	out[4] = d->n_hashes;
	put32(out + 5, d->input_first);
	put32(out + 9, d->input_ack);
	put32(out + 13, d->hash_first);
	put32(out + 17, d->hash_ack);
	put32(out + 21, d->tick);
	put16(out + 25, (uint16_t)d->lead);
	put16(out + 27, d->ping);
	put16(out + 29, d->pong);
	put16(out + 31, d->pong_age);
	size_t o = FXS_PKT_DATA_HEAD, in = (size_t)d->n_ticks * d->players * d->input_size;
	if (in)
		memcpy(out + o, d->in, in);
	o += in;
	for (uint32_t i = 0; i < d->n_hashes; ++i, o += 8)
		put64(out + o, d->hashes[i]);
	return n;
}

fxs_drop fxs_data_decode(const uint8_t *body, size_t len, fxs_data *d)
{
	memset(d, 0, sizeof *d);
	if (len < FXS_PKT_DATA_HEAD)
		return FXS_DROP_COUNT;
	d->flags = body[0];
	d->players = body[1];
	d->input_size = body[2];
	d->n_ticks = body[3];
	d->n_hashes = body[4];
	if (d->n_hashes > FXS_PKT_MAX_HASHES || fxs_data_size(d) != len)
		return FXS_DROP_COUNT;
	d->input_first = get32(body + 5);
	d->input_ack = get32(body + 9);
	d->hash_first = get32(body + 13);
	d->hash_ack = get32(body + 17);
	d->tick = get32(body + 21);
	d->lead = (int16_t)(uint16_t)get16(body + 25);
	d->ping = (uint16_t)get16(body + 27);
	d->pong = (uint16_t)get16(body + 29);
	d->pong_age = (uint16_t)get16(body + 31);
	size_t o = FXS_PKT_DATA_HEAD;
	d->in = body + o;
	o += (size_t)d->n_ticks * d->players * d->input_size;
	for (uint32_t i = 0; i < d->n_hashes; ++i, o += 8)
		d->hashes[i] = get64(body + o);
	return FXS_DROP_NONE;
}
