/* The solver's work on the world's workers (solver_tasks.h). Each block
 * writes its own items and its own saturation count; the counts are added
 * in block order (a sum: any order gives it, but this one is fixed too). */
#include "solve/solver_tasks.h"
#include "solve/contact_batch.h"
#include "solve/stage.h"
#include "world/tasks.h"

/* One runner for the passes in blocks: fn(c, a, b, arg) returns its
 * block's count; or range(c', a, b), given a context c' of its own whose
 * saturation count is the block's. */
typedef struct block_job {
	solver_ctx *c;
	fxs_solver_count_fn *fn;
	fxs_solver_range_fn *range;
	uint32_t first, end, block;
	int arg;
	uint32_t count[FXS_TASK_BLOCKS_MAX];
} block_job;

static void run_block(void *ctx, uint32_t k)
{
	block_job *j = ctx;
	const uint32_t a = j->first + k * j->block, b = j->end - a < j->block ? j->end : a + j->block;
	if (j->fn) {
		j->count[k] = j->fn(j->c, a, b, j->arg);
		return;
	}
	solver_ctx local = *j->c;
	uint32_t count = 0;
	local.ovf = &count;
	j->range(&local, a, b);
	j->count[k] = count;
}

/* the job's blocks of j->block items (returns when all are done: the
 * barrier), their counts added in block order */
static uint32_t run_job(solver_ctx *c, block_job *j)
{
	const uint32_t blocks = j->end > j->first ? (j->end - j->first + j->block - 1) / j->block : 0;
	fxs_tasks_run(c->w, run_block, j, blocks);
	uint32_t total = 0;
	for (uint32_t k = 0; k < blocks; ++k)
		total += j->count[k];
	return total;
}

uint32_t fxs_solver_run(solver_ctx *c, fxs_solver_count_fn *fn, uint32_t first, uint32_t end, uint32_t min_block, int arg)
{
	if (!c->tasks || end - first < 2)
		return fn(c, first, end, arg);
	block_job j; /* (its counts set by the blocks: not cleared, 1 KB a call) */
	j.c = c, j.fn = fn, j.range = NULL, j.first = first, j.end = end, j.arg = arg;
	fxs_task_blocks(end - first, c->w->task_fine ? 1 : min_block, &j.block);
	return run_job(c, &j);
}

enum { STAGE_WARM, STAGE_SOLVE, STAGE_SOLVE_BIAS };

static uint32_t stage_pass(solver_ctx *c, uint32_t first, uint32_t end, int pass)
{
	return pass == STAGE_WARM ? fxs_batches_warm_start_range(c, first, end)
				  : fxs_batches_solve_range(c, first, end, pass == STAGE_SOLVE_BIAS);
}

void fxs_batches_run_stages(solver_ctx *c, bool warm, bool use_bias)
{
	const int pass = warm ? STAGE_WARM : use_bias ? STAGE_SOLVE_BIAS : STAGE_SOLVE;
	uint32_t first = 0, total = 0;
	for (uint32_t s = 0; s < c->batch_stage_count; ++s) {
		total += fxs_solver_run(c, stage_pass, first, c->batch_stage_end[s], FXS_STAGE_BLOCK, pass);
		first = c->batch_stage_end[s];
	}
	/* the overflow stage (constraints may share bodies): in order */
	total += stage_pass(c, first, c->batch_count, pass);
	*c->ovf += total;
}

/* range over [0, n) in blocks of at least min_block items, rounded up to a
 * multiple of `multiple` */
static void range_run(solver_ctx *c, fxs_solver_range_fn *range, uint32_t n, uint32_t min_block, uint32_t multiple)
{
	if (!c->tasks) {
		range(c, 0, n);
		return;
	}
	block_job j;
	j.c = c, j.fn = NULL, j.range = range, j.first = 0, j.end = n, j.arg = 0;
	fxs_task_blocks(n, c->w->task_fine ? multiple : min_block, &j.block);
	j.block = (j.block + multiple - 1) / multiple * multiple;
	*c->ovf += run_job(c, &j);
}

/* (the integration kernels take 64 bodies from a multiple of 64) */
void fxs_solver_bodies_run(solver_ctx *c, fxs_solver_range_fn *fn) { range_run(c, fn, c->body_count, FXS_BODY_BLOCK, 64); }

void fxs_solver_batches_run(solver_ctx *c, fxs_solver_range_fn *fn) { range_run(c, fn, c->batch_count, FXS_BATCH_BLOCK, 1); }

typedef struct gather_job {
	solver_ctx *c;
	fxs_solver_gather_fn *fn;
	uint32_t n, block;
	bool write;
	uint32_t count[FXS_TASK_BLOCKS_MAX], start[FXS_TASK_BLOCKS_MAX];
} gather_job;

static void gather_block(void *ctx, uint32_t k)
{
	gather_job *j = ctx;
	const uint32_t a = k * j->block, b = j->n - a < j->block ? j->n : a + j->block;
	if (j->write)
		j->fn(j->c, a, b, j->c->stage_items + j->start[k], j->c->stage_index + j->start[k]);
	else
		j->count[k] = j->fn(j->c, a, b, NULL, NULL);
}

uint32_t fxs_solver_gather(solver_ctx *c, fxs_solver_gather_fn *fn, uint32_t n, uint32_t min_block)
{
	if (!c->tasks)
		return fn(c, 0, n, c->stage_items, c->stage_index);
	gather_job j;
	j.c = c, j.fn = fn, j.n = n, j.write = false;
	const uint32_t blocks = fxs_task_blocks(n, c->w->task_fine ? 1 : min_block, &j.block);
	fxs_tasks_run(c->w, gather_block, &j, blocks);
	uint32_t total = 0;
	for (uint32_t k = 0; k < blocks; ++k)
		j.start[k] = total, total += j.count[k];
	j.write = true;
	fxs_tasks_run(c->w, gather_block, &j, blocks);
	return total;
}
