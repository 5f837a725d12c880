/* Joints: ball-and-socket, hinge, fixed, distance and prismatic, as soft
 * constraints in impulse form (Box2D v3's soft step; see solver.c).
 *
 * Every joint is a handful of scalar rows of the contact solver's kind
 * (solver_row: Q32.32 angular responses and effective mass, frozen for the
 * step), each with an accumulated impulse (int64, Q16.16 N s or N m s) that
 * is state: it warm-starts the next step and is hashed and snapshotted.
 *
 *   rows 0..2  ball part: the anchors coincide, along world x, y, z
 *   hinge      3, 4: the hinge axes stay parallel (angular, perpendicular
 *              to the axis); 5 motor, 6 lower limit, 7 upper limit (angular,
 *              along the axis)
 *   fixed      3..5: the relative rotation stays (angular, world x, y, z)
 *   distance   0: rod (soft, joint softness) or spring (its own softness);
 *              1 min length, 2 max length (all along the anchors' line)
 *   prismatic  0, 1: linear, perpendicular to the axis; 2..4 angular lock;
 *              5 motor, 6 lower, 7 upper (linear, along the axis)
 *
 * Position errors are measured when the step begins and carried to first
 * order through each sub-step with the bodies' displacement and rotation
 * since then (solver_body.dp and dtheta), as the contacts do: no rotation
 * and no square root per iteration. Joints are visited in slot order, each
 * sub-step before the contacts. */
#include "joint/joint.h"
#include "island/island.h"
#include "solve/stage.h"
#include "solve/solver_direct.h"
#include "joint/joint_batch.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>


static const fxg_vec3 unit_axes[3] = { { FXG_ONE, 0, 0 }, { 0, FXG_ONE, 0 }, { 0, 0, FXG_ONE } };

int fxs_joint_row_count(int type)
{
	switch (type) {
	case FXS_JOINT_BALL: return 3;
	case FXS_JOINT_HINGE: return 8;
	case FXS_JOINT_FIXED: return 6;
	case FXS_JOINT_DISTANCE: return 3;
	case FXS_JOINT_PRISMATIC: return 8;
	}
	return 0;
}

/* ---- definitions ---- */

static fxs_joint_def base_def(int type)
{
	fxs_joint_def d;
	memset(&d, 0, sizeof d);
	d.type = type;
	d.local_axis_a = fxg_v3(0, 0, FXG_ONE);
	d.hertz = FXG_I(60);
	d.damping_ratio = FXG_I(2);
	d.length = -FXG_ONE;
	return d;
}

fxs_joint_def fxs_default_ball_joint_def(void) { return base_def(FXS_JOINT_BALL); }
fxs_joint_def fxs_default_hinge_joint_def(void) { return base_def(FXS_JOINT_HINGE); }
fxs_joint_def fxs_default_distance_joint_def(void) { return base_def(FXS_JOINT_DISTANCE); }

fxs_joint_def fxs_default_fixed_joint_def(void)
{
	fxs_joint_def d = base_def(FXS_JOINT_FIXED);
	d.damping_ratio = FXG_I(5);
	return d;
}

fxs_joint_def fxs_default_prismatic_joint_def(void)
{
	fxs_joint_def d = base_def(FXS_JOINT_PRISMATIC);
	d.local_axis_a = fxg_v3(FXG_ONE, 0, 0);
	d.damping_ratio = FXG_I(5);
	return d;
}

/* ---- slots and ids ---- */

static fxs_joint *get_joint(const fxs_world *w, fxs_joint_id id)
{
	if (!w || id.index1 == 0 || id.index1 > w->joint_slot_count)
		return NULL;
	fxs_joint *j = &w->joints[id.index1 - 1];
	if (!j->alive || j->generation != id.generation)
		return NULL;
	return j;
}

static bool reserve_joints(fxs_world *w, uint32_t n)
{
	if (n <= w->joint_cap)
		return true;
	uint32_t cap = w->joint_cap ? w->joint_cap : 16;
	while (cap < n)
		cap = cap > UINT32_MAX / 2 ? n : cap * 2;
	fxs_joint *nj = realloc(w->joints, (size_t)cap * sizeof *nj);
	if (!nj)
		return false;
	memset(nj + w->joint_cap, 0, (size_t)(cap - w->joint_cap) * sizeof *nj);
	w->joints = nj;
	w->joint_cap = cap;
	return true;
}

static void wake(fxs_body *b)
{
	if (b->alive && b->type != FXS_BODY_STATIC) {
		b->awake = 1;
		b->sleep_time = 0;
	}
}

static bool in_range(fix16_t v, fix16_t lo, fix16_t hi) { return v >= lo && v <= hi; }
static bool vec_in_range(fxg_vec3 v, fix16_t m) { return in_range(v.x, -m, m) && in_range(v.y, -m, m) && in_range(v.z, -m, m); }

#define PI_RAW 205887 /* pi in Q16.16, rounded up */
#define ANCHOR_MAX FXG_I(1000)
#define SPEED_MAX FXG_I(1000)

/* The checks shared by fxs_joint_create and the snapshot reader (numbers
 * only; bodies are checked by the callers). */
static bool numbers_valid(const fxs_joint *j)
{
	if (j->type >= FXS_JOINT_TYPE_COUNT || j->collide_connected > 1 || j->enable_limit > 1 || j->enable_motor > 1 ||
	    j->enable_spring > 1)
		return false;
	if (!vec_in_range(j->local_anchor_a, ANCHOR_MAX) || !vec_in_range(j->local_anchor_b, ANCHOR_MAX))
		return false;
	if (!in_range(j->hertz, 1, FXG_I(1000)) || !in_range(j->damping_ratio, 0, FXG_I(1000)))
		return false;
	if (j->lower > j->upper)
		return false;
	switch (j->type) {
	case FXS_JOINT_HINGE:
		if (!in_range(j->lower, -PI_RAW, PI_RAW) || !in_range(j->upper, -PI_RAW, PI_RAW))
			return false;
		break;
	case FXS_JOINT_PRISMATIC:
		if (!in_range(j->lower, -ANCHOR_MAX, ANCHOR_MAX) || !in_range(j->upper, -ANCHOR_MAX, ANCHOR_MAX))
			return false;
		break;
	case FXS_JOINT_DISTANCE:
		if (!in_range(j->lower, 0, ANCHOR_MAX) || !in_range(j->upper, 0, ANCHOR_MAX) || !in_range(j->length, 0, ANCHOR_MAX))
			return false;
		if (!in_range(j->spring_hertz, 0, FXG_I(1000)) || !in_range(j->spring_damping_ratio, 0, FXG_I(1000)))
			return false;
		break;
	default:
		break;
	}
	if (!in_range(j->motor_speed, -SPEED_MAX, SPEED_MAX) || j->max_motor_force < 0)
		return false;
	return true;
}

/* keep only the fields the type uses (the state is canonical) */
static void canonicalize(fxs_joint *j)
{
	bool axis = j->type == FXS_JOINT_HINGE || j->type == FXS_JOINT_PRISMATIC;
	bool ref = axis || j->type == FXS_JOINT_FIXED;
	bool limit = axis || j->type == FXS_JOINT_DISTANCE;
	if (!axis) {
		j->local_axis_a = j->local_axis_b = fxg_v3_zero();
		j->enable_motor = 0;
		j->motor_speed = j->max_motor_force = 0;
	}
	if (j->type == FXS_JOINT_PRISMATIC)
		j->local_axis_b = fxg_v3_zero();
	if (!ref)
		j->ref_rotation = fxg_q(0, 0, 0, 0);
	if (!limit) {
		j->enable_limit = 0;
		j->lower = j->upper = 0;
	}
	if (j->type != FXS_JOINT_DISTANCE) {
		j->enable_spring = 0;
		j->length = j->spring_hertz = j->spring_damping_ratio = 0;
	}
}

