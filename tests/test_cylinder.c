/* The cylinder shape against closed forms: exact mass properties, a ray's
 * hit distance, contact distances against every convex shape, a cylinder
 * rolling down a slope at a = 2/3 g sin(theta), standing on its cap and
 * lying on its side at rest, and snapshots that restore to the same bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collide/narrowphase.h"
#include "fixstep/fixstep.h"
#include "fixstep/query.h"
#include "geometry/shape.h"
#include "test.h"

#define PI 3.14159265358979323846

static double fx(fix16_t v) { return v / 65536.0; }
static fix16_t tofx(double v) { return (fix16_t)lround(v * 65536.0); }
static double wide_d(fxg_wide v) { return (double)v / 4294967296.0; }
static fxg_vec3 v3(double x, double y, double z) { return fxg_v3(tofx(x), tofx(y), tofx(z)); }
static const fxg_quat identity = { 0, 0, 0, FXG_ONE };

/* rotation by angle a about a unit axis (x, y, z) */
static fxg_quat quat(double x, double y, double z, double a)
{
	double s = sin(a / 2);
	return (fxg_quat){ tofx(x * s), tofx(y * s), tofx(z * s), tofx(cos(a / 2)) };
}

static fxs_shape cylinder(double r, double hh)
{
	fxs_shape s = { 0 };
	s.type = FXS_SHAPE_CYLINDER;
	s.radius = tofx(r);
	s.half_height = tofx(hh);
	return s;
}

static fxs_body_id body(fxs_world *w, fxs_body_type type, fxs_shape s, fxg_vec3 p, fxg_quat q, double friction)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.shape = s;
	d.position = p;
	d.rotation = q;
	d.friction = tofx(friction);
	return fxs_body_create(w, &d);
}

static fxs_shape box(double x, double y, double z)
{
	fxs_shape s = { 0 };
	s.type = FXS_SHAPE_BOX;
	s.half_extents = v3(x, y, z);
	return s;
}

TEST(cylinder_mass_properties_are_closed_form)
{
	const double cases[][3] = { { 0.5, 1.0, 1000 }, { 0.05, 0.3, 7 }, { 2.0, 0.1, 500 }, { 8.0, 8.0, 1 } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		double r = cases[i][0], hh = cases[i][1], rho = cases[i][2], h = 2 * hh;
		fxs_shape s = cylinder(r, hh);
		CHECK(fxs_shape_is_valid(&s));
		fxg_wide mass, in[3];
		uint32_t ovf = 0;
		fxs_shape_mass(&s, tofx(rho), &mass, in, &ovf);
		double rq = fx(s.radius), hq = 2 * fx(s.half_height); /* the sizes as stored */
		double m = PI * rho * rq * rq * hq;
		double iy = m * rq * rq / 2, ix = m * (3 * rq * rq + hq * hq) / 12;
		double tol_m = m * ldexp(1, -28) + ldexp(1, -22), tol_i = ix * ldexp(1, -28) + ldexp(1, -22);
		printf("  r %.2f h %.2f rho %.0f: m %.9f (%.9f) Ix %.9f (%.9f) Iy %.9f (%.9f)\n", r, h, rho, wide_d(mass), m,
		       wide_d(in[0]), ix, wide_d(in[1]), iy);
		CHECK(ovf == 0);
		CHECKF(fabs(wide_d(mass) - m) <= tol_m, "mass %.12f want %.12f", wide_d(mass), m);
		CHECKF(fabs(wide_d(in[0]) - ix) <= tol_i && in[0] == in[2], "Ix %.12f want %.12f", wide_d(in[0]), ix);
		CHECKF(fabs(wide_d(in[1]) - iy) <= tol_i, "Iy %.12f want %.12f", wide_d(in[1]), iy);
	}
	fxs_shape bad = cylinder(0.5, 0);
	CHECK(!fxs_shape_is_valid(&bad));
}

TEST(cylinder_bounds_enclose_it_tightly)
{
	fxs_shape s = cylinder(0.5, 1.0);
	uint32_t ovf = 0;
	for (int k = 0; k < 12; ++k) {
		double a = k * PI / 12;
		fxs_transform xf = { v3(1, 2, 3), quat(0.6, 0, 0.8, a) };
		fxs_aabb b = fxs_shape_aabb(&s, &xf, &ovf);
		/* axis u = R y: extent hh |u_i| + r sqrt(1 - u_i^2) */
		double ux = -0.8 * sin(a), uy = cos(a), uz = 0.6 * sin(a); /* R y for axis (0.6, 0, 0.8) */
		double u[3] = { ux, uy, uz }, lo[3] = { fx(b.lo.x), fx(b.lo.y), fx(b.lo.z) },
		       hi[3] = { fx(b.hi.x), fx(b.hi.y), fx(b.hi.z) }, c[3] = { 1, 2, 3 };
		for (int i = 0; i < 3; ++i) {
			double e = 1.0 * fabs(u[i]) + 0.5 * sqrt(1 - u[i] * u[i]);
			CHECKF(hi[i] - c[i] >= e - 1e-4 && hi[i] - c[i] <= e + 1e-3 && c[i] - lo[i] >= e - 1e-4 &&
				       c[i] - lo[i] <= e + 1e-3,
			       "angle %d axis %d: [%f %f] extent %f", k, i, lo[i], hi[i], e);
		}
	}
}

