/* What a renderer reads (fxjs.c says how values travel): the kernel's debug
 * draw (fixstep/debug_draw.h) collected into int32 lists, and every body's
 * pose and bounds at once. Public API only.
 *
 * The debug-draw callbacks do not say which body a shape belongs to; the
 * viewer needs it (the desync inspector highlights one body). fxs_world_draw
 * walks the bodies in slot order and hands each body's bounds after its
 * shapes, so the collector asks for the bounds always and, at each, finds
 * the body by comparing them with fxs_body_get_aabb of the next slots it
 * draws (the same tight box): the shapes since the previous body's bounds
 * are that body's. A shape whose body cannot be found that way gets slot -1
 * (test/draw.test.mjs checks that none does, and that each is where its
 * body is). */
#include "fxjs.h"

#include "fixstep/debug_draw.h"

#include <stdlib.h>
#include <string.h>

/* ---- the lists ----
 * 0 boxes, 12 int32 each: slot, color, position x y z, rotation x y z w,
 *   half extents x y z
 * 1 spheres, 6: slot, color, centre x y z, radius
 * 2 capsules, 9: slot, color, p1 x y z, p2 x y z, radius
 * 3 polygons (hull faces), 3 + 3 n: slot, color, n, n vertices x y z
 * 4 triangles (mesh faces), 11: slot, color, a x y z, b x y z, c x y z
 * 5 segments (joints, contact normals), 7: color, p1 x y z, p2 x y z
 * 6 points (contact points), 4: color, x y z
 * 7 aabbs, 8: slot, color, lo x y z, hi x y z */
enum { L_BOX,
       L_SPHERE,
       L_CAPSULE,
       L_POLYGON,
       L_TRIANGLE,
       L_SEGMENT,
       L_POINT,
       L_AABB,
       L_COUNT };

typedef struct list {
	int32_t *v;
	int32_t n, cap;
} list;

typedef struct collector {
	list l[L_COUNT];
	int32_t pending[L_COUNT]; /* where the current body's records start */
	const fxs_world *w;
	uint32_t next_slot; /* the first slot the next bounds may belong to */
	bool want_aabbs, disabled, nomem;
} collector;

static collector g_draw; /* the lists of the last fxjs_world_draw (reused) */

/* room for n more int32 in list k, or NULL (and nomem set) */
static int32_t *grow(collector *c, int k, int32_t n)
{
	list *l = &c->l[k];
	if (c->nomem)
		return NULL;
	if (l->n + n > l->cap) {
		int32_t cap = l->cap ? l->cap : 1024;
		while (cap < l->n + n)
			cap *= 2;
		int32_t *v = realloc(l->v, (size_t)cap * sizeof *v);
		if (!v) {
			c->nomem = true;
			return NULL;
		}
		l->v = v, l->cap = cap;
	}
	int32_t *o = l->v + l->n;
	l->n += n;
	return o;
}

/* a body's record: slot (-1 until its bounds name it), colour */
static int32_t *body_rec(void *ctx, int k, int32_t n, uint32_t color)
{
	int32_t *o = grow(ctx, k, n);
	if (o)
		o[0] = -1, o[1] = (int32_t)color;
	return o;
}

static void draw_box(fxs_transform xf, fxg_vec3 h, uint32_t color, void *ctx)
{
	int32_t *o = body_rec(ctx, L_BOX, 12, color);
	if (o)
		fxjs_put_v3(o + 2, xf.p), fxjs_put_q4(o + 5, xf.q), fxjs_put_v3(o + 9, h);
}

static void draw_sphere(fxg_vec3 c, fix16_t r, uint32_t color, void *ctx)
{
	int32_t *o = body_rec(ctx, L_SPHERE, 6, color);
	if (o)
		fxjs_put_v3(o + 2, c), o[5] = r;
}

static void draw_capsule(fxg_vec3 p1, fxg_vec3 p2, fix16_t r, uint32_t color, void *ctx)
{
	int32_t *o = body_rec(ctx, L_CAPSULE, 9, color);
	if (o)
		fxjs_put_v3(o + 2, p1), fxjs_put_v3(o + 5, p2), o[8] = r;
}

