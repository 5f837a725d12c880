/* GGPO's synctest in one process (synctest.c): what a rollback session
 * relies on, without a network or keys. */
#ifndef FXS_SESSION_SYNCTEST_H
#define FXS_SESSION_SYNCTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenes/scenes.h"

/* Synctest (GGPO): run the scene for `ticks` ticks with the given inputs;
 * every tick roll back `depth` ticks, re-simulate them and compare each
 * hash with the first simulation. false with the first mismatch in err. */
typedef struct fxs_synctest_result {
	uint64_t rollbacks, resimulated;
	uint64_t final_hash;
	size_t snapshot_bytes;
} fxs_synctest_result;
bool fxs_synctest(const fxs_scene *scene, uint32_t players, uint32_t ticks, uint32_t depth, uint64_t seed,
		  fxs_synctest_result *res, char *err, size_t errlen);

#endif