TEST(cylinder_ray_hits_at_closed_form_distance)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	/* lying along z, centre (0, 1, 0), r 0.5, half height 2 */
	fxs_body_id id = body(w, FXS_BODY_STATIC, cylinder(0.5, 2.0), v3(0, 1, 0), quat(1, 0, 0, PI / 2), 0.5);
	CHECK(id.index1 != 0);
	fxs_cast_hit hit;
	/* down onto the side, off the axis by 0.3: hits at y = 1 + sqrt(0.25 - 0.09) = 1.4 */
	CHECK(fxs_world_ray_cast(w, v3(0.3, 5, 1), v3(0.3, -5, 1), fxs_null_body, &hit));
	printf("  side: distance %.5f (3.6), normal (%.4f %.4f %.4f)\n", fx(hit.distance), fx(hit.normal.x),
	       fx(hit.normal.y), fx(hit.normal.z));
	CHECK(fabs(fx(hit.distance) - 3.6) < 1e-3 && fabs(fx(hit.normal.x) - 0.6) < 1e-3 &&
	      fabs(fx(hit.normal.y) - 0.8) < 1e-3);
	/* along -z onto the cap at z = 2 */
	CHECK(fxs_world_ray_cast(w, v3(0.2, 1.1, 6), v3(0.2, 1.1, -6), fxs_null_body, &hit));
	printf("  cap: distance %.5f (4), normal z %.4f\n", fx(hit.distance), fx(hit.normal.z));
	CHECK(fabs(fx(hit.distance) - 4.0) < 1e-3 && fabs(fx(hit.normal.z) - 1) < 1e-3);
	/* slanted, through the cap's plane outside the disk and into the side:
	 * from (0, 3, 3) towards (0, -1, 1): x = 0, y - 1 = 2 - 2 s, z = 3 - s
	 * hits the side where (2 - 2 s) = 0.5, s = 0.75, z = 2.25 > 2: misses the
	 * side there; enters the cap plane z = 2 at s = 1, y - 1 = 0 inside: cap */
	fxg_vec3 p0 = v3(0, 3, 3), p1 = v3(0, -1, 1);
	CHECK(fxs_world_ray_cast(w, p0, p1, fxs_null_body, &hit));
	CHECK(fabs(fx(hit.distance) - sqrt(5.0)) < 1e-3);
	/* misses: beside the cap's edge */
	CHECK(!fxs_world_ray_cast(w, v3(0.6, 5, 0), v3(0.6, -5, 0), fxs_null_body, &hit));
	CHECK(!fxs_world_ray_cast(w, v3(0, 1.7, 6), v3(0, 1.7, -6), fxs_null_body, &hit));
	/* a standing cylinder (r 0.2, half height 0.3) cast down at x = 0.3: its
	 * cap's rim at x = 0.1 meets the side at y = 1 + sqrt(0.25 - 0.01) */
	fxs_shape small = cylinder(0.2, 0.3);
	CHECK(fxs_world_shape_cast(w, &small, identity, v3(0.3, 5, 1), v3(0.3, -5, 1), fxs_null_body, &hit));
	double want = 5 - (1 + sqrt(0.24) + 0.3);
	printf("  shape cast: distance %.5f (%.5f)\n", fx(hit.distance), want);
	CHECK(fx(hit.distance) <= want + 1e-4 && fx(hit.distance) > want - 2e-3);
	/* an overlap query */
	fxs_body_id out[4];
	fxs_transform xf = { v3(0, 1.55, 1.9), identity };
	fxs_shape probe = cylinder(0.1, 0.1);
	CHECK(fxs_world_overlap_shape(w, &probe, &xf, NULL, out, 4) == 1 && out[0].index1 == id.index1);
	xf.p = v3(0, 1.65, 1.9);
	CHECK(fxs_world_overlap_shape(w, &probe, &xf, NULL, out, 4) == 0);
	fxs_world_destroy(w);
}

/* one manifold of a at xa against b at xb */
static fxs_manifold collide(fxs_shape a, fxg_vec3 pa, fxg_quat qa, fxs_shape b, fxg_vec3 pb, fxg_quat qb)
{
	fxs_transform xa = { pa, qa }, xb = { pb, qb };
	fxs_manifold m, mr;
	uint32_t ovf = 0;
	fxs_collide(&a, &xa, &b, &xb, tofx(0.2), &m, &ovf);
	/* the mirror: the normal negated, the same points */
	fxs_collide(&b, &xb, &a, &xa, tofx(0.2), &mr, &ovf);
	if (mr.point_count != m.point_count || (m.point_count > 0 && (mr.normal.x != -m.normal.x || mr.normal.y != -m.normal.y)))
		m.point_count = -1;
	return m;
}

static double min_sep(const fxs_manifold *m)
{
	double s = 1e9;
	for (int i = 0; i < m->point_count; ++i)
		s = fmin(s, fx(m->points[i].separation));
	return s;
}

/* Contact distances against closed forms, every pair the cylinder makes. */
TEST(cylinder_contacts_match_closed_forms)
{
	fxs_shape cy = cylinder(0.5, 1.0);
	fxs_shape sp = { .type = FXS_SHAPE_SPHERE, .radius = tofx(0.25) };
	fxs_shape ca = { .type = FXS_SHAPE_CAPSULE, .radius = tofx(0.25), .half_height = tofx(0.5) };
	struct {
		const char *what;
		fxs_shape o;
		fxg_vec3 p;
		fxg_quat q;
		double sep;
		int points;
		fxg_vec3 n; /* from the cylinder to the other */
	} cases[] = {
		{ "sphere over the cap", sp, v3(0.1, 1.3, 0), identity, 0.05, 1, v3(0, 1, 0) },
		{ "sphere beside the side", sp, v3(0, 0.2, 0.7), identity, -0.05, 1, v3(0, 0, 1) },
		{ "sphere off the rim", sp, v3(0.5 + 0.18, 1.0 + 0.24, 0), identity, 0.05, 1, v3(0.6, 0.8, 0) },
		{ "capsule lying on the cap", ca, v3(0, 1.2, 0), quat(0, 0, 1, PI / 2), -0.05, 2, v3(0, 1, 0) },
		{ "capsule along the side", ca, v3(0.74, 0, 0), identity, -0.01, 2, v3(1, 0, 0) },
		{ "box under the cap", box(2, 0.5, 2), v3(0.3, -1.49, 0.1), identity, -0.01, 4, v3(0, -1, 0) },
		{ "box beside the side", box(0.5, 2, 0.5), v3(-0.99, 0, 0), identity, -0.01, 2, v3(-1, 0, 0) },
		{ "box edge across the side", box(0.5, 0.5, 0.5), v3(0.5 + sqrt(0.5) - 0.02, 0, 0),
		  quat(0, 1, 0, PI / 4), -0.02, 2, v3(1, 0, 0) },
		{ "cylinder on the cap", cy, v3(0.2, 2.01, 0), identity, 0.01, 4, v3(0, 1, 0) },
		{ "cylinder side by side", cy, v3(0.99, 0.1, 0), identity, -0.01, 2, v3(1, 0, 0) },
		{ "cylinder rim to rim", cy, v3(1.1, 2.05, 0), identity, 0.11180, 1, v3(0.89443, 0.44721, 0) },
		{ "box edge off the rim", box(0.5, 0.5, 0.5), v3(1.1, 1.55, 0), identity, 0.11180, 1, v3(0.89443, 0.44721, 0) },
		{ "cylinder crossed on the side", cy, v3(0, 0, 0.98), quat(0, 0, 1, PI / 2), -0.02, 1, v3(0, 0, 1) },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		fxs_manifold m = collide(cy, v3(0, 0, 0), identity, cases[i].o, cases[i].p, cases[i].q);
		printf("  %-30s %d points, separation %.5f (%.5f), normal (%.4f %.4f %.4f)\n", cases[i].what,
		       m.point_count, min_sep(&m), cases[i].sep, fx(m.normal.x), fx(m.normal.y), fx(m.normal.z));
		CHECKF(m.point_count == cases[i].points, "%s: %d points", cases[i].what, m.point_count);
		CHECKF(fabs(min_sep(&m) - cases[i].sep) < 2e-3, "%s: separation %.5f", cases[i].what, min_sep(&m));
		/* a rim's normal is found by maximising the separation, which is flat
		 * at its top: to sqrt(2 LSB / gap), 0.3 degrees at these 0.1 m gaps;
		 * the faces, caps and sides are exact */
		double tol = strstr(cases[i].what, "rim") ? 5e-3 : 2e-3;
		CHECKF(fabs(fx(m.normal.x) - fx(cases[i].n.x)) < tol && fabs(fx(m.normal.y) - fx(cases[i].n.y)) < tol &&
			       fabs(fx(m.normal.z) - fx(cases[i].n.z)) < tol,
		       "%s: normal", cases[i].what);
	}
	/* apart by more than the speculative distance: nothing */
	fxs_manifold m = collide(cy, v3(0, 0, 0), identity, cy, v3(0, 2.5, 0), identity);
	CHECK(m.point_count == 0);
	m = collide(cy, v3(0, 0, 0), identity, box(1, 1, 1), v3(0, 0, 2.6), quat(0.6, 0.8, 0, 0.3));
	CHECK(m.point_count == 0);
}

