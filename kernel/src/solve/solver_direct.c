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
 * m^3 / 6 products), stay with the iterative solver. Islands with contacts
 * go to the boxed LCP (seed 002's Murty method, lcp.c) below when
 * def.direct_contact_rows allows (off by default); their ball joints are
 * then solved there, not here.
 *
 * Numbers: A and L, D in Q32.32 (fxg_wide) with 128-bit products; eps =
 * 2^-24 (CFM, pinned) on the diagonal; a pivot below 2^-24 is floored there
 * (a degenerate island still gets a bounded answer). Order: islands by
 * their smallest body slot, joints by slot within (a chain built link by
 * link then gives a banded matrix, and zero entries are skipped: a 20-link
 * chain costs about 0.17 ms per step, 8 factorisations of 60 x 60). Soft constraints as the iterative solver: the exact impulse is scaled
 * by the joint's mass_scale and relaxed by impulse_scale when biased. */
#include "solve/solver_direct.h"
#include "joint/joint.h"
#include "collide/contact.h"
#include "collide/contact.h"
#include "solve/lcp.h"

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
	int sign_j = sj->head.a == s ? -1 : 1, sign_k = sk->head.a == s ? -1 : 1;
	const solver_row *rj = &sj->row[r], *rk = &sk->row[q];
	fxg_vec3 rxj = sj->head.a == s ? rj->rxa : rj->rxb;
	const fxg_wide *ik = sk->head.a == s ? rk->ia : rk->ib;
	wvec3 iv = { ik[0], ik[1], ik[2] };
	fxg_wide v = wdot(iv, rxj, ovf);
	if (r == q)
		v = fxg_add64(v, b->inv_mass, ovf);
	return sign_j * sign_k > 0 ? v : fxg_neg64(v, ovf);
}

/* Find the eligible islands; with `solve`, solve them for this pass, else
 * only mark their joints (the plan, made once per step: fxs_joints_plan). */
static uint32_t direct_islands(solver_ctx *c, bool use_bias, uint8_t *handled, bool solve);

uint32_t fxs_joints_solve_direct(solver_ctx *c, bool use_bias, uint8_t *handled)
{
	return direct_islands(c, use_bias, handled, true);
}

/* The plan is a function of the joints' bodies (dynamic or not), whether
 * each is a ball joint and left to this solver, the row limit and the
 * body count: the world keeps the last plan's (not state: a plan found
 * here is what direct_islands finds) and gives it again when they are the
 * same, as they are step after step (the union of every joint's bodies
 * was joint_grid's largest serial part). */
typedef struct plan_memo {
	uint32_t n, bodies, rows, solved, cap;
	uint32_t *a, *b;
	uint8_t *kind, *handled;
} plan_memo;

static inline uint32_t key_body(const solver_ctx *c, uint32_t s) { return c->bodies[s].dynamic ? s : UINT32_MAX; }

static inline uint8_t key_kind(const solver_ctx *c, uint32_t i)
{
	return (uint8_t)((c->joints[i].type == FXS_JOINT_BALL) | (c->joint_direct && c->joint_direct[i]) << 1);
}

/* the joints of [first, end) whose keys differ from the memo's
 * (fxs_solver_run: in blocks with workers) */
static uint32_t memo_differ(solver_ctx *c, uint32_t first, uint32_t end, int unused)
{
	(void)unused;
	const plan_memo *m = c->w->direct_plan_memo;
	uint32_t differ = 0;
	for (uint32_t i = first; i < end; ++i) {
		const solver_joint_head *sj = &c->joints[i];
		differ += m->a[i] != key_body(c, sj->a) || m->b[i] != key_body(c, sj->b) || m->kind[i] != key_kind(c, i);
	}
	return differ;
}

#define PLAN_MEMO_BLOCK 2048 /* joints a block of memo_differ compares */

