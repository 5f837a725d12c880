/* vehicle: four cars, each a box chassis (2 x 0.5 x 4 m, 1000 kg) on four
 * wheel joints (suspension along the chassis' y at 2 Hz, travel -0.1 to
 * 0.3 m) with cylinder wheels (radius 0.35 m, rolling resistance 0.02),
 * rear-wheel drive at 8 rad/s (600 N m), the front wheels steered: one
 * drives straight up a 10-degree ramp, one over two speed bumps, two turn
 * circles away from each other. Player p drives car p (players 1 to 4): the stick's forward
 * axis adds up to 10 rad/s to the drive, its side axis steers up to 0.4
 * rad; a centred stick changes nothing. */
#include "scenes.h"
#include "fixstep/joint.h"

#define D(s) fxs_dec(s)
#define V(x, y, z) fxg_v3(D(x), D(y), D(z))

#define CARS 4

/* car k's joints are slots 4k .. 4k + 3: front left, front right, rear left, rear right */
static void add_car(fxs_world *w, fxg_vec3 at, fix16_t steer)
{
	uint32_t ovf = 0;
	fxs_body_def cd = fxs_default_body_def();
	cd.position = at;
	cd.shape.type = FXS_SHAPE_BOX;
	cd.shape.half_extents = V("1", "0.25", "2");
	cd.density = FXG_I(250); /* 1000 kg */
	fxs_body_id chassis = fxs_body_create(w, &cd);
	for (int i = 0; i < 4; ++i) {
		/* x = -+0.9, z = +-1.4 (front +z), 0.55 m below the chassis centre */
		fxg_vec3 local = fxg_v3((i & 1) ? D("0.9") : D("-0.9"), D("-0.55"), (i & 2) ? D("-1.4") : D("1.4"));
		fxs_body_def wd = fxs_default_body_def();
		wd.position = fxg_v3_add(at, local, &ovf);
		wd.rotation = (fxg_quat){ 0, 0, 46341, 46341 }; /* the cylinder's axis (local y) along x */
		wd.shape.type = FXS_SHAPE_CYLINDER;
		wd.shape.radius = D("0.35");
		wd.shape.half_height = D("0.15");
		wd.density = FXG_I(500);
		wd.friction = FXG_ONE;
		wd.rolling_resistance = D("0.02");
		fxs_body_id wheel = fxs_body_create(w, &wd);
		fxs_joint_def j = fxs_default_wheel_joint_def();
		j.body_a = chassis;
		j.body_b = wheel;
		j.local_anchor_a = local;
		j.spring_hertz = FXG_I(2);
		j.enable_limit = true;
		j.lower = D("-0.1");
		j.upper = D("0.3");
		if (i & 2) { /* rear: the drive */
			j.enable_motor = true;
			j.motor_speed = FXG_I(8);
			j.max_motor_force = FXG_I(600);
		} else {
			j.steering_angle = steer;
		}
		fxs_joint_create(w, &j);
	}
}

fxs_world *fxs_scene_vehicle_create(void)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	fxs_body_def g = fxs_default_body_def();
	g.type = FXS_BODY_STATIC;
	g.position = V("0", "-1", "0");
	g.shape.type = FXS_SHAPE_BOX;
	g.shape.half_extents = V("60", "1", "60");
	g.friction = FXG_ONE;
	fxs_body_create(w, &g);
	/* a ramp of 10 degrees ahead of car 0 (a box turned about x: it leaves
	 * the floor at z = 10.8 and ends 1.9 m up at z = 21.4), and two speed
	 * bumps 8 cm high (capsules across, half sunk) ahead of car 3 */
	g.position = V("-24", "-1.97", "14");
	g.rotation = (fxg_quat){ D("-0.087156"), 0, 0, D("0.996195") };
	g.shape.half_extents = V("2.5", "2.5", "8");
	fxs_body_create(w, &g);
	g.rotation = (fxg_quat){ 0, 0, 46341, 46341 }; /* along x */
	g.shape.type = FXS_SHAPE_CAPSULE;
	g.shape.radius = D("0.08");
	g.shape.half_height = D("2");
	g.position = V("24", "0", "-2");
	fxs_body_create(w, &g);
	g.position = V("24", "0", "6");
	fxs_body_create(w, &g);
	/* the cars, 0.5 m above their rest height, facing +z: the ramp's and
	 * the bumps' on the sides, and behind them the two that turn circles
	 * away from each other (radii 2.8 m / tan 0.2 = 13.8 m and 2.8 m /
	 * tan 0.3 = 9.1 m, centred at x = -21.8 and 17.1, z = -35) */
	add_car(w, V("-24", "1.2", "-10"), 0);
	add_car(w, V("-8", "1.2", "-35"), D("-0.2"));
	add_car(w, V("8", "1.2", "-35"), D("0.3"));
	add_car(w, V("24", "1.2", "-10"), 0);
	return w;
}

/* a stick axis (-32768 .. 32767) as -1 .. 1, Q16.16 */
static fix16_t axis(int16_t v) { return (fix16_t)v * 2; }

void fxs_scene_vehicle_inputs(fxs_world *w, const fxs_input *inputs, uint32_t players, uint64_t tick)
{
	(void)tick;
	uint32_t ovf = 0;
	for (uint32_t p = 0; p < players && p < CARS && p < FXS_MAX_PLAYERS; ++p) {
		const fxs_input *in = &inputs[p];
		if (in->move_x == 0 && in->move_z == 0)
			continue;
		fix16_t drive = fxg_add(FXG_I(8), fxg_mul(axis(in->move_z), FXG_I(10), &ovf), &ovf);
		fix16_t steer = fxg_mul(axis(in->move_x), D("0.4"), &ovf);
		for (uint32_t k = 0; k < 4; ++k) {
			/* any world: a joint that is not this scene's wheel is left alone */
			fxs_joint_id j = fxs_world_joint_at(w, 4 * p + k);
			if (fxs_joint_get_type(w, j) != FXS_JOINT_WHEEL)
				continue;
			if (k & 2)
				fxs_joint_set_motor(w, j, true, drive, FXG_I(600));
			else
				fxs_joint_set_steering(w, j, steer);
		}
	}
}
