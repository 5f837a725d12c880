/* The contact solver: soft step (Box2D v3 / Box3D "solver2d" soft step).
 *
 * Per step: prepare the contact constraints once (anchors, effective masses),
 * then for each sub-step (of the length fxs_substep_length gives: the
 * sub-steps of a step add up to dt exactly): integrate velocities, warm
 * start, solve with a soft position bias, integrate positions, relax without
 * bias. Restitution afterwards. Why soft step: sub-stepping gives stiff,
 * stable stacks with few iterations, and the soft constraint (a spring with
 * a damping ratio, written in impulse form) keeps 1/h^2 out of the numbers —
 * important in Q16.16 where it would overflow.
 *
 * Numbers: velocities are Q16.16; masses, inverse masses and inverse
 * inertias are Q32.32 (fxg_wide) so that 0.01 kg and 10,000 kg bodies both
 * keep their precision; accumulated impulses are int64 in Q16.16 units.
 * Friction (Box3D's central friction): per manifold, two box-bounded rows
 * along the tangents at the centre of its points, bounded by mu times the
 * manifold's total normal impulse, and a twist row about the normal bounded
 * by mu times the sum of each point's normal impulse times its distance from
 * the centre. Fewer rows than friction per point (3 instead of 2 per point)
 * and no fighting between the points' friction rows.
 *
 * Constraints are visited by stage (stage.c: seed 000's object check table,
 * no dynamic body twice in a stage), within a stage in the canonical contact
 * order (sorted pairs). */
#include "world/world.h"
#include "solve/solver.h"
#include "geometry/shape.h"
#include "joint/joint.h"
#include "island/island.h"
#include "solve/stage.h"
#include "solve/solver_direct.h"
#include "solve/contact_batch.h"
#include "solve/rolling.h"
#include "solve/solver_tasks.h"
#include "world/tasks.h"
#include "solve/integrate.h"
#include "simd/kernels.h"

#include <stdlib.h>
#include <string.h>

/* the speed (m/s and rad/s, raw) below which a pressed body is at rest: 2^-12 */
#define FXS_REST_SPEED 16


/* the twist row: angular, about the unit normal n (rxa = rxb = n) */
static void prepare_twist_row(const solver_body *A, const solver_body *B, fxg_vec3 n, solver_row *r, uint32_t *ovf)
{
	r->rxa = r->rxb = n;
	wvec3 ia = sym_mul(&A->inv_i, n, ovf), ib = sym_mul(&B->inv_i, n, ovf);
	r->ia[0] = ia.x, r->ia[1] = ia.y, r->ia[2] = ia.z;
	r->ib[0] = ib.x, r->ib[1] = ib.y, r->ib[2] = ib.z;
	fxg_wide k = fxg_add64(wdot(ia, n, ovf), wdot(ib, n, ovf), ovf);
	r->mass = k > 0 ? fxg_wide_recip(k, ovf) : 0;
	r->soft_mass = r->mass;
}

/* inertia_response (solver.h) for a response of 2^29 rad/s per N s or more,
 * beyond every stated range: exponent 1 (s shifted right by `shift` < 33),
 * the mantissas saturated and counted */
uint8_t fxs_inertia_response_slow(const int64_t s[3], int shift, int32_t out[3], uint32_t *ovf)
{
	for (int i = 0; i < 3; ++i) {
		out[i] = mantissa_sat(shr_half_up(s[i], shift), ovf);
	}
	return 1;
}

/* ---- the sub-step lengths ---- */

/* h, 1 / h and the contacts' softness for sub-steps of length h */
static void set_length(solver_ctx *c, fix16_t h, fix16_t hertz)
{
	c->h = h;
	c->inv_h = fxg_div(FXG_ONE, h, c->ovf);
	c->contact_soft = make_soft(hertz, c->w->def.contact_damping, h, c->ovf);
	/* against a static body twice as stiff (Box2D v3 / Box3D): the ground
	 * carries the whole weight of what stands on it, and a soft ground
	 * contact is where a stack sinks most */
	c->static_soft = make_soft(2 * hertz, c->w->def.contact_damping, h, c->ovf);
}

/* the other length's values become the current ones, and back */
static void swap_length(solver_ctx *c)
{
	fix16_t t = c->h;
	c->h = c->h_alt, c->h_alt = t;
	t = c->inv_h;
	c->inv_h = c->inv_h_alt, c->inv_h_alt = t;
	soft_swap(&c->contact_soft, &c->contact_soft_alt);
	soft_swap(&c->static_soft, &c->static_soft_alt);
}

/* ---- the phases of a solve ---- */

/* Motion locks (types.h): the locked world axes leave the inverse inertia
 * (P I^-1 P, P zeroing them: every impulse then leaves the angular
 * velocity about them alone, and every effective mass knows it) and the
 * velocities along and about them start at zero. */
static void lock_body(solver_body *s, uint8_t locks)
{
	fxg_sym3w *m = &s->inv_i;
	if (locks & FXS_LOCK_ANGULAR_X)
		m->xx = m->xy = m->xz = 0;
	if (locks & FXS_LOCK_ANGULAR_Y)
		m->yy = m->xy = m->yz = 0;
	if (locks & FXS_LOCK_ANGULAR_Z)
		m->zz = m->xz = m->yz = 0;
	s->v = fxs_lock_linear(locks, s->v);
	s->w = fxs_lock_angular(locks, s->w);
}

/* solver bodies [first, end): each its own slot (in blocks with workers,
 * prepare_bodies) */
