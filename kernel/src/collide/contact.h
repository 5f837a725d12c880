/* The persistent contacts: the world's list of touching pairs, sorted by
 * (a, b, sub_a, sub_b), rebuilt every step by contact.c from the
 * broadphase's pairs (the narrowphase, or a recycled manifold), their
 * points' impulses warm-starting the solver. State: snapshotted and hashed
 * (state.c). */
#ifndef FXS_CONTACT_H
#define FXS_CONTACT_H

#include "world/world.h"
#include "broadphase/broadphase.h"
#include "collide/narrowphase.h"

/* One contact point's persistent state: the feature id it was matched by and
 * the accumulated normal impulse that warm-starts the next step; for a
 * contact the narrowphase recycles (contact.c), the point as it was made. */
/* (fields in an order without padding: two lists of these are most of a
 * large scene's memory) */
typedef struct fxs_contact_point {
	fxg_wide normal_impulse; /* N s, Q16.16 held in int64 */
	fxg_wide max_normal_impulse; /* derived this step */
	/* a recycled contact's (else derived this step): the lever arm from
	 * a's centre (world frame) and the separation when the point was made */
	fxg_vec3 anchor_a;
	fix16_t base_separation;
	/* derived this step */
	fxg_vec3 anchor_b; /* the lever arm from b's centre: anchor_a - d0 */
	fix16_t separation;
	fix16_t relative_velocity; /* normal approach speed before solving, for restitution */
	uint32_t id;
} fxs_contact_point;

typedef struct fxs_contact {
	uint32_t a, b; /* body slots, a < b */
	int32_t point_count;
	uint8_t sub_a, sub_b; /* the children of compound bodies (0 for other shapes); sorted by (a, b, sub_a, sub_b) */
	uint8_t stage; /* solver stage (stage.h), kept from step to step; FXS_STAGE_NONE when new */
	fxs_contact_point points[FXS_MAX_MANIFOLD_POINTS];
	/* the manifold's friction, applied at the centre of its points (solver.c):
	 * a world vector, so that it carries over when the tangent basis turns,
	 * and the twist about the normal; N s and N m s, Q16.16 held in int64 */
	fxg_wide friction_impulse[3];
	fxg_wide twist_impulse;
	/* a recycled contact's (else derived this step): the normal, and the
	 * bodies' orientations and b's centre less a's when the manifold was
	 * made (contact.c) */
	fxg_vec3 normal;
	fxg_quat qa0, qb0;
	fxg_vec3 d0;
	/* derived this step */
	fix16_t friction, restitution;
	fxg_vec3 slip; /* a recycled manifold's material points' mean gap since it was made: the friction's anchor error */
	/* a box or hull pair's (fxs_contact_recyclable): how far beyond
	 * touching its soft contact rests, 2^-24 m, from 0 to FXS_HOLD_MAX;
	 * the integral of its depth (contact.c, fxs_contact_hold_step) */
	int32_t hold;
} fxs_contact;

/* A part of the next contact list: count contacts at list, which are the
 * new list's from index at on. The parts (the world's contact_parts, in
 * order) are one list in the scratch list (contacts_next), or with workers
 * one per narrowphase block, in the block's region of it or its own buffer. */
typedef struct fxs_contact_part {
	const fxs_contact *list;
	uint32_t count, at;
} fxs_contact_part;

/* contact.c: build the next contact list from this step's pairs
 * (narrowphase + matching the current list's points by feature id for warm
 * starting, or recycling a manifold whose bodies hardly moved) into the
 * world's contact_parts, its length in *count; the current list is
 * unchanged until fxs_contacts_commit copies the new one over it. */
fxs_result fxs_contacts_update(fxs_world *w, const fxs_pair *pairs, uint32_t pair_count, uint32_t *count);
/* The next list (count contacts, in the parts) becomes the world's list.
 * False when out of memory (the list is then unchanged). */
bool fxs_contacts_commit(fxs_world *w, uint32_t count);
/* The scratch list's buffer, free from the commit until the next step's
 * update, as at least bytes of scratch, 64-byte aligned (the solver's
 * contact batches); NULL when out of memory. */
uint8_t *fxs_contacts_scratch(fxs_world *w, size_t bytes);
/* Remove every contact that involves slot s (a body destroyed, disabled or
 * re-typed), in contact order; those with contact events get an end event
 * after the next step (end_pending). */
void fxs_contacts_remove_body(fxs_world *w, uint32_t s);
/* the narrowphase's per-block lists (with workers), at the world's end */
void fxs_contacts_free_blocks(fxs_world *w);
/* Whether a contact between these shapes is recycled (box and hull pairs):
 * its manifold then is state (state.c writes it). */
static inline bool fxs_contact_recyclable(const fxs_shape *a, const fxs_shape *b)
{
	return (a->type == FXS_SHAPE_BOX || a->type == FXS_SHAPE_HULL) &&
		(b->type == FXS_SHAPE_BOX || b->type == FXS_SHAPE_HULL);
}
/* The rest depth (docs/simulation.md, contacts that hold a stack): a soft
 * contact carrying a
 * load W sinks W / (m (2 pi hertz)^2) before it holds it, 28 mm for a
 * 100 kg cube on a 1 kg one and 22 mm under 39 unit cubes. A box or hull
 * pair's contact integrates how far its points' mean depth is beyond
 * FXS_HOLD_DEPTH, a fraction FXS_HOLD_RATE dt of it each step, into its
 * hold, and the solver's spring rests the hold beyond touching: a loaded
 * contact rises to that depth in about a second (1 / FXS_HOLD_RATE) and
 * stays, whatever it carries, up to FXS_HOLD_MAX. Within FXS_HOLD_BAND of
 * the depth the hold is left as it is, so that a contact at rest stays
 * at rest (a position stuck at its LSB would wind it up). One hold for
 * the manifold, not one per point: per point it would stiffen the
 * contact's tilt a step late too, and a 40-cube column swayed over. */
#define FXS_HOLD_DEPTH 16 /* raw: 2^-12 m, 0.24 mm */
#define FXS_HOLD_BAND 16 /* raw */
#define FXS_HOLD_RATE FXG_RATIO(15, 16) /* per s: 1/64 a step at 60 Hz */
#define FXS_HOLD_MAX ((int32_t)1 << 21) /* 1/8 m in 2^-24 m */
/* The hold after this step's narrowphase: c's points hold this step's
 * separations, c->hold the hold it carried (0 for a new pair). */
void fxs_contact_hold_step(fxs_contact *c, fix16_t dt, uint32_t *ovf);
/* c's hold in raw units (2^-16 m), rounded */
static inline int32_t fxs_contact_hold_raw(const fxs_contact *c)
{
	return (c->hold + 128) >> 8;
}
/* Point k's separation where the solver's spring rests: less c's hold */
static inline fix16_t fxs_contact_rest_separation(const fxs_contact *c, int k, uint32_t *ovf)
{
	return fxg_sat((int64_t)c->points[k].separation - fxs_contact_hold_raw(c), ovf);
}

/* Where point k of contact c is in the world: a's centre plus the point's
 * lever arm (the narrowphase's point when the manifold is made this step;
 * a recycled one's moves with a's centre), for events and debug draw. */
static inline fxg_vec3 fxs_contact_point_at(const fxs_world *w, const fxs_contact *c, int k, uint32_t *ovf)
{
	return fxg_v3_add(w->bodies[c->a].xf.p, c->points[k].anchor_a, ovf);
}
/* The same for the contacts of slot s that its filter now forbids. */
void fxs_contacts_remove_filtered(fxs_world *w, uint32_t s);

#endif
