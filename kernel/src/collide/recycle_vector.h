/* The arithmetic of the recycling test (fxs_recycle, recycle.c) for up to
 * eight pairs at once, written once on the lanes of simd/lanes.h and
 * compiled for each instruction set (simd/kernels_avx2.c, _avx512.c,
 * _neon.c, _simd128.c include their layer, define VK, then this): one int64 lane per
 * pair, the same integer formulas, so the same bits. It mirrors fxs_recycle
 * up to the separations (turn_since, fxg_q_mul, fxg_m3_from_quat,
 * fxg_m3_mul_v3, fxg_v3_dot; a change there is made here once); the rest,
 * a few scalar operations, is fxs_recycle_lane's.
 *
 * Ranges: a lane is taken when its four quaternions' components are within
 * 2^17 raw (every unit one), its normal's within 2^16 + 2^8, the centres'
 * offset, its old value and the lever arms within 2^24 raw (256 m), and
 * every separation fits int32. Then every product is of two values that fit
 * int32, every sum is exact in int64, and nothing saturates where
 * fxs_recycle would count: with the turn test passed (|dq.xyz|_1 <= 3
 * RECYCLE_MAX_TURN, |dq.w| <= 2^17) the rotations' entries are within
 * 2^16.3, the turned lever arms within 2^27, the gaps within 2^28 and their
 * dot products with the normal within 2^30. Other lanes are left to
 * fxs_recycle. */

#include <stddef.h>
#include "collide/contact.h"

#define ARM_MAX ((int64_t)1 << 24)
#define NORMAL_MAX (((int64_t)1 << 16) + ((int64_t)1 << 8))

_Static_assert(offsetof(fxs_contact, qa0) == offsetof(fxs_contact, normal) + 12 &&
		       offsetof(fxs_contact, qb0) == offsetof(fxs_contact, qa0) + 16 &&
		       offsetof(fxs_contact, d0) == offsetof(fxs_contact, qb0) + 16 &&
		       sizeof(fxs_contact) - offsetof(fxs_contact, qb0) >= 32,
	       "a contact read as rows of 32 bytes from its normal and from qb0");
_Static_assert(offsetof(fxs_contact_point, base_separation) == offsetof(fxs_contact_point, anchor_a) + 12 &&
		       sizeof(fxs_contact_point) - offsetof(fxs_contact_point, anchor_a) >= 32,
	       "a point read as a row of 32 bytes from its anchor");
_Static_assert(offsetof(fxs_transform, q) == offsetof(fxs_transform, p) + 12 &&
		       sizeof(fxs_body) - offsetof(fxs_body, xf) - offsetof(fxs_transform, p) >= 32,
	       "a body read as a row of 32 bytes from its position: p, then q");

/* rows of 32 bytes at byte `at` of each lane's struct */
INLINE void rows_at(const void *const *s, size_t at, V out[8])
{
	const char *row[VW];
	for (int l = 0; l < VW; ++l)
		row[l] = (const char *)s[l] + at;
	rows_to_lanes(row, out);
}

/* turn_since: q conj(q0) (fxg_q_mul, each component a rounded exact sum)
 * with w >= 0, exactly none when q is q0 */
INLINE void turn_since_v(const V q[4], const V q0[4], V d[4])
{
	const V ax = q[0], ay = q[1], az = q[2], aw = q[3];
	const V bx = sub(zero(), q0[0]), by = sub(zero(), q0[1]), bz = sub(zero(), q0[2]), bw = q0[3];
	d[0] = shr_round16(sub(add(add(mul(aw, bx), mul(ax, bw)), mul(ay, bz)), mul(az, by)));
	d[1] = shr_round16(add(add(sub(mul(aw, by), mul(ax, bz)), mul(ay, bw)), mul(az, bx)));
	d[2] = shr_round16(add(sub(add(mul(aw, bz), mul(ax, by)), mul(ay, bx)), mul(az, bw)));
	d[3] = shr_round16(sub(sub(sub(mul(aw, bw), mul(ax, bx)), mul(ay, by)), mul(az, bz)));
	const M flip = gt(zero(), d[3]);
	M same = m_all();
	for (int k = 0; k < 4; ++k)
		same = m_and(same, eq(q[k], q0[k]));
	for (int k = 0; k < 4; ++k)
		d[k] = sel(same, splat(k == 3 ? 65536 : 0), sel(flip, sub(zero(), d[k]), d[k]));
}

