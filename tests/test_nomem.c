/* Out of memory in a step (fxs_world_step): every allocation the step makes
 * is made to fail in turn, and the world must either be as it was, or be
 * marked failed, or (for scratch it can do without) end on the same hash as
 * a machine with the memory. Never a state that silently differs.
 *
 * The test binary is linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
 * (Makefile): the kernel's allocations come here, and pass through unless a
 * test arms a failure. */
#include "test.h"
#include "scenes/scenes.h"
#include "fixstep/fixstep.h"
#include "fixstep/joint.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);

static long fail_at = -1; /* the allocation (counted from arming) that fails; -1: none */
static bool fail_rest;    /* and every one after it */
static long alloc_count;
static bool fail_hit;

static bool fail_now(void)
{
	if (fail_at < 0)
		return false;
	long i = alloc_count++;
	if (i == fail_at || (fail_rest && i > fail_at)) {
		fail_hit = true;
		return true;
	}
	return false;
}

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return fail_now() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }

static void arm(long at, bool rest)
{
	alloc_count = 0;
	fail_hit = false;
	fail_rest = rest;
	fail_at = at;
}

/* disarm; whether an allocation failed */
static bool disarm(void)
{
	fail_at = -1;
	return fail_hit;
}

typedef struct {
	uint8_t *snap;
	size_t len;
	uint64_t before, after; /* hashes of the snapshot's state and one step on */
	uint64_t step;          /* its step number */
} start_state;

static bool start_from(fxs_world *w, start_state *s)
{
	s->len = fxs_world_snapshot_size(w);
	s->snap = malloc(s->len);
	if (!s->snap || fxs_world_snapshot_save(w, s->snap, s->len, &s->len) != FXS_OK)
		return false;
	s->before = fxs_world_hash(w);
	s->step = fxs_world_get_step(w);
	fxs_result e;
	fxs_world *r = fxs_world_create_from_snapshot(s->snap, s->len, &e);
	if (!r || fxs_world_step(r) != FXS_OK)
		return false;
	s->after = fxs_world_hash(r);
	fxs_world_destroy(r);
	return true;
}

typedef struct {
	int unchanged, failed, harmless, allocations;
} sweep_counts;

/* From a world restored from the snapshot (so its scratch is empty and the
 * step allocates all of it), fail allocation n of the step, for every n. */
static bool sweep(const start_state *s, bool rest, sweep_counts *c)
{
	for (long n = 0; n < 100000; ++n) {
		fxs_result e;
		fxs_world *w = fxs_world_create_from_snapshot(s->snap, s->len, &e);
		if (!w)
			return false;
		arm(n, rest);
		fxs_result r = fxs_world_step(w);
		bool hit = disarm();
		bool ok = true;
		if (!hit) { /* past the step's last allocation */
			ok = r == FXS_OK && fxs_world_hash(w) == s->after;
			c->allocations = (int)n;
			fxs_world_destroy(w);
			return ok;
		}
		if (r == FXS_OK) { /* scratch it does without: the same bits */
			ok = fxs_world_hash(w) == s->after && fxs_world_status(w) == FXS_OK;
			c->harmless++;
		} else if (r != FXS_ERR_NOMEM) {
			ok = false;
		} else if (fxs_world_status(w) == FXS_OK) { /* before anything changed */
			ok = fxs_world_hash(w) == s->before && fxs_world_get_step(w) == s->step &&
				fxs_world_step(w) == FXS_OK && fxs_world_hash(w) == s->after;
			c->unchanged++;
		} else { /* part-way: refuses until a snapshot is restored into it */
			uint8_t buf[64];
			size_t len = 0;
			uint64_t h = fxs_world_hash(w);
			ok = fxs_world_step(w) == FXS_ERR_NOMEM && fxs_world_hash(w) == h &&
				fxs_world_snapshot_save(w, buf, sizeof buf, &len) == FXS_ERR_NOMEM &&
				fxs_world_snapshot_restore(w, s->snap, s->len) == FXS_OK && fxs_world_status(w) == FXS_OK &&
				fxs_world_step(w) == FXS_OK && fxs_world_hash(w) == s->after;
			c->failed++;
		}
		fxs_world_destroy(w);
		if (!ok) {
			printf("  allocation %ld of the step (%s): result %s, not as it must be\n", n,
			       rest ? "and all after it" : "alone", fxs_result_string(r));
			return false;
		}
	}
	return false;
}

/* Restoring the snapshot into a world that has stepped on: each allocation
 * of the restore fails in turn; the world is then as it was (its hash, and
 * it steps on), or the restore succeeded. Under ASan, nothing leaks. */
static bool sweep_restore(const start_state *s, int *allocations)
{
	for (long n = 0; n < 100000; ++n) {
		fxs_result e;
		fxs_world *w = fxs_world_create_from_snapshot(s->snap, s->len, &e);
		if (!w || fxs_world_step(w) != FXS_OK)
			return false;
		uint64_t h = fxs_world_hash(w);
		arm(n, false);
		fxs_result r = fxs_world_snapshot_restore(w, s->snap, s->len);
		bool hit = disarm();
		bool ok = r == FXS_OK ? fxs_world_hash(w) == s->before
				      : r == FXS_ERR_NOMEM && fxs_world_hash(w) == h && fxs_world_status(w) == FXS_OK;
		fxs_world_destroy(w);
		if (!ok) {
			printf("  allocation %ld of a restore: result %s, not as it must be\n", n, fxs_result_string(r));
			return false;
		}
		if (!hit) {
			*allocations = (int)n;
			return r == FXS_OK;
		}
	}
	return false;
}