static void prepare_bodies_range(solver_ctx *c, uint32_t first, uint32_t end)
{
	fxs_world *w = c->w;
	for (uint32_t i = first; i < end; ++i) {
		const fxs_body *b = &w->bodies[i];
		solver_body *s = &c->bodies[i];
		memset(s, 0, sizeof *s);
		s->si = s->sm = 62; /* zero responses need a valid shift too */
		if (!fxs_body_active(b))
			continue; /* static, dead or asleep: does not move this step */
		s->moves = 1;
		s->v = b->v;
		s->w = b->w;
		if (b->type != FXS_BODY_DYNAMIC)
			continue;
		s->dynamic = 1;
		s->inv_mass = b->inv_mass;
		fxg_mat3 r = fxg_m3_from_quat(b->xf.q, c->ovf);
		if (fxs_shape_has_full_inertia(&b->shape)) {
			fxg_sym3w li = { b->inv_inertia[0], b->inv_inertia[1], b->inv_inertia[2],
					 b->inv_inertia_off[0], b->inv_inertia_off[1], b->inv_inertia_off[2] };
			s->inv_i = fxg_s3w_rotate(r, &li, c->ovf);
		} else {
			s->inv_i = fxg_s3w_rotate_diag(r, b->inv_inertia[0], b->inv_inertia[1], b->inv_inertia[2], c->ovf);
		}
		if (b->locks)
			lock_body(s, b->locks);
		const fxg_sym3w *m = &s->inv_i;
		s->si = scale_shift(bit_length(fxg_uabs64(m->xx) | fxg_uabs64(m->yy) | fxg_uabs64(m->zz) | fxg_uabs64(m->xy) |
					       fxg_uabs64(m->xz) | fxg_uabs64(m->yz)));
		const fxg_wide e[6] = { m->xx, m->yy, m->zz, m->xy, m->xz, m->yz };
		for (int k = 0; k < 6; ++k)
			s->ii[k] = scale_to(e[k], s->si, c->ovf);
		s->sm = scale1(s->inv_mass, &s->im, c->ovf);
	}
}

static void prepare_bodies(solver_ctx *c)
{
	solver_body *spare = &c->bodies[c->body_count]; /* zero responses, never moves */
	memset(spare, 0, sizeof *spare);
	spare->si = spare->sm = 62;
	fxs_solver_bodies_run(c, prepare_bodies_range);
}

/* The contacts to solve among [first, end), in canonical order: their
 * stage items and indices written from items and index on (NULL: only
 * counted; fxs_solver_gather) */
#define GATHER_BLOCK 1024
static uint32_t gather_range(solver_ctx *c, uint32_t first, uint32_t end, fxs_stage_item *items, uint32_t *index)
{
	uint32_t n = 0;
	for (uint32_t i = first; i < end; ++i) {
		const fxs_contact *fc = &c->w->contacts[i];
		const solver_body *A = &c->bodies[fc->a], *B = &c->bodies[fc->b];
		if (!A->dynamic && !B->dynamic)
			continue; /* asleep, or nothing here can move: not solved, impulses and stage kept */
		if (items) {
			fxs_stage_item *it = &items[n];
			it->a = A->dynamic ? fc->a : FXS_STAGE_FREE;
			it->b = B->dynamic ? fc->b : FXS_STAGE_FREE;
			it->stage = fc->stage;
			index[n] = i;
		}
		++n;
	}
	return n;
}

/* solve order: by (stage, canonical index); the stage scratch is reused
 * by the joints, so the order is kept in contact_order. Each contact its
 * own slots: in blocks with workers. */
#define ORDER_BLOCK 1024
static uint32_t order_range(solver_ctx *c, uint32_t first, uint32_t end, int unused)
{
	for (uint32_t k = first; k < end; ++k) {
		const uint32_t j = c->stage_order[k];
		c->w->contacts[c->stage_index[j]].stage = c->stage_items[j].stage;
		c->contact_order[k] = c->stage_index[j];
	}
	return 0;
}

static void prepare_contacts(solver_ctx *c)
{
	fxs_world *w = c->w;
	uint32_t *ovf = c->ovf;
	/* the contacts to solve, in canonical order, and their stages */
	const uint32_t n = fxs_solver_gather(c, gather_range, w->contact_count, GATHER_BLOCK);
	fxs_stages_assign(c->stage_items, n, c->body_count, c->stage_mask, c->stage_order, c->contact_stage_end);
	fxs_solver_run(c, order_range, 0, n, ORDER_BLOCK, 0);
	c->contact_count = n;
	if (c->w->def.direct_contact_rows < 3)
		return; /* the wide rows serve only the boxed LCP */
	for (uint32_t k = 0; k < n; ++k) {
		uint32_t i = c->contact_order[k];
		fxs_contact *fc = &w->contacts[i];
		const solver_body *A = &c->bodies[fc->a], *B = &c->bodies[fc->b];
		solver_contact *sc = &c->contacts[k];
		const fxs_body *ba = &w->bodies[fc->a], *bb = &w->bodies[fc->b];
		sc->index = i;
		sc->a = fc->a;
		sc->b = fc->b;
		sc->d[0] = fc->normal;
		tangents(fc->normal, &sc->d[1], ovf);
		sc->friction = fc->friction;
		sc->restitution = fc->restitution;
		sc->count = fc->point_count;
		sc->softness = (ba->type == FXS_BODY_STATIC || bb->type == FXS_BODY_STATIC) ? &c->static_soft : &c->contact_soft;
		/* the friction centre's lever arms: the mean of the points' */
		int64_t ax = 0, ay = 0, az = 0, bx = 0, by = 0, bz = 0;
		for (int k2 = 0; k2 < fc->point_count; ++k2) {
			const fxs_contact_point *fp = &fc->points[k2];
			solver_point *p = &sc->p[k2];
			prepare_row(A, B, fp->anchor_a, fp->anchor_b, sc->d[0], sc->softness->mass_scale, &p->row[0], ovf);
			p->separation = fxs_contact_rest_separation(fc, k2, ovf);
			p->relative_velocity = rel_vel(A, B, sc->d[0], &p->row[0], ovf);
			p->impact_separation = fp->separation;
			p->max_normal_impulse = 0;
			ax += fp->anchor_a.x, ay += fp->anchor_a.y, az += fp->anchor_a.z;
			bx += fp->anchor_b.x, by += fp->anchor_b.y, bz += fp->anchor_b.z;
		}
		int64_t np = fc->point_count;
		fxg_vec3 ra = fxg_v3((fix16_t)fxg_div_round64(ax, np), (fix16_t)fxg_div_round64(ay, np), (fix16_t)fxg_div_round64(az, np));
		fxg_vec3 rb = fxg_v3((fix16_t)fxg_div_round64(bx, np), (fix16_t)fxg_div_round64(by, np), (fix16_t)fxg_div_round64(bz, np));
		for (int k2 = 0; k2 < fc->point_count; ++k2) {
			/* |point - centre|, rounded (components clamped to 2^14 m, far
			 * beyond any manifold's spread, so the sum fits 64 bits) */
			sc->p[k2].lever = (fix16_t)fxg_isqrt64_round(friction_lever2(fxg_v3_sub(fc->points[k2].anchor_a, ra, ovf)));
		}
		for (int t = 0; t < 2; ++t) {
			prepare_row(A, B, ra, rb, sc->d[1 + t], FXG_ONE, &sc->tangent[t], ovf);
			/* last step's friction vector, projected on this step's tangents */
			sc->tangent_impulse[t] = friction_along(fc->friction_impulse, sc->d[1 + t], ovf);
		}
		prepare_twist_row(A, B, sc->d[0], &sc->twist, ovf);
		sc->twist_impulse = fc->twist_impulse;
	}
}

