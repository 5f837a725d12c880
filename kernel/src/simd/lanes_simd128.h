/* The lanes (lanes.h) with WebAssembly SIMD128: two int64 lanes in a v128,
 * masks as vectors (all ones or all zeros per lane). SIMD128 has 64-bit
 * adds, compares, abs, full 64-bit products (i64x2.mul), bit selects and
 * shifts by one count for both lanes (i64x2.shr is arithmetic); what it
 * lacks is made:
 *  - products of the low 32 bits (mul): the two lanes' low halves gathered
 *    by a shuffle, then i64x2.extmul_low_i32x4_s, exact (32 x 32 -> 64);
 *  - shifts by a count per lane (sllv, srlv, srav, shr_by) and bit lengths:
 *    lane by lane in scalar registers (wasm's i64 shifts and clz);
 *  - 64-bit min and max: a compare and a bit select;
 *  - the guard: AVX2's, offsets or-ed (lanes_common.h): three instructions
 *    a value, where the extremes would take a compare and a select each.
 * Chosen at build time: the layer exists where the compiler targets
 * SIMD128 (emcc -msimd128), and every engine that runs such a build has it.
 * Integer instructions only (`make nofloat` disassembles the wasm build). */
#ifndef FXS_LANES_SIMD128_H
#define FXS_LANES_SIMD128_H

#include "simd/lanes.h"

#if defined(__wasm_simd128__) && !defined(FXS_NO_SIMD128)
#define FXS_VEC_BUILD 1
#include <wasm_simd128.h>

#define VW 2
typedef v128_t V;
typedef v128_t M;

INLINE V splat(int64_t x) { return wasm_i64x2_splat(x); }
INLINE V zero(void) { return wasm_i64x2_splat(0); }
INLINE V ld32_(const int32_t *p) { return wasm_i64x2_load32x2(p); }
/* the low halves of both lanes, as two int32 in the low 8 bytes */
INLINE V low32(V v) { return wasm_i32x4_shuffle(v, v, 0, 2, 0, 2); }
INLINE void st32_(int32_t *p, V v) { wasm_v128_store64_lane(p, low32(v), 0); }
INLINE V ld64_(const int64_t *p) { return wasm_v128_load(p); }
INLINE void st64_(int64_t *p, V v) { wasm_v128_store(p, v); }
INLINE V ld8_(const uint8_t *p) { return wasm_i64x2_make(p[0], p[1]); }
INLINE void st8_(uint8_t *p, V v)
{
	p[0] = (uint8_t)wasm_i64x2_extract_lane(v, 0), p[1] = (uint8_t)wasm_i64x2_extract_lane(v, 1);
}
INLINE V add(V a, V b) { return wasm_i64x2_add(a, b); }
INLINE V sub(V a, V b) { return wasm_i64x2_sub(a, b); }
/* the compiler's view of a value stops here: it would otherwise turn
 * extmul of values it knows sign-extended into i64x2.mul, which engines
 * without a 64-bit multiply make of three 32 x 32 -> 64 ones */
INLINE V opaque(V x)
{
	__asm__(""
		: "+r"(x));
	return x;
}
INLINE V mul(V a, V b) { return wasm_i64x2_extmul_low_i32x4(opaque(low32(a)), opaque(low32(b))); }
INLINE V and_(V a, V b) { return wasm_v128_and(a, b); }
INLINE V or_(V a, V b) { return wasm_v128_or(a, b); }
INLINE V xor_(V a, V b) { return wasm_v128_xor(a, b); }
INLINE V andnot_(V a, V b) { return wasm_v128_andnot(b, a); } /* wasm's andnot(b, a) is b & ~a */
#define slli(x, n) wasm_i64x2_shl((x), (n))
#define srli(x, n) wasm_u64x2_shr((x), (n))
#define sra(x, n) wasm_i64x2_shr((x), (n))
#define sra62(x, n) wasm_i64x2_shr((x), (n))
/* by a count per lane: lane by lane (the counts are in [0, 63]) */
INLINE V sllv(V x, V s)
{
	return wasm_i64x2_make((int64_t)((uint64_t)wasm_i64x2_extract_lane(x, 0) << wasm_i64x2_extract_lane(s, 0)),
			       (int64_t)((uint64_t)wasm_i64x2_extract_lane(x, 1) << wasm_i64x2_extract_lane(s, 1)));
}
INLINE V srlv(V x, V s)
{
	return wasm_u64x2_make(wasm_u64x2_extract_lane(x, 0) >> wasm_i64x2_extract_lane(s, 0),
			       wasm_u64x2_extract_lane(x, 1) >> wasm_i64x2_extract_lane(s, 1));
}
INLINE V srav(V x, V s)
{
	return wasm_i64x2_make(wasm_i64x2_extract_lane(x, 0) >> wasm_i64x2_extract_lane(s, 0),
			       wasm_i64x2_extract_lane(x, 1) >> wasm_i64x2_extract_lane(s, 1));
}
INLINE M gt(V a, V b) { return wasm_i64x2_gt(a, b); }
INLINE M eq(V a, V b) { return wasm_i64x2_eq(a, b); }
INLINE M ugt(V a, V b)
{
	const V top = splat(INT64_MIN);
	return gt(xor_(a, top), xor_(b, top));
}
INLINE V sel(M m, V a, V b) { return wasm_v128_bitselect(a, b, m); }
INLINE V maskz(M m, V x) { return and_(m, x); }
INLINE V min_(V a, V b) { return sel(gt(a, b), b, a); }
INLINE V max_(V a, V b) { return sel(gt(a, b), a, b); }
INLINE V abs_(V x) { return wasm_i64x2_abs(x); }
INLINE M m_and(M a, M b) { return and_(a, b); }
INLINE M m_or(M a, M b) { return or_(a, b); }
INLINE M m_andnot(M a, M b) { return andnot_(a, b); }
INLINE M m_not(M a) { return wasm_v128_not(a); }
INLINE bool m_any(M a) { return wasm_v128_any_true(a); }
INLINE uint32_t m_bits(M a) { return (uint32_t)wasm_i64x2_bitmask(a); }
INLINE uint32_t m_count(M a) { return (uint32_t)__builtin_popcount((unsigned)wasm_i64x2_bitmask(a)); }
INLINE M m_all(void) { return splat(-1); }
INLINE M m_none(void) { return zero(); }
INLINE M m_from_bits(uint32_t b) { return wasm_i64x2_make(-(int64_t)(b & 1), -(int64_t)(b >> 1 & 1)); }
/* x >= 0: 64 - the leading zeros, lane by lane (0 for 0) */
INLINE int64_t bitlen1(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }
INLINE V bitlen(V x)
{
	return wasm_i64x2_make(bitlen1(wasm_u64x2_extract_lane(x, 0)), bitlen1(wasm_u64x2_extract_lane(x, 1)));
}
INLINE V bitlen32(V x) { return bitlen(x); }
INLINE V mullo(V a, V b) { return wasm_i64x2_mul(a, b); }

