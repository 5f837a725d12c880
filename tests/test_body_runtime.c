/* What a game changes while the world runs: each change against the
 * closed form where there is one, each in the hash, and each the same
 * after a snapshot round trip. */
#include <math.h>

#include "game_util.h"
#include "test.h"

/* The free-fall recurrence of tests/test_world.c for gravity g (raw): the
 * position after `steps` steps from rest at y0. */
static int64_t fall(int64_t y0, int64_t g, int steps)
{
	const int64_t h = 1092 / 4;
	int64_t v = 0, y = y0;
	for (int s = 0; s < steps * 4; ++s) {
		v += (h * g + (h * g < 0 ? -0x8000 : 0x8000)) / 65536;
		int64_t p = h * v;
		y += (p + 0x8000 - (p < 0)) >> 16;
	}
	return y;
}

TEST(gravity_scale_and_world_gravity_follow_the_closed_form)
{
	fxs_world *w = game_world();
	fxs_body_def d = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3(0, FXG_I(100), 0), FXG_HALF);
	fxs_body_id a = fxs_body_create(w, &d);
	d.position.x = FXG_I(5);
	fxs_body_id b = fxs_body_create(w, &d);
	CHECK(fxs_body_set_gravity_scale(w, b, 2 * FXG_ONE) == FXS_OK);
	CHECK(fxs_body_get_gravity_scale(w, b) == 2 * FXG_ONE);
	CHECK(fxs_body_set_gravity_scale(w, b, FXG_I(101)) == FXS_ERR_INVALID_ARGUMENT);
	for (int s = 0; s < 30; ++s)
		fxs_world_step(w);
	CHECK(fxs_body_get_position(w, a).y == fall(FXG_I(100), -FXG_I(10), 30));
	CHECK(fxs_body_get_position(w, b).y == fall(FXG_I(100), -FXG_I(20), 30));
	/* gravity changed mid-flight: the recurrence with the new g from here */
	CHECK(fxs_world_set_gravity(w, fxg_v3(0, -FXG_I(4), 0)) == FXS_OK);
	CHECK(fxs_world_set_gravity(w, fxg_v3(0, -FXG_I(1001), 0)) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(fxs_world_get_gravity(w).y == -FXG_I(4));
	fxs_body_set_linear_velocity(w, a, fxg_v3_zero());
	fxs_body_set_transform(w, a, fxg_v3(0, FXG_I(100), 0), fxg_q_identity());
	for (int s = 0; s < 20; ++s)
		fxs_world_step(w);
	CHECK(fxs_body_get_position(w, a).y == fall(FXG_I(100), -FXG_I(4), 20));
	fxs_world_destroy(w);
}

