/* The world: creation from a definition, slots, statistics. */
#include "world/world.h"
#include "broadphase/broadphase.h"
#include "world/call_log.h"
#include "world/tasks.h"
#include "collide/contact.h"
#include "simd/kernels.h"
#include "character/character.h"
#include "geometry/compound.h"
#include "geometry/hull.h"
#include "geometry/mesh.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>
#include <string.h>

const char *fxs_result_string(fxs_result r)
{
	switch (r) {
	case FXS_OK: return "ok";
	case FXS_ERR_INVALID_ARGUMENT: return "invalid argument";
	case FXS_ERR_BUFFER_TOO_SMALL: return "buffer too small";
	case FXS_ERR_NOMEM: return "out of memory";
	case FXS_ERR_BAD_MAGIC: return "not a fixstep file (bad magic)";
	case FXS_ERR_VERSION: return "unsupported format or kernel version";
	case FXS_ERR_TRUNCATED: return "truncated";
	case FXS_ERR_CORRUPT: return "corrupt (a field is out of range or a checksum does not match)";
	case FXS_ERR_LIMIT: return "over a limit of the world";
	case FXS_ERR_INVALID_ID: return "invalid id (null, stale, or no world)";
	}
	return "unknown error";
}

fxs_world_def fxs_default_world_def(void)
{
	fxs_world_def d;
	memset(&d, 0, sizeof d);
	d.gravity = fxg_v3(0, FXG_I(-10), 0);
	d.dt = FXG_RATIO(1, 60); /* 1092 raw = 0.016662 s */
	d.substeps = 4;
	d.relax_iterations = 1;
	d.contact_hertz = FXG_I(30);
	d.contact_damping = FXG_I(10);
	d.contact_push_max = FXG_I(3);
	d.linear_slop = FXG_RATIO(5, 1000);
	d.speculative_distance = 4 * FXG_RATIO(5, 1000);
	d.restitution_threshold = FXG_I(1);
	d.enable_sleep = true;
	d.linear_sleep_tolerance = FXG_RATIO(5, 100);
	d.angular_sleep_tolerance = FXG_RATIO(349, 10000);
	d.time_to_sleep = FXG_HALF;
	d.max_bodies = 1u << 20;
	d.direct_joint_rows = 96;
	d.direct_contact_rows = 0; /* off: the iterative solver for contacts */
	d.hit_event_threshold = FXG_ONE;
	d.worker_count = 1;
	return d;
}

/* The ranges of the contact settings (creation and fxs_world_set_contact_tuning) */
static const char *contact_problem(fix16_t hertz, fix16_t damping, fix16_t push_max)
{
	if (hertz <= 0 || hertz > FXG_I(1000))
		return "contact_hertz";
	if (damping < 0 || damping > FXG_I(1000))
		return "contact_damping";
	if (push_max < 0 || push_max > FXG_I(1000))
		return "contact_push_max";
	return NULL;
}

static const char *gravity_problem(fxg_vec3 g)
{
	const fix16_t gmax = FXG_I(1000);
	if (g.x < -gmax || g.x > gmax)
		return "gravity.x";
	if (g.y < -gmax || g.y > gmax)
		return "gravity.y";
	if (g.z < -gmax || g.z > gmax)
		return "gravity.z";
	return NULL;
}

static bool speed_ok(fix16_t v) { return v >= 0 && v <= FXG_I(1000); }

const char *fxs_world_def_invalid_field(const fxs_world_def *d)
{
	if (!d)
		return "def";
	const char *bad = gravity_problem(d->gravity);
	if (bad)
		return bad;
	/* dt in [1/4096 s, 1 s]; each sub-step at least 16 raw so that h v keeps
	 * precision. Every such dt and count is honoured exactly: the sub-steps
	 * are dt / substeps long, rounded down, and one raw unit longer for the
	 * first dt mod substeps of them (fxs_substep_length, solver.h). */
	if (d->dt < 16 || d->dt > FXG_ONE)
		return "dt";
	if (d->substeps < 1 || d->substeps > 64 || d->dt / d->substeps < 16)
		return "substeps";
	if (d->relax_iterations < 0 || d->relax_iterations > 16)
		return "relax_iterations";
	if ((bad = contact_problem(d->contact_hertz, d->contact_damping, d->contact_push_max)) != NULL)
		return bad;
	if (d->linear_slop < 0 || d->linear_slop > FXG_ONE)
		return "linear_slop";
	if (d->speculative_distance < 0 || d->speculative_distance > FXG_I(10))
		return "speculative_distance";
	if (!speed_ok(d->restitution_threshold))
		return "restitution_threshold";
	if (d->linear_sleep_tolerance < 0)
		return "linear_sleep_tolerance";
	if (d->angular_sleep_tolerance < 0)
		return "angular_sleep_tolerance";
	if (d->time_to_sleep < 0 || d->time_to_sleep > FXG_I(1000))
		return "time_to_sleep";
	if (d->direct_joint_rows > 1024)
		return "direct_joint_rows";
	if (d->direct_contact_rows > 1024)
		return "direct_contact_rows";
	if (d->max_bodies == 0 || d->max_bodies > (1u << 24))
		return "max_bodies";
	if (!speed_ok(d->hit_event_threshold))
		return "hit_event_threshold";
	if (d->worker_count > FXS_MAX_WORKERS)
		return "worker_count";
	if (!d->enqueue_task != !d->finish_task) /* a scheduler is both */
		return d->enqueue_task ? "finish_task" : "enqueue_task";
	return NULL;
}

