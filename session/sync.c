/* The session's packets beyond data (sync.h). */
#include "session/sync.h"

#include <stdlib.h>
#include <string.h>

#include "session/desync_exchange.h"

struct fxs_sync {
	uint32_t local, peers;
	fxs_dx_format format;
	uint64_t now_ms;
	fxs_dx *dx[FXS_SESSION_MAX_PEERS]; /* per peer, made on the first need */
	bool gave_up[FXS_SESSION_MAX_PEERS];
	uint64_t started_ms[FXS_SESSION_MAX_PEERS];
	const char *line; /* the lowest tick's named line */
};

fxs_sync *fxs_sync_create(uint32_t local, uint32_t peers, fxs_session_state_format format)
{
	fxs_sync *y = calloc(1, sizeof *y);
	if (!y)
		return NULL;
	y->local = local;
	y->peers = peers;
	y->format = format == FXS_SESSION_STATE_WORLD ? FXS_DX_WORLD : FXS_DX_OPAQUE;
	y->line = "";
	return y;
}

void fxs_sync_destroy(fxs_sync *y)
{
	if (!y)
		return;
	for (uint32_t q = 0; q < FXS_SESSION_MAX_PEERS; ++q) {
		fxs_dx_free(y->dx[q]);
		free(y->dx[q]);
	}
	free(y);
}

void fxs_sync_set_time(fxs_sync *y, uint64_t now_ms)
{
	if (y)
		y->now_ms = now_ms;
}

static fxs_dx *dx_of(fxs_sync *y, uint32_t q)
{
	if (!y->dx[q] && (y->dx[q] = malloc(sizeof *y->dx[q])) != NULL)
		fxs_dx_init(y->dx[q], y->local, q);
	return y->dx[q];
}

/* the named line of the lowest tick */
static void update_line(fxs_sync *y)
{
	uint64_t best = UINT64_MAX;
	for (uint32_t q = 0; q < y->peers; ++q)
		if (y->dx[q] && y->dx[q]->named && y->dx[q]->tick < best) {
			best = y->dx[q]->tick;
			y->line = y->dx[q]->line;
		}
}

void fxs_sync_mismatch(fxs_sync *y, uint32_t q, uint64_t t, const uint8_t *state, size_t len)
{
	if (!y || q >= y->peers || q == y->local)
		return;
	fxs_dx *x = dx_of(y, q);
	if (!x || x->tick)
		return;
	y->started_ms[q] = y->now_ms;
	if (!state || !fxs_dx_start(x, t, state, len, y->format))
		y->gave_up[q] = true; /* our state of t is gone (or unreadable): nothing to name it with */
}

fxs_drop fxs_sync_receive(fxs_sync *y, uint32_t q, uint32_t type, const uint8_t *body, size_t len)
{
	if (!y || type != FXS_PKT_DESYNC)
		return FXS_DROP_TYPE;
	fxs_dx *x = dx_of(y, q);
	if (!x)
		return FXS_DROP_COUNT; /* no memory for it: as if it never came */
	fxs_xfer_err e = fxs_dx_receive(x, body, len, y->now_ms);
	update_line(y);
	switch (e) {
	case FXS_XFER_OK:
	case FXS_XFER_BUSY: /* a duplicate of a blob already taken: harmless */
		return FXS_DROP_NONE;
	case FXS_XFER_OTHER:
	case FXS_XFER_INDEX:
	case FXS_XFER_TOO_BIG:
	case FXS_XFER_SIZE:
		return FXS_DROP_RANGE;
	default:
		return FXS_DROP_COUNT;
	}
}

size_t fxs_sync_body(fxs_sync *y, uint32_t to, uint8_t *type, uint8_t *out, size_t cap)
{
	if (!y || to >= y->peers || !y->dx[to] || y->gave_up[to])
		return 0;
	size_t n = fxs_dx_poll(y->dx[to], y->now_ms, out, cap);
	update_line(y);
	if (n)
		*type = FXS_PKT_DESYNC;
	return n;
}

bool fxs_sync_idle(const fxs_sync *y)
{
	if (!y)
		return true;
	for (uint32_t q = 0; q < y->peers; ++q) {
		const fxs_dx *x = y->dx[q];
		if (x && x->tick && !y->gave_up[q] && !x->problem[0] && !fxs_dx_finished(x) &&
		    y->now_ms - y->started_ms[q] < FXS_SYNC_GIVE_UP_MS)
			return false;
	}
	return true;
}

const char *fxs_sync_line(const fxs_sync *y) { return y ? y->line : ""; }

const char *fxs_sync_line_with(const fxs_sync *y, uint32_t q, uint64_t *tick)
{
	if (!y || q >= y->peers || !y->dx[q] || !y->dx[q]->named)
		return "";
	*tick = y->dx[q]->tick;
	return y->dx[q]->line;
}

const char *fxs_sync_problem(const fxs_sync *y)
{
	for (uint32_t q = 0; y && q < y->peers; ++q)
		if (y->dx[q] && y->dx[q]->problem[0])
			return y->dx[q]->problem;
	return "";
}
