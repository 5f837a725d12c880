/* The box-box separating-axis tests, several pairs at once
 * (collide_box_box_vector.h), for AArch64 NEON (two pairs at a time). Integer instructions only
 * (`make nofloat` disassembles this object). */
#include "collide/collide_common.h"
#include "geometry/shape.h"
#include "simd/lanes_neon.h"

#define VK neon
#include "collide/collide_box_box_vector.h"
