/* Edge contacts of a convex shape against a static mesh (collide_mesh.c does
 * the feature points against the thick faces, the mesh vertices inside a box
 * or hull, and the manifold). Mesh frame; normals point from the mesh to the
 * shape.
 *
 * Mesh features: the feature edges of the candidate faces (mesh.h: convex
 * and not flat, or on the boundary; each once, by its owning face) and, for
 * capsules, the mesh vertices. The normal cone (Voronoi region of directions)
 * of an edge between faces f and g is the arc from n_f to n_g: n is in it
 * when n . w_f >= 0 and n . w_g >= 0, w being each face's in-plane outward
 * normal at the edge. A boundary edge gets a virtual second face at right
 * angles to f (n_g = w_f, w_g = n_f). A vertex's cone: n . (w - v) <= 0 for
 * every neighbour w. A contact whose normal is outside its mesh feature's
 * cone is not generated: that would be an internal-edge ghost (a box
 * snagging on the seam of a floor); face hits cover those configurations.
 *
 * Contacts (feature ids: collide_mesh.h):
 *   - edge-edge (box, hull): the Gauss-map arcs of the mesh edge and of the
 *     shape edge cross (Gregorius, exact sign tests as in collide_hull.c),
 *     the closest points of the two segments are interior to both, and the
 *     edges' cross product, turned into the mesh edge's cone, lies in both
 *     cones (near-parallel edges put both arcs on almost one great circle,
 *     where the sign tests are decided by rounding). It is the normal; the
 *     separation is along it. A crossing (sep < 0) counts while the mesh
 *     edge's closest point is inside the shape or the shape edge's is behind
 *     both faces (either makes it a real overlap), no deeper than the thicker
 *     of the two faces (the thick-face bound of seed 003), and while neither
 *     face separates better (edge_axis_holds).
 *   - shape edge on a mesh face, crossing the edge (box, hull): where the
 *     edge-edge axis degenerates to the face normal (the shape edge parallel
 *     to the face within PARALLEL_TOL, the face normal reversed in the shape
 *     edge's cone): the point where the shape edge crosses the plane through
 *     the mesh edge along the face normal, with the face's normal (it joins
 *     the face hits' manifold). Same id as edge-edge, which it replaces.
 *   - mesh edge on a shape face (box, hull): the face's normal reversed lies
 *     in the edge's cone (within CONE_TOL) and the edge is parallel to the
 *     face (within PARALLEL_TOL, where edge-edge axes degenerate: a box face
 *     resting across a ledge). The edge is clipped to the shape (every face
 *     plane but that one, CLIP_MARGIN outside); each end the clip moved is a
 *     point (an end that is a mesh vertex is vertex_hit's), if that face is
 *     where it is least deep (least_inside). Edge-edge then skips the shape
 *     edge the clip crossed, so one crossing is one point.
 *   - capsule side on a mesh edge: the closest points of the segment and the
 *     edge interior to both; normal from the edge to the segment (their cross
 *     product, so that a core crossing under the edge still points out), in
 *     the cone; separation = distance - r, no deeper than the faces' depth.
 *     A cylinder's side likewise (its axis the segment, its radius r): a
 *     cylinder lying across a ledge rests on the edge.
 *   - cylinder cap or rim on a mesh edge (cylinder_edge): the largest
 *     separation over the normals across the edge, exact: seen along the
 *     edge the rims are ellipses and the edge a point, whose closest point
 *     on the near rim's ellipse (ellipse_normal) gives the normal and the rim
 *     point; a cap crossed by an edge parallel to it within 2.9 degrees
 *     (a cylinder standing across a ridge) gets the chord's two ends. In the
 *     cone, inside the edge.
 *   - capsule side on a mesh vertex: the segment's closest point interior,
 *     normal from the vertex to it, in the vertex's cone. A cylinder's side
 *     likewise, its caps and rims in closed form
 *     (fxs_mesh_cylinder_vertex_hit).
 * Configurations whose closest features are a segment end (capsule end,
 * polytope vertex) are the feature points' (collide_mesh.c). Not generated:
 * a mesh edge running through a hull from one face to another far from
 * both faces' edges (the SAT reference finds 2 such overlaps, 8 and 10 cm
 * deep, in 2,566 of the property test's).
 *
 * Range: coordinates and offsets as collide_common.h (relative positions
 * below 2^29 raw, so a dot of a unit vector with one is below 2^47 and a
 * clip parameter (lim << 16) / slope below 2^47). Integer only; loops in
 * index order; every tie goes to the lower index. */
#include "collide/collide_mesh.h"

#define EDGE_MIN_LEN2 ((int64_t)1 << 20)      /* |u1 x u2|^2 below (1/64)^2 (Q32.32): parallel */
#define CONE_TOL ((int64_t)1024 << 16)        /* 1/64 (Q32.32): about 0.9 degrees */
#define PARALLEL_TOL ((int64_t)2048 << 16)    /* 1/32 (Q32.32): about 1.8 degrees */
#define CLIP_MARGIN ((int64_t)FXS_NP_ABS_TOL) /* ~2 mm, as the convex clipping */
#define INSIDE_TOL ((int64_t)FXS_NP_ABS_TOL << 16)
#define CAP_SIN ((int64_t)3277)               /* 0.05: a cylinder's cap within 2.9 degrees (collide_cylinder.c) */
#define CAP_COS ((int64_t)65536 - 82)         /* cos 2.9 degrees */


