/* The public API on NULL worlds, null and stale ids: nothing crashes (run
 * under `make sanitize` too), everything returns what its header says. And
 * why things fail: the definition's bad field, the creators' last error. */
#include "fixstep/character.h"
#include "fixstep/debug_draw.h"
#include "fixstep/input.h"
#include "fixstep/sphere_walls.h"
#include "game_util.h"
#include "test.h"

TEST(null_world_never_crashes)
{
	fxs_world *w = NULL;
	const fxs_body_id id = { 1, 0 };
	const fxs_joint_id jid = { 1, 0 };
	fxg_vec3 z = fxg_v3_zero();
	CHECK(fxs_world_step(w) == FXS_ERR_INVALID_ID);
	CHECK(fxs_world_status(w) == FXS_ERR_INVALID_ID);
	CHECK(fxs_world_hash(w) == 0 && fxs_world_rehash(w) == 0 && fxs_world_get_step(w) == 0);
	CHECK(fxs_world_get_stats(w).body_count == 0);
	CHECK(fxs_world_get_def(w).dt == fxs_default_world_def().dt);
	CHECK(fxs_world_get_last_error(w) == FXS_ERR_INVALID_ID && fxs_world_get_last_error_message(w)[0]);
	CHECK(fxs_world_set_gravity(w, z) == FXS_ERR_INVALID_ID);
	CHECK(fxs_world_set_contact_tuning(w, FXG_ONE, FXG_ONE, FXG_ONE) == FXS_ERR_INVALID_ID);
	CHECK(fxs_world_set_hit_event_threshold(w, 0) == FXS_ERR_INVALID_ID);
	CHECK(fxs_world_set_restitution_threshold(w, 0) == FXS_ERR_INVALID_ID);
	CHECK(fxs_world_enable_sleeping(w, true) == FXS_ERR_INVALID_ID);
	CHECK(fxs_world_slot_count(w) == 0 && fxs_world_body_count(w) == 0 && fxs_world_body_at(w, 0).index1 == 0);
	CHECK(fxs_world_snapshot_size(w) == 0 && fxs_world_serialize_state(w, NULL, 0) == 0);
	CHECK(fxs_world_snapshot_save(w, NULL, 0, NULL) == FXS_ERR_INVALID_ID);
	CHECK(fxs_world_snapshot_restore(w, NULL, 0) == FXS_ERR_INVALID_ID);
	fxs_world_set_kernels(w, FXS_KERNELS_PORTABLE);
	fxs_world_get_kernels(w);
	fxs_body_def bd = fxs_default_body_def();
	CHECK(fxs_body_create(w, &bd).index1 == 0);
	CHECK(!fxs_body_destroy(w, id) && !fxs_body_is_valid(w, id));
	fxs_body_set_transform(w, id, z, fxg_q_identity());
	fxs_body_set_linear_velocity(w, id, z);
	fxs_body_set_angular_velocity(w, id, z);
	fxs_body_apply_force(w, id, z, z);
	fxs_body_apply_force_to_center(w, id, z);
	fxs_body_apply_torque(w, id, z);
	fxs_body_apply_linear_impulse(w, id, z, z);
	fxs_body_apply_angular_impulse(w, id, z);
	fxg_wide in[6] = { 1, 1, 1, 1, 1, 1 };
	fxs_body_get_inertia(w, id, in);
	fxs_body_get_inertia_tensor(w, id, in);
	fxs_body_get_inertia(w, id, NULL);
	CHECK(in[0] == 0 && fxs_body_get_mass(w, id) == 0 && fxs_body_hash(w, id) == 0);
	CHECK(fxs_body_get_position(w, id).x == 0 && fxs_body_get_type(w, id) == FXS_BODY_STATIC);
	CHECK(fxs_body_get_shape(w, id).radius == 0 && fxs_body_get_user_data(w, id) == 0);
	CHECK(fxs_body_set_awake(w, id, true) == FXS_ERR_INVALID_ID && !fxs_body_is_awake(w, id));
	CHECK(fxs_body_disable(w, id) == FXS_ERR_INVALID_ID && fxs_body_enable(w, id) == FXS_ERR_INVALID_ID);
	CHECK(!fxs_body_is_enabled(w, id) && !fxs_body_is_sensor(w, id));
	CHECK(fxs_body_set_type(w, id, FXS_BODY_DYNAMIC) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_set_friction(w, id, 0) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_set_restitution(w, id, 0) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_set_density(w, id, FXG_ONE) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_set_mass_data(w, id, FXG_WIDE_ONE, in) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_set_gravity_scale(w, id, 0) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_set_damping(w, id, 0, 0) == FXS_ERR_INVALID_ID);
	fxs_motion_locks ml = fxs_body_get_motion_locks(w, id);
	CHECK(fxs_body_set_motion_locks(w, id, ml) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_set_filter(w, id, fxs_default_filter()) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_get_filter(w, id).category_bits == 1);
	CHECK(fxs_body_enable_contact_events(w, id, true) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_enable_hit_events(w, id, true) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_enable_sensor_events(w, id, true) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_get_point_velocity(w, id, z).x == 0 && fxs_body_get_aabb(w, id).hi.x == 0);
	CHECK(fxs_body_get_friction(w, id) == 0 && fxs_body_get_gravity_scale(w, id) == 0);
	CHECK(fxs_body_get_contacts(w, id, NULL, 0) == 0 && fxs_sensor_get_overlaps(w, id, NULL, 0) == 0);
	CHECK(fxs_world_get_contact_events(w).begin_count == 0 && fxs_world_get_sensor_events(w).end_count == 0);
	fxs_aabb box = { z, z };
	CHECK(fxs_world_overlap_aabb(w, box, NULL, NULL, 0) == 0);
	fxs_cast_hit hit;
	CHECK(!fxs_world_ray_cast(w, z, fxg_v3(FXG_ONE, 0, 0), id, &hit));
	CHECK(!fxs_world_shape_cast(w, &bd.shape, fxg_q_identity(), z, fxg_v3(FXG_ONE, 0, 0), id, &hit));
	fxs_transform xf = { z, fxg_q_identity() };
	CHECK(fxs_world_overlap_shape(w, &bd.shape, &xf, NULL, NULL, 0) == 0);
	fxs_debug_draw dd = fxs_default_debug_draw();
	fxs_world_draw(w, &dd);
	fxs_joint_def jd = fxs_default_ball_joint_def();
	CHECK(fxs_joint_create(w, &jd).index1 == 0 && !fxs_joint_destroy(w, jid) && !fxs_joint_is_valid(w, jid));
	CHECK(fxs_world_joint_count(w) == 0 && fxs_world_joint_slot_count(w) == 0 && fxs_world_joint_at(w, 0).index1 == 0);
	CHECK(fxs_joint_get_position(w, jid) == 0 && fxs_joint_get_body_a(w, jid).index1 == 0);
	fxs_joint_set_motor(w, jid, true, 0, 0);
	CHECK(fxs_world_create_mesh(w, NULL, 0, NULL, 0, 0) == 0 && fxs_world_mesh_count(w) == 0);
	CHECK(fxs_world_create_heightfield(w, NULL, 0, 0, 0, 0) == 0);
	CHECK(fxs_world_create_hull(w, NULL, 0, NULL) == 0 && fxs_world_hull_count(w) == 0);
	CHECK(fxs_hull_vertex_count(w, 1) == 0 && fxs_hull_get_vertices(w, 1, NULL, 0) == 0);
	CHECK(fxs_world_create_compound(w, NULL, 0, NULL) == 0 && fxs_world_compound_count(w) == 0);
	CHECK(fxs_mesh_shape(w, 1).mesh == NULL && fxs_hull_shape(w, 1).hull == NULL);
	CHECK(fxs_compound_shape(w, 1).compound == NULL);
	fxs_character_def cd = fxs_default_character_def();
	CHECK(fxs_character_create(w, &cd) == 0 && !fxs_character_destroy(w, 1));
	fxs_character_set_move(w, 1, z, true);
	CHECK(fxs_character_get_body(w, 1).index1 == 0 && !fxs_character_is_grounded(w, 1));
	CHECK(fxs_character_get_position(w, 1).x == 0 && fxs_character_get_ground(w, 1).index1 == 0);
	CHECK(fxs_world_character_count(w) == 0);
	fxs_sphere_walls_def sw = fxs_default_sphere_walls_def();
	CHECK(fxs_sphere_walls_build(w, id, &sw, NULL, 0, NULL) == UINT32_MAX);
	fxs_world_destroy(w);
	fxs_result err = FXS_OK;
	CHECK(fxs_world_create_from_snapshot(NULL, 10, &err) == NULL && err != FXS_OK);
	CHECK(fxs_world_create(NULL) == NULL);
	CHECK(!fxs_input_equal(NULL, &(fxs_input){ 0, 0, 0, 0, 0 }));
}

