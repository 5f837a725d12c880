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

typedef struct sw_options {
	const fxs_scene *sc;
	uint32_t steps, probes;
	double radius, probe_r; /* m */
} sw_options;

/* The wall spheres of a scene's static mesh and how they were placed. */
typedef struct walls {
	fxs_sphere_walls_def def;
	fxs_sphere_walls_stats st;
	fxg_vec3 *c; /* n centres */
	uint32_t n;
	double build_ms;
} walls;

/* Probe balls against the mesh and the spheres: contact with both, either
 * or neither; the mesh contacts the spheres miss by the surface's facing. */
typedef struct probe_counts {
	uint32_t both, mesh_only, spheres_only, neither, miss_up, miss_side, miss_down;
	double worst_miss; /* m */
} probe_counts;

static int sw_usage(void)
{
	printf("usage: fixstep spherewalls SCENE [--radius R] [--steps N] [--probes K] [--probe-radius P]\n\n"
	       "Approximates the scene's static mesh by seed 004's wall spheres of radius R\n"
	       "(default 0.25 m), then compares the two representations: the scene run for N\n"
	       "steps (default 300) with the thick-face mesh and with the spheres (pairs and\n"
	       "contacts per step, ms per step), and K random probe balls of radius P (default\n"
	       "0.3 m, a character) in the mesh's bounds: contact with the mesh vs with the\n"
	       "spheres, and where the spheres miss.\n");
	return 0;
}

static int sw_parse(int argc, char **argv, sw_options *o)
{
	const char *name = NULL;
	*o = (sw_options){ .steps = 300, .probes = 20000, .radius = 0.25, .probe_r = 0.3 };
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			return sw_usage();
		} else if (strcmp(a, "--steps") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o->steps) || o->steps == 0)
				return cli_usage_error("--steps needs a positive integer");
		} else if (strcmp(a, "--probes") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &o->probes))
				return cli_usage_error("--probes needs a non-negative integer");
		} else if (strcmp(a, "--radius") == 0 || strcmp(a, "--probe-radius") == 0) {
			char *end;
			double v = ++i < argc ? strtod(argv[i], &end) : 0;
			if (i >= argc || *end || !(v >= 0.05 && v <= 10))
				return cli_usage_error("%s needs a number of metres in 0.05..10", a);
			if (a[2] == 'r')
				o->radius = v;
			else
				o->probe_r = v;
		} else if (!cli_positional("spherewalls", a, &name, 1)) {
			return 2;
		}
	}
	if (!name)
		return cli_usage_error("spherewalls needs a scene with a static mesh (e.g. mesh_level)");
	return (o->sc = cli_scene(name)) ? CLI_GO : 2;
}

/* The wall spheres for the mesh body mb of wm: CLI_GO, or 2 after the error. */
static int walls_build(fxs_world *wm, fxs_body_id mb, double radius, walls *wl)
{
	wl->def = fxs_default_sphere_walls_def();
	wl->def.radius = (fix16_t)(radius * 65536 + 0.5);
	uint64_t t0 = cli_now_ns();
	wl->n = fxs_sphere_walls_build(wm, mb, &wl->def, NULL, 0, &wl->st);
	if (wl->n == UINT32_MAX)
		return cli_usage_error("could not build the wall spheres (too many? try a larger --radius)");
	wl->c = malloc(((size_t)wl->n + 1) * sizeof *wl->c);
	fxs_sphere_walls_build(wm, mb, &wl->def, wl->c, wl->n, &wl->st);
	wl->build_ms = (double)(cli_now_ns() - t0) / 1e6 / 2;
	return CLI_GO;
}

/* The scene with its mesh replaced by the static wall spheres. */
static fxs_world *spheres_world(const fxs_scene *sc, const walls *wl)
{
	fxs_world *ws = sc->create();
	fxs_body_destroy(ws, find_mesh_body(ws));
	for (uint32_t i = 0; i < wl->n; ++i) {
		fxs_body_def d = fxs_default_body_def();
		d.type = FXS_BODY_STATIC;
		d.shape.type = FXS_SHAPE_SPHERE;
		d.shape.radius = wl->def.radius;
		d.position = wl->c[i];
		fxs_body_create(ws, &d);
	}
	return ws;
}

/* Does a ball at p of radius def.radius + ball reach any wall sphere? */
static bool touches_spheres(const walls *wl, fxg_vec3 p, int64_t reach)
{
	for (uint32_t i = 0; i < wl->n; ++i) {
		int64_t dx = (int64_t)wl->c[i].x - p.x, dy = (int64_t)wl->c[i].y - p.y, dz = (int64_t)wl->c[i].z - p.z;
		if (dx > reach || dx < -reach || dy > reach || dy < -reach || dz > reach || dz < -reach)
			continue;
		if (dx * dx + dy * dy + dz * dz <= reach * reach)
			return true;
	}
	return false;
}

