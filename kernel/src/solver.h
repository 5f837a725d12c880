/* The solver's shared pieces: per-body solver state, constraint rows and the
 * row helpers (effective masses, relative velocity, impulse application,
 * softness). The contact solver (solver.c) and the joints (joint.c) use them.
 * See solver.c for the numbers. */
#ifndef FXS_SOLVER_H
#define FXS_SOLVER_H

#include "world.h"

typedef struct wvec3 {
	fxg_wide x, y, z;
} wvec3;

typedef struct solver_body {
	fxg_vec3 v, w;
	fxg_vec3 dp;     /* displacement since the step began */
	fxg_vec3 dtheta; /* rotation since the step began, to first order (sum of w h) */
	fxg_wide inv_mass;
	fxg_sym3w inv_i; /* world inverse inertia, frozen for the step */
	uint8_t moves;   /* active dynamic or kinematic */
	uint8_t dynamic;
} solver_body;

/* One constraint row along a unit direction d: the normal or a tangent. */
typedef struct solver_row {
	fxg_vec3 rxa, rxb;      /* ra x d, rb x d */
	fxg_wide ia[3], ib[3];  /* Ia^-1 (ra x d), Ib^-1 (rb x d): angular response, Q32.32 */
	fxg_wide mass;          /* effective mass along d, Q32.32 kg */
	fxg_wide soft_mass;     /* mass scaled by the contact softness (normal row) */
} solver_row;

typedef struct soft {
	fix16_t bias_rate, mass_scale, impulse_scale;
} soft;

typedef struct solver_point {
	solver_row row[1];           /* the normal */
	fix16_t lever;               /* distance from the friction centre, m */
	fix16_t separation;          /* from the narrowphase, when the step began */
	fix16_t relative_velocity;   /* normal speed before solving (restitution) */
	int64_t max_normal_impulse;
} solver_point;

typedef struct solver_contact {
	uint32_t index; /* in the world's contact list */
	uint32_t a, b;
	int32_t count;
	fxg_vec3 d[3];  /* normal, tangent 0, tangent 1 */
	fix16_t friction, restitution;
	const soft *softness;  /* contact_soft, or static_soft against a static body */
	solver_row tangent[2]; /* friction rows at the centre of the points */
	solver_row twist;      /* angular row about the normal */
	int64_t tangent_impulse[2]; /* accumulated along d[1], d[2] (Q16.16 N s in int64) */
	int64_t twist_impulse; /* about d[0] (Q16.16 N m s) */
	solver_point p[FXS_MAX_MANIFOLD_POINTS];
} solver_contact;

typedef struct solver_ctx {
	fxs_world *w;
	solver_body *bodies;
	struct solver_contact *contacts;
	struct solver_joint *joints;
	uint32_t body_count, contact_count, joint_count;
	fix16_t h, inv_h;
	soft contact_soft;
	soft static_soft; /* contacts with a static body: twice as stiff */
	fix16_t push_max;
	uint32_t *ovf;
	/* stage scratch (stage.h), sized for max(contacts, joints) constraints */
	void *stage_mask;
	struct fxs_stage_item *stage_items;
	uint32_t *stage_index, *stage_order;
	/* the direct solver for contact islands (solver_direct.c), NULL when off */
	struct fxs_direct *direct;
	const uint8_t *contact_direct; /* per solver contact: solved by the boxed LCP */
	const uint8_t *joint_direct;   /* per solver joint: the same */
} solver_ctx;

/* ---- small vector helpers on int64 ---- */

static inline wvec3 sym_mul(const fxg_sym3w *m, fxg_vec3 v, uint32_t *ovf)
{
	wvec3 r;
	r.x = fxg_add64(fxg_add64(fxg_wmul(m->xx, v.x, ovf), fxg_wmul(m->xy, v.y, ovf), ovf), fxg_wmul(m->xz, v.z, ovf), ovf);
	r.y = fxg_add64(fxg_add64(fxg_wmul(m->xy, v.x, ovf), fxg_wmul(m->yy, v.y, ovf), ovf), fxg_wmul(m->yz, v.z, ovf), ovf);
	r.z = fxg_add64(fxg_add64(fxg_wmul(m->xz, v.x, ovf), fxg_wmul(m->yz, v.y, ovf), ovf), fxg_wmul(m->zz, v.z, ovf), ovf);
	return r;
}

/* a . b for a wide vector and a Q16.16 vector, as Q32.32 */
static inline fxg_wide wdot(wvec3 a, fxg_vec3 b, uint32_t *ovf)
{
	return fxg_add64(fxg_add64(fxg_wmul(a.x, b.x, ovf), fxg_wmul(a.y, b.y, ovf), ovf), fxg_wmul(a.z, b.z, ovf), ovf);
}

/* Exact dot product as Q32.32. The solver's stated range keeps every sum
 * exact: speeds below 16384 m/s and rad/s, lever arms below 1000 m (each
 * product below 2^58, a sum of four below 2^61). */
static inline int64_t dot_raw(fxg_vec3 a, fxg_vec3 b)
{
	return (int64_t)a.x * b.x + (int64_t)a.y * b.y + (int64_t)a.z * b.z;
}

/* relative velocity along a row: d.(vb - va) + wb.(rb x d) - wa.(ra x d) */
static inline fix16_t rel_vel(const solver_body *A, const solver_body *B, fxg_vec3 d, const solver_row *r,
			      uint32_t *ovf)
{
	int64_t s = dot_raw(d, B->v) - dot_raw(d, A->v) + dot_raw(B->w, r->rxb) - dot_raw(A->w, r->rxa);
	return fxg_sat(fxg_shr_round(s, 16), ovf);
}

/* v + (x, y, z) with the sums in int64: one range test for the vector, the
 * per-component saturation (and its count) only when it fails. */
