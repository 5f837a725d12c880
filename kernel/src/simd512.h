/* The AVX-512 (F, VL, DQ, CD) primitives the solver's vector kernels share
 * (contact_batch_avx512.c, joint_batch_avx512.c): eight int64 lanes, each
 * holding a value the portable code holds in an int32 or int64. Integer
 * instructions only; `make nofloat` disassembles the objects that use them.
 *
 * FXS_AVX512_BUILD is 1 where the compiler targets those extensions (the
 * Makefile's AVX512_CFLAGS); everything else here exists only then. */
#ifndef FXS_SIMD512_H
#define FXS_SIMD512_H

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512DQ__) && \
	defined(__AVX512CD__) && !defined(FXS_NO_AVX2)
#define FXS_AVX512_BUILD 1
#else
#define FXS_AVX512_BUILD 0
#endif

#if FXS_AVX512_BUILD
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define INLINE static inline __attribute__((always_inline))

typedef __m512i V;
typedef __mmask8 M;

#define ALL_LANES ((M)0xFF)

INLINE V splat(int64_t x) { return _mm512_set1_epi64(x); }
INLINE V zero(void) { return _mm512_setzero_si512(); }
INLINE V ld32(const int32_t *p) { return _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(const void *)p)); }
INLINE void st32(int32_t *p, V v) { _mm256_storeu_si256((__m256i *)(void *)p, _mm512_cvtepi64_epi32(v)); }
INLINE V ld64(const int64_t *p) { return _mm512_loadu_si512((const void *)p); }
INLINE void st64(int64_t *p, V v) { _mm512_storeu_si512((void *)p, v); }
INLINE V ld8(const uint8_t *p)
{
	int64_t x;
	memcpy(&x, p, 8);
	return _mm512_cvtepu8_epi64(_mm_cvtsi64_si128(x));
}
INLINE void st8(uint8_t *p, V v) { _mm_storel_epi64((__m128i *)(void *)p, _mm512_cvtepi64_epi8(v)); }
INLINE V add(V a, V b) { return _mm512_add_epi64(a, b); }
INLINE V sub(V a, V b) { return _mm512_sub_epi64(a, b); }
INLINE V mul(V a, V b) { return _mm512_mul_epi32(a, b); } /* the low 32 bits of each, signed: exact */
INLINE M gt(V a, V b) { return _mm512_cmpgt_epi64_mask(a, b); }
INLINE V sel(M m, V a, V b) { return _mm512_mask_blend_epi64(m, b, a); } /* m ? a : b */
INLINE V bitlen(V x) { return sub(splat(64), _mm512_lzcnt_epi64(x)); }
/* shr_half_up(x, s): (x + 2^(s-1)) >> s for s >= 0 (nothing added for s = 0),
 * |x| < 2^63 - 2^(s-1) */
INLINE V shr_half(V x, V s) { return _mm512_srav_epi64(add(x, _mm512_srli_epi64(_mm512_sllv_epi64(splat(1), s), 1)), s); }

/* fxg_shr_round(x, 16): (x + 2^15 - (x < 0)) >> 16 */
INLINE V shr_round16(V x)
{
	V t = add(x, splat(0x8000));
	t = _mm512_mask_sub_epi64(t, _mm512_cmplt_epi64_mask(x, zero()), t, splat(1));
	return _mm512_srai_epi64(t, 16);
}

/* saturations in the lanes of `live`, counted */
INLINE void count_out(V x, V clamped, M live, uint32_t *count)
{
	M out = _mm512_mask_cmpneq_epi64_mask(live, x, clamped);
	if (__builtin_expect(out != 0, 0))
		*count += (uint32_t)__builtin_popcount(out);
}

/* saturated to int32, counted */
INLINE V sat32(V x, M live, uint32_t *count)
{
	V c = _mm512_min_epi64(_mm512_max_epi64(x, splat(INT32_MIN)), splat(INT32_MAX));
	count_out(x, c, live, count);
	return c;
}

/* impulse32 (solver.h): saturated as sat32 and kept off INT32_MIN */
INLINE V imp32(V x, M live, uint32_t *count) { return _mm512_max_epi64(sat32(x, live, count), splat(-INT32_MAX)); }

typedef struct v3 {
	V x, y, z;
} v3;

#define ld3(m) ((v3){ ld32((m)[0]), ld32((m)[1]), ld32((m)[2]) })

#endif

#endif
