/* The lanes (lanes.h) with SSE4.2 (x86-64-v2: every x86 CPU since about
 * 2009, including those sold without AVX2, and the x86 translation layers of
 * other CPUs): two int64 lanes in an xmm register, masks as vectors (all
 * ones or all zeros per lane). SSE4.1 and 4.2 give 32 x 32 -> 64 signed
 * products (pmuldq), 64-bit compares (pcmpgtq), blends and ptest; what they
 * lack is made as for AVX2 (lanes_x86.h: arithmetic shifts, min, max, abs,
 * bit lengths, 64-bit products), and:
 *  - shifts by a count per lane: each lane's count shifts the whole
 *    register (psrlq and psllq take one count), and a blend takes each lane
 *    from its own shift; shr_by keeps both counts ready in the shifter, and
 *    shifts once where they are equal (bodies of one mass share their
 *    linear responses' shift);
 *  - the guard: the offsets or-ed (lanes_common.h).
 * Chosen at run time (simd/cpu.c): SSE4.2 and POPCNT. Builds for x86-64 and
 * i386 (no 64-bit general-register moves). Integer instructions only (`make
 * nofloat` disassembles this object). */
#ifndef FXS_LANES_SSE4_H
#define FXS_LANES_SSE4_H

#include "simd/lanes.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE4_2__) && !defined(FXS_NO_SSE4)
#define FXS_VEC_BUILD 1
#include <immintrin.h>

#define VW 2
typedef __m128i V;
typedef __m128i M;

#define OFF62 ((int64_t)1 << 62)

