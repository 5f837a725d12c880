/* Convex shape (sphere, box, capsule, hull, cylinder) against a static triangle mesh.
 *
 * Work is done in the mesh's local frame. The convex shape is reduced to
 * feature points with a radius: a sphere's centre (r), a capsule's two segment
 * ends (r), a box's 8 vertices (0), a hull's vertices (0, up to 32; feature
 * k >= 16 sets bit 29 of the id), a cylinder's rim points made per face
 * (0; cylinder_points: its side's line and, standing, its cap's rim). Each feature point x is tested against the
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
 * poking into a box face; vertex_hit), and hulls likewise (hull_vertex_hit).
 * Edges (collide_mesh_edge.c): the shape's edges crossing the mesh's convex
 * edges, a mesh edge lying on a box or hull face, a capsule's side on a mesh
 * edge or vertex, each only with a normal in the mesh feature's Voronoi
 * region (flat edges are no features: nothing snags on a quad's diagonal).
 * A cylinder gets the mesh vertices and edges against its side (as a
 * capsule's), its caps and its rims (collide_mesh_edge.c: cylinder_edge,
 * fxs_mesh_cylinder_vertex_hit).
 * Not generated: a polytope edge piercing the interior of a mesh face with
 * both its ends outside every face region (only thin geometry allows it).
 *
 * A manifold has one normal, chosen by one hit (the deepest front-side or
 * shallow hit, else the push-out least deep behind its face); hits with a
 * normal parallel to it (n.n_ref >= 0.999, e.g. the two triangles of a quad)
 * join: of the 16 deepest of those (ties by feature id) four spread over the
 * contact are kept (fxs_np_reduce, as the convex pairs: the deepest, the
 * farthest from it, the largest triangle, the most area outside it). A body
 * in a concave corner is resolved against its deepest face first. Feature ids: collide_mesh.h. */
#include "collide/collide_mesh.h"

#include <string.h>

/* Distance from x to triangle f (x in front or on the plane; s = plane distance). */
static fix16_t tri_distance(const fxs_mesh *me, const fxs_mesh_face *f, fxg_vec3 x, fix16_t s)
{
	bool inside = true;
	int64_t best = INT64_MAX;
	for (int i = 0; i < 3; ++i) {
		fxg_vec3 a = me->verts[f->v[i]], b = me->verts[f->v[(i + 1) % 3]];
		fxg_vec3 e = np_sub(b, a), ax = np_sub(x, a);
		/* outward in-plane edge normal e x n (Q16.16 after the shift) */
		fxg_vec3 w = np_cross(e, f->n);
		if (np_dot_w(ax, w) <= 0)
			continue;
		inside = false;
		int64_t den = np_dot_w(e, e) >> 16; /* Q16.16 |e|^2 */
		int64_t t = den > 0 ? fxg_div_round64(np_dot_w(ax, e), den) : 0;
		t = t < 0 ? 0 : (t > FXG_ONE ? FXG_ONE : t);
		fxg_vec3 dq = np_sub(x, np_madd(a, (fix16_t)t, e));
		int64_t len = (int64_t)fxg_isqrt64_round((uint64_t)np_dot_w(dq, dq)); /* np_normalize's length */
		if (len < best)
			best = len;
	}
	return inside ? s : (fix16_t)best;
}

/* The contact of feature point x (number k) against face fi, false when none. */
static bool feature_hit(const fxs_mesh_query *q, uint32_t fi, int k, fxg_vec3 x, fxs_mesh_hit *h)
{
	const fxs_mesh *me = q->me;
	const fxs_mesh_face *f = &me->faces[fi];
	if (!fxs_mesh_in_prism(f, x))
		return false;
	int64_t sw = np_dot_w(f->n, x) - f->o;
	fix16_t s = np_w2f(sw);
	int64_t sep;
	if (sw < 0) {
		if ((int64_t)s < -((int64_t)f->depth + q->r))
			return false;
		const fxs_aabb *b = &f->bounds;
		int64_t g = q->r;
		if (x.x < b->lo.x - g || x.x > b->hi.x + g || x.y < b->lo.y - g || x.y > b->hi.y + g ||
		    x.z < b->lo.z - g || x.z > b->hi.z + g)
			return false;
		sep = (int64_t)s - q->r;
	} else {
		if ((int64_t)s - q->r > q->speculative)
			return false; /* the triangle is at least as far as its plane */
		sep = (int64_t)tri_distance(me, f, x, s) - q->r;
	}
	if (sep > q->speculative)
		return false;
	h->n = f->n;
	h->sep = (fix16_t)sep;
	h->s = s;
	h->point = np_madd(x, -(fix16_t)(q->r + sep / 2), f->n);
	h->id = (uint32_t)(k >> 4) << 29 | (fi << 4) | (uint32_t)(k & 15); /* k >= 16: hull vertices */
	return true;
}

