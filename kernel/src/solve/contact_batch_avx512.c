/* The contact solver's vector kernels for AVX-512 (F, VL, DQ, CD): eight int64
 * lanes, a whole batch at once (contact_batch.h). Integer instructions only
 * (`make nofloat` disassembles this file and fails on any floating-point
 * instruction).
 *
 * The formulas are contact_batch.c's, lane for lane, as in the AVX2 kernel
 * (contact_batch_avx2.c, whose header says how a formula is carried over);
 * AVX-512 has what AVX2 lacks: 64-bit arithmetic shifts, 64-bit min and
 * max, and mask registers for the selects and for counting saturations.
 * Products are still vpmuldq (32 x 32 -> 64). Body velocities are read per
 * batch (each body's first bytes loaded and transposed, simd512.h's
 * rows_to_lanes: cheaper here than gathers), kept in registers for its seven
 * rows, and stored back the same way. */
#include "solve/contact_batch.h"
#include "simd/simd512.h"

#if FXS_AVX512_BUILD
typedef struct shifter {
	V s, bias;
} shifter;

INLINE shifter shifter_of(const uint8_t *s8)
{
	shifter r;
	r.s = ld8(s8);
	r.bias = _mm512_sllv_epi64(splat(1), sub(r.s, splat(1)));
	return r;
}

/* smul: (m y + 2^(s-1)) >> s */
INLINE V smul_v(V m, V y, const shifter *h) { return _mm512_srav_epi64(add(mul(m, y), h->bias), h->s); }

/* mul_q16 (contact_batch.c): (x f + 2^15) >> 16 for 0 <= x < 2^47, 0 <= f < 2^31 */
INLINE V mul_q16_v(V x, V f)
{
	V hi = mul(_mm512_srli_epi64(x, 16), f);
	V lo = _mm512_srli_epi64(add(mul(_mm512_and_si512(x, splat(0xFFFF)), f), splat(0x8000)), 16);
	return add(hi, lo);
}

/* mul_q16w (contact_batch.c): (x f + 2^15) >> 16 for |x| < 2^51, 0 <= f <= 2^16 */
INLINE V mul_q16w_v(V x, V f)
{
	V hi = _mm512_slli_epi64(mul(_mm512_srai_epi64(x, 20), f), 4);
	V lo = _mm512_srli_epi64(add(mul(_mm512_and_si512(x, splat(0xFFFFF)), f), splat(0x8000)), 16);
	return add(hi, lo);
}

INLINE V dot3(v3 a, v3 b) { return add(add(mul(a.x, b.x), mul(a.y, b.y)), mul(a.z, b.z)); }

/* ---- the passes ----
 * Each batch runs on the fast path first (simd512.h's guard), then, if a
 * value left its range, on the exact path. */

/* three velocity components: saturated to int32, their saturations counted
 * with one test for the three (exact); their range noted (fast) */
INLINE void sat3(v3 *v, V x, V y, V z, guard *g, bool exact, uint32_t *count)
{
	if (!exact) {
		note(g, x, ALL_LANES), note(g, y, ALL_LANES), note(g, z, ALL_LANES);
		v->x = x, v->y = y, v->z = z;
		return;
	}
	const V lo = splat(INT32_MIN), hi = splat(INT32_MAX);
	V cx = _mm512_min_epi64(_mm512_max_epi64(x, lo), hi), cy = _mm512_min_epi64(_mm512_max_epi64(y, lo), hi),
	  cz = _mm512_min_epi64(_mm512_max_epi64(z, lo), hi);
	M mx = _mm512_cmpneq_epi64_mask(x, cx), my = _mm512_cmpneq_epi64_mask(y, cy), mz = _mm512_cmpneq_epi64_mask(z, cz);
	if (__builtin_expect((mx | my | mz) != 0, 0))
		*count += (uint32_t)(__builtin_popcount(mx) + __builtin_popcount(my) + __builtin_popcount(mz));
	v->x = cx, v->y = cy, v->z = cz;
}

