/* Narrowphase tests: hand-made cases and seeded property tests against a
 * double-precision reference computed here (double is allowed in tests only).
 *
 * Stated bounds (checked below, over every random pair; sizes 0.1..5 m, A
 * anywhere within +-300 m, B placed so the reference separation is within
 * +-5 mm for half the pairs and +-0.5 m for the others):
 *   - contact / no contact (speculative 0) agrees with the reference signed
 *     separation outside the band |ref| <= 0.3 mm (NP_BAND_*);
 *   - the deepest point's separation is within 0.5 mm of the reference for
 *     sphere-sphere, sphere-capsule, capsule-capsule and sphere-box; within
 *     4 mm + 12% of |ref| for box-capsule and box-box, whose separating-axis
 *     choice prefers faces by 2 mm + 10% (box-box is checked when overlapping
 *     only: for separated boxes the SAT reference is a lower bound);
 *   - |normal| is within NP_UNIT_LSB of 1;
 *   - fxs_collide(b, a) is bit-identical with the normal negated when the
 *     shapes differ in type or size (equal sizes keep the caller order);
 *   - no overflow is counted.
 * The bands come from Q16.16 rotations: a rotation-matrix entry is within
 * about 2^-17 of exact, which moves a point 5 m from a centre by ~40 um; a
 * pair adds two such errors and the rounding of the relative position. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collide/collide_common.h"
#include "solve/contact_batch.h"
#include "collide/narrowphase.h"
#include "collide/recycle.h"
#include "test.h"
#include "narrowphase_util.h"
#include "vector_levels.h"

#define NP_BAND_ROUND 0.0003
#define NP_BAND_BOX 0.0003
#define NP_DEPTH_ABS_ROUND 0.0005
#define NP_DEPTH_ABS_BOX 0.004
#define NP_DEPTH_REL 0.12
#define NP_UNIT_LSB 4

static fxs_shape mk_sphere(double r)
{
	fxs_shape s = { .type = FXS_SHAPE_SPHERE, .radius = F(r) };
	return s;
}
static fxs_shape mk_box(double x, double y, double z)
{
	fxs_shape s = { .type = FXS_SHAPE_BOX, .half_extents = { F(x), F(y), F(z) } };
	return s;
}
static fxs_shape mk_capsule(double hh, double r)
{
	fxs_shape s = { .type = FXS_SHAPE_CAPSULE, .radius = F(r), .half_height = F(hh) };
	return s;
}
static fxs_transform mk_xf(double x, double y, double z)
{
	fxs_transform t = { { F(x), F(y), F(z) }, { 0, 0, 0, FXG_ONE } };
	return t;
}
/* rotation of `deg` degrees about a unit axis (authoring-time float use) */
static fxg_quat mk_rot(double ax, double ay, double az, double deg)
{
	double h = deg * 3.14159265358979323846 / 360.0, n = sqrt(ax * ax + ay * ay + az * az);
	uint32_t ovf = 0;
	fxg_quat q = fxg_q(F(sin(h) * ax / n), F(sin(h) * ay / n), F(sin(h) * az / n), F(cos(h)));
	return fxg_q_normalize(q, &ovf);
}

/* ---------------------------------------------------------------- reference */

typedef struct {
	double p[3];
	double r[3][3]; /* columns r[k] = local axis k in world */
} dxf;

static dxf to_dxf(const fxs_transform *t)
{
	dxf o;
	o.p[0] = D(t->p.x);
	o.p[1] = D(t->p.y);
	o.p[2] = D(t->p.z);
	double x = D(t->q.x), y = D(t->q.y), z = D(t->q.z), w = D(t->q.w);
	double n = sqrt(x * x + y * y + z * z + w * w);
	x /= n, y /= n, z /= n, w /= n;
	double cx[3] = { 1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y) };
	double cy[3] = { 2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x) };
	double cz[3] = { 2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y) };
	memcpy(o.r[0], cx, sizeof cx);
	memcpy(o.r[1], cy, sizeof cy);
	memcpy(o.r[2], cz, sizeof cz);
	return o;
}

/* segment (a0 + s u, |s| <= ha) to segment (b0 + t v, |t| <= hb) distance */
static double seg_seg(const double *a0, const double *u, double ha, const double *b0, const double *v, double hb)
{
	double r[3] = { a0[0] - b0[0], a0[1] - b0[1], a0[2] - b0[2] };
	double b = dot3(u, v), c = dot3(u, r), f = dot3(v, r), den = 1 - b * b;
	double best = INFINITY;
	/* interior stationary point, then all four edges of the (s, t) square */
	double cands[5][2];
	int n = 0;
	if (den > 1e-12) {
		double s = (b * f - c) / den, t = f + s * b;
		if (fabs(s) <= ha && fabs(t) <= hb)
			cands[n][0] = s, cands[n][1] = t, ++n;
	}
	for (int e = 0; e < 2; ++e) {
		double s = e ? ha : -ha;
		cands[n][0] = s, cands[n][1] = clampd(f + s * b, -hb, hb), ++n;
		double t = e ? hb : -hb;
		cands[n][0] = clampd(t * b - c, -ha, ha), cands[n][1] = t, ++n;
	}
	for (int i = 0; i < n; ++i) {
		double d[3];
		for (int k = 0; k < 3; ++k)
			d[k] = r[k] + cands[i][0] * u[k] - cands[i][1] * v[k];
		double l = sqrt(dot3(d, d));
		if (l < best)
			best = l;
	}
	return best;
}

