/* POSIX UDP on 127.0.0.1, non-blocking (transport.h). */
#define _POSIX_C_SOURCE 200809L
#include "session/impair.h"
#include "session/transport.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct fxs_udp {
	int fd;
	uint32_t peers;
	struct sockaddr_in addr[16];
	bool impair;
	fxs_impq q;
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

fxs_udp *fxs_udp_open(uint16_t port, const char *const *peer_hosts, const uint16_t *peer_ports, uint32_t peers,
		      const fxs_impair *imp, char *err, size_t errlen)
{
	if (peers < 1 || peers > 16) {
		snprintf(err, errlen, "1..16 peers");
		return NULL;
	}
	fxs_udp *u = calloc(1, sizeof *u);
	if (!u) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	u->peers = peers;
	for (uint32_t i = 0; i < peers; ++i) {
		u->addr[i].sin_family = AF_INET;
		u->addr[i].sin_port = htons(peer_ports[i]);
		if (inet_pton(AF_INET, peer_hosts[i], &u->addr[i].sin_addr) != 1) {
			snprintf(err, errlen, "bad address '%s' (an IPv4 address, e.g. 127.0.0.1)", peer_hosts[i]);
			free(u);
			return NULL;
		}
	}
	u->fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in me;
	memset(&me, 0, sizeof me);
	me.sin_family = AF_INET;
	me.sin_port = htons(port);
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (u->fd < 0 || bind(u->fd, (struct sockaddr *)&me, sizeof me) != 0 ||
	    fcntl(u->fd, F_SETFL, fcntl(u->fd, F_GETFL) | O_NONBLOCK) != 0) {
		snprintf(err, errlen, "cannot bind 127.0.0.1:%u: %s", port, strerror(errno));
		if (u->fd >= 0)
			close(u->fd);
		free(u);
		return NULL;
	}
	u->impair = imp && (imp->loss > 0 || imp->dup > 0 || imp->delay_ms || imp->jitter_ms);
	fxs_impq_init(&u->q, imp);
	return u;
}

void fxs_udp_close(fxs_udp *u)
{
	if (!u)
		return;
	close(u->fd);
	fxs_impq_free(&u->q);
	free(u);
}

static void raw_send(fxs_udp *u, uint32_t to, const uint8_t *buf, size_t len)
{
	(void)sendto(u->fd, buf, len, 0, (const struct sockaddr *)&u->addr[to], sizeof u->addr[to]);
}

void fxs_udp_flush(fxs_udp *u)
{
	fxs_queued d;
	uint64_t now = now_ms();
	while (fxs_impq_pop(&u->q, now, UINT32_MAX, &d)) {
		raw_send(u, d.to, d.data, d.len);
		free(d.data);
	}
}

static int udp_send(void *ctx, uint32_t to, const uint8_t *buf, size_t len)
{
	fxs_udp *u = ctx;
	if (to >= u->peers)
		return -1;
	if (u->impair) {
		fxs_impq_push(&u->q, now_ms(), to, -1, buf, len, true);
		fxs_udp_flush(u);
	} else {
		raw_send(u, to, buf, len);
	}
	return 0;
}

static size_t udp_recv(void *ctx, uint8_t *buf, size_t cap, int *from)
{
	fxs_udp *u = ctx;
	for (;;) {
		struct sockaddr_in src;
		socklen_t sl = sizeof src;
		ssize_t n = recvfrom(u->fd, buf, cap, MSG_TRUNC, (struct sockaddr *)&src, &sl);
		if (n < 0)
			return 0;
		*from = -1;
		for (uint32_t i = 0; i < u->peers; ++i)
			if (src.sin_port == u->addr[i].sin_port && src.sin_addr.s_addr == u->addr[i].sin_addr.s_addr)
				*from = (int)i;
		if (n == 0)
			continue;
		/* MSG_TRUNC gives the real length: report an oversized datagram as such */
		return (size_t)n > cap ? cap : (size_t)n;
	}
}

fxs_transport fxs_udp_transport(fxs_udp *u)
{
	fxs_transport t = { u, udp_send, udp_recv };
	return t;
}
