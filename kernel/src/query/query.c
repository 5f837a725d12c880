/* Ray casts and shape casts (fixstep/query.h).
 *
 * A ray is p0 + t u with u the unit direction and t in [0, len] metres
 * (Q16.16). Each shape is cast in its own frame, relative to its centre, so
 * no absolute coordinate enters a product. Ranges: len <= 10,000 m and shapes
 * within the narrowphase's stated sizes (<= 1000 m), so every offset below
 * is under 2^30 raw, every square under 2^60 and every sum of three squares
 * under 2^62: the int64 arithmetic is exact before its one rounding.
 *
 * Candidates are every live body whose current bounds overlap the cast's
 * bounds, in slot order (a linear scan of the slots, not the broadphase:
 * the broadphase holds last step's fattened boxes, and a body moved since by
 * the API would be missed). */
#include "fixstep/query.h"

#include "collide/collide_common.h"
#include "geometry/compound.h"
#include "geometry/hull.h"
#include "geometry/mesh.h"
#include "geometry/shape.h"
#include "world/world.h"
#include "query/overlap.h"

typedef struct ray {
	fxg_vec3 p0, u;
	fix16_t len;
} ray;

/* the first hit of one shape: distance along the ray and world normal */
typedef struct local_hit {
	fix16_t t;
	fxg_vec3 n;
} local_hit;

static bool make_ray(fxg_vec3 p0, fxg_vec3 p1, ray *r)
{
	int64_t d[3] = { (int64_t)p1.x - p0.x, (int64_t)p1.y - p0.y, (int64_t)p1.z - p0.z };
	for (int k = 0; k < 3; ++k)
		if (d[k] > FXS_QUERY_MAX_LENGTH || d[k] < -FXS_QUERY_MAX_LENGTH)
			return false;
	uint32_t ovf = 0;
	fix16_t len;
	r->u = fxg_v3_normalize(fxg_v3((fix16_t)d[0], (fix16_t)d[1], (fix16_t)d[2]), &len, &ovf);
	r->p0 = p0;
	r->len = len;
	return len > 0 && len <= FXS_QUERY_MAX_LENGTH && ovf == 0;
}

static inline int64_t isqrt_fix(int64_t q32) { return q32 <= 0 ? 0 : (int64_t)fxg_isqrt64_round((uint64_t)q32); }

/* offset a - b with every component checked against 2^30 raw (16384 m) */
static bool offset(fxg_vec3 a, fxg_vec3 b, fxg_vec3 *out)
{
	const int64_t cap = (int64_t)1 << 30;
	int64_t x = (int64_t)a.x - b.x, y = (int64_t)a.y - b.y, z = (int64_t)a.z - b.z;
	if (x > cap || x < -cap || y > cap || y < -cap || z > cap || z < -cap)
		return false;
	*out = fxg_v3((fix16_t)x, (fix16_t)y, (fix16_t)z);
	return true;
}

/* A ray m + t u (m relative to the centre) against a ball of radius rad:
 * the first t in [0, len]; starting inside: t = 0. u is a unit vector to
 * within its rounding, and the solution is for u as it is (|u|^2 = a), so
 * that the point m + t u lies on the ball to a few LSB wherever t is. */
