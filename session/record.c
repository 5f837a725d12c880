/* A replay of what a session confirmed (fxs_session_write_replay in
 * fixstep/session.h), written with the replay library (fixstep/replay.h). */
#include "fixstep/replay.h"
#include "fixstep/session.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

fxs_replay_status fxs_session_write_replay(const fxs_session *s, fxs_world *start, fxs_session_apply_fn apply,
					   void *ctx, const char *path, const char *name, uint64_t *final_hash,
					   char *err, size_t errlen)
{
	char dummy[8];
	if (!err)
		err = dummy, errlen = sizeof dummy;
	uint32_t players = fxs_session_players(s), isz = fxs_session_input_size(s);
	uint64_t ticks = fxs_session_confirmed(s);
	if (!s || !start || !path || !apply) {
		snprintf(err, errlen, "a session, its start world, a path and apply_inputs are needed");
		return FXS_REPLAY_CORRUPT;
	}
	uint8_t *in = malloc((size_t)players * isz);
	if (!in) {
		snprintf(err, errlen, "out of memory");
		return FXS_REPLAY_NOMEM;
	}
	fxs_replay_writer rw;
	fxs_replay_status st = fxs_replay_writer_open(&rw, path, name, start, players, isz, 0, 0);
	for (uint64_t t = 1; st == FXS_REPLAY_OK && t <= ticks; ++t) {
		fxs_session_inputs(s, t, in, (size_t)players * isz); /* t <= confirmed: always there */
		fxs_result r = apply(start, t, in, players, ctx);
		if (r != FXS_OK) {
			snprintf(rw.error, sizeof rw.error, "apply_inputs failed at tick %" PRIu64 ": %s", t,
				 fxs_result_string(r));
			st = FXS_REPLAY_CORRUPT;
		} else if (fxs_world_step(start) != FXS_OK) {
			snprintf(rw.error, sizeof rw.error, "out of memory at step %" PRIu64, t);
			st = FXS_REPLAY_NOMEM;
		} else {
			st = fxs_replay_writer_tick(&rw, in, start);
		}
	}
	free(in);
	if (final_hash)
		*final_hash = fxs_world_hash(start);
	if (st == FXS_REPLAY_OK)
		st = fxs_replay_writer_close(&rw);
	if (st != FXS_REPLAY_OK) {
		snprintf(err, errlen, "%s", rw.error);
		fxs_replay_writer_abandon(&rw); /* (nothing left after a failed close) */
	}
	return st;
}
