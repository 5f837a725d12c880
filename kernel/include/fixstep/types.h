/* fixstep public types: ids, definition structs, statistics. Plain data,
 * usable from C (C11 or later: fxs_shape has anonymous unions) and C++. */
#ifndef FIXSTEP_TYPES_H
#define FIXSTEP_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fxg.h"

#ifdef __cplusplus
extern "C" {
#endif
FXG_EXPORT_BEGIN

#define FXS_VERSION_MAJOR 0
#define FXS_VERSION_MINOR 1
#define FXS_VERSION_PATCH 0
#define FXS_VERSION ((FXS_VERSION_MAJOR << 16) | (FXS_VERSION_MINOR << 8) | FXS_VERSION_PATCH)

/* A body handle: slot index + 1 (0 is the null id) and the slot's generation.
 * A destroyed body's id stays invalid forever: its slot's generation moves on. */
typedef struct fxs_body_id {
	uint32_t index1;
	uint32_t generation;
} fxs_body_id;

static const fxs_body_id fxs_null_body = { 0, 0 };

/* The world (fixstep.h): opaque, made by fxs_world_create. */
typedef struct fxs_world fxs_world;

typedef enum fxs_result {
	FXS_OK = 0,
	FXS_ERR_INVALID_ARGUMENT = 1,
	FXS_ERR_BUFFER_TOO_SMALL = 2,
	FXS_ERR_NOMEM = 3,
	FXS_ERR_BAD_MAGIC = 4,
	FXS_ERR_VERSION = 5,
	FXS_ERR_TRUNCATED = 6,
	FXS_ERR_CORRUPT = 7,
	FXS_ERR_LIMIT = 8,
	FXS_ERR_INVALID_ID = 9 /* a null or stale id, or a null world */
} fxs_result;

const char *fxs_result_string(fxs_result r);

typedef enum fxs_body_type {
	FXS_BODY_STATIC = 0,
	FXS_BODY_KINEMATIC = 1,
	FXS_BODY_DYNAMIC = 2
} fxs_body_type;

typedef enum fxs_shape_type {
	FXS_SHAPE_SPHERE = 0,   /* radius */
	FXS_SHAPE_BOX = 1,      /* half_extents */
	FXS_SHAPE_CAPSULE = 2,  /* segment along local y from -half_height to +half_height, radius */
	FXS_SHAPE_MESH = 3,     /* static triangle mesh owned by the world (mesh_id; static bodies only) */
	FXS_SHAPE_HULL = 4,     /* convex hull owned by the world (hull_id), about its centre of mass */
	FXS_SHAPE_COMPOUND = 5, /* several convex shapes on one body, owned by the world (compound_id) */
	FXS_SHAPE_CYLINDER = 6, /* along local y from -half_height to +half_height, radius (flat caps) */
	FXS_SHAPE_TYPE_COUNT = 7
} fxs_shape_type;

/* One convex shape, centred on the body origin (the centre of mass). */
typedef struct fxs_shape {
	fxs_shape_type type;
	fix16_t radius;        /* sphere, capsule, cylinder */
	fix16_t half_height;   /* capsule, cylinder */
	fxg_vec3 half_extents; /* box */
	union {
		uint32_t mesh_id;     /* mesh: the world's mesh (fxs_mesh_shape fills it in) */
		uint32_t hull_id;     /* hull: the world's hull (fxs_hull_shape fills it in) */
		uint32_t compound_id; /* compound: the world's compound (fxs_compound_shape) */
	};
	union { /* derived from the id by the world, never serialised */
		const struct fxs_mesh *mesh;
		const struct fxs_world_hull *hull;
		const struct fxs_compound *compound;
	};
} fxs_shape;

/* A static triangle mesh owned by a world: index + 1, 0 is the null id. */
typedef uint32_t fxs_mesh_id;
/* A convex hull owned by a world: index + 1, 0 is the null id. */
typedef uint32_t fxs_hull_id;
/* A compound shape owned by a world: index + 1, 0 is the null id. */
typedef uint32_t fxs_compound_id;

typedef struct fxs_transform {
	fxg_vec3 p;
	fxg_quat q;
} fxs_transform;

/* An axis-aligned box in world coordinates, lo <= hi (closed intervals). */
typedef struct fxs_aabb {
	fxg_vec3 lo, hi;
} fxs_aabb;

/* Collision filtering (Box2D's rules): two bodies collide when
 *   - both have the same nonzero group_index: always if it is positive,
 *     never if it is negative (the bits are not looked at);
 *   - otherwise when (a.category_bits & b.mask_bits) != 0 and
 *     (b.category_bits & a.mask_bits) != 0.
 * A filtered pair never reaches the narrowphase: no contact, no manifold,
 * no events. Joints without collide_connected filter their pair as well.
 * Sensors use the same test to decide what they detect, and queries test
 * the bodies against an fxs_query_filter (query.h). A body has one filter
 * (the children of a compound share their body's). */
typedef struct fxs_filter {
	uint64_t category_bits; /* what the body is; default 1 */
	uint64_t mask_bits;     /* what it collides with; default every bit */
	int32_t group_index;    /* default 0: the bits decide */
} fxs_filter;

fxs_filter fxs_default_filter(void);
bool fxs_filter_should_collide(fxs_filter a, fxs_filter b);

/* Motion locks (dynamic bodies): the body never moves along a locked world
 * axis or turns about one. Angular locks take the axis out of the body's
 * world inverse inertia for the step, so contacts and joints are solved
 * knowing the body cannot turn about it (an upright character capsule:
 * angular_x, angular_y and angular_z); linear locks set the velocity along
 * the axis to zero after the velocity solve of every sub-step and at the
 * step's end (a 2.5D game's plane: linear_z), so its position along the
 * axis never changes. */
typedef struct fxs_motion_locks {
	bool linear_x, linear_y, linear_z;
	bool angular_x, angular_y, angular_z;
} fxs_motion_locks;

/* Tasks (docs/threads.md): how the step spreads its work over threads, on
 * the game's job system or the built-in pool. A task is a range of items:
 * the step calls enqueue_task with a function, a count of items and a
 * context; the scheduler runs task(start, end, worker, task_ctx) over
 * ranges that together cover [0, item_count) once each (ranges of at least
 * min_range items, but the last), on any threads, in any order, with
 * worker < the world's worker_count and no two ranges running at once with
 * the same worker index. It returns a handle the step later gives
 * finish_task, which returns once every range has run; NULL means it ran
 * them all already (finish_task is then not called). Each item writes its
 * own slots only, and the step fixes the items by its data alone: the
 * results are the same bits for any scheduler, order and worker count. */
typedef void fxs_task_fn(uint32_t start, uint32_t end, uint32_t worker, void *task_ctx);
typedef void *fxs_enqueue_task_fn(fxs_task_fn *task, uint32_t item_count, uint32_t min_range, void *task_ctx,
				  void *user_ctx);
typedef void fxs_finish_task_fn(void *task, void *user_ctx);

/* the most threads a world's step may use (fxs_world_def.worker_count) */
#define FXS_MAX_WORKERS 64

typedef struct fxs_world_def {
	fxg_vec3 gravity;                /* m/s^2, default (0, -10, 0) */
	fix16_t dt;                      /* step in s, default 1/60 (1092 raw) */
	int32_t substeps;                /* solver sub-steps per step, default 4 */
	int32_t relax_iterations;        /* extra velocity iterations without bias, default 1 */
	fix16_t contact_hertz;           /* contact softness stiffness, default 30 */
	fix16_t contact_damping;         /* damping ratio, default 10 */
	fix16_t contact_push_max;        /* max separation recovery speed m/s, default 3 */
	fix16_t linear_slop;             /* m, default 0.005 */
	fix16_t speculative_distance;    /* m, default 4 * slop */
	fix16_t restitution_threshold;   /* m/s, default 1 */
	bool enable_sleep;               /* islands at rest fall asleep, default true */
	fix16_t linear_sleep_tolerance;  /* m/s per axis, default 0.05 */
	fix16_t angular_sleep_tolerance; /* rad/s per axis, default 0.0349 (2 deg/s) */
	fix16_t time_to_sleep;           /* s an island must stay slow, default 0.5 */
	uint32_t max_bodies;             /* hard limit, default 1 << 20 */
	uint32_t direct_joint_rows;      /* islands of ball joints with up to this many rows (3 per joint)
	                               are solved exactly (LDL^T, solver_direct.c); 0: off; default 96 */
	uint32_t direct_contact_rows;    /* islands with contacts (and optionally ball joints) with up to this
	                               many rows (3 per contact point: normal + 2 friction; 3 per ball
	                               joint) are solved as one boxed LCP (seed 002's Murty method,
	                               solver_direct.c, lcp.c) instead of sequential impulses; 0: off
	                               (the default); at most 1024 */
	fix16_t hit_event_threshold;     /* m/s: a contact whose approach speed is above this makes a hit
	                               event (events.h) when a body asks for them; default 1, 0..1000 */
	/* Threads (docs/threads.md): not state, never hashed or saved, and any
	 * of them gives the same bits. worker_count: the threads the step may
	 * use, 1..FXS_MAX_WORKERS (0 means 1), default 1 (the serial step).
	 * enqueue_task and finish_task: the game's scheduler (both or neither),
	 * given user_task_context; without them and with worker_count > 1 the
	 * world starts worker_count - 1 threads of its own (pthreads; in wasm
	 * builds without pthreads the step stays serial). */
	uint32_t worker_count;
	fxs_enqueue_task_fn *enqueue_task;
	fxs_finish_task_fn *finish_task;
	void *user_task_context;
} fxs_world_def;

fxs_world_def fxs_default_world_def(void);

typedef struct fxs_body_def {
	fxs_body_type type; /* default dynamic */
	fxg_vec3 position;
	fxg_quat rotation; /* unit, default identity */
	fxg_vec3 linear_velocity;
	fxg_vec3 angular_velocity;
	fxs_shape shape;
	fix16_t density;               /* kg/m^3, default 1000 */
	fix16_t friction;              /* default 0.6 */
	fix16_t restitution;           /* default 0 */
	fix16_t rolling_resistance;    /* 0..1, default 0: a round shape (sphere, capsule, cylinder) resists
	                               rolling with a torque up to this times the normal force times its
	                               radius (docs/simulation.md, "Rolling resistance") */
	fix16_t linear_damping;        /* 1/s, default 0 */
	fix16_t angular_damping;       /* 1/s, default 0 */
	fix16_t gravity_scale;         /* default 1 */
	uint32_t user_data;            /* opaque, hashed and snapshotted */
	fxs_filter filter;             /* default fxs_default_filter(): collides with everything */
	fxs_motion_locks motion_locks; /* default none */
	bool is_sensor;                /* detects overlaps (events.h), never touches; default false */
	bool enable_sensor_events;     /* sensors see this body; default true */
	bool enable_contact_events;    /* contact begin and end events for its contacts; default false */
	bool enable_hit_events;        /* hit events for its contacts; default false */
	bool is_enabled;               /* false: created out of the simulation (fxs_body_enable); default true */
	bool is_awake;                 /* false: created asleep; default true */
} fxs_body_def;

fxs_body_def fxs_default_body_def(void);

/* Counters of the last step (and running totals). Part of the state hash. */
typedef struct fxs_step_stats {
	uint64_t step;            /* steps taken since creation */
	uint32_t overflows;       /* saturations in the last step */
	uint64_t overflows_total; /* saturations since creation */
	uint32_t body_count;
	uint32_t pair_count;    /* broadphase pairs in the last step */
	uint32_t contact_count; /* touching manifolds in the last step */
	uint32_t contact_point_count;
	uint32_t awake_body_count; /* non-static bodies awake after the step */
} fxs_step_stats;

FXG_EXPORT_END
#ifdef __cplusplus
}
#endif

#endif
