/* Player inputs: one fixed-size record per player per tick. Inputs are the
 * only way anything outside the kernel changes a world during a replay; the
 * scene's deterministic input handler turns them into forces, impulses and
 * character moves (stage 1 of a step).
 *
 * Serialised form (FXS_INPUT_SIZE bytes, little-endian, no padding):
 *   offset size field
 *   0      2    move_x   int16  stick right (+) / left (-), full scale 32767
 *   2      2    move_z   int16  stick forward (+) / back (-), full scale 32767
 *   4      2    yaw      uint16 look direction, binary angle: 65536 = one turn
 *   6      2    pitch    int16  look up (+) / down (-), binary angle
 *   8      4    buttons  uint32 one bit per button (FXS_BUTTON_*)
 * Every 12-byte pattern is a valid input: handlers clamp what they use, so
 * no input read from an untrusted file can push a handler out of range. */
#ifndef FIXSTEP_INPUT_H
#define FIXSTEP_INPUT_H

#include <stdbool.h>
#include <stdint.h>
#include "fxg_scalar.h"

#ifdef __cplusplus
extern "C" {
#endif
FXG_EXPORT_BEGIN

#define FXS_MAX_PLAYERS 16
#define FXS_INPUT_SIZE 12

enum {
	FXS_BUTTON_JUMP = 1u << 0,
	FXS_BUTTON_CROUCH = 1u << 1,
	FXS_BUTTON_USE = 1u << 2,
	FXS_BUTTON_FIRE = 1u << 3
};

typedef struct fxs_input {
	int16_t move_x;
	int16_t move_z;
	uint16_t yaw;
	int16_t pitch;
	uint32_t buttons;
} fxs_input;

/* The neutral input: stick centred, looking along +z, no button. */
fxs_input fxs_input_neutral(void);
bool fxs_input_equal(const fxs_input *a, const fxs_input *b);
/* Write exactly FXS_INPUT_SIZE bytes. */
void fxs_input_write(const fxs_input *in, uint8_t out[FXS_INPUT_SIZE]);
/* Read exactly FXS_INPUT_SIZE bytes (any bytes are a valid input). */
fxs_input fxs_input_read(const uint8_t in[FXS_INPUT_SIZE]);

FXG_EXPORT_END
#ifdef __cplusplus
}
#endif

#endif