/* v += (m p + 2^(s-1)) >> s per component, m a row's angular responses
 * (add3 of the portable kernel) */
INLINE void sadd3_v(v3 *v, const int32_t m[3][FXS_LANES], const shifter *h, V p, guard *g, bool exact, uint32_t *count)
{
	sat3(v, add(v->x, smul_v(ld32(m[0]), p, h)), add(v->y, smul_v(ld32(m[1]), p, h)), add(v->z, smul_v(ld32(m[2]), p, h)),
	     g, exact, count);
}

/* v += (l p + 2^(s-1)) >> s per component, l linear responses */
INLINE void slin3_v(v3 *v, v3 l, const shifter *h, V p, guard *g, bool exact, uint32_t *count)
{
	sat3(v, add(v->x, smul_v(l.x, p, h)), add(v->y, smul_v(l.y, p, h)), add(v->z, smul_v(l.z, p, h)), g, exact, count);
}

INLINE void body_pointers(const solver_ctx *c, const contact_batch *bt, bodies8 *s)
{
	char *base = (char *)(void *)c->bodies;
	for (int l = 0; l < FXS_LANES; ++l)
		s->pa[l] = base + (size_t)bt->a[l] * sizeof(solver_body), s->pb[l] = base + (size_t)bt->b[l] * sizeof(solver_body);
}

/* the kernels read a solver body's first 48 bytes as rows: v, w, dp, dtheta */
_Static_assert(offsetof(solver_body, v) == 0 && offsetof(solver_body, w) == 12 && offsetof(solver_body, dp) == 24 &&
		       offsetof(solver_body, dtheta) == 36,
	       "rows_to_lanes reads a solver body's v, w, dp and dtheta as 12 consecutive int32");

/* the linear response to a unit impulse along d[dir], component j:
 * lane_linear (contact_batch.h), (im d_j + 2^15) >> 16 */
INLINE V linear_v(V im, V d) { return _mm512_srai_epi64(add(mul(im, d), splat(0x8000)), 16); }

INLINE v3 linear3(V im, const contact_batch *bt, int dir)
{
	const int32_t(*d)[FXS_LANES] = bt->d[dir];
	v3 r = { linear_v(im, ld32(d[0])), linear_v(im, ld32(d[1])), linear_v(im, ld32(d[2])) };
	return r;
}

/* what a batch's rows share: the bodies' scaled inverse masses and their
 * shifts, and the linear responses along the normal (its four rows') */
typedef struct linear8 {
	shifter ha, hb;
	V ima, imb;
	v3 na, nb;
} linear8;

INLINE void linear_of(const contact_batch *bt, linear8 *L)
{
	L->ha = shifter_of(bt->sla), L->hb = shifter_of(bt->slb);
	L->ima = ld32(bt->ima), L->imb = ld32(bt->imb);
	L->na = linear3(L->ima, bt, 0), L->nb = linear3(L->imb, bt, 0);
}

/* an impulse p through linear responses la, lb and a row's angular ones */
#define apply_v(s, L, la, lb, r, p, g, exact, count) \
	apply_v_((s), (L), (la), (lb), (r)->ia, (r)->ib, (r)->sa, (r)->sb, (p), (g), (exact), (count))
INLINE void apply_v_(bodies8 *s, const linear8 *L, v3 la, v3 lb, const int32_t ia[3][FXS_LANES],
		     const int32_t ib[3][FXS_LANES], const uint8_t *sa, const uint8_t *sb, V p, guard *g, bool exact,
		     uint32_t *count)
{
	shifter ha = shifter_of(sa), hb = shifter_of(sb);
	slin3_v(&s->va, la, &L->ha, p, g, exact, count);
	sadd3_v(&s->wa, ia, &ha, p, g, exact, count);
	slin3_v(&s->vb, lb, &L->hb, p, g, exact, count);
	sadd3_v(&s->wb, ib, &hb, p, g, exact, count);
}

/* lanes with more than k points */
INLINE M live_points(const contact_batch *bt, int k) { return gt(ld32(bt->count), splat(k)); }

