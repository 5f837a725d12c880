/* Ball joints in batches: the vector kernels (joint_batch_vector.h) for
 * WebAssembly SIMD128: two int64 lanes, a batch in four quarters; in wasm
 * builds made with -msimd128. Integer instructions only (`make nofloat`
 * disassembles the wasm build). */
#include "joint/joint_batch.h"
#include "simd/lanes_simd128.h"

#define VK simd128
#include "joint/joint_batch_vector.h"
