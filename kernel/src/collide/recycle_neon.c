/* The recycling test's arithmetic, several pairs at once (recycle_vector.h),
 * for AArch64 NEON (two pairs at a time). Integer instructions only (`make nofloat` disassembles
 * this object). */
#include "collide/recycle.h"
#include "simd/lanes_neon.h"

#define VK neon
#include "collide/recycle_vector.h"