TEST(sleep_wake_and_enable_disable)
{
	fxs_world *w = game_world();
	game_ground(w);
	fxs_body_def d = game_box_def(FXS_BODY_DYNAMIC, fxg_v3(0, FXG_HALF, 0), fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF));
	fxs_body_id low = fxs_body_create(w, &d);
	d.position.y = FXG_ONE + FXG_HALF;
	fxs_body_id top = fxs_body_create(w, &d);
	d.position = fxg_v3(FXG_I(5), FXG_I(10), 0);
	fxs_body_id flyer = fxs_body_create(w, &d);
	for (int s = 0; s < 5; ++s)
		fxs_world_step(w);
	/* to sleep: the whole island (the stack), velocities zeroed */
	CHECK(fxs_body_set_awake(w, top, false) == FXS_OK);
	CHECK(!fxs_body_is_awake(w, top) && !fxs_body_is_awake(w, low) && fxs_body_is_awake(w, flyer));
	uint64_t h = fxs_world_hash(w);
	fxg_vec3 p = fxs_body_get_position(w, top);
	fxs_world_step(w);
	CHECK(fxs_world_hash(w) != h);
	CHECK(!fxs_body_is_awake(w, top) && fxs_body_get_position(w, top).y == p.y);
	CHECK(fxs_body_set_awake(w, low, true) == FXS_OK && fxs_body_is_awake(w, low));
	fxs_world_step(w);
	CHECK(fxs_body_is_awake(w, top)); /* its island woke with it */
	/* a static body is neither */
	CHECK(fxs_body_set_awake(w, fxs_world_body_at(w, 0), false) == FXS_ERR_INVALID_ARGUMENT);
	/* disabled: no contacts, not moved, kept in its slot */
	fxg_vec3 fp = fxs_body_get_position(w, flyer);
	CHECK(fxs_body_disable(w, flyer) == FXS_OK && !fxs_body_is_enabled(w, flyer));
	CHECK(fxs_body_disable(w, low) == FXS_OK);
	CHECK(fxs_body_get_contacts(w, low, NULL, 0) == 0);
	for (int s = 0; s < 30; ++s)
		fxs_world_step(w);
	CHECK(fxs_body_is_valid(w, flyer) && fxs_body_get_position(w, flyer).y == fp.y);
	CHECK(fxs_body_get_position(w, low).y == FXG_HALF || fxs_body_get_position(w, low).y > 0);
	/* the top box fell through the disabled one onto the ground */
	CHECK(fxs_body_get_position(w, top).y < FXG_HALF + FXG_ONE / 20);
	fxs_body_set_linear_velocity(w, flyer, fxg_v3(FXG_ONE, 0, 0)); /* does not wake a disabled body */
	CHECK(!fxs_body_is_awake(w, flyer));
	CHECK(fxs_body_enable(w, flyer) == FXS_OK && fxs_body_is_enabled(w, flyer) && fxs_body_is_awake(w, flyer));
	fxs_world_step(w);
	CHECK(fxs_body_get_position(w, flyer).y < fp.y); /* falling again */
	fxs_world_destroy(w);
}

