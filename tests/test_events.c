/* Events: contact begin, end and hit events, sensors, the order they come
 * in, and snapshots (a restored world reads the same events and makes the
 * same ones as a world that never stopped). */
#include <math.h>

#include "game_util.h"
#include "scenes/scenes.h"
#include "test.h"
#include "snapshot_util.h"

/* A ball dropped onto the ground: one begin event at the step its manifold
 * appears, with the ball as body_b and a normal pointing up from the
 * ground; nothing else; no events at all without enable_contact_events. */
TEST(contact_begin_event_once_when_a_ball_lands)
{
	for (int enabled = 0; enabled < 2; ++enabled) {
		fxs_world *w = game_world();
		fxs_body_id ground = game_ground(w);
		fxs_body_def d = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3(0, FXG_I(3), 0), FXG_HALF);
		d.enable_contact_events = enabled;
		fxs_body_id ball = fxs_body_create(w, &d);
		uint32_t begins = 0, ends = 0, first = 0;
		for (uint32_t s = 1; s <= 120; ++s) {
			uint32_t had = fxs_body_get_contacts(w, ball, NULL, 0);
			fxs_world_step(w);
			fxs_contact_events e = fxs_world_get_contact_events(w);
			begins += e.begin_count, ends += e.end_count;
			if (e.begin_count && !first) {
				first = s;
				CHECK(had == 0 && fxs_body_get_contacts(w, ball, NULL, 0) == 1);
				const fxs_contact_begin_event *b = &e.begin_events[0];
				CHECK(game_same_id(b->body_a, ground) && game_same_id(b->body_b, ball));
				CHECK(b->normal.y > FXG_ONE - 4 && b->point_count == 1 && b->child_a == 0 && b->child_b == 0);
			}
		}
		CHECKF(begins == (enabled ? 1u : 0u) && ends == 0, "enabled %d: %u begins, %u ends", enabled, begins, ends);
		fxs_world_destroy(w);
	}
}

/* Hit events carry the approach speed at the touch: a ball dropped from
 * rest d metres above the ground meets it at sqrt(2 g d). The event's speed
 * must be within 1% of that (the speed the ball had when the landing step
 * began is up to g dt lower: 1.1% at 5 m), and above the ball's speed as
 * that step began. A drop too short to reach the threshold makes no event.
 * The same with the boxed LCP solving the contact (direct_contact_rows). */
TEST(hit_events_carry_the_approach_speed)
{
	const char *heights[] = { "5", "12.5", "0.02" };
	for (int k = 0; k < 6; ++k) {
		fxs_world_def def = fxs_default_world_def();
		def.direct_contact_rows = k < 3 ? 0 : 96;
		fxs_world *w = fxs_world_create(&def);
		game_ground(w);
		fix16_t y0 = fxs_dec(heights[k % 3]) + FXG_HALF;
		fxs_body_def d = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3(0, y0, 0), FXG_HALF);
		d.enable_hit_events = true;
		fxs_body_id ball = fxs_body_create(w, &d);
		uint32_t hits = 0;
		for (int s = 0; s < 300 && hits == 0; ++s) {
			fxg_vec3 v = fxs_body_get_linear_velocity(w, ball);
			fxs_world_step(w);
			fxs_contact_events e = fxs_world_get_contact_events(w);
			hits = e.hit_count;
			if (!hits)
				continue;
			const fxs_contact_hit_event *h = &e.hit_events[0];
			double closed = sqrt(2.0 * 10.0 * fxs_dec(heights[k % 3]) / 65536.0);
			double got = h->approach_speed / 65536.0;
			printf("  %s, drop %s m: hit at step %d, approach %.4f m/s, sqrt(2 g d) = %.4f m/s (%.3f%%)\n",
			       k < 3 ? "iterative" : "boxed LCP", heights[k % 3], s + 1, got, closed, 100.0 * (got - closed) / closed);
			CHECK(fabs(got - closed) <= 0.01 * closed);
			CHECK(h->approach_speed > -v.y);
			/* the point is the manifold's when the step began: midway between the
			 * surfaces, up to one step's travel (v dt / 2) above the ground */
			CHECK(h->normal.y > FXG_ONE - 4 && h->point.y > -FXG_ONE / 20 && h->point.y < FXG_ONE / 5);
		}
		CHECKF(hits == (k % 3 < 2 ? 1u : 0u), "drop %s m: %u hit events", heights[k % 3], hits);
		fxs_world_destroy(w);
	}
}

