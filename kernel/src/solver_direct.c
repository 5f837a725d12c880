/* Seed 002's direct solver, for islands of ball joints: the island's rows
 * (three per joint, along world x, y, z) are solved together and exactly,
 * A x = -(J v + bias) with A = J M^-1 J^T + eps I factored as L D L^T,
 * instead of joint by joint (Gauss-Seidel), which converges slowly along a
 * chain: a 20-link chain then hangs with its joints closed to a fraction of
 * a millimetre instead of 2.7 mm (tests/test_joint.c).
 *
 * What it covers and what it leaves: equality rows only (ball joints, whose
 * rows have no bounds), so L D L^T alone solves them: no boxed LCP is needed
 * for these islands. Islands with any other joint type, and islands with
 * more than def.direct_joint_rows rows (the matrix is dense: m^2 entries,
 * m^3 / 6 products), stay with the iterative solver. The boxed Murty method
 * seed 002 pairs with it, for bounded rows (limits, friction), is not built.
 *
 * Numbers: A and L, D in Q32.32 (fxg_wide) with 128-bit products; eps =
 * 2^-24 (CFM, pinned) on the diagonal; a pivot below 2^-24 is floored there
 * (a degenerate island still gets a bounded answer). Order: islands by
 * their smallest body slot, joints by slot within (a chain built link by
 * link then gives a banded matrix, and zero entries are skipped: a 20-link
 * chain costs about 0.17 ms per step, 8 factorisations of 60 x 60). Soft constraints as the iterative solver: the exact impulse is scaled
 * by the joint's mass_scale and relaxed by impulse_scale when biased. */
#include "solver_direct.h"
#include "lcp.h"

#include <stdlib.h>
#include <string.h>

#define EPS FXS_LDLT_PIVOT_MIN /* 2^-24 in Q32.32: the same floor as the pivots */

static const fxg_vec3 axes[3] = { { FXG_ONE, 0, 0 }, { 0, FXG_ONE, 0 }, { 0, 0, FXG_ONE } };

static uint32_t find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* unite by the smaller slot (the island id does not depend on the order) */
static void unite(uint32_t *parent, uint32_t a, uint32_t b)
{
	a = find(parent, a), b = find(parent, b);
	if (a < b)
		parent[b] = a;
	else if (b < a)
		parent[a] = b;
}

/* the response of body slot s to a unit impulse on row r of joint sj, as
 * seen by row q of joint sk (both touching s): sign_j sign_k (m^-1 e_r.e_q +
 * (r_j x e_r)^T I^-1 (r_k x e_q)) */
static fxg_wide coupling(const solver_ctx *c, const solver_joint *sj, int r, const solver_joint *sk, int q, uint32_t s,
			 uint32_t *ovf)
{
	const solver_body *b = &c->bodies[s];
	if (!b->dynamic)
		return 0;
	int sign_j = sj->a == s ? -1 : 1, sign_k = sk->a == s ? -1 : 1;
	const solver_row *rj = &sj->row[r], *rk = &sk->row[q];
	fxg_vec3 rxj = sj->a == s ? rj->rxa : rj->rxb;
	const fxg_wide *ik = sk->a == s ? rk->ia : rk->ib;
	wvec3 iv = { ik[0], ik[1], ik[2] };
	fxg_wide v = wdot(iv, rxj, ovf);
	if (r == q)
		v = fxg_add64(v, b->inv_mass, ovf);
	return sign_j * sign_k > 0 ? v : -v;
}