/* signed distance from local point x to a box (negative inside) */
static double point_box(const double *x, const double *h)
{
	double out = 0, in = -INFINITY;
	for (int k = 0; k < 3; ++k) {
		double e = fabs(x[k]) - h[k];
		if (e > 0)
			out += e * e;
		if (e > in)
			in = e;
	}
	return out > 0 ? sqrt(out) : in;
}

static void to_local(const dxf *f, const double *w, double *o)
{
	double d[3] = { w[0] - f->p[0], w[1] - f->p[1], w[2] - f->p[2] };
	for (int k = 0; k < 3; ++k)
		o[k] = dot3(f->r[k], d);
}

/* separation of segment (local c + s u, |s| <= hh) and box h: distance when
 * apart, else the largest separating-axis value (minus the depth) */
static double seg_box(const double *c, const double *u, double hh, const double *h)
{
	double lo = -hh, hi = hh;
	for (int it = 0; it < 64; ++it) {
		double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
		double x1[3], x2[3];
		for (int k = 0; k < 3; ++k)
			x1[k] = c[k] + m1 * u[k], x2[k] = c[k] + m2 * u[k];
		if (point_box(x1, h) < point_box(x2, h))
			hi = m2;
		else
			lo = m1;
	}
	double x[3];
	for (int k = 0; k < 3; ++k)
		x[k] = c[k] + (lo + hi) / 2 * u[k];
	double dist = point_box(x, h);
	if (dist > 1e-9)
		return dist;
	double best = -INFINITY;
	for (int k = 0; k < 3; ++k) {
		double s = fabs(c[k]) - h[k] - hh * fabs(u[k]);
		if (s > best)
			best = s;
		double e[3] = { 0, 0, 0 }, n[3];
		e[k] = 1;
		cross3(u, e, n);
		double l = sqrt(dot3(n, n));
		if (l < 1e-9)
			continue;
		s = (fabs(dot3(c, n)) - h[0] * fabs(n[0]) - h[1] * fabs(n[1]) - h[2] * fabs(n[2])) / l;
		if (s > best)
			best = s;
	}
	return best;
}

/* double SAT over 15 axes: exact sign, and minus the depth when overlapping */
static double box_box(const dxf *fa, const double *ha, const dxf *fb, const double *hb)
{
	double d[3] = { fb->p[0] - fa->p[0], fb->p[1] - fa->p[1], fb->p[2] - fa->p[2] };
	double axes[15][3];
	int n = 0;
	for (int i = 0; i < 3; ++i) {
		memcpy(axes[n++], fa->r[i], sizeof axes[0]);
		memcpy(axes[n++], fb->r[i], sizeof axes[0]);
		for (int j = 0; j < 3; ++j) {
			cross3(fa->r[i], fb->r[j], axes[n]);
			double l = sqrt(dot3(axes[n], axes[n]));
			if (l < 1e-9)
				continue;
			for (int k = 0; k < 3; ++k)
				axes[n][k] /= l;
			++n;
		}
	}
	double best = -INFINITY;
	for (int a = 0; a < n; ++a) {
		double ra = 0, rb = 0;
		for (int k = 0; k < 3; ++k)
			ra += ha[k] * fabs(dot3(fa->r[k], axes[a])), rb += hb[k] * fabs(dot3(fb->r[k], axes[a]));
		double s = fabs(dot3(d, axes[a])) - ra - rb;
		if (s > best)
			best = s;
	}
	return best;
}

static double ref_sep(const fxs_shape *a, const fxs_transform *ta, const fxs_shape *b, const fxs_transform *tb)
{
	if (a->type > b->type)
		return ref_sep(b, tb, a, ta);
	dxf fa = to_dxf(ta), fb = to_dxf(tb);
	double ra = D(a->radius), rb = D(b->radius);
	double ha[3] = { D(a->half_extents.x), D(a->half_extents.y), D(a->half_extents.z) };
	double hb[3] = { D(b->half_extents.x), D(b->half_extents.y), D(b->half_extents.z) };
	if (a->type == FXS_SHAPE_SPHERE && b->type == FXS_SHAPE_SPHERE) {
		double d[3] = { fb.p[0] - fa.p[0], fb.p[1] - fa.p[1], fb.p[2] - fa.p[2] };
		return sqrt(dot3(d, d)) - ra - rb;
	}
	if (a->type == FXS_SHAPE_SPHERE && b->type == FXS_SHAPE_CAPSULE)
		return seg_seg(fa.p, fb.r[1], 0, fb.p, fb.r[1], D(b->half_height)) - ra - rb;
	if (a->type == FXS_SHAPE_CAPSULE && b->type == FXS_SHAPE_CAPSULE)
		return seg_seg(fa.p, fa.r[1], D(a->half_height), fb.p, fb.r[1], D(b->half_height)) - ra - rb;
	if (a->type == FXS_SHAPE_SPHERE && b->type == FXS_SHAPE_BOX) {
		double x[3];
		to_local(&fb, fa.p, x);
		return point_box(x, hb) - ra;
	}
	if (a->type == FXS_SHAPE_BOX && b->type == FXS_SHAPE_CAPSULE) {
		double c[3], u[3];
		to_local(&fa, fb.p, c);
		for (int k = 0; k < 3; ++k)
			u[k] = dot3(fa.r[k], fb.r[1]);
		return seg_box(c, u, D(b->half_height), ha) - rb;
	}
	return box_box(&fa, ha, &fb, hb);
}