/* ---- gyroscopic torque ----
 *
 * A free body keeps its angular momentum L = R I R^T w, not its angular
 * velocity: in the body's frame I dw/dt = -w x I w (Euler's equations),
 * which turn w about L (a spin about the intermediate axis flips, a tilted
 * spin precesses). Integrated explicitly the term blows up for long thin
 * bodies at game steps (h |w| times the ratio of their moments is far above
 * 1); implicit Euler (Catto, "Numerical Methods", GDC 2015; Box3D solves it
 * with Newton-Raphson) is stable but loses energy and momentum (a spinning
 * 1 x 2 x 3 m box lost 3% of |L| and 6% of its energy in 20 s). Here one
 * Newton step on the implicit midpoint rule,
 *   I (w2 - w1) + h wm x I wm = 0,  wm = (w1 + w2) / 2,
 * from w2 = w1: w2 = w1 - J^-1 h (w1 x I w1), J = I + (h / 2) ([w1]x I -
 * [I w1]x). It is the trapezoidal rule for the linearised motion, stable for
 * any h |w|, and keeps |L| and the energy to 1e-5 over the same 20 s; thin
 * rods spun at 400 rad/s keep their energy where the explicit term diverges
 * in 0.05 s (measured in double precision while choosing it).
 *
 * Numbers: the tensor over its largest moment, A (body.c, Q2.30), in place
 * of I (the equation divides by it); w in the body's frame (Q16.16), X = h w
 * and U = h A w dimensionless and f = h w x A w, J and its cofactors in
 * Q32.32 (128-bit products, fxg_wmul_wide), Delta = adj(J) f / det(J). Only
 * Delta is turned back to the world (w - R Delta): w itself never makes the
 * round trip through a rotation matrix that is orthogonal to 2^-16 only.
 * Skipped for a tensor that is a multiple of 1 (spheres, cubes: no term),
 * and beyond 64 rad of turn per sub-step (|h w| > 2^38 raw), far outside
 * every stated range. */
static void gyroscopic(const fxs_body *b, solver_body *s, fix16_t h, uint32_t *ovf)
{
	fxg_mat3 R = fxg_m3_from_quat(b->xf.q, ovf);
	fxg_vec3 wl = fxg_m3_tmul_v3(R, s->w, ovf);
	const int64_t w[3] = { wl.x, wl.y, wl.z };
	int64_t X[3];
	for (int k = 0; k < 3; ++k) {
		X[k] = (int64_t)h * w[k]; /* exact: |h| <= 2^16, |w| <= 2^31 */
		if (X[k] > ((int64_t)1 << 38) || X[k] < -((int64_t)1 << 38))
			return;
	}
	const int32_t *g = b->gyro; /* xx yy zz xy xz yz */
	const int64_t A[3][3] = { { g[0], g[3], g[4] }, { g[3], g[1], g[5] }, { g[4], g[5], g[2] } };
	int64_t a[3][3], u[3], U[3];
	for (int i = 0; i < 3; ++i) {
		/* A w: Q2.30 x Q16.16 exact in int64 (each below 2^61), to Q32.32 */
		u[i] = fxg_shr_round(A[i][0] * w[0] + A[i][1] * w[1] + A[i][2] * w[2], 14);
		U[i] = fxg_wmul(u[i], h, ovf);
		for (int j = 0; j < 3; ++j)
			a[i][j] = A[i][j] * 4; /* Q32.32 */
	}
	/* f = X x u, rad/s */
	int64_t f[3] = { fxg_wmul_wide(X[1], u[2], ovf) - fxg_wmul_wide(X[2], u[1], ovf),
			 fxg_wmul_wide(X[2], u[0], ovf) - fxg_wmul_wide(X[0], u[2], ovf),
			 fxg_wmul_wide(X[0], u[1], ovf) - fxg_wmul_wide(X[1], u[0], ovf) };
	/* J = A + ([X]x A - [U]x) / 2 */
	int64_t J[3][3];
	for (int j = 0; j < 3; ++j) {
		int64_t xa0 = fxg_wmul_wide(X[1], a[2][j], ovf) - fxg_wmul_wide(X[2], a[1][j], ovf);
		int64_t xa1 = fxg_wmul_wide(X[2], a[0][j], ovf) - fxg_wmul_wide(X[0], a[2][j], ovf);
		int64_t xa2 = fxg_wmul_wide(X[0], a[1][j], ovf) - fxg_wmul_wide(X[1], a[0][j], ovf);
		J[0][j] = xa0, J[1][j] = xa1, J[2][j] = xa2;
	}
	/* [U]x = [[0, -U2, U1], [U2, 0, -U0], [-U1, U0, 0]] */
	J[0][1] += U[2], J[0][2] -= U[1], J[1][0] -= U[2], J[1][2] += U[0], J[2][0] += U[1], J[2][1] -= U[0];
	for (int i = 0; i < 3; ++i)
		for (int j = 0; j < 3; ++j)
			J[i][j] = a[i][j] + fxg_shr_round(J[i][j], 1);
	/* the cofactors, the determinant, Delta = C^T f / det */
	int64_t C[3][3];
	for (int i = 0; i < 3; ++i)
		for (int j = 0; j < 3; ++j) {
			int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
			C[i][j] = fxg_wmul_wide(J[i1][j1], J[i2][j2], ovf) - fxg_wmul_wide(J[i1][j2], J[i2][j1], ovf);
		}
	int64_t det = fxg_add64(fxg_add64(fxg_wmul_wide(J[0][0], C[0][0], ovf), fxg_wmul_wide(J[0][1], C[0][1], ovf), ovf),
				fxg_wmul_wide(J[0][2], C[0][2], ovf), ovf);
	if (det <= 0)
		return; /* not for a positive tensor within range */
	int64_t d[3];
	for (int i = 0; i < 3; ++i) {
		int64_t num = fxg_add64(fxg_add64(fxg_wmul_wide(C[0][i], f[0], ovf), fxg_wmul_wide(C[1][i], f[1], ovf), ovf),
					fxg_wmul_wide(C[2][i], f[2], ovf), ovf);
		d[i] = fxg_wide_div(num, det, ovf); /* Q32.32 rad/s */
	}
	/* w - R Delta, each component rounded once */
	const fxg_vec3 col[3] = { R.cx, R.cy, R.cz };
	int64_t r[3] = { 0, 0, 0 };
	for (int j = 0; j < 3; ++j) {
		r[0] = fxg_add64(r[0], fxg_wmul(d[j], col[j].x, ovf), ovf);
		r[1] = fxg_add64(r[1], fxg_wmul(d[j], col[j].y, ovf), ovf);
		r[2] = fxg_add64(r[2], fxg_wmul(d[j], col[j].z, ovf), ovf);
	}
	s->w = fxg_v3(fxg_sat((int64_t)s->w.x - fxg_shr_round(r[0], 16), ovf), fxg_sat((int64_t)s->w.y - fxg_shr_round(r[1], 16), ovf),
		      fxg_sat((int64_t)s->w.z - fxg_shr_round(r[2], 16), ovf));
}

