/* Ball joints in batches (joint_batch.h): the vector kernels, written once
 * on the lanes of simd/lanes.h and compiled for each instruction set
 * (simd/kernels_avx2.c, _avx512.c, _neon.c, _simd128.c include their
 * layer, define VK, then this, and put its entry points in their table).
 *
 * The formulas are joint_batch.c's, lane for lane (contact_batch_vector.h
 * says how they carry over); a change there is made here once. Which
 * portable function each part mirrors:
 *   rotation_of    body_rotation (fxg_m3_from_quat), in range (lanes_common.h)
 *   lever_arms_v   lever_arms (fxg_m3_mul_v3, fxg_v3_add, fxg_v3_sub)
 *   response       ball_response (its common path)
 *   inverse        sym3_inverse_hot (its common path; the one division per
 *                  joint, the determinant's, lane by lane in scalar)
 *   ball_apply_v   ball_apply (add3)
 *   warm_v         fxs_ball_warm_start (impulse32, ball_apply)
 *   ball_solve_v   solve_lane (mul_q16s, impulse32, the FXS_BALL_IMPULSE_MAX clamp)
 * The setup's rare branches (a response or an inverse beyond the stated
 * ranges, where a shift would leave [1, 62]) are left to the portable code
 * lane by lane (fxs_ball_setup_lane). Shifts of values that may pass 2^62
 * (sums of three 30 x 31-bit products) are exact (srav); the others go by
 * sra62 and shr_by (cheaper on AVX2), each with its bound said. */

#include <stddef.h>

#define L FXS_BALL_LANES
/* the loops over a few vectors unrolled (so that their arrays stay in
 * registers) */
#define UNROLL _Pragma("GCC unroll 16")

/* The bodies of a batch's lanes, and their fields as lanes: each body read
 * as rows of 32 bytes (rows_to_lanes) instead of gathered. */
_Static_assert(offsetof(solver_body, v) == 0 && offsetof(solver_body, w) == 12 && offsetof(solver_body, si) == 52 &&
		       offsetof(solver_body, inv_mass) == 56 && offsetof(solver_body, ii) == 64 &&
		       offsetof(solver_body, rot) == 92 && sizeof(fxg_mat3) == 36,
	       "the ball kernels read a solver body as rows of 32 bytes at 0, 32, 64 and 96");

/* the world bodies' positions and orientations, for the lanes in use (the
 * spare body of the empty lanes is not a world body: they read zeros) */
_Static_assert(offsetof(fxs_transform, q) == offsetof(fxs_transform, p) + 12 &&
		       sizeof(fxs_body) - offsetof(fxs_body, xf) - offsetof(fxs_transform, p) >= 32,
	       "pose reads 32 bytes from a world body's position: p, then q");
INLINE void pose(const solver_ctx *c, const uint32_t *slot, uint32_t live, V r[8])
{
	static const int32_t none[8];
	const char *base = (const char *)(const void *)c->w->bodies + offsetof(fxs_body, xf) + offsetof(fxs_transform, p);
	const char *row[VW];
	UNROLL
	for (int l = 0; l < VW; ++l)
		row[l] = (live >> l & 1) ? base + (size_t)slot[l] * sizeof(fxs_body) : (const char *)(const void *)none;
	rows_to_lanes(row, r); /* p.x p.y p.z q.x q.y q.z q.w */
}

/* The rotations of the lanes' bodies where a quaternion is out of
 * rotation_of's range (a saturation to count, once per body and
 * orientation): those fxs_ball_rotations made, read from the solver bodies
 * (rot[0] ends the row at 64, rot[1..8] fill the one at 96). */
static __attribute__((noinline, cold)) void kept_rotations(solver_ctx *c, const uint32_t *slot, V m[9])
{
	char *row[VW];
	V r[8];
	body_rows(c->bodies, sizeof(solver_body), slot, 64, row);
	rows_to_lanes((const char *const *)row, r);
	m[0] = r[7];
	body_rows(c->bodies, sizeof(solver_body), slot, 96, row);
	rows_to_lanes((const char *const *)row, r);
	for (int i = 0; i < 8; ++i)
		m[1 + i] = r[i];
}

