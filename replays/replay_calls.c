/* Call records: checking (hostile input) and re-making the calls. The
 * encoder is the kernel's call log (kernel/src/world/call_log.c); both
 * follow the op's signature (call_log.h). */
#include "replay_calls.h"
#include "fixstep/character.h"
#include "fixstep/joint.h"
#include "world/call_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* ---- checking ---- */

static const char *const SHORT = "an argument runs past the call's record";
static const char *const NOT_BOOL = "a bool that is neither 0 nor 1";

/* The bools inside a definition, by offset from its first byte. */
static bool bools_ok(const uint8_t *d, const uint8_t *at, size_t n)
{
	for (size_t i = 0; i < n; ++i)
		if (d[at[i]] > 1)
			return false;
	return true;
}

/* The encoded length of one argument at p (n bytes left), or SIZE_MAX when
 * it does not fit or is not canonical (*why says so). */
static size_t arg_size(char a, const uint8_t *p, size_t n, const char **why)
{
	static const uint8_t body_bools[12] = { 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143 };
	static const uint8_t joint_bools[4] = { 56, 65, 74, 87 };
	uint64_t size;
	*why = SHORT;
	switch (a) {
	case 'I':
	case 'J':
	case 'w': size = 8; break;
	case 'u':
	case 'i':
	case 'f': size = 4; break;
	case 'v': size = 12; break;
	case 'q': size = 16; break;
	case 'F': size = 20; break;
	case 'b':
	case 'L':
		size = a == 'b' ? 1 : 6;
		for (size_t i = 0; i < size && i < n; ++i)
			if (p[i] > 1) {
				*why = NOT_BOOL;
				return SIZE_MAX;
			}
		break;
	default: {
		if (n < 1)
			return SIZE_MAX;
		if (p[0] > 1) {
			*why = "a presence byte that is neither 0 nor 1";
			return SIZE_MAX;
		}
		bool present = p[0] == 1;
		switch (a) {
		case 'W': size = 1 + (present ? 24 : 0); break;
		case 'D': size = 1 + (present ? FXS_CALL_BODY_DEF_SIZE : 0); break;
		case 'j': size = 1 + (present ? FXS_CALL_JOINT_DEF_SIZE : 0); break;
		case 'c': size = 1 + (present ? FXS_CALL_CHARACTER_DEF_SIZE : 0); break;
		case 'V':
		case 'T':
		case 'C':
		case 'B': {
			if (n < 5)
				return SIZE_MAX;
			uint64_t elem = a == 'V' || a == 'T' ? 12 : a == 'C' ? FXS_CALL_CHILD_SIZE
									     : 1;
			size = 5 + (present ? rd32(p + 1) * elem : 0);
			break;
		}
		case 'H':
			if (n < 9)
				return SIZE_MAX;
			if (present && (rd32(p + 1) < 2 || rd32(p + 1) > 4097 || rd32(p + 5) < 2 || rd32(p + 5) > 4097)) {
				*why = "a heightfield's size out of 2..4097";
				return SIZE_MAX;
			}
			size = 9 + (present ? (uint64_t)rd32(p + 1) * rd32(p + 5) * 4 : 0);
			break;
		default: *why = "an unknown argument kind"; return SIZE_MAX;
		}
		if (size <= n && present && ((a == 'D' && !bools_ok(p + 1, body_bools, 12)) || (a == 'j' && !bools_ok(p + 1, joint_bools, 4)))) {
			*why = NOT_BOOL;
			return SIZE_MAX;
		}
	}
	}
	return size <= n ? (size_t)size : SIZE_MAX;
}