static void world_point(const fxs_body *b, fxg_vec3 local, fxg_vec3 *r, fxg_vec3 *p, uint32_t *ovf)
{
	*r = fxg_q_rotate(b->xf.q, local, ovf);
	*p = fxg_v3_add(b->xf.p, *r, ovf);
}

fxs_joint_id fxs_joint_create(fxs_world *w, const fxs_joint_def *def)
{
	if (!w || !def || def->type < 0 || def->type >= FXS_JOINT_TYPE_COUNT)
		return fxs_null_joint;
	fxs_body *ba = fxs_world_get_body(w, def->body_a), *bb = fxs_world_get_body(w, def->body_b);
	if (!ba || !bb || ba == bb)
		return fxs_null_joint;
	if (w->joint_count >= 4 * w->def.max_bodies)
		return fxs_null_joint;
	fxs_joint j;
	memset(&j, 0, sizeof j);
	j.alive = 1;
	j.type = (uint8_t)def->type;
	j.collide_connected = def->collide_connected ? 1 : 0;
	j.enable_limit = def->enable_limit ? 1 : 0;
	j.enable_motor = def->enable_motor ? 1 : 0;
	j.enable_spring = def->enable_spring ? 1 : 0;
	j.a = def->body_a.index1 - 1;
	j.b = def->body_b.index1 - 1;
	j.local_anchor_a = def->local_anchor_a;
	j.local_anchor_b = def->local_anchor_b;
	j.hertz = def->hertz;
	j.damping_ratio = def->damping_ratio;
	j.lower = def->lower;
	j.upper = def->upper;
	j.motor_speed = def->motor_speed;
	j.max_motor_force = def->max_motor_force;
	j.spring_hertz = def->spring_hertz;
	j.spring_damping_ratio = def->spring_damping_ratio;
	uint32_t ovf = 0;
	if (j.type == FXS_JOINT_DISTANCE) {
		j.length = def->length;
		if (j.length < 0 && vec_in_range(j.local_anchor_a, ANCHOR_MAX) && vec_in_range(j.local_anchor_b, ANCHOR_MAX)) {
			fxg_vec3 r, pa, pb;
			world_point(ba, j.local_anchor_a, &r, &pa, &ovf);
			world_point(bb, j.local_anchor_b, &r, &pb, &ovf);
			j.length = fxg_v3_len(fxg_v3_sub(pb, pa, &ovf), &ovf);
		}
		if (!j.enable_limit)
			j.lower = j.upper = 0;
	}
	if (j.type == FXS_JOINT_HINGE || j.type == FXS_JOINT_PRISMATIC) {
		if (!vec_in_range(def->local_axis_a, FXG_I(1000)))
			return fxs_null_joint;
		j.local_axis_a = fxg_v3_normalize(def->local_axis_a, NULL, &ovf);
		if (fxg_v3_eq(j.local_axis_a, fxg_v3_zero()))
			return fxs_null_joint;
	}
	j.ref_rotation = fxg_q_normalize(fxg_q_mul(fxg_q_conj(ba->xf.q), bb->xf.q, &ovf), &ovf);
	j.local_axis_b = fxg_q_inv_rotate(j.ref_rotation, j.local_axis_a, &ovf);
	if (!j.enable_limit && j.type != FXS_JOINT_DISTANCE)
		j.lower = j.upper = 0;
	if (!j.enable_motor)
		j.motor_speed = j.max_motor_force = 0;
	if (!j.enable_spring)
		j.spring_hertz = j.spring_damping_ratio = 0;
	canonicalize(&j);
	if (!numbers_valid(&j) || ovf)
		return fxs_null_joint;
	/* the lowest free slot */
	uint32_t s = w->joint_free_hint;
	while (s < w->joint_slot_count && w->joints[s].alive)
		++s;
	if (s == w->joint_slot_count) {
		if (!reserve_joints(w, s + 1))
			return fxs_null_joint;
		w->joint_slot_count = s + 1;
	}
	w->joint_free_hint = s + 1;
	j.generation = w->joints[s].generation;
	w->joints[s] = j;
	w->joint_count++;
	w->joint_filter_valid = false;
	wake(ba);
	wake(bb);
	fxs_world_touch(w);
	fxs_joint_id id = { s + 1, j.generation };
	return id;
}

static void destroy_slot(fxs_world *w, uint32_t s)
{
	fxs_joint *j = &w->joints[s];
	wake(&w->bodies[j->a]);
	wake(&w->bodies[j->b]);
	uint32_t gen = j->generation + 1;
	memset(j, 0, sizeof *j);
	j->generation = gen;
	if (s < w->joint_free_hint)
		w->joint_free_hint = s;
	w->joint_count--;
	w->joint_filter_valid = false;
	fxs_world_touch(w);
}

bool fxs_joint_destroy(fxs_world *w, fxs_joint_id id)
{
	if (!get_joint(w, id))
		return false;
	destroy_slot(w, id.index1 - 1);
	return true;
}

void fxs_joints_remove_body(fxs_world *w, uint32_t s)
{
	for (uint32_t i = 0; i < w->joint_slot_count; ++i)
		if (w->joints[i].alive && (w->joints[i].a == s || w->joints[i].b == s))
			destroy_slot(w, i);
}

bool fxs_joint_is_valid(const fxs_world *w, fxs_joint_id id) { return get_joint(w, id) != NULL; }
uint32_t fxs_world_joint_count(const fxs_world *w) { return w->joint_count; }
uint32_t fxs_world_joint_slot_count(const fxs_world *w) { return w->joint_slot_count; }

fxs_joint_id fxs_world_joint_at(const fxs_world *w, uint32_t slot)
{
	if (slot >= w->joint_slot_count || !w->joints[slot].alive)
		return fxs_null_joint;
	fxs_joint_id id = { slot + 1, w->joints[slot].generation };
	return id;
}

fxs_joint_type fxs_joint_get_type(const fxs_world *w, fxs_joint_id id)
{
	const fxs_joint *j = get_joint(w, id);
	return j ? (fxs_joint_type)j->type : FXS_JOINT_BALL;
}

fxs_body_id fxs_joint_get_body_a(const fxs_world *w, fxs_joint_id id)
{
	const fxs_joint *j = get_joint(w, id);
	return j ? fxs_world_body_at(w, j->a) : fxs_null_body;
}

fxs_body_id fxs_joint_get_body_b(const fxs_world *w, fxs_joint_id id)
{
	const fxs_joint *j = get_joint(w, id);
	return j ? fxs_world_body_at(w, j->b) : fxs_null_body;
}

fxg_vec3 fxs_joint_get_anchor_a(const fxs_world *w, fxs_joint_id id)
{
	const fxs_joint *j = get_joint(w, id);
	if (!j)
		return fxg_v3_zero();
	uint32_t ovf = 0;
	fxg_vec3 r, p;
	world_point(&w->bodies[j->a], j->local_anchor_a, &r, &p, &ovf);
	return p;
}