/* A mesh vertex p inside (or within `speculative` of) the box c + sum q_i ax_i,
 * |q_i| <= e_i: the mesh corner pokes into a box face. Normal = that face's
 * (the axis of least penetration, ties to the lower axis), turned to point
 * from the mesh to the box like a face hit's. */
static bool vertex_hit(const fxs_mesh_query *qy, fxg_vec3 p, uint32_t vi, fxs_mesh_hit *h)
{
	fxg_vec3 d = np_sub(p, qy->c);
	int best = -1;
	int64_t pen = 0;
	fix16_t sign = 1;
	for (int i = 0; i < 3; ++i) {
		fix16_t q = np_dot(d, qy->box_ax[i]);
		int64_t pi = (int64_t)qy->box_e[i] - (q < 0 ? -(int64_t)q : q);
		if (pi < -(int64_t)qy->speculative)
			return false;
		if (best < 0 || pi < pen) {
			best = i;
			pen = pi;
			sign = q < 0 ? -1 : 1;
		}
	}
	fxg_vec3 nb = sign < 0 ? np_neg(qy->box_ax[best]) : qy->box_ax[best]; /* box face, outward */
	h->n = np_neg(nb);
	h->sep = (fix16_t)-pen;
	h->s = (fix16_t)-pen; /* how deep the mesh corner is in the box */
	h->point = np_madd(p, (fix16_t)(pen / 2), nb);
	h->id = FXS_MESH_ID_VERTEX | vi;
	return true;
}

/* A mesh vertex p inside (or within `speculative` of) the hull: the hull
 * face of least penetration (ties to the lower face), its normal turned to
 * point from the mesh to the hull. */
static bool hull_vertex_hit(const fxs_mesh_query *q, fxg_vec3 p, uint32_t vi, fxs_mesh_hit *h)
{
	fxg_vec3 d = np_sub(p, q->c);
	int best = -1;
	int64_t pen = 0;
	for (int f = 0; f < q->nf; ++f) {
		int64_t pf = np_w2f(q->o[f] - np_dot_w(q->n[f], d));
		if (pf < -(int64_t)q->speculative)
			return false;
		if (best < 0 || pf < pen) {
			best = f;
			pen = pf;
		}
	}
	h->n = np_neg(q->n[best]);
	h->sep = (fix16_t)-pen;
	h->s = (fix16_t)-pen;
	h->point = np_madd(p, (fix16_t)(pen / 2), q->n[best]);
	h->id = FXS_MESH_ID_VERTEX | vi;
	return true;
}

static bool hit_before(const fxs_mesh_hit *a, const fxs_mesh_hit *b)
{
	return a->sep < b->sep || (a->sep == b->sep && a->id < b->id);
}

/* Which hit chooses the manifold's normal. Hits are front-side (the
 * feature in front of its face or less than SHALLOW behind it, a mesh
 * feature less than SHALLOW inside the shape) or push-outs (deeper). The
 * deepest front-side hit is the reference; without one, the push-out least
 * deep behind its face (the face it crossed last). Behind a thin wall the
 * far face's slab also reaches a body touching the near face: a deepest-first
 * rule would push it out through the far one. A shallow push-out competes by
 * depth with the front-side hits: a box sliding down a ramp onto the floor
 * has its leading corners just behind the floor while its face still touches
 * the ramp, and it must be the floor that holds it (else it sinks through the
 * crease). Ties by feature id. */
#define SHALLOW ((fix16_t)655) /* 1 cm */

