/* The step's blocks on the world's scheduler (tasks.h). */
#include "world/tasks.h"
#include "world/thread_pool.h"

typedef struct trampoline {
	fxs_block_fn *fn;
	void *ctx;
} trampoline;

/* a scheduler's range of blocks, one after the other */
static void run_range(uint32_t start, uint32_t end, uint32_t worker, void *task_ctx)
{
	(void)worker;
	const trampoline *t = task_ctx;
	for (uint32_t k = start; k < end; ++k)
		t->fn(t->ctx, k);
}

void fxs_tasks_run(const fxs_world *w, fxs_block_fn *fn, void *ctx, uint32_t count)
{
	if (count < 2 || !w->task_enqueue) {
		for (uint32_t k = 0; k < count; ++k)
			fn(ctx, k);
		return;
	}
	trampoline t = { fn, ctx };
	void *handle = w->task_enqueue(run_range, count, 1, &t, w->task_user);
	if (handle)
		w->task_finish(handle, w->task_user);
}

bool fxs_tasks_start(fxs_world *w)
{
	const fxs_world_def *d = &w->def;
	w->task_enqueue = NULL, w->task_finish = NULL, w->task_user = NULL, w->pool = NULL;
	if (d->worker_count < 2)
		return true;
	if (d->enqueue_task) {
		w->task_enqueue = d->enqueue_task;
		w->task_finish = d->finish_task;
		w->task_user = d->user_task_context;
		return true;
	}
	w->pool = fxs_thread_pool_create(d->worker_count);
	if (!w->pool)
		return false;
	w->task_enqueue = fxs_thread_pool_enqueue;
	w->task_finish = fxs_thread_pool_finish;
	w->task_user = w->pool;
	return true;
}

void fxs_tasks_stop(fxs_world *w)
{
	fxs_thread_pool_destroy(w->pool);
	w->pool = NULL, w->task_enqueue = NULL, w->task_finish = NULL, w->task_user = NULL;
}