/* A sensor slab (static, 4 m thick, y 4..8) and a ball of radius 0.5
 * dropped through it from y = 12, beside a twin world without the sensor.
 * The ball's trajectory is the twin's to the bit (the sensor never pushes
 * it), and the sensor reports begin exactly at the first step whose end
 * has the ball overlapping the slab (y - r <= 8) and end at the first step
 * after which it no longer does (y + r < 4): the closed form of a sphere
 * against a box it is centred over. Sensor overlaps list it in between. */
TEST(sensor_reports_begin_and_end_at_the_steps_and_never_pushes)
{
	fxs_world *w = game_world(), *twin = game_world();
	fxs_body_def s = game_box_def(FXS_BODY_STATIC, fxg_v3(0, FXG_I(6), 0), fxg_v3(FXG_I(3), FXG_I(2), FXG_I(3)));
	s.is_sensor = true;
	fxs_body_id sensor = fxs_body_create(w, &s);
	fxs_body_def d = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3(0, FXG_I(12), 0), FXG_HALF);
	fxs_body_id ball = fxs_body_create(w, &d);
	fxs_body_id tball = fxs_body_create(twin, &d);
	int begin_step = -1, end_step = -1, want_begin = -1, want_end = -1;
	for (int step = 1; step <= 150; ++step) {
		fxs_world_step(w);
		fxs_world_step(twin);
		fxg_vec3 p = fxs_body_get_position(w, ball), q = fxs_body_get_position(twin, tball);
		CHECKF(p.x == q.x && p.y == q.y && p.z == q.z, "step %d: the sensor moved the ball", step);
		bool inside = p.y - FXG_HALF <= FXG_I(8) && p.y + FXG_HALF >= FXG_I(4);
		if (inside && want_begin < 0)
			want_begin = step;
		if (!inside && want_begin >= 0 && want_end < 0)
			want_end = step;
		fxs_sensor_events e = fxs_world_get_sensor_events(w);
		for (uint32_t i = 0; i < e.begin_count; ++i) {
			CHECK(begin_step < 0 && game_same_id(e.begin_events[i].sensor, sensor) &&
			      game_same_id(e.begin_events[i].visitor, ball));
			begin_step = step;
		}
		for (uint32_t i = 0; i < e.end_count; ++i) {
			CHECK(end_step < 0 && game_same_id(e.end_events[i].visitor, ball));
			end_step = step;
		}
		fxs_body_id seen[2];
		uint32_t n = fxs_sensor_get_overlaps(w, sensor, seen, 2);
		CHECK(n == (inside ? 1u : 0u) && (!n || game_same_id(seen[0], ball)));
	}
	printf("  begin at step %d (closed form %d), end at step %d (closed form %d)\n", begin_step, want_begin, end_step,
	       want_end);
	CHECK(want_begin > 0 && want_end > want_begin);
	CHECK(begin_step == want_begin && end_step == want_end);
	fxs_world_destroy(w);
	fxs_world_destroy(twin);
}

/* A sensor's filter chooses what it sees; a visitor may opt out; sensors
 * never see each other; a destroyed visitor ends its overlap at the next
 * step with the id it had. */
