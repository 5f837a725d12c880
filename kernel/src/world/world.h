/* The world's internal layout. Plain arrays indexed by body slot; a slot's
 * index is the body's canonical id. */
#ifndef FXS_WORLD_H
#define FXS_WORLD_H

#include "fixstep/fixstep.h"
#include "fixstep/events.h"
#include "geometry/aabb.h"
#include "solve/lcp_stats.h"

/* the other stages' data, which the world holds by pointer */
typedef struct fxs_contact fxs_contact; /* collide/contact.h */
typedef struct fxs_broadphase fxs_broadphase; /* broadphase/broadphase.h */

typedef struct fxs_body {
	/* --- state: snapshotted and hashed (state/state.c writes it, in this order) --- */
	uint32_t generation; /* bumped on destroy; ids carry it */
	uint8_t alive;
	uint8_t type;  /* fxs_body_type */
	uint8_t game;  /* FXS_BODY_* flags below (state, but FXS_BODY_FILTERED: derived from filter) */
	uint8_t locks; /* FXS_LOCK_* bits (state) */
	fxs_shape shape;
	fxs_transform xf;       /* centre of mass, and orientation (derived: q30 rounded to Q16.16) */
	fxg_quat30 q30;         /* orientation, Q1.30 (fxg_quat.h): what the step integrates */
	fxg_vec3 v, w;          /* linear m/s, angular rad/s (world frame) */
	fxg_vec3 force, torque; /* accumulated until the end of the next step */
	fix16_t density, friction, restitution;
	fix16_t linear_damping, angular_damping, gravity_scale;
	uint32_t user_data;
	uint8_t awake;      /* 0: asleep (not integrated, not solved) */
	fix16_t sleep_time; /* s this body has been slow */
	/* --- derived from the state above (recomputed, never serialised) --- */
	fxg_wide mass, inv_mass;             /* Q32.32 kg, 1/kg; 0 for static/kinematic */
	fxg_wide inertia[3], inv_inertia[3]; /* local diagonal moments, Q32.32 */
	fxg_wide inv_inertia_off[3];         /* local inverse's xy, xz, yz (hulls; 0 otherwise) */
	int32_t gyro[6];                     /* the local inertia tensor over its largest moment, Q2.30 (xx yy zz xy xz yz) */
	uint8_t gyro_on;                     /* the tensor is not a multiple of 1: gyroscopic torque (solver.c) */
	fxs_aabb aabb;                       /* world bounds at the last update */
	/* --- state, cold: the rolling resistance and the collision filter (GAME section when not the defaults) --- */
	fix16_t rolling_resistance; /* 0..1; FXS_BODY_ROLLING says it is not 0 (here it fills the padding before filter) */
	fxs_filter filter;
} fxs_body;

/* fxs_body.game: the game features of a body (fixstep.h, events.h). All but
 * FILTERED are state; a body with none of them and the default filter is
 * written nowhere but its body record (state/game_state.c), so a world
 * that uses none of them hashes as it did before they existed. */
enum {
	FXS_BODY_SENSOR = 1,                                      /* detects overlaps, never touches */
	FXS_BODY_CONTACT_EVENTS = 2,                              /* begin and end events for its contacts */
	FXS_BODY_HIT_EVENTS = 4,                                  /* hit events for its contacts */
	FXS_BODY_NO_SENSOR_EVENTS = 8,                            /* sensors do not see it */
	FXS_BODY_DISABLED = 16,                                   /* out of the simulation */
	FXS_BODY_MASS_SET = 32,                                   /* mass and inertia from fxs_body_set_mass_data (kept in mass, inertia) */
	FXS_BODY_FILTERED = 64,                                   /* derived: filter is not fxs_default_filter() */
	FXS_BODY_ROLLING = 128,                                   /* rolling_resistance is not 0 (solve/rolling.c) */
	FXS_BODY_PAIR_CHECK = FXS_BODY_SENSOR | FXS_BODY_FILTERED /* pairs need a look before the narrowphase */
};

/* fxs_body.locks */
enum {
	FXS_LOCK_LINEAR_X = 1,
	FXS_LOCK_LINEAR_Y = 2,
	FXS_LOCK_LINEAR_Z = 4,
	FXS_LOCK_ANGULAR_X = 8,
	FXS_LOCK_ANGULAR_Y = 16,
	FXS_LOCK_ANGULAR_Z = 32,
	FXS_LOCK_LINEAR = 7,
	FXS_LOCK_ANGULAR = 56
};

