/* The reliable chunked transfer (xfer.h). */
#include "session/xfer.h"
#include "session/le.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define CHUNK_HEAD (FXS_XFER_HEAD + 6u) /* a chunk's fixed part */
#define ACK_HEAD (FXS_XFER_HEAD + 6u)   /* an ack's fixed part */
#define RTO_INITIAL 300u                /* ms, before a round trip was measured */
#define RTO_MAX 2000u                   /* ms */

static const char *const err_names[FXS_XFER_ERRS] = {
	"ok",
	"short",
	"long",
	"bad_kind",
	"bad_field",
	"bad_size",
	"too_big",
	"bad_index",
	"bad_length",
	"bad_bitmap",
	"other_blob",
	"busy",
	"no_memory",
};

const char *fxs_xfer_err_name(fxs_xfer_err e) { return (unsigned)e < FXS_XFER_ERRS ? err_names[e] : "?"; }


static uint32_t chunks_of(uint32_t size) { return (uint32_t)(((uint64_t)size + FXS_XFER_CHUNK - 1) / FXS_XFER_CHUNK); }

/* the length chunk i of a blob of `size` bytes must have */
static uint32_t chunk_len(uint32_t size, uint32_t i)
{
	uint64_t off = (uint64_t)i * FXS_XFER_CHUNK;
	uint64_t rest = size - off;
	return rest < FXS_XFER_CHUNK ? (uint32_t)rest : FXS_XFER_CHUNK;
}

static void write_head(uint8_t *out, uint8_t kind, uint8_t purpose, uint8_t flags, uint8_t epoch, uint32_t id,
		       uint32_t size, uint64_t hash)
{
	out[0] = kind;
	out[1] = purpose;
	out[2] = flags;
	out[3] = epoch;
	put32(out + 4, id);
	put32(out + 8, size);
	put64(out + 12, hash);
}

fxs_xfer_err fxs_xfer_peek(const uint8_t *msg, size_t len, fxs_xfer_head *h)
{
	if (!msg || len < FXS_XFER_HEAD)
		return FXS_XFER_SHORT;
	if (len > FXS_XFER_MSG_MAX)
		return FXS_XFER_LONG;
	if (msg[0] != FXS_XFER_KIND_CHUNK && msg[0] != FXS_XFER_KIND_ACK)
		return FXS_XFER_KIND;
	uint32_t id = get32(msg + 4), size = get32(msg + 8);
	uint8_t known = FXS_XFER_FLAG_DONE | FXS_XFER_FLAG_RESET | FXS_XFER_FLAG_REFUSED;
	if (msg[1] == 0 || id == 0 || (msg[2] & ~known) ||
	    (msg[0] == FXS_XFER_KIND_CHUNK && (msg[2] != 0 || msg[3] != 0)))
		return FXS_XFER_FIELD;
	if (size == 0 || size > FXS_XFER_MAX_SIZE)
		return FXS_XFER_SIZE;
	if (h) {
		h->kind = msg[0];
		h->purpose = msg[1];
		h->flags = msg[2];
		h->id = id;
		h->size = size;
		h->hash = get64(msg + 12);
	}
	return FXS_XFER_OK;
}

/* ---- sender ---- */

void fxs_xfer_send_reset(fxs_xfer_sender *s)
{
	if (!s)
		return;
	uint32_t window = s->window, rto_min = s->rto_min;
	free(s->blob);
	free(s->acked);
	free(s->sent_at);
	free(s->sends);
	memset(s, 0, sizeof *s);
	s->window = window;
	s->rto_min = rto_min;
}

bool fxs_xfer_send_start(fxs_xfer_sender *s, uint8_t purpose, uint32_t id, const void *blob, size_t size)
{
	if (!s)
		return false;
	fxs_xfer_send_reset(s);
	if (!blob || purpose == 0 || id == 0 || size == 0 || size > FXS_XFER_MAX_SIZE)
		return false;
	uint32_t n = chunks_of((uint32_t)size);
	s->blob = malloc(size);
	s->acked = calloc(n, 1);
	s->sent_at = calloc(n, sizeof *s->sent_at);
	s->sends = calloc(n, 1);
	if (!s->blob || !s->acked || !s->sent_at || !s->sends) {
		fxs_xfer_send_reset(s);
		return false;
	}
	memcpy(s->blob, blob, size);
	s->purpose = purpose;
	s->id = id;
	s->size = (uint32_t)size;
	s->nchunks = n;
	s->hash = XXH3_64bits(blob, size);
	s->state = FXS_XFER_SENDING;
	return true;
}

