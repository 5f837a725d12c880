/* Time sync (private; session.c calls these hooks): how far this peer runs
 * ahead of the others, measured from the ticks they send and the round
 * trips of their data packets, and how long it should wait for them.
 *
 * Every data packet carries the sender's tick, its own measured lead over
 * the receiver, a ping (its clock) and the last ping it got back with how
 * long it held it. On receipt, our lead over q is our tick minus q's tick
 * in the packet (in 1/16 ticks, averaged over about 8 packets); q measures
 * its lead over us the same way. Each includes the one-way delay, which
 * cancels in the difference when the two ways are alike: half of (our lead
 * - q's lead) is how many ticks we are ahead of q at one instant. The
 * session is ahead by the most it is ahead of any present player peer.
 * The round trip (from the pings) is kept for the game to read.
 *
 * Waiting: once the advantage reaches 1.5 ticks, half of it (rounded) is to
 * be waited out, at most once every FXS_TS_INTERVAL ticks (the measurement
 * needs that long to see the effect of the last wait); both peers doing so
 * halves the gap each interval. */
#ifndef FXS_SESSION_TIMESYNC_H
#define FXS_SESSION_TIMESYNC_H

#include <stdint.h>

#include "session/protocol.h"
#include "session/session_impl.h"

#define FXS_TS_INTERVAL 32u    /* ticks between two waits */
#define FXS_TS_THRESHOLD16 24  /* 1.5 ticks, in 1/16 ticks: less is not waited for */
#define FXS_TS_SYNCED_TRIPS 5u /* round trips with a peer before it counts as synchronized */

/* Our time sync fields of a data packet for peer q. */
void fxs_ts_fill(const fxs_session *s, uint32_t q, fxs_data *d);
/* An accepted data packet of q's: its tick, lead and pong. */
void fxs_ts_heard(fxs_session *s, uint32_t q, const fxs_data *d);
/* Our advantage in 1/16 ticks (0 without a measurement). */
int32_t fxs_ts_ahead16(const fxs_session *s);
/* Ticks to wait now (0 most of the time); records the wait. */
uint32_t fxs_ts_take_wait(fxs_session *s);

#endif