static bool push_before(const fxs_mesh_hit *a, const fxs_mesh_hit *b)
{
	return a->s > b->s || (a->s == b->s && hit_before(a, b));
}

static void keep_insert(fxs_mesh_sink *k, const fxs_mesh_hit *h)
{
	int pos = k->nk;
	while (pos > 0 && hit_before(h, &k->keep[pos - 1]))
		--pos;
	if (pos >= FXS_MESH_KEEP)
		return;
	int last = k->nk < FXS_MESH_KEEP ? k->nk : FXS_MESH_KEEP - 1;
	for (int j = last; j > pos; --j)
		k->keep[j] = k->keep[j - 1];
	k->keep[pos] = *h;
	if (k->nk < FXS_MESH_KEEP)
		++k->nk;
}

void fxs_mesh_sink_offer(fxs_mesh_sink *k, const fxs_mesh_hit *h)
{
	if (k->pass == 1) {
		if (h->s < -SHALLOW) {
			if (!k->have_push || push_before(h, &k->push)) {
				k->push = *h;
				k->have_push = true;
			}
		} else if (!k->have_front || hit_before(h, &k->front)) {
			k->front = *h;
			k->have_front = true;
		}
		if ((h->id & (FXS_MESH_ID_EDGE | FXS_MESH_ID_EDGE_FACE | FXS_MESH_ID_VERTEX)) == 0) {
			int i = 0;
			while (i < k->nplanes && np_dot_w(h->n, k->plane_n[i]) < FXS_MESH_FLAT_DOT)
				++i;
			if (i < k->nplanes) {
				k->plane_sep[i] = fxg_min(k->plane_sep[i], h->sep);
			} else if (i < FXS_MESH_FACE_PLANES) {
				k->plane_n[i] = h->n;
				k->plane_sep[i] = h->sep;
				k->nplanes = i + 1;
			}
		}
		if (k->nbuf < FXS_MESH_HIT_BUF)
			k->buf[k->nbuf++] = *h;
		else
			k->overflow = true;
		return;
	}
	if (np_dot_w(h->n, k->ref.n) >= FXS_MESH_FLAT_DOT)
		keep_insert(k, h);
}

bool fxs_mesh_sink_face_sep(const fxs_mesh_sink *k, fxg_vec3 n, fix16_t *sep)
{
	for (int i = 0; i < k->nplanes; ++i)
		if (np_dot_w(n, k->plane_n[i]) >= FXS_MESH_FLAT_DOT) {
			*sep = k->plane_sep[i];
			return true;
		}
	return false;
}

/* A cylinder's feature points against a face of normal n (mesh to shape),
 * on its surface (radius 0): when its cap faces the face within 2.9
 * degrees, 8 points around that cap's rim (numbers 2-9: it stands on 4 of
 * them); otherwise its deepest rim point towards the face and the same
 * point of the other cap, the -y cap's first (numbers 0 and 1: the side's
 * line, for a cylinder lying on the face). Returns the first number and the
 * count. */
static int cylinder_points(const fxs_mesh_query *q, fxg_vec3 n, fxg_vec3 xs[10], int *first)
{
	static const fix16_t c8[8] = { 65536, 46341, 0, -46341, -65536, -46341, 0, 46341 };
	fix16_t du = np_dot(n, q->u); /* the cap towards the face is the one at -sign(du) */
	fxg_vec3 perp = np_madd(np_neg(n), du, q->u);
	fix16_t plen;
	fxg_vec3 rad = np_normalize(perp, &plen);
	if (plen > 3277) { /* 0.05 */
		xs[0] = np_madd(np_madd(q->c, -q->hh, q->u), q->cr, rad);
		xs[1] = np_madd(np_madd(q->c, q->hh, q->u), q->cr, rad);
		*first = 0;
		return 2;
	}
	fxg_vec3 cap = np_madd(q->c, du > 0 ? -q->hh : q->hh, q->u);
	fxg_vec3 ax = q->hull_rel.cx, az = q->hull_rel.cz;
	for (int i = 0; i < 8; ++i)
		xs[2 + i] = np_madd(np_madd(cap, np_w2f((int64_t)q->cr * c8[i]), ax), np_w2f((int64_t)q->cr * c8[(i + 6) & 7]),
				    az);
	*first = 2;
	return 8;
}

