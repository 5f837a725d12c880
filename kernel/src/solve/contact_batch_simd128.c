/* The contact solver's vector kernel for WebAssembly SIMD128: two int64
 * lanes, one contact per lane (contact_batch.h). Chosen at build time: it
 * exists when the wasm build is compiled with -msimd128 (`make js`), and
 * every wasm engine that runs such a build has SIMD128. Integer
 * instructions only (`make nofloat` disassembles the wasm build's kernel
 * and fails on any f32 / f64 instruction).
 *
 * The formulas are contact_batch.c's, lane for lane, laid out as the AVX2
 * kernel lays them out (contact_batch_avx2.c says how they carry over), so
 * the bits are the same; where SIMD128 differs from AVX2:
 *  - products are i64x2.mul of sign-extended int32 (every factor is an int32,
 *    as in the AVX2 kernel), which is exact;
 *  - SIMD128 has a 64-bit arithmetic right shift, but only by one count for
 *    both lanes: a per-lane shift (the rows' sm, sa, sb ...) is done lane by
 *    lane in scalar registers;
 *  - branches become bitselects; saturations are counted where the portable
 *    kernel would count them, so the overflow count (state) agrees too. */
#include "solve/contact_batch.h"

#if defined(__wasm_simd128__) && !defined(FXS_NO_SIMD128)
#include <wasm_simd128.h>

typedef v128_t V;

#define INLINE static inline __attribute__((always_inline))

INLINE V splat(int64_t x)
{
	return wasm_i64x2_splat(x);
}
INLINE V zero(void) { return wasm_i64x2_splat(0); }
INLINE V add(V a, V b) { return wasm_i64x2_add(a, b); }
INLINE V sub(V a, V b) { return wasm_i64x2_sub(a, b); }
/* two int32 sign-extended to int64 lanes */
INLINE V ld32_(const int32_t *p) { return wasm_i64x2_load32x2(p); }
INLINE V ld64_(const int64_t *p) { return wasm_v128_load(p); }
INLINE void st64_(int64_t *p, V v) { wasm_v128_store(p, v); }
INLINE V ld8_(const uint8_t *p) { return wasm_i64x2_make(p[0], p[1]); }
/* batch fields at lane offset h (this kernel takes two lanes at a time) */
#define ld32(p) ld32_((p) + h)
#define ld64(p) ld64_((p) + h)
#define st64(p, v) st64_((p) + h, (v))
#define ld8(p) ld8_((p) + h)

INLINE V mul(V a, V b)
{
	return wasm_i64x2_mul(a, b);
}
INLINE V gt(V a, V b) { return wasm_i64x2_gt(a, b); }
INLINE V sel(V mask, V a, V b) { return wasm_v128_bitselect(a, b, mask); } /* mask ? a : b */
INLINE V and_(V a, V b) { return wasm_v128_and(a, b); }
INLINE V or_(V a, V b) { return wasm_v128_or(a, b); }
INLINE V andnot(V a, V b) { return wasm_v128_andnot(b, a); } /* ~a & b */
INLINE bool any(V x) { return wasm_v128_any_true(x); }

/* fxg_shr_round(x, 16): (x + 2^15 - (x < 0)) >> 16 */
INLINE V shr_round16(V x) { return wasm_i64x2_shr(add(add(x, splat(0x8000)), gt(zero(), x)), 16); }

/* a shift group: for x >> s rounded half up, x + bias then >> s per lane */
typedef struct shifter {
	int s0, s1;
	V bias;
} shifter;

INLINE shifter shifter_of(const uint8_t *s8, int h)
{
	shifter r;
	r.s0 = s8[h], r.s1 = s8[h + 1];
	r.bias = wasm_i64x2_make((int64_t)1 << (r.s0 - 1), (int64_t)1 << (r.s1 - 1));
	return r;
}

/* x >> s per lane (arithmetic): one count per lane, so lane by lane in
 * scalar registers (a vector shift takes one count for both lanes) */
INLINE V shr_lanes(V x, const shifter *hs)
{
	return wasm_i64x2_make(wasm_i64x2_extract_lane(x, 0) >> hs->s0, wasm_i64x2_extract_lane(x, 1) >> hs->s1);
}

/* smul: (m y + 2^(s-1)) >> s */
INLINE V smul_v(V m, V y, const shifter *hs) { return shr_lanes(add(mul(m, y), hs->bias), hs); }

/* nonzero where a lane of x is outside int32 */
INLINE V out32(V x) { return wasm_u64x2_shr(add(x, splat((int64_t)1 << 31)), 32); }

