/* The bodies' position integration, several bodies at once
 * (integrate_vector.h), for WebAssembly SIMD128 (two bodies at a time; in wasm builds made with -msimd128). Integer instructions only (`make nofloat`
 * disassembles this object). */
#include "solve/integrate.h"
#include "simd/lanes_simd128.h"

#define VK simd128
#include "solve/integrate_vector.h"
