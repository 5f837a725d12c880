/* fixstep draw: one view of a scene after N steps as an SVG image, made
 * through the kernel's debug draw (fixstep/debug_draw.h). A tool, so it
 * may use floating point: the picture, never the simulation. */
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/scene_play.h"
#include "fixstep/debug_draw.h"

#include <stdlib.h>
#include <string.h>

typedef struct pt {
	double x, y;
} pt;

typedef struct canvas {
	FILE *f;                       /* NULL: the first pass, which only measures */
	int view;                      /* 0 top (x, z), 1 front (x, -y), 2 side (z, -y) */
	double lo_x, lo_y, hi_x, hi_y; /* the extent of what was drawn, in metres */
	double scale, ox, oy;          /* metres -> pixels */
	bool any;
} canvas;

static double m(fix16_t v) { return v / 65536.0; }
/* (no libm: the program links none) */
static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }
static double dabs(double a) { return a < 0 ? -a : a; }

static pt project(const canvas *c, fxg_vec3 v)
{
	pt p;
	switch (c->view) {
	case 1:
		p.x = m(v.x), p.y = -m(v.y);
		break;
	case 2:
		p.x = m(v.z), p.y = -m(v.y);
		break;
	default:
		p.x = m(v.x), p.y = m(v.z);
		break;
	}
	return p;
}

static void grow(canvas *c, pt p, double r)
{
	if (!c->any || p.x - r < c->lo_x)
		c->lo_x = p.x - r;
	if (!c->any || p.y - r < c->lo_y)
		c->lo_y = p.y - r;
	if (!c->any || p.x + r > c->hi_x)
		c->hi_x = p.x + r;
	if (!c->any || p.y + r > c->hi_y)
		c->hi_y = p.y + r;
	c->any = true;
}

static pt px(const canvas *c, pt p)
{
	pt q = { (p.x - c->ox) * c->scale, (p.y - c->oy) * c->scale };
	return q;
}

static void style(const canvas *c, uint32_t color, double opacity)
{
	fprintf(c->f, " fill=\"#%06x\" fill-opacity=\"%.2f\" stroke=\"#%06x\" stroke-width=\"1\"", color & 0xFFFFFFu,
		opacity, color & 0xFFFFFFu);
}

/* a convex polygon of projected points (a box's silhouette: the hull of its corners) */
static void polygon(canvas *c, const pt *p, int n, uint32_t color, double opacity)
{
	if (!c->f) {
		for (int i = 0; i < n; ++i)
			grow(c, p[i], 0);
		return;
	}
	fprintf(c->f, "<polygon points=\"");
	for (int i = 0; i < n; ++i) {
		pt q = px(c, p[i]);
		fprintf(c->f, "%s%.1f,%.1f", i ? " " : "", q.x, q.y);
	}
	fprintf(c->f, "\"");
	style(c, color, opacity);
	fprintf(c->f, "/>\n");
}