/* one dynamic body's velocities over a sub-step of length h: gravity,
 * forces, the gyroscopic term, damping, locks */
static void integrate_velocity(solver_ctx *c, uint32_t i)
{
	fxs_world *w = c->w;
	uint32_t *ovf = c->ovf;
	fix16_t h = c->h;
	solver_body *s = &c->bodies[i];
	const fxs_body *b = &w->bodies[i];
	fxg_vec3 g = b->gravity_scale == FXG_ONE ? w->def.gravity : fxg_v3_scale(b->gravity_scale, w->def.gravity, ovf);
	s->v = fxg_v3_mul_add(s->v, h, g, ovf);
	if (b->force.x | b->force.y | b->force.z) {
		fxg_vec3 a = fxg_v3(fxg_wide_to_fix(fxg_wmul(s->inv_mass, b->force.x, ovf), ovf),
				    fxg_wide_to_fix(fxg_wmul(s->inv_mass, b->force.y, ovf), ovf),
				    fxg_wide_to_fix(fxg_wmul(s->inv_mass, b->force.z, ovf), ovf));
		s->v = fxg_v3_mul_add(s->v, h, a, ovf);
	}
	if (b->torque.x | b->torque.y | b->torque.z) {
		wvec3 al = sym_mul(&s->inv_i, b->torque, ovf);
		fxg_vec3 a = fxg_v3(fxg_wide_to_fix(al.x, ovf), fxg_wide_to_fix(al.y, ovf), fxg_wide_to_fix(al.z, ovf));
		s->w = fxg_v3_mul_add(s->w, h, a, ovf);
	}
	if (b->gyro_on && (s->w.x | s->w.y | s->w.z)) {
		gyroscopic(b, s, h, ovf);
		if (b->locks & FXS_LOCK_ANGULAR) /* the locks take the term's part about their axes */
			s->w = fxs_lock_angular(b->locks, s->w);
	}
	/* damping: v / (1 + h c), exact for c == 0 (skipped) */
	if (b->linear_damping) {
		fix16_t f = fxg_div(FXG_ONE, fxg_add(FXG_ONE, fxg_mul(h, b->linear_damping, ovf), ovf), ovf);
		s->v = fxg_v3_scale(f, s->v, ovf);
	}
	if (b->angular_damping) {
		fix16_t f = fxg_div(FXG_ONE, fxg_add(FXG_ONE, fxg_mul(h, b->angular_damping, ovf), ovf), ovf);
		s->w = fxg_v3_scale(f, s->w, ovf);
	}
	if (b->locks & FXS_LOCK_LINEAR) /* (the angular ones: inv_i has no locked axis left) */
		s->v = fxs_lock_linear(b->locks, s->v);
}

/* A byte of notes a body for the step, made by the first sub-step's
 * integrate_velocities (solver_ctx.stage_mask: the stages' scratch, free
 * from the sub-steps on) and read by integrate_positions and the velocities'
 * write-back: FXS_INTEGRATE_PLAIN (it moves and has no locks), and whether
 * it only falls (dynamic, gravity unscaled; no force, torque, gyroscopic
 * term, damping or linear lock: integrate_velocity gives it v + h g and
 * nothing else) */
#define FALLS 1
/* (after the solve) a contact presses it */
#define PRESSED 4
/* (after the solve) pressed, pulled and unmoved (store_velocities): at rest
 * if its velocity is one against what presses it (note_rest_speeds) */
#define STILL 8
/* (store_velocities) still and at rest, in its first round */
#define RESTED 16

/* Each dynamic body's velocities. The first sub-step makes the notes;
 * later sub-steps give the bodies that only fall v + h g without reading
 * them, the same h g (each component rounded once) for all. */
static void integrate_velocities_range(solver_ctx *c, uint32_t first, uint32_t end)
{
	const fxs_world *w = c->w;
	uint8_t *notes = c->stage_mask;
	if (c->substep == 0) {
		for (uint32_t i = first; i < end; ++i) {
			const solver_body *s = &c->bodies[i];
			notes[i] = 0;
			if (!s->moves)
				continue;
			const fxs_body *b = &w->bodies[i];
			notes[i] = b->locks ? 0 : FXS_INTEGRATE_PLAIN;
			if (!s->dynamic)
				continue;
			if (b->gravity_scale == FXG_ONE && !(b->force.x | b->force.y | b->force.z) &&
			    !(b->torque.x | b->torque.y | b->torque.z) && !b->gyro_on && !b->linear_damping &&
			    !b->angular_damping && !(b->locks & FXS_LOCK_LINEAR))
				notes[i] |= FALLS;
			integrate_velocity(c, i);
		}
		return;
	}
	const fxg_vec3 g = w->def.gravity;
	const int64_t hg[3] = { fxg_shr_round((int64_t)c->h * g.x, 16), fxg_shr_round((int64_t)c->h * g.y, 16),
				fxg_shr_round((int64_t)c->h * g.z, 16) };
	for (uint32_t i = first; i < end; ++i) {
		solver_body *s = &c->bodies[i];
		if (notes[i] & FALLS) /* fxg_v3_mul_add(s->v, h, g) */
			s->v = fxg_v3(fxg_sat(s->v.x + hg[0], c->ovf), fxg_sat(s->v.y + hg[1], c->ovf), fxg_sat(s->v.z + hg[2], c->ovf));
		else if (s->dynamic)
			integrate_velocity(c, i);
	}
}

