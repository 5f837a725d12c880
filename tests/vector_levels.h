/* The vector-kernel tests' loop over the levels this machine has (SSE4,
 * AVX2, AVX-512, SIMD128 in wasm builds, NEON): each test compares one level's
 * kernels (its table, simd/kernels.h) with the portable code. */
#ifndef FXS_TEST_VECTOR_LEVELS_H
#define FXS_TEST_VECTOR_LEVELS_H

#include <stdio.h>

#include "simd/kernels.h"

/* fn(table) for every vector level the build and the CPU have */
static inline void test_each_vector_level(void (*fn)(const fxs_kernel_table *k))
{
	int tested = 0;
	for (int level = FXS_KERNELS_PORTABLE + 1; level < FXS_KERNELS_LEVELS; ++level) {
		const fxs_kernel_table *k = fxs_kernel_table_get((fxs_kernels)level);
		if (k)
			fn(k), ++tested;
	}
	if (!tested)
		printf("  no vector kernels on this CPU: the vector tests do not run here\n");
}

#endif
