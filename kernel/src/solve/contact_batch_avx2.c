/* The contact solver's vector kernels: AVX2, four int64 lanes, one contact
 * per lane (contact_batch.h). Integer instructions only (`make nofloat`
 * disassembles this file and fails on any floating-point instruction).
 *
 * The formulas are contact_batch.c's, lane for lane, so the bits are the
 * same; only how they are computed differs:
 *  - products are vpmuldq (signed 32 x 32 -> 64): every factor is an int32
 *    (or a sign-extended int32 in its lane); where the portable kernel
 *    multiplies a difference of two int32 it is split into two products;
 *  - AVX2 has no 64-bit arithmetic right shift: x >> s is computed as
 *    ((x + 2^62) >>> s) - 2^(62 - s), exact for |x| < 2^62 (the bounds of
 *    contact_batch.h keep every shifted value below 2^62);
 *  - branches become selects; a lane's saturations are counted only where
 *    the portable kernel would have made the same computation (real points
 *    of real lanes; the twist where it runs), so the overflow count, which
 *    is state, is the same too.
 * Body velocities are read per batch (each body's first bytes loaded and
 * transposed: cheaper here than gathers), kept in registers for its seven
 * rows, and stored back lane by lane. */
#include "solve/contact_batch.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__AVX2__) && !defined(FXS_NO_AVX2)
#include <immintrin.h>
#include <string.h>

typedef __m256i V;

#define OFF62 ((int64_t)1 << 62)

static inline __attribute__((always_inline)) V splat(int64_t x)
{
	return _mm256_set1_epi64x(x);
}
static inline __attribute__((always_inline)) V zero(void) { return _mm256_setzero_si256(); }
/* four int32 sign-extended to int64 lanes */
static inline __attribute__((always_inline)) V ld32_(const int32_t *p) { return _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(const void *)p)); }
static inline __attribute__((always_inline)) V ld64_(const int64_t *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }
static inline __attribute__((always_inline)) void st64_(int64_t *p, V v) { _mm256_storeu_si256((__m256i *)(void *)p, v); }
static inline __attribute__((always_inline)) V ld8_(const uint8_t *p)
{
	int32_t x;
	memcpy(&x, p, 4);
	return _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(x));
}
/* Loads and stores of batch fields, at lane offset h: a batch has
 * FXS_LANES lanes, this kernel takes them four at a time (every function
 * that touches batch fields has a parameter or local h) */
#define ld32(p) ld32_((p) + h)
#define ld64(p) ld64_((p) + h)
#define st64(p, v) st64_((p) + h, (v))
#define ld8(p) ld8_((p) + h)

static inline __attribute__((always_inline)) V mul(V a, V b)
{
	return _mm256_mul_epi32(a, b);
}
static inline __attribute__((always_inline)) V gt(V a, V b) { return _mm256_cmpgt_epi64(a, b); }
static inline __attribute__((always_inline)) V sel(V mask, V a, V b) { return _mm256_blendv_epi8(b, a, mask); } /* mask ? a : b */
static inline __attribute__((always_inline)) V and_(V a, V b) { return _mm256_and_si256(a, b); }
static inline __attribute__((always_inline)) V or_(V a, V b) { return _mm256_or_si256(a, b); }
static inline __attribute__((always_inline)) V andnot(V a, V b) { return _mm256_andnot_si256(a, b); } /* ~a & b */

/* fxg_shr_round(x, 16): (x + 2^15 - (x < 0)) >> 16, for |x| < 2^62 - 2^15 */
static inline __attribute__((always_inline)) V shr_round16(V x)
{
	V t = _mm256_add_epi64(_mm256_add_epi64(x, splat(0x8000 + OFF62)), gt(zero(), x));
	return _mm256_sub_epi64(_mm256_srli_epi64(t, 16), splat(OFF62 >> 16));
}

/* a shift group: for x >> s rounded half up, x + bias then >>> s, minus corr */
typedef struct shifter {
	V s, bias, corr;
} shifter;

static inline __attribute__((always_inline)) shifter shifter_of(const uint8_t *s8, int h)
{
	shifter r;
	r.s = ld8(s8);
	r.bias = _mm256_add_epi64(_mm256_sllv_epi64(splat(1), _mm256_sub_epi64(r.s, splat(1))), splat(OFF62));
	r.corr = _mm256_srlv_epi64(splat(OFF62), r.s);
	return r;
}

