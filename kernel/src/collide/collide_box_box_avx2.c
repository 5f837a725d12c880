/* The box-box separating-axis tests, several pairs at once
 * (collide_box_box_vector.h), for AVX2 (four pairs at a time). Integer instructions only
 * (`make nofloat` disassembles this object). */
#include "collide/collide_common.h"
#include "geometry/shape.h"
#include "simd/lanes_avx2.h"

#define VK avx2
#include "collide/collide_box_box_vector.h"
