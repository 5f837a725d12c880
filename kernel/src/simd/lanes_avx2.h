/* The lanes (lanes.h) with AVX2: four int64 lanes in a ymm register, masks
 * as vectors (all ones or all zeros per lane). What AVX2 lacks is made:
 *  - 64-bit arithmetic right shifts, min, max and abs, leading-zero counts
 *    and 64-bit products as lanes_x86.h makes them for SSE4 too (the
 *    packing and the joints' setup use the last two, not the passes);
 *  - shr_by as ((x + 2^(s-1) + 2^62) >>> s) - 2^(62 - s), one vpsrlvq;
 *  - the guard: every value noted is offset into [0, 2^32) (or [0, 2^k)) if
 *    in range, and the offsets are or-ed together, so that one test of the
 *    high bits at the end finds any value out of range (lanes_common.h's,
 *    shared with SIMD128). */
#ifndef FXS_LANES_AVX2_H
#define FXS_LANES_AVX2_H

#include "simd/lanes.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__AVX2__) && !defined(FXS_NO_AVX2)
#define FXS_VEC_BUILD 1
#include <immintrin.h>

#define VW 4
typedef __m256i V;
typedef __m256i M;

#define OFF62 ((int64_t)1 << 62)

INLINE V splat(int64_t x)
{
	return _mm256_set1_epi64x(x);
}
INLINE V zero(void) { return _mm256_setzero_si256(); }
INLINE V ld32_(const int32_t *p) { return _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(const void *)p)); }
/* the low halves of the four lanes, as four int32 */
INLINE __m128i low32(V v) { return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6))); }
INLINE void st32_(int32_t *p, V v) { _mm_storeu_si128((__m128i *)(void *)p, low32(v)); }
INLINE V ld64_(const int64_t *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }
INLINE void st64_(int64_t *p, V v) { _mm256_storeu_si256((__m256i *)(void *)p, v); }
INLINE V ld8_(const uint8_t *p)
{
	int32_t x;
	memcpy(&x, p, 4);
	return _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(x));
}
INLINE void st8_(uint8_t *p, V v)
{
	const __m128i b = _mm_shuffle_epi8(low32(v), _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
	int32_t x = _mm_cvtsi128_si32(b);
	memcpy(p, &x, 4);
}
INLINE V add(V a, V b) { return _mm256_add_epi64(a, b); }
INLINE V sub(V a, V b) { return _mm256_sub_epi64(a, b); }
INLINE V mul(V a, V b) { return _mm256_mul_epi32(a, b); }
INLINE V and_(V a, V b) { return _mm256_and_si256(a, b); }
INLINE V or_(V a, V b) { return _mm256_or_si256(a, b); }
INLINE V xor_(V a, V b) { return _mm256_xor_si256(a, b); }
INLINE V andnot_(V a, V b) { return _mm256_andnot_si256(a, b); }
INLINE M gt(V a, V b) { return _mm256_cmpgt_epi64(a, b); }
INLINE M eq(V a, V b) { return _mm256_cmpeq_epi64(a, b); }
#define slli(x, n) _mm256_slli_epi64((x), (n))
#define srli(x, n) _mm256_srli_epi64((x), (n))
INLINE V sllv(V x, V s)
{
	return _mm256_sllv_epi64(x, s);
}
INLINE V srlv(V x, V s) { return _mm256_srlv_epi64(x, s); }
INLINE V sel(M m, V a, V b) { return _mm256_blendv_epi8(b, a, m); }
INLINE V mulu(V a, V b) { return _mm256_mul_epu32(a, b); }
INLINE V nibble_bits(V x)
{
	const V table = _mm256_setr_epi8(0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4,
					 4, 4, 4);
	return _mm256_shuffle_epi8(table, x);
}
/* arithmetic shifts, min, max, abs, masks, bit lengths, products */
#include "simd/lanes_x86.h"

INLINE bool m_any(M a) { return !_mm256_testz_si256(a, a); }
INLINE uint32_t m_bits(M a)
{
	const uint32_t b = (uint32_t)_mm256_movemask_epi8(a); /* eight bits a lane */
	return (b & 1) | (b >> 7 & 2) | (b >> 14 & 4) | (b >> 21 & 8);
}
INLINE uint32_t m_count(M a) { return (uint32_t)__builtin_popcount((uint32_t)_mm256_movemask_epi8(a)) / 8; }
INLINE M m_from_bits(uint32_t b)
{
	const V bit = _mm256_setr_epi64x(1, 2, 4, 8);
	return eq(and_(splat((int64_t)b), bit), bit);
}

typedef struct shifter {
	V s, bias, corr; /* bias: 2^(s-1) + 2^62; corr: 2^(62-s) */
} shifter;
INLINE shifter shifter_of(V s)
{
	shifter h = { s, add(srli(sllv(splat(1), s), 1), splat(OFF62)), srlv(splat(OFF62), s) };
	return h;
}
INLINE V shr_by(V x, const shifter *h) { return sub(srlv(add(x, h->bias), h->s), h->corr); }

INLINE shifter shifter_sel(M m, shifter a, shifter b)
{
	shifter h = { sel(m, a.s, b.s), sel(m, a.bias, b.bias), sel(m, a.corr, b.corr) };
	return h;
}

/* Four rows: loads and two rounds of unpacks instead of gathers. */
INLINE void rows_to_lanes(const char *const row[4], V out[8])
{
	const __m256i r0 = _mm256_loadu_si256((const __m256i *)(const void *)row[0]),
		      r1 = _mm256_loadu_si256((const __m256i *)(const void *)row[1]),
		      r2 = _mm256_loadu_si256((const __m256i *)(const void *)row[2]),
		      r3 = _mm256_loadu_si256((const __m256i *)(const void *)row[3]);
	const __m256i a0 = _mm256_unpacklo_epi32(r0, r1), a1 = _mm256_unpackhi_epi32(r0, r1);
	const __m256i b0 = _mm256_unpacklo_epi32(r2, r3), b1 = _mm256_unpackhi_epi32(r2, r3);
	/* X[j]'s 128-bit halves: int32 j of rows 0-3, int32 j + 4 of rows 0-3 */
	const __m256i X[4] = { _mm256_unpacklo_epi64(a0, b0), _mm256_unpackhi_epi64(a0, b0), _mm256_unpacklo_epi64(a1, b1),
			       _mm256_unpackhi_epi64(a1, b1) };
#pragma GCC unroll 4 /* (rolled, gcc -O2 passed out[] through the stack) */
	for (int j = 0; j < 4; ++j) {
		out[j] = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(X[j]));
		out[j + 4] = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(X[j], 1));
	}
}

