/* Heightfields: a grid of heights turned into a static triangle mesh, so
 * that everything meshes have (seed 003 thick faces, edge contacts, casts,
 * snapshots) applies without a second collision path. The mesh is all the
 * state: a snapshot carries its vertices and triangles like any mesh's.
 *
 * Vertex (i, j) = (i * cell, heights[j * nx + i], j * cell), index j * nx + i.
 * Cell (i, j) has corners a = (i, j), b = (i + 1, j), c = (i, j + 1),
 * d = (i + 1, j + 1) and triangles (a, c, d) then (a, d, b), counter-clockwise
 * seen from +y, ids 2 (j (nx - 1) + i) and that + 1. The coordinate range is
 * the mesh's (fxs_mesh_build checks every vertex: +-4096 m); i * cell is
 * formed in int64. Integer only. */
#include "world/world.h"
#include "world/call_log.h"

#include <stdlib.h>

#define HEIGHTFIELD_MAX_SIDE 4097u /* (2^12 + 1)^2 vertices stay below 2^24 */

fxs_mesh_id fxs_world_create_heightfield(fxs_world *w, const fix16_t *heights, uint32_t nx, uint32_t nz, fix16_t cell,
					 fix16_t thickness)
{
	FXS_CALL_LOG(w, FXS_OP_WORLD_CREATE_HEIGHTFIELD, heights, nx, nz, cell, thickness);
	if (!w)
		return 0;
	if (!heights || nx < 2 || nz < 2 || nx > HEIGHTFIELD_MAX_SIDE || nz > HEIGHTFIELD_MAX_SIDE || cell <= 0)
		return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT, "heightfield: heights NULL, nx or nz out of 2..4097, or cell <= 0"), 0;
	int64_t span_x = (int64_t)(nx - 1) * cell, span_z = (int64_t)(nz - 1) * cell;
	if (span_x > FXG_I(4096) || span_z > FXG_I(4096))
		return fxs_world_fail(w, FXS_ERR_INVALID_ARGUMENT, "heightfield: wider than 4096 m"), 0;
	size_t nv = (size_t)nx * nz, nt = (size_t)(nx - 1) * (nz - 1) * 2;
	fxg_vec3 *v = malloc(nv * sizeof *v);
	uint32_t *t = malloc(nt * 3 * sizeof *t);
	fxs_mesh_id id = 0;
	if (v && t) {
		for (uint32_t j = 0; j < nz; ++j)
			for (uint32_t i = 0; i < nx; ++i)
				v[(size_t)j * nx + i] =
					fxg_v3((fix16_t)((int64_t)i * cell), heights[(size_t)j * nx + i], (fix16_t)((int64_t)j * cell));
		size_t k = 0;
		for (uint32_t j = 0; j + 1 < nz; ++j)
			for (uint32_t i = 0; i + 1 < nx; ++i) {
				uint32_t a = j * nx + i, b = a + 1, c = a + nx, d = c + 1;
				t[k++] = a, t[k++] = c, t[k++] = d;
				t[k++] = a, t[k++] = d, t[k++] = b;
			}
		FXS_CALL_MUTED(w, id = fxs_world_create_mesh(w, v, (uint32_t)nv, t, (uint32_t)nt, thickness));
	}
	if (!v || !t)
		fxs_world_fail(w, FXS_ERR_NOMEM, "out of memory");
	free(v);
	free(t);
	return id;
}
