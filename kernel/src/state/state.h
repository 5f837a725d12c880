/* The canonical serialisation of a world's state: what the hash covers and
 * what a snapshot holds. Field by field, little-endian, in slot order. */
#ifndef FXS_STATE_H
#define FXS_STATE_H

#include "world/world.h"

/* Version of the state layout; bump it whenever a field is added. */
#define FXS_STATE_VERSION 7u

void fxs_state_write(const fxs_world *w, fxs_writer *wr);
/* Read a state into a freshly created world (untrusted bytes: every field is
 * range-checked). Returns NULL with *err set on any problem. */
fxs_world *fxs_state_read(fxs_reader *r, fxs_result *err);

#endif