/* A feature edge of the mesh, ready for the tests. */
typedef struct mesh_edge {
	fxg_vec3 mid, eu; /* midpoint, unit direction */
	fix16_t half;     /* half length */
	fxg_vec3 nf, ng;  /* the two faces' normals (ng virtual on the boundary) */
	fxg_vec3 wf, wg;  /* their in-plane outward normals at the edge */
	np_wvec3 gxf;     /* ng x nf, for the arc test */
	fix16_t depth;    /* the thicker face's depth */
	bool real_g;      /* g is a face (not a boundary edge's virtual one) */
	uint32_t id;      /* owning face << 2 | edge index */
} mesh_edge;

static bool edge_setup(const fxs_mesh *me, uint32_t fi, int i, mesh_edge *e)
{
	const fxs_mesh_face *f = &me->faces[fi];
	fxg_vec3 a = me->verts[f->v[i]], b = me->verts[f->v[(i + 1) % 3]];
	e->eu = f->edge_u[i];
	e->half = f->edge_half[i];
	if (e->half == 0)
		return false;
	e->mid = np_mid(a, b);
	e->nf = f->n;
	e->wf = np_cross(e->eu, f->n); /* the edge runs a -> b counter-clockwise in f */
	e->depth = f->depth;
	uint32_t gi = f->adj[i];
	e->real_g = gi != FXS_MESH_NO_FACE;
	if (gi == FXS_MESH_NO_FACE) {
		e->ng = e->wf;
		e->wg = e->nf;
	} else {
		const fxs_mesh_face *g = &me->faces[gi];
		e->ng = g->n;
		e->wg = np_cross(g->n, e->eu); /* b -> a in g */
		e->depth = fxg_max(e->depth, g->depth);
	}
	e->gxf = np_cross_w(e->ng, e->nf);
	e->id = fi << 2 | (uint32_t)i;
	return true;
}

static bool in_cone(const mesh_edge *e, fxg_vec3 n, int64_t tol)
{
	return np_dot_w(n, e->wf) >= -tol && np_dot_w(n, e->wg) >= -tol;
}

/* n turned into the edge's cone side (the arc is below 180 degrees, so
 * n_f + n_g has a positive dot with every direction in it) */
static fxg_vec3 outward(const mesh_edge *e, fxg_vec3 n)
{
	return np_dot_w(n, np_add(e->nf, e->ng)) < 0 ? np_neg(n) : n;
}

/* the hull's edges in the mesh's frame, on first use */
static void ready_edges(fxs_mesh_query *q)
{
	if (q->edges_ready)
		return;
	const fxs_hull_geom *g = q->hull;
	for (int e = 0; e < g->n_edges; ++e) {
		q->ev[e][0] = g->edge_v[e][0];
		q->ev[e][1] = g->edge_v[e][1];
		q->ef[e][0] = g->edge_f[e][0];
		q->ef[e][1] = g->edge_f[e][1];
		q->eu[e] = fxg_m3_mul_v3(q->hull_rel, g->edge_u[e], q->ovf);
		q->eh[e] = g->edge_len[e] / 2;
	}
	q->edges_ready = true;
}

/* An overlap along an edge axis (sep < 0) is the contact unless one of the
 * edge's faces separates better (the separating-axis rule with the convex
 * pairs' preference for faces, collide_common.h: the shape's support below
 * the face's plane against the edge axis's overlap) and that face has hits
 * of its own (the shape's feature points in its region, or in a coplanar
 * neighbour's), which then describe the contact. Where the edge axis loses,
 * its overlap overstates the penetration (a shape edge crossing on the rim of
 * its cone, far inside one face and just under the other). A face without
 * hits leaves the edge hit standing: the shape's support below that plane
 * lies past the mesh (beyond another edge), where no face would catch it. */
static bool face_beats(const fxs_mesh_query *q, const fxs_mesh_sink *k, const mesh_edge *e, fxg_vec3 n, int64_t sep)
{
	int64_t lo = INT64_MAX;
	for (int j = 0; j < q->nx; ++j) {
		int64_t d = np_dot_w(n, np_sub(q->x[j], e->mid));
		lo = d < lo ? d : lo;
	}
	fix16_t hit_sep;
	return sep <= fxg_mul_round64(FXS_NP_REL_EDGE, np_w2f(lo) - q->r) + FXS_NP_ABS_TOL && fxs_mesh_sink_face_sep(k, n, &hit_sep);
}

/* neither of the edge's faces beats the edge axis */
static bool edge_axis_holds(const fxs_mesh_query *q, const fxs_mesh_sink *k, const mesh_edge *e, int64_t sep)
{
	return !face_beats(q, k, e, e->nf, sep) && !face_beats(q, k, e, e->ng, sep);
}

static bool inside_shape(const fxs_mesh_query *q, fxg_vec3 p)
{
	fxg_vec3 d = np_sub(p, q->c);
	for (int f = 0; f < q->nf; ++f)
		if (np_dot_w(q->n[f], d) > q->o[f] + INSIDE_TOL)
			return false;
	return true;
}

/* d (unit, across the edge) between the outward normals na and nb of a
 * shape edge: d . w >= -CONE_TOL for w = the part of each normal
 * perpendicular to the other (pointing from one face towards the other) */
static bool in_shape_cone(fxg_vec3 na, fxg_vec3 nb, fxg_vec3 d)
{
	fix16_t c = np_dot(na, nb);
	fxg_vec3 wa = np_madd(nb, (fix16_t)-c, na), wb = np_madd(na, (fix16_t)-c, nb);
	return np_dot_w(d, wa) >= -CONE_TOL && np_dot_w(d, wb) >= -CONE_TOL;
}

