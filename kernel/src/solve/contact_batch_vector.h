/* The contact solver's vector kernels (contact_batch.h), written once on the
 * lanes of simd/lanes.h and compiled for each instruction set:
 * simd/kernels_avx2.c, _avx512.c, _neon.c and _simd128.c include their
 * layer, define VK (the suffix of the kernels' names), then this.
 *
 * The formulas are contact_batch.c's, lane for lane, so the bits are the
 * same; a change there is made here once. Which portable function each
 * part mirrors:
 *   warm_batch      warm_start_lane (lane_apply, scaled_add3)
 *   solve_batch     solve_lane (speed_of, lane_apply, scaled_add3, scaled_mul, mul_q16,
 *                   mul_q16w)
 *   pack_rows       fxs_pack_rows_lane (cross, srow_prepare of solver.h:
 *                   inertia_response, recip_q32, scale1)
 * How they carry over:
 *  - products are 32 x 32 -> 64 (mul): every factor is an int32 (or a
 *    sign-extended int32 in its lane); where the portable kernel multiplies
 *    a difference of two int32 it is split into two products;
 *  - branches become selects; a lane's saturations are counted only where
 *    the portable kernel would have made the same computation (real points
 *    of real lanes; the twist where it runs), so the overflow count, which
 *    is state, is the same too;
 *  - each batch runs on the fast path first (lanes_common.h's guard), then,
 *    if a value left its range, again on the exact path;
 *  - the shifts by sra62 / shr_by rely on contact_batch.h's bounds: every
 *    value they shift is below 2^62;
 *  - the packing takes the common path for every lane; a lane that would
 *    leave it (a cross product out of range, a response scaled below 2^16,
 *    a sum near int64, an effective mass of 2^-32 or one beyond 2^46, a
 *    mass scale outside [0, 2^17], a saturated approach speed) is left to
 *    the portable code, which counts its own saturations.
 * Body velocities are read per batch (each body's first bytes loaded and
 * transposed: cheaper than gathers), kept in registers for its seven rows,
 * and stored back the same way. */


/* scaled_mul: (m y + 2^(s-1)) >> s, |m y| <= 2^61 */
INLINE V scaled_mul_v(V m, V y, const shifter *h) { return shr_by(mul(m, y), h); }

/* mul_q16 (contact_batch.c): (x f + 2^15) >> 16 for 0 <= x < 2^47, 0 <= f < 2^31 */
INLINE V mul_q16_v(V x, V f)
{
	V hi = mul(srli(x, 16), f);
	V lo = srli(add(mul(and_(x, splat(0xFFFF)), f), splat(0x8000)), 16);
	return add(hi, lo);
}

/* mul_q16w (contact_batch.c): (x f + 2^15) >> 16 for |x| < 2^51, 0 <= f <= 2^16,
 * as x's top (x >> 20, an int32) and its low 20 bits times f */
INLINE V mul_q16w_v(V x, V f)
{
	V hi = slli(mul(sra62(x, 20), f), 4);
	V lo = srli(add(mul(and_(x, splat(0xFFFFF)), f), splat(0x8000)), 16);
	return add(hi, lo);
}

/* v += (m p + 2^(s-1)) >> s per component, m a row's angular responses
 * (add3 of the portable kernel) */
INLINE void scaled_add3_v(v3 *v, const int32_t m[3][FXS_LANES], const shifter *hs, V p, guard *g, bool exact,
		    uint32_t *count, int h)
{
	sat3(v, add(v->x, scaled_mul_v(ld32(m[0]), p, hs)), add(v->y, scaled_mul_v(ld32(m[1]), p, hs)),
	     add(v->z, scaled_mul_v(ld32(m[2]), p, hs)), g, exact, count);
}

/* v += (l p + 2^(s-1)) >> s per component, l linear responses */
INLINE void slin3_v(v3 *v, v3 l, const shifter *hs, V p, guard *g, bool exact, uint32_t *count)
{
	sat3(v, add(v->x, scaled_mul_v(l.x, p, hs)), add(v->y, scaled_mul_v(l.y, p, hs)), add(v->z, scaled_mul_v(l.z, p, hs)), g, exact,
	     count);
}

INLINE shifter shifter_at(const uint8_t *s8, int h) { return shifter_of(ld8(s8)); }

/* the kernels read a solver body's first 48 bytes as rows: v, w, dp, dtheta */
_Static_assert(offsetof(solver_body, v) == 0 && offsetof(solver_body, w) == 12 && offsetof(solver_body, dp) == 24 &&
		       offsetof(solver_body, dtheta) == 36,
	       "rows_to_lanes reads a solver body's v, w, dp and dtheta as 12 consecutive int32");

