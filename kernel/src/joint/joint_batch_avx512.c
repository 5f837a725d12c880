/* Ball joints in batches (joint_batch.h): the AVX-512 kernels (F, VL, DQ,
 * CD), eight int64 lanes. Integer instructions only (`make nofloat`
 * disassembles this file). The formulas are joint_batch.c's, lane for lane
 * (contact_batch_avx2.c's header says how they carry over); the setup's
 * rare branches are left to the portable code per lane, and the one
 * division per joint (the inverse's determinant) is scalar. */
#include "joint/joint_batch.h"
#include "simd/simd512.h"

#if FXS_AVX512_BUILD
#include <stddef.h>

#define L FXS_BALL_LANES

/* The bodies of a batch's lanes, and their fields as lanes: each body read
 * as rows of 32 bytes (simd512.h's rows_to_lanes) instead of gathered. */
_Static_assert(offsetof(solver_body, v) == 0 && offsetof(solver_body, w) == 12 && offsetof(solver_body, si) == 52 &&
		       offsetof(solver_body, inv_mass) == 56 && offsetof(solver_body, ii) == 64 &&
		       offsetof(solver_body, rot) == 92 && sizeof(fxg_mat3) == 36,
	       "the ball kernels read a solver body as rows of 32 bytes at 0, 32, 64 and 96");

INLINE void body_rows(const solver_ctx *c, const uint32_t *slot, size_t at, const char *row[L])
{
	const char *base = (const char *)(const void *)c->bodies + at;
	for (int l = 0; l < L; ++l)
		row[l] = base + (size_t)slot[l] * sizeof(solver_body);
}

/* what the setup reads of a body, besides its velocities */
typedef struct setup_body {
	V ii[6], si, inv_mass, rot[9];
} setup_body;

INLINE void setup_body_load(const solver_ctx *c, const uint32_t *slot, setup_body *b)
{
	const char *row[L];
	V r[8];
	body_rows(c, slot, 32, row);
	rows_to_lanes(row, r); /* ..., si (the low byte of int32 5), inv_mass (6, 7) */
	b->si = _mm512_and_si512(r[5], splat(0xFF));
	b->inv_mass = _mm512_or_si512(_mm512_and_si512(r[6], splat(0xFFFFFFFF)), _mm512_slli_epi64(r[7], 32));
	body_rows(c, slot, 64, row);
	rows_to_lanes(row, r); /* ii, rot_stamp, rot[0] */
	for (int i = 0; i < 6; ++i)
		b->ii[i] = r[i];
	b->rot[0] = r[7];
	body_rows(c, slot, 96, row);
	rows_to_lanes(row, r); /* rot[1..8] */
	for (int i = 0; i < 8; ++i)
		b->rot[1 + i] = r[i];
}

/* ---- setup ---- */

/* N = I^-1 [r]x and its part of K, the common path of joint_batch.c's
 * ball_response; lanes that leave it are marked in *rare */
