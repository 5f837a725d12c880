/* The box-box separating-axis tests (fxs_box_sat, collide_box_box.c) for up
 * to eight pairs at once, written once on the lanes of simd/lanes.h and
 * compiled for each instruction set (simd/kernels_avx2.c, _avx512.c,
 * _neon.c, _simd128.c include their layer, define VK, then this): one int64 lane per
 * pair, the same integer formulas in the same order, so the same bits. It
 * mirrors fxs_box_sat whole (fxg_m3_tmul_v3, np_dot, np_w2f, mulr,
 * np_div_round; a change there is made here once). In a resting stack every
 * pair is a box pair and the tests were a tenth of a step, scalar.
 *
 * Ranges (collide_common.h): |pB - pA| components <= 2^28 raw (np_rel), half
 * extents <= 1000 m (2^26 raw). A lane is taken only when its rotation
 * entries are within [-(2^16 + 2^10), 2^16 + 2^10] (any rotation made from a
 * unit quaternion) and its best face separation fits int32: then |d| < 2^30
 * and every product below is of two values that fit int32, every sum exact
 * in int64 (below 2^62), and nothing saturates, so the scalar code's
 * saturation counts are zero too. Other lanes are left to the caller. The
 * edge axes that need a square root (those that may beat the best so far)
 * are taken lane by lane with the scalar formula. */

#define EDGE_MIN_LEN2 ((int64_t)1 << 20) /* collide_box_box.c's */
#define ROT_MAX (((int64_t)1 << 16) + ((int64_t)1 << 10))

/* the pairs, transposed: [component][lane] */
typedef struct sat_lanes {
	_Alignas(64) int32_t RA[3][3][8], RB[3][3][8], HA[3][8], HB[3][8], DW[3][8];
} sat_lanes;

/* fxg_div_round64(num, 2^17) for num <= 0: -((-num + 2^16) >> 17) */
INLINE V div_2_17_neg(V num) { return sub(zero(), sra62(add(sub(zero(), num), splat((int64_t)1 << 16)), 17)); }