/* The grounds the tests stand on: a static box, a triangle mesh (two
 * triangles) and a heightfield, each a plane through the origin turned by
 * -theta about z (descending along +x). */
enum { G_BOX, G_MESH, G_HEIGHTFIELD };
static const char *const ground_name[] = { "box", "mesh", "heightfield" };

static void add_ground(fxs_world *w, int kind, double th)
{
	fxg_quat qs = quat(0, 0, 1, -th);
	if (kind == G_BOX) {
		body(w, FXS_BODY_STATIC, box(30, 0.5, 4), v3(-0.5 * sin(th), -0.5 * cos(th), 0), qs, 1.0);
		return;
	}
	fxs_mesh_id id;
	if (kind == G_MESH) {
		fxg_vec3 v[4] = { v3(-30, 0, -4), v3(30, 0, -4), v3(-30, 0, 4), v3(30, 0, 4) };
		uint32_t t[6] = { 0, 2, 1, 1, 2, 3 };
		id = fxs_world_create_mesh(w, v, 4, t, 2, tofx(0.5));
	} else {
		/* 61 x 9 heights 1 m apart, from x = -30, z = -4: y = -x tan(theta) */
		fix16_t h[61 * 9];
		for (int j = 0; j < 9; ++j)
			for (int i = 0; i < 61; ++i)
				h[j * 61 + i] = tofx(-(i - 30) * tan(th));
		id = fxs_world_create_heightfield(w, h, 61, 9, FXG_ONE, tofx(0.5));
		qs = identity;
	}
	fxs_body_def d = fxs_default_body_def();
	d.type = FXS_BODY_STATIC;
	d.shape = fxs_mesh_shape(w, id);
	d.position = kind == G_MESH ? v3(0, 0, 0) : v3(-30, 0, -4);
	d.rotation = qs;
	d.friction = FXG_ONE;
	fxs_body_create(w, &d);
}

static fxs_world *ground_world(int kind, double th)
{
	fxs_world_def def = fxs_default_world_def();
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	add_ground(w, kind, th);
	return w;
}

/* Down a slope of angle theta: a cylinder rolling without slipping
 * accelerates at 2/3 g sin(theta) (I = m r^2 / 2). Measured between 0.5 s
 * and 1.5 s along the slope; within 0.5%, on each kind of ground. */
TEST(cylinder_rolls_down_a_slope_at_two_thirds_g_sin)
{
	const double th = 20 * PI / 180, r = 0.4, hh = 0.3;
	for (int kind = 0; kind < 3; ++kind) {
		fxs_world *w = ground_world(kind, th);
		/* the cylinder's axis along z, resting on the surface 10 m up the slope */
		double nx = sin(th), ny = cos(th), sx = -10 * cos(th), sy = 10 * sin(th);
		fxs_body_id c = body(w, FXS_BODY_DYNAMIC, cylinder(r, hh), v3(sx + nx * r, sy + ny * r, 0),
				     quat(1, 0, 0, PI / 2), 1.0);
		double v1 = 0, v2 = 0;
		for (int s = 1; s <= 90; ++s) {
			fxs_world_step(w);
			fxg_vec3 v = fxs_body_get_linear_velocity(w, c);
			double along = fx(v.x) * cos(th) - fx(v.y) * sin(th);
			if (s == 30)
				v1 = along;
			if (s == 90)
				v2 = along;
		}
		fxg_vec3 wv = fxs_body_get_angular_velocity(w, c), vv = fxs_body_get_linear_velocity(w, c);
		fxg_vec3 p = fxs_body_get_position(w, c);
		double speed = sqrt(fx(vv.x) * fx(vv.x) + fx(vv.y) * fx(vv.y));
		double height = fx(p.x) * sin(th) + fx(p.y) * cos(th); /* the centre above the plane */
		double a = (v2 - v1) / 1.0, expect = 2.0 / 3.0 * 10 * sin(th);
		printf("  %-11s theta 20 deg: a = %.5f m/s^2, 2/3 g sin = %.5f, error %.3f%%; v %.4f, w r %.4f, "
		       "centre %.5f above the plane (r %.2f)\n",
		       ground_name[kind], a, expect, 100 * fabs(a - expect) / expect, speed, fabs(fx(wv.z)) * r, height,
		       r);
		CHECKF(fabs(a - expect) < 0.005 * expect, "%s: a %.5f expected %.5f", ground_name[kind], a, expect);
		CHECKF(fabs(speed - fabs(fx(wv.z)) * r) < 0.01 * speed, "%s slips: v %.4f w r %.4f", ground_name[kind],
		       speed, fabs(fx(wv.z)) * r);
		CHECKF(fabs(height - r) < 0.005, "%s: centre %.5f above the plane", ground_name[kind], height);
		fxs_world_destroy(w);
	}
}

/* Standing on its cap for 10 s (sleep off): no drift, no tipping. */
TEST(cylinder_stands_still_on_its_cap)
{
	for (int kind = 0; kind < 3; ++kind) {
		fxs_world *w = ground_world(kind, 0);
		fxs_body_id c = body(w, FXS_BODY_DYNAMIC, cylinder(0.3, 0.6), v3(0.25, 0.6, 0.4), identity, 0.6);
		double worst = 0, tilt = 0;
		for (int s = 0; s < 600; ++s) {
			fxs_world_step(w);
			fxg_vec3 p = fxs_body_get_position(w, c);
			fxg_quat q = fxs_body_get_rotation(w, c);
			double dx = fx(p.x) - 0.25, dz = fx(p.z) - 0.4;
			worst = fmax(worst, sqrt(dx * dx + dz * dz));
			tilt = fmax(tilt, 2 * asin(fmin(1, sqrt(fx(q.x) * fx(q.x) + fx(q.z) * fx(q.z)))));
		}
		fxg_vec3 p = fxs_body_get_position(w, c), v = fxs_body_get_linear_velocity(w, c);
		printf("  %-11s after 10 s: y %.5f (0.6), worst drift %.6f m, worst tilt %.5f deg, |v| %.6f\n",
		       ground_name[kind], fx(p.y), worst, tilt * 180 / PI,
		       sqrt(fx(v.x) * fx(v.x) + fx(v.y) * fx(v.y) + fx(v.z) * fx(v.z)));
		CHECKF(worst < 1e-4 && tilt < 0.001 && fabs(fx(p.y) - 0.6) < 0.005, "%s", ground_name[kind]);
		fxs_world_destroy(w);
	}
}

