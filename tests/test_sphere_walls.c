/* Seed 004's wall spheres on a closed room (a box mesh facing inwards):
 * every sphere sits r behind a wall, inside its extent; a character-sized
 * ball near any wall touches a sphere, one far from the walls touches none;
 * no near-duplicates; the same spheres whatever the body's slot. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixstep/fixstep.h"
#include "fixstep/sphere_walls.h"
#include "test.h"

static double D(fix16_t v) { return v / 65536.0; }
static fix16_t F(double v) { return (fix16_t)lround(v * 65536.0); }

/* room [-2, 2] x [0, 3] x [-2.5, 2.5], faces facing inwards */
static const double RX = 2, RY0 = 0, RY1 = 3, RZ = 2.5;

static fxs_body_id make_room(fxs_world *w)
{
	static const uint32_t outward[36] = { 0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
					      2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5 };
	uint32_t tris[36];
	for (int t = 0; t < 12; ++t) { /* reversed winding: normals inwards */
		tris[3 * t] = outward[3 * t];
		tris[3 * t + 1] = outward[3 * t + 2];
		tris[3 * t + 2] = outward[3 * t + 1];
	}
	fxg_vec3 v[8];
	for (int k = 0; k < 8; ++k)
		v[k] = fxg_v3(F(k & 1 ? RX : -RX), F(k & 2 ? RY1 : RY0), F(k & 4 ? RZ : -RZ));
	fxs_mesh_id id = fxs_world_create_mesh(w, v, 8, tris, 12, FXG_HALF);
	fxs_body_def d = fxs_default_body_def();
	d.type = FXS_BODY_STATIC;
	d.shape = fxs_mesh_shape(w, id);
	return fxs_body_create(w, &d);
}

static fxg_vec3 *build(fxs_world *w, fxs_body_id room, fix16_t r, uint32_t *n, fxs_sphere_walls_stats *st)
{
	fxs_sphere_walls_def def = fxs_default_sphere_walls_def();
	def.radius = r;
	*n = fxs_sphere_walls_build(w, room, &def, NULL, 0, st);
	if (*n == UINT32_MAX)
		return NULL;
	fxg_vec3 *c = malloc(((size_t)*n + 1) * sizeof *c);
	uint32_t m = fxs_sphere_walls_build(w, room, &def, c, *n, st);
	if (m != *n) {
		free(c);
		return NULL;
	}
	return c;
}

/* distance from p (inside the room) to the nearest wall */
static double wall_distance(double x, double y, double z)
{
	double d = RX - fabs(x);
	d = fmin(d, y - RY0);
	d = fmin(d, RY1 - y);
	return fmin(d, RZ - fabs(z));
}

