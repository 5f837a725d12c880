/* Queries (fixstep/query.h) against an independent reference: sphere
 * tracing on the exact signed distance functions of sphere, box and capsule,
 * in double precision from the same fixed-point inputs. Stated bounds: a ray
 * hit's point within 1e-4 m + 3e-5 m per metre of ray of the surface (offsets
 * are turned into a shape's frame by a Q16.16 rotation), its distance
 * within 1e-4 m + (2e-5 m + 3e-5 m per metre) / cos(incidence) of the
 * reference (the error across the surface, stretched along a grazing ray;
 * cos floored at 0.01), rays up to 40 m; hit or miss in agreement outside a 1 mm grazing band; shape casts stop between 0 and 1 mm + 1e-4 m short of the
 * analytic contact and never inside. */
#include <math.h>
#include <stdlib.h>

#include "fixstep/fixstep.h"
#include "fixstep/query.h"
#include "geometry/hull.h"
#include "test.h"

static double D(fix16_t v) { return v / 65536.0; }
static fix16_t F(double v) { return (fix16_t)lround(v * 65536.0); }

static double rnd(uint64_t *s, double lo, double hi)
{
	uint64_t r = test_rng_next(s);
	return lo + (hi - lo) * (double)(r >> 11) / 9007199254740992.0;
}

static fxg_quat rnd_quat(uint64_t *s)
{
	double q[4], n = 0;
	for (int k = 0; k < 4; ++k) {
		q[k] = rnd(s, -1, 1);
		n += q[k] * q[k];
	}
	n = sqrt(n);
	return (fxg_quat){ F(q[0] / n), F(q[1] / n), F(q[2] / n), F(q[3] / n) };
}

/* rotate v by the inverse of unit quaternion q (double, from the fixed values) */
static void inv_rotate(fxg_quat q, const double v[3], double out[3])
{
	double x = -D(q.x), y = -D(q.y), z = -D(q.z), w = D(q.w);
	double n = sqrt(x * x + y * y + z * z + w * w);
	x /= n, y /= n, z /= n, w /= n;
	/* t = 2 q x v; v' = v + w t + q x t */
	double tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
	out[0] = v[0] + w * tx + (y * tz - z * ty);
	out[1] = v[1] + w * ty + (z * tx - x * tz);
	out[2] = v[2] + w * tz + (x * ty - y * tx);
}

/* exact signed distance from world point p to the shape */
static double sdf(const fxs_shape *s, const fxs_transform *xf, const double p[3])
{
	double m[3] = { p[0] - D(xf->p.x), p[1] - D(xf->p.y), p[2] - D(xf->p.z) }, l[3];
	inv_rotate(xf->q, m, l);
	switch (s->type) {
	case FXS_SHAPE_SPHERE:
		return sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]) - D(s->radius);
	case FXS_SHAPE_BOX: {
		double h[3] = { D(s->half_extents.x), D(s->half_extents.y), D(s->half_extents.z) }, q[3], out = 0, in = -1e9;
		for (int k = 0; k < 3; ++k) {
			q[k] = fabs(l[k]) - h[k];
			out += q[k] > 0 ? q[k] * q[k] : 0;
			in = q[k] > in ? q[k] : in;
		}
		return out > 0 ? sqrt(out) : in;
	}
	default: { /* capsule along local y */
		double hh = D(s->half_height), y = l[1] < -hh ? -hh : (l[1] > hh ? hh : l[1]);
		double dy = l[1] - y;
		return sqrt(l[0] * l[0] + dy * dy + l[2] * l[2]) - D(s->radius);
	}
	}
}

/* sphere tracing: first t in [0, len] with sdf <= 0 (-1 if none), and the
 * closest approach of the ray to the surface (for the grazing band) */
/* The ray a cast really follows: from p0 along the Q16.16 unit vector
 * nearest to p1 - p0 (each component within an LSB or two), for its rounded
 * length. The queries are exact to the stated bound for that ray; the
 * direction's rounding (2^-16 rad) moves a far grazing hit by more. */
