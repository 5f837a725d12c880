/* Joints: ball-and-socket, hinge, fixed, distance, prismatic, spherical,
 * filter, wheel and motor, as soft
 * constraints in impulse form (Box2D v3's soft step; see solver.c).
 *
 * Every joint is a handful of scalar rows of the contact solver's kind
 * (solver_row: Q32.32 angular responses and effective mass, frozen for the
 * step), each with an accumulated impulse (int64, Q16.16 N s or N m s) that
 * is state: it warm-starts the next step and is hashed and snapshotted.
 *
 * This file holds what every type shares: slots and ids, create and
 * destroy, the accessors, the contact filter for jointed pairs, the state
 * section, and the solver's loops over the joints. What a type is made of
 * (its rows, their setup, warm start and solve, its own checks) is in its
 * own file, ball.c, hinge.c, fixed.c, distance.c, prismatic.c,
 * spherical.c, filter.c, wheel.c and motor.c, each
 * filling an fxs_joint_kind (joint_types.h) that this file looks up by
 * type; the rows they share are in joint_rows.h. The batched ball joints
 * are in joint_batch.c.
 *
 * Position errors, lever arms and axes are measured from the bodies' poses
 * when the step begins and again after every integrate_positions (setup):
 * the biased pass of a sub-step and the relax pass before it see the same
 * poses. Joints are visited in stage order, each sub-step before the
 * contacts; with workers, a stage's ball joint batches at once, in blocks
 * (fxs_solver_run), after the stage's other joints one by one. */
#include "joint/joint.h"
#include "world/call_log.h"
#include "joint/joint_rows.h"
#include "joint/joint_types.h"
#include "island/island.h"
#include "solve/stage.h"
#include "solve/solver_direct.h"
#include "joint/joint_batch.h"
#include "state/state.h"
#include "world/tasks.h"
#include "solve/solver_tasks.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* the types, by fxs_joint_type */
static const fxs_joint_kind *const kinds[FXS_JOINT_TYPE_COUNT] = {
	[FXS_JOINT_BALL] = &fxs_ball_kind,
	[FXS_JOINT_HINGE] = &fxs_hinge_kind,
	[FXS_JOINT_FIXED] = &fxs_fixed_kind,
	[FXS_JOINT_DISTANCE] = &fxs_distance_kind,
	[FXS_JOINT_PRISMATIC] = &fxs_prismatic_kind,
	[FXS_JOINT_SPHERICAL] = &fxs_spherical_kind,
	[FXS_JOINT_FILTER] = &fxs_filter_kind,
	[FXS_JOINT_WHEEL] = &fxs_wheel_kind,
	[FXS_JOINT_MOTOR] = &fxs_motor_kind,
};

int fxs_joint_row_count(int type) { return type >= 0 && type < FXS_JOINT_TYPE_COUNT ? kinds[type]->rows : 0; }

/* ---- definitions ---- */

fxs_joint_def fxs_joint_base_def(int type)
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
	/* the new slots are not cleared here, but as they come into use
	 * (fxs_joint_create, the snapshot reader), so that a capacity doubled
	 * past the joints a world holds takes no memory */
	w->joints = nj;
	w->joint_cap = cap;
	return true;
}

static void wake(fxs_body *b)
{
	if (b->alive && b->type != FXS_BODY_STATIC && !(b->game & FXS_BODY_DISABLED)) {
		b->awake = 1;
		b->sleep_time = 0;
	}
}

/* The checks shared by fxs_joint_create and the snapshot reader (numbers
 * only; bodies are checked by the callers). */
static bool numbers_valid(const fxs_joint *j)
{
	if (j->type >= FXS_JOINT_TYPE_COUNT || j->collide_connected > 1 || j->enable_limit > 1 || j->enable_motor > 1 ||
	    j->enable_spring > 1 || j->enable_cone > 1)
		return false;
	if (!vec_in_range(j->local_anchor_a, ANCHOR_MAX) || !vec_in_range(j->local_anchor_b, ANCHOR_MAX))
		return false;
	if (!in_range(j->hertz, 1, FXG_I(1000)) || !in_range(j->damping_ratio, 0, FXG_I(1000)))
		return false;
	if (j->lower > j->upper)
		return false;
	const fxs_joint_kind *kind = kinds[j->type];
	if (kind->valid && !kind->valid(j))
		return false;
	if (!in_range(j->motor_speed, -SPEED_MAX, SPEED_MAX) || j->max_motor_force < 0)
		return false;
	return true;
}

/* keep only the fields the type uses (the state is canonical); a motor
 * joint's target has the axes' and the reference rotation's bytes */
