/* What the session does beyond its data packets, over packet types 2..15 of
 * its shared, authenticated frame (protocol.h): the desync exchange
 * (desync_exchange.h) with every peer whose confirmed checksums differ from
 * ours. Private to the session: session.c calls these hooks. */
#ifndef FXS_SESSION_SYNC_H
#define FXS_SESSION_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fixstep/session.h"

#define FXS_PKT_DESYNC 2u     /* a transfer message of the desync exchange (xfer.h) */
#define FXS_SYNC_FRAME_MS 16u /* the transfers' clock: one advance call */
/* an exchange the peer does not finish within this (its state of the tick
 * was gone, or it left) no longer holds the session's end */
#define FXS_SYNC_GIVE_UP_MS 10000u

typedef struct fxs_sync fxs_sync;

/* NULL: no memory. */
fxs_sync *fxs_sync_create(uint32_t local, uint32_t peers, fxs_session_state_format format);
void fxs_sync_destroy(fxs_sync *y);
/* The session's clock (ms), for the transfers' timeouts. */
void fxs_sync_set_time(fxs_sync *y, uint64_t now_ms);
/* Our checksum of confirmed tick t differs from peer q's, the first time for
 * q: start naming it with our saved state of t (NULL: no longer held). */
void fxs_sync_mismatch(fxs_sync *y, uint32_t q, uint64_t t, const uint8_t *state, size_t len);
/* An authentic packet body of type 2..15 from peer q: FXS_DROP_NONE when
 * taken, else why not. */
fxs_drop fxs_sync_receive(fxs_sync *y, uint32_t q, uint32_t type, const uint8_t *body, size_t len);
/* The next body for peer `to` now, with its type: its length, or 0. */
size_t fxs_sync_body(fxs_sync *y, uint32_t to, uint8_t *type, uint8_t *out, size_t cap);
/* Nothing in progress: every exchange named its desync, gave up, or none. */
bool fxs_sync_idle(const fxs_sync *y);
/* The first desync named with a peer ("desync at tick T: ..."), "" when none. */
const char *fxs_sync_line(const fxs_sync *y);
/* The desync named with peer q (its tick into *tick), "" when not (yet). */
const char *fxs_sync_line_with(const fxs_sync *y, uint32_t q, uint64_t *tick);
/* Why an exchange could not name its desync ("" when none did). */
const char *fxs_sync_problem(const fxs_sync *y);

#endif