INLINE void body_pointers(const solver_ctx *c, const contact_batch *bt, bodies *s, int h)
{
	body_rows(c->bodies, sizeof(solver_body), bt->a + h, 0, s->pa);
	body_rows(c->bodies, sizeof(solver_body), bt->b + h, 0, s->pb);
}

/* Before bodies_store: the lanes of bodies that are not dynamic (static,
 * kinematic, asleep, the spare zero body: zero responses, their velocities
 * unchanged) store into `sink` instead, as the portable store_lane_bodies
 * skips them: lanes of several batches share such bodies, and a stage's
 * batches are solved at once on several threads (solver_tasks.c), which
 * then write disjoint bodies only. (On one thread the rows are written back
 * as they were: the same values, fewer instructions.) */
INLINE void bodies_keep_shared(bodies *s, char *sink)
{
	for (int l = 0; l < VW; ++l) {
		s->pa[l] = ((const solver_body *)(const void *)s->pa[l])->dynamic ? s->pa[l] : sink;
		s->pb[l] = ((const solver_body *)(const void *)s->pb[l])->dynamic ? s->pb[l] : sink;
	}
}

/* the linear response to a unit impulse along d[dir], component j:
 * lane_linear (contact_batch.h), (im d_j + 2^15) >> 16, |im d_j| < 2^47 */
INLINE V linear_v(V im, V d) { return sra62(add(mul(im, d), splat(0x8000)), 16); }

INLINE v3 linear3(V im, const contact_batch *bt, int dir, int h)
{
	const int32_t(*d)[FXS_LANES] = bt->d[dir];
	v3 r = { linear_v(im, ld32(d[0])), linear_v(im, ld32(d[1])), linear_v(im, ld32(d[2])) };
	return r;
}

/* what a batch's rows share: the bodies' scaled inverse masses and their
 * shifts, and the linear responses along the normal (its four rows') */
typedef struct linear_resp {
	shifter ha, hb;
	V ima, imb;
	v3 na, nb;
} linear_resp;

INLINE void linear_of(const contact_batch *bt, linear_resp *L, int h)
{
	L->ha = shifter_at(bt->sla, h), L->hb = shifter_at(bt->slb, h);
	L->ima = ld32(bt->ima), L->imb = ld32(bt->imb);
	L->na = linear3(L->ima, bt, 0, h), L->nb = linear3(L->imb, bt, 0, h);
}

/* lane_apply: an impulse p through linear responses la, lb and a row's
 * angular ones */
#define apply_v(s, L, la, lb, r, p, g, exact, count) \
	apply_v_((s), (L), (la), (lb), (r)->ia, (r)->ib, (r)->sa, (r)->sb, (p), (g), (exact), (count), h)
INLINE void apply_v_(bodies *s, const linear_resp *L, v3 la, v3 lb, const int32_t ia[3][FXS_LANES],
		     const int32_t ib[3][FXS_LANES], const uint8_t *sa, const uint8_t *sb, V p, guard *g, bool exact,
		     uint32_t *count, int h)
{
	shifter ha = shifter_at(sa, h), hb = shifter_at(sb, h);
	slin3_v(&s->va, la, &L->ha, p, g, exact, count);
	scaled_add3_v(&s->wa, ia, &ha, p, g, exact, count, h);
	slin3_v(&s->vb, lb, &L->hb, p, g, exact, count);
	scaled_add3_v(&s->wb, ib, &hb, p, g, exact, count, h);
}

/* lanes with more than k points */
INLINE M live_points(const contact_batch *bt, int k, int h) { return gt(ld32(bt->count), splat(k)); }

/* Batches whose lanes have one point at most (spheres, and capsules' ends,
 * on anything) run one normal row, not four: a padding point's row is
 * zero and its impulse stays zero, so the rows left out change nothing.
 * The passes take runs of such batches, and of the others, each with its
 * kernel's row count a constant (its loops unroll as before, and the
 * four-row kernel's registers are what they were). */
INLINE bool one_row(const contact_batch *bt)
{
	int32_t most = 0;
	for (int l = 0; l < FXS_LANES; ++l)
		most |= bt->count[l] & ~1;
	return most == 0;
}

/* the end of the run from i (< end) of batches whose one_row is i's, which
 * goes to *one */
INLINE uint32_t rows_run(const solver_ctx *c, uint32_t i, uint32_t end, bool *one)
{
	*one = one_row(&c->batches[i]);
	while (++i < end && one_row(&c->batches[i]) == *one)
		;
	return i;
}

