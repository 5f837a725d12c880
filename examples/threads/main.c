/* A game's own job system running fixstep's step (docs/threads.md).
 *
 * The game has a pool of threads of its own (here a small one: a queue of
 * ranges under a mutex, a condition variable to wake the threads, a counter
 * of ranges left). It hands fixstep its enqueue and finish through the
 * world definition (worker_count, enqueue_task, finish_task,
 * user_task_context); fixstep cuts each phase of the step into items fixed
 * by the world's data, so the hash is the same on any number of threads.
 * This program steps a pyramid of boxes on one thread and on the game's
 * pool of four, compares every step's hash, and prints the last. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "fixstep/fixstep.h"

/* ---- the game's pool ---- */

#define MAX_RANGES 1024

typedef struct job {
	fxs_task_fn *fn;
	void *ctx;
	uint32_t start, end;
} job;

typedef struct pool {
	pthread_mutex_t mu;
	pthread_cond_t work, idle;
	job queue[MAX_RANGES];
	uint32_t head, tail; /* the ranges not yet taken: queue[head..tail) */
	uint32_t running;    /* ranges taken and not yet finished */
	uint32_t thread_count;
	pthread_t threads[8];
	int stop;
} pool;

typedef struct worker {
	pool *p;
	uint32_t index;
} worker;

/* take and run ranges until the queue is empty; the mutex is held on entry and exit */
static void run_queued(pool *p, uint32_t index)
{
	while (p->head < p->tail) {
		job j = p->queue[p->head++];
		p->running++;
		pthread_mutex_unlock(&p->mu);
		j.fn(j.start, j.end, index, j.ctx);
		pthread_mutex_lock(&p->mu);
		if (--p->running == 0 && p->head == p->tail)
			pthread_cond_broadcast(&p->idle);
	}
}

static void *worker_main(void *arg)
{
	worker *w = arg;
	pool *p = w->p;
	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		run_queued(p, w->index);
		if (!p->stop)
			pthread_cond_wait(&p->work, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* fixstep's enqueue_task: cut the items into ranges of at least min_range
 * (about four per thread) and queue them */
static void *pool_enqueue(fxs_task_fn *fn, uint32_t item_count, uint32_t min_range, void *task_ctx, void *user)
{
	pool *p = user;
	uint32_t per = item_count / (4 * (p->thread_count + 1));
	per = per > min_range ? per : (min_range ? min_range : 1);
	pthread_mutex_lock(&p->mu);
	if (p->head == p->tail)
		p->head = p->tail = 0;
	for (uint32_t at = 0; at < item_count; at += per) {
		if (p->tail == MAX_RANGES) { /* full: the rest here, now */
			pthread_mutex_unlock(&p->mu);
			fn(at, item_count, 0, task_ctx);
			pthread_mutex_lock(&p->mu);
			break;
		}
		p->queue[p->tail++] = (job){ fn, task_ctx, at, item_count - at < per ? item_count : at + per };
	}
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	return p; /* the handle finish gets */
}

/* fixstep's finish_task: help with the queue, then wait for the ranges
 * other threads are running */
static void pool_finish(void *handle, void *user)
{
	pool *p = user;
	(void)handle;
	pthread_mutex_lock(&p->mu);
	run_queued(p, 0); /* this thread is worker 0 */
	while (p->running || p->head < p->tail)
		pthread_cond_wait(&p->idle, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

static worker workers[8];

static void pool_start(pool *p, uint32_t threads)
{
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->idle, NULL);
	p->head = p->tail = p->running = 0;
	p->stop = 0;
	p->thread_count = threads;
	for (uint32_t i = 0; i < threads; ++i) {
		workers[i] = (worker){ p, i + 1 };
		pthread_create(&p->threads[i], NULL, worker_main, &workers[i]);
	}
}

static void pool_stop(pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (uint32_t i = 0; i < p->thread_count; ++i)
		pthread_join(p->threads[i], NULL);
}

/* ---- the game ---- */

/* a pyramid of `rows` rows of 1 m boxes on a static ground box */
static fxs_world *make_world(const fxs_world_def *def, int rows)
{
	fxs_world *w = fxs_world_create(def);
	if (!w)
		return NULL;
	fxs_body_def ground = fxs_default_body_def();
	ground.type = FXS_BODY_STATIC;
	ground.shape.type = FXS_SHAPE_BOX;
	ground.shape.half_extents = fxg_v3(FXG_I(50), FXG_I(1), FXG_I(50));
	ground.position = fxg_v3(0, FXG_I(-1), 0);
	fxs_body_create(w, &ground);
	for (int r = 0; r < rows; ++r) {
		for (int k = 0; k < rows - r; ++k) {
			fxs_body_def box = fxs_default_body_def();
			box.shape.type = FXS_SHAPE_BOX;
			box.shape.half_extents = fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF);
			box.position = fxg_v3(FXG_I(k) + FXG_HALF * r - FXG_HALF * rows, FXG_HALF + FXG_I(r), 0);
			fxs_body_create(w, &box);
		}
	}
	return w;
}

int main(void)
{
	enum { ROWS = 30, STEPS = 120, THREADS = 3 };
	fxs_world_def def = fxs_default_world_def();
	fxs_world *serial = make_world(&def, ROWS);
	pool p;
	pool_start(&p, THREADS);
	def.worker_count = THREADS + 1; /* the game's threads and the one that steps */
	def.enqueue_task = pool_enqueue;
	def.finish_task = pool_finish;
	def.user_task_context = &p;
	fxs_world *threaded = make_world(&def, ROWS);
	if (!serial || !threaded) {
		fprintf(stderr, "threads: no world (%s)\n", fxs_world_def_invalid_field(&def));
		return 1;
	}
	uint64_t hash = 0;
	for (int s = 1; s <= STEPS; ++s) {
		if (fxs_world_step(serial) != FXS_OK || fxs_world_step(threaded) != FXS_OK)
			return 1;
		hash = fxs_world_hash(serial);
		if (fxs_world_hash(threaded) != hash) {
			printf("threads: step %d: the hash on %d threads differs from one thread's\n", s, THREADS + 1);
			return 2;
		}
	}
	printf("threads: %u bodies, %d steps on 1 and on %d threads: the same hash at every step\n",
	       fxs_world_body_count(serial), STEPS, THREADS + 1);
	printf("hash %016" PRIx64 "\n", hash);
	fxs_world_destroy(threaded); /* before the pool it uses */
	fxs_world_destroy(serial);
	pool_stop(&p);
	return 0;
}
