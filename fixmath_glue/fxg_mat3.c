#include "fxg_mat3.h"

/* d * p / 2^32 for a Q32.32 d and a Q32.32 p that is the exact product of two
 * Q16.16 rotation entries (|p| <= ~2^32), rounded, saturated. Splitting p
 * into a Q16.16 high part and a 16-bit low part keeps it on the inline
 * 96-bit fxg_wmul; the error is at most 1 unit of 2^-32 (two roundings). */
static fxg_wide wmul_q32(fxg_wide d, int64_t p, uint32_t *ovf)
{
	int64_t ph = p >> 16;               /* floor */
	fix16_t pl = (fix16_t)(p & 0xFFFF); /* p = ph 2^16 + pl, pl in [0, 2^16) */
	if (ph > INT32_MAX || ph < INT32_MIN)
		return fxg_wmul_wide(d, p, ovf); /* not a rotation entry product */
	fxg_wide hi = fxg_wmul(d, (fix16_t)ph, ovf);
	fxg_wide lo = fxg_wmul(d, pl, ovf); /* |lo| < |d| (1 - 2^-16): shr_round is safe */
	return fxg_add64(hi, fxg_shr_round(lo, 16), ovf);
}

fxg_sym3w fxg_s3w_rotate_diag(fxg_mat3 r, fxg_wide dx, fxg_wide dy, fxg_wide dz, uint32_t *ovf)
{
	uint32_t no_ovf = 0; /* NULL: the caller does not count overflows */
	if (!ovf)
		ovf = &no_ovf;
	/* row i of R is (cx.i, cy.i, cz.i); entry (i,j) = sum_k R_ik R_jk d_k.
	 * R_ik R_jk is kept exact (Q32.32): rounding it to Q16.16 first would
	 * cost |d_max| 2^-17 per entry, which buries the small principal values
	 * of an elongated body (1e6 next to 1e-6) under the large one. */
	fix16_t R[3][3] = { { r.cx.x, r.cy.x, r.cz.x }, { r.cx.y, r.cy.y, r.cz.y }, { r.cx.z, r.cy.z, r.cz.z } };
	fxg_wide d[3] = { dx, dy, dz };
	fxg_wide e[3][3];
	for (int i = 0; i < 3; ++i)
		for (int j = i; j < 3; ++j) {
			fxg_wide s = 0;
			for (int k = 0; k < 3; ++k)
				s = fxg_add64(s, wmul_q32(d[k], (int64_t)R[i][k] * R[j][k], ovf), ovf);
			e[i][j] = s;
		}
	fxg_sym3w m = { e[0][0], e[1][1], e[2][2], e[0][1], e[0][2], e[1][2] };
	return m;
}

fxg_sym3w fxg_s3w_rotate(fxg_mat3 r, const fxg_sym3w *m, uint32_t *ovf)
{
	uint32_t no_ovf = 0; /* NULL: the caller does not count overflows */
	if (!ovf)
		ovf = &no_ovf;
	if (!m) { /* no matrix: zero, counted as an overflow */
		++*ovf;
		return (fxg_sym3w){ 0, 0, 0, 0, 0, 0 };
	}
	/* entry (i,j) = sum_k,l R_ik M_kl R_jl, each R_ik R_jl exact (as above) */
	fix16_t R[3][3] = { { r.cx.x, r.cy.x, r.cz.x }, { r.cx.y, r.cy.y, r.cz.y }, { r.cx.z, r.cy.z, r.cz.z } };
	fxg_wide M[3][3] = { { m->xx, m->xy, m->xz }, { m->xy, m->yy, m->yz }, { m->xz, m->yz, m->zz } };
	fxg_wide e[3][3];
	for (int i = 0; i < 3; ++i)
		for (int j = i; j < 3; ++j) {
			fxg_wide s = 0;
			for (int k = 0; k < 3; ++k)
				for (int l = 0; l < 3; ++l)
					if (M[k][l] != 0)
						s = fxg_add64(s, wmul_q32(M[k][l], (int64_t)R[i][k] * R[j][l], ovf), ovf);
			e[i][j] = s;
		}
	fxg_sym3w out = { e[0][0], e[1][1], e[2][2], e[0][1], e[0][2], e[1][2] };
	return out;
}

