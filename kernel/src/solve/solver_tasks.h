/* The solver's work on the world's workers (world/tasks.h): the contact
 * batches stage by stage, and the bodies' integration and the batches'
 * own work in blocks. */
#ifndef FXS_SOLVER_TASKS_H
#define FXS_SOLVER_TASKS_H

#include "solve/solver.h"

/* A pass over the contact batches: stage after stage (a barrier between
 * them), each stage's batches in blocks of FXS_STAGE_BLOCK at once (a
 * stage's batches touch disjoint dynamic bodies, stage.h); the overflow
 * stage's batches last, here, in order. warm: the warm start, else the
 * solve with or without bias. */
#define FXS_STAGE_BLOCK 4
void fxs_batches_run_stages(solver_ctx *c, bool warm, bool use_bias);

/* fn(c', first, end) over the solver's bodies [0, c->body_count), in blocks
 * of at least FXS_BODY_BLOCK bodies (a multiple of the integration kernels'
 * 64) at once, each c' the context with its own saturation count; the
 * counts then added to *c->ovf. For work that reads and writes each body's
 * own slots only. */
#define FXS_BODY_BLOCK 256
typedef void fxs_solver_range_fn(solver_ctx *c, uint32_t first, uint32_t end);
void fxs_solver_bodies_run(solver_ctx *c, fxs_solver_range_fn *fn);

/* The same over the contact batches [0, c->batch_count), in blocks of at
 * least FXS_BATCH_BLOCK batches: for work that writes each batch's own
 * lanes or contacts (a contact is in one batch). */
#define FXS_BATCH_BLOCK 16
void fxs_solver_batches_run(solver_ctx *c, fxs_solver_range_fn *fn);

#endif