static double trace(const fxs_shape *s, const fxs_transform *xf, fxg_vec3 p0, fxg_vec3 p1, double *closest)
{
	uint32_t ovf = 0;
	fix16_t flen;
	fxg_vec3 u = fxg_v3_normalize(fxg_v3(p1.x - p0.x, p1.y - p0.y, p1.z - p0.z), &flen, &ovf);
	double a[3] = { D(p0.x), D(p0.y), D(p0.z) }, len = D(flen);
	double d[3] = { D(u.x) * len, D(u.y) * len, D(u.z) * len };
	double ul = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
	for (int k = 0; k < 3; ++k)
		d[k] *= len / ul; /* |d| = len exactly */
	double t = 0;
	*closest = 1e9;
	for (int it = 0; it < 100000; ++it) {
		double p[3] = { a[0] + d[0] * t / len, a[1] + d[1] * t / len, a[2] + d[2] * t / len };
		double v = sdf(s, xf, p);
		if (v < *closest)
			*closest = v;
		if (v <= 1e-9)
			return t;
		t += v > 1e-6 ? v : 1e-6;
		if (t > len)
			break;
	}
	/* the far end's distance counts for the band too */
	double e[3] = { a[0] + d[0], a[1] + d[1], a[2] + d[2] };
	double v = sdf(s, xf, e);
	if (v < *closest)
		*closest = v;
	return -1;
}

static fxs_shape rnd_shape(uint64_t *s, int type)
{
	fxs_shape sh = { 0 };
	sh.type = type;
	sh.radius = F(rnd(s, 0.1, 2));
	sh.half_height = F(rnd(s, 0.1, 2));
	sh.half_extents = fxg_v3(F(rnd(s, 0.1, 2)), F(rnd(s, 0.1, 2)), F(rnd(s, 0.1, 2)));
	return sh;
}

TEST(query_ray_casts_agree_with_sphere_tracing)
{
	static const char *names[] = { "sphere", "box", "capsule" };
	static const int types[] = { FXS_SHAPE_SPHERE, FXS_SHAPE_BOX, FXS_SHAPE_CAPSULE };
	uint64_t seed = 0x9a7ca57;
	int n = test_quick ? 2000 : 20000;
	for (int ti = 0; ti < 3; ++ti) {
		int hits = 0, band = 0;
		double worst = 0;
		for (int i = 0; i < n; ++i) {
			fxs_shape sh = rnd_shape(&seed, types[ti]);
			fxs_transform xf = { fxg_v3(F(rnd(&seed, -3, 3)), F(rnd(&seed, -3, 3)), F(rnd(&seed, -3, 3))),
					     rnd_quat(&seed) };
			fxg_vec3 p0 = fxg_v3(F(rnd(&seed, -10, 10)), F(rnd(&seed, -10, 10)), F(rnd(&seed, -10, 10)));
			/* aimed near the shape, so that about half the rays hit */
			fxg_vec3 aim = fxg_v3(xf.p.x + F(rnd(&seed, -3, 3)), xf.p.y + F(rnd(&seed, -3, 3)), xf.p.z + F(rnd(&seed, -3, 3)));
			fxg_vec3 p1 = fxg_v3(2 * aim.x - p0.x, 2 * aim.y - p0.y, 2 * aim.z - p0.z);
			double closest;
			double ref = trace(&sh, &xf, p0, p1, &closest);
			fxs_cast_hit h;
			bool got = fxs_shape_ray_cast(&sh, &xf, p0, p1, &h);
			if (fabs(closest) < 1e-3 && (got != (ref >= 0))) {
				band++; /* grazing: either answer is right within the band */
				continue;
			}
			CHECKF(got == (ref >= 0), "%s ray %d: got %d, reference %.6f (closest %.6f)", names[ti], i, got, ref,
			       closest);
			if (!got)
				continue;
			hits++;
			/* a few LSB across the surface become LSB / cos(incidence) along
			 * the ray: the bound widens for grazing hits */
			double dx = D(p1.x) - D(p0.x), dy = D(p1.y) - D(p0.y), dz = D(p1.z) - D(p0.z);
			double dl = sqrt(dx * dx + dy * dy + dz * dz);
			double cosi = fabs(D(h.normal.x) * dx + D(h.normal.y) * dy + D(h.normal.z) * dz) / dl;
			/* offsets are turned into the shape's frame by a Q16.16 rotation
			 * (entries within an LSB): 3e-5 per metre across the surface,
			 * stretched by 1 / cos along a grazing ray */
			double err = fabs(D(h.distance) - ref), tol = 1e-4 + (2e-5 + 3e-5 * ref) / (cosi > 1e-2 ? cosi : 1e-2);
			double hp[3] = { D(h.point.x), D(h.point.y), D(h.point.z) };
			double on = fabs(sdf(&sh, &xf, hp));
			CHECKF(ref == 0 || on < 1e-4 + 3e-5 * ref, "%s ray %d: hit point %.6f m off the surface",
			       names[ti], i, on);
			if (err / tol > worst)
				worst = err / tol;
			CHECKF(err < tol, "%s ray %d: distance %.6f, reference %.6f (cos %.4f)", names[ti], i, D(h.distance), ref,
			       cosi);
			/* the normal faces the ray's start side of the surface */
			double nn = D(h.normal.x) * D(h.normal.x) + D(h.normal.y) * D(h.normal.y) + D(h.normal.z) * D(h.normal.z);
			CHECKF(fabs(nn - 1) < 1e-3, "%s: normal length^2 %.6f", names[ti], nn);
		}
		printf("  %-7s %d rays, %d hits, %d in the grazing band, worst error %.2f of the bound\n", names[ti], n, hits,
		       band, worst);
		CHECK(hits > n / 10);
	}
}