static double cross(pt o, pt a, pt b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

static int cmp_pt(const void *a, const void *b)
{
	const pt *p = a, *q = b;
	return p->x < q->x ? -1 : p->x > q->x ? 1
		: p->y < q->y                 ? -1
					      : p->y > q->y;
}

/* Andrew's monotone chain: the convex hull of n <= 8 points into out */
static int hull2d(pt *p, int n, pt *out)
{
	qsort(p, (size_t)n, sizeof *p, cmp_pt);
	int k = 0;
	for (int i = 0; i < n; ++i) {
		while (k >= 2 && cross(out[k - 2], out[k - 1], p[i]) <= 0)
			--k;
		out[k++] = p[i];
	}
	for (int i = n - 2, t = k + 1; i >= 0; --i) {
		while (k >= t && cross(out[k - 2], out[k - 1], p[i]) <= 0)
			--k;
		out[k++] = p[i];
	}
	return k - 1;
}

static void on_box(fxs_transform xf, fxg_vec3 h, uint32_t color, void *ctx)
{
	canvas *c = ctx;
	pt p[8], out[17];
	uint32_t ovf = 0;
	for (int i = 0; i < 8; ++i) {
		fxg_vec3 corner = fxg_v3(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z);
		p[i] = project(c, fxg_v3_add(xf.p, fxg_q_rotate(xf.q, corner, &ovf), &ovf));
	}
	polygon(c, out, hull2d(p, 8, out), color, 0.55);
}

static void on_sphere(fxg_vec3 center, fix16_t radius, uint32_t color, void *ctx)
{
	canvas *c = ctx;
	pt p = project(c, center);
	if (!c->f) {
		grow(c, p, m(radius));
		return;
	}
	pt q = px(c, p);
	fprintf(c->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", q.x, q.y, m(radius) * c->scale);
	style(c, color, 0.7);
	fprintf(c->f, "/>\n");
}

static void on_capsule(fxg_vec3 a, fxg_vec3 b, fix16_t radius, uint32_t color, void *ctx)
{
	canvas *c = ctx;
	pt p = project(c, a), q = project(c, b);
	if (!c->f) {
		grow(c, p, m(radius)), grow(c, q, m(radius));
		return;
	}
	pt pp = px(c, p), qq = px(c, q);
	fprintf(c->f,
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#%06x\" stroke-opacity=\"0.7\" "
		"stroke-width=\"%.1f\" stroke-linecap=\"round\"/>\n",
		pp.x, pp.y, qq.x, qq.y, color & 0xFFFFFFu, 2 * m(radius) * c->scale);
}

static void on_polygon(const fxg_vec3 *v, int32_t n, uint32_t color, void *ctx)
{
	canvas *c = ctx;
	pt p[64];
	int k = 0;
	for (int32_t i = 0; i < n && k < 64; ++i)
		p[k++] = project(c, v[i]);
	polygon(c, p, k, color, 0.25);
}

static void on_triangle(fxg_vec3 a, fxg_vec3 b, fxg_vec3 t, uint32_t color, void *ctx)
{
	canvas *c = ctx;
	pt p[3] = { project(c, a), project(c, b), project(c, t) };
	polygon(c, p, 3, color, 0.2);
}

static void on_segment(fxg_vec3 a, fxg_vec3 b, uint32_t color, void *ctx)
{
	canvas *c = ctx;
	pt p = project(c, a), q = project(c, b);
	if (!c->f) {
		grow(c, p, 0), grow(c, q, 0);
		return;
	}
	pt pp = px(c, p), qq = px(c, q);
	fprintf(c->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#%06x\" stroke-width=\"1.5\"/>\n",
		pp.x, pp.y, qq.x, qq.y, color & 0xFFFFFFu);
}

static void on_point(fxg_vec3 v, uint32_t color, void *ctx)
{
	canvas *c = ctx;
	pt p = project(c, v);
	if (!c->f) {
		grow(c, p, 0);
		return;
	}
	pt q = px(c, p);
	fprintf(c->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#%06x\"/>\n", q.x, q.y, color & 0xFFFFFFu);
}

static void on_aabb(fxs_aabb b, uint32_t color, void *ctx)
{
	canvas *c = ctx;
	pt p = project(c, b.lo), q = project(c, b.hi);
	if (!c->f) {
		grow(c, p, 0), grow(c, q, 0);
		return;
	}
	pt a = px(c, p), z = px(c, q);
	fprintf(c->f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#%06x\" "
		"stroke-dasharray=\"4 3\"/>\n",
		dmin(a.x, z.x), dmin(a.y, z.y), dabs(z.x - a.x), dabs(z.y - a.y), color & 0xFFFFFFu);
}

int cmd_draw(int argc, char **argv)
{
	const char *name = NULL, *out = NULL, *view_name = "top";
	uint32_t steps = 0, size = 800;
	bool contacts = false, aabbs = false;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0) {
			printf("usage: fixstep draw SCENE [--step N] [--view top|front|side] [--size PX] [--contacts]\n"
			       "                  [--aabbs] -o FILE.svg\n\n"
			       "Plays SCENE for N steps (default 0) with its scripted players, as `fixstep\n"
			       "events` does, and writes one orthographic view of the world as an SVG image:\n"
			       "top looks down y (x right, z down), front along z, side along x. Bodies are\n"
			       "coloured by what they are (static grey, dynamic orange, asleep light grey,\n"
			       "kinematic blue, sensors green); joints purple. --contacts adds the contact\n"
			       "points and normals, --aabbs every body's bounds. PX: the longer side (800).\n");
			return 0;
		} else if (strcmp(a, "--step") == 0 || strcmp(a, "--steps") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &steps))
				return cli_usage_error("--step needs a non-negative integer");
		} else if (strcmp(a, "--size") == 0) {
			if (++i >= argc || !cli_parse_u32(argv[i], &size) || size < 16 || size > 20000)
				return cli_usage_error("--size needs a number of pixels, 16..20000");
		} else if (strcmp(a, "--view") == 0) {
			if (++i >= argc)
				return cli_usage_error("--view needs top, front or side");
			view_name = argv[i];
		} else if (strcmp(a, "-o") == 0) {
			if (++i >= argc)
				return cli_usage_error("-o needs a file name");
			out = argv[i];
		} else if (strcmp(a, "--contacts") == 0) {
			contacts = true;
		} else if (strcmp(a, "--aabbs") == 0) {
			aabbs = true;
		} else if (a[0] == '-') {
			return cli_usage_error("draw: unknown option '%s'", a);
		} else if (!name) {
			name = a;
		} else {
			return cli_usage_error("draw: unexpected argument '%s'", a);
		}
	}
	int view = strcmp(view_name, "top") == 0 ? 0 : strcmp(view_name, "front") == 0 ? 1
		: strcmp(view_name, "side") == 0                                       ? 2
										       : -1;
	if (view < 0)
		return cli_usage_error("--view needs top, front or side, not '%s'", view_name);
	if (!out)
		return cli_usage_error("draw needs -o FILE (see fixstep draw --help)");
	const fxs_scene *sc;
	fxs_world *w;
	int bad = cli_scene_open(name, "draw", &sc, &w);
	if (bad)
		return bad;
	for (uint32_t s = 0; s < steps; ++s)
		if (!cli_scene_play_tick(sc, w)) {
			fxs_world_destroy(w);
			return 1;
		}
	canvas c;
	memset(&c, 0, sizeof c);
	c.view = view;
	fxs_debug_draw dd = fxs_default_debug_draw();
	dd.draw_box = on_box, dd.draw_sphere = on_sphere, dd.draw_capsule = on_capsule;
	dd.draw_polygon = on_polygon, dd.draw_triangle = on_triangle, dd.draw_segment = on_segment;
	dd.draw_point = on_point, dd.draw_aabb = on_aabb;
	dd.draw_contact_points = dd.draw_contact_normals = contacts;
	dd.draw_aabbs = aabbs;
	dd.context = &c;
	fxs_world_draw(w, &dd); /* measure */
	if (!c.any)
		c.hi_x = c.hi_y = 1;
	double wm = c.hi_x - c.lo_x, hm = c.hi_y - c.lo_y, margin = 0.03 * dmax(wm, hm) + 0.1;
	c.ox = c.lo_x - margin, c.oy = c.lo_y - margin;
	c.scale = size / dmax(wm + 2 * margin, hm + 2 * margin);
	FILE *f = fopen(out, "w");
	if (!f) {
		fxs_world_destroy(w);
		return cli_usage_error("cannot write '%s'", out);
	}
	c.f = f;
	double pw = (wm + 2 * margin) * c.scale, ph = (hm + 2 * margin) * c.scale;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n", pw,
		ph, pw, ph);
	fprintf(f, "<title>fixstep draw %s, step %u, %s view</title>\n", name, steps, view_name);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
	fxs_world_draw(w, &dd);
	fprintf(f, "</svg>\n");
	int werr = ferror(f);
	if (fclose(f) != 0 || werr) {
		fxs_world_destroy(w);
		return cli_usage_error("cannot write '%s'", out);
	}
	printf("wrote %s: %s after %u steps, %s view, %.0f x %.0f px, %u bodies\n", out, name, steps, view_name, pw, ph,
	       fxs_world_body_count(w));
	fxs_world_destroy(w);
	return 0;
}
