/* The API-call log: encoding (call_log.h). Integer only, little-endian. */
#include "world/call_log.h"
#include "fixstep/character.h"
#include "fixstep/joint.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name, *sig;
} ops[FXS_OP_COUNT] = {
	[FXS_OP_WORLD_SET_GRAVITY] = { "fxs_world_set_gravity", "v" },
	[FXS_OP_WORLD_SET_CONTACT_TUNING] = { "fxs_world_set_contact_tuning", "fff" },
	[FXS_OP_WORLD_SET_RESTITUTION_THRESHOLD] = { "fxs_world_set_restitution_threshold", "f" },
	[FXS_OP_WORLD_SET_HIT_EVENT_THRESHOLD] = { "fxs_world_set_hit_event_threshold", "f" },
	[FXS_OP_WORLD_ENABLE_SLEEPING] = { "fxs_world_enable_sleeping", "b" },
	[FXS_OP_BODY_CREATE] = { "fxs_body_create", "D" },
	[FXS_OP_BODY_DESTROY] = { "fxs_body_destroy", "I" },
	[FXS_OP_BODY_SET_TRANSFORM] = { "fxs_body_set_transform", "Ivq" },
	[FXS_OP_BODY_SET_LINEAR_VELOCITY] = { "fxs_body_set_linear_velocity", "Iv" },
	[FXS_OP_BODY_SET_ANGULAR_VELOCITY] = { "fxs_body_set_angular_velocity", "Iv" },
	[FXS_OP_BODY_APPLY_FORCE] = { "fxs_body_apply_force", "Ivv" },
	[FXS_OP_BODY_APPLY_FORCE_TO_CENTER] = { "fxs_body_apply_force_to_center", "Iv" },
	[FXS_OP_BODY_APPLY_TORQUE] = { "fxs_body_apply_torque", "Iv" },
	[FXS_OP_BODY_APPLY_LINEAR_IMPULSE] = { "fxs_body_apply_linear_impulse", "Ivv" },
	[FXS_OP_BODY_APPLY_ANGULAR_IMPULSE] = { "fxs_body_apply_angular_impulse", "Iv" },
	[FXS_OP_BODY_SET_USER_DATA] = { "fxs_body_set_user_data", "Iu" },
	[FXS_OP_BODY_SET_AWAKE] = { "fxs_body_set_awake", "Ib" },
	[FXS_OP_BODY_DISABLE] = { "fxs_body_disable", "I" },
	[FXS_OP_BODY_ENABLE] = { "fxs_body_enable", "I" },
	[FXS_OP_BODY_SET_TYPE] = { "fxs_body_set_type", "Ii" },
	[FXS_OP_BODY_SET_FRICTION] = { "fxs_body_set_friction", "If" },
	[FXS_OP_BODY_SET_RESTITUTION] = { "fxs_body_set_restitution", "If" },
	[FXS_OP_BODY_SET_DENSITY] = { "fxs_body_set_density", "If" },
	[FXS_OP_BODY_SET_MASS_DATA] = { "fxs_body_set_mass_data", "IwW" },
	[FXS_OP_BODY_SET_GRAVITY_SCALE] = { "fxs_body_set_gravity_scale", "If" },
	[FXS_OP_BODY_SET_DAMPING] = { "fxs_body_set_damping", "Iff" },
	[FXS_OP_BODY_SET_MOTION_LOCKS] = { "fxs_body_set_motion_locks", "IL" },
	[FXS_OP_BODY_SET_FILTER] = { "fxs_body_set_filter", "IF" },
	[FXS_OP_BODY_ENABLE_CONTACT_EVENTS] = { "fxs_body_enable_contact_events", "Ib" },
	[FXS_OP_BODY_ENABLE_HIT_EVENTS] = { "fxs_body_enable_hit_events", "Ib" },
	[FXS_OP_BODY_ENABLE_SENSOR_EVENTS] = { "fxs_body_enable_sensor_events", "Ib" },
	[FXS_OP_WORLD_CREATE_MESH] = { "fxs_world_create_mesh", "VTf" },
	[FXS_OP_WORLD_CREATE_HEIGHTFIELD] = { "fxs_world_create_heightfield", "Hff" },
	[FXS_OP_WORLD_CREATE_HULL] = { "fxs_world_create_hull", "V" },
	[FXS_OP_WORLD_CREATE_COMPOUND] = { "fxs_world_create_compound", "C" },
	[FXS_OP_WORLD_SNAPSHOT_RESTORE] = { "fxs_world_snapshot_restore", "B" },
	[FXS_OP_JOINT_CREATE] = { "fxs_joint_create", "j" },
	[FXS_OP_JOINT_DESTROY] = { "fxs_joint_destroy", "J" },
	[FXS_OP_JOINT_SET_MOTOR] = { "fxs_joint_set_motor", "Jbff" },
	[FXS_OP_CHARACTER_CREATE] = { "fxs_character_create", "c" },
	[FXS_OP_CHARACTER_DESTROY] = { "fxs_character_destroy", "u" },
	[FXS_OP_CHARACTER_SET_MOVE] = { "fxs_character_set_move", "uvb" },
	[FXS_OP_JOINT_SET_STEERING] = { "fxs_joint_set_steering", "Jf" },
	[FXS_OP_JOINT_SET_MOTOR_TARGET] = { "fxs_joint_set_motor_target", "Jvq" },
	[FXS_OP_BODY_SET_ROLLING_RESISTANCE] = { "fxs_body_set_rolling_resistance", "If" },
};

