/* State hashing: XXH3-64 over the canonical serialisation (state.c). The
 * step's hash streams it: the serialisation goes through a small buffer
 * into XXH3's streaming state (the same hash as over the whole, which never
 * sits in memory: 2 MB a step for 5,000 boxes, written and read back). */
#include "state.h"

#include <stdlib.h>
#include <xxhash.h>

static uint64_t hash_state(const fxs_world *w, fxs_writer *wr)
{
	wr->len = 0;
	fxs_state_write(w, wr);
	if (wr->failed)
		return 0;
	return (uint64_t)XXH3_64bits(wr->buf, wr->len);
}

static void hash_flush(void *ctx, const void *p, size_t n) { (void)XXH3_64bits_update((XXH3_state_t *)ctx, p, n); }

void fxs_world_update_hash(fxs_world *w)
{
	enum { CHUNK = 16384 };
	if (!w->hash_stream)
		w->hash_stream = XXH3_createState();
	if (!w->hash_chunk)
		w->hash_chunk = malloc(CHUNK);
	if (!w->hash_stream || !w->hash_chunk || XXH3_64bits_reset((XXH3_state_t *)w->hash_stream) != XXH_OK) {
		w->hash = 0; /* out of memory: hash_state's convention */
		w->hash_valid = true;
		return;
	}
	fxs_writer wr;
	fxs_writer_init_stream(&wr, w->hash_chunk, CHUNK, hash_flush, w->hash_stream);
	fxs_state_write(w, &wr);
	fxs_writer_flush(&wr);
	w->hash = (uint64_t)XXH3_64bits_digest((const XXH3_state_t *)w->hash_stream);
	w->hash_valid = true;
}

uint64_t fxs_world_rehash(fxs_world *w)
{
	fxs_world_update_hash(w);
	return w->hash;
}

uint64_t fxs_world_hash(const fxs_world *w)
{
	if (w->hash_valid)
		return w->hash;
	fxs_writer wr;
	fxs_writer_init_growable(&wr);
	uint64_t h = hash_state(w, &wr);
	fxs_writer_free(&wr);
	return h;
}

uint64_t fxs_body_hash(const fxs_world *w, fxs_body_id id)
{
	const fxs_body *b = fxs_world_get_body(w, id);
	if (!b)
		return 0;
	uint8_t buf[256];
	fxs_writer wr;
	fxs_writer_init_fixed(&wr, buf, sizeof buf);
	fxs_serialize_body(b, &wr);
	return wr.failed ? 0 : (uint64_t)XXH3_64bits(buf, wr.len);
}

size_t fxs_world_serialize_state(const fxs_world *w, void *buf, size_t cap)
{
	fxs_writer wr;
	fxs_writer_init_fixed(&wr, buf, cap);
	fxs_state_write(w, &wr);
	return wr.len;
}