/* one batch's warm start; false (nothing written) when the fast path left
 * its range */
INLINE bool warm_batch(solver_ctx *c, const contact_batch *bt, bool exact, uint32_t *count)
{
	guard g = guard_new();
	bodies8 s;
	body_pointers(c, bt, &s);
	V a0[8], b0[8];
	bodies_load(&s, a0, b0); /* and dp.x, dp.y at 6, 7 */
	linear8 L;
	linear_of(bt, &L);
	for (int k = 0; k < 4; ++k)
		apply_v(&s, &L, L.na, L.nb, &bt->n[k], imp32g(ld64(bt->impulse[k]), live_points(bt, k), &g, exact, count), &g,
			exact, count);
	for (int t = 0; t < 2; ++t)
		apply_v(&s, &L, linear3(L.ima, bt, 1 + t), linear3(L.imb, bt, 1 + t), &bt->t[t],
			imp32g(ld64(bt->ti[t]), ALL_LANES, &g, exact, count), &g, exact, count);
	shifter ha = shifter_of(bt->tw.sa), hb = shifter_of(bt->tw.sb);
	V p = imp32g(ld64(bt->twi), ALL_LANES, &g, exact, count);
	sadd3_v(&s.wa, bt->tw.ia, &ha, p, &g, exact, count);
	sadd3_v(&s.wb, bt->tw.ib, &hb, p, &g, exact, count);
	if (!exact && !guard_ok(&g, FXS_NORMAL_IMPULSE_MAX))
		return false;
	bodies_store(&s);
	return true;
}

uint32_t fxs_batches_warm_start_avx512(solver_ctx *c, uint32_t first, uint32_t end)
{
	uint32_t count = 0;
	for (uint32_t i = first; i < end; ++i) {
		fxs_batches_prefetch(c, i, end, true);
		if (!warm_batch(c, &c->batches[i], false, &count))
			warm_batch(c, &c->batches[i], true, &count);
	}
	return count;
}

