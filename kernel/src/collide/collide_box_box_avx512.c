/* The box-box separating-axis tests (fxs_box_sat, collide_box_box.c) for
 * eight pairs at once with AVX-512: one int64 lane per pair, the same
 * integer formulas in the same order, so the same bits. In a resting stack
 * every pair is a box pair and the tests were a tenth of a step, scalar.
 * Integer instructions only (`make nofloat` disassembles this file).
 *
 * Ranges (collide_common.h): |pB - pA| components <= 2^28 raw (np_rel), half
 * extents <= 1000 m (2^26 raw). A lane is taken only when its rotation
 * entries are within [-(2^16 + 2^10), 2^16 + 2^10] (any rotation made from a
 * unit quaternion) and its best face separation fits int32: then |d| < 2^30
 * and every product below is of two values that fit int32 (vpmuldq), every
 * sum exact in int64, and nothing saturates, so the scalar code's saturation
 * counts are zero too. Other lanes are left
 * to the caller. The edge axes that need a square root (those that may beat
 * the best so far) are taken lane by lane with the scalar formula. */
#include "collide/collide_common.h"
#include "geometry/shape.h"
#include "simd/simd512.h"

#if FXS_AVX512_BUILD
#define EDGE_MIN_LEN2 ((int64_t)1 << 20) /* collide_box_box.c's */
#define ROT_MAX (((int64_t)1 << 16) + ((int64_t)1 << 10))

INLINE V abs64(V x) { return _mm512_abs_epi64(x); }

/* np_div_round(num, 2^17) for num <= 0: -((-num + 2^16) >> 17) */
INLINE V div_2_17_neg(V num) { return sub(zero(), _mm512_srai_epi64(add(sub(zero(), num), splat((int64_t)1 << 16)), 17)); }