fxg_vec3 fxs_joint_get_anchor_b(const fxs_world *w, fxs_joint_id id)
{
	const fxs_joint *j = get_joint(w, id);
	if (!j)
		return fxg_v3_zero();
	uint32_t ovf = 0;
	fxg_vec3 r, p;
	world_point(&w->bodies[j->b], j->local_anchor_b, &r, &p, &ovf);
	return p;
}

void fxs_joint_set_motor(fxs_world *w, fxs_joint_id id, bool enable, fix16_t speed, fix16_t max_force)
{
	fxs_joint *j = get_joint(w, id);
	if (!j || (j->type != FXS_JOINT_HINGE && j->type != FXS_JOINT_PRISMATIC))
		return;
	if (speed < -SPEED_MAX || speed > SPEED_MAX || max_force < 0)
		return;
	j->enable_motor = enable ? 1 : 0;
	j->motor_speed = enable ? speed : 0;
	j->max_motor_force = enable ? max_force : 0;
	wake(&w->bodies[j->a]);
	wake(&w->bodies[j->b]);
	fxs_world_touch(w);
}

/* ---- geometry of a joint in the current poses ---- */

/* The world-frame rotation from where b should be to where it is:
 * qb conj(qa ref), with w >= 0. Identity when a fixed joint holds; a
 * rotation about the hinge axis by the hinge angle when a hinge holds. */
static fxg_quat rotation_error(const fxs_body *A, const fxs_body *B, fxg_quat ref, uint32_t *ovf)
{
	fxg_quat target = fxg_q_mul(A->xf.q, ref, ovf);
	fxg_quat e = fxg_q_mul(B->xf.q, fxg_q_conj(target), ovf);
	if (e.w < 0)
		e = fxg_q(-e.x, -e.y, -e.z, -e.w);
	return e;
}

/* 2 atan2(s, c) in rad, (-pi, pi], for c >= 0 */
static fix16_t half_angle_to_rad(fix16_t s, fix16_t c)
{
	fxg_angle h = fxg_atan2(s, c); /* in [-quarter, quarter] as a signed turn */
	return fxg_angle_to_rad((fxg_angle)(h * 2u));
}

/* 2 q.xyz: the small-angle rotation vector of q */
static fxg_vec3 rotation_vector(fxg_quat q, uint32_t *ovf)
{
	return fxg_v3(fxg_sat(2 * (int64_t)q.x, ovf), fxg_sat(2 * (int64_t)q.y, ovf), fxg_sat(2 * (int64_t)q.z, ovf));
}

fix16_t fxs_joint_get_position(const fxs_world *w, fxs_joint_id id)
{
	const fxs_joint *j = get_joint(w, id);
	if (!j)
		return 0;
	const fxs_body *A = &w->bodies[j->a], *B = &w->bodies[j->b];
	uint32_t ovf = 0;
	fxg_vec3 ra, rb, pa, pb;
	world_point(A, j->local_anchor_a, &ra, &pa, &ovf);
	world_point(B, j->local_anchor_b, &rb, &pb, &ovf);
	fxg_vec3 d = fxg_v3_sub(pb, pa, &ovf);
	switch (j->type) {
	case FXS_JOINT_HINGE: {
		fxg_quat e = rotation_error(A, B, j->ref_rotation, &ovf);
		fxg_vec3 axis = fxg_q_rotate(A->xf.q, j->local_axis_a, &ovf);
		return half_angle_to_rad(fxg_v3_dot(axis, fxg_v3(e.x, e.y, e.z), &ovf), e.w);
	}
	case FXS_JOINT_PRISMATIC:
		return fxg_v3_dot(fxg_q_rotate(A->xf.q, j->local_axis_a, &ovf), d, &ovf);
	case FXS_JOINT_DISTANCE:
		return fxg_v3_len(d, &ovf);
	}
	return 0;
}

/* ---- the contact filter ---- */

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : (a > b ? 1 : 0);
}

const uint64_t *fxs_joints_filter(fxs_world *w, uint32_t *count)
{
	if (!w->joint_filter_valid) {
		uint32_t n = 0;
		for (uint32_t i = 0; i < w->joint_slot_count; ++i)
			n += w->joints[i].alive && !w->joints[i].collide_connected;
		if (n > w->joint_filter_cap) {
			uint64_t *f = realloc(w->joint_filter, (size_t)n * sizeof *f);
			if (!f) {
				fxs_world_nomem(w);
				*count = 0;
				return NULL;
			}
			w->joint_filter = f;
			w->joint_filter_cap = n;
		}
		n = 0;
		for (uint32_t i = 0; i < w->joint_slot_count; ++i) {
			const fxs_joint *j = &w->joints[i];
			if (!j->alive || j->collide_connected)
				continue;
			uint32_t lo = j->a < j->b ? j->a : j->b, hi = j->a < j->b ? j->b : j->a;
			w->joint_filter[n++] = ((uint64_t)lo << 32) | hi;
		}
		/* fully keyed: equal keys are equal values, so the order is canonical */
		if (n > 1)
			qsort(w->joint_filter, n, sizeof *w->joint_filter, cmp_u64);
		w->joint_filter_count = n;
		w->joint_filter_valid = true;
	}
	*count = w->joint_filter_count;
	return w->joint_filter;
}

/* ---- solver ---- */

/* the solver joints, then the plan's lists (fxs_joints_plan): the wide
 * joints' indices and a handled flag per joint */
size_t fxs_joints_scratch_size(const fxs_world *w)
{
	return (size_t)w->joint_count * (sizeof(solver_joint) + sizeof(uint32_t) + 1);
}


static inline fix16_t rel_ang(const solver_body *A, const solver_body *B, const solver_row *r, uint32_t *ovf)
{
	int64_t s = dot_raw(B->w, r->rxb) - dot_raw(A->w, r->rxa);
	return fxg_sat(fxg_shr_round(s, 16), ovf);
}

/* an angular row about unit t: rxa = rxb = t */
static void prepare_angular_row(const solver_body *A, const solver_body *B, fxg_vec3 t, fix16_t mass_scale,
				solver_row *r, uint32_t *ovf)
{
	r->rxa = r->rxb = t;
	wvec3 ia = sym_mul(&A->inv_i, t, ovf), ib = sym_mul(&B->inv_i, t, ovf);
	r->ia[0] = ia.x, r->ia[1] = ia.y, r->ia[2] = ia.z;
	r->ib[0] = ib.x, r->ib[1] = ib.y, r->ib[2] = ib.z;
	fxg_wide k = fxg_add64(wdot(ia, t, ovf), wdot(ib, t, ovf), ovf);
	r->mass = k > 0 ? fxg_wide_recip(k, ovf) : 0;
	r->soft_mass = fxg_wmul(r->mass, mass_scale, ovf);
}

static inline void apply_angular(solver_body *A, solver_body *B, const solver_row *r, int64_t P, uint32_t *ovf)
{
	if (P == 0)
		return;
	fix16_t p = fxg_sat(P, ovf);
	fix16_t np = p == INT32_MIN ? INT32_MAX : -p;
	add_response(&A->w, r->ia, np, ovf);
	add_response(&B->w, r->ib, p, ovf);
}

/* a row is linear (direction d, lever arms in the row) or angular (d == NULL) */
static inline fix16_t row_speed(const solver_body *A, const solver_body *B, const fxg_vec3 *d, const solver_row *r,
				uint32_t *ovf)
{
	return d ? rel_vel(A, B, *d, r, ovf) : rel_ang(A, B, r, ovf);
}