INLINE V response(const setup_body *b, v3 r, V n[9], V k[6], M *rare)
{
	const V xx = b->ii[0], yy = b->ii[1], zz = b->ii[2], xy = b->ii[3], xz = b->ii[4], yz = b->ii[5];
	const V si = b->si;
	const V rx = r.x, ry = r.y, rz = r.z;
	V e[9];
	if (!_mm512_test_epi64_mask(_mm512_or_si512(_mm512_or_si512(xy, xz), yz), splat(-1))) {
		/* no products of inertia in any lane: the six nonzero terms (the
		 * portable code's shortcut, the same sums) */
		const V z = zero();
		e[0] = z, e[1] = sub(z, mul(xx, rz)), e[2] = mul(xx, ry);
		e[3] = mul(yy, rz), e[4] = z, e[5] = sub(z, mul(yy, rx));
		e[6] = sub(z, mul(zz, ry)), e[7] = mul(zz, rx), e[8] = z;
	} else {
		e[0] = sub(mul(xy, rz), mul(xz, ry)), e[1] = sub(mul(xz, rx), mul(xx, rz)), e[2] = sub(mul(xx, ry), mul(xy, rx));
		e[3] = sub(mul(yy, rz), mul(yz, ry)), e[4] = sub(mul(yz, rx), mul(xy, rz)), e[5] = sub(mul(xy, ry), mul(yy, rx));
		e[6] = sub(mul(yz, rz), mul(zz, ry)), e[7] = sub(mul(zz, rx), mul(xz, rz)), e[8] = sub(mul(xz, ry), mul(yz, rx));
	}
	V any = zero();
	for (int i = 0; i < 9; ++i)
		any = _mm512_or_si512(any, _mm512_abs_epi64(e[i]));
	V sh = _mm512_max_epi64(sub(bitlen(any), splat(FXS_SCALE_BITS)), splat(1));
	V ex = sub(add(si, splat(16)), sh);
	V over = _mm512_max_epi64(sub(ex, splat(62)), zero());
	sh = add(sh, over), ex = sub(ex, over);
	*rare |= _mm512_cmplt_epi64_mask(ex, splat(16)); /* ex < 1 clamps; ex < 16 scales up: both rare */
	V half = _mm512_sllv_epi64(splat(1), sub(sh, splat(1)));
	for (int i = 0; i < 9; ++i)
		n[i] = _mm512_srav_epi64(add(e[i], half), sh);
	V d[6] = { sub(mul(rz, n[3]), mul(ry, n[6])), sub(mul(rx, n[7]), mul(rz, n[1])), sub(mul(ry, n[2]), mul(rx, n[5])),
		   sub(mul(rz, n[4]), mul(ry, n[7])), sub(mul(rz, n[5]), mul(ry, n[8])), sub(mul(rx, n[8]), mul(rz, n[2])) };
	V s2 = _mm512_max_epi64(sub(ex, splat(16)), zero());
	for (int i = 0; i < 6; ++i) {
		V q = shr_half(d[i], s2);
		/* the portable code saturates a sum beyond int64: rare */
		*rare |= _mm512_cmpgt_epu64_mask(_mm512_abs_epi64(q), splat((int64_t)1 << 60));
		k[i] = add(k[i], q);
	}
	return ex;
}


/* K^-1 by the adjugate, the common path of joint_batch.c's sym3_inverse_hot */
INLINE V inverse(const V K[6], V out[6], M *rare)
{
	V any = zero();
	for (int i = 0; i < 6; ++i)
		any = _mm512_or_si512(any, _mm512_abs_epi64(K[i]));
	V bits = bitlen(any);
	*rare |= _mm512_cmpgt_epi64_mask(bits, splat(61)); /* near int64: rare */
	V t = sub(bits, splat(FXS_SCALE_BITS));
	M neg = _mm512_cmplt_epi64_mask(t, zero());
	V tp = _mm512_max_epi64(t, zero()), tn = _mm512_max_epi64(sub(zero(), t), zero());
	V k[6];
	for (int i = 0; i < 6; ++i)
		k[i] = sel(neg, _mm512_sllv_epi64(K[i], tn), shr_half(K[i], tp));
	const V xx = k[0], yy = k[1], zz = k[2], xy = k[3], xz = k[4], yz = k[5];
	V cf[6] = { sub(mul(yy, zz), mul(yz, yz)), sub(mul(xx, zz), mul(xz, xz)), sub(mul(xx, yy), mul(xy, xy)),
		    sub(mul(xz, yz), mul(xy, zz)), sub(mul(xy, yz), mul(xz, yy)), sub(mul(xy, xz), mul(xx, yz)) };
	any = zero();
	for (int i = 0; i < 6; ++i)
		any = _mm512_or_si512(any, _mm512_abs_epi64(cf[i]));
	V u = _mm512_max_epi64(sub(bitlen(any), splat(FXS_SCALE_BITS)), zero());
	for (int i = 0; i < 6; ++i)
		cf[i] = shr_half(cf[i], u);
	V det = add(add(mul(xx, cf[0]), mul(xy, cf[3])), mul(xz, cf[4]));
	M none = _mm512_cmpeq_epi64_mask(any, zero()) | _mm512_cmple_epi64_mask(det, zero()) |
		_mm512_cmple_epi64_mask(xx, zero()) | _mm512_cmple_epi64_mask(yy, zero()) | _mm512_cmple_epi64_mask(zz, zero());
	det = sel(none, splat(1), det); /* no division by zero in those lanes; their result is zero */
	V v = _mm512_max_epi64(sub(bitlen(det), splat(31)), zero());
	V dd = shr_half(det, v);
	/* the one division, lane by lane */
	uint64_t dl[L], rl[L];
	_mm512_storeu_si512((void *)dl, dd);
	for (int l = 0; l < L; ++l)
		rl[l] = ((((uint64_t)1 << 62) + dl[l] / 2) / dl[l]);
	V r = _mm512_loadu_si512((const void *)rl);
	V q[6];
	any = zero();
	for (int i = 0; i < 6; ++i) {
		q[i] = _mm512_mullo_epi64(cf[i], r);
		any = _mm512_or_si512(any, _mm512_abs_epi64(q[i]));
	}
	V w = _mm512_max_epi64(sub(bitlen(any), splat(FXS_SCALE_BITS)), zero());
	V s = sub(add(add(splat(62 - 32), v), t), w);
	*rare |= (_mm512_cmpgt_epi64_mask(s, splat(62)) | _mm512_cmplt_epi64_mask(s, splat(1))) & (M)~none;
	for (int i = 0; i < 6; ++i)
		out[i] = _mm512_maskz_mov_epi64((M)~none, shr_half(q[i], w));
	return sel(none, splat(62), s);
}

