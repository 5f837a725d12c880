/* The connection events' queue (events.h). */
#include "session/events.h"

#include <string.h>

fxs_session_event *fxs_events_push(fxs_event_queue *q, const fxs_session_event *e)
{
	if (q->count == FXS_EVENT_QUEUE) { /* a game that never drains: keep the newest */
		q->head = (q->head + 1) % FXS_EVENT_QUEUE;
		--q->count;
		++q->lost;
	}
	fxs_session_event *slot = &q->ev[(q->head + q->count) % FXS_EVENT_QUEUE];
	*slot = *e;
	++q->count;
	return slot;
}

bool fxs_events_pop(fxs_event_queue *q, fxs_session_event *e)
{
	if (!q->count)
		return false;
	*e = q->ev[q->head];
	q->head = (q->head + 1) % FXS_EVENT_QUEUE;
	--q->count;
	return true;
}

static const char *const names[] = { "none",   "synchronizing", "synchronized", "interrupted",
				     "resumed", "absent",       "disconnected", "joined",
				     "rejoined", "desync",      "join_refused", "desync_named" };

const char *fxs_session_event_name(fxs_session_event_type t)
{
	return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}