/* p behind both faces of the edge (the virtual one of a boundary edge too) */
static bool inside_wedge(const mesh_edge *e, fxg_vec3 p)
{
	fxg_vec3 d = np_sub(p, e->mid);
	return np_dot_w(e->nf, d) <= 0 && np_dot_w(e->ng, d) <= 0;
}

/* Face a is where the mesh edge is least deep in the shape at p (a
 * clipped end, on face `cut`'s plane, sep below a), among the faces whose
 * reversed normal also lies in the edge's cone (those the edge could leave
 * the shape through: along any other face's normal the mesh continues),
 * within FXS_NP_ABS_TOL. Else the edge runs through the shape's thickness
 * and a push along a's normal would be far deeper than the overlap. */
static bool least_inside(const fxs_mesh_query *q, const mesh_edge *e, fxg_vec3 p, int a, int cut, int64_t sep)
{
	if (sep >= 0)
		return true;
	fxg_vec3 d = np_sub(p, q->c);
	for (int c = 0; c < q->nf; ++c) {
		if (c == a || c == cut || !in_cone(e, np_neg(q->n[c]), CONE_TOL))
			continue;
		int64_t pen = np_w2f(q->o[c] - np_dot_w(q->n[c], d));
		if (pen + FXS_NP_ABS_TOL < -sep)
			return false;
	}
	return true;
}

/* The shape edges (as their face pairs) whose crossing with the current
 * mesh edge a mesh-edge-on-face point already stands for. */
typedef struct claimed {
	int n;
	uint8_t f[8][2];
} claimed;

static bool is_claimed(const claimed *cl, int fa, int fb)
{
	for (int i = 0; i < cl->n; ++i)
		if ((cl->f[i][0] == fa && cl->f[i][1] == fb) || (cl->f[i][0] == fb && cl->f[i][1] == fa))
			return true;
	return false;
}

/* Mesh edge e on the shape's faces. */
static void edge_on_faces(const fxs_mesh_query *q, fxs_mesh_sink *k, const mesh_edge *e, claimed *cl)
{
	cl->n = 0;
	fxg_vec3 dm = np_sub(e->mid, q->c);
	for (int a = 0; a < q->nf; ++a) {
		if (fxg_abs64(np_dot_w(q->n[a], e->eu)) > PARALLEL_TOL)
			continue;
		fxg_vec3 nn = np_neg(q->n[a]);
		if (!in_cone(e, nn, CONE_TOL))
			continue;
		/* the edge mid + t eu, |t| <= half, clipped to every other plane */
		int64_t lo = -e->half, hi = e->half;
		int cut_lo = -1, cut_hi = -1; /* the face that moved each end */
		bool empty = false;
		for (int b = 0; b < q->nf && !empty; ++b) {
			if (b == a)
				continue;
			int64_t lim = CLIP_MARGIN - np_w2f(np_dot_w(q->n[b], dm) - q->o[b]);
			int64_t sl = np_dot(q->n[b], e->eu);
			if (sl == 0) {
				empty = lim < 0;
				continue;
			}
			int64_t tb = fxg_div_round64(lim * 65536, sl);
			if (sl > 0 && tb < hi)
				hi = tb, cut_hi = b;
			else if (sl < 0 && tb > lo)
				lo = tb, cut_lo = b;
		}
		if (empty || lo > hi)
			continue;
		for (int end = 0; end < 2; ++end) {
			int cut = end ? cut_hi : cut_lo;
			if (cut < 0 || (end == 1 && cut_lo >= 0 && hi == lo))
				continue;
			fxg_vec3 p = np_madd(e->mid, (fix16_t)(end ? hi : lo), e->eu);
			int64_t sep = np_w2f(np_dot_w(q->n[a], np_sub(p, q->c)) - q->o[a]);
			if (sep > q->speculative || !least_inside(q, e, p, a, cut, sep))
				continue;
			fxs_mesh_hit h;
			h.n = nn;
			h.sep = (fix16_t)sep;
			h.s = (fix16_t)sep; /* how deep the mesh edge is in the shape, as vertex_hit */
			h.point = np_madd(p, (fix16_t)(sep / 2), nn);
			h.id = FXS_MESH_ID_EDGE | FXS_MESH_ID_EDGE_FACE | e->id << 4 | (((uint32_t)a << 1 | (uint32_t)end) & 15);
			fxs_mesh_sink_offer(k, &h);
			if (cl->n < 8) {
				cl->f[cl->n][0] = (uint8_t)a;
				cl->f[cl->n][1] = (uint8_t)cut;
				++cl->n;
			}
		}
	}
}

/* The shape's edges crossing mesh edge e. */
/* Shape edge j lying on mesh face (normal nfc, in-plane outward normal w
 * at the edge; no the other face's normal) where it crosses the edge: the
 * crossing of the segment with the plane through the edge along nfc, at
 * its separation from the face. Edge-edge's axis degenerates there to the
 * face normal (the rim of the mesh edge's cone). An overlap counts while
 * the crossing is inside the wedge and the other face does not separate
 * better (as edge_axis_holds: a shape edge piercing that face far from this
 * one is that face's contact). */
