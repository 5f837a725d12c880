/* fixstep: a deterministic lockstep simulation kernel for 3D rigid bodies on
 * Q16.16 fixed point. Same initial world + same inputs => the same bits on
 * every compiler, optimisation level, word size and endianness, every step.
 *
 * The API is plain structs and opaque ids: create a world from a definition,
 * add bodies, step, read the state hash. Every function is re-entrant; a
 * world is used from one thread at a time. */
#ifndef FIXSTEP_H
#define FIXSTEP_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif
FXG_EXPORT_BEGIN

/* ---- world ---- */

/* Every function below is safe to call with a NULL world and with null or
 * stale ids (a destroyed body's id, an id of another world's slot): it does
 * nothing and returns FXS_ERR_INVALID_ID, false, 0, a null id or zeros, as
 * each says. Out-parameters may be NULL unless a function says otherwise. */

/* NULL on a bad definition (fxs_world_def_validate says why and
 * fxs_world_def_invalid_field which field) or out of memory. */
fxs_world *fxs_world_create(const fxs_world_def *def);
void fxs_world_destroy(fxs_world *w); /* NULL: nothing */
/* FXS_OK, or why the definition is unusable (FXS_ERR_INVALID_ARGUMENT). */
fxs_result fxs_world_def_validate(const fxs_world_def *def);
/* NULL when def is valid, else the name of its first field out of range
 * ("dt", "substeps", "gravity.y", ...; "def" for a NULL pointer): a static
 * string. */
const char *fxs_world_def_invalid_field(const fxs_world_def *def);
/* The definition, with what the world setters below changed since. A NULL
 * world: fxs_default_world_def(). */
fxs_world_def fxs_world_get_def(const fxs_world *w);

/* Why the last creator called on w failed (fxs_body_create,
 * fxs_joint_create, fxs_world_create_mesh / _heightfield / _hull /
 * _compound, fxs_character_create): FXS_OK after one that succeeded. The
 * message names the field or the limit ("body def: friction out of range
 * 0..100"); "" after a success. Not state: not hashed, not in snapshots.
 * A NULL world: FXS_ERR_INVALID_ID and "no world". */
fxs_result fxs_world_get_last_error(const fxs_world *w);
const char *fxs_world_get_last_error_message(const fxs_world *w);

/* World settings after creation. Each is state (hashed, in snapshots) and
 * takes effect at the next step; each checks its values as
 * fxs_world_def_validate does and returns FXS_ERR_INVALID_ARGUMENT, changing
 * nothing, when they are out of range. */
fxs_result fxs_world_set_gravity(fxs_world *w, fxg_vec3 gravity);
fxg_vec3 fxs_world_get_gravity(const fxs_world *w);
/* Contact softness: stiffness (Hz), damping ratio, the largest speed (m/s)
 * at which overlap is pushed out (fxs_world_def's contact_hertz,
 * contact_damping, contact_push_max). */
fxs_result fxs_world_set_contact_tuning(fxs_world *w, fix16_t hertz, fix16_t damping_ratio, fix16_t push_max);
fxs_result fxs_world_set_restitution_threshold(fxs_world *w, fix16_t speed);
fxs_result fxs_world_set_hit_event_threshold(fxs_world *w, fix16_t speed);
/* Sleeping on or off; off wakes every body at the next step. */
fxs_result fxs_world_enable_sleeping(fxs_world *w, bool enable);

/* Advance one step of def.dt. FXS_OK, or FXS_ERR_NOMEM when memory ran out:
 * - before the step changed anything (what the state at its start needs),
 *   the world is as it was, and the step may be tried again;
 * - part-way (what the step found needs: pairs, contacts, constraint rows),
 *   the world's state is no longer the one every machine computes. The world
 *   is then marked failed (fxs_world_status): steps and snapshot saves refuse
 *   with FXS_ERR_NOMEM until a snapshot is restored into it.
 * A world never goes on from a state that silently differs. */
fxs_result fxs_world_step(fxs_world *w);
/* FXS_OK, or FXS_ERR_NOMEM when a step failed part-way (see above). */
fxs_result fxs_world_status(const fxs_world *w);