/* Every hit, in a fixed order: faces in id order (their feature points in
 * index order), mesh vertices in index order, then edges (face id, edge
 * index, shape feature). */
static void all_hits(fxs_mesh_query *q, fxs_mesh_sink *k)
{
	const fxs_mesh *me = q->me;
	for (uint32_t ci = 0, nc = fxs_mesh_cand_count(q); ci < nc; ++ci) {
		uint32_t fi = fxs_mesh_cand_face(q, ci);
		if (fi == FXS_MESH_NO_FACE)
			continue;
		const fxs_mesh_face *f = &me->faces[fi];
		/* every feature point beyond the speculative distance in front of
		 * the plane, or behind the slab: no hit */
		int64_t sc = np_w2f(np_dot_w(f->n, q->c) - f->o);
		if (sc > q->reach || sc < -(q->reach + f->depth))
			continue;
		/* pass 2 (regenerating): a face not parallel to the reference adds nothing */
		if (k->pass == 2 && np_dot_w(f->n, k->ref.n) < FXS_MESH_FLAT_DOT)
			continue;
		if (q->type == FXS_SHAPE_CYLINDER) {
			fxg_vec3 xs[10];
			int j0, n = cylinder_points(q, f->n, xs, &j0);
			for (int j = j0; j < j0 + n; ++j) {
				fxs_mesh_hit h;
				if (feature_hit(q, fi, j, xs[j], &h))
					fxs_mesh_sink_offer(k, &h);
			}
			continue;
		}
		for (int j = 0; j < q->nx; ++j) {
			fxs_mesh_hit h;
			if (feature_hit(q, fi, j, q->x[j], &h))
				fxs_mesh_sink_offer(k, &h);
		}
	}
	if (q->type != FXS_SHAPE_SPHERE) {
		const fxs_aabb *sb = &q->sb;
		for (uint32_t vi = 0; vi < me->nverts; ++vi) {
			fxg_vec3 p = me->verts[vi];
			if (p.x < sb->lo.x || p.x > sb->hi.x || p.y < sb->lo.y || p.y > sb->hi.y || p.z < sb->lo.z ||
			    p.z > sb->hi.z)
				continue;
			fxg_vec3 dp = np_sub(p, q->c);
			if (np_dot_w(dp, dp) > (q->reach * q->reach))
				continue;
			fxs_mesh_hit h;
			bool hit = q->type == FXS_SHAPE_BOX ? vertex_hit(q, p, vi, &h)
				: q->type == FXS_SHAPE_HULL ? hull_vertex_hit(q, p, vi, &h)
				: q->type == FXS_SHAPE_CYLINDER ? fxs_mesh_cylinder_vertex_hit(q, vi, &h)
							    : fxs_mesh_capsule_vertex_hit(q, vi, q->r, &h);
			if (hit)
				fxs_mesh_sink_offer(k, &h);
		}
		fxs_mesh_edge_hits(q, k);
	}
}

/* The box's faces (2i: +ax_i, 2i + 1: -ax_i) and edges (4i + m: along ax_i
 * from vertex v0 to v0 | 1 << i; vertex bit i set = the + side of axis i). */
