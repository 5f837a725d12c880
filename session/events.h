/* The session's connection events (fixstep/session.h, "Events"): a queue
 * the parts of the session push to and the game drains. Private. */
#ifndef FXS_SESSION_EVENTS_H
#define FXS_SESSION_EVENTS_H

#include <stdint.h>

#include "fixstep/session.h"

#define FXS_EVENT_QUEUE 128u /* events held; the oldest go first when it is full */

typedef struct fxs_event_queue {
	fxs_session_event ev[FXS_EVENT_QUEUE];
	uint32_t head, count;
	uint64_t lost;
} fxs_event_queue;

/* e queued; its copy in the queue (for the fields only some events have) */
fxs_session_event *fxs_events_push(fxs_event_queue *q, const fxs_session_event *e);
bool fxs_events_pop(fxs_event_queue *q, fxs_session_event *e);

#endif
