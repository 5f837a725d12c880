/* The contact solver's vector kernels (contact_batch_vector.h) for
 * WebAssembly SIMD128: two int64 lanes, a batch in four quarters. Chosen at
 * build time: they exist when the wasm build is compiled with -msimd128
 * (`make js`), and every wasm engine that runs such a build has SIMD128.
 * Integer instructions only (`make nofloat` disassembles the wasm build). */
#include "solve/contact_batch.h"
#include "simd/lanes_simd128.h"

#define VK simd128
#include "solve/contact_batch_vector.h"

bool fxs_batches_have_simd128(void) { return FXS_VEC_BUILD; }
