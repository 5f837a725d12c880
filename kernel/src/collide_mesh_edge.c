/* Edge contacts of a convex shape against a static mesh: not yet generated
 * (the next commit); collide_mesh.c calls these. */
#include "collide_mesh.h"

void fxs_mesh_edge_hits(fxs_mesh_query *q, fxs_mesh_sink *k)
{
	(void)q;
	(void)k;
}

bool fxs_mesh_capsule_vertex_hit(const fxs_mesh_query *q, uint32_t vi, fxs_mesh_hit *h)
{
	(void)q;
	(void)vi;
	(void)h;
	return false;
}