static void canonicalize(fxs_joint *j)
{
	const fxs_joint_kind *kind = kinds[j->type];
	if (!kind->target) {
		if (!kind->axis)
			j->local_axis_a = fxg_v3_zero();
		if (!kind->axis_b)
			j->local_axis_b = fxg_v3_zero();
		if (!kind->ref)
			j->ref_rotation = fxg_q(0, 0, 0, 0);
	}
	if (!kind->motor_row) {
		j->enable_motor = 0;
		j->motor_speed = j->max_motor_force = 0;
	}
	if (!kind->limit_row) {
		j->enable_limit = 0;
		j->lower = j->upper = 0;
	}
	if (!kind->spring) {
		j->enable_spring = 0;
		j->length = j->spring_hertz = j->spring_damping_ratio = 0;
	}
	if (!kind->cone_row) {
		j->enable_cone = 0;
		j->cone_angle = 0;
	}
	if (!kind->wheel) {
		j->spin_axis_a = j->spin_axis_b = fxg_v3_zero();
		j->steering = 0;
	}
	/* a type without a target: the target's bytes are the axes', cleared
	 * above as far as the type has none of them */
}

fxs_joint_id fxs_joint_create(fxs_world *w, const fxs_joint_def *def)
{
	FXS_CALL_LOG(w, FXS_OP_JOINT_CREATE, def);
	if (!w)
		return fxs_null_joint;
	if (!def || (uint32_t)def->type >= FXS_JOINT_TYPE_COUNT)
		return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT, "joint def: %s", def ? "type is not a fxs_joint_type" : "NULL"),
		       fxs_null_joint;
	fxs_body *ba = fxs_world_get_body(w, def->body_a), *bb = fxs_world_get_body(w, def->body_b);
	if (!ba || !bb)
		return fxs_world_fail(w, FXS_ERR_INVALID_ID, "joint def: body_%c is not a body of this world", ba ? 'b' : 'a'),
		       fxs_null_joint;
	if (ba == bb)
		return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT, "joint def: body_a and body_b are the same body"),
		       fxs_null_joint;
	if (w->joint_count >= 4 * w->def.max_bodies)
		return fxs_world_fail(w, FXS_ERR_LIMIT, "the world has 4 max_bodies joints"), fxs_null_joint;
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
	j.enable_cone = def->enable_cone ? 1 : 0;
	j.cone_angle = def->cone_angle;
	uint32_t ovf = 0;
	const fxs_joint_kind *kind = kinds[j.type];
	if (kind->init)
		kind->init(&j, def, ba, bb, &ovf);
	if (kind->axis) {
		if (!vec_in_range(def->local_axis_a, FXG_I(1000)))
			return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT, "joint def: local_axis_a beyond 1000"), fxs_null_joint;
		j.local_axis_a = fxg_v3_normalize(def->local_axis_a, NULL, &ovf);
		if (fxg_v3_eq(j.local_axis_a, fxg_v3_zero()))
			return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT, "joint def: local_axis_a is zero"), fxs_null_joint;
	}
	/* (kept where the type has them: a motor joint's target has their bytes) */
	const fxg_quat ref = fxg_q_normalize(fxg_q_mul(fxg_q_conj(ba->xf.q), bb->xf.q, &ovf), &ovf);
	const fxg_vec3 axis_b = fxg_q_inv_rotate(ref, kind->target ? fxg_v3_zero() : j.local_axis_a, &ovf);
	if (!kind->target)
		j.ref_rotation = ref, j.local_axis_b = axis_b;
	if (kind->wheel) {
		if (!vec_in_range(def->local_spin_axis_a, FXG_I(1000)))
			return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT, "joint def: local_spin_axis_a beyond 1000"),
			       fxs_null_joint;
		j.spin_axis_a = fxg_v3_normalize(def->local_spin_axis_a, NULL, &ovf);
		if (fxg_v3_eq(j.spin_axis_a, fxg_v3_zero()))
			return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT, "joint def: local_spin_axis_a is zero"),
			       fxs_null_joint;
		j.spin_axis_b = fxg_q_inv_rotate(ref, j.spin_axis_a, &ovf);
		j.steering = def->steering_angle;
	}
	if (!j.enable_limit)
		j.lower = j.upper = 0;
	if (!j.enable_motor)
		j.motor_speed = j.max_motor_force = 0;
	if (!j.enable_spring)
		j.spring_hertz = j.spring_damping_ratio = 0;
	if (!j.enable_cone)
		j.cone_angle = 0;
	canonicalize(&j);
	if (!numbers_valid(&j) || ovf)
		return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT,
				      "joint def: a number out of range (anchors within 1000 m, hertz 1..1000, damping "
				      "0..1000, lower <= upper, the type's own limits: angles within pi, a filter joint "
				      "without collide_connected)"),
		       fxs_null_joint;
	/* the lowest free slot */
	uint32_t s = w->joint_free_hint;
	while (s < w->joint_slot_count && w->joints[s].alive)
		++s;
	if (s == w->joint_slot_count) {
		if (!reserve_joints(w, s + 1))
			return fxs_world_fail(w, FXS_ERR_NOMEM, "out of memory"), fxs_null_joint;
		w->joint_slot_count = s + 1;
		memset(&w->joints[s], 0, sizeof w->joints[s]); /* a new slot: generation 0 */
	}
	w->joint_free_hint = s + 1;
	j.generation = w->joints[s].generation;
	w->joints[s] = j;
	w->joint_count++;
	w->joint_filter_valid = false;
	wake(ba);
	wake(bb);
	fxs_world_touch(w);
	fxs_world_ok(w);
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
	FXS_CALL_LOG(w, FXS_OP_JOINT_DESTROY, id);
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
uint32_t fxs_world_joint_count(const fxs_world *w) { return w ? w->joint_count : 0; }
uint32_t fxs_world_joint_slot_count(const fxs_world *w) { return w ? w->joint_slot_count : 0; }

