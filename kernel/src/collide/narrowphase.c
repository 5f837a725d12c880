/* Narrowphase dispatch: picks the pair function and puts the two shapes in a
 * canonical order.
 *
 * Each pair function is written for one order of its two shape types
 * (sphere < box < capsule < hull < cylinder < mesh) and yields the normal from its
 * first shape to its second. fxs_collide calls it in that order and negates
 * the normal when the caller's order was the other one. For two shapes of the
 * same type the larger goes first (so a box on a floor uses the floor's face);
 * for two of the same size the caller's order stands. The world calls with
 * the lower body slot first, which does not change from step to step: an
 * order taken from rotations or positions would flip when two equal boxes
 * in a stack jitter, switching the reference face and losing warm starting.
 * fxs_collide(b, a) is therefore the exact mirror of fxs_collide(a, b)
 * (normal negated, same points and ids) whenever types or sizes differ.
 * Points are listed in increasing feature id. */
#include "collide/collide_common.h"
#include "geometry/compound.h"

/* collide_mesh.c: a convex shape (first) against a static mesh (second) */
void fxs_collide_convex_mesh(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b,
			     const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf);

typedef void (*pair_fn)(const fxs_shape *, const fxs_transform *, const fxs_shape *, const fxs_transform *, fix16_t,
			fxs_manifold *, uint32_t *);

/* A compound against anything: every pair of children, the manifold with the
 * deepest point kept (ties: the first in child order). For queries; the
 * world keeps one contact per pair of children instead (contact.c). */
static void collide_compound(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			     fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	const fxs_compound *ca = a->type == FXS_SHAPE_COMPOUND ? a->compound : NULL;
	const fxs_compound *cb = b->type == FXS_SHAPE_COMPOUND ? b->compound : NULL;
	if ((a->type == FXS_SHAPE_COMPOUND && !ca) || (b->type == FXS_SHAPE_COMPOUND && !cb))
		return;
	uint32_t na = ca ? ca->n : 1, nb = cb ? cb->n : 1;
	int64_t best = INT64_MAX;
	for (uint32_t i = 0; i < na; ++i) {
		fxs_transform ta = ca ? fxs_compound_child_xf(ca, i, xa, ovf) : *xa;
		for (uint32_t j = 0; j < nb; ++j) {
			fxs_transform tb = cb ? fxs_compound_child_xf(cb, j, xb, ovf) : *xb;
			fxs_manifold cm;
			fxs_collide(ca ? &ca->child[i] : a, &ta, cb ? &cb->child[j] : b, &tb, speculative, &cm, ovf);
			for (int k = 0; k < cm.point_count; ++k)
				if (cm.points[k].separation < best) {
					best = cm.points[k].separation;
					*m = cm;
				}
		}
	}
}

void fxs_collide(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
		 fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	fxs_collide_rot(a, xa, NULL, b, xb, NULL, NULL, speculative, m, ovf);
}

