#include "geometry/hull.h"
#include "state/serialize.h"
#include "world/call_log.h"

#include <stdlib.h>
#include <string.h>

#include "collide/collide_common.h"
#include "world/world.h"

_Static_assert(FXS_HULL_MAX_VERTICES == FXS_HULL_MAX_VERTS, "public and internal vertex caps");

typedef struct {
	int64_t x, y, z;
} iv3;

static iv3 isub(iv3 a, iv3 b) { return (iv3){ a.x - b.x, a.y - b.y, a.z - b.z }; }
static iv3 icross(iv3 a, iv3 b)
{
	return (iv3){ a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x };
}
static int64_t idot(iv3 a, iv3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static int iszero(iv3 a) { return a.x == 0 && a.y == 0 && a.z == 0; }

/* lexicographic (x, y, z) order, then index */
static int lex_less(iv3 a, iv3 b)
{
	if (a.x != b.x)
		return a.x < b.x;
	if (a.y != b.y)
		return a.y < b.y;
	return a.z < b.z;
}

int fxs_hull_build(const fxg_vec3 *pts, int n, fxs_hull *out)
{
	memset(out, 0, sizeof *out);
	if (n < 4 || n > FXS_HULL_MAX_INPUT)
		return FXS_HULL_ERR_COUNT;
	/* grid coordinates: |q| <= 2048, differences <= 2^12, cross products
	 * <= 2^25 per component, plane tests <= 3 * 2^37: int64 is exact */
	iv3 q[FXS_HULL_MAX_INPUT];
	int m = 0;
	for (int i = 0; i < n; ++i) {
		iv3 p = { fxg_shr_round(pts[i].x, FXS_HULL_GRID_SHIFT), fxg_shr_round(pts[i].y, FXS_HULL_GRID_SHIFT),
			  fxg_shr_round(pts[i].z, FXS_HULL_GRID_SHIFT) };
		if (p.x < -FXS_HULL_MAX_COORD || p.x > FXS_HULL_MAX_COORD || p.y < -FXS_HULL_MAX_COORD ||
		    p.y > FXS_HULL_MAX_COORD || p.z < -FXS_HULL_MAX_COORD || p.z > FXS_HULL_MAX_COORD)
			return FXS_HULL_ERR_RANGE;
		int dup = 0;
		for (int j = 0; j < m; ++j)
			if (iszero(isub(q[j], p)))
				dup = 1;
		if (!dup) {
			q[m++] = p;
		}
	}
	if (m < 4)
		return FXS_HULL_ERR_FLAT;

	/* faces found so far: outward normal and one point of the plane */
	iv3 fn[2 * FXS_HULL_MAX_INPUT * 2];
	int fp[2 * FXS_HULL_MAX_INPUT * 2];
	int nf = 0;
	/* polygons, then triangles in input-point indices */
	uint8_t tri[FXS_HULL_MAX_INPUT * 2 * 2][3];
	int nt = 0;
	int used[FXS_HULL_MAX_INPUT] = { 0 };
	int any_volume = 0;
	for (int i = 0; i < m; ++i)
		for (int j = i + 1; j < m; ++j)
			for (int k = j + 1; k < m; ++k) {
				iv3 nrm = icross(isub(q[j], q[i]), isub(q[k], q[i]));
				if (iszero(nrm))
					continue;
				int pos = 0, neg = 0;
				for (int t = 0; t < m; ++t) {
					int64_t s = idot(nrm, isub(q[t], q[i]));
					pos += s > 0;
					neg += s < 0;
				}
				if (pos && neg)
					continue;
				if (!pos && !neg)
					return FXS_HULL_ERR_FLAT;
				any_volume = 1;
				if (pos)
					nrm = (iv3){ -nrm.x, -nrm.y, -nrm.z };
				/* the same plane already emitted? (parallel, same side, coplanar) */
				int seen = 0;
				for (int f = 0; f < nf && !seen; ++f)
					if (iszero(icross(fn[f], nrm)) && idot(fn[f], nrm) > 0 &&
					    idot(fn[f], isub(q[i], q[fp[f]])) == 0)
						seen = 1;
				if (seen)
					continue;
				if (nf >= (int)(sizeof fn / sizeof fn[0]))
					return FXS_HULL_ERR_TOO_MANY;
				fn[nf] = nrm;
				fp[nf++] = i;
				if (nf > FXS_HULL_MAX_FACES)
					return FXS_HULL_ERR_TOO_MANY;
				out->face_tri0[nf - 1] = (uint8_t)(nt < 255 ? nt : 255);
				/* the face polygon: gift wrapping in the plane over its
				 * coplanar points, from the lexicographically least one;
				 * collinear candidates: the farther one (midpoints dropped) */
				int cop[FXS_HULL_MAX_INPUT], nc = 0;
				for (int t = 0; t < m; ++t)
					if (idot(nrm, isub(q[t], q[i])) == 0)
						cop[nc++] = t;
				int start = cop[0];
				for (int c = 1; c < nc; ++c)
					if (lex_less(q[cop[c]], q[start]))
						start = cop[c];
				int poly[FXS_HULL_MAX_INPUT], np = 0, a = start;
				do {
					if (np >= nc)
						return FXS_HULL_ERR_FLAT; /* cannot happen on exact input */
					poly[np++] = a;
					int b = -1;
					for (int c = 0; c < nc; ++c) {
						int cc = cop[c];
						if (cc == a)
							continue;
						if (b < 0) {
							b = cc;
							continue;
						}
						/* c right of a->b (clockwise): take it; collinear: the farther */
						int64_t o = idot(icross(isub(q[b], q[a]), isub(q[cc], q[a])), nrm);
						if (o < 0 || (o == 0 && idot(isub(q[cc], q[a]), isub(q[cc], q[a])) > idot(isub(q[b], q[a]), isub(q[b], q[a]))))
							b = cc;
					}
					a = b;
				} while (a != start);
				for (int t = 1; t + 1 < np; ++t) {
					if (nt >= (int)(sizeof tri / sizeof tri[0]))
						return FXS_HULL_ERR_TOO_MANY;
					tri[nt][0] = (uint8_t)poly[0];
					tri[nt][1] = (uint8_t)poly[t];
					tri[nt][2] = (uint8_t)poly[t + 1];
					++nt;
				}
				for (int t = 0; t < np; ++t)
					used[poly[t]] = 1;
			}
	if (!any_volume)
		return FXS_HULL_ERR_FLAT;
	int remap[FXS_HULL_MAX_INPUT];
	out->n_faces = nf;
	int nv = 0;
	for (int t = 0; t < m; ++t) {
		remap[t] = -1;
		if (!used[t])
			continue;
		if (nv >= FXS_HULL_MAX_VERTS)
			return FXS_HULL_ERR_TOO_MANY;
		remap[t] = nv;
		out->verts[nv++] = fxg_v3((fix16_t)(q[t].x * (1 << FXS_HULL_GRID_SHIFT)),
					  (fix16_t)(q[t].y * (1 << FXS_HULL_GRID_SHIFT)),
					  (fix16_t)(q[t].z * (1 << FXS_HULL_GRID_SHIFT)));
	}
	if (nt > FXS_HULL_MAX_TRIS)
		return FXS_HULL_ERR_TOO_MANY;
	out->face_tri0[nf] = (uint8_t)nt;
	out->n_verts = nv;
	out->n_tris = nt;
	for (int t = 0; t < nt; ++t)
		for (int c = 0; c < 3; ++c)
			out->tris[t][c] = (uint8_t)remap[tri[t][c]];
	return FXS_HULL_OK;
}

/* a - b, saturated and counted (b may be a saturated INT64_MIN) */
static int64_t wsub(int64_t a, int64_t b, uint32_t *ovf)
{
	if (b == INT64_MIN) {
		++*ovf;
		return a < 0 ? fxg_add64(a, INT64_MAX, ovf) : INT64_MAX;
	}
	return fxg_add64(a, -b, ovf);
}

void fxs_hull_mass(const fxs_hull *h, fix16_t density, fxg_wide *mass, fxg_vec3 *com, fxg_wide inertia[6],
		   uint32_t *ovf)
{
	/* grid coordinates relative to vertex 0: |d| <= 2^12 */
	iv3 v[FXS_HULL_MAX_VERTS];
	iv3 o = { h->verts[0].x / (1 << FXS_HULL_GRID_SHIFT), h->verts[0].y / (1 << FXS_HULL_GRID_SHIFT),
		  h->verts[0].z / (1 << FXS_HULL_GRID_SHIFT) };
	for (int i = 0; i < h->n_verts; ++i) {
		iv3 p = { h->verts[i].x / (1 << FXS_HULL_GRID_SHIFT), h->verts[i].y / (1 << FXS_HULL_GRID_SHIFT),
			  h->verts[i].z / (1 << FXS_HULL_GRID_SHIFT) };
		v[i] = isub(p, o);
	}
	/* exact: 6 V (2^-24 m^3 units, <= 2^42 per tet) and 24 x first moment */
	int64_t six_v = 0;
	iv3 mom = { 0, 0, 0 };
	/* second moments about vertex 0 (Q32.32 m^5 times 120): xx yy zz xy xz yz */
	fxg_wide sec[6] = { 0 };
	for (int t = 0; t < h->n_tris; ++t) {
		iv3 a = v[h->tris[t][0]], b = v[h->tris[t][1]], c = v[h->tris[t][2]];
		int64_t d = idot(a, icross(b, c));
		six_v += d;
		iv3 s = { a.x + b.x + c.x, a.y + b.y + c.y, a.z + b.z + c.z };
		mom.x += d * s.x;
		mom.y += d * s.y;
		mom.z += d * s.z;
		/* tet (0, a, b, c): integral(x_i x_j) = d / 120 (sum_v v_i v_j + s_i s_j) */
		int64_t p[6] = {
			a.x * a.x + b.x * b.x + c.x * c.x + s.x * s.x,
			a.y * a.y + b.y * b.y + c.y * c.y + s.y * s.y,
			a.z * a.z + b.z * b.z + c.z * c.z + s.z * s.z,
			a.x * a.y + b.x * b.y + c.x * c.y + s.x * s.y,
			a.x * a.z + b.x * b.z + c.x * c.z + s.x * s.z,
			a.y * a.z + b.y * b.z + c.y * c.z + s.y * s.z,
		};
		/* d: 2^-24 m^3 -> Q32.32 is * 2^8; p: 2^-16 m^2 -> Q32.32 is * 2^16 */
		for (int e = 0; e < 6; ++e)
			sec[e] = fxg_add64(sec[e], fxg_wmul_wide(d * 256, p[e] * 65536, ovf), ovf);
	}
	fxg_wide rho = fxg_wide_from_fix(density);
	fxg_wide vol = fxg_wide_div(six_v * 256, (fxg_wide)6 * FXG_WIDE_ONE, ovf); /* Q32.32 m^3 */
	*mass = fxg_wmul_wide(rho, vol, ovf);
	/* centre offset in metres, Q32.32: mom / (4 6V) grid units / 256,
	 * one rounding (4 6V 256 <= 2^49) */
	int64_t den = 4 * six_v * 256;
	fxg_wide cx = fxg_wide_div(mom.x, den, ovf), cy = fxg_wide_div(mom.y, den, ovf),
		 cz = fxg_wide_div(mom.z, den, ovf);
	/* second moments about the centre: S - V c c^T (Q32.32 m^5) */
	fxg_wide c3[3] = { cx, cy, cz };
	fxg_wide S[6];
	static const int ei[6] = { 0, 1, 2, 0, 0, 1 }, ej[6] = { 0, 1, 2, 1, 2, 2 };
	for (int e = 0; e < 6; ++e) {
		S[e] = fxg_wide_div(sec[e], (fxg_wide)120 * FXG_WIDE_ONE, ovf);
		S[e] = wsub(S[e], fxg_wmul_wide(vol, fxg_wmul_wide(c3[ei[e]], c3[ej[e]], ovf), ovf), ovf);
	}
	/* rho - the products of inertia are -rho S: negating rho (>= -2^47)
	 * cannot overflow, so no saturated INT64_MIN is ever negated */
	inertia[0] = fxg_wmul_wide(rho, fxg_add64(S[1], S[2], ovf), ovf);
	inertia[1] = fxg_wmul_wide(rho, fxg_add64(S[0], S[2], ovf), ovf);
	inertia[2] = fxg_wmul_wide(rho, fxg_add64(S[0], S[1], ovf), ovf);
	inertia[3] = fxg_wmul_wide(-rho, S[3], ovf);
	inertia[4] = fxg_wmul_wide(-rho, S[4], ovf);
	inertia[5] = fxg_wmul_wide(-rho, S[5], ovf);
	*com = fxg_v3(fxg_add(h->verts[0].x, fxg_wide_to_fix(cx, ovf), ovf),
		      fxg_add(h->verts[0].y, fxg_wide_to_fix(cy, ovf), ovf),
		      fxg_add(h->verts[0].z, fxg_wide_to_fix(cz, ovf), ovf));
}

/* ---- collision geometry ---- */

/* edges from the face polygons: edge (a, b) with a < b is created by the face
 * that runs a -> b; the face that runs b -> a is its second face (then the
 * stored direction is b -> a... kept as a -> b, see the header: edge_v[0] ->
 * edge_v[1] runs counter-clockwise in edge_f[0]) */
static void geom_edges(fxs_hull_geom *g, bool box)
{
	int ne = 0;
	for (int f = 0; f < g->n_faces; ++f) {
		int s = g->face_start[f], e = g->face_start[f + 1];
		for (int k = s; k < e; ++k) {
			int a = g->face_verts[k], b = g->face_verts[k + 1 < e ? k + 1 : s];
			int found = -1;
			for (int i = 0; i < ne; ++i)
				if (g->edge_v[i][0] == b && g->edge_v[i][1] == a)
					found = i;
			if (found >= 0) {
				g->edge_f[found][1] = (uint8_t)f;
				continue;
			}
			if (ne >= FXS_HULL_MAX_EDGES)
				continue; /* cannot happen: a closed polytope has 3V - 6 at most */
			g->edge_v[ne][0] = (uint8_t)a;
			g->edge_v[ne][1] = (uint8_t)b;
			g->edge_f[ne][0] = (uint8_t)f;
			g->edge_f[ne][1] = (uint8_t)f;
			fxg_vec3 d = np_sub(g->v[b], g->v[a]);
			if (box) { /* axis-aligned: exact, no square root */
				fix16_t l = d.x ? d.x : (d.y ? d.y : d.z);
				g->edge_len[ne] = l < 0 ? -l : l;
				g->edge_u[ne] = fxg_v3(d.x > 0 ? FXG_ONE : (d.x < 0 ? -FXG_ONE : 0),
						       d.y > 0 ? FXG_ONE : (d.y < 0 ? -FXG_ONE : 0),
						       d.z > 0 ? FXG_ONE : (d.z < 0 ? -FXG_ONE : 0));
			} else {
				g->edge_u[ne] = np_normalize(d, &g->edge_len[ne]);
			}
			++ne;
		}
	}
	g->n_edges = ne;
	g->lo = g->hi = g->v[0];
	for (int i = 1; i < g->n_verts; ++i) {
		fxg_vec3 p = g->v[i];
		g->lo = fxg_v3(p.x < g->lo.x ? p.x : g->lo.x, p.y < g->lo.y ? p.y : g->lo.y, p.z < g->lo.z ? p.z : g->lo.z);
		g->hi = fxg_v3(p.x > g->hi.x ? p.x : g->hi.x, p.y > g->hi.y ? p.y : g->hi.y, p.z > g->hi.z ? p.z : g->hi.z);
	}
	for (int f = 0; f < g->n_faces; ++f)
		g->o[f] = np_dot_w(g->n[f], g->v[g->face_verts[g->face_start[f]]]);
}

void fxs_hull_geom_build(const fxs_hull *h, fxg_vec3 com, fxs_hull_geom *g)
{
	memset(g, 0, sizeof *g);
	g->n_verts = h->n_verts;
	g->n_faces = h->n_faces;
	for (int i = 0; i < h->n_verts; ++i)
		g->v[i] = np_sub(h->verts[i], com);
	int nfv = 0;
	for (int f = 0; f < h->n_faces; ++f) {
		int t0 = h->face_tri0[f], t1 = h->face_tri0[f + 1];
		g->face_start[f] = (uint8_t)nfv;
		g->face_verts[nfv++] = h->tris[t0][0];
		for (int t = t0; t < t1; ++t)
			g->face_verts[nfv++] = h->tris[t][1];
		g->face_verts[nfv++] = h->tris[t1 - 1][2];
		/* the normal from the grid points (exact cross product, |c| < 2^26) */
		const uint8_t *tr = h->tris[t0];
		iv3 p0 = { h->verts[tr[0]].x >> FXS_HULL_GRID_SHIFT, h->verts[tr[0]].y >> FXS_HULL_GRID_SHIFT,
			   h->verts[tr[0]].z >> FXS_HULL_GRID_SHIFT };
		iv3 p1 = { h->verts[tr[1]].x >> FXS_HULL_GRID_SHIFT, h->verts[tr[1]].y >> FXS_HULL_GRID_SHIFT,
			   h->verts[tr[1]].z >> FXS_HULL_GRID_SHIFT };
		iv3 p2 = { h->verts[tr[2]].x >> FXS_HULL_GRID_SHIFT, h->verts[tr[2]].y >> FXS_HULL_GRID_SHIFT,
			   h->verts[tr[2]].z >> FXS_HULL_GRID_SHIFT };
		iv3 c = icross(isub(p1, p0), isub(p2, p0));
		fix16_t len;
		g->n[f] = np_normalize(fxg_v3((fix16_t)c.x, (fix16_t)c.y, (fix16_t)c.z), &len);
	}
	g->face_start[h->n_faces] = (uint8_t)nfv;
	geom_edges(g, false);
}

void fxs_hull_geom_box(fxg_vec3 e, fxs_hull_geom *g)
{
	/* faces +x, -x, +y, -y, +z, -z; vertex bit k: negative on axis k */
	static const uint8_t fv[6][4] = { { 0, 2, 6, 4 }, { 1, 5, 7, 3 }, { 0, 4, 5, 1 }, { 2, 3, 7, 6 }, { 0, 1, 3, 2 }, { 4, 6, 7, 5 } };
	g->n_verts = 8;
	g->n_faces = 6;
	for (int i = 0; i < 8; ++i)
		g->v[i] = fxg_v3(i & 1 ? -e.x : e.x, i & 2 ? -e.y : e.y, i & 4 ? -e.z : e.z);
	for (int f = 0; f < 6; ++f) {
		g->face_start[f] = (uint8_t)(4 * f);
		for (int k = 0; k < 4; ++k)
			g->face_verts[4 * f + k] = fv[f][k];
		fix16_t s = f & 1 ? -FXG_ONE : FXG_ONE;
		g->n[f] = fxg_v3(f / 2 == 0 ? s : 0, f / 2 == 1 ? s : 0, f / 2 == 2 ? s : 0);
	}
	g->face_start[6] = 24;
	geom_edges(g, true);
}

/* ---- the world's hulls ---- */

const fxs_world_hull *fxs_world_get_hull(const fxs_world *w, uint32_t id)
{
	return w && id >= 1 && id <= w->hull_count ? w->hulls[id - 1] : NULL;
}

void fxs_hulls_free(fxs_world *w)
{
	for (uint32_t i = 0; i < w->hull_count; ++i)
		free(w->hulls[i]);
	free(w->hulls);
	w->hulls = NULL;
	w->hull_count = w->hull_cap = 0;
}

/* build from points; NULL on bad input or no memory (*nomem says which) */
static fxs_world_hull *make_hull(const fxg_vec3 *pts, int n, bool *nomem, int *code)
{
	fxs_world_hull *h = malloc(sizeof *h);
	*nomem = !h;
	if (!h)
		return NULL;
	if ((*code = fxs_hull_build(pts, n, &h->src)) != FXS_HULL_OK) {
		free(h);
		return NULL;
	}
	fxg_wide mass, inertia[6];
	uint32_t ovf = 0;
	fxs_hull_mass(&h->src, FXG_ONE, &mass, &h->com, inertia, &ovf);
	fxs_hull_geom_build(&h->src, h->com, &h->g);
	return h;
}

static bool add_hull(fxs_world *w, fxs_world_hull *h)
{
	if (w->hull_count == w->hull_cap) {
		uint32_t cap = w->hull_cap ? w->hull_cap * 2 : 4;
		fxs_world_hull **nh = realloc(w->hulls, (size_t)cap * sizeof *nh);
		if (!nh)
			return false;
		w->hulls = nh;
		w->hull_cap = cap;
	}
	w->hulls[w->hull_count++] = h;
	return true;
}

fxs_hull_id fxs_world_create_hull(fxs_world *w, const fxg_vec3 *pts, uint32_t n, fxg_vec3 *com)
{
	FXS_CALL_LOG(w, FXS_OP_WORLD_CREATE_HULL, pts, n);
	if (!w)
		return 0;
	if (!pts || n > FXS_HULL_MAX_INPUT || n < 4)
		return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT, "hull: %s", pts ? "4 to 64 points" : "points NULL"), 0;
	if (w->hull_count >= FXS_MAX_HULLS)
		return fxs_world_fail(w, FXS_ERR_LIMIT, "the world has 65536 hulls"), 0;
	bool nomem;
	int code = FXS_HULL_OK;
	fxs_world_hull *h = make_hull(pts, (int)n, &nomem, &code);
	if (!h)
		return fxs_world_fail(w, nomem ? FXS_ERR_NOMEM : FXS_ERR_INVALID_ARGUMENT, "%s",
				      nomem                                   ? "out of memory"
					      : code == FXS_HULL_ERR_RANGE    ? "hull: a point beyond 8 m of the origin"
					      : code == FXS_HULL_ERR_FLAT     ? "hull: the points are flat (no volume)"
					      : code == FXS_HULL_ERR_TOO_MANY ? "hull: it would have more than 32 vertices"
									      : "hull: 4 to 64 points"),
		       0;
	if (!add_hull(w, h)) {
		free(h);
		return fxs_world_fail(w, FXS_ERR_NOMEM, "out of memory"), 0;
	}
	if (com)
		*com = h->com;
	fxs_world_touch(w);
	fxs_world_ok(w);
	return w->hull_count;
}