fxs_joint_id fxs_world_joint_at(const fxs_world *w, uint32_t slot)
{
	if (!w || slot >= w->joint_slot_count || !w->joints[slot].alive)
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
	FXS_CALL_LOG(w, FXS_OP_JOINT_SET_MOTOR, id, enable, speed, max_force);
	fxs_joint *j = get_joint(w, id);
	if (!j || !kinds[j->type]->motor_row)
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

fxs_result fxs_joint_set_steering(fxs_world *w, fxs_joint_id id, fix16_t angle)
{
	FXS_CALL_LOG(w, FXS_OP_JOINT_SET_STEERING, id, angle);
	if (!w)
		return FXS_ERR_INVALID_ARGUMENT;
	fxs_joint *j = get_joint(w, id);
	if (!j || !kinds[j->type]->wheel)
		return fxs_world_fail(w, FXS_ERR_INVALID_ID, "fxs_joint_set_steering: %s",
				      j ? "the joint is not a wheel joint" : "not a joint of this world");
	fxs_joint t = *j;
	t.steering = angle;
	if (!numbers_valid(&t))
		return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT, "fxs_joint_set_steering: angle beyond pi/2");
	if (j->steering != angle) {
		j->steering = angle;
		wake(&w->bodies[j->a]);
		wake(&w->bodies[j->b]);
		fxs_world_touch(w);
	}
	fxs_world_ok(w);
	return FXS_OK;
}

fxs_result fxs_joint_set_motor_target(fxs_world *w, fxs_joint_id id, fxg_vec3 linear_offset, fxg_quat angular_offset)
{
	FXS_CALL_LOG(w, FXS_OP_JOINT_SET_MOTOR_TARGET, id, linear_offset, angular_offset);
	if (!w)
		return FXS_ERR_INVALID_ARGUMENT;
	fxs_joint *j = get_joint(w, id);
	if (!j || !kinds[j->type]->target)
		return fxs_world_fail(w, FXS_ERR_INVALID_ID, "fxs_joint_set_motor_target: %s",
				      j ? "the joint is not a motor joint" : "not a joint of this world");
	uint32_t ovf = 0;
	fxs_joint t = *j;
	t.linear_offset = linear_offset;
	t.angular_offset = fxg_q_normalize(angular_offset, &ovf);
	if (ovf || !numbers_valid(&t))
		return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT,
				      "fxs_joint_set_motor_target: linear_offset beyond 1000 m or a zero angular_offset");
	*j = t;
	wake(&w->bodies[j->a]);
	wake(&w->bodies[j->b]);
	fxs_world_touch(w);
	fxs_world_ok(w);
	return FXS_OK;
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
	const fxs_joint_kind *kind = kinds[j->type];
	return kind->position ? kind->position(j, A, B, d, &ovf) : 0;
}

