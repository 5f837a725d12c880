/* Debug draw (fixstep/debug_draw.h): the world as shapes handed to a
 * renderer's callbacks, bodies in slot order, then joints, then contacts.
 * Read-only and allocation-free; integer only like the rest of the kernel
 * (the renderer converts what it is given). */
#include "fixstep/debug_draw.h"
#include "collide/contact.h"

#include "world/world.h"
#include "geometry/compound.h"
#include "geometry/hull.h"
#include "geometry/mesh.h"

#include <string.h>

fxs_debug_draw fxs_default_debug_draw(void)
{
	fxs_debug_draw d;
	memset(&d, 0, sizeof d);
	d.draw_shapes = true;
	d.draw_sensors = true;
	d.draw_joints = true;
	return d;
}

static uint32_t body_color(const fxs_body *b)
{
	if (b->game & FXS_BODY_DISABLED)
		return FXS_DEBUG_COLOR_DISABLED;
	if (b->game & FXS_BODY_SENSOR)
		return FXS_DEBUG_COLOR_SENSOR;
	if (b->type == FXS_BODY_STATIC)
		return FXS_DEBUG_COLOR_STATIC;
	if (b->type == FXS_BODY_KINEMATIC)
		return FXS_DEBUG_COLOR_KINEMATIC;
	return b->awake ? FXS_DEBUG_COLOR_DYNAMIC : FXS_DEBUG_COLOR_SLEEPING;
}

static fxg_vec3 to_world(const fxs_transform *xf, fxg_vec3 local, uint32_t *ovf)
{
	return fxg_v3_add(xf->p, fxg_q_rotate(xf->q, local, ovf), ovf);
}

/* one convex shape (a compound's child, or a body's own shape) */
static void draw_convex(const fxs_debug_draw *d, const fxs_shape *s, const fxs_transform *xf, uint32_t color)
{
	uint32_t ovf = 0; /* drawing: saturation is the picture's, not the state's */
	switch (s->type) {
	case FXS_SHAPE_SPHERE:
		if (d->draw_sphere)
			d->draw_sphere(xf->p, s->radius, color, d->context);
		break;
	case FXS_SHAPE_BOX:
		if (d->draw_box)
			d->draw_box(*xf, s->half_extents, color, d->context);
		break;
	case FXS_SHAPE_CAPSULE:
		if (d->draw_capsule) {
			fxg_vec3 a = to_world(xf, fxg_v3(0, -s->half_height, 0), &ovf);
			fxg_vec3 b = to_world(xf, fxg_v3(0, s->half_height, 0), &ovf);
			d->draw_capsule(a, b, s->radius, color, d->context);
		}
		break;
	case FXS_SHAPE_CYLINDER:
		/* a 16-sided prism: the two caps and the side quads */
		if (d->draw_polygon) {
			static const fix16_t c16[16] = { 65536,  60547,  46341,  25080,  0,      -25080, -46341, -60547,
							 -65536, -60547, -46341, -25080, 0,      25080,  46341,  60547 };
			fxg_vec3 top[16], bot[16];
			for (int k = 0; k < 16; ++k) {
				fix16_t x = fxg_mul(s->radius, c16[k], &ovf), z = fxg_mul(s->radius, c16[(k + 12) & 15], &ovf);
				top[k] = to_world(xf, fxg_v3(x, s->half_height, z), &ovf);
				bot[15 - k] = to_world(xf, fxg_v3(x, -s->half_height, z), &ovf);
			}
			d->draw_polygon(top, 16, color, d->context);
			d->draw_polygon(bot, 16, color, d->context);
			for (int k = 0; k < 16; ++k) {
				int j = (k + 1) & 15;
				fxg_vec3 q[4] = { top[k], top[j], bot[15 - j], bot[15 - k] };
				d->draw_polygon(q, 4, color, d->context);
			}
		}
		break;
	case FXS_SHAPE_HULL:
		if (d->draw_polygon && s->hull) {
			const fxs_hull_geom *g = &s->hull->g;
			for (int32_t f = 0; f < g->n_faces; ++f) {
				fxg_vec3 v[FXS_HULL_MAX_VERTS];
				int32_t n = 0;
				for (int32_t k = g->face_start[f]; k < g->face_start[f + 1] && n < FXS_HULL_MAX_VERTS; ++k)
					v[n++] = to_world(xf, g->v[g->face_verts[k]], &ovf);
				d->draw_polygon(v, n, color, d->context);
			}
		}
		break;
	default:
		break;
	}
}

