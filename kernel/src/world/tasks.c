/* The step's blocks on the world's scheduler (tasks.h).
 *
 * A phase's blocks go to the workers in shares: worker k's share is the
 * k-th of worker_count runs of consecutive blocks (or the runs the phase
 * gives, fxs_tasks_run_split), which it takes first, one block at a time
 * from the front; then it takes halves of what is left of the others'
 * shares, from their backs.
 * Each phase of a step cuts the same data into the same blocks each time
 * (the stages of the solver run twelve times a step), so a worker meets
 * the same contacts and bodies again, in its own core's cache: on two
 * cores this took about 5% off the step of the large scenes against blocks
 * handed out in turn from one counter. Which worker runs a block still
 * reaches nothing (tasks.h); the atomics only hand the blocks out. */
#include "world/tasks.h"
#include "world/thread_pool.h"

#include <stdatomic.h>

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

/* a worker's share of a phase's blocks: those not yet taken, [front, back)
 * in one word (a cache line each: the workers take from their own at once).
 * Its worker takes them one at a time from the front; another that has run
 * out of its own takes half of what is left, from the back: it then runs
 * them without touching the share again, and the worker keeps the front,
 * whose blocks' data its cache holds from the last pass. */
typedef struct share {
	_Alignas(64) _Atomic uint64_t left; /* front << 32 | back */
} share;

typedef struct shares {
	fxs_block_fn *fn;
	void *ctx;
	uint32_t count; /* shares */
	share s[FXS_MAX_WORKERS];
} shares;

static inline uint64_t share_word(uint32_t front, uint32_t back) { return (uint64_t)front << 32 | back; }

/* the front block of s, or false when none is left */
static inline bool take_front(share *s, uint32_t *k)
{
	uint64_t w = atomic_load_explicit(&s->left, memory_order_relaxed);
	for (;;) {
		const uint32_t front = (uint32_t)(w >> 32), back = (uint32_t)w;
		if (front >= back)
			return false;
		if (atomic_compare_exchange_weak_explicit(&s->left, &w, share_word(front + 1, back), memory_order_relaxed,
							  memory_order_relaxed)) {
			*k = front;
			return true;
		}
	}
}

/* half of what is left of s (rounded up), from the back: [*a, *b) */
static inline bool take_back(share *s, uint32_t *a, uint32_t *b)
{
	uint64_t w = atomic_load_explicit(&s->left, memory_order_relaxed);
	for (;;) {
		const uint32_t front = (uint32_t)(w >> 32), back = (uint32_t)w;
		if (front >= back)
			return false;
		const uint32_t cut = back - (back - front + 1) / 2;
		if (atomic_compare_exchange_weak_explicit(&s->left, &w, share_word(front, cut), memory_order_relaxed,
							  memory_order_relaxed)) {
			*a = cut, *b = back;
			return true;
		}
	}
}

/* a scheduler's range of the shares task: its worker's share, then halves
 * of the others' (whatever the range: one that finds all taken returns) */
static void run_shares(uint32_t start, uint32_t end, uint32_t worker, void *task_ctx)
{
	(void)start, (void)end;
	shares *t = task_ctx;
	share *own = &t->s[worker % t->count];
	uint32_t k, a, b;
	while (take_front(own, &k))
		t->fn(t->ctx, k);
	for (uint32_t j = 1; j < t->count; ++j) {
		share *s = &t->s[(worker + j) % t->count];
		while (take_back(s, &a, &b))
			for (k = a; k < b; ++k)
				t->fn(t->ctx, k);
	}
}

void fxs_tasks_run(const fxs_world *w, fxs_block_fn *fn, void *ctx, uint32_t count)
{
	fxs_tasks_run_split(w, fn, ctx, count, NULL);
}

void fxs_tasks_run_split(const fxs_world *w, fxs_block_fn *fn, void *ctx, uint32_t count, const uint32_t *split)
{
	if (count < 2 || !w->task_enqueue) {
		for (uint32_t k = 0; k < count; ++k)
			fn(ctx, k);
		return;
	}
	/* one item per worker, each its share first; with task_fine (tests)
	 * every block an item, in the scheduler's order */
	trampoline tr = { fn, ctx };
	shares sh;
	fxs_task_fn *task = run_range;
	void *task_ctx = &tr;
	uint32_t items = count;
	if (!w->task_fine) {
		sh.fn = fn, sh.ctx = ctx;
		sh.count = w->def.worker_count < count ? w->def.worker_count : count;
		const bool given = split && sh.count == w->def.worker_count;
		for (uint32_t k = 0; k < sh.count; ++k)
			atomic_init(&sh.s[k].left, given ? share_word(split[k], split[k + 1])
							 : share_word((uint32_t)((uint64_t)count * k / sh.count),
								      (uint32_t)((uint64_t)count * (k + 1) / sh.count)));
		task = run_shares, task_ctx = &sh, items = sh.count;
	}
	void *handle = w->task_enqueue(task, items, 1, task_ctx, w->task_user);
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
