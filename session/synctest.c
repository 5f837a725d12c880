/* GGPO's synctest (synctest.h). */
#include "session/synctest.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_run.h"

bool fxs_synctest(const fxs_scene *scene, uint32_t players, uint32_t ticks, uint32_t depth, uint64_t seed,
		  fxs_synctest_result *res, char *err, size_t errlen)
{
	memset(res, 0, sizeof *res);
	if (depth < 1 || depth > 64 || players < 1 || players > FXS_MAX_PLAYERS) {
		snprintf(err, errlen, "bad synctest arguments");
		return false;
	}
	fxs_world *w = scene->create();
	uint64_t *h = calloc((size_t)ticks + 1, sizeof *h);
	uint8_t **snaps = calloc((size_t)depth + 1, sizeof *snaps);
	size_t *lens = calloc((size_t)depth + 1, sizeof *lens);
	bool ok = w && h && snaps && lens;
	if (!ok)
		snprintf(err, errlen, "out of memory");
	fxs_input in[FXS_MAX_PLAYERS];
	for (uint64_t t = 1; ok && t <= ticks; ++t) {
		/* keep the snapshot of the state before tick t */
		uint32_t slot = (uint32_t)((t - 1) % (depth + 1));
		size_t need = fxs_world_snapshot_size(w);
		free(snaps[slot]);
		snaps[slot] = malloc(need);
		if (!snaps[slot] || fxs_world_snapshot_save(w, snaps[slot], need, &lens[slot]) != FXS_OK) {
			snprintf(err, errlen, "snapshot failed at tick %" PRIu64, t);
			ok = false;
			break;
		}
		if (need > res->snapshot_bytes)
			res->snapshot_bytes = need;
		fxs_inputs_random(seed, t, players, in);
		scene->apply_inputs(w, in, players, t);
		if (fxs_world_step(w) != FXS_OK) {
			snprintf(err, errlen, "out of memory at tick %" PRIu64, t);
			ok = false;
			break;
		}
		h[t] = fxs_world_hash(w);
		/* roll back min(depth, t) ticks and simulate them again */
		uint64_t back = t < depth ? t : depth;
		uint64_t from = t - back + 1;
		uint32_t fs = (uint32_t)((from - 1) % (depth + 1));
		if (fxs_world_snapshot_restore(w, snaps[fs], lens[fs]) != FXS_OK) {
			snprintf(err, errlen, "restore failed at tick %" PRIu64, t);
			ok = false;
			break;
		}
		++res->rollbacks;
		for (uint64_t k = from; k <= t; ++k) {
			fxs_inputs_random(seed, k, players, in);
			scene->apply_inputs(w, in, players, k);
			if (fxs_world_step(w) != FXS_OK) {
				snprintf(err, errlen, "out of memory re-simulating tick %" PRIu64, k);
				ok = false;
				break;
			}
			++res->resimulated;
			if (fxs_world_hash(w) != h[k]) {
				snprintf(err, errlen,
					 "%s: tick %" PRIu64 " re-simulated after a rollback at tick %" PRIu64
					 " hashes %016" PRIx64 ", first run %016" PRIx64,
					 scene->name, k, t, fxs_world_hash(w), h[k]);
				ok = false;
				break;
			}
		}
	}
	if (ok)
		res->final_hash = fxs_world_hash(w);
	for (uint32_t i = 0; snaps && i <= depth; ++i)
		free(snaps[i]);
	free(snaps);
	free(lens);
	free(h);
	fxs_world_destroy(w);
	return ok;
}