static inline void row_apply(solver_body *A, solver_body *B, const fxg_vec3 *d, const solver_row *r, int64_t P,
			     uint32_t *ovf)
{
	if (d)
		apply(A, B, *d, r, P, ovf);
	else
		apply_angular(A, B, r, P, ovf);
}

/* An equality row: soft (spring-damper toward C = 0) with bias, rigid without. */
static inline void solve_equal(solver_body *A, solver_body *B, const fxg_vec3 *d, const solver_row *r, int64_t *acc,
			       fix16_t C, const soft *s, fxg_wide soft_mass, bool use_bias, uint32_t *ovf)
{
	fix16_t cdot = row_speed(A, B, d, r, ovf);
	int64_t bias = 0;
	fxg_wide mass = r->mass;
	fix16_t impulse_scale = 0;
	if (use_bias) {
		bias = fxg_mul(s->bias_rate, C, ovf);
		mass = soft_mass;
		impulse_scale = s->impulse_scale;
	}
	int64_t imp = -fxg_wmul_fix64(mass, fxg_sat((int64_t)cdot + bias, ovf));
	if (impulse_scale)
		imp -= fxg_wmul(*acc, impulse_scale, ovf);
	*acc = fxg_add64(*acc, imp, ovf);
	row_apply(A, B, d, r, imp, ovf);
}

/* A one-sided row keeping C >= 0 (sign -1: the row's direction reversed):
 * speculative while C > 0, soft below with bias, rigid without. */
static inline void solve_limit(solver_body *A, solver_body *B, const fxg_vec3 *d, const solver_row *r, int sign,
			       int64_t *acc, fix16_t C, const soft *s, bool use_bias, fix16_t inv_h, uint32_t *ovf)
{
	int64_t cdot = row_speed(A, B, d, r, ovf);
	if (sign < 0)
		cdot = -cdot;
	int64_t bias = 0;
	fxg_wide mass = r->mass;
	fix16_t impulse_scale = 0;
	if (C > 0) {
		bias = ((int64_t)C * inv_h) >> 16;
	} else if (use_bias) {
		bias = fxg_mul(s->bias_rate, C, ovf);
		mass = r->soft_mass;
		impulse_scale = s->impulse_scale;
	}
	int64_t imp = -fxg_wmul_fix64(mass, fxg_sat(cdot + bias, ovf));
	if (impulse_scale)
		imp -= fxg_wmul(*acc, impulse_scale, ovf);
	int64_t nw = fxg_add64(*acc, imp, ovf);
	if (nw < 0)
		nw = 0;
	int64_t delta = nw - *acc;
	*acc = nw;
	row_apply(A, B, d, r, sign < 0 ? -delta : delta, ovf);
}

/* A motor: drive the row's speed to `speed` with |accumulated| <= max. */
static inline void solve_motor(solver_body *A, solver_body *B, const fxg_vec3 *d, const solver_row *r, int64_t *acc,
			       fix16_t speed, int64_t max, uint32_t *ovf)
{
	int64_t cdot = row_speed(A, B, d, r, ovf);
	int64_t imp = -fxg_wmul_fix64(r->mass, fxg_sat(cdot - speed, ovf));
	int64_t nw = fxg_add64(*acc, imp, ovf);
	nw = nw < -max ? -max : (nw > max ? max : nw);
	int64_t delta = nw - *acc;
	*acc = nw;
	row_apply(A, B, d, r, delta, ovf);
}

/* The ball part, solved as one 3x3 block (exact for the three coupled rows,
 * where Gauss-Seidel over them would lag): impulse = -K^-1 (Cdot + bias),
 * soft with bias, rigid without. Rows 0..2 are along world x, y, z. */
static void solve_point(solver_joint *sj, solver_body *A, solver_body *B, int64_t *P, fxg_vec3 C, bool use_bias,
			uint32_t *ovf)
{
	int64_t v[3];
	for (int k = 0; k < 3; ++k)
		v[k] = rel_vel(A, B, unit_axes[k], &sj->row[k], ovf);
	if (use_bias) {
		v[0] += fxg_mul(sj->s.bias_rate, C.x, ovf);
		v[1] += fxg_mul(sj->s.bias_rate, C.y, ovf);
		v[2] += fxg_mul(sj->s.bias_rate, C.z, ovf);
	}
	wvec3 x = sym_mul(&sj->point_inv_k, fxg_v3(fxg_sat(v[0], ovf), fxg_sat(v[1], ovf), fxg_sat(v[2], ovf)), ovf);
	int64_t imp[3] = { -fxg_shr_round(x.x, 16), -fxg_shr_round(x.y, 16), -fxg_shr_round(x.z, 16) };
	for (int k = 0; k < 3; ++k) {
		if (use_bias) {
			imp[k] = fxg_wmul(imp[k], sj->s.mass_scale, ovf);
			imp[k] -= fxg_wmul(P[k], sj->s.impulse_scale, ovf);
		}
		P[k] = fxg_add64(P[k], imp[k], ovf);
	}
	for (int k = 0; k < 3; ++k)
		apply(A, B, unit_axes[k], &sj->row[k], imp[k], ovf);
}

/* The ball part's rows along world x, y, z: ra x e_k is exact (a
 * permutation of ra's components), and the rows need no scalar effective
 * mass (the block's K^-1 replaces it). */
static void prepare_point_rows(solver_joint *sj, const solver_body *A, const solver_body *B, uint32_t *ovf)
{
	fxg_vec3 ra = sj->ra, rb = sj->rb;
	sj->row[0].rxa = fxg_v3(0, ra.z, -ra.y), sj->row[0].rxb = fxg_v3(0, rb.z, -rb.y);
	sj->row[1].rxa = fxg_v3(-ra.z, 0, ra.x), sj->row[1].rxb = fxg_v3(-rb.z, 0, rb.x);
	sj->row[2].rxa = fxg_v3(ra.y, -ra.x, 0), sj->row[2].rxb = fxg_v3(rb.y, -rb.x, 0);
	const wvec3 zero = { 0, 0, 0 };
	for (int k = 0; k < 3; ++k) {
		solver_row *r = &sj->row[k];
		/* a static, kinematic or sleeping body's inverse inertia is zero */
		wvec3 ia = A->dynamic ? sym_mul(&A->inv_i, r->rxa, ovf) : zero;
		wvec3 ib = B->dynamic ? sym_mul(&B->inv_i, r->rxb, ovf) : zero;
		r->ia[0] = ia.x, r->ia[1] = ia.y, r->ia[2] = ia.z;
		r->ib[0] = ib.x, r->ib[1] = ib.y, r->ib[2] = ib.z;
	}
}

/* K = sum over both bodies of m^-1 I + [r]x^T I^-1 [r]x, column k from row
 * k's angular response: K e_k = (ma^-1 + mb^-1) e_k + ia_k x ra + ib_k x rb. */
