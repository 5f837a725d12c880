/* The bodies' position integration, several bodies at once
 * (integrate_vector.h), for AVX-512 (eight bodies at a time). Integer instructions only (`make nofloat`
 * disassembles this object). */
#include "solve/integrate.h"
#include "simd/lanes_avx512.h"

#define VK avx512
#include "solve/integrate_vector.h"
