/* Hull narrowphase: seeded property tests of sphere-hull, box-hull,
 * capsule-hull and hull-hull against a double-precision reference computed
 * here (double is allowed in tests only), and hull against a mesh floor.
 *
 * Random hulls: 4..24 points in an ellipsoid of semi-axes 0.2..2.5 m (the
 * build keeps at most 32 vertices), boxes and round shapes 0.1..2.5 m, A
 * anywhere within +-300 m, B placed so that the reference separation is
 * within +-5 mm for half the pairs and +-0.5 m for the others.
 *
 * Reference: the exact separating-axis test in double over every face normal
 * of both polytopes and every cross product of their edges (for polytopes the
 * largest separation over these axes is the signed distance when they
 * overlap, and has the right sign when they do not); a sphere: the exact
 * distance to the polytope's surface (signed); a capsule: the segment against
 * the polytope by the same SAT (face normals and segment x edges, exact when
 * overlapping) and, when separated, the exact segment-triangle distance.
 *
 * Stated bounds (checked over every pair):
 *   - contact / no contact (speculative 0) agrees with the reference outside
 *     the band |ref| <= 0.3 mm;
 *   - the deepest point's separation is within 0.5 mm of the reference for
 *     sphere-hull; within 4 mm + 12% of |ref| for the others when overlapping
 *     (the SAT prefers faces by 2 mm + 10%, as box-box does);
 *   - |normal| is within 4 LSB of 1; fxs_collide(b, a) is the exact mirror
 *     for pairs of different types; no overflow. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixstep/fixstep.h"
#include "geometry/hull.h"
#include "collide/narrowphase.h"
#include "test.h"
#include "narrowphase_util.h"

#define BAND 0.0003
#define DEPTH_ABS_ROUND 0.0005
#define DEPTH_ABS_POLY 0.004
#define DEPTH_REL 0.12

/* a polytope in world coordinates, double */
typedef struct dpoly {
	int nv, nf, ne;
	double v[32][3], n[60][3], o[60];
	int fs[61], fv[180];
	double e[90][3];
	int ev[90];
} dpoly;

static void rot_of(fxg_quat q, double r[3][3])
{
	uint32_t ovf = 0;
	fxg_mat3 m = fxg_m3_from_quat(q, &ovf);
	fxg_vec3 c[3] = { m.cx, m.cy, m.cz };
	for (int j = 0; j < 3; ++j) {
		r[0][j] = D(c[j].x);
		r[1][j] = D(c[j].y);
		r[2][j] = D(c[j].z);
	}
}

static void to_world(double r[3][3], const fxs_transform *x, const double *l, double *o)
{
	for (int i = 0; i < 3; ++i)
		o[i] = D((&x->p.x)[i]) + r[i][0] * l[0] + r[i][1] * l[1] + r[i][2] * l[2];
}

static void make_dpoly(const fxs_hull_geom *g, const fxs_transform *x, dpoly *p)
{
	double r[3][3];
	rot_of(x->q, r);
	p->nv = g->n_verts, p->nf = g->n_faces, p->ne = g->n_edges;
	for (int i = 0; i < g->n_verts; ++i) {
		double l[3] = { D(g->v[i].x), D(g->v[i].y), D(g->v[i].z) };
		to_world(r, x, l, p->v[i]);
	}
	for (int f = 0; f <= g->n_faces; ++f)
		p->fs[f] = g->face_start[f];
	for (int k = 0; k < g->face_start[g->n_faces]; ++k)
		p->fv[k] = g->face_verts[k];
	for (int f = 0; f < g->n_faces; ++f) {
		/* the exact plane through the polygon's first three world vertices */
		const double *a = p->v[p->fv[p->fs[f]]], *b = p->v[p->fv[p->fs[f] + 1]], *c = p->v[p->fv[p->fs[f] + 2]];
		double e1[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] }, e2[3] = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
		cross3(e1, e2, p->n[f]);
		double l = sqrt(dot3(p->n[f], p->n[f]));
		for (int k = 0; k < 3; ++k)
			p->n[f][k] /= l;
		p->o[f] = dot3(p->n[f], a);
	}
	for (int e = 0; e < g->n_edges; ++e) {
		const double *a = p->v[g->edge_v[e][0]], *b = p->v[g->edge_v[e][1]];
		for (int k = 0; k < 3; ++k)
			p->e[e][k] = b[k] - a[k];
		p->ev[e] = g->edge_v[e][0];
	}
}