INLINE void load_velocities(const solver_ctx *c, const ball_batch *bt, bodies8 *s)
{
	body_rows(c, bt->a, 0, (const char **)s->pa), body_rows(c, bt->b, 0, (const char **)s->pb);
	V a[8], b[8];
	bodies_load(s, a, b);
}

/* joint_batch.c's ball_apply, clamps and counts by the guard (simd512.h) */
INLINE void ball_apply_v(const ball_batch *bt, bodies8 *s, const V p[3], guard *g, bool exact, uint32_t *count)
{
	const V ima = ld32(bt->ima), imb = ld32(bt->imb), sma = ld8(bt->sma), smb = ld8(bt->smb);
	const V ra = _mm512_sllv_epi64(splat(1), sub(sma, splat(1))), rb = _mm512_sllv_epi64(splat(1), sub(smb, splat(1)));
	const V nima = sub(zero(), ima);
	V *va[3] = { &s->va.x, &s->va.y, &s->va.z }, *vb[3] = { &s->vb.x, &s->vb.y, &s->vb.z };
	for (int k = 0; k < 3; ++k) {
		*va[k] = sat32g(add(*va[k], _mm512_srav_epi64(add(mul(nima, p[k]), ra), sma)), ALL_LANES, g, exact, count);
		*vb[k] = sat32g(add(*vb[k], _mm512_srav_epi64(add(mul(imb, p[k]), rb), smb)), ALL_LANES, g, exact, count);
	}
	const V sna = ld8(bt->sna), snb = ld8(bt->snb);
	const V qa = _mm512_sllv_epi64(splat(1), sub(sna, splat(1))), qb = _mm512_sllv_epi64(splat(1), sub(snb, splat(1)));
	V *wa[3] = { &s->wa.x, &s->wa.y, &s->wa.z }, *wb[3] = { &s->wb.x, &s->wb.y, &s->wb.z };
	for (int j = 0; j < 3; ++j) {
		V sa = add(add(mul(ld32(bt->na[j][0]), p[0]), mul(ld32(bt->na[j][1]), p[1])), mul(ld32(bt->na[j][2]), p[2]));
		V sb = add(add(mul(ld32(bt->nb[j][0]), p[0]), mul(ld32(bt->nb[j][1]), p[1])), mul(ld32(bt->nb[j][2]), p[2]));
		*wa[j] = sat32g(add(*wa[j], _mm512_srav_epi64(add(sub(zero(), sa), qa), sna)), ALL_LANES, g, exact, count);
		*wb[j] = sat32g(add(*wb[j], _mm512_srav_epi64(add(sb, qb), snb)), ALL_LANES, g, exact, count);
	}
}