static bool ray_ball(fxg_vec3 m, fxg_vec3 u, fix16_t len, fix16_t rad, fix16_t *t)
{
	int64_t c = np_dot_w(m, m) - (int64_t)rad * rad; /* Q32.32 */
	if (c <= 0) {
		*t = 0;
		return true;
	}
	int64_t a = np_dot_w(u, u);  /* Q32.32, 1 within 2^-15 */
	int64_t mu = np_dot_w(m, u); /* Q32.32, |mu| < 2^47 */
	if (mu >= 0 || a <= 0)
		return false; /* outside and moving away */
	uint32_t ovf = 0;
	int64_t b = fxg_shr_round(fxg_wide_div(mu, a, &ovf), 16); /* Q16.16: minus the closest approach's t */
	/* r^2 - |q|^2 with q = m + b u the closest approach: no cancellation of
	 * two large squares (as b^2 - c would have) */
	fxg_vec3 q = np_madd(m, (fix16_t)-b, u);
	int64_t h2 = (int64_t)rad * rad - np_dot_w(q, q);
	if (h2 < 0)
		return false;
	/* half chord along u: sqrt(h2) / |u| */
	int64_t half = fxg_div_round64(isqrt_fix(h2) * 65536, isqrt_fix(a));
	int64_t tt = -b - half;
	if (tt < 0)
		tt = 0;
	if (tt > len)
		return false;
	*t = (fix16_t)tt;
	return true;
}

static fxg_vec3 unit_or(fxg_vec3 v, fxg_vec3 fallback)
{
	uint32_t ovf = 0;
	fix16_t len;
	fxg_vec3 n = fxg_v3_normalize(v, &len, &ovf);
	return len > 0 ? n : fallback;
}

static fxg_vec3 neg(fxg_vec3 v) { return fxg_v3(-v.x, -v.y, -v.z); }

static bool cast_sphere(const fxs_shape *s, const fxs_transform *xf, const ray *r, local_hit *h)
{
	fxg_vec3 m;
	if (!offset(r->p0, xf->p, &m) || !ray_ball(m, r->u, r->len, s->radius, &h->t))
		return false;
	fxg_vec3 q = np_madd(m, h->t, r->u);
	h->n = h->t == 0 ? neg(r->u) : unit_or(q, neg(r->u));
	return true;
}

static bool cast_box(const fxs_shape *s, const fxs_transform *xf, const ray *r, local_hit *h)
{
	uint32_t ovf = 0;
	fxg_vec3 m;
	if (!offset(r->p0, xf->p, &m))
		return false;
	fxg_mat3 R = fxg_m3_from_quat(xf->q, &ovf);
	fxg_vec3 pl = fxg_m3_tmul_v3(R, m, &ovf), ul = fxg_m3_tmul_v3(R, r->u, &ovf);
	int64_t p[3] = { pl.x, pl.y, pl.z }, u[3] = { ul.x, ul.y, ul.z };
	int64_t he[3] = { s->half_extents.x, s->half_extents.y, s->half_extents.z };
	int64_t tnear = 0, tfar = r->len;
	int axis = -1, sign = 0;
	for (int i = 0; i < 3; ++i) {
		if (u[i] == 0) {
			if (p[i] > he[i] || p[i] < -he[i])
				return false;
			continue;
		}
		int64_t t1 = fxg_div_round64((-he[i] - p[i]) * 65536, u[i]);
		int64_t t2 = fxg_div_round64((he[i] - p[i]) * 65536, u[i]);
		if (t1 > t2) {
			int64_t x = t1;
			t1 = t2;
			t2 = x;
		}
		if (t1 > tnear) {
			tnear = t1;
			axis = i;
			sign = u[i] > 0 ? -1 : 1;
		}
		if (t2 < tfar)
			tfar = t2;
		if (tnear > tfar)
			return false;
	}
	h->t = (fix16_t)tnear;
	if (axis < 0) {
		h->n = neg(r->u); /* starts inside */
		return true;
	}
	fxg_vec3 col = axis == 0 ? R.cx : (axis == 1 ? R.cy : R.cz);
	h->n = sign > 0 ? col : neg(col);
	return true;
}

