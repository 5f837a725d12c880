/* fixmath_glue: trigonometry on binary angles.
 * An angle is a uint32_t fraction of a full turn (2^32 == 360 degrees), so
 * wrap-around is exact and free. */
#ifndef FXG_TRIG_H
#define FXG_TRIG_H

#include "fxg_scalar.h"

#ifdef __cplusplus
extern "C" {
#endif
FXG_EXPORT_BEGIN

typedef uint32_t fxg_angle;

#define FXG_ANGLE_QUARTER ((fxg_angle)0x40000000u)
#define FXG_ANGLE_HALF ((fxg_angle)0x80000000u)

/* sin and cos of a binary angle, as Q16.16, within 1 LSB of the true value. */
fix16_t fxg_sin(fxg_angle a);
fix16_t fxg_cos(fxg_angle a);

/* atan2(y, x) as a binary angle; atan2(0, 0) == 0. Full int32 input range. */
fxg_angle fxg_atan2(fix16_t y, fix16_t x);

/* radians (Q16.16) <-> binary angle */
fxg_angle fxg_angle_from_rad(fix16_t rad);
fix16_t fxg_angle_to_rad(fxg_angle a);

FXG_EXPORT_END
#ifdef __cplusplus
}
#endif

#endif