static void rim_hit(const fxs_mesh_query *q, fxs_mesh_sink *k, const mesh_edge *e, int j, fxg_vec3 nfc, fxg_vec3 w,
		    fxg_vec3 no)
{
	fxg_vec3 x0 = q->x[q->ev[j][0]], x1 = q->x[q->ev[j][1]];
	int64_t d0 = np_w2f(np_dot_w(w, np_sub(x0, e->mid))), d1 = np_w2f(np_dot_w(w, np_sub(x1, e->mid)));
	if ((d0 > 0) == (d1 > 0) || d0 == d1)
		return;
	int64_t t = fxg_div_round64(d0 * 65536, d0 - d1); /* in [0, 1] */
	fxg_vec3 p = np_madd(x0, (fix16_t)t, np_sub(x1, x0));
	fxg_vec3 dp = np_sub(p, e->mid);
	if (fxg_abs64(np_dot(e->eu, dp)) >= e->half)
		return;
	int64_t sep = np_dot(nfc, dp);
	if (sep > q->speculative || sep < -(int64_t)e->depth)
		return;
	if (sep < 0 && (np_dot_w(no, dp) > INSIDE_TOL || face_beats(q, k, e, no, sep)))
		return;
	fxs_mesh_hit h;
	h.n = nfc;
	h.sep = (fix16_t)sep;
	h.s = (fix16_t)sep;
	h.point = np_madd(p, (fix16_t) - (sep / 2), nfc);
	h.id = FXS_MESH_ID_EDGE | e->id << 4 | ((uint32_t)j & 15);
	fxs_mesh_sink_offer(k, &h);
}

static void edge_edge(const fxs_mesh_query *q, fxs_mesh_sink *k, const mesh_edge *e, const claimed *cl)
{
	/* Every hit here has its shape point within D = max(speculative, depth)
	 * of the mesh edge's line. Seen along the edge (coordinates along w_f
	 * and n_f, which are across it), a shape edge lies within its half
	 * length of its midpoint: one farther from the line than D + that half
	 * length (plus a margin for rounding) cannot hit. */
	int64_t pu[FXS_HULL_MAX_VERTS], pv[FXS_HULL_MAX_VERTS];
	for (int i = 0; i < q->nx; ++i) {
		fxg_vec3 d = np_sub(q->x[i], e->mid);
		pu[i] = np_dot(e->wf, d);
		pv[i] = np_dot(e->nf, d);
	}
	int64_t reach = fxg_max(q->speculative, e->depth) + FXG_RATIO(1, 256);
	for (int j = 0; j < q->ne; ++j) {
		int64_t mu = (pu[q->ev[j][0]] + pu[q->ev[j][1]]) / 2, mv = (pv[q->ev[j][0]] + pv[q->ev[j][1]]) / 2;
		int64_t lim = reach + q->eh[j];
		if (mu * mu + mv * mv > lim * lim)
			continue;
		int fa = q->ef[j][0], fb = q->ef[j][1];
		if (is_claimed(cl, fa, fb))
			continue;
		fxg_vec3 na = q->n[fa], nb = q->n[fb];
		/* the shape edge lying on one of the mesh edge's faces */
		if (fxg_abs64(np_dot_w(q->eu[j], e->nf)) <= PARALLEL_TOL && in_shape_cone(na, nb, np_neg(e->nf))) {
			rim_hit(q, k, e, j, e->nf, e->wf, e->ng);
			continue;
		}
		if (e->real_g && fxg_abs64(np_dot_w(q->eu[j], e->ng)) <= PARALLEL_TOL && in_shape_cone(na, nb, np_neg(e->ng))) {
			rim_hit(q, k, e, j, e->ng, e->wg, e->nf);
			continue;
		}
		/* arcs (n_f, n_g) of the mesh and (-na, -nb) of the shape cross */
		int cba = -np_sign_dot(na, e->gxf), dba = -np_sign_dot(nb, e->gxf);
		if (cba * dba >= 0)
			continue;
		np_wvec3 dxc = np_cross_w(nb, na);
		int adc = np_sign_dot(e->nf, dxc), bdc = np_sign_dot(e->ng, dxc);
		if (!(adc * bdc < 0 && cba * bdc > 0))
			continue;
		fxg_vec3 ax = np_cross(q->eu[j], e->eu);
		if (np_dot_w(ax, ax) < EDGE_MIN_LEN2)
			continue;
		fxg_vec3 cs = np_mid(q->x[q->ev[j][0]], q->x[q->ev[j][1]]);
		fix16_t s, t;
		np_segments_closest(np_sub(cs, e->mid), q->eu[j], q->eh[j], e->eu, e->half, &s, &t);
		if (s <= -q->eh[j] || s >= q->eh[j] || t <= -e->half || t >= e->half)
			continue;
		fxg_vec3 ps = np_madd(cs, s, q->eu[j]), pm = np_madd(e->mid, t, e->eu);
		fix16_t len;
		fxg_vec3 n = outward(e, np_normalize(ax, &len));
		/* the sign tests decide near-parallel edges (arcs on almost one
		 * great circle) by rounding: the axis itself must lie in both */
		if (!in_cone(e, n, CONE_TOL) || !in_shape_cone(na, nb, np_neg(n)))
			continue;
		int64_t sep = np_w2f(np_dot_w(n, np_sub(ps, pm)));
		if (sep > q->speculative || sep < -(int64_t)e->depth)
			continue;
		if (sep < 0 && ((!inside_shape(q, pm) && !inside_wedge(e, ps)) || !edge_axis_holds(q, k, e, sep)))
			continue;
		fxs_mesh_hit h;
		h.n = n;
		h.sep = (fix16_t)sep;
		h.s = (fix16_t)sep;
		h.point = np_mid(ps, pm);
		h.id = FXS_MESH_ID_EDGE | e->id << 4 | ((uint32_t)j & 15);
		fxs_mesh_sink_offer(k, &h);
	}
}

