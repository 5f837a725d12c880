/* The lanes (lanes.h) with AVX-512 (F, VL, DQ, CD): eight int64 lanes in a
 * zmm register, masks in mask registers. AVX-512 has what AVX2 lacks:
 * 64-bit arithmetic shifts, min and max, abs and leading-zero counts, and
 * the masks for selects and for counting saturations. Products are still
 * vpmuldq (32 x 32 -> 64). */
#ifndef FXS_LANES_AVX512_H
#define FXS_LANES_AVX512_H

#include "simd/lanes.h"

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512DQ__) && \
	defined(__AVX512CD__) && !defined(FXS_NO_AVX2)
#define FXS_VEC_BUILD 1
#include <immintrin.h>

#define VW 8
typedef __m512i V;
typedef __mmask8 M;

INLINE V splat(int64_t x) { return _mm512_set1_epi64(x); }
INLINE V zero(void) { return _mm512_setzero_si512(); }
INLINE V ld32_(const int32_t *p) { return _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(const void *)p)); }
INLINE void st32_(int32_t *p, V v) { _mm256_storeu_si256((__m256i *)(void *)p, _mm512_cvtepi64_epi32(v)); }
INLINE V ld64_(const int64_t *p) { return _mm512_loadu_si512((const void *)p); }
INLINE void st64_(int64_t *p, V v) { _mm512_storeu_si512((void *)p, v); }
INLINE V ld8_(const uint8_t *p)
{
	int64_t x;
	memcpy(&x, p, 8);
	return _mm512_cvtepu8_epi64(_mm_cvtsi64_si128(x));
}
INLINE void st8_(uint8_t *p, V v) { _mm_storel_epi64((__m128i *)(void *)p, _mm512_cvtepi64_epi8(v)); }
INLINE V add(V a, V b) { return _mm512_add_epi64(a, b); }
INLINE V sub(V a, V b) { return _mm512_sub_epi64(a, b); }
INLINE V mul(V a, V b) { return _mm512_mul_epi32(a, b); }
INLINE V and_(V a, V b) { return _mm512_and_si512(a, b); }
INLINE V or_(V a, V b) { return _mm512_or_si512(a, b); }
INLINE V xor_(V a, V b) { return _mm512_xor_si512(a, b); }
INLINE V andnot_(V a, V b) { return _mm512_andnot_si512(a, b); }
#define slli(x, n) _mm512_slli_epi64((x), (n))
#define srli(x, n) _mm512_srli_epi64((x), (n))
#define sra(x, n) _mm512_srai_epi64((x), (n))
#define sra62(x, n) _mm512_srai_epi64((x), (n))
INLINE V sllv(V x, V s)
{
	return _mm512_sllv_epi64(x, s);
}
INLINE V srlv(V x, V s) { return _mm512_srlv_epi64(x, s); }
INLINE V srav(V x, V s) { return _mm512_srav_epi64(x, s); }
INLINE V min_(V a, V b) { return _mm512_min_epi64(a, b); }
INLINE V max_(V a, V b) { return _mm512_max_epi64(a, b); }
INLINE V abs_(V x) { return _mm512_abs_epi64(x); }
INLINE M gt(V a, V b) { return _mm512_cmpgt_epi64_mask(a, b); }
INLINE M eq(V a, V b) { return _mm512_cmpeq_epi64_mask(a, b); }
INLINE M ugt(V a, V b) { return _mm512_cmpgt_epu64_mask(a, b); }
INLINE V sel(M m, V a, V b) { return _mm512_mask_blend_epi64(m, b, a); }
INLINE V maskz(M m, V x) { return _mm512_maskz_mov_epi64(m, x); }
INLINE M m_and(M a, M b) { return a & b; }
INLINE M m_or(M a, M b) { return a | b; }
INLINE M m_andnot(M a, M b) { return (M)(~a & b); }
INLINE M m_not(M a) { return (M)~a; }
INLINE bool m_any(M a) { return a != 0; }
INLINE uint32_t m_bits(M a) { return a; }
INLINE uint32_t m_count(M a) { return (uint32_t)__builtin_popcount(a); }
INLINE M m_all(void) { return (M)0xFF; }
INLINE M m_none(void) { return 0; }
INLINE M m_from_bits(uint32_t b) { return (M)b; }
INLINE V bitlen(V x) { return sub(splat(64), _mm512_lzcnt_epi64(x)); }
INLINE V bitlen32(V x) { return bitlen(x); }
#define FXS_VEC_CHEAP_BITLEN 1 /* bitlen is one instruction (lanes.h) */
INLINE V mullo(V a, V b)
{
	return _mm512_mullo_epi64(a, b);
}

typedef struct shifter {
	V s, bias;
} shifter;
INLINE shifter shifter_of(V s)
{
	shifter h = { s, _mm512_srli_epi64(_mm512_sllv_epi64(splat(1), s), 1) };
	return h;
}
INLINE V shr_by(V x, const shifter *h) { return _mm512_srav_epi64(add(x, h->bias), h->s); }