static void prepare_point_block(solver_joint *sj, const solver_body *A, const solver_body *B, uint32_t *ovf)
{
	fxg_wide col[3][3];
	for (int k = 0; k < 3; ++k) {
		const solver_row *r = &sj->row[k];
		fxg_vec3 ra = sj->ra, rb = sj->rb;
		/* (i x r) with i wide: components as Q32.32 */
		col[k][0] = fxg_add64(fxg_wmul(r->ia[1], ra.z, ovf) - fxg_wmul(r->ia[2], ra.y, ovf),
				      fxg_wmul(r->ib[1], rb.z, ovf) - fxg_wmul(r->ib[2], rb.y, ovf), ovf);
		col[k][1] = fxg_add64(fxg_wmul(r->ia[2], ra.x, ovf) - fxg_wmul(r->ia[0], ra.z, ovf),
				      fxg_wmul(r->ib[2], rb.x, ovf) - fxg_wmul(r->ib[0], rb.z, ovf), ovf);
		col[k][2] = fxg_add64(fxg_wmul(r->ia[0], ra.y, ovf) - fxg_wmul(r->ia[1], ra.x, ovf),
				      fxg_wmul(r->ib[0], rb.y, ovf) - fxg_wmul(r->ib[1], rb.x, ovf), ovf);
		col[k][k] = fxg_add64(col[k][k], fxg_add64(A->inv_mass, B->inv_mass, ovf), ovf);
	}
	fxg_sym3w K;
	/* symmetric in exact arithmetic; average the two roundings of each
	 * off-diagonal pair so the matrix is exactly symmetric */
	K.xx = col[0][0], K.yy = col[1][1], K.zz = col[2][2];
	K.xy = (col[0][1] >> 1) + (col[1][0] >> 1);
	K.xz = (col[0][2] >> 1) + (col[2][0] >> 1);
	K.yz = (col[1][2] >> 1) + (col[2][1] >> 1);
	if (!fxg_s3w_inverse(&K, &sj->point_inv_k, ovf))
		memset(&sj->point_inv_k, 0, sizeof sj->point_inv_k);
}

/* b's anchor minus a's, from the bodies' current poses (the solver moves
 * them every sub-step) */
static inline fxg_vec3 separation(const fxs_joint *j, const fxs_body *ba, const fxs_body *bb, uint32_t *ovf)
{
	fxg_vec3 ra, rb, pa, pb;
	world_point(ba, j->local_anchor_a, &ra, &pa, ovf);
	world_point(bb, j->local_anchor_b, &rb, &pb, ovf);
	return fxg_v3_sub(pb, pa, ovf);
}

/* The rows from the bodies' current poses: every sub-step, so that lever
 * arms and axes follow bodies that turn fast (frozen ones pump energy into
 * spinning links). Inverse inertias stay frozen for the step. */
static void setup_rows(solver_ctx *c, solver_joint *sj)
{
	fxs_world *w = c->w;
	uint32_t *ovf = c->ovf;
	const fxs_joint *j = &w->joints[sj->index];
	const solver_body *A = &c->bodies[sj->a], *B = &c->bodies[sj->b];
	const fxs_body *ba = &w->bodies[sj->a], *bb = &w->bodies[sj->b];
	fxg_vec3 pa, pb;
	memset(sj->row, 0, sizeof sj->row); /* what a joint type leaves unset stays zero */
	world_point(ba, j->local_anchor_a, &sj->ra, &pa, ovf);
	world_point(bb, j->local_anchor_b, &sj->rb, &pb, ovf);
	sj->c0 = fxg_v3_sub(pb, pa, ovf);
	fix16_t ms = sj->s.mass_scale;
	switch (j->type) {
	case FXS_JOINT_BALL:
		prepare_point_rows(sj, A, B, ovf);
		prepare_point_block(sj, A, B, ovf);
		break;
	case FXS_JOINT_FIXED: {
		prepare_point_rows(sj, A, B, ovf);
		prepare_point_block(sj, A, B, ovf);
		for (int k = 0; k < 3; ++k)
			prepare_angular_row(A, B, unit_axes[k], ms, &sj->row[3 + k], ovf);
		sj->ang0 = rotation_vector(rotation_error(ba, bb, j->ref_rotation, ovf), ovf);
		break;
	}
	case FXS_JOINT_HINGE: {
		prepare_point_rows(sj, A, B, ovf);
		prepare_point_block(sj, A, B, ovf);
		fxg_vec3 axa = fxg_q_rotate(ba->xf.q, j->local_axis_a, ovf);
		fxg_vec3 axb = fxg_q_rotate(bb->xf.q, j->local_axis_b, ovf);
		sj->axis = axa;
		tangents(axa, sj->t, ovf);
		/* a x b = the rotation that would bring a onto b, for small errors */
		fxg_vec3 e = fxg_v3_cross(axa, axb, ovf);
		sj->ang0 = fxg_v3(fxg_v3_dot(sj->t[0], e, ovf), fxg_v3_dot(sj->t[1], e, ovf), 0);
		prepare_angular_row(A, B, sj->t[0], ms, &sj->row[3], ovf);
		prepare_angular_row(A, B, sj->t[1], ms, &sj->row[4], ovf);
		prepare_angular_row(A, B, axa, FXG_ONE, &sj->row[5], ovf);
		if (j->enable_limit) {
			fxg_quat q = rotation_error(ba, bb, j->ref_rotation, ovf);
			sj->pos0 = half_angle_to_rad(fxg_v3_dot(axa, fxg_v3(q.x, q.y, q.z), ovf), q.w);
			sj->row[5].soft_mass = fxg_wmul(sj->row[5].mass, ms, ovf);
		}
		break;
	}
	case FXS_JOINT_PRISMATIC: {
		fxg_vec3 axa = fxg_q_rotate(ba->xf.q, j->local_axis_a, ovf);
		sj->axis = axa;
		tangents(axa, sj->t, ovf);
		/* the axis turns with a: a's lever arm reaches b's anchor */
		sj->ra = fxg_v3_add(sj->ra, sj->c0, ovf);
		sj->c0 = fxg_v3_zero(); /* rows measure from a's (moved) lever arm, now at b's anchor */
		prepare_row(A, B, sj->ra, sj->rb, sj->t[0], ms, &sj->row[0], ovf);
		prepare_row(A, B, sj->ra, sj->rb, sj->t[1], ms, &sj->row[1], ovf);
		for (int k = 0; k < 3; ++k)
			prepare_angular_row(A, B, unit_axes[k], ms, &sj->row[2 + k], ovf);
		sj->ang0 = rotation_vector(rotation_error(ba, bb, j->ref_rotation, ovf), ovf);
		prepare_row(A, B, sj->ra, sj->rb, axa, ms, &sj->row[5], ovf);
		/* perpendicular errors and the translation, when the step began */
		fxg_vec3 d = fxg_v3_sub(pb, pa, ovf);
		sj->c0 = fxg_v3(fxg_v3_dot(sj->t[0], d, ovf), fxg_v3_dot(sj->t[1], d, ovf), fxg_v3_dot(axa, d, ovf));
		sj->pos0 = sj->c0.z;
		break;
	}
	case FXS_JOINT_DISTANCE: {
		fix16_t len;
		sj->axis = fxg_v3_normalize(sj->c0, &len, ovf);
		sj->pos0 = len;
		prepare_row(A, B, sj->ra, sj->rb, sj->axis, ms, &sj->row[0], ovf);
		if (j->enable_spring)
			sj->spring_mass = fxg_wmul(sj->row[0].mass, sj->spring.mass_scale, ovf);
		break;
	}
	}
}