static bool cast_capsule(const fxs_shape *s, const fxs_transform *xf, const ray *r, local_hit *h)
{
	uint32_t ovf = 0;
	fxg_vec3 m;
	if (!offset(r->p0, xf->p, &m))
		return false;
	fxg_mat3 R = fxg_m3_from_quat(xf->q, &ovf);
	fxg_vec3 pl = fxg_m3_tmul_v3(R, m, &ovf), ul = fxg_m3_tmul_v3(R, r->u, &ovf);
	fix16_t hh = s->half_height, rad = s->radius;
	bool have = false;
	local_hit best = { 0, { 0, 0, 0 } };
	/* the two end balls */
	for (int e = 0; e < 2; ++e) {
		fxg_vec3 c = fxg_v3(0, e ? hh : -hh, 0);
		fxg_vec3 mc = fxg_v3(pl.x, pl.y - c.y, pl.z);
		fix16_t t;
		if (ray_ball(mc, ul, r->len, rad, &t) && (!have || t < best.t)) {
			have = true;
			best.t = t;
			best.n = t == 0 ? neg(ul) : unit_or(np_madd(mc, t, ul), neg(ul));
		}
	}
	/* the side: in the xz plane, along w' = (ux, uz) / s, then back to 3D */
	int64_t s2 = (int64_t)ul.x * ul.x + (int64_t)ul.z * ul.z; /* Q32.32 */
	if (s2 >= ((int64_t)1 << 16)) {                           /* s >= 2^-8 */
		int64_t sl = isqrt_fix(s2);                       /* Q16.16 */
		fxg_vec3 w = fxg_v3((fix16_t)fxg_div_round64((int64_t)ul.x * 65536, sl), 0,
				    (fix16_t)fxg_div_round64((int64_t)ul.z * 65536, sl));
		fxg_vec3 p2 = fxg_v3(pl.x, 0, pl.z);
		fix16_t d2;
		if (ray_ball(p2, w, FXS_QUERY_MAX_LENGTH, rad, &d2)) {
			int64_t t = fxg_div_round64((int64_t)d2 * 65536, sl);
			int64_t y = pl.y + fxg_shr_round(t * ul.y, 16);
			if (t <= r->len && y <= hh && y >= -hh && (!have || t < best.t)) {
				have = true;
				best.t = (fix16_t)t;
				if (t == 0) {
					best.n = neg(ul);
				} else {
					fxg_vec3 q = np_madd(pl, (fix16_t)t, ul);
					best.n = unit_or(fxg_v3(q.x, 0, q.z), neg(ul));
				}
			}
		}
	}
	if (!have)
		return false;
	h->t = best.t;
	h->n = fxg_m3_mul_v3(R, best.n, &ovf);
	return true;
}

