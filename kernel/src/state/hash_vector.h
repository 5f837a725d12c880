/* The state hash's XXH3 streaming update compiled for a vector instruction
 * set (hash_avx2.c, hash_avx512.c define VK and include this): xxHash's
 * header, inlined here, picks its AVX2 or AVX-512 accumulator from the
 * compiler's flags, where Debian's libxxhash is built for SSE2. XXH3 gives
 * the same hash whichever accumulator runs, and the state a stream carries
 * between updates is the same, so the library's reset and digest take it
 * (hash.c). Integer instructions only (`make nofloat` disassembles these
 * objects). */
#include "state/hash.h"

#define VK_(name, suffix) name##_##suffix
#define VK_NAME(name, suffix) VK_(name, suffix)
#define VKN(name) VK_NAME(name, VK)

#if FXS_HASH_VEC_BUILD
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

void VKN(fxs_hash_update)(void *state, const void *p, size_t n)
{
	(void)XXH3_64bits_update((XXH3_state_t *)state, p, n);
}
#else
void VKN(fxs_hash_update)(void *state, const void *p, size_t n)
{
	(void)state, (void)p, (void)n;
}
#endif
