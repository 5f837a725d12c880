/* The box-box separating-axis tests, several pairs at once
 * (collide_box_box_vector.h), for AVX-512 (eight pairs at once). Integer instructions only
 * (`make nofloat` disassembles this object). */
#include "collide/collide_common.h"
#include "geometry/shape.h"
#include "simd/lanes_avx512.h"

#define VK avx512
#include "collide/collide_box_box_vector.h"
