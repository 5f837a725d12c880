/* Snapshots whose state bytes a test can change: a world's canonical state
 * (fxs_world_serialize_state) in the unpacked container of version 9, which
 * the library still restores with every check of the state it makes on a
 * packed one. A test changes a field at its offset in the state, reseals
 * the checksum, and sees the reader refuse it. */
#ifndef FXS_TEST_SNAPSHOT_UTIL_H
#define FXS_TEST_SNAPSHOT_UTIL_H

#include "fixstep/fixstep.h"

#include <stdint.h>
#include <stdlib.h>
#include <xxhash.h>

enum { RAW_SNAPSHOT_HEAD = 24 }; /* the state starts here */

/* Re-seal a snapshot's checksum (its last 8 bytes) after changing it. */
static inline void snapshot_reseal(uint8_t *snap, size_t len)
{
	uint64_t h = (uint64_t)XXH3_64bits(snap, len - 8);
	for (int i = 0; i < 8; ++i)
		snap[len - 8 + i] = (uint8_t)(h >> (8 * i));
}

/* w's state in a version 9 snapshot (malloc'd, *len bytes); NULL when out
 * of memory. */
static inline uint8_t *raw_snapshot(const fxs_world *w, size_t *len)
{
	size_t n = fxs_world_serialize_state(w, NULL, 0);
	*len = RAW_SNAPSHOT_HEAD + n + 8;
	uint8_t *s = malloc(*len);
	if (!s)
		return NULL;
	const uint32_t head[3] = { 9u, fxs_version(), 16u | 32u << 8 };
	s[0] = 'F', s[1] = 'X', s[2] = 'S', s[3] = 'S';
	for (int k = 0; k < 3; ++k)
		for (int i = 0; i < 4; ++i)
			s[4 + 4 * k + i] = (uint8_t)(head[k] >> (8 * i));
	for (int i = 0; i < 8; ++i)
		s[16 + i] = (uint8_t)((uint64_t)n >> (8 * i));
	fxs_world_serialize_state(w, s + RAW_SNAPSHOT_HEAD, n);
	snapshot_reseal(s, *len);
	return s;
}

#endif