/* ---- setup ---- */

/* N = I^-1 [r]x of the bodies in slot[], stored in nout (the batch's na
 * or nb), and its part of K added into k, the common path of
 * ball_response; its shift returned, the bodies' inverse masses in
 * *inv_mass. Lanes that leave the common path are marked in *rare. The
 * body's rows are read here, where they are used, so that few values live
 * across the setup (AVX2 has 16 registers). */
INLINE V response(const solver_ctx *c, const uint32_t *slot, v3 r, int32_t (*nout)[3][L], V k[6], V *inv_mass, M *rare,
		  int h)
{
	char *row[VW];
	V b[8];
	body_rows(c->bodies, sizeof(solver_body), slot, 32, row);
	rows_to_lanes((const char *const *)row, b); /* ..., si (the low byte of int32 5), inv_mass (6, 7) */
	const V si = and_(b[5], splat(0xFF));
	*inv_mass = or_(and_(b[6], splat(0xFFFFFFFF)), slli(b[7], 32));
	body_rows(c->bodies, sizeof(solver_body), slot, 64, row);
	rows_to_lanes((const char *const *)row, b); /* ii */
	const V xx = b[0], yy = b[1], zz = b[2], xy = b[3], xz = b[4], yz = b[5];
	const V rx = r.x, ry = r.y, rz = r.z;
	V e[9], n[9];
	if (!m_bits(m_not(eq(or_(or_(xy, xz), yz), zero())))) {
		/* no products of inertia in any lane (spheres, cubes): the six
		 * nonzero terms, the same sums */
		const V z = zero();
		e[0] = z, e[1] = sub(z, mul(xx, rz)), e[2] = mul(xx, ry);
		e[3] = mul(yy, rz), e[4] = z, e[5] = sub(z, mul(yy, rx));
		e[6] = sub(z, mul(zz, ry)), e[7] = mul(zz, rx), e[8] = z;
	} else {
		e[0] = sub(mul(xy, rz), mul(xz, ry)), e[1] = sub(mul(xz, rx), mul(xx, rz));
		e[2] = sub(mul(xx, ry), mul(xy, rx));
		e[3] = sub(mul(yy, rz), mul(yz, ry)), e[4] = sub(mul(yz, rx), mul(xy, rz));
		e[5] = sub(mul(xy, ry), mul(yy, rx));
		e[6] = sub(mul(yz, rz), mul(zz, ry)), e[7] = sub(mul(zz, rx), mul(xz, rz));
		e[8] = sub(mul(xz, ry), mul(yz, rx));
	}
	V any = zero();
	UNROLL
	for (int i = 0; i < 9; ++i)
		any = or_(any, abs_(e[i]));
	V sh = max_(sub(bitlen(any), splat(FXS_SCALE_BITS)), splat(1));
	V ex = sub(add(si, splat(16)), sh);
	V over = max_(sub(ex, splat(62)), zero());
	sh = add(sh, over), ex = sub(ex, over);
	*rare = m_or(*rare, gt(splat(16), ex)); /* ex < 1 clamps; ex < 16 scales up: both rare */
	const shifter hsh = shifter_of(sh);     /* |e| <= 2^62: two 30 x 31-bit products */
	UNROLL
	for (int i = 0; i < 9; ++i) {
		n[i] = shr_by(e[i], &hsh);
		st32(nout[i / 3][i % 3], n[i]);
	}
	V d[6] = { sub(mul(rz, n[3]), mul(ry, n[6])), sub(mul(rx, n[7]), mul(rz, n[1])), sub(mul(ry, n[2]), mul(rx, n[5])),
		   sub(mul(rz, n[4]), mul(ry, n[7])), sub(mul(rz, n[5]), mul(ry, n[8])), sub(mul(rx, n[8]), mul(rz, n[2])) };
	const shifter h2 = shifter_of(max_(sub(ex, splat(16)), zero())); /* |d| < 2^62: as e */
	/* the portable code saturates a sum beyond int64: a q with |q| >= 2^60
	 * is rare (q + 2^60 outside [0, 2^61): any bit from 61 up in their or) */
	V wide = zero();
	UNROLL
	for (int i = 0; i < 6; ++i) {
		V q = shr_by(d[i], &h2);
		wide = or_(wide, add(q, splat((int64_t)1 << 60)));
		k[i] = add(k[i], q);
	}
	*rare = m_or(*rare, ugt(wide, splat(((int64_t)1 << 61) - 1)));
	return ex;
}

