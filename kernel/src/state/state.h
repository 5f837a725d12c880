/* The canonical serialisation of a world's state: what the hash covers and
 * what a snapshot holds. Field by field, little-endian, in slot order. */
#ifndef FXS_STATE_H
#define FXS_STATE_H

#include "world/world.h"

/* Version of the state layout; bump it whenever a field is added. */
#define FXS_STATE_VERSION 6u
/* Version 6 added the GAME section (game_state.c), which version 5 never
 * has: a version 5 snapshot is read as a version 6 one without it. */
#define FXS_STATE_VERSION_OLDEST 5u

/* The largest accumulated impulse a state holds, Q16.16 N s (2^31 N s):
 * contact normal, friction and twist impulses and every joint row. The
 * reader accepts no more, and the step clamps to it (counted as
 * saturations), so that every state a step makes restores from its
 * snapshot. */
#define FXS_STATE_IMPULSE_MAX ((int64_t)1 << 47)

void fxs_state_write(const fxs_world *w, fxs_writer *wr);
/* Clamp the world's accumulated impulses to FXS_STATE_IMPULSE_MAX (the
 * step's end: what it leaves for the next step and the snapshot). */
void fxs_state_bound_impulses(fxs_world *w);
/* Read a state into a freshly created world (untrusted bytes: every field is
 * range-checked). Returns NULL with *err set on any problem. */
fxs_world *fxs_state_read(fxs_reader *r, fxs_result *err);

#endif