/* One probe ball at p against the mesh and the spheres, counted into pc. */
static void probe_one(const walls *wl, const fxs_shape *ball, const fxs_shape *mesh, const fxs_transform *mxf,
		      fxg_vec3 p, probe_counts *pc)
{
	fxs_transform pxf = { p, { 0, 0, 0, FXG_ONE } };
	fxs_manifold m;
	uint32_t ovf = 0;
	fxs_collide(ball, &pxf, mesh, mxf, 0, &m, &ovf);
	fix16_t deepest = 0;
	int touch_mesh = 0;
	for (int q = 0; q < m.point_count; ++q)
		if (m.points[q].separation <= 0) {
			touch_mesh = 1;
			if (m.points[q].separation < deepest)
				deepest = m.points[q].separation;
		}
	bool touch_spheres = touches_spheres(wl, p, (int64_t)wl->def.radius + ball->radius);
	if (touch_mesh && touch_spheres)
		pc->both++;
	else if (touch_mesh) {
		pc->mesh_only++;
		if (-deepest / 65536.0 > pc->worst_miss)
			pc->worst_miss = -deepest / 65536.0;
		/* m.normal points from the probe to the mesh: a floor is below */
		if (m.normal.y < -45875)
			pc->miss_up++; /* the surface faces up: a floor */
		else if (m.normal.y > 45875)
			pc->miss_down++;
		else
			pc->miss_side++;
	} else if (touch_spheres)
		pc->spheres_only++;
	else
		pc->neither++;
}

/* Seeded random probe balls in the spheres' bounds: contact (separation
 * <= 0) with the mesh vs with any sphere. */
static probe_counts probe(const sw_options *o, const walls *wl)
{
	probe_counts pc = { 0 };
	fxs_world *wp = o->sc->create();
	fxs_body_id mp = find_mesh_body(wp);
	fxs_shape mesh = fxs_body_get_shape(wp, mp);
	fxs_transform mxf = { fxs_body_get_position(wp, mp), fxs_body_get_rotation(wp, mp) };
	fxg_vec3 lo = wl->c[0], hi = wl->c[0];
	for (uint32_t i = 0; i < wl->n; ++i) {
		lo = fxg_v3_min(lo, wl->c[i]);
		hi = fxg_v3_max(hi, wl->c[i]);
	}
	fxs_shape ball = { 0 };
	ball.type = FXS_SHAPE_SPHERE;
	ball.radius = (fix16_t)(o->probe_r * 65536 + 0.5);
	uint64_t seed = 4;
	for (uint32_t k = 0; k < o->probes; ++k) {
		fxg_vec3 p;
		p.x = lo.x + (fix16_t)(splitmix(&seed) % (uint64_t)((int64_t)hi.x - lo.x + 1));
		p.y = lo.y + (fix16_t)(splitmix(&seed) % (uint64_t)((int64_t)hi.y - lo.y + 1));
		p.z = lo.z + (fix16_t)(splitmix(&seed) % (uint64_t)((int64_t)hi.z - lo.z + 1));
		probe_one(wl, &ball, &mesh, &mxf, p, &pc);
	}
	fxs_world_destroy(wp);
	return pc;
}

static void sw_report_walls(const fxs_scene *sc, const walls *wl, double radius)
{
	printf("scene %s: static mesh -> %u wall spheres of radius %.3f m\n", sc->name, wl->n, radius);
	printf("  placement: %u probes, %u ray hits, %u near-duplicates merged (%u candidate pairs), %.1f ms\n",
	       wl->st.probes, wl->st.hits, wl->st.merged, wl->st.candidate_pairs, wl->build_ms);
}

static void sw_report_runs(const run_stats *a, const run_stats *b)
{
	printf("  %-26s %10s %10s %10s\n", "run of the scene", "ms/step", "pairs", "contacts");
	printf("  %-26s %10.3f %10.1f %10.1f\n", "thick-face mesh", a->ms_per_step, a->pairs, a->contacts);
	printf("  %-26s %10.3f %10.1f %10.1f\n", "wall spheres", b->ms_per_step, b->pairs, b->contacts);
}

static void sw_report_probes(const sw_options *o, const probe_counts *pc, const run_stats *a, const run_stats *b)
{
	printf("  %u probe balls of radius %.2f m: touching both %u, neither %u\n", o->probes, o->probe_r, pc->both,
	       pc->neither);
	printf("  missed by the spheres (mesh contact only): %u (floors %u, walls %u, ceilings %u), deepest %.4f m\n",
	       pc->mesh_only, pc->miss_up, pc->miss_side, pc->miss_down, pc->worst_miss);
	printf("  extra contacts of the spheres only: %u (probes behind a face or in the solid the thick faces ignore)\n",
	       pc->spheres_only);
	printf("mesh run hash %016" PRIx64 "\n", a->hash);
	printf("hash %016" PRIx64 "\n", b->hash); /* the run with the spheres: the crosscheck's cell */
}

int cmd_spherewalls(int argc, char **argv)
{
	sw_options o;
	int rc = sw_parse(argc, argv, &o);
	if (rc != CLI_GO)
		return rc;
	fxs_world *wm = o.sc->create();
	fxs_body_id mb = find_mesh_body(wm);
	walls wl;
	if (!fxs_body_is_valid(wm, mb))
		rc = cli_usage_error("scene '%s' has no static mesh", o.sc->name);
	else
		rc = walls_build(wm, mb, o.radius, &wl);
	if (rc != CLI_GO) {
		fxs_world_destroy(wm);
		return rc;
	}
	sw_report_walls(o.sc, &wl, o.radius);
	fxs_world *ws = spheres_world(o.sc, &wl);
	run_stats a = run(wm, o.steps), b = run(ws, o.steps);
	sw_report_runs(&a, &b);
	probe_counts pc = probe(&o, &wl);
	sw_report_probes(&o, &pc, &a, &b);
	free(wl.c);
	fxs_world_destroy(wm);
	fxs_world_destroy(ws);
	return 0;
}
