/* libfixstep_scenes.so: the built-in scenes of tools/scenes (their worlds,
 * input handlers, scripted players and golden start hashes) for the C#
 * binding's tests and its arena example, as bindings/js/src/fxjs_replay.c
 * gives them to JavaScript. Test-only: not part of the library, never
 * installed. Linked against libfixstep.so, so that the worlds it creates are
 * the ones the binding steps. Also reports the C layout of every struct the
 * binding mirrors, so that the tests can hold the C# declarations to it. */
#include "fixstep/character.h"
#include "fixstep/debug_draw.h"
#include "fixstep/events.h"
#include "fixstep/fixstep.h"
#include "fixstep/query.h"
#include "fixstep/replay.h"
#include "fixstep/session.h"
#include "scenes/arena.h"
#include "scenes/scenes.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static const fxs_scene *scene_at(int32_t i)
{
	uint32_t n;
	const fxs_scene *s = fxs_scenes(&n);
	return i >= 0 && (uint32_t)i < n ? &s[i] : NULL;
}

EXPORT int32_t fxcs_scene_count(void)
{
	uint32_t n;
	fxs_scenes(&n);
	return (int32_t)n;
}
EXPORT const char *fxcs_scene_name(int32_t i) { return scene_at(i) ? scene_at(i)->name : NULL; }
EXPORT uint32_t fxcs_scene_default_steps(int32_t i) { return scene_at(i) ? scene_at(i)->default_steps : 0; }
EXPORT uint32_t fxcs_scene_players(int32_t i) { return scene_at(i) ? scene_at(i)->players : 0; }
EXPORT fxs_world *fxcs_scene_create(int32_t i) { return scene_at(i) ? scene_at(i)->create() : NULL; }
EXPORT int32_t fxcs_scene_start_hash(int32_t i, uint64_t *hash)
{
	return scene_at(i) && fxs_scene_start_hash(scene_at(i)->name, hash);
}

/* The scene's handler on players x FXS_INPUT_SIZE serialised input bytes
 * (fixstep/input.h), before the step of number tick: 1, or 0 for a bad
 * scene or player count. */
EXPORT int32_t fxcs_scene_apply(int32_t i, fxs_world *w, const uint8_t *inputs, uint32_t players, uint64_t tick)
{
	const fxs_scene *s = scene_at(i);
	if (!s || players > FXS_MAX_PLAYERS)
		return 0;
	fxs_input in[FXS_MAX_PLAYERS];
	for (uint32_t p = 0; p < players; ++p)
		in[p] = fxs_input_read(inputs + FXS_INPUT_SIZE * p);
	s->apply_inputs(w, in, players, tick);
	return 1;
}

/* The scripted players' inputs for the step of number tick, serialised into
 * out (players x FXS_INPUT_SIZE bytes): 1, or 0 when the scene has none. */
EXPORT int32_t fxcs_scene_script(int32_t i, const fxs_world *w, uint64_t tick, uint32_t players, uint8_t *out)
{
	const fxs_scene *s = scene_at(i);
	if (!s || !s->script || players > FXS_MAX_PLAYERS)
		return 0;
	fxs_input in[FXS_MAX_PLAYERS];
	for (uint32_t p = 0; p < FXS_MAX_PLAYERS; ++p)
		in[p] = fxs_input_neutral();
	s->script(w, tick, players, in);
	for (uint32_t p = 0; p < players; ++p)
		fxs_input_write(&in[p], out + FXS_INPUT_SIZE * p);
	return 1;
}

/* The arena's score board (hits and capture points of teams 0 and 1). */
EXPORT void fxcs_arena_score(const fxs_world *w, uint32_t out[4])
{
	fxs_arena_score s = fxs_scene_arena_score(w);
	out[0] = s.hits[0], out[1] = s.hits[1], out[2] = s.capture[0], out[3] = s.capture[1];
}

