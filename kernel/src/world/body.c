/* Bodies: creation in the lowest free slot (so the slot layout is a pure
 * function of the sequence of creates and destroys), generation-checked ids,
 * mass properties from the shape, accessors. */
#include "world/world.h"
#include "collide/contact.h"
#include "world/call_log.h"
#include "geometry/shape.h"
#include "geometry/compound.h"
#include "geometry/hull.h"
#include "geometry/mesh.h"
#include "joint/joint.h"

#include <string.h>

fxs_body_def fxs_default_body_def(void)
{
	fxs_body_def d;
	memset(&d, 0, sizeof d);
	d.type = FXS_BODY_DYNAMIC;
	d.rotation = fxg_q_identity();
	d.shape.type = FXS_SHAPE_SPHERE;
	d.shape.radius = FXG_HALF;
	d.density = FXG_I(1000);
	d.friction = FXG_RATIO(6, 10);
	d.gravity_scale = FXG_ONE;
	d.filter = fxs_default_filter();
	d.enable_sensor_events = true;
	d.is_enabled = true;
	d.is_awake = true;
	return d;
}

fxs_filter fxs_default_filter(void)
{
	fxs_filter f = { 1, ~(uint64_t)0, 0 };
	return f;
}

bool fxs_filter_should_collide(fxs_filter a, fxs_filter b) { return fxs_filters_collide(&a, &b); }

bool fxs_filter_is_default(const fxs_filter *f)
{
	return f->category_bits == 1 && f->mask_bits == ~(uint64_t)0 && f->group_index == 0;
}

uint8_t fxs_locks_bits(fxs_motion_locks l)
{
	return (uint8_t)((l.linear_x ? FXS_LOCK_LINEAR_X : 0) | (l.linear_y ? FXS_LOCK_LINEAR_Y : 0) |
			 (l.linear_z ? FXS_LOCK_LINEAR_Z : 0) | (l.angular_x ? FXS_LOCK_ANGULAR_X : 0) |
			 (l.angular_y ? FXS_LOCK_ANGULAR_Y : 0) | (l.angular_z ? FXS_LOCK_ANGULAR_Z : 0));
}

fxs_body *fxs_world_get_body(const fxs_world *w, fxs_body_id id)
{
	if (!w || id.index1 == 0 || id.index1 > w->slot_count)
		return NULL;
	fxs_body *b = &w->bodies[id.index1 - 1];
	if (!b->alive || b->generation != id.generation)
		return NULL;
	return b;
}

bool fxs_body_is_valid(const fxs_world *w, fxs_body_id id) { return fxs_world_get_body(w, id) != NULL; }

/* The inertia tensor t (xx yy zz xy xz yz, Q32.32) over its largest moment,
 * Q2.30, for the gyroscopic torque (solver.c): a dimensionless shape of the
 * mass distribution, each entry at most 1 in magnitude. A tensor that is a
 * multiple of 1 (a sphere, a cube) has none. */
static void set_gyro(fxs_body *b, const fxg_wide t[6], uint32_t *ovf)
{
	fxg_wide top = t[0] > t[1] ? t[0] : t[1];
	top = t[2] > top ? t[2] : top;
	b->gyro_on = top > 0 && (t[0] != t[1] || t[1] != t[2] || t[3] || t[4] || t[5]);
	for (int i = 0; i < 6; ++i)
		b->gyro[i] = b->gyro_on ? (int32_t)fxg_shr_round(fxg_wide_div(t[i], top, ovf), 2) : 0;
}