TEST(sensors_see_what_their_filter_lets_them)
{
	fxs_world *w = game_world_no_gravity();
	fxs_body_def s = game_box_def(FXS_BODY_STATIC, fxg_v3(0, 0, 0), fxg_v3(FXG_I(5), FXG_I(5), FXG_I(5)));
	s.is_sensor = true;
	s.filter.mask_bits = 1 | 4;
	fxs_body_id sensor = fxs_body_create(w, &s);
	fxs_body_def d = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3(0, 0, 0), FXG_HALF);
	fxs_body_id plain = fxs_body_create(w, &d);
	d.filter.category_bits = 2; /* not in the sensor's mask */
	fxs_body_id other = fxs_body_create(w, &d);
	d.filter.category_bits = 4;
	d.enable_sensor_events = false; /* opted out */
	fxs_body_id shy = fxs_body_create(w, &d);
	fxs_body_def s2 = s;
	s2.type = FXS_BODY_DYNAMIC;
	s2.shape.half_extents = fxg_v3(FXG_ONE, FXG_ONE, FXG_ONE);
	fxs_body_id sensor2 = fxs_body_create(w, &s2);
	fxs_world_step(w);
	fxs_body_id seen[8];
	uint32_t n = fxs_sensor_get_overlaps(w, sensor, seen, 8);
	CHECKF(n == 1 && game_same_id(seen[0], plain), "%u overlaps", n);
	/* the dynamic sensor sees the plain ball too (and not the static sensor) */
	n = fxs_sensor_get_overlaps(w, sensor2, seen, 8);
	CHECK(n == 1 && game_same_id(seen[0], plain));
	CHECK(fxs_sensor_get_overlaps(w, plain, seen, 8) == 0); /* not a sensor */
	/* the sensor never pushed anything */
	CHECK(fxs_body_get_position(w, other).x == 0 && fxs_body_get_position(w, shy).x == 0);
	CHECK(fxs_body_destroy(w, plain));
	fxs_world_step(w);
	fxs_sensor_events e = fxs_world_get_sensor_events(w);
	CHECKF(e.end_count == 2 && e.begin_count == 0, "%u ends, %u begins", e.end_count, e.begin_count);
	CHECK(game_same_id(e.end_events[0].sensor, sensor) && game_same_id(e.end_events[0].visitor, plain));
	CHECK(game_same_id(e.end_events[1].sensor, sensor2) && game_same_id(e.end_events[1].visitor, plain));
	fxs_world_destroy(w);
}

/* Destroying a body with contact events: its contacts end at once, and
 * their end events (with the destroyed id) come after the next step, in
 * canonical order with that step's own ends. */
TEST(destroyed_body_contact_ends_come_after_the_next_step)
{
	fxs_world *w = game_world();
	game_ground(w);
	fxs_body_id box[4];
	for (int i = 0; i < 4; ++i) {
		fxs_body_def d = game_box_def(FXS_BODY_DYNAMIC, fxg_v3(FXG_I(i * 2), FXG_HALF, 0), fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF));
		d.enable_contact_events = true;
		box[i] = fxs_body_create(w, &d);
	}
	for (int s = 0; s < 10; ++s)
		fxs_world_step(w);
	CHECK(fxs_body_destroy(w, box[2]));
	CHECK(fxs_body_destroy(w, box[0]));
	/* a new body in slot 1 (box 0's): its id differs by generation */
	fxs_body_def d = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3(FXG_I(20), FXG_I(5), 0), FXG_HALF);
	fxs_body_id fresh = fxs_body_create(w, &d);
	CHECK(fresh.index1 == box[0].index1 && fresh.generation != box[0].generation);
	CHECK(fxs_world_step(w) == FXS_OK);
	fxs_contact_events e = fxs_world_get_contact_events(w);
	CHECKF(e.end_count == 2, "%u ends", e.end_count);
	CHECK(game_same_id(e.end_events[0].body_b, box[0]) && game_same_id(e.end_events[1].body_b, box[2]));
	CHECK(!fxs_body_is_valid(w, e.end_events[0].body_b));
	fxs_world_step(w);
	CHECK(fxs_world_get_contact_events(w).end_count == 0);
	fxs_world_destroy(w);
}

/* Events of a whole scene: begin events sorted by (body_a, body_b, child
 * a, child b), body_a's slot below body_b's; the same for hits and ends. */
static bool sorted_keys(const fxs_body_id *a, const fxs_body_id *b, const uint32_t *ca, const uint32_t *cb,
			size_t stride, uint32_t n)
{
	uint64_t prev = 0;
	for (uint32_t i = 0; i < n; ++i) {
		const fxs_body_id *ia = (const fxs_body_id *)((const char *)a + i * stride);
		const fxs_body_id *ib = (const fxs_body_id *)((const char *)b + i * stride);
		uint32_t xa = *(const uint32_t *)((const char *)ca + i * stride), xb = *(const uint32_t *)((const char *)cb + i * stride);
		uint64_t k = (uint64_t)ia->index1 << 40 | (uint64_t)ib->index1 << 16 | xa << 8 | xb;
		if (ia->index1 >= ib->index1 || (i > 0 && k <= prev))
			return false;
		prev = k;
	}
	return true;
}