/* XXH3-64 of the canonical serialisation of the whole state, as of the end
 * of the last step (or creation / restore / any mutation since). Made by the
 * step; after a mutation made when asked, which needs 16 KB of scratch: 0 if
 * that cannot be had. */
uint64_t fxs_world_hash(const fxs_world *w);
/* Recompute the hash as the step does (for measuring its cost). */
uint64_t fxs_world_rehash(fxs_world *w);
fxs_step_stats fxs_world_get_stats(const fxs_world *w);
uint64_t fxs_world_get_step(const fxs_world *w);

/* The solver's kernels (and the narrowphase's box-box separating-axis
 * tests and contact recycling test, and the position integration's). The
 * vector kernels compute the portable kernel's integer formulas and give the same
 * bits (tests/test_batch.c, tests/test_narrowphase.c, `make crosscheck`), so
 * the choice changes only the speed, never the state. A
 * world starts with the widest its CPU and build have; a narrower one is for
 * measuring them, or for ruling a vector kernel out when two machines
 * disagree. */
typedef enum fxs_kernels {
	FXS_KERNELS_PORTABLE = 0, /* C, lane by lane: every target */
	FXS_KERNELS_AVX2 = 1,     /* x86 with AVX2: contacts, ball joints, box-box separating axes,
				   * contact recycling and position integration four at a time */
	FXS_KERNELS_AVX512 = 2,   /* x86 with AVX-512 F, VL, DQ, CD: the same, eight at a time */
	FXS_KERNELS_SIMD128 = 3,  /* WebAssembly built with -msimd128 (chosen at build time): the
				   * same two at a time. A level of
				   * its own target, not wider than AVX-512: a world asking for it
				   * elsewhere gets the widest that target has */
	FXS_KERNELS_NEON = 4,     /* AArch64 (Advanced SIMD): the same two at a time; likewise a level
				   * of its own target */
	FXS_KERNELS_SSE4 = 5,     /* x86 with SSE4.2 and POPCNT (x86-64-v2), for CPUs without AVX2:
				   * the same two at a time. Narrower than AVX2 (the levels' order
				   * from narrow to wide: portable, sse4, avx2, avx512, then the
				   * other targets' simd128 and neon) */
} fxs_kernels;
/* how many levels there are: 0 .. FXS_KERNELS_LEVELS - 1 */
#define FXS_KERNELS_LEVELS 6
/* Use kernels no wider than k; returns the ones that will run (no wider
 * than what the CPU and the build have). */
fxs_kernels fxs_world_set_kernels(fxs_world *w, fxs_kernels k);
fxs_kernels fxs_world_get_kernels(const fxs_world *w);
/* "portable", "sse4", "avx2", "avx512", "simd128" or "neon" */
const char *fxs_kernels_name(fxs_kernels k);
/* The threads the step uses from now on, as fxs_world_def's worker_count,
 * enqueue_task, finish_task and user_task_context say (docs/threads.md);
 * for a world made from a snapshot, or to change them. Not state: the same
 * bits with any, and kept by a snapshot restore. FXS_ERR_INVALID_ARGUMENT
 * (nothing changed) for a count over FXS_MAX_WORKERS or one function
 * without the other; FXS_OK also when the built-in pool's threads cannot
 * start (the step is then serial: fxs_world_get_def says worker_count 1).
 * Not from inside a task. */
fxs_result fxs_world_set_workers(fxs_world *w, uint32_t worker_count, fxs_enqueue_task_fn *enqueue_task,
				 fxs_finish_task_fn *finish_task, void *user_task_context);

/* ---- bodies ---- */

/* The null id on a bad definition or when the world is full (max_bodies) or
 * out of memory: fxs_world_get_last_error says which, and names the field. */
fxs_body_id fxs_body_create(fxs_world *w, const fxs_body_def *def);
/* Removes the body, its joints and its contacts. Contacts that had contact
 * events get their end events after the next step (events.h); sensors see
 * it leave at the next step. False for a stale id. */
bool fxs_body_destroy(fxs_world *w, fxs_body_id id);
bool fxs_body_is_valid(const fxs_world *w, fxs_body_id id);
/* Number of body slots; slot i holds a body when fxs_world_body_at(w, i)
 * returns a valid id. Slots are the canonical iteration order. */
