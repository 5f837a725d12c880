/* Islands and sleeping (seed 000's grouping, made canonical).
 *
 * The seed's pointer scheme (root and pointer values overwritten pair by
 * pair) depends on the order of pairs, can split a connected group over
 * several frames and can even form pointer cycles (reference note, 5.5). Here
 * a group is exactly a connected component, computed from scratch each step
 * by union-find over the sorted contact list, and its id is its smallest body
 * slot: the same components give the same ids whatever the order. */
#include "island/island.h"
#include "collide/contact.h"
#include "joint/joint.h"
#include "world/tasks.h"

#include <stdlib.h>

bool fxs_islands_reserve(fxs_world *w)
{
	if (w->island_cap >= w->slot_count)
		return true;
	uint32_t cap = w->island_cap ? w->island_cap : 64;
	while (cap < w->slot_count)
		cap *= 2;
	uint32_t *a = realloc(w->island, (size_t)cap * sizeof *a);
	if (!a)
		return false;
	w->island = a;
	uint8_t *f = realloc(w->island_flag, cap);
	if (!f)
		return false;
	w->island_flag = f;
	w->island_cap = cap;
	return true;
}

static uint32_t find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]]; /* path halving: does not change the roots */
		x = parent[x];
	}
	return x;
}

static void unite(uint32_t *parent, uint32_t a, uint32_t b)
{
	uint32_t ra = find(parent, a), rb = find(parent, b);
	/* the smaller slot becomes the root: roots are always component minima */
	if (ra < rb)
		parent[rb] = ra;
	else if (rb < ra)
		parent[ra] = rb;
}

fxs_result fxs_islands_build(fxs_world *w)
{
	if (!fxs_islands_reserve(w))
		return FXS_ERR_NOMEM;
	uint32_t *p = w->island;
	for (uint32_t s = 0; s < w->slot_count; ++s) {
		const fxs_body *b = &w->bodies[s];
		p[s] = (b->alive && b->type != FXS_BODY_STATIC && !(b->game & FXS_BODY_DISABLED)) ? s : UINT32_MAX;
	}
	for (uint32_t i = 0; i < w->contact_count; ++i) {
		const fxs_contact *c = &w->contacts[i];
		/* static and kinematic bodies do not join islands (they would merge
		 * everything resting on the ground into one island) */
		if (w->bodies[c->a].type != FXS_BODY_DYNAMIC || w->bodies[c->b].type != FXS_BODY_DYNAMIC)
			continue;
		unite(p, c->a, c->b);
	}
	/* jointed dynamic bodies sleep and wake together */
	for (uint32_t i = 0; i < w->joint_slot_count; ++i) {
		const fxs_joint *j = &w->joints[i];
		if (!j->alive || j->type == FXS_JOINT_FILTER || w->bodies[j->a].type != FXS_BODY_DYNAMIC ||
		    w->bodies[j->b].type != FXS_BODY_DYNAMIC ||
		    ((w->bodies[j->a].game | w->bodies[j->b].game) & FXS_BODY_DISABLED))
			continue;
		unite(p, j->a, j->b);
	}
	for (uint32_t s = 0; s < w->slot_count; ++s)
		if (p[s] != UINT32_MAX)
			p[s] = find(p, s);
	return FXS_OK;
}

static void wake_body(fxs_body *b)
{
	b->awake = 1;
	b->sleep_time = 0;
}

void fxs_islands_wake(fxs_world *w, const fxs_pair *pairs, uint32_t pair_count)
{
	/* nothing asleep, nothing to wake: no islands to build (they are
	 * derived, and fxs_islands_sleep builds its own) */
	uint32_t s0 = 0;
	while (s0 < w->slot_count && !(w->bodies[s0].alive && w->bodies[s0].type != FXS_BODY_STATIC && !w->bodies[s0].awake))
		++s0;
	if (s0 == w->slot_count)
		return;
	if (fxs_islands_build(w) != FXS_OK) {
		fxs_world_nomem(w); /* not after fxs_islands_reserve at the step's start */
		return;
	}
	uint8_t *wake = w->island_flag;
	for (uint32_t s = 0; s < w->slot_count; ++s)
		wake[s] = 0;
	for (uint32_t s = 0; s < w->slot_count; ++s)
		if (w->island[s] != UINT32_MAX && w->bodies[s].awake)
			wake[w->island[s]] = 1;
	/* an awake moving body whose bounds reach a sleeping body wakes its island */
	for (uint32_t i = 0; i < pair_count; ++i) {
		const fxs_body *a = &w->bodies[pairs[i].a], *b = &w->bodies[pairs[i].b];
		if (!fxs_bodies_touch(a, b))
			continue; /* a filtered pair, or a sensor: they never touch */
		if (fxs_body_active(a) && b->type != FXS_BODY_STATIC && !b->awake)
			wake[w->island[pairs[i].b]] = 1;
		if (fxs_body_active(b) && a->type != FXS_BODY_STATIC && !a->awake)
			wake[w->island[pairs[i].a]] = 1;
	}
	for (uint32_t s = 0; s < w->slot_count; ++s)
		if (w->island[s] != UINT32_MAX && wake[w->island[s]] && !w->bodies[s].awake)
			wake_body(&w->bodies[s]);
}

