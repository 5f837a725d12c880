/* State hashing: XXH3-64 over the canonical serialisation (state.c). */
#include "state.h"

#include <xxhash.h>

static uint64_t hash_state(const fxs_world *w, fxs_writer *wr)
{
	wr->len = 0;
	fxs_state_write(w, wr);
	if (wr->failed)
		return 0;
	return (uint64_t)XXH3_64bits(wr->buf, wr->len);
}

void fxs_world_update_hash(fxs_world *w)
{
	if (!w->hash_buf.grow)
		fxs_writer_init_growable(&w->hash_buf);
	w->hash = hash_state(w, &w->hash_buf);
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
