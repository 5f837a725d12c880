/* Collision filtering: category and mask bits, group indices, changes at
 * run time, and the joints' collide_connected beside them. */
#include "game_util.h"
#include "test.h"

static fxs_filter filt(uint64_t cat, uint64_t mask, int32_t group)
{
	fxs_filter f = { cat, mask, group };
	return f;
}

TEST(filter_rules_are_box2ds)
{
	const fxs_filter def = fxs_default_filter();
	CHECK(def.category_bits == 1 && def.mask_bits == ~(uint64_t)0 && def.group_index == 0);
	CHECK(fxs_filter_should_collide(def, def));
	/* bits: both ways must agree */
	CHECK(fxs_filter_should_collide(filt(1, 2, 0), filt(2, 1, 0)));
	CHECK(!fxs_filter_should_collide(filt(1, 2, 0), filt(2, 2, 0)));
	CHECK(!fxs_filter_should_collide(filt(1, 0, 0), def));
	/* the same positive group always collides, whatever the bits */
	CHECK(fxs_filter_should_collide(filt(1, 0, 3), filt(2, 0, 3)));
	/* the same negative group never does, whatever the bits */
	CHECK(!fxs_filter_should_collide(filt(1, ~(uint64_t)0, -3), filt(1, ~(uint64_t)0, -3)));
	/* different groups (or one zero): the bits decide */
	CHECK(!fxs_filter_should_collide(filt(1, 0, 3), filt(1, 0, 4)));
	CHECK(fxs_filter_should_collide(filt(1, 1, -3), filt(1, 1, -4)));
	CHECK(fxs_filter_should_collide(filt(1, 1, 0), filt(1, 1, -4)));
}

/* Two boxes dropped side by side onto the ground; one's mask leaves out
 * the ground's category. It never gets a contact (not even a speculative
 * manifold) and falls through; the other lands. */
TEST(filtered_pair_never_gets_a_contact)
{
	fxs_world *w = game_world();
	fxs_body_def g = game_box_def(FXS_BODY_STATIC, fxg_v3(0, -FXG_ONE, 0), fxg_v3(FXG_I(20), FXG_ONE, FXG_I(20)));
	g.filter.category_bits = 2;
	fxs_body_id ground = fxs_body_create(w, &g);
	fxs_body_def d = game_box_def(FXS_BODY_DYNAMIC, fxg_v3(-FXG_I(2), FXG_I(2), 0), fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF));
	d.filter.mask_bits = ~(uint64_t)2;
	fxs_body_id ghost = fxs_body_create(w, &d);
	d = game_box_def(FXS_BODY_DYNAMIC, fxg_v3(FXG_I(2), FXG_I(2), 0), fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF));
	fxs_body_id lander = fxs_body_create(w, &d);
	CHECK(fxs_body_is_valid(w, ground) && fxs_body_is_valid(w, ghost) && fxs_body_is_valid(w, lander));
	for (int s = 0; s < 120; ++s) {
		CHECK(fxs_world_step(w) == FXS_OK);
		CHECKF(fxs_body_get_contacts(w, ghost, NULL, 0) == 0, "step %d: the filtered box has a contact", s);
	}
	CHECK(fxs_body_get_position(w, ghost).y < -FXG_I(5));
	CHECK(fxs_body_get_contacts(w, lander, NULL, 0) == 1);
	fxg_vec3 p = fxs_body_get_position(w, lander);
	CHECK(p.y > FXG_HALF - FXG_ONE / 20 && p.y < FXG_HALF + FXG_ONE / 20);
	fxs_world_destroy(w);
}

/* Two balls made to overlap, no gravity: with the same negative group
 * they stay where they are; with the same positive group and masks that
 * exclude each other they are pushed apart. */
