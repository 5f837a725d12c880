/* What the vector kernels make of a layer's operations (lanes.h): included
 * by each layer once it has defined them. */
#ifndef FXS_LANES_COMMON_H
#define FXS_LANES_COMMON_H

/* Batch fields at lane offset h: a kernel takes a batch's lanes VW at a
 * time, and every function that touches batch fields has an h (0 where VW
 * covers the batch: constant, and folded away). */
#define ld32(p) ld32_((p) + h)
#define st32(p, v) st32_((p) + h, (v))
#define ld64(p) ld64_((p) + h)
#define st64(p, v) st64_((p) + h, (v))
#define ld8(p) ld8_((p) + h)
#define st8(p, v) st8_((p) + h, (v))

typedef struct v3 {
	V x, y, z;
} v3;

/* a per-lane vector field [3][lanes] (a macro: C17 will not pass a
 * non-const array of arrays as const) */
#define ld3(m) ((v3){ ld32((m)[0]), ld32((m)[1]), ld32((m)[2]) })
#define st3(m, v) (st32((m)[0], (v).x), st32((m)[1], (v).y), st32((m)[2], (v).z))

INLINE M lt(V a, V b)
{
	return gt(b, a);
}
INLINE M le(V a, V b) { return m_not(gt(a, b)); }
INLINE M ge(V a, V b) { return m_not(gt(b, a)); }
INLINE M ne(V a, V b) { return m_not(eq(a, b)); }

INLINE V dot3(v3 a, v3 b) { return add(add(mul(a.x, b.x), mul(a.y, b.y)), mul(a.z, b.z)); }

/* fxg_shr_round(x, 16): (x + 2^15 - (x < 0)) >> 16, |x| < 2^62 - 2^15 */
INLINE V shr_round16(V x) { return sra62(sub(add(x, splat(0x8000)), srli(x, 63)), 16); }

/* (x + 2^(s-1)) >> s for s >= 0, one count per lane, exact wherever the
 * sum fits int64 (solver.h's shr_half_up) */
INLINE V shr_half(V x, V s) { return srav(add(x, srli(sllv(splat(1), s), 1)), s); }

/* saturations in the lanes of `live`, counted */
INLINE void count_out(V x, V clamped, M live, uint32_t *count)
{
	M out = m_and(live, ne(x, clamped));
	if (__builtin_expect(m_any(out), 0))
		*count += m_count(out);
}

/* saturated to int32, counted */
INLINE V sat32(V x, M live, uint32_t *count)
{
	V c = min_(max_(x, splat(INT32_MIN)), splat(INT32_MAX));
	count_out(x, c, live, count);
	return c;
}

/* impulse32 (solver.h): saturated as sat32 and kept off INT32_MIN */
INLINE V imp32(V x, M live, uint32_t *count) { return max_(sat32(x, live, count), splat(-INT32_MAX)); }

/* fxg_m3_from_quat (each entry 1 - 2(...) or 2(...), exact, rounded once,
 * saturated) of quaternions whose components are within 2^17 (every unit
 * one): then nothing can saturate or overflow. The lanes outside, as bits. */
#define FXS_VEC_QUAT_MAX ((int64_t)1 << 17)
INLINE uint32_t rotation_of(const V q[4], V m[9])
{
	const V x = q[0], y = q[1], z = q[2], w = q[3];
	const V xx = mul(x, x), yy = mul(y, y), zz = mul(z, z), xy = mul(x, y), xz = mul(x, z), yz = mul(y, z);
	const V wx = mul(w, x), wy = mul(w, y), wz = mul(w, z), one = splat((int64_t)1 << 32);
	m[0] = shr_round16(sub(one, slli(add(yy, zz), 1))), m[1] = shr_round16(slli(add(xy, wz), 1));
	m[2] = shr_round16(slli(sub(xz, wy), 1));
	m[3] = shr_round16(slli(sub(xy, wz), 1)), m[4] = shr_round16(sub(one, slli(add(xx, zz), 1)));
	m[5] = shr_round16(slli(add(yz, wx), 1));
	m[6] = shr_round16(slli(add(xz, wy), 1)), m[7] = shr_round16(slli(sub(yz, wx), 1));
	m[8] = shr_round16(sub(one, slli(add(xx, yy), 1)));
	M out = m_none();
#pragma GCC unroll 4
	for (int k = 0; k < 4; ++k)
		out = m_or(out, gt(abs_(q[k]), splat(FXS_VEC_QUAT_MAX)));
	return m_bits(out);
}

/* ---- the fast path's guard ----
 * A kernel runs a batch first on a fast path that clamps nothing: it notes
 * the range of every value the portable code saturates, and writes nothing
 * back until it knows them all in range. If one left its bound, the batch
 * runs again on the exact path, which clamps and counts as the portable
 * code does, from the same state. In range every clamp is the identity, so
 * both paths give the same bits; the fast path spends two or three
 * instructions on a value where the exact one spends a clamp, a test and a
 * count. */

#if FXS_VEC_GUARD_EXTREMES
/* The guard of the layers with a masked max and min (max_where, min_where:
 * acc where not live): the extremes of the values noted, compared at the
 * end. */
typedef struct guard {
	V hi, lo;   /* of the values bounded to int32, checked against imp32's
		     * -INT32_MAX (INT32_MIN itself only costs a rerun) */
	V hi2, lo2; /* of the values with the kernel's own, wider bound */
	int64_t bound2;
} guard;