bool fxs_calls_check(const uint8_t *buf, size_t len, uint32_t count, size_t *bad_offset, char *why, size_t n)
{
	size_t pos = 0;
	for (uint32_t k = 0; k < count; ++k) {
		if (len - pos < 8) {
			*bad_offset = pos;
			snprintf(why, n, "call %u runs past the tick's calls", k);
			return false;
		}
		uint32_t op = rd32(buf + pos), alen = rd32(buf + pos + 4);
		const char *sig = fxs_call_sig(op);
		if (!sig) {
			*bad_offset = pos;
			snprintf(why, n, "call %u has an unknown op %u", k, op);
			return false;
		}
		if (alen > len - pos - 8) {
			*bad_offset = pos + 4;
			snprintf(why, n, "call %u (%s) has %u bytes of arguments, past the tick's calls", k, fxs_call_name(op), alen);
			return false;
		}
		const uint8_t *a = buf + pos + 8;
		size_t at = 0;
		for (const char *s = sig; *s; ++s) {
			const char *w = "";
			size_t z = arg_size(*s, a + at, alen - at, &w);
			if (z == SIZE_MAX) {
				*bad_offset = pos + 8 + at;
				snprintf(why, n, "call %u (%s), argument %d: %s", k, fxs_call_name(op), (int)(s - sig) + 1, w);
				return false;
			}
			at += z;
		}
		if (at != alen) {
			*bad_offset = pos + 4;
			snprintf(why, n, "call %u (%s) has %u bytes of arguments, its signature %zu", k, fxs_call_name(op), alen, at);
			return false;
		}
		pos += 8 + (size_t)alen;
	}
	if (pos != len) {
		*bad_offset = pos;
		snprintf(why, n, "%zu bytes after the tick's %u calls", len - pos, count);
		return false;
	}
	return true;
}

/* ---- decoding (records already checked) ---- */

typedef struct cur {
	const uint8_t *p;
} cur;

static uint32_t gu(cur *c)
{
	uint32_t v = rd32(c->p);
	c->p += 4;
	return v;
}
static int32_t gi(cur *c) { return (int32_t)gu(c); }
static uint64_t g64(cur *c)
{
	uint64_t lo = gu(c);
	return lo | ((uint64_t)gu(c) << 32);
}
static bool gb(cur *c) { return *c->p++ != 0; }
static fxg_vec3 gv(cur *c)
{
	fxg_vec3 v;
	v.x = gi(c), v.y = gi(c), v.z = gi(c);
	return v;
}
static fxg_quat gq(cur *c)
{
	fxg_quat q;
	q.x = gi(c), q.y = gi(c), q.z = gi(c), q.w = gi(c);
	return q;
}
static fxs_body_id gid(cur *c)
{
	fxs_body_id id;
	id.index1 = gu(c), id.generation = gu(c);
	return id;
}
static fxs_joint_id gjid(cur *c)
{
	fxs_joint_id id;
	id.index1 = gu(c), id.generation = gu(c);
	return id;
}
static fxs_shape gshape(cur *c)
{
	fxs_shape s;
	memset(&s, 0, sizeof s);
	s.type = (fxs_shape_type)gi(c), s.radius = gi(c), s.half_height = gi(c), s.half_extents = gv(c);
	s.mesh_id = gu(c);
	return s;
}
static fxs_filter gfilter(cur *c)
{
	fxs_filter f;
	f.category_bits = g64(c), f.mask_bits = g64(c), f.group_index = gi(c);
	return f;
}
static fxs_motion_locks glocks(cur *c)
{
	fxs_motion_locks k;
	k.linear_x = gb(c), k.linear_y = gb(c), k.linear_z = gb(c);
	k.angular_x = gb(c), k.angular_y = gb(c), k.angular_z = gb(c);
	return k;
}
static fxs_body_def gbody_def(cur *c)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = (fxs_body_type)gi(c), d.position = gv(c), d.rotation = gq(c), d.linear_velocity = gv(c);
	d.angular_velocity = gv(c), d.shape = gshape(c);
	d.density = gi(c), d.friction = gi(c), d.restitution = gi(c), d.linear_damping = gi(c);
	d.angular_damping = gi(c), d.gravity_scale = gi(c), d.user_data = gu(c);
	d.filter = gfilter(c), d.motion_locks = glocks(c);
	d.is_sensor = gb(c), d.enable_sensor_events = gb(c), d.enable_contact_events = gb(c);
	d.enable_hit_events = gb(c), d.is_enabled = gb(c), d.is_awake = gb(c);
	return d;
}
static fxs_joint_def gjoint_def(cur *c)
{
	fxs_joint_def d = fxs_default_ball_joint_def();
	d.type = gi(c), d.body_a = gid(c), d.body_b = gid(c);
	d.local_anchor_a = gv(c), d.local_anchor_b = gv(c), d.local_axis_a = gv(c), d.collide_connected = gb(c);
	d.hertz = gi(c), d.damping_ratio = gi(c), d.enable_limit = gb(c), d.lower = gi(c), d.upper = gi(c);
	d.enable_motor = gb(c), d.motor_speed = gi(c), d.max_motor_force = gi(c), d.length = gi(c);
	d.enable_spring = gb(c), d.spring_hertz = gi(c), d.spring_damping_ratio = gi(c);
	if (d.type == FXS_JOINT_SPHERICAL) /* the later types' fields (call_log.c) */
		d.enable_cone = gb(c), d.cone_angle = gi(c);
	if (d.type == FXS_JOINT_WHEEL)
		d.local_spin_axis_a = gv(c), d.steering_angle = gi(c);
	if (d.type == FXS_JOINT_MOTOR)
		d.linear_offset = gv(c), d.angular_offset = gq(c), d.max_motor_torque = gi(c), d.correction_factor = gi(c);
	return d;
}
static fxs_character_def gchar_def(cur *c)
{
	fxs_character_def d = fxs_default_character_def();
	d.position = gv(c), d.radius = gi(c), d.half_height = gi(c), d.step_height = gi(c);
	d.max_slope_cos = gi(c), d.jump_speed = gi(c), d.density = gi(c);
	return d;
}