static void proj(const dpoly *p, const double *ax, double *lo, double *hi)
{
	*lo = INFINITY, *hi = -INFINITY;
	for (int i = 0; i < p->nv; ++i) {
		double d = dot3(ax, p->v[i]);
		*lo = d < *lo ? d : *lo;
		*hi = d > *hi ? d : *hi;
	}
}

static double axis_sep(const double *ax, double alo, double ahi, double blo, double bhi)
{
	(void)ax;
	double s1 = blo - ahi, s2 = alo - bhi;
	return s1 > s2 ? s1 : s2;
}

/* SAT between polytope a and a point set b (segment when nb == 2, with its
 * direction as the only "edge") */
static double sat_poly(const dpoly *a, const dpoly *b, int b_is_segment)
{
	double best = -INFINITY;
	for (int f = 0; f < a->nf; ++f) {
		double alo, ahi, blo, bhi;
		proj(a, a->n[f], &alo, &ahi);
		proj(b, a->n[f], &blo, &bhi);
		double s = axis_sep(a->n[f], alo, ahi, blo, bhi);
		best = s > best ? s : best;
	}
	for (int f = 0; !b_is_segment && f < b->nf; ++f) {
		double alo, ahi, blo, bhi;
		proj(a, b->n[f], &alo, &ahi);
		proj(b, b->n[f], &blo, &bhi);
		double s = axis_sep(b->n[f], alo, ahi, blo, bhi);
		best = s > best ? s : best;
	}
	for (int i = 0; i < a->ne; ++i)
		for (int j = 0; j < b->ne; ++j) {
			double ax[3];
			cross3(a->e[i], b->e[j], ax);
			double l = sqrt(dot3(ax, ax));
			if (l < 1e-9 * sqrt(dot3(a->e[i], a->e[i]) * dot3(b->e[j], b->e[j])))
				continue;
			for (int k = 0; k < 3; ++k)
				ax[k] /= l;
			double alo, ahi, blo, bhi;
			proj(a, ax, &alo, &ahi);
			proj(b, ax, &blo, &bhi);
			double s = axis_sep(ax, alo, ahi, blo, bhi);
			best = s > best ? s : best;
		}
	return best;
}

/* distance from x to the polytope surface, negative inside */
static double point_poly(const dpoly *p, const double *x)
{
	double smax = -INFINITY;
	for (int f = 0; f < p->nf; ++f) {
		double s = dot3(p->n[f], x) - p->o[f];
		smax = s > smax ? s : smax;
	}
	if (smax <= 0)
		return smax;
	double best = INFINITY;
	for (int f = 0; f < p->nf; ++f) {
		double s = dot3(p->n[f], x) - p->o[f];
		if (s <= 0)
			continue;
		int n = p->fs[f + 1] - p->fs[f];
		int inside = 1;
		for (int k = 0; k < n; ++k) {
			const double *a = p->v[p->fv[p->fs[f] + k]], *b = p->v[p->fv[p->fs[f] + (k + 1) % n]];
			double e[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] }, w[3], ax[3] = { x[0] - a[0], x[1] - a[1], x[2] - a[2] };
			cross3(e, p->n[f], w);
			if (dot3(ax, w) <= 0)
				continue;
			inside = 0;
			double t = clampd(dot3(ax, e) / dot3(e, e), 0, 1);
			double q[3] = { a[0] + t * e[0] - x[0], a[1] + t * e[1] - x[1], a[2] + t * e[2] - x[2] };
			double d = sqrt(dot3(q, q));
			best = d < best ? d : best;
		}
		if (inside)
			best = s < best ? s : best;
	}
	return best;
}

/* segment-segment distance */
static double seg_seg(const double *p0, const double *p1, const double *q0, const double *q1)
{
	double d1[3], d2[3], r[3];
	for (int k = 0; k < 3; ++k)
		d1[k] = p1[k] - p0[k], d2[k] = q1[k] - q0[k], r[k] = p0[k] - q0[k];
	double a = dot3(d1, d1), e = dot3(d2, d2), f = dot3(d2, r), c = dot3(d1, r), b = dot3(d1, d2);
	double den = a * e - b * b, s = 0, t;
	if (den > 1e-12 * a * e)
		s = clampd((b * f - c * e) / den, 0, 1);
	t = (b * s + f) / e;
	if (t < 0)
		t = 0, s = clampd(-c / a, 0, 1);
	else if (t > 1)
		t = 1, s = clampd((b - c) / a, 0, 1);
	double d[3];
	for (int k = 0; k < 3; ++k)
		d[k] = p0[k] + s * d1[k] - q0[k] - t * d2[k];
	return sqrt(dot3(d, d));
}