void fxs_body_update_mass(fxs_body *b)
{
	uint32_t ovf = 0; /* mass properties of a validated shape cannot saturate in range */
	if ((b->game & FXS_BODY_MASS_SET) && b->type == FXS_BODY_DYNAMIC) {
		/* as fxs_body_set_mass_data left them in mass and inertia (ranges
		 * checked there and by the state reader) */
		b->inv_mass = fxg_wide_recip(b->mass, &ovf);
		for (int i = 0; i < 3; ++i) {
			b->inv_inertia[i] = fxg_wide_recip(b->inertia[i], &ovf);
			b->inv_inertia_off[i] = 0;
		}
		return;
	}
	b->game &= (uint8_t)~FXS_BODY_MASS_SET;
	fxs_shape_mass(&b->shape, b->density, &b->mass, b->inertia, &ovf);
	b->inv_inertia_off[0] = b->inv_inertia_off[1] = b->inv_inertia_off[2] = 0;
	b->gyro_on = 0;
	if (b->type != FXS_BODY_DYNAMIC || b->mass <= 0) {
		b->inv_mass = 0;
		b->inv_inertia[0] = b->inv_inertia[1] = b->inv_inertia[2] = 0;
		if (b->type != FXS_BODY_DYNAMIC)
			b->mass = 0, b->inertia[0] = b->inertia[1] = b->inertia[2] = 0;
		return;
	}
	b->inv_mass = fxg_wide_recip(b->mass, &ovf);
	if (fxs_shape_has_full_inertia(&b->shape)) {
		/* the full tensor's inverse (products of inertia included) */
		fxg_wide t[6];
		fxs_shape_full_inertia(&b->shape, b->density, &b->mass, t, &ovf);
		fxg_sym3w m = { t[0], t[1], t[2], t[3], t[4], t[5] }, inv;
		fxg_s3w_inverse(&m, &inv, &ovf);
		b->inv_inertia[0] = inv.xx, b->inv_inertia[1] = inv.yy, b->inv_inertia[2] = inv.zz;
		b->inv_inertia_off[0] = inv.xy, b->inv_inertia_off[1] = inv.xz, b->inv_inertia_off[2] = inv.yz;
		set_gyro(b, t, &ovf);
		return;
	}
	for (int i = 0; i < 3; ++i)
		b->inv_inertia[i] = b->inertia[i] > 0 ? fxg_wide_recip(b->inertia[i], &ovf) : 0;
	const fxg_wide t[6] = { b->inertia[0], b->inertia[1], b->inertia[2], 0, 0, 0 };
	set_gyro(b, t, &ovf);
}

fxs_aabb fxs_body_compute_aabb(const fxs_body *b, uint32_t *ovf) { return fxs_shape_aabb(&b->shape, &b->xf, ovf); }

/* NULL when d is valid, else what is wrong with it (for the last error) */
static const char *def_problem(const fxs_body_def *d)
{
	if ((uint32_t)d->type > FXS_BODY_DYNAMIC)
		return "type is not a fxs_body_type";
	if (!fxs_shape_is_valid(&d->shape))
		return "shape: unknown type, or a size out of range (1/256 m .. 1000 m; 0 for a hull or compound)";
	if (d->shape.type == FXS_SHAPE_MESH && d->type != FXS_BODY_STATIC)
		return "shape: a mesh body must be static"; /* meshes have no volume: static geometry only */
	if (d->type == FXS_BODY_DYNAMIC && (d->density <= 0 || d->density > FXG_I(30000)))
		return "density out of range (0, 30000] for a dynamic body";
	if (d->friction < 0 || d->friction > FXG_I(100))
		return "friction out of range 0..100";
	if (d->restitution < 0 || d->restitution > FXG_ONE)
		return "restitution out of range 0..1";
	if (d->rolling_resistance < 0 || d->rolling_resistance > FXG_ONE)
		return "rolling_resistance out of range 0..1";
	if (d->linear_damping < 0 || d->angular_damping < 0 || d->linear_damping > FXG_I(1000) ||
	    d->angular_damping > FXG_I(1000))
		return "linear_damping or angular_damping out of range 0..1000";
	if (d->gravity_scale < FXG_I(-100) || d->gravity_scale > FXG_I(100))
		return "gravity_scale out of range -100..100";
	fxg_quat q = d->rotation;
	if (q.x == 0 && q.y == 0 && q.z == 0 && q.w == 0)
		return "rotation is zero";
	return NULL;
}

