/* Call records of CALLS replays (docs/replay-format.md): checking untrusted
 * records and making the recorded calls on a world. Private to the library. */
#ifndef FXS_REPLAY_CALLS_H
#define FXS_REPLAY_CALLS_H

#include "fixstep/replay.h"

/* The count calls in buf[0..len) are well formed: known ops, argument
 * lengths as their signatures say, canonical bools, array counts within
 * the record; false with the offset (in buf) and why. */
bool fxs_calls_check(const uint8_t *buf, size_t len, uint32_t count, size_t *bad_offset, char *why, size_t n);
/* Make every call of checked records on w, in order. FXS_OK, or
 * FXS_ERR_NOMEM when decoding an array ran out of memory (k: the call). */
fxs_result fxs_calls_run(fxs_world *w, const uint8_t *buf, size_t len, uint32_t *k);

#endif