uint32_t fxs_joints_direct_plan(solver_ctx *c, uint8_t *handled)
{
	fxs_world *w = c->w;
	const uint32_t n = c->joint_count, rows = w->def.direct_joint_rows;
	if (rows < 6 || n < 2)
		return direct_islands(c, false, handled, false);
	plan_memo *m = w->direct_plan_memo;
	if (m && m->n == n && m->bodies == c->body_count && m->rows == rows &&
	    fxs_solver_run(c, memo_differ, 0, n, PLAN_MEMO_BLOCK, 0) == 0) {
		memcpy(handled, m->handled, n);
		return m->solved;
	}
	const uint32_t solved = direct_islands(c, false, handled, false);
	if (!m || m->cap < n) {
		free(m);
		m = w->direct_plan_memo = malloc(sizeof *m + (size_t)n * (2 * sizeof(uint32_t) + 2));
		if (!m)
			return solved; /* no memo: the next step plans again */
		m->cap = n;
		m->a = (uint32_t *)(void *)(m + 1), m->b = m->a + n;
		m->kind = (uint8_t *)(m->b + n), m->handled = m->kind + n;
	}
	m->n = n, m->bodies = c->body_count, m->rows = rows, m->solved = solved;
	for (uint32_t i = 0; i < n; ++i) {
		m->a[i] = key_body(c, c->joints[i].a), m->b[i] = key_body(c, c->joints[i].b), m->kind[i] = key_kind(c, i);
		m->handled[i] = handled[i];
	}
	return solved;
}

static uint32_t direct_islands(solver_ctx *c, bool use_bias, uint8_t *handled, bool solve)
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
	if (!parent || !root || !rows || !bad || !order) {
		fxs_world_nomem(c->w);
		goto done;
	}
	for (uint32_t s = 0; s < c->body_count; ++s)
		parent[s] = s;
	/* islands through dynamic bodies (a static body joins nothing) */
	for (uint32_t i = 0; i < n; ++i) {
		const solver_joint_head *sj = &c->joints[i];
		if (c->bodies[sj->a].dynamic && c->bodies[sj->b].dynamic)
			unite(parent, sj->a, sj->b);
	}
	for (uint32_t i = 0; i < n; ++i) {
		const solver_joint_head *sj = &c->joints[i];
		uint32_t any = c->bodies[sj->a].dynamic ? sj->a : sj->b;
		root[i] = find(parent, any);
		if (sj->type != FXS_JOINT_BALL || (c->joint_direct && c->joint_direct[i]))
			bad[root[i]] = 1; /* other joints; or in a contact island, solved by the boxed LCP */
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
	fxg_wide *scratch = malloc((size_t)m_max * sizeof *scratch);
	if (!a || !x || !scratch) {
		free(a), free(x), free(scratch);
		fxs_world_nomem(c->w);
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
		if (!solve) {
			for (uint32_t p = 0; p < k; ++p)
				handled[order[p]] = 1;
			solved++;
			continue;
		}
		int m = (int)(3 * k);
		/* A = J M^-1 J^T + eps I, and the right-hand side */
		for (uint32_t p = 0; p < k; ++p) {
			const solver_joint *sp = fxs_wide_joint(c, order[p]);
			for (int r = 0; r < 3; ++r) {
				fxg_wide *arow = a + (size_t)(3 * p + r) * m;
				for (uint32_t q = 0; q < k; ++q) {
					const solver_joint *sq = fxs_wide_joint(c, order[q]);
					for (int t = 0; t < 3; ++t) {
						fxg_wide v = 0;
						if (sp->head.a == sq->head.a || sp->head.a == sq->head.b)
							v = fxg_add64(v, coupling(c, sp, r, sq, t, sp->head.a, ovf), ovf);
						if (sp->head.b == sq->head.a || sp->head.b == sq->head.b)
							v = fxg_add64(v, coupling(c, sp, r, sq, t, sp->head.b, ovf), ovf);
						arow[3 * q + t] = v;
					}
				}
				arow[3 * p + r] = fxg_add64(arow[3 * p + r], EPS, ovf);
				const solver_body *A = &c->bodies[sp->head.a], *B = &c->bodies[sp->head.b];
				int64_t v = rel_vel(A, B, axes[r], &sp->row[r], ovf);
				if (use_bias) {
					fix16_t cr = r == 0 ? sp->c0.x : (r == 1 ? sp->c0.y : sp->c0.z);
					v += fxg_mul(sp->head.s.bias_rate, cr, ovf);
				}
				x[3 * p + r] = -(int64_t)fxg_sat(v, ovf) * 65536; /* Q32.32 */
			}
		}
		fxs_ldlt_factor(a, m, scratch, ovf); /* floored pivots: a degenerate island, bounded answer */
		fxs_ldlt_solve(a, m, x, ovf);
		/* the impulses, soft like the iterative rows, applied together */
		for (uint32_t p = 0; p < k; ++p) {
			const solver_joint *sp = fxs_wide_joint(c, order[p]);
			int64_t *P = c->w->joints[sp->head.index].impulse;
			solver_body *A = &c->bodies[sp->head.a], *B = &c->bodies[sp->head.b];
			for (int r = 0; r < 3; ++r) {
				int64_t imp = fxg_shr_round(x[3 * p + r], 16);
				if (use_bias) {
					imp = fxg_wmul(imp, sp->head.s.mass_scale, ovf);
					imp = fxg_sub64(imp, fxg_wmul(P[r], sp->head.s.impulse_scale, ovf), ovf);
				}
				P[r] = fxg_add64(P[r], imp, ovf);
				apply(A, B, axes[r], &sp->row[r], imp, ovf);
			}
			handled[order[p]] = 1;
		}
		solved++;
	}
	free(a), free(x), free(scratch);
done:
	free(parent), free(root), free(rows), free(bad), free(order);
	return solved;
}

