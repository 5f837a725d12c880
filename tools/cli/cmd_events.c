/* fixstep events: a scene played with its scripted players, and a digest of
 * every step's events and of a set of queries, for the cross-architecture
 * check (tools/crosscheck.sh): events and query results must be the same
 * on every target, as the state is. */
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/scene_play.h"
#include "fixstep/query.h"
#include "scenes/arena.h"

#include <inttypes.h>
#include <string.h>
#include <xxhash.h>

/* explicit little-endian into the digest, field by field */
typedef struct digest {
	XXH3_state_t *st;
} digest;

static void put_u32(digest *d, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	XXH3_64bits_update(d->st, b, 4);
}
static void put_id(digest *d, fxs_body_id id)
{
	put_u32(d, id.index1);
	put_u32(d, id.generation);
}
static void put_v3(digest *d, fxg_vec3 v)
{
	put_u32(d, (uint32_t)v.x);
	put_u32(d, (uint32_t)v.y);
	put_u32(d, (uint32_t)v.z);
}

static void put_events(digest *d, const fxs_world *w, uint64_t totals[5])
{
	fxs_contact_events c = fxs_world_get_contact_events(w);
	fxs_sensor_events s = fxs_world_get_sensor_events(w);
	const uint32_t n[5] = { c.begin_count, c.end_count, c.hit_count, s.begin_count, s.end_count };
	for (int i = 0; i < 5; ++i)
		put_u32(d, n[i]), totals[i] += n[i];
	for (uint32_t i = 0; i < c.begin_count; ++i) {
		const fxs_contact_begin_event *e = &c.begin_events[i];
		put_id(d, e->body_a), put_id(d, e->body_b), put_u32(d, e->child_a), put_u32(d, e->child_b);
		put_v3(d, e->normal), put_v3(d, e->point), put_u32(d, (uint32_t)e->separation), put_u32(d, (uint32_t)e->point_count);
	}
	for (uint32_t i = 0; i < c.end_count; ++i) {
		const fxs_contact_end_event *e = &c.end_events[i];
		put_id(d, e->body_a), put_id(d, e->body_b), put_u32(d, e->child_a), put_u32(d, e->child_b);
	}
	for (uint32_t i = 0; i < c.hit_count; ++i) {
		const fxs_contact_hit_event *e = &c.hit_events[i];
		put_id(d, e->body_a), put_id(d, e->body_b), put_u32(d, e->child_a), put_u32(d, e->child_b);
		put_v3(d, e->point), put_v3(d, e->normal), put_u32(d, (uint32_t)e->approach_speed);
	}
	for (uint32_t i = 0; i < s.begin_count; ++i)
		put_id(d, s.begin_events[i].sensor), put_id(d, s.begin_events[i].visitor);
	for (uint32_t i = 0; i < s.end_count; ++i)
		put_id(d, s.end_events[i].sensor), put_id(d, s.end_events[i].visitor);
}

/* Queries of the world as it is: everything in a 20 m box about the
 * origin, everything a 4 m ball there overlaps, what the first category
 * sees of them, and a ray down the middle. */
static uint64_t put_queries(digest *d, const fxs_world *w)
{
	fxs_body_id ids[256];
	fxs_aabb box = { fxg_v3(-FXG_I(10), -FXG_I(10), -FXG_I(10)), fxg_v3(FXG_I(10), FXG_I(10), FXG_I(10)) };
	uint32_t n = fxs_world_overlap_aabb(w, box, NULL, ids, 256), total = n;
	put_u32(d, n);
	for (uint32_t i = 0; i < n && i < 256; ++i)
		put_id(d, ids[i]);
	fxs_shape ball;
	memset(&ball, 0, sizeof ball);
	ball.type = FXS_SHAPE_SPHERE;
	ball.radius = FXG_I(4);
	fxs_transform xf = { fxg_v3(0, FXG_ONE, 0), fxg_q_identity() };
	const fxs_query_filter first = { 1, 1 };
	for (int f = 0; f < 2; ++f) {
		n = fxs_world_overlap_shape(w, &ball, &xf, f ? &first : NULL, ids, 256);
		total += n;
		put_u32(d, n);
		for (uint32_t i = 0; i < n && i < 256; ++i)
			put_id(d, ids[i]);
	}
	fxs_cast_hit hit;
	if (fxs_world_ray_cast(w, fxg_v3(-FXG_I(20), FXG_HALF, FXG_ONE / 3), fxg_v3(FXG_I(20), FXG_HALF, FXG_ONE / 3),
			       fxs_null_body, &hit)) {
		put_id(d, hit.body), put_u32(d, (uint32_t)hit.fraction), put_v3(d, hit.point), put_v3(d, hit.normal);
		++total;
	}
	return total;
}

