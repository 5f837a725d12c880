/* Convex shape (sphere, box, capsule, hull) against a static triangle mesh.
 *
 * Work is done in the mesh's local frame. The convex shape is reduced to
 * feature points with a radius: a sphere's centre (r), a capsule's two segment
 * ends (r), a box's 8 vertices (0), a hull's vertices (0, up to 32; feature
 * k >= 16 sets bit 29 of the id). Each feature point x is tested against the
 * one face whose prism (side walls, mesh.h) contains it, for every candidate
 * face in id order (faces whose region bounds overlap the shape's bounds grown
 * by the speculative distance; a linear scan of the precomputed bounds):
 *   - in front of the face (s = n.x - o >= 0): separation = exact distance
 *     from x to the triangle - r;
 *   - behind it (s < 0), while the sphere around x still overlaps the region
 *     (s >= -(depth + r), inside the region's bounds): the seed 003 push-out,
 *     separation = s - r, measured from the face, along the face normal. So a
 *     body that crossed the face during a step is pushed back to the front.
 * Guarantee: a round feature of radius r that was in front of a face and
 * not touching (s > r) is caught and pushed back to the front whenever its
 * displacement along -n in one step is below depth + 2r (then
 * s_next > -(depth + r)), provided no other face's region holds it less
 * deep; behind a thin wall (depth clamped to half its thickness, mesh.c)
 * the far face takes over past the middle, so there it is depth + r.
 *
 * Boxes also get the mesh's vertices that lie inside them (a mesh corner
 * poking into a box face; vertex_hit), and hulls likewise (hull_vertex_hit). Not generated: edge-edge crossings
 * of a box and a mesh, and a capsule's segment interior on a mesh edge (the
 * property test measures what that misses).
 *
 * A manifold has one normal. The first hit in ref_before's order (front-side
 * and shallow hits deepest first, then push-outs least deep first) chooses
 * the face; points of faces parallel to it (|n.n_ref| >= 0.999,
 * e.g. the two triangles of a quad) join, and the 4 deepest of those are kept
 * (ties by feature id). A body in a concave corner is resolved against its
 * deepest face first. Feature id = face id << 4 | feature index. */
#include "collide_common.h"
#include "hull.h"
#include "mesh.h"

#include <string.h>

#define MESH_PARALLEL ((int64_t)4290672329LL) /* 0.999 in Q32.32 */

typedef struct feat_set {
	fxg_vec3 x[FXS_HULL_MAX_VERTS];
	int count;
	fix16_t r;
} feat_set;

/* Distance from x to triangle f (x in front or on the plane; s = plane distance). */
static fix16_t tri_distance(const fxs_mesh *me, const fxs_mesh_face *f, fxg_vec3 x, fix16_t s)
{
	bool inside = true;
	int64_t best = INT64_MAX;
	for (int i = 0; i < 3; ++i) {
		fxg_vec3 a = me->verts[f->v[i]], b = me->verts[f->v[(i + 1) % 3]];
		fxg_vec3 e = np_sub(b, a), ax = np_sub(x, a);
		/* outward in-plane edge normal e x n (Q16.16 after the shift) */
		fxg_vec3 w = fxg_v3(np_w2f((int64_t)e.y * f->n.z - (int64_t)e.z * f->n.y),
				    np_w2f((int64_t)e.z * f->n.x - (int64_t)e.x * f->n.z),
				    np_w2f((int64_t)e.x * f->n.y - (int64_t)e.y * f->n.x));
		if (np_dot_w(ax, w) <= 0)
			continue;
		inside = false;
		int64_t den = np_dot_w(e, e) >> 16; /* Q16.16 |e|^2 */
		int64_t t = den > 0 ? np_div_round(np_dot_w(ax, e), den) : 0;
		t = t < 0 ? 0 : (t > FXG_ONE ? FXG_ONE : t);
		fxg_vec3 q = np_madd(a, (fix16_t)t, e);
		fix16_t len;
		np_normalize(np_sub(x, q), &len);
		if (len < best)
			best = len;
	}
	return inside ? s : (fix16_t)best;
}

typedef struct hull_planes {
	int n;
	fxg_vec3 nrm[FXS_HULL_MAX_FACES]; /* the hull's face normals in the mesh's frame */
	int64_t off[FXS_HULL_MAX_FACES];  /* n . x <= off inside, x relative to the hull's centre, Q32.32 */
} hull_planes;