/* ---- contact islands: the boxed LCP (def.direct_contact_rows) ----
 *
 * An island here: dynamic bodies joined by contacts and joints (a static,
 * kinematic or sleeping body joins nothing). It is solved by the boxed LCP
 * (lcp.c) when it has a contact, no joint other than ball joints, and at
 * most direct_contact_rows rows: per contact point a normal row (impulse
 * >= 0) and two friction rows along the manifold's tangents, at the point,
 * bounded by +-friction times the point's normal impulse (seed 002's box
 * friction, the bound re-estimated from the normal, FXS_LCP_PASSES); per
 * ball joint three rows along world x, y, z, unbounded. Rows in canonical
 * order: joints by slot, then contacts by their index in the world's
 * (sorted) list, points in order, normal then tangents. Islands in order of
 * their smallest body slot.
 *
 * The equations are the iterative solver's, solved together instead of row
 * by row. Its soft rows (the biased pass) are exactly a constraint-force
 * mixing term: a row with effective mass k and softness a2 (make_soft:
 * mass_scale = a2 / (1 + a2), impulse_scale = 1 / (1 + a2)) solves
 *     v + A P + bias + (1 / (a2 k)) P = 0
 * for its total impulse P, so A's diagonal gets A_ii / a2 on soft contact
 * rows. Contacts are not warm started: the biased pass solves their total
 * impulse for the sub-step (the converged warm-started solve has the same
 * equation), the relax pass (rigid, no bias) a correction on top of it with
 * the bounds on the total. Speculative normals (separation > 0) get the
 * bias s / h as in solver.c, and in the biased pass the same softness as
 * the others (rigid, four speculative points of a tilted face with
 * different biases make the redundant rows fight: impulses of hundreds of
 * N s and pivots without end). Ball joints keep their warm start, solve a
 * correction rigidly and soften it after the solve exactly as
 * fxs_joints_solve_direct does (mass_scale, impulse_scale): the chain then
 * hangs as stiff as in the joint-only direct path. Every row's diagonal also gets max(2^-24, A_ii / 2^10): four
 * contact points on one face are redundant (rank 3), the iterative solver
 * does not care but a direct solve needs a positive definite matrix.
 * Velocities enter as exact Q32.32 dot products (no rounding to Q16.16).
 * Restitution afterwards as in solver.c. The friction state written back
 * for the next step is the manifold's summed tangent impulse (the central
 * friction vector of solver.c), the twist impulse zero. */

#define DIRECT_REG_SHIFT 10

