/* The lanes (lanes.h) with AArch64 Advanced SIMD (NEON): two int64 lanes in
 * a q register, masks as vectors. NEON has 64-bit compares, abs, shifts by
 * a count per lane (vshl by a negative count shifts right, arithmetic) and
 * the rounding shift shr_by needs (vrshl: (x + 2^(s-1)) >> s, exact);
 * products are smull of the narrowed halves (exact, 32 x 32 -> 64); what it
 * lacks is made: 64-bit min and max (a compare and a select), leading zeros
 * (from the 32-bit counts of both halves), 64-bit products (lane by lane).
 * Advanced SIMD is part of every AArch64 CPU: no run-time test. */
#ifndef FXS_LANES_NEON_H
#define FXS_LANES_NEON_H

#include "simd/lanes.h"

#if defined(__aarch64__) && defined(__ARM_NEON) && !defined(FXS_NO_NEON)
#define FXS_VEC_BUILD 1
#include <arm_neon.h>

#define VW 2
typedef int64x2_t V;
typedef uint64x2_t M;

INLINE V splat(int64_t x) { return vdupq_n_s64(x); }
INLINE V zero(void) { return vdupq_n_s64(0); }
INLINE V ld32_(const int32_t *p) { return vmovl_s32(vld1_s32(p)); }
INLINE void st32_(int32_t *p, V v) { vst1_s32(p, vmovn_s64(v)); }
INLINE V ld64_(const int64_t *p) { return vld1q_s64(p); }
INLINE void st64_(int64_t *p, V v) { vst1q_s64(p, v); }
INLINE V ld8_(const uint8_t *p) { return vcombine_s64(vdup_n_s64(p[0]), vdup_n_s64(p[1])); }
INLINE void st8_(uint8_t *p, V v) { p[0] = (uint8_t)vgetq_lane_s64(v, 0), p[1] = (uint8_t)vgetq_lane_s64(v, 1); }
INLINE V add(V a, V b) { return vaddq_s64(a, b); }
INLINE V sub(V a, V b) { return vsubq_s64(a, b); }
INLINE V mul(V a, V b) { return vmull_s32(vmovn_s64(a), vmovn_s64(b)); }
INLINE V and_(V a, V b) { return vandq_s64(a, b); }
INLINE V or_(V a, V b) { return vorrq_s64(a, b); }
INLINE V xor_(V a, V b) { return veorq_s64(a, b); }
INLINE V andnot_(V a, V b) { return vbicq_s64(b, a); }
INLINE V sllv(V x, V s) { return vshlq_s64(x, s); }
INLINE V srlv(V x, V s) { return vreinterpretq_s64_u64(vshlq_u64(vreinterpretq_u64_s64(x), vnegq_s64(s))); }
INLINE V srav(V x, V s) { return vshlq_s64(x, vnegq_s64(s)); }
/* by a constant: as by a count (n may be 0) */
#define slli(x, n) sllv((x), splat(n))
#define srli(x, n) srlv((x), splat(n))
#define sra(x, n) srav((x), splat(n))
#define sra62(x, n) srav((x), splat(n))
INLINE M gt(V a, V b)
{
	return vcgtq_s64(a, b);
}
INLINE M eq(V a, V b) { return vceqq_s64(a, b); }
INLINE M ugt(V a, V b) { return vcgtq_u64(vreinterpretq_u64_s64(a), vreinterpretq_u64_s64(b)); }
INLINE V sel(M m, V a, V b) { return vbslq_s64(m, a, b); }
INLINE V maskz(M m, V x) { return vandq_s64(vreinterpretq_s64_u64(m), x); }
INLINE V min_(V a, V b) { return sel(gt(a, b), b, a); }
INLINE V max_(V a, V b) { return sel(gt(a, b), a, b); }
INLINE V abs_(V x) { return vabsq_s64(x); }
INLINE M m_and(M a, M b) { return vandq_u64(a, b); }
INLINE M m_or(M a, M b) { return vorrq_u64(a, b); }
INLINE M m_andnot(M a, M b) { return vbicq_u64(b, a); }
INLINE M m_not(M a) { return vreinterpretq_u64_u32(vmvnq_u32(vreinterpretq_u32_u64(a))); }
INLINE bool m_any(M a) { return vmaxvq_u32(vreinterpretq_u32_u64(a)) != 0; }
INLINE uint32_t m_bits(M a) { return (uint32_t)(vgetq_lane_u64(a, 0) & 1) | (uint32_t)(vgetq_lane_u64(a, 1) & 1) << 1; }
INLINE uint32_t m_count(M a) { return (uint32_t)(vgetq_lane_u64(a, 0) & 1) + (uint32_t)(vgetq_lane_u64(a, 1) & 1); }
INLINE M m_all(void) { return vdupq_n_u64(UINT64_MAX); }
INLINE M m_none(void) { return vdupq_n_u64(0); }
INLINE M m_from_bits(uint32_t b)
{
	return vcombine_u64(vdup_n_u64(b & 1 ? UINT64_MAX : 0), vdup_n_u64(b & 2 ? UINT64_MAX : 0));
}
/* 64 - leading zeros, from the 32-bit counts of each lane's halves */
INLINE V bitlen(V x)
{
	const uint64x2_t c = vreinterpretq_u64_u32(vclzq_u32(vreinterpretq_u32_s64(x))); /* lo count, hi count */
	const uint64x2_t hi = vshrq_n_u64(c, 32), lo = vandq_u64(c, vdupq_n_u64(0xFFFFFFFF));
	const uint64x2_t lz = vaddq_u64(hi, vandq_u64(lo, vceqq_u64(hi, vdupq_n_u64(32))));
	return vreinterpretq_s64_u64(vsubq_u64(vdupq_n_u64(64), lz));
}
/* below 2^32: 32 - the count of the low half */
INLINE V bitlen32(V x)
{
	const uint64x2_t c = vreinterpretq_u64_u32(vclzq_u32(vreinterpretq_u32_s64(x)));
	return vreinterpretq_s64_u64(vsubq_u64(vdupq_n_u64(32), vandq_u64(c, vdupq_n_u64(0xFFFFFFFF))));
}
INLINE V mullo(V a, V b)
{
	const int64_t x0 = (int64_t)((uint64_t)vgetq_lane_s64(a, 0) * (uint64_t)vgetq_lane_s64(b, 0));
	const int64_t x1 = (int64_t)((uint64_t)vgetq_lane_s64(a, 1) * (uint64_t)vgetq_lane_s64(b, 1));
	return vcombine_s64(vdup_n_s64(x0), vdup_n_s64(x1));
}