/* A closed box mesh hit from outside gives the box's answer. */
TEST(query_ray_cast_against_a_mesh_matches_the_box)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	static const uint32_t tris[36] = { 0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
					   2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5 };
	fxg_vec3 v[8];
	const double hx = 1.5, hy = 0.75, hz = 2;
	for (int k = 0; k < 8; ++k)
		v[k] = fxg_v3(F(k & 1 ? hx : -hx), F(k & 2 ? hy : -hy), F(k & 4 ? hz : -hz));
	fxs_mesh_id mid = fxs_world_create_mesh(w, v, 8, tris, 12, FXG_ONE);
	CHECK(mid != 0);
	fxs_shape mesh = fxs_mesh_shape(w, mid);
	fxs_shape box = { 0 };
	box.type = FXS_SHAPE_BOX;
	box.half_extents = fxg_v3(F(hx), F(hy), F(hz));
	fxs_transform xf = { fxg_v3(F(0.25), F(-0.5), F(1)), { 0, 0, 0, FXG_ONE } };
	uint64_t seed = 77;
	int n = test_quick ? 2000 : 20000, compared = 0;
	for (int i = 0; i < n; ++i) {
		fxg_vec3 p0, p1 = fxg_v3(F(rnd(&seed, -3, 3)), F(rnd(&seed, -3, 3)), F(rnd(&seed, -3, 3)));
		do /* start outside the box */
			p0 = fxg_v3(F(rnd(&seed, -8, 8)), F(rnd(&seed, -8, 8)), F(rnd(&seed, -8, 8)));
		while (fabs(D(p0.x) - 0.25) <= hx + 0.01 && fabs(D(p0.y) + 0.5) <= hy + 0.01 && fabs(D(p0.z) - 1) <= hz + 0.01);
		fxs_cast_hit hb, hm;
		bool gb = fxs_shape_ray_cast(&box, &xf, p0, p1, &hb), gm = fxs_shape_ray_cast(&mesh, &xf, p0, p1, &hm);
		if (gb != gm) {
			/* only grazing an edge may differ */
			double closest;
			trace(&box, &xf, p0, p1, &closest);
			CHECKF(fabs(closest) < 1e-3, "ray %d: box %d mesh %d", i, gb, gm);
			continue;
		}
		if (!gb)
			continue;
		compared++;
		CHECKF(abs(hb.distance - hm.distance) <= 4, "ray %d: box %d mesh %d", i, hb.distance, hm.distance);
	}
	printf("  %d rays hit both the box and the box-shaped mesh at the same distance (4 LSB)\n", compared);
	CHECK(compared > n / 10);
	fxs_world_destroy(w);
}

/* The world ray cast is the earliest of the per-body casts, ties to the
 * smaller slot, and `skip` skips. */
