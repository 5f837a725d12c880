/* Stages (seed 000's object check table): no written body twice in a stage,
 * the seed's worked assignment, last step's stages kept, the solve order. */
#include "test.h"
#include "collide/narrowphase.h"
#include "collide/contact.h"
#include "solve/stage.h"
#include "world/world.h"
#include "scenes/scenes.h"

#include <stdlib.h>
#include <string.h>

/* every item's stage is valid, no body twice in a conflict-free stage, and
 * order[] lists the items by (stage, index) */
static int check_assignment(const fxs_stage_item *it, uint32_t n, uint32_t bodies, const uint32_t *order)
{
	uint8_t *seen = calloc((size_t)bodies * FXS_STAGE_LIMIT, 1);
	int ok = 1;
	for (uint32_t i = 0; i < n && ok; ++i) {
		if (it[i].stage > FXS_STAGE_OVERFLOW)
			ok = 0;
		else if (it[i].stage < FXS_STAGE_LIMIT) {
			uint32_t ab[2] = { it[i].a, it[i].b };
			for (int k = 0; k < 2; ++k) {
				if (ab[k] == FXS_STAGE_FREE)
					continue;
				uint8_t *f = &seen[(size_t)ab[k] * FXS_STAGE_LIMIT + it[i].stage];
				if (*f)
					ok = 0;
				*f = 1;
			}
		}
	}
	for (uint32_t k = 1; k < n && ok; ++k) {
		const fxs_stage_item *p = &it[order[k - 1]], *q = &it[order[k]];
		if (p->stage > q->stage || (p->stage == q->stage && order[k - 1] >= order[k]))
			ok = 0;
	}
	free(seen);
	return ok;
}

TEST(stage_seed_example)
{
	/* seed 000: (A,B) -> stage 0; (A,C): A busy in stage 0 -> 1; (D,E) -> 0 */
	enum { A,
	       B,
	       C,
	       D,
	       E };
	fxs_stage_item it[3] = { { A, B, FXS_STAGE_NONE }, { A, C, FXS_STAGE_NONE }, { D, E, FXS_STAGE_NONE } };
	uint64_t mask[5];
	uint32_t order[3];
	uint32_t used = fxs_stages_assign(it, 3, 5, mask, order, NULL);
	CHECK(it[0].stage == 0 && it[1].stage == 1 && it[2].stage == 0);
	CHECK(used == 2);
	CHECK(order[0] == 0 && order[1] == 2 && order[2] == 1);
}

TEST(stage_read_only_bodies_are_shared)
{
	/* ten boxes on one ground: the ground is not written, one stage for all */
	fxs_stage_item it[10];
	for (uint32_t i = 0; i < 10; ++i)
		it[i] = (fxs_stage_item){ FXS_STAGE_FREE, 1 + i, FXS_STAGE_NONE };
	uint64_t mask[11];
	uint32_t order[10];
	CHECK(fxs_stages_assign(it, 10, 11, mask, order, NULL) == 1);
	for (int i = 0; i < 10; ++i)
		CHECK(it[i].stage == 0);
}

TEST(stage_overflow_after_64)
{
	/* 70 constraints on one body: 64 stages, then the overflow stage */
	fxs_stage_item it[70];
	for (uint32_t i = 0; i < 70; ++i)
		it[i] = (fxs_stage_item){ 0, 1 + i, FXS_STAGE_NONE };
	uint64_t mask[71];
	uint32_t order[70];
	fxs_stages_assign(it, 70, 71, mask, order, NULL);
	for (uint32_t i = 0; i < 70; ++i)
		CHECKF(it[i].stage == (i < 64 ? i : FXS_STAGE_OVERFLOW), "item %u stage %u", i, it[i].stage);
	CHECK(check_assignment(it, 70, 71, order));
}