INLINE V l1_v(V x, V y, V z) { return add(add(abs_(x), abs_(y)), abs_(z)); }

/* fxg_m3_mul_v3 (columns m[0..2], m[3..5], m[6..8]) */
INLINE v3 rotate_v(const V m[9], v3 v)
{
	return (v3){ shr_round16(add(add(mul(m[0], v.x), mul(m[3], v.y)), mul(m[6], v.z))),
		     shr_round16(add(add(mul(m[1], v.x), mul(m[4], v.y)), mul(m[7], v.z))),
		     shr_round16(add(add(mul(m[2], v.x), mul(m[5], v.y)), mul(m[8], v.z))) };
}

/* |x| > bound in any of three */
INLINE M over3(V x, V y, V z, int64_t bound)
{
	return m_or(m_or(gt(abs_(x), splat(bound)), gt(abs_(y), splat(bound))), gt(abs_(z), splat(bound)));
}

/* mean_round (recycle.c): g / np rounded half away from zero, np 1 to 4,
 * |g| < 2^31 - 1; by 3 as (x 0x55555556) >> 32, exact below 2^31 */
INLINE V mean_round_v(V g, V np)
{
	const V x = abs_(g);
	const V by2 = srli(add(x, splat(1)), 1), by4 = srli(add(x, splat(2)), 2);
	const V by3 = srli(mul(add(x, splat(1)), splat(0x55555556)), 32);
	const V q = sel(eq(np, splat(1)), x, sel(eq(np, splat(2)), by2, sel(eq(np, splat(3)), by3, by4)));
	return sel(gt(zero(), g), sub(zero(), q), q);
}