/* K^-1 by the adjugate, the common path of sym3_inverse_hot */
INLINE V inverse(const V K[6], V out[6], M *rare)
{
	V any = zero();
	UNROLL
	for (int i = 0; i < 6; ++i)
		any = or_(any, abs_(K[i]));
	V bits = bitlen(any);
	*rare = m_or(*rare, gt(bits, splat(61))); /* near int64: rare */
	V t = sub(bits, splat(FXS_SCALE_BITS));
	M neg = gt(zero(), t);
	V k[6];
	/* K scaled up (t < 0) or down (t >= 0; |K| < 2^61, or the lane is
	 * rare); t = 0 is either. One way when all lanes agree (a scene's K
	 * are mostly of one size), both and a select otherwise. */
	const uint32_t up = m_bits(neg), down = m_bits(gt(t, zero()));
	if (!down) {
		const V tn = sub(zero(), t);
		UNROLL
		for (int i = 0; i < 6; ++i)
			k[i] = sllv(K[i], tn);
	} else {
		const shifter htp = shifter_of(max_(t, zero()));
		UNROLL
		for (int i = 0; i < 6; ++i)
			k[i] = shr_by(K[i], &htp);
		if (up) {
			const V tn = max_(sub(zero(), t), zero());
			UNROLL
			for (int i = 0; i < 6; ++i)
				k[i] = sel(neg, sllv(K[i], tn), k[i]);
		}
	}
	const V xx = k[0], yy = k[1], zz = k[2], xy = k[3], xz = k[4], yz = k[5];
	V cf[6] = { sub(mul(yy, zz), mul(yz, yz)), sub(mul(xx, zz), mul(xz, xz)), sub(mul(xx, yy), mul(xy, xy)),
		    sub(mul(xz, yz), mul(xy, zz)), sub(mul(xy, yz), mul(xz, yy)), sub(mul(xy, xz), mul(xx, yz)) };
	any = zero();
	UNROLL
	for (int i = 0; i < 6; ++i)
		any = or_(any, abs_(cf[i]));
	const shifter hu = shifter_of(max_(sub(bitlen(any), splat(FXS_SCALE_BITS)), zero())); /* |cf| < 2^61 */
	UNROLL
	for (int i = 0; i < 6; ++i)
		cf[i] = shr_by(cf[i], &hu);
	V det = add(add(mul(xx, cf[0]), mul(xy, cf[3])), mul(xz, cf[4]));
	M none = m_or(m_or(eq(any, zero()), le(det, zero())), m_or(m_or(le(xx, zero()), le(yy, zero())), le(zz, zero())));
	det = sel(none, splat(1), det);                 /* no division by zero in those lanes; their result is zero */
	V v = sub(bitlen(det), splat(31));              /* negative for a det below 2^30 */
	const shifter hv = shifter_of(max_(v, zero())); /* det < 2^62: three products below 2^60 */
	V dd = sel(gt(zero(), v), sllv(det, sub(zero(), v)), shr_by(det, &hv));
	/* the one division, lane by lane */
	uint64_t dl[VW], rl[VW];
	st64_((int64_t *)(void *)dl, dd);
	UNROLL
	for (int l = 0; l < VW; ++l)
		rl[l] = ((((uint64_t)1 << 62) + dl[l] / 2) / dl[l]);
	V r = ld64_((const int64_t *)(const void *)rl);
	V q[6];
	any = zero();
	UNROLL
	for (int i = 0; i < 6; ++i) {
		q[i] = mullo(cf[i], r);
		any = or_(any, abs_(q[i]));
	}
	V w = max_(sub(bitlen(any), splat(FXS_SCALE_BITS)), zero());
	V s = sub(add(add(splat(62 - 32), v), t), w);
	*rare = m_or(*rare, m_andnot(none, m_or(gt(s, splat(62)), gt(splat(1), s))));
	/* |q| <= 2^62: in shr_by's exact range on every layer (AVX2's form
	 * needs q + 2^62 + 2^(w-1) in [0, 2^64)) */
	const shifter hw = shifter_of(w);
	UNROLL
	for (int i = 0; i < 6; ++i)
		out[i] = maskz(m_not(none), shr_by(q[i], &hw));
	return sel(none, splat(62), s);
}

