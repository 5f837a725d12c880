/* Ball joints in batches: the vector kernels (joint_batch_vector.h) for
 * AArch64 Advanced SIMD (NEON): two int64 lanes, a batch in four quarters. Integer instructions only (`make nofloat` disassembles this object). */
#include "joint/joint_batch.h"
#include "simd/lanes_neon.h"

#define VK neon
#include "joint/joint_batch_vector.h"