/* v with the components along locked world axes zeroed: bits 1, 2, 4 lock x, y, z */
static inline fxg_vec3 fxs_lock_axes(uint32_t bits, fxg_vec3 v)
{
	if (bits & 1)
		v.x = 0;
	if (bits & 2)
		v.y = 0;
	if (bits & 4)
		v.z = 0;
	return v;
}
static inline fxg_vec3 fxs_lock_linear(uint8_t locks, fxg_vec3 v) { return fxs_lock_axes(locks & FXS_LOCK_LINEAR, v); }
static inline fxg_vec3 fxs_lock_angular(uint8_t locks, fxg_vec3 v) { return fxs_lock_axes((uint32_t)locks >> 3, v); }
uint8_t fxs_locks_bits(fxs_motion_locks l);
/* body_runtime.c: the ranges of fxs_body_set_mass_data (and the state reader) */
bool fxs_mass_data_valid(fxg_wide mass, const fxg_wide inertia[3]);

/* A sensor's overlap with a visitor (state, sorted by sensor slot, sensor
 * generation, visitor slot, visitor generation). */
typedef struct fxs_sensor_overlap {
	uint32_t sensor, sensor_gen;
	uint32_t visitor, visitor_gen;
} fxs_sensor_overlap;

/* A growable array of the world's (fxs_grow) */
#define FXS_ARRAY(type, name) \
	type *name;           \
	uint32_t name##_count, name##_cap

struct fxs_world {
	fxs_world_def def;
	fxs_body *bodies;
	uint32_t slot_count, slot_cap;
	uint32_t body_count;
	uint32_t free_hint;    /* derived: every slot below it is alive */
	fxs_contact *contacts; /* touching pairs, sorted by (a, b) */
	uint32_t contact_count, contact_cap;
	fxs_contact *contacts_next; /* scratch: the next step's list, then the solver's batches */
	uint32_t contacts_next_cap;
	fxs_broadphase *bp;
	struct fxs_mesh **meshes; /* static meshes (mesh.c), id = index + 1; state */
	uint32_t mesh_count, mesh_cap;
	struct fxs_world_hull **hulls; /* convex hulls (hull.c), id = index + 1; state */
	uint32_t hull_count, hull_cap;
	struct fxs_compound **compounds; /* compound shapes (compound.c), id = index + 1; state */
	uint32_t compound_count, compound_cap;
	struct fxs_joint *joints;         /* joint slots (joint.c); state */
	struct fxs_character *characters; /* character slots (character.c); state */
	uint32_t character_slot_count;
	uint32_t joint_slot_count, joint_cap, joint_count;
	uint32_t joint_free_hint; /* derived: every joint slot below it is alive */
	uint64_t *joint_filter;   /* derived: sorted (min, max) << 32 pairs without contacts */
	uint32_t joint_filter_count, joint_filter_cap;
	bool joint_filter_valid;
	uint32_t *island;     /* derived per step: island id (min slot) per slot */
	uint8_t *island_flag; /* scratch, indexed by island id */
	uint32_t island_cap;
	fxs_step_stats stats;
	uint32_t ovf;            /* saturations in the current step */
	fxs_lcp_stats lcp_stats; /* the direct contact solver's running counts: diagnostics, not state (not hashed) */
	/* scratch buffers reused every step (never state) */
	fxs_aabb *scratch_aabbs;
	uint8_t *scratch_flags;
	uint32_t scratch_cap;
	void *solver_scratch;
	size_t solver_scratch_size;
	void *ball_scratch; /* the ball joint batches (joint_batch.h), cache-line aligned inside */
	size_t ball_scratch_size;
	void *joint_scratch; /* the wide solver joints, with their rows (joint.h) */
	size_t joint_scratch_size;
	void *rolling_scratch; /* the step's rolling resistance rows (solve/rolling.c) */
	size_t rolling_scratch_size;
	/* a body has had a rolling resistance (creation, the setter, a
	 * snapshot): only then does the solver look for rolling contacts.
	 * Never cleared but by a restore; not state (it changes no bit) */
	bool rolling_seen;
	void *rot_cache; /* contact.c: the bodies' rotations, each made once a step */
	uint32_t rot_cache_cap, rot_gen;
	/* the widest vector kernels the step may use where the CPU has them
	 * (fxs_world_set_kernels; simd/kernels.h): the same bits whichever
	 * runs, so not state, and kept by a snapshot restore */
	fxs_kernels kernels;
	/* the step's scheduler (world/tasks.h), from the definition's
	 * worker_count and enqueue_task: not state, and kept by a snapshot
	 * restore; NULL task_enqueue: the serial step */
	fxs_enqueue_task_fn *task_enqueue;
	fxs_finish_task_fn *task_finish;
	void *task_user;
	struct fxs_thread_pool *pool; /* the built-in one (world/thread_pool.h), or NULL */
	bool task_fine; /* tests: the smallest blocks (tasks.h), to cut every phase into many */
	struct fxs_contact_block *contact_blocks; /* with workers: the narrowphase's blocks' own lists (contact.c) */
	struct fxs_contact_part *contact_parts;   /* the next list's parts, from the update to the commit (contact.h) */
	uint32_t contact_part_count;
	/* Out of memory part-way through a step: a phase that could not get its
	 * memory sets step_nomem (fxs_world_nomem) and goes on safely but not as
	 * other machines would; the step then marks the world failed, and steps
	 * and snapshot saves refuse until a snapshot is restored into it. */
	bool step_nomem;
	bool failed;
	/* hash of the current state, computed at the end of every step */
	uint64_t hash;
	bool hash_valid;
	void *hash_stream;   /* XXH3's streaming state for the step's hash (hash.c) */
	uint8_t *hash_chunk; /* and the buffer the serialisation goes through */
	uint8_t *hash_blocks; /* with workers: a round's buffers of records (hash.c) */
	size_t hash_blocks_size;
	void *joint_stage_memo; /* the joints' last stage assignment (joint.c): not state */
	void *direct_plan_memo; /* and the direct solver's last plan (solver_direct.c) */
	/* the API-call log of a CALLS replay writer (call_log.h): not state */
	struct fxs_call_log *call_log;
	/* The last step's events (events.c) and what sensors overlap
	 * (sensor.c): state, in the GAME section. end_pending: contacts ended
	 * between steps (destroy, disable, filter, type), reported after the
	 * next step. */
	FXS_ARRAY(fxs_contact_begin_event, ev_begin);
	FXS_ARRAY(fxs_contact_end_event, ev_end);
	FXS_ARRAY(fxs_contact_hit_event, ev_hit);
	FXS_ARRAY(fxs_sensor_event, ev_sensor_begin);
	FXS_ARRAY(fxs_sensor_event, ev_sensor_end);
	FXS_ARRAY(fxs_contact_end_event, end_pending);
	FXS_ARRAY(fxs_sensor_overlap, overlaps);
	FXS_ARRAY(fxs_sensor_overlap, overlaps_next); /* scratch */
	/* derived per step (update_bounds): which game features the step needs */
	uint32_t step_sensors, step_contact_events, step_hit_events, step_pair_checks;
	/* the contacts' geometry (normal, points) is this world's last step's:
	 * false after a restore until a step (it is not state) */
	bool contact_geometry;
	/* why the last creator failed (fxs_world_get_last_error): not state */
	fxs_result last_error;
	char last_error_message[96];
};

