/* Convex hulls against spheres, boxes, capsules and hulls.
 *
 * Polytope against polytope (a box is one, fxs_hull_geom_box): the separating
 * axis test of Gregorius (GDC 2013) over the face normals of both and the
 * edge pairs that build a face of the Minkowski difference (the Gauss-map
 * arcs of the two edges cross), then reference-face / incident-face clipping
 * or one edge-edge point, as box-box does (collide_box_box.c) and with its
 * preference tolerances. Everything is done in the first shape's frame: the
 * second's vertices and normals are rotated into it once per call (rounded
 * once per component). Supports are brute force over the vertices: <= 32 x 60
 * face tests and <= 90 x 90 arc tests, in index order, ties to the lower
 * index. No early-out changes a result: a separating axis beyond the
 * speculative distance means no contact whichever is found first.
 *
 * Feature ids, a face contact: bit 26 set when the reference face is the
 * second shape's, the reference face (bits 20-25), the incident face (14-19),
 * the kind (12-13: 0 an incident vertex, 1 an incident edge through a side
 * plane of the reference face, 2 a reference corner, 3 the incident
 * polytope's deepest vertex when the incident face misses the reference
 * face's prism, as deep skewed overlaps can) and two polygon-local indices
 * (6 bits each). An edge-edge point: bit 30 | edge A << 8 | edge B.
 *
 * Sphere against a polytope: the face of largest separation if the centre is
 * inside, else the closest point of the surface (per face in front of the
 * centre: its projection if inside the polygon, else the nearest polygon
 * edge). Capsule against a polytope: SAT over the face normals and the
 * cross products of the segment with every edge (supports brute force), then
 * the segment clipped to the reference face's side planes (two points) or
 * one point between the segment and the edge. */
#include "collide/collide_common.h"
#include "geometry/hull.h"

#include <string.h>

#define EDGE_MIN_LEN2 ((int64_t)1 << 20) /* Q32.32: (1/64)^2, as box-box */
#define CLIP_MARGIN ((int64_t)FXS_NP_ABS_TOL)
#define MAX_POLY (2 * FXS_HULL_MAX_VERTS + 4)
#define SIDE_LINE 64 /* out_line >= this: a side plane of the reference face */


/* A polytope placed in the working frame. */
typedef struct placed {
	const fxs_hull_geom *g;
	fxg_vec3 v[FXS_HULL_MAX_VERTS];
	fxg_vec3 n[FXS_HULL_MAX_FACES];
	int64_t o[FXS_HULL_MAX_FACES];
	fxg_vec3 u[FXS_HULL_MAX_EDGES];
} placed;

static void place_identity(const fxs_hull_geom *g, placed *p)
{
	p->g = g;
	memcpy(p->v, g->v, (size_t)g->n_verts * sizeof p->v[0]);
	memcpy(p->n, g->n, (size_t)g->n_faces * sizeof p->n[0]);
	memcpy(p->o, g->o, (size_t)g->n_faces * sizeof p->o[0]);
	memcpy(p->u, g->edge_u, (size_t)g->n_edges * sizeof p->u[0]);
}

static void place(const fxs_hull_geom *g, const fxg_mat3 *c, fxg_vec3 d, placed *p, uint32_t *ovf)
{
	p->g = g;
	for (int i = 0; i < g->n_verts; ++i)
		p->v[i] = np_add(fxg_m3_mul_v3(*c, g->v[i], ovf), d);
	for (int f = 0; f < g->n_faces; ++f) {
		p->n[f] = fxg_m3_mul_v3(*c, g->n[f], ovf);
		p->o[f] = np_dot_w(p->n[f], p->v[g->face_verts[g->face_start[f]]]);
	}
	for (int e = 0; e < g->n_edges; ++e)
		p->u[e] = fxg_m3_mul_v3(*c, g->edge_u[e], ovf);
}