static uint64_t uabs(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

/* v * 2^s (s may be negative), saturated; for s < 0 rounds half up. */
static int64_t scale_pow2(int64_t v, int s, uint32_t *ovf)
{
	if (s >= 0) {
		if (s >= 63 || uabs(v) > ((uint64_t)INT64_MAX >> s)) {
			if (v == 0)
				return 0;
			++*ovf;
			return v > 0 ? INT64_MAX : INT64_MIN;
		}
		return v * ((int64_t)1 << s);
	}
	int t = -s;
	if (t >= 63)
		return 0;
	if (v > INT64_MAX - ((int64_t)1 << (t - 1)))
		return INT64_MAX >> t;
	return (v + ((int64_t)1 << (t - 1))) >> t;
}

bool fxg_s3w_inverse(const fxg_sym3w *m, fxg_sym3w *out, uint32_t *ovf)
{
	uint32_t no_ovf = 0; /* NULL: the caller does not count overflows */
	if (!ovf)
		ovf = &no_ovf;
	if (!m || !out) /* nothing to invert, or nowhere to put it */
		return false;
	static const fxg_sym3w zero = { 0, 0, 0, 0, 0, 0 };
	fxg_wide a[6] = { m->xx, m->yy, m->zz, m->xy, m->xz, m->yz };
	uint64_t mx = 0;
	for (int i = 0; i < 6; ++i)
		if (uabs(a[i]) > mx)
			mx = uabs(a[i]);
	if (mx == 0) {
		*out = zero;
		return false;
	}
	/* exponent s with mx * 2^s in [2^32, 2^33) */
	int msb = 63 - __builtin_clzll(mx);
	int s = 32 - msb;
	for (int i = 0; i < 6; ++i)
		a[i] = scale_pow2(a[i], s, ovf);
	fxg_wide xx = a[0], yy = a[1], zz = a[2], xy = a[3], xz = a[4], yz = a[5];
	/* cofactors (entries are in [-2, 2], products exact enough in Q32.32) */
	fxg_wide c_xx = fxg_wmul_wide(yy, zz, ovf) - fxg_wmul_wide(yz, yz, ovf);
	fxg_wide c_xy = fxg_wmul_wide(xz, yz, ovf) - fxg_wmul_wide(xy, zz, ovf);
	fxg_wide c_xz = fxg_wmul_wide(xy, yz, ovf) - fxg_wmul_wide(xz, yy, ovf);
	fxg_wide c_yy = fxg_wmul_wide(xx, zz, ovf) - fxg_wmul_wide(xz, xz, ovf);
	fxg_wide c_yz = fxg_wmul_wide(xy, xz, ovf) - fxg_wmul_wide(xx, yz, ovf);
	fxg_wide c_zz = fxg_wmul_wide(xx, yy, ovf) - fxg_wmul_wide(xy, xy, ovf);
	fxg_wide det = fxg_wmul_wide(xx, c_xx, ovf) + fxg_wmul_wide(xy, c_xy, ovf) + fxg_wmul_wide(xz, c_xz, ovf);
	if (det == 0) {
		*out = zero;
		return false;
	}
	/* inverse of the scaled matrix, then scale back: A^-1 = (A 2^s)^-1 2^s */
	fxg_wide c[6] = { c_xx, c_yy, c_zz, c_xy, c_xz, c_yz };
	for (int i = 0; i < 6; ++i)
		c[i] = scale_pow2(fxg_wide_div(c[i], det, ovf), s, ovf);
	out->xx = c[0], out->yy = c[1], out->zz = c[2], out->xy = c[3], out->xz = c[4], out->yz = c[5];
	return true;
}
