/* The iterative contact solver's data: contacts in batches of FXS_LANES.
 *
 * The contacts the iterative solver handles are packed, in solve order (by
 * stage, then canonical index), into batches of four lanes, field by field
 * (structure of arrays): a batch holds contacts of one stage only, so no
 * dynamic body appears twice in it (stage.h) and its lanes can be solved at
 * once with the same bits as one after the other. A stage's last batch is
 * padded with empty lanes (index FXS_LANE_EMPTY, both bodies the solver's
 * spare zero body, all coefficients zero: every update they make is zero).
 * Contacts of the overflow stage, which may share bodies, get a batch each.
 *
 * The kernels that solve the batches compute the same integer formulas: a
 * portable one, lane by lane (contact_batch.c), and the vector kernels,
 * written once (contact_batch_vector.h) on the lanes of simd/lanes.h and
 * built for AVX2 (four int64 lanes at a time), AVX-512 (all eight) and
 * AArch64 NEON (two), chosen at run time where the CPU has them; and in
 * wasm builds with -msimd128, SIMD128 (two, chosen at build time): the
 * tables of simd/kernels.h. They
 * give the same bits, which tests/test_batch.c checks scene by scene and
 * `make crosscheck` checks across targets.
 *
 * Numbers (the hot form of solver.h: int32 mantissas with shifts), and the
 * bounds that keep every product and sum exact in int64 in both kernels:
 * accumulated normal impulses are clamped to [0, FXS_NORMAL_IMPULSE_MAX]
 * (2^40 in Q16.16 = 1.7e7 N s per point, counted as a saturation), friction
 * levers to 2^20 (16 m), friction and twist impulses carried into a step
 * to 2^50; friction coefficients are at most 100 (body.c). */
#ifndef FXS_CONTACT_BATCH_H
#define FXS_CONTACT_BATCH_H

#include "solve/solver.h"

#include <stddef.h>

#define FXS_LANES 8 /* a batch's lanes; the results do not depend on it */
#define FXS_LANE_EMPTY UINT32_MAX
#define FXS_NORMAL_IMPULSE_MAX ((int64_t)1 << 40)
#define FXS_LEVER_MAX ((int32_t)1 << 20)
/* friction and twist impulses carried into a step (from the last step, or a
 * snapshot) are clamped to this; in a step they stay below mu times the
 * normal impulses (< 2^49: mu <= 100, four points of 2^40) */
#define FXS_FRICTION_IMPULSE_MAX ((int64_t)1 << 50)

/* One row per lane (see srow in solver.h), A's responses negated: a normal
 * or friction row (lane_row; a friction row is soft in the biased pass, as
 * its anchor pulls), and the twist row (lane_trow: rigid, its Jacobians are
 * the normal, so it has no lever arms or soft mass). Two types so that a
 * pass reads no unused field;
 * what the warm start reads (the responses and their shifts) first, so
 * that it fetches fewer lines (fxs_batches_prefetch below). */
typedef struct lane_row {
	int32_t ia[3][FXS_LANES], ib[3][FXS_LANES];
	uint8_t sa[FXS_LANES], sb[FXS_LANES];
	int32_t rxa[3][FXS_LANES], rxb[3][FXS_LANES];
	int32_t mass[FXS_LANES], soft_mass[FXS_LANES];
	uint8_t sm[FXS_LANES], ss[FXS_LANES];
} lane_row;

typedef struct lane_trow {
	int32_t ia[3][FXS_LANES], ib[3][FXS_LANES];
	int32_t mass[FXS_LANES];
	uint8_t sa[FXS_LANES], sb[FXS_LANES], sm[FXS_LANES];
} lane_trow;

/* A batch: what every pass reads first (the kernels prefetch up to
 * `index`), then what only the restitution and the store read. The
 * linear response of a body to an impulse along d is computed where it is
 * used, lane_linear: (im d_k + 2^15) >> 16 with the body's scaled inverse
 * mass (shift sla / slb), A's negated. */