/* max over faces of P of (min over Q's vertices of n . v) - o: Q32.32 */
static int64_t face_sep(const placed *p, const placed *q, int *best_f)
{
	int64_t best = INT64_MIN;
	for (int f = 0; f < p->g->n_faces; ++f) {
		int64_t lo = INT64_MAX;
		for (int i = 0; i < q->g->n_verts; ++i) {
			int64_t d = np_dot_w(p->n[f], q->v[i]);
			lo = d < lo ? d : lo;
		}
		int64_t s = lo - p->o[f];
		if (s > best) {
			best = s;
			*best_f = f;
		}
	}
	return best;
}

typedef struct {
	fxg_vec3 p;
	uint8_t out_line; /* the edge from this vertex to the next */
} pvert;

/* keep the part with s . x <= h (s Q16.16, h Q32.32) */
static int clip(const pvert *in, int n, pvert *out, fxg_vec3 s, int64_t h, uint8_t line)
{
	int cnt = 0;
	for (int i = 0; i < n; ++i) {
		const pvert *a = &in[i], *b = &in[(i + 1) % n];
		int64_t va = np_dot_w(s, a->p), vb = np_dot_w(s, b->p);
		bool ina = va <= h, inb = vb <= h;
		if (ina && cnt < MAX_POLY)
			out[cnt++] = *a;
		if (ina != inb && cnt < MAX_POLY) {
			/* t = (h - va) / (vb - va) in [0, 1] as Q32.32, one rounding;
			 * then a + t (b - a), one more */
			uint32_t o = 0;
			fxg_wide t = fxg_wide_div(h - va, vb - va, &o);
			fxg_vec3 p;
			p.x = a->p.x + fxg_wide_to_fix(fxg_wmul(t, b->p.x - a->p.x, &o), &o);
			p.y = a->p.y + fxg_wide_to_fix(fxg_wmul(t, b->p.y - a->p.y, &o), &o);
			p.z = a->p.z + fxg_wide_to_fix(fxg_wmul(t, b->p.z - a->p.z, &o), &o);
			out[cnt].p = p;
			out[cnt].out_line = ina ? line : a->out_line;
			++cnt;
		}
	}
	return cnt;
}

/* in-plane coordinates for the reduction: drop the normal's largest axis */
static void plane_uv(fxg_vec3 n, fxg_vec3 p, fix16_t *u, fix16_t *v)
{
	int64_t ax = fxg_abs64(n.x), ay = fxg_abs64(n.y), az = fxg_abs64(n.z);
	if (ax >= ay && ax >= az)
		*u = p.y, *v = p.z;
	else if (ay >= az)
		*u = p.z, *v = p.x;
	else
		*u = p.x, *v = p.y;
}

/* Face contact: reference face rf of R, incident polytope I, both placed in
 * the first shape's frame. nsign: +1 when R is the first shape. */
