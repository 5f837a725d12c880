/* Seed 002's direct solver core: L D L^T of a dense symmetric matrix and the
 * boxed LCP by Murty's principal pivoting (lcp.c). Q32.32 (fxg_wide)
 * throughout, 128-bit products through fxg_wmul_wide (portable to 32-bit
 * targets), no floating point. */
#ifndef FXS_LCP_H
#define FXS_LCP_H

#include "fxg.h"
#include "solve/lcp_stats.h"

#include <stdbool.h>
#include <stdint.h>

/* "no bound": never used in arithmetic, only compared */
#define FXS_LCP_INF INT64_MAX

/* Tolerances, in LSBs of Q32.32 (2^16 LSB = 1 LSB of the Q16.16 state):
 * a free row is out of its box when it passes a bound by more than TOL_X;
 * a clamped row wants to leave its bound when its residual w has the wrong
 * sign by more than TOL_W. Comparisons are strict (>). */
#define FXS_LCP_TOL_X ((fxg_wide)1 << 16) /* 1.5e-5 N s */
#define FXS_LCP_TOL_W ((fxg_wide)1 << 16) /* 1.5e-5 m/s */
/* Pivot cap per pass: 2 m + 8 index-set changes (Murty's least-index rule
 * terminates on P-matrices; the cap pins the worst case). */
#define FXS_LCP_PIVOT_CAP(m) (2 * (m) + 8)
/* Friction-like rows (bounds +-mu x[dep]): the seed's normal-force
 * re-estimation, at most this many boxed solves, each with the bounds fixed
 * from the previous solve's value of the dep row (the first from the
 * caller's estimate); stops early when the estimate repeats bit for bit. */
#define FXS_LCP_PASSES 3
/* Fallback when a pass hits the pivot cap: the last iterate clamped into
 * its box, then this many projected Gauss-Seidel sweeps (rows in index
 * order) on the same problem. Counted in fxs_lcp_stats.fallbacks. */
#define FXS_LCP_FALLBACK_SWEEPS 16
/* A pivot of the factorisation below this (2^-24 in Q32.32) is floored to
 * it: a degenerate matrix still gives a bounded answer (counted). */
#define FXS_LDLT_PIVOT_MIN ((fxg_wide)256)

/* A (m x m, row-major; only the lower triangle is read) in place: L below
 * the diagonal (unit diagonal implied), D on it. Zero entries are skipped
 * (a banded matrix stays cheap). t: scratch of m entries (the caller's, so
 * that a factorisation cannot run out of memory). Returns the number of
 * floored pivots. */
uint32_t fxs_ldlt_factor(fxg_wide *a, int m, fxg_wide *t, uint32_t *ovf);

/* x := A^-1 x with A = L D L^T from fxs_ldlt_factor. */
void fxs_ldlt_solve(const fxg_wide *a, int m, fxg_wide *x, uint32_t *ovf);


/* The boxed LCP: find x with
 *     w = A x - b,   lo_i <= off_i + x_i <= hi_i,
 *     lo < off + x < hi  =>  w_i = 0   (free),
 *     off + x == lo      =>  w_i >= 0  (at lower),
 *     off + x == hi      =>  w_i <= 0  (at upper),
 * each to the tolerances above. A is symmetric positive definite (the
 * caller adds the regularisation), m x m row-major, both triangles filled.
 * A row with dep[i] >= 0 has friction-like bounds instead of lo/hi:
 *     -mu_i n <= off_i + x_i <= mu_i n,  n = max(0, off_d + x_d), d = dep[i],
 * with n from est[d] in the first pass (est NULL: off_d). off NULL: zero.
 * x is output only. Deterministic: the same input gives the same bits.
 * Returns false only when out of memory (x is then zero). */
typedef struct fxs_lcp {
	int m;
	const fxg_wide *a, *b;
	const fxg_wide *lo, *hi; /* bounds on off + x; +-FXS_LCP_INF for none */
	const fxg_wide *off;     /* NULL or per row */
	const int32_t *dep;      /* NULL, or per row: -1 or the row scaling the bounds */
	const fix16_t *mu;       /* per row where dep >= 0 */
	const fxg_wide *est;     /* NULL or per row: first-pass value of dep rows */
	uint8_t *set;            /* NULL: start with every row free; else the starting
	                             index set (FXS_LCP_FREE, _AT_LO, _AT_HI; a row whose
	                             bound is infinite starts free), and the final set out */
	uint32_t max_pivots;     /* 0: FXS_LCP_PIVOT_CAP(m); else this cap (tests) */
} fxs_lcp;

enum { FXS_LCP_FREE = 0,
       FXS_LCP_AT_LO = 1,
       FXS_LCP_AT_HI = 2,
       FXS_LCP_FIXED = 3 };

bool fxs_lcp_solve(const fxs_lcp *p, fxg_wide *x, fxs_lcp_stats *st, uint32_t *ovf);

#endif
