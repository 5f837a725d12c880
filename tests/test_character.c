/* Characters against what they must do, with stated tolerances: walk at the
 * set speed, fall as the integrator says, slide along a wall without
 * entering it, climb a step up to step_height (not higher), walk up a slope
 * up to max_slope (not steeper) and stand on one without sliding, ride a
 * moving platform, push a box, climb stairs; snapshots restore exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixstep/character.h"
#include "fixstep/fixstep.h"
#include "scenes/scenes.h"
#include "test.h"

static double D(fix16_t v) { return v / 65536.0; }
static fix16_t F(double v) { return (fix16_t)lround(v * 65536.0); }

static fxs_body_id box_at(fxs_world *w, int type, double x, double y, double z, double hx, double hy, double hz,
			  fxg_quat q)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.position = fxg_v3(F(x), F(y), F(z));
	d.rotation = q;
	d.shape.type = FXS_SHAPE_BOX;
	d.shape.half_extents = fxg_v3(F(hx), F(hy), F(hz));
	return fxs_body_create(w, &d);
}

static const fxg_quat ident = { 0, 0, 0, FXG_ONE };

/* a world with a 40 x 40 m ground whose top is y = 0 */
static fxs_world *ground_world(void)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	box_at(w, FXS_BODY_STATIC, 0, -1, 0, 20, 1, 20, ident);
	return w;
}

/* a default character (r 0.3, half height 0.6: feet 0.9 below the centre) */
static fxs_character_id character_at(fxs_world *w, double x, double y, double z, double step)
{
	fxs_character_def d = fxs_default_character_def();
	d.position = fxg_v3(F(x), F(y), F(z));
	d.step_height = F(step);
	return fxs_character_create(w, &d);
}

static void walk(fxs_world *w, fxs_character_id c, double vx, double vz, int steps)
{
	for (int i = 0; i < steps; ++i) {
		fxs_character_set_move(w, c, fxg_v3(F(vx), 0, F(vz)), false);
		fxs_world_step(w);
	}
}

TEST(character_walks_at_its_speed_on_flat_ground)
{
	fxs_world *w = ground_world();
	fxs_character_id c = character_at(w, 0, 0.9, 0, 0.35);
	CHECK(c != 0);
	walk(w, c, 0, 0, 10); /* settle */
	CHECK(fxs_character_is_grounded(w, c));
	fxg_vec3 p0 = fxs_character_get_position(w, c);
	walk(w, c, 2, 0, 60); /* 1 s at 2 m/s */
	fxg_vec3 p = fxs_character_get_position(w, c);
	double dx = D(p.x) - D(p0.x), dy = D(p.y) - D(p0.y);
	printf("  1 s at 2 m/s: moved %.4f m, height change %.4f m\n", dx, dy);
	CHECKF(fabs(dx - 2) < 0.02, "moved %.4f", dx); /* 1% */
	CHECKF(fabs(dy) < 0.002 && fabs(D(p.y) - 0.9) < 0.005, "height %.4f", D(p.y));
	CHECK(fxs_character_is_grounded(w, c));
	fxs_world_destroy(w);
}

/* Falling from 10 m: the controller integrates vy += g dt, y += vy dt, so
 * after k steps y = y0 + g dt^2 k (k + 1) / 2 (to the LSBs of the products),
 * and it lands on the ground (centre 0.9 m up) and stays. */
TEST(character_falls_as_semi_implicit_euler_and_lands)
{
	fxs_world *w = ground_world();
	fxs_character_id c = character_at(w, 0, 10, 0, 0.35);
	double dt = D(fxs_world_get_def(w).dt), worst = 0;
	for (int k = 1; k <= 60; ++k) {
		walk(w, c, 0, 0, 1);
		double y = D(fxs_character_get_position(w, c).y);
		double expect = 10 - 10 * dt * dt * k * (k + 1) / 2;
		if (expect < 0.95)
			break;
		worst = fmax(worst, fabs(y - expect));
	}
	printf("  free fall: worst difference from the closed form %.5f m\n", worst);
	CHECKF(worst < 0.002, "fall error %.5f", worst);
	walk(w, c, 0, 0, 60);
	double y = D(fxs_character_get_position(w, c).y);
	CHECKF(fabs(y - 0.9) < 0.005 && fxs_character_is_grounded(w, c), "landed at %.4f", y);
	fxs_world_destroy(w);
}