/* The capsule's side on mesh edge e. */
static void capsule_edge(const fxs_mesh_query *q, fxs_mesh_sink *k, const mesh_edge *e, fix16_t r)
{
	fix16_t s, t;
	np_segments_closest(np_sub(q->c, e->mid), q->u, q->hh, e->eu, e->half, &s, &t);
	if (s <= -q->hh || s >= q->hh || t <= -e->half || t >= e->half)
		return;
	fxg_vec3 ps = np_madd(q->c, s, q->u), pm = np_madd(e->mid, t, e->eu);
	fxg_vec3 d = np_sub(ps, pm), ax = np_cross(q->u, e->eu), n;
	/* the core in front of the edge (not crossing under it) and beyond r +
	 * speculative: nothing (|d| is the distance; cheap before normalising) */
	int64_t reach = (int64_t)r + (q->speculative > 0 ? q->speculative : 0);
	bool in_front = np_dot_w(ax, d) >= 0 ? np_dot_w(ax, np_add(e->nf, e->ng)) >= 0 : np_dot_w(ax, np_add(e->nf, e->ng)) < 0;
	if (in_front && (uint64_t)np_dot_w(d, d) > (uint64_t)(reach * reach))
		return;
	int64_t core;
	fix16_t len;
	if (np_dot_w(ax, ax) >= EDGE_MIN_LEN2) {
		n = outward(e, np_normalize(ax, &len));
		core = np_w2f(np_dot_w(n, d));
	} else {
		n = np_normalize(d, &len);
		if (len == 0)
			return;
		core = len;
	}
	if (!in_cone(e, n, CONE_TOL))
		return;
	int64_t sep = core - r;
	if (sep > q->speculative || core < -(int64_t)e->depth)
		return;
	fxs_mesh_hit h;
	h.n = n;
	h.sep = (fix16_t)sep;
	h.s = (fix16_t)core;
	h.point = np_madd(ps, (fix16_t) - (r + sep / 2), n);
	h.id = FXS_MESH_ID_EDGE | e->id << 4;
	fxs_mesh_sink_offer(k, &h);
}

/* A cylinder's cap (near side sigma: outward normal m = sigma u) on mesh edge
 * e, along the separating axis nc (from the cylinder to the edge, across the
 * edge, within 2.9 degrees of m): the chord where the edge crosses the cap's
 * disk seen along u, clipped to the edge; its two ends are points with the
 * normal -nc, each at its own distance from the cap's plane (as the convex
 * pairs' disk on a segment). False when the edge's line misses the disk. */
static bool cylinder_cap_edge(const fxs_mesh_query *q, fxs_mesh_sink *k, const mesh_edge *e, int sigma, fxg_vec3 nc,
			      fxg_vec3 mc, int64_t tc)
{
	fxg_vec3 m = sigma > 0 ? q->u : np_neg(q->u), n = np_neg(nc);
	fxg_vec3 cap = np_madd(q->c, q->hh, m);
	fxg_vec3 w0 = np_sub(mc, cap);
	w0 = np_madd(w0, -np_dot(w0, q->u), q->u); /* the edge's midpoint seen along u, from the centre */
	fix16_t el;
	fxg_vec3 ep = np_normalize(np_madd(e->eu, -np_dot(e->eu, q->u), q->u), &el); /* its direction seen along u */
	if (el == 0)
		return false;
	int64_t s0 = -(int64_t)np_dot(w0, ep); /* the closest point to the centre, along ep */
	fxg_vec3 v = np_madd(w0, (fix16_t)s0, ep);
	int64_t r2 = (int64_t)q->cr * q->cr, d2 = np_dot_w(v, v);
	if (d2 >= r2)
		return false;
	if (!in_cone(e, n, CONE_TOL))
		return true;
	int64_t hc = (int64_t)fxg_isqrt64_round((uint64_t)(r2 - d2)); /* half the chord */
	int64_t t0 = tc + fxg_div_round64((s0 - hc) * 65536, el), t1 = tc + fxg_div_round64((s0 + hc) * 65536, el);
	t0 = fxg_max(t0, -(int64_t)e->half), t1 = fxg_min(t1, (int64_t)e->half);
	for (int end = 0; end < 2 && t0 <= t1; ++end) {
		if (end == 1 && t1 == t0)
			break;
		fxg_vec3 p = np_madd(e->mid, (fix16_t)(end ? t1 : t0), e->eu);
		int64_t sep = np_w2f(np_dot_w(m, np_sub(p, q->c))) - q->hh;
		if (sep > q->speculative || sep < -(int64_t)e->depth)
			continue;
		fxs_mesh_hit h;
		h.n = n;
		h.sep = (fix16_t)sep;
		h.s = (fix16_t)sep;
		h.point = np_madd(p, (fix16_t) - (sep / 2), m);
		h.id = FXS_MESH_ID_EDGE | e->id << 4 | (uint32_t)(2 + end);
		fxs_mesh_sink_offer(k, &h);
	}
	return true;
}

/* The closest point of an ellipse to a point, in the ellipse's quadrant
 * frame: semi-axes ra along x and rb along y (0 <= rb <= ra, Q16.16), the
 * point (px, py), px >= 0, py >= 0. The answer is the outward normal
 * (c, s) = (cos psi, sin psi), psi in [0, 90] degrees, at which the
 * separation g(psi) = (c, s).(px, py) - sqrt(ra^2 c^2 + rb^2 s^2) of the
 * point from the ellipse is largest: outside the ellipse its distance, inside
 * minus its depth (the foot of the normal through the point in its quadrant
 * is unique). g' = (-s, c).((px, py) - foot) has the sign of
 *   h (c py - s px) + c s (ra^2 - rb^2),  h = sqrt(ra^2 c^2 + rb^2 s^2),
 * which is >= 0 at 0 degrees and <= 0 at 90 and changes sign once between:
 * bisected on unit vectors (normalised sums, no trigonometry) to below the
 * resolution of a Q16.16 unit vector. Integer only, a fixed step count. */
