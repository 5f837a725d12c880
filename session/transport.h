/* Pluggable transports for sessions: a datagram goes to a peer id, a received
 * one comes with the peer id its source address belongs to (-1: unknown).
 *  - sim: a deterministic in-memory network on a virtual clock (ms) with
 *    seeded loss, delay (base + uniform jitter), duplication and the
 *    reordering that jitter makes. No real time anywhere.
 *  - udp: POSIX UDP on 127.0.0.1, one non-blocking socket per peer; the same
 *    seeded impairments can be put in front of sendto (on the real clock). */
#ifndef FXS_SESSION_TRANSPORT_H
#define FXS_SESSION_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct fxs_transport {
	void *ctx;
	/* 0 on success (a datagram handed over, maybe to be lost) */
	int (*send)(void *ctx, uint32_t to, const uint8_t *buf, size_t len);
	/* length of the next datagram (0: none now); *from = peer id or -1 */
	size_t (*recv)(void *ctx, uint8_t *buf, size_t cap, int *from);
} fxs_transport;

typedef struct fxs_impair {
	double loss, dup;             /* probabilities */
	uint32_t delay_ms, jitter_ms; /* delay = delay_ms + uniform 0..jitter_ms */
	uint64_t seed;
} fxs_impair;

/* ---- sim ---- */
typedef struct fxs_simnet fxs_simnet;
fxs_simnet *fxs_simnet_create(uint32_t peers, const fxs_impair *imp);
void fxs_simnet_destroy(fxs_simnet *n);
/* the transport of endpoint `peer` */
fxs_transport fxs_simnet_endpoint(fxs_simnet *n, uint32_t peer);
/* move the virtual clock forward */
void fxs_simnet_advance(fxs_simnet *n, uint32_t ms);
/* inject a raw datagram to `to` that the network says came from `from` (-1 unknown) */
void fxs_simnet_inject(fxs_simnet *n, uint32_t to, int from, const uint8_t *buf, size_t len);
typedef struct fxs_simnet_stats {
	uint64_t sent, lost, duplicated, delivered;
} fxs_simnet_stats;
fxs_simnet_stats fxs_simnet_stats_get(const fxs_simnet *n);

/* ---- udp ---- */
typedef struct fxs_udp fxs_udp;
/* Bind 127.0.0.1:port; peer_ports[i] for every peer (self included). imp may be NULL. */
fxs_udp *fxs_udp_open(uint16_t port, const char *const *peer_hosts, const uint16_t *peer_ports, uint32_t peers,
		      const fxs_impair *imp, char *err, size_t errlen);
void fxs_udp_close(fxs_udp *u);
fxs_transport fxs_udp_transport(fxs_udp *u);
/* send what the impairment queue holds and is due (call often) */
void fxs_udp_flush(fxs_udp *u);

#endif
