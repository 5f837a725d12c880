/* Seed 002's direct solver for islands of ball joints (solver_direct.c). */
#ifndef FXS_SOLVER_DIRECT_H
#define FXS_SOLVER_DIRECT_H

#include "joint.h"

/* Solve every eligible island's ball joints exactly for this pass (biased or
 * relax) and mark them in handled[] (one byte per c->joints entry): the
 * iterative pass skips them. Returns the number of islands solved. */
uint32_t fxs_joints_solve_direct(solver_ctx *c, bool use_bias, uint8_t *handled);

#endif
