/* The flat C API the JavaScript package (bindings/js) calls: every argument
 * and result is an int32, a pointer, or an array of int32 in the wasm heap,
 * so that JavaScript needs no knowledge of the kernel's struct layouts.
 * Everything here is a thin adapter over the public API
 * (kernel/include/fixstep), the replay library (replays/) and the built-in
 * scenes (tools/scenes/); the layouts of the int32 arrays are documented
 * once, here, and mirrored in bindings/js/src/api.js.
 *
 * 64-bit values (hashes, step counts) travel as two uint32 halves, low
 * first. Ids travel as (index1, generation) pairs. */
#include "fxjs.h"

#include "fixstep/character.h"

#include <stdlib.h>
#include <string.h>

static fxs_joint_id jid(int32_t index1, int32_t generation) { return (fxs_joint_id){ (uint32_t)index1, (uint32_t)generation }; }

FXJS_EXPORT void *fxjs_malloc(int32_t n) { return n > 0 ? malloc((size_t)n) : NULL; }
FXJS_EXPORT void fxjs_free(void *p) { free(p); }
FXJS_EXPORT const char *fxjs_result_string(int32_t r) { return fxs_result_string((fxs_result)r); }
FXJS_EXPORT int32_t fxjs_version(void) { return FXS_VERSION_MAJOR << 16 | FXS_VERSION_MINOR << 8 | FXS_VERSION_PATCH; }

/* ---- world ----
 * world definition, FXJS_WORLD_DEF_INTS int32: gravity x y z, dt, substeps,
 * relax_iterations, contact_hertz, contact_damping, contact_push_max,
 * linear_slop, speculative_distance, restitution_threshold, enable_sleep,
 * linear_sleep_tolerance, angular_sleep_tolerance, time_to_sleep,
 * max_bodies, direct_joint_rows, direct_contact_rows, hit_event_threshold */
static void put_world_def(int32_t *o, const fxs_world_def *d)
{
	fxjs_put_v3(o, d->gravity);
	o[3] = d->dt, o[4] = d->substeps, o[5] = d->relax_iterations, o[6] = d->contact_hertz;
	o[7] = d->contact_damping, o[8] = d->contact_push_max, o[9] = d->linear_slop, o[10] = d->speculative_distance;
	o[11] = d->restitution_threshold, o[12] = d->enable_sleep, o[13] = d->linear_sleep_tolerance;
	o[14] = d->angular_sleep_tolerance, o[15] = d->time_to_sleep, o[16] = (int32_t)d->max_bodies;
	o[17] = (int32_t)d->direct_joint_rows, o[18] = (int32_t)d->direct_contact_rows;
	o[19] = d->hit_event_threshold;
}

static fxs_world_def get_world_def(const int32_t *p)
{
	fxs_world_def d = fxs_default_world_def();
	d.gravity = fxjs_v3(p);
	d.dt = p[3], d.substeps = p[4], d.relax_iterations = p[5], d.contact_hertz = p[6], d.contact_damping = p[7];
	d.contact_push_max = p[8], d.linear_slop = p[9], d.speculative_distance = p[10], d.restitution_threshold = p[11];
	d.enable_sleep = p[12] != 0, d.linear_sleep_tolerance = p[13], d.angular_sleep_tolerance = p[14];
	d.time_to_sleep = p[15], d.max_bodies = (uint32_t)p[16], d.direct_joint_rows = (uint32_t)p[17];
	d.direct_contact_rows = (uint32_t)p[18], d.hit_event_threshold = p[19];
	return d;
}

FXJS_EXPORT void fxjs_world_def_default(int32_t *out)
{
	fxs_world_def d = fxs_default_world_def();
	put_world_def(out, &d);
}

/* The world, or NULL with the reason in *err. */
FXJS_EXPORT fxs_world *fxjs_world_create(const int32_t *def, int32_t *err)
{
	fxs_world_def d = get_world_def(def);
	fxs_result r = fxs_world_def_validate(&d);
	if (r != FXS_OK) {
		*err = (int32_t)r;
		return NULL;
	}
	fxs_world *w = fxs_world_create(&d);
	*err = w ? FXS_OK : FXS_ERR_NOMEM;
	return w;
}

