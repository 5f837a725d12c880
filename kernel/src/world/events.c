/* Contact events (events.h): begin and end from the contact lists before
 * and after the narrowphase, hits after the solve, and the readers.
 *
 * Both lists are sorted by (a, b, child a, child b), so begin and end are
 * one merge walk: canonical, no hashing. Contacts removed between steps
 * (a body destroyed, disabled, re-typed or re-filtered: contact.c) wait in
 * end_pending and join this step's end events, which are then sorted by
 * slots, children and generations. A world where no body asks for events
 * skips all of it. */
#include "world/world.h"
#include "collide/contact.h"
#include "island/island.h"

#include <stdlib.h>
#include <string.h>

static uint64_t key(uint32_t a, uint32_t b, uint32_t ca, uint32_t cb)
{
	return (uint64_t)a << 40 | (uint64_t)b << 16 | (uint64_t)ca << 8 | cb;
}

static uint64_t contact_key(const fxs_contact *c) { return key(c->a, c->b, c->sub_a, c->sub_b); }

static bool wants(const fxs_world *w, const fxs_contact *c, uint8_t flag)
{
	return ((w->bodies[c->a].game | w->bodies[c->b].game) & flag) != 0;
}

void fxs_events_begin_step(fxs_world *w)
{
	w->ev_begin_count = w->ev_end_count = w->ev_hit_count = 0;
	w->ev_sensor_begin_count = w->ev_sensor_end_count = 0;
}

fxs_contact_end_event fxs_events_end_of(const fxs_world *w, const fxs_contact *c)
{
	fxs_contact_end_event e = { fxs_slot_id(w, c->a), fxs_slot_id(w, c->b), c->sub_a, c->sub_b };
	return e;
}

static void push_end(fxs_world *w, const fxs_contact *c)
{
	if (!FXS_RESERVE(w, ev_end, w->ev_end_count + 1)) {
		fxs_world_nomem(w);
		return;
	}
	w->ev_end[w->ev_end_count++] = fxs_events_end_of(w, c);
}

/* the manifold's deepest point (the first of equals) */
static int deepest(const fxs_contact *c)
{
	int k = 0;
	for (int i = 1; i < c->point_count; ++i)
		if (c->points[i].separation < c->points[k].separation)
			k = i;
	return k;
}

static void push_begin(fxs_world *w, const fxs_contact *c)
{
	if (!FXS_RESERVE(w, ev_begin, w->ev_begin_count + 1)) {
		fxs_world_nomem(w);
		return;
	}
	fxs_contact_begin_event *e = &w->ev_begin[w->ev_begin_count++];
	e->body_a = fxs_slot_id(w, c->a);
	e->body_b = fxs_slot_id(w, c->b);
	e->child_a = c->sub_a;
	e->child_b = c->sub_b;
	e->normal = c->normal;
	int k = deepest(c);
	e->point = fxs_contact_point_at(w, c, k, &(uint32_t){ 0 });
	e->separation = c->points[k].separation;
	e->point_count = c->point_count;
}

static int cmp_end(const void *pa, const void *pb)
{
	const fxs_contact_end_event *a = pa, *b = pb;
	uint64_t ka = key(a->body_a.index1, a->body_b.index1, a->child_a, a->child_b);
	uint64_t kb = key(b->body_a.index1, b->body_b.index1, b->child_a, b->child_b);
	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (a->body_a.generation != b->body_a.generation)
		return a->body_a.generation < b->body_a.generation ? -1 : 1;
	if (a->body_b.generation != b->body_b.generation)
		return a->body_b.generation < b->body_b.generation ? -1 : 1;
	return 0;
}

void fxs_events_contacts(fxs_world *w)
{
	if (w->step_contact_events == 0 && w->end_pending_count == 0)
		return;
	const fxs_contact *old = w->contacts;
	uint32_t i = 0, old_count = w->contact_count;
	/* the new list, part by part (contact.h) */
	const fxs_contact_part *part = w->contact_parts, *part_end = part + w->contact_part_count;
	uint32_t j = 0;
	while (part < part_end && part->count == 0)
		++part;
	while (w->step_contact_events && (i < old_count || part < part_end)) {
		const fxs_contact *cur = part < part_end ? &part->list[j] : NULL;
		uint64_t ko = i < old_count ? contact_key(&old[i]) : UINT64_MAX;
		uint64_t kn = cur ? contact_key(cur) : UINT64_MAX;
		if (ko == kn) {
			++i;
		} else if (ko < kn) {
			if (wants(w, &old[i], FXS_BODY_CONTACT_EVENTS))
				push_end(w, &old[i]);
			++i;
			continue;
		} else if (wants(w, cur, FXS_BODY_CONTACT_EVENTS)) {
			push_begin(w, cur);
		}
		if (++j == part->count) /* the next part with contacts */
			for (j = 0, ++part; part < part_end && part->count == 0;)
				++part;
	}
	if (w->end_pending_count == 0)
		return;
	/* the contacts removed since the last step, in canonical order with
	 * this step's (every key is unique: see the top) */
	if (!FXS_RESERVE(w, ev_end, w->ev_end_count + w->end_pending_count)) {
		fxs_world_nomem(w);
		return;
	}
	memcpy(w->ev_end + w->ev_end_count, w->end_pending, (size_t)w->end_pending_count * sizeof *w->end_pending);
	w->ev_end_count += w->end_pending_count;
	w->end_pending_count = 0;
	qsort(w->ev_end, w->ev_end_count, sizeof *w->ev_end, cmp_end);
}