uint32_t fxs_world_slot_count(const fxs_world *w);
fxs_body_id fxs_world_body_at(const fxs_world *w, uint32_t slot);
uint32_t fxs_world_body_count(const fxs_world *w);

fxs_body_type fxs_body_get_type(const fxs_world *w, fxs_body_id id);
fxs_shape fxs_body_get_shape(const fxs_world *w, fxs_body_id id);
fxg_vec3 fxs_body_get_position(const fxs_world *w, fxs_body_id id);
fxg_quat fxs_body_get_rotation(const fxs_world *w, fxs_body_id id);
fxg_vec3 fxs_body_get_linear_velocity(const fxs_world *w, fxs_body_id id);
fxg_vec3 fxs_body_get_angular_velocity(const fxs_world *w, fxs_body_id id);
/* mass in kg and inverse mass, Q32.32 */
fxg_wide fxs_body_get_mass(const fxs_world *w, fxs_body_id id);
fxg_wide fxs_body_get_inv_mass(const fxs_world *w, fxs_body_id id);
/* The diagonal of the inertia tensor about the centre of mass in the body's
 * frame, kg m^2, Q32.32: the principal moments for spheres, boxes and
 * capsules; hulls and compounds also have products of inertia
 * (fxs_body_get_inertia_tensor). */
void fxs_body_get_inertia(const fxs_world *w, fxs_body_id id, fxg_wide out[3]);
/* The full tensor in the body's frame: xx, yy, zz, xy, xz, yz (the products
 * as tensor entries, -integral(x y) rho dV), Q32.32. */
void fxs_body_get_inertia_tensor(const fxs_world *w, fxs_body_id id, fxg_wide out[6]);
uint32_t fxs_body_get_user_data(const fxs_world *w, fxs_body_id id);

/* Moving a body from outside. Each returns FXS_OK, FXS_ERR_INVALID_ID (NULL
 * world, stale id) or FXS_ERR_INVALID_ARGUMENT, and changes nothing on an
 * error: a zero rotation (set_transform); a static body (the velocity
 * setters: it never moves); a body that is not dynamic (forces, torques and
 * impulses: only a dynamic body has the mass they act on). Values are
 * Q16.16 in SI units (m, m/s, rad/s, N, N m, N s): a raw integer is
 * 1/65536 of one; fxs_q16_from_int, fxs_q16_from_milli, fxs_q16_from_axis
 * and fxs_vec3_from_ints (fixstep/authoring.h) write them from integers. */
fxs_result fxs_body_set_transform(fxs_world *w, fxs_body_id id, fxg_vec3 position, fxg_quat rotation);
fxs_result fxs_body_set_linear_velocity(fxs_world *w, fxs_body_id id, fxg_vec3 v);
fxs_result fxs_body_set_angular_velocity(fxs_world *w, fxs_body_id id, fxg_vec3 omega);
/* Forces and torques accumulate until the end of the next step. */
fxs_result fxs_body_apply_force(fxs_world *w, fxs_body_id id, fxg_vec3 force, fxg_vec3 point);
fxs_result fxs_body_apply_force_to_center(fxs_world *w, fxs_body_id id, fxg_vec3 force);
fxs_result fxs_body_apply_torque(fxs_world *w, fxs_body_id id, fxg_vec3 torque);
/* Impulses change the velocity at once. point is in world space. */
fxs_result fxs_body_apply_linear_impulse(fxs_world *w, fxs_body_id id, fxg_vec3 impulse, fxg_vec3 point);
fxs_result fxs_body_apply_angular_impulse(fxs_world *w, fxs_body_id id, fxg_vec3 impulse);

/* ---- bodies at run time ----
 *
 * Every change below is state: deterministic, hashed and in snapshots. The
 * setters return FXS_OK, FXS_ERR_INVALID_ID (NULL world, stale id) or
 * FXS_ERR_INVALID_ARGUMENT (a value out of the range fxs_body_create
 * accepts), and change nothing on an error. */

