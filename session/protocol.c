/* The session's wire format (protocol.h). */
#include "session/protocol.h"

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
};

const char *fxs_drop_name(fxs_drop d)
{
	return (unsigned)d < FXS_DROP_REASONS ? drop_names[d] : "?";
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v & 0xffffu);
	put16(p + 2, v >> 16);
}
static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}
static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32; }

bool fxs_packet_crypto_init(void) { return sodium_init() >= 0; }

_Static_assert(FXS_PKT_MAC_BYTES == crypto_auth_BYTES && FXS_PKT_KEY_BYTES == crypto_auth_KEYBYTES &&
		       FXS_PKT_KEY_BYTES == crypto_kdf_KEYBYTES,
	       "the wire format's sizes are libsodium's");

void fxs_packet_key(const uint8_t session_key[FXS_PKT_KEY_BYTES], uint32_t from, uint32_t to,
		    uint8_t out[FXS_PKT_KEY_BYTES])
{
	static const char ctx[crypto_kdf_CONTEXTBYTES] = { 'F', 'X', 'S', 'P', 'K', 'T', '0', '2' };
	crypto_kdf_derive_from_key(out, FXS_PKT_KEY_BYTES, (uint64_t)from * 256u + to + 1u, ctx, session_key);
}

size_t fxs_packet_size(const fxs_packet *p)
{
	return FXS_PKT_HEAD + (size_t)p->n_inputs * FXS_INPUT_SIZE + (size_t)p->n_hashes * 8u + FXS_PKT_MAC_BYTES;
}

size_t fxs_packet_encode(const fxs_packet *p, const uint8_t key[FXS_PKT_KEY_BYTES], uint8_t *out, size_t cap)
{
	if (p->n_inputs > FXS_PKT_MAX_INPUTS || p->n_hashes > FXS_PKT_MAX_HASHES)
		return 0;
	size_t n = fxs_packet_size(p);
	if (n > cap)
		return 0;
	put32(out, FXS_PKT_MAGIC);
	out[4] = FXS_PKT_VERSION;
	out[5] = p->type;
	out[6] = p->from;
	out[7] = p->to;
	put32(out + 8, p->session);
	put32(out + 12, p->seq);
	put32(out + 16, p->ack_seq);
	out[20] = p->flags;
	out[21] = p->player;
	out[22] = p->n_inputs;
	out[23] = p->n_hashes;
	put32(out + 24, p->input_first);
	put32(out + 28, p->input_ack);
	put32(out + 32, p->hash_first);
	put32(out + 36, p->hash_ack);
	put32(out + 40, p->tick);
	size_t o = FXS_PKT_HEAD;
	for (uint32_t i = 0; i < p->n_inputs; ++i, o += FXS_INPUT_SIZE)
		fxs_input_write(&p->inputs[i], out + o);
	for (uint32_t i = 0; i < p->n_hashes; ++i, o += 8)
		put64(out + o, p->hashes[i]);
	crypto_auth(out + o, out, o, key);
	return n;
}

fxs_drop fxs_packet_frame(const uint8_t *buf, size_t len, uint32_t *from, uint32_t *to)
{
	if (len > FXS_PKT_MAX)
		return FXS_DROP_OVERSIZED;
	if (len < FXS_PKT_HEAD + FXS_PKT_MAC_BYTES)
		return FXS_DROP_TRUNCATED;
	if (get32(buf) != FXS_PKT_MAGIC)
		return FXS_DROP_MAGIC;
	if (buf[4] != FXS_PKT_VERSION)
		return FXS_DROP_VERSION;
	if (buf[5] != FXS_PKT_DATA)
		return FXS_DROP_TYPE;
	if (buf[22] > FXS_PKT_MAX_INPUTS || buf[23] > FXS_PKT_MAX_HASHES)
		return FXS_DROP_COUNT;
	size_t want = FXS_PKT_HEAD + (size_t)buf[22] * FXS_INPUT_SIZE + (size_t)buf[23] * 8u + FXS_PKT_MAC_BYTES;
	if (len < want)
		return FXS_DROP_TRUNCATED;
	if (len > want)
		return FXS_DROP_OVERSIZED;
	*from = buf[6];
	*to = buf[7];
	return FXS_DROP_NONE;
}

fxs_drop fxs_packet_open(const uint8_t *buf, size_t len, const uint8_t key[FXS_PKT_KEY_BYTES], fxs_packet *p)
{
	size_t body = len - FXS_PKT_MAC_BYTES; /* the frame was checked: len >= the head and the MAC */
	if (crypto_auth_verify(buf + body, buf, body, key) != 0)
		return FXS_DROP_MAC;
	memset(p, 0, sizeof *p);
	p->type = buf[5];
	p->from = buf[6];
	p->to = buf[7];
	p->session = get32(buf + 8);
	p->seq = get32(buf + 12);
	p->ack_seq = get32(buf + 16);
	p->flags = buf[20];
	p->player = buf[21];
	p->n_inputs = buf[22];
	p->n_hashes = buf[23];
	p->input_first = get32(buf + 24);
	p->input_ack = get32(buf + 28);
	p->hash_first = get32(buf + 32);
	p->hash_ack = get32(buf + 36);
	p->tick = get32(buf + 40);
	size_t o = FXS_PKT_HEAD;
	for (uint32_t i = 0; i < p->n_inputs; ++i, o += FXS_INPUT_SIZE)
		p->inputs[i] = fxs_input_read(buf + o);
	for (uint32_t i = 0; i < p->n_hashes; ++i, o += 8)
		p->hashes[i] = get64(buf + o);
	return FXS_DROP_NONE;
}