/* A cylinder: the two cap disks and the side (the capsule's side test). */
static bool cast_cylinder(const fxs_shape *s, const fxs_transform *xf, const ray *r, local_hit *h)
{
	uint32_t ovf = 0;
	fxg_vec3 m;
	if (!offset(r->p0, xf->p, &m))
		return false;
	fxg_mat3 R = fxg_m3_from_quat(xf->q, &ovf);
	fxg_vec3 pl = fxg_m3_tmul_v3(R, m, &ovf), ul = fxg_m3_tmul_v3(R, r->u, &ovf);
	fix16_t hh = s->half_height, rad = s->radius;
	int64_t r2 = (int64_t)rad * rad;
	if (pl.y <= hh && pl.y >= -hh && (int64_t)pl.x * pl.x + (int64_t)pl.z * pl.z <= r2) {
		h->t = 0;
		h->n = neg(r->u); /* starts inside */
		return true;
	}
	bool have = false;
	local_hit best = { 0, { 0, 0, 0 } };
	/* the cap facing the ray's start, entered from outside */
	if (ul.y != 0 && (pl.y > hh || pl.y < -hh)) {
		fix16_t cy = pl.y > hh ? hh : -hh;
		if ((pl.y > hh) == (ul.y < 0)) {
			int64_t t = fxg_div_round64(((int64_t)cy - pl.y) * 65536 * (ul.y < 0 ? -1 : 1), fxg_abs64(ul.y));
			if (t >= 0 && t <= r->len) {
				fxg_vec3 q = np_madd(pl, (fix16_t)t, ul);
				if ((int64_t)q.x * q.x + (int64_t)q.z * q.z <= r2) {
					have = true;
					best.t = (fix16_t)t;
					best.n = fxg_v3(0, cy > 0 ? FXG_ONE : -FXG_ONE, 0);
				}
			}
		}
	}
	/* the side: in the xz plane, along w' = (ux, uz) / s, then back to 3D */
	int64_t s2 = (int64_t)ul.x * ul.x + (int64_t)ul.z * ul.z; /* Q32.32 */
	if (!have && s2 >= ((int64_t)1 << 16)) {                  /* s >= 2^-8 */
		int64_t sl = isqrt_fix(s2);                       /* Q16.16 */
		fxg_vec3 w = fxg_v3((fix16_t)fxg_div_round64((int64_t)ul.x * 65536, sl), 0,
				    (fix16_t)fxg_div_round64((int64_t)ul.z * 65536, sl));
		fxg_vec3 p2 = fxg_v3(pl.x, 0, pl.z);
		fix16_t d2;
		if (ray_ball(p2, w, FXS_QUERY_MAX_LENGTH, rad, &d2) && d2 > 0) {
			int64_t t = fxg_div_round64((int64_t)d2 * 65536, sl);
			int64_t y = pl.y + fxg_shr_round(t * ul.y, 16);
			if (t <= r->len && y <= hh && y >= -hh) {
				have = true;
				best.t = (fix16_t)t;
				fxg_vec3 q = np_madd(pl, (fix16_t)t, ul);
				best.n = unit_or(fxg_v3(q.x, 0, q.z), neg(ul));
			}
		}
	}
	if (!have)
		return false;
	h->t = best.t;
	h->n = fxg_m3_mul_v3(R, best.n, &ovf);
	return true;
}

/* Front faces only (the ray meets the face against its normal); ties by
 * face index. */
static bool cast_mesh(const fxs_shape *s, const fxs_transform *xf, const ray *r, local_hit *h)
{
	const fxs_mesh *me = s->mesh;
	uint32_t ovf = 0;
	fxg_vec3 m;
	if (!me || !offset(r->p0, xf->p, &m))
		return false;
	fxg_mat3 R = fxg_m3_from_quat(xf->q, &ovf);
	fxg_vec3 pl = fxg_m3_tmul_v3(R, m, &ovf), ul = fxg_m3_tmul_v3(R, r->u, &ovf);
	/* the ray's local bounds */
	fxg_vec3 pe = np_madd(pl, r->len, ul);
	fxs_aabb rb = { fxg_v3_min(pl, pe), fxg_v3_max(pl, pe) };
	bool have = false;
	int64_t best_t = 0;
	uint32_t best_f = 0;
	for (uint32_t fi = 0; fi < me->ntris; ++fi) {
		const fxs_mesh_face *f = &me->faces[fi];
		if (!fxs_aabb_overlap(&rb, &f->bounds))
			continue;
		int64_t den = np_dot_w(f->n, ul); /* Q32.32, < 0 for a front face */
		if (den >= 0)
			continue;
		int64_t dp = np_dot_w(f->n, pl) - f->o; /* height over the plane, Q32.32 */
		if (dp < 0)
			continue;
		int64_t t = fxg_div_round64(fxg_shr_round(dp, 16) * 65536, -fxg_shr_round(den, 16));
		if (t > r->len || (have && t >= best_t))
			continue;
		fxg_vec3 q = np_madd(pl, (fix16_t)t, ul);
		bool inside = true;
		for (int i = 0; i < 3 && inside; ++i) {
			fxg_vec3 a = me->verts[f->v[i]], b = me->verts[f->v[(i + 1) % 3]];
			fxg_vec3 e = np_sub(b, a);
			fxg_vec3 wv = np_cross(e, f->n);
			inside = np_dot_w(np_sub(q, a), wv) <= 0;
		}
		if (!inside)
			continue;
		have = true;
		best_t = t;
		best_f = fi;
	}
	if (!have)
		return false;
	h->t = (fix16_t)best_t;
	h->n = fxg_m3_mul_v3(R, me->faces[best_f].n, &ovf);
	return true;
}

