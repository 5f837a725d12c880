/* Static triangle meshes: storage, adjacency, seed 003 thickness regions, and
 * the geometry section of the state. See mesh.h for the region's definition.
 *
 * Defects of the seed text fixed here:
 *   - the bottom cap is part of the region (tested), so a body wholly behind
 *     the slab is not reported;
 *   - no angles and no Cramer solve for the apex: walls are bisector planes
 *     built from normals (e x (n + n')), the half-space form handles the
 *     tetrahedron and frustum cases alike and cannot blow up when
 *     neighbouring walls are near parallel;
 *   - a shared wall is computed once (lower face id) and negated for the
 *     other face, so rounding cannot open a crack between two regions;
 *   - thin features (Fig. 12): a face's depth is clamped to half the distance
 *     to any back-facing part of the mesh found behind it, so a slab never
 *     reaches through a thin wall to capture bodies on its far side;
 *   - contact against the region is exact in front of the face (closest
 *     point on the triangle), the face-normal push-out applies only behind it.
 * Integer only. */
#include "geometry/mesh.h"
#include "world/call_log.h"
#include "collide/collide_common.h"
#include "geometry/shape.h"

#include <stdlib.h>
#include <string.h>

/* Unit vector along an int64 vector (components below 2^62). */
static fxg_vec3 unit_wide(int64_t x, int64_t y, int64_t z)
{
	int64_t mx = fxg_abs64(x);
	if (fxg_abs64(y) > mx)
		mx = fxg_abs64(y);
	if (fxg_abs64(z) > mx)
		mx = fxg_abs64(z);
	if (mx == 0)
		return fxg_v3_zero();
	int sh = 0;
	while ((mx >> sh) >= ((int64_t)1 << 28))
		++sh;
	int up = 0;
	while (sh == 0 && (mx << up) < ((int64_t)1 << 27))
		++up;
	fix16_t len;
	if (sh > 0) { /* division, not >>: x may be negative (no implementation-defined shifts) */
		int64_t dv = (int64_t)1 << sh;
		return np_normalize(fxg_v3((fix16_t)(x / dv), (fix16_t)(y / dv), (fix16_t)(z / dv)), &len);
	}
	return np_normalize(fxg_v3((fix16_t)(x * ((int64_t)1 << up)), (fix16_t)(y * ((int64_t)1 << up)),
				   (fix16_t)(z * ((int64_t)1 << up))),
			    &len);
}

/* a x b of two Q16.16 vectors as int64 components (Q32.32). */
static void cross_w(fxg_vec3 a, fxg_vec3 b, int64_t out[3])
{
	out[0] = (int64_t)a.y * b.z - (int64_t)a.z * b.y;
	out[1] = (int64_t)a.z * b.x - (int64_t)a.x * b.z;
	out[2] = (int64_t)a.x * b.y - (int64_t)a.y * b.x;
}

bool fxs_mesh_in_prism(const fxs_mesh_face *f, fxg_vec3 x)
{
	for (int i = 0; i < 3; ++i)
		if (np_dot_w(f->m[i], x) > f->mo[i])
			return false;
	return true;
}

typedef struct half_edge {
	uint64_t key; /* min vertex << 32 | max vertex */
	uint32_t tri, edge;
} half_edge;

static int cmp_half_edge(const void *pa, const void *pb)
{
	const half_edge *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->tri != b->tri)
		return a->tri < b->tri ? -1 : 1;
	return (a->edge > b->edge) - (a->edge < b->edge);
}

/* The wall of edge i of face f: bisector with the neighbour g (or
 * perpendicular at a boundary), outward from f. */
static void edge_wall(const fxs_mesh *me, const fxs_mesh_face *f, int i, const fxs_mesh_face *g, fxg_vec3 *m,
		      int64_t *mo)
{
	fxg_vec3 a = me->verts[f->v[i]], b = me->verts[f->v[(i + 1) % 3]], c = me->verts[f->v[(i + 2) % 3]];
	fxg_vec3 e = np_sub(b, a);
	fxg_vec3 s = f->n;
	if (g) {
		fxg_vec3 sum = np_add(f->n, g->n);
		/* faces folded onto each other (a zero-thickness sheet): no bisector */
		if (np_dot_w(sum, sum) >= ((int64_t)1 << 26))
			s = sum;
	}
	int64_t w[3];
	cross_w(e, s, w);
	fxg_vec3 u = unit_wide(w[0], w[1], w[2]);
	if (np_dot_w(u, np_sub(c, a)) > 0)
		u = np_neg(u);
	*m = u;
	/* offset through the edge's lower-index vertex: the same for both faces */
	fxg_vec3 p = f->v[i] < f->v[(i + 1) % 3] ? a : b;
	*mo = np_dot_w(u, p);
}

