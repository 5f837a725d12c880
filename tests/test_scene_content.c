/* The content scenes stay sane: the ragdolls' limits hold within 2
 * degrees at rest at the foot of the stairs, and the cars stay on the
 * ground, upright, at their drive speed, the steered ones turning and the
 * first one up its ramp. */
#include <math.h>
#include <stdlib.h>

#include "fixstep/fixstep.h"
#include "fixstep/joint.h"
#include "scenes/scenes.h"
#include "test.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180)

static double fx(fix16_t v) { return v / 65536.0; }

static fxs_world *run(const char *name, int steps)
{
	const fxs_scene *s = fxs_scene_find(name);
	if (!s)
		return NULL;
	fxs_world *w = s->create();
	for (int i = 0; i < steps; ++i)
		if (fxs_world_step(w) != FXS_OK) {
			fxs_world_destroy(w);
			return NULL;
		}
	return w;
}

/* joint k's excess over its limits, degrees */
static double excess(const fxs_world *w, fxs_joint_id j, const fxs_joint_def *lim)
{
	double t = fx(fxs_joint_get_position(w, j)) / DEG;
	double lo = fx(lim->lower) / DEG, hi = fx(lim->upper) / DEG;
	double e = t < lo ? lo - t : (t > hi ? t - hi : 0);
	if (fxs_joint_get_type(w, j) == FXS_JOINT_SPHERICAL) {
		double s = fx(fxs_joint_get_swing_angle(w, j)) / DEG - fx(lim->cone_angle) / DEG;
		e = s > e ? s : e;
	}
	return e;
}

/* After 15 s the four ragdolls lie still, every body
 * within the floor's bounds and above it, every limit within 2 degrees.
 * The limits are those of ragdoll.c's table, read back by joint order:
 * neck and waist, shoulders, elbows, hips, knees. */
TEST(scene_ragdoll_keeps_its_limits_at_rest)
{
	static const double lim[10][3] = { /* cone, lower, upper (degrees) */
		{ 25, -20, 20 }, { 40, -45, 45 }, { 80, -45, 45 }, { 80, -45, 45 }, { 0, 0, 130 },
		{ 0, 0, 130 },   { 60, -30, 30 }, { 60, -30, 30 }, { 0, -130, 0 }, { 0, -130, 0 },
	};
	fxs_world *w = run("ragdoll", 900);
	CHECK(w);
	CHECK(fxs_world_joint_count(w) == 40);
	double worst = 0, fastest = 0, lowest = 1e9;
	for (uint32_t k = 0; k < 40; ++k) {
		fxs_joint_id j = fxs_world_joint_at(w, k);
		fxs_joint_def d = fxs_default_spherical_joint_def();
		d.cone_angle = (fix16_t)lround(lim[k % 10][0] * DEG * 65536);
		d.lower = (fix16_t)lround(lim[k % 10][1] * DEG * 65536);
		d.upper = (fix16_t)lround(lim[k % 10][2] * DEG * 65536);
		double e = excess(w, j, &d);
		if (e > 0.5)
			printf("  joint %u: %.3f deg beyond (twist or hinge %.2f deg, swing %.2f deg)\n", k, e,
			       fx(fxs_joint_get_position(w, j)) / DEG, fx(fxs_joint_get_swing_angle(w, j)) / DEG);
		worst = e > worst ? e : worst;
	}
	for (uint32_t s = 0; s < fxs_world_slot_count(w); ++s) {
		fxs_body_id b = fxs_world_body_at(w, s);
		if (fxs_body_get_type(w, b) != FXS_BODY_DYNAMIC)
			continue;
		fxg_vec3 p = fxs_body_get_position(w, b), v = fxs_body_get_linear_velocity(w, b);
		double sp = sqrt(fx(v.x) * fx(v.x) + fx(v.y) * fx(v.y) + fx(v.z) * fx(v.z));
		fastest = sp > fastest ? sp : fastest;
		lowest = fx(p.y) < lowest ? fx(p.y) : lowest;
		CHECKF(fabs(fx(p.x)) < 20 && fabs(fx(p.z)) < 20 && fx(p.y) > 0 && fx(p.y) < 2.5, "body %u at %.2f %.2f %.2f",
		       s, fx(p.x), fx(p.y), fx(p.z));
	}
	printf("  ragdoll after 15 s: worst limit excess %.3f deg, fastest body %.4f m/s, lowest centre %.3f m\n", worst,
	       fastest, lowest);
	CHECKF(worst < 2, "a limit is %.3f deg beyond", worst);
	CHECKF(fastest < 0.01, "still moving at %.4f m/s", fastest);
	fxs_world_destroy(w);
}

/* After 10 s each car is on the ground and upright (its y axis within 20
 * degrees of up, but the ramp's), at its drive speed 8 rad/s x 0.35 m =
 * 2.8 m/s within 10% (but the one on its ramp), the two steered ones turned by more than 45 degrees
 * and the first one up its ramp. */
TEST(scene_vehicle_cars_drive_and_stay_upright)
{
	fxs_world *w = run("vehicle", 600);
	CHECK(w);
	uint32_t ovf = 0;
	for (int car = 0; car < 4; ++car) {
		fxs_body_id ch = fxs_joint_get_body_a(w, fxs_world_joint_at(w, 4 * (uint32_t)car));
		fxg_vec3 p = fxs_body_get_position(w, ch), v = fxs_body_get_linear_velocity(w, ch);
		fxg_quat q = fxs_body_get_rotation(w, ch);
		fxg_vec3 up = fxg_q_rotate(q, fxg_v3(0, FXG_ONE, 0), &ovf), fwd = fxg_q_rotate(q, fxg_v3(0, 0, FXG_ONE), &ovf);
		double speed = sqrt(fx(v.x) * fx(v.x) + fx(v.z) * fx(v.z));
		double heading = atan2(fx(fwd.x), fx(fwd.z)) / DEG;
		printf("  car %d: at (%.2f, %.3f, %.2f), up.y %.4f, speed %.3f m/s, heading %.1f deg\n", car, fx(p.x),
		       fx(p.y), fx(p.z), fx(up.y), speed, heading);
		CHECKF(fx(p.y) > 0.3 && fx(p.y) < 2.5, "car %d at height %.3f", car, fx(p.y));
		CHECKF(fx(up.y) > cos(20 * DEG), "car %d tilted: up.y %.4f", car, fx(up.y));
		if (car != 0) /* car 0 is climbing its ramp, slower */
			CHECKF(fabs(speed - 2.8) < 0.28, "car %d at %.3f m/s", car, speed);
		if (car == 1 || car == 2)
			CHECKF(fabs(heading) > 45, "car %d heading %.1f", car, heading);
		if (car == 0)
			CHECKF(fx(p.y) > 0.9 + 0.3, "car 0 not up its ramp: y %.3f", fx(p.y));
	}
	fxs_world_destroy(w);
}
