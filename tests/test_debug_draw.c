/* Debug draw: every shape handed to its callback once, with the right
 * geometry and colour; the flags decide what is drawn. */
#include "fixstep/debug_draw.h"
#include "game_util.h"
#include "test.h"

typedef struct counts {
	int boxes, spheres, capsules, polygons, polygon_verts, triangles, segments, points, aabbs;
	uint32_t last_color;
	fxg_vec3 capsule_top;
} counts;

static void on_box(fxs_transform xf, fxg_vec3 h, uint32_t c, void *ctx)
{
	(void)xf, (void)h;
	((counts *)ctx)->boxes++, ((counts *)ctx)->last_color = c;
}
static void on_sphere(fxg_vec3 p, fix16_t r, uint32_t c, void *ctx)
{
	(void)p, (void)r, (void)c;
	((counts *)ctx)->spheres++;
}
static void on_capsule(fxg_vec3 a, fxg_vec3 b, fix16_t r, uint32_t c, void *ctx)
{
	(void)a, (void)r, (void)c;
	((counts *)ctx)->capsules++, ((counts *)ctx)->capsule_top = b;
}
static void on_polygon(const fxg_vec3 *v, int32_t n, uint32_t c, void *ctx)
{
	(void)v, (void)c;
	((counts *)ctx)->polygons++, ((counts *)ctx)->polygon_verts += n;
}
static void on_triangle(fxg_vec3 a, fxg_vec3 b, fxg_vec3 t, uint32_t c, void *ctx)
{
	(void)a, (void)b, (void)t, (void)c;
	((counts *)ctx)->triangles++;
}
static void on_segment(fxg_vec3 a, fxg_vec3 b, uint32_t c, void *ctx)
{
	(void)a, (void)b, (void)c;
	((counts *)ctx)->segments++;
}
static void on_point(fxg_vec3 p, uint32_t c, void *ctx)
{
	(void)p, (void)c;
	((counts *)ctx)->points++;
}
static void on_aabb(fxs_aabb b, uint32_t c, void *ctx)
{
	(void)b, (void)c;
	((counts *)ctx)->aabbs++;
}