/* A hull: the ray clipped by every face plane (Cyrus-Beck) in the hull's
 * frame; the entering face of the last entry is the normal. */
static bool cast_hull(const fxs_shape *s, const fxs_transform *xf, const ray *r, local_hit *h)
{
	uint32_t ovf = 0;
	fxg_vec3 m;
	if (!s->hull || !offset(r->p0, xf->p, &m))
		return false;
	const fxs_hull_geom *g = &s->hull->g;
	fxg_mat3 R = fxg_m3_from_quat(xf->q, &ovf);
	fxg_vec3 pl = fxg_m3_tmul_v3(R, m, &ovf), ul = fxg_m3_tmul_v3(R, r->u, &ovf);
	int64_t tnear = 0, tfar = r->len;
	int face = -1;
	for (int f = 0; f < g->n_faces; ++f) {
		int64_t num = g->o[f] - np_dot_w(g->n[f], pl); /* Q32.32: inside when >= 0 */
		int64_t den = np_dot_w(g->n[f], ul);           /* Q32.32 */
		if (den == 0) {
			if (num < 0)
				return false;
			continue;
		}
		/* t = num / den metres, Q16.16: |num| < 2^47, so num * 2^16 fits */
		int64_t t = fxg_div_round64(num * 65536, den);
		if (den < 0) {
			if (t > tnear) {
				tnear = t;
				face = f;
			}
		} else if (t < tfar) {
			tfar = t;
		}
		if (tnear > tfar)
			return false;
	}
	h->t = (fix16_t)tnear;
	h->n = face < 0 ? neg(r->u) : fxg_m3_mul_v3(R, g->n[face], &ovf); /* face < 0: starts inside */
	return true;
}

static bool cast_local(const fxs_shape *s, const fxs_transform *xf, const ray *r, local_hit *h);

/* A compound: the earliest hit of its children (ties: the first child). */
static bool cast_compound(const fxs_shape *s, const fxs_transform *xf, const ray *r, local_hit *h)
{
	const fxs_compound *c = s->compound;
	if (!c)
		return false;
	bool have = false;
	for (uint32_t k = 0; k < c->n; ++k) {
		uint32_t ovf = 0;
		fxs_transform t = fxs_compound_child_xf(c, k, xf, &ovf);
		local_hit lh;
		if (cast_local(&c->child[k], &t, r, &lh) && (!have || lh.t < h->t)) {
			*h = lh;
			have = true;
		}
	}
	return have;
}

static bool cast_local(const fxs_shape *s, const fxs_transform *xf, const ray *r, local_hit *h)
{
	switch (s->type) {
	case FXS_SHAPE_SPHERE:
		return cast_sphere(s, xf, r, h);
	case FXS_SHAPE_BOX:
		return cast_box(s, xf, r, h);
	case FXS_SHAPE_CAPSULE:
		return cast_capsule(s, xf, r, h);
	case FXS_SHAPE_CYLINDER:
		return cast_cylinder(s, xf, r, h);
	case FXS_SHAPE_MESH:
		return cast_mesh(s, xf, r, h);
	case FXS_SHAPE_HULL:
		return cast_hull(s, xf, r, h);
	case FXS_SHAPE_COMPOUND:
		return cast_compound(s, xf, r, h);
	default:
		return false;
	}
}

static void fill_hit(const ray *r, const local_hit *lh, fxs_cast_hit *hit)
{
	hit->distance = lh->t;
	hit->fraction = (fix16_t)fxg_div_round64((int64_t)lh->t * 65536, r->len);
	hit->point = np_madd(r->p0, lh->t, r->u);
	hit->normal = lh->n;
}

