/* Static triangle meshes with seed 003 thickness regions.
 *
 * A mesh is plain arrays owned by the world: vertices, and per triangle (id =
 * input order) its vertex indices, neighbours, plane and thickness region.
 * Everything here is built once, deterministically, when the mesh is created
 * (or rebuilt from the vertices and triangles when a snapshot is read).
 *
 * Thickness region of face f (convex, closed, in the mesh's local frame):
 *   - top:    n . x <= o                    (the face plane, n the unit normal)
 *   - bottom: n . x >= o - depth            (the cap the seed text forgets)
 *   - sides:  m_i . x <= mo_i, i = 0..2     (one wall per edge)
 *   - inside `bounds` (the triangle's box grown by 2 depth)
 * The wall of an edge shared with a neighbour lies on the bisector plane of
 * the two faces (it contains the edge and n + n_neighbour), computed once by
 * the lower face id and stored negated for the other face: the two regions
 * meet on exactly the same plane (no crack, no overlap beyond the plane
 * itself, which belongs to both). A boundary edge (no neighbour, or a
 * non-manifold one) gets the wall perpendicular to the face. Behind a closed
 * mesh the regions therefore tile space down to the depth of each face.
 * The walls extended in front of the face split the space in front the same
 * way: every point near the mesh belongs to one face's prism, which is how a
 * feature point picks the face it is tested against (no double contacts).
 *
 * Contact features (collide_mesh_edge.c): an edge is a feature when it is
 * convex and not flat (its two faces' normals closer than 0.999 in cosine)
 * or a boundary edge; it belongs to the lower face id of its two. A flat
 * edge (the diagonal of a quad, the seams of a floor) is never a feature, so
 * nothing can snag on it. Each vertex lists the vertices it shares an edge
 * with (ascending), for the vertex's Voronoi test. Both are derived from the
 * vertices and triangles at build time (not serialised). */
#ifndef FXS_MESH_H
#define FXS_MESH_H

#include "fixstep/fixstep.h"
#include "state/serialize.h"

#define FXS_MESH_NO_FACE UINT32_MAX
#define FXS_MESH_MAX_TRIS (1u << 24) /* feature id = tri << 4 | feature */
#define FXS_MESH_MAX_VERTS (1u << 24)
#define FXS_MESH_MAX_COORD FXG_I(4096)
/* Two faces whose unit normals have a dot product of at least this (Q32.32
 * 0.999, 2.56 degrees) are coplanar for contacts: their shared edge is not a
 * feature, and their contact points share a manifold. */
#define FXS_MESH_FLAT_DOT ((int64_t)4290672329LL)

typedef struct fxs_mesh_face {
	uint32_t v[3];        /* vertex indices */
	uint32_t adj[3];      /* neighbour across edge i (v[i] -> v[i+1]), or FXS_MESH_NO_FACE */
	fxg_vec3 n;           /* unit normal (front side) */
	int64_t o;            /* Q32.32: n . v[0] */
	fxg_vec3 m[3];        /* unit outward side-wall normals */
	int64_t mo[3];        /* Q32.32 wall offsets */
	fix16_t depth;        /* thickness of this face's region (<= the mesh's thickness) */
	fxs_aabb bounds;      /* triangle box grown by 2 depth */
	uint8_t edge_feature; /* bit i: edge i is a contact feature owned by this face */
	fxg_vec3 edge_u[3];   /* unit direction of edge i (v[i] -> v[i + 1]), for edge contacts */
	fix16_t edge_half[3]; /* half its length (rounded length / 2) */
} fxs_mesh_face;

typedef struct fxs_mesh {
	fix16_t thickness; /* the nominal thickness d */
	uint32_t nverts, ntris;
	fxg_vec3 *verts;
	fxs_mesh_face *faces;
	fxs_aabb bounds;      /* local bounds of every region */
	uint32_t *vnbr_start; /* nverts + 1 offsets into vnbr */
	uint32_t *vnbr;       /* per vertex, the vertices joined to it by an edge, ascending */
} fxs_mesh;

/* Build a mesh (validates everything; NULL on bad input or no memory, and
 * *nomem, when not NULL, says which). */
fxs_mesh *fxs_mesh_build(const fxg_vec3 *verts, uint32_t nverts, const uint32_t *tris, uint32_t ntris,
			 fix16_t thickness, bool *nomem);
void fxs_mesh_free(fxs_mesh *m);
void fxs_meshes_free(fxs_world *w);
const fxs_mesh *fxs_world_get_mesh(const fxs_world *w, fxs_mesh_id id);

/* Is local point x inside face f's prism (between its side walls)? */
bool fxs_mesh_in_prism(const fxs_mesh_face *f, fxg_vec3 x);

/* The geometry section of the state (state.c). Written only when the world
 * has meshes, after everything else, so that a world without meshes keeps
 * its bytes: "MESH", count, per mesh thickness + vertices + triangles + the
 * derived regions, then the mesh id of every mesh body in slot order. The
 * reader rebuilds each mesh from its vertices and triangles and rejects the
 * section unless the stored regions match the rebuilt ones bit for bit. */
void fxs_meshes_write(const fxs_world *w, fxs_writer *wr);
bool fxs_meshes_read(fxs_world *w, fxs_reader *r);

#endif