void fxs_collide_rot(const fxs_shape *a, const fxs_transform *xa, const fxs_rotation *ra, const fxs_shape *b,
		     const fxs_transform *xb, const fxs_rotation *rb, const fxs_box_sat_result *sat, fix16_t speculative,
		     fxs_manifold *m, uint32_t *ovf)
{
	/* ra and rb (when given) are the rotations of xa->q and xb->q */
	/* table[first type][second type], first before second in rank order */
	static const pair_fn table[FXS_SHAPE_TYPE_COUNT][FXS_SHAPE_TYPE_COUNT] = {
		[FXS_SHAPE_SPHERE][FXS_SHAPE_SPHERE] = fxs_collide_spheres,
		[FXS_SHAPE_SPHERE][FXS_SHAPE_BOX] = fxs_collide_sphere_box,
		[FXS_SHAPE_SPHERE][FXS_SHAPE_CAPSULE] = fxs_collide_sphere_capsule,
		[FXS_SHAPE_BOX][FXS_SHAPE_BOX] = fxs_collide_boxes,
		[FXS_SHAPE_BOX][FXS_SHAPE_CAPSULE] = fxs_collide_box_capsule,
		[FXS_SHAPE_CAPSULE][FXS_SHAPE_CAPSULE] = fxs_collide_capsules,
		[FXS_SHAPE_SPHERE][FXS_SHAPE_MESH] = fxs_collide_convex_mesh,
		[FXS_SHAPE_BOX][FXS_SHAPE_MESH] = fxs_collide_convex_mesh,
		[FXS_SHAPE_CAPSULE][FXS_SHAPE_MESH] = fxs_collide_convex_mesh,
		[FXS_SHAPE_SPHERE][FXS_SHAPE_HULL] = fxs_collide_sphere_hull,
		[FXS_SHAPE_BOX][FXS_SHAPE_HULL] = fxs_collide_box_hull,
		[FXS_SHAPE_CAPSULE][FXS_SHAPE_HULL] = fxs_collide_capsule_hull,
		[FXS_SHAPE_HULL][FXS_SHAPE_HULL] = fxs_collide_hulls,
		[FXS_SHAPE_HULL][FXS_SHAPE_MESH] = fxs_collide_convex_mesh,
		[FXS_SHAPE_SPHERE][FXS_SHAPE_CYLINDER] = fxs_collide_sphere_cylinder,
		[FXS_SHAPE_BOX][FXS_SHAPE_CYLINDER] = fxs_collide_box_cylinder,
		[FXS_SHAPE_CAPSULE][FXS_SHAPE_CYLINDER] = fxs_collide_capsule_cylinder,
		[FXS_SHAPE_HULL][FXS_SHAPE_CYLINDER] = fxs_collide_hull_cylinder,
		[FXS_SHAPE_CYLINDER][FXS_SHAPE_CYLINDER] = fxs_collide_cylinders,
		[FXS_SHAPE_CYLINDER][FXS_SHAPE_MESH] = fxs_collide_convex_mesh,
		/* mesh-mesh: both static, never paired */
	};
	m->normal = fxg_v3_zero();
	m->point_count = 0;
	if ((uint32_t)a->type >= FXS_SHAPE_TYPE_COUNT || (uint32_t)b->type >= FXS_SHAPE_TYPE_COUNT)
		return;
	if (a->type == FXS_SHAPE_COMPOUND || b->type == FXS_SHAPE_COMPOUND) {
		collide_compound(a, xa, b, xb, speculative, m, ovf);
		return;
	}
	bool swap = fxs_collide_swaps(a, b);
	if (!table[swap ? b->type : a->type][swap ? a->type : b->type])
		return;
	if (a->type == FXS_SHAPE_BOX && b->type == FXS_SHAPE_BOX) {
		/* the one pair function that takes rotations and tests made
		 * beforehand (the world's commonest pair) */
		if (swap) {
			fxs_collide_boxes_sat(b, xb, rb, a, xa, ra, sat, speculative, m, ovf);
			m->normal = np_neg(m->normal);
		} else {
			fxs_collide_boxes_sat(a, xa, ra, b, xb, rb, sat, speculative, m, ovf);
		}
	} else if (swap) {
		table[b->type][a->type](b, xb, a, xa, speculative, m, ovf);
		m->normal = np_neg(m->normal);
	} else {
		table[a->type][b->type](a, xa, b, xb, speculative, m, ovf);
	}
	/* points in feature-id order, so that a manifold whose features did not
	 * change lists its points in the same order (ids are unique) */
	for (int i = 1; i < m->point_count; ++i)
		for (int j = i; j > 0 && m->points[j - 1].feature_id > m->points[j].feature_id; --j) {
			fxs_manifold_point t = m->points[j];
			m->points[j] = m->points[j - 1];
			m->points[j - 1] = t;
		}
}