/* The body's user data (hashed and in snapshots, as at creation). */
fxs_result fxs_body_set_user_data(fxs_world *w, fxs_body_id id, uint32_t user_data);

/* The velocity of the body's material point at world point p: v + w x (p - c). */
fxg_vec3 fxs_body_get_point_velocity(const fxs_world *w, fxs_body_id id, fxg_vec3 p);
/* The body's bounds now (tight: not the broadphase's fattened box). */
fxs_aabb fxs_body_get_aabb(const fxs_world *w, fxs_body_id id);

/* Awake or asleep. Putting a body to sleep puts its whole island (what it
 * touches and is jointed to, through dynamic bodies) to sleep, velocities
 * zeroed; waking wakes it, and its island at the next step. A static body
 * is neither: FXS_ERR_INVALID_ARGUMENT. */
fxs_result fxs_body_set_awake(fxs_world *w, fxs_body_id id, bool awake);
bool fxs_body_is_awake(const fxs_world *w, fxs_body_id id);

/* Disable: the body leaves the simulation but keeps its slot, id, pose and
 * velocity: no broadphase proxy, no contacts (their end events come after
 * the next step), no sensor, not in queries, not moved, its joints
 * inactive. Enable: back, awake. */
fxs_result fxs_body_disable(fxs_world *w, fxs_body_id id);
fxs_result fxs_body_enable(fxs_world *w, fxs_body_id id);
bool fxs_body_is_enabled(const fxs_world *w, fxs_body_id id);

/* Static, kinematic or dynamic: mass recomputed, the body's contacts
 * removed (made anew at the next step; end events as for a destroy),
 * awake. A mesh body stays static and a character's body kinematic
 * (FXS_ERR_INVALID_ARGUMENT). */
fxs_result fxs_body_set_type(fxs_world *w, fxs_body_id id, fxs_body_type type);

/* Materials: used from the next step. Density recomputes the mass and
 * inertia from the shape (and ends an fxs_body_set_mass_data override). */
fxs_result fxs_body_set_friction(fxs_world *w, fxs_body_id id, fix16_t friction);
fxs_result fxs_body_set_restitution(fxs_world *w, fxs_body_id id, fix16_t restitution);
fxs_result fxs_body_set_density(fxs_world *w, fxs_body_id id, fix16_t density);
fix16_t fxs_body_get_friction(const fxs_world *w, fxs_body_id id);
fix16_t fxs_body_get_restitution(const fxs_world *w, fxs_body_id id);
/* 0..1 (fxs_body_def.rolling_resistance); 0 for a NULL world or a stale id */
fxs_result fxs_body_set_rolling_resistance(fxs_world *w, fxs_body_id id, fix16_t rolling_resistance);
fix16_t fxs_body_get_rolling_resistance(const fxs_world *w, fxs_body_id id);
fix16_t fxs_body_get_density(const fxs_world *w, fxs_body_id id);
/* Mass (kg) and the principal moments of inertia about the centre of mass
 * in the body's frame (kg m^2), Q32.32, instead of what the shape and
 * density give (a hull's or compound's products of inertia are dropped).
 * A dynamic body only; mass 2^-16..2^24 kg, moments 2^-16..2^30 kg m^2. */
fxs_result fxs_body_set_mass_data(fxs_world *w, fxs_body_id id, fxg_wide mass, const fxg_wide inertia[3]);

fxs_result fxs_body_set_gravity_scale(fxs_world *w, fxs_body_id id, fix16_t scale); /* -100..100 */
fix16_t fxs_body_get_gravity_scale(const fxs_world *w, fxs_body_id id);
fxs_result fxs_body_set_damping(fxs_world *w, fxs_body_id id, fix16_t linear, fix16_t angular); /* 0..1000 */

/* Motion locks (types.h): the velocities along newly locked axes are zeroed now. */
fxs_result fxs_body_set_motion_locks(fxs_world *w, fxs_body_id id, fxs_motion_locks locks);
fxs_motion_locks fxs_body_get_motion_locks(const fxs_world *w, fxs_body_id id);

/* Collision filter (types.h). Contacts the new filter forbids are removed
 * now, in contact order (end events after the next step); pairs it allows
 * meet at the next step. A sensor's overlaps follow at the next step. */
