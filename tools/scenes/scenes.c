/* The built-in scenes. Values are written as decimal strings or exact
 * binary fractions and converted with libfixmath's fix16_from_str, so no
 * float ever touches a scene. Geometry of the benchmark scenes follows
 * docs/benchmarks.md. */
#include "scenes.h"
#include "scenes/arena.h"

#include <libfixmath/fix16.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fix16_t fxs_dec(const char *s)
{
	fix16_t v = fix16_from_str(s);
	if (v == fix16_overflow) {
		fprintf(stderr, "fixstep: bad scene literal '%s'\n", s);
		abort();
	}
	return v;
}

#define D(s) fxs_dec(s)
#define V(x, y, z) fxg_v3(D(x), D(y), D(z))

static fxs_world *new_world(void)
{
	fxs_world_def def = fxs_default_world_def();
	return fxs_world_create(&def);
}

static fxs_body_id add_box(fxs_world *w, fxs_body_type type, fxg_vec3 p, fxg_vec3 half, fix16_t density)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.position = p;
	d.shape.type = FXS_SHAPE_BOX;
	d.shape.half_extents = half;
	d.density = density;
	return fxs_body_create(w, &d);
}

static fxs_body_id add_sphere(fxs_world *w, fxs_body_type type, fxg_vec3 p, fix16_t r, fix16_t density)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.position = p;
	d.shape.type = FXS_SHAPE_SPHERE;
	d.shape.radius = r;
	d.density = density;
	return fxs_body_create(w, &d);
}

static void add_ground(fxs_world *w, const char *half_xz)
{
	add_box(w, FXS_BODY_STATIC, V("0", "-1", "0"), V(half_xz, "1", half_xz), FXG_I(1000));
}

/* A ball of radius 0.5 dropped from 10 m (its lowest point) onto the ground. */
static fxs_world *scene_drop(void)
{
	fxs_world *w = new_world();
	add_ground(w, "20");
	add_sphere(w, FXS_BODY_DYNAMIC, V("0", "10.5", "0"), D("0.5"), FXG_I(1000));
	return w;
}

/* falling_spheres (benchmark-scenes.md): n x n x layers spheres of radius
 * 0.5 in a walled container. */
static fxs_world *falling_spheres(int n, int layers)
{
	fxs_world *w = new_world();
	add_ground(w, "20");
	add_box(w, FXS_BODY_STATIC, V("21", "5", "0"), V("1", "5", "22"), FXG_I(1000));
	add_box(w, FXS_BODY_STATIC, V("-21", "5", "0"), V("1", "5", "22"), FXG_I(1000));
	add_box(w, FXS_BODY_STATIC, V("0", "5", "21"), V("20", "5", "1"), FXG_I(1000));
	add_box(w, FXS_BODY_STATIC, V("0", "5", "-21"), V("20", "5", "1"), FXG_I(1000));
	/* all coordinates are multiples of 0.25: exact in Q16.16 */
	const fix16_t q = FXG_ONE / 4;
	for (int l = 0; l < layers; ++l)
		for (int i = 0; i < n; ++i)
			for (int k = 0; k < n; ++k) {
				int32_t x4 = -3 * (n - 1) + 6 * i + ((l & 1) ? 3 : 0);
				int32_t z4 = -3 * (n - 1) + 6 * k + ((l & 2) ? 3 : 0);
				int32_t y4 = 4 + 6 * l;
				add_sphere(w, FXS_BODY_DYNAMIC, fxg_v3(x4 * q, y4 * q, z4 * q), FXG_HALF, FXG_I(1000));
			}
	return w;
}

static fxs_world *scene_falling_spheres_500(void) { return falling_spheres(10, 5); }
static fxs_world *scene_falling_spheres_4000(void) { return falling_spheres(20, 10); }

/* large_pyramid (Box3D CreateLargePyramid): a 2D slab pyramid of unit cubes. */
/* Box3D's large_pyramid (benchmark-scenes.md): sleeping off, as in Box3D's
 * benchmark, so every step costs the same. */
static fxs_world *large_pyramid(int base)
{
	fxs_world_def def = fxs_default_world_def();
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	add_box(w, FXS_BODY_STATIC, V("0", "-1", "0"), V("400", "1", "400"), FXG_I(1000));
	const fix16_t h = FXG_HALF; /* half extent, and shift */
	for (int i = 0; i < base; ++i)
		for (int j = i; j < base; ++j) {
			fix16_t x = (i + 1) * h + 2 * (j - i) * h - h * base;
			fix16_t y = (2 * i + 1) * h;
			add_box(w, FXS_BODY_DYNAMIC, fxg_v3(x, y, 0), fxg_v3(h, h, h), FXG_I(100));
		}
	return w;
}

/* The 20-row pyramid (210 cubes) with sleeping on: it must stand and fall
 * asleep (the settle golden of the crosscheck). */
