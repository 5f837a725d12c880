/* The GAME section of the state (game_state.c): the game features' state,
 * after every other section, only when a world has any of it. */
#ifndef FXS_GAME_STATE_H
#define FXS_GAME_STATE_H

#include "world/world.h"
#include "state/serialize.h"

void fxs_game_write(const fxs_world *w, fxs_writer *wr);
/* After every other section; false on a corrupt section (r->err may say
 * more). A world without the section gets the defaults. */
bool fxs_game_read(fxs_world *w, fxs_reader *r);
/* Whether the world has anything for the section. */
bool fxs_game_in_use(const fxs_world *w);
/* One body's record (for the per-body hash), and whether it has one. */
bool fxs_game_body_has_record(const fxs_body *b);
void fxs_game_write_body(const fxs_body *b, uint32_t slot, fxs_writer *wr);

#endif
