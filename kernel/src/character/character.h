/* Characters (fixstep/character.h): the world's side. */
#ifndef FXS_CHARACTER_INTERNAL_H
#define FXS_CHARACTER_INTERNAL_H

#include "fixstep/character.h"
#include "state/serialize.h"
#include "world/world.h"

typedef struct fxs_character {
	uint8_t alive;
	uint8_t jump; /* input: jump this step if on the ground */
	uint8_t grounded;
	fxs_body_id body; /* its kinematic capsule */
	fix16_t radius, half_height, step_height, max_slope_cos, jump_speed;
	fxg_vec3 move;      /* input: horizontal velocity */
	fix16_t vy;         /* own vertical speed while in the air */
	fxs_body_id ground; /* what it stands on */
} fxs_character;

/* Stage 1 of a step: move every character (slot order). */
void fxs_characters_update(fxs_world *w);
/* The state section (nothing when the world never had a character). */
void fxs_characters_write(const fxs_world *w, fxs_writer *wr);
bool fxs_characters_read(fxs_world *w, fxs_reader *r);
void fxs_characters_free(fxs_world *w);
/* The body slot of character slot i, or UINT32_MAX when none. */
uint32_t fxs_character_slot_body(const fxs_world *w, uint32_t i);

#endif