/* Lying on its side on flat ground for 10 s: it does not roll. */
TEST(cylinder_rests_on_its_side_without_rolling)
{
	for (int kind = 0; kind < 3; ++kind) {
		fxs_world *w = ground_world(kind, 0);
		fxs_body_id c =
			body(w, FXS_BODY_DYNAMIC, cylinder(0.3, 0.6), v3(0.25, 0.3, 0.4), quat(1, 0, 0, PI / 2), 0.6);
		double worst = 0;
		for (int s = 0; s < 600; ++s) {
			fxs_world_step(w);
			fxg_vec3 p = fxs_body_get_position(w, c);
			double dx = fx(p.x) - 0.25, dz = fx(p.z) - 0.4;
			worst = fmax(worst, sqrt(dx * dx + dz * dz));
		}
		fxg_vec3 p = fxs_body_get_position(w, c), av = fxs_body_get_angular_velocity(w, c);
		printf("  %-11s after 10 s: y %.5f (0.3), worst drift %.6f m, |w| %.6f\n", ground_name[kind], fx(p.y),
		       worst, sqrt(fx(av.x) * fx(av.x) + fx(av.y) * fx(av.y) + fx(av.z) * fx(av.z)));
		CHECKF(worst < 1e-4 && fabs(fx(p.y) - 0.3) < 0.005, "%s", ground_name[kind]);
		fxs_world_destroy(w);
	}
}

/* A pile of cylinders and other shapes: a snapshot taken mid-way restores to
 * a world that steps to the same hashes. */
TEST(cylinder_snapshot_restores_to_the_same_bits)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	add_ground(w, G_BOX, 0);
	fxs_shape sp = { .type = FXS_SHAPE_SPHERE, .radius = tofx(0.3) };
	for (int i = 0; i < 8; ++i) {
		fxs_shape s = i % 4 == 3 ? sp : (i % 4 == 2 ? box(0.3, 0.2, 0.4) : cylinder(0.3 + 0.05 * i, 0.4));
		body(w, FXS_BODY_DYNAMIC, s, v3(0.2 * i - 0.7, 1 + 0.9 * i, 0.1 * (i % 3)), quat(0.6, 0, 0.8, 0.4 * i), 0.6);
	}
	for (int s = 0; s < 60; ++s)
		fxs_world_step(w);
	size_t n = fxs_world_snapshot_size(w), wr = 0;
	void *buf = malloc(n);
	CHECK(buf && fxs_world_snapshot_save(w, buf, n, &wr) == FXS_OK);
	fxs_result err;
	fxs_world *w2 = fxs_world_create_from_snapshot(buf, wr, &err);
	CHECK(w2 && fxs_world_hash(w2) == fxs_world_hash(w));
	for (int s = 0; s < 120; ++s) {
		fxs_world_step(w);
		fxs_world_step(w2);
		CHECKF(fxs_world_hash(w) == fxs_world_hash(w2), "step %d", s);
	}
	printf("  hash after 180 steps %016" PRIx64 "\n", fxs_world_hash(w));
	free(buf);
	fxs_world_destroy(w2);
	fxs_world_destroy(w);
}

/* A compound of a cylinder (an axle, along x) and two cylinder wheels: its
 * mass is the sum of the closed forms, and it rests on the ground on the
 * wheels' rims, level, at the wheels' radius. */
TEST(cylinder_compound_of_wheels_rests_on_its_rims)
{
	fxs_world_def def = fxs_default_world_def();
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	add_ground(w, G_BOX, 0);
	fxg_quat along_x = quat(0, 0, 1, PI / 2);
	fxs_compound_child ch[3] = { { cylinder(0.1, 1.0), { v3(0, 0, 0), along_x } },
				     { cylinder(0.5, 0.1), { v3(-1.1, 0, 0), along_x } },
				     { cylinder(0.5, 0.1), { v3(1.1, 0, 0), along_x } } };
	fxg_vec3 com;
	fxs_compound_id cid = fxs_world_create_compound(w, ch, 3, &com);
	CHECK(cid != 0);
	fxs_body_def d = fxs_default_body_def();
	d.shape = fxs_compound_shape(w, cid);
	d.position = v3(0, 0.6, 0);
	d.density = tofx(1000);
	fxs_body_id b = fxs_body_create(w, &d);
	CHECK(b.index1 != 0);
	double r0 = fx(tofx(0.1)), h0 = 2 * fx(tofx(1.0)), r1 = fx(tofx(0.5)), h1 = 2 * fx(tofx(0.1));
	double m = 1000 * PI * (r0 * r0 * h0 + 2 * r1 * r1 * h1);
	printf("  mass %.6f kg (closed form %.6f)\n", wide_d(fxs_body_get_mass(w, b)), m);
	CHECK(fabs(wide_d(fxs_body_get_mass(w, b)) - m) < 1e-6 * m);
	for (int s = 0; s < 300; ++s)
		fxs_world_step(w);
	fxg_vec3 p = fxs_body_get_position(w, b);
	fxg_quat q = fxs_body_get_rotation(w, b);
	printf("  after 5 s: centre (%.5f %.5f %.5f), q (%.5f %.5f %.5f %.5f)\n", fx(p.x), fx(p.y), fx(p.z), fx(q.x),
	       fx(q.y), fx(q.z), fx(q.w));
	CHECK(fabs(fx(p.y) - 0.5) < 0.005 && fabs(fx(p.x)) < 1e-3 && fabs(fx(p.z)) < 1e-3);
	fxs_world_destroy(w);
}

/* Against a convex hull (a 2 x 0.5 x 2 m slab built from its 8 corners):
 * standing on it on 4 points, lying on it on 2, at the closed-form gap. */
TEST(cylinder_on_a_hull_stands_on_4_points_and_lies_on_2)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	fxg_vec3 pts[8];
	for (int k = 0; k < 8; ++k)
		pts[k] = v3(k & 1 ? 1 : -1, k & 2 ? 0.25 : -0.25, k & 4 ? 1 : -1);
	fxg_vec3 com;
	fxs_hull_id h = fxs_world_create_hull(w, pts, 8, &com);
	CHECK(h != 0);
	fxs_shape hs = fxs_hull_shape(w, h);
	fxs_shape cy = cylinder(0.3, 0.5);
	fxs_manifold m = collide(hs, v3(0, 0, 0), identity, cy, v3(0.2, 0.25 + 0.5 + 0.01, 0.1), identity);
	printf("  standing: %d points, separation %.5f (0.01)\n", m.point_count, min_sep(&m));
	CHECK(m.point_count == 4 && fabs(min_sep(&m) - 0.01) < 1e-3 && m.normal.y == FXG_ONE);
	m = collide(hs, v3(0, 0, 0), identity, cy, v3(0.2, 0.25 + 0.3 - 0.02, 0.1), quat(1, 0, 0, PI / 2));
	printf("  lying: %d points, separation %.5f (-0.02)\n", m.point_count, min_sep(&m));
	CHECK(m.point_count == 2 && fabs(min_sep(&m) + 0.02) < 1e-3 && m.normal.y == FXG_ONE);
	fxs_world_destroy(w);
}

/* A ledge of a triangle mesh: a top face at y = 0 for x <= 0 (z in -4..4)
 * and a wall down from its edge (x = 0): a convex edge along z. A cylinder
 * lying on the top with its axis along x, perpendicular to the edge, its
 * centre of mass 0.2 m inside the edge and its outer 0.4 m hanging over:
 * it rests on the top face and the edge (its side meets the mesh edge as a
 * capsule's), so it stays level with its centre r above the top (within
 * 2 mm and 0.1 degrees for 5 s). With its centre 0.2 m past the edge it
 * tips over and falls. */
