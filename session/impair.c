/* Seeded impairments (impair.h): the generator is SplitMix64, so a seed
 * gives the same losses, delays and duplicates on every machine. */
#include "session/impair.h"

#include <stdlib.h>
#include <string.h>

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* probability p against 2^-32 steps (integer compare, same everywhere) */
static bool chance(uint64_t *s, double p)
{
	if (p <= 0)
		return false;
	uint64_t thr = p >= 1 ? UINT64_C(1) << 32 : (uint64_t)(p * 4294967296.0);
	return (next(s) >> 32) < thr;
}

void fxs_impq_init(fxs_impq *q, const fxs_impair *imp)
{
	memset(q, 0, sizeof *q);
	if (imp)
		q->imp = *imp;
	q->rng = q->imp.seed ^ 0x6e65746e6574ull;
}

void fxs_impq_free(fxs_impq *q)
{
	for (size_t i = 0; i < q->n; ++i)
		free(q->q[i].data);
	free(q->q);
	memset(q, 0, sizeof *q);
}

static void add(fxs_impq *q, uint64_t at, uint32_t to, int from, const uint8_t *buf, size_t len)
{
	if (q->n == q->cap) {
		size_t nc = q->cap ? q->cap * 2 : 64;
		fxs_queued *nq = realloc(q->q, nc * sizeof *nq);
		if (!nq)
			return;
		q->q = nq;
		q->cap = nc;
	}
	uint8_t *d = malloc(len ? len : 1);
	if (!d)
		return;
	memcpy(d, buf, len);
	q->q[q->n++] = (fxs_queued){ at, q->order++, to, from, len, d };
}

void fxs_impq_push(fxs_impq *q, uint64_t now_ms, uint32_t to, int from, const uint8_t *buf, size_t len, bool impair)
{
	++q->sent;
	if (!impair) {
		add(q, now_ms, to, from, buf, len);
		return;
	}
	if (chance(&q->rng, q->imp.loss)) {
		++q->lost;
		return;
	}
	int copies = chance(&q->rng, q->imp.dup) ? 2 : 1;
	if (copies == 2)
		++q->duplicated;
	for (int c = 0; c < copies; ++c) {
		uint64_t d = q->imp.delay_ms;
		if (q->imp.jitter_ms)
			d += next(&q->rng) % ((uint64_t)q->imp.jitter_ms + 1);
		add(q, now_ms + d, to, from, buf, len);
	}
}

bool fxs_impq_pop(fxs_impq *q, uint64_t now_ms, uint32_t to, fxs_queued *out)
{
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < q->n; ++i) {
		const fxs_queued *e = &q->q[i];
		if (e->at_ms > now_ms || (to != UINT32_MAX && e->to != to))
			continue;
		if (best == SIZE_MAX || e->at_ms < q->q[best].at_ms ||
		    (e->at_ms == q->q[best].at_ms && e->order < q->q[best].order))
			best = i;
	}
	if (best == SIZE_MAX)
		return false;
	*out = q->q[best];
	q->q[best] = q->q[--q->n];
	++q->delivered;
	return true;
}