void fxs_joints_prepare(solver_ctx *c)
{
	fxs_world *w = c->w;
	uint32_t *ovf = c->ovf;
	uint32_t n = 0;
	fix16_t hmax = c->inv_h >> 2; /* stiffness no higher than a quarter of the sub-step rate (120 Hz at 4 sub-steps jitters) */
	/* the joints to solve, in slot order, put in stages (stage.h); joints
	 * persist, so first fit in slot order every step gives the same stages
	 * while the joints and the awake set stay the same: nothing to store */
	for (uint32_t i = 0; i < w->joint_slot_count; ++i) {
		const fxs_joint *j = &w->joints[i];
		if (!j->alive)
			continue;
		const solver_body *A = &c->bodies[j->a], *B = &c->bodies[j->b];
		if (!A->dynamic && !B->dynamic)
			continue; /* asleep, or nothing here can move: impulses kept */
		fxs_stage_item *it = &c->stage_items[n];
		it->a = A->dynamic ? j->a : FXS_STAGE_FREE;
		it->b = B->dynamic ? j->b : FXS_STAGE_FREE;
		it->stage = FXS_STAGE_NONE;
		c->stage_index[n++] = i;
	}
	fxs_stages_assign(c->stage_items, n, c->body_count, c->stage_mask, c->stage_order);
	for (uint32_t s = 0; s <= FXS_STAGE_OVERFLOW; ++s)
		c->joint_stage_end[s] = 0;
	soft last_soft = { 0, 0, 0 };
	fix16_t last_hz = 0, last_zeta = 0;
	for (uint32_t k = 0; k < n; ++k) {
		uint32_t i = c->stage_index[c->stage_order[k]];
		fxs_joint *j = &w->joints[i];
		solver_joint *sj = &c->joints[k];
		memset(sj, 0, offsetof(solver_joint, row)); /* the wide rows: setup_rows, for the joints that use them */
		sj->stage = c->stage_items[c->stage_order[k]].stage;
		c->joint_stage_end[sj->stage] = k + 1;
		sj->index = i;
		sj->a = j->a;
		sj->b = j->b;
		sj->type = j->type;
		sj->rows = (uint8_t)fxs_joint_row_count(j->type);
		/* joints mostly share their stiffness: the last one's softness is
		 * reused when the parameters repeat (make_soft divides twice) */
		fix16_t hz = fxg_min(j->hertz, hmax);
		if (k == 0 || hz != last_hz || j->damping_ratio != last_zeta)
			last_soft = make_soft(hz, j->damping_ratio, c->h, ovf), last_hz = hz, last_zeta = j->damping_ratio;
		sj->s = last_soft;
		if (j->type == FXS_JOINT_DISTANCE && j->enable_spring)
			sj->spring = make_soft(j->spring_hertz, j->spring_damping_ratio, c->h, ovf);
		sj->max_motor_impulse = fxg_shr_round((int64_t)j->max_motor_force * c->h, 16);
		/* switched-off parts start from zero */
		if (j->type == FXS_JOINT_HINGE || j->type == FXS_JOINT_PRISMATIC) {
			if (!j->enable_motor)
				j->impulse[5] = 0;
			if (!j->enable_limit)
				j->impulse[6] = j->impulse[7] = 0;
		}
		if (j->type == FXS_JOINT_DISTANCE) {
			if (!j->enable_limit)
				j->impulse[1] = j->impulse[2] = 0;
			if (j->enable_spring && j->spring_hertz == 0)
				j->impulse[0] = 0;
		}
	}
	c->joint_count = n;
	/* stages without joints end where the one before ends */
	for (uint32_t s = 1; s <= FXS_STAGE_OVERFLOW; ++s)
		if (c->joint_stage_end[s] < c->joint_stage_end[s - 1])
			c->joint_stage_end[s] = c->joint_stage_end[s - 1];
}

bool fxs_joints_plan(solver_ctx *c)
{
	c->joint_handled = NULL;
	c->wide_joints = NULL;
	c->direct_ball_islands = 0;
	c->ball_batch_count = 0;
	for (uint32_t st = 0; st <= FXS_STAGE_OVERFLOW; ++st)
		c->wide_stage_end[st] = c->ball_stage_end[st] = 0;
	if (c->joint_count == 0)
		return true;
	/* after the solver joints in their scratch (fxs_joints_scratch_size) */
	c->wide_joints = (uint32_t *)(void *)(c->joints + c->joint_count);
	c->joint_handled = (uint8_t *)(c->wide_joints + c->joint_count);
	c->direct_ball_islands = fxs_joints_direct_plan(c, c->joint_handled);
	uint32_t nw = 0, i = 0;
	for (uint32_t st = 0; st <= FXS_STAGE_OVERFLOW; ++st) {
		for (; i < c->joint_stage_end[st]; ++i) {
			solver_joint *sj = &c->joints[i];
			/* the overflow stage's joints may share bodies: one by one, wide */
			sj->hot = sj->type == FXS_JOINT_BALL && !c->joint_handled[i] &&
				!(c->joint_direct && c->joint_direct[i]) && sj->stage < FXS_STAGE_OVERFLOW;
			if (!sj->hot)
				c->wide_joints[nw++] = i;
		}
		c->wide_stage_end[st] = nw;
	}
	return fxs_ball_batches_build(c);
}

void fxs_joints_store(solver_ctx *c) { fxs_ball_store(c); }

void fxs_joints_warm_start(solver_ctx *c)
{
	uint32_t local = 0, *ovf = &local; /* see solver.c's warm_start */
	/* stage by stage: the joints of a stage are independent, so the batched
	 * ball joints may go after the others of their stage */
	uint32_t wi = 0, bi = 0;
	for (uint32_t st = 0; st <= FXS_STAGE_OVERFLOW; ++st) {
		for (; wi < c->wide_stage_end[st]; ++wi) {
			solver_joint *sj = &c->joints[c->wide_joints[wi]];
			solver_body *A = &c->bodies[sj->a], *B = &c->bodies[sj->b];
			setup_rows(c, sj);
			const int64_t *P = c->w->joints[sj->index].impulse;
			switch (sj->type) {
			case FXS_JOINT_BALL:
				for (int k = 0; k < 3; ++k)
					apply(A, B, unit_axes[k], &sj->row[k], P[k], ovf);
				break;
			case FXS_JOINT_FIXED:
				for (int k = 0; k < 3; ++k)
					apply(A, B, unit_axes[k], &sj->row[k], P[k], ovf);
				for (int k = 0; k < 3; ++k)
					apply_angular(A, B, &sj->row[3 + k], P[3 + k], ovf);
				break;
			case FXS_JOINT_HINGE:
				for (int k = 0; k < 3; ++k)
					apply(A, B, unit_axes[k], &sj->row[k], P[k], ovf);
				apply_angular(A, B, &sj->row[3], P[3], ovf);
				apply_angular(A, B, &sj->row[4], P[4], ovf);
				apply_angular(A, B, &sj->row[5], fxg_add64(P[5], fxg_add64(P[6], -P[7], ovf), ovf), ovf);
				break;
			case FXS_JOINT_PRISMATIC:
				apply(A, B, sj->t[0], &sj->row[0], P[0], ovf);
				apply(A, B, sj->t[1], &sj->row[1], P[1], ovf);
				for (int k = 0; k < 3; ++k)
					apply_angular(A, B, &sj->row[2 + k], P[2 + k], ovf);
				apply(A, B, sj->axis, &sj->row[5], fxg_add64(P[5], fxg_add64(P[6], -P[7], ovf), ovf), ovf);
				break;
			case FXS_JOINT_DISTANCE:
				apply(A, B, sj->axis, &sj->row[0], fxg_add64(P[0], fxg_add64(P[1], -P[2], ovf), ovf), ovf);
				break;
			}
		}
		local += fxs_ball_setup_warm(c, bi, c->ball_stage_end[st]);
		bi = c->ball_stage_end[st];
	}
	*c->ovf += local;
}