/* Walking diagonally into a wall: it never enters (centre at least r from
 * the wall's face, within 1 mm) and keeps the tangential speed within 5%. */
TEST(character_slides_along_a_wall)
{
	fxs_world *w = ground_world();
	box_at(w, FXS_BODY_STATIC, 3, 1.5, 0, 0.5, 1.5, 10, ident); /* face at x = 2.5 */
	fxs_character_id c = character_at(w, 0, 0.9, 0, 0.35);
	walk(w, c, 0, 0, 5);
	double worst_x = -1e9;
	for (int i = 0; i < 120; ++i) {
		walk(w, c, 2, 1, 1);
		worst_x = fmax(worst_x, D(fxs_character_get_position(w, c).x));
	}
	fxg_vec3 p0 = fxs_character_get_position(w, c);
	walk(w, c, 2, 1, 60);
	fxg_vec3 p = fxs_character_get_position(w, c);
	double vz = D(p.z) - D(p0.z);
	printf("  against a wall: closest x %.4f (limit 2.2), tangential speed %.4f m/s (set 1)\n", worst_x, vz);
	CHECKF(worst_x <= 2.2 + 0.001, "entered the wall: x %.4f", worst_x);
	CHECKF(fabs(vz - 1) < 0.05, "tangential %.4f", vz);
	CHECKF(D(p.x) > 2.15, "not at the wall: %.4f", D(p.x));
	fxs_world_destroy(w);
}

/* step_height 0.35: a 0.3 m step is climbed, a 0.5 m one stops it. */
TEST(character_climbs_steps_up_to_its_step_height)
{
	for (int k = 0; k < 2; ++k) {
		double h = k == 0 ? 0.3 : 0.5;
		fxs_world *w = ground_world();
		box_at(w, FXS_BODY_STATIC, 6, h / 2, 0, 4, h / 2, 4, ident); /* from x = 2 */
		fxs_character_id c = character_at(w, 0, 0.9, 0, 0.35);
		walk(w, c, 0, 0, 5);
		walk(w, c, 2, 0, 90);
		fxg_vec3 p = fxs_character_get_position(w, c);
		printf("  step of %.1f m: x %.3f, y %.3f\n", h, D(p.x), D(p.y));
		if (k == 0)
			CHECKF(D(p.x) > 2.9 && fabs(D(p.y) - (h + 0.9)) < 0.01 && fxs_character_is_grounded(w, c),
			       "did not climb: %.3f %.3f", D(p.x), D(p.y));
		else
			CHECKF(D(p.x) < 1.72 && fabs(D(p.y) - 0.9) < 0.01, "climbed: %.3f %.3f", D(p.x), D(p.y));
		fxs_world_destroy(w);
	}
}

/* max_slope 45 deg: up a 30 deg ramp, not up a 50 deg one; standing still on
 * the 30 deg ramp it does not slide (under 1 mm in 2 s). */
TEST(character_walks_up_slopes_up_to_its_max_slope)
{
	for (int k = 0; k < 2; ++k) {
		double deg = k == 0 ? 30 : 50, th = deg * 3.14159265358979 / 180;
		fxs_world *w = ground_world();
		/* a long thin box tilted about z, its top face through (2, 0, 0) rising to +x */
		fxg_quat q = { 0, 0, F(sin(th / 2)), F(cos(th / 2)) };
		double cx = 2 + 10 * cos(th) + 0.5 * sin(th), cy = 10 * sin(th) - 0.5 * cos(th);
		box_at(w, FXS_BODY_STATIC, cx, cy, 0, 10, 0.5, 3, q);
		fxs_character_id c = character_at(w, 0, 0.9, 0, 0.35);
		walk(w, c, 0, 0, 5);
		walk(w, c, 2, 0, 120);
		fxg_vec3 p = fxs_character_get_position(w, c);
		printf("  %2.0f deg ramp: after 2 s at 2 m/s x %.3f y %.3f\n", deg, D(p.x), D(p.y));
		if (k == 0) {
			CHECKF(D(p.y) > 1.5 && fxs_character_is_grounded(w, c), "did not walk up: %.3f", D(p.y));
			walk(w, c, 0, 0, 5);
			fxg_vec3 a = fxs_character_get_position(w, c);
			walk(w, c, 0, 0, 120);
			fxg_vec3 b = fxs_character_get_position(w, c);
			double slid = hypot(D(b.x) - D(a.x), D(b.y) - D(a.y));
			printf("  standing on it for 2 s: moved %.5f m\n", slid);
			CHECKF(slid < 0.001, "slid %.5f", slid);
		} else {
			CHECKF(D(p.y) < 1.2, "walked up a %.0f deg slope: y %.3f", deg, D(p.y));
		}
		fxs_world_destroy(w);
	}
}