/* smul: (m y + 2^(s-1)) >> s, |m y| <= 2^61 */
static inline __attribute__((always_inline)) V smul_v(V m, V y, const shifter *h)
{
	return _mm256_sub_epi64(_mm256_srlv_epi64(_mm256_add_epi64(mul(m, y), h->bias), h->s), h->corr);
}

/* nonzero where a lane of x is outside int32 (x + 2^31 needs more than 32 bits) */
static inline __attribute__((always_inline)) V out32(V x) { return _mm256_srli_epi64(_mm256_add_epi64(x, splat((int64_t)1 << 31)), 32); }

static inline __attribute__((always_inline)) bool any(V x) { return !_mm256_testz_si256(x, x); }

/* x saturated to int32 in its lane; saturations in `count` where `live` */
static inline __attribute__((always_inline)) V sat32_slow(V x, V live, V *count)
{
	V hi = gt(x, splat(INT32_MAX)), lo = gt(splat(INT32_MIN), x);
	*count = _mm256_sub_epi64(*count, and_(or_(hi, lo), live));
	return sel(hi, splat(INT32_MAX), sel(lo, splat(INT32_MIN), x));
}

/* the same, with the blends only when a lane is out of range */
static inline __attribute__((always_inline)) V sat32(V x, V live, V *count)
{
	if (__builtin_expect(any(out32(x)), 0))
		return sat32_slow(x, live, count);
	return x;
}

/* impulse32: saturated, counted, and kept off INT32_MIN */
static inline __attribute__((always_inline)) V imp32(V x, V live, V *count)
{
	if (__builtin_expect(!any(or_(out32(x), _mm256_cmpeq_epi64(x, splat(INT32_MIN)))), 1))
		return x; /* in [INT32_MIN + 1, INT32_MAX]: nothing to do */
	V hi = gt(x, splat(INT32_MAX)), lo = gt(splat(INT32_MIN), x);
	*count = _mm256_sub_epi64(*count, and_(or_(hi, lo), live));
	return sel(hi, splat(INT32_MAX), sel(gt(splat(-INT32_MAX), x), splat(-INT32_MAX), x));
}

/* mul_q16 (contact_batch.c): (x f + 2^15) >> 16 for 0 <= x < 2^47, 0 <= f < 2^31 */
static inline __attribute__((always_inline)) V mul_q16_v(V x, V f)
{
	V hi = mul(_mm256_srli_epi64(x, 16), f);
	V lo = _mm256_srli_epi64(_mm256_add_epi64(mul(and_(x, splat(0xFFFF)), f), splat(0x8000)), 16);
	return _mm256_add_epi64(hi, lo);
}

/* mul_q16w (contact_batch.c): (x f + 2^15) >> 16 for |x| < 2^51, 0 <= f <= 2^16;
 * x >> 20 arithmetic as ((x + 2^62) >>> 20) - 2^42 */
static inline __attribute__((always_inline)) V mul_q16w_v(V x, V f)
{
	V top = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_add_epi64(x, splat(OFF62)), 20), splat(OFF62 >> 20));
	V hi = _mm256_slli_epi64(mul(top, f), 4);
	V lo = _mm256_srli_epi64(_mm256_add_epi64(mul(and_(x, splat(0xFFFFF)), f), splat(0x8000)), 16);
	return _mm256_add_epi64(hi, lo);
}

typedef struct v3 {
	V x, y, z;
} v3;

/* v += m p >> s per component, then saturated (counted) as add3 does; the
 * saturation only when a lane left int32 (one test for the three) */
static inline __attribute__((always_inline)) void sadd3_v(v3 *v, const int32_t m[3][FXS_LANES], const shifter *hs, V p, V *count, int h)
{
	V x = _mm256_add_epi64(v->x, smul_v(ld32(m[0]), p, hs));
	V y = _mm256_add_epi64(v->y, smul_v(ld32(m[1]), p, hs));
	V z = _mm256_add_epi64(v->z, smul_v(ld32(m[2]), p, hs));
	if (__builtin_expect(any(or_(or_(out32(x), out32(y)), out32(z))), 0)) {
		V all = splat(-1);
		x = sat32(x, all, count), y = sat32(y, all, count), z = sat32(z, all, count);
	}
	v->x = x, v->y = y, v->z = z;
}

/* a per-lane vector field (a macro: C17 will not pass a non-const array of
 * arrays as const) */
#define ld3(m) ((v3){ ld32((m)[0]), ld32((m)[1]), ld32((m)[2]) })