enum { ROW_BALL,
       ROW_NORMAL,
       ROW_FRICTION };

typedef struct drow {
	uint32_t a, b;       /* body slots */
	fxg_vec3 d;          /* row direction (linear rows only) */
	const solver_row *r; /* lever arms and angular responses */
	uint8_t kind;
	uint8_t k;      /* ball: axis; contact: point */
	uint8_t t;      /* friction: tangent 0 or 1 */
	uint32_t owner; /* solver joint or solver contact */
	int32_t dep;    /* friction: the island row of its normal */
} drow;

typedef struct fxs_direct {
	uint32_t island_count, row_count, m_max;
	uint32_t *island_first; /* island i: rows island_first[i] .. island_first[i + 1] - 1 */
	drow *rows;
	solver_row *friction;      /* per solver contact, point, tangent */
	int64_t *friction_impulse; /* the same indexing: totals, Q16.16 N s */
	uint8_t *contact_in, *joint_in;
	uint8_t *set; /* per row: the boxed LCP's last index set, the next
	                           pass's start (within the step only: freed with it) */
	/* scratch for the biggest island */
	fxg_wide *a, *b, *lo, *hi, *off, *est, *x;
	int32_t *dep;
	fix16_t *mu;
	fxs_lcp_stats stats;
} fxs_direct;

#define FRI(ci, k, t) (((size_t)(ci)*FXS_MAX_MANIFOLD_POINTS + (size_t)(k)) * 2 + (size_t)(t))

void fxs_direct_free(solver_ctx *c)
{
	fxs_direct *d = c->direct;
	if (!d)
		return;
	c->w->lcp_stats.solves += d->stats.solves;
	c->w->lcp_stats.passes += d->stats.passes;
	c->w->lcp_stats.pivots += d->stats.pivots;
	c->w->lcp_stats.factors += d->stats.factors;
	c->w->lcp_stats.fallbacks += d->stats.fallbacks;
	c->w->lcp_stats.floored += d->stats.floored;
	free(d->island_first), free(d->rows), free(d->friction), free(d->friction_impulse);
	free(d->contact_in), free(d->joint_in), free(d->set);
	free(d->a), free(d->b), free(d->lo), free(d->hi), free(d->off), free(d->est), free(d->x);
	free(d->dep), free(d->mu);
	free(d);
	c->direct = NULL;
	c->contact_direct = NULL;
	c->joint_direct = NULL;
}

/* insertion sort of ids by key (small lists, stable) */
static void sort_by_key(uint32_t *ids, uint32_t n, const uint32_t *key)
{
	for (uint32_t p = 1; p < n; ++p)
		for (uint32_t q = p; q > 0 && key[ids[q - 1]] > key[ids[q]]; --q) {
			uint32_t t = ids[q];
			ids[q] = ids[q - 1];
			ids[q - 1] = t;
		}
}