/* A kinematic platform moving at 1 m/s carries a character standing on it
 * (within 5%); with no input of its own. */
TEST(character_rides_a_moving_platform)
{
	fxs_world *w = ground_world();
	fxs_body_id plat = box_at(w, FXS_BODY_KINEMATIC, 0, 1, 0, 2, 0.2, 2, ident);
	fxs_body_set_linear_velocity(w, plat, fxg_v3(FXG_ONE, 0, 0));
	fxs_character_id c = character_at(w, 0, 2.1, 0, 0.35);
	walk(w, c, 0, 0, 10);
	fxg_vec3 p0 = fxs_character_get_position(w, c);
	walk(w, c, 0, 0, 60);
	fxg_vec3 p = fxs_character_get_position(w, c);
	double dx = D(p.x) - D(p0.x);
	printf("  on a platform at 1 m/s: carried %.4f m in 1 s, height %.4f (top at 1.2 + 0.9)\n", dx, D(p.y));
	CHECKF(fabs(dx - 1) < 0.05, "carried %.4f", dx);
	CHECKF(fabs(D(p.y) - 2.1) < 0.01, "height %.4f", D(p.y));
	CHECK(fxs_character_get_ground(w, c).index1 == plat.index1);
	fxs_world_destroy(w);
}

TEST(character_pushes_a_box)
{
	fxs_world *w = ground_world();
	fxs_body_id b = box_at(w, FXS_BODY_DYNAMIC, 1.5, 0.4, 0, 0.4, 0.4, 0.4, ident);
	fxs_character_id c = character_at(w, 0, 0.9, 0, 0.35);
	walk(w, c, 0, 0, 5);
	double x0 = D(fxs_body_get_position(w, b).x);
	walk(w, c, 1.5, 0, 90);
	double x1 = D(fxs_body_get_position(w, b).x), cx = D(fxs_character_get_position(w, c).x);
	printf("  pushing a box: box moved %.3f m, character at %.3f\n", x1 - x0, cx);
	CHECKF(x1 - x0 > 1, "box moved %.3f", x1 - x0);
	CHECKF(cx < x1, "passed through the box");
	fxs_world_destroy(w);
}

/* Stairs: 10 steps of 0.2 m rise and 0.35 m run; walking up reaches the top
 * landing (2 m up). */
TEST(character_walks_up_stairs)
{
	fxs_world *w = ground_world();
	for (int i = 0; i < 10; ++i) {
		double top = 0.2 * (i + 1);
		box_at(w, FXS_BODY_STATIC, 2 + 0.35 * i + 2.5, top / 2, 0, 2.5, top / 2, 1.5, ident);
	}
	fxs_character_id c = character_at(w, 0, 0.9, 0, 0.35);
	walk(w, c, 0, 0, 5);
	walk(w, c, 1.5, 0, 300);
	fxg_vec3 p = fxs_character_get_position(w, c);
	printf("  stairs: at x %.3f, y %.3f (top landing 2.0 + 0.9)\n", D(p.x), D(p.y));
	CHECKF(fabs(D(p.y) - 2.9) < 0.02 && fxs_character_is_grounded(w, c), "not on top: %.3f", D(p.y));
	fxs_world_destroy(w);
}

