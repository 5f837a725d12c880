/* `fixstep bench narrowphase`: ns per fxs_collide call for each of the ten
 * convex shape pairs, over a fixed seeded set of touching configurations
 * (random sizes 0.1..5 m, random orientations, B placed so that the pair
 * touches within the default speculative distance). Mirror calls are timed
 * too: each configuration is run in both argument orders. Hulls are drawn
 * from 16 seeded hulls of 8 to 24 points on ellipsoids of 0.2..2.5 m (the
 * table prints their average vertex count). Then each convex shape against a
 * static terrain mesh of 128 triangles. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fixstep/fixstep.h"
#include "collide/narrowphase.h"

#define NPB_CONFIGS 256

static uint64_t npb_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* three draws in order (function arguments are evaluated in no fixed order) */
static fxg_vec3 npb_v3(uint64_t *s, fix16_t lo, fix16_t hi);

/* uniform raw fix16 in [lo, hi] */
static fix16_t npb_range(uint64_t *s, fix16_t lo, fix16_t hi)
{
	return lo + (fix16_t)(npb_next(s) % (uint64_t)((int64_t)hi - lo + 1));
}

static fxg_vec3 npb_v3(uint64_t *s, fix16_t lo, fix16_t hi)
{
	fix16_t x = npb_range(s, lo, hi);
	fix16_t y = npb_range(s, lo, hi);
	fix16_t z = npb_range(s, lo, hi);
	return fxg_v3(x, y, z);
}

#define NPB_HULLS 16
static fxs_shape npb_hulls[NPB_HULLS];

static fxs_shape npb_shape(uint64_t *s, int type)
{
	fxs_shape sh;
	if (type == FXS_SHAPE_HULL)
		return npb_hulls[npb_next(s) % NPB_HULLS];
	memset(&sh, 0, sizeof sh);
	sh.type = type;
	fix16_t lo = FXG_RATIO(1, 10), hi = FXG_I(5);
	if (type == FXS_SHAPE_BOX)
		sh.half_extents = npb_v3(s, lo, hi);
	else
		sh.radius = npb_range(s, lo, hi);
	if (type == FXS_SHAPE_CAPSULE)
		sh.half_height = npb_range(s, lo, hi);
	return sh;
}

static fxg_quat npb_quat(uint64_t *s)
{
	uint32_t ovf = 0;
	fxg_quat q;
	do {
		fxg_vec3 v = npb_v3(s, -FXG_ONE, FXG_ONE);
		q = fxg_q(v.x, v.y, v.z, npb_range(s, -FXG_ONE, FXG_ONE));
	} while ((int64_t)q.x * q.x + (int64_t)q.y * q.y + (int64_t)q.z * q.z + (int64_t)q.w * q.w < ((int64_t)1 << 30));
	return fxg_q_normalize(q, &ovf);
}

typedef struct {
	fxs_shape a, b;
	fxs_transform xa, xb;
} npb_config;

/* Touching configurations: B on a random ray from A, bisected to the
 * distance where the manifold appears (<= 40 bisection steps). */
static void npb_make(int ta, int tb, uint64_t seed, npb_config *out, fix16_t spec)
{
	uint64_t s = seed;
	for (int i = 0; i < NPB_CONFIGS; ++i) {
		npb_config *c = &out[i];
		c->a = npb_shape(&s, ta);
		c->b = npb_shape(&s, tb);
		c->xa.p = npb_v3(&s, FXG_I(-300), FXG_I(300));
		c->xa.q = npb_quat(&s);
		c->xb.q = npb_quat(&s);
		uint32_t ovf = 0;
		fix16_t len;
		fxg_vec3 dir;
		do {
			dir = fxg_v3_normalize(npb_v3(&s, -FXG_ONE, FXG_ONE), &len, &ovf);
		} while (len < FXG_RATIO(1, 4));
		fix16_t lo = 0, hi = FXG_I(40);
		fxs_manifold m;
		for (int it = 0; it < 40 && hi - lo > 1; ++it) {
			fix16_t mid = lo + (hi - lo) / 2;
			c->xb.p = fxg_v3_mul_add(c->xa.p, mid, dir, &ovf);
			fxs_collide(&c->a, &c->xa, &c->b, &c->xb, spec, &m, &ovf);
			if (m.point_count > 0)
				lo = mid;
			else
				hi = mid;
		}
		/* a little inside the touching distance: overlapping by up to ~1 cm */
		c->xb.p = fxg_v3_mul_add(c->xa.p, lo - (fix16_t)(npb_next(&s) % 700), dir, &ovf);
	}
}

/* Touching configurations against a static terrain mesh (b): the shape at a
 * random point over the terrain, lowered (bisection on its height) to where
 * the manifold appears, then up to ~1 cm further down. */