fxs_result fxs_body_set_filter(fxs_world *w, fxs_body_id id, fxs_filter filter);
fxs_filter fxs_body_get_filter(const fxs_world *w, fxs_body_id id);
bool fxs_body_is_sensor(const fxs_world *w, fxs_body_id id);

/* Events (events.h) for this body's contacts, and whether sensors see it. */
fxs_result fxs_body_enable_contact_events(fxs_world *w, fxs_body_id id, bool enable);
fxs_result fxs_body_enable_hit_events(fxs_world *w, fxs_body_id id, bool enable);
fxs_result fxs_body_enable_sensor_events(fxs_world *w, fxs_body_id id, bool enable);

/* ---- static triangle meshes ---- */

/* A static triangle mesh from vertex positions (in the mesh body's local
 * frame, each component within +-4096 m) and triangles (3 vertex indices
 * each, counter-clockwise seen from the front side). Triangle i keeps id i.
 * Every face gets a seed 003 thickness region of depth `thickness` behind it
 * (clamped per face where the mesh is thinner, see mesh.c). The mesh is part
 * of the world's state (snapshots carry it). 0 on bad input. */
fxs_mesh_id fxs_world_create_mesh(fxs_world *w, const fxg_vec3 *verts, uint32_t nverts, const uint32_t *tris,
				  uint32_t ntris, fix16_t thickness);
/* The shape of a static body made of mesh `id` (type FXS_SHAPE_MESH). Put it
 * in an fxs_body_def of type FXS_BODY_STATIC. */
fxs_shape fxs_mesh_shape(const fxs_world *w, fxs_mesh_id id);
uint32_t fxs_world_mesh_count(const fxs_world *w);

/* A heightfield as a static triangle mesh (heightfield.c): nx x nz heights,
 * row by row (heights[j * nx + i] is the height at (i * cell, j * cell) in
 * the mesh body's local frame, y up), each cell split into two triangles
 * facing +y along its diagonal from (i, j) to (i + 1, j + 1). Built with
 * fxs_world_create_mesh, so it is an ordinary mesh: thick faces `thickness`
 * deep below it, edge contacts on its ridges, ray and shape casts,
 * snapshots. Between the grid points the surface is linear on each
 * triangle. 0 on bad input (nx or nz below 2 or above 4097, cell <= 0, a
 * vertex beyond +-4096 m, bad thickness). */
fxs_mesh_id fxs_world_create_heightfield(fxs_world *w, const fix16_t *heights, uint32_t nx, uint32_t nz, fix16_t cell,
					 fix16_t thickness);

/* ---- convex hulls ---- */

/* A convex hull of n <= 64 points, owned by the world (part of its state).
 * Points are snapped to the 1/256 m grid and must lie within +-8 m of the
 * origin of their frame; the hull keeps at most 32 vertices (0 when it would
 * need more, when the points are flat or out of range). Its centre of mass,
 * in the points' frame, is written to *com (may be NULL): a hull body's
 * position is its centre of mass, as for every shape, so a hull meant to sit
 * with its point frame at P goes at P + R com. The inertia tensor is full
 * (not diagonalised): the body's frame stays the points' frame. */
fxs_hull_id fxs_world_create_hull(fxs_world *w, const fxg_vec3 *pts, uint32_t n, fxg_vec3 *com);
/* The shape of a body made of hull `id` (type FXS_SHAPE_HULL), any body type. */
fxs_shape fxs_hull_shape(const fxs_world *w, fxs_hull_id id);
uint32_t fxs_world_hull_count(const fxs_world *w);
/* Vertices of hull `id` (0 for a bad id); up to FXS_HULL_MAX_VERTICES of
 * them are copied to out (may be NULL), in the shape's frame (about the
 * centre of mass). */
#define FXS_HULL_MAX_VERTICES 32
uint32_t fxs_hull_vertex_count(const fxs_world *w, fxs_hull_id id);
uint32_t fxs_hull_get_vertices(const fxs_world *w, fxs_hull_id id, fxg_vec3 *out, uint32_t cap);

/* ---- compound shapes ---- */