INLINE void load_velocities(const solver_ctx *c, const ball_batch *bt, bodies *s, int h)
{
	body_rows(c->bodies, sizeof(solver_body), bt->a + h, 0, s->pa);
	body_rows(c->bodies, sizeof(solver_body), bt->b + h, 0, s->pb);
	V a[8], b[8];
	bodies_load(s, a, b);
}

/* ball_apply, clamps and counts by the guard */
INLINE void ball_apply_v(const ball_batch *bt, bodies *s, const V p[3], guard *g, bool exact, uint32_t *count, int h)
{
	const V ima = ld32(bt->ima), imb = ld32(bt->imb);
	const shifter ha = shifter_of(ld8(bt->sma)), hb = shifter_of(ld8(bt->smb));
	const V nima = sub(zero(), ima);
	V *va[3] = { &s->va.x, &s->va.y, &s->va.z }, *vb[3] = { &s->vb.x, &s->vb.y, &s->vb.z };
	UNROLL
	for (int k = 0; k < 3; ++k) { /* one product below 2^61 */
		*va[k] = sat32g(add(*va[k], shr_by(mul(nima, p[k]), &ha)), m_all(), g, exact, count);
		*vb[k] = sat32g(add(*vb[k], shr_by(mul(imb, p[k]), &hb)), m_all(), g, exact, count);
	}
	const V sna = ld8(bt->sna), snb = ld8(bt->snb);
	const V qa = sllv(splat(1), sub(sna, splat(1))), qb = sllv(splat(1), sub(snb, splat(1)));
	V *wa[3] = { &s->wa.x, &s->wa.y, &s->wa.z }, *wb[3] = { &s->wb.x, &s->wb.y, &s->wb.z };
	UNROLL
	for (int j = 0; j < 3; ++j) {
		V sa = add(add(mul(ld32(bt->na[j][0]), p[0]), mul(ld32(bt->na[j][1]), p[1])), mul(ld32(bt->na[j][2]), p[2]));
		V sb = add(add(mul(ld32(bt->nb[j][0]), p[0]), mul(ld32(bt->nb[j][1]), p[1])), mul(ld32(bt->nb[j][2]), p[2]));
		*wa[j] = sat32g(add(*wa[j], srav(add(sub(zero(), sa), qa), sna)), m_all(), g, exact, count);
		*wb[j] = sat32g(add(*wb[j], srav(add(sb, qb), snb)), m_all(), g, exact, count);
	}
}

/* fxg_add / fxg_sub per component: saturated, counted */
INLINE v3 add3s(v3 a, v3 b, guard *g, bool exact, uint32_t *count)
{
	v3 r = { sat32g(add(a.x, b.x), m_all(), g, exact, count), sat32g(add(a.y, b.y), m_all(), g, exact, count),
		 sat32g(add(a.z, b.z), m_all(), g, exact, count) };
	return r;
}
INLINE v3 sub3s(v3 a, v3 b, guard *g, bool exact, uint32_t *count)
{
	v3 r = { sat32g(sub(a.x, b.x), m_all(), g, exact, count), sat32g(sub(a.y, b.y), m_all(), g, exact, count),
		 sat32g(sub(a.z, b.z), m_all(), g, exact, count) };
	return r;
}

/* fxg_m3_mul_v3 (R v, each component a sum of three exact products,
 * rounded once, saturated) */