/* ---- the layouts the binding mirrors: "name size" then "name.field offset" lines ---- */
#define S(t) n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s %zu\n", #t, sizeof(t))
#define F(t, f) n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s.%s %zu\n", #t, #f, offsetof(t, f))
EXPORT size_t fxcs_layouts(char *buf, size_t cap)
{
	size_t n = 0;
	S(fxs_shape); F(fxs_shape, half_extents); F(fxs_shape, mesh_id); F(fxs_shape, mesh);
	S(fxs_transform);
	S(fxs_world_def); F(fxs_world_def, enable_sleep); F(fxs_world_def, linear_sleep_tolerance); F(fxs_world_def, max_bodies);
	F(fxs_world_def, hit_event_threshold); F(fxs_world_def, worker_count); F(fxs_world_def, enqueue_task);
	S(fxs_body_def); F(fxs_body_def, shape); F(fxs_body_def, density); F(fxs_body_def, user_data); F(fxs_body_def, filter);
	F(fxs_body_def, motion_locks); F(fxs_body_def, is_sensor); F(fxs_body_def, is_awake);
	S(fxs_filter); S(fxs_motion_locks); S(fxs_step_stats); F(fxs_step_stats, overflows_total); F(fxs_step_stats, awake_body_count);
	S(fxs_joint_def); F(fxs_joint_def, local_axis_a); F(fxs_joint_def, collide_connected); F(fxs_joint_def, hertz);
	F(fxs_joint_def, enable_limit); F(fxs_joint_def, lower); F(fxs_joint_def, enable_motor); F(fxs_joint_def, motor_speed);
	F(fxs_joint_def, length); F(fxs_joint_def, enable_spring); F(fxs_joint_def, spring_hertz); F(fxs_joint_def, spring_damping_ratio);
	F(fxs_joint_def, enable_cone); F(fxs_joint_def, cone_angle); F(fxs_joint_def, local_spin_axis_a); F(fxs_joint_def, steering_angle);
	F(fxs_joint_def, linear_offset); F(fxs_joint_def, angular_offset); F(fxs_joint_def, max_motor_torque); F(fxs_joint_def, correction_factor);
	S(fxs_cast_hit); S(fxs_query_filter);
	S(fxs_contact_begin_event); S(fxs_contact_end_event); S(fxs_contact_hit_event); S(fxs_sensor_event);
	S(fxs_contact_events); F(fxs_contact_events, begin_count); S(fxs_sensor_events); F(fxs_sensor_events, begin_count);
	S(fxs_contact_data); F(fxs_contact_data, points); F(fxs_contact_data, normal_impulses);
	S(fxs_debug_draw); F(fxs_debug_draw, context); F(fxs_debug_draw, bounds); F(fxs_debug_draw, use_bounds);
	F(fxs_debug_draw, draw_disabled);
	S(fxs_replay_expect); F(fxs_replay_expect, has_hash); F(fxs_replay_expect, hash);
	F(fxs_replay_expect, modes); F(fxs_replay_expect, players); F(fxs_replay_expect, allowed_calls); F(fxs_replay_expect, allowed_call_count);
	S(fxs_replay_verify_result); F(fxs_replay_verify_result, ticks); F(fxs_replay_verify_result, final_hash);
	F(fxs_replay_verify_result, message);
	S(fxs_replay_writer); F(fxs_replay_writer, calls_world); F(fxs_replay_writer, header_checksum); F(fxs_replay_writer, chunk_index);
	F(fxs_replay_writer, payload); F(fxs_replay_writer, prev); F(fxs_replay_writer, failed); F(fxs_replay_writer, error);
	S(fxs_state_diff); F(fxs_state_diff, body); F(fxs_state_diff, field); F(fxs_state_diff, got);
	S(fxs_session_callbacks); F(fxs_session_callbacks, format);
	S(fxs_session_world); F(fxs_session_world, ctx); F(fxs_session_world, failed); F(fxs_session_world, failed_tick);
	S(fxs_compound_child); F(fxs_compound_child, xf);
	S(fxs_character_def); F(fxs_character_def, radius); F(fxs_character_def, jump_speed); F(fxs_character_def, density);
	S(fxs_session_config); F(fxs_session_config, input_size); F(fxs_session_config, mode); F(fxs_session_config, game);
	F(fxs_session_config, input); F(fxs_session_config, desync_dir); F(fxs_session_config, key); F(fxs_session_config, pair_keys);
	F(fxs_session_config, seq_window); F(fxs_session_config, absent_ms); F(fxs_session_config, join);
	F(fxs_session_config, interrupt_ms);
	return n;
}
