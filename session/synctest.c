/* GGPO's synctest (fxs_synctest in fixstep/session.h): what a rollback
 * session relies on, in one process, without a network or keys. */
#include "fixstep/session.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every player's input of tick t into in (players x isz bytes). */
static void tick_inputs(fxs_session_input_fn input, void *ctx, uint64_t t, uint32_t players, size_t isz,
			uint8_t *in)
{
	memset(in, 0, players * isz);
	for (uint32_t p = 0; input && p < players; ++p)
		input(ctx, t, p, in + p * isz);
}

typedef struct synctest_state {
	const fxs_session_callbacks *g;
	uint8_t **snaps;
	size_t *lens, *caps;
	uint64_t *h;
	uint8_t *in;
} synctest_state;

/* Save the state before tick t into its slot: false with why in err. */
static bool keep(synctest_state *st, uint32_t slot, uint64_t t, fxs_synctest_result *res, char *err, size_t errlen)
{
	size_t need = st->g->state_size(st->g->ctx);
	if (need > st->caps[slot]) {
		uint8_t *nb = realloc(st->snaps[slot], need);
		if (!nb) {
			snprintf(err, errlen, "advance failed at tick %" PRIu64 " (out of memory, or the game's own reason)", t);
			return false;
		}
		st->snaps[slot] = nb;
		st->caps[slot] = need;
	}
	if (!st->g->save(st->g->ctx, st->snaps[slot], st->caps[slot], &st->lens[slot])) {
		snprintf(err, errlen, "the state cannot be saved at tick %" PRIu64, t);
		return false;
	}
	if (st->lens[slot] > res->snapshot_bytes)
		res->snapshot_bytes = st->lens[slot];
	return true;
}

bool fxs_synctest(const fxs_session_callbacks *game, uint32_t players, uint32_t input_size, uint32_t ticks,
		  uint32_t depth, fxs_session_input_fn input, void *input_ctx, fxs_synctest_result *res, char *err,
		  size_t errlen)
{
	char dummy[8];
	if (!err)
		err = dummy, errlen = sizeof dummy;
	if (!res || !game || !game->state_size || !game->save || !game->load || !game->advance || !game->checksum ||
	    depth < 1 || depth > 64 || players < 1 || players > FXS_SESSION_MAX_PLAYERS || input_size < 1 ||
	    input_size > FXS_SESSION_MAX_TICK_INPUT || ticks < 1 || ticks > FXS_SESSION_MAX_TICKS) {
		snprintf(err, errlen, "bad synctest arguments");
		return false;
	}
	memset(res, 0, sizeof *res);
	synctest_state st = { game, calloc((size_t)depth + 1, sizeof(uint8_t *)),
			      calloc((size_t)depth + 1, sizeof(size_t)), calloc((size_t)depth + 1, sizeof(size_t)),
			      calloc((size_t)ticks + 1, sizeof(uint64_t)), calloc(players, input_size) };
	bool ok = st.snaps && st.lens && st.caps && st.h && st.in;
	if (!ok)
		snprintf(err, errlen, "out of memory");
	for (uint64_t t = 1; ok && t <= ticks; ++t) {
		/* keep the state before tick t */
		if (!keep(&st, (uint32_t)((t - 1) % (depth + 1)), t, res, err, errlen)) {
			ok = false;
			break;
		}
		tick_inputs(input, input_ctx, t, players, input_size, st.in);
		if (!game->advance(game->ctx, t, st.in, players)) {
			snprintf(err, errlen, "advance failed at tick %" PRIu64 " (out of memory, or the game's own reason)", t);
			ok = false;
			break;
		}
		st.h[t] = game->checksum(game->ctx);
		/* go back min(depth, t) ticks and advance them again */
		uint64_t back = t < depth ? t : depth;
		uint64_t from = t - back + 1;
		uint32_t fs = (uint32_t)((from - 1) % (depth + 1));
		if (!game->load(game->ctx, st.snaps[fs], st.lens[fs])) {
			snprintf(err, errlen, "the state of tick %" PRIu64 " cannot be loaded", from - 1);
			ok = false;
			break;
		}
		++res->rollbacks;
		for (uint64_t k = from; ok && k <= t; ++k) {
			tick_inputs(input, input_ctx, k, players, input_size, st.in);
			if (!game->advance(game->ctx, k, st.in, players)) {
				snprintf(err, errlen, "advance failed re-simulating tick %" PRIu64 " (out of memory, or the game's own reason)", k);
				ok = false;
				break;
			}
			++res->resimulated;
			uint64_t again = game->checksum(game->ctx);
			if (again != st.h[k]) {
				snprintf(err, errlen,
					 "tick %" PRIu64 " re-simulated after a rollback at tick %" PRIu64
					 " hashes %016" PRIx64 ", first run %016" PRIx64,
					 k, t, again, st.h[k]);
				ok = false;
			}
		}
	}
	if (ok)
		res->final_hash = game->checksum(game->ctx);
	for (uint32_t i = 0; st.snaps && i <= depth; ++i)
		free(st.snaps[i]);
	free(st.snaps);
	free(st.lens);
	free(st.caps);
	free(st.h);
	free(st.in);
	return ok;
}