/* An array argument: presence, count, and its elements decoded into a new
 * buffer (*out, NULL when absent). false: out of memory. */
static bool garray(cur *c, size_t elem_size, uint32_t per, void **out, uint32_t *n, bool *present)
{
	*present = gb(c);
	*n = gu(c);
	*out = NULL;
	if (!*present)
		return true;
	size_t count = (size_t)*n * per;
	*out = malloc(count ? count * elem_size : 1);
	return *out != NULL;
}

static fxs_result run_one(fxs_world *w, uint32_t op, cur *c)
{
	fxs_body_id id;
	fxg_vec3 a, b;
	switch (op) {
	case FXS_OP_WORLD_SET_GRAVITY: fxs_world_set_gravity(w, gv(c)); break;
	case FXS_OP_WORLD_SET_CONTACT_TUNING: {
		fix16_t h = gi(c), d = gi(c), m = gi(c);
		fxs_world_set_contact_tuning(w, h, d, m);
		break;
	}
	case FXS_OP_WORLD_SET_RESTITUTION_THRESHOLD: fxs_world_set_restitution_threshold(w, gi(c)); break;
	case FXS_OP_WORLD_SET_HIT_EVENT_THRESHOLD: fxs_world_set_hit_event_threshold(w, gi(c)); break;
	case FXS_OP_WORLD_ENABLE_SLEEPING: fxs_world_enable_sleeping(w, gb(c)); break;
	case FXS_OP_BODY_CREATE: {
		if (gb(c)) {
			fxs_body_def d = gbody_def(c);
			fxs_body_create(w, &d);
		} else {
			fxs_body_create(w, NULL);
		}
		break;
	}
	case FXS_OP_BODY_DESTROY: fxs_body_destroy(w, gid(c)); break;
	case FXS_OP_BODY_SET_TRANSFORM:
		id = gid(c), a = gv(c);
		fxs_body_set_transform(w, id, a, gq(c));
		break;
	case FXS_OP_BODY_SET_LINEAR_VELOCITY: id = gid(c), fxs_body_set_linear_velocity(w, id, gv(c)); break;
	case FXS_OP_BODY_SET_ANGULAR_VELOCITY: id = gid(c), fxs_body_set_angular_velocity(w, id, gv(c)); break;
	case FXS_OP_BODY_APPLY_FORCE:
		id = gid(c), a = gv(c), b = gv(c);
		fxs_body_apply_force(w, id, a, b);
		break;
	case FXS_OP_BODY_APPLY_FORCE_TO_CENTER: id = gid(c), fxs_body_apply_force_to_center(w, id, gv(c)); break;
	case FXS_OP_BODY_APPLY_TORQUE: id = gid(c), fxs_body_apply_torque(w, id, gv(c)); break;
	case FXS_OP_BODY_APPLY_LINEAR_IMPULSE:
		id = gid(c), a = gv(c), b = gv(c);
		fxs_body_apply_linear_impulse(w, id, a, b);
		break;
	case FXS_OP_BODY_APPLY_ANGULAR_IMPULSE: id = gid(c), fxs_body_apply_angular_impulse(w, id, gv(c)); break;
	case FXS_OP_BODY_SET_USER_DATA: id = gid(c), fxs_body_set_user_data(w, id, gu(c)); break;
	case FXS_OP_BODY_SET_AWAKE: id = gid(c), fxs_body_set_awake(w, id, gb(c)); break;
	case FXS_OP_BODY_DISABLE: fxs_body_disable(w, gid(c)); break;
	case FXS_OP_BODY_ENABLE: fxs_body_enable(w, gid(c)); break;
	case FXS_OP_BODY_SET_TYPE: id = gid(c), fxs_body_set_type(w, id, (fxs_body_type)gi(c)); break;
	case FXS_OP_BODY_SET_FRICTION: id = gid(c), fxs_body_set_friction(w, id, gi(c)); break;
	case FXS_OP_BODY_SET_RESTITUTION: id = gid(c), fxs_body_set_restitution(w, id, gi(c)); break;
	case FXS_OP_BODY_SET_ROLLING_RESISTANCE: id = gid(c), fxs_body_set_rolling_resistance(w, id, gi(c)); break;
	case FXS_OP_BODY_SET_DENSITY: id = gid(c), fxs_body_set_density(w, id, gi(c)); break;
	case FXS_OP_BODY_SET_MASS_DATA: {
		id = gid(c);
		fxg_wide m = (fxg_wide)g64(c), in[3];
		bool present = gb(c);
		for (int i = 0; present && i < 3; ++i)
			in[i] = (fxg_wide)g64(c);
		fxs_body_set_mass_data(w, id, m, present ? in : NULL);
		break;
	}
	case FXS_OP_BODY_SET_GRAVITY_SCALE: id = gid(c), fxs_body_set_gravity_scale(w, id, gi(c)); break;
	case FXS_OP_BODY_SET_DAMPING: {
		id = gid(c);
		fix16_t l = gi(c), r = gi(c);
		fxs_body_set_damping(w, id, l, r);
		break;
	}
	case FXS_OP_BODY_SET_MOTION_LOCKS: id = gid(c), fxs_body_set_motion_locks(w, id, glocks(c)); break;
	case FXS_OP_BODY_SET_FILTER: id = gid(c), fxs_body_set_filter(w, id, gfilter(c)); break;
	case FXS_OP_BODY_ENABLE_CONTACT_EVENTS: id = gid(c), fxs_body_enable_contact_events(w, id, gb(c)); break;
	case FXS_OP_BODY_ENABLE_HIT_EVENTS: id = gid(c), fxs_body_enable_hit_events(w, id, gb(c)); break;
	case FXS_OP_BODY_ENABLE_SENSOR_EVENTS: id = gid(c), fxs_body_enable_sensor_events(w, id, gb(c)); break;
	case FXS_OP_WORLD_CREATE_MESH: {
		void *v = NULL, *t = NULL;
		uint32_t nv, nt;
		bool pv, pt;
		bool ok = garray(c, sizeof(fxg_vec3), 1, &v, &nv, &pv);
		for (uint32_t i = 0; ok && pv && i < nv; ++i)
			((fxg_vec3 *)v)[i] = gv(c);
		ok = ok && garray(c, sizeof(uint32_t), 3, &t, &nt, &pt);
		for (uint64_t i = 0; ok && pt && i < (uint64_t)nt * 3; ++i)
			((uint32_t *)t)[i] = gu(c);
		if (ok)
			fxs_world_create_mesh(w, v, nv, t, nt, gi(c));
		free(v);
		free(t);
		if (!ok)
			return FXS_ERR_NOMEM;
		break;
	}
	case FXS_OP_WORLD_CREATE_HEIGHTFIELD: {
		bool present = gb(c);
		uint32_t nx = gu(c), nz = gu(c);
		fix16_t *h = NULL;
		if (present) {
			h = malloc((size_t)nx * nz * sizeof *h);
			if (!h)
				return FXS_ERR_NOMEM;
			for (size_t i = 0; i < (size_t)nx * nz; ++i)
				h[i] = gi(c);
		}
		fix16_t cell = gi(c), thick = gi(c);
		fxs_world_create_heightfield(w, h, nx, nz, cell, thick);
		free(h);
		break;
	}
	case FXS_OP_WORLD_CREATE_HULL: {
		void *v;
		uint32_t n;
		bool p;
		if (!garray(c, sizeof(fxg_vec3), 1, &v, &n, &p))
			return FXS_ERR_NOMEM;
		for (uint32_t i = 0; p && i < n; ++i)
			((fxg_vec3 *)v)[i] = gv(c);
		fxs_world_create_hull(w, v, n, NULL);
		free(v);
		break;
	}
	case FXS_OP_WORLD_CREATE_COMPOUND: {
		void *v;
		uint32_t n;
		bool p;
		if (!garray(c, sizeof(fxs_compound_child), 1, &v, &n, &p))
			return FXS_ERR_NOMEM;
		for (uint32_t i = 0; p && i < n; ++i) {
			fxs_compound_child *ch = &((fxs_compound_child *)v)[i];
			ch->shape = gshape(c);
			ch->xf.p = gv(c);
			ch->xf.q = gq(c);
		}
		fxs_world_create_compound(w, v, n, NULL);
		free(v);
		break;
	}
	case FXS_OP_WORLD_SNAPSHOT_RESTORE: {
		bool p = gb(c);
		uint32_t n = gu(c);
		fxs_result r = fxs_world_snapshot_restore(w, p ? c->p : NULL, n);
		c->p += p ? n : 0;
		if (r == FXS_ERR_NOMEM)
			return r;
		break;
	}
	case FXS_OP_JOINT_CREATE: {
		if (gb(c)) {
			fxs_joint_def d = gjoint_def(c);
			fxs_joint_create(w, &d);
		} else {
			fxs_joint_create(w, NULL);
		}
		break;
	}
	case FXS_OP_JOINT_DESTROY: fxs_joint_destroy(w, gjid(c)); break;
	case FXS_OP_JOINT_SET_MOTOR: {
		fxs_joint_id j = gjid(c);
		bool on = gb(c);
		fix16_t s = gi(c), f = gi(c);
		fxs_joint_set_motor(w, j, on, s, f);
		break;
	}
	case FXS_OP_JOINT_SET_STEERING: {
		fxs_joint_id j = gjid(c);
		fxs_joint_set_steering(w, j, gi(c));
		break;
	}
	case FXS_OP_JOINT_SET_MOTOR_TARGET: {
		fxs_joint_id j = gjid(c);
		fxg_vec3 p = gv(c);
		fxs_joint_set_motor_target(w, j, p, gq(c));
		break;
	}
	case FXS_OP_CHARACTER_CREATE: {
		if (gb(c)) {
			fxs_character_def d = gchar_def(c);
			fxs_character_create(w, &d);
		} else {
			fxs_character_create(w, NULL);
		}
		break;
	}
	case FXS_OP_CHARACTER_DESTROY: fxs_character_destroy(w, gu(c)); break;
	case FXS_OP_CHARACTER_SET_MOVE: {
		uint32_t ch = gu(c);
		a = gv(c);
		fxs_character_set_move(w, ch, a, gb(c));
		break;
	}
	default: break; /* checked: not reached */
	}
	return FXS_OK;
}