const char *fxs_call_name(uint32_t op) { return op > 0 && op < FXS_OP_COUNT ? ops[op].name : NULL; }
const char *fxs_call_sig(uint32_t op) { return op > 0 && op < FXS_OP_COUNT ? ops[op].sig : NULL; }

bool fxs_call_log_start(fxs_world *w)
{
	if (!w)
		return false;
	if (!w->call_log)
		w->call_log = calloc(1, sizeof *w->call_log);
	return w->call_log != NULL;
}

void fxs_call_log_stop(fxs_world *w)
{
	if (!w || !w->call_log)
		return;
	free(w->call_log->buf);
	free(w->call_log);
	w->call_log = NULL;
}

const fxs_call_log *fxs_call_log_of(const fxs_world *w) { return w ? w->call_log : NULL; }

void fxs_call_log_clear(fxs_world *w)
{
	if (w && w->call_log)
		w->call_log->len = 0, w->call_log->count = 0;
}

/* ---- encoding ---- */

static uint8_t *room(fxs_call_log *l, size_t n)
{
	if (l->failed)
		return NULL;
	if (n > l->cap - l->len) {
		size_t c = l->cap ? l->cap : 256;
		while (c - l->len < n) {
			if (c > SIZE_MAX / 2) {
				l->failed = true;
				return NULL;
			}
			c *= 2;
		}
		uint8_t *b = realloc(l->buf, c);
		if (!b) {
			l->failed = true;
			return NULL;
		}
		l->buf = b, l->cap = c;
	}
	uint8_t *p = l->buf + l->len;
	l->len += n;
	return p;
}

