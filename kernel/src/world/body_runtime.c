/* What a game changes on a body while the world runs (fixstep.h, "bodies
 * at run time"): sleep, enable, type, materials, mass, gravity scale,
 * locks, filter, events. Each change is state (hashed, in snapshots), made
 * the same way on every machine, and leaves the world as the next step
 * needs it: contacts the change makes wrong are removed at once, in
 * contact order, with their end events after the next step. */
#include "world/world.h"
#include "world/call_log.h"
#include "character/character.h"
#include "geometry/shape.h"
#include "island/island.h"

#include <string.h>

static fxs_result get(fxs_world *w, fxs_body_id id, fxs_body **out)
{
	*out = fxs_world_get_body(w, id);
	return *out ? FXS_OK : FXS_ERR_INVALID_ID;
}

#define GET_OR_RETURN(b)                        \
	fxs_body *b;                            \
	{                                       \
		fxs_result e_ = get(w, id, &b); \
		if (e_ != FXS_OK)               \
			return e_;              \
	}

static void wake(fxs_body *b)
{
	if (b->type != FXS_BODY_STATIC && !(b->game & FXS_BODY_DISABLED)) {
		b->awake = 1;
		b->sleep_time = 0;
	}
}

static bool in_range(fix16_t v, fix16_t lo, fix16_t hi) { return v >= lo && v <= hi; }

fxs_result fxs_body_set_user_data(fxs_world *w, fxs_body_id id, uint32_t user_data)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_USER_DATA, id, user_data);
	GET_OR_RETURN(b);
	b->user_data = user_data;
	fxs_world_touch(w);
	return FXS_OK;
}

fxg_vec3 fxs_body_get_point_velocity(const fxs_world *w, fxs_body_id id, fxg_vec3 p)
{
	const fxs_body *b = fxs_world_get_body(w, id);
	if (!b)
		return fxg_v3_zero();
	uint32_t ovf = 0; /* a query: saturation is the answer's, not the world's */
	fxg_vec3 r = fxg_v3_sub(p, b->xf.p, &ovf);
	return fxg_v3_add(b->v, fxg_v3_cross(b->w, r, &ovf), &ovf);
}

fxs_aabb fxs_body_get_aabb(const fxs_world *w, fxs_body_id id)
{
	const fxs_body *b = fxs_world_get_body(w, id);
	fxs_aabb none = { { 0, 0, 0 }, { 0, 0, 0 } };
	uint32_t ovf = 0;
	return b ? fxs_body_compute_aabb(b, &ovf) : none;
}

/* ---- sleep ---- */

fxs_result fxs_body_set_awake(fxs_world *w, fxs_body_id id, bool awake)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_AWAKE, id, awake);
	GET_OR_RETURN(b);
	if (b->type == FXS_BODY_STATIC || (b->game & FXS_BODY_DISABLED))
		return FXS_ERR_INVALID_ARGUMENT;
	if (awake) {
		wake(b);
		fxs_world_touch(w);
		return FXS_OK;
	}
	/* the island as the contacts and joints make it now (islands.c, the
	 * same function the step uses) goes to sleep as a whole: a body alone
	 * in an awake island would be woken by it at the next step */
	if (fxs_islands_build(w) != FXS_OK)
		return FXS_ERR_NOMEM;
	uint32_t island = w->island[id.index1 - 1];
	for (uint32_t s = 0; s < w->slot_count; ++s) {
		fxs_body *o = &w->bodies[s];
		if (w->island[s] != island || w->island[s] == UINT32_MAX)
			continue;
		o->awake = 0;
		o->sleep_time = 0;
		o->v = o->w = fxg_v3_zero();
	}
	fxs_world_touch(w);
	return FXS_OK;
}

bool fxs_body_is_awake(const fxs_world *w, fxs_body_id id)
{
	const fxs_body *b = fxs_world_get_body(w, id);
	return b && b->type != FXS_BODY_STATIC && b->awake;
}

/* ---- enabled ---- */

fxs_result fxs_body_disable(fxs_world *w, fxs_body_id id)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_DISABLE, id);
	GET_OR_RETURN(b);
	if (b->game & FXS_BODY_DISABLED)
		return FXS_OK;
	uint32_t s = id.index1 - 1;
	/* its contacts end now; its proxy leaves the broadphase at the next
	 * step (update_bounds gives it no flags), its sensor overlaps end there */
	fxs_contacts_remove_body(w, s);
	b->game |= FXS_BODY_DISABLED;
	b->awake = 0;
	b->sleep_time = 0;
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_body_enable(fxs_world *w, fxs_body_id id)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_ENABLE, id);
	GET_OR_RETURN(b);
	if (!(b->game & FXS_BODY_DISABLED))
		return FXS_OK;
	b->game &= (uint8_t)~FXS_BODY_DISABLED;
	b->awake = 1;
	b->sleep_time = 0;
	uint32_t ovf = 0;
	b->aabb = fxs_body_compute_aabb(b, &ovf);
	fxs_world_touch(w);
	return FXS_OK;
}

