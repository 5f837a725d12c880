/* Convex hulls: a deterministic build from a point cloud, exact-volume mass
 * properties, the collision geometry (polygon faces with unit normals,
 * edges) and the world's hulls (FXS_SHAPE_HULL bodies refer to them by id;
 * part of the state: fxs_hulls_write / fxs_hulls_read). */
#ifndef FXS_HULL_H
#define FXS_HULL_H

#include "fixstep/types.h"

/* Input: at most 64 points. Each point is snapped to the 1/256 m grid
 * (rounded half up) and must lie within +-8 m of the shape origin. */
#define FXS_HULL_MAX_INPUT 64
#define FXS_HULL_MAX_VERTS 32
/* faces are triangulated (coplanar points merged into one convex polygon,
 * then fanned from its first vertex): a closed triangulation has 2V - 4 */
#define FXS_HULL_MAX_TRIS (2 * FXS_HULL_MAX_VERTS - 4)
#define FXS_HULL_GRID_SHIFT 8        /* Q16.16 raw >> 8: 1/256 m units */
#define FXS_HULL_MAX_COORD (8 * 256) /* +-8 m in grid units */
#define FXS_MAX_HULLS (1u << 16)     /* hulls per world */

#define FXS_HULL_MAX_FACES FXS_HULL_MAX_TRIS
#define FXS_HULL_MAX_EDGES (3 * FXS_HULL_MAX_VERTS - 6)

typedef struct fxs_hull {
	int32_t n_verts, n_tris, n_faces;
	fxg_vec3 verts[FXS_HULL_MAX_VERTS]; /* on the grid, ascending input index */
	uint8_t tris[FXS_HULL_MAX_TRIS][3]; /* counter-clockwise seen from outside */
	/* face f (a convex polygon, coplanar points merged) is the fan of
	 * triangles face_tri0[f] .. face_tri0[f + 1] - 1 */
	uint8_t face_tri0[FXS_HULL_MAX_FACES + 1];
} fxs_hull;

enum {
	FXS_HULL_OK = 0,
	FXS_HULL_ERR_COUNT = -1,    /* fewer than 4 or more than 64 points */
	FXS_HULL_ERR_RANGE = -2,    /* a point beyond +-8 m */
	FXS_HULL_ERR_FLAT = -3,     /* all points coplanar (no volume) */
	FXS_HULL_ERR_TOO_MANY = -4, /* more than 32 hull vertices */
};

/* Exact integer predicates (every orientation test fits in int64 on the
 * grid); output depends only on the multiset of snapped points and their
 * order (duplicates: the lowest index is kept). O(n^4), n <= 64. */
int fxs_hull_build(const fxg_vec3 *pts, int n, fxs_hull *out);

/* Mass properties at uniform density: mass (Q32.32 kg), centre of mass in
 * local coordinates (Q16.16, rounded), inertia tensor about the centre of
 * mass (Q32.32 kg m^2; xx, yy, zz, xy, xz, yz with the products of inertia
 * as -integral(x y)). Volume and first moments are exact integers; each
 * tetrahedron's second moment is rounded once (2^-33 m^5), so the error is
 * at most (2 T + 8) 2^-32 (1 + density) absolute plus 2^-30 relative
 * (tests/test_hull.c). */
void fxs_hull_mass(const fxs_hull *h, fix16_t density, fxg_wide *mass, fxg_vec3 *com, fxg_wide inertia[6],
		   uint32_t *ovf);

/* Collision geometry of a convex polytope, relative to its centre of mass:
 * vertices, polygon faces (vertex lists counter-clockwise seen from outside,
 * face f is face_verts[face_start[f] .. face_start[f + 1] - 1]) with unit
 * normals and offsets (n . x <= o inside, o in Q32.32), and edges (each once:
 * from edge_v[0] to edge_v[1], which runs counter-clockwise in face
 * edge_f[0] and clockwise in edge_f[1]; edge_u the unit direction). */
typedef struct fxs_hull_geom {
	int32_t n_verts, n_faces, n_edges;
	fxg_vec3 v[FXS_HULL_MAX_VERTS];
	fxg_vec3 n[FXS_HULL_MAX_FACES];
	int64_t o[FXS_HULL_MAX_FACES];
	uint8_t face_start[FXS_HULL_MAX_FACES + 1];
	uint8_t face_verts[2 * FXS_HULL_MAX_EDGES];
	uint8_t edge_v[FXS_HULL_MAX_EDGES][2];
	uint8_t edge_f[FXS_HULL_MAX_EDGES][2];
	fxg_vec3 edge_u[FXS_HULL_MAX_EDGES];
	fix16_t edge_len[FXS_HULL_MAX_EDGES];
	fxg_vec3 lo, hi; /* bounds of the vertices */
} fxs_hull_geom;

/* The geometry of hull h with its vertices moved by -com. */
void fxs_hull_geom_build(const fxs_hull *h, fxg_vec3 com, fxs_hull_geom *g);
/* A box with half extents e as a polytope (8 vertices, 6 faces, 12 edges;
 * vertex i has bit k set when it is on the negative side of axis k). */
void fxs_hull_geom_box(fxg_vec3 e, fxs_hull_geom *g);

/* A hull owned by a world: its build, its centre of mass in the input frame
 * (a body of this hull has its origin there) and its geometry about it. */
typedef struct fxs_world_hull {
	fxs_hull src;
	fxg_vec3 com;
	fxs_hull_geom g;
} fxs_world_hull;

struct fxs_world;
struct fxs_writer;
struct fxs_reader;
const fxs_world_hull *fxs_world_get_hull(const struct fxs_world *w, uint32_t id);
void fxs_hulls_free(struct fxs_world *w);
/* The hull section of the state, written only when the world has hulls:
 * "HULL", count, per hull its vertex count and vertices (the grid points of
 * the build), then the hull id of every hull body in slot order. The reader
 * rebuilds each hull from its vertices and rejects the section unless the
 * build returns exactly those vertices. */
void fxs_hulls_write(const struct fxs_world *w, struct fxs_writer *wr);
bool fxs_hulls_read(struct fxs_world *w, struct fxs_reader *r);

#endif