void fxs_joints_solve(solver_ctx *c, bool use_bias)
{
	uint32_t local = 0, *ovf = &local;
	fix16_t inv_h = c->inv_h;
	const fxs_body *bodies = c->w->bodies;
	/* small islands of ball joints exactly (solver_direct.c), the rest here */
	const uint8_t *handled = NULL;
	if (c->direct_ball_islands) {
		/* marks the islands the plan marked (the same test on the same joints) */
		fxs_joints_solve_direct(c, use_bias, c->joint_handled);
		handled = c->joint_handled;
	}
	uint32_t wi = 0, bi = 0;
	for (uint32_t st = 0; st <= FXS_STAGE_OVERFLOW; ++st) {
		for (; wi < c->wide_stage_end[st]; ++wi) {
			uint32_t i = c->wide_joints[wi];
			if ((handled && handled[i]) || (c->joint_direct && c->joint_direct[i]))
				continue; /* solved exactly: solver_direct.c */
			solver_joint *sj = &c->joints[i];
			fxs_joint *j = &c->w->joints[sj->index];
			solver_body *A = &c->bodies[sj->a], *B = &c->bodies[sj->b];
			const fxs_body *ba = &bodies[sj->a], *bb = &bodies[sj->b];
			int64_t *P = j->impulse;
			const soft *s = &sj->s;
			switch (sj->type) {
			case FXS_JOINT_HINGE: {
				if (j->enable_motor)
					solve_motor(A, B, NULL, &sj->row[5], &P[5], j->motor_speed, sj->max_motor_impulse, ovf);
				if (j->enable_limit) {
					/* the biased pass runs on the poses setup_rows saw; the relax
				 * pass after the positions moved */
					fix16_t angle = sj->pos0;
					if (!use_bias) {
						fxg_quat q = rotation_error(ba, bb, j->ref_rotation, ovf);
						fxg_vec3 axa = fxg_q_rotate(ba->xf.q, j->local_axis_a, ovf);
						angle = half_angle_to_rad(fxg_v3_dot(axa, fxg_v3(q.x, q.y, q.z), ovf), q.w);
					}
					solve_limit(A, B, NULL, &sj->row[5], 1, &P[6], fxg_sub(angle, j->lower, ovf), s, use_bias, inv_h, ovf);
					solve_limit(A, B, NULL, &sj->row[5], -1, &P[7], fxg_sub(j->upper, angle, ovf), s, use_bias, inv_h, ovf);
				}
				for (int k = 0; k < 2; ++k) {
					fix16_t C = use_bias ? (k ? sj->ang0.y : sj->ang0.x) : 0;
					solve_equal(A, B, NULL, &sj->row[3 + k], &P[3 + k], C, s, sj->row[3 + k].soft_mass, use_bias, ovf);
				}
				goto point;
			}
			case FXS_JOINT_FIXED: {
				fxg_vec3 C = sj->ang0;
				solve_equal(A, B, NULL, &sj->row[3], &P[3], C.x, s, sj->row[3].soft_mass, use_bias, ovf);
				solve_equal(A, B, NULL, &sj->row[4], &P[4], C.y, s, sj->row[4].soft_mass, use_bias, ovf);
				solve_equal(A, B, NULL, &sj->row[5], &P[5], C.z, s, sj->row[5].soft_mass, use_bias, ovf);
				goto point;
			}
			case FXS_JOINT_BALL:
			point : {
				solve_point(sj, A, B, P, sj->c0, use_bias, ovf);
				break;
			}
			case FXS_JOINT_PRISMATIC: {
				/* c0 = (t0 . d, t1 . d, axis . d) on the poses setup_rows saw */
				if (j->enable_motor)
					solve_motor(A, B, &sj->axis, &sj->row[5], &P[5], j->motor_speed, sj->max_motor_impulse, ovf);
				if (j->enable_limit) {
					fix16_t x = use_bias ? sj->c0.z : fxg_v3_dot(sj->axis, separation(j, ba, bb, ovf), ovf);
					solve_limit(A, B, &sj->axis, &sj->row[5], 1, &P[6], fxg_sub(x, j->lower, ovf), s, use_bias, inv_h, ovf);
					solve_limit(A, B, &sj->axis, &sj->row[5], -1, &P[7], fxg_sub(j->upper, x, ovf), s, use_bias, inv_h, ovf);
				}
				fxg_vec3 C = sj->ang0;
				solve_equal(A, B, NULL, &sj->row[2], &P[2], C.x, s, sj->row[2].soft_mass, use_bias, ovf);
				solve_equal(A, B, NULL, &sj->row[3], &P[3], C.y, s, sj->row[3].soft_mass, use_bias, ovf);
				solve_equal(A, B, NULL, &sj->row[4], &P[4], C.z, s, sj->row[4].soft_mass, use_bias, ovf);
				for (int k = 0; k < 2; ++k) {
					fix16_t Ck = use_bias ? (k ? sj->c0.y : sj->c0.x) : 0;
					solve_equal(A, B, &sj->t[k], &sj->row[k], &P[k], Ck, s, sj->row[k].soft_mass, use_bias, ovf);
				}
				break;
			}
			case FXS_JOINT_DISTANCE: {
				fix16_t len = sj->pos0;
				if (!use_bias && (j->enable_spring || j->enable_limit))
					(void)fxg_v3_normalize(separation(j, ba, bb, ovf), &len, ovf);
				if (j->enable_spring) {
					/* the spring acts in every pass: it is physics, not error correction */
					if (j->spring_hertz > 0)
						solve_equal(A, B, &sj->axis, &sj->row[0], &P[0], fxg_sub(len, j->length, ovf), &sj->spring,
							    sj->spring_mass, true, ovf);
				} else {
					solve_equal(A, B, &sj->axis, &sj->row[0], &P[0], fxg_sub(len, j->length, ovf), s, sj->row[0].soft_mass,
						    use_bias, ovf);
				}
				if (j->enable_limit) {
					solve_limit(A, B, &sj->axis, &sj->row[0], 1, &P[1], fxg_sub(len, j->lower, ovf), s, use_bias, inv_h, ovf);
					solve_limit(A, B, &sj->axis, &sj->row[0], -1, &P[2], fxg_sub(j->upper, len, ovf), s, use_bias, inv_h, ovf);
				}
				break;
			}
			}
		}
		local += fxs_ball_solve(c, bi, c->ball_stage_end[st], use_bias);
		bi = c->ball_stage_end[st];
	}
	*c->ovf += local;
}

/* ---- state ---- */

static uint8_t flags_of(const fxs_joint *j)
{
	return (uint8_t)(j->collide_connected | (j->enable_limit << 1) | (j->enable_motor << 2) | (j->enable_spring << 3));
}

