/* The bodies' position integration: the vector kernels (integrate.h, every
 * level this machine has) against the scalar code, field by field. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "solve/contact_batch.h"
#include "solve/integrate.h"
#include "test.h"
#include "vector_levels.h"

/* a value in [-m, m], m < 2^62 */
static int64_t rnd_in(uint64_t *seed, int64_t m) { return (int64_t)(test_rng_next(seed) % (uint64_t)(2 * m + 1)) - m; }

static int32_t clamp32(int64_t x) { return x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN
										     : (int32_t)x; }

/* near an end of int32 (1 in 64), or anywhere within m */
static int32_t rnd_pos(uint64_t *seed, int64_t m)
{
	uint64_t r = test_rng_next(seed);
	if (r % 64 == 0)
		return clamp32((r >> 8 & 1 ? INT32_MAX : INT32_MIN) - rnd_in(seed, 1 << 16));
	return (int32_t)rnd_in(seed, m);
}

/* angular speeds: none, slow, settling, spinning, near the kernels'
 * 2^29 bound, anything */
static int32_t rnd_w(uint64_t *seed, int kind)
{
	switch (kind) {
	case 0: return 0;
	case 1: return (int32_t)rnd_in(seed, 64);
	case 2: return (int32_t)rnd_in(seed, 1 << 17);
	case 3: return (int32_t)rnd_in(seed, 1 << 22);
	case 4: return (int32_t)((1 << 29) + rnd_in(seed, 4)) * (test_rng_next(seed) & 1 ? 1 : -1);
	default: return (int32_t)test_rng_next(seed);
	}
}

/* a Q1.30 quaternion: unit (rounded), off by a few LSB, by 2^-18 (around
 * the small-eps bound), far from unit, or at the ends of int32 */
static fxg_quat30 rnd_q30(uint64_t *seed)
{
	double u[4], n = 0;
	for (int k = 0; k < 4; ++k)
		u[k] = (double)(test_rng_next(seed) >> 11) / 9007199254740992.0 - 0.5, n += u[k] * u[k];
	n = sqrt(n);
	int kind = (int)(test_rng_next(seed) % 16);
	double scale = kind == 12 ? 1.5 : kind == 13 ? 0.6
						     : 1.0;
	int32_t c[4];
	for (int k = 0; k < 4; ++k) {
		double x = u[k] / n * scale * 1073741824.0;
		int64_t off = kind < 10 ? rnd_in(seed, 4) : kind < 12 ? rnd_in(seed, 1 << 11)
								      : 0;
		c[k] = kind == 14 ? (int32_t)test_rng_next(seed) : clamp32(llround(x) + off);
	}
	if (kind == 15)
		c[0] = c[1] = c[2] = c[3] = 0;
	fxg_quat30 q = { c[0], c[1], c[2], c[3] };
	return q;
}

static void integrate_matches_scalar(const fxs_kernel_table *kt)
{
	uint64_t seed = 2121;
	uint32_t bodies = 0, taken = 0, turned = 0;
	static fxs_body b[64], b0[64];
	static solver_body s[64], s0[64];
	static uint8_t flags[64];
	for (int round = 0; round < 4000; ++round) {
		const uint32_t n = 1 + (uint32_t)(test_rng_next(&seed) % 64);
		const fix16_t lens[] = { 1092, 1093, 4369, 1, FXG_ONE, (fix16_t)(1 + test_rng_next(&seed) % FXG_ONE) };
		const fix16_t len = lens[test_rng_next(&seed) % 6];
		memset(b, 0x5A, sizeof b);
		memset(s, 0xA5, sizeof s);
		for (uint32_t k = 0; k < n; ++k) {
			fxs_body *bb = &b[k];
			solver_body *ss = &s[k];
			const uint64_t r = test_rng_next(&seed);
			ss->moves = r % 10 != 0;
			bb->locks = (r >> 8) % 12 == 0 ? (uint8_t)(1 + (r >> 16) % 63) : 0;
			const int64_t vmax = (r >> 24) % 8 == 0 ? INT32_MAX : 1 << 20;
			const int wkind = (int)((r >> 32) % 10) % 7; /* more slow and settling ones */
			ss->v = fxg_v3((int32_t)rnd_in(&seed, vmax), (int32_t)rnd_in(&seed, vmax), (int32_t)rnd_in(&seed, vmax));
			ss->w = fxg_v3(rnd_w(&seed, wkind), rnd_w(&seed, wkind % 6), rnd_w(&seed, wkind));
			if (r >> 40 & 1)
				ss->w.y = 0;
			ss->dp = fxg_v3(rnd_pos(&seed, 1 << 24), rnd_pos(&seed, 1 << 24), rnd_pos(&seed, 1 << 24));
			ss->dtheta = fxg_v3(rnd_pos(&seed, 1 << 20), rnd_pos(&seed, 1 << 20), rnd_pos(&seed, 1 << 20));
			bb->xf.p = fxg_v3(rnd_pos(&seed, 1 << 28), rnd_pos(&seed, 1 << 28), rnd_pos(&seed, 1 << 28));
			bb->q30 = rnd_q30(&seed);
			bb->xf.q = r >> 48 & 1 ? fxg_q30_to_q(bb->q30) : fxg_q((int32_t)r, 7, -9, (int32_t)(r >> 20));
		}
		for (uint32_t k = 0; k < n; ++k)
			flags[k] = s[k].moves && !b[k].locks ? FXS_INTEGRATE_PLAIN : 0;
		memcpy(b0, b, sizeof b);
		memcpy(s0, s, sizeof s);
		uint32_t ovf_want = 0, ovf_got = 0;
		for (uint32_t k = 0; k < n; ++k)
			if (s0[k].moves)
				fxs_integrate_body(&b0[k], &s0[k], len, &ovf_want);
		const uint64_t left = kt->integrate_x64(b, s, flags, n, len);
		CHECK(n == 64 || left >> n == 0);
		for (uint32_t k = 0; k < n; ++k) {
			if (!s[k].moves)
				continue;
			++bodies;
			if (left >> k & 1) {
				fxs_integrate_body(&b[k], &s[k], len, &ovf_got);
				continue;
			}
			++taken;
			turned += (s[k].w.x | s[k].w.y | s[k].w.z) != 0;
			CHECKF(b[k].locks == 0, "round %d body %u: a body with locks was taken", round, k);
		}
		for (uint32_t k = 0; k < n; ++k) {
			CHECKF(memcmp(&b[k], &b0[k], sizeof b[k]) == 0 && memcmp(&s[k], &s0[k], sizeof s[k]) == 0,
			       "round %d body %u (%s): vector and scalar integration differ", round, k,
			       left >> k & 1 ? "left" : "taken");
		}
		CHECKF(ovf_want == ovf_got, "round %d: %u saturations, the scalar code %u", round, ovf_got, ovf_want);
	}
	printf("  %s: %u of %u moving bodies taken by the vector kernel, %u of them turning\n",
	       fxs_kernels_name(kt->level), taken, bodies, turned);
	CHECK(taken > bodies / 4 && turned > taken / 3);
}

TEST(integrate_vector_matches_scalar)
{
	test_each_vector_level(integrate_matches_scalar);
}