TEST(group_indices_override_the_bits)
{
	for (int positive = 0; positive < 2; ++positive) {
		fxs_world *w = game_world_no_gravity();
		fxs_body_def d = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3(0, 0, 0), FXG_HALF);
		d.filter = positive ? filt(1, 0, 7) : filt(1, ~(uint64_t)0, -7);
		fxs_body_id a = fxs_body_create(w, &d);
		d.position = fxg_v3(FXG_HALF, 0, 0);
		fxs_body_id b = fxs_body_create(w, &d);
		for (int s = 0; s < 30; ++s)
			fxs_world_step(w);
		int64_t gap = (int64_t)fxs_body_get_position(w, b).x - fxs_body_get_position(w, a).x;
		if (positive)
			CHECKF(gap > FXG_ONE - FXG_ONE / 50, "positive group: the balls stayed %lld raw apart", (long long)gap);
		else
			CHECKF(gap == FXG_HALF, "negative group: the balls moved (%lld raw apart)", (long long)gap);
		fxs_world_destroy(w);
	}
}

/* A stack of three boxes with contact events; changing the middle box's
 * filter to leave out everything removes its two contacts at once (the
 * others stay), reports both ends after the next step in contact order,
 * and the pair never meets again. */
TEST(filter_change_removes_the_contacts_it_ends)
{
	fxs_world *w = game_world();
	fxs_body_id ground = game_ground(w);
	fxs_body_id box[3];
	for (int i = 0; i < 3; ++i) {
		fxs_body_def d = game_box_def(FXS_BODY_DYNAMIC, fxg_v3(0, FXG_HALF + i * FXG_ONE, 0),
					      fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF));
		d.enable_contact_events = true;
		box[i] = fxs_body_create(w, &d);
	}
	for (int s = 0; s < 30; ++s)
		fxs_world_step(w);
	CHECK(fxs_world_get_stats(w).contact_count == 3);
	CHECK(fxs_body_get_contacts(w, box[1], NULL, 0) == 2);
	fxs_filter none = filt(1, 0, 0);
	CHECK(fxs_body_set_filter(w, box[1], none) == FXS_OK);
	CHECK(fxs_body_get_contacts(w, box[1], NULL, 0) == 0);
	CHECK(fxs_body_get_contacts(w, box[0], NULL, 0) == 1); /* the ground's stays */
	CHECK(fxs_world_step(w) == FXS_OK);
	fxs_contact_events e = fxs_world_get_contact_events(w);
	CHECKF(e.end_count == 2, "%u end events", e.end_count);
	/* canonical order: (0 box0 box1) then (box1 box2) by slots */
	CHECK(game_same_id(e.end_events[0].body_a, box[0]) && game_same_id(e.end_events[0].body_b, box[1]));
	CHECK(game_same_id(e.end_events[1].body_a, box[1]) && game_same_id(e.end_events[1].body_b, box[2]));
	for (int s = 0; s < 60; ++s) {
		fxs_world_step(w);
		CHECK(fxs_body_get_contacts(w, box[1], NULL, 0) == 0);
	}
	/* the top box fell through the middle one onto the bottom one */
	CHECK(fxs_body_get_position(w, box[2]).y < FXG_I(2));
	CHECK(fxs_body_is_valid(w, ground));
	fxs_world_destroy(w);
}

/* A jointed pair without collide_connected never touches, whatever the
 * filters allow; with it the filters still decide. */
TEST(joints_collide_connected_beside_filters)
{
	for (int mode = 0; mode < 3; ++mode) {
		fxs_world *w = game_world_no_gravity();
		fxs_body_def d = game_box_def(FXS_BODY_DYNAMIC, fxg_v3(0, 0, 0), fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF));
		if (mode == 2)
			d.filter.group_index = -1; /* never: the filter wins over collide_connected */
		fxs_body_id a = fxs_body_create(w, &d);
		d.position = fxg_v3(FXG_HALF, 0, 0);
		fxs_body_id b = fxs_body_create(w, &d);
		fxs_joint_def j = fxs_default_distance_joint_def();
		j.body_a = a, j.body_b = b;
		j.collide_connected = mode >= 1;
		j.enable_spring = true;
		j.spring_hertz = 0; /* free: only the contact can separate them */
		CHECK(fxs_joint_is_valid(w, fxs_joint_create(w, &j)));
		fxs_world_step(w);
		uint32_t contacts = fxs_body_get_contacts(w, a, NULL, 0);
		CHECKF(contacts == (mode == 1 ? 1u : 0u), "mode %d: %u contacts", mode, contacts);
		fxs_world_destroy(w);
	}
}