static fxs_aabb tri_box(const fxs_mesh *me, const fxs_mesh_face *f, fix16_t grow)
{
	fxg_vec3 p0 = me->verts[f->v[0]], p1 = me->verts[f->v[1]], p2 = me->verts[f->v[2]];
	fxs_aabb b;
	b.lo = fxg_v3(fxg_min(p0.x, fxg_min(p1.x, p2.x)) - grow, fxg_min(p0.y, fxg_min(p1.y, p2.y)) - grow,
		      fxg_min(p0.z, fxg_min(p1.z, p2.z)) - grow);
	b.hi = fxg_v3(fxg_max(p0.x, fxg_max(p1.x, p2.x)) + grow, fxg_max(p0.y, fxg_max(p1.y, p2.y)) + grow,
		      fxg_max(p0.z, fxg_max(p1.z, p2.z)) + grow);
	return b;
}

/* Fig. 12 fix: clamp each face's depth to half the distance to any
 * back-facing triangle behind it (sampled at its vertices, edge midpoints and
 * centroid), so that two slabs of a thin wall neither overlap nor poke out.
 * The result is a minimum over the samples (a sample moves the depth only
 * down, to max(h / 2, 1)), so the order the triangles are visited in does
 * not matter: they are swept in order of their boxes' low x (sorted, fully
 * keyed), which makes a large mesh (a heightfield) near-linear instead of
 * quadratic. */
static void clamp_face(fxs_mesh *me, fxs_mesh_face *f, uint32_t fi, const fxs_mesh_face *g, uint32_t gi,
		       const fxs_aabb *reach, const fxs_aabb *gb)
{
	if (gi == fi || !fxs_aabb_overlap(reach, gb) || np_dot_w(f->n, g->n) >= 0)
		return;
	fxg_vec3 p[3] = { me->verts[g->v[0]], me->verts[g->v[1]], me->verts[g->v[2]] };
	fxg_vec3 samples[7] = { p[0], p[1], p[2], np_mid(p[0], p[1]), np_mid(p[1], p[2]), np_mid(p[2], p[0]),
				fxg_v3((fix16_t)(((int64_t)p[0].x + p[1].x + p[2].x) / 3),
				       (fix16_t)(((int64_t)p[0].y + p[1].y + p[2].y) / 3),
				       (fix16_t)(((int64_t)p[0].z + p[1].z + p[2].z) / 3)) };
	for (int k = 0; k < 7; ++k) {
		if (!fxs_mesh_in_prism(f, samples[k]))
			continue;
		int64_t h = np_w2f(f->o - np_dot_w(f->n, samples[k])); /* depth behind f */
		if (h > 0 && h < 2 * (int64_t)f->depth)
			f->depth = (fix16_t)(h / 2 > 1 ? h / 2 : 1);
	}
}

typedef struct sweep_item {
	fix16_t lo_x;
	uint32_t tri;
} sweep_item;

static int cmp_sweep(const void *pa, const void *pb)
{
	const sweep_item *a = pa, *b = pb;
	if (a->lo_x != b->lo_x)
		return a->lo_x < b->lo_x ? -1 : 1;
	return (a->tri > b->tri) - (a->tri < b->tri);
}