fix16_t fxs_joint_get_swing_angle(const fxs_world *w, fxs_joint_id id)
{
	const fxs_joint *j = get_joint(w, id);
	if (!j || !kinds[j->type]->swing)
		return 0;
	uint32_t ovf = 0;
	return kinds[j->type]->swing(j, &w->bodies[j->a], &w->bodies[j->b], &ovf);
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

/* the joints' heads, then the plan's lists (fxs_joints_plan): the wide
 * joints' indices and a handled flag per joint. The wide joints' rows are
 * in the world's joint_scratch, sized by the plan: a step of ball joints
 * in batches alone (joint_grid) makes none. */
size_t fxs_joints_scratch_size(const fxs_world *w)
{
	return (size_t)w->joint_count * (sizeof(solver_joint_head) + sizeof(uint32_t) + 1);
}

/* The rows from the bodies' current poses: when the step begins and after
 * every integrate_positions, so that lever arms and axes follow bodies that
 * turn fast (frozen ones pump energy into spinning links), and so that the
 * relax pass holds the velocities to the constraint of the poses it
 * follows (with the rows of the sub-step's start, it took a large swing's
 * energy: the velocity was projected on the tangent of a pose already
 * left, a loss of (h v / L)^2 of it per sub-step, 30% in ten swings of a
 * 2 m pendulum). Inverse inertias stay frozen for the step. */
static void setup_rows(solver_ctx *c, solver_joint *sj)
{
	fxs_world *w = c->w;
	uint32_t *ovf = c->ovf;
	const solver_joint_head *h = &sj->head;
	const fxs_joint *j = &w->joints[h->index];
	const solver_body *A = &c->bodies[h->a], *B = &c->bodies[h->b];
	const fxs_body *ba = &w->bodies[h->a], *bb = &w->bodies[h->b];
	fxg_vec3 pa, pb;
	memset(sj->row, 0, sizeof sj->row); /* what a joint type leaves unset stays zero */
	world_point(ba, j->local_anchor_a, &sj->ra, &pa, ovf);
	world_point(bb, j->local_anchor_b, &sj->rb, &pb, ovf);
	sj->c0 = fxg_v3_sub(pb, pa, ovf);
	kinds[j->type]->setup(sj, j, A, B, ba, bb, pa, pb, ovf);
}

/* solver joints a block of the prepare makes */
#define FXS_JOINT_BLOCK 256

/* the stiffness of joint j, capped (at a quarter of the sub-step rate: 120
 * Hz at 4 sub-steps jitters) */
static fix16_t joint_hertz(const solver_ctx *c, const fxs_joint *j) { return fxg_min(j->hertz, c->hertz_cap); }

/* the heads of solver joints [first, end) from their joints (in the stage
 * order fxs_joints_prepare made) */
static uint32_t prepare_range(solver_ctx *c, uint32_t first, uint32_t end, int unused)
{
	fxs_world *w = c->w;
	uint32_t local = 0, *ovf = &local;
	soft last_soft = { 0, 0, 0 }, last_alt = { 0, 0, 0 };
	fix16_t last_hz = 0, last_zeta = 0;
	for (uint32_t k = first; k < end; ++k) {
		uint32_t i = c->stage_index[c->stage_order[k]];
		fxs_joint *j = &w->joints[i];
		solver_joint_head *sj = &c->joints[k];
		memset(sj, 0, sizeof *sj);
		sj->stage = c->stage_items[c->stage_order[k]].stage;
		sj->index = i;
		sj->a = j->a;
		sj->b = j->b;
		const fxs_joint_kind *kind = kinds[j->type];
		sj->type = j->type;
		sj->rows = kind->rows;
		/* joints mostly share their stiffness: the last one's softness is
		 * reused when the parameters repeat (make_soft divides twice). A
		 * block's first joint makes its own; when it repeats the joint
		 * before (in another block), what it counts was counted there. */
		fix16_t hz = joint_hertz(c, j);
		if (k == first || hz != last_hz || j->damping_ratio != last_zeta) {
			uint32_t none = 0, *o = ovf;
			if (k == first && k > 0) {
				const fxs_joint *p = &w->joints[c->stage_index[c->stage_order[k - 1]]];
				if (joint_hertz(c, p) == hz && p->damping_ratio == j->damping_ratio)
					o = &none;
			}
			last_soft = make_soft(hz, j->damping_ratio, c->h, o), last_hz = hz, last_zeta = j->damping_ratio;
			if (c->long_substeps)
				last_alt = make_soft(hz, j->damping_ratio, c->h_alt, o);
		}
		sj->s = last_soft;
		sj->s_alt = last_alt;
		/* switched-off parts start from zero */
		if (kind->motor_row && !j->enable_motor)
			j->impulse[kind->motor_row] = 0;
		if (kind->limit_row && !j->enable_limit)
			j->impulse[kind->limit_row] = j->impulse[kind->limit_row + 1] = 0;
		if (kind->cone_row && !j->enable_cone)
			j->impulse[kind->cone_row] = 0;
	}
	return local;
}

/* the wide solver joints [first, end) (solver_ctx.joint_rows) from their
 * heads and joints, once the plan has found them */
static uint32_t prepare_wide_range(solver_ctx *c, uint32_t first, uint32_t end, int unused)
{
	(void)unused;
	fxs_world *w = c->w;
	uint32_t local = 0, *ovf = &local;
	for (uint32_t k = first; k < end; ++k) {
		const solver_joint_head *h = &c->joints[c->wide_joints[k]];
		fxs_joint *j = &w->joints[h->index];
		solver_joint *sj = &c->joint_rows[k];
		memset(sj, 0, offsetof(solver_joint, row)); /* the rows: setup_rows */
		sj->head = *h;
		const fxs_joint_kind *kind = kinds[j->type];
		sj->max_motor_impulse = fxg_shr_round((int64_t)j->max_motor_force * c->h, 16);
		sj->max_motor_impulse_alt = fxg_shr_round((int64_t)j->max_motor_force * c->h_alt, 16);
		if (kind->prepare) {
			if (c->long_substeps) { /* the other length's first */
				kind->prepare(sj, j, c->h_alt, ovf);
				sj->spring_alt = sj->spring;
			}
			kind->prepare(sj, j, c->h, ovf);
		}
	}
	return local;
}

/* The joints to solve among slots [first, end), in slot order: their stage
 * items and slots written from items/index on (NULL: only counted) */
static uint32_t gather_range(solver_ctx *c, uint32_t first, uint32_t end, fxs_stage_item *items, uint32_t *index)
{
	const fxs_world *w = c->w;
	uint32_t n = 0;
	for (uint32_t i = first; i < end; ++i) {
		const fxs_joint *j = &w->joints[i];
		if (!j->alive || !kinds[j->type]->rows)
			continue; /* a filter joint: the contact filter is all it does */
		const solver_body *A = &c->bodies[j->a], *B = &c->bodies[j->b];
		if (!A->dynamic && !B->dynamic)
			continue; /* asleep, or nothing here can move: impulses kept */
		if ((w->bodies[j->a].game | w->bodies[j->b].game) & FXS_BODY_DISABLED)
			continue; /* a disabled body's joints are out of the simulation with it */
		if (items) {
			fxs_stage_item *it = &items[n];
			it->a = A->dynamic ? j->a : FXS_STAGE_FREE;
			it->b = B->dynamic ? j->b : FXS_STAGE_FREE;
			it->stage = FXS_STAGE_NONE;
			index[n] = i;
		}
		++n;
	}
	return n;
}

/* joint slots a block of the gather takes (fxs_solver_gather) */
#define FXS_GATHER_BLOCK 1024

static uint32_t gather(solver_ctx *c) { return fxs_solver_gather(c, gather_range, c->w->joint_slot_count, FXS_GATHER_BLOCK); }

/* The joints' stages are a function of their items alone (the bodies of
 * each, in order: a joint's items never carry a stage in, stage.h), and
 * mostly the same step after step: the world keeps the last assignment
 * (not state: whatever it holds, a step assigns what fxs_stages_assign
 * would) and gives it again when the items are the same. */
typedef struct stage_memo {
	uint32_t n, bodies, cap;
	uint32_t *a, *b, *order;
	uint8_t *stage;
} stage_memo;

/* the items of [first, end) that differ from the memo's; with restore, the
 * memo's stages given to them (fxs_solver_run: in blocks with workers) */
static uint32_t memo_range(solver_ctx *c, uint32_t first, uint32_t end, int restore)
{
	const stage_memo *m = c->w->joint_stage_memo;
	fxs_stage_item *items = c->stage_items;
	uint32_t differ = 0;
	if (restore)
		for (uint32_t i = first; i < end; ++i)
			items[i].stage = m->stage[i];
	else
		for (uint32_t i = first; i < end; ++i)
			differ += items[i].a != m->a[i] || items[i].b != m->b[i];
	return differ;
}

#define FXS_MEMO_BLOCK 2048

static void assign_stages(solver_ctx *c, uint32_t n)
{
	fxs_world *w = c->w;
	stage_memo *m = w->joint_stage_memo;
	fxs_stage_item *items = c->stage_items;
	if (m && m->n == n && m->bodies == c->body_count && fxs_solver_run(c, memo_range, 0, n, FXS_MEMO_BLOCK, 0) == 0) {
		fxs_solver_run(c, memo_range, 0, n, FXS_MEMO_BLOCK, 1);
		if (n)
			memcpy(c->stage_order, m->order, (size_t)n * sizeof *m->order);
		return;
	}
	fxs_stages_assign(items, n, c->body_count, c->stage_mask, c->stage_order, NULL);
	if (!m || m->cap < n) {
		free(m);
		const size_t per = 3 * sizeof(uint32_t) + 1;
		m = w->joint_stage_memo = malloc(sizeof *m + (size_t)n * per);
		if (!m)
			return; /* no memo: the next step assigns them again */
		m->cap = n;
		m->a = (uint32_t *)(void *)(m + 1), m->b = m->a + n, m->order = m->b + n;
		m->stage = (uint8_t *)(m->order + n);
	}
	m->n = n, m->bodies = c->body_count;
	for (uint32_t i = 0; i < n; ++i)
		m->a[i] = items[i].a, m->b[i] = items[i].b, m->stage[i] = items[i].stage;
	if (n)
		memcpy(m->order, c->stage_order, (size_t)n * sizeof *m->order);
}

void fxs_joints_prepare(solver_ctx *c)
{
	/* the joints to solve, in slot order, put in stages (stage.h); joints
	 * persist, so first fit in slot order every step gives the same stages
	 * while the joints and the awake set stay the same: nothing to store
	 * (but a memo of the last assignment, assign_stages) */
	const uint32_t n = gather(c);
	assign_stages(c, n);
	c->joint_count = n;
	/* where each stage ends in the solve order (sorted by stage): after
	 * the last joint of a stage at most s, found by bisection; a stage
	 * without joints ends where the one before ends */
	uint32_t lo = 0;
	for (uint32_t s = 0; s <= FXS_STAGE_OVERFLOW; ++s) {
		uint32_t hi = n;
		while (lo < hi) {
			const uint32_t mid = lo + (hi - lo) / 2;
			if (c->stage_items[c->stage_order[mid]].stage <= s)
				lo = mid + 1;
			else
				hi = mid;
		}
		c->joint_stage_end[s] = lo;
	}
	/* each solver joint from its own joint: in blocks with workers */
	*c->ovf += fxs_solver_run(c, prepare_range, 0, n, FXS_JOINT_BLOCK, 0);
}

bool fxs_joints_plan(solver_ctx *c)
{
	c->joint_handled = NULL;
	c->wide_joints = NULL;
	c->joint_rows = NULL;
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
			solver_joint_head *sj = &c->joints[i];
			/* the overflow stage's joints may share bodies: one by one, wide */
			sj->hot = sj->type == FXS_JOINT_BALL && !c->joint_handled[i] &&
				!(c->joint_direct && c->joint_direct[i]) && sj->stage < FXS_STAGE_OVERFLOW;
			sj->wide = sj->hot ? UINT32_MAX : nw;
			if (!sj->hot)
				c->wide_joints[nw++] = i;
		}
		c->wide_stage_end[st] = nw;
	}
	/* the wide joints' rows: they are made again every step, in a scratch
	 * the world keeps for them */
	if (nw) {
		fxs_world *w = c->w;
		uint8_t *base = fxs_scratch_aligned(&w->joint_scratch, &w->joint_scratch_size, (size_t)nw * sizeof(solver_joint));
		if (!base)
			return false;
		c->joint_rows = (solver_joint *)(void *)base;
		*c->ovf += fxs_solver_run(c, prepare_wide_range, 0, nw, FXS_JOINT_BLOCK, 0);
		fxs_direct_bind_joints(c); /* the boxed LCP's ball rows are theirs */
	}
	return fxs_ball_batches_build(c, c->joint_count - nw);
}

