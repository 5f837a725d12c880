/* The recycling test's arithmetic, several pairs at once (recycle_vector.h),
 * for AVX2 (four pairs at a time). Integer instructions only (`make nofloat` disassembles
 * this object). */
#include "collide/recycle.h"
#include "simd/lanes_avx2.h"

#define VK avx2
#include "collide/recycle_vector.h"