INLINE v3 rotate(const V m[9], v3 v, guard *g, bool exact, uint32_t *count)
{
	/* m: cx.x cx.y cx.z cy.x ... */
	v3 r = { sat32g(shr_round16(add(add(mul(m[0], v.x), mul(m[3], v.y)), mul(m[6], v.z))), m_all(), g, exact, count),
		 sat32g(shr_round16(add(add(mul(m[1], v.x), mul(m[4], v.y)), mul(m[7], v.z))), m_all(), g, exact, count),
		 sat32g(shr_round16(add(add(mul(m[2], v.x), mul(m[5], v.y)), mul(m[8], v.z))), m_all(), g, exact, count) };
	return r;
}

/* the lanes in use, as bits */
INLINE uint32_t live_joints(const ball_batch *bt, int h)
{
	return m_bits(m_not(eq(ld32_((const int32_t *)(const void *)bt->joint + h), splat(-1))));
}

/* a body's lever arm r = R local and its anchor p + r (fxg_m3_mul_v3,
 * fxg_v3_add), the rotation made from the pose and used at once */
INLINE void arm(solver_ctx *c, const uint32_t *slot, uint32_t live, v3 local, v3 *r, v3 *at, guard *g, bool exact,
		uint32_t *count)
{
	V q[8], m[9];
	pose(c, slot, live, q);
	const uint32_t out = rotation_of(q + 3, m) & live;
	if (__builtin_expect(out, 0)) { /* those lanes' only: the others' are not kept */
		V kept[9];
		kept_rotations(c, slot, kept);
		const M o = m_from_bits(out);
		UNROLL
		for (int i = 0; i < 9; ++i)
			m[i] = sel(o, kept[i], m[i]);
	}
	*r = rotate(m, local, g, exact, count);
	*at = add3s((v3){ q[0], q[1], q[2] }, *r, g, exact, count);
}

/* lever_arms for lanes h..h+VW; false (to be run again exactly) when the
 * fast path left its range. *turned: whether an arm changed in a lane. */
INLINE bool lever_arms_v(solver_ctx *c, ball_batch *bt, bool exact, uint32_t *count, int h, bool *turned)
{
	guard g = guard_new(0);
	const uint32_t live = live_joints(bt, h);
	v3 ra, rb, pa, pb;
	arm(c, bt->a + h, live, ld3(bt->local_a), &ra, &pa, &g, exact, count);
	arm(c, bt->b + h, live, ld3(bt->local_b), &rb, &pb, &g, exact, count);
	v3 c0 = sub3s(pb, pa, &g, exact, count);
	if (!exact && !guard_ok(&g))
		return false;
	const v3 oa = ld3(bt->ra), ob = ld3(bt->rb); /* (the empty lanes' stay zero) */
	*turned = m_any(m_not(m_and(m_and(m_and(eq(oa.x, ra.x), eq(oa.y, ra.y)), m_and(eq(oa.z, ra.z), eq(ob.x, rb.x))),
				    m_and(eq(ob.y, rb.y), eq(ob.z, rb.z)))));
	st3(bt->ra, ra), st3(bt->rb, rb), st3(bt->c0, c0);
	return true;
}

/* the warm start of lanes h..h+VW (see lever_arms_v) */
INLINE bool warm_v(solver_ctx *c, const ball_batch *bt, bool exact, uint32_t *count, int h)
{
	guard g = guard_new(0);
	bodies s;
	load_velocities(c, bt, &s, h);
	const V p[3] = { imp32g(ld64(bt->P[0]), m_all(), &g, exact, count), imp32g(ld64(bt->P[1]), m_all(), &g, exact, count),
			 imp32g(ld64(bt->P[2]), m_all(), &g, exact, count) };
	ball_apply_v(bt, &s, p, &g, exact, count, h);
	if (!exact && !guard_ok(&g))
		return false;
	_Alignas(64) char sink[64];
	if (c->tasks) /* (contact_batch_vector.h) */
		bodies_keep_shared(&s, sink);
	bodies_store(&s);
	return true;
}

/* the exact paths, out of line: they run rarely, and inlined their
 * registers would weigh on the fast paths' */
