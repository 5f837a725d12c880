/* The state hash's XXH3 streaming update compiled for a vector instruction
 * set (simd/kernels_avx2.c, kernels_avx512.c and kernels_neon.c include
 * this): xxHash's header, inlined here, picks its AVX2, AVX-512 or NEON
 * accumulator from the compiler's flags, where Debian's libxxhash is built
 * for the architecture's baseline (SSE2 on x86-64), and inlined it saves
 * the library call a record. XXH3 gives
 * the same hash whichever accumulator runs, and the state a stream carries
 * between updates is the same, so the library's reset and digest take it
 * (hash.c). Integer instructions only (`make nofloat` disassembles these
 * objects). */
#include "state/hash.h"

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

static void VKN(fxs_hash_update)(void *state, const void *p, size_t n)
{
	(void)XXH3_64bits_update((XXH3_state_t *)state, p, n);
}