uint64_t fxs_xfer_send_rto(const fxs_xfer_sender *s)
{
	uint64_t lo = s->rto_min ? s->rto_min : 100u;
	uint64_t rto = s->srtt ? s->srtt * 2u / 8u + 20u : RTO_INITIAL; /* 2 x the round trip, + a margin */
	if (rto < lo)
		rto = lo;
	return rto > RTO_MAX ? RTO_MAX : rto;
}

size_t fxs_xfer_send_poll(fxs_xfer_sender *s, uint64_t now_ms, uint8_t *out, size_t cap)
{
	if (!s || s->state != FXS_XFER_SENDING || !out || cap < CHUNK_HEAD + FXS_XFER_CHUNK)
		return 0;
	uint32_t window = s->window ? s->window : 64u;
	uint64_t rto = fxs_xfer_send_rto(s);
	uint32_t inflight = 0, pick = UINT32_MAX;
	/* in flight: sent, unacked, not yet timed out; the pick is the first
	 * unacked chunk never sent or timed out, from `next` round */
	for (uint32_t k = 0; k < s->nchunks; ++k) {
		uint32_t i = s->next + k < s->nchunks ? s->next + k : s->next + k - s->nchunks;
		if (s->acked[i])
			continue;
		bool due = s->sent_at[i] == 0 || now_ms >= s->sent_at[i] - 1 + rto;
		if (!due)
			++inflight;
		else if (pick == UINT32_MAX)
			pick = i;
	}
	if (pick == UINT32_MAX || inflight >= window)
		return 0;
	uint32_t clen = chunk_len(s->size, pick);
	write_head(out, FXS_XFER_KIND_CHUNK, s->purpose, 0, 0, s->id, s->size, s->hash);
	put32(out + FXS_XFER_HEAD, pick);
	put16(out + FXS_XFER_HEAD + 4, clen);
	memcpy(out + CHUNK_HEAD, s->blob + (size_t)pick * FXS_XFER_CHUNK, clen);
	if (s->sent_at[pick])
		++s->resent;
	s->sent_at[pick] = now_ms + 1;
	if (s->sends[pick] < 255)
		++s->sends[pick];
	++s->chunks_sent;
	s->next = pick + 1 < s->nchunks ? pick + 1 : 0;
	return CHUNK_HEAD + clen;
}

static void sender_mark(fxs_xfer_sender *s, uint32_t i, uint64_t now_ms, uint64_t *sample)
{
	if (s->acked[i])
		return;
	s->acked[i] = 1;
	++s->n_acked;
	/* Karn: a round trip is measured on chunks sent once only */
	if (s->sends[i] == 1 && s->sent_at[i] && now_ms + 1 >= s->sent_at[i])
		*sample = now_ms + 1 - s->sent_at[i];
}

fxs_xfer_err fxs_xfer_send_ack(fxs_xfer_sender *s, const uint8_t *msg, size_t len, uint64_t now_ms)
{
	if (!s)
		return FXS_XFER_OTHER;
	fxs_xfer_head h;
	fxs_xfer_err e = fxs_xfer_peek(msg, len, &h);
	if (e == FXS_XFER_OK && h.kind != FXS_XFER_KIND_ACK)
		e = FXS_XFER_KIND;
	if (e == FXS_XFER_OK && (s->state == FXS_XFER_SEND_IDLE || h.purpose != s->purpose || h.id != s->id || h.size != s->size || h.hash != s->hash))
		e = FXS_XFER_OTHER;
	if (e == FXS_XFER_OK && len < ACK_HEAD)
		e = FXS_XFER_SHORT;
	uint32_t contiguous = 0, nbits = 0;
	if (e == FXS_XFER_OK) {
		contiguous = get32(msg + FXS_XFER_HEAD);
		nbits = get16(msg + FXS_XFER_HEAD + 4);
		size_t want = ACK_HEAD + (nbits + 7u) / 8u;
		if (nbits > FXS_XFER_ACK_BITS || contiguous > s->nchunks || nbits > s->nchunks - contiguous)
			e = FXS_XFER_BITMAP;
		else if (len < want)
			e = FXS_XFER_SHORT;
		else if (len > want)
			e = FXS_XFER_LONG;
		else if (nbits % 8u && msg[ACK_HEAD + nbits / 8u] >> (nbits % 8u))
			e = FXS_XFER_BITMAP; /* bits past nbits */
	}
	if (e != FXS_XFER_OK) {
		++s->acks_rejected;
		s->last_err = e;
		return e;
	}
	++s->acks_taken;
	if (s->state != FXS_XFER_SENDING)
		return FXS_XFER_OK;
	/* final answers, whatever the epoch */
	if (h.flags & FXS_XFER_FLAG_REFUSED) {
		s->state = FXS_XFER_FAILED;
		return FXS_XFER_OK;
	}
	if (h.flags & FXS_XFER_FLAG_DONE) {
		memset(s->acked, 1, s->nchunks);
		s->n_acked = s->nchunks;
		s->state = FXS_XFER_SENT;
		return FXS_XFER_OK;
	}
	uint8_t epoch = msg[3];
	if (!s->heard) {
		s->heard = true;
		s->epoch = epoch;
	} else if (epoch != s->epoch) {
		if ((uint8_t)(epoch - s->epoch) >= 128u)
			return FXS_XFER_OK; /* from before a reset: its bitmap is of chunks thrown away */
		/* the receiver threw everything away (a hash mismatch): all again */
		s->epoch = epoch;
		++s->restarts;
		memset(s->acked, 0, s->nchunks);
		memset(s->sent_at, 0, (size_t)s->nchunks * sizeof *s->sent_at);
		s->n_acked = 0;
		s->next = 0;
		if (s->restarts > FXS_XFER_MAX_RESTARTS) {
			s->state = FXS_XFER_FAILED;
			return FXS_XFER_OK;
		}
	}
	uint64_t sample = 0;
	for (uint32_t i = 0; i < contiguous; ++i)
		sender_mark(s, i, now_ms, &sample);
	for (uint32_t i = 0; i < nbits; ++i)
		if (msg[ACK_HEAD + i / 8u] >> (i % 8u) & 1u)
			sender_mark(s, contiguous + i, now_ms, &sample);
	if (sample) {
		uint64_t x8 = sample * 8u;
		s->srtt = s->srtt ? s->srtt - s->srtt / 8u + x8 / 8u : x8;
	}
	return FXS_XFER_OK;
}