TEST(stale_ids_never_crash)
{
	fxs_world *w = game_world();
	fxs_body_def bd = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3_zero(), FXG_HALF);
	fxs_body_id a = fxs_body_create(w, &bd), b = fxs_body_create(w, &bd);
	fxs_joint_def jd = fxs_default_ball_joint_def();
	jd.body_a = a, jd.body_b = b;
	fxs_joint_id j = fxs_joint_create(w, &jd);
	CHECK(fxs_joint_is_valid(w, j));
	CHECK(fxs_body_destroy(w, a));
	CHECK(!fxs_joint_is_valid(w, j));            /* went with its body */
	fxs_body_id again = fxs_body_create(w, &bd); /* the same slot, a new generation */
	CHECK(again.index1 == a.index1 && fxs_body_is_valid(w, again) && !fxs_body_is_valid(w, a));
	CHECK(fxs_body_set_type(w, a, FXS_BODY_STATIC) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_disable(w, a) == FXS_ERR_INVALID_ID && fxs_body_is_enabled(w, again));
	CHECK(fxs_body_set_filter(w, a, fxs_default_filter()) == FXS_ERR_INVALID_ID);
	CHECK(!fxs_body_destroy(w, a));
	const fxs_body_id far = { 1000, 0 };
	CHECK(fxs_body_set_awake(w, far, false) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_get_contacts(w, far, NULL, 0) == 0);
	fxs_body_set_linear_velocity(w, a, fxg_v3(FXG_ONE, 0, 0));
	CHECK(fxs_body_get_linear_velocity(w, again).x == 0);
	fxs_joint_set_motor(w, j, true, FXG_ONE, FXG_ONE);
	CHECK(fxs_world_step(w) == FXS_OK);
	fxs_world_destroy(w);
}

