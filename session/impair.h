/* A delay queue with seeded loss / duplication (shared by the transports). */
#ifndef FXS_SESSION_IMPAIR_H
#define FXS_SESSION_IMPAIR_H

#include "fixstep/session.h"

#include <stdbool.h>

typedef struct fxs_queued {
	uint64_t at_ms, order;
	uint32_t to;
	int from;
	size_t len;
	uint8_t *data;
} fxs_queued;

typedef struct fxs_impq {
	fxs_impair imp;
	uint64_t rng, order;
	fxs_queued *q;
	size_t n, cap;
	uint64_t sent, lost, duplicated, delivered;
} fxs_impq;

void fxs_impq_init(fxs_impq *q, const fxs_impair *imp);
void fxs_impq_free(fxs_impq *q);
/* queue a datagram sent at now_ms (maybe lose it, maybe queue it twice) */
void fxs_impq_push(fxs_impq *q, uint64_t now_ms, uint32_t to, int from, const uint8_t *buf, size_t len, bool impair);
/* pop the earliest datagram due at now_ms (for `to`, or any when to == UINT32_MAX); caller frees data */
bool fxs_impq_pop(fxs_impq *q, uint64_t now_ms, uint32_t to, fxs_queued *out);

#endif