static fxs_world *scene_pyramid_20(void)
{
	fxs_world *w = new_world();
	add_box(w, FXS_BODY_STATIC, V("0", "-1", "0"), V("400", "1", "400"), FXG_I(1000));
	const fix16_t h = FXG_HALF;
	for (int i = 0; i < 20; ++i)
		for (int j = i; j < 20; ++j)
			add_box(w, FXS_BODY_DYNAMIC, fxg_v3((i + 1) * h + 2 * (j - i) * h - h * 20, (2 * i + 1) * h, 0),
				fxg_v3(h, h, h), FXG_I(100));
	return w;
}

/* Box3D's many_pyramids (benchmark-scenes.md): rows x columns pyramids of
 * base 10 (55 cubes each) on one ground, sleeping off. Box3D accumulates
 * baseZ in float; here each row's z is rounded from the exact value
 * (differences below 2^-16 m). */
static fxs_world *many_pyramids(int rows, int cols)
{
	fxs_world_def def = fxs_default_world_def();
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	const int base = 10;
	/* in half-metres (extent = 0.5): groundExtent = cols (base + 1) / 2 m */
	const int64_t ge2 = (int64_t)cols * (base + 1); /* 2 groundExtent, m */
	fix16_t ground = (fix16_t)(ge2 * FXG_ONE / 2);
	add_box(w, FXS_BODY_STATIC, V("0", "-1", "0"), fxg_v3(ground, FXG_ONE, ground), FXG_I(1000));
	const fix16_t h = FXG_HALF;
	for (int i = 0; i < rows; ++i) {
		/* baseZ = -ge + 1 + i * 2 (ge - 1) / (rows - 1), rounded to Q16.16 */
		int64_t num = (int64_t)i * (ge2 - 2) * FXG_ONE;
		int64_t dz = rows > 1 ? (num + (rows - 1) / 2) / (rows - 1) : 0;
		fix16_t z = (fix16_t)(-ground + FXG_ONE + dz);
		for (int j = 0; j < cols; ++j) {
			/* centerX = -ge + j (2 base extent + 2 extent) + 2 extent */
			fix16_t cx = -ground + FXG_I(j * (base + 1)) + FXG_ONE;
			for (int a = 0; a < base; ++a)
				for (int b = a; b < base; ++b)
					add_box(w, FXS_BODY_DYNAMIC,
						fxg_v3((a + 1) * h + 2 * (b - a) * h + cx - h, (2 * a + 1) * h, z), fxg_v3(h, h, h),
						FXG_I(100));
		}
	}
	return w;
}

static fxs_world *scene_many_pyramids_3x3(void) { return many_pyramids(3, 3); }
static fxs_world *scene_many_pyramids(void) { return many_pyramids(14, 14); }

static fxs_world *scene_large_pyramid_b20(void) { return large_pyramid(20); }
static fxs_world *scene_large_pyramid_b40(void) { return large_pyramid(40); }
static fxs_world *scene_large_pyramid(void) { return large_pyramid(100); }

/* Ten cubes stacked, each 1 m, on the ground. */
static fxs_world *scene_box_stack(void)
{
	fxs_world *w = new_world();
	add_ground(w, "20");
	for (int i = 0; i < 10; ++i)
		add_box(w, FXS_BODY_DYNAMIC, fxg_v3(0, FXG_HALF + FXG_I(i), 0), V("0.5", "0.5", "0.5"), FXG_I(100));
	return w;
}

/* Seed 002's boxed LCP on (direct_contact_rows on, sleeping off): five
 * cubes stacked a little askew, and beside them a small cube dropped on a
 * tilted plank lying on the ground (friction at its bounds). */
static fxs_world *scene_stack_lcp(void)
{
	fxs_world_def def = fxs_default_world_def();
	def.direct_contact_rows = 96;
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	add_ground(w, "20");
	for (int i = 0; i < 5; ++i)
		add_box(w, FXS_BODY_DYNAMIC, fxg_v3(FXG_RATIO(i, 50), FXG_HALF + FXG_I(i), -FXG_RATIO(i, 70)),
			V("0.5", "0.5", "0.5"), FXG_I(100));
	add_box(w, FXS_BODY_DYNAMIC, V("4", "0.1", "0"), V("1.5", "0.1", "0.5"), FXG_I(300));
	add_box(w, FXS_BODY_DYNAMIC, V("4.5", "0.8", "0.1"), V("0.2", "0.2", "0.2"), FXG_I(500));
	return w;
}

/* Every shape type, tumbling: boxes, spheres and capsules dropped with
 * initial spin onto the ground and onto each other. */