/* the distance from a segment outside a polytope to it: the minimum over
 * the endpoints against the surface and the segment against every edge */
static double seg_poly_dist(const dpoly *p, const double *s0, const double *s1)
{
	double best = point_poly(p, s0), d = point_poly(p, s1);
	best = d < best ? d : best;
	for (int e = 0; e < p->ne; ++e) {
		const double *a = p->v[p->ev[e]];
		double b[3] = { a[0] + p->e[e][0], a[1] + p->e[e][1], a[2] + p->e[e][2] };
		d = seg_seg(s0, s1, a, b);
		best = d < best ? d : best;
	}
	return best;
}

static void shape_poly(const fxs_shape *s, const fxs_transform *x, dpoly *p)
{
	fxs_hull_geom g;
	if (s->type == FXS_SHAPE_BOX)
		fxs_hull_geom_box(s->half_extents, &g);
	else
		g = s->hull->g;
	make_dpoly(&g, x, p);
}

static double ref_sep(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb)
{
	if (a->type == FXS_SHAPE_HULL && b->type != FXS_SHAPE_HULL)
		return ref_sep(b, xb, a, xa);
	static dpoly pa, pb;
	shape_poly(b, xb, &pb);
	if (a->type == FXS_SHAPE_SPHERE) {
		double c[3] = { D(xa->p.x), D(xa->p.y), D(xa->p.z) };
		return point_poly(&pb, c) - D(a->radius);
	}
	if (a->type == FXS_SHAPE_CAPSULE) {
		double r[3][3];
		rot_of(xa->q, r);
		double l0[3] = { 0, -D(a->half_height), 0 }, l1[3] = { 0, D(a->half_height), 0 };
		memset(&pa, 0, sizeof pa);
		pa.nv = 2, pa.ne = 1;
		to_world(r, xa, l0, pa.v[0]);
		to_world(r, xa, l1, pa.v[1]);
		for (int k = 0; k < 3; ++k)
			pa.e[0][k] = pa.v[1][k] - pa.v[0][k];
		double sat = sat_poly(&pb, &pa, 1);
		if (sat <= 0)
			return sat - D(a->radius);
		return seg_poly_dist(&pb, pa.v[0], pa.v[1]) - D(a->radius);
	}
	shape_poly(a, xa, &pa);
	return sat_poly(&pa, &pb, 0);
}

/* --------------------------------------------------------------- shapes */

#define POOL 64
static fxs_world_hull pool[POOL];

static void make_pool(void)
{
	static int done = 0;
	if (done)
		return;
	uint64_t s = 0x5EEDull;
	for (int i = 0; i < POOL; ++i) {
		for (;;) {
			double ax = 0.2 + 2.3 * urand(&s), ay = 0.2 + 2.3 * urand(&s), az = 0.2 + 2.3 * urand(&s);
			int n = 4 + (int)(urand(&s) * 21);
			fxg_vec3 p[24];
			for (int k = 0; k < n; ++k) {
				double d[3], l;
				do {
					for (int c = 0; c < 3; ++c)
						d[c] = 2 * urand(&s) - 1;
					l = dot3(d, d);
				} while (l > 1 || l < 0.01);
				/* on the ellipsoid's surface for most points, inside for some */
				double sc = k % 5 == 4 ? 0.5 : 1 / sqrt(l);
				p[k] = fxg_v3(F(d[0] * sc * ax), F(d[1] * sc * ay), F(d[2] * sc * az));
			}
			fxs_world_hull *h = &pool[i];
			if (fxs_hull_build(p, n, &h->src) != FXS_HULL_OK)
				continue;
			fxg_wide m, I[6];
			uint32_t ovf = 0;
			fxs_hull_mass(&h->src, FXG_ONE, &m, &h->com, I, &ovf);
			fxs_hull_geom_build(&h->src, h->com, &h->g);
			break;
		}
	}
	done = 1;
}

static fxs_shape rand_shape(uint64_t *s, int type)
{
	fxs_shape sh;
	memset(&sh, 0, sizeof sh);
	sh.type = type;
	double a = 0.1 + 2.4 * urand(s), b = 0.1 + 2.4 * urand(s), c = 0.1 + 2.4 * urand(s);
	if (type == FXS_SHAPE_SPHERE)
		sh.radius = F(a);
	else if (type == FXS_SHAPE_BOX)
		sh.half_extents = fxg_v3(F(a), F(b), F(c));
	else if (type == FXS_SHAPE_CAPSULE)
		sh.radius = F(a), sh.half_height = F(b);
	else
		sh.hull = &pool[test_rng_next(s) % POOL];
	return sh;
}

