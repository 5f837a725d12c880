/* State hashing: XXH3-64 over the canonical serialisation (state.c),
 * streamed: the serialisation goes through a small buffer into XXH3's
 * streaming state (the same hash as over the whole, which never sits in
 * memory: 2 MB a step for 5,000 boxes, written and read back). */
#include "state/hash.h"
#include "state/state.h"
#include "state/game_state.h"
#include "simd/kernels.h"

#include <stdlib.h>
#include <xxhash.h>

enum { HASH_CHUNK = 16384 };

static void hash_flush(void *ctx, const void *p, size_t n) { (void)XXH3_64bits_update((XXH3_state_t *)ctx, p, n); }

/* XXH3-64 of w's serialisation, streamed through chunk (HASH_CHUNK bytes)
 * into st; 0 when there is no state or buffer (out of memory). The update
 * runs on the vector instruction set of the world's kernels (hash.h). */
static uint64_t hash_state(const fxs_world *w, XXH3_state_t *st, uint8_t *chunk)
{
	if (!st || !chunk || XXH3_64bits_reset(st) != XXH_OK)
		return 0;
	const fxs_kernel_table *k = fxs_kernel_table_get(fxs_world_get_kernels(w));
	fxs_writer wr;
	fxs_writer_init_stream(&wr, chunk, HASH_CHUNK, k && k->hash_update ? k->hash_update : hash_flush, st);
	fxs_state_write(w, &wr);
	fxs_writer_flush(&wr);
	return (uint64_t)XXH3_64bits_digest(st);
}

bool fxs_world_hash_reserve(fxs_world *w)
{
	/* the world keeps its state and buffer; each allocated when missing */
	if (!w->hash_stream)
		w->hash_stream = XXH3_createState();
	if (!w->hash_chunk)
		w->hash_chunk = malloc(HASH_CHUNK);
	return w->hash_stream && w->hash_chunk;
}

void fxs_world_update_hash(fxs_world *w)
{
	if (!fxs_world_hash_reserve(w)) { /* (not in a step: it reserves them first) */
		w->hash_valid = false;    /* made when asked, not kept as a wrong 0 */
		return;
	}
	w->hash = hash_state(w, (XXH3_state_t *)w->hash_stream, w->hash_chunk);
	w->hash_valid = true;
}

uint64_t fxs_world_rehash(fxs_world *w)
{
	if (!w)
		return 0;
	fxs_world_update_hash(w);
	return fxs_world_hash(w);
}

uint64_t fxs_world_hash(const fxs_world *w)
{
	if (!w)
		return 0;
	if (w->hash_valid)
		return w->hash;
	XXH3_state_t *st = XXH3_createState();
	uint8_t *chunk = malloc(HASH_CHUNK);
	uint64_t h = hash_state(w, st, chunk);
	XXH3_freeState(st);
	free(chunk);
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
	if (fxs_game_body_has_record(b)) /* its GAME record: flags, locks, filter, mass */
		fxs_game_write_body(b, id.index1 - 1, &wr);
	return wr.failed ? 0 : (uint64_t)XXH3_64bits(buf, wr.len);
}

size_t fxs_world_serialize_state(const fxs_world *w, void *buf, size_t cap)
{
	if (!w)
		return 0;
	fxs_writer wr;
	fxs_writer_init_fixed(&wr, buf, cap);
	fxs_state_write(w, &wr);
	return wr.len;
}