static fxs_world *scene_shapes(void)
{
	fxs_world *w = new_world();
	add_ground(w, "20");
	for (int i = 0; i < 27; ++i) {
		fxs_body_def d = fxs_default_body_def();
		int x = i % 3, z = (i / 3) % 3, y = i / 9;
		d.position = fxg_v3(FXG_I(x * 2 - 2) + FXG_RATIO(y, 7), FXG_I(2 + 3 * y), FXG_I(z * 2 - 2) - FXG_RATIO(y, 5));
		d.angular_velocity = fxg_v3(FXG_RATIO(i % 5, 2), FXG_RATIO(i % 3, 3), FXG_RATIO(i % 7, 4));
		d.density = FXG_I(500);
		switch (i % 3) {
		case 0:
			d.shape.type = FXS_SHAPE_BOX;
			d.shape.half_extents = V("0.4", "0.3", "0.5");
			break;
		case 1:
			d.shape.type = FXS_SHAPE_SPHERE;
			d.shape.radius = D("0.45");
			break;
		default:
			d.shape.type = FXS_SHAPE_CAPSULE;
			d.shape.radius = D("0.25");
			d.shape.half_height = D("0.5");
			break;
		}
		fxs_body_create(w, &d);
	}
	return w;
}

/* ---- input handlers ---- */

/* The dynamic body player p drives (null when the world has none). */
static fxs_body_id player_body(const fxs_world *w, uint32_t p, uint32_t players)
{
	uint32_t slots = fxs_world_slot_count(w), n = 0;
	for (uint32_t i = 0; i < slots; ++i) {
		fxs_body_id id = fxs_world_body_at(w, i);
		if (fxs_body_is_valid(w, id) && fxs_body_get_type(w, id) == FXS_BODY_DYNAMIC)
			++n;
	}
	if (n == 0 || players == 0)
		return fxs_null_body;
	uint32_t want = (uint32_t)(((uint64_t)p * n) / players), k = 0;
	for (uint32_t i = 0; i < slots; ++i) {
		fxs_body_id id = fxs_world_body_at(w, i);
		if (fxs_body_is_valid(w, id) && fxs_body_get_type(w, id) == FXS_BODY_DYNAMIC && k++ == want)
			return id;
	}
	return fxs_null_body;
}

/* stick axis -> Q16.16 in [-65534, 65534] (int16 -32768 clamps to -32767) */
static fix16_t stick(int16_t v) { return (fix16_t)(v < -32767 ? -32767 : v) * 2; }

void fxs_scene_default_inputs(fxs_world *w, const fxs_input *inputs, uint32_t players, uint64_t tick)
{
	(void)tick;
	if (players > FXS_MAX_PLAYERS)
		players = FXS_MAX_PLAYERS;
	uint32_t ovf = 0;
	fix16_t dt = fxs_world_get_def(w).dt;
	fix16_t step_dv = fxg_mul(FXG_I(15), dt, &ovf); /* 15 m/s^2 over one step */
	for (uint32_t p = 0; p < players; ++p) {
		fxs_body_id id = player_body(w, p, players);
		if (!fxs_body_is_valid(w, id))
			continue;
		const fxs_input *in = &inputs[p];
		fix16_t sx = stick(in->move_x), sz = stick(in->move_z), t;
		switch (in->yaw >> 14) { /* quarter turns: exact, no trig */
		case 1:
			t = sx;
			sx = sz;
			sz = -t;
			break;
		case 2:
			sx = -sx;
			sz = -sz;
			break;
		case 3:
			t = sx;
			sx = -sz;
			sz = t;
			break;
		default: break;
		}
		fxg_vec3 v = fxs_body_get_linear_velocity(w, id);
		v.x = fxg_add(v.x, fxg_mul(sx, step_dv, &ovf), &ovf);
		v.z = fxg_add(v.z, fxg_mul(sz, step_dv, &ovf), &ovf);
		if ((in->buttons & FXS_BUTTON_JUMP) && v.y < FXG_ONE / 4 && v.y > -FXG_ONE / 4)
			v.y = fxg_add(v.y, FXG_I(4), &ovf);
		if (in->move_x != 0 || in->move_z != 0 || (in->buttons & FXS_BUTTON_JUMP))
			fxs_body_set_linear_velocity(w, id, v);
	}
}

/* 1,000 spheres moving in every direction in a closed box, no gravity,
 * elastic: the broadphase's churn scene (issue 3). Velocities come from a
 * seeded SplitMix64 in integers, so no float touches them. */