static void clamp_depths(fxs_mesh *me)
{
	uint32_t n = me->ntris;
	fxs_aabb *boxes = malloc((size_t)n * sizeof *boxes);
	sweep_item *order = malloc((size_t)n * sizeof *order);
	if (!boxes || !order) { /* the plain quadratic loop: the same depths */
		for (uint32_t fi = 0; fi < n; ++fi) {
			fxs_aabb reach = tri_box(me, &me->faces[fi], 2 * me->thickness);
			for (uint32_t gi = 0; gi < n; ++gi) {
				fxs_aabb gb = tri_box(me, &me->faces[gi], 0);
				clamp_face(me, &me->faces[fi], fi, &me->faces[gi], gi, &reach, &gb);
			}
		}
		free(boxes);
		free(order);
		return;
	}
	int64_t widest = 0;
	for (uint32_t t = 0; t < n; ++t) {
		boxes[t] = tri_box(me, &me->faces[t], 0);
		order[t] = (sweep_item){ boxes[t].lo.x, t };
		int64_t w = (int64_t)boxes[t].hi.x - boxes[t].lo.x;
		widest = w > widest ? w : widest;
	}
	qsort(order, n, sizeof *order, cmp_sweep);
	for (uint32_t fi = 0; fi < n; ++fi) {
		fxs_mesh_face *f = &me->faces[fi];
		fxs_aabb reach = tri_box(me, f, 2 * me->thickness);
		/* boxes overlapping reach in x have lo.x in [reach.lo.x - widest, reach.hi.x] */
		int64_t from = (int64_t)reach.lo.x - widest;
		uint32_t lo = 0, hi = n;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if ((int64_t)order[mid].lo_x < from)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint32_t k = lo; k < n && order[k].lo_x <= reach.hi.x; ++k) {
			uint32_t gi = order[k].tri;
			clamp_face(me, f, fi, &me->faces[gi], gi, &reach, &boxes[gi]);
		}
	}
	free(boxes);
	free(order);
}

/* Which edges of face t are contact features it owns (mesh.h): boundary
 * edges, and shared edges with a higher face id that are convex (the
 * neighbour's far vertex lies behind t's plane) and not flat. */
static uint8_t feature_edges(const fxs_mesh *me, uint32_t t)
{
	const fxs_mesh_face *f = &me->faces[t];
	uint8_t mask = 0;
	for (int i = 0; i < 3; ++i) {
		uint32_t gi = f->adj[i];
		if (gi == FXS_MESH_NO_FACE) {
			mask |= (uint8_t)(1u << i);
			continue;
		}
		if (gi < t)
			continue;
		const fxs_mesh_face *g = &me->faces[gi];
		if (np_dot_w(f->n, g->n) >= FXS_MESH_FLAT_DOT)
			continue;
		int k = g->adj[0] == t ? 0 : (g->adj[1] == t ? 1 : 2);
		fxg_vec3 far = me->verts[g->v[(k + 2) % 3]];
		if (np_dot_w(f->n, far) < f->o)
			mask |= (uint8_t)(1u << i);
	}
	return mask;
}

/* Vertex neighbour lists from the sorted half-edges (each edge once by its
 * key; keys ascending, so every list comes out ascending). */
static bool build_neighbours(fxs_mesh *me, const half_edge *he)
{
	size_t nh = (size_t)me->ntris * 3;
	me->vnbr_start = calloc((size_t)me->nverts + 1, sizeof *me->vnbr_start);
	me->vnbr = malloc((nh * 2 + 1) * sizeof *me->vnbr);
	if (!me->vnbr_start || !me->vnbr)
		return false;
	for (size_t i = 0; i < nh; ++i) {
		if (i > 0 && he[i].key == he[i - 1].key)
			continue;
		me->vnbr_start[(uint32_t)(he[i].key >> 32) + 1]++;
		me->vnbr_start[(uint32_t)he[i].key + 1]++;
	}
	for (uint32_t v = 0; v < me->nverts; ++v)
		me->vnbr_start[v + 1] += me->vnbr_start[v];
	uint32_t *fill = malloc(((size_t)me->nverts + 1) * sizeof *fill);
	if (!fill)
		return false;
	memcpy(fill, me->vnbr_start, (size_t)me->nverts * sizeof *fill);
	for (size_t i = 0; i < nh; ++i) {
		if (i > 0 && he[i].key == he[i - 1].key)
			continue;
		uint32_t a = (uint32_t)(he[i].key >> 32), b = (uint32_t)he[i].key;
		me->vnbr[fill[a]++] = b;
		me->vnbr[fill[b]++] = a;
	}
	free(fill);
	return true;
}

