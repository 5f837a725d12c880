/* Convex hulls: a deterministic build from a point cloud and exact-volume
 * mass properties. Standalone geometry (not yet a body shape: see README). */
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
#define FXS_HULL_GRID_SHIFT 8           /* Q16.16 raw >> 8: 1/256 m units */
#define FXS_HULL_MAX_COORD (8 * 256)    /* +-8 m in grid units */

typedef struct fxs_hull {
	int32_t n_verts, n_tris;
	fxg_vec3 verts[FXS_HULL_MAX_VERTS];      /* on the grid, ascending input index */
	uint8_t tris[FXS_HULL_MAX_TRIS][3];      /* counter-clockwise seen from outside */
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

#endif