fxs_result fxs_calls_run(fxs_world *w, const uint8_t *buf, size_t len, uint32_t *k)
{
	size_t pos = 0;
	for (*k = 0; pos < len; ++*k) {
		uint32_t op = rd32(buf + pos), alen = rd32(buf + pos + 4);
		cur c = { buf + pos + 8 };
		fxs_result r = run_one(w, op, &c);
		if (r != FXS_OK)
			return r;
		pos += 8 + (size_t)alen;
	}
	return FXS_OK;
}

/* Whether call record a (its arguments, sig) names body slot `slot`. */
static bool names_body(const uint8_t *a, size_t alen, const char *sig, uint32_t slot)
{
	size_t at = 0;
	for (; *sig; ++sig) {
		const char *why;
		size_t z = arg_size(*sig, a + at, alen - at, &why);
		if (z == SIZE_MAX)
			return false;
		if (*sig == 'I' && rd32(a + at) == slot + 1)
			return true;
		if (*sig == 'j' && a[at] == 1 && (rd32(a + at + 5) == slot + 1 || rd32(a + at + 13) == slot + 1))
			return true;
		at += z;
	}
	return false;
}

/* ---- public ---- */

uint32_t fxs_replay_tick_calls_on_body(const fxs_replay_tick *t, int64_t body, char *buf, size_t n)
{
	uint32_t found = 0;
	size_t pos = 0, used = 0;
	char sink[1];
	if (!buf || !n) /* the count only */
		buf = sink, n = sizeof sink;
	buf[0] = 0;
	if (!t || !t->calls || body < 0 || body >= UINT32_MAX)
		return 0;
	for (uint32_t k = 0; k < t->call_count; ++k) {
		uint32_t op = rd32(t->calls + pos), alen = rd32(t->calls + pos + 4);
		if (names_body(t->calls + pos + 8, alen, fxs_call_sig(op), (uint32_t)body)) {
			int w = snprintf(buf + used, n > used ? n - used : 0, "%scall %u (%s)", found ? ", " : "", k,
					 fxs_call_name(op));
			used += w > 0 ? (size_t)w : 0;
			found++;
		}
		pos += 8 + (size_t)alen;
	}
	return found;
}