static fxs_world *scene_moving_1000(void)
{
	fxs_world_def def = fxs_default_world_def();
	def.gravity = fxg_v3_zero();
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	const fix16_t L = FXG_I(8); /* inner half size of the box */
	add_box(w, FXS_BODY_STATIC, fxg_v3(0, -L - FXG_ONE, 0), fxg_v3(L + FXG_I(2), FXG_ONE, L + FXG_I(2)), FXG_I(1000));
	add_box(w, FXS_BODY_STATIC, fxg_v3(0, L + FXG_ONE, 0), fxg_v3(L + FXG_I(2), FXG_ONE, L + FXG_I(2)), FXG_I(1000));
	add_box(w, FXS_BODY_STATIC, fxg_v3(-L - FXG_ONE, 0, 0), fxg_v3(FXG_ONE, L, L + FXG_I(2)), FXG_I(1000));
	add_box(w, FXS_BODY_STATIC, fxg_v3(L + FXG_ONE, 0, 0), fxg_v3(FXG_ONE, L, L + FXG_I(2)), FXG_I(1000));
	add_box(w, FXS_BODY_STATIC, fxg_v3(0, 0, -L - FXG_ONE), fxg_v3(L, L, FXG_ONE), FXG_I(1000));
	add_box(w, FXS_BODY_STATIC, fxg_v3(0, 0, L + FXG_ONE), fxg_v3(L, L, FXG_ONE), FXG_I(1000));
	uint64_t rng = 12345;
	for (int i = 0; i < 1000; ++i) {
		int x = i % 10, y = (i / 10) % 10, z = i / 100;
		fxs_body_def d = fxs_default_body_def();
		d.position = fxg_v3(FXG_I(-7) + x * FXG_RATIO(14, 9), FXG_I(-7) + y * FXG_RATIO(14, 9), FXG_I(-7) + z * FXG_RATIO(14, 9));
		fix16_t c[3];
		for (int k = 0; k < 3; ++k) {
			uint64_t r = (rng += 0x9E3779B97F4A7C15ull);
			r = (r ^ (r >> 30)) * 0xBF58476D1CE4E5B9ull;
			r = (r ^ (r >> 27)) * 0x94D049BB133111EBull;
			r ^= r >> 31;
			c[k] = (fix16_t)((r >> 33) % (uint64_t)FXG_I(10)) - FXG_I(5); /* [-5, 5) m/s */
		}
		d.linear_velocity = fxg_v3(c[0], c[1], c[2]);
		d.shape.radius = FXG_RATIO(3, 10);
		d.friction = 0;
		d.restitution = FXG_ONE;
		fxs_body_create(w, &d);
	}
	return w;
}

/* joint_grid (benchmark-scenes.md, Box3D CreateJointGrid): n x n spheres of
 * radius 0.4, density 1000, at (k, -i, 0) (k outer, i inner), row i = 0
 * static; ball joints to the sphere above (anchors (0, -0.5, 0) on the upper
 * and (0, 0.5, 0) on the lower) and to the left (anchors (0.5, 0, 0) on the
 * left and (-0.5, 0, 0) on this one): the anchors meet halfway. Jointed
 * pairs do not collide; no ground, sleeping off. Box3D also makes the joints
 * between the static top-row spheres and never solves them: they are left
 * out here (as Bullet does), so n = 100 has 19,701 joints. */
static fxs_world *joint_grid(int n)
{
	fxs_world_def def = fxs_default_world_def();
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	fxs_body_id *ids = malloc((size_t)n * (size_t)n * sizeof *ids);
	if (!ids)
		abort();
	const fix16_t r = D("0.4");
	for (int k = 0; k < n; ++k)
		for (int i = 0; i < n; ++i) {
			fxs_body_id b = add_sphere(w, i == 0 ? FXS_BODY_STATIC : FXS_BODY_DYNAMIC, fxg_v3(FXG_I(k), FXG_I(-i), 0), r,
						   FXG_I(1000));
			ids[k * n + i] = b;
			if (i > 0) {
				fxs_joint_def j = fxs_default_ball_joint_def();
				j.body_a = ids[k * n + i - 1];
				j.body_b = b;
				j.local_anchor_a = fxg_v3(0, -FXG_HALF, 0);
				j.local_anchor_b = fxg_v3(0, FXG_HALF, 0);
				fxs_joint_create(w, &j);
			}
			if (k > 0 && i > 0) {
				fxs_joint_def j = fxs_default_ball_joint_def();
				j.body_a = ids[(k - 1) * n + i];
				j.body_b = b;
				j.local_anchor_a = fxg_v3(FXG_HALF, 0, 0);
				j.local_anchor_b = fxg_v3(-FXG_HALF, 0, 0);
				fxs_joint_create(w, &j);
			}
		}
	free(ids);
	return w;
}

static fxs_world *scene_joint_grid_10(void) { return joint_grid(10); }
static fxs_world *scene_joint_grid_50(void) { return joint_grid(50); }
static fxs_world *scene_joint_grid(void) { return joint_grid(100); }

/* A hinge pendulum (1 m, released at 0.5 rad) and, beside it, a chain of
 * 20 links joined by ball joints, released horizontally. */
