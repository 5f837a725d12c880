/* The solver's shared pieces: per-body solver state, constraint rows and the
 * row helpers (effective masses, relative velocity, impulse application,
 * softness). The contact solver (solver.c) and the joints (joint.c) use them.
 * See solver.c for the numbers. */
#ifndef FXS_SOLVER_H
#define FXS_SOLVER_H

#include "world/world.h"
#include "collide/narrowphase.h"

#include <stdlib.h>

typedef struct wvec3 {
	fxg_wide x, y, z;
} wvec3;

/* The velocities and displacements the solver passes read and write come
 * first, and the struct is cache-line aligned (192 bytes): a body's hot
 * state is one line, which the contact kernels read. */
typedef struct solver_body {
	/* line 0: what the passes read and write, and the scaled inverse mass */
	_Alignas(64) fxg_vec3 v; /* (the alignment on v alone: on "v, w" it would align w too) */
	fxg_vec3 w;
	fxg_vec3 dp;     /* displacement since the step began */
	fxg_vec3 dtheta; /* rotation since the step began, to first order (sum of w h) */
	int32_t im;      /* inv_mass scaled (shift sm) */
	uint8_t si, sm;
	uint8_t moves; /* active dynamic or kinematic */
	uint8_t dynamic;
	fxg_wide inv_mass;
	/* line 1: the scaled inverse inertia, the rotation (joint lever arms) */
	int32_t ii[6]; /* the world inverse inertia scaled (xx, yy, zz, xy, xz, yz; shift si): the hot form's source */
	uint32_t ball; /* the body of a batched ball joint this step (joint_batch.c) */
	fxg_mat3 rot;  /* the rotation of the pose rot_q (joint_batch.c's lever arms) */
	/* then */
	fxg_sym3w inv_i; /* world inverse inertia, frozen for the step */
	union { /* (one after the other: the size stays three lines) */
		/* in the sub-steps: the orientation rot was made from; zero:
		 * none yet this step */
		fxg_quat rot_q;
		/* after them, for a body noted still (solver.c's
		 * store_velocities, which zeroes them first): over the points
		 * that press it, its largest point speed and the largest
		 * relative to what presses it (note_rest_speeds) */
		struct {
			uint32_t point_speed, relative_speed;
		};
	};
} solver_body;
_Static_assert(sizeof(solver_body) == 192, "a solver body is three cache lines");

/* One constraint row along a unit direction d: the normal or a tangent. */
typedef struct solver_row {
	fxg_vec3 rxa, rxb;     /* ra x d, rb x d */
	fxg_wide ia[3], ib[3]; /* Ia^-1 (ra x d), Ib^-1 (rb x d): angular response, Q32.32 */
	fxg_wide mass;         /* effective mass along d, Q32.32 kg */
	fxg_wide soft_mass;    /* mass scaled by the contact softness (normal row) */
} solver_row;

typedef struct soft {
	fix16_t bias_rate, mass_scale, impulse_scale;
} soft;

typedef struct solver_point {
	solver_row row[1];         /* the normal */
	fix16_t lever;             /* distance from the friction centre, m */
	fix16_t separation;        /* from the narrowphase, when the step began */
	fix16_t relative_velocity; /* normal speed met by the first push this step (restitution) */
	fix16_t impact_separation; /* and the separation then */
	int64_t max_normal_impulse;
} solver_point;

typedef struct solver_contact {
	uint32_t index; /* in the world's contact list */
	uint32_t a, b;
	int32_t count;
	fxg_vec3 d[3]; /* normal, tangent 0, tangent 1 */
	fix16_t friction, restitution;
	const soft *softness;       /* contact_soft, or static_soft against a static body */
	solver_row tangent[2];      /* friction rows at the centre of the points */
	solver_row twist;           /* angular row about the normal */
	int64_t tangent_impulse[2]; /* accumulated along d[1], d[2] (Q16.16 N s in int64) */
	int64_t twist_impulse;      /* about d[0] (Q16.16 N m s) */
	solver_point p[FXS_MAX_MANIFOLD_POINTS];
} solver_contact;

/* The length of sub-step k (from 0) of a step of dt in n sub-steps, raw
 * units of s: q = dt / n rounded down for the last n - r, q + 1 for the
 * first r = dt - n q. The n lengths add up to dt exactly. */
static inline fix16_t fxs_substep_length(fix16_t dt, int32_t n, int32_t k)
{
	fix16_t q = dt / n;
	return k < dt - q * n ? q + 1 : q;
}

