/* Stages: the object check table of seed 000 as one 64-bit mask per body
 * (bit s set: the body is taken in stage s), sequential over the canonical
 * constraint order, so the assignment never depends on thread timing (the
 * seed's parallel assignment is racy; see the note, table row 10). */
#include "solve/stage.h"

#include <string.h>

size_t fxs_stages_scratch_size(uint32_t bodies) { return (size_t)bodies * sizeof(uint64_t); }

static inline uint64_t taken(const uint64_t *mask, uint32_t s) { return s == FXS_STAGE_FREE ? 0 : mask[s]; }

static inline void take(uint64_t *mask, uint32_t s, uint64_t bit)
{
	if (s != FXS_STAGE_FREE)
		mask[s] |= bit;
}

/* lowest clear bit of m, as a stage; FXS_STAGE_OVERFLOW when all are set */
static inline uint32_t lowest_free(uint64_t m)
{
	uint64_t f = ~m;
	if (f == 0)
		return FXS_STAGE_OVERFLOW;
	uint32_t s = 0;
	while ((f & 1u) == 0) {
		f >>= 1;
		++s;
	}
	return s;
}

uint32_t fxs_stages_assign(fxs_stage_item *items, uint32_t n, uint32_t bodies, void *scratch, uint32_t *order, uint32_t *ends)
{
	uint64_t *mask = scratch;
	memset(mask, 0, fxs_stages_scratch_size(bodies));
	/* 1: constraints that had a stage last step keep it if both bodies are
	 * still free there (always, unless bodies woke or changed type) */
	for (uint32_t i = 0; i < n; ++i) {
		fxs_stage_item *it = &items[i];
		if (it->stage >= FXS_STAGE_LIMIT) {
			it->stage = FXS_STAGE_NONE;
			continue;
		}
		uint64_t bit = (uint64_t)1 << it->stage;
		if ((taken(mask, it->a) | taken(mask, it->b)) & bit) {
			it->stage = FXS_STAGE_NONE;
			continue;
		}
		take(mask, it->a, bit);
		take(mask, it->b, bit);
	}
	/* 2: the others, in canonical order, first fit */
	uint32_t count[FXS_STAGE_OVERFLOW + 1] = { 0 };
	for (uint32_t i = 0; i < n; ++i) {
		fxs_stage_item *it = &items[i];
		if (it->stage == FXS_STAGE_NONE) {
			uint32_t s = lowest_free(taken(mask, it->a) | taken(mask, it->b));
			it->stage = (uint8_t)s;
			if (s < FXS_STAGE_LIMIT) {
				take(mask, it->a, (uint64_t)1 << s);
				take(mask, it->b, (uint64_t)1 << s);
			}
		}
		count[it->stage]++;
	}
	/* 3: solve order by (stage, index): a counting sort, stable */
	uint32_t used = 0, start = 0;
	for (uint32_t s = 0; s <= FXS_STAGE_OVERFLOW; ++s) {
		uint32_t c = count[s];
		count[s] = start;
		start += c;
		used += c != 0;
		if (ends)
			ends[s] = start;
	}
	if (order)
		for (uint32_t i = 0; i < n; ++i)
			order[count[items[i].stage]++] = i;
	return used;
}