uint32_t fxs_joints_solve_direct(solver_ctx *c, bool use_bias, uint8_t *handled)
{
	uint32_t cap = c->w->def.direct_joint_rows, n = c->joint_count;
	memset(handled, 0, n);
	if (cap < 6 || n < 2)
		return 0;
	uint32_t *ovf = c->ovf, solved = 0;
	uint32_t *parent = malloc((size_t)c->body_count * sizeof *parent);
	uint32_t *root = malloc((size_t)n * sizeof *root), *rows = calloc(c->body_count, sizeof *rows);
	uint8_t *bad = calloc(c->body_count, 1);
	uint32_t *order = malloc((size_t)n * sizeof *order);
	if (!parent || !root || !rows || !bad || !order)
		goto done;
	for (uint32_t s = 0; s < c->body_count; ++s)
		parent[s] = s;
	/* islands through dynamic bodies (a static body joins nothing) */
	for (uint32_t i = 0; i < n; ++i) {
		const solver_joint *sj = &c->joints[i];
		if (c->bodies[sj->a].dynamic && c->bodies[sj->b].dynamic)
			unite(parent, sj->a, sj->b);
	}
	for (uint32_t i = 0; i < n; ++i) {
		const solver_joint *sj = &c->joints[i];
		uint32_t any = c->bodies[sj->a].dynamic ? sj->a : sj->b;
		root[i] = find(parent, any);
		if (sj->type != FXS_JOINT_BALL)
			bad[root[i]] = 1;
		rows[root[i]] += 3;
	}
	/* islands in ascending root order; joints in the solver's order within */
	uint32_t m_max = 0;
	for (uint32_t s = 0; s < c->body_count; ++s)
		if (!bad[s] && rows[s] > 3 && rows[s] <= cap && rows[s] > m_max)
			m_max = rows[s];
	if (m_max == 0)
		goto done;
	fxg_wide *a = malloc((size_t)m_max * m_max * sizeof *a), *x = malloc((size_t)m_max * sizeof *x);
	if (!a || !x) {
		free(a), free(x);
		goto done;
	}
	for (uint32_t s = 0; s < c->body_count; ++s) {
		if (bad[s] || rows[s] <= 3 || rows[s] > cap)
			continue;
		uint32_t k = 0;
		for (uint32_t i = 0; i < n; ++i)
			if (root[i] == s)
				order[k++] = i;
		/* by joint slot: a chain built link by link is then banded */
		for (uint32_t p = 1; p < k; ++p)
			for (uint32_t q = p; q > 0 && c->joints[order[q - 1]].index > c->joints[order[q]].index; --q) {
				uint32_t tmp = order[q];
				order[q] = order[q - 1];
				order[q - 1] = tmp;
			}
		int m = (int)(3 * k);
		/* A = J M^-1 J^T + eps I, and the right-hand side */
		for (uint32_t p = 0; p < k; ++p) {
			const solver_joint *sp = &c->joints[order[p]];
			for (int r = 0; r < 3; ++r) {
				fxg_wide *arow = a + (size_t)(3 * p + r) * m;
				for (uint32_t q = 0; q < k; ++q) {
					const solver_joint *sq = &c->joints[order[q]];
					for (int t = 0; t < 3; ++t) {
						fxg_wide v = 0;
						if (sp->a == sq->a || sp->a == sq->b)
							v = fxg_add64(v, coupling(c, sp, r, sq, t, sp->a, ovf), ovf);
						if (sp->b == sq->a || sp->b == sq->b)
							v = fxg_add64(v, coupling(c, sp, r, sq, t, sp->b, ovf), ovf);
						arow[3 * q + t] = v;
					}
				}
				arow[3 * p + r] = fxg_add64(arow[3 * p + r], EPS, ovf);
				const solver_body *A = &c->bodies[sp->a], *B = &c->bodies[sp->b];
				int64_t v = rel_vel(A, B, axes[r], &sp->row[r], ovf);
				if (use_bias) {
					fix16_t cr = r == 0 ? sp->c0.x : (r == 1 ? sp->c0.y : sp->c0.z);
					v += fxg_mul(sp->s.bias_rate, cr, ovf);
				}
				x[3 * p + r] = -(int64_t)fxg_sat(v, ovf) * 65536; /* Q32.32 */
			}
		}
		fxs_ldlt_factor(a, m, ovf); /* floored pivots: a degenerate island, bounded answer */
		fxs_ldlt_solve(a, m, x, ovf);
		/* the impulses, soft like the iterative rows, applied together */
		for (uint32_t p = 0; p < k; ++p) {
			solver_joint *sp = &c->joints[order[p]];
			int64_t *P = c->w->joints[sp->index].impulse;
			solver_body *A = &c->bodies[sp->a], *B = &c->bodies[sp->b];
			for (int r = 0; r < 3; ++r) {
				int64_t imp = fxg_shr_round(x[3 * p + r], 16);
				if (use_bias) {
					imp = fxg_wmul(imp, sp->s.mass_scale, ovf);
					imp -= fxg_wmul(P[r], sp->s.impulse_scale, ovf);
				}
				P[r] = fxg_add64(P[r], imp, ovf);
				apply(A, B, axes[r], &sp->row[r], imp, ovf);
			}
			handled[order[p]] = 1;
		}
		solved++;
	}
	free(a), free(x);
done:
	free(parent), free(root), free(rows), free(bad), free(order);
	return solved;
}