typedef struct solver_ctx {
	fxs_world *w;
	solver_body *bodies;
	struct solver_contact *contacts;
	struct solver_joint_head *joints; /* every joint, in solve order (joint.h) */
	uint32_t body_count, contact_count, joint_count;
	/* The sub-step being solved: its length h (raw units of s) and 1 / h,
	 * and the contacts' softness made for that length. A step of dt in n
	 * sub-steps has n - r sub-steps of q = dt / n (floor) and r = dt - n q
	 * of q + 1, the long ones first: they add up to dt exactly. The other
	 * length's values wait in the _alt fields; fxs_solve swaps them (and the
	 * batches' and joints' copies) when the length changes, once a step. */
	fix16_t h, inv_h;
	soft contact_soft;
	soft static_soft; /* contacts with a static body: twice as stiff */
	fix16_t h_alt, inv_h_alt;
	soft contact_soft_alt, static_soft_alt;
	int32_t long_substeps; /* r: the sub-steps of length q + 1; 0: every sub-step is q long */
	fix16_t hertz_cap;     /* the highest contact and joint stiffness, Hz: a quarter of 1 / q */
	fix16_t push_max;
	uint32_t *ovf;
	/* stage scratch (stage.h), sized for max(contacts, joints) constraints */
	void *stage_mask;
	struct fxs_stage_item *stage_items;
	uint32_t *stage_index, *stage_order;
	uint32_t *contact_order; /* the world contact of each solver contact, in solve order */
	uint32_t contact_stage_end[65]; /* where each stage's contacts end in contact_order (stage.h) */
	/* the direct solver for contact islands (solver_direct.c), NULL when off */
	struct fxs_direct *direct;
	const uint8_t *contact_direct; /* per solver contact: solved by the boxed LCP */
	const uint8_t *joint_direct;   /* per solver joint: the same */
	/* per solver joint: in an island of ball joints solved by L D L^T
	 * (solver_direct.c), planned once per step (fxs_joints_plan) */
	uint8_t *joint_handled;
	uint32_t direct_ball_islands;
	uint32_t substep; /* the current sub-step, from 0 */
	/* ball joints in batches (joint_batch.h), per stage: joints and batches
	 * end at joint_stage_end[s] and ball_stage_end[s] */
	struct ball_batch *ball_batches;
	uint32_t ball_batch_count;
	uint32_t joint_stage_end[65], ball_stage_end[65];
	/* the other joints (not batched), in solve order, and where each stage's
	 * end; their rows, in the same order (joint.h) */
	uint32_t *wide_joints;
	struct solver_joint *joint_rows;
	uint32_t wide_stage_end[65];
	/* the iteratively solved contacts in batches (contact_batch.h) */
	struct contact_batch *batches;
	struct contact_batch_alt *batch_alts; /* beside the batches, with sub-steps of two lengths (contact_batch.h) */
	uint32_t batch_count;
	uint32_t parallel_batch_count; /* the batches before the overflow stage's (which come last) */
	/* per batch, from fxs_batches_store: bit l when lane l's contact
	 * presses (a point with a normal impulse; solver.c's
	 * note_pressed_bodies) */
	uint8_t *batch_pressed;
	/* the vector kernels (simd/kernels.h) of the world's level, NULL: the
	 * portable code; the same bits whichever runs */
	const struct fxs_kernel_table *kernels;
	/* with workers (fxs_batches_prepare, for solver_tasks.c): where each
	 * stage's batches end, the overflow stage's apart */
	uint32_t batch_stage_end[64], batch_stage_count;
	/* while they are packed with workers: batch i's first solve-order
	 * contact (batch_first[batch_count]: the contact count) */
	const uint32_t *batch_first;
	bool tasks; /* the step runs on more than one worker (world/tasks.h) */
} solver_ctx;

/* The step's solve (solver.c): the soft-step solver over the contact list
 * and the joints, sub-step by sub-step; integrates the bodies. */
fxs_result fxs_solve(fxs_world *w);

/* ---- small vector helpers on int64 ---- */

/* The start, on a 64-byte line, of a world-owned scratch buffer grown to
 * hold `need` bytes from there (the solver's and the batches' scratch);
 * NULL when out of memory, the buffer then unchanged. */
