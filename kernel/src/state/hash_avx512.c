/* The state hash's XXH3 update with xxHash's AVX-512 accumulator (hash_vector.h). */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__AVX512F__)
#define FXS_HASH_VEC_BUILD 1
#else
#define FXS_HASH_VEC_BUILD 0
#endif
#define VK avx512
#include "state/hash_vector.h"