static void draw_polygon(const fxg_vec3 *v, int32_t n, uint32_t color, void *ctx)
{
	int32_t *o = body_rec(ctx, L_POLYGON, 3 + 3 * n, color);
	if (!o)
		return;
	o[2] = n;
	for (int32_t k = 0; k < n; ++k)
		fxjs_put_v3(o + 3 + 3 * k, v[k]);
}

static void draw_triangle(fxg_vec3 a, fxg_vec3 b, fxg_vec3 c, uint32_t color, void *ctx)
{
	int32_t *o = body_rec(ctx, L_TRIANGLE, 11, color);
	if (o)
		fxjs_put_v3(o + 2, a), fxjs_put_v3(o + 5, b), fxjs_put_v3(o + 8, c);
}

static void draw_segment(fxg_vec3 p1, fxg_vec3 p2, uint32_t color, void *ctx)
{
	int32_t *o = grow(ctx, L_SEGMENT, 7);
	if (o)
		o[0] = (int32_t)color, fxjs_put_v3(o + 1, p1), fxjs_put_v3(o + 4, p2);
}

static void draw_point(fxg_vec3 p, uint32_t color, void *ctx)
{
	int32_t *o = grow(ctx, L_POINT, 4);
	if (o)
		o[0] = (int32_t)color, fxjs_put_v3(o + 1, p);
}

static bool same_box(fxs_aabb a, fxs_aabb b)
{
	return a.lo.x == b.lo.x && a.lo.y == b.lo.y && a.lo.z == b.lo.z && a.hi.x == b.hi.x && a.hi.y == b.hi.y &&
		a.hi.z == b.hi.z;
}

static int32_t rec_len(int k, const int32_t *r)
{
	static const int32_t len[] = { 12, 6, 9, 0, 11 };
	return k == L_POLYGON ? 3 + 3 * r[2] : len[k];
}

/* A body's bounds end its records: find its slot, give it to them. */
static void draw_aabb(fxs_aabb box, uint32_t color, void *ctx)
{
	collector *c = ctx;
	int32_t slot = -1;
	for (uint32_t s = c->next_slot, n = fxs_world_slot_count(c->w); s < n; ++s) {
		fxs_body_id id = fxs_world_body_at(c->w, s);
		if (fxs_body_is_valid(c->w, id) && (c->disabled || fxs_body_is_enabled(c->w, id)) &&
		    same_box(fxs_body_get_aabb(c->w, id), box)) {
			slot = (int32_t)s;
			c->next_slot = s + 1;
			break;
		}
	}
	for (int k = L_BOX; k <= L_TRIANGLE; ++k) {
		list *l = &c->l[k];
		for (int32_t i = c->pending[k]; i < l->n; i += rec_len(k, l->v + i))
			l->v[i] = slot;
		c->pending[k] = l->n;
	}
	if (c->want_aabbs) {
		int32_t *o = body_rec(ctx, L_AABB, 8, color);
		if (o)
			o[0] = slot, fxjs_put_v3(o + 2, box.lo), fxjs_put_v3(o + 5, box.hi);
	}
}

/* flags: 1 shapes, 2 sensors, 4 joints, 8 contact points, 16 contact
 * normals, 32 aabbs, 64 disabled bodies, 128 only what meets bounds (lo x y
 * z, hi x y z). out: for each list, its address and its int32 count (16
 * int32). The lists stay valid until the next call. Returns 0, or -1 when
 * memory ran out (the lists are then empty). */
