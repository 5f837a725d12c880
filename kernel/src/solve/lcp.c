/* Seed 002's direct solver core: L D L^T and the boxed Murty method.
 *
 * L D L^T (no square root): row by row, left-looking, in index order; each
 * pivot below FXS_LDLT_PIVOT_MIN is floored there (a degenerate matrix
 * still gives a bounded answer); one reciprocal per pivot.
 *
 * The boxed LCP (lcp.h) by principal pivoting, the seed's boxed Murty
 * (reference note section 8.2): each row is free, at its lower bound, at
 * its upper bound, or fixed (lower == upper). Start with every row free
 * (the first pass; later passes start from the previous pass's set), put
 * the clamped rows at their bounds, solve the free rows exactly
 *     A_FF x_F = b_F - A_FC x_C
 * (a fresh L D L^T of the principal submatrix every time: stateless, no
 * rank updates to pin), then look for the SMALLEST index that violates its
 * condition: a free row outside its box (by more than FXS_LCP_TOL_X) goes
 * to that bound; a row at its lower bound with w < -FXS_LCP_TOL_W, or at
 * its upper bound with w > FXS_LCP_TOL_W, becomes free. One row per pivot
 * (Murty's least-index rule: finite termination for P-matrices, and A is
 * symmetric positive definite here). None: solved. The pivot count is
 * capped at FXS_LCP_PIVOT_CAP(m); past it the fallback is the last iterate
 * clamped into its box and FXS_LCP_FALLBACK_SWEEPS sweeps of projected
 * Gauss-Seidel, counted.
 *
 * Friction-like rows (bounds +-mu times another row's value) are the
 * seed's box friction with normal-force re-estimation (section 9.4): the
 * bounds are fixed from an estimate of the normal row, the boxed LCP is
 * solved, the estimate is replaced by the solution, at most FXS_LCP_PASSES
 * solves (stopping when the estimate repeats exactly). Each pass is a pure
 * boxed LCP, so Murty's termination argument holds pass by pass; the
 * coupled problem itself (a cone-like LCP) is not solved exactly.
 *
 * Numbers: A, b, x, w in Q32.32; products by fxg_wmul_wide (exact 128-bit
 * product, rounded once), sums by fxg_add64 (saturating, counted). */
#include "solve/lcp.h"

#include <stdlib.h>
#include <string.h>

uint32_t fxs_ldlt_factor(fxg_wide *a, int m, fxg_wide *t, uint32_t *ovf)
{
	uint32_t floored = 0;
	for (int i = 0; i < m; ++i) {
		fxg_wide *ri = a + (size_t)i * m;
		fxg_wide d = ri[i];
		for (int k = 0; k < i; ++k) {
			if (ri[k] == 0) { /* sparse: a chain in slot order stays banded */
				t[k] = 0;
				continue;
			}
			t[k] = fxg_wmul_wide(ri[k], a[(size_t)k * m + k], ovf); /* L_ik D_k */
			d = fxg_sub64(d, fxg_wmul_wide(ri[k], t[k], ovf), ovf);
		}
		if (d < FXS_LDLT_PIVOT_MIN) {
			d = FXS_LDLT_PIVOT_MIN;
			floored++;
		}
		ri[i] = d;
		fxg_wide inv = fxg_wide_recip(d, ovf); /* one division per pivot */
		for (int j = i + 1; j < m; ++j) {
			fxg_wide *rj = a + (size_t)j * m;
			fxg_wide s = rj[i];
			for (int k = 0; k < i; ++k)
				if (rj[k] != 0 && t[k] != 0)
					s = fxg_sub64(s, fxg_wmul_wide(rj[k], t[k], ovf), ovf);
			rj[i] = s == 0 ? 0 : fxg_wmul_wide(s, inv, ovf);
		}
	}
	return floored;
}

void fxs_ldlt_solve(const fxg_wide *a, int m, fxg_wide *x, uint32_t *ovf)
{
	for (int i = 0; i < m; ++i)
		for (int k = 0; k < i; ++k)
			if (a[(size_t)i * m + k] != 0)
				x[i] = fxg_sub64(x[i], fxg_wmul_wide(a[(size_t)i * m + k], x[k], ovf), ovf);
	for (int i = 0; i < m; ++i)
		x[i] = fxg_wide_div(x[i], a[(size_t)i * m + i], ovf);
	for (int i = m - 1; i >= 0; --i)
		for (int k = i + 1; k < m; ++k)
			if (a[(size_t)k * m + i] != 0)
				x[i] = fxg_sub64(x[i], fxg_wmul_wide(a[(size_t)k * m + i], x[k], ovf), ovf);
}