void fxs_joints_store(solver_ctx *c) { fxs_ball_store(c); }

void fxs_joints_swap_softness(solver_ctx *c)
{
	for (uint32_t i = 0; i < c->joint_count; ++i)
		soft_swap(&c->joints[i].s, &c->joints[i].s_alt);
	for (uint32_t wi = 0; wi < c->wide_stage_end[FXS_STAGE_OVERFLOW]; ++wi) {
		solver_joint *sj = &c->joint_rows[wi];
		soft_swap(&sj->head.s, &sj->head.s_alt);
		soft_swap(&sj->spring, &sj->spring_alt);
		int64_t m = sj->max_motor_impulse;
		sj->max_motor_impulse = sj->max_motor_impulse_alt, sj->max_motor_impulse_alt = m;
	}
	fxs_ball_batches_softness(c);
}

/* ---- the batched ball joints' passes ----
 * In blocks of FXS_BALL_BLOCK batches with workers (fxs_solver_run): the setup
 * writes its own batches and reads the bodies; the warm start and the
 * solve take one stage's batches, whose dynamic bodies are all different. */
#define FXS_BALL_BLOCK 4

enum { BALL_SETUP_ALL, BALL_SETUP, BALL_WARM, BALL_SOLVE, BALL_SOLVE_BIAS };