bool fxs_body_is_enabled(const fxs_world *w, fxs_body_id id)
{
	const fxs_body *b = fxs_world_get_body(w, id);
	return b && !(b->game & FXS_BODY_DISABLED);
}

/* ---- type ---- */

static bool is_character_body(const fxs_world *w, uint32_t s)
{
	for (uint32_t i = 0; i < w->character_slot_count; ++i)
		if (fxs_character_slot_body(w, i) == s)
			return true;
	return false;
}

fxs_result fxs_body_set_type(fxs_world *w, fxs_body_id id, fxs_body_type type)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_TYPE, id, type);
	GET_OR_RETURN(b);
	if ((uint32_t)type > FXS_BODY_DYNAMIC || (b->shape.type == FXS_SHAPE_MESH && type != FXS_BODY_STATIC))
		return FXS_ERR_INVALID_ARGUMENT;
	uint32_t s = id.index1 - 1;
	if (is_character_body(w, s) && type != FXS_BODY_KINEMATIC)
		return FXS_ERR_INVALID_ARGUMENT;
	if (b->type == (uint8_t)type)
		return FXS_OK;
	if (type == FXS_BODY_DYNAMIC && (b->density <= 0 || b->density > FXG_I(30000)))
		return FXS_ERR_INVALID_ARGUMENT; /* as fxs_body_create: a dynamic body needs a density */
	/* the solver's stages of its contacts assumed the old type (a static
	 * body may sit in a stage twice): the contacts go, and come back at
	 * the next step */
	fxs_contacts_remove_body(w, s);
	b->type = (uint8_t)type;
	if (type == FXS_BODY_STATIC) {
		b->v = b->w = fxg_v3_zero();
		b->force = b->torque = fxg_v3_zero();
	}
	if (type != FXS_BODY_DYNAMIC)
		b->locks = 0;
	fxs_body_update_mass(b);
	if (!(b->game & FXS_BODY_DISABLED))
		b->awake = 1;
	b->sleep_time = 0;
	fxs_world_touch(w);
	return FXS_OK;
}

/* ---- materials and mass ---- */

fxs_result fxs_body_set_friction(fxs_world *w, fxs_body_id id, fix16_t friction)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_FRICTION, id, friction);
	GET_OR_RETURN(b);
	if (!in_range(friction, 0, FXG_I(100)))
		return FXS_ERR_INVALID_ARGUMENT;
	b->friction = friction;
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_body_set_restitution(fxs_world *w, fxs_body_id id, fix16_t restitution)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_RESTITUTION, id, restitution);
	GET_OR_RETURN(b);
	if (!in_range(restitution, 0, FXG_ONE))
		return FXS_ERR_INVALID_ARGUMENT;
	b->restitution = restitution;
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_body_set_rolling_resistance(fxs_world *w, fxs_body_id id, fix16_t rolling_resistance)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_ROLLING_RESISTANCE, id, rolling_resistance);
	GET_OR_RETURN(b);
	if (!in_range(rolling_resistance, 0, FXG_ONE))
		return FXS_ERR_INVALID_ARGUMENT;
	b->rolling_resistance = rolling_resistance;
	if (rolling_resistance) {
		b->game |= FXS_BODY_ROLLING;
		w->rolling_seen = true;
	} else {
		b->game &= (uint8_t)~FXS_BODY_ROLLING;
	}
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_body_set_density(fxs_world *w, fxs_body_id id, fix16_t density)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_DENSITY, id, density);
	GET_OR_RETURN(b);
	if (density <= 0 || density > FXG_I(30000))
		return FXS_ERR_INVALID_ARGUMENT;
	b->density = density;
	b->game &= (uint8_t)~FXS_BODY_MASS_SET;
	fxs_body_update_mass(b);
	wake(b);
	fxs_world_touch(w);
	return FXS_OK;
}

#define GETTER(name, field)                                    \
	fix16_t name(const fxs_world *w, fxs_body_id id)       \
	{                                                      \
		const fxs_body *b = fxs_world_get_body(w, id); \
		return b ? b->field : 0;                       \
	}
GETTER(fxs_body_get_friction, friction)
GETTER(fxs_body_get_restitution, restitution)
GETTER(fxs_body_get_rolling_resistance, rolling_resistance)
GETTER(fxs_body_get_density, density)
GETTER(fxs_body_get_gravity_scale, gravity_scale)
#undef GETTER

/* The ranges a set mass and inertia must keep (the state reader checks the
 * same): their reciprocals stay within Q32.32 with 16 bits to spare. */
bool fxs_mass_data_valid(fxg_wide mass, const fxg_wide inertia[3])
{
	const fxg_wide lo = (fxg_wide)1 << 16; /* 2^-16 kg, kg m^2 */
	if (mass < lo || mass > (fxg_wide)1 << 56)
		return false;
	for (int i = 0; i < 3; ++i)
		if (inertia[i] < lo || inertia[i] > (fxg_wide)1 << 62)
			return false;
	return true;
}