typedef struct contact_batch {
	_Alignas(64) uint32_t a[FXS_LANES]; /* solver body slots (batches start on a cache line) */
	uint32_t b[FXS_LANES];
	int32_t count[FXS_LANES];               /* points */
	int32_t d[3][3][FXS_LANES];             /* normal, tangent 0, tangent 1; component; lane */
	int32_t ima[FXS_LANES], imb[FXS_LANES]; /* -ma^-1, mb^-1 as mantissas (shifts sla, slb) */
	uint8_t sla[FXS_LANES], slb[FXS_LANES];
	int32_t pushed[FXS_LANES]; /* bit k: point k's normal impulse grew this step (restitution) */
	int32_t friction[FXS_LANES];
	int32_t bias_rate[FXS_LANES], impulse_scale[FXS_LANES]; /* the contact's softness */
	int32_t separation[4][FXS_LANES];                       /* per point, when the step began */
	int32_t lever[4][FXS_LANES];                            /* distance from the friction centre, <= FXS_LEVER_MAX */
	int64_t impulse[4][FXS_LANES];                          /* accumulated normal impulses, Q16.16 N s */
	int64_t ti[2][FXS_LANES], twi[FXS_LANES];               /* accumulated friction and twist */
	int32_t slip[2][FXS_LANES];                             /* the friction anchor's error along the tangents, m */
	lane_row n[4];                                          /* normal rows per point */
	lane_row t[2];                                         /* friction rows at the centre */
	lane_trow tw;                                           /* twist row */
	/* cold */
	uint32_t index[FXS_LANES]; /* world contact, or FXS_LANE_EMPTY */
	int32_t restitution[FXS_LANES];
	int32_t relative_velocity[4][FXS_LANES]; /* the normal speed when the step began (restitution, hit events) */
} contact_batch;

/* A batch's softness for the step's other sub-step length (solver.h), when
 * its sub-steps are of two lengths (c->batch_alts, beside the batches; NULL
 * when they are all of one length, as at the defaults):
 * fxs_batches_swap_softness trades it with the batch's when the length
 * changes. */
typedef struct contact_batch_alt {
	int32_t bias_rate[FXS_LANES], impulse_scale[FXS_LANES];
	int32_t soft_mass[4][FXS_LANES], fsoft_mass[2][FXS_LANES]; /* normal rows', friction rows' */
	uint8_t ss[4][FXS_LANES], fss[2][FXS_LANES];
} contact_batch_alt;

/* Packing scratch: the lever arms a batch's rows are made from (zero for
 * padding points and empty lanes), and each lane's normal-row softness. */
typedef struct lane_arms {
	int32_t ra[4][3][FXS_LANES], rb[4][3][FXS_LANES]; /* the points' */
	int32_t ca[3][FXS_LANES], cb[3][FXS_LANES];       /* the friction centre's */
	int32_t mass_scale[FXS_LANES];
	int32_t alt_mass_scale[FXS_LANES]; /* for the other sub-step length */
} lane_arms;

/* Memory: a pass streams every batch (about 570 bytes a contact). The
 * vector kernels call this before batch i: batch i + 2 is fetched line by
 * line into L2 (into L1, the line fill buffers ran full and the kernels
 * stalled on them), and batch i + 1's bodies (whose slots are then in
 * cache) into L1. Since the kernels read bodies as rows (2026-11-24),
 * dropping the batches' prefetch, or fetching 3-8 batches ahead, made no
 * difference beyond this machine's noise; it is kept for machines whose
 * hardware prefetcher does less. A pass over batches of one point a lane
 * (spheres; contact_batch_vector.h's one_row) reads and fetches only the
 * first normal row: fetching all four streamed a third more of such a
 * batch than the pass reads. The warm start reads no
 * Jacobian, mass or separation: only the header and each row's first lines
 * (the responses and their shifts come first in a row).
 * The prefetches are volatile asm on x86: GCC deletes a loop whose body is
 * nothing but __builtin_prefetch (it has no effect on the program), and did
 * so here, depending on how the loop was written. */
#if defined(__x86_64__) || defined(__i386__)
#define FXS_PREFETCH_L2(p) __asm__ volatile("prefetcht1 %0" \
					    :               \
					    : "m"(*(const char *)(const void *)(p)))
#define FXS_PREFETCH_L1(p) __asm__ volatile("prefetcht0 %0" \
					    :               \
					    : "m"(*(const char *)(const void *)(p)))