void fxs_integrate_body(fxs_body *b, solver_body *s, fix16_t len, uint32_t *ovf)
{
	if (b->locks & FXS_LOCK_LINEAR) /* what the velocity solve gave along a locked axis */
		s->v = fxs_lock_linear(b->locks, s->v);
	fxg_vec3 step = fxg_v3(fxg_mul(len, s->v.x, ovf), fxg_mul(len, s->v.y, ovf), fxg_mul(len, s->v.z, ovf));
	b->xf.p = fxg_v3_add(b->xf.p, step, ovf);
	s->dp = fxg_v3_add(s->dp, step, ovf);
	if (s->w.x | s->w.y | s->w.z) {
		fxs_body_set_q30(b, fxg_q30_integrate(b->q30, s->w, len, ovf));
		s->dtheta = fxg_v3_mul_add(s->dtheta, len, s->w, ovf);
	}
}

/* Each moving body by h v and h w. With vector kernels, 64 bodies at a
 * time: the kernels take the common case among the plain bodies (the
 * notes, integrate_velocities; integrate.h), the scalar code the moving
 * bodies they leave (in any order: bodies are independent, and the
 * saturation count a sum). */
static void integrate_positions_range(solver_ctx *c, uint32_t first, uint32_t end)
{
	fxs_world *w = c->w;
	uint32_t *ovf = c->ovf;
	fix16_t h = c->h;
	const uint8_t *notes = c->stage_mask;
	if (c->kernels && h > 0 && h <= FXG_ONE) {
		for (uint32_t i = first; i < end; i += 64) {
			const uint32_t n = end - i < 64 ? end - i : 64;
			for (uint64_t left = c->kernels->integrate_x64(&w->bodies[i], &c->bodies[i], notes + i, n, h); left; left &= left - 1) {
				const uint32_t k = i + (uint32_t)__builtin_ctzll(left);
				if (c->bodies[k].moves)
					fxs_integrate_body(&w->bodies[k], &c->bodies[k], h, ovf);
			}
		}
		return;
	}
	for (uint32_t i = first; i < end; ++i) {
		solver_body *s = &c->bodies[i];
		if (s->moves)
			fxs_integrate_body(&w->bodies[i], s, h, ovf);
	}
}

/* both over every body: at once in blocks with workers (solver_tasks.h;
 * a body's integration reads and writes its own slots only) */
static void integrate_velocities(solver_ctx *c) { fxs_solver_bodies_run(c, integrate_velocities_range); }
static void integrate_positions(solver_ctx *c) { fxs_solver_bodies_run(c, integrate_positions_range); }

/* restitution for the boxed LCP's contacts, on their wide rows (the
 * iterative solver's are in contact_batch.c) */
static void apply_restitution_direct(solver_ctx *c)
{
	uint32_t *ovf = c->ovf;
	fix16_t threshold = c->w->def.restitution_threshold;
	for (uint32_t i = 0; c->contact_direct && i < c->contact_count; ++i) {
		if (!c->contact_direct[i])
			continue;
		solver_contact *sc = &c->contacts[i];
		if (sc->restitution == 0)
			continue;
		fxs_contact *fc = &c->w->contacts[sc->index];
		solver_body *A = &c->bodies[sc->a], *B = &c->bodies[sc->b];
		for (int k = 0; k < sc->count; ++k) {
			solver_point *p = &sc->p[k];
			fxs_contact_point *fp = &fc->points[k];
			if (p->relative_velocity > -threshold || p->max_normal_impulse == 0)
				continue;
			fix16_t vn = rel_vel(A, B, sc->d[0], &p->row[0], ovf);
			fix16_t an = normal_acceleration(c->w, sc->a, sc->b, sc->d[0], ovf);
			fix16_t target = restitution_speed(sc->restitution, p->relative_velocity, p->impact_separation, an, c->h, ovf);
			int64_t imp = -fxg_wmul_fix64(p->row[0].mass, fxg_sat((int64_t)vn - target, ovf));
			int64_t nw = fxg_add64(fp->normal_impulse, imp, ovf);
			if (nw < 0)
				nw = 0;
			apply(A, B, sc->d[0], &p->row[0], nw - fp->normal_impulse, ovf);
			fp->normal_impulse = nw;
		}
	}
}

/* For hit events: each point the boxed LCP solved, minus its approach
 * speed at the touch where its impulse grew during the step (the speed
 * restitution bounces from, as fxs_batches_store gives the iterative
 * solver's) or its normal speed when the step began, and whether it grew,
 * into the world's contacts */
static void store_approach_direct(solver_ctx *c)
{
	for (uint32_t i = 0; c->contact_direct && i < c->contact_count; ++i) {
		if (!c->contact_direct[i])
			continue;
		const solver_contact *sc = &c->contacts[i];
		fxs_contact *fc = &c->w->contacts[sc->index];
		for (int k = 0; k < sc->count; ++k) {
			const solver_point *p = &sc->p[k];
			fix16_t rv = p->relative_velocity;
			if (p->max_normal_impulse > 0 && rv < 0) {
				fix16_t an = normal_acceleration(c->w, sc->a, sc->b, sc->d[0], c->ovf);
				rv = -impact_speed(rv, p->impact_separation, an, c->h, c->ovf);
			}
			fc->points[k].relative_velocity = rv;
			fc->points[k].max_normal_impulse = p->max_normal_impulse > 0;
		}
	}
}

/* The boxed LCP's friction state, back into its contacts as world vectors
 * (the batches' is stored by fxs_batches_store). */