static void face_contact(const placed *R, int rf, const placed *I, int ref_is_b, fix16_t speculative,
			 const fxs_transform *xa, const fxg_mat3 *ra, fxs_manifold *m, uint32_t *ovf)
{
	const fxs_hull_geom *rg = R->g, *ig = I->g;
	fxg_vec3 n = R->n[rf];
	/* the incident polytope's deepest vertex along -n, and the incident
	 * face: of the faces around that vertex the most anti-parallel (the
	 * most anti-parallel face overall can miss the reference face in a
	 * deep, skewed overlap) */
	int dv = 0;
	int64_t lo_d = INT64_MAX;
	for (int i = 0; i < ig->n_verts; ++i) {
		int64_t dd = np_dot_w(n, I->v[i]);
		if (dd < lo_d) {
			lo_d = dd;
			dv = i;
		}
	}
	int inf = -1;
	int64_t lo = INT64_MAX;
	for (int f = 0; f < ig->n_faces; ++f) {
		bool has = false;
		for (int k = ig->face_start[f]; k < ig->face_start[f + 1]; ++k)
			has |= ig->face_verts[k] == dv;
		int64_t d = np_dot_w(I->n[f], n);
		if (has && d < lo) {
			lo = d;
			inf = f;
		}
	}
	if (inf < 0)
		inf = 0;
	pvert buf[2][MAX_POLY];
	int s0 = ig->face_start[inf], ni = ig->face_start[inf + 1] - s0;
	for (int k = 0; k < ni; ++k) {
		buf[0][k].p = I->v[ig->face_verts[s0 + k]];
		buf[0][k].out_line = (uint8_t)k;
	}
	int cnt = ni, cur = 0;
	int r0 = rg->face_start[rf], nr = rg->face_start[rf + 1] - r0;
	for (int k = 0; k < nr && cnt > 0; ++k) {
		fxg_vec3 p0 = R->v[rg->face_verts[r0 + k]], p1 = R->v[rg->face_verts[r0 + (k + 1) % nr]];
		fix16_t len;
		fxg_vec3 s = np_normalize(np_cross(np_sub(p1, p0), n), &len);
		int64_t h = np_dot_w(s, p0) + (CLIP_MARGIN << 16);
		cnt = clip(buf[cur], cnt, buf[cur ^ 1], s, h, (uint8_t)(SIDE_LINE + k));
		cur ^= 1;
	}
	np_candidate cand[MAX_POLY + 1];
	int nc = 0;
	for (int k = 0; k < cnt; ++k) {
		const pvert *v = &buf[cur][k];
		int64_t sep = np_w2f(np_dot_w(n, v->p) - R->o[rf]);
		if (sep > speculative)
			continue;
		uint32_t la = buf[cur][(k + cnt - 1) % cnt].out_line, lb = v->out_line;
		uint32_t kind, i1, i2;
		if (la < SIDE_LINE && lb < SIDE_LINE)
			kind = 0, i1 = lb, i2 = 0; /* the incident vertex starting edge lb */
		else if (la >= SIDE_LINE && lb >= SIDE_LINE)
			kind = 2, i1 = la - SIDE_LINE, i2 = lb - SIDE_LINE;
		else
			kind = 1, i1 = la < SIDE_LINE ? la : lb, i2 = (la < SIDE_LINE ? lb : la) - SIDE_LINE;
		np_candidate *c = &cand[nc++];
		c->p = np_madd(v->p, (fix16_t) - (sep / 2), n);
		plane_uv(n, v->p, &c->u, &c->v);
		c->sep = sep;
		c->id = (uint32_t)ref_is_b << 26 | (uint32_t)rf << 20 | (uint32_t)inf << 14 | kind << 12 | (i1 & 63) << 6 |
			(i2 & 63);
	}
	/* the incident polytope's deepest vertex, when clipping lost it (the
	 * incident face misses the reference face's prism, or the vertex lies
	 * outside it: deep, skewed overlaps): kept as a point of its own, so
	 * that the manifold always holds the deepest penetration (kind 3) */
	int64_t deep = np_w2f(lo_d - R->o[rf]);
	int64_t shallowest_gap = INT64_MAX;
	for (int k = 0; k < nc; ++k)
		shallowest_gap = cand[k].sep < shallowest_gap ? cand[k].sep : shallowest_gap;
	if (deep <= speculative && (nc == 0 || shallowest_gap > deep + FXS_NP_ABS_TOL)) {
		np_candidate *c = &cand[nc++];
		c->p = np_madd(I->v[dv], (fix16_t) - (deep / 2), n);
		plane_uv(n, I->v[dv], &c->u, &c->v);
		c->sep = deep;
		c->id = (uint32_t)ref_is_b << 26 | (uint32_t)rf << 20 | 3u << 12 | (uint32_t)dv;
	}
	int pick[4];
	int np = fxs_np_reduce(cand, nc, pick);
	for (int k = 0; k < np; ++k)
		np_add_point(m, np_to_world(xa->p, ra, cand[pick[k]].p, ovf), (fix16_t)cand[pick[k]].sep, cand[pick[k]].id);
}