/* warm_start_lane for lanes h..h+VW; false (nothing written) when the fast
 * path left its range */
INLINE bool warm_batch(solver_ctx *c, const contact_batch *bt, int rows, bool exact, uint32_t *count, int h)
{
	guard g = guard_new(FXS_NORMAL_IMPULSE_MAX);
	bodies s;
	body_pointers(c, bt, &s, h);
	V a0[8], b0[8];
	bodies_load(&s, a0, b0);
	linear_resp L;
	linear_of(bt, &L, h);
	for (int k = 0; k < rows; ++k)
		apply_v(&s, &L, L.na, L.nb, &bt->n[k], imp32g(ld64(bt->impulse[k]), live_points(bt, k, h), &g, exact, count),
			&g, exact, count);
	for (int t = 0; t < 2; ++t)
		apply_v(&s, &L, linear3(L.ima, bt, 1 + t, h), linear3(L.imb, bt, 1 + t, h), &bt->t[t],
			imp32g(ld64(bt->ti[t]), m_all(), &g, exact, count), &g, exact, count);
	const V twi = ld64(bt->twi);
	if (rows > 1 || m_any(ne(twi, zero()))) { /* a zero impulse changes nothing (solve_batch) */
		shifter ha = shifter_at(bt->tw.sa, h), hb = shifter_at(bt->tw.sb, h);
		V p = imp32g(twi, m_all(), &g, exact, count);
		scaled_add3_v(&s.wa, bt->tw.ia, &ha, p, &g, exact, count, h);
		scaled_add3_v(&s.wb, bt->tw.ib, &hb, p, &g, exact, count, h);
	}
	if (!exact && !guard_ok(&g))
		return false;
	_Alignas(64) char sink[64];
	if (c->tasks)
		bodies_keep_shared(&s, sink);
	bodies_store(&s);
	return true;
}

/* the exact path, out of line: it runs rarely, and inlined its registers
 * would weigh on the fast path's */
static __attribute__((noinline, cold)) void warm_batch_exact(solver_ctx *c, const contact_batch *bt, int rows,
							     uint32_t *count, int h)
{
	warm_batch(c, bt, rows, true, count, h);
}

/* rows a constant in each copy (one_row) */
INLINE uint32_t warm_batches(solver_ctx *c, uint32_t first, uint32_t end, int rows)
{
	uint32_t count = 0;
	for (uint32_t i = first; i < end; ++i) {
		fxs_batches_prefetch(c, i, end, true, rows);
		for (int h = 0; h < FXS_LANES; h += VW)
			if (!warm_batch(c, &c->batches[i], rows, false, &count, h))
				warm_batch_exact(c, &c->batches[i], rows, &count, h);
	}
	return count;
}

static __attribute__((noinline)) uint32_t warm_batches_one(solver_ctx *c, uint32_t first, uint32_t end)
{
	return warm_batches(c, first, end, 1);
}

static uint32_t VKN(fxs_batches_warm_start)(solver_ctx *c, uint32_t first, uint32_t end)
{
	uint32_t count = 0;
	bool one;
	for (uint32_t i = first, j; i < end; i = j) {
		j = rows_run(c, i, end, &one);
		count += one ? warm_batches_one(c, i, j) : warm_batches(c, i, j, 4);
	}
	return count;
}