TEST(character_snapshot_restore_equals_never_stopping)
{
	fxs_world *w = ground_world();
	box_at(w, FXS_BODY_STATIC, 3, 1.5, 0, 0.5, 1.5, 10, ident);
	box_at(w, FXS_BODY_DYNAMIC, 1, 0.4, 2, 0.4, 0.4, 0.4, ident);
	fxs_character_id c = character_at(w, 0, 3, 0, 0.35);
	for (int i = 0; i < 40; ++i) {
		fxs_character_set_move(w, c, fxg_v3(F(2), 0, F(1)), i == 30);
		fxs_world_step(w);
	}
	size_t n = fxs_world_snapshot_size(w);
	void *buf = malloc(n);
	CHECK(fxs_world_snapshot_save(w, buf, n, &n) == FXS_OK);
	uint64_t ha[40], hb[40];
	for (int i = 0; i < 40; ++i) {
		fxs_character_set_move(w, c, fxg_v3(F(-1), 0, F(2)), i == 5);
		fxs_world_step(w);
		ha[i] = fxs_world_hash(w);
	}
	fxs_result err;
	fxs_world *r = fxs_world_create_from_snapshot(buf, n, &err);
	CHECK(r);
	CHECK(fxs_world_character_count(r) == 1);
	for (int i = 0; i < 40; ++i) {
		fxs_character_set_move(r, c, fxg_v3(F(-1), 0, F(2)), i == 5);
		fxs_world_step(r);
		hb[i] = fxs_world_hash(r);
		CHECKF(ha[i] == hb[i], "step %d differs after restore", i);
	}
	/* a flipped byte is refused (the snapshot checksum) */
	((uint8_t *)buf)[n - 9] ^= 0x40;
	fxs_world *bad = fxs_world_create_from_snapshot(buf, n, &err);
	CHECK(bad == NULL);
	free(buf);
	fxs_world_destroy(w);
	fxs_world_destroy(r);
}

/* The school under its scripted players: the two that take the stairs end
 * upstairs (feet on the 3.5 m floor, within 2 cm), the two that stay down
 * end in their rooms, and each room's crates were pushed. */
TEST(character_school_scripted_players_reach_their_rooms)
{
	const fxs_scene *sc = fxs_scene_find("school");
	CHECK(sc && sc->script);
	fxs_world *w = sc->create();
	CHECK(fxs_world_character_count(w) == 4);
	fxg_vec3 crate0[12];
	uint32_t nc = 0;
	for (uint32_t i = 0; i < fxs_world_slot_count(w); ++i) {
		fxs_body_id id = fxs_world_body_at(w, i);
		if (fxs_body_is_valid(w, id) && fxs_body_get_type(w, id) == FXS_BODY_DYNAMIC && nc < 12)
			crate0[nc++] = fxs_body_get_position(w, id);
	}
	CHECK(nc == 12);
	for (uint64_t t = 1; t <= 1200; ++t) {
		fxs_input in[FXS_MAX_PLAYERS];
		sc->script(w, t, 4, in);
		sc->apply_inputs(w, in, 4, t);
		fxs_world_step(w);
	}
	for (uint32_t p = 1; p <= 4; ++p) {
		fxg_vec3 q = fxs_character_get_position(w, p);
		printf("  player %u at (%.2f, %.2f, %.2f)%s\n", p - 1, D(q.x), D(q.y), D(q.z),
		       fxs_character_is_grounded(w, p) ? ", on the ground" : "");
		CHECK(fxs_character_is_grounded(w, p));
		double feet = D(q.y) - 0.9;
		if (p == 2 || p == 4)
			CHECKF(fabs(feet - 3.5) < 0.02 && D(q.x) > 15 && D(q.x) < 24, "player %u not upstairs", p - 1);
		else
			CHECKF(fabs(feet) < 0.02 && D(q.x) > 0 && D(q.x) < 12, "player %u not in a west room", p - 1);
		/* in a room, not the corridor */
		CHECKF(D(q.z) < 4.85 || D(q.z) > 7.15, "player %u still in the corridor", p - 1);
	}
	uint32_t moved = 0;
	for (uint32_t i = 0, k = 0; i < fxs_world_slot_count(w) && k < 12; ++i) {
		fxs_body_id id = fxs_world_body_at(w, i);
		if (!fxs_body_is_valid(w, id) || fxs_body_get_type(w, id) != FXS_BODY_DYNAMIC)
			continue;
		fxg_vec3 q = fxs_body_get_position(w, id);
		moved += fabs(D(q.x) - D(crate0[k].x)) + fabs(D(q.z) - D(crate0[k].z)) > 0.5;
		++k;
	}
	printf("  %u of 12 crates pushed more than 0.5 m\n", moved);
	CHECK(moved >= 6);
	fxs_world_destroy(w);
}
