/* Rolling resistance (rolling.c): an angular impulse per contact manifold
 * that opposes the bodies' relative rolling, bounded by the coefficient
 * times the manifold's normal impulse times the rolling shape's radius.
 * One small pass of its own at the end of each sub-step (after the relax),
 * serial and in solve order, so it is the same whichever kernels and
 * however many workers solved the batches. */
#ifndef FXS_ROLLING_H
#define FXS_ROLLING_H

#include "solve/solver.h"

/* The step's rolling contacts, from the packed batches (after
 * fxs_batches_prepare). False when out of memory (nothing moved yet).
 * Nothing to do, and no memory, unless a body of the world has ever had a
 * rolling resistance (fxs_world.rolling_seen). */
bool fxs_rolling_prepare(solver_ctx *c);
/* One pass over them, at the end of a sub-step. */
void fxs_rolling_solve(solver_ctx *c);

#endif