/* pairs h..h+VW (of n): the lanes done, as bits */
INLINE uint32_t sat_lanes_at(const sat_lanes *in, int n, fxs_box_sat_result out[8], int h)
{
	V cola[3][3], colb[3][3]; /* [column][component] */
	M fine = m_from_bits(n - h >= VW ? (1u << VW) - 1 : (1u << (n - h)) - 1);
	for (int c = 0; c < 3; ++c)
		for (int e = 0; e < 3; ++e) {
			cola[c][e] = ld32(in->RA[c][e]), colb[c][e] = ld32(in->RB[c][e]);
			fine = m_andnot(m_or(gt(abs_(cola[c][e]), splat(ROT_MAX)), gt(abs_(colb[c][e]), splat(ROT_MAX))), fine);
		}
	if (!m_any(fine))
		return 0;
	V ha[3], hb[3], w[3];
	for (int e = 0; e < 3; ++e) {
		ha[e] = ld32(in->HA[e]), hb[e] = ld32(in->HB[e]), w[e] = ld32(in->DW[e]);
		fine = m_andnot(m_or(m_or(ugt(ha[e], splat(FXS_SHAPE_MAX_SIZE)), ugt(hb[e], splat(FXS_SHAPE_MAX_SIZE))),
				     ugt(abs_(w[e]), splat(FXS_NP_MAX_REL))),
				fine);
	}
	if (!m_any(fine))
		return 0;
	/* d = RA^T dw (fxg_m3_tmul_v3: each a rounded exact dot) */
	V dd[3];
	for (int i = 0; i < 3; ++i)
		dd[i] = shr_round16(add(add(mul(cola[i][0], w[0]), mul(cola[i][1], w[1])), mul(cola[i][2], w[2])));
	V C[3][3], Q[3][3];
	for (int i = 0; i < 3; ++i)
		for (int j = 0; j < 3; ++j) {
			C[i][j] = shr_round16(add(add(mul(cola[i][0], colb[j][0]), mul(cola[i][1], colb[j][1])),
						  mul(cola[i][2], colb[j][2])));
			Q[i][j] = abs_(C[i][j]);
		}
	/* face axes of A, then of B: the first strict maximum */
	V sep_a = zero(), ia = zero(), sep_b = zero(), jb = zero(), db[3];
	for (int i = 0; i < 3; ++i) {
		V s = sub(sub(slli(abs_(dd[i]), 16), slli(ha[i], 16)),
			  add(add(mul(hb[0], Q[i][0]), mul(hb[1], Q[i][1])), mul(hb[2], Q[i][2])));
		s = shr_round16(s);
		M up = i == 0 ? m_all() : gt(s, sep_a);
		sep_a = sel(up, s, sep_a), ia = sel(up, splat(i), ia);
	}
	for (int j = 0; j < 3; ++j) {
		db[j] = add(add(mul(dd[0], C[0][j]), mul(dd[1], C[1][j])), mul(dd[2], C[2][j]));
		V s = sub(sub(abs_(db[j]), slli(hb[j], 16)), add(add(mul(ha[0], Q[0][j]), mul(ha[1], Q[1][j])), mul(ha[2], Q[2][j])));
		s = shr_round16(s);
		M up = j == 0 ? m_all() : gt(s, sep_b);
		sep_b = sel(up, s, sep_b), jb = sel(up, splat(j), jb);
	}
	/* edge axes, as collide_box_box.c skips them */
	const V face_first = max_(sep_a, sep_b);
	/* it feeds a 32 x 32 product below: with unit quaternions (which the
	 * world keeps, within 2^-10) |face_first| < 2^30; a lane beyond int32
	 * goes to the scalar code */
	fine = m_andnot(ugt(abs_(face_first), splat(INT32_MAX)), fine);
	if (!m_any(fine))
		return 0;
	const V edge_thresh = add(shr_round16(mul(splat(FXS_NP_REL_EDGE), face_first)), splat(FXS_NP_ABS_TOL));
	const V matters = min_(face_first, edge_thresh);
	V sep_e = splat(INT64_MIN), ei = splat(-1), ej = splat(-1);
	for (int i = 0; i < 3; ++i) {
		int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
		for (int j = 0; j < 3; ++j) {
			int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
			V len2 = add(mul(C[i1][j], C[i1][j]), mul(C[i2][j], C[i2][j]));
			M ok = m_andnot(gt(splat(EDGE_MIN_LEN2), len2), fine);
			if (!m_any(ok))
				continue;
			V proj = sub(mul(dd[i2], C[i1][j]), mul(dd[i1], C[i2][j]));
			V rA = add(mul(ha[i1], Q[i2][j]), mul(ha[i2], Q[i1][j]));
			V rB = add(mul(hb[j1], Q[i][j2]), mul(hb[j2], Q[i][j1]));
			V num = sub(sub(abs_(proj), rA), rB);
			V bound = div_2_17_neg(num);
			M nonpos = le(num, zero());
			M skip = m_and(nonpos, m_or(le(bound, sep_e), le(bound, matters)));
			M need = m_andnot(skip, ok);
			if (!m_any(need))
				continue;
			const uint32_t needl = m_bits(need);
			_Alignas(64) int64_t numl[VW], len2l[VW], sl[VW];
			st64_(numl, num), st64_(len2l, len2);
			for (int k = 0; k < VW; ++k)
				sl[k] = (needl >> k & 1) ? fxg_div_round64(numl[k], (int64_t)fxg_isqrt64_round((uint64_t)len2l[k])) : 0;
			V s = ld64_(sl);
			M up = m_and(need, gt(s, sep_e));
			sep_e = sel(up, s, sep_e), ei = sel(up, splat(i), ei), ej = sel(up, splat(j), ej);
		}
	}
	/* out, lane by lane */
	_Alignas(64) int64_t Cl[3][3][VW], dl[3][VW], dbl[3][VW], sa[VW], sb[VW], se[VW], ial[VW], jbl[VW], eil[VW],
		ejl[VW];
	for (int i = 0; i < 3; ++i) {
		for (int j = 0; j < 3; ++j)
			st64_(Cl[i][j], C[i][j]);
		st64_(dl[i], dd[i]), st64_(dbl[i], db[i]);
	}
	st64_(sa, sep_a), st64_(sb, sep_b), st64_(se, sep_e), st64_(ial, ia), st64_(jbl, jb), st64_(eil, ei), st64_(ejl, ej);
	const uint32_t done = m_bits(fine);
	for (int k = 0; k < VW && h + k < n; ++k) {
		if (!(done >> k & 1))
			continue;
		fxs_box_sat_result *r = &out[h + k];
		for (int i = 0; i < 3; ++i)
			for (int j = 0; j < 3; ++j)
				r->C[i][j] = (fix16_t)Cl[i][j][k];
		r->d = fxg_v3((fix16_t)dl[0][k], (fix16_t)dl[1][k], (fix16_t)dl[2][k]);
		for (int j = 0; j < 3; ++j)
			r->db[j] = dbl[j][k];
		r->sep_a = sa[k], r->sep_b = sb[k], r->sep_e = se[k];
		r->ia = (int8_t)ial[k], r->jb = (int8_t)jbl[k], r->ei = (int8_t)eil[k], r->ej = (int8_t)ejl[k];
	}
	return done << h;
}

static uint32_t VKN(fxs_box_sat_x8)(FXS_BOX_SAT_ARGS)
{
	sat_lanes in;
	for (int k = 0; k < 8; ++k) {
		int l = k < n ? k : 0; /* empty lanes repeat lane 0 (discarded) */
		const fxg_mat3 *ma = ra[l], *mb = rb[l];
		const fxg_vec3 ca[3] = { ma->cx, ma->cy, ma->cz }, cb[3] = { mb->cx, mb->cy, mb->cz };
		for (int c = 0; c < 3; ++c) {
			in.RA[c][0][k] = ca[c].x, in.RA[c][1][k] = ca[c].y, in.RA[c][2][k] = ca[c].z;
			in.RB[c][0][k] = cb[c].x, in.RB[c][1][k] = cb[c].y, in.RB[c][2][k] = cb[c].z;
		}
		in.HA[0][k] = a[l]->half_extents.x, in.HA[1][k] = a[l]->half_extents.y, in.HA[2][k] = a[l]->half_extents.z;
		in.HB[0][k] = b[l]->half_extents.x, in.HB[1][k] = b[l]->half_extents.y, in.HB[2][k] = b[l]->half_extents.z;
		in.DW[0][k] = dw[l].x, in.DW[1][k] = dw[l].y, in.DW[2][k] = dw[l].z;
	}
	uint32_t done = 0;
	for (int h = 0; h < n; h += VW)
		done |= sat_lanes_at(&in, n, out, h);
	return done;
}

#undef EDGE_MIN_LEN2
#undef ROT_MAX