#define ELLIPSE_STEPS 17
static fxg_vec3 ellipse_normal(int64_t ra, int64_t rb, int64_t px, int64_t py)
{
	fxg_vec3 lo = fxg_v3(FXG_ONE, 0, 0), hi = fxg_v3(0, FXG_ONE, 0);
	int64_t dr = (ra * ra - rb * rb) >> 16; /* Q16.16 */
	for (int it = 0; it < ELLIPSE_STEPS; ++it) {
		fix16_t len;
		fxg_vec3 mid = np_normalize(np_add(lo, hi), &len);
		int64_t c = mid.x, s = mid.y;
		int64_t hc = np_w2f(ra * c), hs = np_w2f(rb * s);
		int64_t h = (int64_t)fxg_isqrt64_round((uint64_t)(hc * hc + hs * hs)); /* Q16.16 */
		int64_t g = np_w2f(c * py - s * px) * h + np_w2f(c * s) * dr;
		if (g > 0)
			lo = mid;
		else
			hi = mid;
	}
	fix16_t len;
	return np_normalize(np_add(lo, hi), &len);
}

/* The separation of the cylinder from the edge's line along unit nc (from
 * the cylinder across the edge; d from the centre to a point of the line):
 * nc.d less the cylinder's support along nc, hh |nc.u| + r sqrt(1 - (nc.u)^2) */
static int64_t cylinder_line_sep(const fxs_mesh_query *q, fxg_vec3 nc, fxg_vec3 d)
{
	int64_t nu = np_dot(nc, q->u);
	return np_w2f(np_dot_w(nc, d) - (int64_t)q->hh * fxg_abs64(nu) -
		      (int64_t)q->cr * (int64_t)fxg_isqrt64_round((uint64_t)(((int64_t)1 << 32) - nu * nu)));
}

/* The normal (from the cylinder across the edge) of the largest separation
 * over the edge's cone, the arc from its faces' normals nf to ng: 5 samples,
 * then ELLIPSE_STEPS bisections of the best one's bracket (ties to the
 * earlier). For a rim sunk below its centre, where the side and the rim
 * both bound the cylinder seen along the edge and the best of the whole
 * circle of normals may be the side's outside the cone. False for a
 * knife edge (nf = -ng). */
static bool cone_best_normal(const fxs_mesh_query *q, const mesh_edge *e, fxg_vec3 d, fxg_vec3 *nc)
{
	fxg_vec3 sm[5];
	fix16_t len;
	sm[0] = np_neg(e->nf), sm[4] = np_neg(e->ng);
	sm[2] = np_normalize(np_add(sm[0], sm[4]), &len);
	if (len == 0)
		return false;
	sm[1] = np_normalize(np_add(sm[0], sm[2]), &len);
	sm[3] = np_normalize(np_add(sm[2], sm[4]), &len);
	int kb = 0;
	int64_t fb = INT64_MIN;
	for (int k = 0; k < 5; ++k) {
		int64_t f = cylinder_line_sep(q, sm[k], d);
		if (f > fb)
			fb = f, kb = k;
	}
	fxg_vec3 lo = sm[kb > 0 ? kb - 1 : 0], mid = sm[kb], hi = sm[kb < 4 ? kb + 1 : 4];
	for (int it = 0; it < ELLIPSE_STEPS; ++it) {
		fxg_vec3 m1 = np_normalize(np_add(lo, mid), &len), m2 = np_normalize(np_add(mid, hi), &len);
		int64_t f1 = cylinder_line_sep(q, m1, d), f2 = cylinder_line_sep(q, m2, d);
		if (f1 > fb && f1 >= f2)
			hi = mid, mid = m1, fb = f1;
		else if (f2 > fb)
			lo = mid, mid = m2, fb = f2;
		else
			lo = m1, hi = m2;
	}
	*nc = mid;
	return true;
}

/* A cylinder on mesh edge e: its side, a cap or a rim, whichever the edge
 * meets. Seen along the edge (in the plane across it, axes a = u x e and b =
 * e x a, b.u > 0), the cylinder is the convex hull of its two rims, two
 * ellipses of semi-axes r (along a) and r |u.e| (along b) centred +-hh |u x e|
 * along b, and the edge's line a point P: the largest separation over the
 * normals across the edge is the distance from P to that hull (minus the
 * depth inside it). P level with the side (|P.b| below the rims' centres):
 * the side's, as a capsule's (capsule_edge). Beyond the near rim's centre:
 * that rim's ellipse (ellipse_normal), its point the rim point the normal
 * reaches; an edge parallel to the cap within 2.9 degrees that crosses the
 * cap's disk meets the cap (cylinder_cap_edge: two points, the chord's ends,
 * which a cap standing across a ridge needs), and also level with the side
 * when the cap is where it is less deep. Each contact only with its normal
 * in the edge's cone and its point inside the edge. */