INLINE guard guard_new(int64_t bound2)
{
	guard g = { zero(), zero(), zero(), zero(), bound2 };
	return g;
}
INLINE bool guard_ok(const guard *g)
{
	return !m_any(m_or(m_or(gt(g->hi, splat(INT32_MAX)), gt(splat(-INT32_MAX), g->lo)),
			   m_or(gt(g->hi2, splat(g->bound2)), gt(splat(-g->bound2), g->lo2))));
}
INLINE void note(guard *g, V x, M live) { g->hi = max_where(g->hi, live, x), g->lo = min_where(g->lo, live, x); }
INLINE void note_imp(guard *g, V x, M live) { note(g, x, live); }
INLINE void note_hi(guard *g, V x, M live) { g->hi2 = max_where(g->hi2, live, x); }
INLINE void note_wide(guard *g, V x, M live) { g->hi2 = max_where(g->hi2, live, x), g->lo2 = min_where(g->lo2, live, x); }
#endif

#if FXS_VEC_GUARD_OFFSETS
/* The guard of the layers whose masked max and min cost more (AVX2,
 * SIMD128): `out` collects, or-ed, each value noted offset so that in range
 * it lies in [0, 2^32) (bit 63 for note_hi): a bit of a high half set at the
 * end (none_high, the layer's test) is a value out of range. */
typedef struct guard {
	V out;
	int64_t bound2;
} guard;

INLINE guard guard_new(int64_t bound2)
{
	guard g = { zero(), bound2 };
	return g;
}
INLINE bool guard_ok(const guard *g) { return none_high(g->out); }
/* in [INT32_MIN, INT32_MAX]: x + 2^31 in [0, 2^32) */
INLINE void note(guard *g, V x, M live) { g->out = or_(g->out, and_(live, add(x, splat((int64_t)1 << 31)))); }
/* in [-INT32_MAX, INT32_MAX]: x + 2^31 and x + 2^31 - 1 in [0, 2^32) */
INLINE void note_imp(guard *g, V x, M live)
{
	const V t = add(x, splat(((int64_t)1 << 31) - 1));
	g->out = or_(g->out, and_(live, or_(t, add(t, splat(1)))));
}
/* x <= bound2 (|x| < 2^62): x - bound2 - 1 negative, the sign bit of its
 * complement clear */
INLINE void note_hi(guard *g, V x, M live)
{
	g->out = or_(g->out, and_(andnot_(sub(x, splat(g->bound2 + 1)), live), splat(INT64_MIN)));
}
/* |x| < bound2 = 2^k, 32 <= k <= 61 (one stricter than the bound: x =
 * bound2 costs a rerun): (x + 2^k) >>> (k + 1 - 32) in [0, 2^32) */
INLINE void note_wide(guard *g, V x, M live)
{
	const int k = 63 - __builtin_clzll((uint64_t)g->bound2);
	g->out = or_(g->out, and_(live, srli(add(x, splat(g->bound2)), k + 1 - 32)));
}
#endif

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
	note_imp(g, x, live);
	return x;
}

/* three velocity components, every lane: saturated to int32, counted
 * (exact); their range noted (fast) */
INLINE void sat3(v3 *v, V x, V y, V z, guard *g, bool exact, uint32_t *count)
{
	if (!exact) {
		note(g, x, m_all()), note(g, y, m_all()), note(g, z, m_all());
		v->x = x, v->y = y, v->z = z;
		return;
	}
	v->x = sat32(x, m_all(), count), v->y = sat32(y, m_all(), count), v->z = sat32(z, m_all(), count);
}

/* ---- bodies ----
 * The two bodies of each lane (a constraint per lane) and their velocities,
 * as the contact and ball-joint kernels keep them: read from and stored to
 * the bodies' first 24 bytes (v, w) as rows. */
typedef struct bodies {
	char *pa[VW], *pb[VW];
	v3 va, wa, vb, wb;
} bodies;

/* the velocities of the bodies at pa, pb; a and b get the rows' eight
 * int32 (after v and w, the next two) */
INLINE void bodies_load(bodies *s, V a[8], V b[8])
{
	rows_to_lanes((const char *const *)s->pa, a);
	rows_to_lanes((const char *const *)s->pb, b);
	s->va = (v3){ a[0], a[1], a[2] }, s->wa = (v3){ a[3], a[4], a[5] };
	s->vb = (v3){ b[0], b[1], b[2] }, s->wb = (v3){ b[3], b[4], b[5] };
}

/* Store back. Lanes sharing a body share only a read-only one (static,
 * kinematic, asleep, or the spare), whose values did not change: the order
 * of the writes does not matter. */
INLINE void bodies_store(const bodies *s)
{
	const V a[6] = { s->va.x, s->va.y, s->va.z, s->wa.x, s->wa.y, s->wa.z };
	const V b[6] = { s->vb.x, s->vb.y, s->vb.z, s->wb.x, s->wb.y, s->wb.z };
	lanes_to_rows6(a, s->pa);
	lanes_to_rows6(b, s->pb);
}

/* the rows at offset `at` of the solver bodies in slots slot[0..VW) */
INLINE void body_rows(const void *bodies_base, size_t body_size, const uint32_t *slot, size_t at, char *row[VW])
{
	char *base = (char *)(uintptr_t)bodies_base + at;
#pragma GCC unroll 8
	for (int l = 0; l < VW; ++l)
		row[l] = base + (size_t)slot[l] * body_size;
}

#endif
