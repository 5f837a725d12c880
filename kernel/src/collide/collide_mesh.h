/* Convex shape against a static triangle mesh: what collide_mesh.c (feature
 * points against thick faces, mesh vertices, the manifold) and
 * collide_mesh_edge.c (edge contacts) share. Everything is in the mesh's
 * local frame; normals point from the mesh to the shape. */
#ifndef FXS_COLLIDE_MESH_H
#define FXS_COLLIDE_MESH_H

#include "collide/collide_common.h"
#include "geometry/hull.h"
#include "geometry/mesh.h"
#include "geometry/aabb.h"

/* One contact candidate. */
typedef struct fxs_mesh_hit {
	fxg_vec3 n, point; /* unit normal (mesh to shape), point midway between the surfaces */
	fix16_t sep;
	fix16_t s; /* how far the shape's feature is in front of the mesh (behind: negative) */
	uint32_t id;
} fxs_mesh_hit;

/* Feature ids (32 bits; a mesh has at most 2^24 triangles and vertices):
 *   face hit         (fi << 4 | k) with bit 29 for hull vertices k >= 16
 *   mesh vertex      1 << 28 | vertex
 *   edge-edge        1 << 31 | edge << 4 | shape edge (mod 16); for a
 *                    capsule's or cylinder's side 0, a cylinder's rim 1,
 *                    the ends of a cylinder cap's chord 2 and 3
 *   mesh edge on a shape face
 *                    1 << 31 | 1 << 30 | edge << 4 | (shape face << 1 | end) (mod 16)
 * where edge = owning face << 2 | edge index (26 bits). A hull's edges and
 * faces are folded mod 16: two points of one manifold could share an id only
 * if the same mesh edge met two hull edges 16 apart (warm starting then
 * matches the first; still deterministic). */
#define FXS_MESH_ID_VERTEX (1u << 28)
#define FXS_MESH_ID_EDGE (1u << 31)
#define FXS_MESH_ID_EDGE_FACE (1u << 30)

#define FXS_MESH_CAND 256

/* The convex shape placed in the mesh's frame, and the hit collector. */
typedef struct fxs_mesh_query {
	const fxs_mesh *me;
	fix16_t speculative;
	int type;      /* FXS_SHAPE_* */
	fxs_aabb sb;   /* bounds of the shape grown by r + speculative */
	fxg_vec3 c;    /* the shape's centre */
	int64_t reach; /* Q16.16: every feature point plus r is within this of c, plus speculative */
	/* the faces whose bounds overlap sb, ascending; all of them (to be
	 * tested one by one) when more than FXS_MESH_CAND */
	uint32_t ncand;
	bool cand_all;
	uint32_t cand[FXS_MESH_CAND];
	int nx; /* feature points: box / hull vertices, capsule ends, sphere centre */
	fxg_vec3 x[FXS_HULL_MAX_VERTS];
	fix16_t r;  /* their radius */
	fxg_vec3 u; /* capsule, cylinder: unit axis, half height */
	fix16_t hh;
	fix16_t cr; /* cylinder: radius (its feature points, made per face, have r = 0) */
	/* polytopes (box, hull): faces n . (x - c) <= o, edges between x[ev[e][0]]
	 * and x[ev[e][1]] (unit direction eu, half length eh) separating faces
	 * ef[e][0] and ef[e][1] */
	int nf, ne;
	fxg_vec3 n[FXS_HULL_MAX_FACES];
	int64_t o[FXS_HULL_MAX_FACES]; /* Q32.32 */
	fxg_vec3 eu[FXS_HULL_MAX_EDGES];
	fix16_t eh[FXS_HULL_MAX_EDGES];
	uint8_t ev[FXS_HULL_MAX_EDGES][2], ef[FXS_HULL_MAX_EDGES][2];
	fxg_vec3 box_ax[3]; /* box: axes and half extents */
	fix16_t box_e[3];
	const fxs_hull_geom *hull; /* hull: its geometry (edges rotated lazily) */
	fxg_mat3 hull_rel;
	bool edges_ready;
	uint32_t *ovf;
} fxs_mesh_query;

/* The collector: pass 1 chooses the reference hit, pass 2 keeps the
 * FXS_MESH_KEEP deepest hits parallel to it (the manifold's 4 are chosen from
 * those by fxs_np_reduce). Hits are buffered in pass 1 so that pass 2 rarely has
 * to generate them again. */
#define FXS_MESH_HIT_BUF 64
#define FXS_MESH_KEEP 16
#define FXS_MESH_FACE_PLANES 8
typedef struct fxs_mesh_sink {
	int pass;
	bool have_front, have_push;
	fxs_mesh_hit front, push; /* pass 1: the best front-side hit and push-out */
	fxs_mesh_hit ref;
	int nk;
	fxs_mesh_hit keep[FXS_MESH_KEEP];
	int nbuf;
	bool overflow;
	fxs_mesh_hit buf[FXS_MESH_HIT_BUF];
	/* pass 1: the deepest face hit per face normal (faces closer than
	 * FXS_MESH_FLAT_DOT share one), the first FXS_MESH_FACE_PLANES normals
	 * in generation order; face hits all come before edge hits */
	int nplanes;
	fxg_vec3 plane_n[FXS_MESH_FACE_PLANES];
	fix16_t plane_sep[FXS_MESH_FACE_PLANES];
} fxs_mesh_sink;

void fxs_mesh_sink_offer(fxs_mesh_sink *k, const fxs_mesh_hit *h);
/* Candidate face number ci (0 .. fxs_mesh_cand_count - 1), or
 * FXS_MESH_NO_FACE when its bounds miss the shape's. */
static inline uint32_t fxs_mesh_cand_count(const fxs_mesh_query *q) { return q->cand_all ? q->me->ntris : q->ncand; }
static inline uint32_t fxs_mesh_cand_face(const fxs_mesh_query *q, uint32_t ci)
{
	if (!q->cand_all)
		return q->cand[ci];
	return fxs_aabb_overlap(&q->sb, &q->me->faces[ci].bounds) ? ci : FXS_MESH_NO_FACE;
}
/* The deepest face hit on faces parallel to n; false when there is none. */
bool fxs_mesh_sink_face_sep(const fxs_mesh_sink *k, fxg_vec3 n, fix16_t *sep);

/* collide_mesh_edge.c: the edge contacts of the query's shape against every
 * feature edge of the candidate faces, and (capsules, cylinders) the mesh
 * vertices against the capsule's side, the cylinder's side, caps and rims. */
void fxs_mesh_edge_hits(fxs_mesh_query *q, fxs_mesh_sink *k);
/* A mesh vertex against the side of the segment q->c +- q->hh q->u grown by r
 * (a capsule's, r = q->r; a cylinder's side, r its radius). */
bool fxs_mesh_capsule_vertex_hit(const fxs_mesh_query *q, uint32_t vi, fix16_t r, fxs_mesh_hit *h);
/* A mesh vertex against a cylinder: its side as above, its caps and rims. */
bool fxs_mesh_cylinder_vertex_hit(const fxs_mesh_query *q, uint32_t vi, fxs_mesh_hit *h);

#endif
