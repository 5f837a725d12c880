/* What the viewer draws (fxjs.c says how values travel): every body's pose
 * at once, the geometry of meshes and compounds, the contact points and
 * the bodies' bounding boxes. Read-only; it reads the world's internal
 * arrays (world/world.h) because the kernel has no debug-draw interface
 * yet: when it has one, this file becomes a thin adapter over it. */
#include "fxjs.h"

#include "geometry/compound.h"
#include "geometry/mesh.h"
#include "world/world.h"

static void put_v3(int32_t *o, fxg_vec3 v) { o[0] = v.x, o[1] = v.y, o[2] = v.z; }

/* Every slot's body, FXJS_POSE_INTS (9) int32 a slot: type + 1 (0: an
 * empty slot), position x y z, rotation x y z w, awake. Returns the number
 * of slots (written up to cap). */
FXJS_EXPORT int32_t fxjs_world_poses(const fxs_world *w, int32_t *out, int32_t cap)
{
	uint32_t n = w->slot_count;
	for (uint32_t i = 0; i < n && (int32_t)i < cap; ++i) {
		const fxs_body *b = &w->bodies[i];
		int32_t *o = out + 9 * i;
		o[0] = b->alive ? b->type + 1 : 0;
		put_v3(o + 1, b->xf.p);
		o[4] = b->xf.q.x, o[5] = b->xf.q.y, o[6] = b->xf.q.z, o[7] = b->xf.q.w;
		o[8] = b->awake;
	}
	return (int32_t)n;
}

/* Every slot's bounding box (as of the last step), 6 int32 a slot: lo x y
 * z, hi x y z (zeros for an empty slot). Returns the number of slots. */
FXJS_EXPORT int32_t fxjs_world_aabbs(const fxs_world *w, int32_t *out, int32_t cap)
{
	uint32_t n = w->slot_count;
	for (uint32_t i = 0; i < n && (int32_t)i < cap; ++i) {
		const fxs_body *b = &w->bodies[i];
		int32_t *o = out + 6 * i;
		fxs_aabb z = { { 0, 0, 0 }, { 0, 0, 0 } };
		const fxs_aabb *a = b->alive ? &b->aabb : &z;
		put_v3(o, a->lo);
		put_v3(o + 3, a->hi);
	}
	return (int32_t)n;
}

/* Contact points of the last step, 8 int32 each: body slot a, body slot b,
 * point x y z, normal x y z (from a to b). Returns the number of points
 * (written up to cap). */
FXJS_EXPORT int32_t fxjs_world_contacts(const fxs_world *w, int32_t *out, int32_t cap)
{
	int32_t n = 0;
	for (uint32_t i = 0; i < w->contact_count; ++i) {
		const fxs_contact *c = &w->contacts[i];
		for (int32_t k = 0; k < c->point_count; ++k, ++n) {
			if (n >= cap)
				continue;
			int32_t *o = out + 8 * n;
			o[0] = (int32_t)c->a, o[1] = (int32_t)c->b;
			put_v3(o + 2, c->points[k].point);
			put_v3(o + 5, c->normal);
		}
	}
	return n;
}

/* Mesh id's vertices (3 int32 each) and triangles (3 indices each):
 * counts in counts[0], counts[1]; the arrays are written when the caps
 * allow. 0 for a bad id. */
FXJS_EXPORT int32_t fxjs_mesh_geometry(const fxs_world *w, int32_t id, int32_t *counts, int32_t *verts, int32_t vcap,
				       int32_t *tris, int32_t tcap)
{
	const fxs_mesh *m = fxs_world_get_mesh(w, (fxs_mesh_id)id);
	if (!m)
		return 0;
	counts[0] = (int32_t)m->nverts, counts[1] = (int32_t)m->ntris;
	if (verts && vcap >= (int32_t)m->nverts)
		for (uint32_t i = 0; i < m->nverts; ++i)
			put_v3(verts + 3 * i, m->verts[i]);
	if (tris && tcap >= (int32_t)m->ntris)
		for (uint32_t i = 0; i < m->ntris; ++i)
			for (int k = 0; k < 3; ++k)
				tris[3 * i + (uint32_t)k] = (int32_t)m->faces[i].v[k];
	return 1;
}

/* Compound id's children about its centre of mass, 14 int32 each: shape
 * (type, radius, half_height, half_extents x y z, hull id), position x y
 * z, rotation x y z w. Returns the number of children (0: a bad id). */
FXJS_EXPORT int32_t fxjs_compound_children(const fxs_world *w, int32_t id, int32_t *out)
{
	const fxs_compound *c = fxs_world_get_compound(w, (uint32_t)id);
	if (!c)
		return 0;
	for (uint32_t k = 0; k < c->n; ++k) {
		int32_t *o = out + 14 * k;
		const fxs_shape *s = &c->child[k];
		o[0] = s->type, o[1] = s->radius, o[2] = s->half_height;
		put_v3(o + 3, s->half_extents);
		o[6] = (int32_t)s->hull_id;
		put_v3(o + 7, c->xf[k].p);
		o[10] = c->xf[k].q.x, o[11] = c->xf[k].q.y, o[12] = c->xf[k].q.z, o[13] = c->xf[k].q.w;
	}
	return (int32_t)c->n;
}