static __attribute__((noinline, cold)) void lever_arms_exact(solver_ctx *c, ball_batch *bt, uint32_t *count, int h,
							     bool *turned)
{
	lever_arms_v(c, bt, true, count, h, turned);
}
static __attribute__((noinline, cold)) void warm_exact(solver_ctx *c, const ball_batch *bt, uint32_t *count, int h)
{
	warm_v(c, bt, true, count, h);
}

/* the setup of lanes h..h+VW after their lever arms: K = (ma^-1 + mb^-1)
 * I + a's part + b's part, added in another order than the portable
 * code's (the same sum: outside the rare lanes nothing saturates) */
INLINE void setup(solver_ctx *c, ball_batch *bt, uint32_t *count, int h)
{
	M rare = m_none();
	V k[6] = { zero(), zero(), zero(), zero(), zero(), zero() }, ma, mb, kinv[6];
	const V sna = response(c, bt->a + h, ld3(bt->ra), bt->na, k, &ma, &rare, h);
	const V snb = response(c, bt->b + h, ld3(bt->rb), bt->nb, k, &mb, &rare, h);
	const V m = add(ma, mb);
	rare = m_or(rare, ugt(m, splat((int64_t)1 << 60)));
	k[0] = add(k[0], m), k[1] = add(k[1], m), k[2] = add(k[2], m);
	const V sk = inverse(k, kinv, &rare);
	UNROLL
	for (int j = 0; j < 6; ++j)
		st32(bt->kinv[j], kinv[j]);
	st8(bt->sna, sna), st8(bt->snb, snb), st8(bt->sk, sk);
	/* the lanes off the common path: the portable setup, which counts its
	 * own saturations */
	const uint32_t r = m_bits(rare);
	for (int l = 0; r && l < VW; ++l)
		if ((r >> l & 1) && bt->joint[h + l] != FXS_BALL_EMPTY)
			fxs_ball_setup_lane(c, bt, h + l, count);
}

/* the lever arms, then (all, or an arm of the batch changed: the rule of
 * fxs_ball_setup, batch by batch) the rest */
static uint32_t VKN(fxs_ball_setup)(solver_ctx *c, uint32_t first, uint32_t end, bool all)
{
	uint32_t count = 0;
	for (uint32_t i = first; i < end; ++i) {
		ball_batch *bt = &c->ball_batches[i];
		bool turned = false;
		for (int h = 0; h < L; h += VW) {
			bool t = false;
			if (!lever_arms_v(c, bt, false, &count, h, &t))
				lever_arms_exact(c, bt, &count, h, &t);
			turned |= t;
		}
		if (turned || all)
			for (int h = 0; h < L; h += VW)
				setup(c, bt, &count, h);
	}
	return count;
}

static uint32_t VKN(fxs_ball_warm_start)(solver_ctx *c, uint32_t first, uint32_t end)
{
	uint32_t count = 0;
	for (uint32_t i = first; i < end; ++i)
		for (int h = 0; h < L; h += VW)
			if (!warm_v(c, &c->ball_batches[i], false, &count, h))
				warm_exact(c, &c->ball_batches[i], &count, h);
	return count;
}

/* (x f + 2^15) >> 16 for |x| < 2^47 (joint_batch.c's mul_q16s) */
INLINE V mul_q16s(V x, V f)
{
	V hi = mul(sra62(x, 16), f);
	V lo = sra62(add(mul(and_(x, splat(0xFFFF)), f), splat(0x8000)), 16);
	return add(hi, lo);
}