/* The name of the definition's first field out of range ("substeps",
 * "gravity.y", ...), or "" when it is valid. */
FXJS_EXPORT const char *fxjs_world_def_invalid_field(const int32_t *def)
{
	fxs_world_def d = get_world_def(def);
	const char *f = fxs_world_def_invalid_field(&d);
	return f ? f : "";
}

FXJS_EXPORT void fxjs_world_destroy(fxs_world *w) { fxs_world_destroy(w); }
FXJS_EXPORT void fxjs_world_get_def(const fxs_world *w, int32_t *out)
{
	fxs_world_def d = fxs_world_get_def(w);
	put_world_def(out, &d);
}
FXJS_EXPORT int32_t fxjs_world_step(fxs_world *w) { return (int32_t)fxs_world_step(w); }
FXJS_EXPORT int32_t fxjs_world_status(const fxs_world *w) { return (int32_t)fxs_world_status(w); }
FXJS_EXPORT void fxjs_world_hash(const fxs_world *w, int32_t *out) { fxjs_put64(out, fxs_world_hash(w)); }
FXJS_EXPORT void fxjs_world_get_step(const fxs_world *w, int32_t *out) { fxjs_put64(out, fxs_world_get_step(w)); }

/* step lo, hi, overflows, overflows_total lo, hi, body_count, pair_count,
 * contact_count, contact_point_count, awake_body_count */
FXJS_EXPORT void fxjs_world_get_stats(const fxs_world *w, int32_t *out)
{
	fxs_step_stats s = fxs_world_get_stats(w);
	fxjs_put64(out, s.step);
	out[2] = (int32_t)s.overflows;
	fxjs_put64(out + 3, s.overflows_total);
	out[5] = (int32_t)s.body_count, out[6] = (int32_t)s.pair_count, out[7] = (int32_t)s.contact_count;
	out[8] = (int32_t)s.contact_point_count, out[9] = (int32_t)s.awake_body_count;
}

FXJS_EXPORT int32_t fxjs_world_set_kernels(fxs_world *w, int32_t k) { return (int32_t)fxs_world_set_kernels(w, (fxs_kernels)k); }
FXJS_EXPORT int32_t fxjs_world_get_kernels(const fxs_world *w) { return (int32_t)fxs_world_get_kernels(w); }
FXJS_EXPORT const char *fxjs_kernels_name(int32_t k) { return fxs_kernels_name((fxs_kernels)k); }
FXJS_EXPORT int32_t fxjs_world_slot_count(const fxs_world *w) { return (int32_t)fxs_world_slot_count(w); }
FXJS_EXPORT int32_t fxjs_world_body_count(const fxs_world *w) { return (int32_t)fxs_world_body_count(w); }

/* the id in slot `slot` (index1 0 when empty) */
FXJS_EXPORT void fxjs_world_body_at(const fxs_world *w, int32_t slot, int32_t *out)
{
	fxs_body_id id = fxs_world_body_at(w, (uint32_t)slot);
	out[0] = (int32_t)id.index1, out[1] = (int32_t)id.generation;
}

/* ---- shapes ----
 * shape, FXJS_SHAPE_INTS int32: type, radius, half_height, half_extents x y
 * z, id (mesh, hull or compound) */
static void put_shape(int32_t *o, const fxs_shape *s)
{
	o[0] = s->type, o[1] = s->radius, o[2] = s->half_height;
	fxjs_put_v3(o + 3, s->half_extents);
	o[6] = (int32_t)s->hull_id;
}

/* The shape the kernel will see: mesh, hull and compound shapes are
 * resolved by the world (fxs_*_shape) so that their pointers are set. */