TEST(stage_random_graphs_keep_stages_and_never_conflict)
{
	uint64_t s = 0x5eed57a9e;
	uint32_t kept = 0, carried = 0;
	for (int round = 0; round < (test_quick ? 200 : 2000); ++round) {
		uint32_t bodies = 2 + (uint32_t)(test_rng_next(&s) % 60);
		uint32_t n = (uint32_t)(test_rng_next(&s) % 200);
		fxs_stage_item *it = malloc((n + 1) * sizeof *it);
		uint32_t *order = malloc((n + 1) * sizeof *order);
		uint64_t *mask = malloc(fxs_stages_scratch_size(bodies));
		for (uint32_t i = 0; i < n; ++i) {
			uint32_t a = (uint32_t)(test_rng_next(&s) % bodies);
			uint32_t b = (uint32_t)(test_rng_next(&s) % bodies);
			uint64_t r = test_rng_next(&s);
			it[i].a = r % 5 == 0 ? FXS_STAGE_FREE : a;
			it[i].b = b == a ? FXS_STAGE_FREE : b;
			it[i].stage = FXS_STAGE_NONE;
		}
		uint32_t ends[FXS_STAGE_OVERFLOW + 1];
		fxs_stages_assign(it, n, bodies, mask, order, ends);
		CHECK(check_assignment(it, n, bodies, order));
		/* each stage's items end where ends says, in the solve order */
		CHECK(ends[FXS_STAGE_OVERFLOW] == n);
		for (uint32_t k = 0; k < n; ++k) {
			const uint32_t st = it[order[k]].stage;
			CHECKF(k < ends[st] && (st == 0 || k >= ends[st - 1]), "round %d: item %u of stage %u at %u, outside its end", round,
			       order[k], st, k);
		}
		/* next step: drop some constraints, add new ones; the survivors
		 * keep their stages (a subset of a conflict-free set is one) */
		uint32_t m = 0;
		uint8_t *before = malloc(n + 1);
		for (uint32_t i = 0; i < n; ++i) {
			uint64_t r = test_rng_next(&s);
			if (r % 3 == 0)
				continue;
			before[m] = it[i].stage < FXS_STAGE_LIMIT ? it[i].stage : FXS_STAGE_NONE;
			it[m++] = it[i];
		}
		fxs_stages_assign(it, m, bodies, mask, order, NULL);
		CHECK(check_assignment(it, m, bodies, order));
		for (uint32_t i = 0; i < m; ++i) {
			if (before[i] == FXS_STAGE_NONE)
				continue;
			carried++;
			kept += it[i].stage == before[i];
			CHECKF(it[i].stage == before[i], "round %d: item %u moved from stage %u to %u", round, i, before[i],
			       it[i].stage);
		}
		free(before);
		free(it);
		free(order);
		free(mask);
	}
	CHECK(carried > 1000);
	printf("  %u constraints carried over a step, %u kept their stage\n", carried, kept);
}

/* In a stepping pyramid, every solved contact has a stage, no dynamic body
 * is in two contacts of one stage, and most contacts keep their stage. */
