/* Debug draw: the world handed to a renderer as shapes, one callback per
 * kind of thing (Box2D v3's b2DebugDraw is the model). fxs_world_draw walks
 * the world in slot order (bodies, then joints, then contacts) and calls
 * the callbacks the flags ask for; a NULL callback is skipped. Nothing is
 * changed and nothing is allocated: it may be called at any time between
 * steps, from the thread that owns the world.
 *
 * Everything is in world coordinates, Q16.16 metres. Colours are 0xRRGGBB;
 * a body's colour says what it is (FXS_DEBUG_COLOR_*). */
#ifndef FIXSTEP_DEBUG_DRAW_H
#define FIXSTEP_DEBUG_DRAW_H

#include "fixstep/fixstep.h"

#ifdef __cplusplus
extern "C" {
#endif
FXG_EXPORT_BEGIN

enum {
	FXS_DEBUG_COLOR_STATIC = 0x7f8c8d,    /* static bodies and meshes */
	FXS_DEBUG_COLOR_KINEMATIC = 0x3498db, /* kinematic bodies */
	FXS_DEBUG_COLOR_DYNAMIC = 0xe67e22,   /* awake dynamic bodies */
	FXS_DEBUG_COLOR_SLEEPING = 0x95a5a6,  /* asleep */
	FXS_DEBUG_COLOR_SENSOR = 0x2ecc71,    /* sensors (any type) */
	FXS_DEBUG_COLOR_DISABLED = 0xd5d8dc,  /* disabled bodies (drawn only with draw_disabled) */
	FXS_DEBUG_COLOR_JOINT = 0x9b59b6,
	FXS_DEBUG_COLOR_CONTACT = 0xe74c3c, /* contact points */
	FXS_DEBUG_COLOR_NORMAL = 0xf1c40f,  /* contact normals */
	FXS_DEBUG_COLOR_AABB = 0xbdc3c7
};

typedef struct fxs_debug_draw {
	/* a box with half extents h at xf */
	void (*draw_box)(fxs_transform xf, fxg_vec3 h, uint32_t color, void *context);
	void (*draw_sphere)(fxg_vec3 center, fix16_t radius, uint32_t color, void *context);
	/* a capsule: the segment p1..p2 swept by radius */
	void (*draw_capsule)(fxg_vec3 p1, fxg_vec3 p2, fix16_t radius, uint32_t color, void *context);
	/* one face of a convex hull: a convex polygon, counter-clockwise seen
	 * from outside (every face of the hull is drawn) */
	void (*draw_polygon)(const fxg_vec3 *vertices, int32_t count, uint32_t color, void *context);
	/* one triangle of a static mesh, counter-clockwise seen from its front */
	void (*draw_triangle)(fxg_vec3 a, fxg_vec3 b, fxg_vec3 c, uint32_t color, void *context);
	/* joints (anchor to anchor, and each body's centre to its anchor) and
	 * contact normals */
	void (*draw_segment)(fxg_vec3 p1, fxg_vec3 p2, uint32_t color, void *context);
	/* contact points */
	void (*draw_point)(fxg_vec3 p, uint32_t color, void *context);
	void (*draw_aabb)(fxs_aabb box, uint32_t color, void *context);
	void *context;
	/* only bodies whose bounds meet this box, when use_bounds */
	fxs_aabb bounds;
	bool use_bounds;
	bool draw_shapes;          /* default true */
	bool draw_sensors;         /* default true */
	bool draw_joints;          /* default true */
	bool draw_contact_points;  /* default false */
	bool draw_contact_normals; /* default false; a 0.25 m segment from each manifold's first point */
	bool draw_aabbs;           /* default false */
	bool draw_disabled;        /* default false */
} fxs_debug_draw;

/* Every callback NULL, the flags at their defaults. */
fxs_debug_draw fxs_default_debug_draw(void);

/* Nothing for a NULL world or draw. */
void fxs_world_draw(const fxs_world *w, const fxs_debug_draw *draw);

FXG_EXPORT_END
#ifdef __cplusplus
}
#endif

#endif
