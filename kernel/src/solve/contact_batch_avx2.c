/* The contact solver's vector kernels (contact_batch_vector.h) for AVX2:
 * four int64 lanes, a batch in two halves. Integer instructions only (`make
 * nofloat` disassembles this object). */
#include "solve/contact_batch.h"
#include "simd/lanes_avx2.h"

#define VK avx2
#include "solve/contact_batch_vector.h"

bool fxs_batches_have_avx2(void)
{
#if FXS_VEC_BUILD
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
#else
	return false;
#endif
}
