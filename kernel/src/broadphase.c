/* Broadphase placeholder: all pairs, O(n^2). Replaced by the seed 000 tree
 * (issue 3); kept correct so that the step works meanwhile. */
#include "broadphase.h"

#include <stdlib.h>

struct fxs_broadphase {
	fxs_aabb *aabbs;
	uint8_t *flags;
	uint32_t count, cap;
	fxs_pair *pairs;
	uint32_t pair_count, pair_cap;
};

fxs_broadphase *fxs_bp_create(void) { return calloc(1, sizeof(fxs_broadphase)); }

void fxs_bp_destroy(fxs_broadphase *bp)
{
	if (!bp)
		return;
	free(bp->aabbs);
	free(bp->flags);
	free(bp->pairs);
	free(bp);
}

fxs_result fxs_bp_update(fxs_broadphase *bp, const fxs_aabb *aabbs, const uint8_t *flags, uint32_t count)
{
	if (count > bp->cap) {
		fxs_aabb *na = realloc(bp->aabbs, count * sizeof *na);
		if (!na)
			return FXS_ERR_NOMEM;
		bp->aabbs = na;
		uint8_t *nf = realloc(bp->flags, count);
		if (!nf)
			return FXS_ERR_NOMEM;
		bp->flags = nf;
		bp->cap = count;
	}
	for (uint32_t i = 0; i < count; ++i) {
		bp->aabbs[i] = aabbs[i];
		bp->flags[i] = flags[i];
	}
	bp->count = count;
	return FXS_OK;
}

const fxs_pair *fxs_bp_find_pairs(fxs_broadphase *bp, uint32_t *pair_count)
{
	bp->pair_count = 0;
	for (uint32_t a = 0; a < bp->count; ++a) {
		if (!(bp->flags[a] & FXS_PROXY_LIVE))
			continue;
		for (uint32_t b = a + 1; b < bp->count; ++b) {
			if (!(bp->flags[b] & FXS_PROXY_LIVE))
				continue;
			if (!((bp->flags[a] | bp->flags[b]) & FXS_PROXY_MOVING))
				continue;
			if (!fxs_aabb_overlap(&bp->aabbs[a], &bp->aabbs[b]))
				continue;
			if (bp->pair_count == bp->pair_cap) {
				uint32_t nc = bp->pair_cap ? bp->pair_cap * 2 : 256;
				fxs_pair *np = realloc(bp->pairs, nc * sizeof *np);
				if (!np)
					break;
				bp->pairs = np;
				bp->pair_cap = nc;
			}
			bp->pairs[bp->pair_count++] = (fxs_pair){ a, b };
		}
	}
	*pair_count = bp->pair_count;
	return bp->pairs;
}

void fxs_bp_write_state(const fxs_broadphase *bp, fxs_writer *w)
{
	(void)bp;
	fxs_write_u32(w, 0); /* no persistent state */
}

fxs_result fxs_bp_read_state(fxs_broadphase *bp, fxs_reader *r, uint32_t slot_count)
{
	(void)bp;
	(void)slot_count;
	if (fxs_read_u32(r) != 0)
		fxs_reader_fail(r, FXS_ERR_CORRUPT);
	return r->err;
}