TEST(cylinder_lying_across_a_mesh_ledge_rests_on_the_edge)
{
	const double r = 0.3, hh = 0.6;
	for (int past = 0; past < 2; ++past) {
		fxs_world_def def = fxs_default_world_def();
		def.enable_sleep = false;
		fxs_world *w = fxs_world_create(&def);
		fxg_vec3 v[6] = { v3(-5, 0, -4), v3(0, 0, -4), v3(-5, 0, 4), v3(0, 0, 4), v3(0, -3, -4), v3(0, -3, 4) };
		uint32_t t[12] = { 0, 2, 1, 1, 2, 3, 1, 3, 4, 4, 3, 5 };
		fxs_mesh_id id = fxs_world_create_mesh(w, v, 6, t, 4, tofx(0.5));
		fxs_body_def d = fxs_default_body_def();
		d.type = FXS_BODY_STATIC;
		d.shape = fxs_mesh_shape(w, id);
		d.friction = FXG_ONE;
		fxs_body_create(w, &d);
		const double cx = past ? 0.2 : -0.2;
		fxs_body_id c = body(w, FXS_BODY_DYNAMIC, cylinder(r, hh), v3(cx, r, 0), quat(0, 0, 1, PI / 2), 1.0);
		double tilt = 0, ylo = 1e9, yhi = -1e9;
		for (int s = 0; s < 300; ++s) {
			fxs_world_step(w);
			fxg_vec3 p = fxs_body_get_position(w, c);
			fxg_quat q = fxs_body_get_rotation(w, c);
			uint32_t ovf = 0;
			fxg_vec3 ax = fxg_q_rotate(q, fxg_v3(0, FXG_ONE, 0), &ovf); /* the axis, along x when level */
			tilt = fmax(tilt, asin(fmin(1, fabs(fx(ax.y)))) * 180 / PI);
			ylo = fmin(ylo, fx(p.y)), yhi = fmax(yhi, fx(p.y));
		}
		fxg_vec3 p = fxs_body_get_position(w, c);
		printf("  centre %.1f m %s the edge: after 5 s at (%.4f, %.4f), y within %.4f..%.4f (r %.2f), worst tilt %.3f deg\n",
		       fabs(cx), past ? "past" : "inside", fx(p.x), fx(p.y), ylo, yhi, r, tilt);
		if (!past) {
			CHECKF(tilt < 0.1 && fabs(ylo - r) < 0.002 && fabs(yhi - r) < 0.002 && fabs(fx(p.x) - cx) < 0.002,
			       "it does not rest on the edge");
		} else {
			CHECKF(fx(p.y) < -0.5, "it did not fall: y %.4f", fx(p.y));
		}
		fxs_world_destroy(w);
	}
}

/* ---- rims and caps against a mesh's convex edges ----
 *
 * A convex crest of a profile (a roof's ridge, a brow where a flat top
 * breaks into a slope) is locally the solid wedge below two planes through
 * the crest line (along z, through V): a convex set, so the signed distance
 * of a cylinder to it is the largest separation over the wedge's normals
 * (the arc from one face's normal to the other's, in the xy-plane):
 *   max over n of n.(c - V) - hh |n.u| - r sqrt(1 - (n.u)^2),
 * computed here in double (dense samples, then golden-section refinement),
 * with the normal n (from the mesh to the cylinder) where it is reached. */
static double wedge_sep(double b1, double b2, const double c[3], const double u[3], double r, double hh, double V[2],
			double n_out[3])
{
	double best = -1e300, bb = b1;
	for (int i = 0; i <= 400; ++i) {
		double b = b1 + (b2 - b1) * i / 400.0;
		double n[3] = { sin(b), cos(b), 0 }, nu = n[0] * u[0] + n[1] * u[1];
		double s = n[0] * (c[0] - V[0]) + n[1] * (c[1] - V[1]) - hh * fabs(nu) - r * sqrt(fmax(0, 1 - nu * nu));
		if (s > best)
			best = s, bb = b;
	}
	double lo = fmax(b1, bb - (b2 - b1) / 400.0), hi = fmin(b2, bb + (b2 - b1) / 400.0);
	for (int it = 0; it < 60; ++it) {
		double m1 = lo + (hi - lo) * 0.381966, m2 = hi - (hi - lo) * 0.381966, s[2];
		for (int k = 0; k < 2; ++k) {
			double b = k ? m2 : m1, n[3] = { sin(b), cos(b), 0 }, nu = n[0] * u[0] + n[1] * u[1];
			s[k] = n[0] * (c[0] - V[0]) + n[1] * (c[1] - V[1]) - hh * fabs(nu) - r * sqrt(fmax(0, 1 - nu * nu));
		}
		if (s[0] > s[1])
			hi = m2;
		else
			lo = m1;
	}
	double b = (lo + hi) / 2, n[3] = { sin(b), cos(b), 0 }, nu = n[0] * u[0] + n[1] * u[1];
	double s = n[0] * (c[0] - V[0]) + n[1] * (c[1] - V[1]) - hh * fabs(nu) - r * sqrt(fmax(0, 1 - nu * nu));
	if (n_out)
		n_out[0] = n[0], n_out[1] = n[1], n_out[2] = 0;
	return fmax(s, best);
}

/* A profile y(x) through the points px, py (x ascending), swept along z
 * from -4 to 4: as a triangle mesh (two triangles per segment), or as a
 * heightfield of cell 0.25 m from x = px[0] (the points on its grid lines). */
static fxs_body_id profile_ground(fxs_world *w, const double *px, const double *py, int n, bool heightfield)
{
	fxs_mesh_id id;
	if (!heightfield) {
		fxg_vec3 v[16];
		uint32_t t[6 * 8];
		for (int i = 0; i < n; ++i)
			v[2 * i] = v3(px[i], py[i], -4), v[2 * i + 1] = v3(px[i], py[i], 4);
		for (int i = 0; i + 1 < n; ++i) {
			uint32_t a = (uint32_t)(2 * i);
			uint32_t tt[6] = { a, a + 1, a + 2, a + 2, a + 1, a + 3 };
			memcpy(t + 6 * i, tt, sizeof tt);
		}
		id = fxs_world_create_mesh(w, v, (uint32_t)(2 * n), t, (uint32_t)(2 * (n - 1)), tofx(0.5));
	} else {
		const double cell = 0.25;
		int nx = (int)lround((px[n - 1] - px[0]) / cell) + 1, nz = 33;
		fix16_t *h = malloc(sizeof(fix16_t) * (size_t)(nx * nz));
		for (int i = 0; i < nx; ++i) {
			double x = px[0] + i * cell, y = py[n - 1];
			for (int s = 0; s + 1 < n; ++s)
				if (x <= px[s + 1] + 1e-9) {
					y = py[s] + (py[s + 1] - py[s]) * (x - px[s]) / (px[s + 1] - px[s]);
					break;
				}
			for (int j = 0; j < nz; ++j)
				h[j * nx + i] = tofx(y);
		}
		id = fxs_world_create_heightfield(w, h, (uint32_t)nx, (uint32_t)nz, tofx(cell), tofx(0.5));
		free(h);
	}
	fxs_body_def d = fxs_default_body_def();
	d.type = FXS_BODY_STATIC;
	d.shape = fxs_mesh_shape(w, id);
	d.position = heightfield ? v3(px[0], 0, -4) : v3(0, 0, 0);
	d.friction = 0;
	return fxs_body_create(w, &d);
}

