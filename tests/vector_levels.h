/* The vector-kernel tests' loop over the levels this machine has (AVX2,
 * AVX-512, SIMD128 in wasm builds, NEON): each test compares one level's
 * kernels with the scalar code. */
#ifndef FXS_TEST_VECTOR_LEVELS_H
#define FXS_TEST_VECTOR_LEVELS_H

#include <stdio.h>

#include "solve/contact_batch.h"

/* fn(level) for every level the build and the CPU have */
static inline void test_each_vector_level(void (*fn)(int level))
{
	static const int levels[] = { FXS_SIMD_AVX2, FXS_SIMD_AVX512, FXS_SIMD_SIMD128, FXS_SIMD_NEON };
	int tested = 0;
	for (size_t i = 0; i < sizeof levels / sizeof levels[0]; ++i)
		if (fxs_batches_have_level(levels[i]))
			fn(levels[i]), ++tested;
	if (!tested)
		printf("  no vector kernels on this CPU: the vector tests do not run here\n");
}

#endif