fxs_body_id fxs_body_create(fxs_world *w, const fxs_body_def *def)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_CREATE, def);
	if (!w)
		return fxs_null_body;
	if (!def)
		return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT, "body def: NULL"), fxs_null_body;
	const char *bad = def_problem(def);
	if (bad)
		return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT, "body def: %s", bad), fxs_null_body;
	if (w->body_count >= w->def.max_bodies)
		return fxs_world_fail(w, FXS_ERR_LIMIT, "the world has max_bodies (%u) bodies", w->def.max_bodies),
		       fxs_null_body;
	/* a hull, compound or mesh shape names this world's geometry by id:
	 * the pointer is taken from the world, never from the caller */
	const fxs_world_hull *hull = NULL;
	const fxs_compound *compound = NULL;
	const fxs_mesh *mesh = NULL;
	if (def->shape.type == FXS_SHAPE_HULL && !(hull = fxs_world_get_hull(w, def->shape.hull_id)))
		return fxs_world_fail(w, FXS_ERR_INVALID_ID, "body def: shape.hull_id is not a hull of this world"),
		       fxs_null_body;
	if (def->shape.type == FXS_SHAPE_COMPOUND && !(compound = fxs_world_get_compound(w, def->shape.compound_id)))
		return fxs_world_fail(w, FXS_ERR_INVALID_ID,
				      "body def: shape.compound_id is not a compound of this world"),
		       fxs_null_body;
	if (def->shape.type == FXS_SHAPE_MESH && !(mesh = fxs_world_get_mesh(w, def->shape.mesh_id)))
		return fxs_world_fail(w, FXS_ERR_INVALID_ID, "body def: shape.mesh_id is not a mesh of this world"),
		       fxs_null_body;
	/* the lowest free slot */
	uint32_t s = w->free_hint; /* no slot below the hint is free */
	while (s < w->slot_count && w->bodies[s].alive)
		++s;
	if (s == w->slot_count) {
		if (!fxs_world_reserve_slots(w, s + 1))
			return fxs_world_fail(w, FXS_ERR_NOMEM, "out of memory"), fxs_null_body;
		w->slot_count = s + 1;
		memset(&w->bodies[s], 0, sizeof w->bodies[s]); /* a new slot: generation 0 */
	}
	w->free_hint = s + 1;
	fxs_body *b = &w->bodies[s];
	uint32_t gen = b->generation;
	memset(b, 0, sizeof *b);
	b->generation = gen;
	b->alive = 1;
	b->type = (uint8_t)def->type;
	b->shape = def->shape;
	if (hull)
		b->shape.hull = hull;
	if (compound)
		b->shape.compound = compound;
	if (mesh)
		b->shape.mesh = mesh;
	uint32_t ovf = 0;
	b->xf.p = def->position;
	b->xf.q = fxg_q_normalize(def->rotation, &ovf);
	b->q30 = fxg_q30_from_q(b->xf.q);
	if (def->type != FXS_BODY_STATIC) {
		b->v = def->linear_velocity;
		b->w = def->angular_velocity;
	}
	b->density = def->density;
	b->friction = def->friction;
	b->restitution = def->restitution;
	b->linear_damping = def->linear_damping;
	b->angular_damping = def->angular_damping;
	b->gravity_scale = def->gravity_scale;
	b->user_data = def->user_data;
	b->filter = def->filter;
	b->game = (uint8_t)((def->is_sensor ? FXS_BODY_SENSOR : 0) | (def->enable_contact_events ? FXS_BODY_CONTACT_EVENTS : 0) |
			    (def->enable_hit_events ? FXS_BODY_HIT_EVENTS : 0) |
			    (def->enable_sensor_events ? 0 : FXS_BODY_NO_SENSOR_EVENTS) |
			    (def->is_enabled ? 0 : FXS_BODY_DISABLED) |
			    (fxs_filter_is_default(&def->filter) ? 0 : FXS_BODY_FILTERED));
	if (def->rolling_resistance) {
		b->rolling_resistance = def->rolling_resistance;
		b->game |= FXS_BODY_ROLLING;
		w->rolling_seen = true;
	}
	b->locks = def->type == FXS_BODY_DYNAMIC ? fxs_locks_bits(def->motion_locks) : 0;
	b->awake = (def->type == FXS_BODY_DYNAMIC && !def->is_awake) || !def->is_enabled ? 0 : 1;
	fxs_body_update_mass(b);
	b->aabb = fxs_body_compute_aabb(b, &ovf);
	w->body_count++;
	fxs_world_touch(w);
	fxs_world_ok(w);
	fxs_body_id id = { s + 1, gen };
	/* the call log's body record predates the rolling resistance: a CALLS
	 * replay gets it as the setter's call right after the creation */
	if (def->rolling_resistance)
		FXS_CALL_LOG(w, FXS_OP_BODY_SET_ROLLING_RESISTANCE, id, def->rolling_resistance);
	return id;
}

