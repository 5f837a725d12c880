/* The contact solver's vector kernels (contact_batch_vector.h) for AArch64
 * Advanced SIMD (NEON): two int64 lanes, a batch in four quarters. Integer
 * instructions only (`make nofloat` disassembles this object). */
#include "solve/contact_batch.h"
#include "simd/lanes_neon.h"

#define VK neon
#include "solve/contact_batch_vector.h"

bool fxs_batches_have_neon(void) { return FXS_VEC_BUILD; }