/* solve_lane for lanes h..h+VW (see warm_batch) */
INLINE bool solve_batch(solver_ctx *c, contact_batch *bt, int rows, bool use_bias, V inv_h, V push_min, bool exact,
			uint32_t *count, int h)
{
	guard g = guard_new(FXS_NORMAL_IMPULSE_MAX);
	bodies s;
	body_pointers(c, bt, &s, h);
	const v3 n = ld3(bt->d[0]);
	/* what each normal row needs that does not depend on the velocities */
	V pbias[4], pmass[4], pq[4];
	shifter phm[4];
	M live[4];
	{
		/* v, w, dp.x, dp.y; then dp.z, dtheta, ... */
		V a0[8], b0[8], a1[8], b1[8];
		bodies_load(&s, a0, b0);
		char *ra[VW], *rb[VW];
		for (int l = 0; l < VW; ++l)
			ra[l] = s.pa[l] + 32, rb[l] = s.pb[l] + 32;
		rows_to_lanes((const char *const *)ra, a1);
		rows_to_lanes((const char *const *)rb, b1);
		/* n . (dpB - dpA), as two dot products (no int32 difference) */
		const V ndp = sub(dot3(n, (v3){ b0[6], b0[7], b1[0] }), dot3(n, (v3){ a0[6], a0[7], a1[0] }));
		const v3 ta = { a1[1], a1[2], a1[3] }, tb = { b1[1], b1[2], b1[3] };
		const V bias_rate = ld32(bt->bias_rate), iscale = ld32(bt->impulse_scale);
		for (int k = 0; k < rows; ++k) {
			const lane_row *r = &bt->n[k];
			live[k] = live_points(bt, k, h);
			V ds = sub(add(ndp, dot3(tb, ld3(r->rxb))), dot3(ta, ld3(r->rxa)));
			V sep = sat32g(add(ld32(bt->separation[k]), shr_round16(ds)), live[k], &g, exact, count);
			M spec = gt(sep, zero());
			M is_soft = use_bias ? m_not(spec) : m_none(); /* not speculative, and the biased pass */
			/* speculative: (s inv_h) >> 16 with s > 0 */
			V bias_spec = srli(mul(sep, inv_h), 16);
			V bs = sat32g(shr_round16(mul(bias_rate, sep)), m_and(is_soft, live[k]), &g, exact, count);
			bs = max_(bs, push_min);
			pbias[k] = sel(spec, bias_spec, maskz(is_soft, bs));
			pmass[k] = sel(is_soft, ld32(r->soft_mass), ld32(r->mass));
			phm[k] = shifter_sel(is_soft, shifter_at(r->ss, h), shifter_at(r->sm, h));
			pq[k] = mul_q16_v(ld64(bt->impulse[k]), maskz(is_soft, iscale));
		}
	}
	linear_resp L;
	linear_of(bt, &L, h);
	/* the new impulses, written once the batch is done */
	V imp[4], ti[2];
	V total = zero(), moment = zero(), pushed = ld32(bt->pushed);
	for (int k = 0; k < rows; ++k) {
		const lane_row *r = &bt->n[k];
		const v3 rxa = ld3(r->rxa), rxb = ld3(r->rxb);
		V vn = add(sub(dot3(n, s.vb), dot3(n, s.va)), sub(dot3(s.wb, rxb), dot3(s.wa, rxa)));
		vn = sat32g(shr_round16(vn), live[k], &g, exact, count);
		V y = sat32g(add(vn, pbias[k]), live[k], &g, exact, count);
		V old = ld64(bt->impulse[k]);
		V nw = sub(sub(old, scaled_mul_v(pmass[k], y, &phm[k])), pq[k]);
		if (exact) {
			V capped = min_(nw, splat(FXS_NORMAL_IMPULSE_MAX));
			count_out(nw, capped, live[k], count);
			nw = capped;
		} else {
			note_hi(&g, nw, live[k]); /* bounded above only */
		}
		nw = max_(nw, zero());
		V delta = sub(nw, old);
		imp[k] = nw;
		const M push = gt(delta, zero());
		pushed = or_(pushed, maskz(push, splat(1 << k)));
		apply_v(&s, &L, L.na, L.nb, r, imp32g(delta, live[k], &g, exact, count), &g, exact, count);
		total = add(total, nw);
		moment = add(moment, mul_q16_v(nw, ld32(bt->lever[k])));
	}
	const V mu = ld32(bt->friction);
	const V lim = mul_q16_v(total, mu), nlim = sub(zero(), lim);
	for (int t = 0; t < 2; ++t) {
		const lane_row *r = &bt->t[t];
		const v3 d = ld3(bt->d[1 + t]), rxa = ld3(r->rxa), rxb = ld3(r->rxb);
		V vt = add(sub(dot3(d, s.vb), dot3(d, s.va)), sub(dot3(s.wb, rxb), dot3(s.wa, rxa)));
		vt = sat32g(shr_round16(vt), m_all(), &g, exact, count);
		V old = ld64(bt->ti[t]);
		V nw;
		if (use_bias) { /* soft, pulled back by the anchor's slip */
			V b = sat32g(shr_round16(mul(ld32(bt->bias_rate), ld32(bt->slip[t]))), m_all(), &g, exact, count);
			V y = sat32g(add(vt, b), m_all(), &g, exact, count);
			shifter hs = shifter_at(r->ss, h);
			nw = sub(sub(old, scaled_mul_v(ld32(r->soft_mass), y, &hs)), mul_q16w_v(old, ld32(bt->impulse_scale)));
		} else {
			shifter hm = shifter_at(r->sm, h);
			nw = sub(old, scaled_mul_v(ld32(r->mass), vt, &hm));
		}
		nw = max_(min_(nw, lim), nlim);
		ti[t] = nw;
		apply_v(&s, &L, linear3(L.ima, bt, 1 + t, h), linear3(L.imb, bt, 1 + t, h), r,
			imp32g(sub(nw, old), m_all(), &g, exact, count), &g, exact, count);
	}
	/* the twist, where the portable kernel runs it: tlim or the impulse nonzero */
	const lane_trow *r = &bt->tw;
	const V tlim = mul_q16_v(moment, mu), ntlim = sub(zero(), tlim);
	const V old = ld64(bt->twi);
	const M runs = m_not(m_and(eq(tlim, zero()), eq(old, zero())));
	V twi = old;
	/* where no lane runs it, it changes nothing (every product is of a
	 * zero impulse): with one point a lane, whose lever is zero, it runs
	 * only on an impulse carried in from a manifold of more points */
	if (rows > 1 || m_any(runs)) {
		V wn = sub(dot3(s.wb, n), dot3(s.wa, n)); /* the twist's Jacobians are the normal */
		wn = sat32g(shr_round16(wn), runs, &g, exact, count);
		shifter hm = shifter_at(r->sm, h);
		twi = sub(old, scaled_mul_v(ld32(r->mass), wn, &hm));
		twi = max_(min_(twi, tlim), ntlim);
		V p = imp32g(sub(twi, old), m_all(), &g, exact, count);
		shifter ha = shifter_at(r->sa, h), hb = shifter_at(r->sb, h);
		scaled_add3_v(&s.wa, r->ia, &ha, p, &g, exact, count, h);
		scaled_add3_v(&s.wb, r->ib, &hb, p, &g, exact, count, h);
	}
	if (!exact && !guard_ok(&g))
		return false;
	for (int k = 0; k < rows; ++k)
		st64(bt->impulse[k], imp[k]);
	st32(bt->pushed, pushed);
	st64(bt->ti[0], ti[0]), st64(bt->ti[1], ti[1]);
	st64(bt->twi, twi);
	_Alignas(64) char sink[64];
	if (c->tasks)
		bodies_keep_shared(&s, sink);
	bodies_store(&s);
	return true;
}