static inline __attribute__((always_inline)) V dot3(v3 a, v3 b)
{
	return _mm256_add_epi64(_mm256_add_epi64(mul(a.x, b.x), mul(a.y, b.y)), mul(a.z, b.z));
}

/* the bodies' state, four lanes: v, w (and dp, dtheta for the solve) */
typedef struct bodies4 {
	const char *pa[4], *pb[4]; /* the bodies */
	v3 va, wa, vb, wb;
} bodies4;

/* Four 32-byte rows (a body's fields, one body per lane) turned into eight
 * vectors, vector k holding each row's int32 k, sign-extended: loads and
 * two rounds of unpacks instead of gathers, which cost about 25 cycles
 * each on the Xeons measured (simd512.h's rows_to_lanes, four lanes). */
static inline __attribute__((always_inline)) void rows4_to_lanes(const char *const row[4], V out[8])
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
	for (int j = 0; j < 4; ++j) {
		out[j] = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(X[j]));
		out[j + 4] = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(X[j], 1));
	}
}

_Static_assert(offsetof(solver_body, v) == 0 && offsetof(solver_body, w) == 12 && offsetof(solver_body, dp) == 24 &&
		       offsetof(solver_body, dtheta) == 36,
	       "rows4_to_lanes reads a solver body's v, w, dp and dtheta as 12 consecutive int32");

/* lanes h..h+3's bodies, their velocities; a[6], a[7] (b[6], b[7]) are dp.x, dp.y */
static inline __attribute__((always_inline)) void load_bodies(const solver_ctx *c, const contact_batch *bt, bodies4 *s,
							      int h, V a[8], V b[8])
{
	const char *base = (const char *)(const void *)c->bodies;
	for (int l = 0; l < 4; ++l)
		s->pa[l] = base + (size_t)bt->a[h + l] * sizeof(solver_body), s->pb[l] = base + (size_t)bt->b[h + l] * sizeof(solver_body);
	rows4_to_lanes(s->pa, a);
	rows4_to_lanes(s->pb, b);
	s->va = (v3){ a[0], a[1], a[2] }, s->wa = (v3){ a[3], a[4], a[5] };
	s->vb = (v3){ b[0], b[1], b[2] }, s->wb = (v3){ b[3], b[4], b[5] };
}

static inline __attribute__((always_inline)) void put3(fxg_vec3 *dst, const int64_t x[4], const int64_t y[4], const int64_t z[4], int l)
{
	dst->x = (int32_t)x[l], dst->y = (int32_t)y[l], dst->z = (int32_t)z[l];
}

/* Scatter back. Lanes sharing a body share only a read-only one (static,
 * kinematic, asleep, or the spare), whose values did not change: the order
 * of the writes does not matter. */
static inline __attribute__((always_inline)) void scatter(solver_ctx *c, const contact_batch *bt, const bodies4 *s, int h)
{
	int64_t t[12][4];
	const V *src[12] = { &s->va.x, &s->va.y, &s->va.z, &s->wa.x, &s->wa.y, &s->wa.z,
			     &s->vb.x, &s->vb.y, &s->vb.z, &s->wb.x, &s->wb.y, &s->wb.z };
	for (int i = 0; i < 12; ++i)
		st64_(t[i], *src[i]);
	for (int l = 0; l < 4; ++l) {
		solver_body *A = &c->bodies[bt->a[h + l]], *B = &c->bodies[bt->b[h + l]];
		put3(&A->v, t[0], t[1], t[2], l);
		put3(&A->w, t[3], t[4], t[5], l);
		put3(&B->v, t[6], t[7], t[8], l);
		put3(&B->w, t[9], t[10], t[11], l);
	}
}

/* the linear response to a unit impulse along d[dir], component j:
 * lane_linear (contact_batch.h), (im d_j + 2^15) >> 16, |im d_j| < 2^47 */
static inline __attribute__((always_inline)) V linear_v(V im, V d)
{
	return _mm256_sub_epi64(_mm256_srli_epi64(_mm256_add_epi64(mul(im, d), splat(0x8000 + OFF62)), 16), splat(OFF62 >> 16));
}