/* solve_lane for lanes h..h+VW (see lever_arms_v) */
INLINE bool ball_solve_v(solver_ctx *c, ball_batch *bt, bool use_bias, bool exact, uint32_t *count, int h)
{
	guard g = guard_new(FXS_BALL_IMPULSE_MAX);
	bodies s;
	load_velocities(c, bt, &s, h);
	const v3 ra = ld3(bt->ra), rb = ld3(bt->rb);
	/* Cdot = vb + wb x rb - va - wa x ra, exact */
	V cd[3] = { add(slli(sub(s.vb.x, s.va.x), 16),
			sub(sub(mul(s.wb.y, rb.z), mul(s.wb.z, rb.y)), sub(mul(s.wa.y, ra.z), mul(s.wa.z, ra.y)))),
		    add(slli(sub(s.vb.y, s.va.y), 16),
			sub(sub(mul(s.wb.z, rb.x), mul(s.wb.x, rb.z)), sub(mul(s.wa.z, ra.x), mul(s.wa.x, ra.z)))),
		    add(slli(sub(s.vb.z, s.va.z), 16),
			sub(sub(mul(s.wb.x, rb.y), mul(s.wb.y, rb.x)), sub(mul(s.wa.x, ra.y), mul(s.wa.y, ra.x)))) };
	V v[3];
	const V bias_rate = ld32(bt->bias_rate);
	UNROLL
	for (int k = 0; k < 3; ++k) {
		V x = shr_round16(cd[k]);
		if (use_bias)
			x = add(x, sat32g(shr_round16(mul(bias_rate, ld32(bt->c0[k]))), m_all(), &g, exact, count));
		v[k] = sat32g(x, m_all(), &g, exact, count);
	}
	const V sk = ld8(bt->sk), r = sllv(splat(1), sub(sk, splat(1)));
	const V m0 = ld32(bt->kinv[0]), m1 = ld32(bt->kinv[1]), m2 = ld32(bt->kinv[2]), m3 = ld32(bt->kinv[3]),
		m4 = ld32(bt->kinv[4]), m5 = ld32(bt->kinv[5]);
	const V x[3] = { srav(add(add(add(mul(m0, v[0]), mul(m3, v[1])), mul(m4, v[2])), r), sk),
			 srav(add(add(add(mul(m3, v[0]), mul(m1, v[1])), mul(m5, v[2])), r), sk),
			 srav(add(add(add(mul(m4, v[0]), mul(m5, v[1])), mul(m2, v[2])), r), sk) };
	const V ms = ld32(bt->mass_scale), is = ld32(bt->impulse_scale);
	V p[3], P1[3];
	UNROLL
	for (int k = 0; k < 3; ++k) {
		V imp = sat32g(sub(zero(), x[k]), m_all(), &g, exact, count);
		V P = ld64(bt->P[k]);
		if (use_bias)
			imp = sub(sra62(add(mul(imp, ms), splat(0x8000)), 16), mul_q16s(P, is));
		V np = add(P, imp);
		if (exact) {
			V cl = min_(max_(np, splat(-FXS_BALL_IMPULSE_MAX)), splat(FXS_BALL_IMPULSE_MAX));
			count_out(np, cl, m_all(), count);
			np = cl;
		} else {
			note_wide(&g, np, m_all());
		}
		P1[k] = np;
		p[k] = imp32g(imp, m_all(), &g, exact, count);
	}
	ball_apply_v(bt, &s, p, &g, exact, count, h);
	if (!exact && !guard_ok(&g))
		return false;
	UNROLL
	for (int k = 0; k < 3; ++k)
		st64(bt->P[k], P1[k]);
	_Alignas(64) char sink[64];
	if (c->tasks) /* (contact_batch_vector.h) */
		bodies_keep_shared(&s, sink);
	bodies_store(&s);
	return true;
}

static __attribute__((noinline, cold)) void ball_solve_exact(solver_ctx *c, ball_batch *bt, bool use_bias,
							     uint32_t *count, int h)
{
	ball_solve_v(c, bt, use_bias, true, count, h);
}

/* use_bias a constant in each copy */
INLINE uint32_t ball_solve_batches(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias)
{
	uint32_t count = 0;
	for (uint32_t i = first; i < end; ++i) {
		ball_batch *bt = &c->ball_batches[i];
		for (int h = 0; h < L; h += VW)
			if (!ball_solve_v(c, bt, use_bias, false, &count, h))
				ball_solve_exact(c, bt, use_bias, &count, h);
	}
	return count;
}

static uint32_t VKN(fxs_ball_solve)(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias)
{
	return use_bias ? ball_solve_batches(c, first, end, true) : ball_solve_batches(c, first, end, false);
}

#undef L