INLINE V splat(int64_t x)
{
	return _mm_set1_epi64x(x);
}
INLINE V zero(void) { return _mm_setzero_si128(); }
INLINE V ld32_(const int32_t *p) { return _mm_cvtepi32_epi64(_mm_loadl_epi64((const __m128i *)(const void *)p)); }
/* the low halves of both lanes, as two int32 in the low 8 bytes */
INLINE V low32(V v) { return _mm_shuffle_epi32(v, _MM_SHUFFLE(3, 1, 2, 0)); }
INLINE void st32_(int32_t *p, V v) { _mm_storel_epi64((__m128i *)(void *)p, low32(v)); }
INLINE V ld64_(const int64_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
INLINE void st64_(int64_t *p, V v) { _mm_storeu_si128((__m128i *)(void *)p, v); }
INLINE V ld8_(const uint8_t *p)
{
	uint16_t x;
	memcpy(&x, p, 2);
	return _mm_cvtepu8_epi64(_mm_cvtsi32_si128(x));
}
INLINE void st8_(uint8_t *p, V v)
{
	p[0] = (uint8_t)_mm_cvtsi128_si32(v), p[1] = (uint8_t)_mm_extract_epi32(v, 2);
}
INLINE V add(V a, V b) { return _mm_add_epi64(a, b); }
INLINE V sub(V a, V b) { return _mm_sub_epi64(a, b); }
INLINE V mul(V a, V b) { return _mm_mul_epi32(a, b); }
INLINE V and_(V a, V b) { return _mm_and_si128(a, b); }
INLINE V or_(V a, V b) { return _mm_or_si128(a, b); }
INLINE V xor_(V a, V b) { return _mm_xor_si128(a, b); }
INLINE V andnot_(V a, V b) { return _mm_andnot_si128(a, b); }
INLINE M gt(V a, V b) { return _mm_cmpgt_epi64(a, b); }
INLINE M eq(V a, V b) { return _mm_cmpeq_epi64(a, b); }
#define slli(x, n) _mm_slli_epi64((x), (n))
#define srli(x, n) _mm_srli_epi64((x), (n))
/* lane 0 from a (its low 64 bits), lane 1 from b */
INLINE V lanes01(V a, V b) { return _mm_blend_epi16(a, b, 0xF0); }
/* s's lane 1 as the count of a whole-register shift (psrlq and psllq read
 * the low 64 bits of their count; a count above 63 gives 0, as vpsrlvq) */
INLINE V count1(V s) { return _mm_unpackhi_epi64(s, s); }
INLINE V sllv(V x, V s) { return lanes01(_mm_sll_epi64(x, s), _mm_sll_epi64(x, count1(s))); }
INLINE V srlv(V x, V s) { return lanes01(_mm_srl_epi64(x, s), _mm_srl_epi64(x, count1(s))); }
INLINE V sel(M m, V a, V b) { return _mm_blendv_epi8(b, a, m); }
INLINE V mulu(V a, V b) { return _mm_mul_epu32(a, b); }
INLINE V nibble_bits(V x) { return _mm_shuffle_epi8(_mm_setr_epi8(0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4), x); }
/* arithmetic shifts, min, max, abs, masks, bit lengths, products */
#include "simd/lanes_x86.h"

INLINE bool m_any(M a) { return !_mm_testz_si128(a, a); }
INLINE uint32_t m_bits(M a)
{
	const uint32_t b = (uint32_t)_mm_movemask_epi8(a); /* eight bits a lane */
	return (b & 1) | (b >> 7 & 2);
}
INLINE uint32_t m_count(M a) { return (uint32_t)__builtin_popcount((uint32_t)_mm_movemask_epi8(a)) / 8; }
INLINE M m_from_bits(uint32_t b)
{
	const V bit = _mm_set_epi64x(2, 1);
	return eq(and_(splat((int64_t)b), bit), bit);
}

typedef struct shifter {
	V s0, s1, bias, corr; /* the counts of lanes 0 and 1 (lane 0's in
			       * both), 2^(s-1) + 2^62, 2^(62-s) */
	bool same;            /* both lanes' counts equal: one shift does */
} shifter;
INLINE shifter shifter_of(V s)
{
	shifter h = { s, count1(s), add(srli(sllv(splat(1), s), 1), splat(OFF62)), srlv(splat(OFF62), s), false };
	h.same = _mm_testz_si128(xor_(h.s0, h.s1), m_all());
	return h;
}
INLINE V shr_by(V x, const shifter *h)
{
	const V y = add(x, h->bias);
	if (h->same)
		return sub(_mm_srl_epi64(y, h->s0), h->corr);
	return sub(lanes01(_mm_srl_epi64(y, h->s0), _mm_srl_epi64(y, h->s1)), h->corr);
}

INLINE shifter shifter_sel(M m, shifter a, shifter b)
{
	const V s = sel(m, a.s0, b.s0);
	shifter h = { s, count1(s), sel(m, a.bias, b.bias), sel(m, a.corr, b.corr), false };
	h.same = _mm_testz_si128(xor_(h.s0, h.s1), m_all());
	return h;
}

/* Two rows of eight int32: interleaved pairwise, widened. */
INLINE void rows_to_lanes(const char *const row[2], V out[8])
{
	for (int half = 0; half < 2; ++half) {
		const V a = _mm_loadu_si128((const __m128i *)(const void *)(row[0] + 16 * half)),
			b = _mm_loadu_si128((const __m128i *)(const void *)(row[1] + 16 * half));
		const V lo = _mm_unpacklo_epi32(a, b), hi = _mm_unpackhi_epi32(a, b); /* a0 b0 a1 b1, a2 b2 a3 b3 */
		out[4 * half + 0] = _mm_cvtepi32_epi64(lo), out[4 * half + 1] = _mm_cvtepi32_epi64(_mm_srli_si128(lo, 8));
		out[4 * half + 2] = _mm_cvtepi32_epi64(hi), out[4 * half + 3] = _mm_cvtepi32_epi64(_mm_srli_si128(hi, 8));
	}
}

/* The inverse: the low halves of vectors k and k + 1 side by side (x0 y0
 * x1 y1), then each row's four; the last two as 8 bytes a row. */
INLINE void lanes_to_rows6(const V in[6], char *const row[2])
{
	const V p01 = _mm_unpacklo_epi32(low32(in[0]), low32(in[1])), p23 = _mm_unpacklo_epi32(low32(in[2]), low32(in[3]));
	const V p45 = _mm_unpacklo_epi32(low32(in[4]), low32(in[5]));
	_mm_storeu_si128((__m128i *)(void *)row[0], _mm_unpacklo_epi64(p01, p23));
	_mm_storeu_si128((__m128i *)(void *)row[1], _mm_unpackhi_epi64(p01, p23));
	_mm_storel_epi64((__m128i *)(void *)(row[0] + 16), p45);
	_mm_storel_epi64((__m128i *)(void *)(row[1] + 16), _mm_unpackhi_epi64(p45, p45));
}

/* the guard or-s offsets (lanes_common.h); no lane with a bit of its high
 * half set: one ptest */
#define FXS_VEC_GUARD_OFFSETS 1
INLINE bool none_high(V x)
{
	return _mm_testz_si128(x, splat((int64_t)0xFFFFFFFF00000000));
}

#include "simd/lanes_common.h"

#else
#define FXS_VEC_BUILD 0
#endif

#endif