TEST(query_world_ray_cast_is_the_earliest_body)
{
	uint64_t seed = 4242;
	for (int round = 0; round < 20; ++round) {
		fxs_world_def def = fxs_default_world_def();
		fxs_world *w = fxs_world_create(&def);
		for (int i = 0; i < 40; ++i) {
			fxs_body_def d = fxs_default_body_def();
			d.type = i % 4 == 0 ? FXS_BODY_STATIC : FXS_BODY_DYNAMIC;
			d.shape = rnd_shape(&seed, (int)(test_rng_next(&seed) % 3));
			d.position = fxg_v3(F(rnd(&seed, -10, 10)), F(rnd(&seed, -10, 10)), F(rnd(&seed, -10, 10)));
			d.rotation = rnd_quat(&seed);
			fxs_body_create(w, &d);
		}
		for (int r = 0; r < 50; ++r) {
			fxg_vec3 p0 = fxg_v3(F(rnd(&seed, -15, 15)), F(rnd(&seed, -15, 15)), F(rnd(&seed, -15, 15)));
			fxg_vec3 p1 = fxg_v3(F(rnd(&seed, -15, 15)), F(rnd(&seed, -15, 15)), F(rnd(&seed, -15, 15)));
			fxs_cast_hit h, best = { fxs_null_body, 0, 0, { 0, 0, 0 }, { 0, 0, 0 } };
			bool have = false;
			uint32_t best_slot = 0;
			for (uint32_t s = 0; s < fxs_world_slot_count(w); ++s) {
				fxs_body_id id = fxs_world_body_at(w, s);
				fxs_shape sh = fxs_body_get_shape(w, id);
				fxs_transform xf = { fxs_body_get_position(w, id), fxs_body_get_rotation(w, id) };
				if (fxs_shape_ray_cast(&sh, &xf, p0, p1, &h) && (!have || h.distance < best.distance)) {
					have = true;
					best = h;
					best_slot = s;
				}
			}
			bool got = fxs_world_ray_cast(w, p0, p1, fxs_null_body, &h);
			CHECK(got == have);
			if (!got)
				continue;
			CHECK(h.distance == best.distance && h.body.index1 == fxs_world_body_at(w, best_slot).index1);
			/* skipping the body hit gives a later hit or none */
			fxs_cast_hit h2;
			if (fxs_world_ray_cast(w, p0, p1, h.body, &h2))
				CHECK(h2.distance >= h.distance && h2.body.index1 != h.body.index1);
		}
		fxs_world_destroy(w);
	}
}

/* Sphere cast against a sphere: the analytic answer is a ray against a
 * sphere of radius r1 + r2. Box cast down onto the ground: lands at the
 * ground's top. Never ends inside, stops at most 1 mm (+1e-4 m) short. */
TEST(query_shape_casts_stop_at_the_surface)
{
	uint64_t seed = 31337;
	int n = test_quick ? 300 : 3000, hits = 0;
	double worst = 0;
	for (int i = 0; i < n; ++i) {
		fxs_world_def def = fxs_default_world_def();
		fxs_world *w = fxs_world_create(&def);
		fxs_body_def d = fxs_default_body_def();
		d.type = FXS_BODY_STATIC;
		d.shape.type = FXS_SHAPE_SPHERE;
		d.shape.radius = F(rnd(&seed, 0.2, 2));
		d.position = fxg_v3(F(rnd(&seed, -2, 2)), F(rnd(&seed, -2, 2)), F(rnd(&seed, -2, 2)));
		fxs_body_create(w, &d);
		fxs_shape caster = { 0 };
		caster.type = FXS_SHAPE_SPHERE;
		caster.radius = F(rnd(&seed, 0.1, 1));
		fxg_vec3 p0 = fxg_v3(F(rnd(&seed, -10, 10)), F(rnd(&seed, -10, 10)), F(rnd(&seed, -10, 10)));
		fxg_vec3 p1 = fxg_v3(F(rnd(&seed, -3, 3)), F(rnd(&seed, -3, 3)), F(rnd(&seed, -3, 3)));
		fxs_shape big = d.shape;
		big.radius = d.shape.radius + caster.radius;
		fxs_transform xf = { d.position, { 0, 0, 0, FXG_ONE } };
		double closest;
		double ref = trace(&big, &xf, p0, p1, &closest);
		fxs_cast_hit h;
		bool got = fxs_world_shape_cast(w, &caster, (fxg_quat){ 0, 0, 0, FXG_ONE }, p0, p1, fxs_null_body, &h);
		fxs_world_destroy(w);
		if (fabs(closest) < 2e-3 && got != (ref >= 0))
			continue; /* grazing */
		CHECKF(got == (ref >= 0), "cast %d: got %d reference %.6f", i, got, ref);
		if (!got || ref == 0)
			continue;
		hits++;
		/* never past the analytic contact along the ray; at the stop the
		 * gap between the balls is between 0 and the tolerance */
		CHECKF(D(h.distance) <= ref + 1e-4, "cast %d: %.6f past %.6f", i, D(h.distance), ref);
		double a[3] = { D(p0.x), D(p0.y), D(p0.z) }, dd[3] = { D(p1.x) - a[0], D(p1.y) - a[1], D(p1.z) - a[2] };
		double len = sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]), gap2 = 0;
		for (int k = 0; k < 3; ++k) {
			double c = a[k] + dd[k] * D(h.distance) / len - D(k == 0 ? d.position.x : k == 1 ? d.position.y
													 : d.position.z);
			gap2 += c * c;
		}
		double gap = sqrt(gap2) - D(big.radius);
		if (fabs(gap) > worst)
			worst = fabs(gap);
		CHECKF(gap >= -1e-4 && gap <= 1e-3 + 1e-4, "cast %d: stopped with a gap of %.6f m", i, gap);
	}
	printf("  sphere casts: %d hits, largest gap at the stop %.2e m\n", hits, worst);
	CHECK(hits > n / 10);

	/* a rotated box dropped on the ground lands on its lowest corner */
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	fxs_body_def g = fxs_default_body_def();
	g.type = FXS_BODY_STATIC;
	g.shape.type = FXS_SHAPE_BOX;
	g.shape.half_extents = fxg_v3(FXG_I(20), FXG_ONE, FXG_I(20));
	g.position = fxg_v3(0, -FXG_ONE, 0);
	fxs_body_id ground = fxs_body_create(w, &g);
	fxs_shape box = { 0 };
	box.type = FXS_SHAPE_BOX;
	box.half_extents = fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF);
	/* 45 degrees about z: the lowest edge is sqrt(2)/2 below the centre */
	fxg_quat q = { 0, 0, F(sin(3.14159265358979323846 / 8)), F(cos(3.14159265358979323846 / 8)) };
	fxs_cast_hit h;
	CHECK(fxs_world_shape_cast(w, &box, q, fxg_v3(F(1), F(5), 0), fxg_v3(F(1), F(-5), 0), fxs_null_body, &h));
	double centre = 5 - D(h.distance), expect = sqrt(2) / 2;
	printf("  box cast onto the ground: centre stops at %.5f m, touching at %.5f m\n", centre, expect);
	CHECK(h.body.index1 == ground.index1);
	CHECK(centre >= expect - 1e-4 && centre <= expect + 1e-3 + 1e-4);
	CHECK(D(h.normal.y) > 0.999);
	fxs_world_destroy(w);
}

