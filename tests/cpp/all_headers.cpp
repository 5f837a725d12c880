// Every installed header of fixstep, included from C++17 (compiled with
// -Wall -Wextra -pedantic -Werror by g++ and clang++: `make cxx-check`), and a
// few calls through each, so that the link (extern "C") is tested too.
#include "fixstep/authoring.h"
#include "fixstep/character.h"
#include "fixstep/debug_draw.h"
#include "fixstep/events.h"
#include "fixstep/fixstep.h"
#include "fixstep/input.h"
#include "fixstep/joint.h"
#include "fixstep/query.h"
#include "fixstep/replay.h"
#include "fixstep/session.h"
#include "fixstep/sphere_walls.h"
#include "fixstep/types.h"
#include "fixstep/verifyd_game.h"
#include "fxg.h"

#include <cstdio>
#include <vector>

namespace
{

int failures = 0;

void check(bool ok, const char *what)
{
	if (!ok) {
		std::printf("FAIL %s\n", what);
		++failures;
	}
}

fix16_t q(const char *s)
{
	fix16_t v = 0;
	check(fxs_q16_from_string(s, &v), s);
	return v;
}

} // namespace

int main()
{
	fxs_world_def def = fxs_default_world_def();
	check(fxs_world_def_invalid_field(&def) == nullptr, "default def valid");
	fxs_world *w = fxs_world_create(&def);
	check(w != nullptr, "world");

	fxs_body_def ground = fxs_default_body_def();
	ground.type = FXS_BODY_STATIC; // an enum field, typed as its enum
	ground.position = fxs_vec3_from_doubles(0, -1, 0);
	ground.shape.type = FXS_SHAPE_BOX;
	ground.shape.half_extents = fxg_v3(FXG_I(10), FXG_ONE, FXG_I(10));
	fxs_body_create(w, &ground);

	fxs_body_def ball = fxs_default_body_def();
	ball.position = fxg_v3(0, q("2.5"), 0);
	ball.shape.radius = q("0.5");
	ball.enable_contact_events = true;
	ball.enable_hit_events = true;
	ball.rotation = fxs_quat_from_axis_angle_deg(0, 1, 0, 30);
	fxs_body_id id = fxs_body_create(w, &ball);
	check(fxs_body_is_valid(w, id), "ball");

	uint32_t begins = 0, hits = 0;
	for (int s = 0; s < 120; ++s) {
		check(fxs_world_step(w) == FXS_OK, "step");
		fxs_contact_events e = fxs_world_get_contact_events(w);
		begins += e.begin_count;
		hits += e.hit_count;
	}
	check(begins == 1 && hits == 1, "one landing: one begin, one hit");

	std::vector<fxs_body_id> found(8);
	fxs_aabb box = { fxg_v3(-FXG_ONE, 0, -FXG_ONE), fxg_v3(FXG_ONE, FXG_ONE, FXG_ONE) };
	uint32_t n = fxs_world_overlap_aabb(w, box, nullptr, found.data(), static_cast<uint32_t>(found.size()));
	check(n == 2, "overlap: the ground and the ball");

	int shapes = 0;
	fxs_debug_draw dd = fxs_default_debug_draw();
	dd.context = &shapes;
	dd.draw_box = [](fxs_transform, fxg_vec3, uint32_t, void *c) { ++*static_cast<int *>(c); };
	dd.draw_sphere = [](fxg_vec3, fix16_t, uint32_t, void *c) { ++*static_cast<int *>(c); };
	fxs_world_draw(w, &dd);
	check(shapes == 2, "debug draw");

	check(fxs_world_step(nullptr) == FXS_ERR_INVALID_ID, "a null world is refused");
	fxs_replay_verify_result vr;
	check(fxs_replay_verify_memory("FXSREPLY", 8, nullptr, nullptr, nullptr, &vr) == FXS_REPLAY_TRUNCATED,
	      "replay: a header cut short");
	check(fxs_replay_call_name(6) != nullptr && fxs_replay_call_name(999) == nullptr, "replay: call names");

	// a one-peer session over the world (no network): the ball pushed by its input byte
	fxs_session_world gw = { w, nullptr, nullptr, FXS_OK, 0 };
	// the replay's apply type: one function serves the session and the verifier
	gw.apply_inputs = [](fxs_world *, uint64_t, const uint8_t *, uint32_t, void *) { return FXS_OK; };
	fxs_session_config sc = fxs_session_default_config();
	sc.peers = 1;
	sc.ticks = 5;
	sc.input_size = 1;
	sc.game = fxs_session_world_callbacks(&gw);
	sc.key[0] = 1;
	char err[128] = "";
	fxs_session *session = fxs_session_create(&sc, err, sizeof err);
	check(session != nullptr, err);
	check(fxs_session_advance(session, 10) == 5 && fxs_session_complete(session), "a session of one peer");
	check(fxs_session_hash(session, 5) == fxs_world_hash(w), "the session's hash is the world's");
	fxs_session_destroy(session);
	check(fxs_q32_to_double(fxs_body_get_mass(w, id)) > 523.0, "mass");
	char text[32];
	fxs_q16_to_string(fxs_body_get_position(w, id).y, 3, text, sizeof text);
	std::printf("all headers from C++: the ball rests at y = %s m, %u begin, %u hit event; %s\n", text, begins, hits,
		    fxs_result_string(FXS_OK));
	fxs_world_destroy(w);
	return failures ? 1 : 0;
}