TEST(failures_say_why)
{
	fxs_world_def d = fxs_default_world_def();
	CHECK(fxs_world_def_invalid_field(&d) == NULL && fxs_world_def_validate(&d) == FXS_OK);
	d.substeps = 0;
	CHECK(strcmp(fxs_world_def_invalid_field(&d), "substeps") == 0);
	CHECK(fxs_world_def_validate(&d) == FXS_ERR_INVALID_ARGUMENT && fxs_world_create(&d) == NULL);
	d = fxs_default_world_def();
	d.gravity.y = -FXG_I(2000);
	CHECK(strcmp(fxs_world_def_invalid_field(&d), "gravity.y") == 0);
	d = fxs_default_world_def();
	d.hit_event_threshold = -1;
	CHECK(strcmp(fxs_world_def_invalid_field(&d), "hit_event_threshold") == 0);
	CHECK(strcmp(fxs_world_def_invalid_field(NULL), "def") == 0);

	fxs_world *w = game_world();
	CHECK(fxs_world_get_last_error(w) == FXS_OK);
	fxs_body_def bd = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3_zero(), FXG_HALF);
	bd.friction = -FXG_ONE;
	CHECK(fxs_body_create(w, &bd).index1 == 0);
	CHECK(fxs_world_get_last_error(w) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(strstr(fxs_world_get_last_error_message(w), "friction") != NULL);
	bd.friction = 0;
	bd.shape.type = FXS_SHAPE_HULL;
	bd.shape.radius = 0;
	bd.shape.hull_id = 9;
	CHECK(fxs_body_create(w, &bd).index1 == 0 && fxs_world_get_last_error(w) == FXS_ERR_INVALID_ID);
	CHECK(strstr(fxs_world_get_last_error_message(w), "hull_id") != NULL);
	bd = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3_zero(), FXG_HALF);
	fxs_body_id ok = fxs_body_create(w, &bd);
	CHECK(ok.index1 != 0 && fxs_world_get_last_error(w) == FXS_OK && fxs_world_get_last_error_message(w)[0] == 0);
	fxs_joint_def jd = fxs_default_hinge_joint_def();
	jd.body_a = jd.body_b = ok;
	CHECK(fxs_joint_create(w, &jd).index1 == 0 && strstr(fxs_world_get_last_error_message(w), "same body"));
	const fxg_vec3 flat[4] = { fxg_v3(0, 0, 0), fxg_v3(FXG_ONE, 0, 0), fxg_v3(0, 0, FXG_ONE), fxg_v3(FXG_ONE, 0, FXG_ONE) };
	CHECK(fxs_world_create_hull(w, flat, 4, NULL) == 0 && strstr(fxs_world_get_last_error_message(w), "flat"));
	fxs_character_def cd = fxs_default_character_def();
	cd.radius = 0;
	CHECK(fxs_character_create(w, &cd) == 0 && strstr(fxs_world_get_last_error_message(w), "radius"));
	fxs_world_def small = fxs_default_world_def();
	small.max_bodies = 1;
	fxs_world *s = fxs_world_create(&small);
	CHECK(fxs_body_create(s, &bd).index1 != 0 && fxs_body_create(s, &bd).index1 == 0);
	CHECK(fxs_world_get_last_error(s) == FXS_ERR_LIMIT && strstr(fxs_world_get_last_error_message(s), "max_bodies"));
	CHECK(strcmp(fxs_result_string(FXS_ERR_INVALID_ID), "unknown error") != 0);
	fxs_world_destroy(s);
	fxs_world_destroy(w);
}