bool fxs_shape_ray_cast(const fxs_shape *shape, const fxs_transform *xf, fxg_vec3 p0, fxg_vec3 p1, fxs_cast_hit *hit)
{
	ray r;
	local_hit lh;
	if (!shape || !xf || !hit || !make_ray(p0, p1, &r) || !cast_local(shape, xf, &r, &lh))
		return false;
	fill_hit(&r, &lh, hit);
	hit->body = fxs_null_body;
	return true;
}

static bool same_body(fxs_body_id a, fxs_body_id b) { return a.index1 == b.index1 && a.generation == b.generation; }

bool fxs_world_ray_cast(const fxs_world *w, fxg_vec3 p0, fxg_vec3 p1, fxs_body_id skip, fxs_cast_hit *hit)
{
	return fxs_world_ray_cast_filtered(w, p0, p1, NULL, skip, hit);
}

bool fxs_world_ray_cast_filtered(const fxs_world *w, fxg_vec3 p0, fxg_vec3 p1, const fxs_query_filter *filter,
				 fxs_body_id skip, fxs_cast_hit *hit)
{
	ray r;
	if (!w || !hit || !make_ray(p0, p1, &r))
		return false;
	fxs_aabb sb = { fxg_v3_min(p0, p1), fxg_v3_max(p0, p1) };
	bool have = false;
	local_hit best = { 0, { 0, 0, 0 } };
	uint32_t best_slot = 0;
	uint32_t ovf = 0;
	for (uint32_t i = 0; i < w->slot_count; ++i) {
		const fxs_body *b = &w->bodies[i];
		if (!fxs_query_sees(filter, b))
			continue;
		fxs_body_id id = fxs_world_body_at(w, i);
		if (same_body(id, skip))
			continue;
		fxs_aabb bb = fxs_body_compute_aabb(b, &ovf);
		if (!fxs_aabb_overlap(&sb, &bb))
			continue;
		local_hit lh;
		if (cast_local(&b->shape, &b->xf, &r, &lh) && (!have || lh.t < best.t)) {
			have = true;
			best = lh;
			best_slot = i;
		}
	}
	if (!have)
		return false;
	fill_hit(&r, &best, hit);
	hit->body = fxs_world_body_at(w, best_slot);
	return true;
}

/* ---- shape casts: conservative advancement ---- */

#define CAST_REACH FXG_I(64) /* the narrowphase is asked for points this far apart */
#define CAST_ITERATIONS 256  /* enough for 10,000 m in 64 m leaps, plus the approach */

/* Sweep `shape` along r against one body: the first t where the separation
 * is within the tolerance. Each step advances by the separation found (a
 * lower bound of the distance, so the shapes cannot pass each other), less
 * 2 LSB for rounding. */
static bool sweep_one(const fxs_shape *shape, fxg_quat q, const ray *r, const fxs_body *b, fix16_t *t_out,
		      fxs_manifold_point *pt, fxg_vec3 *normal)
{
	int64_t t = 0;
	for (int it = 0; it < CAST_ITERATIONS; ++it) {
		uint32_t ovf = 0;
		fxs_transform xf = { np_madd(r->p0, (fix16_t)t, r->u), q };
		fxs_manifold m;
		fxs_collide(shape, &xf, &b->shape, &b->xf, CAST_REACH, &m, &ovf);
		int64_t sep = CAST_REACH;
		int best = -1;
		for (int k = 0; k < m.point_count; ++k)
			if (best < 0 || m.points[k].separation < sep) {
				sep = m.points[k].separation;
				best = k;
			}
		if (best >= 0 && sep <= FXS_QUERY_TOLERANCE) {
			/* touching but moving along or away from it: the distance
			 * between two convex shapes along a line is convex, so it
			 * never comes closer (something touching from the side is
			 * not what a cast down is looking for) */
			if (np_dot_w(r->u, m.normal) <= 0)
				return false;
			*t_out = (fix16_t)t;
			*pt = m.points[best];
			*normal = neg(m.normal); /* collide's normal points from the caster to b */
			return true;
		}
		int64_t step = sep - 2;
		t += step > 1 ? step : 1;
		if (t > r->len)
			return false;
	}
	return false;
}