/* fxg_add / fxg_sub per component: saturated, counted */
INLINE v3 add3s(v3 a, v3 b, guard *g, bool exact, uint32_t *count)
{
	v3 r = { sat32g(add(a.x, b.x), ALL_LANES, g, exact, count), sat32g(add(a.y, b.y), ALL_LANES, g, exact, count),
		 sat32g(add(a.z, b.z), ALL_LANES, g, exact, count) };
	return r;
}
INLINE v3 sub3s(v3 a, v3 b, guard *g, bool exact, uint32_t *count)
{
	v3 r = { sat32g(sub(a.x, b.x), ALL_LANES, g, exact, count), sat32g(sub(a.y, b.y), ALL_LANES, g, exact, count),
		 sat32g(sub(a.z, b.z), ALL_LANES, g, exact, count) };
	return r;
}

/* fxg_m3_mul_v3 (R v, each component a sum of three exact products,
 * rounded once, saturated) for the rotation joint_batch.c's body_rotation
 * left in the solver body */
INLINE v3 rotate(const setup_body *b, v3 v, guard *g, bool exact, uint32_t *count)
{
	const V *m = b->rot; /* cx.x cx.y cx.z cy.x ... */
	v3 r = { sat32g(shr_round16(add(add(mul(m[0], v.x), mul(m[3], v.y)), mul(m[6], v.z))), ALL_LANES, g, exact, count),
		 sat32g(shr_round16(add(add(mul(m[1], v.x), mul(m[4], v.y)), mul(m[7], v.z))), ALL_LANES, g, exact, count),
		 sat32g(shr_round16(add(add(mul(m[2], v.x), mul(m[5], v.y)), mul(m[8], v.z))), ALL_LANES, g, exact, count) };
	return r;
}

/* the world bodies' positions, for the lanes in use (the spare body of the
 * empty lanes is not a world body: they read zeros) */
_Static_assert(sizeof(fxs_body) - offsetof(fxs_body, xf) - offsetof(fxs_transform, p) >= 32,
	       "positions reads 32 bytes from a world body's position");
INLINE v3 positions(const solver_ctx *c, const uint32_t *slot, M live)
{
	static const int32_t none[8];
	const char *base = (const char *)(const void *)c->w->bodies + offsetof(fxs_body, xf) + offsetof(fxs_transform, p);
	const char *row[L];
	for (int l = 0; l < L; ++l)
		row[l] = (live >> l & 1) ? base + (size_t)slot[l] * sizeof(fxs_body) : (const char *)(const void *)none;
	V r[8];
	rows_to_lanes(row, r);
	return (v3){ r[0], r[1], r[2] };
}

INLINE void st3(int32_t f[3][L], v3 v) { st32(f[0], v.x), st32(f[1], v.y), st32(f[2], v.z); }

/* a batch's lever arms and separation (joint_batch.c's lever_arms); false
 * (to be run again exactly) when the fast path left its range */
INLINE bool lever_arms_v(solver_ctx *c, ball_batch *bt, const setup_body *A, const setup_body *B, bool exact,
			 uint32_t *count)
{
	guard g = guard_new();
	const M live = _mm256_cmpneq_epu32_mask(_mm256_loadu_si256((const __m256i *)(const void *)bt->joint), _mm256_set1_epi32(-1));
	v3 ra = rotate(A, ld3(bt->local_a), &g, exact, count), rb = rotate(B, ld3(bt->local_b), &g, exact, count);
	v3 pa = add3s(positions(c, bt->a, live), ra, &g, exact, count), pb = add3s(positions(c, bt->b, live), rb, &g, exact, count);
	v3 c0 = sub3s(pb, pa, &g, exact, count);
	if (!exact && !guard_ok(&g, 0))
		return false;
	st3(bt->ra, ra), st3(bt->rb, rb), st3(bt->c0, c0);
	return true;
}

