/* The deterministic in-memory network (fxs_simnet in fixstep/session.h). */
#include "session/impair.h"

#include <stdlib.h>
#include <string.h>

typedef struct endpoint {
	struct fxs_simnet *net;
	uint32_t id;
} endpoint;

struct fxs_simnet {
	uint32_t peers;
	uint64_t now;
	fxs_impq q;
	endpoint ep[FXS_SESSION_MAX_PEERS];
};

fxs_simnet *fxs_simnet_create(uint32_t peers, const fxs_impair *imp)
{
	if (peers < 1 || peers > FXS_SESSION_MAX_PEERS)
		return NULL;
	fxs_simnet *n = calloc(1, sizeof *n);
	if (!n)
		return NULL;
	n->peers = peers;
	fxs_impq_init(&n->q, imp);
	for (uint32_t i = 0; i < peers; ++i)
		n->ep[i] = (endpoint){ n, i };
	return n;
}

static int none_send(void *ctx, uint32_t to, const uint8_t *buf, size_t len)
{
	(void)ctx, (void)to, (void)buf, (void)len;
	return -1;
}

static size_t none_recv(void *ctx, uint8_t *buf, size_t cap, int *from)
{
	(void)ctx, (void)buf, (void)cap;
	*from = -1;
	return 0;
}

void fxs_simnet_destroy(fxs_simnet *n)
{
	if (!n)
		return;
	fxs_impq_free(&n->q);
	free(n);
}

static int sim_send(void *ctx, uint32_t to, const uint8_t *buf, size_t len)
{
	endpoint *e = ctx;
	if (to >= e->net->peers)
		return -1;
	fxs_impq_push(&e->net->q, e->net->now, to, (int)e->id, buf, len, true);
	return 0;
}

static size_t sim_recv(void *ctx, uint8_t *buf, size_t cap, int *from)
{
	endpoint *e = ctx;
	fxs_queued d;
	for (;;) {
		if (!fxs_impq_pop(&e->net->q, e->net->now, e->id, &d))
			return 0;
		size_t n = d.len;
		if (n <= cap) { /* a datagram longer than the buffer is cut: deliver the prefix */
			memcpy(buf, d.data, n);
		} else {
			memcpy(buf, d.data, cap);
			n = cap;
		}
		*from = d.from;
		free(d.data);
		if (n)
			return n;
	}
}

fxs_transport fxs_simnet_endpoint(fxs_simnet *n, uint32_t peer)
{
	if (!n || peer >= n->peers)
		return (fxs_transport){ NULL, none_send, none_recv };
	fxs_transport t = { &n->ep[peer], sim_send, sim_recv };
	return t;
}

void fxs_simnet_advance(fxs_simnet *n, uint32_t ms)
{
	if (n)
		n->now += ms;
}

void fxs_simnet_inject(fxs_simnet *n, uint32_t to, int from, const uint8_t *buf, size_t len)
{
	if (!n || to >= n->peers || (!buf && len))
		return;
	fxs_impq_push(&n->q, n->now, to, from, buf, len, false);
}

fxs_simnet_stats fxs_simnet_stats_get(const fxs_simnet *n)
{
	if (!n)
		return (fxs_simnet_stats){ 0, 0, 0, 0 };
	fxs_simnet_stats s = { n->q.sent, n->q.lost, n->q.duplicated, n->q.delivered };
	return s;
}