/* one batch's solve (see warm_batch) */
INLINE bool solve_batch(solver_ctx *c, contact_batch *bt, bool use_bias, V inv_h, V push_min, bool exact,
			uint32_t *count)
{
	guard g = guard_new();
	bodies8 s;
	body_pointers(c, bt, &s);
	const v3 n = ld3(bt->d[0]);
	/* what each normal row needs that does not depend on the velocities */
	V pbias[4], pmass[4], pq[4], psep[4];
	shifter phm[4];
	M live[4];
	{
		/* v, w, dp.x, dp.y; then dp.z, dtheta, ... */
		V a0[8], b0[8], a1[8], b1[8];
		bodies_load(&s, a0, b0); /* and dp.x, dp.y at 6, 7 */
		char *ra[FXS_LANES], *rb[FXS_LANES];
		for (int l = 0; l < FXS_LANES; ++l)
			ra[l] = s.pa[l] + 32, rb[l] = s.pb[l] + 32;
		rows_to_lanes((const char *const *)ra, a1);
		rows_to_lanes((const char *const *)rb, b1);
		const V ndp = sub(dot3(n, (v3){ b0[6], b0[7], b1[0] }), dot3(n, (v3){ a0[6], a0[7], a1[0] }));
		const v3 ta = { a1[1], a1[2], a1[3] }, tb = { b1[1], b1[2], b1[3] };
		const V bias_rate = ld32(bt->bias_rate), iscale = ld32(bt->impulse_scale);
		for (int k = 0; k < 4; ++k) {
			const lane_row *r = &bt->n[k];
			live[k] = live_points(bt, k);
			V ds = sub(add(ndp, dot3(tb, ld3(r->rxb))), dot3(ta, ld3(r->rxa)));
			V sep = sat32g(add(ld32(bt->separation[k]), shr_round16(ds)), live[k], &g, exact, count);
			psep[k] = sep;
			M spec = gt(sep, zero());
			M is_soft = use_bias ? (M)~spec : 0; /* not speculative, and the biased pass */
			/* speculative: (s inv_h) >> 16 with s > 0 */
			V bias_spec = _mm512_srai_epi64(mul(sep, inv_h), 16);
			V bs = sat32g(shr_round16(mul(bias_rate, sep)), is_soft & live[k], &g, exact, count);
			bs = _mm512_max_epi64(bs, push_min);
			pbias[k] = sel(spec, bias_spec, _mm512_maskz_mov_epi64(is_soft, bs));
			pmass[k] = sel(is_soft, ld32(r->soft_mass), ld32(r->mass));
			shifter hm = shifter_of(r->sm), hs = shifter_of(r->ss);
			phm[k].s = sel(is_soft, hs.s, hm.s), phm[k].bias = sel(is_soft, hs.bias, hm.bias);
			pq[k] = mul_q16_v(ld64(bt->impulse[k]), _mm512_maskz_mov_epi64(is_soft, iscale));
		}
	}
	linear8 L;
	linear_of(bt, &L);
	/* the new impulses, written once the batch is done; the speeds met by
	 * first pushes (restitution's) and their lanes */
	V imp[4], ti[2], met[4];
	M first[4];
	V total = zero(), moment = zero(), pushed = ld32(bt->pushed);
	for (int k = 0; k < 4; ++k) {
		const lane_row *r = &bt->n[k];
		const v3 rxa = ld3(r->rxa), rxb = ld3(r->rxb);
		V vn = add(sub(dot3(n, s.vb), dot3(n, s.va)), sub(dot3(s.wb, rxb), dot3(s.wa, rxa)));
		vn = sat32g(shr_round16(vn), live[k], &g, exact, count);
		V y = sat32g(add(vn, pbias[k]), live[k], &g, exact, count);
		V old = ld64(bt->impulse[k]);
		V nw = sub(sub(old, smul_v(pmass[k], y, &phm[k])), pq[k]);
		if (exact) {
			V capped = _mm512_min_epi64(nw, splat(FXS_NORMAL_IMPULSE_MAX));
			count_out(nw, capped, live[k], count);
			nw = capped;
		} else {
			g.hi2 = _mm512_mask_max_epi64(g.hi2, live[k], g.hi2, nw); /* bounded above only */
		}
		nw = _mm512_max_epi64(nw, zero());
		V delta = sub(nw, old);
		imp[k] = nw;
		const M push = gt(delta, zero());
		first[k] = push & ~_mm512_test_epi64_mask(pushed, splat(1 << k)), met[k] = vn;
		pushed = _mm512_mask_or_epi64(pushed, push, pushed, splat(1 << k));
		apply_v(&s, &L, L.na, L.nb, r, imp32g(delta, live[k], &g, exact, count), &g, exact, count);
		total = add(total, nw);
		moment = add(moment, mul_q16_v(nw, ld32(bt->lever[k])));
	}
	const V mu = ld32(bt->friction);
	const V lim = mul_q16_v(total, mu), nlim = sub(zero(), lim);
	for (int t = 0; t < 2; ++t) {
		const lane_frow *r = &bt->t[t];
		const v3 d = ld3(bt->d[1 + t]), rxa = ld3(r->rxa), rxb = ld3(r->rxb);
		V vt = add(sub(dot3(d, s.vb), dot3(d, s.va)), sub(dot3(s.wb, rxb), dot3(s.wa, rxa)));
		vt = sat32g(shr_round16(vt), ALL_LANES, &g, exact, count);
		V old = ld64(bt->ti[t]);
		V nw;
		if (use_bias) { /* soft, pulled by the anchor's error */
			V b = sat32g(shr_round16(mul(ld32(bt->bias_rate), ld32(bt->slip[t]))), ALL_LANES, &g, exact, count);
			V y = sat32g(add(vt, b), ALL_LANES, &g, exact, count);
			shifter hs = shifter_of(r->ss);
			nw = sub(sub(old, smul_v(ld32(r->soft_mass), y, &hs)), mul_q16w_v(old, ld32(bt->impulse_scale)));
		} else {
			shifter hm = shifter_of(r->sm);
			nw = sub(old, smul_v(ld32(r->mass), vt, &hm));
		}
		nw = _mm512_max_epi64(_mm512_min_epi64(nw, lim), nlim);
		ti[t] = nw;
		apply_v(&s, &L, linear3(L.ima, bt, 1 + t), linear3(L.imb, bt, 1 + t), r,
			imp32g(sub(nw, old), ALL_LANES, &g, exact, count), &g, exact, count);
	}
	/* the twist, where the portable kernel runs it: tlim or the impulse nonzero */
	const lane_trow *r = &bt->tw;
	const V tlim = mul_q16_v(moment, mu), ntlim = sub(zero(), tlim);
	const V old = ld64(bt->twi);
	const M runs = _mm512_test_epi64_mask(tlim, tlim) | _mm512_test_epi64_mask(old, old);
	V wn = sub(dot3(s.wb, n), dot3(s.wa, n)); /* the twist's Jacobians are the normal */
	wn = sat32g(shr_round16(wn), runs, &g, exact, count);
	shifter hm = shifter_of(r->sm);
	V twi = sub(old, smul_v(ld32(r->mass), wn, &hm));
	twi = _mm512_max_epi64(_mm512_min_epi64(twi, tlim), ntlim);
	V p = imp32g(sub(twi, old), ALL_LANES, &g, exact, count);
	shifter ha = shifter_of(r->sa), hb = shifter_of(r->sb);
	sadd3_v(&s.wa, r->ia, &ha, p, &g, exact, count);
	sadd3_v(&s.wb, r->ib, &hb, p, &g, exact, count);
	if (!exact && !guard_ok(&g, FXS_NORMAL_IMPULSE_MAX))
		return false;
	for (int k = 0; k < 4; ++k) {
		st64(bt->impulse[k], imp[k]);
		if (first[k]) {
			_mm512_mask_cvtepi64_storeu_epi32(bt->relative_velocity[k], first[k], met[k]);
			_mm512_mask_cvtepi64_storeu_epi32(bt->impact_separation[k], first[k], psep[k]);
		}
	}
	_mm256_storeu_si256((__m256i *)(void *)bt->pushed, _mm512_cvtepi64_epi32(pushed));
	st64(bt->ti[0], ti[0]), st64(bt->ti[1], ti[1]);
	st64(bt->twi, twi);
	bodies_store(&s);
	return true;
}