TEST(sphere_walls_cover_a_room)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	fxs_body_id room = make_room(w);
	const double r = 0.25, rc = 0.3;
	uint32_t n;
	fxs_sphere_walls_stats st;
	fxg_vec3 *c = build(w, room, F(r), &n, &st);
	CHECK(c && n > 0);
	printf("  room 4 x 3 x 5 m, r = %.2f: %u probes, %u hits, %u merged -> %u spheres\n", r, st.probes, st.hits,
	       st.merged, n);
	/* each sphere is r outside one wall plane (within 2 LSB) and within
	 * that wall's extent; none is inside the room */
	for (uint32_t i = 0; i < n; ++i) {
		double x = D(c[i].x), y = D(c[i].y), z = D(c[i].z);
		double out[6] = { x - RX, -RX - x, y - RY1, RY0 - y, z - RZ, -RZ - z };
		int on = 0;
		for (int f = 0; f < 6; ++f)
			on += fabs(out[f] - r) < 3e-5;
		CHECKF(on >= 1, "sphere %u at (%.5f, %.5f, %.5f) is not r behind a wall", i, x, y, z);
		CHECKF(fabs(x) <= RX + r + 1e-4 && y >= RY0 - r - 1e-4 && y <= RY1 + r + 1e-4 && fabs(z) <= RZ + r + 1e-4,
		       "sphere %u outside the walls' extent", i);
		CHECKF(!(fabs(x) < RX && y > RY0 && y < RY1 && fabs(z) < RZ), "sphere %u inside the room", i);
	}
	/* no near-duplicates (closer than r / 2) */
	for (uint32_t i = 0; i < n; ++i)
		for (uint32_t j = i + 1; j < n; ++j) {
			double dx = D(c[i].x) - D(c[j].x), dy = D(c[i].y) - D(c[j].y), dz = D(c[i].z) - D(c[j].z);
			CHECKF(dx * dx + dy * dy + dz * dz > (r / 2) * (r / 2) - 1e-9, "spheres %u and %u too close", i, j);
		}
	/* probe balls: a ball within rc - 0.134 r of a wall (the scallop depth)
	 * touches a sphere; a ball farther than rc from every wall touches none */
	uint64_t seed = 99;
	int near = 0, far = 0;
	for (int k = 0; k < (test_quick ? 2000 : 20000); ++k) {
		double x = -RX + 2 * RX * (double)(test_rng_next(&seed) >> 11) / 9007199254740992.0;
		double y = RY0 + (RY1 - RY0) * (double)(test_rng_next(&seed) >> 11) / 9007199254740992.0;
		double z = -RZ + 2 * RZ * (double)(test_rng_next(&seed) >> 11) / 9007199254740992.0;
		double dw = wall_distance(x, y, z);
		int touch = 0;
		for (uint32_t i = 0; i < n && !touch; ++i) {
			double dx = D(c[i].x) - x, dy = D(c[i].y) - y, dz = D(c[i].z) - z;
			touch = sqrt(dx * dx + dy * dy + dz * dz) <= r + rc;
		}
		if (dw <= rc - 0.134 * r - 1e-4) {
			near++;
			CHECKF(touch, "probe (%.4f, %.4f, %.4f), %.4f m from a wall, touches no sphere", x, y, z, dw);
		} else if (dw > rc + 1e-4) {
			far++;
			CHECKF(!touch, "probe (%.4f, %.4f, %.4f), %.4f m from every wall, touches a sphere", x, y, z, dw);
		}
	}
	printf("  %d probes near a wall all touch a sphere, %d far from the walls touch none\n", near, far);
	CHECK(near > 100 && far > 100);
	free(c);
	fxs_world_destroy(w);
}

TEST(sphere_walls_are_canonical)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *a = fxs_world_create(&def), *b = fxs_world_create(&def);
	fxs_body_id ra = make_room(a);
	/* the same room in another slot, after other bodies */
	for (int i = 0; i < 5; ++i) {
		fxs_body_def d = fxs_default_body_def();
		d.position = fxg_v3(FXG_I(i), FXG_I(10), 0);
		fxs_body_create(b, &d);
	}
	fxs_body_id rb = make_room(b);
	uint32_t na, nb;
	fxs_sphere_walls_stats st;
	fxg_vec3 *ca = build(a, ra, FXG_ONE / 3, &na, &st), *cb = build(b, rb, FXG_ONE / 3, &nb, &st);
	CHECK(ca && cb && na == nb && memcmp(ca, cb, na * sizeof *ca) == 0);
	/* bad input is refused */
	fxs_sphere_walls_def bad = fxs_default_sphere_walls_def();
	bad.radius = 0;
	CHECK(fxs_sphere_walls_build(a, ra, &bad, NULL, 0, NULL) == UINT32_MAX);
	fxs_body_def d = fxs_default_body_def();
	fxs_body_id ball = fxs_body_create(a, &d);
	CHECK(fxs_sphere_walls_build(a, ball, &bad, NULL, 0, NULL) == UINT32_MAX);
	free(ca);
	free(cb);
	fxs_world_destroy(a);
	fxs_world_destroy(b);
}