INLINE V sat32_slow(V x, V live, V *count)
{
	V hi = gt(x, splat(INT32_MAX)), lo = gt(splat(INT32_MIN), x);
	*count = sub(*count, and_(or_(hi, lo), live));
	return sel(hi, splat(INT32_MAX), sel(lo, splat(INT32_MIN), x));
}

INLINE V sat32(V x, V live, V *count)
{
	if (__builtin_expect(any(out32(x)), 0))
		return sat32_slow(x, live, count);
	return x;
}

/* impulse32: saturated, counted, and kept off INT32_MIN */
INLINE V imp32(V x, V live, V *count)
{
	if (__builtin_expect(!any(or_(out32(x), wasm_i64x2_eq(x, splat(INT32_MIN)))), 1))
		return x;
	V hi = gt(x, splat(INT32_MAX)), lo = gt(splat(INT32_MIN), x);
	*count = sub(*count, and_(or_(hi, lo), live));
	return sel(hi, splat(INT32_MAX), sel(gt(splat(-INT32_MAX), x), splat(-INT32_MAX), x));
}

/* mul_q16 (contact_batch.c): (x f + 2^15) >> 16 for 0 <= x < 2^47, 0 <= f < 2^31 */
INLINE V mul_q16_v(V x, V f)
{
	V hi = mul(wasm_u64x2_shr(x, 16), f);
	V lo = wasm_u64x2_shr(add(mul(and_(x, splat(0xFFFF)), f), splat(0x8000)), 16);
	return add(hi, lo);
}

/* mul_q16w (contact_batch.c): (x >> 20) f 16 + (((x & 0xFFFFF) f + 2^15) >> 16)
 * for |x| < 2^51, 0 <= f <= 2^16 (the friction's relaxation) */
INLINE V mul_q16w_v(V x, V f)
{
	V hi = wasm_i64x2_shl(mul(wasm_i64x2_shr(x, 20), f), 4);
	V lo = wasm_u64x2_shr(add(mul(and_(x, splat(0xFFFFF)), f), splat(0x8000)), 16);
	return add(hi, lo);
}

typedef struct v3 {
	V x, y, z;
} v3;

INLINE void sat3(v3 *v, V x, V y, V z, V *count)
{
	if (__builtin_expect(any(or_(or_(out32(x), out32(y)), out32(z))), 0)) {
		V all = splat(-1);
		x = sat32(x, all, count), y = sat32(y, all, count), z = sat32(z, all, count);
	}
	v->x = x, v->y = y, v->z = z;
}

/* v += m p >> s per component, then saturated (counted) as add3 does */
INLINE void sadd3_v(v3 *v, const int32_t m[3][FXS_LANES], const shifter *hs, V p, V *count, int h)
{
	sat3(v, add(v->x, smul_v(ld32(m[0]), p, hs)), add(v->y, smul_v(ld32(m[1]), p, hs)), add(v->z, smul_v(ld32(m[2]), p, hs)),
	     count);
}

#define ld3(m) ((v3){ ld32((m)[0]), ld32((m)[1]), ld32((m)[2]) })

INLINE V dot3(v3 a, v3 b)
{
	return add(add(mul(a.x, b.x), mul(a.y, b.y)), mul(a.z, b.z));
}

/* two lanes' bodies and their velocities */
typedef struct bodies2 {
	const int32_t *pa[2], *pb[2];
	v3 va, wa, vb, wb;
} bodies2;

/* ints k0..k0+3 of two bodies' rows as four vectors (vector j: int k0 + j
 * of both, sign-extended) */
INLINE void rows2_to_lanes(const int32_t *const row[2], int k0, V out[4])
{
	const V r0 = wasm_v128_load(row[0] + k0), r1 = wasm_v128_load(row[1] + k0);
	const V lo = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), hi = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
	out[0] = wasm_i64x2_extend_low_i32x4(lo), out[1] = wasm_i64x2_extend_high_i32x4(lo);
	out[2] = wasm_i64x2_extend_low_i32x4(hi), out[3] = wasm_i64x2_extend_high_i32x4(hi);
}

_Static_assert(offsetof(solver_body, v) == 0 && offsetof(solver_body, w) == 12 && offsetof(solver_body, dp) == 24 &&
		       offsetof(solver_body, dtheta) == 36,
	       "rows2_to_lanes reads a solver body's v, w, dp and dtheta as 12 consecutive int32");