TEST(events_come_in_canonical_order)
{
	fxs_world *w = fxs_scene_find("all_shapes")->create();
	for (uint32_t s = 0; s < fxs_world_slot_count(w); ++s) {
		fxs_body_id id = fxs_world_body_at(w, s);
		fxs_body_enable_contact_events(w, id, true);
		fxs_body_enable_hit_events(w, id, true);
	}
	uint32_t begins = 0, hits = 0, ends = 0;
	for (int step = 0; step < 240; ++step) {
		fxs_world_step(w);
		fxs_contact_events e = fxs_world_get_contact_events(w);
		begins += e.begin_count, hits += e.hit_count, ends += e.end_count;
		if (e.begin_count)
			CHECK(sorted_keys(&e.begin_events[0].body_a, &e.begin_events[0].body_b, &e.begin_events[0].child_a,
					  &e.begin_events[0].child_b, sizeof *e.begin_events, e.begin_count));
		if (e.hit_count)
			CHECK(sorted_keys(&e.hit_events[0].body_a, &e.hit_events[0].body_b, &e.hit_events[0].child_a,
					  &e.hit_events[0].child_b, sizeof *e.hit_events, e.hit_count));
		if (e.end_count)
			CHECK(sorted_keys(&e.end_events[0].body_a, &e.end_events[0].body_b, &e.end_events[0].child_a,
					  &e.end_events[0].child_b, sizeof *e.end_events, e.end_count));
		for (uint32_t i = 0; i < e.hit_count; ++i)
			CHECK(e.hit_events[i].approach_speed > fxs_world_get_def(w).hit_event_threshold);
	}
	printf("  all_shapes, 240 steps: %u begin, %u end, %u hit events\n", begins, ends, hits);
	CHECK(begins > 36 && ends > 0 && hits > 0);
	fxs_world_destroy(w);
}

/* The arena (every game feature at once, its game logic in the input
 * handler): save at step k, run on recording every step's events and hash;
 * restore (into the same world and into a fresh one): the restored worlds
 * read the events the saved one had, then make the same events and hashes
 * as the run that never stopped. */
TEST(snapshot_restore_step_gives_the_same_events)
{
	const fxs_scene *sc = fxs_scene_find("arena");
	CHECK(sc != NULL);
	fxs_world *w = sc->create();
	fxs_input in[FXS_MAX_PLAYERS];
	const uint32_t k = 90, n = 120;
	uint64_t tick = 0;
	for (; tick < k; ++tick) {
		sc->script(w, tick + 1, sc->players, in);
		sc->apply_inputs(w, in, sc->players, tick + 1);
		CHECK(fxs_world_step(w) == FXS_OK);
	}
	size_t len;
	void *snap = game_save(w, &len);
	CHECK(snap != NULL);
	uint64_t at_save = game_events_digest(w);
	uint64_t ev[120], hs[120];
	uint32_t total = 0;
	for (uint32_t i = 0; i < n; ++i, ++tick) {
		sc->script(w, tick + 1, sc->players, in);
		sc->apply_inputs(w, in, sc->players, tick + 1);
		CHECK(fxs_world_step(w) == FXS_OK);
		ev[i] = game_events_digest(w);
		hs[i] = fxs_world_hash(w);
		fxs_contact_events e = fxs_world_get_contact_events(w);
		fxs_sensor_events se = fxs_world_get_sensor_events(w);
		total += e.begin_count + e.end_count + e.hit_count + se.begin_count + se.end_count;
	}
	CHECKF(total > 20, "the arena made only %u events in %u steps", total, n);
	fxs_result err;
	fxs_world *fresh = fxs_world_create_from_snapshot(snap, len, &err);
	CHECK(fresh && err == FXS_OK);
	CHECK(fxs_world_snapshot_restore(w, snap, len) == FXS_OK);
	CHECK(game_events_digest(w) == at_save && game_events_digest(fresh) == at_save);
	tick = k;
	for (uint32_t i = 0; i < n; ++i, ++tick) {
		fxs_world *ws[2] = { w, fresh };
		for (int j = 0; j < 2; ++j) {
			sc->script(ws[j], tick + 1, sc->players, in);
			sc->apply_inputs(ws[j], in, sc->players, tick + 1);
			CHECK(fxs_world_step(ws[j]) == FXS_OK);
			CHECKF(game_events_digest(ws[j]) == ev[i] && fxs_world_hash(ws[j]) == hs[i],
			       "%s world: events or hash differ %u steps after the restore", j ? "fresh" : "restored", i + 1);
		}
	}
	free(snap);
	fxs_world_destroy(w);
	fxs_world_destroy(fresh);
}

