/* The solver's work on the world's workers (solver_tasks.h). Each block
 * writes its own items and its own saturation count; the counts are added
 * in block order (a sum: any order gives it, but this one is fixed too). */
#include "solve/solver_tasks.h"
#include "solve/contact_batch.h"
#include "solve/stage.h"
#include "world/tasks.h"

#include <string.h>

typedef struct stage_job {
	solver_ctx *c;
	uint32_t first, end, block;
	bool warm, use_bias;
	uint32_t count[FXS_TASK_BLOCKS_MAX];
} stage_job;

static void stage_block(void *ctx, uint32_t k)
{
	stage_job *j = ctx;
	const uint32_t a = j->first + k * j->block, b = j->end - a < j->block ? j->end : a + j->block;
	j->count[k] = j->warm ? fxs_batches_warm_start_range(j->c, a, b) : fxs_batches_solve_range(j->c, a, b, j->use_bias);
}

void fxs_batches_run_stages(solver_ctx *c, bool warm, bool use_bias)
{
	stage_job j;
	j.c = c, j.warm = warm, j.use_bias = use_bias;
	uint32_t first = 0, total = 0;
	for (uint32_t s = 0; s < c->batch_stage_count; ++s) {
		j.first = first, j.end = c->batch_stage_end[s];
		const uint32_t blocks = fxs_task_blocks(j.end - j.first, c->w->task_fine ? 1 : FXS_STAGE_BLOCK, &j.block);
		fxs_tasks_run(c->w, stage_block, &j, blocks); /* returns when the stage is done: the barrier */
		for (uint32_t k = 0; k < blocks; ++k)
			total += j.count[k];
		first = j.end;
	}
	/* the overflow stage (constraints may share bodies): in order */
	total += warm ? fxs_batches_warm_start_range(c, first, c->batch_count)
		      : fxs_batches_solve_range(c, first, c->batch_count, use_bias);
	*c->ovf += total;
}

typedef struct range_job {
	solver_ctx *c;
	fxs_solver_range_fn *fn;
	uint32_t n, block;
	uint32_t count[FXS_TASK_BLOCKS_MAX];
} range_job;

static void range_block(void *ctx, uint32_t k)
{
	range_job *j = ctx;
	solver_ctx local = *j->c;
	uint32_t count = 0;
	local.ovf = &count;
	const uint32_t a = k * j->block, n = j->n, b = n - a < j->block ? n : a + j->block;
	j->fn(&local, a, b);
	j->count[k] = count;
}

/* fn over [0, j->n) in blocks of j->block, the counts added to *c->ovf */
static void range_run(solver_ctx *c, range_job *j)
{
	const uint32_t blocks = (j->n + j->block - 1) / j->block;
	fxs_tasks_run(c->w, range_block, j, blocks);
	uint32_t total = 0;
	for (uint32_t k = 0; k < blocks; ++k)
		total += j->count[k];
	*c->ovf += total;
}

void fxs_solver_bodies_run(solver_ctx *c, fxs_solver_range_fn *fn)
{
	if (!fxs_tasks_parallel(c->w)) {
		fn(c, 0, c->body_count);
		return;
	}
	range_job j;
	j.c = c, j.fn = fn, j.n = c->body_count;
	fxs_task_blocks(c->body_count, c->w->task_fine ? 64 : FXS_BODY_BLOCK, &j.block);
	j.block = (j.block + 63) / 64 * 64; /* the integration kernels take 64 bodies from a multiple of 64 */
	range_run(c, &j);
}

void fxs_solver_batches_run(solver_ctx *c, fxs_solver_range_fn *fn)
{
	if (!fxs_tasks_parallel(c->w)) {
		fn(c, 0, c->batch_count);
		return;
	}
	range_job j;
	j.c = c, j.fn = fn, j.n = c->batch_count;
	fxs_task_blocks(c->batch_count, c->w->task_fine ? 1 : FXS_BATCH_BLOCK, &j.block);
	range_run(c, &j);
}

typedef struct count_job {
	solver_ctx *c;
	fxs_solver_count_fn *fn;
	uint32_t first, end, block;
	int arg;
	uint32_t count[FXS_TASK_BLOCKS_MAX];
} count_job;

static void count_block(void *ctx, uint32_t k)
{
	count_job *j = ctx;
	const uint32_t a = j->first + k * j->block, b = j->end - a < j->block ? j->end : a + j->block;
	j->count[k] = j->fn(j->c, a, b, j->arg);
}

uint32_t fxs_solver_run(solver_ctx *c, fxs_solver_count_fn *fn, uint32_t first, uint32_t end, uint32_t min_block, int arg)
{
	if (!c->tasks || end - first < 2)
		return fn(c, first, end, arg);
	count_job j;
	j.c = c, j.fn = fn, j.first = first, j.end = end, j.arg = arg;
	const uint32_t blocks = fxs_task_blocks(end - first, c->w->task_fine ? 1 : min_block, &j.block);
	fxs_tasks_run(c->w, count_block, &j, blocks); /* returns when all are done: the barrier */
	uint32_t total = 0;
	for (uint32_t k = 0; k < blocks; ++k)
		total += j.count[k];
	return total;
}

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