/* a batch's warm start (see lever_arms_v) */
INLINE bool warm_v(solver_ctx *c, const ball_batch *bt, bool exact, uint32_t *count)
{
	guard g = guard_new();
	bodies8 s;
	load_velocities(c, bt, &s);
	const V p[3] = { imp32g(ld64(bt->P[0]), ALL_LANES, &g, exact, count), imp32g(ld64(bt->P[1]), ALL_LANES, &g, exact, count),
			 imp32g(ld64(bt->P[2]), ALL_LANES, &g, exact, count) };
	ball_apply_v(bt, &s, p, &g, exact, count);
	if (!exact && !guard_ok(&g, 0))
		return false;
	bodies_store(&s);
	return true;
}

uint32_t fxs_ball_setup_avx512(solver_ctx *c, uint32_t first, uint32_t end)
{
	uint32_t count = 0;
	for (uint32_t i = first; i < end; ++i) {
		ball_batch *bt = &c->ball_batches[i];
		setup_body A, B;
		setup_body_load(c, bt->a, &A), setup_body_load(c, bt->b, &B);
		if (!lever_arms_v(c, bt, &A, &B, false, &count))
			lever_arms_v(c, bt, &A, &B, true, &count);
		const V m = add(A.inv_mass, B.inv_mass);
		M rare = _mm512_cmpgt_epu64_mask(m, splat((int64_t)1 << 60));
		V k[6] = { m, m, m, zero(), zero(), zero() };
		V na[9], nb[9], kinv[6];
		V sna = response(&A, ld3(bt->ra), na, k, &rare);
		V snb = response(&B, ld3(bt->rb), nb, k, &rare);
		V sk = inverse(k, kinv, &rare);
		for (int j = 0; j < 9; ++j)
			st32(bt->na[j / 3][j % 3], na[j]), st32(bt->nb[j / 3][j % 3], nb[j]);
		for (int j = 0; j < 6; ++j)
			st32(bt->kinv[j], kinv[j]);
		st8(bt->sna, sna), st8(bt->snb, snb), st8(bt->sk, sk);
		/* the lanes off the common path: the portable setup, which counts
		 * its own saturations */
		for (int l = 0; rare && l < L; ++l)
			if ((rare >> l & 1) && bt->joint[l] != FXS_BALL_EMPTY)
				fxs_ball_setup_lane(c, bt, l, &count);
	}
	return count;
}

uint32_t fxs_ball_warm_start_avx512(solver_ctx *c, uint32_t first, uint32_t end)
{
	uint32_t count = 0;
	for (uint32_t i = first; i < end; ++i) {
		const ball_batch *bt = &c->ball_batches[i];
		if (!warm_v(c, bt, false, &count))
			warm_v(c, bt, true, &count);
	}
	return count;
}

/* (x f + 2^15) >> 16 for |x| < 2^47 (joint_batch.c's mul_q16s) */
INLINE V mul_q16s(V x, V f)
{
	V hi = mul(_mm512_srai_epi64(x, 16), f);
	V lo = _mm512_srai_epi64(add(mul(_mm512_and_si512(x, splat(0xFFFF)), f), splat(0x8000)), 16);
	return add(hi, lo);
}