static void store_direct_friction(solver_ctx *c)
{
	for (uint32_t i = 0; c->direct && i < c->contact_count; ++i) {
		if (!c->contact_direct[i])
			continue;
		const solver_contact *sc = &c->contacts[i];
		fxs_contact *fc = &c->w->contacts[sc->index];
		friction_from_tangents(fc->friction_impulse, sc->tangent_impulse[0], sc->d[1], sc->tangent_impulse[1], sc->d[2], c->ovf);
		fc->twist_impulse = sc->twist_impulse;
	}
}

/* Rest: a dynamic body pressed by a contact (a point with a normal
 * impulse) against gravity, a force or a torque (pulled, below), whose
 * every velocity component after the solve is within FXS_REST_SPEED of
 * zero, or that the step did not move (unmoved, below) with a velocity its
 * contacts stop (note_rest_speeds, below), is at rest, and keeps exactly
 * zero velocity.
 * What is left there is the iterative solver's own residue (a cube on
 * the floor kept about 8 raw of angular velocity, 1e-4 rad/s, step
 * after step: each impulse it gets is rounded once, and one pass does
 * not reach the exact solution), too small to move anything (h |v| is a
 * tenth of an LSB a sub-step) but never zero. A body that starts to
 * slide or roll leaves it within a step (gravity alone adds 2730 raw a
 * sub-step); one on a slope within 0.1 degree of its friction angle
 * stays. note_pressed_bodies marks the pressed bodies (PRESSED in the
 * integrate_velocities notes); store_velocities gives the bodies their
 * velocities, zero for those at rest. Not every body the step did not
 * move: in a column of 20 cubes swaying back to upright, the cubes in the
 * middle move at about 2 mm/s, less than a raw unit a sub-step; set still
 * whenever a step left them in place, the column stopped where it leaned
 * (13 mm off at the top). */
static void note_pressed_bodies(solver_ctx *c)
{
	uint8_t *notes = c->stage_mask; /* integrate_velocities' notes, and PRESSED */
	/* The batches' lanes whose points' impulses press, as
	 * fxs_batches_store found them (every contact with a dynamic body is
	 * solved, by the batches or the boxed LCP; the others press no body
	 * that could rest here), and the boxed LCP's contacts as it left them
	 * in the world's. */
	for (uint32_t i = 0; i < c->batch_count; ++i) {
		const contact_batch *bt = &c->batches[i];
		for (uint32_t m = c->batch_pressed[i]; m; m &= m - 1) {
			const int l = __builtin_ctz(m);
			notes[bt->a[l]] |= PRESSED, notes[bt->b[l]] |= PRESSED;
		}
	}
	for (uint32_t i = 0; c->contact_direct && i < c->contact_count; ++i) {
		if (!c->contact_direct[i])
			continue;
		const fxs_contact *fc = &c->w->contacts[c->contacts[i].index];
		for (int k = 0; k < fc->point_count; ++k)
			if (fc->points[k].normal_impulse > 0) {
				notes[fc->a] |= PRESSED, notes[fc->b] |= PRESSED;
				break;
			}
	}
}

/* Whether the step did not move body s (its displacement and rotation
 * summed over the sub-steps are zero) and its velocities would not move it
 * in a sub-step of length h either (each component of h v and h w rounds
 * to zero): a pressed body that is at rest (above) with a residue above
 * FXS_REST_SPEED. A box held by friction on a 30 degree ramp kept about
 * 30 raw of velocity and 60 of angular velocity (4.7e-4 m/s, 9e-4 rad/s)
 * from the relax pass step after step, its pose unchanged; a 100 kg cube
 * on a 1 kg cube 52 raw. A body that starts to move, or that a contact
 * set moving late in the step, has a velocity that moves it. */
static bool unmoved(const solver_body *s, fix16_t h)
{
	if (s->dp.x | s->dp.y | s->dp.z | s->dtheta.x | s->dtheta.y | s->dtheta.z)
		return false;
	uint32_t ovf = 0; /* (h <= 1 s and |v| < 2^31 raw: no saturation) */
	return !(fxg_mul(h, s->v.x, &ovf) | fxg_mul(h, s->v.y, &ovf) | fxg_mul(h, s->v.z, &ovf) | fxg_mul(h, s->w.x, &ovf) |
		 fxg_mul(h, s->w.y, &ovf) | fxg_mul(h, s->w.z, &ovf));
}

/* Whether gravity, a force or a torque acts on body b: what a contact that
 * holds it at rest holds it against. A pressed body with none (no gravity)
 * is not resting but coasting, however slowly, and keeps its velocity and
 * the momentum it carries (a light sphere at 0.1 m/s into a row of four
 * 100 times heavier ones leaves them at 2.5e-4 m/s; set still, the row
 * lost it). */
static bool pulled(const fxs_world *w, const fxs_body *b)
{
	const fxg_vec3 g = w->def.gravity;
	return (b->gravity_scale && (g.x | g.y | g.z)) || (b->force.x | b->force.y | b->force.z) ||
	       (b->torque.x | b->torque.y | b->torque.z);
}

/* The L-infinity norm of v */
static uint32_t speed_linf(fxg_vec3 v)
{
	uint32_t x = v.x < 0 ? 0u - (uint32_t)v.x : (uint32_t)v.x, y = v.y < 0 ? 0u - (uint32_t)v.y : (uint32_t)v.y,
		 z = v.z < 0 ? 0u - (uint32_t)v.z : (uint32_t)v.z;
	x = x > y ? x : y;
	return x > z ? x : z;
}

/* For each body noted STILL: over the points of its contacts that press
 * (a normal impulse), the largest speed of its own point (v + w x r) and
 * the largest of that point relative to the other body's (L-infinity,
 * raw). store_velocities compares them: a body whose velocity moves its
 * pressed points against what presses them as fast as it moves them at
 * all holds a residue its contacts stop every step (a box on a ramp
 * rocking on its contact, +-30 raw at its corners for 30 raw at its
 * centre); one riding what presses it moves with it (a cube in a swaying
 * column: its corners within 21 raw of the cubes below and above while it
 * moves at 130 raw with them) and keeps its velocity. Two rounds: the
 * second for the still bodies the first left moving, against those it set
 * at rest (a 100 kg cube on a 1 kg one: the iterations leave both at
 * 1.5 mm/s up, the lower one at rest against the ground, and then the
 * upper against it). RESTED marks the first round's.
 *
 * Each contact's part first (rest_speeds_range, at once in blocks with
 * workers): the bodies it measures for (a still body not yet at rest, else
 * NO_BODY) and its largest speeds over its pressing points, in the stage
 * items' bytes (fxs_solve's plan scratch, free after the sub-steps: at
 * least 20 a contact); then the parts into the bodies, in contact order
 * (a largest value: any order gives it). */