bool fxs_body_destroy(fxs_world *w, fxs_body_id id)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_DESTROY, id);
	fxs_body *b = fxs_world_get_body(w, id);
	if (!b)
		return false;
	uint32_t s = id.index1 - 1;
	fxs_contacts_remove_body(w, s);
	fxs_joints_remove_body(w, s);
	uint32_t gen = b->generation + 1;
	memset(b, 0, sizeof *b);
	b->generation = gen;
	/* the slot count stays (a high-water mark): dead slots keep their
	 * generation, which is state, so that stale ids stay invalid after a
	 * snapshot round trip */
	if (s < w->free_hint)
		w->free_hint = s;
	w->body_count--;
	fxs_world_touch(w);
	return true;
}

#define GET(field, zero)                               \
	const fxs_body *b = fxs_world_get_body(w, id); \
	return b ? b->field : zero

fxs_body_type fxs_body_get_type(const fxs_world *w, fxs_body_id id)
{
	GET(type, FXS_BODY_STATIC);
}
fxg_vec3 fxs_body_get_position(const fxs_world *w, fxs_body_id id) { GET(xf.p, fxg_v3_zero()); }
fxg_quat fxs_body_get_rotation(const fxs_world *w, fxs_body_id id) { GET(xf.q, fxg_q_identity()); }
fxg_vec3 fxs_body_get_linear_velocity(const fxs_world *w, fxs_body_id id) { GET(v, fxg_v3_zero()); }
fxg_vec3 fxs_body_get_angular_velocity(const fxs_world *w, fxs_body_id id) { GET(w, fxg_v3_zero()); }
fxg_wide fxs_body_get_mass(const fxs_world *w, fxs_body_id id) { GET(mass, 0); }
fxg_wide fxs_body_get_inv_mass(const fxs_world *w, fxs_body_id id) { GET(inv_mass, 0); }
uint32_t fxs_body_get_user_data(const fxs_world *w, fxs_body_id id) { GET(user_data, 0); }
#undef GET

fxs_shape fxs_body_get_shape(const fxs_world *w, fxs_body_id id)
{
	const fxs_body *b = fxs_world_get_body(w, id);
	fxs_shape none;
	memset(&none, 0, sizeof none);
	return b ? b->shape : none;
}

void fxs_body_get_inertia(const fxs_world *w, fxs_body_id id, fxg_wide out[3])
{
	if (!out)
		return;
	const fxs_body *b = fxs_world_get_body(w, id);
	for (int i = 0; i < 3; ++i)
		out[i] = b ? b->inertia[i] : 0;
}

void fxs_body_get_inertia_tensor(const fxs_world *w, fxs_body_id id, fxg_wide out[6])
{
	if (!out)
		return;
	const fxs_body *b = fxs_world_get_body(w, id);
	for (int i = 0; i < 6; ++i)
		out[i] = 0;
	if (!b || b->mass <= 0)
		return;
	if (fxs_shape_has_full_inertia(&b->shape) && !(b->game & FXS_BODY_MASS_SET)) {
		uint32_t ovf = 0;
		fxg_wide m;
		fxs_shape_full_inertia(&b->shape, b->density, &m, out, &ovf);
		return;
	}
	for (int i = 0; i < 3; ++i)
		out[i] = b->inertia[i];
}