TEST(type_materials_and_mass_data)
{
	fxs_world *w = game_world();
	game_ground(w);
	fxs_body_def d = game_box_def(FXS_BODY_STATIC, fxg_v3(0, FXG_I(3), 0), fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF));
	fxs_body_id b = fxs_body_create(w, &d);
	fxs_world_step(w);
	CHECK(fxs_body_get_position(w, b).y == FXG_I(3));
	CHECK(fxs_body_set_type(w, b, FXS_BODY_DYNAMIC) == FXS_OK);
	CHECK(fxs_body_get_type(w, b) == FXS_BODY_DYNAMIC);
	CHECK(fxs_body_get_mass(w, b) == (fxg_wide)1000 << 32); /* 1 m^3 at 1000 kg/m^3 */
	for (int s = 0; s < 10; ++s)
		fxs_world_step(w);
	CHECK(fxs_body_get_position(w, b).y < FXG_I(3));
	CHECK(fxs_body_set_type(w, b, (fxs_body_type)7) == FXS_ERR_INVALID_ARGUMENT);
	/* density: mass recomputed (and an override ended) */
	CHECK(fxs_body_set_density(w, b, FXG_I(500)) == FXS_OK);
	CHECK(fxs_body_get_mass(w, b) == (fxg_wide)500 << 32 && fxs_body_get_density(w, b) == FXG_I(500));
	fxg_wide in[3] = { (fxg_wide)2 << 32, (fxg_wide)3 << 32, (fxg_wide)4 << 32 };
	CHECK(fxs_body_set_mass_data(w, b, (fxg_wide)10 << 32, in) == FXS_OK);
	fxg_wide got[3];
	fxs_body_get_inertia(w, b, got);
	CHECK(fxs_body_get_mass(w, b) == (fxg_wide)10 << 32 && got[0] == in[0] && got[1] == in[1] && got[2] == in[2]);
	CHECK(fxs_body_get_inv_mass(w, b) == ((fxg_wide)1 << 32) / 10 ||
	      fxs_body_get_inv_mass(w, b) == ((fxg_wide)1 << 32) / 10 + 1);
	/* an impulse through the centre: dv = J / m exactly as set */
	fxs_body_set_linear_velocity(w, b, fxg_v3_zero());
	fxs_body_apply_linear_impulse(w, b, fxg_v3(FXG_I(20), 0, 0), fxs_body_get_position(w, b));
	CHECK(fxs_body_get_linear_velocity(w, b).x == FXG_I(2));
	fxg_wide bad[3] = { 0, 1, 1 };
	CHECK(fxs_body_set_mass_data(w, b, (fxg_wide)10 << 32, bad) == FXS_ERR_INVALID_ARGUMENT);
	/* the override is state: it survives a snapshot round trip */
	size_t len;
	void *snap = game_save(w, &len);
	fxs_world *r = fxs_world_create_from_snapshot(snap, len, NULL);
	CHECK(r && fxs_body_get_mass(r, b) == (fxg_wide)10 << 32 && fxs_world_hash(r) == fxs_world_hash(w));
	free(snap);
	fxs_world_destroy(r);
	CHECK(fxs_body_set_friction(w, b, FXG_I(2)) == FXS_OK && fxs_body_get_friction(w, b) == FXG_I(2));
	CHECK(fxs_body_set_friction(w, b, -1) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(fxs_body_set_restitution(w, b, FXG_HALF) == FXS_OK && fxs_body_get_restitution(w, b) == FXG_HALF);
	CHECK(fxs_body_set_restitution(w, b, FXG_ONE + 1) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(fxs_body_set_damping(w, b, FXG_ONE, FXG_ONE) == FXS_OK);
	/* a mesh body stays static */
	const fxg_vec3 v[3] = { fxg_v3(0, 0, 0), fxg_v3(FXG_ONE, 0, 0), fxg_v3(0, 0, FXG_ONE) };
	const uint32_t t[3] = { 0, 1, 2 };
	fxs_body_def md = fxs_default_body_def();
	md.type = FXS_BODY_STATIC;
	md.shape = fxs_mesh_shape(w, fxs_world_create_mesh(w, v, 3, t, 1, FXG_HALF));
	fxs_body_id mesh = fxs_body_create(w, &md);
	CHECK(fxs_body_set_type(w, mesh, FXS_BODY_DYNAMIC) == FXS_ERR_INVALID_ARGUMENT);
	fxs_world_destroy(w);
}

/* Restitution set at run time: a ball dropped onto the ground bounces back
 * to about e^2 of its height. */
TEST(restitution_set_at_run_time_bounces)
{
	fxs_world *w = game_world();
	fxs_body_id g = game_ground(w);
	fxs_body_def d = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3(0, FXG_I(5) + FXG_HALF, 0), FXG_HALF);
	fxs_body_id ball = fxs_body_create(w, &d);
	CHECK(fxs_body_set_restitution(w, ball, FXG_HALF) == FXS_OK);
	(void)g;
	fix16_t top = 0;
	bool bounced = false;
	for (int s = 0; s < 200; ++s) {
		fxs_world_step(w);
		fxg_vec3 v = fxs_body_get_linear_velocity(w, ball);
		if (v.y > 0)
			bounced = true;
		if (bounced && fxs_body_get_position(w, ball).y > top)
			top = fxs_body_get_position(w, ball).y;
	}
	double rise = (top - FXG_HALF) / 65536.0;
	printf("  restitution 0.5 from 5 m: rises %.3f m (e^2 h = 1.25 m)\n", rise);
	CHECK(bounced && fabs(rise - 1.25) < 0.1);
	fxs_world_destroy(w);
}

/* Motion locks: a capsule with its rotation locked, hit off its centre,
 * slides without turning (exactly: its rotation never changes); a box
 * locked in z (a 2.5D game's plane) keeps z to the bit while it tumbles
 * down a slope of boxes. */