typedef struct mesh_hit {
	fxg_vec3 n, point;
	fix16_t sep;
	fix16_t s;      /* centre's height over the face plane (behind: negative) */
	uint32_t id;
} mesh_hit;

/* The contact of feature k (point x) against face fi, false when none. */
static bool feature_hit(const fxs_mesh *me, uint32_t fi, const feat_set *fs, int k, fix16_t speculative,
			mesh_hit *h)
{
	const fxs_mesh_face *f = &me->faces[fi];
	fxg_vec3 x = fs->x[k];
	if (!fxs_mesh_in_prism(f, x))
		return false;
	int64_t sw = np_dot_w(f->n, x) - f->o;
	fix16_t s = np_w2f(sw);
	int64_t sep;
	if (sw < 0) {
		if ((int64_t)s < -((int64_t)f->depth + fs->r))
			return false;
		const fxs_aabb *b = &f->bounds;
		int64_t g = fs->r;
		if (x.x < b->lo.x - g || x.x > b->hi.x + g || x.y < b->lo.y - g || x.y > b->hi.y + g ||
		    x.z < b->lo.z - g || x.z > b->hi.z + g)
			return false;
		sep = (int64_t)s - fs->r;
	} else {
		sep = (int64_t)tri_distance(me, f, x, s) - fs->r;
	}
	if (sep > speculative)
		return false;
	h->n = f->n;
	h->sep = (fix16_t)sep;
	h->s = s;
	h->point = np_madd(x, -(fix16_t)(fs->r + sep / 2), f->n);
	h->id = (uint32_t)(k >> 4) << 29 | (fi << 4) | (uint32_t)(k & 15); /* k >= 16: hull vertices */
	return true;
}

/* A mesh vertex p inside (or within `speculative` of) the box c + sum q_i ax_i,
 * |q_i| <= e_i: the mesh corner pokes into a box face. Normal = that face's
 * (the axis of least penetration, ties to the lower axis), turned to point
 * from the mesh to the box like a face hit's. Feature id 1 << 28 | vertex. */
static bool vertex_hit(fxg_vec3 p, uint32_t vi, fxg_vec3 c, const fxg_vec3 ax[3], const fix16_t e[3],
		       fix16_t speculative, mesh_hit *h)
{
	fxg_vec3 d = np_sub(p, c);
	int best = -1;
	int64_t pen = 0;
	fix16_t sign = 1;
	for (int i = 0; i < 3; ++i) {
		fix16_t q = np_dot(d, ax[i]);
		int64_t pi = (int64_t)e[i] - (q < 0 ? -(int64_t)q : q);
		if (pi < -(int64_t)speculative)
			return false;
		if (best < 0 || pi < pen) {
			best = i;
			pen = pi;
			sign = q < 0 ? -1 : 1;
		}
	}
	fxg_vec3 nb = sign < 0 ? np_neg(ax[best]) : ax[best]; /* box face, outward */
	h->n = np_neg(nb);
	h->sep = (fix16_t)-pen;
	h->s = 0; /* a front-side contact */
	h->point = np_madd(p, (fix16_t)(pen / 2), nb);
	h->id = (1u << 28) | vi;
	return true;
}

static bool hit_before(const mesh_hit *a, const mesh_hit *b)
{
	return a->sep < b->sep || (a->sep == b->sep && a->id < b->id);
}

/* Which hit chooses the manifold's face: front-side hits (centre in front
 * of its face, or less than SHALLOW behind it) before deeper push-outs;
 * among the first the deepest; among push-outs the face the centre is least
 * deep behind (the one it crossed last). Behind a thin wall the far face's
 * slab also reaches the centre; the deepest-first rule would push a body
 * touching the near face out through the far one. A shallow push-out competes
 * by depth with the front-side hits: a box sliding down a ramp onto the floor
 * has its leading corners just behind the floor while its face still touches
 * the ramp, and it must be the floor that holds it (else it sinks through the
 * crease). Ties by feature id. */
#define SHALLOW ((fix16_t)655) /* 1 cm */

static bool ref_before(const mesh_hit *a, const mesh_hit *b)
{
	bool ba = a->s < -SHALLOW, bb = b->s < -SHALLOW;
	if (ba != bb)
		return bb;
	if (ba && a->s != b->s)
		return a->s > b->s;
	return hit_before(a, b);
}

/* A mesh vertex p inside (or within `speculative` of) the hull centred at
 * c: the hull face of least penetration (ties to the lower face), its
 * normal turned to point from the mesh to the hull. Feature id 1 << 28 |
 * vertex, as for boxes. */