/* Anything done to a body from outside wakes it (and, next step, its
 * island); a disabled body stays out until it is enabled. */
static void wake(fxs_body *b)
{
	if (b->game & FXS_BODY_DISABLED)
		return;
	b->awake = 1;
	b->sleep_time = 0;
}

/* What the body setters and appliers below return before they change
 * anything: FXS_ERR_INVALID_ID for a NULL world or a stale id, and
 * FXS_ERR_INVALID_ARGUMENT for a body the call cannot move (a static one
 * for the velocity setters, any but a dynamic one for forces, torques and
 * impulses). The world is unchanged on an error. */
static fxs_result body_for(fxs_world *w, fxs_body_id id, fxs_body_type least, fxs_body **out)
{
	fxs_body *b = fxs_world_get_body(w, id);
	*out = b;
	if (!b)
		return FXS_ERR_INVALID_ID;
	if (least == FXS_BODY_DYNAMIC && b->type != FXS_BODY_DYNAMIC)
		return FXS_ERR_INVALID_ARGUMENT;
	if (least == FXS_BODY_KINEMATIC && b->type == FXS_BODY_STATIC)
		return FXS_ERR_INVALID_ARGUMENT;
	return FXS_OK;
}

#define BODY_OR_RETURN(b, least)                            \
	fxs_body *b;                                        \
	{                                                   \
		fxs_result e_ = body_for(w, id, least, &b); \
		if (e_ != FXS_OK)                           \
			return e_;                          \
	}

fxs_result fxs_body_set_transform(fxs_world *w, fxs_body_id id, fxg_vec3 position, fxg_quat rotation)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_TRANSFORM, id, position, rotation);
	BODY_OR_RETURN(b, FXS_BODY_STATIC);
	if (rotation.x == 0 && rotation.y == 0 && rotation.z == 0 && rotation.w == 0)
		return FXS_ERR_INVALID_ARGUMENT; /* no direction to normalise */
	uint32_t ovf = 0;
	b->xf.p = position;
	b->xf.q = fxg_q_normalize(rotation, &ovf);
	b->q30 = fxg_q30_from_q(b->xf.q);
	if (b->type != FXS_BODY_STATIC)
		wake(b);
	w->stats.overflows_total += ovf;
	b->aabb = fxs_body_compute_aabb(b, &ovf);
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_body_set_linear_velocity(fxs_world *w, fxs_body_id id, fxg_vec3 v)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_LINEAR_VELOCITY, id, v);
	BODY_OR_RETURN(b, FXS_BODY_KINEMATIC);
	b->v = fxs_lock_linear(b->locks, v);
	wake(b);
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_body_set_angular_velocity(fxs_world *w, fxs_body_id id, fxg_vec3 omega)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_ANGULAR_VELOCITY, id, omega);
	BODY_OR_RETURN(b, FXS_BODY_KINEMATIC);
	b->w = fxs_lock_angular(b->locks, omega);
	wake(b);
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_body_apply_force(fxs_world *w, fxs_body_id id, fxg_vec3 force, fxg_vec3 point)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_APPLY_FORCE, id, force, point);
	BODY_OR_RETURN(b, FXS_BODY_DYNAMIC);
	wake(b);
	uint32_t ovf = 0;
	b->force = fxg_v3_add(b->force, force, &ovf);
	fxg_vec3 r = fxg_v3_sub(point, b->xf.p, &ovf);
	b->torque = fxg_v3_add(b->torque, fxg_v3_cross(r, force, &ovf), &ovf);
	w->stats.overflows_total += ovf;
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_body_apply_force_to_center(fxs_world *w, fxs_body_id id, fxg_vec3 force)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_APPLY_FORCE_TO_CENTER, id, force);
	BODY_OR_RETURN(b, FXS_BODY_DYNAMIC);
	wake(b);
	uint32_t ovf = 0;
	b->force = fxg_v3_add(b->force, force, &ovf);
	w->stats.overflows_total += ovf;
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_body_apply_torque(fxs_world *w, fxs_body_id id, fxg_vec3 torque)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_APPLY_TORQUE, id, torque);
	BODY_OR_RETURN(b, FXS_BODY_DYNAMIC);
	wake(b);
	uint32_t ovf = 0;
	b->torque = fxg_v3_add(b->torque, torque, &ovf);
	w->stats.overflows_total += ovf;
	fxs_world_touch(w);
	return FXS_OK;
}