static inline void add3(fxg_vec3 *v, int64_t x, int64_t y, int64_t z, uint32_t *ovf)
{
	x += v->x, y += v->y, z += v->z;
	const uint64_t span = (uint64_t)UINT32_MAX;
	if (((uint64_t)x - (uint64_t)INT32_MIN) > span || ((uint64_t)y - (uint64_t)INT32_MIN) > span ||
	    ((uint64_t)z - (uint64_t)INT32_MIN) > span) {
		*v = fxg_v3(fxg_sat(x, ovf), fxg_sat(y, ovf), fxg_sat(z, ovf));
		return;
	}
	*v = fxg_v3((fix16_t)x, (fix16_t)y, (fix16_t)z);
}

static inline void add_scaled(fxg_vec3 *v, fix16_t s, fxg_vec3 d, uint32_t *ovf)
{
	add3(v, fxg_shr_round((int64_t)s * d.x, 16), fxg_shr_round((int64_t)s * d.y, 16), fxg_shr_round((int64_t)s * d.z, 16),
	     ovf);
}

static inline void add_response(fxg_vec3 *w, const fxg_wide r[3], fix16_t p, uint32_t *ovf)
{
	add3(w, fxg_wmul_fix64(r[0], p), fxg_wmul_fix64(r[1], p), fxg_wmul_fix64(r[2], p), ovf);
}

/* Apply impulse P (int64, Q16.16 N s) along row direction d: A gets -P, B +P.
 * Static, kinematic and sleeping bodies have zero responses, so no branch. */
static inline void apply(solver_body *A, solver_body *B, fxg_vec3 d, const solver_row *r, int64_t P, uint32_t *ovf)
{
	if (P == 0)
		return;
	fix16_t p = fxg_sat(P, ovf);
	fix16_t np = p == INT32_MIN ? INT32_MAX : -p;
	add_scaled(&A->v, fxg_wmul_fix(A->inv_mass, np, ovf), d, ovf);
	add_response(&A->w, r->ia, np, ovf);
	add_scaled(&B->v, fxg_wmul_fix(B->inv_mass, p, ovf), d, ovf);
	add_response(&B->w, r->ib, p, ovf);
}

/* ---- softness (impulse form, no 1/h^2) ---- */

static inline soft make_soft(fix16_t hertz, fix16_t zeta, fix16_t h, uint32_t *ovf)
{
	soft s = { 0, 0, FXG_ONE };
	if (hertz == 0)
		return s;
	const fix16_t two_pi = 411775; /* 2 pi in Q16.16 */
	fix16_t omega = fxg_mul(two_pi, hertz, ovf);
	fix16_t a1 = fxg_add(2 * zeta, fxg_mul(h, omega, ovf), ovf);
	fix16_t a2 = fxg_mul(fxg_mul(h, omega, ovf), a1, ovf);
	fix16_t a3 = fxg_div(FXG_ONE, fxg_add(FXG_ONE, a2, ovf), ovf);
	s.bias_rate = fxg_div(omega, a1, ovf);
	s.mass_scale = fxg_mul(a2, a3, ovf);
	s.impulse_scale = a3;
	return s;
}

/* orthonormal tangent basis from a unit normal (canonical: depends on n only) */
static inline void tangents(fxg_vec3 n, fxg_vec3 t[2], uint32_t *ovf)
{
	fxg_vec3 a;
	const fix16_t k = 37837; /* 0.57735 = 1/sqrt(3) */
	if (n.x >= k || n.x <= -k)
		a = fxg_v3(n.y, -n.x, 0);
	else
		a = fxg_v3(0, n.z, -n.y);
	t[0] = fxg_v3_normalize(a, NULL, ovf);
	t[1] = fxg_v3_cross(n, t[0], ovf);
}

static inline void prepare_row(const solver_body *A, const solver_body *B, fxg_vec3 ra, fxg_vec3 rb, fxg_vec3 d,
			fix16_t mass_scale, solver_row *r, uint32_t *ovf)
{
	r->rxa = fxg_v3_cross(ra, d, ovf);
	r->rxb = fxg_v3_cross(rb, d, ovf);
	wvec3 ia = sym_mul(&A->inv_i, r->rxa, ovf), ib = sym_mul(&B->inv_i, r->rxb, ovf);
	r->ia[0] = ia.x, r->ia[1] = ia.y, r->ia[2] = ia.z;
	r->ib[0] = ib.x, r->ib[1] = ib.y, r->ib[2] = ib.z;
	fxg_wide k = fxg_add64(A->inv_mass, B->inv_mass, ovf);
	k = fxg_add64(k, wdot(ia, r->rxa, ovf), ovf);
	k = fxg_add64(k, wdot(ib, r->rxb, ovf), ovf);
	r->mass = k > 0 ? fxg_wide_recip(k, ovf) : 0;
	r->soft_mass = fxg_wmul(r->mass, mass_scale, ovf);
}

/* Current separation, to first order in the rotations since the step began:
 * separation + n . (dpB - dpA) + dthetaB . (rb x n) - dthetaA . (ra x n)
 * (an anchor r turned by dtheta moves by dtheta x r, and n . (dtheta x r)
 * = dtheta . (r x n)). */
static inline fix16_t current_separation(const solver_body *A, const solver_body *B, const solver_point *p, fxg_vec3 n,
					 uint32_t *ovf)
{
	int64_t s = dot_raw(n, B->dp) - dot_raw(n, A->dp) + dot_raw(B->dtheta, p->row[0].rxb) - dot_raw(A->dtheta, p->row[0].rxa);
	return fxg_sat((int64_t)p->separation + fxg_shr_round(s, 16), ovf);
}

#endif