static bool hull_vertex_hit(fxg_vec3 p, uint32_t vi, fxg_vec3 c, const hull_planes *hp, fix16_t speculative,
			    mesh_hit *h)
{
	fxg_vec3 d = np_sub(p, c);
	int best = -1;
	int64_t pen = 0;
	for (int f = 0; f < hp->n; ++f) {
		int64_t pf = np_w2f(hp->off[f] - np_dot_w(hp->nrm[f], d));
		if (pf < -(int64_t)speculative)
			return false;
		if (best < 0 || pf < pen) {
			best = f;
			pen = pf;
		}
	}
	h->n = np_neg(hp->nrm[best]);
	h->sep = (fix16_t)-pen;
	h->s = 0;
	h->point = np_madd(p, (fix16_t)(pen / 2), hp->nrm[best]);
	h->id = (1u << 28) | vi;
	return true;
}

void fxs_collide_convex_mesh(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b,
			     const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	m->point_count = 0;
	m->normal = fxg_v3(0, -FXG_ONE, 0);
	const fxs_mesh *me = b->mesh;
	fxg_vec3 d;
	if (!me || !np_rel(xb->p, xa->p, &d))
		return;
	fxg_mat3 rm = fxg_m3_from_quat(xb->q, ovf), ra = fxg_m3_from_quat(xa->q, ovf);
	fxg_vec3 c = fxg_m3_tmul_v3(rm, d, ovf);
	feat_set fs;
	hull_planes hp;
	hp.n = 0;
	fxg_vec3 ax[3];
	fix16_t e[3];
	fs.count = 0;
	fs.r = 0;
	switch (a->type) {
	case FXS_SHAPE_SPHERE:
		fs.x[fs.count++] = c;
		fs.r = a->radius;
		break;
	case FXS_SHAPE_CAPSULE: {
		fxg_vec3 u = fxg_m3_tmul_v3(rm, ra.cy, ovf);
		fs.x[fs.count++] = np_madd(c, -a->half_height, u);
		fs.x[fs.count++] = np_madd(c, a->half_height, u);
		fs.r = a->radius;
		break;
	}
	case FXS_SHAPE_BOX: {
		ax[0] = fxg_m3_tmul_v3(rm, ra.cx, ovf);
		ax[1] = fxg_m3_tmul_v3(rm, ra.cy, ovf);
		ax[2] = fxg_m3_tmul_v3(rm, ra.cz, ovf);
		e[0] = a->half_extents.x;
		e[1] = a->half_extents.y;
		e[2] = a->half_extents.z;
		for (int k = 0; k < 8; ++k) {
			fxg_vec3 p = c;
			for (int i = 0; i < 3; ++i)
				p = np_madd(p, (k >> i) & 1 ? e[i] : -e[i], ax[i]);
			fs.x[fs.count++] = p;
		}
		break;
	}
	case FXS_SHAPE_HULL: {
		if (!a->hull)
			return;
		fxg_mat3 rel = { fxg_m3_tmul_v3(rm, ra.cx, ovf), fxg_m3_tmul_v3(rm, ra.cy, ovf),
				 fxg_m3_tmul_v3(rm, ra.cz, ovf) };
		const fxs_hull_geom *g = &a->hull->g;
		for (int k = 0; k < g->n_verts; ++k)
			fs.x[fs.count++] = np_add(c, fxg_m3_mul_v3(rel, g->v[k], ovf));
		hp.n = g->n_faces;
		for (int f = 0; f < g->n_faces; ++f) {
			hp.nrm[f] = fxg_m3_mul_v3(rel, g->n[f], ovf);
			hp.off[f] = g->o[f];
		}
		break;
	}
	default:
		return;
	}
	if (fs.count == 0)
		return;
	/* local bounds of the shape grown by r + speculative */
	fxs_aabb sb = { fs.x[0], fs.x[0] };
	for (int k = 1; k < fs.count; ++k) {
		sb.lo = fxg_v3(fxg_min(sb.lo.x, fs.x[k].x), fxg_min(sb.lo.y, fs.x[k].y), fxg_min(sb.lo.z, fs.x[k].z));
		sb.hi = fxg_v3(fxg_max(sb.hi.x, fs.x[k].x), fxg_max(sb.hi.y, fs.x[k].y), fxg_max(sb.hi.z, fs.x[k].z));
	}
	fix16_t g = fs.r + (speculative > 0 ? speculative : 0);
	sb.lo = fxg_v3(sb.lo.x - g, sb.lo.y - g, sb.lo.z - g);
	sb.hi = fxg_v3(sb.hi.x + g, sb.hi.y + g, sb.hi.z + g);
	if (!fxs_aabb_overlap(&sb, &me->bounds))
		return;

	/* pass 1: the deepest hit picks the face normal */
	mesh_hit ref;
	memset(&ref, 0, sizeof ref);
	bool have = false;
	for (uint32_t fi = 0; fi < me->ntris; ++fi) {
		if (!fxs_aabb_overlap(&sb, &me->faces[fi].bounds))
			continue;
		for (int k = 0; k < fs.count; ++k) {
			mesh_hit h;
			if (feature_hit(me, fi, &fs, k, speculative, &h) && (!have || ref_before(&h, &ref))) {
				ref = h;
				have = true;
			}
		}
	}
	bool is_box = a->type == FXS_SHAPE_BOX, is_hull = a->type == FXS_SHAPE_HULL;
	for (uint32_t vi = 0; (is_box || is_hull) && vi < me->nverts; ++vi) {
		fxg_vec3 p = me->verts[vi];
		mesh_hit h;
		if (p.x < sb.lo.x || p.x > sb.hi.x || p.y < sb.lo.y || p.y > sb.hi.y || p.z < sb.lo.z || p.z > sb.hi.z)
			continue;
		bool hit = is_box ? vertex_hit(p, vi, c, ax, e, speculative, &h)
				  : hull_vertex_hit(p, vi, c, &hp, speculative, &h);
		if (hit && (!have || ref_before(&h, &ref))) {
			ref = h;
			have = true;
		}
	}
	if (!have)
		return;
	/* pass 2: the 4 deepest hits on faces parallel to it, kept sorted */
	mesh_hit keep[FXS_MAX_MANIFOLD_POINTS];
	int nk = 0;
	for (uint32_t fi = 0; fi < me->ntris; ++fi) {
		const fxs_mesh_face *f = &me->faces[fi];
		if (!fxs_aabb_overlap(&sb, &f->bounds) || np_dot_w(f->n, ref.n) < MESH_PARALLEL)
			continue;
		for (int k = 0; k < fs.count; ++k) {
			mesh_hit h;
			if (!feature_hit(me, fi, &fs, k, speculative, &h))
				continue;
			int pos = nk;
			while (pos > 0 && hit_before(&h, &keep[pos - 1]))
				--pos;
			if (pos >= FXS_MAX_MANIFOLD_POINTS)
				continue;
			int last = nk < FXS_MAX_MANIFOLD_POINTS ? nk : FXS_MAX_MANIFOLD_POINTS - 1;
			for (int j = last; j > pos; --j)
				keep[j] = keep[j - 1];
			keep[pos] = h;
			if (nk < FXS_MAX_MANIFOLD_POINTS)
				++nk;
		}
	}
	for (uint32_t vi = 0; (is_box || is_hull) && vi < me->nverts; ++vi) {
		fxg_vec3 p = me->verts[vi];
		mesh_hit h;
		if (p.x < sb.lo.x || p.x > sb.hi.x || p.y < sb.lo.y || p.y > sb.hi.y || p.z < sb.lo.z || p.z > sb.hi.z)
			continue;
		bool hit = is_box ? vertex_hit(p, vi, c, ax, e, speculative, &h)
				  : hull_vertex_hit(p, vi, c, &hp, speculative, &h);
		if (!hit || np_dot_w(h.n, ref.n) < MESH_PARALLEL)
			continue;
		int pos = nk;
		while (pos > 0 && hit_before(&h, &keep[pos - 1]))
			--pos;
		if (pos >= FXS_MAX_MANIFOLD_POINTS)
			continue;
		int last = nk < FXS_MAX_MANIFOLD_POINTS ? nk : FXS_MAX_MANIFOLD_POINTS - 1;
		for (int j = last; j > pos; --j)
			keep[j] = keep[j - 1];
		keep[pos] = h;
		if (nk < FXS_MAX_MANIFOLD_POINTS)
			++nk;
	}
	/* back to world space; the normal points from the shape to the mesh */
	m->normal = np_neg(fxg_m3_mul_v3(rm, ref.n, ovf));
	for (int i = 0; i < nk; ++i)
		np_add_point(m, np_to_world(xb->p, &rm, keep[i].point, ovf), keep[i].sep, keep[i].id);
}