/* world inverse inertia times a vector: R inv(I) R^T x (I diagonal but for hulls) */
static fxg_vec3 inv_inertia_mul_free(const fxs_body *b, fxg_vec3 x, uint32_t *ovf)
{
	fxg_vec3 l = fxg_q_inv_rotate(b->xf.q, x, ovf);
	if (fxs_shape_has_full_inertia(&b->shape)) {
		fxg_sym3w li = { b->inv_inertia[0], b->inv_inertia[1], b->inv_inertia[2],
				 b->inv_inertia_off[0], b->inv_inertia_off[1], b->inv_inertia_off[2] };
		return fxg_q_rotate(b->xf.q, fxg_s3w_mul_v3(&li, l, ovf), ovf);
	}
	fxg_vec3 s = fxg_v3(fxg_wide_to_fix(fxg_wmul(b->inv_inertia[0], l.x, ovf), ovf),
			    fxg_wide_to_fix(fxg_wmul(b->inv_inertia[1], l.y, ovf), ovf),
			    fxg_wide_to_fix(fxg_wmul(b->inv_inertia[2], l.z, ovf), ovf));
	return fxg_q_rotate(b->xf.q, s, ovf);
}

static fxg_vec3 inv_inertia_mul(const fxs_body *b, fxg_vec3 x, uint32_t *ovf)
{
	if (b->locks & FXS_LOCK_ANGULAR) {
		/* P I^-1 P x, P zeroing the locked world axes: as the solver does */
		fxg_vec3 r = inv_inertia_mul_free(b, fxs_lock_angular(b->locks, x), ovf);
		return fxs_lock_angular(b->locks, r);
	}
	return inv_inertia_mul_free(b, x, ovf);
}

fxs_result fxs_body_apply_linear_impulse(fxs_world *w, fxs_body_id id, fxg_vec3 impulse, fxg_vec3 point)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_APPLY_LINEAR_IMPULSE, id, impulse, point);
	BODY_OR_RETURN(b, FXS_BODY_DYNAMIC);
	wake(b);
	uint32_t ovf = 0;
	fxg_vec3 dv = fxg_v3(fxg_wide_to_fix(fxg_wmul(b->inv_mass, impulse.x, &ovf), &ovf),
			     fxg_wide_to_fix(fxg_wmul(b->inv_mass, impulse.y, &ovf), &ovf),
			     fxg_wide_to_fix(fxg_wmul(b->inv_mass, impulse.z, &ovf), &ovf));
	b->v = fxs_lock_linear(b->locks, fxg_v3_add(b->v, dv, &ovf));
	fxg_vec3 r = fxg_v3_sub(point, b->xf.p, &ovf);
	b->w = fxg_v3_add(b->w, inv_inertia_mul(b, fxg_v3_cross(r, impulse, &ovf), &ovf), &ovf);
	w->stats.overflows_total += ovf;
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_body_apply_angular_impulse(fxs_world *w, fxs_body_id id, fxg_vec3 impulse)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_APPLY_ANGULAR_IMPULSE, id, impulse);
	BODY_OR_RETURN(b, FXS_BODY_DYNAMIC);
	wake(b);
	uint32_t ovf = 0;
	b->w = fxg_v3_add(b->w, inv_inertia_mul(b, impulse, &ovf), &ovf);
	w->stats.overflows_total += ovf;
	fxs_world_touch(w);
	return FXS_OK;
}
