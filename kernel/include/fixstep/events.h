/* Events: what the last step did, read after it as arrays (Box2D v3's
 * b2World_GetContactEvents is the model), never through callbacks inside
 * the step.
 *
 * The arrays belong to the world and stay valid, unchanged, until the next
 * fxs_world_step, fxs_world_snapshot_restore or fxs_world_destroy on it
 * (the body setters do not touch them). They are part of the state: hashed
 * and in snapshots, so that a world restored from a snapshot taken after a
 * step reads the same events as the world that took it, and game logic
 * that reads them before its next step stays in lockstep.
 *
 * Canonical order: contact events by (body_a slot, body_b slot, child_a,
 * child_b), body_a's slot below body_b's; sensor events by (sensor slot,
 * visitor slot). Ties between a destroyed body and the body now in its
 * slot go by generation. Every platform gives the same arrays.
 *
 * Who asks for them: contact begin and end events for a contact when
 * either body has enable_contact_events; hit events when either body has
 * enable_hit_events; sensor events for every sensor (is_sensor) and every
 * visitor with enable_sensor_events (the default). A world where no body
 * asks, and that has no sensor, skips the event code of its steps. */
#ifndef FIXSTEP_EVENTS_H
#define FIXSTEP_EVENTS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif
FXG_EXPORT_BEGIN

/* A contact (a manifold: compound bodies have one per pair of children)
 * began this step: the narrowphase found points within the speculative
 * distance where the last step had none. normal points from body_a to
 * body_b; point is the manifold's deepest point, separation its signed
 * distance (negative: overlapping). */
typedef struct fxs_contact_begin_event {
	fxs_body_id body_a, body_b;
	uint32_t child_a, child_b; /* compound children, 0 for other shapes */
	fxg_vec3 normal;
	fxg_vec3 point;
	fix16_t separation;
	int32_t point_count;
} fxs_contact_begin_event;

/* A contact ended: this step found no points for it, or a body was
 * destroyed, disabled, re-typed or re-filtered since the last step (then
 * the ids may be stale: compare them with the ones you kept). */
typedef struct fxs_contact_end_event {
	fxs_body_id body_a, body_b;
	uint32_t child_a, child_b;
} fxs_contact_end_event;

/* A contact point pushed this step after approaching faster than the
 * world's hit_event_threshold: the fastest such point of the manifold.
 * approach_speed is the relative normal speed (m/s, > 0) at the touch
 * (the speed restitution bounces from: a ball dropped from rest d metres
 * above the ground reports sqrt(2 g d)); normal points from body_a to body_b. */
typedef struct fxs_contact_hit_event {
	fxs_body_id body_a, body_b;
	uint32_t child_a, child_b;
	fxg_vec3 point;
	fxg_vec3 normal;
	fix16_t approach_speed;
} fxs_contact_hit_event;

typedef struct fxs_contact_events {
	const fxs_contact_begin_event *begin_events;
	const fxs_contact_end_event *end_events;
	const fxs_contact_hit_event *hit_events;
	uint32_t begin_count, end_count, hit_count;
} fxs_contact_events;

/* A visitor's shape began or stopped overlapping a sensor's. Overlap is
 * tested at the end of each step, with the positions the step ended on
 * (touching counts), against the bodies whose broadphase box of the step
 * (swept by the velocity the step began with and fattened by the
 * speculative distance) meets the sensor's bounds: a visitor knocked much
 * faster than it was moving may be seen a step late. A sensor sees every
 * enabled body of any type that is not a sensor, has enable_sensor_events
 * and passes the sensor's filter (fxs_filter_should_collide). A sensor
 * that is destroyed or disabled, and a visitor that is, end their
 * overlaps at the next step (with the ids they had). */
typedef struct fxs_sensor_event {
	fxs_body_id sensor, visitor;
} fxs_sensor_event;

typedef struct fxs_sensor_events {
	const fxs_sensor_event *begin_events;
	const fxs_sensor_event *end_events;
	uint32_t begin_count, end_count;
} fxs_sensor_events;

/* The last step's events (empty arrays for a NULL world or before the
 * first step). */
fxs_contact_events fxs_world_get_contact_events(const fxs_world *w);
fxs_sensor_events fxs_world_get_sensor_events(const fxs_world *w);

/* What overlaps a sensor now (as of the last step), in slot order: the
 * count (writes at most cap ids into out; cap 0 to size). 0 for a body
 * that is not a sensor. */
uint32_t fxs_sensor_get_overlaps(const fxs_world *w, fxs_body_id sensor, fxs_body_id *out, uint32_t cap);

/* One of a body's current contacts, as the last step's narrowphase found
 * it (normal from body_a to body_b, the points, their separations and the
 * normal impulses the solver applied, N s). Contacts are state; their
 * geometry is not: a world restored from a snapshot lists no contact until
 * it has stepped once. */
typedef struct fxs_contact_data {
	fxs_body_id body_a, body_b;
	uint32_t child_a, child_b;
	fxg_vec3 normal;
	int32_t point_count;
	fxg_vec3 points[4];
	fix16_t separations[4];
	fix16_t normal_impulses[4];
} fxs_contact_data;

/* The body's contacts in contact order: the count (at most cap written to
 * out; cap 0 to size). */
uint32_t fxs_body_get_contacts(const fxs_world *w, fxs_body_id id, fxs_contact_data *out, uint32_t cap);

FXG_EXPORT_END
#ifdef __cplusplus
}
#endif

#endif