static void collide_polytopes(const fxs_hull_geom *ga, const fxs_transform *xa, const fxs_hull_geom *gb,
			      const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	m->point_count = 0;
	m->normal = fxg_v3(0, FXG_ONE, 0);
	fxg_vec3 dw;
	if (!np_rel(xa->p, xb->p, &dw))
		return;
	fxg_mat3 ra = fxg_m3_from_quat(xa->q, ovf), rb = fxg_m3_from_quat(xb->q, ovf);
	fxg_mat3 c = { fxg_m3_tmul_v3(ra, rb.cx, ovf), fxg_m3_tmul_v3(ra, rb.cy, ovf), fxg_m3_tmul_v3(ra, rb.cz, ovf) };
	fxg_vec3 d = fxg_m3_tmul_v3(ra, dw, ovf);
	placed A, B;
	place_identity(ga, &A);
	place(gb, &c, d, &B, ovf);
	int fa = 0, fb = 0;
	int64_t sep_a = np_w2f(face_sep(&A, &B, &fa));
	if (sep_a > speculative)
		return;
	int64_t sep_b = np_w2f(face_sep(&B, &A, &fb));
	if (sep_b > speculative)
		return;
	/* edge pairs on the Minkowski difference (Gregorius): arcs (a, b) of
	 * A's edge and (c, d) = (-b1, -b2) of B's cross */
	int64_t sep_e = INT64_MIN;
	int ea_best = -1, eb_best = -1;
	fxg_vec3 n_e = fxg_v3_zero();
	np_wvec3 dxc[FXS_HULL_MAX_EDGES];
	fxg_vec3 cB[FXS_HULL_MAX_EDGES], dB[FXS_HULL_MAX_EDGES];
	for (int j = 0; j < gb->n_edges; ++j) {
		cB[j] = np_neg(B.n[gb->edge_f[j][0]]);
		dB[j] = np_neg(B.n[gb->edge_f[j][1]]);
		dxc[j] = np_cross_w(dB[j], cB[j]);
	}
	for (int i = 0; i < ga->n_edges; ++i) {
		fxg_vec3 a = A.n[ga->edge_f[i][0]], b = A.n[ga->edge_f[i][1]];
		np_wvec3 bxa = np_cross_w(b, a);
		fxg_vec3 pa = A.v[ga->edge_v[i][0]];
		for (int j = 0; j < gb->n_edges; ++j) {
			int cba = np_sign_dot(cB[j], bxa), dba = np_sign_dot(dB[j], bxa);
			if (cba * dba >= 0)
				continue;
			int adc = np_sign_dot(a, dxc[j]), bdc = np_sign_dot(b, dxc[j]);
			if (!(adc * bdc < 0 && cba * bdc > 0))
				continue;
			fxg_vec3 ax = np_cross(A.u[i], B.u[j]);
			if (np_dot_w(ax, ax) < EDGE_MIN_LEN2)
				continue;
			/* |ax| <= 1: an overlap along the unnormalised axis is only
			 * deeper once normalised, so one already below the best
			 * needs no square root */
			int64_t raw = np_dot_w(ax, np_sub(B.v[gb->edge_v[j][0]], pa));
			if (np_dot_w(ax, pa) < 0)
				raw = -raw;
			if (sep_e != INT64_MIN && raw <= 0 && np_w2f(raw) <= sep_e)
				continue;
			fix16_t len;
			fxg_vec3 n = np_normalize(ax, &len);
			if (np_dot_w(n, pa) < 0)
				n = np_neg(n);
			int64_t s = np_w2f(np_dot_w(n, np_sub(B.v[gb->edge_v[j][0]], pa)));
			if (s > sep_e) {
				sep_e = s;
				ea_best = i;
				eb_best = j;
				n_e = n;
			}
		}
	}
	if (sep_e > speculative)
		return;
	int64_t face_best = sep_a > sep_b ? sep_a : sep_b;
	if (ea_best >= 0 && sep_e > fxg_mul_round64(FXS_NP_REL_EDGE, face_best) + FXS_NP_ABS_TOL) {
		fxg_vec3 a0 = A.v[ga->edge_v[ea_best][0]], a1 = A.v[ga->edge_v[ea_best][1]];
		fxg_vec3 b0 = B.v[gb->edge_v[eb_best][0]], b1 = B.v[gb->edge_v[eb_best][1]];
		fxg_vec3 ca = np_mid(a0, a1), cb = np_mid(b0, b1);
		fix16_t la = ga->edge_len[ea_best], lb = gb->edge_len[eb_best];
		fix16_t s, t;
		np_segments_closest(np_sub(ca, cb), A.u[ea_best], la / 2, B.u[eb_best], lb / 2, &s, &t);
		fxg_vec3 pa = np_madd(ca, s, A.u[ea_best]), pb = np_madd(cb, t, B.u[eb_best]);
		m->normal = fxg_m3_mul_v3(ra, n_e, ovf);
		np_add_point(m, np_to_world(xa->p, &ra, np_mid(pa, pb), ovf), (fix16_t)sep_e,
			     1u << 30 | (uint32_t)ea_best << 8 | (uint32_t)eb_best);
		return;
	}
	if (sep_b > fxg_mul_round64(FXS_NP_REL_FACE, sep_a) + FXS_NP_ABS_TOL) {
		m->normal = np_neg(fxg_m3_mul_v3(rb, gb->n[fb], ovf)); /* one rotation */
		face_contact(&B, fb, &A, 1, speculative, xa, &ra, m, ovf);
		/* the points sit midway along B's normal: same as along -n */
		return;
	}
	m->normal = fxg_m3_mul_v3(ra, A.n[fa], ovf);
	face_contact(&A, fa, &B, 0, speculative, xa, &ra, m, ovf);
}

