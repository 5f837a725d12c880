/* The motor joint: a 1 kg ball pulled towards a target 3 m away and turned
 * 1 rad by a motor joint of at most 2 N and 0.05 N m reaches its target,
 * and never accelerates faster than the bounds allow. */
#include <math.h>
#include <stdlib.h>

#include "fixstep/fixstep.h"
#include "test.h"

static double fx(fix16_t v) { return v / 65536.0; }
static double wide(fxg_wide v) { return (double)v / 4294967296.0; }
static fix16_t tofx(double v) { return (fix16_t)lround(v * 65536.0); }
static fxg_vec3 v3(double x, double y, double z) { return fxg_v3(tofx(x), tofx(y), tofx(z)); }

/* A static anchor at the origin, a free ball of 1 kg (radius 0.5, no
 * gravity) at (0, 0, 0) driven to (3, 0, 0) and to a turn of 1 rad about y.
 * Every step |dv| <= Fmax / m dt and |dw| <= Tmax / I dt (within 1%); after
 * 10 s it is within 1 cm and 1 degree of the target. The target then moves
 * (fxs_joint_set_motor_target) and the ball follows. */
TEST(joint_motor_reaches_its_target_within_its_bounds)
{
	fxs_world_def wd = fxs_default_world_def();
	wd.gravity = fxg_v3_zero();
	wd.enable_sleep = false;
	fxs_world *w = fxs_world_create(&wd);
	fxs_body_def sd = fxs_default_body_def();
	sd.type = FXS_BODY_STATIC;
	sd.position = v3(0, 0, -5);
	sd.shape.radius = tofx(0.1);
	fxs_body_id a = fxs_body_create(w, &sd);
	fxs_body_def bd = fxs_default_body_def();
	bd.shape.radius = tofx(0.5);
	bd.density = tofx(1 / (4.0 / 3 * 3.14159265358979 * 0.125));
	fxs_body_id b = fxs_body_create(w, &bd);
	double m = wide(fxs_body_get_mass(w, b));
	fxg_wide I3[3];
	fxs_body_get_inertia(w, b, I3);
	double I = wide(I3[1]);
	const double F = 2, T = 0.05, dt = 1.0 / 60;
	fxs_joint_def d = fxs_default_motor_joint_def();
	d.body_a = a;
	d.body_b = b;
	d.linear_offset = v3(3, 0, 5); /* from a's centre */
	d.angular_offset = fxg_q(0, tofx(sin(0.5)), 0, tofx(cos(0.5)));
	d.max_motor_force = tofx(F);
	d.max_motor_torque = tofx(T);
	fxs_joint_id j = fxs_joint_create(w, &d);
	CHECK(fxs_joint_is_valid(w, j));
	double worst_a = 0, worst_al = 0;
	fxg_vec3 v0 = fxs_body_get_linear_velocity(w, b), w0 = fxs_body_get_angular_velocity(w, b);
	for (int i = 0; i < 600; ++i) {
		fxs_world_step(w);
		fxg_vec3 v1 = fxs_body_get_linear_velocity(w, b), w1 = fxs_body_get_angular_velocity(w, b);
		double dv = hypot(hypot(fx(v1.x) - fx(v0.x), fx(v1.y) - fx(v0.y)), fx(v1.z) - fx(v0.z));
		double dw = hypot(hypot(fx(w1.x) - fx(w0.x), fx(w1.y) - fx(w0.y)), fx(w1.z) - fx(w0.z));
		worst_a = fmax(worst_a, dv / dt);
		worst_al = fmax(worst_al, dw / dt);
		v0 = v1, w0 = w1;
	}
	fxg_vec3 p = fxs_body_get_position(w, b);
	fxg_quat q = fxs_body_get_rotation(w, b);
	double off = hypot(hypot(fx(p.x) - 3, fx(p.y)), fx(p.z)), angle = 2 * atan2(fx(q.y), fx(q.w));
	printf("  motor joint: m %.3f kg, I %.4f kg m^2; at 10 s %.2f mm and %.3f deg off; worst acceleration %.4f m/s^2 "
	       "(F/m %.4f), angular %.4f rad/s^2 (T/I %.4f)\n",
	       m, I, off * 1000, (angle - 1) * 180 / 3.14159265358979, worst_a, F / m, worst_al, T / I);
	CHECKF(off < 0.01 && fabs(angle - 1) < 1 * 3.14159265358979 / 180, "%.4f m, %.4f rad off", off, angle - 1);
	CHECKF(worst_a <= F / m * 1.01, "acceleration %.4f > F/m %.4f", worst_a, F / m);
	CHECKF(worst_al <= T / I * 1.01, "angular acceleration %.4f > T/I %.4f", worst_al, T / I);
	CHECKF(worst_a > F / m * 0.9, "the bound was reached: %.4f", worst_a); /* the test tests the bound */
	/* a new target; refused: a zero rotation, an offset beyond 1000 m, a joint that is not a motor */
	CHECK(fxs_joint_set_motor_target(w, j, v3(0, 1, 5), fxg_q_identity()) == FXS_OK);
	CHECK(fxs_joint_set_motor_target(w, j, v3(0, 1, 5), fxg_q(0, 0, 0, 0)) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(fxs_joint_set_motor_target(w, j, v3(2000, 0, 0), fxg_q_identity()) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(fxs_joint_set_motor_target(w, fxs_null_joint, v3(0, 0, 0), fxg_q_identity()) == FXS_ERR_INVALID_ID);
	for (int i = 0; i < 600; ++i)
		fxs_world_step(w);
	p = fxs_body_get_position(w, b);
	off = hypot(hypot(fx(p.x), fx(p.y) - 1), fx(p.z));
	printf("  moved target: %.2f mm off\n", off * 1000);
	CHECK(off < 0.01);
	/* snapshot round trip with the joint mid-way */
	size_t len = fxs_world_snapshot_size(w);
	void *snap = malloc(len);
	CHECK(snap && fxs_world_snapshot_save(w, snap, len, &len) == FXS_OK);
	fxs_result err;
	fxs_world *r = fxs_world_create_from_snapshot(snap, len, &err);
	CHECK(r && fxs_world_hash(r) == fxs_world_hash(w));
	CHECK(fxs_joint_set_motor_target(r, j, v3(1, 1, 5), fxg_q_identity()) == FXS_OK);
	CHECK(fxs_joint_set_motor_target(w, j, v3(1, 1, 5), fxg_q_identity()) == FXS_OK);
	for (int i = 0; i < 30; ++i) {
		fxs_world_step(w);
		fxs_world_step(r);
		CHECK(fxs_world_hash(w) == fxs_world_hash(r));
	}
	free(snap);
	fxs_world_destroy(r);
	fxs_world_destroy(w);
}