INLINE shifter shifter_sel(M m, shifter a, shifter b)
{
	shifter h = { sel(m, a.s, b.s), sel(m, a.bias, b.bias) };
	return h;
}

/* Eight rows: four loads of two rows, two rounds of unpacks and a swap of
 * 128-bit blocks. On the Xeons this was first measured on, a gather of
 * eight int32 cost about 25 cycles (9 ns, data in L1); these loads and
 * shuffles replace eight of them. */
INLINE __m512i rows_pair(const char *lo, const char *hi)
{
	return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)lo)),
				  _mm256_loadu_si256((const __m256i *)(const void *)hi), 1);
}

INLINE void rows_to_lanes(const char *const row[8], V out[8])
{
	/* A holds rows 0 and 4, B 1 and 5, C 2 and 6, D 3 and 7 */
	const __m512i A = rows_pair(row[0], row[4]), B = rows_pair(row[1], row[5]), C = rows_pair(row[2], row[6]),
		      D = rows_pair(row[3], row[7]);
	const __m512i ab0 = _mm512_unpacklo_epi32(A, B), ab1 = _mm512_unpackhi_epi32(A, B);
	const __m512i cd0 = _mm512_unpacklo_epi32(C, D), cd1 = _mm512_unpackhi_epi32(C, D);
	/* X[j]'s 128-bit blocks: int32 j of rows 0-3, int32 j + 4 of rows 0-3,
	 * int32 j of rows 4-7, int32 j + 4 of rows 4-7 */
	const __m512i X[4] = { _mm512_unpacklo_epi64(ab0, cd0), _mm512_unpackhi_epi64(ab0, cd0),
			       _mm512_unpacklo_epi64(ab1, cd1), _mm512_unpackhi_epi64(ab1, cd1) };
#pragma GCC unroll 8
	for (int j = 0; j < 4; ++j) {
		const __m512i y = _mm512_shuffle_i64x2(X[j], X[j], _MM_SHUFFLE(3, 1, 2, 0));
		out[j] = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(y));
		out[j + 4] = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(y, 1));
	}
}

/* Replaces six scatters (about 9 cycles each where gathers cost 25). */
INLINE void lanes_to_rows6(const V in[6], char *const row[8])
{
	__m256i c[8];
#pragma GCC unroll 8
	for (int k = 0; k < 6; ++k)
		c[k] = _mm512_cvtepi64_epi32(in[k]);
	c[6] = c[2], c[7] = c[3]; /* not stored */
	__m512i X[4];
#pragma GCC unroll 8
	for (int j = 0; j < 4; ++j) {
		/* int32 j and j + 4 of every row, then in rows_to_lanes' X layout */
		const __m512i p = _mm512_inserti64x4(_mm512_castsi256_si512(c[j]), c[j + 4], 1);
		X[j] = _mm512_shuffle_i64x2(p, p, _MM_SHUFFLE(3, 1, 2, 0));
	}
	const __m512i ab0 = _mm512_unpacklo_epi64(X[0], X[1]), cd0 = _mm512_unpackhi_epi64(X[0], X[1]);
	const __m512i ab1 = _mm512_unpacklo_epi64(X[2], X[3]), cd1 = _mm512_unpackhi_epi64(X[2], X[3]);
	const __m512i t0 = _mm512_unpacklo_epi32(ab0, ab1), t1 = _mm512_unpackhi_epi32(ab0, ab1);
	const __m512i u0 = _mm512_unpacklo_epi32(cd0, cd1), u1 = _mm512_unpackhi_epi32(cd0, cd1);
	/* rows 0 and 4, 1 and 5, 2 and 6, 3 and 7 */
	const __m512i R[4] = { _mm512_unpacklo_epi32(t0, t1), _mm512_unpackhi_epi32(t0, t1), _mm512_unpacklo_epi32(u0, u1),
			       _mm512_unpackhi_epi32(u0, u1) };
	const __mmask8 six = 0x3F;
#pragma GCC unroll 8
	for (int j = 0; j < 4; ++j) {
		_mm256_mask_storeu_epi32((void *)row[j], six, _mm512_castsi512_si256(R[j]));
		_mm256_mask_storeu_epi32((void *)row[j + 4], six, _mm512_extracti64x4_epi64(R[j], 1));
	}
}

/* the guard keeps the extremes of the values noted (lanes_common.h) */
#define FXS_VEC_GUARD_EXTREMES 1
INLINE V max_where(V acc, M live, V x)
{
	return _mm512_mask_max_epi64(acc, live, acc, x);
}
INLINE V min_where(V acc, M live, V x) { return _mm512_mask_min_epi64(acc, live, acc, x); }

#include "simd/lanes_common.h"

#else
#define FXS_VEC_BUILD 0
#endif

#endif