fxs_result fxs_world_def_validate(const fxs_world_def *d)
{
	return fxs_world_def_invalid_field(d) ? FXS_ERR_INVALID_ARGUMENT : FXS_OK;
}

fxs_world *fxs_world_create(const fxs_world_def *def)
{
	if (fxs_world_def_validate(def) != FXS_OK)
		return NULL;
	fxs_world *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->def = *def;
	w->kernels = FXS_KERNELS_NEON; /* the widest the CPU and build have (fxs_world_get_kernels) */
	w->bp = fxs_bp_create();
	if (!w->bp) {
		free(w);
		return NULL;
	}
	if (!fxs_tasks_start(w))
		w->def.worker_count = 1; /* without its threads the step is serial: the same bits */
	return w;
}

void fxs_world_destroy(fxs_world *w)
{
	if (!w)
		return;
	fxs_call_log_stop(w);
	fxs_tasks_stop(w);
	fxs_contacts_free_blocks(w);
	fxs_bp_destroy(w->bp);
	fxs_meshes_free(w);
	fxs_hulls_free(w);
	fxs_compounds_free(w);
	fxs_characters_free(w);
	free(w->ev_begin);
	free(w->ev_end);
	free(w->ev_hit);
	free(w->ev_sensor_begin);
	free(w->ev_sensor_end);
	free(w->end_pending);
	free(w->overlaps);
	free(w->overlaps_next);
	free(w->bodies);
	free(w->contacts);
	free(w->contacts_next);
	free(w->joints);
	free(w->joint_filter);
	free(w->scratch_aabbs);
	free(w->scratch_flags);
	free(w->solver_scratch);
	free(w->ball_scratch);
	free(w->joint_scratch);
	free(w->rolling_scratch);
	free(w->rot_cache);
	free(w->island);
	free(w->island_flag);
	XXH3_freeState((XXH3_state_t *)w->hash_stream);
	free(w->hash_chunk);
	free(w->hash_blocks);
	free(w->joint_stage_memo);
	free(w->direct_plan_memo);
	free(w);
}

fxs_world_def fxs_world_get_def(const fxs_world *w) { return w ? w->def : fxs_default_world_def(); }

fxs_result fxs_world_status(const fxs_world *w)
{
	if (!w)
		return FXS_ERR_INVALID_ID;
	return w->failed ? FXS_ERR_NOMEM : FXS_OK;
}

fxs_result fxs_world_fail(fxs_world *w, fxs_result r, const char *fmt, ...)
{
	w->last_error = r;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->last_error_message, sizeof w->last_error_message, fmt, ap);
	va_end(ap);
	return r;
}

fxs_result fxs_world_get_last_error(const fxs_world *w) { return w ? w->last_error : FXS_ERR_INVALID_ID; }

const char *fxs_world_get_last_error_message(const fxs_world *w) { return w ? w->last_error_message : "no world"; }

bool fxs_grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
	if (need <= *cap)
		return true;
	uint32_t c = *cap ? *cap : 16;
	while (c < need)
		c = c > UINT32_MAX / 2 ? need : c * 2;
	void *n = realloc(*p, (size_t)c * size);
	if (!n)
		return false;
	*p = n;
	*cap = c;
	return true;
}

/* ---- settings after creation (state: the definition is hashed) ---- */

fxs_result fxs_world_set_gravity(fxs_world *w, fxg_vec3 gravity)
{
	FXS_CALL_LOG(w, FXS_OP_WORLD_SET_GRAVITY, gravity);
	if (!w)
		return FXS_ERR_INVALID_ID;
	if (gravity_problem(gravity))
		return FXS_ERR_INVALID_ARGUMENT;
	w->def.gravity = gravity;
	fxs_world_touch(w);
	return FXS_OK;
}

fxg_vec3 fxs_world_get_gravity(const fxs_world *w) { return w ? w->def.gravity : fxg_v3_zero(); }

