/* The built-in pool of threads (thread_pool.c): the step's scheduler when
 * the game gives none (fxs_world_def.worker_count > 1, no enqueue_task).
 * Its enqueue and finish have the types of the public task interface
 * (types.h), with the pool as the user context. */
#ifndef FXS_THREAD_POOL_H
#define FXS_THREAD_POOL_H

#include "fixstep/types.h"

typedef struct fxs_thread_pool fxs_thread_pool;

/* A pool of worker_count - 1 threads (the caller of finish is the last
 * worker); NULL when the threads or their memory cannot be had, or the
 * build has no threads (wasm without pthreads): the step is then serial. */
fxs_thread_pool *fxs_thread_pool_create(uint32_t worker_count);
void fxs_thread_pool_destroy(fxs_thread_pool *p); /* NULL: nothing */

void *fxs_thread_pool_enqueue(fxs_task_fn *task, uint32_t item_count, uint32_t min_range, void *task_ctx, void *pool);
void fxs_thread_pool_finish(void *handle, void *pool);

#endif
