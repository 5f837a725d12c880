/* How a phase of the step spreads its work over the world's workers
 * (fxs_world_def.worker_count, the game's scheduler or the built-in pool).
 *
 * Determinism by construction: a phase cuts its work into blocks fixed by
 * its data alone (a block size of items, never the worker count), every
 * block writes only its own slots (its items' and its own accumulator: the
 * saturation count and any other sum), and the phase adds the blocks'
 * accumulators up afterwards, in block order. Which thread runs a block,
 * and when, then cannot reach the state. */
#ifndef FXS_TASKS_H
#define FXS_TASKS_H

#include "world/world.h"

/* blocks a phase cuts its work into at most (so that their accumulators
 * fit on the stack) */
#define FXS_TASK_BLOCKS_MAX 256

typedef void fxs_block_fn(void *ctx, uint32_t block);

/* whether the world's step runs on more than one worker */
static inline bool fxs_tasks_parallel(const fxs_world *w) { return w->task_enqueue != NULL; }

/* The blocks for n items of at least min_block each: their count (at most
 * FXS_TASK_BLOCKS_MAX) and *block, the items of each but the last; both
 * depend on n and min_block alone (a phase's min_block is a constant, or 1
 * with the world's task_fine, which tests set to cut each phase into as many
 * blocks as it can: the results do not depend on the blocks either). */
static inline uint32_t fxs_task_blocks(uint32_t n, uint32_t min_block, uint32_t *block)
{
	if (n == 0) {
		*block = 1;
		return 0;
	}
	uint32_t b = (n + FXS_TASK_BLOCKS_MAX - 1) / FXS_TASK_BLOCKS_MAX;
	b = b > min_block ? b : min_block;
	*block = b;
	return (n + b - 1) / b;
}

/* fn(ctx, k) for every block k in [0, count): on the world's workers when
 * it has more than one and count > 1, else here, in order. Returns when
 * all have run. */
void fxs_tasks_run(const fxs_world *w, fxs_block_fn *fn, void *ctx, uint32_t count);
/* the same with the workers' shares given: worker k's share is the blocks
 * [split[k], split[k + 1]) (split[0] = 0, split[worker_count] = count,
 * nondecreasing), so that a phase may give each worker the same bodies in
 * every stage; NULL: even shares */
void fxs_tasks_run_split(const fxs_world *w, fxs_block_fn *fn, void *ctx, uint32_t count, const uint32_t *split);

/* The world's scheduler from its definition (world creation); false when
 * the built-in pool was asked for and could not start (the step is then
 * serial: the same bits). fxs_tasks_stop ends the pool. */
bool fxs_tasks_start(fxs_world *w);
void fxs_tasks_stop(fxs_world *w);

#endif