fxs_shape fxjs_shape(const fxs_world *w, const int32_t *p)
{
	fxs_shape s;
	memset(&s, 0, sizeof s);
	s.type = p[0];
	switch (p[0]) {
	case FXS_SHAPE_MESH: return fxs_mesh_shape(w, (fxs_mesh_id)p[6]);
	case FXS_SHAPE_HULL: return fxs_hull_shape(w, (fxs_hull_id)p[6]);
	case FXS_SHAPE_COMPOUND: return fxs_compound_shape(w, (fxs_compound_id)p[6]);
	default:
		s.radius = p[1], s.half_height = p[2], s.half_extents = fxjs_v3(p + 3);
		return s;
	}
}

/* ---- bodies ----
 * body definition, FXJS_BODY_DEF_INTS (36) int32: type, position x y z,
 * rotation x y z w, linear velocity x y z, angular velocity x y z, shape
 * (7), density, friction, restitution, linear_damping, angular_damping,
 * gravity_scale, user_data, filter (5), motion locks (bits), flags: 1
 * is_sensor, 2 enable_sensor_events, 4 enable_contact_events, 8
 * enable_hit_events, 16 is_enabled, 32 is_awake; rolling_resistance (35,
 * after the older fields) */
enum { F_SENSOR = 1,
       F_SENSOR_EVENTS = 2,
       F_CONTACT_EVENTS = 4,
       F_HIT_EVENTS = 8,
       F_ENABLED = 16,
       F_AWAKE = 32 };

FXJS_EXPORT void fxjs_body_def_default(int32_t *o)
{
	fxs_body_def d = fxs_default_body_def();
	o[0] = d.type;
	fxjs_put_v3(o + 1, d.position);
	fxjs_put_q4(o + 4, d.rotation);
	fxjs_put_v3(o + 8, d.linear_velocity);
	fxjs_put_v3(o + 11, d.angular_velocity);
	put_shape(o + 14, &d.shape);
	o[21] = d.density, o[22] = d.friction, o[23] = d.restitution, o[24] = d.linear_damping;
	o[25] = d.angular_damping, o[26] = d.gravity_scale, o[27] = (int32_t)d.user_data;
	fxjs_put_filter(o + 28, d.filter);
	o[33] = fxjs_lock_bits(d.motion_locks);
	o[34] = (d.is_sensor ? F_SENSOR : 0) | (d.enable_sensor_events ? F_SENSOR_EVENTS : 0) |
		(d.enable_contact_events ? F_CONTACT_EVENTS : 0) | (d.enable_hit_events ? F_HIT_EVENTS : 0) |
		(d.is_enabled ? F_ENABLED : 0) | (d.is_awake ? F_AWAKE : 0);
	o[35] = d.rolling_resistance;
}

/* out: index1, generation (0, 0 when the definition is refused: the reason
 * is the world's last error) */
FXJS_EXPORT void fxjs_body_create(fxs_world *w, const int32_t *p, int32_t *out)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = p[0];
	d.position = fxjs_v3(p + 1);
	d.rotation = fxjs_q4(p + 4);
	d.linear_velocity = fxjs_v3(p + 8);
	d.angular_velocity = fxjs_v3(p + 11);
	d.shape = fxjs_shape(w, p + 14);
	d.density = p[21], d.friction = p[22], d.restitution = p[23], d.linear_damping = p[24];
	d.angular_damping = p[25], d.gravity_scale = p[26], d.user_data = (uint32_t)p[27];
	d.filter = fxjs_filter(p + 28);
	d.motion_locks = fxjs_locks(p[33]);
	int32_t f = p[34];
	d.is_sensor = f & F_SENSOR, d.enable_sensor_events = f & F_SENSOR_EVENTS;
	d.enable_contact_events = f & F_CONTACT_EVENTS, d.enable_hit_events = f & F_HIT_EVENTS;
	d.is_enabled = f & F_ENABLED, d.is_awake = f & F_AWAKE;
	d.rolling_resistance = p[35];
	fxjs_put_id(out, fxs_body_create(w, &d));
}

