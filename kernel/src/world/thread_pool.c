/* The built-in pool: worker_count - 1 threads that wait for one task at a
 * time and take its items in ranges from a shared counter; the thread that
 * called enqueue takes ranges too when it calls finish, and returns when
 * every range has run.
 *
 * What the atomics here decide is only which thread runs which range and
 * when: the step's items write their own slots (tasks.h), so nothing of it
 * reaches the state.
 *
 * gen counts up, odd while a task is open. A worker joins a task by raising `active` and
 * then seeing gen still at that task's value; finish closes the task (gen
 * even) before it waits for active to fall to zero, so that a worker that
 * raises active after that sees the task closed and leaves (both sides
 * write, then read the other's variable, sequentially consistent: one of
 * them sees the other). Workers spin a while for the next task (a step
 * enqueues many small ones), then sleep on a condition variable. */
#include "world/thread_pool.h"

#include <stdlib.h>

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)

/* wasm without threads: no pool, the step is serial (the same bits) */
fxs_thread_pool *fxs_thread_pool_create(uint32_t worker_count)
{
	(void)worker_count;
	return NULL;
}
void fxs_thread_pool_destroy(fxs_thread_pool *p) { (void)p; }
void *fxs_thread_pool_enqueue(fxs_task_fn *task, uint32_t item_count, uint32_t min_range, void *task_ctx, void *pool)
{
	(void)min_range, (void)pool;
	task(0, item_count, 0, task_ctx);
	return NULL;
}
void fxs_thread_pool_finish(void *handle, void *pool) { (void)handle, (void)pool; }

#else

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

/* spins of a worker waiting for the next task before it sleeps */
#define SPINS 4000

struct fxs_thread_pool {
	pthread_mutex_t mu;
	pthread_cond_t wake;
	uint32_t thread_count;
	pthread_t *threads;
	struct worker_arg *args;
	/* the open task: written while closed and no worker is active */
	fxs_task_fn *task;
	void *task_ctx;
	uint32_t item_count, range;
	atomic_uint next;     /* the first item not yet taken */
	atomic_uint gen;      /* odd: a task is open */
	atomic_uint active;   /* workers inside the open task */
	atomic_uint sleepers; /* workers waiting on `wake` */
	atomic_bool stop;
};

struct worker_arg {
	fxs_thread_pool *pool;
	uint32_t index;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* ranges of the open task until none is left */
static void take_ranges(fxs_thread_pool *p, uint32_t worker)
{
	for (;;) {
		uint32_t start = atomic_fetch_add(&p->next, p->range);
		if (start >= p->item_count)
			return;
		uint32_t end = p->item_count - start < p->range ? p->item_count : start + p->range;
		p->task(start, end, worker, p->task_ctx);
	}
}

static void *worker_main(void *arg)
{
	struct worker_arg *a = arg;
	fxs_thread_pool *p = a->pool;
	uint32_t seen = 0;
	for (;;) {
		uint32_t g = atomic_load(&p->gen);
		for (int i = 0; i < SPINS && (g == seen || !(g & 1)) && !atomic_load(&p->stop); ++i) {
			cpu_relax();
			g = atomic_load(&p->gen);
		}
		if ((g == seen || !(g & 1)) && !atomic_load(&p->stop)) {
			pthread_mutex_lock(&p->mu);
			atomic_fetch_add(&p->sleepers, 1);
			while (((g = atomic_load(&p->gen)) == seen || !(g & 1)) && !atomic_load(&p->stop))
				pthread_cond_wait(&p->wake, &p->mu);
			atomic_fetch_sub(&p->sleepers, 1);
			pthread_mutex_unlock(&p->mu);
		}
		if (atomic_load(&p->stop))
			return NULL;
		seen = g;
		atomic_fetch_add(&p->active, 1);
		if (atomic_load(&p->gen) == g) /* still open: the task's fields are this task's */
			take_ranges(p, a->index);
		atomic_fetch_sub(&p->active, 1);
	}
}

fxs_thread_pool *fxs_thread_pool_create(uint32_t worker_count)
{
	if (worker_count < 2)
		return NULL;
	fxs_thread_pool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->threads = calloc(worker_count - 1, sizeof *p->threads);
	p->args = calloc(worker_count - 1, sizeof *p->args);
	if (!p->threads || !p->args || pthread_mutex_init(&p->mu, NULL) != 0) {
		free(p->threads), free(p->args), free(p);
		return NULL;
	}
	if (pthread_cond_init(&p->wake, NULL) != 0) {
		pthread_mutex_destroy(&p->mu);
		free(p->threads), free(p->args), free(p);
		return NULL;
	}
	atomic_init(&p->next, 0);
	atomic_init(&p->gen, 0);
	atomic_init(&p->active, 0);
	atomic_init(&p->sleepers, 0);
	atomic_init(&p->stop, false);
	for (uint32_t i = 0; i + 1 < worker_count; ++i) {
		p->args[i].pool = p;
		p->args[i].index = i + 1; /* 0: the thread that calls finish */
		if (pthread_create(&p->threads[i], NULL, worker_main, &p->args[i]) != 0) {
			fxs_thread_pool_destroy(p);
			return NULL;
		}
		p->thread_count = i + 1;
	}
	return p;
}

void fxs_thread_pool_destroy(fxs_thread_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	atomic_store(&p->stop, true);
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);
	for (uint32_t i = 0; i < p->thread_count; ++i)
		pthread_join(p->threads[i], NULL);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->mu);
	free(p->threads);
	free(p->args);
	free(p);
}

void *fxs_thread_pool_enqueue(fxs_task_fn *task, uint32_t item_count, uint32_t min_range, void *task_ctx, void *pool)
{
	fxs_thread_pool *p = pool;
	if (atomic_load(&p->gen) & 1) { /* one task at a time: a second runs here, now */
		task(0, item_count, 0, task_ctx);
		return NULL;
	}
	p->task = task;
	p->task_ctx = task_ctx;
	p->item_count = item_count;
	/* ranges of min_range items, or smaller ones, about four a thread */
	uint32_t r = item_count / (4 * (p->thread_count + 1));
	p->range = r > min_range ? r : (min_range ? min_range : 1);
	atomic_store(&p->next, 0);
	atomic_fetch_add(&p->gen, 1); /* open */
	if (atomic_load(&p->sleepers)) {
		pthread_mutex_lock(&p->mu);
		pthread_cond_broadcast(&p->wake);
		pthread_mutex_unlock(&p->mu);
	}
	return p;
}

void fxs_thread_pool_finish(void *handle, void *pool)
{
	fxs_thread_pool *p = pool;
	(void)handle;
	take_ranges(p, 0);
	atomic_fetch_add(&p->gen, 1); /* closed: no worker joins now */
	/* the workers still in it are finishing their last ranges: spin, and
	 * yield only when that takes long (a system call is dear, in virtual
	 * machines above all: yielding at once cost some a third of a step) */
	for (int i = 0; atomic_load(&p->active); ++i) {
		cpu_relax();
		if (i >= SPINS)
			sched_yield();
	}
}

#endif