typedef struct shifter {
	V neg; /* -s: vrshl shifts right, rounding, by a negative count */
} shifter;
INLINE shifter shifter_of(V s)
{
	shifter h = { vnegq_s64(s) };
	return h;
}
INLINE V shr_by(V x, const shifter *h) { return vrshlq_s64(x, h->neg); }

INLINE shifter shifter_sel(M m, shifter a, shifter b)
{
	shifter h = { sel(m, a.neg, b.neg) };
	return h;
}

/* Two rows of eight int32: zipped pairwise, widened. */
INLINE void rows_to_lanes(const char *const row[2], V out[8])
{
	const int32_t *r0 = (const int32_t *)(const void *)row[0], *r1 = (const int32_t *)(const void *)row[1];
	for (int half = 0; half < 2; ++half) {
		const int32x4_t a = vld1q_s32(r0 + 4 * half), b = vld1q_s32(r1 + 4 * half);
		const int32x4_t z1 = vzip1q_s32(a, b), z2 = vzip2q_s32(a, b); /* a0 b0 a1 b1, a2 b2 a3 b3 */
		out[4 * half + 0] = vmovl_s32(vget_low_s32(z1)), out[4 * half + 1] = vmovl_high_s32(z1);
		out[4 * half + 2] = vmovl_s32(vget_low_s32(z2)), out[4 * half + 3] = vmovl_high_s32(z2);
	}
}

INLINE void lanes_to_rows6(const V in[6], char *const row[2])
{
	int32x2_t n[6];
	for (int k = 0; k < 6; ++k)
		n[k] = vmovn_s64(in[k]); /* (row 0's, row 1's) */
	const int32x4_t p01 = vcombine_s32(n[0], n[1]), p23 = vcombine_s32(n[2], n[3]);
	int32_t *r0 = (int32_t *)(void *)row[0], *r1 = (int32_t *)(void *)row[1];
	vst1q_s32(r0, vuzp1q_s32(p01, p23)), vst1q_s32(r1, vuzp2q_s32(p01, p23));
	vst1_s32(r0 + 4, vuzp1_s32(n[4], n[5])), vst1_s32(r1 + 4, vuzp2_s32(n[4], n[5]));
}

/* the guard keeps the extremes of the values noted (lanes_common.h) */
#define FXS_VEC_GUARD_EXTREMES 1
INLINE V max_where(V acc, M live, V x)
{
	return sel(m_and(live, gt(x, acc)), x, acc);
}
INLINE V min_where(V acc, M live, V x) { return sel(m_and(live, gt(acc, x)), x, acc); }

#include "simd/lanes_common.h"

#else
#define FXS_VEC_BUILD 0
#endif

#endif