static fxs_world *scene_pendulum(void)
{
	fxs_world *w = new_world();
	fxs_body_id pivot = add_sphere(w, FXS_BODY_STATIC, V("0", "5", "0"), D("0.05"), FXG_I(1000));
	/* bob at 0.5 rad from the vertical: (sin 0.5, 5 - cos 0.5, 0) */
	fxg_vec3 bob_p = V("0.479426", "4.122417", "0");
	fxs_body_id bob = add_sphere(w, FXS_BODY_DYNAMIC, bob_p, D("0.1"), FXG_I(1000));
	fxs_joint_def h = fxs_default_hinge_joint_def();
	h.body_a = pivot;
	h.body_b = bob;
	h.local_axis_a = fxg_v3(0, 0, FXG_ONE);
	h.local_anchor_b = fxg_v3(-bob_p.x, FXG_I(5) - bob_p.y, 0);
	fxs_joint_create(w, &h);
	fxs_body_id prev = add_sphere(w, FXS_BODY_STATIC, V("3", "5", "0"), D("0.05"), FXG_I(1000));
	for (int i = 1; i <= 20; ++i) {
		fxs_body_id link = add_sphere(w, FXS_BODY_DYNAMIC, fxg_v3(FXG_I(3) + i * FXG_RATIO(1, 4), FXG_I(5), 0), D("0.1"),
					      FXG_I(1000));
		fxs_joint_def j = fxs_default_ball_joint_def();
		j.body_a = prev;
		j.body_b = link;
		j.local_anchor_a = fxg_v3(FXG_RATIO(1, 8), 0, 0);
		j.local_anchor_b = fxg_v3(-FXG_RATIO(1, 8), 0, 0);
		fxs_joint_create(w, &j);
		prev = link;
	}
	return w;
}

/* mesh_level: one static triangle mesh (22 triangles) made of a 20 x 20 m
 * floor, four 3 m walls facing inward (sharing the floor's corners, so the
 * floor-wall edges are concave edges with bisector walls) and two closed
 * wedge ramps standing on the floor; faces carry seed 003 thickness regions
 * of 0.5 m. 24 boxes, spheres and capsules are dropped onto it. */
/* The mesh level: floor, four 3 m walls and two ramps, one static body. */
static void add_mesh_level(fxs_world *w)
{
	fxg_vec3 v[20] = {
		V("-10", "0", "-10"),
		V("10", "0", "-10"),
		V("-10", "0", "10"),
		V("10", "0", "10"),
		V("-10", "3", "-10"),
		V("10", "3", "-10"),
		V("-10", "3", "10"),
		V("10", "3", "10"),
	};
	/* ramp: low edge at x = -2, high end (1.5 m) at x = -7, z in [-2, 2]; the
	 * second ramp is the first moved by (9, 0, 4) */
	const fxg_vec3 ramp[6] = { V("-2", "0", "-2"), V("-2", "0", "2"), V("-7", "1.5", "-2"),
				   V("-7", "1.5", "2"), V("-7", "0", "-2"), V("-7", "0", "2") };
	for (int k = 0; k < 6; ++k) {
		v[8 + k] = ramp[k];
		v[14 + k] = fxg_v3(ramp[k].x + FXG_I(9), ramp[k].y, ramp[k].z + FXG_I(4));
	}
	uint32_t t[22 * 3] = {
		0, 2, 1, 1, 2, 3, /* floor, +y */
		0, 1, 5, 0, 5, 4, /* wall z = -10, +z */
		3, 2, 6, 3, 6, 7, /* wall z = +10, -z */
		2, 0, 4, 2, 4, 6, /* wall x = -10, +x */
		1, 3, 7, 1, 7, 5, /* wall x = +10, -x */
	};
	const uint32_t wedge[6 * 3] = { 0, 2, 1, 1, 2, 3, /* slope */ 4, 5, 3, 4, 3, 2, /* back */
					0, 4, 2, /* side -z */ 1, 3, 5 /* side +z */ };
	for (int r = 0; r < 2; ++r)
		for (int k = 0; k < 18; ++k)
			t[30 + r * 18 + k] = 8 + 6 * (uint32_t)r + wedge[k];
	fxs_mesh_id mesh = fxs_world_create_mesh(w, v, 20, t, 22, D("0.5"));
	if (!mesh)
		abort();
	fxs_body_def md = fxs_default_body_def();
	md.type = FXS_BODY_STATIC;
	md.shape = fxs_mesh_shape(w, mesh);
	fxs_body_create(w, &md);
}

static fxs_world *scene_mesh_level(void)
{
	fxs_world *w = new_world();
	add_mesh_level(w);
	for (int i = 0; i < 24; ++i) {
		fxs_body_def d = fxs_default_body_def();
		/* a 4 x 3 x 2 lattice over the ramps and the floor, 2.5 m apart */
		int ix = i % 4, iz = (i / 4) % 3, iy = i / 12;
		d.position = fxg_v3(FXG_I(-6) + ix * FXG_RATIO(7, 2), FXG_I(3) + iy * FXG_I(2), FXG_I(-3) + iz * FXG_RATIO(5, 2));
		d.density = FXG_I(500);
		switch (i % 3) {
		case 0:
			d.shape.type = FXS_SHAPE_BOX;
			d.shape.half_extents = V("0.4", "0.3", "0.25");
			break;
		case 1:
			d.shape.type = FXS_SHAPE_SPHERE;
			d.shape.radius = D("0.35");
			break;
		default:
			d.shape.type = FXS_SHAPE_CAPSULE;
			d.shape.radius = D("0.2");
			d.shape.half_height = D("0.4");
			/* tilted: 30 degrees about z (cos, sin of 15 degrees) */
			d.rotation = (fxg_quat){ 0, 0, D("0.258819"), D("0.965926") };
			break;
		}
		fxs_body_create(w, &d);
	}
	return w;
}