/* a shift prepared: each lane's count and half unit 2^(s-1) (0 for s = 0),
 * in scalar registers, where shr_by uses them */
typedef struct shifter {
	int64_t s[2], half[2];
} shifter;
INLINE int64_t half_of(int64_t s) { return (int64_t)(((uint64_t)1 << s) >> 1); }
INLINE shifter shifter_of(V s)
{
	const int64_t s0 = wasm_i64x2_extract_lane(s, 0) & 63, s1 = wasm_i64x2_extract_lane(s, 1) & 63;
	shifter h = { { s0, s1 }, { half_of(s0), half_of(s1) } };
	return h;
}
/* (x + 2^(s-1)) >> s, |x| < 2^62: the sum fits */
INLINE V shr_by(V x, const shifter *h)
{
	return wasm_i64x2_make((wasm_i64x2_extract_lane(x, 0) + h->half[0]) >> h->s[0],
			       (wasm_i64x2_extract_lane(x, 1) + h->half[1]) >> h->s[1]);
}

INLINE shifter shifter_sel(M m, shifter a, shifter b)
{
	const uint32_t bits = m_bits(m);
	shifter h;
	for (int l = 0; l < 2; ++l) {
		const shifter *p = bits >> l & 1 ? &a : &b;
		h.s[l] = p->s[l], h.half[l] = p->half[l];
	}
	return h;
}

/* Two rows of eight int32: interleaved pairwise, widened. */
INLINE void rows_to_lanes(const char *const row[2], V out[8])
{
	for (int half = 0; half < 2; ++half) {
		const V a = wasm_v128_load(row[0] + 16 * half), b = wasm_v128_load(row[1] + 16 * half);
		const V lo = wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), hi = wasm_i32x4_shuffle(a, b, 2, 6, 3, 7);
		out[4 * half + 0] = wasm_i64x2_extend_low_i32x4(lo), out[4 * half + 1] = wasm_i64x2_extend_high_i32x4(lo);
		out[4 * half + 2] = wasm_i64x2_extend_low_i32x4(hi), out[4 * half + 3] = wasm_i64x2_extend_high_i32x4(hi);
	}
}

/* The inverse: the low halves of vectors k and k + 1 side by side (x0 x1 y0
 * y1), then each row's four (x0 y0 z0 w0); the last two as 8 bytes a row. */
INLINE void lanes_to_rows6(const V in[6], char *const row[2])
{
	const V p01 = wasm_i32x4_shuffle(in[0], in[1], 0, 2, 4, 6), p23 = wasm_i32x4_shuffle(in[2], in[3], 0, 2, 4, 6);
	const V p45 = wasm_i32x4_shuffle(in[4], in[5], 0, 4, 2, 6); /* row 0's two, row 1's two */
	wasm_v128_store(row[0], wasm_i32x4_shuffle(p01, p23, 0, 2, 4, 6));
	wasm_v128_store(row[1], wasm_i32x4_shuffle(p01, p23, 1, 3, 5, 7));
	wasm_v128_store64_lane(row[0] + 16, p45, 0);
	wasm_v128_store64_lane(row[1] + 16, p45, 1);
}

/* the guard or-s offsets (lanes_common.h); no lane with a bit of its high
 * half set */
#define FXS_VEC_GUARD_OFFSETS 1
INLINE bool none_high(V x)
{
	return !m_any(and_(x, splat((int64_t)0xFFFFFFFF00000000)));
}

#include "simd/lanes_common.h"

#else
#define FXS_VEC_BUILD 0
#endif

#endif
