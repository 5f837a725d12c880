/* The bodies' position integration, several bodies at once
 * (integrate_vector.h), for AArch64 NEON (two bodies at a time). Integer instructions only (`make nofloat`
 * disassembles this object). */
#include "solve/integrate.h"
#include "simd/lanes_neon.h"

#define VK neon
#include "solve/integrate_vector.h"