fxs_mesh *fxs_mesh_build(const fxg_vec3 *verts, uint32_t nverts, const uint32_t *tris, uint32_t ntris,
			 fix16_t thickness, bool *nomem)
{
	bool oom_ = false, *oom = nomem ? nomem : &oom_;
	*oom = false;
	if (!verts || !tris || nverts < 3 || nverts > FXS_MESH_MAX_VERTS || ntris < 1 || ntris > FXS_MESH_MAX_TRIS)
		return NULL;
	if (thickness <= 0 || thickness > FXS_SHAPE_MAX_SIZE)
		return NULL;
	for (uint32_t i = 0; i < nverts; ++i) {
		fxg_vec3 v = verts[i];
		if (fxg_abs64(v.x) > FXS_MESH_MAX_COORD || fxg_abs64(v.y) > FXS_MESH_MAX_COORD ||
		    fxg_abs64(v.z) > FXS_MESH_MAX_COORD)
			return NULL;
	}
	fxs_mesh *me = calloc(1, sizeof *me);
	if (!me) {
		*oom = true;
		return NULL;
	}
	me->thickness = thickness;
	me->nverts = nverts;
	me->ntris = ntris;
	me->verts = malloc((size_t)nverts * sizeof *me->verts);
	me->faces = calloc(ntris, sizeof *me->faces);
	half_edge *he = malloc((size_t)ntris * 3 * sizeof *he);
	if (!me->verts || !me->faces || !he) {
		*oom = true;
		goto fail;
	}
	memcpy(me->verts, verts, (size_t)nverts * sizeof *me->verts);
	for (uint32_t t = 0; t < ntris; ++t) {
		fxs_mesh_face *f = &me->faces[t];
		for (int i = 0; i < 3; ++i) {
			f->v[i] = tris[3 * (size_t)t + (size_t)i];
			f->adj[i] = FXS_MESH_NO_FACE;
			if (f->v[i] >= nverts)
				goto fail;
		}
		if (f->v[0] == f->v[1] || f->v[1] == f->v[2] || f->v[2] == f->v[0])
			goto fail;
		int64_t c[3];
		cross_w(np_sub(verts[f->v[1]], verts[f->v[0]]), np_sub(verts[f->v[2]], verts[f->v[0]]), c);
		/* |c| is twice the area (Q32.32): reject slivers under 2^-16 m^2 */
		if (fxg_abs64(c[0]) + fxg_abs64(c[1]) + fxg_abs64(c[2]) < ((int64_t)1 << 16))
			goto fail;
		f->n = unit_wide(c[0], c[1], c[2]);
		f->o = np_dot_w(f->n, verts[f->v[0]]);
		f->depth = thickness;
		for (int i = 0; i < 3; ++i) {
			uint32_t a = f->v[i], b = f->v[(i + 1) % 3];
			he[3 * (size_t)t + (size_t)i] =
				(half_edge){ a < b ? ((uint64_t)a << 32) | b : ((uint64_t)b << 32) | a, t, (uint32_t)i };
		}
	}
	/* adjacency: sorted half-edges (fully keyed, so canonical); an edge used
	 * by exactly two faces in opposite directions joins them */
	qsort(he, (size_t)ntris * 3, sizeof *he, cmp_half_edge);
	for (size_t i = 0; i < (size_t)ntris * 3;) {
		size_t j = i + 1;
		while (j < (size_t)ntris * 3 && he[j].key == he[i].key)
			++j;
		if (j - i == 2 && he[i].tri != he[i + 1].tri) {
			fxs_mesh_face *f = &me->faces[he[i].tri], *g = &me->faces[he[i + 1].tri];
			if (f->v[he[i].edge] == g->v[(he[i + 1].edge + 1) % 3]) {
				f->adj[he[i].edge] = he[i + 1].tri;
				g->adj[he[i + 1].edge] = he[i].tri;
			}
		}
		i = j;
	}
	if (!build_neighbours(me, he)) {
		*oom = true; /* its only failure */
		goto fail;
	}
	free(he);
	he = NULL;
	/* walls: each shared wall once, by the lower face id */
	for (uint32_t t = 0; t < ntris; ++t) {
		fxs_mesh_face *f = &me->faces[t];
		for (int i = 0; i < 3; ++i) {
			uint32_t g = f->adj[i];
			if (g != FXS_MESH_NO_FACE && g < t) {
				const fxs_mesh_face *gf = &me->faces[g];
				int k = gf->adj[0] == t ? 0 : (gf->adj[1] == t ? 1 : 2);
				f->m[i] = np_neg(gf->m[k]);
				f->mo[i] = -gf->mo[k];
			} else {
				edge_wall(me, f, i, g != FXS_MESH_NO_FACE ? &me->faces[g] : NULL, &f->m[i], &f->mo[i]);
			}
		}
	}
	clamp_depths(me);
	for (uint32_t t = 0; t < ntris; ++t) {
		fxs_mesh_face *f = &me->faces[t];
		f->edge_feature = feature_edges(me, t);
		for (int i = 0; i < 3; ++i) {
			fix16_t len;
			f->edge_u[i] = np_normalize(np_sub(me->verts[f->v[(i + 1) % 3]], me->verts[f->v[i]]), &len);
			f->edge_half[i] = len / 2;
		}
		f->bounds = tri_box(me, f, 2 * f->depth);
		me->bounds = t == 0 ? f->bounds : fxs_aabb_union(&me->bounds, &f->bounds);
	}
	return me;
fail:
	free(he);
	fxs_mesh_free(me);
	return NULL;
}