FXJS_EXPORT int32_t fxjs_body_destroy(fxs_world *w, int32_t i, int32_t g) { return fxs_body_destroy(w, fxjs_bid(i, g)); }
FXJS_EXPORT int32_t fxjs_body_is_valid(const fxs_world *w, int32_t i, int32_t g) { return fxs_body_is_valid(w, fxjs_bid(i, g)); }
FXJS_EXPORT int32_t fxjs_body_get_type(const fxs_world *w, int32_t i, int32_t g) { return fxs_body_get_type(w, fxjs_bid(i, g)); }
FXJS_EXPORT int32_t fxjs_body_get_user_data(const fxs_world *w, int32_t i, int32_t g) { return (int32_t)fxs_body_get_user_data(w, fxjs_bid(i, g)); }
FXJS_EXPORT void fxjs_body_get_shape(const fxs_world *w, int32_t i, int32_t g, int32_t *out)
{
	fxs_shape s = fxs_body_get_shape(w, fxjs_bid(i, g));
	put_shape(out, &s);
}

/* position x y z, rotation x y z w, linear velocity x y z, angular velocity x y z */
FXJS_EXPORT void fxjs_body_get_state(const fxs_world *w, int32_t i, int32_t g, int32_t *out)
{
	fxs_body_id id = fxjs_bid(i, g);
	fxjs_put_v3(out, fxs_body_get_position(w, id));
	fxjs_put_q4(out + 3, fxs_body_get_rotation(w, id));
	fxjs_put_v3(out + 7, fxs_body_get_linear_velocity(w, id));
	fxjs_put_v3(out + 10, fxs_body_get_angular_velocity(w, id));
}

/* mass lo hi, inverse mass lo hi (Q32.32), inertia diagonal 3 x (lo hi) */
FXJS_EXPORT void fxjs_body_get_mass(const fxs_world *w, int32_t i, int32_t g, int32_t *out)
{
	fxs_body_id id = fxjs_bid(i, g);
	fxg_wide in[3];
	fxjs_put64(out, (uint64_t)fxs_body_get_mass(w, id));
	fxjs_put64(out + 2, (uint64_t)fxs_body_get_inv_mass(w, id));
	fxs_body_get_inertia(w, id, in);
	for (int k = 0; k < 3; ++k)
		fxjs_put64(out + 4 + 2 * k, (uint64_t)in[k]);
}

FXJS_EXPORT void fxjs_body_hash(const fxs_world *w, int32_t i, int32_t g, int32_t *out) { fxjs_put64(out, fxs_body_hash(w, fxjs_bid(i, g))); }

/* op 0: transform (p, q), 1: linear velocity, 2: angular velocity, 3:
 * force at point (f, p), 4: force at the centre, 5: torque, 6: linear
 * impulse at point (j, p), 7: angular impulse. The call's fxs_result. */
FXJS_EXPORT int32_t fxjs_body_set(fxs_world *w, int32_t i, int32_t g, int32_t op, const int32_t *a)
{
	fxs_body_id id = fxjs_bid(i, g);
	switch (op) {
	case 0: return fxs_body_set_transform(w, id, fxjs_v3(a), fxjs_q4(a + 3));
	case 1: return fxs_body_set_linear_velocity(w, id, fxjs_v3(a));
	case 2: return fxs_body_set_angular_velocity(w, id, fxjs_v3(a));
	case 3: return fxs_body_apply_force(w, id, fxjs_v3(a), fxjs_v3(a + 3));
	case 4: return fxs_body_apply_force_to_center(w, id, fxjs_v3(a));
	case 5: return fxs_body_apply_torque(w, id, fxjs_v3(a));
	case 6: return fxs_body_apply_linear_impulse(w, id, fxjs_v3(a), fxjs_v3(a + 3));
	case 7: return fxs_body_apply_angular_impulse(w, id, fxjs_v3(a));
	default: return FXS_ERR_INVALID_ARGUMENT;
	}
}


/* ---- meshes, hulls, compounds ---- */
FXJS_EXPORT int32_t fxjs_world_create_mesh(fxs_world *w, const int32_t *verts, int32_t nverts, const int32_t *tris,
					   int32_t ntris, int32_t thickness)
{
	if (nverts <= 0 || ntris <= 0)
		return 0;
	return (int32_t)fxs_world_create_mesh(w, (const fxg_vec3 *)(const void *)verts, (uint32_t)nverts,
					      (const uint32_t *)(const void *)tris, (uint32_t)ntris, thickness);
}

