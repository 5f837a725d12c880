// The arena from C++17, built against an installed fixstep (pkg-config
// fixstep), as a C++ game would use it: the world in a unique_ptr, the
// arena's rules (tools/scenes/arena.c, plain C on the public API) compiled
// beside it, 600 ticks of its scripted players, then the state hash, the
// event counts by kind and the score.
//
// The hash is the one every build of fixstep computes for the arena after
// 600 scripted ticks (the corpus: replays/corpus/MANIFEST; `fixstep events
// arena` prints it as "state"): `make examples` checks that they agree.
#include "fixstep/authoring.h"
#include "fixstep/debug_draw.h"
#include "fixstep/events.h"
#include "fixstep/fixstep.h"
#include "scenes/arena.h"

#include <array>
#include <cinttypes>
#include <cstdio>
#include <memory>

namespace {

struct world_deleter {
	void operator()(fxs_world *w) const { fxs_world_destroy(w); }
};
using world_ptr = std::unique_ptr<fxs_world, world_deleter>;

struct event_counts {
	uint64_t begin = 0, end = 0, hit = 0, sensor_begin = 0, sensor_end = 0;
	fix16_t fastest_hit = 0;

	void add(const fxs_world *w)
	{
		const fxs_contact_events c = fxs_world_get_contact_events(w);
		const fxs_sensor_events s = fxs_world_get_sensor_events(w);
		begin += c.begin_count;
		end += c.end_count;
		hit += c.hit_count;
		sensor_begin += s.begin_count;
		sensor_end += s.end_count;
		for (uint32_t i = 0; i < c.hit_count; ++i)
			if (c.hit_events[i].approach_speed > fastest_hit)
				fastest_hit = c.hit_events[i].approach_speed;
	}
};

} // namespace

int main()
{
	world_ptr w(fxs_scene_arena_create());
	if (!w) {
		std::fprintf(stderr, "arena_cpp: the arena could not be created\n");
		return 1;
	}
	event_counts counts;
	std::array<fxs_input, FXS_MAX_PLAYERS> inputs{};
	for (uint64_t tick = 1; tick <= FXS_ARENA_STEPS; ++tick) {
		fxs_scene_arena_script(w.get(), tick, FXS_ARENA_PLAYERS, inputs.data());
		fxs_scene_arena_inputs(w.get(), inputs.data(), FXS_ARENA_PLAYERS, tick);
		const fxs_result r = fxs_world_step(w.get());
		if (r != FXS_OK) {
			std::fprintf(stderr, "arena_cpp: step %" PRIu64 ": %s\n", tick, fxs_result_string(r));
			return 1;
		}
		counts.add(w.get());
	}
	// what is on the field now, through the debug draw's callbacks
	std::array<int, 3> drawn{};
	fxs_debug_draw dd = fxs_default_debug_draw();
	dd.context = &drawn;
	dd.draw_box = [](fxs_transform, fxg_vec3, uint32_t, void *c) { ++(*static_cast<std::array<int, 3> *>(c))[0]; };
	dd.draw_sphere = [](fxg_vec3, fix16_t, uint32_t, void *c) { ++(*static_cast<std::array<int, 3> *>(c))[1]; };
	dd.draw_capsule = [](fxg_vec3, fxg_vec3, fix16_t, uint32_t, void *c) { ++(*static_cast<std::array<int, 3> *>(c))[2]; };
	fxs_world_draw(w.get(), &dd);

	const fxs_arena_score score = fxs_scene_arena_score(w.get());
	char fastest[24];
	fxs_q16_to_string(counts.fastest_hit, 2, fastest, sizeof fastest);
	std::printf("arena, %d ticks from C++: %u bodies (%d boxes, %d bullets, %d players drawn)\n", FXS_ARENA_STEPS,
		    fxs_world_body_count(w.get()), drawn[0], drawn[1], drawn[2]);
	std::printf("events: contact begin %" PRIu64 ", end %" PRIu64 ", hit %" PRIu64 " (fastest %s m/s); sensor begin %" PRIu64
		    ", end %" PRIu64 "\n",
		    counts.begin, counts.end, counts.hit, fastest, counts.sensor_begin, counts.sensor_end);
	std::printf("score: team 0 %u hits, %u capture points; team 1 %u hits, %u capture points\n", score.hits[0],
		    score.capture[0], score.hits[1], score.capture[1]);
	std::printf("hash %016" PRIx64 "\n", fxs_world_hash(w.get()));
	return 0;
}