fxs_result fxs_body_set_mass_data(fxs_world *w, fxs_body_id id, fxg_wide mass, const fxg_wide inertia[3])
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_MASS_DATA, id, mass, inertia);
	GET_OR_RETURN(b);
	if (b->type != FXS_BODY_DYNAMIC || !inertia || !fxs_mass_data_valid(mass, inertia))
		return FXS_ERR_INVALID_ARGUMENT;
	b->game |= FXS_BODY_MASS_SET;
	b->mass = mass;
	for (int i = 0; i < 3; ++i)
		b->inertia[i] = inertia[i];
	fxs_body_update_mass(b);
	wake(b);
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_body_set_gravity_scale(fxs_world *w, fxs_body_id id, fix16_t scale)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_GRAVITY_SCALE, id, scale);
	GET_OR_RETURN(b);
	if (!in_range(scale, FXG_I(-100), FXG_I(100)))
		return FXS_ERR_INVALID_ARGUMENT;
	b->gravity_scale = scale;
	wake(b);
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_body_set_damping(fxs_world *w, fxs_body_id id, fix16_t linear, fix16_t angular)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_DAMPING, id, linear, angular);
	GET_OR_RETURN(b);
	if (!in_range(linear, 0, FXG_I(1000)) || !in_range(angular, 0, FXG_I(1000)))
		return FXS_ERR_INVALID_ARGUMENT;
	b->linear_damping = linear;
	b->angular_damping = angular;
	fxs_world_touch(w);
	return FXS_OK;
}

/* ---- locks ---- */

fxs_result fxs_body_set_motion_locks(fxs_world *w, fxs_body_id id, fxs_motion_locks locks)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_MOTION_LOCKS, id, locks);
	GET_OR_RETURN(b);
	uint8_t bits = fxs_locks_bits(locks);
	if (bits && b->type != FXS_BODY_DYNAMIC)
		return FXS_ERR_INVALID_ARGUMENT;
	b->locks = bits;
	b->v = fxs_lock_linear(bits, b->v);
	b->w = fxs_lock_angular(bits, b->w);
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_motion_locks fxs_body_get_motion_locks(const fxs_world *w, fxs_body_id id)
{
	const fxs_body *b = fxs_world_get_body(w, id);
	uint8_t l = b ? b->locks : 0;
	fxs_motion_locks m = { (l & FXS_LOCK_LINEAR_X) != 0, (l & FXS_LOCK_LINEAR_Y) != 0,
			       (l & FXS_LOCK_LINEAR_Z) != 0, (l & FXS_LOCK_ANGULAR_X) != 0,
			       (l & FXS_LOCK_ANGULAR_Y) != 0, (l & FXS_LOCK_ANGULAR_Z) != 0 };
	return m;
}

/* ---- filter and events ---- */

fxs_result fxs_body_set_filter(fxs_world *w, fxs_body_id id, fxs_filter filter)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_SET_FILTER, id, filter);
	GET_OR_RETURN(b);
	b->filter = filter;
	if (fxs_filter_is_default(&filter))
		b->game &= (uint8_t)~FXS_BODY_FILTERED;
	else
		b->game |= FXS_BODY_FILTERED;
	fxs_contacts_remove_filtered(w, id.index1 - 1);
	wake(b); /* pairs the filter now allows meet at the next step */
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_filter fxs_body_get_filter(const fxs_world *w, fxs_body_id id)
{
	const fxs_body *b = fxs_world_get_body(w, id);
	return b ? b->filter : fxs_default_filter();
}

bool fxs_body_is_sensor(const fxs_world *w, fxs_body_id id)
{
	const fxs_body *b = fxs_world_get_body(w, id);
	return b && (b->game & FXS_BODY_SENSOR);
}

static fxs_result set_flag(fxs_world *w, fxs_body_id id, uint8_t flag, bool on)
{
	GET_OR_RETURN(b);
	b->game = on ? (uint8_t)(b->game | flag) : (uint8_t)(b->game & ~flag);
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_body_enable_contact_events(fxs_world *w, fxs_body_id id, bool enable)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_ENABLE_CONTACT_EVENTS, id, enable);
	return set_flag(w, id, FXS_BODY_CONTACT_EVENTS, enable);
}

fxs_result fxs_body_enable_hit_events(fxs_world *w, fxs_body_id id, bool enable)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_ENABLE_HIT_EVENTS, id, enable);
	return set_flag(w, id, FXS_BODY_HIT_EVENTS, enable);
}

fxs_result fxs_body_enable_sensor_events(fxs_world *w, fxs_body_id id, bool enable)
{
	FXS_CALL_LOG(w, FXS_OP_BODY_ENABLE_SENSOR_EVENTS, id, enable);
	return set_flag(w, id, FXS_BODY_NO_SENSOR_EVENTS, !enable);
}