uint32_t fxs_box_sat_x8(int n, const fxs_shape *const a[8], const fxs_shape *const b[8], const fxg_vec3 dw[8],
			const fxg_mat3 *const ra[8], const fxg_mat3 *const rb[8], fxs_box_sat_result out[8])
{
	/* the lanes, transposed: [component][lane] */
	_Alignas(64) int32_t RA[3][3][8], RB[3][3][8], HA[3][8], HB[3][8], DW[3][8];
	for (int k = 0; k < 8; ++k) {
		int l = k < n ? k : 0; /* empty lanes repeat lane 0 (discarded) */
		const fxg_mat3 *ma = ra[l], *mb = rb[l];
		const fxg_vec3 ca[3] = { ma->cx, ma->cy, ma->cz }, cb[3] = { mb->cx, mb->cy, mb->cz };
		for (int c = 0; c < 3; ++c) {
			RA[c][0][k] = ca[c].x, RA[c][1][k] = ca[c].y, RA[c][2][k] = ca[c].z;
			RB[c][0][k] = cb[c].x, RB[c][1][k] = cb[c].y, RB[c][2][k] = cb[c].z;
		}
		HA[0][k] = a[l]->half_extents.x, HA[1][k] = a[l]->half_extents.y, HA[2][k] = a[l]->half_extents.z;
		HB[0][k] = b[l]->half_extents.x, HB[1][k] = b[l]->half_extents.y, HB[2][k] = b[l]->half_extents.z;
		DW[0][k] = dw[l].x, DW[1][k] = dw[l].y, DW[2][k] = dw[l].z;
	}
	V cola[3][3], colb[3][3]; /* [column][component] */
	M fine = n >= 8 ? ALL_LANES : (M)((1u << n) - 1);
	for (int c = 0; c < 3; ++c)
		for (int e = 0; e < 3; ++e) {
			cola[c][e] = ld32(RA[c][e]), colb[c][e] = ld32(RB[c][e]);
			fine &= ~gt(abs64(cola[c][e]), splat(ROT_MAX)) & ~gt(abs64(colb[c][e]), splat(ROT_MAX));
		}
	if (!fine)
		return 0;
	V ha[3], hb[3], w[3];
	for (int e = 0; e < 3; ++e) {
		ha[e] = ld32(HA[e]), hb[e] = ld32(HB[e]), w[e] = ld32(DW[e]);
		fine &= _mm512_cmple_epu64_mask(ha[e], splat(FXS_SHAPE_MAX_SIZE)) &
			_mm512_cmple_epu64_mask(hb[e], splat(FXS_SHAPE_MAX_SIZE)) &
			_mm512_cmple_epu64_mask(abs64(w[e]), splat(FXS_NP_MAX_REL));
	}
	if (!fine)
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
			Q[i][j] = abs64(C[i][j]);
		}
	/* face axes of A, then of B: the first strict maximum */
	V sep_a = zero(), ia = zero(), sep_b = zero(), jb = zero(), db[3];
	for (int i = 0; i < 3; ++i) {
		V s = sub(sub(_mm512_slli_epi64(abs64(dd[i]), 16), _mm512_slli_epi64(ha[i], 16)),
			  add(add(mul(hb[0], Q[i][0]), mul(hb[1], Q[i][1])), mul(hb[2], Q[i][2])));
		s = shr_round16(s);
		M up = i == 0 ? ALL_LANES : gt(s, sep_a);
		sep_a = sel(up, s, sep_a), ia = sel(up, splat(i), ia);
	}
	for (int j = 0; j < 3; ++j) {
		db[j] = add(add(mul(dd[0], C[0][j]), mul(dd[1], C[1][j])), mul(dd[2], C[2][j]));
		V s = sub(sub(abs64(db[j]), _mm512_slli_epi64(hb[j], 16)),
			  add(add(mul(ha[0], Q[0][j]), mul(ha[1], Q[1][j])), mul(ha[2], Q[2][j])));
		s = shr_round16(s);
		M up = j == 0 ? ALL_LANES : gt(s, sep_b);
		sep_b = sel(up, s, sep_b), jb = sel(up, splat(j), jb);
	}
	/* edge axes, as collide_box_box.c skips them */
	const V face_first = _mm512_max_epi64(sep_a, sep_b);
	/* it feeds a 32 x 32 product below: with unit quaternions (which the
	 * world keeps, within 2^-10) |face_first| < 2^30; a lane beyond int32
	 * goes to the scalar code */
	fine &= _mm512_cmple_epu64_mask(abs64(face_first), splat(INT32_MAX));
	if (!fine)
		return 0;
	const V edge_thresh = add(shr_round16(mul(splat(FXS_NP_REL_EDGE), face_first)), splat(FXS_NP_ABS_TOL));
	const V matters = _mm512_min_epi64(face_first, edge_thresh);
	V sep_e = splat(INT64_MIN), ei = splat(-1), ej = splat(-1);
	for (int i = 0; i < 3; ++i) {
		int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
		for (int j = 0; j < 3; ++j) {
			int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
			V len2 = add(mul(C[i1][j], C[i1][j]), mul(C[i2][j], C[i2][j]));
			M ok = fine & ~_mm512_cmplt_epi64_mask(len2, splat(EDGE_MIN_LEN2));
			if (!ok)
				continue;
			V proj = sub(mul(dd[i2], C[i1][j]), mul(dd[i1], C[i2][j]));
			V rA = add(mul(ha[i1], Q[i2][j]), mul(ha[i2], Q[i1][j]));
			V rB = add(mul(hb[j1], Q[i][j2]), mul(hb[j2], Q[i][j1]));
			V num = sub(sub(abs64(proj), rA), rB);
			V bound = div_2_17_neg(num);
			M nonpos = _mm512_cmple_epi64_mask(num, zero());
			M skip = nonpos & (_mm512_cmple_epi64_mask(bound, sep_e) | _mm512_cmple_epi64_mask(bound, matters));
			M need = ok & ~skip;
			if (!need)
				continue;
			_Alignas(64) int64_t numl[8], len2l[8], sl[8];
			st64(numl, num), st64(len2l, len2);
			for (int k = 0; k < 8; ++k)
				sl[k] = (need >> k & 1) ? np_div_round(numl[k], (int64_t)fxg_isqrt64_round((uint64_t)len2l[k])) : 0;
			V s = ld64(sl);
			M up = need & gt(s, sep_e);
			sep_e = sel(up, s, sep_e), ei = sel(up, splat(i), ei), ej = sel(up, splat(j), ej);
		}
	}
	/* out, lane by lane */
	_Alignas(64) int64_t Cl[3][3][8], dl[3][8], dbl[3][8], sa[8], sb[8], se[8], ial[8], jbl[8], eil[8], ejl[8];
	for (int i = 0; i < 3; ++i) {
		for (int j = 0; j < 3; ++j)
			st64(Cl[i][j], C[i][j]);
		st64(dl[i], dd[i]), st64(dbl[i], db[i]);
	}
	st64(sa, sep_a), st64(sb, sep_b), st64(se, sep_e), st64(ial, ia), st64(jbl, jb), st64(eil, ei), st64(ejl, ej);
	for (int k = 0; k < n; ++k) {
		if (!(fine >> k & 1))
			continue;
		fxs_box_sat_result *r = &out[k];
		for (int i = 0; i < 3; ++i)
			for (int j = 0; j < 3; ++j)
				r->C[i][j] = (fix16_t)Cl[i][j][k];
		r->d = fxg_v3((fix16_t)dl[0][k], (fix16_t)dl[1][k], (fix16_t)dl[2][k]);
		for (int j = 0; j < 3; ++j)
			r->db[j] = dbl[j][k];
		r->sep_a = sa[k], r->sep_b = sb[k], r->sep_e = se[k];
		r->ia = (int8_t)ial[k], r->jb = (int8_t)jbl[k], r->ei = (int8_t)eil[k], r->ej = (int8_t)ejl[k];
	}
	return (uint32_t)fine;
}
#else
uint32_t fxs_box_sat_x8(int n, const fxs_shape *const a[8], const fxs_shape *const b[8], const fxg_vec3 dw[8],
			const fxg_mat3 *const ra[8], const fxg_mat3 *const rb[8], fxs_box_sat_result out[8])
{
	(void)n, (void)a, (void)b, (void)dw, (void)ra, (void)rb, (void)out;
	return 0;
}
#endif