int cmd_events(int argc, char **argv)
{
	const char *name = NULL;
	uint32_t steps = 0;
	bool has_steps = false, all = false;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			printf("usage: fixstep events SCENE [--steps N] [--all-events]\n\n"
			       "Plays SCENE for N steps (default: the scene's own count) with its scripted\n"
			       "players (neutral inputs for a scene without a script) through its input\n"
			       "handler, and prints the events of all steps by kind, the overlap query\n"
			       "results, the final state hash ('state'), and as its last line 'hash ' and an\n"
			       "XXH3-64 of every step's events and query results in 16 hex digits: the\n"
			       "crosscheck compares it across targets. --all-events turns on contact and hit\n"
			       "events for every body first (for scenes that ask for none).\n");
			return 0;
		} else if (strcmp(a, "--steps") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &steps))
				return cli_usage_error("--steps needs a non-negative integer");
			has_steps = true;
		} else if (strcmp(a, "--all-events") == 0) {
			all = true;
		} else if (a[0] == '-') {
			return cli_usage_error("events: unknown option '%s'", a);
		} else if (!name) {
			name = a;
		} else {
			return cli_usage_error("events: unexpected argument '%s'", a);
		}
	}
	const fxs_scene *sc;
	fxs_world *w;
	int bad = cli_scene_open(name, "events", &sc, &w);
	if (bad)
		return bad;
	if (!has_steps)
		steps = sc->default_steps;
	for (uint32_t s = 0; all && s < fxs_world_slot_count(w); ++s) {
		fxs_body_enable_contact_events(w, fxs_world_body_at(w, s), true);
		fxs_body_enable_hit_events(w, fxs_world_body_at(w, s), true);
	}
	digest d = { XXH3_createState() };
	if (!d.st || XXH3_64bits_reset(d.st) != XXH_OK) {
		fxs_world_destroy(w);
		return cli_usage_error("out of memory");
	}
	uint64_t totals[5] = { 0 }, queries = 0;
	int rc = 0;
	for (uint32_t s = 1; s <= steps; ++s) {
		if (!cli_scene_play_tick(sc, w)) {
			rc = 1;
			break;
		}
		put_events(&d, w, totals);
		queries += put_queries(&d, w);
	}
	if (rc == 0) {
		printf("steps %u\n", steps);
		printf("contact begin %" PRIu64 "  end %" PRIu64 "  hit %" PRIu64 "\n", totals[0], totals[1], totals[2]);
		printf("sensor begin %" PRIu64 "  end %" PRIu64 "\n", totals[3], totals[4]);
		printf("query results %" PRIu64 "\n", queries);
		if (strcmp(sc->name, "arena") == 0) {
			fxs_arena_score a = fxs_scene_arena_score(w);
			printf("score team 0: %u hits, %u capture points; team 1: %u hits, %u capture points\n", a.hits[0],
			       a.capture[0], a.hits[1], a.capture[1]);
		}
		printf("state %016" PRIx64 "\n", fxs_world_hash(w));
		printf("hash %016" PRIx64 "\n", (uint64_t)XXH3_64bits_digest(d.st));
	}
	XXH3_freeState(d.st);
	fxs_world_destroy(w);
	return rc;
}
