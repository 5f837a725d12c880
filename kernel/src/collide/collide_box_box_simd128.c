/* The box-box separating-axis tests, several pairs at once
 * (collide_box_box_vector.h), for WebAssembly SIMD128 (two pairs at a time;
 * in wasm builds made with -msimd128). Integer instructions only (`make
 * nofloat` disassembles the wasm build). */
#include "collide/collide_common.h"
#include "geometry/shape.h"
#include "simd/lanes_simd128.h"

#define VK simd128
#include "collide/collide_box_box_vector.h"