void fxs_mesh_free(fxs_mesh *m)
{
	if (!m)
		return;
	free(m->verts);
	free(m->faces);
	free(m->vnbr_start);
	free(m->vnbr);
	free(m);
}

void fxs_meshes_free(fxs_world *w)
{
	for (uint32_t i = 0; i < w->mesh_count; ++i)
		fxs_mesh_free(w->meshes[i]);
	free(w->meshes);
	w->meshes = NULL;
	w->mesh_count = w->mesh_cap = 0;
}

static bool add_mesh(fxs_world *w, fxs_mesh *m)
{
	if (w->mesh_count == w->mesh_cap) {
		uint32_t cap = w->mesh_cap ? w->mesh_cap * 2 : 4;
		fxs_mesh **nm = realloc(w->meshes, (size_t)cap * sizeof *nm);
		if (!nm)
			return false;
		w->meshes = nm;
		w->mesh_cap = cap;
	}
	w->meshes[w->mesh_count++] = m;
	return true;
}

fxs_mesh_id fxs_world_create_mesh(fxs_world *w, const fxg_vec3 *verts, uint32_t nverts, const uint32_t *tris,
				  uint32_t ntris, fix16_t thickness)
{
	FXS_CALL_LOG(w, FXS_OP_WORLD_CREATE_MESH, verts, nverts, tris, ntris, thickness);
	if (!w)
		return 0;
	if (w->mesh_count >= (1u << 16))
		return fxs_world_fail(w, FXS_ERR_LIMIT, "the world has 65536 meshes"), 0;
	bool nomem = false;
	fxs_mesh *m = fxs_mesh_build(verts, nverts, tris, ntris, thickness, &nomem);
	if (!m)
		return fxs_world_fail(w, nomem ? FXS_ERR_NOMEM : FXS_ERR_INVALID_ARGUMENT, "%s",
				      nomem ? "out of memory"
					    : "mesh: bad input (NULL arrays, counts out of range, an index out of range, a "
					      "degenerate triangle, a vertex beyond 4096 m, or a bad thickness)"),
		       0;
	if (!add_mesh(w, m)) {
		fxs_mesh_free(m);
		return fxs_world_fail(w, FXS_ERR_NOMEM, "out of memory"), 0;
	}
	fxs_world_touch(w);
	fxs_world_ok(w);
	return w->mesh_count;
}

const fxs_mesh *fxs_world_get_mesh(const fxs_world *w, fxs_mesh_id id)
{
	return w && id >= 1 && id <= w->mesh_count ? w->meshes[id - 1] : NULL;
}

fxs_shape fxs_mesh_shape(const fxs_world *w, fxs_mesh_id id)
{
	fxs_shape s;
	memset(&s, 0, sizeof s);
	s.type = FXS_SHAPE_MESH;
	s.mesh = fxs_world_get_mesh(w, id);
	s.mesh_id = s.mesh ? id : 0;
	return s;
}

uint32_t fxs_world_mesh_count(const fxs_world *w) { return w ? w->mesh_count : 0; }

#define MESH_MAGIC 0x4853454Du /* "MESH" little-endian */

static void write_face(fxs_writer *wr, const fxs_mesh_face *f)
{
	for (int i = 0; i < 3; ++i)
		fxs_write_u32(wr, f->adj[i]);
	fxs_write_vec3(wr, f->n);
	fxs_write_i64(wr, f->o);
	for (int i = 0; i < 3; ++i) {
		fxs_write_vec3(wr, f->m[i]);
		fxs_write_i64(wr, f->mo[i]);
	}
	fxs_write_i32(wr, f->depth);
}