static inline __attribute__((always_inline)) void slin3_v(v3 *v, V im, const int32_t d[3][FXS_LANES], const shifter *hs,
							  V p, V *count, int h)
{
	V x = _mm256_add_epi64(v->x, smul_v(linear_v(im, ld32(d[0])), p, hs));
	V y = _mm256_add_epi64(v->y, smul_v(linear_v(im, ld32(d[1])), p, hs));
	V z = _mm256_add_epi64(v->z, smul_v(linear_v(im, ld32(d[2])), p, hs));
	if (__builtin_expect(any(or_(or_(out32(x), out32(y)), out32(z))), 0)) {
		V all = splat(-1);
		x = sat32(x, all, count), y = sat32(y, all, count), z = sat32(z, all, count);
	}
	v->x = x, v->y = y, v->z = z;
}

/* an impulse p along direction dir through a row's angular responses ia,
 * ib (shifts sa, sb): both bodies */
#define apply_v(s, bt, dir, r, p, count, h) apply_v_((s), (bt), (dir), (r)->ia, (r)->ib, (r)->sa, (r)->sb, (p), (count), (h))
static inline __attribute__((always_inline)) void apply_v_(bodies4 *s, const contact_batch *bt, int dir,
							   const int32_t ia[3][FXS_LANES], const int32_t ib[3][FXS_LANES],
							   const uint8_t *sa, const uint8_t *sb, V p, V *count, int h)
{
	/* the shifts are rebuilt from their bytes at each use: cheaper than
	 * keeping them live across the velocity chain */
	shifter hla = shifter_of(bt->sla, h), hlb = shifter_of(bt->slb, h);
	shifter ha = shifter_of(sa, h), hb = shifter_of(sb, h);
	slin3_v(&s->va, ld32(bt->ima), bt->d[dir], &hla, p, count, h);
	sadd3_v(&s->wa, ia, &ha, p, count, h);
	slin3_v(&s->vb, ld32(bt->imb), bt->d[dir], &hlb, p, count, h);
	sadd3_v(&s->wb, ib, &hb, p, count, h);
}

static inline __attribute__((always_inline)) V horizontal_sum(V v)
{
	int64_t t[4];
	st64_(t, v);
	return splat(t[0] + t[1] + t[2] + t[3]);
}

static inline __attribute__((always_inline)) uint32_t count_of(V v)
{
	int64_t t[4];
	st64_(t, horizontal_sum(v));
	return (uint32_t)t[0];
}

uint32_t fxs_batches_warm_start_avx2(solver_ctx *c, uint32_t first, uint32_t end)
{
	V count = zero();
	for (uint32_t i = first; i < end; ++i) {
		const contact_batch *bt = &c->batches[i];
		fxs_batches_prefetch(c, i, end, true);
		for (int h = 0; h < FXS_LANES; h += 4) {
			bodies4 s;
			V a[8], b[8];
			load_bodies(c, bt, &s, h, a, b);
			V n = ld32(bt->count);
			for (int k = 0; k < 4; ++k) {
				V live = gt(n, splat(k));
				apply_v(&s, bt, 0, &bt->n[k], imp32(ld64(bt->impulse[k]), live, &count), &count, h);
			}
			V all = splat(-1);
			for (int t = 0; t < 2; ++t)
				apply_v(&s, bt, 1 + t, &bt->t[t], imp32(ld64(bt->ti[t]), all, &count), &count, h);
			shifter ha = shifter_of(bt->tw.sa, h), hb = shifter_of(bt->tw.sb, h);
			V p = imp32(ld64(bt->twi), all, &count);
			sadd3_v(&s.wa, bt->tw.ia, &ha, p, &count, h);
			sadd3_v(&s.wb, bt->tw.ib, &hb, p, &count, h);
			scatter(c, bt, &s, h);
		}
	}
	return count_of(count);
}

/* what a normal row needs that does not depend on the velocities, made
 * before the velocity chain starts (fewer live registers in it) */
typedef struct point_pre {
	V bias, mass, q; /* q: the soft impulse's relaxation, impulse_scale times the impulse */
	V sep;           /* the current separation (restitution's, at a first push) */
	shifter hm;
} point_pre;