/* lanes h, h+1's bodies and velocities; a[6], a[7] (b[6], b[7]) are dp.x, dp.y */
INLINE void load_bodies(const solver_ctx *c, const contact_batch *bt, bodies2 *s, int h, V a[8], V b[8])
{
	for (int l = 0; l < 2; ++l) {
		s->pa[l] = (const int32_t *)(const void *)&c->bodies[bt->a[h + l]];
		s->pb[l] = (const int32_t *)(const void *)&c->bodies[bt->b[h + l]];
	}
	rows2_to_lanes(s->pa, 0, a), rows2_to_lanes(s->pa, 4, a + 4);
	rows2_to_lanes(s->pb, 0, b), rows2_to_lanes(s->pb, 4, b + 4);
	s->va = (v3){ a[0], a[1], a[2] }, s->wa = (v3){ a[3], a[4], a[5] };
	s->vb = (v3){ b[0], b[1], b[2] }, s->wb = (v3){ b[3], b[4], b[5] };
}

INLINE void put3(fxg_vec3 *dst, V x, V y, V z, int l)
{
	if (l == 0)
		dst->x = (int32_t)wasm_i64x2_extract_lane(x, 0), dst->y = (int32_t)wasm_i64x2_extract_lane(y, 0),
		dst->z = (int32_t)wasm_i64x2_extract_lane(z, 0);
	else
		dst->x = (int32_t)wasm_i64x2_extract_lane(x, 1), dst->y = (int32_t)wasm_i64x2_extract_lane(y, 1),
		dst->z = (int32_t)wasm_i64x2_extract_lane(z, 1);
}

/* Scatter back. Lanes sharing a body share only a read-only one (static,
 * kinematic, asleep, or the spare), whose values did not change. */
INLINE void scatter(solver_ctx *c, const contact_batch *bt, const bodies2 *s, int h)
{
	for (int l = 0; l < 2; ++l) {
		solver_body *A = &c->bodies[bt->a[h + l]], *B = &c->bodies[bt->b[h + l]];
		put3(&A->v, s->va.x, s->va.y, s->va.z, l);
		put3(&A->w, s->wa.x, s->wa.y, s->wa.z, l);
		put3(&B->v, s->vb.x, s->vb.y, s->vb.z, l);
		put3(&B->w, s->wb.x, s->wb.y, s->wb.z, l);
	}
}

/* lane_linear (contact_batch.h): (im d_j + 2^15) >> 16 */
INLINE V linear_v(V im, V d) { return wasm_i64x2_shr(add(mul(im, d), splat(0x8000)), 16); }

INLINE void slin3_v(v3 *v, V im, const int32_t d[3][FXS_LANES], const shifter *hs, V p, V *count, int h)
{
	sat3(v, add(v->x, smul_v(linear_v(im, ld32(d[0])), p, hs)), add(v->y, smul_v(linear_v(im, ld32(d[1])), p, hs)),
	     add(v->z, smul_v(linear_v(im, ld32(d[2])), p, hs)), count);
}

/* an impulse p along direction dir through a row's angular responses */
#define apply_v(s, bt, dir, r, p, count, h) apply_v_((s), (bt), (dir), (r)->ia, (r)->ib, (r)->sa, (r)->sb, (p), (count), (h))
INLINE void apply_v_(bodies2 *s, const contact_batch *bt, int dir, const int32_t ia[3][FXS_LANES],
		     const int32_t ib[3][FXS_LANES], const uint8_t *sa, const uint8_t *sb, V p, V *count, int h)
{
	shifter hla = shifter_of(bt->sla, h), hlb = shifter_of(bt->slb, h);
	shifter ha = shifter_of(sa, h), hb = shifter_of(sb, h);
	slin3_v(&s->va, ld32(bt->ima), bt->d[dir], &hla, p, count, h);
	sadd3_v(&s->wa, ia, &ha, p, count, h);
	slin3_v(&s->vb, ld32(bt->imb), bt->d[dir], &hlb, p, count, h);
	sadd3_v(&s->wb, ib, &hb, p, count, h);
}

INLINE uint32_t count_of(V v) { return (uint32_t)(wasm_i64x2_extract_lane(v, 0) + wasm_i64x2_extract_lane(v, 1)); }

