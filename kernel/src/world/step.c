/* One step, phase by phase: events begin -> characters -> bounds ->
 * broadphase -> wake islands -> narrowphase (contacts) -> contact events ->
 * solve (sub-steps integrate velocities and positions) -> hit events ->
 * sleep islands -> sensors -> clear forces -> hash.
 * Each phase walks its data in canonical order (slots, sorted pairs). A
 * "stage" in the solver is something else: a colour of the constraint
 * graph (solve/stage.h). */
#include "world/world.h"
#include "world/events.h"
#include "world/tasks.h"
#include "state/hash.h"
#include "solve/solver.h"
#include "collide/contact.h"
#include "island/island.h"
#include "state/state.h"
#include "character/character.h"

#include <stdlib.h>

static bool reserve_scratch(fxs_world *w, uint32_t n)
{
	if (n <= w->scratch_cap)
		return true;
	uint32_t cap = w->scratch_cap ? w->scratch_cap : 64;
	while (cap < n)
		cap *= 2;
	fxs_aabb *a = realloc(w->scratch_aabbs, (size_t)cap * sizeof *a);
	if (!a)
		return false;
	w->scratch_aabbs = a;
	uint8_t *f = realloc(w->scratch_flags, cap);
	if (!f)
		return false;
	w->scratch_flags = f;
	w->scratch_cap = cap;
	return true;
}

/* what a range of slots counted: the step's game features (counted here,
 * where every body is looked at anyway: nothing of it is state) and the
 * saturations */
typedef struct bounds_counts {
	uint32_t sensors, contact_events, hit_events, pair_checks, ovf;
} bounds_counts;

/* Bounds of moving bodies are fattened by the speculative distance and swept
 * by the step's displacement (v dt), so that the broadphase reports every pair
 * that can touch during the step: the solver's speculative contacts then stop
 * a fast body at the surface instead of letting it pass. */
static void update_bounds_range(fxs_world *w, uint32_t first, uint32_t end, bounds_counts *out)
{
	fix16_t m = w->def.speculative_distance;
	fxg_vec3 margin = fxg_v3(m, m, m);
	uint32_t sensors = 0, contact_events = 0, hit_events = 0, pair_checks = 0, ovf = 0;
	for (uint32_t i = first; i < end; ++i) {
		fxs_body *b = &w->bodies[i];
		uint8_t flags = 0;
		if (b->alive && b->game) {
			sensors += (b->game & (FXS_BODY_SENSOR | FXS_BODY_DISABLED)) == FXS_BODY_SENSOR;
			contact_events += (b->game & FXS_BODY_CONTACT_EVENTS) != 0;
			hit_events += (b->game & FXS_BODY_HIT_EVENTS) != 0;
			pair_checks += (b->game & FXS_BODY_PAIR_CHECK) != 0;
		}
		if (b->alive && !(b->game & FXS_BODY_DISABLED)) {
			flags = FXS_PROXY_LIVE;
			if (b->type == FXS_BODY_DYNAMIC)
				flags |= FXS_PROXY_MOVING;
			else if (b->type == FXS_BODY_STATIC)
				flags |= FXS_PROXY_STATIC;
			fxs_aabb a = fxs_body_compute_aabb(b, &ovf);
			if (b->type != FXS_BODY_STATIC && !b->awake) {
				/* asleep: fattened, not swept. Made from the state every
				 * step (not kept from the step it fell asleep, whose sweep
				 * a restored snapshot could not know) */
				a.lo = fxg_v3_sub(a.lo, margin, &ovf);
				a.hi = fxg_v3_add(a.hi, margin, &ovf);
			} else if (b->type != FXS_BODY_STATIC) {
				fxg_vec3 d = fxg_v3_scale(w->def.dt, b->v, &ovf);
				a.lo = fxg_v3_sub(fxg_v3_add(a.lo, fxg_v3_min(d, fxg_v3_zero()), &ovf), margin, &ovf);
				a.hi = fxg_v3_add(fxg_v3_add(a.hi, fxg_v3_max(d, fxg_v3_zero()), &ovf), margin, &ovf);
			}
			b->aabb = a;
		} else {
			b->aabb.lo = b->aabb.hi = fxg_v3_zero();
		}
		w->scratch_aabbs[i] = b->aabb;
		w->scratch_flags[i] = flags;
	}
	*out = (bounds_counts){ sensors, contact_events, hit_events, pair_checks, ovf };
}

#define BOUNDS_BLOCK 256

typedef struct bounds_job {
	fxs_world *w;
	uint32_t block;
	bounds_counts counts[FXS_TASK_BLOCKS_MAX];
} bounds_job;

static void bounds_block(void *ctx, uint32_t k)
{
	bounds_job *j = ctx;
	const uint32_t a = k * j->block, n = j->w->slot_count, b = n - a < j->block ? n : a + j->block;
	update_bounds_range(j->w, a, b, &j->counts[k]);
}

/* every slot's bounds: with workers, in blocks of slots at once (a slot's
 * bounds are its own), the blocks' counts added in block order */