FXJS_EXPORT int32_t fxjs_world_create_heightfield(fxs_world *w, const int32_t *heights, int32_t nx, int32_t nz,
						  int32_t cell, int32_t thickness)
{
	if (nx <= 0 || nz <= 0)
		return 0;
	return (int32_t)fxs_world_create_heightfield(w, heights, (uint32_t)nx, (uint32_t)nz, cell, thickness);
}

/* com: 3 int32 */
FXJS_EXPORT int32_t fxjs_world_create_hull(fxs_world *w, const int32_t *pts, int32_t n, int32_t *com)
{
	if (n <= 0)
		return 0;
	fxg_vec3 c = fxg_v3_zero();
	fxs_hull_id id = fxs_world_create_hull(w, (const fxg_vec3 *)(const void *)pts, (uint32_t)n, &c);
	fxjs_put_v3(com, c);
	return (int32_t)id;
}

FXJS_EXPORT int32_t fxjs_hull_get_vertices(const fxs_world *w, int32_t id, int32_t *out, int32_t cap)
{
	return (int32_t)fxs_hull_get_vertices(w, (fxs_hull_id)id, (fxg_vec3 *)(void *)out, cap < 0 ? 0 : (uint32_t)cap);
}

/* children: n x (shape (7), position x y z, rotation x y z w); com: 3 int32 */
FXJS_EXPORT int32_t fxjs_world_create_compound(fxs_world *w, const int32_t *children, int32_t n, int32_t *com)
{
	if (n <= 0 || n > FXS_COMPOUND_MAX_CHILDREN)
		return 0;
	fxs_compound_child c[FXS_COMPOUND_MAX_CHILDREN];
	memset(c, 0, sizeof c);
	for (int32_t k = 0; k < n; ++k) {
		const int32_t *p = children + 14 * k;
		c[k].shape = fxjs_shape(w, p);
		c[k].xf.p = fxjs_v3(p + 7);
		c[k].xf.q = fxjs_q4(p + 10);
	}
	fxg_vec3 cm = fxg_v3_zero();
	fxs_compound_id id = fxs_world_create_compound(w, c, (uint32_t)n, &cm);
	fxjs_put_v3(com, cm);
	return (int32_t)id;
}

/* ---- snapshots ---- */
FXJS_EXPORT int32_t fxjs_world_snapshot_size(const fxs_world *w) { return (int32_t)fxs_world_snapshot_size(w); }

/* FXS_OK and the bytes in *written, or why not */
FXJS_EXPORT int32_t fxjs_world_snapshot_save(const fxs_world *w, void *buf, int32_t cap, int32_t *written)
{
	size_t n = 0;
	fxs_result r = fxs_world_snapshot_save(w, buf, cap < 0 ? 0 : (size_t)cap, &n);
	*written = (int32_t)n;
	return (int32_t)r;
}

FXJS_EXPORT int32_t fxjs_world_snapshot_restore(fxs_world *w, const void *buf, int32_t len)
{
	return len < 0 ? FXS_ERR_INVALID_ARGUMENT : (int32_t)fxs_world_snapshot_restore(w, buf, (size_t)len);
}

FXJS_EXPORT fxs_world *fxjs_world_create_from_snapshot(const void *buf, int32_t len, int32_t *err)
{
	fxs_result r = FXS_ERR_INVALID_ARGUMENT;
	fxs_world *w = len < 0 ? NULL : fxs_world_create_from_snapshot(buf, (size_t)len, &r);
	*err = w ? FXS_OK : (int32_t)r;
	return w;
}

/* ---- joints ----
 * joint definition, FXJS_JOINT_DEF_INTS int32: type, body a (index1,
 * generation), body b (index1, generation), local_anchor_a x y z,
 * local_anchor_b x y z, local_axis_a x y z, collide_connected, hertz,
 * damping_ratio, enable_limit, lower, upper, enable_motor, motor_speed,
 * max_motor_force, length, enable_spring, spring_hertz,
 * spring_damping_ratio, enable_cone, cone_angle, local_spin_axis_a x y z,
 * steering_angle, linear_offset x y z, angular_offset x y z w,
 * max_motor_torque, correction_factor */