static void npb_make_mesh(int ta, uint64_t seed, npb_config *out, fix16_t spec, const fxs_shape *mesh)
{
	uint64_t s = seed;
	for (int i = 0; i < NPB_CONFIGS; ++i) {
		npb_config *c = &out[i];
		c->a = npb_shape(&s, ta);
		if (ta != FXS_SHAPE_HULL) { /* sizes 0.1..1 m: a body on a terrain of 1 m cells */
			c->a.radius = c->a.radius ? FXG_RATIO(1, 10) + c->a.radius / 6 : 0;
			c->a.half_height = c->a.half_height ? FXG_RATIO(1, 10) + c->a.half_height / 6 : 0;
			if (ta == FXS_SHAPE_BOX)
				c->a.half_extents = fxg_v3(FXG_RATIO(1, 10) + c->a.half_extents.x / 6,
							   FXG_RATIO(1, 10) + c->a.half_extents.y / 6,
							   FXG_RATIO(1, 10) + c->a.half_extents.z / 6);
		}
		c->b = *mesh;
		c->xb.p = fxg_v3_zero();
		c->xb.q = fxg_q_identity();
		c->xa.q = npb_quat(&s);
		fix16_t x = npb_range(&s, FXG_I(-2), FXG_I(2)), z = npb_range(&s, FXG_I(-2), FXG_I(2));
		fix16_t lo = FXG_I(-1), hi = FXG_I(10);
		fxs_manifold m;
		uint32_t ovf = 0;
		for (int it = 0; it < 40 && hi - lo > 1; ++it) {
			fix16_t mid = lo + (hi - lo) / 2;
			c->xa.p = fxg_v3(x, mid, z);
			fxs_collide(&c->a, &c->xa, &c->b, &c->xb, spec, &m, &ovf);
			if (m.point_count > 0)
				lo = mid;
			else
				hi = mid;
		}
		c->xa.p = fxg_v3(x, lo - (fix16_t)(npb_next(&s) % 700), z);
	}
}

static int npb_parse(int argc, char **argv, uint32_t *iters)
{
	*iters = 200;
	for (int i = 1; i < argc; ++i) { /* argv[0] is "narrowphase" */
		if (strcmp(argv[i], "--help") == 0) {
			printf("usage: fixstep bench narrowphase [--iters N]\n"
			       "ns per fxs_collide call for each shape pair over %d seeded touching configurations\n"
			       "(both argument orders), N passes over the set (default 200).\n",
			       NPB_CONFIGS);
			return 0;
		}
		if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) {
			if (!cli_parse_u32(argv[++i], iters) || *iters == 0)
				return cli_usage_error("bench narrowphase: bad --iters '%s'", argv[i]);
			continue;
		}
		return cli_usage_error("bench narrowphase: unknown argument '%s'", argv[i]);
	}
	return CLI_GO;
}

/* The NPB_HULLS seeded hulls, owned by hw (a world is the only way to make
 * one), drawing from *hs; their total vertex count. */
static int npb_make_hulls(fxs_world *hw, uint64_t *hs)
{
	int hull_verts = 0;
	for (int h = 0; h < NPB_HULLS; ++h) {
		fxs_hull_id id = 0;
		while (!id) {
			fxg_vec3 ax = npb_v3(hs, FXG_RATIO(1, 5), FXG_RATIO(5, 2)), pts[24];
			int n = 8 + (int)(npb_next(hs) % 17);
			for (int k = 0; k < n; ++k) {
				uint32_t ovf = 0;
				fix16_t len;
				fxg_vec3 d;
				do {
					d = fxg_v3_normalize(npb_v3(hs, -FXG_ONE, FXG_ONE), &len, &ovf);
				} while (len < FXG_RATIO(1, 4));
				pts[k] = fxg_v3(fxg_mul(d.x, ax.x, &ovf), fxg_mul(d.y, ax.y, &ovf), fxg_mul(d.z, ax.z, &ovf));
			}
			id = fxs_world_create_hull(hw, pts, (uint32_t)n, NULL);
		}
		npb_hulls[h] = fxs_hull_shape(hw, id);
		hull_verts += npb_hulls[h].hull ? fxs_hull_vertex_count(hw, id) : 0;
	}
	return hull_verts;
}

/* A terrain mesh owned by hw: 8 x 8 cells of 1 m (128 triangles), heights
 * 0..0.5 m drawn from *hs, 0.25 m thick faces. */
static fxs_shape npb_terrain(fxs_world *hw, uint64_t *hs)
{
	fxg_vec3 tv[81];
	uint32_t tt[128 * 3], nt = 0;
	for (int j = 0; j <= 8; ++j)
		for (int i = 0; i <= 8; ++i)
			tv[j * 9 + i] = fxg_v3(FXG_I(i - 4), npb_range(hs, 0, FXG_HALF), FXG_I(j - 4));
	for (int j = 0; j < 8; ++j)
		for (int i = 0; i < 8; ++i) {
			uint32_t v0 = (uint32_t)(j * 9 + i), v1 = v0 + 1, v2 = v0 + 9, v3 = v0 + 10;
			const uint32_t q[6] = { v0, v2, v1, v1, v2, v3 };
			for (int k = 0; k < 6; ++k)
				tt[nt++] = q[k];
		}
	return fxs_mesh_shape(hw, fxs_world_create_mesh(hw, tv, 81, tt, 128, FXG_HALF / 2));
}

