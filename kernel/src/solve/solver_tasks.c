/* The solver's work on the world's workers (solver_tasks.h). Each block
 * writes its own items and its own saturation count; the counts are added
 * up afterwards (a sum of integers: any order gives it). The passes over
 * the batches give each worker the batches of its part of the bodies, in
 * every stage and every pass (the batches of a stage come in the order of
 * their first bodies), so that a body's and a batch's data stay in one
 * core's cache from pass to pass: on two cores whose caches are far apart
 * this took a fifth off a step of joint_grid. */
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
	/* with segments (fxs_solver_run_segments): block k is [lo[k], hi[k]) */
	const uint32_t *lo, *hi;
	uint32_t count[FXS_SEGMENT_BLOCKS_MAX];
} block_job;

static void run_block(void *ctx, uint32_t k)
{
	block_job *j = ctx;
	uint32_t a, b;
	if (j->lo) {
		a = j->lo[k], b = j->hi[k];
	} else {
		a = j->first + k * j->block, b = j->end - a < j->block ? j->end : a + j->block;
	}
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

/* The cuts of nb blocks of `block` items from item s0 into the workers'
 * shares: cut[k] the first block (from cut[k - 1] on) whose first item's
 * key reaches k / W of the bodies; cut[0] = 0, cut[W] = nb. */
static void key_cuts(const solver_ctx *c, fxs_solver_key_fn *key, uint32_t s0, uint32_t block, uint32_t nb, uint32_t W,
		     uint32_t *cut)
{
	uint32_t b = 0;
	cut[0] = 0;
	for (uint32_t k = 1; k < W; ++k) {
		const uint64_t target = (uint64_t)c->body_count * k / W;
		while (b < nb && key(c, s0 + b * block) < target)
			++b;
		cut[k] = b;
	}
	cut[W] = nb;
}

/* the step's workers, as many shares as a phase may give */
static uint32_t share_count(const solver_ctx *c)
{
	return c->w->def.worker_count < FXS_MAX_WORKERS ? c->w->def.worker_count : FXS_MAX_WORKERS;
}

/* the job's blocks of j->block items (returns when all are done: the
 * barrier), their counts added in block order; with a key, each worker's
 * share the blocks of its part of the bodies (key_cuts) */
static uint32_t run_job(solver_ctx *c, block_job *j, fxs_solver_key_fn *key)
{
	const uint32_t blocks = j->end > j->first ? (j->end - j->first + j->block - 1) / j->block : 0;
	uint32_t cut[FXS_MAX_WORKERS + 1];
	if (key)
		key_cuts(c, key, j->first, j->block, blocks, share_count(c), cut);
	fxs_tasks_run_split(c->w, run_block, j, blocks, key ? cut : NULL);
	uint32_t total = 0;
	for (uint32_t k = 0; k < blocks; ++k)
		total += j->count[k];
	return total;
}

uint32_t fxs_solver_run_keyed(solver_ctx *c, fxs_solver_count_fn *fn, uint32_t first, uint32_t end, uint32_t min_block,
			      int arg, fxs_solver_key_fn *key)
{
	if (!c->tasks || end - first < 2)
		return fn(c, first, end, arg);
	block_job j; /* (its counts set by the blocks: not cleared, 1 KB a call) */
	j.c = c, j.fn = fn, j.range = NULL, j.first = first, j.end = end, j.arg = arg, j.lo = j.hi = NULL;
	fxs_task_blocks(end - first, c->w->task_fine ? 1 : min_block, &j.block);
	return run_job(c, &j, key);
}

uint32_t fxs_solver_run(solver_ctx *c, fxs_solver_count_fn *fn, uint32_t first, uint32_t end, uint32_t min_block, int arg)
{
	return fxs_solver_run_keyed(c, fn, first, end, min_block, arg, NULL);
}

enum { STAGE_WARM, STAGE_SOLVE, STAGE_SOLVE_BIAS };

/* a contact batch's first body: a stage's batches come in the order of
 * their pairs, so by their first bodies */
uint32_t fxs_batch_key(const solver_ctx *c, uint32_t i) { return c->batches[i].a[0]; }

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
		total += fxs_solver_run_keyed(c, stage_pass, first, c->batch_stage_end[s], FXS_STAGE_BLOCK, pass, fxs_batch_key);
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
	j.c = c, j.fn = NULL, j.range = range, j.first = 0, j.end = n, j.arg = 0, j.lo = j.hi = NULL;
	fxs_task_blocks(n, c->w->task_fine ? multiple : min_block, &j.block);
	j.block = (j.block + multiple - 1) / multiple * multiple;
	*c->ovf += run_job(c, &j, NULL);
}

/* (the integration kernels take 64 bodies from a multiple of 64) */
void fxs_solver_bodies_run(solver_ctx *c, fxs_solver_range_fn *fn) { range_run(c, fn, c->body_count, FXS_BODY_BLOCK, 64); }

uint32_t fxs_solver_run_segments(solver_ctx *c, fxs_solver_count_fn *fn, fxs_solver_range_fn *range, const uint32_t *seg_end,
				 uint32_t segs, uint32_t min_block, int arg, fxs_solver_key_fn *key)
{
	const uint32_t n = segs ? seg_end[segs - 1] : 0;
	if (!c->tasks || n < 2) {
		if (fn)
			return fn(c, 0, n, arg);
		uint32_t count = 0, *ovf = c->ovf;
		c->ovf = &count;
		range(c, 0, n);
		c->ovf = ovf;
		return count;
	}
	block_job j;
	uint32_t lo[FXS_SEGMENT_BLOCKS_MAX], hi[FXS_SEGMENT_BLOCKS_MAX];
	j.c = c, j.fn = fn, j.range = range, j.first = 0, j.end = n, j.arg = arg, j.lo = lo, j.hi = hi;
	/* the block size from all the items (at most FXS_TASK_BLOCKS_MAX
	 * blocks, and one more at each segment's end); each segment's cuts */
	fxs_task_blocks(n, c->w->task_fine ? 1 : min_block, &j.block);
	const uint32_t W = share_count(c);
	uint16_t cuts[FXS_SEGMENTS_MAX][FXS_MAX_WORKERS + 1];
	uint32_t cut[FXS_MAX_WORKERS + 1], s0 = 0;
	for (uint32_t s = 0; s < segs; s0 = seg_end[s++]) {
		const uint32_t nb = seg_end[s] > s0 ? (seg_end[s] - s0 + j.block - 1) / j.block : 0;
		key_cuts(c, key, s0, j.block, nb, W, cut);
		for (uint32_t k = 0; k <= W; ++k)
			cuts[s][k] = (uint16_t)cut[k];
	}
	/* the blocks worker by worker, each its part of every segment (the
	 * counts' sum is the same in any order) */
	uint32_t blocks = 0;
	for (uint32_t k = 0; k < W; ++k) {
		cut[k] = blocks;
		s0 = 0;
		for (uint32_t s = 0; s < segs; s0 = seg_end[s++])
			for (uint32_t b = cuts[s][k]; b < cuts[s][k + 1]; ++b, ++blocks) {
				lo[blocks] = s0 + b * j.block;
				hi[blocks] = seg_end[s] - lo[blocks] < j.block ? seg_end[s] : lo[blocks] + j.block;
			}
	}
	cut[W] = blocks;
	fxs_tasks_run_split(c->w, run_block, &j, blocks, cut);
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