static void u8(fxs_call_log *l, uint32_t v)
{
	uint8_t *p = room(l, 1);
	if (p)
		p[0] = (uint8_t)v;
}
static void u32(fxs_call_log *l, uint32_t v)
{
	uint8_t *p = room(l, 4);
	if (p)
		for (int i = 0; i < 4; ++i)
			p[i] = (uint8_t)(v >> (8 * i));
}
static void u64(fxs_call_log *l, uint64_t v)
{
	u32(l, (uint32_t)v);
	u32(l, (uint32_t)(v >> 32));
}
static void i32(fxs_call_log *l, int32_t v) { u32(l, (uint32_t)v); }
static void b1(fxs_call_log *l, bool v) { u8(l, v ? 1u : 0u); }
static void v3(fxs_call_log *l, fxg_vec3 v)
{
	i32(l, v.x), i32(l, v.y), i32(l, v.z);
}
static void q4(fxs_call_log *l, fxg_quat q)
{
	i32(l, q.x), i32(l, q.y), i32(l, q.z), i32(l, q.w);
}
static void id2(fxs_call_log *l, uint32_t index1, uint32_t generation)
{
	u32(l, index1), u32(l, generation);
}
static void shape(fxs_call_log *l, const fxs_shape *s)
{
	i32(l, (int32_t)s->type), i32(l, s->radius), i32(l, s->half_height), v3(l, s->half_extents);
	/* the id of the union's kind (they share their bits); none for the others */
	u32(l, s->type == FXS_SHAPE_MESH || s->type == FXS_SHAPE_HULL || s->type == FXS_SHAPE_COMPOUND ? s->mesh_id : 0);
}
static void filter(fxs_call_log *l, fxs_filter f)
{
	u64(l, f.category_bits), u64(l, f.mask_bits), i32(l, f.group_index);
}
static void locks(fxs_call_log *l, fxs_motion_locks k)
{
	b1(l, k.linear_x), b1(l, k.linear_y), b1(l, k.linear_z);
	b1(l, k.angular_x), b1(l, k.angular_y), b1(l, k.angular_z);
}
static void body_def(fxs_call_log *l, const fxs_body_def *d)
{
	i32(l, (int32_t)d->type), v3(l, d->position), q4(l, d->rotation), v3(l, d->linear_velocity);
	v3(l, d->angular_velocity), shape(l, &d->shape);
	i32(l, d->density), i32(l, d->friction), i32(l, d->restitution), i32(l, d->linear_damping);
	i32(l, d->angular_damping), i32(l, d->gravity_scale), u32(l, d->user_data);
	filter(l, d->filter), locks(l, d->motion_locks);
	b1(l, d->is_sensor), b1(l, d->enable_sensor_events), b1(l, d->enable_contact_events);
	b1(l, d->enable_hit_events), b1(l, d->is_enabled), b1(l, d->is_awake);
}
static void joint_def(fxs_call_log *l, const fxs_joint_def *d)
{
	i32(l, d->type), id2(l, d->body_a.index1, d->body_a.generation), id2(l, d->body_b.index1, d->body_b.generation);
	v3(l, d->local_anchor_a), v3(l, d->local_anchor_b), v3(l, d->local_axis_a), b1(l, d->collide_connected);
	i32(l, d->hertz), i32(l, d->damping_ratio), b1(l, d->enable_limit), i32(l, d->lower), i32(l, d->upper);
	b1(l, d->enable_motor), i32(l, d->motor_speed), i32(l, d->max_motor_force), i32(l, d->length);
	b1(l, d->enable_spring), i32(l, d->spring_hertz), i32(l, d->spring_damping_ratio);
	/* the fields of the later types, only for them (the older records stay as they were) */
	if (d->type == FXS_JOINT_SPHERICAL)
		b1(l, d->enable_cone), i32(l, d->cone_angle);
	if (d->type == FXS_JOINT_WHEEL)
		v3(l, d->local_spin_axis_a), i32(l, d->steering_angle);
	if (d->type == FXS_JOINT_MOTOR)
		v3(l, d->linear_offset), q4(l, d->angular_offset), i32(l, d->max_motor_torque), i32(l, d->correction_factor);
}
static void character_def(fxs_call_log *l, const fxs_character_def *d)
{
	v3(l, d->position), i32(l, d->radius), i32(l, d->half_height), i32(l, d->step_height);
	i32(l, d->max_slope_cos), i32(l, d->jump_speed), i32(l, d->density);
}