static __attribute__((noinline, cold)) void solve_batch_exact(solver_ctx *c, contact_batch *bt, int rows, bool use_bias,
							      uint32_t *count, int h)
{
	solve_batch(c, bt, rows, use_bias, splat(c->inv_h), splat(-(int64_t)c->push_max), true, count, h);
}

/* use_bias and rows constants in each copy: the relax pass's drops the
 * bias; rows is one_row's */
INLINE uint32_t solve_batches(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias, int rows)
{
	uint32_t count = 0;
	const V inv_h = splat(c->inv_h), push_min = splat(-(int64_t)c->push_max);
	for (uint32_t i = first; i < end; ++i) {
		fxs_batches_prefetch(c, i, end, false, rows);
		for (int h = 0; h < FXS_LANES; h += VW)
			if (!solve_batch(c, &c->batches[i], rows, use_bias, inv_h, push_min, false, &count, h))
				solve_batch_exact(c, &c->batches[i], rows, use_bias, &count, h);
	}
	return count;
}

static __attribute__((noinline)) uint32_t solve_batches_one(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias)
{
	return use_bias ? solve_batches(c, first, end, true, 1) : solve_batches(c, first, end, false, 1);
}

static uint32_t VKN(fxs_batches_solve)(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias)
{
	uint32_t count = 0;
	bool one;
	for (uint32_t i = first, j; i < end; i = j) {
		j = rows_run(c, i, end, &one);
		if (one)
			count += solve_batches_one(c, i, j, use_bias);
		else
			count += use_bias ? solve_batches(c, i, j, true, 4) : solve_batches(c, i, j, false, 4);
	}
	return count;
}

/* ---- packing: the rows of a batch's lanes at once ----
 * What must stay in range for the packing's fast formulas is collected in
 * one vector per half batch, `win`, as values that are below 2^47
 * (unsigned) exactly when in range (or-ed: one test at the end, win_rare),
 * and the lanes out of range are left to the portable code. Padding points
 * have zero lever arms (lane_arms), so their rows' values are all zero and
 * in range; only their relative speeds are not zero (masked). */

INLINE M win_rare(V win) { return ne(srli(win, 47), zero()); }

typedef struct pbody {
	V ii[6], si16, inv_mass; /* si16: the shift si + 16 */
	v3 v, w;
} pbody;

_Static_assert(offsetof(solver_body, im) == 48 && offsetof(solver_body, si) == 52 &&
		       offsetof(solver_body, inv_mass) == 56 && offsetof(solver_body, ii) == 64,
	       "pbody_load reads a solver body as rows of 32 bytes at 0, 32 and 64");