uint32_t fxs_batches_solve_avx2(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias)
{
	V count = zero();
	const V inv_h = splat(c->inv_h), push_min = splat(-(int64_t)c->push_max);
	const V soft_on = splat(use_bias ? -1 : 0);
	const V all = splat(-1);
	for (uint32_t i = first; i < end; ++i) {
		contact_batch *bt = &c->batches[i];
		fxs_batches_prefetch(c, i, end, false);
		for (int h = 0; h < FXS_LANES; h += 4) {
			bodies4 s;
			const V npts = ld32(bt->count);
			const v3 n = ld3(bt->d[0]);
			point_pre pre[4];
			{
				/* v, w, dp.x, dp.y; then dp.z, dtheta, ... */
				V a0[8], b0[8], a1[8], b1[8];
				load_bodies(c, bt, &s, h, a0, b0);
				const char *ra[4], *rb[4];
				for (int l = 0; l < 4; ++l)
					ra[l] = s.pa[l] + 32, rb[l] = s.pb[l] + 32;
				rows4_to_lanes(ra, a1);
				rows4_to_lanes(rb, b1);
				/* n . (dpB - dpA), as two dot products (no int32 difference) */
				const V ndp = _mm256_sub_epi64(dot3(n, (v3){ b0[6], b0[7], b1[0] }), dot3(n, (v3){ a0[6], a0[7], a1[0] }));
				const v3 ta = { a1[1], a1[2], a1[3] }, tb = { b1[1], b1[2], b1[3] };
				const V bias_rate = ld32(bt->bias_rate), iscale = ld32(bt->impulse_scale);
				for (int k2 = 0; k2 < 4; ++k2) {
					const lane_row *r = &bt->n[k2];
					const V live = gt(npts, splat(k2));
					V ds = _mm256_sub_epi64(_mm256_add_epi64(ndp, dot3(tb, ld3(r->rxb))), dot3(ta, ld3(r->rxa)));
					V sep = sat32(_mm256_add_epi64(ld32(bt->separation[k2]), shr_round16(ds)), live, &count);
					V spec = gt(sep, zero());
					V is_soft = andnot(spec, soft_on); /* not speculative, and the biased pass */
					/* speculative: (s inv_h) >> 16 with s > 0 */
					V bias_spec = _mm256_srli_epi64(mul(sep, inv_h), 16);
					V bs = sat32(shr_round16(mul(bias_rate, sep)), and_(is_soft, live), &count);
					bs = sel(gt(push_min, bs), push_min, bs);
					point_pre *pp = &pre[k2];
					pp->sep = sep;
					pp->bias = sel(spec, bias_spec, and_(is_soft, bs));
					pp->mass = sel(is_soft, ld32(r->soft_mass), ld32(r->mass));
					shifter hm = shifter_of(r->sm, h), hs = shifter_of(r->ss, h);
					pp->hm.s = sel(is_soft, hs.s, hm.s), pp->hm.bias = sel(is_soft, hs.bias, hm.bias);
					pp->hm.corr = sel(is_soft, hs.corr, hm.corr);
					pp->q = mul_q16_v(ld64(bt->impulse[k2]), and_(is_soft, iscale));
				}
			}
			V total = zero(), moment = zero(), pushed = ld32(bt->pushed);
			for (int k = 0; k < 4; ++k) {
				const lane_row *r = &bt->n[k];
				const point_pre *pp = &pre[k];
				const V live = gt(npts, splat(k));
				const v3 rxa = ld3(r->rxa), rxb = ld3(r->rxb);
				V vn = _mm256_add_epi64(_mm256_sub_epi64(dot3(n, s.vb), dot3(n, s.va)),
							_mm256_sub_epi64(dot3(s.wb, rxb), dot3(s.wa, rxa)));
				vn = sat32(shr_round16(vn), live, &count);
				V y = sat32(_mm256_add_epi64(vn, pp->bias), live, &count);
				V old = ld64(bt->impulse[k]);
				V nw = _mm256_sub_epi64(_mm256_sub_epi64(old, smul_v(pp->mass, y, &pp->hm)), pp->q);
				V over = gt(nw, splat(FXS_NORMAL_IMPULSE_MAX));
				count = _mm256_sub_epi64(count, and_(over, live));
				nw = sel(over, splat(FXS_NORMAL_IMPULSE_MAX), nw);
				nw = andnot(gt(zero(), nw), nw);
				V delta = _mm256_sub_epi64(nw, old);
				st64(bt->impulse[k], nw);
				const V bit = splat(1 << k), push = gt(delta, zero());
				/* a first push: the speed it meets is restitution's */
				const V fresh = and_(_mm256_cmpeq_epi64(and_(pushed, bit), zero()), push);
				if (__builtin_expect(any(fresh), 0)) {
					const __m256i lo = _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0);
					V rv = sel(fresh, vn, ld32(bt->relative_velocity[k]));
					V sp = sel(fresh, pp->sep, ld32(bt->impact_separation[k]));
					_mm_storeu_si128((__m128i *)(void *)(bt->relative_velocity[k] + h),
							 _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(rv, lo)));
					_mm_storeu_si128((__m128i *)(void *)(bt->impact_separation[k] + h),
							 _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(sp, lo)));
				}
				pushed = or_(pushed, and_(push, bit));
				apply_v(&s, bt, 0, r, imp32(delta, live, &count), &count, h);
				total = _mm256_add_epi64(total, nw);
				moment = _mm256_add_epi64(moment, mul_q16_v(nw, ld32(bt->lever[k])));
			}
			/* the four lanes' low halves back as int32 */
			_mm_storeu_si128((__m128i *)(void *)(bt->pushed + h),
					 _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(pushed, _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0))));
			const V mu = ld32(bt->friction);
			const V lim = mul_q16_v(total, mu), nlim = _mm256_sub_epi64(zero(), lim);
			for (int t = 0; t < 2; ++t) {
				const lane_frow *r = &bt->t[t];
				const v3 d = ld3(bt->d[1 + t]), rxa = ld3(r->rxa), rxb = ld3(r->rxb);
				V vt = _mm256_add_epi64(_mm256_sub_epi64(dot3(d, s.vb), dot3(d, s.va)),
							_mm256_sub_epi64(dot3(s.wb, rxb), dot3(s.wa, rxa)));
				vt = sat32(shr_round16(vt), all, &count);
				V old = ld64(bt->ti[t]);
				V nw;
				if (use_bias) { /* soft, pulled by the anchor's error */
					V b = sat32(shr_round16(mul(ld32(bt->bias_rate), ld32(bt->slip[t]))), all, &count);
					V y = sat32(_mm256_add_epi64(vt, b), all, &count);
					shifter hs = shifter_of(r->ss, h);
					nw = _mm256_sub_epi64(_mm256_sub_epi64(old, smul_v(ld32(r->soft_mass), y, &hs)),
							      mul_q16w_v(old, ld32(bt->impulse_scale)));
				} else {
					shifter hm = shifter_of(r->sm, h);
					nw = _mm256_sub_epi64(old, smul_v(ld32(r->mass), vt, &hm));
				}
				nw = sel(gt(nlim, nw), nlim, sel(gt(nw, lim), lim, nw));
				st64(bt->ti[t], nw);
				apply_v(&s, bt, 1 + t, r, imp32(_mm256_sub_epi64(nw, old), all, &count), &count, h);
			}
			/* the twist, where the portable kernel runs it: tlim or the impulse nonzero */
			const lane_trow *r = &bt->tw;
			const V tlim = mul_q16_v(moment, mu), ntlim = _mm256_sub_epi64(zero(), tlim);
			const V old = ld64(bt->twi);
			const V runs = or_(_mm256_xor_si256(_mm256_cmpeq_epi64(tlim, zero()), all),
					   _mm256_xor_si256(_mm256_cmpeq_epi64(old, zero()), all));
			V wn = _mm256_sub_epi64(dot3(s.wb, n), dot3(s.wa, n)); /* the twist's Jacobians are the normal */
			wn = sat32(shr_round16(wn), runs, &count);
			shifter hm = shifter_of(r->sm, h);
			V nw = _mm256_sub_epi64(old, smul_v(ld32(r->mass), wn, &hm));
			nw = sel(gt(ntlim, nw), ntlim, sel(gt(nw, tlim), tlim, nw));
			st64(bt->twi, nw);
			V p = imp32(_mm256_sub_epi64(nw, old), all, &count);
			shifter ha = shifter_of(r->sa, h), hb = shifter_of(r->sb, h);
			sadd3_v(&s.wa, r->ia, &ha, p, &count, h);
			sadd3_v(&s.wb, r->ib, &hb, p, &count, h);
			scatter(c, bt, &s, h);
		}
	}
	return count_of(count);
}

bool fxs_batches_have_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

#else

/* no AVX2 here: the portable kernel does everything */
bool fxs_batches_have_avx2(void) { return false; }

uint32_t fxs_batches_warm_start_avx2(solver_ctx *c, uint32_t first, uint32_t end)
{
	(void)c, (void)first, (void)end;
	return 0;
}

uint32_t fxs_batches_solve_avx2(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias)
{
	(void)c, (void)first, (void)end, (void)use_bias;
	return 0;
}

#endif
