/* The built-in scenes. Values are written as decimal strings or exact
 * binary fractions and converted with libfixmath's fix16_from_str, so no
 * float ever touches a scene. Geometry of the benchmark scenes follows
 * shared/reference/benchmark-scenes.md. */
#include "scenes.h"

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
static fxs_world *large_pyramid(int base)
{
	fxs_world *w = new_world();
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

static const fxs_scene scenes[] = {
	{ "drop", "a ball of radius 0.5 dropped from 10 m onto the ground", 300, scene_drop },
	{ "falling_spheres_500", "500 spheres (10x10x5 lattice) falling into a walled box", 400, scene_falling_spheres_500 },
	{ "falling_spheres", "4,000 spheres (20x20x10 lattice) falling into a walled box", 400, scene_falling_spheres_4000 },
	{ "box_stack", "ten 1 m cubes stacked on the ground", 600, scene_box_stack },
	{ "shapes", "27 boxes, spheres and capsules tumbling onto the ground", 600, scene_shapes },
	{ "large_pyramid_b20", "pyramid of 210 unit cubes (Box3D large_pyramid, base 20)", 200, scene_large_pyramid_b20 },
	{ "large_pyramid_b40", "pyramid of 820 unit cubes (Box3D large_pyramid, base 40)", 200, scene_large_pyramid_b40 },
	{ "large_pyramid", "pyramid of 5,050 unit cubes (Box3D large_pyramid, base 100)", 200, scene_large_pyramid },
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