/* the bodies of slots slot[l]: three rows each (rows_to_lanes); the
 * inverse mass must be below 2^60 (the sums of k below stay below 2^62) */
INLINE void pbody_load(const solver_ctx *c, const uint32_t *slot, pbody *b, V *win)
{
	char *row[VW];
	V r0[8], r1[8], r2[8];
	body_rows(c->bodies, sizeof(solver_body), slot, 0, row);
	rows_to_lanes((const char *const *)row, r0); /* v, w */
	body_rows(c->bodies, sizeof(solver_body), slot, 32, row);
	rows_to_lanes((const char *const *)row, r1); /* ..., si (the low byte of int32 5), inv_mass (6, 7) */
	body_rows(c->bodies, sizeof(solver_body), slot, 64, row);
	rows_to_lanes((const char *const *)row, r2); /* ii */
	for (int i = 0; i < 6; ++i)
		b->ii[i] = r2[i];
	b->si16 = add(and_(r1[5], splat(0xFF)), splat(16));
	b->inv_mass = or_(and_(r1[6], splat(0xFFFFFFFF)), slli(r1[7], 32));
	*win = or_(*win, srli(b->inv_mass, 13));
	b->v = (v3){ r0[0], r0[1], r0[2] };
	b->w = (v3){ r0[3], r0[4], r0[5] };
}

/* contact_batch.c's cross (exact, rounded once) where the result is well
 * in range. a b - c d of int32 is below 2^63 in magnitude, so its int64
 * difference wraps only when the true value is near 2^63, far outside the
 * window: r + 2^46 is below 2^47 exactly when -2^46 <= r < 2^46, and there
 * the portable code takes its fast path or, for an INT32_MIN operand,
 * fxg_cross_comp, whose rounding is the same and saturates nothing */
INLINE V cross_comp_v(V a, V b, V cc, V d, V *win)
{
	V r = sub(mul(a, b), mul(cc, d));
	*win = or_(*win, add(r, splat((int64_t)1 << 46)));
	return shr_round16(r);
}
INLINE v3 cross_v(v3 a, v3 b, V *win)
{
	v3 r = { cross_comp_v(a.y, b.z, a.z, b.y, win), cross_comp_v(a.z, b.x, a.x, b.z, win),
		 cross_comp_v(a.x, b.y, a.y, b.x, win) };
	return r;
}

/* inertia_response (solver.h): I^-1 x as mantissas; k = x . I^-1 x in
 * Q32.32; returns the shift e. In range (win): the sums below 2^62 (so
 * that bitlen32 of their top bits is the portable shift, and shr_by
 * applies), e >= 16 (below, the portable code scales up or clamps), |k| <=
 * 2^60 (strictly: below) */
INLINE V response_v(const pbody *b, v3 x, V out[3], V *k, V *win)
{
	const V *m = b->ii; /* xx yy zz xy xz yz */
	V s[3];
	s[0] = add(add(mul(m[0], x.x), mul(m[3], x.y)), mul(m[4], x.z));
	s[1] = add(add(mul(m[3], x.x), mul(m[1], x.y)), mul(m[5], x.z));
	s[2] = add(add(mul(m[4], x.x), mul(m[5], x.y)), mul(m[2], x.z));
	V any = or_(or_(abs_(s[0]), abs_(s[1])), abs_(s[2]));
	/* sh = max(bitlen - 30, 0); e = si + 16 - sh, at most 62 (sh grows) */
	V e = min_(sub(b->si16, bitlen32(srli(any, FXS_SCALE_BITS))), splat(62));
	const shifter hs = shifter_of(sub(b->si16, e));
	*win = or_(*win, or_(srli(any, 15), sub(e, splat(16))));
	for (int i = 0; i < 3; ++i)
		out[i] = shr_by(s[i], &hs);
	V d = add(add(mul(x.x, out[0]), mul(x.y, out[1])), mul(x.z, out[2]));
	*k = shr_half(d, sub(e, splat(16)));
	*win = or_(*win, srli(add(*k, splat((int64_t)1 << 60)), 14));
	return e;
}

/* srow_prepare's masses from k: recip_q32, scale1 of the mass m and, with
 * `with_soft`, of m ms (fxg_wmul's rounding, exact in uint64 for m < 2^46
 * and 0 <= ms <= 2^17; the softness makes ms <= 1), written to the row's
 * fields; k = 0 gives a padding row's (0, shift 62). Returns the lanes
 * left to the portable code: a saturating reciprocal (k = 2^-32), m of
 * 2^46 or more, ms outside [0, 2^17], a soft mass of 2^60 or more (its
 * shift would clamp at 1). The division is scalar on every instruction
 * set; the scales are made beside it, lane by lane, where a bit length is
 * one scalar instruction against several vector ones (AVX2, NEON), and on
 * the lanes where it is one vector instruction (FXS_VEC_CHEAP_BITLEN). */