static bool sweep_world(const char *what, fxs_world *w, sweep_counts *total)
{
	start_state s;
	memset(&s, 0, sizeof s);
	bool ok = w && start_from(w, &s);
	fxs_world_destroy(w);
	sweep_counts one = { 0, 0, 0, 0 }, rest = { 0, 0, 0, 0 };
	int restore_allocations = 0;
	ok = ok && sweep(&s, false, &one) && sweep(&s, true, &rest) && sweep_restore(&s, &restore_allocations);
	free(s.snap);
	if (!ok) {
		printf("  %s: failed\n", what);
		return false;
	}
	printf("  %-36s %3d allocations in a step: %d fail with the world unchanged, %3d mark it failed, %d do no "
	       "harm; %3d in a restore\n",
	       what, one.allocations, one.unchanged, one.failed, one.harmless, restore_allocations);
	total->unchanged += one.unchanged + rest.unchanged;
	total->failed += one.failed + rest.failed;
	total->harmless += one.harmless + rest.harmless;
	return true;
}

static fxs_world *scene_after(const char *name, int steps, bool until_asleep)
{
	const fxs_scene *sc = fxs_scene_find(name);
	fxs_world *w = sc ? sc->create() : NULL;
	for (int i = 0; w && i < steps; ++i) {
		if (fxs_world_step(w) != FXS_OK) {
			fxs_world_destroy(w);
			return NULL;
		}
		if (until_asleep && fxs_world_get_stats(w).awake_body_count == 0)
			break;
	}
	return w;
}

/* A 4-link chain of ball joints solved by the direct solver (LDL^T) beside a
 * box resting on the ground, its island solved by the boxed LCP. */
static fxs_world *direct_world(void)
{
	fxs_world_def def = fxs_default_world_def();
	def.direct_joint_rows = 36;
	def.direct_contact_rows = 24;
	fxs_world *w = fxs_world_create(&def);
	if (!w)
		return NULL;
	fxs_body_def g = fxs_default_body_def();
	g.type = FXS_BODY_STATIC;
	g.shape.type = FXS_SHAPE_BOX;
	g.shape.half_extents = fxg_v3(FXG_I(5), FXG_ONE / 2, FXG_I(5));
	g.position = fxg_v3(0, -FXG_I(3), 0);
	fxs_body_create(w, &g);
	fxs_body_def b = fxs_default_body_def();
	b.shape.type = FXS_SHAPE_BOX;
	b.shape.half_extents = fxg_v3(FXG_ONE / 4, FXG_ONE / 4, FXG_ONE / 4);
	b.position = fxg_v3(FXG_I(2), -FXG_I(2) - FXG_ONE / 4 + FXG_ONE / 64, 0);
	fxs_body_create(w, &b);
	fxs_body_def p = fxs_default_body_def();
	p.type = FXS_BODY_STATIC;
	p.shape.radius = FXG_ONE / 20;
	fxs_body_id prev = fxs_body_create(w, &p);
	for (int i = 0; i < 4; ++i) {
		fxs_body_def d = fxs_default_body_def();
		d.position = fxg_v3((fix16_t)((i + 1) * (FXG_ONE / 4)), 0, 0);
		d.shape.radius = FXG_ONE / 10;
		fxs_body_id link = fxs_body_create(w, &d);
		fxs_joint_def j = fxs_default_ball_joint_def();
		j.body_a = prev;
		j.body_b = link;
		j.local_anchor_a = fxg_v3(FXG_ONE / 8, 0, 0);
		j.local_anchor_b = fxg_v3(-FXG_ONE / 8, 0, 0);
		fxs_joint_create(w, &j);
		prev = link;
	}
	for (int i = 0; i < 20; ++i)
		if (fxs_world_step(w) != FXS_OK)
			break;
	return w;
}

TEST(step_out_of_memory_reports_and_never_diverges)
{
	sweep_counts t = { 0, 0, 0, 0 };
	CHECK(sweep_world("box_stack, moving", scene_after("box_stack", 5, false), &t));
	CHECK(sweep_world("box_stack, asleep (wake, islands)", scene_after("box_stack", 3000, true), &t));
	CHECK(sweep_world("all_shapes (hulls, compounds, mesh)", scene_after("all_shapes", 60, false), &t));
	CHECK(sweep_world("school (characters, thick faces)", scene_after("school", 30, false), &t));
	CHECK(sweep_world("stack_lcp (boxed LCP)", scene_after("stack_lcp", 30, false), &t));
	CHECK(sweep_world("pendulum (hinge, chain)", scene_after("pendulum", 10, false), &t));
	CHECK(sweep_world("joint_grid_10 (ball-joint batches)", scene_after("joint_grid_10", 5, false), &t));
	CHECK(sweep_world("direct joints and contacts", direct_world(), &t));
	/* each outcome was seen, so each branch above was checked */
	CHECK(t.unchanged > 0 && t.failed > 0);
}