/* ------------------------------------------------------------------ helpers */

static fxs_shape rand_shape(uint64_t *s, int type)
{
	double a = 0.1 + 4.9 * urand(s), b = 0.1 + 4.9 * urand(s), c = 0.1 + 4.9 * urand(s);
	if (type == FXS_SHAPE_SPHERE)
		return mk_sphere(a);
	if (type == FXS_SHAPE_BOX)
		return mk_box(a, b, c);
	return mk_capsule(a, b);
}

static double bound_radius(const fxs_shape *s)
{
	if (s->type == FXS_SHAPE_SPHERE)
		return D(s->radius);
	if (s->type == FXS_SHAPE_CAPSULE)
		return D(s->radius) + D(s->half_height);
	return sqrt(D(s->half_extents.x) * D(s->half_extents.x) + D(s->half_extents.y) * D(s->half_extents.y) +
		    D(s->half_extents.z) * D(s->half_extents.z));
}

/* B placed near touching A: along a random direction at a distance chosen so
 * that the reference separation lands within +-spread/2 of zero. */
static void rand_pair(uint64_t *s, int ta, int tb, fxs_shape *a, fxs_transform *xa, fxs_shape *b, fxs_transform *xb,
		      double spread)
{
	*a = rand_shape(s, ta);
	*b = rand_shape(s, tb);
	double px = 600 * urand(s) - 300, py = 600 * urand(s) - 300, pz = 600 * urand(s) - 300; /* sequenced */
	xa->p = fxg_v3(F(px), F(py), F(pz));
	xa->q = rand_quat(s);
	xb->q = rand_quat(s);
	double dir[3], n;
	do {
		for (int k = 0; k < 3; ++k)
			dir[k] = 2 * urand(s) - 1;
		n = sqrt(dot3(dir, dir));
	} while (n < 0.1 || n > 1);
	/* bisect the centre distance for a target separation in [-0.5, 0.5] */
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

/* --------------------------------------------------------------- properties */

static const int pair_types[6][2] = { { FXS_SHAPE_SPHERE, FXS_SHAPE_SPHERE }, { FXS_SHAPE_SPHERE, FXS_SHAPE_BOX }, { FXS_SHAPE_SPHERE, FXS_SHAPE_CAPSULE }, { FXS_SHAPE_CAPSULE, FXS_SHAPE_CAPSULE }, { FXS_SHAPE_BOX, FXS_SHAPE_CAPSULE }, { FXS_SHAPE_BOX, FXS_SHAPE_BOX } };
static const char *pair_names[6] = { "sphere-sphere", "sphere-box", "sphere-capsule", "capsule-capsule", "box-capsule", "box-box" };

static void property_run(int pt, int count, uint64_t seed)
{
	uint64_t s = seed;
	int ta = pair_types[pt][0], tb = pair_types[pt][1];
	bool boxy = pt >= 4;
	double worst = 0;
	int band = 0, contacts = 0;
	for (int i = 0; i < count; ++i) {
		fxs_shape a, b;
		fxs_transform xa, xb;
		/* alternate the argument order so both directions are exercised */
		/* half the pairs within +-5 mm of touching, where rounding decides */
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
		CHECKF(mirror_ok(&m, &r), "%s #%d: not a mirror", pair_names[pt], i);
		CHECKF(unit_err_lsb(m.normal) <= NP_UNIT_LSB, "%s #%d: |n| off by %" PRId64 " LSB", pair_names[pt], i,
		       unit_err_lsb(m.normal));
		for (int k = 0; k < m0.point_count; ++k)
			CHECKF(m0.points[k].separation <= 0, "%s #%d: point beyond speculative", pair_names[pt], i);
		if (fabs(ref) <= (boxy ? NP_BAND_BOX : NP_BAND_ROUND)) {
			++band;
			continue;
		}
		bool touch = m0.point_count > 0;
		contacts += touch;
		CHECKF(touch == (ref < 0), "%s #%d: contact %d but reference separation %.6f (ours %.6f, %d pts)",
		       pair_names[pt], i, touch, ref, min_sep(&m), m.point_count);
		if (ref < 1.5 && !(pt == 5 && ref > 0)) {
			CHECKF(m.point_count > 0, "%s #%d: no points at reference %.6f", pair_names[pt], i, ref);
			double err = fabs(min_sep(&m) - ref);
			double bound = boxy ? NP_DEPTH_ABS_BOX + NP_DEPTH_REL * fabs(ref) : NP_DEPTH_ABS_ROUND;
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
	SLOW_TEST(name) { property_run(pt, test_quick ? 1000 : 20000, 0x9E3779B97F4A7C15ull * (pt + 1)); }
PROPERTY_TEST(np_property_sphere_sphere, 0)
PROPERTY_TEST(np_property_sphere_box, 1)
PROPERTY_TEST(np_property_sphere_capsule, 2)
PROPERTY_TEST(np_property_capsule_capsule, 3)
PROPERTY_TEST(np_property_box_capsule, 4)
PROPERTY_TEST(np_property_box_box, 5)

/* -------------------------------------------------------------- hand-made */

static int has_point_near(const fxs_manifold *m, double x, double y, double z, double tol)
{
	for (int i = 0; i < m->point_count; ++i) {
		fxg_vec3 p = m->points[i].point;
		if (fabs(D(p.x) - x) <= tol && fabs(D(p.y) - y) <= tol && fabs(D(p.z) - z) <= tol)
			return 1;
	}
	return 0;
}

static int same_ids(const fxs_manifold *a, const fxs_manifold *b)
{
	if (a->point_count != b->point_count)
		return 0;
	for (int i = 0; i < a->point_count; ++i)
		if (a->points[i].feature_id != b->points[i].feature_id)
			return 0;
	return 1;
}

/* A unit box resting flat on a big static box: 4 points at its corners,
 * separation 0 within 2 LSB, the same manifold at any offset, and the same
 * ids after a translation of a few LSB. */
TEST(np_box_resting_on_box)
{
	const double offs[3][3] = { { 0, 0, 0 }, { 300.25, -200.5, 123.125 }, { 30000, 10, -30000 } };
	fxs_shape floor = mk_box(10, 1, 10), box = mk_box(0.5, 0.5, 0.5);
	fxs_manifold first = { 0 }; /* set at the first offset; gcc -O3 cannot tell */
	for (int o = 0; o < 3; ++o) {
		double ox = offs[o][0], oy = offs[o][1], oz = offs[o][2];
		fxs_transform xf = mk_xf(ox, oy, oz), xb = mk_xf(ox, oy + 1.5, oz);
		fxs_manifold m, r;
		uint32_t ovf = 0;
		fxs_collide(&floor, &xf, &box, &xb, F(0.02), &m, &ovf);
		fxs_collide(&box, &xb, &floor, &xf, F(0.02), &r, &ovf);
		CHECK(ovf == 0);
		CHECK(mirror_ok(&m, &r));
		CHECK(m.point_count == 4);
		CHECK(fxg_v3_eq(m.normal, fxg_v3(0, FXG_ONE, 0)));
		for (int i = 0; i < 4; ++i)
			CHECKF(abs(m.points[i].separation) <= 2, "separation %d LSB", m.points[i].separation);
		for (int sx = -1; sx <= 1; sx += 2)
			for (int sz = -1; sz <= 1; sz += 2)
				CHECK(has_point_near(&m, ox + 0.5 * sx, oy + 1, oz + 0.5 * sz, 3.0 / 65536));
		if (o == 0)
			first = m;
		CHECK(same_ids(&m, &first));
		/* nothing moves: the same bits */
		fxs_manifold again;
		fxs_collide(&floor, &xf, &box, &xb, F(0.02), &again, &ovf);
		CHECK(memcmp(&again, &m, sizeof m) == 0);
		/* a tiny translation and a tiny sink keep the ids */
		xb.p.x += 5, xb.p.y -= 3, xb.p.z -= 2;
		fxs_collide(&floor, &xf, &box, &xb, F(0.02), &again, &ovf);
		CHECK(same_ids(&again, &m));
		/* a tiny tilt (0.05 degrees) keeps them too */
		xb.q = mk_rot(1, 0, 1, 0.05);
		fxs_collide(&floor, &xf, &box, &xb, F(0.02), &again, &ovf);
		CHECK(same_ids(&again, &m));
	}
}

/* Two equal boxes stacked, the top one turned 45 degrees about y: 4 points,
 * the top box's corners inside the bottom's top face... */
TEST(np_box_on_box_turned)
{
	fxs_shape box = mk_box(0.5, 0.5, 0.5);
	fxs_transform xa = mk_xf(0, 0, 0), xb = mk_xf(0, 0.995, 0);
	xb.q = mk_rot(0, 1, 0, 45);
	fxs_manifold m;
	uint32_t ovf = 0;
	fxs_collide(&box, &xa, &box, &xb, F(0.02), &m, &ovf);
	CHECK(ovf == 0);
	CHECK(m.point_count == 4);
	CHECK(unit_err_lsb(fxg_v3_sub(m.normal, fxg_v3(0, FXG_ONE, 0), &ovf)) <= 65536 + 2);
	CHECKF(m.normal.y >= FXG_ONE - 2, "normal y %d", m.normal.y);
	for (int i = 0; i < 4; ++i)
		CHECKF(abs(m.points[i].separation - F(-0.005)) <= 4, "sep %d", m.points[i].separation);
	/* the octagon of the overlap reduces to 4 points spread over it */
	double area = 0;
	for (int i = 0; i < 4; ++i)
		for (int j = i + 1; j < 4; ++j) {
			double dx = D(m.points[i].point.x) - D(m.points[j].point.x);
			double dz = D(m.points[i].point.z) - D(m.points[j].point.z);
			if (dx * dx + dz * dz > area)
				area = dx * dx + dz * dz;
		}
	CHECKF(area > 0.9, "points too close: max squared spread %.3f", area);
}

/* Edge across edge: one point, an edge-edge feature id, normal along y. */
TEST(np_box_edge_edge)
{
	fxs_shape box = mk_box(1, 1, 1);
	fxs_transform xa = mk_xf(0, 0, 0), xb = mk_xf(0.1, 2 * sqrt(2.0) - 0.01, -0.2);
	xa.q = mk_rot(0, 0, 1, 45);
	xb.q = mk_rot(1, 0, 0, 45);
	fxs_manifold m;
	uint32_t ovf = 0;
	fxs_collide(&box, &xa, &box, &xb, F(0.02), &m, &ovf);
	CHECK(ovf == 0);
	CHECK(m.point_count == 1);
	/* (edge of A, edge of B): both features are edges (collide_box_box.c) */
	CHECK((m.points[0].feature_id >> 10) == 2 && ((m.points[0].feature_id >> 4) & 3) == 2);
	CHECKF(fabs(D(m.normal.y) - 1) < 1e-4 && fabs(D(m.normal.x)) < 1e-4, "normal %d %d %d", m.normal.x, m.normal.y,
	       m.normal.z);
	CHECKF(fabs(D(m.points[0].separation) + 0.01) < 2e-4, "sep %.6f", D(m.points[0].separation));
	CHECK(has_point_near(&m, 0, sqrt(2.0) - 0.005, -0.2, 2e-4));
}

/* A sphere on a box face, edge and vertex: normal and depth. */
TEST(np_sphere_on_box)
{
	fxs_shape box = mk_box(1, 1, 1), ball = mk_sphere(0.5);
	fxs_transform xb = mk_xf(5, 5, 5);
	const double c[3][3] = { { 0.2, 1.49, -0.3 }, { 1.3, 1.3, 0 }, { 1.2, 1.2, 1.2 } };
	const double sep[3] = { -0.01, sqrt(0.18) - 0.5, sqrt(0.12) - 0.5 };
	for (int k = 0; k < 3; ++k) {
		fxs_transform xs = mk_xf(5 + c[k][0], 5 + c[k][1], 5 + c[k][2]);
		fxs_manifold m;
		uint32_t ovf = 0;
		fxs_collide(&box, &xb, &ball, &xs, 0, &m, &ovf);
		CHECK(ovf == 0 && m.point_count == 1);
		CHECKF(fabs(D(m.points[0].separation) - sep[k]) < 4e-5, "case %d: sep %.6f", k, D(m.points[0].separation));
		double n[3] = { k == 0 ? 0 : 1, 1, k == 2 ? 1 : 0 }, l = sqrt(dot3(n, n));
		CHECKF(fabs(D(m.normal.x) - n[0] / l) < 5e-5 && fabs(D(m.normal.y) - n[1] / l) < 5e-5 &&
			       fabs(D(m.normal.z) - n[2] / l) < 5e-5,
		       "case %d: normal", k);
		/* the point sits midway between the box surface and the sphere's */
		double mid = (k == 0) ? 1 + sep[k] / 2 : -1;
		if (k == 0)
			CHECK(has_point_near(&m, 5.2, 5 + mid, 4.7, 3e-5));
	}
}

/* A capsule lying on a box: 2 points at its ends, ids stable under a nudge. */
TEST(np_capsule_on_box)
{
	fxs_shape box = mk_box(2, 0.5, 2), cap = mk_capsule(1, 0.25);
	fxs_transform xb = mk_xf(-40, 7, 12), xc = mk_xf(-40.3, 7.749, 12.2);
	xc.q = mk_rot(0, 0, 1, 90);
	fxs_manifold m, r, again;
	uint32_t ovf = 0;
	fxs_collide(&box, &xb, &cap, &xc, F(0.02), &m, &ovf);
	fxs_collide(&cap, &xc, &box, &xb, F(0.02), &r, &ovf);
	CHECK(ovf == 0 && mirror_ok(&m, &r));
	CHECK(m.point_count == 2);
	CHECK(m.normal.y >= FXG_ONE - 1 && abs(m.normal.x) <= 1 && abs(m.normal.z) <= 1);
	for (int i = 0; i < 2; ++i)
		CHECKF(fabs(D(m.points[i].separation) + 0.001) < 4e-5, "sep %.6f", D(m.points[i].separation));
	CHECK(has_point_near(&m, -41.3, 7.4995, 12.2, 1e-4) && has_point_near(&m, -39.3, 7.4995, 12.2, 1e-4));
	xc.p.x += 3, xc.p.y -= 1;
	fxs_collide(&box, &xb, &cap, &xc, F(0.02), &again, &ovf);
	CHECK(same_ids(&again, &m));
	/* hanging over the edge: the segment is clipped at the box side */
	xc.p.x = F(-40 + 2.5);
	fxs_collide(&box, &xb, &cap, &xc, F(0.02), &again, &ovf);
	CHECK(again.point_count == 2);
	CHECK(has_point_near(&again, -38, 7.4995, 12.2, 1e-4));
	/* standing upright: one point under its lower end */
	xc.q = fxg_q_identity();
	xc.p = fxg_v3(F(-40), F(7 + 0.5 + 1.25 - 0.002), F(12));
	fxs_collide(&box, &xb, &cap, &xc, F(0.02), &again, &ovf);
	CHECK(again.point_count == 1);
	CHECKF(fabs(D(again.points[0].separation) + 0.002) < 4e-5, "sep %.6f", D(again.points[0].separation));
}

/* Parallel capsules: 2 points over the overlap; crossed capsules: 1 point. */
TEST(np_capsule_on_capsule)
{
	fxs_shape a = mk_capsule(1, 0.3), b = mk_capsule(0.5, 0.2);
	fxs_transform xa = mk_xf(0, 0, 0), xb = mk_xf(0.8, 0.499, 0);
	xa.q = mk_rot(0, 0, 1, 90);
	xb.q = mk_rot(0, 0, 1, -90);
	fxs_manifold m;
	uint32_t ovf = 0;
	fxs_collide(&a, &xa, &b, &xb, F(0.02), &m, &ovf);
	CHECK(ovf == 0 && m.point_count == 2);
	CHECK(m.normal.y >= FXG_ONE - 2);
	for (int i = 0; i < 2; ++i)
		CHECKF(fabs(D(m.points[i].separation) + 0.001) < 4e-5, "sep %.6f", D(m.points[i].separation));
	CHECK(has_point_near(&m, 0.3, 0.2995, 0, 1e-4) && has_point_near(&m, 1.0, 0.2995, 0, 1e-4));
	xb.q = mk_rot(0, 1, 0, 90); /* b along z... */
	xb.q = mk_rot(1, 0, 0, 90);
	fxs_collide(&a, &xa, &b, &xb, F(0.02), &m, &ovf);
	CHECK(m.point_count == 1);
	CHECK(has_point_near(&m, 0.8, 0.2995, 0, 1e-4));
}

/* Beyond the stated relative range: no contact, nothing counted. */
TEST(np_far_apart)
{
	fxs_shape box = mk_box(1000, 1000, 1000);
	fxs_transform xa = mk_xf(-30000, 0, 0), xb = mk_xf(30000, 0, 0);
	for (int ta = 0; ta < 3; ++ta)
		for (int tb = 0; tb < 3; ++tb) {
			fxs_shape a = ta == 1 ? box : (ta == 0 ? mk_sphere(1000) : mk_capsule(1000, 1000));
			fxs_shape b = tb == 1 ? box : (tb == 0 ? mk_sphere(1000) : mk_capsule(1000, 1000));
			fxs_manifold m;
			uint32_t ovf = 0;
			fxs_collide(&a, &xa, &b, &xb, FXG_I(1), &m, &ovf);
			CHECK(m.point_count == 0 && ovf == 0);
		}
}

/* Two equal boxes, one on the other, tilted by a few LSB either way: the
 * caller's order decides the reference face, so the feature ids stay the
 * same (an order taken from rotations flipped them, losing warm starting). */
TEST(np_equal_boxes_keep_ids_under_jitter)
{
	fxs_shape box = mk_box(0.5, 0.5, 0.5);
	fxs_transform lo = mk_xf(0, 0.5, 0), hi = mk_xf(0, 1.5, 0);
	fxs_manifold first, m;
	uint32_t ovf = 0;
	fxs_collide(&box, &lo, &box, &hi, F(0.02), &first, &ovf);
	CHECK(first.point_count == 4);
	for (int k = -3; k <= 3; ++k) {
		fxs_transform a = lo, b = hi;
		a.q = fxg_q_normalize(fxg_q(k, 0, -k, FXG_ONE), &ovf);
		b.q = fxg_q_normalize(fxg_q(-k, 0, k, FXG_ONE), &ovf);
		fxs_collide(&box, &a, &box, &b, F(0.02), &m, &ovf);
		CHECK(m.point_count == 4);
		for (int i = 0; i < 4; ++i)
			CHECKF(m.points[i].feature_id == first.points[i].feature_id, "tilt %d point %d", k, i);
	}
	CHECK(ovf == 0);
}

/* The box-box separating-axis tests several pairs at a time (the vector
 * kernels of every level this machine has: AVX2, AVX-512, NEON;
 * collide_box_box_vector.h) give exactly what the scalar tests give, field
 * for field: random sizes (0.05..5 m, and the unit cube), rotations (none,
 * jitter of a few LSB, any), and relative positions around touching, plus
 * exact stacks and corners (where face axes tie). A lane whose rotation is
 * out of range (made from a quaternion of norm 3) is left to the scalar
 * code; one with in-range entries that are no rotation, far apart (a face
 * separation beyond int32), must be left to it or agree. */
static void box_tests_vector_matches_scalar(const fxs_kernel_table *kt)
{
	uint64_t seed = 77;
	uint32_t lanes = 0, taken = 0, mismatches = 0, special = 0;
	for (int round = 0; round < 20000; ++round) {
		int n = 1 + (int)(test_rng_next(&seed) % 8);
		fxs_shape sa[8], sb[8];
		fxg_mat3 ra[8], rb[8];
		fxg_vec3 dw[8];
		const fxs_shape *pa[8], *pb[8];
		const fxg_mat3 *pra[8], *prb[8];
		for (int k = 0; k < n; ++k) {
			double u[8];
			for (int e = 0; e < 8; ++e)
				u[e] = (double)(test_rng_next(&seed) >> 11) / 9007199254740992.0;
			int kind = (int)(test_rng_next(&seed) % 4);
			sa[k] = kind == 0 ? mk_box(0.5, 0.5, 0.5) : mk_box(0.05 + 5 * u[0], 0.05 + 5 * u[1], 0.05 + 5 * u[2]);
			sb[k] = kind == 0 ? mk_box(0.5, 0.5, 0.5) : mk_box(0.05 + 5 * u[3], 0.05 + 5 * u[4], 0.05 + 5 * u[5]);
			fxg_quat q[2];
			uint32_t ovf = 0;
			for (int t = 0; t < 2; ++t) {
				double ax = u[6] - 0.5, ay = u[7] - 0.3, az = 0.2 + u[t];
				q[t] = kind == 0    ? fxg_q(0, 0, 0, FXG_ONE)
					: kind == 1 ? mk_rot(ax, ay, az, 0.002 * (double)(t + 1))
						    : mk_rot(ax, ay, az, 360.0 * u[3 + t]);
			}
			if (round % 997 == 0 && k == 0)
				q[1] = fxg_q(3 * FXG_ONE, 0, 0, 0); /* norm 3: entries out of range */
			ra[k] = fxg_m3_from_quat(q[0], &ovf);
			rb[k] = fxg_m3_from_quat(q[1], &ovf);
			/* B around touching A: stacked exactly (kind 0), else within the sum of the sizes */
			double s = 0.5 + 0.5 * u[2];
			if (kind == 0)
				dw[k] = fxg_v3(F(0.5 * (double)(test_rng_next(&seed) % 5) - 1), FXG_ONE,
					       (fix16_t)(test_rng_next(&seed) % 2) * FXG_ONE); /* ties between axes too */
			else
				dw[k] = fxg_v3(F((u[0] - 0.5) * 4 * s * 5), F((u[1] - 0.5) * 4 * s * 5), F((u[5] - 0.5) * 4 * s));
			if (round % 997 == 1 && k == 0) {
				/* entries in range but no rotation, far apart: a face
				 * separation beyond int32 (taken only if exact) */
				const fix16_t e = FXG_ONE + (FXG_ONE >> 6);
				ra[k].cx = ra[k].cy = ra[k].cz = rb[k].cx = rb[k].cy = rb[k].cz = fxg_v3(e, e, e);
				dw[k] = fxg_v3(FXS_NP_MAX_REL, FXS_NP_MAX_REL, -FXS_NP_MAX_REL);
			}
			pa[k] = &sa[k], pb[k] = &sb[k], pra[k] = &ra[k], prb[k] = &rb[k];
		}
		fxs_box_sat_result out[8];
		uint32_t done = kt->box_sat_x8(n, pa, pb, dw, pra, prb, out);
		CHECK(done >> n == 0);
		for (int k = 0; k < n; ++k) {
			++lanes;
			bool bad_rot = round % 997 == 0 && k == 0;
			special += k == 0 && (round % 997 == 0 || round % 997 == 1);
			CHECKF(!bad_rot || !(done >> k & 1), "round %d: an out-of-range rotation was taken", round);
			if (!(done >> k & 1))
				continue;
			++taken;
			fxs_box_sat_result r;
			uint32_t ovf = 0;
			fxs_box_sat(pa[k], pb[k], dw[k], &ra[k], &rb[k], &r, &ovf);
			bool same = memcmp(r.C, out[k].C, sizeof r.C) == 0 && r.d.x == out[k].d.x && r.d.y == out[k].d.y &&
				r.d.z == out[k].d.z && memcmp(r.db, out[k].db, sizeof r.db) == 0 && r.sep_a == out[k].sep_a &&
				r.sep_b == out[k].sep_b && r.sep_e == out[k].sep_e && r.ia == out[k].ia && r.jb == out[k].jb &&
				r.ei == out[k].ei && r.ej == out[k].ej && ovf == 0;
			mismatches += !same;
			CHECKF(same, "round %d lane %d: vector and scalar tests differ", round, k);
		}
	}
	printf("  %s: %u of %u pairs taken by the vector tests, %u differ\n", fxs_kernels_name(kt->level), taken,
	       lanes, mismatches);
	CHECK(taken + special >= lanes); /* all but the two kinds of special lanes */
}

TEST(np_box_tests_vector_matches_scalar)
{
	test_each_vector_level(box_tests_vector_matches_scalar);
}

/* The recycling test's arithmetic several pairs at a time (the vector
 * kernels of every level this machine has; recycle_vector.h) gives exactly
 * what fxs_recycle gives, contact field for field, answer and saturation
 * count: manifolds of 1 to 4 points with lever arms up to 1.5 m, bodies
 * that did not turn, turned by a few LSB, by up to 12 degrees (around the
 * turn test's 10) or anyhow, centres moved by up to 20 cm (around the
 * move test), separations around the speculative distance, slides around
 * a slop. Out-of-range lanes must be left to the scalar code or agree:
 * quaternions of norm 3, arms of 300 m, a separation at INT32_MAX, a
 * 5-point count. */
static void recycle_vector_matches_scalar(const fxs_kernel_table *kt)
{
	uint64_t seed = 99;
	uint32_t lanes = 0, taken = 0, kept = 0, slid = 0, mismatches = 0;
	const fix16_t slop = F(0.005), spec = F(0.02);
	static fxs_contact prev[8];
	static fxs_body ba[8], bb[8];
	for (int round = 0; round < 20000; ++round) {
		int n = 1 + (int)(test_rng_next(&seed) % 8);
		const fxs_contact *pp[8];
		const fxs_body *pa[8], *pb[8];
		for (int k = 0; k < n; ++k) {
			double u[12];
			for (int e = 0; e < 12; ++e)
				u[e] = (double)(test_rng_next(&seed) >> 11) / 9007199254740992.0;
			fxs_contact *c = &prev[k];
			memset(c, 0, sizeof *c);
			memset(&ba[k], 0, sizeof ba[k]);
			memset(&bb[k], 0, sizeof bb[k]);
			c->a = 1, c->b = 2;
			c->point_count = 1 + (int)(test_rng_next(&seed) % 4);
			c->normal = fxg_q_rotate(mk_rot(u[0] - 0.5, u[1] - 0.5, u[2] - 0.5, 360 * u[3]), fxg_v3(0, FXG_ONE, 0), &(uint32_t){ 0 });
			c->qa0 = mk_rot(u[1] - 0.5, u[2] - 0.5, u[0] + 0.1, 360 * u[4]);
			c->qb0 = mk_rot(u[2] - 0.5, u[0] - 0.5, u[1] + 0.1, 360 * u[5]);
			c->d0 = fxg_v3(F(u[6] - 0.5), F(0.5 + u[7]), F(u[8] - 0.5));
			for (int i = 0; i < 4; ++i) { /* points past the count too (not read) */
				c->points[i].id = (uint32_t)i;
				c->points[i].anchor_a = fxg_v3(F(3 * (u[(i + 3) % 12] - 0.5)), F(u[(i + 5) % 12] - 0.5), F(3 * (u[(i + 7) % 12] - 0.5)));
				c->points[i].base_separation = F(0.03 * (u[(i + 9) % 12] - 0.6));
				c->points[i].normal_impulse = (fxg_wide)(i + 1) << 20;
			}
			c->friction = F(0.6);
			/* the poses now: turns of each kind */
			int kind = (int)(test_rng_next(&seed) % 5);
			double deg = kind == 0 ? 0 : kind == 1 ? 0.0005 : kind == 2 ? 12 * u[9] : kind == 3 ? 360 * u[9] : 0.5 * u[9];
			fxg_quat ta = mk_rot(u[10] - 0.5, 0.3, u[11] - 0.5, deg), tb = mk_rot(0.2, u[11] - 0.5, u[10] - 0.5, deg * u[0]);
			uint32_t o = 0;
			ba[k].xf.q = kind == 0 ? c->qa0 : fxg_q_normalize(fxg_q_mul(ta, c->qa0, &o), &o);
			bb[k].xf.q = kind == 0 && u[9] < 0.5 ? c->qb0 : fxg_q_normalize(fxg_q_mul(tb, c->qb0, &o), &o);
			ba[k].xf.p = fxg_v3(F(100 * (u[0] - 0.5)), F(10 * u[1]), F(-50 * u[2]));
			const double mv = kind == 4 ? 0.2 : 0.006;
			bb[k].xf.p = fxg_v3_add(fxg_v3_add(ba[k].xf.p, c->d0, &o), fxg_v3(F(mv * (u[3] - 0.5)), F(mv * (u[4] - 0.5)), F(mv * (u[5] - 0.5))), &o);
			const int special = round % 211 == 0 ? k : -1;
			if (special == 0)
				ba[k].xf.q = fxg_q(3 * FXG_ONE, 0, 0, 0);
			else if (special == 1)
				c->points[0].anchor_a = fxg_v3(F(300), 0, 0);
			else if (special == 2)
				c->points[c->point_count - 1].base_separation = INT32_MAX;
			else if (special == 3)
				c->point_count = 5;
			pp[k] = c, pa[k] = &ba[k], pb[k] = &bb[k];
		}
		fxs_recycle_lanes out;
		kt->recycle_x8(n, pp, pa, pb, slop, &out);
		CHECK(out.done >> n == 0 && (out.keep & ~out.done) == 0);
		for (int k = 0; k < n; ++k) {
			++lanes;
			if (round % 211 == 0 && k == 3) {
				CHECKF(!(out.done >> k & 1), "round %d: a 5-point manifold was taken", round);
				continue;
			}
			if (round % 211 == 0 && k == 0)
				CHECKF(!(out.done >> k & 1), "round %d: a quaternion of norm 3 was taken", round);
			if (!(out.done >> k & 1))
				continue;
			++taken;
			kept += out.keep >> k & 1;
			fxs_contact want, got;
			memset(&want, 0x5A, sizeof want);
			memcpy(&got, &want, sizeof got);
			uint32_t ovf_want = 0;
			bool rw = fxs_recycle(pp[k], &pa[k]->xf, &pb[k]->xf, slop, spec, &want, &ovf_want);
			bool rg = fxs_recycle_lane(&out, k, pp[k], spec, &got);
			slid += (out.keep >> k & 1) && !rw;
			bool same = rw == rg && ovf_want == 0 && (!rw || memcmp(&want, &got, sizeof want) == 0);
			mismatches += !same;
			CHECKF(same, "round %d lane %d: vector and scalar recycling differ (%d %d)", round, k, rw, rg);
		}
	}
	printf("  %s: %u of %u pairs taken by the vector test, %u kept, %u of them slid, %u differ\n",
	       fxs_kernels_name(kt->level), taken, lanes, kept, slid, mismatches);
	CHECK(taken > lanes * 9 / 10 && kept > taken / 4 && kept < taken * 9 / 10 && slid > kept / 20 && slid < kept - kept / 20);
}

TEST(np_recycle_vector_matches_scalar)
{
	test_each_vector_level(recycle_vector_matches_scalar);
}