TEST(stage_pyramid_contacts_conflict_free)
{
	fxs_world *w = fxs_scene_find("large_pyramid_b20")->create();
	CHECK(w);
	uint32_t same = 0, total = 0, max_stage = 0;
	uint8_t *prev = NULL;
	uint64_t *prev_key = NULL;
	uint32_t prev_n = 0;
	for (int step = 0; step < 60; ++step) {
		fxs_world_step(w);
		uint32_t n = w->contact_count;
		uint8_t *seen = calloc((size_t)w->slot_count * FXS_STAGE_LIMIT, 1);
		for (uint32_t i = 0; i < n; ++i) {
			const fxs_contact *c = &w->contacts[i];
			CHECKF(c->stage <= FXS_STAGE_OVERFLOW, "contact %u unstaged", i);
			if (c->stage > max_stage)
				max_stage = c->stage;
			if (c->stage == FXS_STAGE_OVERFLOW)
				continue;
			uint32_t ab[2] = { c->a, c->b };
			for (int k = 0; k < 2; ++k) {
				if (w->bodies[ab[k]].type != FXS_BODY_DYNAMIC)
					continue;
				uint8_t *f = &seen[(size_t)ab[k] * FXS_STAGE_LIMIT + c->stage];
				CHECKF(!*f, "step %d: body %u twice in stage %u", step, ab[k], c->stage);
				*f = 1;
			}
		}
		free(seen);
		/* stage continuity for pairs present in both steps (merge walk) */
		uint32_t j = 0;
		for (uint32_t i = 0; i < n && prev; ++i) {
			uint64_t key = ((uint64_t)w->contacts[i].a << 32) | w->contacts[i].b;
			while (j < prev_n && prev_key[j] < key)
				++j;
			if (j < prev_n && prev_key[j] == key) {
				total++;
				same += prev[j] == w->contacts[i].stage;
			}
		}
		free(prev);
		free(prev_key);
		prev = malloc(n + 1);
		prev_key = malloc((n + 1) * sizeof *prev_key);
		for (uint32_t i = 0; i < n; ++i) {
			prev[i] = w->contacts[i].stage;
			prev_key[i] = ((uint64_t)w->contacts[i].a << 32) | w->contacts[i].b;
		}
		prev_n = n;
	}
	free(prev);
	free(prev_key);
	printf("  pyramid b20: %u contacts, highest stage %u, %u of %u carried contacts kept their stage\n",
	       w->contact_count, max_stage, same, total);
	CHECK(total > 0 && same == total);
	CHECK(max_stage < FXS_STAGE_OVERFLOW);
	fxs_world_destroy(w);
}

/* Warm starting needs the same feature ids step after step. In the base-40
 * pyramid (sleeping off) a box rests on two, and its reference face and its
 * corner-on-edge points flip between equivalent descriptions from step to
 * step; box-box ids name (feature of A, feature of B) whichever box is the
 * reference, and the clip margin keeps a corner a corner (collide_box_box.c).
 * Over steps 50 to 100 at least 99.5% of the points keep their id (it was
 * 96.4% before). */
TEST(stage_pyramid_contact_ids_persist)
{
	fxs_world *w = fxs_scene_find("large_pyramid_b40")->create();
	CHECK(w);
	uint64_t *prev = NULL;
	uint32_t *prev_ids = NULL, prev_n = 0, points = 0, kept = 0;
	for (int step = 1; step <= 100; ++step) {
		fxs_world_step(w);
		uint32_t n = w->contact_count, j = 0;
		for (uint32_t i = 0; i < n && prev && step > 50; ++i) {
			const fxs_contact *c = &w->contacts[i];
			uint64_t key = ((uint64_t)c->a << 32) | c->b;
			while (j < prev_n && prev[j] < key)
				++j;
			if (j == prev_n || prev[j] != key)
				continue;
			for (int k = 0; k < c->point_count; ++k) {
				points++;
				for (int m = 0; m < FXS_MAX_MANIFOLD_POINTS; ++m)
					if (prev_ids[j * FXS_MAX_MANIFOLD_POINTS + m] == c->points[k].id) {
						kept++;
						break;
					}
			}
		}
		free(prev);
		free(prev_ids);
		prev = malloc((n + 1) * sizeof *prev);
		prev_ids = malloc((n + 1) * FXS_MAX_MANIFOLD_POINTS * sizeof *prev_ids);
		for (uint32_t i = 0; i < n; ++i) {
			prev[i] = ((uint64_t)w->contacts[i].a << 32) | w->contacts[i].b;
			for (int m = 0; m < FXS_MAX_MANIFOLD_POINTS; ++m)
				prev_ids[i * FXS_MAX_MANIFOLD_POINTS + m] =
					m < w->contacts[i].point_count ? w->contacts[i].points[m].id : UINT32_MAX;
		}
		prev_n = n;
	}
	free(prev);
	free(prev_ids);
	fxs_world_destroy(w);
	printf("  pyramid b40, steps 51-100: %u of %u contact points kept their feature id (%.2f%%)\n", kept, points,
	       100.0 * kept / (points ? points : 1));
	CHECK(points > 400000 && (uint64_t)kept * 1000 >= (uint64_t)points * 995);
}