#define NO_BODY UINT32_MAX
typedef struct rest_speeds {
	uint32_t a, b;
	uint32_t sa, sb, rel;
} rest_speeds;
_Static_assert(sizeof(rest_speeds) <= sizeof(fxs_stage_item) + 2 * sizeof(uint32_t), "a contact's stage scratch holds its part");

static uint32_t rest_speeds_range(solver_ctx *c, uint32_t first, uint32_t end, int unused)
{
	const uint8_t *notes = c->stage_mask;
	rest_speeds *out = (rest_speeds *)(void *)c->stage_items;
	uint32_t count = 0, *ovf = &count;
	for (uint32_t i = first; i < end; ++i) {
		const fxs_contact *fc = &c->w->contacts[i];
		const bool ua = (notes[fc->a] & (STILL | RESTED)) == STILL, ub = (notes[fc->b] & (STILL | RESTED)) == STILL;
		rest_speeds *r = &out[i];
		*r = (rest_speeds){ ua ? fc->a : NO_BODY, ub ? fc->b : NO_BODY, 0, 0, 0 };
		if (!ua && !ub)
			continue;
		const solver_body *A = &c->bodies[fc->a], *B = &c->bodies[fc->b];
		for (int k = 0; k < fc->point_count; ++k) {
			const fxs_contact_point *cp = &fc->points[k];
			if (cp->normal_impulse <= 0)
				continue;
			const fxg_vec3 pa = fxg_v3_add(A->v, fxg_v3_cross(A->w, cp->anchor_a, ovf), ovf);
			const fxg_vec3 pb = fxg_v3_add(B->v, fxg_v3_cross(B->w, cp->anchor_b, ovf), ovf);
			const uint32_t rel = speed_linf(fxg_v3_sub(pb, pa, ovf)), sa = speed_linf(pa), sb = speed_linf(pb);
			r->sa = r->sa > sa ? r->sa : sa;
			r->sb = r->sb > sb ? r->sb : sb;
			r->rel = r->rel > rel ? r->rel : rel;
		}
	}
	return count;
}

#define REST_BLOCK 512 /* contacts a block of rest_speeds_range takes */
static void note_rest_speeds(solver_ctx *c)
{
	const uint32_t n = c->w->contact_count;
	*c->ovf += fxs_solver_run(c, rest_speeds_range, 0, n, REST_BLOCK, 0);
	const rest_speeds *r = (const rest_speeds *)(const void *)c->stage_items;
	for (uint32_t i = 0; i < n; ++i) {
		if (r[i].a != NO_BODY) {
			solver_body *A = &c->bodies[r[i].a];
			A->point_speed = A->point_speed > r[i].sa ? A->point_speed : r[i].sa;
			A->relative_speed = A->relative_speed > r[i].rel ? A->relative_speed : r[i].rel;
		}
		if (r[i].b != NO_BODY) {
			solver_body *B = &c->bodies[r[i].b];
			B->point_speed = B->point_speed > r[i].sb ? B->point_speed : r[i].sb;
			B->relative_speed = B->relative_speed > r[i].rel ? B->relative_speed : r[i].rel;
		}
	}
}

/* The solved velocities back into the moving bodies: zero for a pressed
 * body at rest (above), the locked axes zeroed after the relax iterations
 * and the restitution. Each pass over the bodies at once in blocks with
 * workers (each body its own slots). */

/* the pressed bodies at rest set still, the unmoved ones noted STILL:
 * returns how many */
static uint32_t rest_bodies_range(solver_ctx *c, uint32_t first, uint32_t end, int unused)
{
	uint8_t *notes = c->stage_mask;
	uint32_t still = 0;
	for (uint32_t i = first; i < end; ++i) {
		solver_body *s = &c->bodies[i];
		if (!s->moves)
			continue;
		const fxs_body *b = &c->w->bodies[i];
		const uint32_t r = FXS_REST_SPEED;
		if (!s->dynamic || !(notes[i] & PRESSED) || !pulled(c->w, b))
			continue;
		if ((uint32_t)s->v.x + r <= 2 * r && (uint32_t)s->v.y + r <= 2 * r && (uint32_t)s->v.z + r <= 2 * r &&
		    (uint32_t)s->w.x + r <= 2 * r && (uint32_t)s->w.y + r <= 2 * r && (uint32_t)s->w.z + r <= 2 * r)
			s->v = s->w = fxg_v3_zero();
		else if (unmoved(s, c->h))
			notes[i] |= STILL, ++still, s->point_speed = s->relative_speed = 0; /* (they share rot_q's bytes) */
	}
	return still;
}

/* the first round's verdict on the still bodies (note_rest_speeds):
 * returns how many it left moving, their speeds zeroed for the second */
static uint32_t rested_range(solver_ctx *c, uint32_t first, uint32_t end, int unused)
{
	uint8_t *notes = c->stage_mask;
	uint32_t again = 0;
	for (uint32_t i = first; i < end; ++i) {
		solver_body *s = &c->bodies[i];
		if (!(notes[i] & STILL))
			continue;
		if (2 * (uint64_t)s->relative_speed >= s->point_speed)
			notes[i] |= RESTED, s->v = s->w = fxg_v3_zero();
		else
			++again, s->point_speed = s->relative_speed = 0;
	}
	return again;
}

static uint32_t write_velocities_range(solver_ctx *c, uint32_t first, uint32_t end, int unused)
{
	const uint8_t *notes = c->stage_mask;
	for (uint32_t i = first; i < end; ++i) {
		const solver_body *s = &c->bodies[i];
		if (!s->moves)
			continue;
		fxs_body *b = &c->w->bodies[i];
		b->v = s->v;
		b->w = s->w;
		if ((notes[i] & STILL) && 2 * (uint64_t)s->relative_speed >= s->point_speed)
			b->v = b->w = fxg_v3_zero();
		if (!(notes[i] & FXS_INTEGRATE_PLAIN) && b->locks) /* after the relax iterations and the restitution */
			b->v = fxs_lock_linear(b->locks, b->v), b->w = fxs_lock_angular(b->locks, b->w);
	}
	return 0;
}

