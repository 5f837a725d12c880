/* Where the instruction set is chosen: what this CPU and build have, and
 * the table of vector kernels (kernels.h) of a level.
 *
 * The build decides which tables exist (each instruction set's translation
 * unit is compiled for it only on its own target: SSE4.2, AVX2 and AVX-512
 * on x86, NEON on aarch64, SIMD128 in wasm builds made with -msimd128); on
 * x86 the CPU decides at run time whether it has SSE4.2 (with POPCNT), AVX2
 * and AVX-512 (F, VL, DQ, CD).
 * Every aarch64 CPU has NEON, and every wasm engine that loads a SIMD128
 * build has SIMD128. Whichever runs, the bits are the portable code's. */
#include "simd/kernels.h"

static bool cpu_has(fxs_kernels k)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
	__builtin_cpu_init();
	if (k == FXS_KERNELS_SSE4)
		return __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt");
	if (k == FXS_KERNELS_AVX2)
		return __builtin_cpu_supports("avx2");
	if (k == FXS_KERNELS_AVX512)
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
			__builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd");
	return true;
#else
	(void)k;
	return true; /* the build has it only where every CPU of its target does */
#endif
}

/* the table the build made for level k, or NULL */
static const fxs_kernel_table *built(fxs_kernels k)
{
	switch (k) {
	case FXS_KERNELS_SSE4: return fxs_kernel_table_sse4();
	case FXS_KERNELS_AVX2: return fxs_kernel_table_avx2();
	case FXS_KERNELS_AVX512: return fxs_kernel_table_avx512();
	case FXS_KERNELS_SIMD128: return fxs_kernel_table_simd128();
	case FXS_KERNELS_NEON: return fxs_kernel_table_neon();
	default: return NULL;
	}
}

const fxs_kernel_table *fxs_kernel_table_get(fxs_kernels k)
{
	const fxs_kernel_table *t = built(k);
	return t && cpu_has(k) ? t : NULL;
}

bool fxs_kernels_available(fxs_kernels k) { return k == FXS_KERNELS_PORTABLE || fxs_kernel_table_get(k) != NULL; }

/* the levels from narrow to wide (fixstep.h): the enum's values are kept
 * as they were made, so SSE4, the newest, has its place here */
static const fxs_kernels by_width[FXS_KERNELS_LEVELS] = { FXS_KERNELS_PORTABLE, FXS_KERNELS_SSE4,    FXS_KERNELS_AVX2,
							  FXS_KERNELS_AVX512,   FXS_KERNELS_SIMD128, FXS_KERNELS_NEON };

fxs_kernels fxs_kernels_at_most(fxs_kernels k)
{
	/* A target has a few of the levels only (x86 SSE4, AVX2 and AVX-512,
	 * wasm SIMD128, aarch64 NEON), so walking down from k finds the widest
	 * of its own first. A value outside the enum: below, the portable
	 * level; above, the widest. */
	int rank = (int)k < 0 ? 0 : FXS_KERNELS_LEVELS - 1;
	for (int r = 0; r < FXS_KERNELS_LEVELS; ++r)
		if (by_width[r] == k)
			rank = r;
	while (rank > 0 && !fxs_kernels_available(by_width[rank]))
		--rank;
	return by_width[rank];
}

const char *fxs_kernels_name(fxs_kernels k)
{
	switch (k) {
	case FXS_KERNELS_SSE4: return "sse4";
	case FXS_KERNELS_AVX2: return "avx2";
	case FXS_KERNELS_AVX512: return "avx512";
	case FXS_KERNELS_SIMD128: return "simd128";
	case FXS_KERNELS_NEON: return "neon";
	default: return "portable";
	}
}