/* A cylinder in every pose near a roof's ridge (slopes of 20 degrees each
 * side, the ridge along z at the origin), at gaps from gap_lo to gap_hi, as
 * a triangle mesh and as a heightfield, collided with the given speculative
 * distance: the manifold's deepest point is the wedge's signed distance
 * within 2 mm (1.5% of the gap beyond), and its normal is the distance's
 * within ang_tol degrees below a 2 cm gap, whichever feature of the cylinder
 * is nearest: a rim, a cap (the ridge across it) or the side. Poses whose
 * nearest normal is a face's (at the arc's ends) are the faces' tests. */
static void ridge_poses(double gap_lo, double gap_hi, double speculative, double ang_tol)
{
	const double al = 20 * PI / 180, r = 0.4, hh = 0.5;
	const double px[3] = { -4, 0, 4 }, py[3] = { -4 * tan(al), 0, -4 * tan(al) };
	const char *feat_name[3] = { "rim", "cap", "side" };
	for (int hf = 0; hf < 2; ++hf) {
		fxs_world_def def = fxs_default_world_def();
		fxs_world *w = fxs_world_create(&def);
		fxs_body_id g = profile_ground(w, px, py, 3, hf);
		fxs_shape gs = fxs_body_get_shape(w, g);
		fxs_transform xg = { fxs_body_get_position(w, g), identity };
		fxs_shape cy = cylinder(r, hh);
		uint64_t seed = 12345;
		int count[3] = { 0 }, bad[3] = { 0 };
		double worst_sep[3] = { 0 }, worst_ang[3] = { 0 };
		for (int i = 0; i < 600; ++i) {
			double rnd[5];
			for (int k = 0; k < 5; ++k) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				rnd[k] = (double)(seed >> 11) / 9007199254740992.0;
			}
			/* a random axis (half of them near the vertical: standing, tipped) */
			double th = i % 2 ? acos(1 - 2 * rnd[0]) : rnd[0] * 0.6, ph = 2 * PI * rnd[1];
			double ax[3] = { sin(th) * cos(ph), cos(th), sin(th) * sin(ph) };
			/* the rotation taking y to ax: about (z, 0, -x) by th */
			double rl = sqrt(ax[0] * ax[0] + ax[2] * ax[2]);
			fxg_quat q = rl < 1e-9 ? identity : quat(ax[2] / rl, 0, -ax[0] / rl, th);
			uint32_t ovf = 0;
			fxg_vec3 uq = fxg_q_rotate(q, fxg_v3(0, FXG_ONE, 0), &ovf);
			double u[3] = { fx(uq.x), fx(uq.y), fx(uq.z) };
			double gap = gap_lo + (gap_hi - gap_lo) * rnd[2], V[2] = { 0, 0 };
			double c[3] = { (rnd[3] - 0.5) * 0.8, 0, (rnd[4] - 0.5) * 0.4 };
			/* raise it to the gap (the separation grows with y) */
			double lo = -3, hi = 3;
			for (int it = 0; it < 48; ++it) {
				c[1] = (lo + hi) / 2;
				if (wedge_sep(-al, al, c, u, r, hh, V, NULL) > gap)
					hi = c[1];
				else
					lo = c[1];
			}
			c[1] = fx(tofx(c[1])), c[0] = fx(tofx(c[0])), c[2] = fx(tofx(c[2]));
			double n[3], want = wedge_sep(-al, al, c, u, r, hh, V, n);
			/* the edge's own normals only (the faces' are tested elsewhere), away from the arc's ends */
			double beta = atan2(n[0], n[1]);
			if (fabs(beta) > al - 1.5 * PI / 180)
				continue;
			double nu = fabs(n[0] * u[0] + n[1] * u[1] + n[2] * u[2]);
			int f = nu > cos(3 * PI / 180) ? 1 : (nu < sin(3 * PI / 180) ? 2 : 0);
			fxs_transform xc = { v3(c[0], c[1], c[2]), q };
			fxs_manifold m;
			fxs_collide(&cy, &xc, &gs, &xg, tofx(speculative), &m, &ovf);
			count[f]++;
			double got = m.point_count > 0 ? min_sep(&m) : 1e9;
			/* the manifold's normal points from the cylinder to the mesh */
			double ang = m.point_count > 0 ? acos(fmin(1, -(fx(m.normal.x) * n[0] + fx(m.normal.y) * n[1] +
								       fx(m.normal.z) * n[2]))) * 180 / PI
						       : 180;
			double es = fabs(got - want);
			worst_sep[f] = fmax(worst_sep[f], es), worst_ang[f] = fmax(worst_ang[f], want < 0.02 ? ang : 0);
			if (es > 0.002 + 0.015 * fabs(want) || (ang > ang_tol && want < 0.02)) {
				if (bad[f]++ < 3)
					printf("    %s %s: gap %.4f got %.4f (%d points, id %08x), normal off by %.2f deg, axis (%.3f %.3f %.3f)\n",
					       hf ? "heightfield" : "mesh", feat_name[f], want, got, m.point_count, m.point_count > 0 ? m.points[0].feature_id : 0u, ang, u[0],
					       u[1], u[2]);
			}
		}
		for (int f = 0; f < 3; ++f) {
			printf("  %-11s %-4s: %3d poses, %3d wrong; worst separation error %.4f m, normal (gaps below 2 cm) %.2f deg\n",
			       hf ? "heightfield" : "mesh", feat_name[f], count[f], bad[f], worst_sep[f], worst_ang[f]);
			CHECKF(bad[f] == 0 && count[f] >= 20, "%s %s: %d of %d wrong", hf ? "heightfield" : "mesh",
			       feat_name[f], bad[f], count[f]);
		}
		fxs_world_destroy(w);
	}
}

/* Near the ridge, at gaps from -5 mm to 6 cm (a speculative distance of
 * 20 cm), the normal within 1.5 degrees. It is held to that below a 2 cm gap:
 * beyond, a face's hit (a rim point's distance to the triangle, whose closest
 * point is on the ridge, with the face's normal) can tie with the edge's and
 * give the face's normal to a speculative contact. Before rims and caps met
 * mesh edges, 253 of the 254 rim poses and every cap pose had no contact at
 * all. */
TEST(cylinder_near_a_mesh_ridge_matches_the_wedge_distance) { ridge_poses(-0.005, 0.06, 0.2, 1.5); }

/* Sunk 5 mm to 8 cm into the ridge (a rim below its centre, where the side
 * and the rim both bound the cylinder seen along the edge), at the world's
 * default speculative distance: every pose still has the wedge's depth
 * within 2 mm + 1.5% and its way out within 4 degrees (a cap within 2.9
 * degrees of the normal takes the cap's, and a face's hit may give the
 * face's normal where the way out is a few degrees inside the edge's arc).
 * Before, the edge gave such a rim the side's normal, outside its arc, and
 * so nothing, and a standing cap sunk past its edge the side's too: 47 of
 * the 313 poses (46 rims, one cap) had no contact at all, on the mesh and on
 * the heightfield alike (a cylinder landing hard on a roof fell through). */