static double bound_radius(const fxs_shape *s)
{
	if (s->type == FXS_SHAPE_SPHERE)
		return D(s->radius);
	if (s->type == FXS_SHAPE_CAPSULE)
		return D(s->radius) + D(s->half_height);
	if (s->type == FXS_SHAPE_BOX)
		return sqrt(D(s->half_extents.x) * D(s->half_extents.x) + D(s->half_extents.y) * D(s->half_extents.y) +
			    D(s->half_extents.z) * D(s->half_extents.z));
	double r = 0;
	for (int i = 0; i < s->hull->g.n_verts; ++i) {
		fxg_vec3 v = s->hull->g.v[i];
		double d = sqrt(D(v.x) * D(v.x) + D(v.y) * D(v.y) + D(v.z) * D(v.z));
		r = d > r ? d : r;
	}
	return r;
}

static void rand_pair(uint64_t *s, int ta, int tb, fxs_shape *a, fxs_transform *xa, fxs_shape *b, fxs_transform *xb,
		      double spread)
{
	*a = rand_shape(s, ta);
	*b = rand_shape(s, tb);
	double px = 600 * urand(s) - 300, py = 600 * urand(s) - 300, pz = 600 * urand(s) - 300;
	xa->p = fxg_v3(F(px), F(py), F(pz));
	xa->q = rand_quat(s);
	xb->q = rand_quat(s);
	double dir[3], n;
	do {
		for (int k = 0; k < 3; ++k)
			dir[k] = 2 * urand(s) - 1;
		n = sqrt(dot3(dir, dir));
	} while (n < 0.1 || n > 1);
	double target = spread * (urand(s) - 0.5);
	double lo = 0, hi = bound_radius(a) + bound_radius(b) + 1;
	for (int it = 0; it < 30; ++it) {
		double mid = (lo + hi) / 2;
		xb->p = fxg_v3(xa->p.x + F(mid * dir[0] / n), xa->p.y + F(mid * dir[1] / n), xa->p.z + F(mid * dir[2] / n));
		if (ref_sep(a, xa, b, xb) < target)
			lo = mid;
		else
			hi = mid;
	}
}

static const int pair_types[4][2] = { { FXS_SHAPE_SPHERE, FXS_SHAPE_HULL },
				      { FXS_SHAPE_BOX, FXS_SHAPE_HULL },
				      { FXS_SHAPE_CAPSULE, FXS_SHAPE_HULL },
				      { FXS_SHAPE_HULL, FXS_SHAPE_HULL } };
static const char *pair_names[4] = { "sphere-hull", "box-hull", "capsule-hull", "hull-hull" };

static void property_run(int pt, int count, uint64_t seed)
{
	make_pool();
	uint64_t s = seed;
	int ta = pair_types[pt][0], tb = pair_types[pt][1];
	double worst = 0;
	int band = 0, contacts = 0;
	for (int i = 0; i < count; ++i) {
		fxs_shape a, b;
		fxs_transform xa, xb;
		double spread = (i & 2) ? 0.01 : 1.0;
		if (i & 1)
			rand_pair(&s, tb, ta, &b, &xb, &a, &xa, spread);
		else
			rand_pair(&s, ta, tb, &a, &xa, &b, &xb, spread);
		double ref = ref_sep(&a, &xa, &b, &xb);
		fxs_manifold m0, m, r;
		uint32_t ovf = 0;
		fxs_collide(&a, &xa, &b, &xb, 0, &m0, &ovf);
		fxs_collide(&a, &xa, &b, &xb, FXG_I(2), &m, &ovf);
		fxs_collide(&b, &xb, &a, &xa, FXG_I(2), &r, &ovf);
		CHECKF(ovf == 0, "%s #%d: %u overflows", pair_names[pt], i, ovf);
		if (ta != tb)
			CHECKF(mirror_ok(&m, &r), "%s #%d: not a mirror", pair_names[pt], i);
		if (m.point_count > 0)
			CHECKF(unit_err_lsb(m.normal) <= 4, "%s #%d: |n| off by %" PRId64 " LSB", pair_names[pt], i,
			       unit_err_lsb(m.normal));
		for (int k = 0; k < m0.point_count; ++k)
			CHECKF(m0.points[k].separation <= 0, "%s #%d: point beyond speculative", pair_names[pt], i);
		if (fabs(ref) <= BAND) {
			++band;
			continue;
		}
		bool touch = m0.point_count > 0;
		contacts += touch;
		CHECKF(touch == (ref < 0), "%s #%d: contact %d but reference separation %.6f (ours %.6f, %d pts)",
		       pair_names[pt], i, touch, ref, min_sep(&m), m.point_count);
		bool round = pt == 0;
		if (ref < 1.5 && (round || ref < 0)) {
			CHECKF(m.point_count > 0, "%s #%d: no points at reference %.6f", pair_names[pt], i, ref);
			double err = fabs(min_sep(&m) - ref);
			double bound = round ? DEPTH_ABS_ROUND : DEPTH_ABS_POLY + DEPTH_REL * fabs(ref);
			CHECKF(err <= bound, "%s #%d: separation %.6f vs reference %.6f", pair_names[pt], i, min_sep(&m), ref);
			if (err > worst)
				worst = err;
		}
	}
	if (!test_quick)
		printf("  %s: %d pairs, %d contacts, %d in band, worst depth error %.6f m\n", pair_names[pt], count,
		       contacts, band, worst);
}