static uint32_t ball_pass(solver_ctx *c, uint32_t first, uint32_t end, int pass)
{
	switch (pass) {
	case BALL_SETUP_ALL:
	case BALL_SETUP:
		return fxs_ball_setup(c, first, end, pass == BALL_SETUP_ALL);
	case BALL_WARM:
		return fxs_ball_warm_start(c, first, end);
	default:
		return fxs_ball_solve(c, first, end, pass == BALL_SOLVE_BIAS);
	}
}

static uint32_t ball_key(const solver_ctx *c, uint32_t i) { return c->ball_batches[i].a[0]; }

static uint32_t ball_run(solver_ctx *c, int pass, uint32_t first, uint32_t end, bool use_bias)
{
	if (pass == BALL_SOLVE && use_bias)
		pass = BALL_SOLVE_BIAS;
	return fxs_solver_run_keyed(c, ball_pass, first, end, FXS_BALL_BLOCK, pass,
				    pass == BALL_SETUP_ALL || pass == BALL_SETUP ? NULL : ball_key);
}

void fxs_joints_setup(solver_ctx *c, bool first)
{
	for (uint32_t wi = 0; wi < c->wide_stage_end[FXS_STAGE_OVERFLOW]; ++wi)
		setup_rows(c, &c->joint_rows[wi]);
	if (c->ball_batch_count == 0)
		return;
	/* the rotations the batches need, body by body (in blocks of bodies
	 * with workers: each body's own slots), then the batches */
	fxs_solver_bodies_run(c, fxs_ball_rotations);
	/* each worker the batches it then solves, stage by stage */
	*c->ovf += fxs_solver_run_segments(c, ball_pass, NULL, c->ball_stage_end, FXS_STAGE_OVERFLOW + 1, FXS_BALL_BLOCK,
					   first ? BALL_SETUP_ALL : BALL_SETUP, ball_key);
}

