/* The bodies' position integration over a sub-step (solver.c's
 * integrate_positions): the scalar code for one body, and the vector
 * kernels that do the common case several bodies at a time
 * (integrate_vector.h, the same bits). */
#ifndef FXS_INTEGRATE_H
#define FXS_INTEGRATE_H

#include "world/world.h"
#include "solve/solver.h"

/* One body over a sub-step of length len: a moving body's position and
 * displacement by len v, its orientation (Q1.30 and the Q16.16 one rounded
 * from it) and first-order rotation by len w. Saturations are counted in
 * *ovf. */
void fxs_integrate_body(fxs_body *b, solver_body *s, fix16_t len, uint32_t *ovf);

/* flags[k] & FXS_INTEGRATE_PLAIN: body k moves and has no locks */
#define FXS_INTEGRATE_PLAIN 2

/* The bodies b[0..n) with their solver bodies s[0..n) and flags[0..n),
 * n <= 64, a sub-step of length 0 < len <= 2^16 (1 s): the kernels
 * integrate plain bodies they can and return the bits of the others (bit k
 * for body k), which fxs_integrate_body must then do if they move. Where
 * they take a body, the result is fxs_integrate_body's and it would count
 * no saturation; the others are left as they are. */
#define FXS_INTEGRATE_ARGS fxs_body *b, solver_body *s, const uint8_t *flags, uint32_t n, fix16_t len
/* (done by the vector kernels: the table's integrate_x64, simd/kernels.h) */

#endif
