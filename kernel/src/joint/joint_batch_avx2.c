/* Ball joints in batches: the vector kernels (joint_batch_vector.h) for
 * AVX2: four int64 lanes, a batch in two halves. Integer instructions only (`make nofloat` disassembles this object). */
#include "joint/joint_batch.h"
#include "simd/lanes_avx2.h"

#define VK avx2
#include "joint/joint_batch_vector.h"