void fxs_joints_write(const fxs_world *w, fxs_writer *wr)
{
	fxs_write_u32(wr, w->joint_slot_count);
	for (uint32_t i = 0; i < w->joint_slot_count; ++i) {
		const fxs_joint *j = &w->joints[i];
		uint8_t rec[256], *d = rec;
		d = fxs_put_u32(d, j->generation);
		d = fxs_put_u8(d, j->alive);
		if (j->alive) {
			d = fxs_put_u8(d, j->type);
			d = fxs_put_u8(d, flags_of(j));
			d = fxs_put_u32(d, j->a);
			d = fxs_put_u32(d, j->b);
			d = fxs_put_vec3(d, j->local_anchor_a);
			d = fxs_put_vec3(d, j->local_anchor_b);
			d = fxs_put_i32(d, j->hertz);
			d = fxs_put_i32(d, j->damping_ratio);
			if (j->type == FXS_JOINT_HINGE || j->type == FXS_JOINT_PRISMATIC) {
				d = fxs_put_vec3(d, j->local_axis_a);
				if (j->type == FXS_JOINT_HINGE)
					d = fxs_put_vec3(d, j->local_axis_b);
				d = fxs_put_i32(d, j->motor_speed);
				d = fxs_put_i32(d, j->max_motor_force);
			}
			if (j->type != FXS_JOINT_BALL && j->type != FXS_JOINT_DISTANCE)
				d = fxs_put_quat(d, j->ref_rotation);
			if (j->type != FXS_JOINT_BALL && j->type != FXS_JOINT_FIXED) {
				d = fxs_put_i32(d, j->lower);
				d = fxs_put_i32(d, j->upper);
			}
			if (j->type == FXS_JOINT_DISTANCE) {
				d = fxs_put_i32(d, j->length);
				d = fxs_put_i32(d, j->spring_hertz);
				d = fxs_put_i32(d, j->spring_damping_ratio);
			}
			int rows = fxs_joint_row_count(j->type);
			for (int k = 0; k < rows; ++k)
				d = fxs_put_i64(d, j->impulse[k]);
		}
		fxs_write_bytes(wr, rec, (size_t)(d - rec));
	}
}

/* unit within 2^-10 (the reader's rule for rotations) */
static bool unit4(int64_t x, int64_t y, int64_t z, int64_t wq)
{
	const int64_t m = FXG_ONE + (FXG_ONE >> 8);
	if (x > m || x < -m || y > m || y < -m || z > m || z < -m || wq > m || wq < -m)
		return false;
	int64_t n2 = x * x + y * y + z * z + wq * wq;
	return n2 >= ((int64_t)1 << 32) - ((int64_t)1 << 22) && n2 <= ((int64_t)1 << 32) + ((int64_t)1 << 22);
}

static bool read_joint(fxs_reader *r, const fxs_world *w, fxs_joint *j)
{
	memset(j, 0, sizeof *j);
	j->generation = fxs_read_u32(r);
	j->alive = fxs_read_u8(r);
	if (j->alive > 1)
		return false;
	if (!j->alive)
		return r->err == FXS_OK;
	j->type = fxs_read_u8(r);
	uint8_t flags = fxs_read_u8(r);
	if (j->type >= FXS_JOINT_TYPE_COUNT || flags > 15)
		return false;
	j->collide_connected = flags & 1;
	j->enable_limit = (flags >> 1) & 1;
	j->enable_motor = (flags >> 2) & 1;
	j->enable_spring = (flags >> 3) & 1;
	j->a = fxs_read_u32(r);
	j->b = fxs_read_u32(r);
	j->local_anchor_a = fxs_read_vec3(r);
	j->local_anchor_b = fxs_read_vec3(r);
	j->hertz = fxs_read_i32(r);
	j->damping_ratio = fxs_read_i32(r);
	bool axis = j->type == FXS_JOINT_HINGE || j->type == FXS_JOINT_PRISMATIC;
	if (axis) {
		j->local_axis_a = fxs_read_vec3(r);
		if (j->type == FXS_JOINT_HINGE)
			j->local_axis_b = fxs_read_vec3(r);
		j->motor_speed = fxs_read_i32(r);
		j->max_motor_force = fxs_read_i32(r);
	}
	if (j->type != FXS_JOINT_BALL && j->type != FXS_JOINT_DISTANCE)
		j->ref_rotation = fxs_read_quat(r);
	if (j->type != FXS_JOINT_BALL && j->type != FXS_JOINT_FIXED) {
		j->lower = fxs_read_i32(r);
		j->upper = fxs_read_i32(r);
	}
	if (j->type == FXS_JOINT_DISTANCE) {
		j->length = fxs_read_i32(r);
		j->spring_hertz = fxs_read_i32(r);
		j->spring_damping_ratio = fxs_read_i32(r);
	}
	int rows = fxs_joint_row_count(j->type);
	for (int k = 0; k < rows; ++k) {
		j->impulse[k] = fxs_read_i64(r);
		const int64_t lim = (int64_t)1 << 47;
		if (j->impulse[k] < -lim || j->impulse[k] > lim)
			return false;
	}
	if (r->err != FXS_OK)
		return false;
	/* bodies: two different live slots */
	if (j->a >= w->slot_count || j->b >= w->slot_count || j->a == j->b || !w->bodies[j->a].alive ||
	    !w->bodies[j->b].alive)
		return false;
	/* only the parts the type has, as fxs_joint_create stores them */
	fxs_joint c = *j;
	canonicalize(&c);
	if (c.enable_limit != j->enable_limit || c.enable_motor != j->enable_motor || c.enable_spring != j->enable_spring ||
	    !fxg_v3_eq(c.local_axis_a, j->local_axis_a) || !fxg_v3_eq(c.local_axis_b, j->local_axis_b) ||
	    c.lower != j->lower || c.upper != j->upper || c.motor_speed != j->motor_speed ||
	    c.max_motor_force != j->max_motor_force || c.length != j->length || c.spring_hertz != j->spring_hertz ||
	    c.spring_damping_ratio != j->spring_damping_ratio)
		return false;
	if (!j->enable_limit && (j->lower != 0 || j->upper != 0))
		return false;
	if (!j->enable_motor && (j->motor_speed != 0 || j->max_motor_force != 0))
		return false;
	if (!j->enable_spring && (j->spring_hertz != 0 || j->spring_damping_ratio != 0))
		return false;
	if (!numbers_valid(j))
		return false;
	if (axis && !unit4(j->local_axis_a.x, j->local_axis_a.y, j->local_axis_a.z, 0))
		return false;
	if (j->type == FXS_JOINT_HINGE && !unit4(j->local_axis_b.x, j->local_axis_b.y, j->local_axis_b.z, 0))
		return false;
	if (j->type != FXS_JOINT_BALL && j->type != FXS_JOINT_DISTANCE &&
	    !unit4(j->ref_rotation.x, j->ref_rotation.y, j->ref_rotation.z, j->ref_rotation.w))
		return false;
	/* impulses the type cannot have made */
	if ((j->type == FXS_JOINT_HINGE || j->type == FXS_JOINT_PRISMATIC) && (j->impulse[6] < 0 || j->impulse[7] < 0))
		return false;
	if (j->type == FXS_JOINT_DISTANCE && (j->impulse[1] < 0 || j->impulse[2] < 0))
		return false;
	return true;
}

bool fxs_joints_read(fxs_world *w, fxs_reader *r)
{
	uint32_t slots = fxs_read_u32(r);
	/* every slot takes at least 5 bytes */
	if (r->err != FXS_OK || slots > (r->len - r->pos) / 5 || slots > 4 * w->def.max_bodies)
		return false;
	if (slots > 0 && !reserve_joints(w, slots)) {
		fxs_reader_fail(r, FXS_ERR_NOMEM); /* not the input's fault */
		return false;
	}
	w->joint_slot_count = slots;
	w->joint_count = 0;
	for (uint32_t i = 0; i < slots; ++i) {
		if (!read_joint(r, w, &w->joints[i]))
			return false;
		w->joint_count += w->joints[i].alive;
	}
	w->joint_free_hint = 0;
	w->joint_filter_valid = false;
	return true;
}
