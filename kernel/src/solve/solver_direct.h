/* Seed 002's direct solver for islands of ball joints (solver_direct.c). */
#ifndef FXS_SOLVER_DIRECT_H
#define FXS_SOLVER_DIRECT_H

#include "solve/solver.h"

/* Solve every eligible island's ball joints exactly for this pass (biased or
 * relax) and mark them in handled[] (one byte per c->joints entry): the
 * iterative pass skips them. Returns the number of islands solved. */
uint32_t fxs_joints_solve_direct(solver_ctx *c, bool use_bias, uint8_t *handled);
/* The same islands without solving them: marks handled[] and returns their
 * number (once per step, before the sub-steps: fxs_joints_plan). */
uint32_t fxs_joints_direct_plan(solver_ctx *c, uint8_t *handled);

/* Contact islands by the boxed LCP (def.direct_contact_rows; solver.c):
 * prepare once per step after the contacts and joints (sets c->direct and
 * the per-constraint flags; nothing when off), solve per pass, write the
 * friction state back before solver.c does, free at the end of the step. */
void fxs_direct_prepare(solver_ctx *c);
/* the ball joints' rows for the islands' rows, once fxs_joints_plan has
 * made them (the wide joints') */
void fxs_direct_bind_joints(solver_ctx *c);
void fxs_direct_solve(solver_ctx *c, bool use_bias);
void fxs_direct_finish(solver_ctx *c);
void fxs_direct_free(solver_ctx *c);

#endif