#define PROPERTY_TEST(name, pt) \
	SLOW_TEST(name) { property_run(pt, test_quick ? 300 : (pt == 3 ? 2000 : 5000), 0xD1B54A32D192ED03ull * (pt + 1)); }
PROPERTY_TEST(np_property_sphere_hull, 0)
PROPERTY_TEST(np_property_box_hull, 1)
PROPERTY_TEST(np_property_capsule_hull, 2)
PROPERTY_TEST(np_property_hull_hull, 3)

/* A hull resting flat on a box and on a mesh floor: a cube-corner hull gets
 * the 4 corners of its bottom face, separation 0 within 2 LSB. */
TEST(np_hull_cube_on_box_and_on_mesh)
{
	fxs_world_def wd = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&wd);
	fxg_vec3 pts[8];
	for (int i = 0; i < 8; ++i)
		pts[i] = fxg_v3(i & 1 ? -FXG_HALF : FXG_HALF, i & 2 ? -FXG_HALF : FXG_HALF, i & 4 ? -FXG_HALF : FXG_HALF);
	fxs_hull_id h = fxs_world_create_hull(w, pts, 8, NULL);
	fxs_shape hs = fxs_hull_shape(w, h);
	fxs_shape floor_box;
	memset(&floor_box, 0, sizeof floor_box);
	floor_box.type = FXS_SHAPE_BOX;
	floor_box.half_extents = fxg_v3(FXG_I(10), FXG_HALF, FXG_I(10));
	fxs_transform xf = { fxg_v3(0, -FXG_HALF, 0), fxg_q_identity() };
	fxs_transform xh = { fxg_v3(FXG_I(3), FXG_HALF, FXG_I(2)), fxg_q_identity() };
	fxs_manifold m;
	uint32_t ovf = 0;
	fxs_collide(&floor_box, &xf, &hs, &xh, FXG_ONE / 50, &m, &ovf);
	CHECKF(m.point_count == 4, "%d points on the box", m.point_count);
	CHECK(m.normal.x == 0 && m.normal.y == FXG_ONE && m.normal.z == 0);
	for (int k = 0; k < 4; ++k)
		CHECK(abs(m.points[k].separation) <= 2);
	fxg_vec3 mv[4] = { fxg_v3(FXG_I(-10), 0, FXG_I(-10)), fxg_v3(FXG_I(10), 0, FXG_I(-10)),
			   fxg_v3(FXG_I(10), 0, FXG_I(10)), fxg_v3(FXG_I(-10), 0, FXG_I(10)) };
	uint32_t tris[6] = { 0, 2, 1, 0, 3, 2 };
	fxs_mesh_id mid = fxs_world_create_mesh(w, mv, 4, tris, 2, FXG_HALF);
	CHECK(mid != 0);
	fxs_shape ms = fxs_mesh_shape(w, mid);
	fxs_transform xm = { fxg_v3_zero(), fxg_q_identity() };
	fxs_collide(&hs, &xh, &ms, &xm, FXG_ONE / 50, &m, &ovf);
	CHECKF(m.point_count == 4, "%d points on the mesh", m.point_count);
	CHECK(m.normal.y == -FXG_ONE);
	for (int k = 0; k < 4; ++k)
		CHECK(abs(m.points[k].separation) <= 2);
	CHECK(ovf == 0);
	fxs_world_destroy(w);
}