enum { FREE = FXS_LCP_FREE,
       AT_LO = FXS_LCP_AT_LO,
       AT_HI = FXS_LCP_AT_HI,
       FIXED = FXS_LCP_FIXED };

/* v - o for a bound v (possibly infinite) and a finite offset o */
static fxg_wide shift_bound(fxg_wide v, fxg_wide o, uint32_t *ovf)
{
	if (v == FXS_LCP_INF || v == -FXS_LCP_INF)
		return v;
	fxg_wide r = fxg_add64(v, o == INT64_MIN ? INT64_MAX : -o, ovf);
	/* a finite bound stays finite */
	if (r == FXS_LCP_INF)
		r = FXS_LCP_INF - 1;
	else if (r <= -FXS_LCP_INF)
		r = -FXS_LCP_INF + 1;
	return r;
}

/* x below lo by more than tol (lo may be -INF): exact in uint64 since lo > x */
static inline bool below(fxg_wide x, fxg_wide lo, fxg_wide tol)
{
	return lo != -FXS_LCP_INF && x < lo && (uint64_t)lo - (uint64_t)x > (uint64_t)tol;
}

static inline bool above(fxg_wide x, fxg_wide hi, fxg_wide tol)
{
	return hi != FXS_LCP_INF && x > hi && (uint64_t)x - (uint64_t)hi > (uint64_t)tol;
}

/* w_i = (A x)_i - b_i */
static fxg_wide residual(const fxg_wide *a, const fxg_wide *b, const fxg_wide *x, int m, int i, uint32_t *ovf)
{
	const fxg_wide *ri = a + (size_t)i * m;
	fxg_wide s = b[i] == INT64_MIN ? INT64_MAX : -b[i];
	for (int j = 0; j < m; ++j)
		if (ri[j] != 0 && x[j] != 0)
			s = fxg_add64(s, fxg_wmul_wide(ri[j], x[j], ovf), ovf);
	return s;
}

static inline fxg_wide clampw(fxg_wide v, fxg_wide lo, fxg_wide hi)
{
	if (lo != -FXS_LCP_INF && v < lo)
		return lo;
	if (hi != FXS_LCP_INF && v > hi)
		return hi;
	return v;
}

/* One boxed LCP with fixed bounds L, H on x; state in and out. Returns
 * false when the pivot cap was hit (the fallback ran). */
static bool murty(const fxs_lcp *p, const fxg_wide *L, const fxg_wide *H, uint8_t *state, fxg_wide *x, int *idx,
		  fxg_wide *mf, fxg_wide *rf, fxg_wide *tf, fxs_lcp_stats *st, uint32_t *ovf)
{
	const int m = p->m;
	const fxg_wide *a = p->a, *b = p->b;
	const uint32_t cap = p->max_pivots ? p->max_pivots : FXS_LCP_PIVOT_CAP((uint32_t)m);
	uint32_t pivots = 0;
	for (;;) {
		int f = 0;
		for (int i = 0; i < m; ++i) {
			if (state[i] == AT_LO || state[i] == FIXED)
				x[i] = L[i];
			else if (state[i] == AT_HI)
				x[i] = H[i];
			else
				idx[f++] = i;
		}
		/* A_FF (lower triangle) and b_F - A_FC x_C */
		for (int q = 0; q < f; ++q) {
			int i = idx[q];
			const fxg_wide *ri = a + (size_t)i * m;
			for (int r = 0; r <= q; ++r)
				mf[(size_t)q * f + r] = ri[idx[r]];
			fxg_wide s = b[i];
			for (int j = 0; j < m; ++j)
				if (state[j] != FREE && ri[j] != 0 && x[j] != 0)
					s = fxg_sub64(s, fxg_wmul_wide(ri[j], x[j], ovf), ovf);
			rf[q] = s;
		}
		if (f > 0) {
			st->floored += fxs_ldlt_factor(mf, f, tf, ovf);
			st->factors++;
			fxs_ldlt_solve(mf, f, rf, ovf);
		}
		for (int q = 0; q < f; ++q)
			x[idx[q]] = rf[q];
		/* the smallest violating index */
		int v = -1;
		uint8_t to = FREE;
		for (int i = 0; i < m && v < 0; ++i) {
			switch (state[i]) {
			case FREE:
				if (below(x[i], L[i], FXS_LCP_TOL_X))
					v = i, to = AT_LO;
				else if (above(x[i], H[i], FXS_LCP_TOL_X))
					v = i, to = AT_HI;
				break;
			case AT_LO:
				if (residual(a, b, x, m, i, ovf) < -FXS_LCP_TOL_W)
					v = i, to = FREE;
				break;
			case AT_HI:
				if (residual(a, b, x, m, i, ovf) > FXS_LCP_TOL_W)
					v = i, to = FREE;
				break;
			default:
				break;
			}
		}
		if (v < 0) {
			/* free rows within tolerance of their box: onto it exactly */
			for (int i = 0; i < m; ++i)
				x[i] = clampw(x[i], L[i], H[i]);
			st->pivots += pivots;
			return true;
		}
		if (pivots == cap)
			break;
		state[v] = to;
		pivots++;
	}
	/* fallback: the last iterate in its box, then projected Gauss-Seidel */
	st->pivots += pivots;
	st->fallbacks++;
	for (int i = 0; i < m; ++i)
		x[i] = clampw(x[i], L[i], H[i]);
	for (int sweep = 0; sweep < FXS_LCP_FALLBACK_SWEEPS; ++sweep)
		for (int i = 0; i < m; ++i) {
			if (state[i] == FIXED)
				continue;
			fxg_wide w = residual(a, b, x, m, i, ovf);
			fxg_wide dx = fxg_wide_div(w, a[(size_t)i * m + i], ovf);
			x[i] = clampw(fxg_add64(x[i], dx == INT64_MIN ? INT64_MAX : -dx, ovf), L[i], H[i]);
		}
	for (int i = 0; i < m; ++i) /* the set the next pass starts from */
		if (state[i] != FIXED)
			state[i] = (L[i] != -FXS_LCP_INF && x[i] == L[i]) ? AT_LO
				: (H[i] != FXS_LCP_INF && x[i] == H[i])   ? AT_HI
									  : FREE;
	return false;
}

