/* The step's events (events.c) and sensors (sensor.c): contact begin and
 * end events from the old contact list against the new one, hit events
 * after the solve, and the sensors' overlaps at the end of the step. State,
 * in the GAME section (game_state.c). */
#ifndef FXS_WORLD_EVENTS_H
#define FXS_WORLD_EVENTS_H

#include "world/world.h"

/* events.c: the step's contact events (the world's list vs the new one in
 * its parts, after the narrowphase and before the new list is committed:
 * contact.h), its hit events (after the solve), and the start of a step */
void fxs_events_begin_step(fxs_world *w);
void fxs_events_contacts(fxs_world *w);
void fxs_events_hits(fxs_world *w);
/* The end event of contact c (its bodies' ids now). */
fxs_contact_end_event fxs_events_end_of(const fxs_world *w, const fxs_contact *c);
/* sensor.c: overlaps at the end of the step, and their events */
void fxs_sensors_update(fxs_world *w);

#endif