/* Ray casts against hulls, against a double Cyrus-Beck reference on the
 * exact planes through each face's vertices (the same vertices the kernel
 * has): hit or miss agrees outside a 1 mm grazing band, and the distance
 * is within 1e-4 m + (2e-5 + 3e-5 per metre) / cos(incidence), the bound
 * of the other shapes. */
static double hull_ref(const fxs_hull_geom *g, const fxs_transform *xf, fxg_vec3 p0, fxg_vec3 p1, double *margin)
{
	uint32_t ovf = 0;
	fix16_t flen;
	fxg_vec3 u = fxg_v3_normalize(fxg_v3(p1.x - p0.x, p1.y - p0.y, p1.z - p0.z), &flen, &ovf);
	double a[3] = { D(p0.x) - D(xf->p.x), D(p0.y) - D(xf->p.y), D(p0.z) - D(xf->p.z) }, al[3];
	double du[3] = { D(u.x), D(u.y), D(u.z) }, ul[3];
	double nu = sqrt(du[0] * du[0] + du[1] * du[1] + du[2] * du[2]);
	for (int k = 0; k < 3; ++k)
		du[k] /= nu;
	inv_rotate(xf->q, a, al);
	inv_rotate(xf->q, du, ul);
	double tn = 0, tf = D(flen);
	*margin = 1e9;
	for (int f = 0; f < g->n_faces; ++f) {
		const fxg_vec3 *v = g->v;
		const uint8_t *fv = g->face_verts + g->face_start[f];
		double p[3][3];
		for (int i = 0; i < 3; ++i)
			p[i][0] = D(v[fv[i]].x), p[i][1] = D(v[fv[i]].y), p[i][2] = D(v[fv[i]].z);
		double e1[3] = { p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2] };
		double e2[3] = { p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2] };
		double n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0] };
		double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		for (int k = 0; k < 3; ++k)
			n[k] /= l;
		double num = n[0] * (p[0][0] - al[0]) + n[1] * (p[0][1] - al[1]) + n[2] * (p[0][2] - al[2]);
		double den = n[0] * ul[0] + n[1] * ul[1] + n[2] * ul[2];
		if (fabs(den) < 1e-12) {
			if (num < 0)
				return -1;
			continue;
		}
		double t = num / den;
		if (den < 0)
			tn = t > tn ? t : tn;
		else
			tf = t < tf ? t : tf;
	}
	*margin = tf - tn;
	return tn <= tf ? tn : -1;
}