void fxs_direct_prepare(solver_ctx *c)
{
	c->direct = NULL;
	uint32_t cap = c->w->def.direct_contact_rows, nc = c->contact_count, nj = c->joint_count, nb = c->body_count;
	if (cap < 3 || nc == 0)
		return;
	uint32_t *ovf = c->ovf;
	fxs_direct *d = calloc(1, sizeof *d);
	uint32_t *parent = malloc((size_t)nb * sizeof *parent), *rows = calloc(nb, sizeof *rows);
	uint8_t *bad = calloc(nb, 1), *has_contact = calloc(nb, 1);
	uint32_t *croot = malloc((size_t)nc * sizeof *croot), *jroot = malloc(((size_t)nj + 1) * sizeof *jroot);
	uint32_t *ckey = malloc((size_t)nc * sizeof *ckey), *jkey = malloc(((size_t)nj + 1) * sizeof *jkey);
	uint32_t *cl = malloc((size_t)nc * sizeof *cl), *jl = malloc(((size_t)nj + 1) * sizeof *jl);
	if (!d || !parent || !rows || !bad || !has_contact || !croot || !jroot || !ckey || !jkey || !cl || !jl)
		goto fail;
	d->contact_in = calloc(nc, 1);
	d->joint_in = calloc(nj + 1, 1);
	if (!d->contact_in || !d->joint_in)
		goto fail;
	for (uint32_t s = 0; s < nb; ++s)
		parent[s] = s;
	for (uint32_t i = 0; i < nc; ++i) {
		const solver_contact *sc = &c->contacts[i];
		if (c->bodies[sc->a].dynamic && c->bodies[sc->b].dynamic)
			unite(parent, sc->a, sc->b);
	}
	for (uint32_t i = 0; i < nj; ++i) {
		const solver_joint_head *sj = &c->joints[i];
		if (c->bodies[sj->a].dynamic && c->bodies[sj->b].dynamic)
			unite(parent, sj->a, sj->b);
	}
	for (uint32_t i = 0; i < nc; ++i) {
		const solver_contact *sc = &c->contacts[i];
		croot[i] = find(parent, c->bodies[sc->a].dynamic ? sc->a : sc->b);
		has_contact[croot[i]] = 1;
		rows[croot[i]] += 3 * (uint32_t)sc->count;
		ckey[i] = sc->index;
	}
	for (uint32_t i = 0; i < nj; ++i) {
		const solver_joint_head *sj = &c->joints[i];
		jroot[i] = find(parent, c->bodies[sj->a].dynamic ? sj->a : sj->b);
		if (sj->type != FXS_JOINT_BALL)
			bad[jroot[i]] = 1;
		rows[jroot[i]] += 3;
		jkey[i] = sj->index;
	}
	/* the islands, in ascending root order, and their rows */
	uint32_t islands = 0, total = 0;
	for (uint32_t s = 0; s < nb; ++s)
		if (has_contact[s] && !bad[s] && rows[s] <= cap) {
			islands++;
			total += rows[s];
			if (rows[s] > d->m_max)
				d->m_max = rows[s];
		}
	if (islands == 0) {
		/* no island fits under the row limit: they all stay with the
		 * iterative solver, as documented (not an allocation failure) */
		c->direct = d;
		fxs_direct_free(c);
		goto done;
	}
	size_t mm = d->m_max;
	d->island_first = malloc(((size_t)islands + 1) * sizeof *d->island_first);
	d->rows = malloc((size_t)total * sizeof *d->rows);
	d->friction = malloc((size_t)nc * FXS_MAX_MANIFOLD_POINTS * 2 * sizeof *d->friction);
	d->friction_impulse = calloc((size_t)nc * FXS_MAX_MANIFOLD_POINTS * 2, sizeof *d->friction_impulse);
	d->set = calloc(total, 1);
	d->a = malloc(mm * mm * sizeof *d->a);
	d->b = malloc(mm * sizeof *d->b), d->lo = malloc(mm * sizeof *d->lo), d->hi = malloc(mm * sizeof *d->hi);
	d->off = malloc(mm * sizeof *d->off), d->est = malloc(mm * sizeof *d->est), d->x = malloc(mm * sizeof *d->x);
	d->dep = malloc(mm * sizeof *d->dep), d->mu = malloc(mm * sizeof *d->mu);
	if (!d->island_first || !d->rows || !d->set || !d->friction || !d->friction_impulse || !d->a || !d->b || !d->lo || !d->hi ||
	    !d->off || !d->est || !d->x || !d->dep || !d->mu)
		goto fail;
	uint32_t r = 0;
	for (uint32_t s = 0; s < nb; ++s) {
		if (!(has_contact[s] && !bad[s] && rows[s] <= cap))
			continue;
		d->island_first[d->island_count++] = r;
		uint32_t njl = 0, ncl = 0;
		for (uint32_t i = 0; i < nj; ++i)
			if (jroot[i] == s)
				jl[njl++] = i;
		for (uint32_t i = 0; i < nc; ++i)
			if (croot[i] == s)
				cl[ncl++] = i;
		sort_by_key(jl, njl, jkey);
		sort_by_key(cl, ncl, ckey);
		uint32_t base = r;
		for (uint32_t p = 0; p < njl; ++p) {
			const solver_joint_head *sj = &c->joints[jl[p]];
			d->joint_in[jl[p]] = 1;
			/* the rows are the joint's, made by the plan (fxs_direct_bind_joints) */
			for (int k = 0; k < 3; ++k)
				d->rows[r++] = (drow){ sj->a, sj->b, axes[k], NULL, ROW_BALL, (uint8_t)k, 0, jl[p], -1 };
		}
		for (uint32_t p = 0; p < ncl; ++p) {
			uint32_t ci = cl[p];
			solver_contact *sc = &c->contacts[ci];
			const fxs_contact *fc = &c->w->contacts[sc->index];
			const solver_body *A = &c->bodies[sc->a], *B = &c->bodies[sc->b];
			d->contact_in[ci] = 1;
			sc->tangent_impulse[0] = sc->tangent_impulse[1] = 0; /* no warm start */
			sc->twist_impulse = 0;
			for (int k = 0; k < sc->count; ++k) {
				const fxs_contact_point *fp = &fc->points[k];
				fxg_vec3 ra = fp->anchor_a, rb = fp->anchor_b;
				int32_t nrow = (int32_t)(r - base);
				d->rows[r++] = (drow){ sc->a, sc->b, sc->d[0], &sc->p[k].row[0], ROW_NORMAL, (uint8_t)k, 0, ci, -1 };
				for (int t = 0; t < 2; ++t) {
					solver_row *fr = &d->friction[FRI(ci, k, t)];
					prepare_row(A, B, ra, rb, sc->d[1 + t], FXG_ONE, fr, ovf);
					d->rows[r++] = (drow){ sc->a, sc->b, sc->d[1 + t], fr, ROW_FRICTION, (uint8_t)k, (uint8_t)t, ci, nrow };
				}
			}
		}
	}
	d->island_first[d->island_count] = r;
	d->row_count = r;
	c->direct = d;
	c->contact_direct = d->contact_in;
	c->joint_direct = d->joint_in;
	goto done;
fail:
	fxs_world_nomem(c->w); /* the iterative solver would take these islands: not what other machines do */
	if (d) {
		c->direct = d;
		fxs_direct_free(c);
	}
done:
	free(parent), free(rows), free(bad), free(has_contact), free(croot), free(jroot), free(ckey), free(jkey);
	free(cl), free(jl);
}