static void cylinder_edge(const fxs_mesh_query *q, fxs_mesh_sink *k, const mesh_edge *e)
{
	fxg_vec3 ue = np_cross(q->u, e->eu);
	if (np_dot_w(ue, ue) < EDGE_MIN_LEN2) {
		capsule_edge(q, k, e, q->cr); /* along the axis: the side */
		return;
	}
	fix16_t sl;
	fxg_vec3 a = np_normalize(ue, &sl);
	fxg_vec3 b = np_cross(e->eu, a);
	int64_t r = q->cr, ce = fxg_abs64(np_dot(q->u, e->eu));
	int64_t hs = np_w2f((int64_t)q->hh * np_dot(b, q->u)); /* the rims' centres along b */
	/* from the centre to the edge's line, across it (mc: the line's point
	 * level with the centre, tc along the edge from its midpoint) */
	int64_t tc = np_dot(np_sub(q->c, e->mid), e->eu);
	tc = fxg_clamp64(tc, -(int64_t)e->half - q->reach, (int64_t)e->half + q->reach);
	fxg_vec3 mc = np_madd(e->mid, (fix16_t)tc, e->eu), d = np_sub(mc, q->c);
	int64_t X = np_dot(d, a), Y = np_dot(d, b);
	int sx = X < 0 ? -1 : 1, sy = Y < 0 ? -1 : 1;
	int64_t xp = fxg_abs64(X), yn = fxg_abs64(Y) - hs; /* from the near rim's centre, outwards */
	int sigma = sy; /* b.u > 0: the near cap is at sy along u */
	const int64_t rb = np_w2f(r * ce);
	fxg_vec3 nc;
	if (yn < 0) {
		/* level with the side: the side's, or the cap's (seen along the
		 * edge, the axis b) where it is less deep, or the near rim's when
		 * it is sunk below its centre and that is the shallower way out */
		if (ce <= CAP_SIN) {
			/* the side's normal (from the edge across the axis) only when
			 * it is in the edge's cone: else the cap, even where deeper */
			fxg_vec3 ns = sx > 0 ? np_neg(a) : a;
			if (!(xp < r && (-yn < r - xp || !in_cone(e, ns, CONE_TOL)) &&
			      cylinder_cap_edge(q, k, e, sigma, sy > 0 ? b : np_neg(b), mc, tc)))
				capsule_edge(q, k, e, q->cr);
			return;
		}
		/* sunk below the near rim's centre: the cone's best normal, a
		 * rim's unless it is the side's */
		if (!cone_best_normal(q, e, d, &nc) || fxg_abs64(np_dot(nc, q->u)) <= CAP_SIN) {
			capsule_edge(q, k, e, q->cr);
			return;
		}
	} else {
		fxg_vec3 n2 = ellipse_normal(r, rb, xp, yn);
		fix16_t len;
		nc = np_normalize(np_add(np_madd(fxg_v3_zero(), (fix16_t)(sx * n2.x), a),
					 np_madd(fxg_v3_zero(), (fix16_t)(sy * n2.y), b)),
				  &len);
	}
	if (!in_cone(e, np_neg(nc), CONE_TOL)) {
		/* the best normal of the whole circle is not the edge's: its
		 * cone's best (a rim's unless the side's). The faces' hits do not
		 * reach it when the rim has sunk past the edge */
		if (!cone_best_normal(q, e, d, &nc))
			return;
		if (fxg_abs64(np_dot(nc, q->u)) <= CAP_SIN) {
			capsule_edge(q, k, e, q->cr);
			return;
		}
	}
	if (fxg_abs64(np_dot(nc, q->u)) >= CAP_COS && cylinder_cap_edge(q, k, e, sigma, nc, mc, tc))
		return;
	fxg_vec3 n = np_neg(nc); /* from the edge to the cylinder */
	if (!in_cone(e, n, CONE_TOL))
		return;
	/* the rim point along nc, and its separation there */
	int64_t nu = np_dot(nc, q->u);
	fix16_t len;
	fxg_vec3 radial = np_normalize(np_madd(nc, (fix16_t)-nu, q->u), &len);
	fxg_vec3 x = np_madd(np_madd(q->c, nu >= 0 ? q->hh : -q->hh, q->u), q->cr, radial);
	int64_t t = np_dot(e->eu, np_sub(x, e->mid));
	if (t <= -e->half || t >= e->half)
		return; /* beyond the edge's ends: its vertices' */
	int64_t sep = cylinder_line_sep(q, nc, d);
	if (sep > q->speculative || sep < -(int64_t)e->depth)
		return;
	fxs_mesh_hit h;
	h.n = n;
	h.sep = (fix16_t)sep;
	h.s = (fix16_t)sep;
	h.point = np_madd(x, (fix16_t)(sep / 2), nc);
	h.id = FXS_MESH_ID_EDGE | e->id << 4 | 1u;
	fxs_mesh_sink_offer(k, &h);
}

/* Whether n (from the mesh towards the shape) lies in vertex vi's cone: no
 * edge from the vertex leans towards n by more than CONE_TOL (a vertex
 * without edges has no cone) */
static bool in_vertex_cone(const fxs_mesh *me, uint32_t vi, fxg_vec3 n)
{
	const fxg_vec3 p = me->verts[vi];
	const uint32_t j0 = me->vnbr_start[vi], j1 = me->vnbr_start[vi + 1];
	if (j0 == j1)
		return false;
	for (uint32_t j = j0; j < j1; ++j) {
		fix16_t l;
		fxg_vec3 dir = np_normalize(np_sub(me->verts[me->vnbr[j]], p), &l);
		if (np_dot_w(n, dir) > CONE_TOL)
			return false;
	}
	return true;
}

/* The segment [a, b] within the shape's bounding sphere grown by the
 * mesh's thickness (a crossing's mesh point may lie up to a face's depth
 * from the shape point it pairs with); a cheap test the bounds let many
 * edges through; squared distances in Q32.32 */