void fxs_collide_hulls(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
		       fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	m->point_count = 0;
	if (!a->hull || !b->hull)
		return;
	collide_polytopes(&a->hull->g, xa, &b->hull->g, xb, speculative, m, ovf);
}

void fxs_collide_box_hull(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			  fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	m->point_count = 0;
	if (!b->hull)
		return;
	fxs_hull_geom box;
	fxs_hull_geom_box(a->half_extents, &box);
	/* in the hull's frame (the box is the cheaper one to move); the result
	 * mirrored back: the normal negated, points and ids as they are */
	collide_polytopes(&b->hull->g, xb, &box, xa, speculative, m, ovf);
	m->normal = np_neg(m->normal);
}

/* ---- round shapes against a polytope ---- */

/* distance from x to segment [a, b] and the closest point */
/* squared distance (Q32.32) from x to segment [a, b] and the closest point */
static int64_t seg_dist2(fxg_vec3 x, fxg_vec3 a, fxg_vec3 b, fxg_vec3 *q)
{
	fxg_vec3 e = np_sub(b, a);
	int64_t den = np_dot_w(e, e) >> 16;
	int64_t t = den > 0 ? fxg_div_round64(np_dot_w(np_sub(x, a), e), den) : 0;
	t = t < 0 ? 0 : (t > FXG_ONE ? FXG_ONE : t);
	*q = np_madd(a, (fix16_t)t, e);
	fxg_vec3 d = np_sub(x, *q);
	return np_dot_w(d, d);
}

/* Closest point of polytope g to x outside it (squared distances compared,
 * the first found kept on ties; a face whose plane is already farther than
 * the best is skipped). Returns the distance, Q16.16. */
static int64_t closest_on_surface(const fxs_hull_geom *g, fxg_vec3 x, fxg_vec3 *q_out)
{
	int64_t best = INT64_MAX;
	for (int f = 0; f < g->n_faces; ++f) {
		int64_t sw = np_dot_w(g->n[f], x) - g->o[f];
		if (sw <= 0)
			continue;
		int64_t sf = np_w2f(sw);
		if (sf * sf >= best)
			continue;
		int s0 = g->face_start[f], nv = g->face_start[f + 1] - s0;
		bool inside = true;
		int64_t fbest = INT64_MAX;
		fxg_vec3 fq = x;
		for (int k = 0; k < nv; ++k) {
			fxg_vec3 p0 = g->v[g->face_verts[s0 + k]], p1 = g->v[g->face_verts[s0 + (k + 1) % nv]];
			fxg_vec3 w = np_cross(np_sub(p1, p0), g->n[f]);
			if (np_dot_w(np_sub(x, p0), w) <= 0)
				continue;
			inside = false;
			fxg_vec3 q;
			int64_t d = seg_dist2(x, p0, p1, &q);
			if (d < fbest) {
				fbest = d;
				fq = q;
			}
		}
		if (inside) {
			fbest = sf * sf;
			fq = np_madd(x, (fix16_t)-sf, g->n[f]);
		}
		if (fbest < best) {
			best = fbest;
			*q_out = fq;
		}
	}
	return best == INT64_MAX ? INT64_MAX : (int64_t)fxg_isqrt64_round((uint64_t)best);
}

