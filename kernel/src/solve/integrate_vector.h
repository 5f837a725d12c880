/* The bodies' position integration (fxs_integrate_body, solver.c) for VW
 * bodies at a time, written once on the lanes of simd/lanes.h and compiled
 * for each instruction set (simd/kernels_avx2.c, _avx512.c, _neon.c,
 * _simd128.c include their layer, define VK, then this): one int64 lane per
 * body, the same integer formulas, so the same bits. It mirrors
 * fxs_integrate_body with fxg_mul, fxg_v3_add, fxg_v3_mul_add,
 * fxg_q30_integrate's small-eps normalisation and fxg_q30_to_q (a change
 * there is made here once).
 *
 * Ranges: a lane is taken when its body is plain (it moves and has no
 * locks: its flags, integrate.h) and its angular velocity's components are
 * below 2^29 raw (8192 rad/s), and then when the new position, displacement
 * and rotation fit int32. The turned quaternion takes the small-eps
 * normalisation on the lanes, or, turning faster (above about 1.9 rad/s at
 * the default sub-steps: falling, rolling and tumbling bodies), the
 * general one lane by lane, fxg_q30_normalize_wide itself (a lane whose
 * quaternion it would count as zero is left). With 0 < len <= 2^16 every
 * product is of two int32 and exact; |len v| / 2^16 <= |v| (no step
 * saturates); each sum of three products of |w| < 2^29 and |q| <= 2^31 is
 * below 3 2^60 < 2^62 (no fxg_add64 overflows, nothing is clamped to
 * 2^62), its rounding by 2^16 times len below 3 2^60 (mullo exact); the
 * normalisation's test is made as fxg_q30_integrate makes it (each
 * component below 2^31, the squared norm in uint64 bits, |eps 2^60| <=
 * 2^42), so a lane taken takes that path there too. A body with w = 0
 * keeps its orientation and rotation, as there. Other lanes are left to
 * fxs_integrate_body. */

#include <stddef.h>

#define W_MAX (((int64_t)1 << 29) - 1)
#define BODY_P (offsetof(fxs_body, xf) + offsetof(fxs_transform, p))
#define BODY_QZ (offsetof(fxs_body, xf) + offsetof(fxs_transform, q) + offsetof(fxg_quat, z))

_Static_assert(offsetof(fxs_transform, q) == offsetof(fxs_transform, p) + 12 &&
		       offsetof(fxs_body, q30) == offsetof(fxs_body, xf) + offsetof(fxs_transform, q) + 16 &&
		       sizeof(fxs_body) - BODY_P >= 32 + 12,
	       "a body read as rows of 32 bytes from its position (p, q, q30.x) and from q (q, q30)");
_Static_assert(offsetof(solver_body, w) == 12 && offsetof(solver_body, dp) == 24 && offsetof(solver_body, dtheta) == 36 &&
		       sizeof(solver_body) >= 56,
	       "a solver body read as rows of 32 bytes from v (v, w) and from dp (dp, dtheta)");

/* fxg_shr_round(x, n) for a constant n, |x| < 2^62 - 2^(n-1) */
#define SHR_ROUND(x, n) sra62(sub(add((x), splat((int64_t)1 << ((n)-1))), srli((x), 63)), (n))

/* x outside int32 */
INLINE M out32(V x) { return m_or(gt(x, splat(INT32_MAX)), gt(splat(INT32_MIN), x)); }

