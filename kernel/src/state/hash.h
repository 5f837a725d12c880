/* The state hash's XXH3 streaming update on AVX2 and AVX-512 (hash_vector.h),
 * for hash.c to use when the world's kernels are those: the same hash as
 * libxxhash's update, faster. */
#ifndef FXS_HASH_H
#define FXS_HASH_H

#include <stddef.h>

void fxs_hash_update_avx2(void *state, const void *p, size_t n);
void fxs_hash_update_avx512(void *state, const void *p, size_t n);

#endif
