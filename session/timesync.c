/* Time sync (timesync.h). */
#include "session/timesync.h"

#include "session/join.h"

#define EMA 8 /* the averages follow 1/8 of each new sample */

static int16_t clamp16(int64_t v) { return (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v); }

void fxs_ts_fill(const fxs_session *s, uint32_t q, fxs_data *d)
{
	const peer_state *p = &s->peer[q];
	d->lead = p->ts_have_lead ? clamp16(p->ts_lead16) : 0;
	d->ping = (uint16_t)s->now_ms;
	if (p->ts_have_ping) {
		uint64_t age = s->now_ms - p->ts_ping_at;
		d->pong = p->ts_ping;
		d->pong_age = (uint16_t)(age >= 0xffffu ? 0xfffeu : age);
	} else {
		d->pong_age = 0xffffu;
	}
}

void fxs_ts_heard(fxs_session *s, uint32_t q, const fxs_data *d)
{
	peer_state *p = &s->peer[q];
	/* our lead over q as this packet shows it (q's tick when it sent it) */
	int64_t lead = ((int64_t)s->simulated - (int64_t)d->tick) * 16;
	if (!p->ts_have_lead)
		p->ts_lead16 = lead, p->ts_have_lead = true;
	else
		p->ts_lead16 += (lead - p->ts_lead16) / EMA;
	p->ts_their16 = d->lead;
	p->ts_have_their = true;
	p->ts_ping = d->ping;
	p->ts_ping_at = s->now_ms;
	p->ts_have_ping = true;
	if (d->pong_age != 0xffffu) {
		/* a round trip on our own clock, less the time q held our ping */
		uint32_t rtt = (uint16_t)((uint16_t)s->now_ms - d->pong - d->pong_age);
		if (rtt < 30000u) {
			p->ts_rtt = p->ts_trips ? p->ts_rtt + ((int32_t)rtt - (int32_t)p->ts_rtt) / 4 : rtt;
			++p->ts_trips;
		}
	}
}

int32_t fxs_ts_ahead16(const fxs_session *s)
{
	if (!s->peer[s->config.local].count)
		return 0; /* a spectator simulates what is confirmed: it waits anyway */
	bool any = false;
	int64_t most = 0;
	for (uint32_t q = 0; q < s->config.peers; ++q) {
		const peer_state *p = &s->peer[q];
		if (q == s->config.local || !p->count || !p->ts_have_lead || !p->ts_have_their || p->done ||
		    fxs_join_absent(s, q))
			continue;
		int64_t a = (p->ts_lead16 - p->ts_their16) / 2;
		if (!any || a > most)
			most = a, any = true;
	}
	return any ? (int32_t)(most > INT32_MAX ? INT32_MAX : most < INT32_MIN ? INT32_MIN : most) : 0;
}

uint32_t fxs_ts_take_wait(fxs_session *s)
{
	if (s->ts_waited_at && s->simulated < s->ts_waited_at + FXS_TS_INTERVAL)
		return 0;
	int32_t a = fxs_ts_ahead16(s);
	if (a < FXS_TS_THRESHOLD16)
		return 0;
	s->ts_waited_at = s->simulated ? s->simulated : 1;
	return (uint32_t)(a + 16) / 32; /* half, rounded */
}
