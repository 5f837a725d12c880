/* The canonical serialisation of a world's state: what the hash covers and
 * what a snapshot holds. Field by field, little-endian, in slot order. */
#ifndef FXS_STATE_H
#define FXS_STATE_H

#include "world/world.h"
#include "state/serialize.h"

/* Version of the state layout; bump it whenever a field is added. */
#define FXS_STATE_VERSION 10u
/* Version 6 added the GAME section (game_state.c; optional: a world that
 * uses no game feature writes none). Version 7 keeps orientations in Q1.30
 * and a recycled contact's manifold (contact.c), which no earlier version
 * holds and which the step's result depends on: earlier snapshots are
 * refused (FXS_ERR_VERSION), not read into a world that would part from
 * the one that wrote them. Version 8 is version 7's state, packed in its
 * snapshot (snapshot.c, pack.h): the state and its hash are unchanged.
 * Version 9 (unpacked) and 10 (packed) add a kept manifold's hold (contact.h,
 * the rest depth), on which the step depends: 7 and 8 are refused. */
#define FXS_STATE_VERSION_OLDEST 9u

/* The largest accumulated impulse a state holds, Q16.16 N s (2^31 N s):
 * contact normal, friction and twist impulses and every joint row. The
 * reader accepts no more, and the step clamps to it (counted as
 * saturations), so that every state a step makes restores from its
 * snapshot. */
#define FXS_STATE_IMPULSE_MAX ((int64_t)1 << 47)

void fxs_state_write(const fxs_world *w, fxs_writer *wr);
/* fxs_state_write in its parts, in order: the head (definition, step,
 * overflow count, slot count); the records of the bodies in [first, end);
 * the contact count (a u32), then the contacts' records in [first, end);
 * the tail (broadphase, joints, meshes, hulls, compounds, characters,
 * game). A record's bytes depend on that body or contact alone, so a
 * range may be written apart and its bytes put in place later (hash.c's
 * parallel hash). */
void fxs_state_write_head(const fxs_world *w, fxs_writer *wr);
void fxs_state_write_bodies(const fxs_world *w, fxs_writer *wr, uint32_t first, uint32_t end);
void fxs_state_write_contacts(const fxs_world *w, fxs_writer *wr, uint32_t first, uint32_t end);
void fxs_state_write_tail(const fxs_world *w, fxs_writer *wr);
/* fxs_state_write_tail in its parts, in order: the broadphase and the
 * joint slot count (a u32); the joints' records in [first, end) (each
 * depending on its joint alone, as the bodies' and contacts'); the rest
 * (meshes, hulls, compounds, characters, game). */
void fxs_state_write_tail_head(const fxs_world *w, fxs_writer *wr);
void fxs_state_write_joints(const fxs_world *w, fxs_writer *wr, uint32_t first, uint32_t end);
void fxs_state_write_tail_rest(const fxs_world *w, fxs_writer *wr);
/* the most bytes of one body's record, one contact's and one joint's */
#define FXS_STATE_BODY_RECORD_MAX 160
#define FXS_STATE_JOINT_RECORD_MAX 256
#define FXS_STATE_CONTACT_RECORD_MAX (42 + FXS_MAX_MANIFOLD_POINTS * 12 + 60 + FXS_MAX_MANIFOLD_POINTS * 16)
/* one body's record of the state (its slot's part of the BODIES section) */
void fxs_serialize_body(const fxs_body *b, fxs_writer *wr);
/* Clamp the world's accumulated impulses to FXS_STATE_IMPULSE_MAX (the
 * step's end: what it leaves for the next step and the snapshot). */
void fxs_state_bound_impulses(fxs_world *w);
/* Read a state into a freshly created world (untrusted bytes: every field is
 * range-checked). Returns NULL with *err set on any problem. */
fxs_world *fxs_state_read(fxs_reader *r, fxs_result *err);

#endif