void fxs_joints_warm_start(solver_ctx *c)
{
	uint32_t local = 0, *ovf = &local; /* see solver.c's warm_start */
	/* stage by stage: the joints of a stage are independent, so the batched
	 * ball joints may go after the others of their stage */
	uint32_t wi = 0, bi = 0;
	for (uint32_t st = 0; st <= FXS_STAGE_OVERFLOW; ++st) {
		for (; wi < c->wide_stage_end[st]; ++wi) {
			solver_joint *sj = &c->joint_rows[wi];
			const solver_joint_head *h = &sj->head;
			solver_body *A = &c->bodies[h->a], *B = &c->bodies[h->b];
			kinds[h->type]->warm_start(sj, A, B, c->w->joints[h->index].impulse, ovf);
		}
		local += ball_run(c, BALL_WARM, bi, c->ball_stage_end[st], false);
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
			solver_joint *sj = &c->joint_rows[wi];
			const solver_joint_head *h = &sj->head;
			fxs_joint *j = &c->w->joints[h->index];
			solver_body *A = &c->bodies[h->a], *B = &c->bodies[h->b];
			const fxs_body *ba = &bodies[h->a], *bb = &bodies[h->b];
			kinds[h->type]->solve(sj, j, A, B, ba, bb, use_bias, inv_h, ovf);
		}
		local += ball_run(c, BALL_SOLVE, bi, c->ball_stage_end[st], use_bias);
		bi = c->ball_stage_end[st];
	}
	*c->ovf += local;
}

/* ---- state ---- */

static uint8_t flags_of(const fxs_joint *j)
{
	return (uint8_t)(j->collide_connected | (j->enable_limit << 1) | (j->enable_motor << 2) | (j->enable_spring << 3) |
			 (j->enable_cone << 4));
}

/* every part a type may have, and every row: the most a record takes */
_Static_assert(47 + 2 * 12 + 8 + 16 + 8 + 12 + 4 + 28 + 40 + 8 * FXS_JOINT_MAX_ROWS <= FXS_STATE_JOINT_RECORD_MAX,
	       "a joint's record fits FXS_STATE_JOINT_RECORD_MAX");

void fxs_joints_write(const fxs_world *w, fxs_writer *wr)
{
	fxs_write_u32(wr, w->joint_slot_count);
	fxs_joints_write_records(w, wr, 0, w->joint_slot_count);
}