/* Every shape type on the mesh level: spheres, boxes, capsules, three hulls
 * (a tetrahedron, an elongated octahedron, a 12-point rock) and two
 * compounds (a dumbbell of two spheres and a capsule; a stool of a box seat
 * on two tetrahedron legs), dropped spinning in a 6 x 2 x 3 lattice, over a
 * static box and a static hull. */
static fxs_world *scene_all_shapes(void)
{
	fxs_world *w = new_world();
	add_mesh_level(w);
	const fxg_vec3 tet[4] = { V("0", "0.5", "0"), V("0.45", "-0.2", "0.25"), V("-0.45", "-0.2", "0.25"),
				  V("0", "-0.2", "-0.5") };
	const fxg_vec3 oct[6] = { V("0.6", "0", "0"), V("-0.6", "0", "0"), V("0", "0.3", "0"),
				  V("0", "-0.3", "0"), V("0", "0", "0.35"), V("0", "0", "-0.35") };
	const fxg_vec3 rock[12] = { V("0.5", "0.1", "0.2"), V("-0.4", "0.2", "0.3"), V("0.1", "0.45", "-0.2"),
				    V("-0.2", "-0.35", "-0.3"), V("0.3", "-0.3", "0.35"), V("-0.5", "-0.1", "-0.1"),
				    V("0.2", "0.3", "0.4"), V("0", "-0.4", "0.1"), V("0.4", "0", "-0.4"),
				    V("-0.3", "0.35", "-0.25"), V("0.05", "0.1", "0"), V("-0.1", "-0.2", "0.45") };
	fxs_hull_id hulls[3] = { fxs_world_create_hull(w, tet, 4, NULL), fxs_world_create_hull(w, oct, 6, NULL),
				 fxs_world_create_hull(w, rock, 12, NULL) };
	if (!hulls[0] || !hulls[1] || !hulls[2])
		abort();
	fxs_compound_child bell[3], stool[3];
	memset(bell, 0, sizeof bell);
	memset(stool, 0, sizeof stool);
	for (int k = 0; k < 3; ++k)
		bell[k].xf.q = stool[k].xf.q = fxg_q_identity();
	bell[0].shape.type = bell[1].shape.type = FXS_SHAPE_SPHERE;
	bell[0].shape.radius = bell[1].shape.radius = D("0.25");
	bell[0].xf.p = V("-0.6", "0", "0");
	bell[1].xf.p = V("0.6", "0", "0");
	bell[2].shape.type = FXS_SHAPE_CAPSULE;
	bell[2].shape.radius = D("0.08");
	bell[2].shape.half_height = D("0.5");
	bell[2].xf.q = (fxg_quat){ 0, 0, D("0.707107"), D("0.707107") };
	stool[0].shape.type = FXS_SHAPE_BOX;
	stool[0].shape.half_extents = V("0.5", "0.06", "0.35");
	stool[0].xf.p = V("0", "0.45", "0");
	stool[1].shape = stool[2].shape = fxs_hull_shape(w, hulls[0]);
	stool[1].xf.p = V("0.3", "0.1", "0");
	stool[2].xf.p = V("-0.3", "0.1", "0");
	fxs_compound_id comps[2] = { fxs_world_create_compound(w, bell, 3, NULL), fxs_world_create_compound(w, stool, 3, NULL) };
	if (!comps[0] || !comps[1])
		abort();
	fxs_body_def sd = fxs_default_body_def();
	sd.type = FXS_BODY_STATIC;
	sd.shape.type = FXS_SHAPE_BOX;
	sd.shape.half_extents = V("1.5", "0.25", "1.5");
	sd.position = V("3", "0.25", "-5");
	fxs_body_create(w, &sd);
	sd.shape = fxs_hull_shape(w, hulls[2]);
	sd.position = V("-4", "0.4", "5");
	fxs_body_create(w, &sd);
	for (int i = 0; i < 36; ++i) {
		fxs_body_def d = fxs_default_body_def();
		int ix = i % 6, iz = (i / 6) % 3, iy = i / 18;
		d.position = fxg_v3(FXG_I(-7) + ix * FXG_RATIO(5, 2), FXG_I(2) + iy * FXG_RATIO(3, 2) + FXG_RATIO(ix, 10),
				    FXG_I(-5) + iz * FXG_I(4) + FXG_RATIO(iy, 3));
		d.angular_velocity = fxg_v3(FXG_RATIO(i % 5, 2), FXG_RATIO(i % 3, 3), FXG_RATIO(i % 7, 4));
		d.density = FXG_I(500);
		d.angular_damping = FXG_HALF; /* round shapes stop rolling: the scene falls asleep */
		d.linear_damping = FXG_HALF;
		switch (i % 8) {
		case 0:
			d.shape.type = FXS_SHAPE_SPHERE;
			d.shape.radius = D("0.35");
			break;
		case 1:
			d.shape.type = FXS_SHAPE_BOX;
			d.shape.half_extents = V("0.4", "0.3", "0.25");
			break;
		case 2:
			d.shape.type = FXS_SHAPE_CAPSULE;
			d.shape.radius = D("0.2");
			d.shape.half_height = D("0.4");
			break;
		case 3:
		case 4:
		case 5:
			d.shape = fxs_hull_shape(w, hulls[i % 8 - 3]);
			break;
		default:
			d.shape = fxs_compound_shape(w, comps[i % 8 - 6]);
			break;
		}
		fxs_body_create(w, &d);
	}
	return w;
}