TEST(motion_locks_hold_exactly)
{
	fxs_world *w = game_world();
	game_ground(w);
	fxs_body_def d = fxs_default_body_def();
	d.position = fxg_v3(0, FXG_I(1), 0);
	d.shape.type = FXS_SHAPE_CAPSULE;
	d.shape.radius = FXG_ONE / 3;
	d.shape.half_height = FXG_HALF;
	d.motion_locks.angular_x = d.motion_locks.angular_y = d.motion_locks.angular_z = true;
	fxs_body_id cap = fxs_body_create(w, &d);
	fxs_body_def bd = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3(-FXG_I(3), FXG_I(1) + FXG_HALF, FXG_ONE / 5), FXG_ONE / 4);
	bd.linear_velocity = fxg_v3(FXG_I(8), 0, 0);
	bd.density = FXG_I(3000);
	fxs_body_create(w, &bd);
	fxs_body_def zd = game_box_def(FXS_BODY_DYNAMIC, fxg_v3(FXG_I(6), FXG_I(2), FXG_ONE / 3), fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF));
	zd.rotation = (fxg_quat){ 12000, 8000, 20000, 60000 };
	zd.angular_velocity = fxg_v3(FXG_I(3), FXG_I(2), FXG_I(1));
	zd.motion_locks.linear_z = true;
	fxs_body_id zbox = fxs_body_create(w, &zd);
	fxs_motion_locks ml = fxs_body_get_motion_locks(w, zbox);
	CHECK(ml.linear_z && !ml.linear_x && !ml.angular_x);
	fxg_quat q0 = fxs_body_get_rotation(w, cap);
	fix16_t z0 = fxs_body_get_position(w, zbox).z;
	bool moved = false;
	for (int s = 0; s < 120; ++s) {
		fxs_world_step(w);
		fxg_quat q = fxs_body_get_rotation(w, cap);
		CHECKF(q.x == q0.x && q.y == q0.y && q.z == q0.z && q.w == q0.w, "step %d: the locked capsule turned", s);
		fxg_vec3 av = fxs_body_get_angular_velocity(w, cap);
		CHECK(av.x == 0 && av.y == 0 && av.z == 0);
		CHECK(fxs_body_get_position(w, zbox).z == z0 && fxs_body_get_linear_velocity(w, zbox).z == 0);
		moved |= fxs_body_get_position(w, cap).x > FXG_ONE / 10;
	}
	CHECK(moved); /* the ball hit it and it slid */
	/* a kinematic body takes no locks */
	fxs_body_def kd = game_box_def(FXS_BODY_KINEMATIC, fxg_v3(0, FXG_I(9), 0), fxg_v3(FXG_ONE, FXG_ONE, FXG_ONE));
	fxs_body_id kin = fxs_body_create(w, &kd);
	CHECK(fxs_body_set_motion_locks(w, kin, ml) == FXS_ERR_INVALID_ARGUMENT);
	fxs_world_destroy(w);
}

TEST(point_velocity_and_aabb_follow_the_closed_form)
{
	fxs_world *w = game_world_no_gravity();
	fxs_body_def d = game_box_def(FXS_BODY_DYNAMIC, fxg_v3(FXG_I(1), FXG_I(2), FXG_I(3)), fxg_v3(FXG_ONE, FXG_HALF, FXG_ONE / 4));
	d.linear_velocity = fxg_v3(FXG_ONE, 0, 0);
	d.angular_velocity = fxg_v3(0, 0, FXG_I(2));
	fxs_body_id b = fxs_body_create(w, &d);
	/* v + w x r with r = (0, 1, 0): (1, 0, 0) + (0, 0, 2) x (0, 1, 0) = (1 - 2, 0, 0) */
	fxg_vec3 v = fxs_body_get_point_velocity(w, b, fxg_v3(FXG_I(1), FXG_I(3), FXG_I(3)));
	CHECK(v.x == -FXG_ONE && v.y == 0 && v.z == 0);
	/* the bounds: exact but for the rotated extents' outward rounding (a few LSB) */
	fxs_aabb box = fxs_body_get_aabb(w, b);
	CHECK(box.lo.x <= 0 && box.lo.x > -4 && box.hi.x >= FXG_I(2) && box.hi.x < FXG_I(2) + 4);
	CHECK(box.lo.y <= FXG_I(2) - FXG_HALF && box.lo.y > FXG_I(2) - FXG_HALF - 4);
	CHECK(box.hi.z >= FXG_I(3) + FXG_ONE / 4 && box.hi.z < FXG_I(3) + FXG_ONE / 4 + 4);
	fxs_world_destroy(w);
}

