/* Ball joints in batches: the vector kernels (joint_batch_vector.h) for
 * AVX-512 (F, VL, DQ, CD): eight int64 lanes, a batch at once. Integer instructions only (`make nofloat` disassembles this object). */
#include "joint/joint_batch.h"
#include "simd/lanes_avx512.h"

#define VK avx512
#include "joint/joint_batch_vector.h"