static fxs_joint_def default_joint_def(int32_t type)
{
	switch (type) {
	case FXS_JOINT_HINGE: return fxs_default_hinge_joint_def();
	case FXS_JOINT_FIXED: return fxs_default_fixed_joint_def();
	case FXS_JOINT_DISTANCE: return fxs_default_distance_joint_def();
	case FXS_JOINT_PRISMATIC: return fxs_default_prismatic_joint_def();
	case FXS_JOINT_SPHERICAL: return fxs_default_spherical_joint_def();
	case FXS_JOINT_FILTER: return fxs_default_filter_joint_def();
	case FXS_JOINT_WHEEL: return fxs_default_wheel_joint_def();
	case FXS_JOINT_MOTOR: return fxs_default_motor_joint_def();
	default: return fxs_default_ball_joint_def();
	}
}

FXJS_EXPORT void fxjs_joint_def_default(int32_t type, int32_t *o)
{
	fxs_joint_def d = default_joint_def(type);
	o[0] = d.type, o[1] = (int32_t)d.body_a.index1, o[2] = (int32_t)d.body_a.generation;
	o[3] = (int32_t)d.body_b.index1, o[4] = (int32_t)d.body_b.generation;
	fxjs_put_v3(o + 5, d.local_anchor_a);
	fxjs_put_v3(o + 8, d.local_anchor_b);
	fxjs_put_v3(o + 11, d.local_axis_a);
	o[14] = d.collide_connected, o[15] = d.hertz, o[16] = d.damping_ratio, o[17] = d.enable_limit;
	o[18] = d.lower, o[19] = d.upper, o[20] = d.enable_motor, o[21] = d.motor_speed, o[22] = d.max_motor_force;
	o[23] = d.length, o[24] = d.enable_spring, o[25] = d.spring_hertz, o[26] = d.spring_damping_ratio;
	o[27] = d.enable_cone, o[28] = d.cone_angle;
	fxjs_put_v3(o + 29, d.local_spin_axis_a);
	o[32] = d.steering_angle;
	fxjs_put_v3(o + 33, d.linear_offset);
	o[36] = d.angular_offset.x, o[37] = d.angular_offset.y, o[38] = d.angular_offset.z, o[39] = d.angular_offset.w;
	o[40] = d.max_motor_torque, o[41] = d.correction_factor;
}

FXJS_EXPORT void fxjs_joint_create(fxs_world *w, const int32_t *p, int32_t *out)
{
	fxs_joint_def d = default_joint_def(p[0]);
	d.type = p[0];
	d.body_a = fxjs_bid(p[1], p[2]), d.body_b = fxjs_bid(p[3], p[4]);
	d.local_anchor_a = fxjs_v3(p + 5), d.local_anchor_b = fxjs_v3(p + 8), d.local_axis_a = fxjs_v3(p + 11);
	d.collide_connected = p[14] != 0, d.hertz = p[15], d.damping_ratio = p[16], d.enable_limit = p[17] != 0;
	d.lower = p[18], d.upper = p[19], d.enable_motor = p[20] != 0, d.motor_speed = p[21], d.max_motor_force = p[22];
	d.length = p[23], d.enable_spring = p[24] != 0, d.spring_hertz = p[25], d.spring_damping_ratio = p[26];
	d.enable_cone = p[27] != 0, d.cone_angle = p[28];
	d.local_spin_axis_a = fxjs_v3(p + 29), d.steering_angle = p[32];
	d.linear_offset = fxjs_v3(p + 33), d.angular_offset = fxg_q(p[36], p[37], p[38], p[39]);
	d.max_motor_torque = p[40], d.correction_factor = p[41];
	fxs_joint_id id = fxs_joint_create(w, &d);
	out[0] = (int32_t)id.index1, out[1] = (int32_t)id.generation;
}

