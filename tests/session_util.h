/* What the session tests' frames share. */
#ifndef FXS_TESTS_SESSION_UTIL_H
#define FXS_TESTS_SESSION_UTIL_H

#include <stdint.h>

#include "fixstep/session.h"

/* Every datagram s has for each of np peers, sent over t. */
static inline void session_send_all(fxs_session *s, fxs_transport t, uint32_t np)
{
	uint8_t buf[FXS_SESSION_PACKET_MAX];
	for (uint32_t q = 0; q < np; ++q) {
		size_t len = fxs_session_packet(s, q, buf, sizeof buf);
		if (len)
			t.send(t.ctx, q, buf, len);
		while ((len = fxs_session_packet_more(s, q, buf, sizeof buf)) > 0)
			t.send(t.ctx, q, buf, len);
	}
}

#endif