TEST(query_ray_casts_against_hulls)
{
	fxs_world_def wd = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&wd);
	uint64_t seed = 0x4811;
	int n = test_quick ? 2000 : 20000, hits = 0, band = 0;
	for (int h = 0; h < 16; ++h) {
		fxg_vec3 pts[20];
		for (int k = 0; k < 20; ++k)
			pts[k] = fxg_v3(F(rnd(&seed, -2, 2)), F(rnd(&seed, -1, 1)), F(rnd(&seed, -1.5, 1.5)));
		CHECK(fxs_world_create_hull(w, pts, 20, NULL) == (fxs_hull_id)(h + 1));
	}
	for (int i = 0; i < n; ++i) {
		fxs_shape sh = fxs_hull_shape(w, 1 + (fxs_hull_id)(i % 16));
		fxs_transform xf = { fxg_v3(F(rnd(&seed, -3, 3)), F(rnd(&seed, -3, 3)), F(rnd(&seed, -3, 3))), rnd_quat(&seed) };
		fxg_vec3 p0 = fxg_v3(F(rnd(&seed, -10, 10)), F(rnd(&seed, -10, 10)), F(rnd(&seed, -10, 10)));
		fxg_vec3 aim = fxg_v3(xf.p.x + F(rnd(&seed, -2, 2)), xf.p.y + F(rnd(&seed, -2, 2)), xf.p.z + F(rnd(&seed, -2, 2)));
		fxg_vec3 p1 = fxg_v3(2 * aim.x - p0.x, 2 * aim.y - p0.y, 2 * aim.z - p0.z);
		double margin;
		double ref = hull_ref(&sh.hull->g, &xf, p0, p1, &margin);
		fxs_cast_hit hit;
		bool got = fxs_shape_ray_cast(&sh, &xf, p0, p1, &hit);
		if (got != (ref >= 0) && fabs(margin) < 1e-3) {
			band++;
			continue;
		}
		CHECKF(got == (ref >= 0), "hull ray %d: got %d, reference %.6f (margin %.6f)", i, got, ref, margin);
		if (!got)
			continue;
		hits++;
		double dx = D(p1.x) - D(p0.x), dy = D(p1.y) - D(p0.y), dz = D(p1.z) - D(p0.z);
		double dl = sqrt(dx * dx + dy * dy + dz * dz);
		double cosi = fabs(D(hit.normal.x) * dx + D(hit.normal.y) * dy + D(hit.normal.z) * dz) / dl;
		double tol = 1e-4 + (2e-5 + 3e-5 * ref) / (cosi > 1e-2 ? cosi : 1e-2);
		CHECKF(fabs(D(hit.distance) - ref) < tol, "hull ray %d: distance %.6f, reference %.6f", i, D(hit.distance), ref);
	}
	printf("  hull    %d rays, %d hits, %d in the grazing band\n", n, hits, band);
	CHECK(hits > n / 10);
	/* a shape cast of a hull (unit cube corners) down onto a static box
	 * whose top is at y = 0 stops 0.5 m above it, within the cast's bound */
	fxg_vec3 cube[8];
	for (int k = 0; k < 8; ++k)
		cube[k] = fxg_v3(k & 1 ? -F(0.5) : F(0.5), k & 2 ? -F(0.5) : F(0.5), k & 4 ? -F(0.5) : F(0.5));
	fxs_hull_id ch = fxs_world_create_hull(w, cube, 8, NULL);
	fxs_body_def bd = fxs_default_body_def();
	bd.type = FXS_BODY_STATIC;
	bd.shape.type = FXS_SHAPE_BOX;
	bd.shape.half_extents = fxg_v3(F(5), F(0.5), F(5));
	bd.position = fxg_v3(0, -F(0.5), 0);
	fxs_body_id ground = fxs_body_create(w, &bd);
	fxs_shape cs = fxs_hull_shape(w, ch);
	fxs_cast_hit hit;
	CHECK(fxs_world_shape_cast(w, &cs, fxg_q_identity(), fxg_v3(F(0.3), F(4), 0), fxg_v3(F(0.3), -F(4), 0),
				   fxs_null_body, &hit));
	CHECK(hit.body.index1 == ground.index1);
	CHECKF(D(hit.distance) <= 3.5 && D(hit.distance) > 3.5 - 0.0012, "stopped after %.6f m", D(hit.distance));
	fxs_world_destroy(w);
}