/* World settings after creation are checked like a definition and are state. */
TEST(world_settings_are_checked_and_hashed)
{
	fxs_world *w = game_world();
	game_ground(w);
	uint64_t h = fxs_world_hash(w);
	CHECK(fxs_world_set_contact_tuning(w, 0, FXG_ONE, FXG_ONE) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(fxs_world_hash(w) == h);
	CHECK(fxs_world_set_contact_tuning(w, FXG_I(60), FXG_I(5), FXG_I(2)) == FXS_OK);
	CHECK(fxs_world_hash(w) != h);
	fxs_world_def d = fxs_world_get_def(w);
	CHECK(d.contact_hertz == FXG_I(60) && d.contact_damping == FXG_I(5) && d.contact_push_max == FXG_I(2));
	CHECK(fxs_world_set_restitution_threshold(w, -1) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(fxs_world_set_hit_event_threshold(w, FXG_I(3)) == FXS_OK);
	CHECK(fxs_world_get_def(w).hit_event_threshold == FXG_I(3));
	CHECK(fxs_world_enable_sleeping(w, false) == FXS_OK && !fxs_world_get_def(w).enable_sleep);
	size_t len;
	void *snap = game_save(w, &len);
	fxs_world *r = fxs_world_create_from_snapshot(snap, len, NULL);
	CHECK(r && fxs_world_get_def(r).hit_event_threshold == FXG_I(3) && fxs_world_hash(r) == fxs_world_hash(w));
	free(snap);
	fxs_world_destroy(r);
	fxs_world_destroy(w);
}

/* The movers (transform, velocities, forces, torques, impulses) return
 * their reason and change nothing on it: a NULL world or stale id is
 * FXS_ERR_INVALID_ID; a zero rotation, a velocity for a static body, a
 * force, torque or impulse for a body that is not dynamic are
 * FXS_ERR_INVALID_ARGUMENT, the world's hash unchanged. What they accept
 * does what it says: an impulse J changes v by J / m. */
TEST(body_movers_return_their_reason)
{
	fxs_world *w = game_world();
	fxs_body_def d = game_ball_def(FXS_BODY_STATIC, fxg_v3(0, 0, 0), FXG_ONE);
	fxs_body_id wall = fxs_body_create(w, &d);
	d = game_ball_def(FXS_BODY_KINEMATIC, fxg_v3(FXG_I(5), 0, 0), FXG_ONE);
	fxs_body_id lift = fxs_body_create(w, &d);
	d = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3(FXG_I(10), 0, 0), FXG_ONE);
	fxs_body_id ball = fxs_body_create(w, &d);
	fxs_body_id gone = fxs_body_create(w, &d);
	CHECK(fxs_body_destroy(w, gone));
	const fxg_vec3 one = fxg_v3(FXG_ONE, 0, 0), zero = fxg_v3_zero();
	const fxg_quat q0 = { 0, 0, 0, 0 };
	const fxs_body_id ids[2] = { gone, fxs_null_body };
	uint64_t h = fxs_world_hash(w);
	for (int i = 0; i < 2; ++i) {
		fxs_body_id id = ids[i];
		CHECK(fxs_body_set_transform(w, id, one, fxg_q_identity()) == FXS_ERR_INVALID_ID);
		CHECK(fxs_body_set_linear_velocity(w, id, one) == FXS_ERR_INVALID_ID);
		CHECK(fxs_body_set_angular_velocity(w, id, one) == FXS_ERR_INVALID_ID);
		CHECK(fxs_body_apply_force(w, id, one, zero) == FXS_ERR_INVALID_ID);
		CHECK(fxs_body_apply_force_to_center(w, id, one) == FXS_ERR_INVALID_ID);
		CHECK(fxs_body_apply_torque(w, id, one) == FXS_ERR_INVALID_ID);
		CHECK(fxs_body_apply_linear_impulse(w, id, one, zero) == FXS_ERR_INVALID_ID);
		CHECK(fxs_body_apply_angular_impulse(w, id, one) == FXS_ERR_INVALID_ID);
	}
	CHECK(fxs_body_set_transform(NULL, ball, one, fxg_q_identity()) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_apply_force_to_center(NULL, ball, one) == FXS_ERR_INVALID_ID);
	CHECK(fxs_body_set_transform(w, ball, one, q0) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(fxs_body_set_linear_velocity(w, wall, one) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(fxs_body_set_angular_velocity(w, wall, one) == FXS_ERR_INVALID_ARGUMENT);
	for (int i = 0; i < 2; ++i) {
		fxs_body_id id = i ? lift : wall;
		CHECK(fxs_body_apply_force(w, id, one, zero) == FXS_ERR_INVALID_ARGUMENT);
		CHECK(fxs_body_apply_force_to_center(w, id, one) == FXS_ERR_INVALID_ARGUMENT);
		CHECK(fxs_body_apply_torque(w, id, one) == FXS_ERR_INVALID_ARGUMENT);
		CHECK(fxs_body_apply_linear_impulse(w, id, one, zero) == FXS_ERR_INVALID_ARGUMENT);
		CHECK(fxs_body_apply_angular_impulse(w, id, one) == FXS_ERR_INVALID_ARGUMENT);
	}
	CHECKF(fxs_world_hash(w) == h, "a refused call changed the world");
	/* accepted: a static body moves where it is put, a kinematic one takes a velocity */
	CHECK(fxs_body_set_transform(w, wall, fxg_v3(0, FXG_I(-3), 0), fxg_q_identity()) == FXS_OK);
	CHECK(fxs_body_get_position(w, wall).y == FXG_I(-3));
	CHECK(fxs_body_set_linear_velocity(w, lift, one) == FXS_OK);
	CHECK(fxs_body_get_linear_velocity(w, lift).x == FXG_ONE);
	CHECK(fxs_body_set_angular_velocity(w, lift, one) == FXS_OK);
	CHECK(fxs_world_hash(w) != h);
	/* J = 10 N s on a 1 m ball of density 1000 (4188.79 kg) */
	fxg_vec3 p = fxs_body_get_position(w, ball);
	CHECK(fxs_body_apply_linear_impulse(w, ball, fxg_v3(FXG_I(10), 0, 0), p) == FXS_OK);
	double m = (double)fxs_body_get_mass(w, ball) / 4294967296.0;
	double v = fxs_body_get_linear_velocity(w, ball).x / 65536.0;
	CHECKF(fabs(v - 10.0 / m) <= 1.0 / 65536, "v %.6f, J / m %.6f", v, 10.0 / m);
	CHECK(fxs_body_apply_force(w, ball, one, p) == FXS_OK);
	CHECK(fxs_body_apply_force_to_center(w, ball, one) == FXS_OK);
	CHECK(fxs_body_apply_torque(w, ball, one) == FXS_OK);
	CHECK(fxs_body_apply_angular_impulse(w, ball, one) == FXS_OK);
	CHECK(fxs_body_set_linear_velocity(w, ball, zero) == FXS_OK);
	CHECK(fxs_body_set_angular_velocity(w, ball, zero) == FXS_OK);
	fxs_world_destroy(w);
}