/* The inverse: the six vectors' low halves as int32, transposed 4 x 4 and
 * 4 x 2, stored 16 and 8 bytes a row. */
INLINE void lanes_to_rows6(const V in[6], char *const row[4])
{
	const __m128i c0 = low32(in[0]), c1 = low32(in[1]), c2 = low32(in[2]), c3 = low32(in[3]), c4 = low32(in[4]),
		      c5 = low32(in[5]);
	const __m128i t0 = _mm_unpacklo_epi32(c0, c1), t1 = _mm_unpackhi_epi32(c0, c1); /* x0 y0 x1 y1, x2 y2 x3 y3 */
	const __m128i t2 = _mm_unpacklo_epi32(c2, c3), t3 = _mm_unpackhi_epi32(c2, c3);
	const __m128i t4 = _mm_unpacklo_epi32(c4, c5), t5 = _mm_unpackhi_epi32(c4, c5);
	const __m128i lo[4] = { _mm_unpacklo_epi64(t0, t2), _mm_unpackhi_epi64(t0, t2), _mm_unpacklo_epi64(t1, t3),
				_mm_unpackhi_epi64(t1, t3) };
	const __m128i hi[4] = { t4, _mm_unpackhi_epi64(t4, t4), t5, _mm_unpackhi_epi64(t5, t5) };
#pragma GCC unroll 4
	for (int l = 0; l < 4; ++l) {
		_mm_storeu_si128((__m128i *)(void *)row[l], lo[l]);
		_mm_storel_epi64((__m128i *)(void *)(row[l] + 16), hi[l]);
	}
}

/* the guard or-s offsets (lanes_common.h); no lane with a bit of its high
 * half set: one vptest */
#define FXS_VEC_GUARD_OFFSETS 1
INLINE bool none_high(V x)
{
	return _mm256_testz_si256(x, splat((int64_t)0xFFFFFFFF00000000));
}

#include "simd/lanes_common.h"

#else
#define FXS_VEC_BUILD 0
#endif

#endif