bool fxs_lcp_solve(const fxs_lcp *p, fxg_wide *x, fxs_lcp_stats *st, uint32_t *ovf)
{
	const int m = p->m;
	if (m <= 0)
		return true;
	size_t mm = (size_t)m;
	/* scratch: L, H, est, rf, tf (m each), mf (m^2), idx (m ints), state (m bytes) */
	size_t bytes = (5 * mm + mm * mm) * sizeof(fxg_wide) + mm * sizeof(int) + mm;
	uint8_t *mem = malloc(bytes);
	if (!mem) {
		memset(x, 0, mm * sizeof *x);
		return false;
	}
	fxg_wide *L = (fxg_wide *)mem, *H = L + mm, *est = H + mm, *rf = est + mm, *tf = rf + mm, *mf = tf + mm;
	int *idx = (int *)(mf + mm * mm);
	uint8_t *state = (uint8_t *)(idx + mm);
	bool has_dep = false;
	for (int i = 0; i < m; ++i) {
		fxg_wide o = p->off ? p->off[i] : 0;
		est[i] = p->est ? p->est[i] : o;
		if (p->dep && p->dep[i] >= 0)
			has_dep = true;
		state[i] = p->set && p->set[i] <= AT_HI ? p->set[i] : FREE;
	}
	st->solves++;
	for (int pass = 0; pass < FXS_LCP_PASSES; ++pass) {
		for (int i = 0; i < m; ++i) {
			fxg_wide o = p->off ? p->off[i] : 0, lo, hi;
			if (p->dep && p->dep[i] >= 0) {
				fxg_wide n = est[p->dep[i]];
				fxg_wide lim = n > 0 ? fxg_wmul(n, p->mu[i], ovf) : 0;
				if (lim < 0)
					lim = 0;
				lo = -lim, hi = lim;
			} else {
				lo = p->lo[i], hi = p->hi[i];
			}
			L[i] = shift_bound(lo, o, ovf);
			H[i] = shift_bound(hi, o, ovf);
			if (L[i] != -FXS_LCP_INF && H[i] != FXS_LCP_INF && L[i] >= H[i]) {
				H[i] = L[i];
				state[i] = FIXED;
			} else if (state[i] == FIXED || (state[i] == AT_LO && L[i] == -FXS_LCP_INF) ||
				   (state[i] == AT_HI && H[i] == FXS_LCP_INF)) {
				state[i] = FREE;
			}
		}
		murty(p, L, H, state, x, idx, mf, rf, tf, st, ovf);
		st->passes++;
		if (!has_dep)
			break;
		/* re-estimate the rows that scale bounds; stop when nothing moved */
		bool same = true;
		for (int i = 0; i < m; ++i) {
			if (!p->dep || p->dep[i] < 0)
				continue;
			int d = p->dep[i];
			fxg_wide n = fxg_add64(p->off ? p->off[d] : 0, x[d], ovf);
			if (n != est[d])
				same = false;
			est[d] = n;
		}
		if (same)
			break;
	}
	if (p->set)
		memcpy(p->set, state, mm);
	free(mem);
	return true;
}