/* lanes h..h+VW */
INLINE void recycle_at(const void *const *prev, const void *const *a, const void *const *b, const int32_t *count,
		       fix16_t linear_slop, fxs_recycle_lanes *out, int n, int h)
{
	M fine = m_from_bits(n - h >= VW ? (1u << VW) - 1 : (1u << (n - h)) - 1);
	const V np = ld32(count);
	fine = m_and(fine, m_and(gt(np, zero()), gt(splat(5), np)));
	V P[8], Q[8], A[8], B[8];
	rows_at(prev + h, offsetof(fxs_contact, normal), P); /* n, qa0, qb0.x */
	rows_at(prev + h, offsetof(fxs_contact, qb0), Q);    /* qb0, d0 */
	rows_at(a + h, offsetof(fxs_body, xf) + offsetof(fxs_transform, p), A);
	rows_at(b + h, offsetof(fxs_body, xf) + offsetof(fxs_transform, p), B);
	M out_q = m_none();
	const V qmax = splat(FXS_VEC_QUAT_MAX);
	for (int k = 0; k < 4; ++k) {
		out_q = m_or(out_q, m_or(gt(abs_(P[3 + k]), qmax), gt(abs_(Q[k]), qmax)));     /* qa0, qb0 */
		out_q = m_or(out_q, m_or(gt(abs_(A[3 + k]), qmax), gt(abs_(B[3 + k]), qmax))); /* the poses' */
	}
	const v3 nrm = { P[0], P[1], P[2] }, d0 = { Q[4], Q[5], Q[6] };
	const v3 d = { sub(B[0], A[0]), sub(B[1], A[1]), sub(B[2], A[2]) };
	fine = m_andnot(m_or(m_or(out_q, over3(nrm.x, nrm.y, nrm.z, NORMAL_MAX)),
			     m_or(over3(d0.x, d0.y, d0.z, ARM_MAX), over3(d.x, d.y, d.z, ARM_MAX))),
			fine);
	/* the turns since the manifold was made */
	V dqa[4], dqb[4];
	turn_since_v(A + 3, P + 3, dqa);
	const V qb0[4] = { P[7], Q[1], Q[2], Q[3] };
	turn_since_v(B + 3, qb0, dqb);
	const V ta = l1_v(dqa[0], dqa[1], dqa[2]), tb = l1_v(dqb[0], dqb[1], dqb[2]);
	const V turn_max = splat(3 * RECYCLE_MAX_TURN);
	M keep = m_not(m_or(gt(ta, turn_max), gt(tb, turn_max)));
	/* the points' lever arms and reaches */
	v3 arm[4], ab[4];
	V base[4], reach_a = zero(), reach_b = zero();
	M live[4];
	for (int k = 0; k < 4; ++k) {
		V r[8];
		const size_t at = offsetof(fxs_contact, points) + (size_t)k * sizeof(fxs_contact_point);
		rows_at(prev + h, at + offsetof(fxs_contact_point, anchor_a), r);
		live[k] = gt(np, splat(k));
		arm[k] = (v3){ r[0], r[1], r[2] }, base[k] = r[3];
		ab[k] = (v3){ sub(r[0], d0.x), sub(r[1], d0.y), sub(r[2], d0.z) };
		fine = m_andnot(m_and(live[k], over3(r[0], r[1], r[2], ARM_MAX)), fine);
		reach_a = sel(live[k], max_(reach_a, l1_v(arm[k].x, arm[k].y, arm[k].z)), reach_a);
		reach_b = sel(live[k], max_(reach_b, l1_v(ab[k].x, ab[k].y, ab[k].z)), reach_b);
	}
	const V moved = add(l1_v(sub(d.x, d0.x), sub(d.y, d0.y), sub(d.z, d0.z)),
			    srli(slli(add(mul(ta, reach_a), mul(tb, reach_b)), 1), 16));
	keep = m_and(keep, gt(splat((int64_t)RECYCLE_SLOPS * linear_slop), moved));
	/* rotation_of's range (the turn test bounds dq.xyz) */
	fine = m_andnot(m_and(keep, m_or(gt(abs_(dqa[3]), qmax), gt(abs_(dqb[3]), qmax))),
			fine);
	M still = m_none();
	if (m_any(m_and(fine, keep))) {
		V ra[9], rb[9];
		(void)rotation_of(dqa, ra);
		(void)rotation_of(dqb, rb);
		V gx = zero(), gy = zero(), gz = zero();
		for (int k = 0; k < 4; ++k) {
			const v3 ma = rotate_v(ra, arm[k]), mb = rotate_v(rb, ab[k]);
			const v3 gap = { add(d.x, sub(mb.x, ma.x)), add(d.y, sub(mb.y, ma.y)), add(d.z, sub(mb.z, ma.z)) };
			const V sep = add(base[k], shr_round16(dot3(nrm, gap)));
			fine = m_andnot(m_and(m_and(live[k], keep), m_or(gt(sep, splat(INT32_MAX)), gt(splat(INT32_MIN), sep))),
					fine);
			st32(out->sep[k], sep);
			st32(out->ab[k][0], ab[k].x), st32(out->ab[k][1], ab[k].y), st32(out->ab[k][2], ab[k].z);
			gx = add(gx, maskz(live[k], gap.x)), gy = add(gy, maskz(live[k], gap.y)), gz = add(gz, maskz(live[k], gap.z));
		}
		/* slid_little: the slip (the mean gap, mean_round), and whether
		 * its part along the tangents is within a slop */
		const v3 slip = { mean_round_v(gx, np), mean_round_v(gy, np), mean_round_v(gz, np) };
		st32(out->slip[0], slip.x), st32(out->slip[1], slip.y), st32(out->slip[2], slip.z);
		const V dn = shr_round16(dot3(nrm, slip));
		const V along = l1_v(sub(slip.x, shr_round16(mul(dn, nrm.x))), sub(slip.y, shr_round16(mul(dn, nrm.y))),
				     sub(slip.z, shr_round16(mul(dn, nrm.z))));
		still = m_not(gt(along, splat(linear_slop)));
	}
	out->done |= m_bits(fine) << h;
	out->keep |= m_bits(m_and(fine, keep)) << h;
	out->still |= m_bits(m_and(m_and(fine, keep), still)) << h;
}

static void VKN(fxs_recycle_x8)(FXS_RECYCLE_ARGS)
{
	const void *p[8], *pa[8], *pb[8];
	int32_t count[8];
	for (int k = 0; k < 8; ++k) {
		const int l = k < n ? k : 0; /* empty lanes repeat lane 0 (discarded) */
		p[k] = prev[l], pa[k] = a[l], pb[k] = b[l];
		count[k] = prev[l]->point_count;
	}
	out->done = out->keep = out->still = 0;
	for (int h = 0; h < n; h += VW)
		recycle_at(p, pa, pb, count, linear_slop, out, n, h);
}

#undef ARM_MAX
#undef NORMAL_MAX