/* |v|_inf <= tol: a cheap, exact test (no square root) */
static bool slow(fxg_vec3 v, fix16_t tol)
{
	return v.x <= tol && v.x >= -tol && v.y <= tol && v.y >= -tol && v.z <= tol && v.z >= -tol;
}

/* the sleep timers of slots [first, end), each its own; the saturations
 * counted, and whether a slot is kinematic */
typedef struct timers_out {
	uint32_t ovf;
	bool kinematic;
} timers_out;

static timers_out timers_range(fxs_world *w, uint32_t first, uint32_t end)
{
	const fxs_world_def *d = &w->def;
	timers_out t = { 0, false };
	for (uint32_t s = first; s < end; ++s) {
		fxs_body *b = &w->bodies[s];
		t.kinematic |= b->type == FXS_BODY_KINEMATIC;
		if (!fxs_body_active(b))
			continue;
		if (b->type == FXS_BODY_DYNAMIC && slow(b->v, d->linear_sleep_tolerance) && slow(b->w, d->angular_sleep_tolerance))
			b->sleep_time = fxg_min(fxg_add(b->sleep_time, d->dt, &t.ovf), FXG_I(1000));
		else
			b->sleep_time = 0;
	}
	return t;
}

/* with workers: in blocks of 256 slots at once (tasks.h) */
typedef struct timers_job {
	fxs_world *w;
	uint32_t block;
	timers_out out[FXS_TASK_BLOCKS_MAX];
} timers_job;

static void timers_block(void *ctx, uint32_t k)
{
	timers_job *j = ctx;
	const uint32_t a = k * j->block, n = j->w->slot_count, b = n - a < j->block ? n : a + j->block;
	j->out[k] = timers_range(j->w, a, b);
}

static bool update_timers(fxs_world *w)
{
	timers_out t = { 0, false };
	if (!fxs_tasks_parallel(w)) {
		t = timers_range(w, 0, w->slot_count);
	} else {
		timers_job j;
		j.w = w;
		const uint32_t blocks = fxs_task_blocks(w->slot_count, w->task_fine ? 1 : 256, &j.block);
		fxs_tasks_run(w, timers_block, &j, blocks);
		for (uint32_t k = 0; k < blocks; ++k)
			t.ovf += j.out[k].ovf, t.kinematic |= j.out[k].kinematic;
	}
	w->ovf += t.ovf;
	return t.kinematic;
}

void fxs_islands_sleep(fxs_world *w)
{
	const fxs_world_def *d = &w->def;
	/* timers; any kinematic slot: only they reset others' timers below */
	const bool kinematic = update_timers(w);
	/* a moving kinematic body keeps what it touches awake (no kinematic
	 * body: nothing to do, and no walk over the contacts and joints) */
	for (uint32_t i = 0; kinematic && i < w->contact_count; ++i) {
		fxs_body *a = &w->bodies[w->contacts[i].a], *b = &w->bodies[w->contacts[i].b];
		if (a->type == FXS_BODY_KINEMATIC && a->sleep_time == 0)
			b->sleep_time = 0;
		if (b->type == FXS_BODY_KINEMATIC && b->sleep_time == 0)
			a->sleep_time = 0;
	}
	/* and what it is jointed to */
	for (uint32_t i = 0; kinematic && i < w->joint_slot_count; ++i) {
		const fxs_joint *j = &w->joints[i];
		if (!j->alive)
			continue;
		fxs_body *a = &w->bodies[j->a], *b = &w->bodies[j->b];
		if (a->type == FXS_BODY_KINEMATIC && a->sleep_time == 0)
			b->sleep_time = 0;
		if (b->type == FXS_BODY_KINEMATIC && b->sleep_time == 0)
			a->sleep_time = 0;
	}
	if (!d->enable_sleep)
		return;
	if (fxs_islands_build(w) != FXS_OK) {
		fxs_world_nomem(w);
		return;
	}
	/* an island sleeps when every member has been slow long enough: flag the
	 * islands with a member that has not */
	uint8_t *keep = w->island_flag;
	for (uint32_t s = 0; s < w->slot_count; ++s)
		keep[s] = 0;
	for (uint32_t s = 0; s < w->slot_count; ++s) {
		const fxs_body *b = &w->bodies[s];
		if (w->island[s] == UINT32_MAX)
			continue;
		if (b->type == FXS_BODY_KINEMATIC || (b->awake && b->sleep_time < d->time_to_sleep))
			keep[w->island[s]] = 1;
	}
	for (uint32_t s = 0; s < w->slot_count; ++s) {
		fxs_body *b = &w->bodies[s];
		if (w->island[s] == UINT32_MAX || keep[w->island[s]] || !b->awake)
			continue;
		b->awake = 0;
		b->v = b->w = fxg_v3_zero();
	}
}