static void draw_body(const fxs_debug_draw *d, const fxs_body *b)
{
	uint32_t color = body_color(b), ovf = 0;
	const fxs_shape *s = &b->shape;
	if (s->type == FXS_SHAPE_COMPOUND && s->compound) {
		for (uint32_t k = 0; k < s->compound->n; ++k) {
			fxs_transform cx = fxs_compound_child_xf(s->compound, k, &b->xf, &ovf);
			draw_convex(d, &s->compound->child[k], &cx, color);
		}
	} else if (s->type == FXS_SHAPE_MESH && s->mesh) {
		if (!d->draw_triangle)
			return;
		const fxs_mesh *m = s->mesh;
		for (uint32_t t = 0; t < m->ntris; ++t) {
			const uint32_t *v = m->faces[t].v;
			d->draw_triangle(to_world(&b->xf, m->verts[v[0]], &ovf), to_world(&b->xf, m->verts[v[1]], &ovf),
					 to_world(&b->xf, m->verts[v[2]], &ovf), color, d->context);
		}
	} else {
		draw_convex(d, s, &b->xf, color);
	}
}

void fxs_world_draw(const fxs_world *w, const fxs_debug_draw *d)
{
	if (!w || !d)
		return;
	uint32_t ovf = 0;
	for (uint32_t i = 0; i < w->slot_count; ++i) {
		const fxs_body *b = &w->bodies[i];
		if (!b->alive || ((b->game & FXS_BODY_DISABLED) && !d->draw_disabled))
			continue;
		fxs_aabb box = fxs_body_compute_aabb(b, &ovf);
		if (d->use_bounds && !fxs_aabb_overlap(&box, &d->bounds))
			continue;
		bool sensor = (b->game & FXS_BODY_SENSOR) != 0;
		if (sensor ? d->draw_sensors : d->draw_shapes)
			draw_body(d, b);
		if (d->draw_aabbs && d->draw_aabb)
			d->draw_aabb(box, FXS_DEBUG_COLOR_AABB, d->context);
	}
	if (d->draw_joints && d->draw_segment) {
		for (uint32_t i = 0; i < fxs_world_joint_slot_count(w); ++i) {
			fxs_joint_id j = fxs_world_joint_at(w, i);
			if (!fxs_joint_is_valid(w, j))
				continue;
			fxs_body_id a = fxs_joint_get_body_a(w, j), b = fxs_joint_get_body_b(w, j);
			fxg_vec3 pa = fxs_joint_get_anchor_a(w, j), pb = fxs_joint_get_anchor_b(w, j);
			d->draw_segment(fxs_body_get_position(w, a), pa, FXS_DEBUG_COLOR_JOINT, d->context);
			d->draw_segment(pa, pb, FXS_DEBUG_COLOR_JOINT, d->context);
			d->draw_segment(pb, fxs_body_get_position(w, b), FXS_DEBUG_COLOR_JOINT, d->context);
		}
	}
	if (!w->contact_geometry || !(d->draw_contact_points || d->draw_contact_normals))
		return;
	for (uint32_t i = 0; i < w->contact_count; ++i) {
		const fxs_contact *c = &w->contacts[i];
		for (int k = 0; d->draw_contact_points && d->draw_point && k < c->point_count; ++k)
			d->draw_point(fxs_contact_point_at(w, c, k, &ovf), FXS_DEBUG_COLOR_CONTACT, d->context);
		if (d->draw_contact_normals && d->draw_segment && c->point_count > 0) {
			fxg_vec3 p = fxs_contact_point_at(w, c, 0, &ovf);
			fxg_vec3 q = fxg_v3_add(p, fxg_v3_scale(FXG_ONE / 4, c->normal, &ovf), &ovf);
			d->draw_segment(p, q, FXS_DEBUG_COLOR_NORMAL, d->context);
		}
	}
}