/* One part of a compound: a sphere, box, capsule or hull (of this world)
 * placed at xf in the compound's frame (for a hull, xf.p is where its
 * centre of mass goes, as for a hull body). */
#define FXS_COMPOUND_MAX_CHILDREN 16
typedef struct fxs_compound_child {
	fxs_shape shape;
	fxs_transform xf;
} fxs_compound_child;

/* A compound of 1..16 children, owned by the world (part of its state). The
 * children are solid and of one density (the body's); where they overlap
 * the overlap counts twice. Its centre of mass in the children's frame is
 * written to *com (may be NULL): the body's position is the centre of mass,
 * as for every shape, and its inertia tensor is full. Each child collides
 * on its own (one contact manifold per pair of children). 0 on bad input:
 * a child that is not a valid sphere, box, capsule or hull of this world, a
 * rotation that is not unit, a child farther than 100 m from the origin. */
fxs_compound_id fxs_world_create_compound(fxs_world *w, const fxs_compound_child *children, uint32_t n,
					  fxg_vec3 *com);
/* The shape of a body made of compound `id` (type FXS_SHAPE_COMPOUND). */
fxs_shape fxs_compound_shape(const fxs_world *w, fxs_compound_id id);
uint32_t fxs_world_compound_count(const fxs_world *w);

/* ---- hashing and snapshots ---- */

/* XXH3-64 of one body's serialised state (0 for an invalid id): locates a
 * divergence to one body. */
uint64_t fxs_body_hash(const fxs_world *w, fxs_body_id id);

/* Bytes a snapshot of the world takes now. */
size_t fxs_world_snapshot_size(const fxs_world *w);
/* Save the whole state into buf (no allocation), packed: a box scene's
 * state in under 400 bytes a body. *written gets the size.
 * FXS_ERR_NOMEM from a world whose step failed part-way (fxs_world_status). */
fxs_result fxs_world_snapshot_save(const fxs_world *w, void *buf, size_t cap, size_t *written);
/* The same snapshot with the state unpacked (about 2.5 times the bytes, and
 * the fastest save): for a ring of rollback states kept in memory, or to
 * delta-code one state against the next at the same offsets. Restored as
 * any snapshot. */
size_t fxs_world_snapshot_size_unpacked(const fxs_world *w);
fxs_result fxs_world_snapshot_save_unpacked(const fxs_world *w, void *buf, size_t cap, size_t *written);
/* Restore a snapshot into w (any world: the same one, or a fresh one). On
 * error w is left unchanged; on success a world whose step failed is usable
 * again. The snapshot is untrusted input: every field is
 * checked. */
fxs_result fxs_world_snapshot_restore(fxs_world *w, const void *buf, size_t len);
/* Create a world from a snapshot. */
fxs_world *fxs_world_create_from_snapshot(const void *buf, size_t len, fxs_result *err);
/* The state hash a snapshot holds (fxs_world_hash of the world it was saved
 * from) into *hash, without building the world: FXS_OK when its container
 * checks out, else the reason restoring it would give (and *hash = 0). */
fxs_result fxs_snapshot_state_hash(const void *buf, size_t len, uint64_t *hash);

/* Append the canonical serialisation of the state to a caller buffer;
 * returns the bytes needed (call with cap 0 to size it). The bytes the hash
 * is computed over; tools use it to diff two states field by field. */
size_t fxs_world_serialize_state(const fxs_world *w, void *buf, size_t cap);

/* ---- versions ----
 * What the library linked at run time is, beside what the headers say:
 * a game that loads libfixstep.so compares fxs_version() with FXS_VERSION. */

/* (major << 16) | (minor << 8) | patch, as FXS_VERSION. */
uint32_t fxs_version(void);
/* "major.minor.patch". */
const char *fxs_version_string(void);
/* The snapshot (state) format this library writes, and the oldest it restores;
 * a snapshot's own version is its bytes 4..7, little-endian. */
uint32_t fxs_snapshot_version(void);
uint32_t fxs_snapshot_version_oldest(void);

FXG_EXPORT_END
#ifdef __cplusplus
}
#endif

#include "joint.h"
#include "events.h"

#endif