#if FXS_VEC_CHEAP_BITLEN
/* fxs_pack_scale1 (contact_batch.h) on lanes */
INLINE V scale1_v(V x, V *mant)
{
	const V bits = bitlen(x);
	*mant = srli(add(sllv(x, sub(splat(63), bits)), splat((int64_t)1 << 32)), 33);
	return sub(splat(32 + FXS_SCALE_BITS), bits);
}

INLINE uint32_t masses_v(V kv, const int32_t *ms, bool with_soft, int32_t *mass, uint8_t *sm, int32_t *softm, uint8_t *ss,
			 int h)
{
	int64_t k[VW];
	uint64_t q[VW];
	st64_(k, kv);
	for (int l = 0; l < VW; ++l)
		q[l] = fxs_pack_recip(k[l] > 1 ? (uint64_t)k[l] : 2);
	const V top = splat(((int64_t)1 << 46) - 1);
	V m = maskz(gt(kv, splat(1)), ld64_((const int64_t *)(const void *)q)), mant;
	M rare = m_or(eq(kv, splat(1)), ugt(m, top));
	m = and_(m, top); /* a rare lane's values are not used */
	V s = scale1_v(m, &mant);
	st32(mass, mant), st8(sm, s);
	if (with_soft) {
		const V f = ld32(ms);
		const V sv = srli(add(mullo(m, f), splat(0x8000)), 16);
		rare = m_or(rare, m_or(ugt(f, splat((int64_t)1 << 17)), ugt(sv, splat(((int64_t)1 << 60) - 1))));
		s = scale1_v(sv, &mant);
		st32(softm, mant), st8(ss, s);
	}
	return m_bits(rare);
}
#else
INLINE uint32_t masses_v(V kv, const int32_t *ms, bool with_soft, int32_t *mass, uint8_t *sm, int32_t *softm, uint8_t *ss,
			 int h)
{
	int64_t k[VW];
	uint32_t rare = 0;
	st64_(k, kv);
	for (int l = 0; l < VW; ++l) {
		const uint64_t q = fxs_pack_recip(k[l] > 1 ? (uint64_t)k[l] : 2);
		uint64_t m = k[l] > 1 ? q : 0;
		rare |= (uint32_t)(k[l] == 1 || m >= (uint64_t)1 << 46) << l;
		m &= ((uint64_t)1 << 46) - 1; /* a rare lane's values are not used */
		mass[h + l] = fxs_pack_scale1(m, &sm[h + l]);
		if (with_soft) {
			const uint32_t f = (uint32_t)ms[h + l];
			const uint64_t sv = (m * f + 0x8000) >> 16;
			rare |= (uint32_t)(f > (uint32_t)1 << 17 || sv >= (uint64_t)1 << 60) << l;
			softm[h + l] = fxs_pack_scale1(sv, &ss[h + l]);
		}
	}
	return rare;
}
#endif

/* srow_prepare into a row's fields: rxa, rxb given (twist: the normal,
 * no soft mass), the masses written by masses_v (k masked to 0 outside
 * `live`: padding points' zero masses). Returns the lanes the masses leave
 * to the portable code. */
typedef struct vrow {
	V ia[3], ib[3], sa, sb;
} vrow;

INLINE uint32_t srow_v(const pbody *A, const pbody *B, v3 rxa, v3 rxb, bool linear, M live, vrow *r, V *win,
		       const int32_t *ms, int32_t *mass, uint8_t *sm, int32_t *softm, uint8_t *ss, int h)
{
	V ka, kb;
	r->sa = response_v(A, rxa, r->ia, &ka, win);
	r->sb = response_v(B, rxb, r->ib, &kb, win);
	for (int i = 0; i < 3; ++i)
		r->ia[i] = sub(zero(), r->ia[i]); /* A takes -p */
	V k = add(ka, kb);
	if (linear)
		k = add(k, add(A->inv_mass, B->inv_mass));
	return masses_v(maskz(live, k), ms, linear, mass, sm, softm, ss, h);
}

INLINE void st3a(int32_t f[3][FXS_LANES], const V v[3], int h) { st32(f[0], v[0]), st32(f[1], v[1]), st32(f[2], v[2]); }

/* normal rows from..3 of lanes h..h+VW as padding points' (zero, their
 * shifts 62): what the loop below makes of a zero lever arm and a zero k */