bool fxs_grow(void **p, uint32_t *cap, uint32_t need, size_t size);
#define FXS_RESERVE(w, name, n) fxs_grow((void **)&(w)->name, &(w)->name##_cap, (n), sizeof *(w)->name)

/* body.c */
fxs_body *fxs_world_get_body(const fxs_world *w, fxs_body_id id);
/* a body's orientation: q30 and the Q16.16 xf.q from it */
static inline void fxs_body_set_q30(fxs_body *b, fxg_quat30 q)
{
	b->q30 = q;
	b->xf.q = fxg_q30_to_q(q);
}
void fxs_body_update_mass(fxs_body *b);
fxs_aabb fxs_body_compute_aabb(const fxs_body *b, uint32_t *ovf);

/* world.c */
bool fxs_world_reserve_slots(fxs_world *w, uint32_t n);
/* The last error (fxs_world_get_last_error): set by the creators. Returns
 * r, so that a creator can `return fxs_world_fail(...), null`. */
fxs_result fxs_world_fail(fxs_world *w, fxs_result r, const char *fmt, ...);
static inline void fxs_world_ok(fxs_world *w) { w->last_error = FXS_OK, w->last_error_message[0] = 0; }
static inline void fxs_world_touch(fxs_world *w) { w->hash_valid = false; }
/* A phase of the step could not get memory (see step_nomem). */
static inline void fxs_world_nomem(fxs_world *w) { w->step_nomem = true; }

/* body.c: whether two bodies' shapes may touch (filters, sensors; the
 * joints' filter is apart) */
bool fxs_filter_is_default(const fxs_filter *f);
static inline bool fxs_filters_collide(const fxs_filter *a, const fxs_filter *b)
{
	if (a->group_index == b->group_index && a->group_index != 0)
		return a->group_index > 0;
	return (a->category_bits & b->mask_bits) != 0 && (b->category_bits & a->mask_bits) != 0;
}
/* A pair of bodies gets a contact (contact.c, before the narrowphase). */
static inline bool fxs_bodies_touch(const fxs_body *a, const fxs_body *b)
{
	if (!((a->game | b->game) & FXS_BODY_PAIR_CHECK))
		return true;
	return !((a->game | b->game) & FXS_BODY_SENSOR) && fxs_filters_collide(&a->filter, &b->filter);
}

/* a body's id from its slot (alive) */
static inline fxs_body_id fxs_slot_id(const fxs_world *w, uint32_t s)
{
	fxs_body_id id = { s + 1, w->bodies[s].generation };
	return id;
}


#endif