TEST(debug_draw_hands_every_shape_to_its_callback)
{
	fxs_world *w = game_world();
	game_ground(w); /* box 1 */
	fxs_body_def d = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3(-FXG_I(4), FXG_HALF, 0), FXG_HALF);
	fxs_body_id ball = fxs_body_create(w, &d); /* sphere 1 */
	d = fxs_default_body_def();
	d.position = fxg_v3(0, FXG_I(3), 0);
	d.shape.type = FXS_SHAPE_CAPSULE;
	d.shape.radius = FXG_ONE / 4;
	d.shape.half_height = FXG_ONE;
	fxs_body_create(w, &d); /* capsule 1, upright: its top end at y = 4 */
	const fxg_vec3 tet[4] = { fxg_v3(0, FXG_ONE, 0), fxg_v3(FXG_ONE, 0, 0), fxg_v3(-FXG_ONE, 0, 0), fxg_v3(0, 0, FXG_ONE) };
	fxg_vec3 com;
	d = fxs_default_body_def();
	d.shape = fxs_hull_shape(w, fxs_world_create_hull(w, tet, 4, &com));
	d.position = fxg_v3(FXG_I(4), FXG_I(2), 0);
	fxs_body_create(w, &d); /* 4 triangular faces */
	fxs_compound_child ch[2];
	memset(ch, 0, sizeof ch);
	ch[0].shape.type = FXS_SHAPE_SPHERE, ch[0].shape.radius = FXG_HALF, ch[0].xf.q = fxg_q_identity();
	ch[1].shape.type = FXS_SHAPE_BOX, ch[1].shape.half_extents = fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF);
	ch[1].xf.p = fxg_v3(FXG_I(1), 0, 0), ch[1].xf.q = fxg_q_identity();
	d.shape = fxs_compound_shape(w, fxs_world_create_compound(w, ch, 2, NULL));
	d.position = fxg_v3(FXG_I(8), FXG_I(2), 0);
	fxs_body_create(w, &d); /* sphere 2, box 2 */
	const fxg_vec3 mv[4] = { fxg_v3(0, 0, 0), fxg_v3(FXG_ONE, 0, 0), fxg_v3(0, 0, FXG_ONE), fxg_v3(FXG_ONE, 0, FXG_ONE) };
	const uint32_t mt[6] = { 0, 2, 1, 1, 2, 3 };
	d = fxs_default_body_def();
	d.type = FXS_BODY_STATIC;
	d.position = fxg_v3(FXG_I(12), 0, 0);
	d.shape = fxs_mesh_shape(w, fxs_world_create_mesh(w, mv, 4, mt, 2, FXG_ONE / 10));
	fxs_body_create(w, &d); /* 2 triangles */
	d = game_box_def(FXS_BODY_STATIC, fxg_v3(0, FXG_I(10), 0), fxg_v3(FXG_ONE, FXG_ONE, FXG_ONE));
	d.is_sensor = true;
	fxs_body_create(w, &d); /* box 3: a sensor */
	d = game_box_def(FXS_BODY_DYNAMIC, fxg_v3(0, FXG_I(20), 0), fxg_v3(FXG_ONE, FXG_ONE, FXG_ONE));
	d.is_enabled = false;
	fxs_body_create(w, &d); /* box 4, disabled: drawn only with draw_disabled */
	d = game_ball_def(FXS_BODY_DYNAMIC, fxg_v3(-FXG_I(4), FXG_I(3), 0), FXG_HALF);
	fxs_body_id b2 = fxs_body_create(w, &d); /* sphere 3 */
	fxs_joint_def jd = fxs_default_distance_joint_def();
	jd.body_a = ball, jd.body_b = b2;
	fxs_joint_create(w, &jd); /* 3 segments */
	fxs_world_step(w);

	fxs_debug_draw dd = fxs_default_debug_draw();
	dd.draw_box = on_box, dd.draw_sphere = on_sphere, dd.draw_capsule = on_capsule, dd.draw_polygon = on_polygon;
	dd.draw_triangle = on_triangle, dd.draw_segment = on_segment, dd.draw_point = on_point, dd.draw_aabb = on_aabb;
	counts c;
	memset(&c, 0, sizeof c);
	dd.context = &c;
	fxs_world_draw(w, &dd);
	CHECK(c.boxes == 3 && c.spheres == 3 && c.capsules == 1 && c.triangles == 2);
	CHECK(c.polygons == 4 && c.polygon_verts == 12 && c.segments == 3 && c.points == 0 && c.aabbs == 0);
	CHECK(c.capsule_top.y < FXG_I(4) && c.capsule_top.y > FXG_I(4) - FXG_ONE / 10); /* it fell a little */
	memset(&c, 0, sizeof c);
	dd.draw_disabled = dd.draw_aabbs = dd.draw_contact_points = dd.draw_contact_normals = true;
	dd.draw_sensors = dd.draw_joints = false;
	fxs_world_draw(w, &dd);
	CHECK(c.boxes == 3 && c.last_color == FXS_DEBUG_COLOR_DISABLED); /* the sensor is not drawn, the disabled box is */
	CHECK(c.aabbs == 9 && c.points >= 1 && c.segments >= 1);
	/* bounds: only what meets them */
	memset(&c, 0, sizeof c);
	dd.use_bounds = true;
	dd.bounds = (fxs_aabb){ fxg_v3(FXG_I(11), -FXG_ONE, -FXG_ONE), fxg_v3(FXG_I(14), FXG_ONE, FXG_I(2)) };
	dd.draw_aabbs = dd.draw_contact_points = dd.draw_contact_normals = false;
	fxs_world_draw(w, &dd);
	CHECK(c.triangles == 2 && c.boxes == 1 && c.spheres == 0); /* the mesh, and the ground it sits on */
	fxs_world_destroy(w);
}