uint32_t fxs_batches_solve_avx512(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias)
{
	uint32_t count = 0;
	const V inv_h = splat(c->inv_h), push_min = splat(-(int64_t)c->push_max);
	/* use_bias a constant in each loop: the relax pass's copy drops the bias */
	if (use_bias) {
		for (uint32_t i = first; i < end; ++i) {
			fxs_batches_prefetch(c, i, end, false);
			if (!solve_batch(c, &c->batches[i], true, inv_h, push_min, false, &count))
				solve_batch(c, &c->batches[i], true, inv_h, push_min, true, &count);
		}
	} else {
		for (uint32_t i = first; i < end; ++i) {
			fxs_batches_prefetch(c, i, end, false);
			if (!solve_batch(c, &c->batches[i], false, inv_h, push_min, false, &count))
				solve_batch(c, &c->batches[i], false, inv_h, push_min, true, &count);
		}
	}
	return count;
}
/* ---- packing: the rows of eight contacts at once ----
 * contact_batch.c's fxs_pack_rows_lane (srow_prepare, solver.h, per row),
 * the common path; a lane that would leave it (a cross product out of
 * range, a response scaled below 2^16, a sum near int64, an effective mass
 * of 2^-32 or one beyond 2^46, a saturated approach speed) is left to the
 * portable code, which counts its own saturations. */

typedef struct pbody {
	V ii[6], si, inv_mass;
	v3 v, w;
} pbody;