INLINE void zero_rows_v(contact_batch *bt, int from, int h)
{
	const V z = zero(), s62 = splat(62);
	const v3 z3 = { z, z, z };
	for (int p = from; p < 4; ++p) {
		lane_row *o = &bt->n[p];
		st3(o->rxa, z3), st3(o->rxb, z3), st3(o->ia, z3), st3(o->ib, z3);
		st8(o->sa, s62), st8(o->sb, s62), st8(o->sm, s62), st8(o->ss, s62);
		st32(o->mass, z), st32(o->soft_mass, z);
		st32(bt->relative_velocity[p], z);
	}
}

/* lanes h..h+VW of fxs_pack_rows_lane, their first `rows` normal rows made
 * (one_row: 1, else 4) and the rest zero; the lanes left to it, as bits */
INLINE uint32_t pack_rows(solver_ctx *c, contact_batch *bt, const lane_arms *arms, int rows, int h)
{
	M rare = m_none();
	V win = zero();
	uint32_t rare_bits = 0;
	pbody A, B;
	pbody_load(c, bt->a + h, &A, &win);
	pbody_load(c, bt->b + h, &B, &win);
	const v3 n = ld3(bt->d[0]);
	const V npts = ld32(bt->count);
	zero_rows_v(bt, rows, h);
	for (int p = 0; p < rows; ++p) {
		const M live = gt(npts, splat(p));
		v3 rxa = cross_v(ld3(arms->ra[p]), n, &win), rxb = cross_v(ld3(arms->rb[p]), n, &win);
		lane_row *o = &bt->n[p];
		vrow r;
		rare_bits |= srow_v(&A, &B, rxa, rxb, true, live, &r, &win, arms->mass_scale, o->mass, o->sm, o->soft_mass,
				    o->ss, h);
		V s = add(sub(dot3(n, B.v), dot3(n, A.v)), sub(dot3(B.w, rxb), dot3(A.w, rxa)));
		V rv = shr_round16(s);
		rare = m_or(rare, m_and(live, m_or(gt(rv, splat(INT32_MAX)), gt(splat(INT32_MIN), rv))));
		/* padding points: a zero row (zero already but for the shifts;
		 * the masses: masses_v) */
		const V s62 = splat(62);
		st3(o->rxa, rxa), st3(o->rxb, rxb), st3a(o->ia, r.ia, h), st3a(o->ib, r.ib, h);
		st8(o->sa, sel(live, r.sa, s62)), st8(o->sb, sel(live, r.sb, s62));
		st32(bt->relative_velocity[p], maskz(live, rv));
	}
	const v3 ca = ld3(arms->ca), cb = ld3(arms->cb);
	for (int t = 0; t < 2; ++t) {
		const v3 d = ld3(bt->d[1 + t]);
		v3 rxa = cross_v(ca, d, &win), rxb = cross_v(cb, d, &win);
		lane_row *o = &bt->t[t];
		vrow r;
		rare_bits |= srow_v(&A, &B, rxa, rxb, true, m_all(), &r, &win, arms->mass_scale, o->mass, o->sm,
				    o->soft_mass, o->ss, h);
		st3(o->rxa, rxa), st3(o->rxb, rxb), st3a(o->ia, r.ia, h), st3a(o->ib, r.ib, h);
		st8(o->sa, r.sa), st8(o->sb, r.sb);
	}
	{
		vrow r;
		lane_trow *o = &bt->tw;
		rare_bits |= srow_v(&A, &B, n, n, false, m_all(), &r, &win, NULL, o->mass, o->sm, NULL, NULL, h);
		st3a(o->ia, r.ia, h), st3a(o->ib, r.ib, h);
		st8(o->sa, r.sa), st8(o->sb, r.sb);
	}
	return (m_bits(m_or(rare, win_rare(win))) | rare_bits) << h;
}

static __attribute__((noinline)) uint32_t pack_rows_one(solver_ctx *c, contact_batch *bt, const lane_arms *arms)
{
	uint32_t rare = 0;
	for (int h = 0; h < FXS_LANES; h += VW)
		rare |= pack_rows(c, bt, arms, 1, h);
	return rare;
}

static uint32_t VKN(fxs_pack_rows)(solver_ctx *c, contact_batch *bt, const lane_arms *arms)
{
	if (one_row(bt))
		return pack_rows_one(c, bt, arms);
	uint32_t rare = 0;
	for (int h = 0; h < FXS_LANES; h += VW)
		rare |= pack_rows(c, bt, arms, 4, h);
	return rare;
}