/* cylinders: barrels, pillars and wheels on the mesh level. Two barrels
 * roll down the first ramp, three pillars and a stack of three wheels stand
 * on their caps, a barrel lies and a pillar stands on a static box, and a
 * sphere, a box, a capsule, a tilted cylinder (landing on its rim) and two
 * crossed barrels fall onto them and the floor: every pair the cylinder
 * makes with the other shapes and with the mesh and box grounds. */
static fxs_body_id add_cylinder(fxs_world *w, fxs_body_type type, fxg_vec3 p, fxg_quat q, const char *r,
				const char *hh)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.position = p;
	d.rotation = q;
	d.shape.type = FXS_SHAPE_CYLINDER;
	d.shape.radius = D(r);
	d.shape.half_height = D(hh);
	d.density = FXG_I(500);
	return fxs_body_create(w, &d);
}

static fxs_world *scene_cylinders(void)
{
	fxs_world *w = new_world();
	add_mesh_level(w);
	/* a quarter turn about x (the axis along z), about z (along x), and a tilt of 30 degrees about x */
	const fxg_quat along_z = { 46341, 0, 0, 46341 }, along_x = { 0, 0, 46341, 46341 },
		       tilt = { D("0.258819"), 0, 0, D("0.965926") }, upright = { 0, 0, 0, FXG_ONE };
	/* barrels at the top of the first ramp (surface y = 1.2 at x = -6) */
	add_cylinder(w, FXS_BODY_DYNAMIC, V("-6", "1.7", "-1"), along_z, "0.4", "0.5");
	add_cylinder(w, FXS_BODY_DYNAMIC, V("-6.2", "1.8", "1"), along_z, "0.35", "0.6");
	/* pillars and a stack of wheels standing on their caps */
	for (int i = 0; i < 3; ++i)
		add_cylinder(w, FXS_BODY_DYNAMIC, fxg_v3(FXG_I(3 + i), FXG_I(1), FXG_I(-6)), upright, "0.3", "1");
	for (int i = 0; i < 3; ++i)
		add_cylinder(w, FXS_BODY_DYNAMIC, fxg_v3(FXG_RATIO(i, 10), D("0.25") + FXG_RATIO(11 * i, 20), FXG_I(6)),
			     upright, "0.6", "0.25");
	/* a static box platform with a barrel lying and a pillar standing on it */
	add_box(w, FXS_BODY_STATIC, V("6", "0.25", "6"), V("1.5", "0.25", "1.5"), FXG_I(1000));
	add_cylinder(w, FXS_BODY_DYNAMIC, V("5.5", "0.8", "5.2"), along_x, "0.3", "0.6");
	add_cylinder(w, FXS_BODY_DYNAMIC, V("6.5", "1.3", "6.6"), upright, "0.25", "0.8");
	/* what falls on them: a sphere, a box, a capsule, a tilted cylinder, two crossed barrels */
	add_sphere(w, FXS_BODY_DYNAMIC, V("5.5", "3", "5.3"), D("0.3"), FXG_I(500));
	add_box(w, FXS_BODY_DYNAMIC, V("4", "3.5", "-6"), V("1.4", "0.2", "0.4"), FXG_I(500));
	fxs_body_def d = fxs_default_body_def();
	d.position = V("0.1", "3", "6");
	d.rotation = along_x;
	d.shape.type = FXS_SHAPE_CAPSULE;
	d.shape.radius = D("0.2");
	d.shape.half_height = D("0.5");
	d.density = FXG_I(500);
	fxs_body_create(w, &d);
	add_cylinder(w, FXS_BODY_DYNAMIC, V("-2", "2", "-6"), tilt, "0.5", "0.4");
	add_cylinder(w, FXS_BODY_DYNAMIC, V("-3", "0.5", "5"), along_z, "0.5", "1");
	add_cylinder(w, FXS_BODY_DYNAMIC, V("-3", "2", "5"), along_x, "0.4", "1");
	return w;
}

