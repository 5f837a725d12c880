/* The recycling test's arithmetic, several pairs at once (recycle_vector.h),
 * for WebAssembly SIMD128 (two pairs at a time; in wasm builds made with
 * -msimd128). Integer instructions only (`make nofloat` disassembles the
 * wasm build). */
#include "collide/recycle.h"
#include "simd/lanes_simd128.h"

#define VK simd128
#include "collide/recycle_vector.h"