uint32_t fxs_batches_warm_start_simd128(solver_ctx *c, uint32_t first, uint32_t end)
{
	V count = zero();
	for (uint32_t i = first; i < end; ++i) {
		const contact_batch *bt = &c->batches[i];
		for (int h = 0; h < FXS_LANES; h += 2) {
			if (!bt->count[h] && !bt->count[h + 1])
				continue; /* padding: every update would be zero */
			bodies2 s;
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

typedef struct point_pre {
	V bias, mass, q;
	V sep; /* the current separation (restitution's, at a first push) */
	shifter hm;
} point_pre;

uint32_t fxs_batches_solve_simd128(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias)
{
	V count = zero();
	const V inv_h = splat(c->inv_h), push_min = splat(-(int64_t)c->push_max);
	const V soft_on = splat(use_bias ? -1 : 0);
	const V all = splat(-1);
	for (uint32_t i = first; i < end; ++i) {
		contact_batch *bt = &c->batches[i];
		for (int h = 0; h < FXS_LANES; h += 2) {
			if (!bt->count[h] && !bt->count[h + 1])
				continue; /* padding: every update would be zero */
			bodies2 s;
			const V npts = ld32(bt->count);
			const v3 n = ld3(bt->d[0]);
			point_pre pre[4];
			{
				V a0[8], b0[8], a1[4], b1[4];
				load_bodies(c, bt, &s, h, a0, b0);
				rows2_to_lanes(s.pa, 8, a1); /* dp.z, dtheta */
				rows2_to_lanes(s.pb, 8, b1);
				const V ndp = sub(dot3(n, (v3){ b0[6], b0[7], b1[0] }), dot3(n, (v3){ a0[6], a0[7], a1[0] }));
				const v3 ta = { a1[1], a1[2], a1[3] }, tb = { b1[1], b1[2], b1[3] };
				const V bias_rate = ld32(bt->bias_rate), iscale = ld32(bt->impulse_scale);
				for (int k2 = 0; k2 < 4; ++k2) {
					const lane_row *r = &bt->n[k2];
					const V live = gt(npts, splat(k2));
					V ds = sub(add(ndp, dot3(tb, ld3(r->rxb))), dot3(ta, ld3(r->rxa)));
					V sep = sat32(add(ld32(bt->separation[k2]), shr_round16(ds)), live, &count);
					V spec = gt(sep, zero());
					V is_soft = andnot(spec, soft_on);
					V bias_spec = wasm_u64x2_shr(mul(sep, inv_h), 16);
					V bs = sat32(shr_round16(mul(bias_rate, sep)), and_(is_soft, live), &count);
					bs = sel(gt(push_min, bs), push_min, bs);
					point_pre *pp = &pre[k2];
					pp->sep = sep;
					pp->bias = sel(spec, bias_spec, and_(is_soft, bs));
					pp->mass = sel(is_soft, ld32(r->soft_mass), ld32(r->mass));
					/* the lanes' shifts: soft or rigid, per lane */
					const bool soft0 = wasm_i64x2_extract_lane(is_soft, 0) != 0, soft1 = wasm_i64x2_extract_lane(is_soft, 1) != 0;
					pp->hm.s0 = soft0 ? r->ss[h] : r->sm[h];
					pp->hm.s1 = soft1 ? r->ss[h + 1] : r->sm[h + 1];
					pp->hm.bias = wasm_i64x2_make((int64_t)1 << (pp->hm.s0 - 1), (int64_t)1 << (pp->hm.s1 - 1));
					pp->q = mul_q16_v(ld64(bt->impulse[k2]), and_(is_soft, iscale));
				}
			}
			V total = zero(), moment = zero(), pushed = ld32(bt->pushed);
			for (int k = 0; k < 4; ++k) {
				const lane_row *r = &bt->n[k];
				const point_pre *pp = &pre[k];
				const V live = gt(npts, splat(k));
				const v3 rxa = ld3(r->rxa), rxb = ld3(r->rxb);
				V vn = add(sub(dot3(n, s.vb), dot3(n, s.va)), sub(dot3(s.wb, rxb), dot3(s.wa, rxa)));
				vn = sat32(shr_round16(vn), live, &count);
				V y = sat32(add(vn, pp->bias), live, &count);
				V old = ld64(bt->impulse[k]);
				V nw = sub(sub(old, smul_v(pp->mass, y, &pp->hm)), pp->q);
				V over = gt(nw, splat(FXS_NORMAL_IMPULSE_MAX));
				count = sub(count, and_(over, live));
				nw = sel(over, splat(FXS_NORMAL_IMPULSE_MAX), nw);
				nw = andnot(gt(zero(), nw), nw);
				V delta = sub(nw, old);
				st64(bt->impulse[k], nw);
				const V bit = splat(1 << k), push = gt(delta, zero());
				/* a first push: the speed it meets is restitution's */
				const V fresh = and_(wasm_i64x2_eq(and_(pushed, bit), zero()), push);
				if (__builtin_expect(any(fresh), 0)) {
					const V rv = sel(fresh, vn, ld32(bt->relative_velocity[k]));
					const V sp = sel(fresh, pp->sep, ld32(bt->impact_separation[k]));
					bt->relative_velocity[k][h] = (int32_t)wasm_i64x2_extract_lane(rv, 0);
					bt->relative_velocity[k][h + 1] = (int32_t)wasm_i64x2_extract_lane(rv, 1);
					bt->impact_separation[k][h] = (int32_t)wasm_i64x2_extract_lane(sp, 0);
					bt->impact_separation[k][h + 1] = (int32_t)wasm_i64x2_extract_lane(sp, 1);
				}
				pushed = or_(pushed, and_(push, bit));
				apply_v(&s, bt, 0, r, imp32(delta, live, &count), &count, h);
				total = add(total, nw);
				moment = add(moment, mul_q16_v(nw, ld32(bt->lever[k])));
			}
			bt->pushed[h] = (int32_t)wasm_i64x2_extract_lane(pushed, 0);
			bt->pushed[h + 1] = (int32_t)wasm_i64x2_extract_lane(pushed, 1);
			const V mu = ld32(bt->friction);
			const V lim = mul_q16_v(total, mu), nlim = sub(zero(), lim);
			for (int t = 0; t < 2; ++t) {
				const lane_frow *r = &bt->t[t];
				const v3 d = ld3(bt->d[1 + t]), rxa = ld3(r->rxa), rxb = ld3(r->rxb);
				V vt = add(sub(dot3(d, s.vb), dot3(d, s.va)), sub(dot3(s.wb, rxb), dot3(s.wa, rxa)));
				vt = sat32(shr_round16(vt), all, &count);
				V old = ld64(bt->ti[t]);
				V nw;
				if (use_bias) { /* soft, pulled by the anchor's error */
					V b = sat32(shr_round16(mul(ld32(bt->bias_rate), ld32(bt->slip[t]))), all, &count);
					V y = sat32(add(vt, b), all, &count);
					shifter hs = shifter_of(r->ss, h);
					nw = sub(sub(old, smul_v(ld32(r->soft_mass), y, &hs)), mul_q16w_v(old, ld32(bt->impulse_scale)));
				} else {
					shifter hm = shifter_of(r->sm, h);
					nw = sub(old, smul_v(ld32(r->mass), vt, &hm));
				}
				nw = sel(gt(nlim, nw), nlim, sel(gt(nw, lim), lim, nw));
				st64(bt->ti[t], nw);
				apply_v(&s, bt, 1 + t, r, imp32(sub(nw, old), all, &count), &count, h);
			}
			const lane_trow *r = &bt->tw;
			const V tlim = mul_q16_v(moment, mu), ntlim = sub(zero(), tlim);
			const V old = ld64(bt->twi);
			const V runs = or_(wasm_v128_not(wasm_i64x2_eq(tlim, zero())), wasm_v128_not(wasm_i64x2_eq(old, zero())));
			V wn = sub(dot3(s.wb, n), dot3(s.wa, n));
			wn = sat32(shr_round16(wn), runs, &count);
			shifter hm = shifter_of(r->sm, h);
			V nw = sub(old, smul_v(ld32(r->mass), wn, &hm));
			nw = sel(gt(ntlim, nw), ntlim, sel(gt(nw, tlim), tlim, nw));
			st64(bt->twi, nw);
			V p = imp32(sub(nw, old), all, &count);
			shifter ha = shifter_of(r->sa, h), hb = shifter_of(r->sb, h);
			sadd3_v(&s.wa, r->ia, &ha, p, &count, h);
			sadd3_v(&s.wb, r->ib, &hb, p, &count, h);
			scatter(c, bt, &s, h);
		}
	}
	return count_of(count);
}

bool fxs_batches_have_simd128(void) { return true; }

#else

/* not a SIMD128 build: the portable kernel does everything */
bool fxs_batches_have_simd128(void) { return false; }

uint32_t fxs_batches_warm_start_simd128(solver_ctx *c, uint32_t first, uint32_t end)
{
	(void)c, (void)first, (void)end;
	return 0;
}

uint32_t fxs_batches_solve_simd128(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias)
{
	(void)c, (void)first, (void)end, (void)use_bias;
	return 0;
}

#endif