static void update_bounds(fxs_world *w)
{
	bounds_counts t;
	if (!fxs_tasks_parallel(w)) {
		update_bounds_range(w, 0, w->slot_count, &t);
	} else {
		bounds_job j;
		j.w = w;
		const uint32_t blocks = fxs_task_blocks(w->slot_count, w->task_fine ? 1 : BOUNDS_BLOCK, &j.block);
		fxs_tasks_run(w, bounds_block, &j, blocks);
		t = (bounds_counts){ 0, 0, 0, 0, 0 };
		for (uint32_t k = 0; k < blocks; ++k) {
			t.sensors += j.counts[k].sensors, t.contact_events += j.counts[k].contact_events;
			t.hit_events += j.counts[k].hit_events, t.pair_checks += j.counts[k].pair_checks;
			t.ovf += j.counts[k].ovf;
		}
	}
	w->ovf += t.ovf;
	w->step_sensors = t.sensors;
	w->step_contact_events = t.contact_events;
	w->step_hit_events = t.hit_events;
	w->step_pair_checks = t.pair_checks;
}

/* The step's end, in blocks of slots and of contacts at once (one task):
 * each slot's force and torque cleared and whether it is awake, each
 * contact's points; the blocks' counts added in block order. */
#define END_BLOCK 1024

typedef struct end_job {
	fxs_world *w;
	uint32_t slot_block, slot_blocks, contact_block;
	uint32_t count[2 * FXS_TASK_BLOCKS_MAX];
} end_job;

static void end_block(void *ctx, uint32_t k)
{
	end_job *j = ctx;
	fxs_world *w = j->w;
	uint32_t n = 0;
	if (k < j->slot_blocks) {
		const uint32_t a = k * j->slot_block, b = w->slot_count - a < j->slot_block ? w->slot_count : a + j->slot_block;
		for (uint32_t i = a; i < b; ++i) {
			fxs_body *bd = &w->bodies[i];
			bd->force = bd->torque = fxg_v3_zero();
			n += fxs_body_active(bd);
		}
	} else {
		const uint32_t a = (k - j->slot_blocks) * j->contact_block,
			       b = w->contact_count - a < j->contact_block ? w->contact_count : a + j->contact_block;
		for (uint32_t i = a; i < b; ++i)
			n += (uint32_t)w->contacts[i].point_count;
	}
	j->count[k] = n;
}

/* forces cleared; the awake bodies and the contact points counted */
static void end_step(fxs_world *w, uint32_t *awake, uint32_t *points)
{
	end_job j;
	j.w = w;
	const uint32_t min_block = w->task_fine ? 1 : END_BLOCK;
	j.slot_blocks = fxs_task_blocks(w->slot_count, min_block, &j.slot_block);
	const uint32_t contact_blocks = fxs_task_blocks(w->contact_count, min_block, &j.contact_block);
	fxs_tasks_run(w, end_block, &j, j.slot_blocks + contact_blocks);
	*awake = *points = 0;
	for (uint32_t k = 0; k < j.slot_blocks; ++k)
		*awake += j.count[k];
	for (uint32_t k = j.slot_blocks; k < j.slot_blocks + contact_blocks; ++k)
		*points += j.count[k];
}

/* Out of memory.
 *
 * What the state at the step's start sizes (the bounds, the islands, the
 * hash's buffers) is taken before anything changes: without it the step
 * returns FXS_ERR_NOMEM and the world is as it was. What only the step finds
 * out (pairs, contacts, constraint rows) is taken part-way: a phase that
 * cannot get it goes on safely, but not as a machine with the memory would,
 * so the world is marked failed and refuses steps and snapshot saves until a
 * snapshot is restored into it. Never a state that silently differs. */
fxs_result fxs_world_step(fxs_world *w)
{
	if (!w)
		return FXS_ERR_INVALID_ID;
	if (w->failed)
		return FXS_ERR_NOMEM;
	if (!reserve_scratch(w, w->slot_count) || !fxs_islands_reserve(w) || !fxs_world_hash_reserve(w))
		return FXS_ERR_NOMEM; /* nothing changed */
	w->ovf = 0;
	w->step_nomem = false;
	fxs_events_begin_step(w); /* the last step's events are replaced by this one's */
	fxs_characters_update(w); /* character moves (their inputs were set before the step) */
	update_bounds(w);
	uint32_t pair_count = 0;
	const fxs_pair *pairs = NULL;
	if (fxs_bp_update_on(w->bp, w, w->scratch_aabbs, w->scratch_flags, w->slot_count) != FXS_OK ||
	    !(pairs = fxs_bp_find_pairs_on(w->bp, w, &pair_count)))
		goto nomem;
	fxs_islands_wake(w, pairs, pair_count);
	uint32_t count = 0;
	if (w->step_nomem || fxs_contacts_update(w, pairs, pair_count, &count) != FXS_OK || w->step_nomem)
		goto nomem;
	/* begin and end events: the new list (its parts) against the old */
	fxs_events_contacts(w);
	if (!fxs_contacts_commit(w, count))
		goto nomem;
	w->contact_geometry = true;
	if (fxs_solve(w) != FXS_OK || w->step_nomem)
		goto nomem;
	fxs_state_bound_impulses(w); /* every state a step makes restores */
	fxs_events_hits(w);
	fxs_islands_sleep(w);
	fxs_sensors_update(w); /* at the positions the step ended on */
	if (w->step_nomem)
		goto nomem;
	uint32_t points, awake;
	end_step(w, &awake, &points);
	w->stats.step++;
	w->stats.overflows = w->ovf;
	w->stats.overflows_total += w->ovf;
	w->stats.body_count = w->body_count;
	w->stats.pair_count = pair_count;
	w->stats.contact_count = w->contact_count;
	w->stats.contact_point_count = points;
	w->stats.awake_body_count = awake;
	fxs_world_update_hash(w);
	return FXS_OK;
nomem:
	w->failed = true;
	fxs_world_update_hash(w); /* of the state it holds, for what it is worth */
	return FXS_ERR_NOMEM;
}