TEST(cylinder_sunk_into_a_mesh_ridge_is_pushed_out_across_it)
{
	fxs_world_def def = fxs_default_world_def();
	ridge_poses(-0.08, -0.005, fx(def.speculative_distance), 4.0);
}

/* A cylinder standing on a flat top slides (no friction, 2.5 m/s) over its
 * brow, where the top breaks into a 25 degree slope down, on a triangle mesh
 * and on a heightfield: it tips over the edge and slides on down the slope.
 * At every step its signed distance to the solid below the top and the
 * slope (the wedge at the brow) stays above -3 mm (nothing sinks through
 * the edge; before caps and rims met mesh edges the mesh's was 7.8 mm), and
 * after 1.5 s it is well down the slope. */
TEST(cylinder_slides_over_a_mesh_brow_without_sinking)
{
	const double sl = 25 * PI / 180, r = 0.3, hh = 0.25;
	const double px[3] = { -4, 0, 8 }, py[3] = { 0, 0, -8 * tan(sl) };
	for (int hf = 0; hf < 2; ++hf) {
		fxs_world_def def = fxs_default_world_def();
		def.enable_sleep = false;
		fxs_world *w = fxs_world_create(&def);
		profile_ground(w, px, py, 3, hf);
		fxs_body_id c = body(w, FXS_BODY_DYNAMIC, cylinder(r, hh), v3(-1, hh, 0.1), identity, 0);
		fxs_body_set_linear_velocity(w, c, v3(2.5, 0, 0));
		double worst = 1e9, worst_t = 0, V[2] = { 0, 0 };
		for (int s = 1; s <= 90; ++s) {
			fxs_world_step(w);
			fxg_vec3 p = fxs_body_get_position(w, c);
			uint32_t ovf = 0;
			fxg_vec3 uq = fxg_q_rotate(fxs_body_get_rotation(w, c), fxg_v3(0, FXG_ONE, 0), &ovf);
			double cc[3] = { fx(p.x), fx(p.y), fx(p.z) }, u[3] = { fx(uq.x), fx(uq.y), fx(uq.z) };
			double d = wedge_sep(0, sl, cc, u, r, hh, V, NULL);
			if (d < worst)
				worst = d, worst_t = s / 60.0;
		}
		fxg_vec3 p = fxs_body_get_position(w, c);
		printf("  %-11s deepest %.4f m (at %.2f s); after 1.5 s at x %.3f y %.3f\n", hf ? "heightfield" : "mesh",
		       -worst, worst_t, fx(p.x), fx(p.y));
		CHECKF(worst > -0.003, "%s: %.4f m into the brow", hf ? "heightfield" : "mesh", -worst);
		CHECKF(fx(p.x) > 2.0 && fx(p.y) < -0.5, "%s: not down the slope", hf ? "heightfield" : "mesh");
		fxs_world_destroy(w);
	}
}

/* A cylinder standing on a ledge's top (a triangle mesh: the top at y = 0
 * for x <= 0, a wall down to a floor at y = -0.6) slides off it (no
 * friction, 2 m/s): it tips over the ledge's edge and drops to the floor.
 * While it passes the edge its signed distance to the ledge (the solid
 * below the top and behind the wall) stays above -3 mm, and after 2 s its
 * lowest point is on the floor within 5 mm (it neither snagged on the edge
 * nor fell through). Before caps and rims met mesh edges, its cap's rim cut
 * 73 mm into the ledge as it tipped over. */
TEST(cylinder_slides_off_a_mesh_ledge)
{
	const double r = 0.3, hh = 0.25, drop = 0.6;
	const double px[4] = { -4, 0, 0, 8 }, py[4] = { 0, 0, -drop, -drop };
	fxs_world_def def = fxs_default_world_def();
	def.enable_sleep = false;
	fxs_world *w = fxs_world_create(&def);
	profile_ground(w, px, py, 4, false);
	fxs_body_id c = body(w, FXS_BODY_DYNAMIC, cylinder(r, hh), v3(-1, hh, 0.1), identity, 0);
	fxs_body_set_linear_velocity(w, c, v3(2, 0, 0));
	double worst = 1e9, V[2] = { 0, 0 }, low = 0;
	for (int s = 1; s <= 120; ++s) {
		fxs_world_step(w);
		fxg_vec3 p = fxs_body_get_position(w, c);
		uint32_t ovf = 0;
		fxg_vec3 uq = fxg_q_rotate(fxs_body_get_rotation(w, c), fxg_v3(0, FXG_ONE, 0), &ovf);
		double cc[3] = { fx(p.x), fx(p.y), fx(p.z) }, u[3] = { fx(uq.x), fx(uq.y), fx(uq.z) };
		if (cc[1] > -drop / 2)
			worst = fmin(worst, wedge_sep(0, PI / 2, cc, u, r, hh, V, NULL));
		low = cc[1] - hh * fabs(u[1]) - r * sqrt(fmax(0, 1 - u[1] * u[1]));
	}
	fxg_vec3 p = fxs_body_get_position(w, c);
	printf("  deepest into the ledge %.4f m; after 2 s at x %.3f, lowest point y %.4f (floor %.2f)\n", -worst, fx(p.x),
	       low, -drop);
	CHECKF(worst > -0.003, "%.4f m into the ledge", -worst);
	CHECKF(fx(p.x) > 1.0 && fabs(low + drop) < 0.005, "not on the floor: x %.3f lowest %.4f", fx(p.x), low);
	fxs_world_destroy(w);
}

/* A cylinder tipped 35 degrees (its axis turned about x, so its lowest rim
 * point crosses the ridge obliquely) dropped from 0.3 m onto a roof's ridge
 * (slopes of 20 degrees, friction 1): at every step for 1 s its signed
 * distance to the roof's wedge stays above -5 mm (before rims met mesh
 * edges it fell through the ridge, on the mesh and on the heightfield). */
TEST(cylinder_dropped_rim_first_on_a_mesh_ridge_does_not_sink)
{
	const double al = 20 * PI / 180, r = 0.4, hh = 0.5, tilt = 35 * PI / 180;
	const double px[3] = { -4, 0, 4 }, py[3] = { -4 * tan(al), 0, -4 * tan(al) };
	for (int hf = 0; hf < 2; ++hf) {
		fxs_world_def def = fxs_default_world_def();
		def.enable_sleep = false;
		fxs_world *w = fxs_world_create(&def);
		fxs_body_id g = profile_ground(w, px, py, 3, hf);
		(void)g;
		/* the lowest rim point below the centre by hh cos + r sin */
		double low = hh * cos(tilt) + r * sin(tilt);
		fxs_body_id c = body(w, FXS_BODY_DYNAMIC, cylinder(r, hh), v3(0.05, low + 0.3, 0), quat(1, 0, 0, tilt), 1.0);
		double worst = 1e9, worst_t = 0, V[2] = { 0, 0 };
		for (int s = 1; s <= 60; ++s) {
			fxs_world_step(w);
			fxg_vec3 p = fxs_body_get_position(w, c);
			uint32_t ovf = 0;
			fxg_vec3 uq = fxg_q_rotate(fxs_body_get_rotation(w, c), fxg_v3(0, FXG_ONE, 0), &ovf);
			double cc[3] = { fx(p.x), fx(p.y), fx(p.z) }, u[3] = { fx(uq.x), fx(uq.y), fx(uq.z) };
			double d = wedge_sep(-al, al, cc, u, r, hh, V, NULL);
			if (d < worst)
				worst = d, worst_t = s / 60.0;
		}
		fxg_vec3 p = fxs_body_get_position(w, c);
		printf("  %-11s deepest %.4f m (at %.2f s); after 1 s at (%.3f %.3f %.3f)\n", hf ? "heightfield" : "mesh",
		       -worst, worst_t, fx(p.x), fx(p.y), fx(p.z));
		CHECKF(worst > -0.005, "%s: %.4f m into the ridge", hf ? "heightfield" : "mesh", -worst);
		fxs_world_destroy(w);
	}
}