void fxs_collide_sphere_hull(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			     fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	m->point_count = 0;
	m->normal = fxg_v3(0, FXG_ONE, 0);
	fxg_vec3 dw;
	if (!b->hull || !np_rel(xb->p, xa->p, &dw))
		return;
	const fxs_hull_geom *g = &b->hull->g;
	fxg_mat3 rb = fxg_m3_from_quat(xb->q, ovf);
	fxg_vec3 c = fxg_m3_tmul_v3(rb, dw, ovf); /* the centre in the hull's frame */
	int64_t smax = INT64_MIN;
	int fmax = 0;
	for (int f = 0; f < g->n_faces; ++f) {
		int64_t s = np_dot_w(g->n[f], c) - g->o[f];
		if (s > smax) {
			smax = s;
			fmax = f;
		}
	}
	fxg_vec3 n; /* from the hull to the sphere, hull frame */
	int64_t sep;
	if (smax <= 0) {
		n = g->n[fmax];
		sep = np_w2f(smax) - a->radius;
	} else {
		fxg_vec3 q = c;
		int64_t dist = closest_on_surface(g, c, &q);
		fix16_t len;
		n = np_normalize(np_sub(c, q), &len);
		if (len == 0)
			n = g->n[fmax];
		sep = dist - a->radius;
	}
	if (sep > speculative)
		return;
	fxg_vec3 p = np_madd(c, (fix16_t) - (a->radius + sep / 2), n);
	m->normal = np_neg(fxg_m3_mul_v3(rb, n, ovf));
	np_add_point(m, np_to_world(xb->p, &rb, p, ovf), (fix16_t)sep, 0);
}

/* The segment [s0, s1] (centre c, unit u, half length hh) clipped to the
 * prism of face f, as up to two points with their separations - r. */
static void capsule_face_points(const fxs_hull_geom *g, int f, fxg_vec3 s0, fxg_vec3 s1, fix16_t r,
				fix16_t speculative, const fxs_transform *xb, const fxg_mat3 *rb, fxs_manifold *m,
				uint32_t *ovf)
{
	fxg_vec3 n = g->n[f];
	pvert seg[2][MAX_POLY];
	seg[0][0].p = s0, seg[0][0].out_line = 0;
	seg[0][1].p = s1, seg[0][1].out_line = 1;
	int cnt = 2, cur = 0;
	int f0 = g->face_start[f], nv = g->face_start[f + 1] - f0;
	/* a 2-gon: clip treats it as the closed loop s0 -> s1 -> s0 */
	for (int k = 0; k < nv && cnt > 0; ++k) {
		fxg_vec3 p0 = g->v[g->face_verts[f0 + k]], p1 = g->v[g->face_verts[f0 + (k + 1) % nv]];
		fix16_t len;
		fxg_vec3 sd = np_normalize(np_cross(np_sub(p1, p0), n), &len);
		cnt = clip(seg[cur], cnt, seg[cur ^ 1], sd, np_dot_w(sd, p0) + (CLIP_MARGIN << 16), (uint8_t)(SIDE_LINE + k));
		cur ^= 1;
	}
	/* a degenerate loop keeps at most two distinct points */
	int added = 0;
	for (int k = 0; k < cnt && added < 2; ++k) {
		fxg_vec3 p = seg[cur][k].p;
		if (k > 0 && fxg_v3_eq(p, seg[cur][0].p))
			continue;
		int64_t sep = np_w2f(np_dot_w(n, p) - g->o[f]) - r;
		if (sep > speculative)
			continue;
		fxg_vec3 q = np_madd(p, (fix16_t) - (r + sep / 2), n);
		np_add_point(m, np_to_world(xb->p, rb, q, ovf), (fix16_t)sep, (uint32_t)f << 8 | (uint32_t)seg[cur][k].out_line);
		++added;
	}
	/* the deeper end, when the clipping lost it (it lies outside the face's
	 * prism: deep overlaps), as a point of its own */
	int64_t e0 = np_w2f(np_dot_w(n, s0) - g->o[f]) - r, e1 = np_w2f(np_dot_w(n, s1) - g->o[f]) - r;
	int end = e1 < e0;
	int64_t deep = end ? e1 : e0;
	bool have = false;
	for (int k = 0; k < m->point_count; ++k)
		have |= m->points[k].separation <= deep + FXS_NP_ABS_TOL;
	if (!have && deep <= speculative) {
		fxg_vec3 q = np_madd(end ? s1 : s0, (fix16_t) - (r + deep / 2), n);
		np_add_point(m, np_to_world(xb->p, rb, q, ovf), (fix16_t)deep, (uint32_t)f << 8 | 0x80u | (uint32_t)end);
	}
}