const char *fxs_replay_call_name(uint32_t op) { return fxs_call_name(op); }

bool fxs_replay_tick_call(const fxs_replay_tick *t, uint32_t k, uint32_t *op, size_t *offset)
{
	if (!t || !t->calls || k >= t->call_count)
		return false;
	size_t pos = 0;
	for (uint32_t i = 0; i < k; ++i)
		pos += 8 + (size_t)rd32(t->calls + pos + 4);
	if (op)
		*op = rd32(t->calls + pos);
	if (offset)
		*offset = pos;
	return true;
}

fxs_result fxs_replay_tick_apply(fxs_world *w, const fxs_replay_tick *t, fxs_replay_apply_fn apply, void *ctx)
{
	if (!w || !t)
		return FXS_ERR_INVALID_ARGUMENT;
	if (t->mode == FXS_REPLAY_MODE_CALLS) {
		uint32_t k;
		fxs_result e = fxs_calls_run(w, t->calls, t->calls_len, &k);
		if (e != FXS_OK)
			return e;
	} else {
		if (!apply)
			return FXS_ERR_INVALID_ARGUMENT;
		fxs_result e = apply(w, t->number, t->input, t->players, ctx);
		if (e != FXS_OK)
			return e;
	}
	return fxs_world_step(w);
}
