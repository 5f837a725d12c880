/* UDP on POSIX sockets, IPv4 or IPv6, non-blocking (fxs_udp in
 * fixstep/session.h). */
#define _POSIX_C_SOURCE 200809L
#include "session/impair.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct fxs_udp {
	int fd, family;
	uint32_t peers;
	struct sockaddr_storage addr[FXS_SESSION_MAX_PEERS];
	socklen_t addr_len[FXS_SESSION_MAX_PEERS];
	bool impair;
	fxs_impq q;
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* "HOST:PORT" or "[V6]:PORT" into host and port: false when it is neither. */
static bool split_addr(const char *a, char *host, size_t hn, char *port, size_t pn)
{
	const char *colon;
	size_t hl;
	if (!a)
		return false;
	if (a[0] == '[') {
		const char *close = strchr(a, ']');
		if (!close || close[1] != ':')
			return false;
		hl = (size_t)(close - a - 1);
		a += 1;
		colon = close + 1;
	} else {
		colon = strrchr(a, ':');
		if (!colon || strchr(a, ':') != colon) /* a bare IPv6 address needs its brackets */
			return false;
		hl = (size_t)(colon - a);
	}
	size_t pl = strlen(colon + 1);
	if (hl == 0 || hl >= hn || pl == 0 || pl >= pn)
		return false;
	memcpy(host, a, hl);
	host[hl] = 0;
	memcpy(port, colon + 1, pl + 1);
	for (size_t i = 0; i < pl; ++i)
		if (port[i] < '0' || port[i] > '9')
			return false;
	return true;
}

/* Resolve a into *out for a socket of `family` (AF_UNSPEC: any; an IPv6
 * socket takes IPv4 addresses as mapped ones): 0, or why not in err. */
static int resolve(const char *a, int family, bool passive, struct sockaddr_storage *out, socklen_t *len, char *err,
		   size_t errlen)
{
	char host[256], port[8];
	if (!split_addr(a, host, sizeof host, port, sizeof port)) {
		snprintf(err, errlen, "bad address '%s' (HOST:PORT or [IPV6]:PORT)", a ? a : "(null)");
		return -1;
	}
	struct addrinfo hints, *res = NULL;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = family;
	hints.ai_socktype = SOCK_DGRAM;
	hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0) | (family == AF_INET6 ? AI_V4MAPPED : 0);
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0 || !res) {
		snprintf(err, errlen, "cannot resolve '%s': %s", a, rc ? gai_strerror(rc) : "no address");
		return -1;
	}
	memcpy(out, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const struct sockaddr_in *)a, *y = (const struct sockaddr_in *)b;
		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)a, *y = (const struct sockaddr_in6 *)b;
		return x->sin6_port == y->sin6_port && memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr) == 0;
	}
	return false;
}

static fxs_udp *fail(fxs_udp *u, char *err, size_t errlen, const char *what, const char *a)
{
	snprintf(err, errlen, "cannot %s %s: %s", what, a, strerror(errno));
	if (u->fd >= 0)
		close(u->fd);
	free(u);
	return NULL;
}

fxs_udp *fxs_udp_open(const char *bind_addr, const char *const *peer_addrs, uint32_t peers, const fxs_impair *imp,
		      char *err, size_t errlen)
{
	char dummy[8];
	if (!err)
		err = dummy, errlen = sizeof dummy;
	if (peers < 1 || peers > FXS_SESSION_MAX_PEERS || !peer_addrs) {
		snprintf(err, errlen, "1..%u peers, with their addresses", FXS_SESSION_MAX_PEERS);
		return NULL;
	}
	fxs_udp *u = calloc(1, sizeof *u);
	if (!u) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	u->fd = -1;
	u->peers = peers;
	struct sockaddr_storage me;
	socklen_t me_len;
	if (resolve(bind_addr, AF_UNSPEC, true, &me, &me_len, err, errlen) != 0) {
		free(u);
		return NULL;
	}
	u->family = me.ss_family;
	for (uint32_t i = 0; i < peers; ++i)
		if (resolve(peer_addrs[i], u->family, false, &u->addr[i], &u->addr_len[i], err, errlen) != 0) {
			free(u);
			return NULL;
		}
	u->fd = socket(u->family, SOCK_DGRAM, 0);
	if (u->fd < 0)
		return fail(u, err, errlen, "open a socket for", bind_addr);
	if (u->family == AF_INET6) { /* [::] takes IPv4 peers too (mapped) */
		int off = 0;
		(void)setsockopt(u->fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
	}
	if (bind(u->fd, (struct sockaddr *)&me, me_len) != 0)
		return fail(u, err, errlen, "bind", bind_addr);
	int fl = fcntl(u->fd, F_GETFL);
	if (fl < 0 || fcntl(u->fd, F_SETFL, fl | O_NONBLOCK) != 0)
		return fail(u, err, errlen, "make non-blocking", bind_addr);
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

uint16_t fxs_udp_port(const fxs_udp *u)
{
	struct sockaddr_storage a;
	socklen_t l = sizeof a;
	if (!u || getsockname(u->fd, (struct sockaddr *)&a, &l) != 0)
		return 0;
	if (a.ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)&a)->sin_port);
	if (a.ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)&a)->sin6_port);
	return 0;
}

static void raw_send(fxs_udp *u, uint32_t to, const uint8_t *buf, size_t len)
{
	(void)sendto(u->fd, buf, len, 0, (const struct sockaddr *)&u->addr[to], u->addr_len[to]);
}

void fxs_udp_flush(fxs_udp *u)
{
	if (!u)
		return;
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
	if (!u || to >= u->peers)
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
	*from = -1;
	if (!u)
		return 0;
	for (;;) {
		struct sockaddr_storage src;
		socklen_t sl = sizeof src;
		ssize_t n = recvfrom(u->fd, buf, cap, MSG_TRUNC, (struct sockaddr *)&src, &sl);
		if (n < 0)
			return 0;
		/* the peer whose address and port the datagram came from */
		*from = -1;
		for (uint32_t i = 0; i < u->peers; ++i)
			if (same_addr(&src, &u->addr[i]))
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
