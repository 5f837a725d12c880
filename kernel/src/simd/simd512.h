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

INLINE V splat(int64_t x)
{
	return _mm512_set1_epi64(x);
}
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

/* ---- rows to lanes ----
 * Eight 32-byte rows (a body's fields, one body per lane) turned into eight
 * vectors, vector k holding each row's int32 k, sign-extended: four loads
 * of two rows, two rounds of unpacks and a swap of 128-bit blocks. On the
 * Xeons this runs on, a gather of eight int32 costs about 25 cycles (9 ns
 * measured, data in L1); these loads and shuffles replace eight of them. */
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
	for (int j = 0; j < 4; ++j) {
		const __m512i y = _mm512_shuffle_i64x2(X[j], X[j], _MM_SHUFFLE(3, 1, 2, 0));
		out[j] = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(y));
		out[j + 4] = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(y, 1));
	}
}

/* The inverse for six vectors: lane l of out[k] (its low 32 bits) to int32
 * k of row l, for k < 6; the rows' other bytes are not written. Replaces
 * six scatters (about 9 cycles each where gathers cost 25). */
INLINE void lanes_to_rows(const V out[6], char *const row[8])
{
	__m256i c[8];
	for (int k = 0; k < 6; ++k)
		c[k] = _mm512_cvtepi64_epi32(out[k]);
	c[6] = c[2], c[7] = c[3]; /* not stored */
	__m512i X[4];
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
	for (int j = 0; j < 4; ++j) {
		_mm256_mask_storeu_epi32((void *)row[j], six, _mm512_castsi512_si256(R[j]));
		_mm256_mask_storeu_epi32((void *)row[j + 4], six, _mm512_extracti64x4_epi64(R[j], 1));
	}
}

/* The two bodies of each of eight lanes (a constraint per lane) and their
 * velocities, as the contact and ball-joint kernels keep them: read from
 * and stored to the bodies' first 24 bytes (v, w). */
typedef struct bodies8 {
	char *pa[8], *pb[8];
	v3 va, wa, vb, wb;
} bodies8;

/* the velocities of the bodies at pa, pb; a and b get the rows' eight
 * int32 (after v and w, the next two) */
INLINE void bodies_load(bodies8 *s, V a[8], V b[8])
{
	rows_to_lanes((const char *const *)s->pa, a);
	rows_to_lanes((const char *const *)s->pb, b);
	s->va = (v3){ a[0], a[1], a[2] }, s->wa = (v3){ a[3], a[4], a[5] };
	s->vb = (v3){ b[0], b[1], b[2] }, s->wb = (v3){ b[3], b[4], b[5] };
}

/* Store back. Lanes sharing a body share only a read-only one (static,
 * kinematic, asleep, or the spare), whose values did not change. */
INLINE void bodies_store(const bodies8 *s)
{
	const V a[6] = { s->va.x, s->va.y, s->va.z, s->wa.x, s->wa.y, s->wa.z };
	const V b[6] = { s->vb.x, s->vb.y, s->vb.z, s->wb.x, s->wb.y, s->wb.z };
	lanes_to_rows(a, s->pa);
	lanes_to_rows(b, s->pb);
}

/* ---- the fast path's guard ----
 * A kernel runs a batch first on a fast path that clamps nothing: it notes
 * the range of every value the portable code saturates, and writes nothing
 * back until it knows them all in range. If one left its bound, the batch
 * runs again on the exact path, which clamps and counts as the portable
 * code does, from the same state. In range every clamp is the identity, so
 * both paths give the same bits; the fast path spends two instructions on a
 * value where the exact one spends a clamp, a test and a count. */
typedef struct guard {
	V hi, lo;   /* the extremes of the values bounded to int32, checked against
		     * imp32's -INT32_MAX (INT32_MIN itself only costs a rerun) */
	V hi2, lo2; /* of the values with the kernel's own, wider bound */
} guard;

INLINE guard guard_new(void)
{
	guard g = { zero(), zero(), zero(), zero() };
	return g;
}

/* every value noted in range: int32's, and [-bound2, bound2] */
INLINE bool guard_ok(const guard *g, int64_t bound2)
{
	return (gt(g->hi, splat(INT32_MAX)) | gt(splat(-INT32_MAX), g->lo) | gt(g->hi2, splat(bound2)) |
		gt(splat(-bound2), g->lo2)) == 0;
}

INLINE void note(guard *g, V x, M live)
{
	g->hi = _mm512_mask_max_epi64(g->hi, live, g->hi, x);
	g->lo = _mm512_mask_min_epi64(g->lo, live, g->lo, x);
}

INLINE void note_wide(guard *g, V x, M live)
{
	g->hi2 = _mm512_mask_max_epi64(g->hi2, live, g->hi2, x);
	g->lo2 = _mm512_mask_min_epi64(g->lo2, live, g->lo2, x);
}

/* sat32 and imp32 on the exact path; x, its range noted, on the fast one
 * (lanes outside `live` are ones whose result is discarded) */
INLINE V sat32g(V x, M live, guard *g, bool exact, uint32_t *count)
{
	if (exact)
		return sat32(x, live, count);
	note(g, x, live);
	return x;
}

INLINE V imp32g(V x, M live, guard *g, bool exact, uint32_t *count)
{
	if (exact)
		return imp32(x, live, count);
	note(g, x, live);
	return x;
}

#endif

#endif