fxs_shape fxs_hull_shape(const fxs_world *w, fxs_hull_id id)
{
	fxs_shape s;
	memset(&s, 0, sizeof s);
	s.type = FXS_SHAPE_HULL;
	s.hull = fxs_world_get_hull(w, id);
	s.hull_id = s.hull ? id : 0;
	return s;
}

uint32_t fxs_world_hull_count(const fxs_world *w) { return w ? w->hull_count : 0; }

uint32_t fxs_hull_vertex_count(const fxs_world *w, fxs_hull_id id)
{
	const fxs_world_hull *h = fxs_world_get_hull(w, id);
	return h ? (uint32_t)h->g.n_verts : 0;
}

uint32_t fxs_hull_get_vertices(const fxs_world *w, fxs_hull_id id, fxg_vec3 *out, uint32_t cap)
{
	const fxs_world_hull *h = fxs_world_get_hull(w, id);
	if (!h)
		return 0;
	for (uint32_t i = 0; out && i < cap && i < (uint32_t)h->g.n_verts; ++i)
		out[i] = h->g.v[i];
	return (uint32_t)h->g.n_verts;
}

#define HULL_MAGIC 0x4C4C5548u /* "HULL" little-endian */

void fxs_hulls_write(const fxs_world *w, fxs_writer *wr)
{
	if (w->hull_count == 0)
		return;
	fxs_write_u32(wr, HULL_MAGIC);
	fxs_write_u32(wr, w->hull_count);
	for (uint32_t i = 0; i < w->hull_count; ++i) {
		const fxs_hull *h = &w->hulls[i]->src;
		fxs_write_u32(wr, (uint32_t)h->n_verts);
		for (int k = 0; k < h->n_verts; ++k)
			fxs_write_vec3(wr, h->verts[k]);
	}
	for (uint32_t s = 0; s < w->slot_count; ++s) {
		const fxs_body *b = &w->bodies[s];
		if (b->alive && b->shape.type == FXS_SHAPE_HULL)
			fxs_write_u32(wr, b->shape.hull_id);
	}
}