void fxs_direct_bind_joints(solver_ctx *c)
{
	const fxs_direct *d = c->direct;
	if (!d)
		return;
	for (uint32_t i = 0; i < d->row_count; ++i)
		if (d->rows[i].kind == ROW_BALL)
			d->rows[i].r = &fxs_wide_joint(c, d->rows[i].owner)->row[d->rows[i].k];
}

/* J_i M^-1 J_j^T: the bodies the two rows share, each dynamic one adding
 * sign_i sign_j (m^-1 d_i . d_j + (r_i x d_i) . I^-1 (r_j x d_j)) */
static fxg_wide couple(const solver_ctx *c, const drow *ri, const drow *rj, uint32_t *ovf)
{
	fxg_wide v = 0;
	const uint32_t body[2] = { ri->a, ri->b };
	for (int e = 0; e < 2; ++e) {
		uint32_t s = body[e];
		if (s != rj->a && s != rj->b)
			continue;
		const solver_body *b = &c->bodies[s];
		if (!b->dynamic)
			continue;
		fxg_vec3 rx = e == 0 ? ri->r->rxa : ri->r->rxb;
		const fxg_wide *ij = rj->a == s ? rj->r->ia : rj->r->ib;
		wvec3 iv = { ij[0], ij[1], ij[2] };
		fxg_wide t = fxg_add64(wdot(iv, rx, ovf), fxg_wmul_wide(b->inv_mass, dot_raw(ri->d, rj->d), ovf), ovf);
		v = (e == 0) == (rj->a == s) ? fxg_add64(v, t, ovf) : fxg_sub64(v, t, ovf);
	}
	return v;
}

