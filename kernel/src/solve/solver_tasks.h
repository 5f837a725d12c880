/* The solver's work on the world's workers (world/tasks.h): the contact
 * batches stage by stage, and the bodies' integration and the batches'
 * own work in blocks. */
#ifndef FXS_SOLVER_TASKS_H
#define FXS_SOLVER_TASKS_H

#include "solve/solver.h"
#include "world/tasks.h"

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

/* the blocks of the work over the contact batches that writes each
 * batch's own lanes or contacts (a contact is in one batch): at least
 * FXS_BATCH_BLOCK batches (fxs_solver_run_segments, stage by stage) */
#define FXS_BATCH_BLOCK 16

/* fn over [first, end) in blocks of min_block items on the world's workers
 * (a size fixed by the data, world/tasks.h; 1 with the world's task_fine;
 * in one call without workers): each block writes its own items and
 * returns its own count (its saturation count, or what it found); the
 * counts are added in block order and returned. */
typedef uint32_t fxs_solver_count_fn(solver_ctx *c, uint32_t first, uint32_t end, int arg);
uint32_t fxs_solver_run(solver_ctx *c, fxs_solver_count_fn *fn, uint32_t first, uint32_t end, uint32_t min_block, int arg);
/* the same, each worker's share from the item whose key (a solver body
 * slot, about nondecreasing over the items) reaches its share of the
 * bodies: the worker that moved a body in one stage moves it in the next */
typedef uint32_t fxs_solver_key_fn(const solver_ctx *c, uint32_t item);
uint32_t fxs_solver_run_keyed(solver_ctx *c, fxs_solver_count_fn *fn, uint32_t first, uint32_t end, uint32_t min_block,
			      int arg, fxs_solver_key_fn *key);

/* a contact batch's key: its first lane's first body (a stage's batches
 * come in the order of their pairs, so of their first bodies) */
uint32_t fxs_batch_key(const solver_ctx *c, uint32_t i);

/* fn (or range, with its saturation count) over the items [0,
 * seg_end[segs - 1]) in blocks of at least min_block items that never
 * cross the end of a segment (a stage's batches; at most FXS_SEGMENTS_MAX
 * segments): each worker's share is its part of every segment, from the
 * block whose first item's key reaches its share of the bodies (the key as
 * above; the shares decide which worker runs a block, never what it
 * computes). Returns the counts' sum. */
#define FXS_SEGMENTS_MAX 65
#define FXS_SEGMENT_BLOCKS_MAX (FXS_TASK_BLOCKS_MAX + FXS_SEGMENTS_MAX)
uint32_t fxs_solver_run_segments(solver_ctx *c, fxs_solver_count_fn *fn, fxs_solver_range_fn *range, const uint32_t *seg_end,
				 uint32_t segs, uint32_t min_block, int arg, fxs_solver_key_fn *key);

/* A compaction of [0, n) into the stage scratch (c->stage_items and
 * c->stage_index), in order: fn(c, first, end, items, index) writes the
 * items it keeps of [first, end) from items and index on and returns their
 * count (with items NULL: only counts them). With workers, blocks of at
 * least min_block count theirs, then write them from where the blocks
 * before them end. Returns the count. */
typedef uint32_t fxs_solver_gather_fn(solver_ctx *c, uint32_t first, uint32_t end, struct fxs_stage_item *items, uint32_t *index);
uint32_t fxs_solver_gather(solver_ctx *c, fxs_solver_gather_fn *fn, uint32_t n, uint32_t min_block);

#endif