static bool edge_near(const fxs_mesh_query *q, fxg_vec3 a, fxg_vec3 b)
{
	int64_t reach = q->reach + q->me->thickness;
	fxg_vec3 e = np_sub(b, a), d = np_sub(q->c, a);
	int64_t ee = np_dot_w(e, e) >> 16, t = np_w2f(np_dot_w(d, e)); /* Q16.16 (ee >= 0) */
	fxg_vec3 x = d;
	if (t > 0 && ee > 0)
		x = t >= ee ? np_sub(q->c, b) : np_madd(d, (fix16_t)-fxg_div_round64(t * 65536, ee), e);
	return np_dot_w(x, x) <= reach * reach;
}

void fxs_mesh_edge_hits(fxs_mesh_query *q, fxs_mesh_sink *k)
{
	const fxs_mesh *me = q->me;
	const fxs_aabb *sb = &q->sb;
	claimed cl;
	for (uint32_t ci = 0, nc = fxs_mesh_cand_count(q); ci < nc; ++ci) {
		uint32_t fi = fxs_mesh_cand_face(q, ci);
		if (fi == FXS_MESH_NO_FACE || !me->faces[fi].edge_feature)
			continue;
		const fxs_mesh_face *f = &me->faces[fi];
		for (int i = 0; i < 3; ++i) {
			if (!((f->edge_feature >> i) & 1))
				continue;
			fxg_vec3 a = me->verts[f->v[i]], b = me->verts[f->v[(i + 1) % 3]];
			if (fxg_max(a.x, b.x) < sb->lo.x || fxg_min(a.x, b.x) > sb->hi.x || fxg_max(a.y, b.y) < sb->lo.y ||
			    fxg_min(a.y, b.y) > sb->hi.y || fxg_max(a.z, b.z) < sb->lo.z || fxg_min(a.z, b.z) > sb->hi.z)
				continue;
			if (!edge_near(q, a, b))
				continue;
			mesh_edge e;
			if (!edge_setup(me, fi, i, &e))
				continue;
			if (q->type == FXS_SHAPE_CYLINDER) {
				cylinder_edge(q, k, &e);
			} else if (q->type == FXS_SHAPE_CAPSULE) {
				capsule_edge(q, k, &e, q->r);
			} else {
				ready_edges(q);
				edge_on_faces(q, k, &e, &cl);
				edge_edge(q, k, &e, &cl);
			}
		}
	}
}

bool fxs_mesh_capsule_vertex_hit(const fxs_mesh_query *q, uint32_t vi, fix16_t r, fxs_mesh_hit *h)
{
	const fxs_mesh *me = q->me;
	fxg_vec3 p = me->verts[vi];
	int64_t t = np_dot(q->u, np_sub(p, q->c));
	if (t <= -q->hh || t >= q->hh)
		return false; /* an end's: the feature points */
	fxg_vec3 c = np_madd(q->c, (fix16_t)t, q->u);
	fix16_t len;
	fxg_vec3 n = np_normalize(np_sub(c, p), &len);
	int64_t sep = (int64_t)len - r;
	if (len == 0 || sep > q->speculative)
		return false;
	if (!in_vertex_cone(me, vi, n))
		return false;
	h->n = n;
	h->sep = (fix16_t)sep;
	h->s = len;
	h->point = np_madd(c, (fix16_t) - (r + sep / 2), n);
	h->id = FXS_MESH_ID_VERTEX | vi;
	return true;
}

/* A mesh vertex against a cylinder's cap or rim (level with the side and
 * outside it, the side's: fxs_mesh_capsule_vertex_hit). Seen from the cylinder's centre the
 * vertex is at height y along u and at distance rho from the axis; beyond
 * the near cap's plane (|y| > hh) it is off the cap by dy = |y| - hh, and
 * off the side's surface by dr = rho - r: both positive, the rim is nearest
 * (along (dr, dy) in the plane of the axis and the vertex, at that length);
 * else the cap (dy, along the cap's normal), also inside the cylinder where
 * the cap is less deep than the side. The normal must lie in the vertex's
 * cone, as the capsule's. */
bool fxs_mesh_cylinder_vertex_hit(const fxs_mesh_query *q, uint32_t vi, fxs_mesh_hit *h)
{
	const fxs_mesh *me = q->me;
	fxg_vec3 p = me->verts[vi], v = np_sub(p, q->c);
	int64_t y = np_dot(q->u, v);
	fxg_vec3 up = y > 0 ? q->u : np_neg(q->u);
	fix16_t rho;
	fxg_vec3 rad = np_normalize(np_madd(v, (fix16_t)-y, q->u), &rho);
	int64_t dy = fxg_abs64(y) - q->hh, dr = (int64_t)rho - q->cr;
	if (dy < 0 && (dr >= 0 || dr > dy))
		return fxs_mesh_capsule_vertex_hit(q, vi, q->cr, h);
	if (dy < 0)
		dr = 0; /* inside, nearer the cap than the side: the cap's */
	fxg_vec3 n; /* from the cylinder to the vertex */
	int64_t sep;
	if (dr > 0) {
		fix16_t len;
		n = np_normalize(np_add(np_madd(fxg_v3_zero(), (fix16_t)dr, rad), np_madd(fxg_v3_zero(), (fix16_t)dy, up)), &len);
		sep = len;
	} else {
		n = up;
		sep = dy;
	}
	if (sep > q->speculative)
		return false;
	fxg_vec3 nm = np_neg(n); /* from the mesh to the cylinder */
	if (!in_vertex_cone(me, vi, nm))
		return false;
	h->n = nm;
	h->sep = (fix16_t)sep;
	h->s = (fix16_t)sep;
	h->point = np_madd(p, (fix16_t) - (sep / 2), n);
	h->id = FXS_MESH_ID_VERTEX | vi;
	return true;
}