static void store_velocities(solver_ctx *c)
{
	const uint32_t n = c->body_count;
	if (fxs_solver_run(c, rest_bodies_range, 0, n, FXS_BODY_BLOCK, 0)) {
		note_rest_speeds(c);
		if (fxs_solver_run(c, rested_range, 0, n, FXS_BODY_BLOCK, 0)) /* the second round (note_rest_speeds) */
			note_rest_speeds(c);
	}
	fxs_solver_run(c, write_velocities_range, 0, n, FXS_BODY_BLOCK, 0);
}

fxs_result fxs_solve(fxs_world *w)
{
	solver_ctx c;
	memset(&c, 0, sizeof c);
	c.w = w;
	c.ovf = &w->ovf;
	c.body_count = w->slot_count;
	c.contact_count = w->contact_count;
	/* scratch: bodies | contacts | joints | stage masks | stage items | indices | order */
	size_t joint_bytes = fxs_joints_scratch_size(w);
	uint32_t staged = c.contact_count > w->joint_count ? c.contact_count : w->joint_count;
	/* bodies and one spare zero body (contact_batch.h's empty lanes); the
	 * wide contacts only for the boxed LCP */
	size_t wide = w->def.direct_contact_rows >= 3 ? (size_t)c.contact_count * sizeof(solver_contact) : 0;
	size_t off_joints = ((size_t)c.body_count + 1) * sizeof(solver_body) + wide;
	size_t off_mask = (off_joints + joint_bytes + 7) & ~(size_t)7;
	size_t off_items = (off_mask + fxs_stages_scratch_size(c.body_count) + 7) & ~(size_t)7;
	size_t off_index = (off_items + (size_t)staged * sizeof(fxs_stage_item) + 7) & ~(size_t)7;
	size_t off_order = off_index + 2 * (size_t)staged * sizeof(uint32_t);
	size_t need = off_order + (size_t)c.contact_count * sizeof(uint32_t);
	uint8_t *base = fxs_scratch_aligned(&w->solver_scratch, &w->solver_scratch_size, need);
	if (!base)
		return FXS_ERR_NOMEM;
	c.bodies = (solver_body *)base;
	c.contacts = (solver_contact *)(c.bodies + c.body_count + 1);
	c.joints = (struct solver_joint_head *)(base + off_joints);
	c.stage_mask = base + off_mask;
	c.stage_items = (fxs_stage_item *)(base + off_items);
	c.stage_index = (uint32_t *)(base + off_index);
	c.stage_order = c.stage_index + staged;
	c.contact_order = (uint32_t *)(base + off_order);
	c.kernels = fxs_kernel_table_get(fxs_world_get_kernels(w));
	c.tasks = fxs_tasks_parallel(w);
	/* the sub-step lengths (fxs_substep_length): q, and q + 1 for the first r */
	const fix16_t q = fxs_substep_length(w->def.dt, w->def.substeps, w->def.substeps - 1);
	c.long_substeps = w->def.dt - q * w->def.substeps;
	/* stiffness no higher than a quarter of the sub-step rate, the short
	 * sub-step's for both lengths (one cap a step) */
	c.hertz_cap = fxg_div(FXG_ONE, q, c.ovf) >> 2;
	fix16_t hertz = fxg_min(w->def.contact_hertz, c.hertz_cap);
	set_length(&c, q, hertz);
	if (c.long_substeps) { /* the long sub-steps come first */
		swap_length(&c);
		set_length(&c, q + 1, hertz);
	}
	c.push_max = w->def.contact_push_max;

	prepare_bodies(&c);
	prepare_contacts(&c);
	fxs_joints_prepare(&c);
	fxs_direct_prepare(&c); /* nothing unless def.direct_contact_rows */
	if (!fxs_joints_plan(&c) || !fxs_batches_prepare(&c) || !fxs_rolling_prepare(&c)) {
		fxs_direct_free(&c);
		return FXS_ERR_NOMEM; /* nothing moved yet this step */
	}
	fxs_joints_setup(&c, true);
	for (int sub = 0; sub < w->def.substeps; ++sub) {
		c.substep = (uint32_t)sub;
		if (sub > 0 && sub == c.long_substeps) { /* from here on q long */
			swap_length(&c);
			fxs_batches_swap_softness(&c);
		}
		integrate_velocities(&c);
		fxs_joints_warm_start(&c);
		fxs_batches_warm_start(&c);
		fxs_joints_solve(&c, true);
		fxs_batches_solve(&c, true);
		fxs_direct_solve(&c, true);
		integrate_positions(&c);
		/* the joints' rows from the moved poses, for the relax pass and the
		 * next sub-step (whose softness they take: the joints trade theirs
		 * here, a relax pass early, when the next sub-step is q long) */
		if (sub + 1 == c.long_substeps)
			fxs_joints_swap_softness(&c);
		if (sub + 1 < w->def.substeps || w->def.relax_iterations > 0)
			fxs_joints_setup(&c, false);
		for (int r = 0; r < w->def.relax_iterations; ++r) {
			fxs_joints_solve(&c, false);
			fxs_batches_solve(&c, false);
			fxs_direct_solve(&c, false);
		}
		fxs_rolling_solve(&c); /* rolling.c: nothing unless a body has a rolling resistance */
	}
	fxs_batches_restitution(&c);
	apply_restitution_direct(&c);
	/* the plan's stage scratch is free from here on */
	c.batch_pressed = (uint8_t *)(void *)c.stage_items;
	/* with hit events (events.c), each point's approach and push too */
	fxs_batches_store(&c, w->step_hit_events != 0);
	if (w->step_hit_events)
		store_approach_direct(&c);
	fxs_direct_finish(&c);
	fxs_joints_store(&c);
	store_direct_friction(&c);
	note_pressed_bodies(&c);
	store_velocities(&c);
	fxs_direct_free(&c);
	return FXS_OK;
}