fxs_result fxs_world_set_contact_tuning(fxs_world *w, fix16_t hertz, fix16_t damping_ratio, fix16_t push_max)
{
	FXS_CALL_LOG(w, FXS_OP_WORLD_SET_CONTACT_TUNING, hertz, damping_ratio, push_max);
	if (!w)
		return FXS_ERR_INVALID_ID;
	if (contact_problem(hertz, damping_ratio, push_max))
		return FXS_ERR_INVALID_ARGUMENT;
	w->def.contact_hertz = hertz;
	w->def.contact_damping = damping_ratio;
	w->def.contact_push_max = push_max;
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_world_set_restitution_threshold(fxs_world *w, fix16_t speed)
{
	FXS_CALL_LOG(w, FXS_OP_WORLD_SET_RESTITUTION_THRESHOLD, speed);
	if (!w)
		return FXS_ERR_INVALID_ID;
	if (!speed_ok(speed))
		return FXS_ERR_INVALID_ARGUMENT;
	w->def.restitution_threshold = speed;
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_world_set_hit_event_threshold(fxs_world *w, fix16_t speed)
{
	FXS_CALL_LOG(w, FXS_OP_WORLD_SET_HIT_EVENT_THRESHOLD, speed);
	if (!w)
		return FXS_ERR_INVALID_ID;
	if (!speed_ok(speed))
		return FXS_ERR_INVALID_ARGUMENT;
	w->def.hit_event_threshold = speed;
	fxs_world_touch(w);
	return FXS_OK;
}

fxs_result fxs_world_enable_sleeping(fxs_world *w, bool enable)
{
	FXS_CALL_LOG(w, FXS_OP_WORLD_ENABLE_SLEEPING, enable);
	if (!w)
		return FXS_ERR_INVALID_ID;
	if (w->def.enable_sleep && !enable) {
		for (uint32_t s = 0; s < w->slot_count; ++s) {
			fxs_body *b = &w->bodies[s];
			if (b->alive && b->type != FXS_BODY_STATIC && !(b->game & FXS_BODY_DISABLED))
				b->awake = 1, b->sleep_time = 0;
		}
	}
	w->def.enable_sleep = enable;
	fxs_world_touch(w);
	return FXS_OK;
}

bool fxs_world_reserve_slots(fxs_world *w, uint32_t n)
{
	if (n <= w->slot_cap)
		return true;
	uint32_t cap = w->slot_cap ? w->slot_cap : 64;
	while (cap < n)
		cap = cap > UINT32_MAX / 2 ? n : cap * 2;
	fxs_body *nb = realloc(w->bodies, (size_t)cap * sizeof *nb);
	if (!nb)
		return false;
	/* the new slots are not cleared here, but as they come into use
	 * (fxs_body_create, the snapshot reader), so that a capacity doubled
	 * past the bodies a world holds takes no memory */
	w->bodies = nb;
	w->slot_cap = cap;
	return true;
}

fxs_step_stats fxs_world_get_stats(const fxs_world *w)
{
	fxs_step_stats none;
	memset(&none, 0, sizeof none);
	return w ? w->stats : none;
}
uint64_t fxs_world_get_step(const fxs_world *w) { return w ? w->stats.step : 0; }

fxs_kernels fxs_world_get_kernels(const fxs_world *w)
{
	return fxs_kernels_at_most(w ? w->kernels : FXS_KERNELS_NEON); /* no world: the widest there is */
}

fxs_kernels fxs_world_set_kernels(fxs_world *w, fxs_kernels k)
{
	if (!w)
		return fxs_world_get_kernels(w);
	w->kernels = (int)k < 0 ? FXS_KERNELS_PORTABLE : (int)k >= FXS_KERNELS_LEVELS ? FXS_KERNELS_NEON : k;
	return fxs_world_get_kernels(w);
}

fxs_result fxs_world_set_workers(fxs_world *w, uint32_t worker_count, fxs_enqueue_task_fn *enqueue_task,
				 fxs_finish_task_fn *finish_task, void *user_task_context)
{
	if (!w)
		return FXS_ERR_INVALID_ID;
	if (worker_count > FXS_MAX_WORKERS || !enqueue_task != !finish_task)
		return FXS_ERR_INVALID_ARGUMENT;
	fxs_tasks_stop(w);
	w->def.worker_count = worker_count ? worker_count : 1;
	w->def.enqueue_task = enqueue_task;
	w->def.finish_task = finish_task;
	w->def.user_task_context = user_task_context;
	if (!fxs_tasks_start(w))
		w->def.worker_count = 1; /* no threads to be had: serial */
	return FXS_OK;
}

uint32_t fxs_world_slot_count(const fxs_world *w) { return w ? w->slot_count : 0; }
uint32_t fxs_world_body_count(const fxs_world *w) { return w ? w->body_count : 0; }

fxs_body_id fxs_world_body_at(const fxs_world *w, uint32_t slot)
{
	if (!w || slot >= w->slot_count || !w->bodies[slot].alive)
		return fxs_null_body;
	fxs_body_id id = { slot + 1, w->bodies[slot].generation };
	return id;
}