/* A cylinder over the apex of a square pyramid (a triangle mesh of four
 * 45-degree faces): the apex against its cap or its rim. The distance is
 * the apex's from the cylinder (closed form: off the cap's plane by dy, off
 * the side by dr, the rim's sqrt(dy^2 + dr^2) when both are positive), the
 * pyramid's too when that direction lies in the apex's cone (so the poses
 * kept). The manifold's deepest point is at it within 1 mm and its normal
 * within 1 degree, at gaps from -3 mm to 5 cm and tilts up to 40 degrees.
 * Before, mesh vertices met only the cylinder's side: none of these poses
 * had a contact. */
TEST(cylinder_cap_and_rim_over_a_mesh_apex)
{
	const double r = 0.4, hh = 0.5;
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	fxg_vec3 v[5] = { v3(0, 0, 0), v3(1, -1, 1), v3(1, -1, -1), v3(-1, -1, -1), v3(-1, -1, 1) };
	uint32_t t[12] = { 0, 1, 2, 0, 3, 4, 0, 4, 1, 0, 2, 3 };
	fxs_mesh_id id = fxs_world_create_mesh(w, v, 5, t, 4, tofx(0.5));
	fxs_shape gs = fxs_mesh_shape(w, id);
	fxs_transform xg = { v3(0, 0, 0), identity };
	fxs_shape cy = cylinder(r, hh);
	uint64_t seed = 777;
	int count[2] = { 0 }, bad = 0;
	double worst_sep = 0, worst_ang = 0;
	for (int i = 0; i < 400; ++i) {
		double rnd[5];
		for (int k = 0; k < 5; ++k) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			rnd[k] = (double)(seed >> 11) / 9007199254740992.0;
		}
		double th = rnd[0] * 40 * PI / 180, ph = 2 * PI * rnd[1];
		double ax[3] = { sin(th) * cos(ph), cos(th), sin(th) * sin(ph) };
		double rl = sqrt(ax[0] * ax[0] + ax[2] * ax[2]);
		fxg_quat q = rl < 1e-9 ? identity : quat(ax[2] / rl, 0, -ax[0] / rl, th);
		uint32_t ovf = 0;
		fxg_vec3 uq = fxg_q_rotate(q, fxg_v3(0, FXG_ONE, 0), &ovf);
		double u[3] = { fx(uq.x), fx(uq.y), fx(uq.z) };
		/* the apex at (ox, -(hh + gap-ish), oz) in the cylinder's frame, placed in the world */
		/* half of them with the apex just outside the rim */
		double gap = -0.003 + 0.053 * rnd[2], ox = (rnd[3] - 0.5) * 1.1, oz = (rnd[4] - 0.5) * 1.1;
		if (i % 2) {
			double rho0 = r + 0.9 * gap * rnd[3];
			ox = rho0 * cos(2 * PI * rnd[4]), oz = rho0 * sin(2 * PI * rnd[4]);
		}
		/* the cylinder's local axes: y along u; x, z from the rotation */
		fxg_vec3 xq = fxg_q_rotate(q, fxg_v3(FXG_ONE, 0, 0), &ovf), zq = fxg_q_rotate(q, fxg_v3(0, 0, FXG_ONE), &ovf);
		double lx[3] = { fx(xq.x), fx(xq.y), fx(xq.z) }, lz[3] = { fx(zq.x), fx(zq.y), fx(zq.z) };
		double rho = sqrt(ox * ox + oz * oz), ly = -(hh + gap);
		if (rho > r) /* off the rim: the gap is along the rim's normal */
			ly = -(hh + sqrt(fmax(0, gap * gap - (rho - r) * (rho - r))));
		if (rho > r && gap < rho - r)
			continue;
		double c[3];
		for (int k = 0; k < 3; ++k)
			c[k] = fx(tofx(-(ox * lx[k] + ly * u[k] + oz * lz[k])));
		/* the reference, from the stored centre: the apex's distance and direction */
		double d[3] = { -c[0], -c[1], -c[2] };
		double y = d[0] * u[0] + d[1] * u[1] + d[2] * u[2], rv[3], rr = 0;
		for (int k = 0; k < 3; ++k)
			rv[k] = d[k] - y * u[k], rr += rv[k] * rv[k];
		rr = sqrt(rr);
		double dy = fabs(y) - hh, dr = rr - r, sy = y > 0 ? 1 : -1, n[3], want;
		if (dr > 0 && dy > 0) {
			want = sqrt(dr * dr + dy * dy);
			for (int k = 0; k < 3; ++k)
				n[k] = (dr * rv[k] / rr + dy * sy * u[k]) / want;
		} else {
			want = dy;
			for (int k = 0; k < 3; ++k)
				n[k] = sy * u[k];
		}
		/* n from the cylinder to the apex: -n in the apex's cone, with a margin */
		if (-n[1] < fabs(n[0]) + fabs(n[2]) + 0.05 || dy < 0)
			continue;
		int f = dr > 0;
		count[f]++;
		fxs_transform xc = { v3(c[0], c[1], c[2]), q };
		fxs_manifold m;
		fxs_collide(&cy, &xc, &gs, &xg, tofx(0.2), &m, &ovf);
		double got = m.point_count > 0 ? min_sep(&m) : 1e9;
		double ang = m.point_count > 0
			? acos(fmin(1, fx(m.normal.x) * n[0] + fx(m.normal.y) * n[1] + fx(m.normal.z) * n[2])) * 180 / PI
			: 180;
		worst_sep = fmax(worst_sep, fabs(got - want)), worst_ang = fmax(worst_ang, ang);
		if (fabs(got - want) > 0.001 || ang > 1.0) {
			if (bad++ < 3)
				printf("    %s: gap %.4f got %.4f (%d points), normal off by %.2f deg\n", f ? "rim" : "cap",
				       want, got, m.point_count, ang);
		}
	}
	printf("  apex under the cap %d poses, on the rim %d poses: %d wrong; worst separation error %.5f m, normal %.3f deg\n",
	       count[0], count[1], bad, worst_sep, worst_ang);
	CHECK(bad == 0 && count[0] >= 20 && count[1] >= 20);
	fxs_world_destroy(w);
}