void fxs_events_hits(fxs_world *w)
{
	if (w->step_hit_events == 0)
		return;
	const fix16_t threshold = w->def.hit_event_threshold;
	for (uint32_t i = 0; i < w->contact_count; ++i) {
		const fxs_contact *c = &w->contacts[i];
		if (!wants(w, c, FXS_BODY_HIT_EVENTS))
			continue;
		/* solved this step (a pair asleep keeps last step's numbers) */
		if (!fxs_body_active(&w->bodies[c->a]) && !fxs_body_active(&w->bodies[c->b]))
			continue;
		int best = -1;
		fix16_t speed = threshold;
		for (int k = 0; k < c->point_count; ++k) {
			const fxs_contact_point *p = &c->points[k];
			/* approaching (negative relative speed) faster than the
			 * threshold, and pushed; ties to the first point */
			fix16_t approach = p->relative_velocity == INT32_MIN ? INT32_MAX : -p->relative_velocity;
			if (p->max_normal_impulse && approach > speed)
				best = k, speed = approach;
		}
		if (best < 0)
			continue;
		if (!FXS_RESERVE(w, ev_hit, w->ev_hit_count + 1)) {
			fxs_world_nomem(w);
			return;
		}
		fxs_contact_hit_event *e = &w->ev_hit[w->ev_hit_count++];
		e->body_a = fxs_slot_id(w, c->a);
		e->body_b = fxs_slot_id(w, c->b);
		e->child_a = c->sub_a;
		e->child_b = c->sub_b;
		e->point = fxs_contact_point_at(w, c, best, &(uint32_t){ 0 });
		e->normal = c->normal;
		e->approach_speed = speed;
	}
}

fxs_contact_events fxs_world_get_contact_events(const fxs_world *w)
{
	fxs_contact_events e;
	memset(&e, 0, sizeof e);
	if (!w)
		return e;
	e.begin_events = w->ev_begin;
	e.begin_count = w->ev_begin_count;
	e.end_events = w->ev_end;
	e.end_count = w->ev_end_count;
	e.hit_events = w->ev_hit;
	e.hit_count = w->ev_hit_count;
	return e;
}

fxs_sensor_events fxs_world_get_sensor_events(const fxs_world *w)
{
	fxs_sensor_events e;
	memset(&e, 0, sizeof e);
	if (!w)
		return e;
	e.begin_events = w->ev_sensor_begin;
	e.begin_count = w->ev_sensor_begin_count;
	e.end_events = w->ev_sensor_end;
	e.end_count = w->ev_sensor_end_count;
	return e;
}

uint32_t fxs_body_get_contacts(const fxs_world *w, fxs_body_id id, fxs_contact_data *out, uint32_t cap)
{
	if (!fxs_world_get_body(w, id) || !w->contact_geometry)
		return 0;
	uint32_t s = id.index1 - 1, n = 0;
	for (uint32_t i = 0; i < w->contact_count; ++i) {
		const fxs_contact *c = &w->contacts[i];
		if (c->a != s && c->b != s)
			continue;
		if (out && n < cap) {
			fxs_contact_data *d = &out[n];
			memset(d, 0, sizeof *d);
			d->body_a = fxs_slot_id(w, c->a);
			d->body_b = fxs_slot_id(w, c->b);
			d->child_a = c->sub_a;
			d->child_b = c->sub_b;
			d->normal = c->normal;
			d->point_count = c->point_count;
			for (int k = 0; k < c->point_count; ++k) {
				d->points[k] = fxs_contact_point_at(w, c, k, &(uint32_t){ 0 });
				d->separations[k] = c->points[k].separation;
				int64_t imp = c->points[k].normal_impulse; /* Q16.16 in int64, >= 0 */
				d->normal_impulses[k] = imp > INT32_MAX ? INT32_MAX : (fix16_t)imp;
			}
		}
		++n;
	}
	return n;
}