void fxs_meshes_write(const fxs_world *w, fxs_writer *wr)
{
	if (w->mesh_count == 0)
		return;
	fxs_write_u32(wr, MESH_MAGIC);
	fxs_write_u32(wr, w->mesh_count);
	for (uint32_t i = 0; i < w->mesh_count; ++i) {
		const fxs_mesh *m = w->meshes[i];
		fxs_write_i32(wr, m->thickness);
		fxs_write_u32(wr, m->nverts);
		fxs_write_u32(wr, m->ntris);
		for (uint32_t k = 0; k < m->nverts; ++k)
			fxs_write_vec3(wr, m->verts[k]);
		for (uint32_t t = 0; t < m->ntris; ++t)
			for (int k = 0; k < 3; ++k)
				fxs_write_u32(wr, m->faces[t].v[k]);
		for (uint32_t t = 0; t < m->ntris; ++t)
			write_face(wr, &m->faces[t]);
	}
	/* the mesh of each mesh body, in slot order */
	for (uint32_t s = 0; s < w->slot_count; ++s) {
		const fxs_body *b = &w->bodies[s];
		if (b->alive && b->shape.type == FXS_SHAPE_MESH)
			fxs_write_u32(wr, b->shape.mesh_id);
	}
}

bool fxs_meshes_read(fxs_world *w, fxs_reader *r)
{
	bool any_mesh_body = false;
	for (uint32_t s = 0; s < w->slot_count; ++s)
		any_mesh_body |= w->bodies[s].alive && w->bodies[s].shape.type == FXS_SHAPE_MESH;
	/* no geometry section (the end, or another section's magic): no mesh
	 * body allowed */
	if (r->len - r->pos < 4)
		return r->pos == r->len && !any_mesh_body;
	const uint8_t *q = r->buf + r->pos;
	uint32_t magic = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
	if (magic != MESH_MAGIC)
		return !any_mesh_body;
	fxs_read_u32(r);
	uint32_t count = fxs_read_u32(r);
	if (r->err != FXS_OK || count == 0 || count > (1u << 16))
		return false;
	bool ok = true;
	for (uint32_t i = 0; i < count && ok; ++i) {
		fix16_t thickness = fxs_read_i32(r);
		uint32_t nv = fxs_read_u32(r), nt = fxs_read_u32(r);
		/* each vertex takes 12 bytes, each triangle 12 + 96: reject counts
		 * the input cannot hold before allocating */
		size_t left = r->len - r->pos;
		if (r->err != FXS_OK || nv > FXS_MESH_MAX_VERTS || nt > FXS_MESH_MAX_TRIS || nv > left / 12 ||
		    nt > left / 108)
			return false;
		fxg_vec3 *v = malloc(((size_t)nv + 1) * sizeof *v);
		uint32_t *t = malloc(((size_t)nt * 3 + 1) * sizeof *t);
		fxs_mesh *m = NULL;
		bool oom = !v || !t;
		if (!oom) {
			for (uint32_t k = 0; k < nv; ++k)
				v[k] = fxs_read_vec3(r);
			for (uint32_t k = 0; k < nt * 3; ++k)
				t[k] = fxs_read_u32(r);
			if (r->err == FXS_OK)
				m = fxs_mesh_build(v, nv, t, nt, thickness, &oom); /* bounds-checks every index */
		}
		free(v);
		free(t);
		if (!m) {
			if (oom) /* not the input's fault: say so */
				fxs_reader_fail(r, FXS_ERR_NOMEM);
			return false;
		}
		/* the stored regions must be the ones this kernel builds */
		fxs_writer ref;
		fxs_writer_init_growable(&ref);
		for (uint32_t k = 0; k < nt; ++k)
			write_face(&ref, &m->faces[k]);
		size_t n = ref.len;
		uint8_t *buf = malloc(n ? n : 1);
		if (!buf || ref.failed)
			fxs_reader_fail(r, FXS_ERR_NOMEM);
		ok = buf && !ref.failed && fxs_read_bytes(r, buf, n) && memcmp(buf, ref.buf, n) == 0;
		free(buf);
		fxs_writer_free(&ref);
		if (ok && !add_mesh(w, m)) {
			fxs_reader_fail(r, FXS_ERR_NOMEM);
			ok = false;
		}
		if (!ok) {
			fxs_mesh_free(m);
			return false;
		}
	}
	for (uint32_t s = 0; s < w->slot_count; ++s) {
		fxs_body *b = &w->bodies[s];
		if (!b->alive || b->shape.type != FXS_SHAPE_MESH)
			continue;
		uint32_t id = fxs_read_u32(r);
		if (r->err != FXS_OK || id < 1 || id > w->mesh_count || b->type != FXS_BODY_STATIC)
			return false;
		b->shape.mesh_id = id;
		b->shape.mesh = w->meshes[id - 1];
		uint32_t ovf = 0;
		b->aabb = fxs_body_compute_aabb(b, &ovf);
	}
	return r->err == FXS_OK;
}