_Static_assert(offsetof(solver_body, im) == 48 && offsetof(solver_body, si) == 52 &&
		       offsetof(solver_body, inv_mass) == 56 && offsetof(solver_body, ii) == 64,
	       "pbody_load reads a solver body as rows of 32 bytes at 0, 32 and 64");

/* the bodies of slots slot[l]: three rows each (rows_to_lanes) */
INLINE void pbody_load(const solver_ctx *c, const uint32_t *slot, pbody *b)
{
	const char *base = (const char *)(const void *)c->bodies, *row[3][FXS_LANES];
	for (int l = 0; l < FXS_LANES; ++l) {
		const char *p = base + (size_t)slot[l] * sizeof(solver_body);
		row[0][l] = p, row[1][l] = p + 32, row[2][l] = p + 64;
	}
	V r0[8], r1[8], r2[8];
	rows_to_lanes(row[0], r0); /* v, w */
	rows_to_lanes(row[1], r1); /* ..., si (the low byte of int32 5), inv_mass (6, 7) */
	rows_to_lanes(row[2], r2); /* ii */
	for (int i = 0; i < 6; ++i)
		b->ii[i] = r2[i];
	b->si = _mm512_and_si512(r1[5], splat(0xFF));
	b->inv_mass = _mm512_or_si512(_mm512_and_si512(r1[6], splat(0xFFFFFFFF)), _mm512_slli_epi64(r1[7], 32));
	b->v = (v3){ r0[0], r0[1], r0[2] };
	b->w = (v3){ r0[3], r0[4], r0[5] };
}

/* contact_batch.c's cross (exact, rounded once) where no operand is
 * INT32_MIN and the result fits; else the lane is rare */
INLINE V cross_comp_v(V a, V b, V cc, V d, M *rare)
{
	V r = sub(mul(a, b), mul(cc, d));
	const V lo = splat((int64_t)INT32_MIN * 65536), hi = splat((int64_t)INT32_MAX * 65536), m = splat(INT32_MIN);
	*rare |= gt(r, hi) | gt(lo, r) | _mm512_cmpeq_epi64_mask(a, m) | _mm512_cmpeq_epi64_mask(b, m) |
		_mm512_cmpeq_epi64_mask(cc, m) | _mm512_cmpeq_epi64_mask(d, m);
	return shr_round16(r);
}
INLINE v3 cross_v(v3 a, v3 b, M *rare)
{
	v3 r = { cross_comp_v(a.y, b.z, a.z, b.y, rare), cross_comp_v(a.z, b.x, a.x, b.z, rare),
		 cross_comp_v(a.x, b.y, a.y, b.x, rare) };
	return r;
}

/* inertia_response (solver.h): I^-1 x as mantissas; k = x . I^-1 x in Q32.32 */
INLINE V response_v(const pbody *b, v3 x, V out[3], V *k, M *rare)
{
	const V *m = b->ii; /* xx yy zz xy xz yz */
	V s[3] = { add(add(mul(m[0], x.x), mul(m[3], x.y)), mul(m[4], x.z)),
		   add(add(mul(m[3], x.x), mul(m[1], x.y)), mul(m[5], x.z)),
		   add(add(mul(m[4], x.x), mul(m[5], x.y)), mul(m[2], x.z)) };
	V any = _mm512_or_si512(_mm512_or_si512(_mm512_abs_epi64(s[0]), _mm512_abs_epi64(s[1])), _mm512_abs_epi64(s[2]));
	V sh = _mm512_max_epi64(sub(bitlen(any), splat(FXS_SCALE_BITS)), zero());
	V e = sub(add(b->si, splat(16)), sh);
	V over = _mm512_max_epi64(sub(e, splat(62)), zero());
	sh = add(sh, over), e = sub(e, over);
	*rare |= gt(splat(16), e); /* e < 1 clamps; e < 16 scales up: both rare */
	for (int i = 0; i < 3; ++i)
		out[i] = shr_half(s[i], sh);
	V d = add(add(mul(x.x, out[0]), mul(x.y, out[1])), mul(x.z, out[2]));
	*k = shr_half(d, _mm512_max_epi64(sub(e, splat(16)), zero()));
	return e;
}

