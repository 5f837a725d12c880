/* The recycling test's arithmetic, several pairs at once (recycle_vector.h),
 * for AVX-512 (eight pairs at once). Integer instructions only (`make nofloat` disassembles
 * this object). */
#include "collide/recycle.h"
#include "simd/lanes_avx512.h"

#define VK avx512
#include "collide/recycle_vector.h"