/* ---- receiver ---- */

void fxs_xfer_recv_init(fxs_xfer_receiver *r, uint32_t limit, uint8_t want_purpose, uint32_t want_id)
{
	if (!r)
		return;
	memset(r, 0, sizeof *r);
	r->limit = limit && limit < FXS_XFER_MAX_SIZE ? limit : (limit ? FXS_XFER_MAX_SIZE : FXS_XFER_DEFAULT_LIMIT);
	r->want_purpose = want_purpose;
	r->want_id = want_id;
}

static void recv_drop(fxs_xfer_receiver *r)
{
	free(r->blob);
	free(r->held);
	r->blob = r->held = NULL;
	r->state = FXS_XFER_RECV_IDLE;
	r->purpose = 0;
	r->id = r->size = r->nchunks = r->contiguous = r->n_held = 0;
	r->hash = 0;
	r->epoch = 0;
}

void fxs_xfer_recv_free(fxs_xfer_receiver *r)
{
	if (r)
		recv_drop(r);
}

static bool same_blob(const fxs_xfer_head *h, uint8_t purpose, uint32_t id, uint32_t size, uint64_t hash)
{
	return h->purpose == purpose && h->id == id && h->size == size && h->hash == hash;
}

static void ack_due(fxs_xfer_receiver *r, const fxs_xfer_head *h, uint8_t flags)
{
	r->ack_due = true;
	r->ack_head = *h;
	r->ack_flags = flags;
}