/* exact relative velocity along a row, Q32.32 (solver.h's stated range) */
static inline fxg_wide row_speed_wide(const solver_ctx *c, const drow *r)
{
	const solver_body *A = &c->bodies[r->a], *B = &c->bodies[r->b];
	return dot_raw(r->d, B->v) - dot_raw(r->d, A->v) + dot_raw(B->w, r->r->rxb) - dot_raw(A->w, r->r->rxa);
}

/* Q16.16 impulse (int64) as Q32.32, clamped to +-2^46 N s */
static inline fxg_wide imp_wide(int64_t p)
{
	const int64_t lim = (int64_t)1 << 46;
	return (p > lim ? lim : (p < -lim ? -lim : p)) * 65536;
}

/* 1 / a2 of a softness, Q16.16: impulse_scale / mass_scale */
static inline fix16_t inv_a2(const soft *s, uint32_t *ovf)
{
	return s->mass_scale > 0 ? fxg_div(s->impulse_scale, s->mass_scale, ovf) : 0;
}

void fxs_direct_solve(solver_ctx *c, bool use_bias)
{
	fxs_direct *d = c->direct;
	if (!d)
		return;
	uint32_t *ovf = c->ovf;
	for (uint32_t is = 0; is < d->island_count; ++is) {
		const drow *rw = d->rows + d->island_first[is];
		int m = (int)(d->island_first[is + 1] - d->island_first[is]);
		fxg_wide *a = d->a;
		for (int i = 0; i < m; ++i)
			for (int j = 0; j <= i; ++j) {
				/* sparse: rows sharing no dynamic body are zero */
				fxg_wide v = (rw[i].a == rw[j].a || rw[i].a == rw[j].b || rw[i].b == rw[j].a || rw[i].b == rw[j].b)
					? couple(c, &rw[i], &rw[j], ovf)
					: 0;
				a[(size_t)i * m + j] = a[(size_t)j * m + i] = v;
			}
		for (int i = 0; i < m; ++i) {
			const drow *r = &rw[i];
			fxg_wide *aii = &a[(size_t)i * m + i];
			fxg_wide diag = *aii, reg = diag >> DIRECT_REG_SHIFT;
			*aii = fxg_add64(*aii, reg > FXS_LDLT_PIVOT_MIN ? reg : FXS_LDLT_PIVOT_MIN, ovf);
			fxg_wide v = row_speed_wide(c, r), bias = 0, cfm = 0;
			d->dep[i] = -1;
			d->mu[i] = 0;
			d->lo[i] = -FXS_LCP_INF, d->hi[i] = FXS_LCP_INF;
			switch (r->kind) {
			case ROW_BALL: {
				const solver_joint *sj = fxs_wide_joint(c, r->owner);
				int64_t P = c->w->joints[sj->head.index].impulse[r->k];
				d->off[i] = imp_wide(P);
				d->est[i] = d->off[i];
				if (use_bias) { /* rigid here, softened after the solve */
					fix16_t cr = r->k == 0 ? sj->c0.x : (r->k == 1 ? sj->c0.y : sj->c0.z);
					bias = (fxg_wide)fxg_mul(sj->head.s.bias_rate, cr, ovf) * 65536;
				}
				break;
			}
			case ROW_NORMAL: {
				const solver_contact *sc = &c->contacts[r->owner];
				const solver_point *p = &sc->p[r->k];
				const fxs_contact_point *fp = &c->w->contacts[sc->index].points[r->k];
				const solver_body *A = &c->bodies[sc->a], *B = &c->bodies[sc->b];
				fix16_t s = current_separation(A, B, p, sc->d[0], ovf);
				/* until the point pushes, the speed it meets is the one
				 * restitution takes (the impact's, as the iterative solver's) */
				if (p->max_normal_impulse == 0) {
					solver_point *mp = &c->contacts[r->owner].p[r->k];
					mp->relative_velocity = fxg_sat(fxg_shr_round(v, 16), ovf);
					mp->impact_separation = s;
				}
				if (s > 0) {
					bias = (fxg_wide)(((int64_t)s * c->inv_h) >> 16) * 65536;
					if (use_bias) /* see the header: speculative rows soft too */
						cfm = fxg_wmul(diag, inv_a2(sc->softness, ovf), ovf);
				} else if (use_bias) {
					bias = (fxg_wide)fxg_max(fxg_mul(sc->softness->bias_rate, s, ovf), -c->push_max) * 65536;
					cfm = fxg_wmul(diag, inv_a2(sc->softness, ovf), ovf);
				}
				d->lo[i] = 0;
				d->off[i] = use_bias ? 0 : imp_wide(fp->normal_impulse);
				d->est[i] = imp_wide(fp->normal_impulse);
				break;
			}
			default: { /* ROW_FRICTION */
				const solver_contact *sc = &c->contacts[r->owner];
				d->dep[i] = r->dep;
				d->mu[i] = sc->friction;
				d->off[i] = use_bias ? 0 : imp_wide(d->friction_impulse[FRI(r->owner, r->k, r->t)]);
				d->est[i] = d->off[i];
				break;
			}
			}
			*aii = fxg_add64(*aii, cfm, ovf);
			fxg_wide rhs = fxg_add64(v, bias, ovf);
			d->b[i] = rhs == INT64_MIN ? INT64_MAX : -rhs;
		}
		fxs_lcp p = { m, a, d->b, d->lo, d->hi, d->off, d->dep, d->mu, d->est, d->set + d->island_first[is], 0 };
		if (!fxs_lcp_solve(&p, d->x, &d->stats, ovf)) {
			fxs_world_nomem(c->w); /* this island gets nothing this pass */
			continue;
		}
		/* the impulses: totals (contacts, biased pass) or corrections */
		for (int i = 0; i < m; ++i) {
			const drow *r = &rw[i];
			solver_body *A = &c->bodies[r->a], *B = &c->bodies[r->b];
			int64_t x = fxg_shr_round(d->x[i] == INT64_MAX ? INT64_MAX - 0x8000 : d->x[i], 16), imp = x;
			switch (r->kind) {
			case ROW_BALL: {
				const solver_joint *sj = fxs_wide_joint(c, r->owner);
				int64_t *P = &c->w->joints[sj->head.index].impulse[r->k];
				if (use_bias) { /* soft as fxs_joints_solve_direct */
					imp = fxg_wmul(imp, sj->head.s.mass_scale, ovf);
					imp = fxg_sub64(imp, fxg_wmul(*P, sj->head.s.impulse_scale, ovf), ovf);
				}
				*P = fxg_add64(*P, imp, ovf);
				break;
			}
			case ROW_NORMAL: {
				solver_contact *sc = &c->contacts[r->owner];
				fxs_contact_point *fp = &c->w->contacts[sc->index].points[r->k];
				int64_t nw = use_bias ? x : fxg_add64(fp->normal_impulse, x, ovf);
				if (nw < 0)
					nw = 0;
				imp = use_bias ? nw : nw - fp->normal_impulse;
				fp->normal_impulse = nw;
				if (imp > sc->p[r->k].max_normal_impulse)
					sc->p[r->k].max_normal_impulse = imp;
				break;
			}
			default: {
				int64_t *P = &d->friction_impulse[FRI(r->owner, r->k, r->t)];
				int64_t nw = use_bias ? x : fxg_add64(*P, x, ovf);
				imp = use_bias ? nw : nw - *P;
				*P = nw;
				break;
			}
			}
			apply(A, B, r->d, r->r, imp, ovf);
		}
	}
}

void fxs_direct_finish(solver_ctx *c)
{
	fxs_direct *d = c->direct;
	if (!d)
		return;
	for (uint32_t i = 0; i < c->contact_count; ++i) {
		if (!d->contact_in[i])
			continue;
		solver_contact *sc = &c->contacts[i];
		for (int t = 0; t < 2; ++t) {
			int64_t s = 0;
			for (int k = 0; k < sc->count; ++k)
				s = fxg_add64(s, d->friction_impulse[FRI(i, k, t)], c->ovf);
			sc->tangent_impulse[t] = s;
		}
		sc->twist_impulse = 0;
	}
}