#else
#define FXS_PREFETCH_L2(p) __builtin_prefetch((p), 0, 2)
#define FXS_PREFETCH_L1(p) __builtin_prefetch((p), 0, 3)
#endif
static inline void fxs_batches_prefetch(const solver_ctx *c, uint32_t i, uint32_t end, bool warm, int rows)
{
	if (i + 2 < end) {
		const char *p = (const char *)(const void *)&c->batches[i + 2];
		if (!warm) {
			/* the lines wholly in the normal rows left out are skipped */
			const size_t lo = offsetof(contact_batch, n) + (size_t)rows * sizeof(lane_row),
				     hi = offsetof(contact_batch, t);
			for (size_t o = 0; o < offsetof(contact_batch, index); o += 64)
				if (o < lo || o + 64 > hi)
					FXS_PREFETCH_L2(p + o);
		} else {
			for (size_t o = 0; o < offsetof(contact_batch, n); o += 64)
				FXS_PREFETCH_L2(p + o);
			for (int k = 0; k < rows; ++k)
				for (size_t o = 0; o < offsetof(lane_row, rxa); o += 64)
					FXS_PREFETCH_L2(p + offsetof(contact_batch, n) + (size_t)k * sizeof(lane_row) + o);
			for (int t = 0; t < 2; ++t)
				for (size_t o = 0; o < offsetof(lane_row, rxa); o += 64)
					FXS_PREFETCH_L2(p + offsetof(contact_batch, t) + (size_t)t * sizeof(lane_row) + o);
			for (size_t o = offsetof(contact_batch, tw); o < offsetof(contact_batch, index); o += 64)
				FXS_PREFETCH_L2(p + o);
		}
	}
	if (i + 1 < end) {
		const contact_batch *bt = &c->batches[i + 1];
		for (int l = 0; l < FXS_LANES; ++l) {
			FXS_PREFETCH_L1(&c->bodies[bt->a[l]]);
			FXS_PREFETCH_L1(&c->bodies[bt->b[l]]);
		}
	}
}

/* The vector packing's masses are made one lane at a time
 * (contact_batch_vector.h's masses_v) with these two, which give the bits
 * of solver.h's scale1 and recip_q32 where stated (tests/test_batch.c
 * checks them at the edges and on random values).
 *
 * scale1 of 0 <= x < 2^61: the mantissa, and the
 * shift 62 - bits (>= 1, so never clamped). x shifted to bit 62 and
 * rounded at bit 33 is scale_to's x 2^(30 - bits), exact (its low 33 bits
 * are zero) for bits <= 30, rounded half up above; bits is bsr(2 x + 1),
 * 0 for x = 0 (no branch) */
static inline int32_t fxs_pack_scale1(uint64_t x, uint8_t *s)
{
	const int bits = 63 ^ __builtin_clzll((x << 1) | 1);
	*s = (uint8_t)(32 + FXS_SCALE_BITS - bits);
	return (int32_t)(((x << (63 - bits)) + ((uint64_t)1 << 32)) >> 33); /* <= 2^30 */
}

/* recip_q32 (solver.h) of k >= 2: 2^64 / k rounded half up. With q =
 * (2^64 - 1) / k, 2^64 - q k is the remainder plus one, in [1, k], and
 * one compare rounds (a remainder of k itself, 2^64 = (q + 1) k, rounds up
 * to q + 1 as it should): recip_q32's division without its branches. (One
 * 128 / 64-bit divq of 2^64 + k / 2 gives the same quotient, but took 1.2
 * to 1.5 times as long as this on the AMD EPYC measured.) */
static inline uint64_t fxs_pack_recip(uint64_t k)
{
	const uint64_t q = UINT64_MAX / k, rem = 0 - q * k;
	return q + (rem >= k - rem);
}

/* the rows of lane l from its arms, portable (the vector packing's rare
 * lanes) */
void fxs_pack_rows_lane(solver_ctx *c, contact_batch *bt, int l, const lane_arms *arms);
/* the linear response coefficient (lane_linear above): im d_k / 2^16 rounded half up */
static inline int32_t lane_linear(int32_t im, int32_t d) { return (int32_t)(((int64_t)im * d + 0x8000) >> 16); }

/* Pack c->contact_count solve-order contacts (minus the boxed LCP's) into
 * batches (c->batches, c->batch_count; the buffer is the world's scratch
 * contact list, free during the solve: fxs_contacts_scratch). False when
 * out of memory. */
bool fxs_batches_prepare(solver_ctx *c);

/* The passes of a sub-step, and what follows them. */
void fxs_batches_warm_start(solver_ctx *c);
void fxs_batches_solve(solver_ctx *c, bool use_bias);
/* the passes over batches [first, end) alone, returning the saturations
 * they counted (solver_tasks.c runs a stage's blocks of batches at once) */
uint32_t fxs_batches_warm_start_range(solver_ctx *c, uint32_t first, uint32_t end);
uint32_t fxs_batches_solve_range(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias);
void fxs_batches_restitution(solver_ctx *c);
/* the softness of the other sub-step length becomes the batches' (solver.h) */
void fxs_batches_swap_softness(solver_ctx *c);
/* The impulses back into the world's contacts; with `approach` (hit
 * events), also each point's relative_velocity (minus the approach speed
 * at the touch, restitution's, where it pushed this step; the step's start
 * speed elsewhere) and max_normal_impulse = 1 when its impulse grew this step,
 * else 0. */
void fxs_batches_store(solver_ctx *c, bool approach);

#endif