static void box_topology(fxs_mesh_query *q)
{
	for (int i = 0; i < 3; ++i) {
		q->n[2 * i] = q->box_ax[i];
		q->n[2 * i + 1] = np_neg(q->box_ax[i]);
		q->o[2 * i] = q->o[2 * i + 1] = (int64_t)q->box_e[i] * 65536;
	}
	q->nf = 6;
	q->ne = 12;
	for (int i = 0; i < 3; ++i) {
		int j = (i + 1) % 3, l = (i + 2) % 3;
		for (int m = 0; m < 4; ++m) {
			int e = 4 * i + m;
			int v0 = (m & 1 ? 1 << j : 0) | (m & 2 ? 1 << l : 0);
			q->ev[e][0] = (uint8_t)v0;
			q->ev[e][1] = (uint8_t)(v0 | 1 << i);
			q->ef[e][0] = (uint8_t)(2 * j + (m & 1 ? 0 : 1));
			q->ef[e][1] = (uint8_t)(2 * l + (m & 2 ? 0 : 1));
			q->eu[e] = q->box_ax[i];
			q->eh[e] = q->box_e[i];
		}
	}
	q->edges_ready = true;
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
	fxs_mesh_query q;
	q.me = me;
	q.speculative = speculative;
	q.type = a->type;
	q.c = fxg_m3_tmul_v3(rm, d, ovf);
	q.nx = 0;
	q.r = 0;
	q.nf = q.ne = 0;
	q.hull = NULL;
	q.edges_ready = false;
	q.ovf = ovf;
	fxg_vec3 c = q.c;
	switch (a->type) {
	case FXS_SHAPE_SPHERE:
		q.x[q.nx++] = c;
		q.r = a->radius;
		break;
	case FXS_SHAPE_CAPSULE: {
		q.u = fxg_m3_tmul_v3(rm, ra.cy, ovf);
		q.hh = a->half_height;
		q.x[q.nx++] = np_madd(c, -a->half_height, q.u);
		q.x[q.nx++] = np_madd(c, a->half_height, q.u);
		q.r = a->radius;
		break;
	}
	case FXS_SHAPE_BOX: {
		q.box_ax[0] = fxg_m3_tmul_v3(rm, ra.cx, ovf);
		q.box_ax[1] = fxg_m3_tmul_v3(rm, ra.cy, ovf);
		q.box_ax[2] = fxg_m3_tmul_v3(rm, ra.cz, ovf);
		q.box_e[0] = a->half_extents.x;
		q.box_e[1] = a->half_extents.y;
		q.box_e[2] = a->half_extents.z;
		for (int k = 0; k < 8; ++k) {
			fxg_vec3 p = c;
			for (int i = 0; i < 3; ++i)
				p = np_madd(p, (k >> i) & 1 ? q.box_e[i] : -q.box_e[i], q.box_ax[i]);
			q.x[q.nx++] = p;
		}
		box_topology(&q);
		break;
	}
	case FXS_SHAPE_CYLINDER: {
		/* its axes in the mesh's frame (hull_rel); the bounds from the 8
		 * extreme points of its two caps' rims (on the x and z axes and
		 * between them, grown below by r (1 - cos 45) through q.r) */
		q.hull_rel = (fxg_mat3){ fxg_m3_tmul_v3(rm, ra.cx, ovf), fxg_m3_tmul_v3(rm, ra.cy, ovf),
					 fxg_m3_tmul_v3(rm, ra.cz, ovf) };
		q.u = q.hull_rel.cy;
		q.hh = a->half_height;
		q.cr = a->radius;
		for (int e = -1; e <= 1; e += 2)
			for (int i = 0; i < 4; ++i) {
				fxg_vec3 p = np_madd(c, (fix16_t)(e * a->half_height), q.u);
				fxg_vec3 ax = i & 1 ? q.hull_rel.cz : q.hull_rel.cx;
				q.x[q.nx++] = np_madd(p, i & 2 ? -a->radius : a->radius, ax);
			}
		break;
	}
	case FXS_SHAPE_HULL: {
		if (!a->hull)
			return;
		q.hull_rel = (fxg_mat3){ fxg_m3_tmul_v3(rm, ra.cx, ovf), fxg_m3_tmul_v3(rm, ra.cy, ovf),
					 fxg_m3_tmul_v3(rm, ra.cz, ovf) };
		const fxs_hull_geom *g = &a->hull->g;
		q.hull = g;
		for (int k = 0; k < g->n_verts; ++k)
			q.x[q.nx++] = np_add(c, fxg_m3_mul_v3(q.hull_rel, g->v[k], ovf));
		q.nf = g->n_faces;
		for (int f = 0; f < g->n_faces; ++f) {
			q.n[f] = fxg_m3_mul_v3(q.hull_rel, g->n[f], ovf);
			q.o[f] = g->o[f];
		}
		q.ne = g->n_edges; /* directions rotated on first use (collide_mesh_edge.c) */
		break;
	}
	default:
		return;
	}
	if (q.nx == 0)
		return;
	/* local bounds of the shape grown by r + speculative */
	fxs_aabb sb = { q.x[0], q.x[0] };
	for (int k = 1; k < q.nx; ++k) {
		sb.lo = fxg_v3(fxg_min(sb.lo.x, q.x[k].x), fxg_min(sb.lo.y, q.x[k].y), fxg_min(sb.lo.z, q.x[k].z));
		sb.hi = fxg_v3(fxg_max(sb.hi.x, q.x[k].x), fxg_max(sb.hi.y, q.x[k].y), fxg_max(sb.hi.z, q.x[k].z));
	}
	fix16_t g = q.r + (speculative > 0 ? speculative : 0);
	if (a->type == FXS_SHAPE_CYLINDER)
		g += a->radius; /* the rim between the 4 points per cap: within r of them */
	sb.lo = fxg_v3(sb.lo.x - g, sb.lo.y - g, sb.lo.z - g);
	sb.hi = fxg_v3(sb.hi.x + g, sb.hi.y + g, sb.hi.z + g);
	if (!fxs_aabb_overlap(&sb, &me->bounds))
		return;
	q.sb = sb;
	q.ncand = 0;
	q.cand_all = false;
	for (uint32_t fi = 0; fi < me->ntris && !q.cand_all; ++fi) {
		if (!fxs_aabb_overlap(&sb, &me->faces[fi].bounds))
			continue;
		if (q.ncand < FXS_MESH_CAND)
			q.cand[q.ncand++] = fi;
		else
			q.cand_all = true;
	}
	/* the bounding sphere about c, for cheap rejections of faces, edges and
	 * vertices the box test lets through (a rotated shape's box is loose) */
	uint64_t far2 = 0;
	for (int k = 0; k < q.nx; ++k) {
		fxg_vec3 dk = np_sub(q.x[k], c);
		uint64_t d2 = (uint64_t)np_dot_w(dk, dk);
		far2 = d2 > far2 ? d2 : far2;
	}
	q.reach = (int64_t)fxg_isqrt64_round(far2) + 1 + g;

	/* pass 1: the reference hit picks the normal */
	fxs_mesh_sink k;
	k.pass = 1;
	k.have_front = k.have_push = false;
	k.nk = 0;
	k.nbuf = 0;
	k.overflow = false;
	k.nplanes = 0;
	all_hits(&q, &k);
	if (!k.have_front && !k.have_push)
		return;
	k.ref = k.have_front ? k.front : k.push;
	/* pass 2: the deepest hits parallel to it, kept sorted (the same hits
	 * in the same order whether buffered or generated again) */
	k.pass = 2;
	if (k.overflow) {
		all_hits(&q, &k);
	} else {
		for (int i = 0; i < k.nbuf; ++i)
			fxs_mesh_sink_offer(&k, &k.buf[i]);
	}
	/* four of them spread over the contact (the deepest, the farthest from
	 * it, the largest triangle, the most area outside it: as the convex
	 * pairs), in the plane across the reference normal */
	np_candidate cand[FXS_MESH_KEEP];
	int ax = fxg_abs64(k.ref.n.x) >= fxg_abs64(k.ref.n.y) && fxg_abs64(k.ref.n.x) >= fxg_abs64(k.ref.n.z)
		? 0
		: (fxg_abs64(k.ref.n.y) >= fxg_abs64(k.ref.n.z) ? 1 : 2);
	for (int i = 0; i < k.nk; ++i) {
		fxg_vec3 p = k.keep[i].point;
		cand[i].p = p;
		cand[i].u = ax == 0 ? p.y : (ax == 1 ? p.z : p.x);
		cand[i].v = ax == 0 ? p.z : (ax == 1 ? p.x : p.y);
		cand[i].sep = k.keep[i].sep;
		cand[i].id = k.keep[i].id;
	}
	int pick[FXS_MAX_MANIFOLD_POINTS];
	int np = fxs_np_reduce(cand, k.nk, pick);
	/* back to world space; the normal points from the shape to the mesh */
	m->normal = np_neg(fxg_m3_mul_v3(rm, k.ref.n, ovf));
	for (int i = 0; i < np; ++i)
		np_add_point(m, np_to_world(xb->p, &rm, cand[pick[i]].p, ovf), (fix16_t)cand[pick[i]].sep,
			     cand[pick[i]].id);
}
