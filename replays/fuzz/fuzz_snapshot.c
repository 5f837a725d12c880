/* libFuzzer target: fxs_world_create_from_snapshot / restore on untrusted
 * bytes. A snapshot that restores must save again and restore to the same
 * state hash (the round trip the determinism contract promises).
 *
 * First byte: odd -> the trailing XXH3-64 is recomputed over the rest, so
 * mutations reach the payload's range checks; even -> bytes as they are. */
#include "fixstep/fixstep.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t n = size - 1;
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, n);
	if ((data[0] & 1) && n >= 32) {
		uint64_t h = (uint64_t)XXH3_64bits(buf, n - 8);
		for (int i = 0; i < 8; ++i)
			buf[n - 8 + i] = (uint8_t)(h >> (8 * i));
	}
	fxs_result err;
	fxs_world *w = fxs_world_create_from_snapshot(buf, n, &err);
	free(buf);
	if (!w)
		return 0;
	uint64_t h = fxs_world_hash(w);
	size_t len = fxs_world_snapshot_size(w);
	uint8_t *snap = malloc(len);
	size_t written = 0;
	if (!snap || fxs_world_snapshot_save(w, snap, len, &written) != FXS_OK)
		abort();
	fxs_world *w2 = fxs_world_create_from_snapshot(snap, written, &err);
	if (!w2 || fxs_world_hash(w2) != h)
		abort(); /* a snapshot that restores must round-trip */
	if (fxs_world_slot_count(w) <= 64) {
		fxs_world_step(w);
		fxs_world_step(w2);
		if (fxs_world_hash(w) != fxs_world_hash(w2))
			abort(); /* restore -> step == step */
	}
	fxs_world_destroy(w2);
	fxs_world_destroy(w);
	free(snap);
	return 0;
}