bool fxs_world_shape_cast(const fxs_world *w, const fxs_shape *shape, fxg_quat q, fxg_vec3 p0, fxg_vec3 p1,
			  fxs_body_id skip, fxs_cast_hit *hit)
{
	return fxs_world_shape_cast_filtered(w, shape, q, p0, p1, NULL, skip, hit);
}

bool fxs_world_shape_cast_filtered(const fxs_world *w, const fxs_shape *shape, fxg_quat q, fxg_vec3 p0, fxg_vec3 p1,
				   const fxs_query_filter *filter, fxs_body_id skip, fxs_cast_hit *hit)
{
	ray r;
	if (!w || !shape || !hit)
		return false;
	if (shape->type != FXS_SHAPE_SPHERE && shape->type != FXS_SHAPE_BOX && shape->type != FXS_SHAPE_CAPSULE &&
	    shape->type != FXS_SHAPE_CYLINDER && !(shape->type == FXS_SHAPE_HULL && shape->hull) &&
	    !(shape->type == FXS_SHAPE_COMPOUND && shape->compound))
		return false;
	if (!make_ray(p0, p1, &r))
		return false;
	uint32_t ovf = 0;
	/* any rotation the caller gives: made unit unless it is (within 2^-10,
	 * as a snapshot's), so the products below stay in their ranges */
	int64_t n2 = fxg_add64(fxg_add64((int64_t)q.x * q.x, (int64_t)q.y * q.y, &ovf),
			       fxg_add64((int64_t)q.z * q.z, (int64_t)q.w * q.w, &ovf), &ovf);
	if (n2 < ((int64_t)1 << 32) - ((int64_t)1 << 22) || n2 > ((int64_t)1 << 32) + ((int64_t)1 << 22))
		q = fxg_q_normalize(q, &ovf);
	fxs_aabb a0 = fxs_shape_aabb(shape, &(fxs_transform){ p0, q }, &ovf);
	fxs_aabb a1 = fxs_shape_aabb(shape, &(fxs_transform){ p1, q }, &ovf);
	fxs_aabb sb = { fxg_v3_min(a0.lo, a1.lo), fxg_v3_max(a0.hi, a1.hi) };
	bool have = false;
	fix16_t best_t = 0;
	uint32_t best_slot = 0;
	fxs_manifold_point best_pt = { { 0, 0, 0 }, 0, 0 };
	fxg_vec3 best_n = { 0, 0, 0 };
	for (uint32_t i = 0; i < w->slot_count; ++i) {
		const fxs_body *b = &w->bodies[i];
		if (!fxs_query_sees(filter, b))
			continue;
		fxs_body_id id = fxs_world_body_at(w, i);
		if (same_body(id, skip))
			continue;
		fxs_aabb bb = fxs_body_compute_aabb(b, &ovf);
		if (!fxs_aabb_overlap(&sb, &bb))
			continue;
		fix16_t t;
		fxs_manifold_point pt;
		fxg_vec3 n;
		if (sweep_one(shape, q, &r, b, &t, &pt, &n) && (!have || t < best_t)) {
			have = true;
			best_t = t;
			best_slot = i;
			best_pt = pt;
			best_n = n;
		}
	}
	if (!have)
		return false;
	hit->body = fxs_world_body_at(w, best_slot);
	hit->distance = best_t;
	hit->fraction = (fix16_t)fxg_div_round64((int64_t)best_t * 65536, r.len);
	hit->point = best_pt.point;
	hit->normal = best_n;
	return true;
}