/* A world using the game features round-trips through a snapshot byte for
 * byte; every truncation of it, and a flipped byte in its GAME section, is
 * refused with the world left as it was. */
TEST(game_state_snapshots_round_trip_and_refuse_damage)
{
	const fxs_scene *sc = fxs_scene_find("arena");
	fxs_world *w = sc->create();
	fxs_input in[FXS_MAX_PLAYERS];
	for (uint64_t t = 1; t <= 60; ++t) {
		sc->script(w, t, sc->players, in);
		sc->apply_inputs(w, in, sc->players, t);
		fxs_world_step(w);
	}
	size_t len, len2;
	uint8_t *a = game_save(w, &len);
	fxs_world *b = fxs_world_create_from_snapshot(a, len, NULL);
	CHECK(b != NULL);
	uint8_t *a2 = game_save(b, &len2);
	CHECK(a2 && len == len2 && memcmp(a, a2, len) == 0);
	CHECK(fxs_world_hash(b) == fxs_world_hash(w));
	uint64_t h = fxs_world_hash(b);
	for (size_t cut = len - 1; cut > len - 400 && cut > 24; cut -= 7)
		CHECK(fxs_world_snapshot_restore(b, a, cut) != FXS_OK);
	CHECK(fxs_world_hash(b) == h);
	free(a);
	free(a2);
	fxs_world_destroy(w);
	fxs_world_destroy(b);
}

/* A snapshot says which state version wrote it: version 9 keeps a kept
 * manifold's hold (the rest depth), so a snapshot labelled 4 to 8 (these
 * bytes relabelled) is refused with FXS_ERR_VERSION, never read into a
 * world that would part from the one that wrote it; one labelled 11 is
 * from a newer library. Version 10 packs version 9's state: the same
 * state, relabelled 9, is the unpacked container (snapshot_util.h). */
static void relabel(uint8_t *snap, size_t len, uint32_t version)
{
	snap[4] = (uint8_t)version, snap[5] = snap[6] = snap[7] = 0;
	uint64_t h = (uint64_t)XXH3_64bits(snap, len - 8);
	for (int i = 0; i < 8; ++i)
		snap[len - 8 + i] = (uint8_t)(h >> (8 * i));
}

TEST(older_state_versions_are_refused)
{
	fxs_world *w = fxs_scene_find("box_stack")->create();
	for (int s = 0; s < 20; ++s)
		fxs_world_step(w);
	CHECK(fxs_body_enable_hit_events(w, fxs_world_body_at(w, 1), true) == FXS_OK);
	size_t len;
	uint8_t *packed = game_save(w, &len);
	CHECK(packed && packed[4] == 10);
	free(packed);
	uint8_t *snap = raw_snapshot(w, &len);
	CHECK(snap);
	fxs_result err;
	for (uint32_t v = 4; v <= 11; ++v) {
		if (v == 9)
			continue;
		relabel(snap, len, v);
		CHECKF(fxs_world_create_from_snapshot(snap, len, &err) == NULL &&
			       (v == 10 ? err != FXS_OK : err == FXS_ERR_VERSION),
		       "version %u: %s", v, fxs_result_string(err));
	}
	relabel(snap, len, 9);
	fxs_world *ok = fxs_world_create_from_snapshot(snap, len, &err);
	CHECK(ok && err == FXS_OK && fxs_world_hash(ok) == fxs_world_hash(w));
	fxs_world_destroy(ok);
	free(snap);
	fxs_world_destroy(w);
}