FXJS_EXPORT int32_t fxjs_world_draw(const fxs_world *w, int32_t flags, const int32_t *bounds, int32_t *out)
{
	collector *c = &g_draw;
	for (int k = 0; k < L_COUNT; ++k)
		c->l[k].n = 0, c->pending[k] = 0;
	c->w = w, c->next_slot = 0, c->nomem = false, c->want_aabbs = (flags & 32) != 0, c->disabled = (flags & 64) != 0;
	fxs_debug_draw d = fxs_default_debug_draw();
	d.draw_box = draw_box, d.draw_sphere = draw_sphere, d.draw_capsule = draw_capsule;
	d.draw_polygon = draw_polygon, d.draw_triangle = draw_triangle, d.draw_segment = draw_segment;
	d.draw_point = draw_point, d.draw_aabb = draw_aabb, d.context = c;
	d.draw_shapes = flags & 1, d.draw_sensors = flags & 2, d.draw_joints = flags & 4;
	d.draw_contact_points = flags & 8, d.draw_contact_normals = flags & 16;
	d.draw_aabbs = true; /* always: they name the bodies (above) */
	d.draw_disabled = flags & 64, d.use_bounds = flags & 128;
	if (d.use_bounds)
		d.bounds = (fxs_aabb){ fxjs_v3(bounds), fxjs_v3(bounds + 3) };
	fxs_world_draw(w, &d);
	for (int k = 0; k < L_COUNT; ++k) {
		if (c->nomem)
			c->l[k].n = 0;
		out[2 * k] = (int32_t)(intptr_t)c->l[k].v;
		out[2 * k + 1] = c->l[k].n;
	}
	return c->nomem ? -1 : 0;
}

/* The colours of debug_draw.h: static, kinematic, dynamic, sleeping,
 * sensor, disabled, joint, contact, normal, aabb. */
FXJS_EXPORT void fxjs_debug_colors(int32_t *o)
{
	const int32_t c[] = { FXS_DEBUG_COLOR_STATIC, FXS_DEBUG_COLOR_KINEMATIC, FXS_DEBUG_COLOR_DYNAMIC,
			      FXS_DEBUG_COLOR_SLEEPING, FXS_DEBUG_COLOR_SENSOR, FXS_DEBUG_COLOR_DISABLED,
			      FXS_DEBUG_COLOR_JOINT, FXS_DEBUG_COLOR_CONTACT, FXS_DEBUG_COLOR_NORMAL,
			      FXS_DEBUG_COLOR_AABB };
	memcpy(o, c, sizeof c);
}

/* ---- every body at once ---- */

/* Every slot's body, 9 int32 a slot: type + 1 (0: an empty slot), position
 * x y z, rotation x y z w, awake. Returns the number of slots (written up to
 * cap). */
FXJS_EXPORT int32_t fxjs_world_poses(const fxs_world *w, int32_t *out, int32_t cap)
{
	uint32_t n = fxs_world_slot_count(w);
	for (uint32_t i = 0; i < n && (int32_t)i < cap; ++i) {
		fxs_body_id id = fxs_world_body_at(w, i);
		int32_t *o = out + 9 * i;
		memset(o, 0, 9 * sizeof *o);
		if (!fxs_body_is_valid(w, id))
			continue;
		o[0] = (int32_t)fxs_body_get_type(w, id) + 1;
		fxjs_put_v3(o + 1, fxs_body_get_position(w, id));
		fxjs_put_q4(o + 4, fxs_body_get_rotation(w, id));
		o[8] = fxs_body_is_awake(w, id);
	}
	return (int32_t)n;
}

/* Every slot's bounds now (fxs_body_get_aabb), 6 int32 a slot: lo x y z, hi
 * x y z (zeros for an empty slot). Returns the number of slots. */
FXJS_EXPORT int32_t fxjs_world_aabbs(const fxs_world *w, int32_t *out, int32_t cap)
{
	uint32_t n = fxs_world_slot_count(w);
	for (uint32_t i = 0; i < n && (int32_t)i < cap; ++i) {
		fxs_aabb a = fxs_body_get_aabb(w, fxs_world_body_at(w, i)); /* zeros for an empty slot */
		fxjs_put_v3(out + 6 * i, a.lo);
		fxjs_put_v3(out + 6 * i + 3, a.hi);
	}
	return (int32_t)n;
}