void fxs_call_log_put(fxs_world *w, uint32_t op, ...)
{
	fxs_call_log *l = w->call_log;
	const char *sig = fxs_call_sig(op);
	if (l->mute || !sig)
		return;
	size_t start = l->len;
	u32(l, op);
	u32(l, 0); /* the arguments' length, below */
	va_list ap;
	va_start(ap, op);
	for (; *sig; ++sig) {
		switch (*sig) {
		case 'I': {
			fxs_body_id id = va_arg(ap, fxs_body_id);
			id2(l, id.index1, id.generation);
			break;
		}
		case 'J': {
			fxs_joint_id id = va_arg(ap, fxs_joint_id);
			id2(l, id.index1, id.generation);
			break;
		}
		case 'u': u32(l, va_arg(ap, uint32_t)); break;
		case 'i': i32(l, va_arg(ap, int)); break;
		case 'f': i32(l, va_arg(ap, fix16_t)); break;
		case 'b': b1(l, va_arg(ap, int) != 0); break;
		case 'v': v3(l, va_arg(ap, fxg_vec3)); break;
		case 'q': q4(l, va_arg(ap, fxg_quat)); break;
		case 'w': u64(l, (uint64_t)va_arg(ap, fxg_wide)); break;
		case 'F': filter(l, va_arg(ap, fxs_filter)); break;
		case 'L': locks(l, va_arg(ap, fxs_motion_locks)); break;
		case 'W': {
			const fxg_wide *x = va_arg(ap, const fxg_wide *);
			b1(l, x != NULL);
			for (int i = 0; x && i < 3; ++i)
				u64(l, (uint64_t)x[i]);
			break;
		}
		case 'D': {
			const fxs_body_def *d = va_arg(ap, const fxs_body_def *);
			b1(l, d != NULL);
			if (d)
				body_def(l, d);
			break;
		}
		case 'j': {
			const fxs_joint_def *d = va_arg(ap, const fxs_joint_def *);
			b1(l, d != NULL);
			if (d)
				joint_def(l, d);
			break;
		}
		case 'c': {
			const fxs_character_def *d = va_arg(ap, const fxs_character_def *);
			b1(l, d != NULL);
			if (d)
				character_def(l, d);
			break;
		}
		case 'V': {
			const fxg_vec3 *p = va_arg(ap, const fxg_vec3 *);
			uint32_t n = va_arg(ap, uint32_t);
			b1(l, p != NULL), u32(l, n);
			for (uint32_t i = 0; p && i < n; ++i)
				v3(l, p[i]);
			break;
		}
		case 'T': {
			const uint32_t *p = va_arg(ap, const uint32_t *);
			uint32_t n = va_arg(ap, uint32_t);
			b1(l, p != NULL), u32(l, n);
			for (uint64_t i = 0; p && i < (uint64_t)n * 3; ++i)
				u32(l, p[i]);
			break;
		}
		case 'H': {
			const fix16_t *p = va_arg(ap, const fix16_t *);
			uint32_t nx = va_arg(ap, uint32_t), nz = va_arg(ap, uint32_t);
			bool ok = p && nx >= 2 && nx <= 4097 && nz >= 2 && nz <= 4097;
			b1(l, ok), u32(l, nx), u32(l, nz);
			for (uint64_t i = 0; ok && i < (uint64_t)nx * nz; ++i)
				i32(l, p[i]);
			break;
		}
		case 'C': {
			const fxs_compound_child *p = va_arg(ap, const fxs_compound_child *);
			uint32_t n = va_arg(ap, uint32_t);
			b1(l, p != NULL), u32(l, n);
			for (uint32_t i = 0; p && i < n; ++i)
				shape(l, &p[i].shape), v3(l, p[i].xf.p), q4(l, p[i].xf.q);
			break;
		}
		case 'B': {
			const uint8_t *p = va_arg(ap, const uint8_t *);
			size_t n = va_arg(ap, size_t);
			bool ok = p && n <= UINT32_MAX;
			b1(l, ok), u32(l, ok ? (uint32_t)n : 0);
			uint8_t *d = ok ? room(l, n) : NULL;
			if (d)
				memcpy(d, p, n);
			break;
		}
		}
	}
	va_end(ap);
	if (l->failed)
		return;
	size_t args = l->len - start - 8;
	if (args > UINT32_MAX) {
		l->failed = true;
		return;
	}
	for (int i = 0; i < 4; ++i)
		l->buf[start + 4 + (size_t)i] = (uint8_t)(args >> (8 * i));
	l->count++;
}