/* bodies h..h+VW; the bits of those not taken */
INLINE uint64_t integrate_at(fxs_body *b, solver_body *s, const uint8_t *flags, int h, fix16_t len)
{
	uint32_t plain = 0;
	const char *bl[VW], *sl[VW];
	char *bp[VW], *bq[VW], *sd[VW];
#pragma GCC unroll 8
	for (int l = 0; l < VW; ++l) {
		fxs_body *bb = &b[h + l];
		solver_body *ss = &s[h + l];
		plain |= (uint32_t)(flags[h + l] / FXS_INTEGRATE_PLAIN & 1) << l;
		bp[l] = (char *)bb + BODY_P, bq[l] = (char *)bb + BODY_QZ, sd[l] = (char *)&ss->dp;
		bl[l] = (const char *)bb + BODY_P, sl[l] = (const char *)ss;
	}
	if (!plain)
		return (1u << VW) - 1;
	V S0[8], S1[8], B0[8];
	rows_to_lanes(sl, S0); /* v, w, dp.x, dp.y */
	for (int l = 0; l < VW; ++l)
		sl[l] = sd[l];
	rows_to_lanes(sl, S1); /* dp, dtheta, ... */
	rows_to_lanes(bl, B0); /* p, q, q30.x */
	const V H = splat(len);
	M fine = m_from_bits(plain);
	/* position and displacement: p + fxg_mul(len, v), dp + the same */
	V p[3], dp[3];
	const V *v = S0, *w = S0 + 3;
	M out = m_none();
#pragma GCC unroll 3
	for (int k = 0; k < 3; ++k) {
		const V step = shr_round16(mul(H, v[k]));
		p[k] = add(B0[k], step), dp[k] = add(S1[k], step);
		out = m_or(out, m_or(out32(p[k]), out32(dp[k])));
	}
	fine = m_andnot(out, fine);
	/* the turn, where w != 0; when no lane turns (often, in a scene at
	 * rest), nothing of it is read or written */
	M rot = m_and(fine, m_not(eq(or_(or_(w[0], w[1]), w[2]), zero())));
	V dth[3] = { S1[3], S1[4], S1[5] };
	if (m_any(rot)) {
		V B1[8];
		for (int l = 0; l < VW; ++l)
			bl[l] += 12;
		rows_to_lanes(bl, B1); /* q, q30 */
		const V *q = B1, *c = B1 + 4;
		M rot_out = m_none();
#pragma GCC unroll 3
		for (int k = 0; k < 3; ++k) {
			dth[k] = add(S1[3 + k], shr_round16(mul(H, w[k])));
			rot_out = m_or(rot_out, m_or(out32(dth[k]), gt(abs_(w[k]), splat(W_MAX))));
		}
		/* fxg_q30_integrate: s = (w, 0) * q exact, q + (len / 2) s rounded */
		const V qx = c[0], qy = c[1], qz = c[2], qw = c[3];
		const V sq[4] = { sub(add(mul(w[0], qw), mul(w[1], qz)), mul(w[2], qy)),
				  sub(add(mul(w[1], qw), mul(w[2], qx)), mul(w[0], qz)),
				  sub(add(mul(w[2], qw), mul(w[0], qy)), mul(w[1], qx)),
				  sub(sub(sub(zero(), mul(w[0], qx)), mul(w[1], qy)), mul(w[2], qz)) };
		V u[4];
		V any = zero(), n2 = zero();
#pragma GCC unroll 4
		for (int k = 0; k < 4; ++k) {
			u[k] = add(c[k], SHR_ROUND(mullo(shr_round16(sq[k]), H), 17));
			any = or_(any, abs_(u[k]));
			n2 = add(n2, mul(u[k], u[k])); /* (bits of the uint64 sum where any < 2^31) */
		}
		/* the small-eps normalisation: |u| < 2^31, |eps 2^60| <= 2^42 */
		const V e = sub(n2, splat((int64_t)1 << 60)), lim = splat(((int64_t)1 << 42) + 1);
		const M small = m_and(m_not(gt(any, splat(INT32_MAX))), m_and(gt(lim, e), gt(e, sub(zero(), lim))));
		fine = m_andnot(m_and(rot, rot_out), fine);
		rot = m_and(rot, fine);
		const V e46 = SHR_ROUND(e, 14);
		V o[4], oq[4];
#pragma GCC unroll 4
		for (int k = 0; k < 4; ++k)
			o[k] = sub(u[k], SHR_ROUND(mul(u[k], e46), 47));
		const uint32_t general = m_bits(m_andnot(small, rot));
		if (general) { /* the others: the general normalisation, lane by lane */
			int64_t ul[4][VW], ol[4][VW];
			uint32_t zero_q = 0;
			for (int k = 0; k < 4; ++k)
				st64_(ul[k], u[k]), st64_(ol[k], o[k]);
			for (int l = 0; l < VW; ++l) {
				if (!(general >> l & 1))
					continue;
				const int64_t cl[4] = { ul[0][l], ul[1][l], ul[2][l], ul[3][l] };
				uint32_t zeros = 0;
				const fxg_quat30 r = fxg_q30_normalize_wide(cl, &zeros);
				zero_q |= (zeros != 0) << l;
				ol[0][l] = r.x, ol[1][l] = r.y, ol[2][l] = r.z, ol[3][l] = r.w;
			}
			for (int k = 0; k < 4; ++k)
				o[k] = ld64_(ol[k]);
			fine = m_andnot(m_from_bits(zero_q), fine);
			rot = m_and(rot, fine);
		}
#pragma GCC unroll 4
		for (int k = 0; k < 4; ++k) {
			oq[k] = sel(rot, SHR_ROUND(o[k], 14), q[k]); /* fxg_q30_to_q */
			o[k] = sel(rot, o[k], c[k]);
		}
		/* B0's q, for the store below */
		B0[3] = oq[0], B0[4] = oq[1], B0[5] = oq[2];
		const V r1[6] = { oq[2], oq[3], o[0], o[1], o[2], o[3] };
		lanes_to_rows6(r1, bq);
#pragma GCC unroll 3
		for (int k = 0; k < 3; ++k)
			dth[k] = sel(rot, dth[k], S1[3 + k]);
	}
	if (m_any(fine)) {
		const V r0[6] = { sel(fine, p[0], B0[0]), sel(fine, p[1], B0[1]), sel(fine, p[2], B0[2]), B0[3], B0[4], B0[5] };
		const V r2[6] = { sel(fine, dp[0], S1[0]), sel(fine, dp[1], S1[1]), sel(fine, dp[2], S1[2]), dth[0], dth[1], dth[2] };
		lanes_to_rows6(r0, bp);
		lanes_to_rows6(r2, sd);
	}
	return ((1u << VW) - 1) & ~m_bits(fine);
}

static uint64_t VKN(fxs_integrate_x64)(FXS_INTEGRATE_ARGS)
{
	uint64_t left = 0;
	uint32_t h = 0;
	for (; h + VW <= n; h += VW)
		left |= integrate_at(b, s, flags, (int)h, len) << h;
	if (h < n)
		left |= (~(uint64_t)0 >> (64 - (n - h))) << h; /* the last few: the scalar code */
	return left;
}

#undef W_MAX
#undef BODY_P
#undef BODY_QZ
#undef SHR_ROUND