/* a batch's pass (see lever_arms_v) */
INLINE bool ball_solve_v(solver_ctx *c, ball_batch *bt, bool use_bias, bool exact, uint32_t *count)
{
	guard g = guard_new();
	bodies8 s;
	load_velocities(c, bt, &s);
	const v3 ra = ld3(bt->ra), rb = ld3(bt->rb);
	/* Cdot = vb + wb x rb - va - wa x ra, exact */
	V cd[3] = {
		add(_mm512_slli_epi64(sub(s.vb.x, s.va.x), 16),
		    sub(sub(mul(s.wb.y, rb.z), mul(s.wb.z, rb.y)), sub(mul(s.wa.y, ra.z), mul(s.wa.z, ra.y)))),
		add(_mm512_slli_epi64(sub(s.vb.y, s.va.y), 16),
		    sub(sub(mul(s.wb.z, rb.x), mul(s.wb.x, rb.z)), sub(mul(s.wa.z, ra.x), mul(s.wa.x, ra.z)))),
		add(_mm512_slli_epi64(sub(s.vb.z, s.va.z), 16),
		    sub(sub(mul(s.wb.x, rb.y), mul(s.wb.y, rb.x)), sub(mul(s.wa.x, ra.y), mul(s.wa.y, ra.x))))
	};
	V v[3];
	const V bias_rate = ld32(bt->bias_rate);
	for (int k = 0; k < 3; ++k) {
		V x = shr_round16(cd[k]);
		if (use_bias)
			x = add(x, sat32g(shr_round16(mul(bias_rate, ld32(bt->c0[k]))), ALL_LANES, &g, exact, count));
		v[k] = sat32g(x, ALL_LANES, &g, exact, count);
	}
	const V sk = ld8(bt->sk), r = _mm512_sllv_epi64(splat(1), sub(sk, splat(1)));
	const V m0 = ld32(bt->kinv[0]), m1 = ld32(bt->kinv[1]), m2 = ld32(bt->kinv[2]), m3 = ld32(bt->kinv[3]),
		m4 = ld32(bt->kinv[4]), m5 = ld32(bt->kinv[5]);
	const V x[3] = { _mm512_srav_epi64(add(add(add(mul(m0, v[0]), mul(m3, v[1])), mul(m4, v[2])), r), sk),
			 _mm512_srav_epi64(add(add(add(mul(m3, v[0]), mul(m1, v[1])), mul(m5, v[2])), r), sk),
			 _mm512_srav_epi64(add(add(add(mul(m4, v[0]), mul(m5, v[1])), mul(m2, v[2])), r), sk) };
	const V ms = ld32(bt->mass_scale), is = ld32(bt->impulse_scale);
	V p[3], P1[3];
	for (int k = 0; k < 3; ++k) {
		V imp = sat32g(sub(zero(), x[k]), ALL_LANES, &g, exact, count);
		V P = ld64(bt->P[k]);
		if (use_bias)
			imp = sub(_mm512_srai_epi64(add(mul(imp, ms), splat(0x8000)), 16), mul_q16s(P, is));
		V np = add(P, imp);
		if (exact) {
			V cl = _mm512_min_epi64(_mm512_max_epi64(np, splat(-FXS_BALL_IMPULSE_MAX)), splat(FXS_BALL_IMPULSE_MAX));
			count_out(np, cl, ALL_LANES, count);
			np = cl;
		} else {
			note_wide(&g, np, ALL_LANES);
		}
		P1[k] = np;
		p[k] = imp32g(imp, ALL_LANES, &g, exact, count);
	}
	ball_apply_v(bt, &s, p, &g, exact, count);
	if (!exact && !guard_ok(&g, FXS_BALL_IMPULSE_MAX))
		return false;
	for (int k = 0; k < 3; ++k)
		st64(bt->P[k], P1[k]);
	bodies_store(&s);
	return true;
}

uint32_t fxs_ball_solve_avx512(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias)
{
	uint32_t count = 0;
	/* use_bias a constant in each loop */
	for (uint32_t i = first; i < end; ++i) {
		ball_batch *bt = &c->ball_batches[i];
		if (use_bias ? !ball_solve_v(c, bt, true, false, &count) : !ball_solve_v(c, bt, false, false, &count))
			ball_solve_v(c, bt, use_bias, true, &count);
	}
	return count;
}

#else

uint32_t fxs_ball_setup_avx512(solver_ctx *c, uint32_t first, uint32_t end)
{
	(void)c, (void)first, (void)end;
	return 0;
}

uint32_t fxs_ball_warm_start_avx512(solver_ctx *c, uint32_t first, uint32_t end)
{
	(void)c, (void)first, (void)end;
	return 0;
}

uint32_t fxs_ball_solve_avx512(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias)
{
	(void)c, (void)first, (void)end, (void)use_bias;
	return 0;
}

#endif