static const fxs_scene scenes[] = {
	{ "drop", "a ball of radius 0.5 dropped from 10 m onto the ground", 300, scene_drop, 1, fxs_scene_default_inputs, NULL },
	{ "falling_spheres_500", "500 spheres (10x10x5 lattice) falling into a walled box", 400, scene_falling_spheres_500, 4, fxs_scene_default_inputs, NULL },
	{ "falling_spheres", "4,000 spheres (20x20x10 lattice) falling into a walled box", 400, scene_falling_spheres_4000, 8, fxs_scene_default_inputs, NULL },
	{ "box_stack", "ten 1 m cubes stacked on the ground", 600, scene_box_stack, 2, fxs_scene_default_inputs, NULL },
	{ "moving_1000", "1,000 elastic spheres flying in a closed box, no gravity", 300, scene_moving_1000, 4, fxs_scene_default_inputs, NULL },
	{ "shapes", "27 boxes, spheres and capsules tumbling onto the ground", 600, scene_shapes, 4, fxs_scene_default_inputs, NULL },
	{ "mesh_level", "24 boxes, spheres and capsules dropped on a triangle-mesh level (floor, walls, 2 ramps)", 600, scene_mesh_level, 4, fxs_scene_default_inputs, NULL },
	{ "all_shapes", "36 spheres, boxes, capsules, convex hulls (3 kinds) and compounds (2 kinds) on the mesh level", 600, scene_all_shapes, 4, fxs_scene_default_inputs, NULL },
	{ "pyramid_20", "pyramid of 210 unit cubes (20 rows) that must stand and fall asleep", 600, scene_pyramid_20, 4, fxs_scene_default_inputs, NULL },
	{ "large_pyramid_b20", "pyramid of 210 unit cubes (Box3D large_pyramid, base 20, sleeping off)", 200, scene_large_pyramid_b20, 4, fxs_scene_default_inputs, NULL },
	{ "large_pyramid_b40", "pyramid of 820 unit cubes (Box3D large_pyramid, base 40, sleeping off)", 200, scene_large_pyramid_b40, 4, fxs_scene_default_inputs, NULL },
	{ "large_pyramid", "pyramid of 5,050 unit cubes (Box3D large_pyramid, base 100, sleeping off)", 200, scene_large_pyramid, 4, fxs_scene_default_inputs, NULL },
	{ "many_pyramids_3x3", "9 pyramids of 55 unit cubes (Box3D many_pyramids, 3 x 3, sleeping off)", 100, scene_many_pyramids_3x3, 4, fxs_scene_default_inputs, NULL },
	{ "many_pyramids", "196 pyramids of 55 unit cubes, 10,780 in all (Box3D many_pyramids, 14 x 14)", 100, scene_many_pyramids, 8, fxs_scene_default_inputs, NULL },
	{ "school", "a two-storey school (static mesh, thick faces), 4 characters walking through it, 12 crates", 600, fxs_scene_school_create, 4, fxs_scene_school_inputs, fxs_scene_school_script },
	{ "stack_lcp", "5 cubes stacked and a cube dropped on a plank, solved by the boxed LCP (direct_contact_rows = 96)", 600, scene_stack_lcp, 2, fxs_scene_default_inputs, NULL },
	{ "pendulum", "a 1 m hinge pendulum and a 20-link chain of ball joints", 600, scene_pendulum, 2, fxs_scene_default_inputs, NULL },
	{ "joint_grid_10", "10 x 10 spheres joined by ball joints, top row static (Box3D joint_grid, n = 10)", 100, scene_joint_grid_10, 4, fxs_scene_default_inputs, NULL },
	{ "joint_grid_50", "50 x 50 spheres joined by 4,851 ball joints, top row static (Box3D joint_grid, n = 50)", 100, scene_joint_grid_50, 4, fxs_scene_default_inputs, NULL },
	{ "joint_grid", "100 x 100 spheres joined by 19,701 ball joints, top row static (Box3D joint_grid)", 100, scene_joint_grid, 4, fxs_scene_default_inputs, NULL },
	{ "arena", "two teams of two: filtered bullets, a capture-zone sensor, hit-event scores, blasts, upright players", FXS_ARENA_STEPS, fxs_scene_arena_create, FXS_ARENA_PLAYERS, fxs_scene_arena_inputs, fxs_scene_arena_script },
	{ "cylinders", "barrels rolling down a ramp, pillars, a stack of wheels, and shapes falling on them, on the mesh level", 600, scene_cylinders, 4, fxs_scene_default_inputs, NULL },
	{ "ragdoll", "4 ragdolls of 11 bodies (spherical joints with cone and twist limits, hinges) tumbling down stairs", 600, fxs_scene_ragdoll_create, 4, fxs_scene_default_inputs, NULL },
	{ "vehicle", "4 cars on wheel joints (cylinder wheels, rear drive, steering): up a ramp, over bumps, in circles", 600, fxs_scene_vehicle_create, 4, fxs_scene_vehicle_inputs, NULL },
};

const fxs_scene *fxs_scenes(uint32_t *count)
{
	*count = (uint32_t)(sizeof scenes / sizeof scenes[0]);
	return scenes;
}

const fxs_scene *fxs_scene_find(const char *name)
{
	uint32_t n;
	const fxs_scene *s = fxs_scenes(&n);
	for (uint32_t i = 0; i < n; ++i)
		if (strcmp(s[i].name, name) == 0)
			return &s[i];
	return NULL;
}