bool fxs_hulls_read(fxs_world *w, fxs_reader *r)
{
	bool any = false;
	for (uint32_t s = 0; s < w->slot_count; ++s)
		any |= w->bodies[s].alive && w->bodies[s].shape.type == FXS_SHAPE_HULL;
	if (r->len - r->pos < 4)
		return !any;
	const uint8_t *q = r->buf + r->pos;
	uint32_t magic = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
	if (magic != HULL_MAGIC)
		return !any;
	fxs_read_u32(r);
	uint32_t count = fxs_read_u32(r);
	if (r->err != FXS_OK || count == 0 || count > FXS_MAX_HULLS || count > (r->len - r->pos) / 52)
		return false;
	for (uint32_t i = 0; i < count; ++i) {
		uint32_t nv = fxs_read_u32(r);
		if (r->err != FXS_OK || nv < 4 || nv > FXS_HULL_MAX_VERTS)
			return false;
		fxg_vec3 v[FXS_HULL_MAX_VERTS];
		for (uint32_t k = 0; k < nv; ++k)
			v[k] = fxs_read_vec3(r);
		if (r->err != FXS_OK)
			return false;
		bool nomem;
		int code;
		fxs_world_hull *h = make_hull(v, (int)nv, &nomem, &code);
		/* the stored points must be exactly a hull this kernel builds */
		bool ok = h && h->src.n_verts == (int32_t)nv;
		for (uint32_t k = 0; ok && k < nv; ++k)
			ok = h->src.verts[k].x == v[k].x && h->src.verts[k].y == v[k].y && h->src.verts[k].z == v[k].z;
		if (ok && !add_hull(w, h))
			nomem = true, ok = false;
		if (nomem) /* not the input's fault: say so */
			fxs_reader_fail(r, FXS_ERR_NOMEM);
		if (!ok) {
			free(h);
			return false;
		}
	}
	for (uint32_t s = 0; s < w->slot_count; ++s) {
		fxs_body *b = &w->bodies[s];
		if (!b->alive || b->shape.type != FXS_SHAPE_HULL)
			continue;
		uint32_t id = fxs_read_u32(r);
		if (r->err != FXS_OK || id < 1 || id > w->hull_count)
			return false;
		b->shape.hull_id = id;
		b->shape.hull = w->hulls[id - 1];
		fxs_body_update_mass(b);
		uint32_t ovf = 0;
		b->aabb = fxs_body_compute_aabb(b, &ovf);
	}
	return r->err == FXS_OK;
}
