/* fixstep spherewalls: seed 004's wall spheres for a scene's static mesh,
 * compared with the thick-face mesh on the same level: the sphere count,
 * pairs and cost per step with each representation, and where the spheres
 * miss a contact the mesh has (probe balls of a character's size). */
#include "cli/cli.h"
#include "cli/commands.h"
#include "scenes/scenes.h"

#include "fixstep/query.h"
#include "fixstep/sphere_walls.h"
#include "collide/narrowphase.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static fxs_body_id find_mesh_body(const fxs_world *w)
{
	for (uint32_t i = 0; i < fxs_world_slot_count(w); ++i) {
		fxs_body_id id = fxs_world_body_at(w, i);
		if (fxs_body_is_valid(w, id) && fxs_body_get_shape(w, id).type == FXS_SHAPE_MESH)
			return id;
	}
	return fxs_null_body;
}

typedef struct run_stats {
	double ms_per_step, pairs, contacts;
	uint64_t hash;
} run_stats;

static run_stats run(fxs_world *w, uint32_t steps)
{
	run_stats r = { 0, 0, 0, 0 };
	uint64_t t0 = cli_now_ns();
	for (uint32_t s = 0; s < steps; ++s) {
		if (!cli_step(w))
			exit(1); /* a benchmark has nothing to report */
		fxs_step_stats st = fxs_world_get_stats(w);
		r.pairs += st.pair_count;
		r.contacts += st.contact_count;
	}
	r.ms_per_step = (double)(cli_now_ns() - t0) / 1e6 / steps;
	r.pairs /= steps;
	r.contacts /= steps;
	r.hash = fxs_world_hash(w);
	return r;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

int cmd_spherewalls(int argc, char **argv)
{
	const char *name = NULL;
	uint32_t steps = 300, probes = 20000;
	double radius = 0.25, probe_r = 0.3;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			printf("usage: fixstep spherewalls SCENE [--radius R] [--steps N] [--probes K] [--probe-radius P]\n\n"
			       "Approximates the scene's static mesh by seed 004's wall spheres of radius R\n"
			       "(default 0.25 m), then compares the two representations: the scene run for N\n"
			       "steps (default 300) with the thick-face mesh and with the spheres (pairs and\n"
			       "contacts per step, ms per step), and K random probe balls of radius P (default\n"
			       "0.3 m, a character) in the mesh's bounds: contact with the mesh vs with the\n"
			       "spheres, and where the spheres miss.\n");
			return 0;
		} else if (strcmp(a, "--steps") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &steps) || steps == 0)
				return cli_usage_error("--steps needs a positive integer");
		} else if (strcmp(a, "--probes") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &probes))
				return cli_usage_error("--probes needs a non-negative integer");
		} else if (strcmp(a, "--radius") == 0 || strcmp(a, "--probe-radius") == 0) {
			char *end;
			double v = ++i < argc ? strtod(argv[i], &end) : 0;
			if (i >= argc || *end || !(v >= 0.05 && v <= 10))
				return cli_usage_error("%s needs a number of metres in 0.05..10", a);
			if (a[2] == 'r')
				radius = v;
			else
				probe_r = v;
		} else if (a[0] == '-') {
			return cli_usage_error("spherewalls: unknown option '%s'", a);
		} else if (!name) {
			name = a;
		} else {
			return cli_usage_error("spherewalls: unexpected argument '%s'", a);
		}
	}
	if (!name)
		return cli_usage_error("spherewalls needs a scene with a static mesh (e.g. mesh_level)");
	const fxs_scene *sc = fxs_scene_find(name);
	if (!sc)
		return cli_usage_error("unknown scene '%s' (see fixstep scenes)", name);
	fxs_world *wm = sc->create();
	fxs_body_id mb = find_mesh_body(wm);
	if (!fxs_body_is_valid(wm, mb)) {
		fxs_world_destroy(wm);
		return cli_usage_error("scene '%s' has no static mesh", name);
	}
	fxs_sphere_walls_def def = fxs_default_sphere_walls_def();
	def.radius = (fix16_t)(radius * 65536 + 0.5);
	fxs_sphere_walls_stats st;
	uint64_t t0 = cli_now_ns();
	uint32_t n = fxs_sphere_walls_build(wm, mb, &def, NULL, 0, &st);
	if (n == UINT32_MAX) {
		fxs_world_destroy(wm);
		return cli_usage_error("could not build the wall spheres (too many? try a larger --radius)");
	}
	fxg_vec3 *c = malloc(((size_t)n + 1) * sizeof *c);
	fxs_sphere_walls_build(wm, mb, &def, c, n, &st);
	double build_ms = (double)(cli_now_ns() - t0) / 1e6 / 2;
	printf("scene %s: static mesh -> %u wall spheres of radius %.3f m\n", name, n, radius);
	printf("  placement: %u probes, %u ray hits, %u near-duplicates merged (%u candidate pairs), %.1f ms\n",
	       st.probes, st.hits, st.merged, st.candidate_pairs, build_ms);

	/* the same scene with the mesh replaced by static spheres */
	fxs_world *ws = sc->create();
	fxs_body_id mb2 = find_mesh_body(ws);
	fxs_body_destroy(ws, mb2);
	for (uint32_t i = 0; i < n; ++i) {
		fxs_body_def d = fxs_default_body_def();
		d.type = FXS_BODY_STATIC;
		d.shape.type = FXS_SHAPE_SPHERE;
		d.shape.radius = def.radius;
		d.position = c[i];
		fxs_body_create(ws, &d);
	}
	run_stats a = run(wm, steps), b = run(ws, steps);
	printf("  %-26s %10s %10s %10s\n", "run of the scene", "ms/step", "pairs", "contacts");
	printf("  %-26s %10.3f %10.1f %10.1f\n", "thick-face mesh", a.ms_per_step, a.pairs, a.contacts);
	printf("  %-26s %10.3f %10.1f %10.1f\n", "wall spheres", b.ms_per_step, b.pairs, b.contacts);

	/* probes: contact (separation <= 0) with the mesh vs with any sphere */
	fxs_world *wp = sc->create();
	fxs_body_id mp = find_mesh_body(wp);
	fxs_shape mesh = fxs_body_get_shape(wp, mp);
	fxs_transform mxf = { fxs_body_get_position(wp, mp), fxs_body_get_rotation(wp, mp) };
	fxg_vec3 lo = c[0], hi = c[0];
	for (uint32_t i = 0; i < n; ++i) {
		lo = fxg_v3_min(lo, c[i]);
		hi = fxg_v3_max(hi, c[i]);
	}
	fxs_shape ball = { 0 };
	ball.type = FXS_SHAPE_SPHERE;
	ball.radius = (fix16_t)(probe_r * 65536 + 0.5);
	uint64_t seed = 4;
	uint32_t both = 0, mesh_only = 0, spheres_only = 0, neither = 0, miss_up = 0, miss_side = 0, miss_down = 0;
	double worst_miss = 0;
	int64_t reach = (int64_t)def.radius + ball.radius;
	for (uint32_t k = 0; k < probes; ++k) {
		fxg_vec3 p;
		p.x = lo.x + (fix16_t)(splitmix(&seed) % (uint64_t)((int64_t)hi.x - lo.x + 1));
		p.y = lo.y + (fix16_t)(splitmix(&seed) % (uint64_t)((int64_t)hi.y - lo.y + 1));
		p.z = lo.z + (fix16_t)(splitmix(&seed) % (uint64_t)((int64_t)hi.z - lo.z + 1));
		fxs_transform pxf = { p, { 0, 0, 0, FXG_ONE } };
		fxs_manifold m;
		uint32_t ovf = 0;
		fxs_collide(&ball, &pxf, &mesh, &mxf, 0, &m, &ovf);
		fix16_t deepest = 0;
		int touch_mesh = 0;
		for (int q = 0; q < m.point_count; ++q)
			if (m.points[q].separation <= 0) {
				touch_mesh = 1;
				if (m.points[q].separation < deepest)
					deepest = m.points[q].separation;
			}
		int touch_spheres = 0;
		for (uint32_t i = 0; i < n && !touch_spheres; ++i) {
			int64_t dx = (int64_t)c[i].x - p.x, dy = (int64_t)c[i].y - p.y, dz = (int64_t)c[i].z - p.z;
			if (dx > reach || dx < -reach || dy > reach || dy < -reach || dz > reach || dz < -reach)
				continue;
			touch_spheres = dx * dx + dy * dy + dz * dz <= reach * reach;
		}
		if (touch_mesh && touch_spheres)
			both++;
		else if (touch_mesh) {
			mesh_only++;
			if (-deepest / 65536.0 > worst_miss)
				worst_miss = -deepest / 65536.0;
			/* m.normal points from the probe to the mesh: a floor is below */
			if (m.normal.y < -45875)
				miss_up++; /* the surface faces up: a floor */
			else if (m.normal.y > 45875)
				miss_down++;
			else
				miss_side++;
		} else if (touch_spheres)
			spheres_only++;
		else
			neither++;
	}
	printf("  %u probe balls of radius %.2f m: touching both %u, neither %u\n", probes, probe_r, both, neither);
	printf("  missed by the spheres (mesh contact only): %u (floors %u, walls %u, ceilings %u), deepest %.4f m\n",
	       mesh_only, miss_up, miss_side, miss_down, worst_miss);
	printf("  extra contacts of the spheres only: %u (probes behind a face or in the solid the thick faces ignore)\n",
	       spheres_only);
	printf("mesh run hash %016" PRIx64 "\n", a.hash);
	printf("hash %016" PRIx64 "\n", b.hash); /* the run with the spheres: the crosscheck's cell */
	free(c);
	fxs_world_destroy(wm);
	fxs_world_destroy(ws);
	fxs_world_destroy(wp);
	return 0;
}
