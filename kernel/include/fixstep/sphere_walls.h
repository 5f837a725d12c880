/* Seed 004: a static mesh approximated by spheres placed along its walls,
 * a cheaper collision representation for characters (sphere-sphere tests
 * only). The paper's placement with the defects its note lists fixed:
 *
 *   1. A grid of probe points fills the mesh body's bounds, spaced one
 *      radius r apart (the paper's "overlap by one radius"), in 3D: floors,
 *      ceilings and stairs need spheres as much as walls do.
 *   2. From each probe, rays in 6 directions (+x -x +y -y +z -z, in that
 *      order) of length r (the paper leaves the length open; with spacing r
 *      exactly one probe of each grid line reaches each face) are cast at
 *      the mesh's front faces (fxs_shape_ray_cast).
 *   3. Every hit spawns a sphere (the paper's own proposed fix: its rule
 *      "move to the farther hit" thinned spheres at convex parts and piled
 *      them up elsewhere), centred r behind the surface along the face
 *      normal: the sphere touches the face plane from behind, so nothing
 *      protrudes into the room and the surface between neighbours dips by at
 *      most r (1 - sqrt(3)/2) = 0.134 r (the note's scallop depth).
 *   4. Probes whose rays hit nothing spawn nothing (the paper's defect 1:
 *      useless spheres in open space).
 *   5. Near-duplicates (centres closer than `merge_distance`, default r / 2:
 *      the same surface point reached from two probes) are found with the
 *      paper's origin-distance search, made exact and conservative: squared
 *      norms in int64, an integer square root rounded down, the threshold
 *      widened by one LSB, a total order (distance, then index); the lower
 *      index is kept.
 * Deterministic: the result depends only on the mesh, its transform and the
 * parameters. */
#ifndef FIXSTEP_SPHERE_WALLS_H
#define FIXSTEP_SPHERE_WALLS_H

#include "fixstep/fixstep.h"

#ifdef __cplusplus
extern "C" {
#endif
FXG_EXPORT_BEGIN

typedef struct fxs_sphere_walls_def {
	fix16_t radius;         /* r, default 0.25 m */
	fix16_t merge_distance; /* default r / 2 */
	uint32_t max_spheres;   /* stop (and report FXS_ERR_LIMIT-like 0) beyond, default 1 << 20 */
} fxs_sphere_walls_def;

fxs_sphere_walls_def fxs_default_sphere_walls_def(void);

typedef struct fxs_sphere_walls_stats {
	uint32_t probes;          /* grid points tried */
	uint32_t hits;            /* ray hits (spheres before merging) */
	uint32_t merged;          /* near-duplicates removed */
	uint32_t candidate_pairs; /* pairs the origin-distance filter passed to the exact test */
} fxs_sphere_walls_stats;

/* Sphere centres for the static mesh body `mesh_body`, in world space, in a
 * canonical order. Returns the count (writes at most `cap` into out; call
 * with cap 0 to size), or UINT32_MAX on bad input (not a mesh body, a bad
 * definition, more than max_spheres). stats may be NULL. */
uint32_t fxs_sphere_walls_build(const fxs_world *w, fxs_body_id mesh_body, const fxs_sphere_walls_def *def,
				fxg_vec3 *out, uint32_t cap, fxs_sphere_walls_stats *stats);

FXG_EXPORT_END
#ifdef __cplusplus
}
#endif

#endif
