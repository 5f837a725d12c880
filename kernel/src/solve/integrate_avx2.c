/* The bodies' position integration, several bodies at once
 * (integrate_vector.h), for AVX2 (four bodies at a time). Integer instructions only (`make nofloat`
 * disassembles this object). */
#include "solve/integrate.h"
#include "simd/lanes_avx2.h"

#define VK avx2
#include "solve/integrate_vector.h"