static inline uint8_t *fxs_scratch_aligned(void **buf, size_t *size, size_t need)
{
	need += 64;
	if (need > *size) {
		void *p = realloc(*buf, need);
		if (!p)
			return NULL;
		*buf = p;
		*size = need;
	}
	return (uint8_t *)*buf + ((64 - (uintptr_t)*buf % 64) % 64);
}

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
	/* each offset sum fits 32 bits exactly when it is in range, so their OR
	 * does exactly when all three do: one branch, not three */
	if ((((uint64_t)x - (uint64_t)INT32_MIN) | ((uint64_t)y - (uint64_t)INT32_MIN) |
	     ((uint64_t)z - (uint64_t)INT32_MIN)) > span) {
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

/* ---- scaled coefficients: the iterative solver's hot form ----
 *
 * prepare computes responses and effective masses in Q32.32 (fxg_wide),
 * whose products with a Q16.16 impulse or speed need 128 bits. The hot
 * loops hold each group of coefficients that share a scale (a body's three
 * linear or three angular responses to a row, a row's mass) as int32
 * mantissas m and one shift s, m = x 2^(s-32) rounded, |m| < 2^30: the
 * product with a Q16.16 y is then (m y + 2^(s-1)) >> s, one 32 x 32 -> 64
 * multiply, an add and a shift, exact in int64 (|m y| <= 2^61, s <= 62).
 * Precision: 30 significant bits relative to the group's largest value,
 * and never less than the Q32.32 value itself (values below 2^30 in Q32.32
 * are shifted left exactly). The rounding is half up. */

#define FXS_SCALE_BITS 30

/* the shift for a group whose largest magnitude has `bits` bits (Q32.32) */
static inline uint8_t scale_shift(int bits)
{
	int s = 32 + FXS_SCALE_BITS - bits;
	return (uint8_t)(s > 62 ? 62 : (s < 1 ? 1 : s));
}

static inline int bit_length(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }

/* mantissas are kept within +-2^30, so that a product with any int32 is at
 * most 2^61 in magnitude */
#define FXS_MANTISSA_MAX ((int64_t)1 << FXS_SCALE_BITS)

static inline int32_t mantissa_sat(int64_t v, uint32_t *ovf)
{
	if (v > FXS_MANTISSA_MAX || v < -FXS_MANTISSA_MAX) {
		++*ovf;
		return (int32_t)(v > 0 ? FXS_MANTISSA_MAX : -FXS_MANTISSA_MAX);
	}
	return (int32_t)v;
}

/* x (Q32.32) as a mantissa for shift s; saturated (and counted) only when
 * s was clamped to 1, for |x| >= 2^61 */
static inline int32_t scale_to(int64_t x, int s, uint32_t *ovf)
{
	if (s >= 32)
		return (int32_t)(x * ((int64_t)1 << (s - 32))); /* exact: |x 2^(s-32)| < 2^30 */
	int k = 32 - s;                                         /* round half up without overflow: floor(x / 2^k) + the bit below */
	return mantissa_sat((x >> k) + ((x >> (k - 1)) & 1), ovf);
}

static inline uint8_t scale1(fxg_wide x, int32_t *m, uint32_t *ovf)
{
	uint8_t s = scale_shift(bit_length(fxg_uabs64(x)));
	*m = scale_to(x, s, ovf);
	return s;
}

/* m y / 2^s, rounded half up (|m| <= 2^30, s in [1, 62]) */
static inline int64_t scaled_mul(int32_t m, int32_t y, int s) { return ((int64_t)m * y + ((int64_t)1 << (s - 1))) >> s; }

/* v += m p / 2^s, componentwise */
static inline void scaled_add3(fxg_vec3 *v, const int32_t m[3], int s, int32_t p, uint32_t *ovf)
{
	const int64_t r = (int64_t)1 << (s - 1);
	add3(v, ((int64_t)m[0] * p + r) >> s, ((int64_t)m[1] * p + r) >> s, ((int64_t)m[2] * p + r) >> s, ovf);
}

/* One row in hot form: angular Jacobians, both bodies' angular responses
 * (A's negated, so that one impulse p is added to both), the masses. */
typedef struct srow {
	fxg_vec3 rxa, rxb;    /* ra x d, rb x d */
	int32_t ia[3], ib[3]; /* -Ia^-1 (ra x d), Ib^-1 (rb x d), shifts sa, sb */
	int32_t mass, soft_mass;
	uint8_t sa, sb, sm, ss;
} srow;

/* fxg_wmul (w f / 2^16, rounded half up) with the 128-bit product only
 * when |w| >= 2^31: below, w f fits int64 (the same bits either way) */
static inline int64_t wmul_fast(int64_t w, fix16_t f, uint32_t *ovf)
{
	if ((uint64_t)w + ((uint64_t)1 << 31) < ((uint64_t)1 << 32))
		return (w * f + 0x8000) >> 16;
	return fxg_wmul(w, f, ovf);
}

/* ---- the manifold's friction (Box3D's central friction, solver.c) ----
 * A contact keeps its friction impulse from step to step as a world
 * vector (fxs_contact.friction_impulse), so that it carries over when the
 * tangent basis turns: projected on the step's tangents when it is
 * prepared, and made again from the two tangent impulses when it is
 * stored. Both solvers (the batches and the boxed LCP) use these. */

/* f (a world vector of int64 Q16.16 impulses) along the unit tangent d */
static inline int64_t friction_along(const fxg_wide f[3], fxg_vec3 d, uint32_t *ovf)
{
	return fxg_add64(fxg_add64(wmul_fast(f[0], d.x, ovf), wmul_fast(f[1], d.y, ovf), ovf), wmul_fast(f[2], d.z, ovf), ovf);
}

/* f = a t0 + b t1: the world vector of the impulses a, b along t0, t1 */
static inline void friction_from_tangents(fxg_wide f[3], int64_t a, fxg_vec3 t0, int64_t b, fxg_vec3 t1, uint32_t *ovf)
{
	f[0] = fxg_add64(fxg_wmul(a, t0.x, ovf), fxg_wmul(b, t1.x, ovf), ovf);
	f[1] = fxg_add64(fxg_wmul(a, t0.y, ovf), fxg_wmul(b, t1.y, ovf), ovf);
	f[2] = fxg_add64(fxg_wmul(a, t0.z, ovf), fxg_wmul(b, t1.z, ovf), ovf);
}

/* |r|^2 of a point's lever arm from the friction centre, raw units, its
 * components clamped to 2^14 m so that the sum fits 64 bits */
static inline uint64_t friction_lever2(fxg_vec3 r)
{
	const int64_t cap = (int64_t)1 << 30;
	const int64_t x = fxg_clamp64(r.x, -cap, cap), y = fxg_clamp64(r.y, -cap, cap), z = fxg_clamp64(r.z, -cap, cap);
	return (uint64_t)(x * x) + (uint64_t)(y * y) + (uint64_t)(z * z);
}

/* x / 2^k rounded half up, for k >= 0, without overflow */
static inline int64_t shr_half_up(int64_t x, int k) { return k ? (x >> k) + ((x >> (k - 1)) & 1) : x; }

/* Ib^-1 x in hot form from the body's scaled inverse inertia (ii, si): the
 * three sums are exact in int64 (|ii| <= 2^30, |x| <= 2^31), then rounded to
 * 30 significant bits; returns the shift. *k gets x . Ib^-1 x in Q32.32 (the
 * row's angular part of the effective mass). A body that does not move has
 * ii = 0: zeros. */
uint8_t fxs_inertia_response_slow(const int64_t s[3], int shift, int32_t out[3], uint32_t *ovf);

static inline uint8_t inertia_response(const solver_body *b, fxg_vec3 x, int32_t out[3], fxg_wide *k, uint32_t *ovf)
{
	if (!b->dynamic) { /* what the general path gives for ii = 0 */
		out[0] = out[1] = out[2] = 0;
		*k = 0;
		return 62;
	}
	const int32_t *m = b->ii;
	int64_t s[3] = { (int64_t)m[0] * x.x + (int64_t)m[3] * x.y + (int64_t)m[4] * x.z,
			 (int64_t)m[3] * x.x + (int64_t)m[1] * x.y + (int64_t)m[5] * x.z,
			 (int64_t)m[4] * x.x + (int64_t)m[5] * x.y + (int64_t)m[2] * x.z };
	/* s is the response in units of 2^-(si + 16) */
	int sh = bit_length(fxg_uabs64(s[0]) | fxg_uabs64(s[1]) | fxg_uabs64(s[2])) - FXS_SCALE_BITS;
	sh = sh < 0 ? 0 : sh;
	int e = b->si + 16 - sh;
	if (e > 62)
		sh += e - 62, e = 62;
	if (e < 1) {
		e = fxs_inertia_response_slow(s, b->si + 15, out, ovf); /* exponent 1 */
	} else {
		/* shr_half_up without its branch: |s| < 2^63 - 2^sh, and sh = 0 adds nothing */
		const int64_t half = ((int64_t)1 << sh) >> 1;
		out[0] = (int32_t)((s[0] + half) >> sh); /* |out| <= 2^30 */
		out[1] = (int32_t)((s[1] + half) >> sh);
		out[2] = (int32_t)((s[2] + half) >> sh);
	}
	/* x . out in units of 2^-(16 + e), to Q32.32 */
	int64_t d = (int64_t)x.x * out[0] + (int64_t)x.y * out[1] + (int64_t)x.z * out[2];
	if (e >= 16) {
		const int64_t half = ((int64_t)1 << (e - 16)) >> 1; /* |d| <= 3 2^61 */
		*k = (d + half) >> (e - 16);
	} else {
		int up = 16 - e;
		*k = d > (INT64_MAX >> up) ? (++*ovf, INT64_MAX) : d * ((int64_t)1 << up);
	}
	return (uint8_t)e;
}

/* 1 / k for k in Q32.32, as Q32.32, correctly rounded (ties up): one
 * 64-bit division. k <= 0 gives 0 (no constraint); k = 2^-32 saturates. */
static inline fxg_wide recip_q32(fxg_wide k, uint32_t *ovf)
{
	if (k <= 0)
		return 0;
	uint64_t u = (uint64_t)k;
	if (u == 1) {
		++*ovf;
		return INT64_MAX;
	}
	/* 2^64 = q u + rem with 0 <= rem < u */
	uint64_t q = UINT64_MAX / u, rem = UINT64_MAX - q * u + 1;
	if (rem == u)
		q += 1, rem = 0;
	if (rem >= u - rem)
		q += 1;
	if (q > (uint64_t)INT64_MAX) {
		++*ovf;
		return INT64_MAX;
	}
	return (fxg_wide)q;
}

/* A row in hot form for lever arms' Jacobians rxa, rxb, straight from the
 * bodies' scaled inertias (linear: with both inverse masses in the
 * effective mass; angular rows leave them out). */
static inline void srow_prepare(const solver_body *A, const solver_body *B, fxg_vec3 rxa, fxg_vec3 rxb, bool linear,
				fix16_t mass_scale, srow *r, uint32_t *ovf)
{
	fxg_wide ka, kb;
	r->rxa = rxa, r->rxb = rxb;
	r->sa = inertia_response(A, rxa, r->ia, &ka, ovf);
	r->sb = inertia_response(B, rxb, r->ib, &kb, ovf);
	r->ia[0] = -r->ia[0], r->ia[1] = -r->ia[1], r->ia[2] = -r->ia[2]; /* A takes -p */
	fxg_wide k = fxg_add64(ka, kb, ovf);
	if (linear)
		k = fxg_add64(k, fxg_add64(A->inv_mass, B->inv_mass, ovf), ovf);
	fxg_wide m = recip_q32(k, ovf);
	r->sm = scale1(m, &r->mass, ovf);
	r->ss = scale1(mass_scale == FXG_ONE ? m : fxg_wmul(m, mass_scale, ovf), &r->soft_mass, ovf);
}

/* an impulse P (int64, Q16.16) as the int32 the products take; never
 * INT32_MIN, so that it can be negated */
static inline int32_t impulse32(int64_t P, uint32_t *ovf)
{
	fix16_t p = fxg_sat(P, ovf);
	return p == INT32_MIN ? -INT32_MAX : p;
}

/* ---- softness (impulse form, no 1/h^2) ---- */

/* a and b trade places (the two sub-step lengths' values, solver.h's
 * solver_ctx) */
static inline void soft_swap(soft *a, soft *b)
{
	soft t = *a;
	*a = *b, *b = t;
}

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

/* ---- restitution ----
 *
 * The speed a bounce leaves with, from the contact's normal speed when the
 * step began: rv (< 0), at separation s (the gap still to close, >= 0;
 * a sub-step's drift velocity and the separation that drift led to), with
 * a_n the bodies' relative acceleration along the normal from gravity
 * and forces (< 0 when it presses them together), h the sub-step.
 *
 * Semi-implicit Euler's velocities are those of each sub-step's drift,
 * half a sub-step from its end, and the quantity it keeps along a free
 * flight is E = v^2 / 2 - a q + a h v / 2 (q the separation). So the speed
 * at the touch (q = 0) is v_t = sqrt(rv^2 - 2 a s + a h rv), and a launch
 * v0 from the surface rises as v0^2 / 2 + a h v0 / 2 = e^2 v_t^2 / 2 says:
 * v0 = (-a h + sqrt((a h)^2 + 4 e^2 v_t^2)) / 2. Without a_n, plain e |rv|;
 * with gravity, a ball dropped from 5 m at e = 0.5 rises to 1.25 m, not the
 * 1.198 m of e |rv| (the drift velocity is neither the touch's nor the
 * launch's). The speed when the step began, not the one a point meets when
 * it first pushes: that one may be a push passed along a row of touching
 * bodies within the sub-step (contact_batch.c's fxs_batches_restitution).
 * Q32.32 squares, roots rounded; the result saturated to Q16.16. */
/* the ranges every product below is sized for: |rv| <= 2^30 (16384 m/s),
 * s in [0, 2^20] (16 m: the speculative distance is at most 10 m),
 * |a| <= 2^26 (1024 m/s^2); clamped (a faster approach or harder push
 * than that is far outside every stated range) */
static inline void restitution_clamp(fix16_t *rv, fix16_t *s, fix16_t *a)
{
	*rv = *rv < -(1 << 30) ? -(1 << 30) : *rv;
	*s = *s < 0 ? 0 : (*s > (1 << 20) ? (1 << 20) : *s);
	*a = *a < -(1 << 26) ? -(1 << 26) : (*a > (1 << 26) ? (1 << 26) : *a);
}

/* v_t, the speed at the touch (above), Q16.16 in int64 (>= 0); ah = a h */
static inline int64_t touch_speed(fix16_t rv, fix16_t s, fix16_t a, int64_t ah)
{
	int64_t t = (int64_t)rv * rv - 2 * (int64_t)a * s + ah * rv;
	return (int64_t)fxg_isqrt64_round((uint64_t)(t < 0 ? 0 : t));
}

static inline fix16_t restitution_speed(fix16_t e, fix16_t rv, fix16_t s, fix16_t a, fix16_t h, uint32_t *ovf)
{
	restitution_clamp(&rv, &s, &a);
	const int64_t ah = fxg_shr_round((int64_t)a * h, 16); /* |a| <= 2^31 raw, h <= 2^16: exact */
	const int64_t vt = touch_speed(rv, s, a, ah);
	const int64_t ev = fxg_shr_round(vt * e, 16);               /* e <= 1 */
	uint64_t d = (uint64_t)(ah * ah) + 4 * (uint64_t)(ev * ev); /* below 2^64 for |a h|, e v_t below 2^31 */
	int64_t v0 = ((int64_t)fxg_isqrt64_round(d) - ah + 1) >> 1;
	return fxg_sat(v0, ovf);
}

/* The approach speed at the touch (> 0) of a point whose normal speed was
 * rv (< 0) and separation s when the step began: what hit events report. */
static inline fix16_t impact_speed(fix16_t rv, fix16_t s, fix16_t a, fix16_t h, uint32_t *ovf)
{
	restitution_clamp(&rv, &s, &a);
	return fxg_sat(touch_speed(rv, s, a, fxg_shr_round((int64_t)a * h, 16)), ovf);
}

/* The relative acceleration of b from a along n from gravity and the forces
 * (0 for bodies that do not move), Q16.16 m/s^2: restitution's a_n. */
static inline fix16_t normal_acceleration(const fxs_world *w, uint32_t a, uint32_t b, fxg_vec3 n, uint32_t *ovf)
{
	const uint32_t s[2] = { a, b };
	int64_t acc = 0;
	for (int k = 0; k < 2; ++k) {
		const fxs_body *body = &w->bodies[s[k]];
		if (!body->alive || !body->awake || body->type != FXS_BODY_DYNAMIC)
			continue;
		fxg_vec3 g = fxg_v3_scale(body->gravity_scale, w->def.gravity, ovf);
		fxg_vec3 f = fxg_v3(fxg_wide_to_fix(fxg_wmul(body->inv_mass, body->force.x, ovf), ovf),
				    fxg_wide_to_fix(fxg_wmul(body->inv_mass, body->force.y, ovf), ovf),
				    fxg_wide_to_fix(fxg_wmul(body->inv_mass, body->force.z, ovf), ovf));
		int64_t an = fxg_v3_dot(n, fxg_v3_add(g, f, ovf), ovf);
		acc += k ? an : -an;
	}
	return fxg_sat(acc, ovf);
}

/* orthonormal tangent basis from a unit normal (canonical: depends on n only) */
static inline void tangents(fxg_vec3 n, fxg_vec3 t[2], uint32_t *ovf)
{
	fxg_vec3 a;
	const fix16_t k = 37837; /* 1/√3 in Q16.16, rounded to nearest */
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
