/* libFuzzer target: the replay reader (header, chunks, end record, detail
 * deltas, the call records of CALLS replays), the snapshot restore behind a
 * replay's initial state, and a few ticks re-simulated (a scene's input
 * handler, or the recorded calls made on the world).
 *
 * The first input byte picks a mode: odd -> the checksums of the rest are
 * recomputed before parsing (fxs_replay_fix_checksums), so mutations reach
 * the range checks behind them; even -> the bytes are parsed as they are. */
#include "replay_run.h"

#include <stdlib.h>
#include <string.h>

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
	if (data[0] & 1)
		fxs_replay_fix_checksums(buf, n);
	fxs_replay r;
	fxs_replay_parse(&r, buf, n);
	free(buf);
	if (!fxs_replay_header_ok(&r)) {
		fxs_replay_free(&r);
		return 0;
	}
	uint64_t acc = 0;
	for (uint64_t i = 0; i < r.tick_count; ++i) {
		fxs_input in[FXS_MAX_PLAYERS];
		fxs_replay_tick_inputs(&r, i, in);
		acc += fxs_replay_tick_hash(&r, i) + (uint64_t)in[0].move_x;
	}
	if (r.flags & FXS_REPLAY_FLAG_DETAIL) {
		fxs_replay_detail d;
		if (fxs_replay_detail_init(&r, &d) == FXS_REPLAY_OK) {
			while (d.applied < r.tick_count && d.applied < 256 && fxs_replay_detail_next(&r, &d) == FXS_REPLAY_OK)
				acc += d.len;
			fxs_replay_detail_free(&d);
		}
	}
	char err[256];
	const fxs_scene *sc;
	/* the file's own start, whatever it is: the reader and the world under
	 * mutated snapshots are what this fuzzes (verify refuses such starts) */
	fxs_replay_expect own = { .snapshot = r.data + r.snapshot_off, .snapshot_len = r.snapshot_len };
	fxs_world *w = fxs_replay_start(&r, &own, &sc, err, sizeof err);
	if (w) {
		/* a few ticks of small worlds: the inputs reach the scene's handler,
		 * the calls of a CALLS replay are made on the world */
		if (fxs_world_slot_count(w) <= 64)
			for (uint64_t i = 0; i < r.tick_count && i < 4; ++i)
				fxs_replay_step(&r, sc, w, i);
		acc += fxs_world_hash(w);
		fxs_world_destroy(w);
	}
	fxs_replay_free(&r);
	return (int)(acc & 0); /* keep acc alive */
}