fxs_xfer_err fxs_xfer_recv_chunk(fxs_xfer_receiver *r, const uint8_t *msg, size_t len)
{
	if (!r)
		return FXS_XFER_OTHER;
	fxs_xfer_head h;
	fxs_xfer_err e = fxs_xfer_peek(msg, len, &h);
	uint32_t index = 0, clen = 0;
	if (e == FXS_XFER_OK && h.kind != FXS_XFER_KIND_CHUNK)
		e = FXS_XFER_KIND;
	if (e == FXS_XFER_OK && ((r->want_purpose && h.purpose != r->want_purpose) || (r->want_id && h.id != r->want_id)))
		e = FXS_XFER_OTHER;
	if (e == FXS_XFER_OK && len < CHUNK_HEAD)
		e = FXS_XFER_SHORT;
	if (e == FXS_XFER_OK) {
		index = get32(msg + FXS_XFER_HEAD);
		clen = get16(msg + FXS_XFER_HEAD + 4);
		if (index >= chunks_of(h.size))
			e = FXS_XFER_INDEX;
		else if (clen != chunk_len(h.size, index))
			e = FXS_XFER_LENGTH;
		else if (len < CHUNK_HEAD + clen)
			e = FXS_XFER_SHORT;
		else if (len > CHUNK_HEAD + clen)
			e = FXS_XFER_LONG;
	}
	if (e == FXS_XFER_OK && h.size > r->limit) {
		ack_due(r, &h, FXS_XFER_FLAG_REFUSED); /* the sender learns it need not go on */
		e = FXS_XFER_TOO_BIG;
	}
	if (e != FXS_XFER_OK) {
		++r->rejected[e];
		return e;
	}
	/* a blob already verified: say so again (the sender missed it) */
	if (r->done_id && same_blob(&h, r->done_purpose, r->done_id, r->done_size, r->done_hash)) {
		++r->duplicates;
		ack_due(r, &h, FXS_XFER_FLAG_DONE);
		return FXS_XFER_OK;
	}
	bool current = r->state != FXS_XFER_RECV_IDLE && same_blob(&h, r->purpose, r->id, r->size, r->hash);
	if (r->state == FXS_XFER_RECEIVED) {
		if (current) {
			++r->duplicates;
			ack_due(r, &h, FXS_XFER_FLAG_DONE);
			return FXS_XFER_OK;
		}
		++r->rejected[FXS_XFER_BUSY];
		return FXS_XFER_BUSY;
	}
	if (!current) {
		if (r->state == FXS_XFER_RECEIVING)
			++r->replaced;
		recv_drop(r);
		uint32_t n = chunks_of(h.size);
		r->blob = malloc(h.size);
		r->held = calloc(n, 1);
		if (!r->blob || !r->held) {
			recv_drop(r);
			++r->rejected[FXS_XFER_NOMEM];
			return FXS_XFER_NOMEM;
		}
		r->state = FXS_XFER_RECEIVING;
		r->purpose = h.purpose;
		r->id = h.id;
		r->size = h.size;
		r->hash = h.hash;
		r->nchunks = n;
	}
	ack_due(r, &h, 0);
	if (r->held[index]) {
		++r->duplicates;
		return FXS_XFER_OK;
	}
	memcpy(r->blob + (size_t)index * FXS_XFER_CHUNK, msg + CHUNK_HEAD, clen);
	r->held[index] = 1;
	++r->n_held;
	++r->chunks_taken;
	while (r->contiguous < r->nchunks && r->held[r->contiguous])
		++r->contiguous;
	if (r->n_held == r->nchunks) {
		if (XXH3_64bits(r->blob, r->size) == r->hash) {
			r->state = FXS_XFER_RECEIVED;
			r->ack_flags = FXS_XFER_FLAG_DONE;
		} else { /* some chunk lied: which one cannot be told, so all go */
			memset(r->held, 0, r->nchunks);
			r->n_held = r->contiguous = 0;
			++r->epoch;
			++r->resets;
			r->ack_flags = FXS_XFER_FLAG_RESET;
		}
	}
	return FXS_XFER_OK;
}

size_t fxs_xfer_recv_poll(fxs_xfer_receiver *r, uint8_t *out, size_t cap)
{
	if (!r || !r->ack_due || !out || cap < ACK_HEAD + FXS_XFER_ACK_BITS / 8u)
		return 0;
	r->ack_due = false;
	const fxs_xfer_head *h = &r->ack_head;
	bool current = r->state != FXS_XFER_RECV_IDLE && same_blob(h, r->purpose, r->id, r->size, r->hash);
	uint8_t flags = r->ack_flags;
	uint32_t contiguous = 0, nbits = 0;
	uint8_t epoch = 0;
	if (flags & FXS_XFER_FLAG_DONE) {
		contiguous = chunks_of(h->size);
	} else if (current) {
		epoch = r->epoch;
		contiguous = r->contiguous;
		uint32_t span = r->nchunks - contiguous;
		if (span > FXS_XFER_ACK_BITS)
			span = FXS_XFER_ACK_BITS;
		for (uint32_t i = 0; i < span; ++i)
			if (r->held[contiguous + i])
				nbits = i + 1; /* up to the last chunk held */
	} else if (!(flags & FXS_XFER_FLAG_REFUSED)) {
		return 0; /* the blob this was for is gone */
	}
	write_head(out, FXS_XFER_KIND_ACK, h->purpose, flags, epoch, h->id, h->size, h->hash);
	put32(out + FXS_XFER_HEAD, contiguous);
	put16(out + FXS_XFER_HEAD + 4, nbits);
	size_t nbytes = (nbits + 7u) / 8u;
	memset(out + ACK_HEAD, 0, nbytes);
	for (uint32_t i = 0; i < nbits; ++i)
		if (r->held[contiguous + i])
			out[ACK_HEAD + i / 8u] |= (uint8_t)(1u << (i % 8u));
	return ACK_HEAD + nbytes;
}

uint8_t *fxs_xfer_recv_take(fxs_xfer_receiver *r, size_t *size, uint8_t *purpose, uint32_t *id)
{
	if (!r || r->state != FXS_XFER_RECEIVED)
		return NULL;
	uint8_t *b = r->blob;
	if (size)
		*size = r->size;
	if (purpose)
		*purpose = r->purpose;
	if (id)
		*id = r->id;
	r->done_purpose = r->purpose;
	r->done_id = r->id;
	r->done_size = r->size;
	r->done_hash = r->hash;
	r->blob = NULL;
	recv_drop(r);
	return b;
}