FXJS_EXPORT int32_t fxjs_joint_destroy(fxs_world *w, int32_t i, int32_t g) { return fxs_joint_destroy(w, jid(i, g)); }
FXJS_EXPORT int32_t fxjs_joint_is_valid(const fxs_world *w, int32_t i, int32_t g) { return fxs_joint_is_valid(w, jid(i, g)); }
FXJS_EXPORT int32_t fxjs_world_joint_count(const fxs_world *w) { return (int32_t)fxs_world_joint_count(w); }

/* type, body a (index1, generation), body b, anchor a x y z, anchor b x y
 * z (world), position (angle, translation or length), swing angle */
FXJS_EXPORT void fxjs_joint_get_state(const fxs_world *w, int32_t i, int32_t g, int32_t *o)
{
	fxs_joint_id id = jid(i, g);
	fxs_body_id a = fxs_joint_get_body_a(w, id), b = fxs_joint_get_body_b(w, id);
	o[0] = (int32_t)fxs_joint_get_type(w, id);
	o[1] = (int32_t)a.index1, o[2] = (int32_t)a.generation, o[3] = (int32_t)b.index1, o[4] = (int32_t)b.generation;
	fxjs_put_v3(o + 5, fxs_joint_get_anchor_a(w, id));
	fxjs_put_v3(o + 8, fxs_joint_get_anchor_b(w, id));
	o[11] = fxs_joint_get_position(w, id);
	o[12] = fxs_joint_get_swing_angle(w, id);
}

FXJS_EXPORT int32_t fxjs_joint_set_steering(fxs_world *w, int32_t i, int32_t g, int32_t angle)
{
	return (int32_t)fxs_joint_set_steering(w, jid(i, g), angle);
}

FXJS_EXPORT void fxjs_joint_set_motor(fxs_world *w, int32_t i, int32_t g, int32_t enable, int32_t speed, int32_t max_force)
{
	fxs_joint_set_motor(w, jid(i, g), enable != 0, speed, max_force);
}

/* ---- characters ----
 * definition, 9 int32: position x y z, radius, half_height, step_height,
 * max_slope_cos, jump_speed, density */
FXJS_EXPORT void fxjs_character_def_default(int32_t *o)
{
	fxs_character_def d = fxs_default_character_def();
	fxjs_put_v3(o, d.position);
	o[3] = d.radius, o[4] = d.half_height, o[5] = d.step_height, o[6] = d.max_slope_cos, o[7] = d.jump_speed;
	o[8] = d.density;
}

FXJS_EXPORT int32_t fxjs_character_create(fxs_world *w, const int32_t *p)
{
	fxs_character_def d = fxs_default_character_def();
	d.position = fxjs_v3(p);
	d.radius = p[3], d.half_height = p[4], d.step_height = p[5], d.max_slope_cos = p[6], d.jump_speed = p[7];
	d.density = p[8];
	return (int32_t)fxs_character_create(w, &d);
}

FXJS_EXPORT int32_t fxjs_character_destroy(fxs_world *w, int32_t id) { return fxs_character_destroy(w, (fxs_character_id)id); }
FXJS_EXPORT void fxjs_character_set_move(fxs_world *w, int32_t id, const int32_t *vel, int32_t jump)
{
	fxs_character_set_move(w, (fxs_character_id)id, fxjs_v3(vel), jump != 0);
}

/* body (index1, generation), position x y z, grounded, ground (index1, generation) */
FXJS_EXPORT void fxjs_character_get_state(const fxs_world *w, int32_t id, int32_t *o)
{
	fxs_character_id c = (fxs_character_id)id;
	fxs_body_id b = fxs_character_get_body(w, c), g = fxs_character_get_ground(w, c);
	o[0] = (int32_t)b.index1, o[1] = (int32_t)b.generation;
	fxjs_put_v3(o + 2, fxs_character_get_position(w, c));
	o[5] = fxs_character_is_grounded(w, c);
	o[6] = (int32_t)g.index1, o[7] = (int32_t)g.generation;
}

FXJS_EXPORT int32_t fxjs_world_character_count(const fxs_world *w) { return (int32_t)fxs_world_character_count(w); }