/* Times `iters` passes of fxs_collide over the configurations (in both
 * argument orders when both): prints the row of the table, ns per call,
 * points per configuration and overflows. */
static void npb_time(const char *name, const npb_config *cfg, fix16_t spec, uint32_t iters, bool both)
{
	uint32_t ovf = 0;
	uint64_t points = 0;
	fxs_manifold m;
	for (int i = 0; i < NPB_CONFIGS; ++i) { /* warm-up and point count */
		fxs_collide(&cfg[i].a, &cfg[i].xa, &cfg[i].b, &cfg[i].xb, spec, &m, &ovf);
		points += (uint64_t)m.point_count;
	}
	volatile int32_t sink = 0;
	uint64_t t0 = cli_now_ns();
	for (uint32_t it = 0; it < iters; ++it)
		for (int i = 0; i < NPB_CONFIGS; ++i) {
			fxs_collide(&cfg[i].a, &cfg[i].xa, &cfg[i].b, &cfg[i].xb, spec, &m, &ovf);
			sink += m.point_count;
			if (!both)
				continue;
			fxs_collide(&cfg[i].b, &cfg[i].xb, &cfg[i].a, &cfg[i].xa, spec, &m, &ovf);
			sink += m.point_count;
		}
	uint64_t dt = cli_now_ns() - t0;
	(void)sink;
	double calls = (both ? 2.0 : 1.0) * NPB_CONFIGS * iters;
	printf("%-16s %10.1f %10.2f %10u\n", name, (double)dt / calls, (double)points / NPB_CONFIGS, ovf);
}

int cli_bench_narrowphase(int argc, char **argv)
{
	uint32_t iters;
	int rc = npb_parse(argc, argv, &iters);
	if (rc != CLI_GO)
		return rc;
	static const int pairs[10][2] = { { FXS_SHAPE_SPHERE, FXS_SHAPE_SPHERE }, { FXS_SHAPE_SPHERE, FXS_SHAPE_BOX }, { FXS_SHAPE_SPHERE, FXS_SHAPE_CAPSULE }, { FXS_SHAPE_CAPSULE, FXS_SHAPE_CAPSULE }, { FXS_SHAPE_BOX, FXS_SHAPE_CAPSULE }, { FXS_SHAPE_BOX, FXS_SHAPE_BOX }, { FXS_SHAPE_SPHERE, FXS_SHAPE_HULL }, { FXS_SHAPE_BOX, FXS_SHAPE_HULL }, { FXS_SHAPE_CAPSULE, FXS_SHAPE_HULL }, { FXS_SHAPE_HULL, FXS_SHAPE_HULL } };
	static const char *names[10] = { "sphere-sphere", "sphere-box", "sphere-capsule", "capsule-capsule", "capsule-box",
					 "box-box", "sphere-hull", "box-hull", "capsule-hull", "hull-hull" };
	static const int mesh_types[4] = { FXS_SHAPE_SPHERE, FXS_SHAPE_BOX, FXS_SHAPE_CAPSULE, FXS_SHAPE_HULL };
	static const char *mesh_names[4] = { "sphere-mesh", "box-mesh", "capsule-mesh", "hull-mesh" };
	fxs_world_def wd = fxs_default_world_def();
	fxs_world *hw = fxs_world_create(&wd);
	if (!hw)
		return 1;
	uint64_t hs = 0x4B11ull;
	int hull_verts = npb_make_hulls(hw, &hs);
	const fix16_t spec = FXG_RATIO(2, 100);
	npb_config *cfg = malloc(sizeof(npb_config) * NPB_CONFIGS);
	if (!cfg)
		return 1;
	printf("narrowphase: %d touching configurations per pair, %u passes, both argument orders; hulls of %.1f vertices on average\n",
	       NPB_CONFIGS, iters, (double)hull_verts / NPB_HULLS);
	printf("%-16s %10s %10s %10s\n", "pair", "ns/call", "points", "overflows");
	for (int p = 0; p < 10; ++p) {
		npb_make(pairs[p][0], pairs[p][1], 0x5EED0000ull + (uint64_t)p, cfg, spec);
		npb_time(names[p], cfg, spec, iters, true);
	}
	/* each convex shape against a terrain mesh */
	fxs_shape mesh = npb_terrain(hw, &hs);
	for (int p = 0; mesh.mesh && p < 4; ++p) {
		npb_make_mesh(mesh_types[p], 0x3E5B0000ull + (uint64_t)p, cfg, spec, &mesh);
		npb_time(mesh_names[p], cfg, spec, iters, false);
	}
	printf("(x-mesh: against a 128-triangle terrain, one argument order)\n");
	free(cfg);
	fxs_world_destroy(hw);
	return 0;
}