/* scale1 (solver.h) of m >= 0: the shift and the mantissa; rare when the
 * shift clamps at 1 (m of 61 bits or more) */
INLINE V scale1_v(V m, V *mant, M *rare)
{
	V s = _mm512_min_epi64(_mm512_max_epi64(sub(splat(32 + FXS_SCALE_BITS), bitlen(m)), splat(1)), splat(62));
	*rare |= _mm512_cmplt_epi64_mask(s, splat(2));
	M up = _mm512_cmpge_epi64_mask(s, splat(32));
	V l = _mm512_sllv_epi64(m, _mm512_max_epi64(sub(s, splat(32)), zero()));
	V r = shr_half(m, _mm512_max_epi64(sub(splat(32), s), zero()));
	*mant = sel(up, l, r);
	return s;
}

/* srow_prepare into row fields: rxa, rxb given (twist: the normal) */
typedef struct vrow {
	V ia[3], ib[3], mass, softm, sa, sb, sm, ss;
} vrow;

INLINE void srow_v(const pbody *A, const pbody *B, v3 rxa, v3 rxb, bool linear, V mass_scale, vrow *r, M *rare)
{
	V ka, kb;
	r->sa = response_v(A, rxa, r->ia, &ka, rare);
	r->sb = response_v(B, rxb, r->ib, &kb, rare);
	for (int i = 0; i < 3; ++i)
		r->ia[i] = sub(zero(), r->ia[i]); /* A takes -p */
	V k = add(ka, kb);
	V lim = splat((int64_t)1 << 60);
	*rare |= _mm512_cmpgt_epu64_mask(_mm512_abs_epi64(ka), lim) | _mm512_cmpgt_epu64_mask(_mm512_abs_epi64(kb), lim);
	if (linear) {
		*rare |= _mm512_cmpgt_epu64_mask(A->inv_mass, lim) | _mm512_cmpgt_epu64_mask(B->inv_mass, lim);
		k = add(k, add(A->inv_mass, B->inv_mass));
	}
	/* recip_q32, lane by lane (the division) */
	int64_t kl[8];
	uint64_t ml[8];
	_mm512_storeu_si512((void *)kl, k);
	for (int l = 0; l < 8; ++l) {
		uint64_t u = (uint64_t)kl[l];
		if (kl[l] <= 0) {
			ml[l] = 0;
			continue;
		}
		if (u == 1) { /* saturates: rare */
			ml[l] = 0, *rare |= (M)(1u << l);
			continue;
		}
		uint64_t q = UINT64_MAX / u, rem = UINT64_MAX - q * u + 1;
		if (rem == u)
			q += 1, rem = 0;
		if (rem >= u - rem)
			q += 1;
		ml[l] = q;
	}
	V m = _mm512_loadu_si512((const void *)ml);
	*rare |= _mm512_cmpgt_epu64_mask(m, splat(((int64_t)1 << 46) - 1)); /* the soft product below needs m < 2^46 */
	r->sm = scale1_v(m, &r->mass, rare);
	V softv = _mm512_srli_epi64(add(_mm512_mullo_epi64(m, mass_scale), splat(0x8000)), 16);
	r->ss = scale1_v(softv, &r->softm, rare);
}

INLINE void st3v(int32_t f[3][FXS_LANES], v3 v) { st32(f[0], v.x), st32(f[1], v.y), st32(f[2], v.z); }
INLINE void st3a(int32_t f[3][FXS_LANES], const V v[3]) { st32(f[0], v[0]), st32(f[1], v[1]), st32(f[2], v[2]); }

