/* The contact solver's vector kernels (contact_batch_vector.h) for AVX-512
 * (F, VL, DQ, CD): eight int64 lanes, a whole batch at once. Integer
 * instructions only (`make nofloat` disassembles this object). */
#include "solve/contact_batch.h"
#include "simd/lanes_avx512.h"

#define VK avx512
#include "solve/contact_batch_vector.h"

bool fxs_batches_have_avx512(void)
{
#if FXS_VEC_BUILD
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
		__builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd");
#else
	return false;
#endif
}