void fxs_collide_capsule_hull(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b,
			      const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	m->point_count = 0;
	m->normal = fxg_v3(0, FXG_ONE, 0);
	fxg_vec3 dw;
	if (!b->hull || !np_rel(xb->p, xa->p, &dw))
		return;
	const fxs_hull_geom *g = &b->hull->g;
	fxg_mat3 rb = fxg_m3_from_quat(xb->q, ovf), ra = fxg_m3_from_quat(xa->q, ovf);
	fxg_vec3 c = fxg_m3_tmul_v3(rb, dw, ovf);
	fxg_vec3 u = fxg_m3_tmul_v3(rb, ra.cy, ovf); /* the segment's direction */
	fix16_t hh = a->half_height, r = a->radius;
	fxg_vec3 s0 = np_madd(c, -hh, u), s1 = np_madd(c, hh, u);
	/* SAT of the segment (the capsule's core) against the hull: faces */
	int64_t sep_f = INT64_MIN;
	int bf = 0;
	for (int f = 0; f < g->n_faces; ++f) {
		int64_t d0 = np_dot_w(g->n[f], s0), d1 = np_dot_w(g->n[f], s1);
		int64_t s = (d0 < d1 ? d0 : d1) - g->o[f];
		if (s > sep_f) {
			sep_f = s;
			bf = f;
		}
	}
	sep_f = np_w2f(sep_f);
	if (sep_f - r > speculative)
		return;
	/* segment x edge axes, both orientations (not needed when a face
	 * already separates the core: the exact distance follows) */
	int64_t sep_e = INT64_MIN;
	int be = -1;
	fxg_vec3 ne = fxg_v3_zero();
	for (int e = 0; sep_f <= 0 && e < g->n_edges; ++e) {
		fxg_vec3 ax = np_cross(u, g->edge_u[e]);
		if (np_dot_w(ax, ax) < EDGE_MIN_LEN2)
			continue;
		int64_t hi = INT64_MIN, lo = INT64_MAX;
		for (int i = 0; i < g->n_verts; ++i) {
			int64_t d = np_dot_w(ax, g->v[i]);
			hi = d > hi ? d : hi;
			lo = d < lo ? d : lo;
		}
		int64_t d0 = np_dot_w(ax, s0), d1 = np_dot_w(ax, s1);
		int64_t sp = (d0 < d1 ? d0 : d1) - hi, sm = lo - (d0 > d1 ? d0 : d1);
		int flip = sm > sp;
		if (flip)
			sp = sm;
		/* |ax| <= 1: an overlap is only deeper once normalised */
		if (be >= 0 && sp <= 0 && np_w2f(sp) <= sep_e)
			continue;
		fix16_t len;
		fxg_vec3 n = np_normalize(ax, &len);
		if (flip)
			n = np_neg(n);
		d0 = np_dot_w(n, s0), d1 = np_dot_w(n, s1);
		hi = INT64_MIN;
		for (int i = 0; i < g->n_verts; ++i) {
			int64_t d = np_dot_w(n, g->v[i]);
			hi = d > hi ? d : hi;
		}
		int64_t s = np_w2f((d0 < d1 ? d0 : d1) - hi);
		if (s > sep_e) {
			sep_e = s;
			be = e;
			ne = n;
		}
	}
	if (be >= 0 && sep_e - r > speculative)
		return;
	if (sep_f > 0 || sep_e > 0) {
		/* the core is outside: the exact closest points (SAT gives only a
		 * lower bound of the distance), from the two ends against the
		 * surface and the segment against every edge; ties to the first */
		fxg_vec3 qs = s0, qh = s0;
		int64_t dist0 = closest_on_surface(g, s0, &qh);
		fxg_vec3 q1;
		int64_t d1 = closest_on_surface(g, s1, &q1);
		if (d1 < dist0)
			dist0 = d1, qs = s1, qh = q1;
		int64_t dist2 = dist0 * dist0;
		for (int e = 0; e < g->n_edges; ++e) {
			fxg_vec3 e0 = g->v[g->edge_v[e][0]], e1 = g->v[g->edge_v[e][1]];
			fix16_t le = g->edge_len[e];
			fxg_vec3 ce = np_mid(e0, e1);
			fix16_t s, t;
			np_segments_closest(np_sub(c, ce), u, hh, g->edge_u[e], le / 2, &s, &t);
			fxg_vec3 ps = np_madd(c, s, u), pe = np_madd(ce, t, g->edge_u[e]);
			fxg_vec3 dd = np_sub(ps, pe);
			int64_t d2 = np_dot_w(dd, dd);
			if (d2 < dist2)
				dist2 = d2, qs = ps, qh = pe;
		}
		int64_t dist = (int64_t)fxg_isqrt64_round((uint64_t)dist2);
		int64_t sep = dist - r;
		if (sep > speculative)
			return;
		fix16_t len;
		fxg_vec3 n = np_normalize(np_sub(qs, qh), &len);
		if (len == 0)
			n = g->n[bf];
		m->normal = np_neg(fxg_m3_mul_v3(rb, n, ovf));
		/* resting along a face (the face axis realises the distance): the
		 * segment clipped to the face, two points */
		if (sep_f >= dist - FXS_NP_ABS_TOL) {
			m->normal = np_neg(fxg_m3_mul_v3(rb, g->n[bf], ovf));
			capsule_face_points(g, bf, s0, s1, r, speculative, xb, &rb, m, ovf);
			if (m->point_count > 0)
				return;
			m->normal = np_neg(fxg_m3_mul_v3(rb, n, ovf));
		}
		np_add_point(m, np_to_world(xb->p, &rb, np_madd(qs, (fix16_t) - (r + sep / 2), n), ovf), (fix16_t)sep,
			     1u << 31);
		return;
	}
	/* the core overlaps the hull: the axis of least penetration */
	sep_f -= r;
	sep_e = be >= 0 ? sep_e - r : INT64_MIN;
	bool use_edge = be >= 0 && sep_e > fxg_mul_round64(FXS_NP_REL_EDGE, sep_f) + FXS_NP_ABS_TOL;
	if (!use_edge) {
		m->normal = np_neg(fxg_m3_mul_v3(rb, g->n[bf], ovf));
		capsule_face_points(g, bf, s0, s1, r, speculative, xb, &rb, m, ovf);
		if (m->point_count > 0 || be < 0)
			return;
	}
	/* one point between the segment and the edge */
	fxg_vec3 e0 = g->v[g->edge_v[be][0]], e1 = g->v[g->edge_v[be][1]];
	fix16_t le = g->edge_len[be];
	fxg_vec3 ce = np_mid(e0, e1);
	fix16_t s, t;
	np_segments_closest(np_sub(c, ce), u, hh, g->edge_u[be], le / 2, &s, &t);
	fxg_vec3 ps = np_madd(c, s, u);
	fxg_vec3 q = np_madd(ps, (fix16_t) - (r + sep_e / 2), ne);
	m->normal = np_neg(fxg_m3_mul_v3(rb, ne, ovf));
	np_add_point(m, np_to_world(xb->p, &rb, q, ovf), (fix16_t)sep_e, 1u << 30 | (uint32_t)be);
}