void fxs_joints_write_records(const fxs_world *w, fxs_writer *wr, uint32_t first, uint32_t end)
{
	for (uint32_t i = first; i < end; ++i) {
		const fxs_joint *j = &w->joints[i];
		uint8_t rec[FXS_STATE_JOINT_RECORD_MAX], *d = rec;
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
			/* the parts the type has, in this order */
			const fxs_joint_kind *kind = kinds[j->type];
			if (kind->axis)
				d = fxs_put_vec3(d, j->local_axis_a);
			if (kind->axis_b)
				d = fxs_put_vec3(d, j->local_axis_b);
			if (kind->motor_row) {
				d = fxs_put_i32(d, j->motor_speed);
				d = fxs_put_i32(d, j->max_motor_force);
			}
			if (kind->ref)
				d = fxs_put_quat(d, j->ref_rotation);
			if (kind->limit_row) {
				d = fxs_put_i32(d, j->lower);
				d = fxs_put_i32(d, j->upper);
			}
			if (kind->spring) {
				d = fxs_put_i32(d, j->length);
				d = fxs_put_i32(d, j->spring_hertz);
				d = fxs_put_i32(d, j->spring_damping_ratio);
			}
			if (kind->cone_row)
				d = fxs_put_i32(d, j->cone_angle);
			if (kind->wheel) {
				d = fxs_put_vec3(d, j->spin_axis_a);
				d = fxs_put_vec3(d, j->spin_axis_b);
				d = fxs_put_i32(d, j->steering);
			}
			if (kind->target) {
				d = fxs_put_vec3(d, j->linear_offset);
				d = fxs_put_quat(d, j->angular_offset);
				d = fxs_put_i32(d, j->max_force);
				d = fxs_put_i32(d, j->max_torque);
				d = fxs_put_i32(d, j->correction);
			}
			for (int k = 0; k < kind->rows; ++k)
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
	if (j->type >= FXS_JOINT_TYPE_COUNT || flags > 31)
		return false;
	j->collide_connected = flags & 1;
	j->enable_limit = (flags >> 1) & 1;
	j->enable_motor = (flags >> 2) & 1;
	j->enable_spring = (flags >> 3) & 1;
	j->enable_cone = (flags >> 4) & 1;
	j->a = fxs_read_u32(r);
	j->b = fxs_read_u32(r);
	j->local_anchor_a = fxs_read_vec3(r);
	j->local_anchor_b = fxs_read_vec3(r);
	j->hertz = fxs_read_i32(r);
	j->damping_ratio = fxs_read_i32(r);
	/* as fxs_joints_write puts them */
	const fxs_joint_kind *kind = kinds[j->type];
	if (kind->axis)
		j->local_axis_a = fxs_read_vec3(r);
	if (kind->axis_b)
		j->local_axis_b = fxs_read_vec3(r);
	if (kind->motor_row) {
		j->motor_speed = fxs_read_i32(r);
		j->max_motor_force = fxs_read_i32(r);
	}
	if (kind->ref)
		j->ref_rotation = fxs_read_quat(r);
	if (kind->limit_row) {
		j->lower = fxs_read_i32(r);
		j->upper = fxs_read_i32(r);
	}
	if (kind->spring) {
		j->length = fxs_read_i32(r);
		j->spring_hertz = fxs_read_i32(r);
		j->spring_damping_ratio = fxs_read_i32(r);
	}
	if (kind->cone_row)
		j->cone_angle = fxs_read_i32(r);
	if (kind->wheel) {
		j->spin_axis_a = fxs_read_vec3(r);
		j->spin_axis_b = fxs_read_vec3(r);
		j->steering = fxs_read_i32(r);
	}
	if (kind->target) {
		j->linear_offset = fxs_read_vec3(r);
		j->angular_offset = fxs_read_quat(r);
		j->max_force = fxs_read_i32(r);
		j->max_torque = fxs_read_i32(r);
		j->correction = fxs_read_i32(r);
	}
	for (int k = 0; k < kind->rows; ++k) {
		j->impulse[k] = fxs_read_i64(r);
		const int64_t lim = FXS_STATE_IMPULSE_MAX;
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
	    c.spring_damping_ratio != j->spring_damping_ratio || c.enable_cone != j->enable_cone ||
	    c.cone_angle != j->cone_angle)
		return false;
	if (!j->enable_limit && (j->lower != 0 || j->upper != 0))
		return false;
	if (!j->enable_motor && (j->motor_speed != 0 || j->max_motor_force != 0))
		return false;
	if (!j->enable_spring && (j->spring_hertz != 0 || j->spring_damping_ratio != 0))
		return false;
	if (!j->enable_cone && j->cone_angle != 0)
		return false;
	if (!numbers_valid(j))
		return false;
	if (kind->axis && !unit4(j->local_axis_a.x, j->local_axis_a.y, j->local_axis_a.z, 0))
		return false;
	if (kind->axis_b && !unit4(j->local_axis_b.x, j->local_axis_b.y, j->local_axis_b.z, 0))
		return false;
	if (kind->wheel && (!unit4(j->spin_axis_a.x, j->spin_axis_a.y, j->spin_axis_a.z, 0) ||
			    !unit4(j->spin_axis_b.x, j->spin_axis_b.y, j->spin_axis_b.z, 0)))
		return false;
	if (kind->target &&
	    !unit4(j->angular_offset.x, j->angular_offset.y, j->angular_offset.z, j->angular_offset.w))
		return false;
	if (kind->ref && !unit4(j->ref_rotation.x, j->ref_rotation.y, j->ref_rotation.z, j->ref_rotation.w))
		return false;
	/* impulses the type cannot have made: a limit only pushes */
	int lr = kind->limit_row;
	if (lr && (j->impulse[lr] < 0 || j->impulse[lr + 1] < 0))
		return false;
	if (kind->cone_row && j->impulse[kind->cone_row] < 0)
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