uint32_t fxs_pack_rows_avx512(solver_ctx *c, contact_batch *bt, const lane_arms *arms)
{
	M rare = 0;
	pbody A, B;
	pbody_load(c, bt->a, &A);
	pbody_load(c, bt->b, &B);
	const v3 n = ld3(bt->d[0]);
	const V npts = ld32(bt->count), ms = ld32(arms->mass_scale);
	for (int p = 0; p < 4; ++p) {
		const M live = gt(npts, splat(p));
		M rp = 0;
		v3 rxa = cross_v(ld3(arms->ra[p]), n, &rp), rxb = cross_v(ld3(arms->rb[p]), n, &rp);
		vrow r;
		srow_v(&A, &B, rxa, rxb, true, ms, &r, &rp);
		V s = add(sub(dot3(n, B.v), dot3(n, A.v)), sub(dot3(B.w, rxb), dot3(A.w, rxa)));
		V rv = shr_round16(s);
		rp |= gt(rv, splat(INT32_MAX)) | gt(splat(INT32_MIN), rv);
		rare |= rp & live;
		/* padding points: a zero row */
		lane_row *o = &bt->n[p];
		const V z = zero(), s62 = splat(62);
		st3v(o->rxa, (v3){ _mm512_maskz_mov_epi64(live, rxa.x), _mm512_maskz_mov_epi64(live, rxa.y), _mm512_maskz_mov_epi64(live, rxa.z) });
		st3v(o->rxb, (v3){ _mm512_maskz_mov_epi64(live, rxb.x), _mm512_maskz_mov_epi64(live, rxb.y), _mm512_maskz_mov_epi64(live, rxb.z) });
		for (int i = 0; i < 3; ++i)
			r.ia[i] = _mm512_maskz_mov_epi64(live, r.ia[i]), r.ib[i] = _mm512_maskz_mov_epi64(live, r.ib[i]);
		st3a(o->ia, r.ia), st3a(o->ib, r.ib);
		st32(o->mass, _mm512_maskz_mov_epi64(live, r.mass)), st32(o->soft_mass, _mm512_maskz_mov_epi64(live, r.softm));
		st8(o->sa, sel(live, r.sa, s62)), st8(o->sb, sel(live, r.sb, s62)), st8(o->sm, sel(live, r.sm, s62));
		st8(o->ss, sel(live, r.ss, s62));
		st32(bt->relative_velocity[p], sel(live, rv, z));
	}
	const v3 ca = ld3(arms->ca), cb = ld3(arms->cb);
	for (int t = 0; t < 2; ++t) {
		const v3 d = ld3(bt->d[1 + t]);
		v3 rxa = cross_v(ca, d, &rare), rxb = cross_v(cb, d, &rare);
		vrow r;
		srow_v(&A, &B, rxa, rxb, true, ms, &r, &rare);
		lane_frow *o = &bt->t[t];
		st3v(o->rxa, rxa), st3v(o->rxb, rxb), st3a(o->ia, r.ia), st3a(o->ib, r.ib);
		st32(o->mass, r.mass), st8(o->sa, r.sa), st8(o->sb, r.sb), st8(o->sm, r.sm);
		st32(o->soft_mass, r.softm), st8(o->ss, r.ss);
	}
	{
		vrow r;
		srow_v(&A, &B, n, n, false, splat(FXG_ONE), &r, &rare);
		lane_trow *o = &bt->tw;
		st3a(o->ia, r.ia), st3a(o->ib, r.ib);
		st32(o->mass, r.mass), st8(o->sa, r.sa), st8(o->sb, r.sb), st8(o->sm, r.sm);
	}
	return rare;
}

bool fxs_batches_have_avx512(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
		__builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd");
}

#else

/* no AVX-512 here */
bool fxs_batches_have_avx512(void) { return false; }

uint32_t fxs_pack_rows_avx512(solver_ctx *c, contact_batch *bt, const lane_arms *arms)
{
	(void)c, (void)bt, (void)arms;
	return 0xFF;
}

uint32_t fxs_batches_warm_start_avx512(solver_ctx *c, uint32_t first, uint32_t end)
{
	(void)c, (void)first, (void)end;
	return 0;
}

uint32_t fxs_batches_solve_avx512(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias)
{
	(void)c, (void)first, (void)end, (void)use_bias;
	return 0;
}

#endif
