/* Compound shapes: mass properties against closed forms, a compound body
 * resting on its parts, snapshots (contacts that name children) and bad
 * input. Tolerances are stated per test. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixstep/fixstep.h"
#include "collide/contact.h"
#include "fixstep/query.h"
#include "test.h"
#include "snapshot_util.h"
#include "world/world.h"

static double fx(fix16_t v) { return v / 65536.0; }
static double wd(fxg_wide v) { return (double)v / 4294967296.0; }
static fix16_t tofx(double v) { return (fix16_t)lround(v * 65536.0); }
static fxg_vec3 v3(double x, double y, double z) { return fxg_v3(tofx(x), tofx(y), tofx(z)); }

static fxs_compound_child box_child(double hx, double hy, double hz, double x, double y, double z)
{
	fxs_compound_child c;
	memset(&c, 0, sizeof c);
	c.shape.type = FXS_SHAPE_BOX;
	c.shape.half_extents = v3(hx, hy, hz);
	c.xf.p = v3(x, y, z);
	c.xf.q = fxg_q_identity();
	return c;
}

static fxs_body_id make_body(fxs_world *w, fxs_shape s, fxg_vec3 p, int type)
{
	fxs_body_def d = fxs_default_body_def();
	d.type = type;
	d.shape = s;
	d.position = p;
	return fxs_body_create(w, &d);
}

static double rel(double a, double b) { return fabs(a - b) / (fabs(b) > 1e-9 ? fabs(b) : 1); }

/* Two unit cubes side by side along x are a 2 x 1 x 1 box: the same mass,
 * centre (their midpoint) and inertia (1e-6 relative). Checked through a
 * body: its mass and the angular velocity an impulse gives (the tensor is
 * diagonal here: w = L / I). */
TEST(compound_two_cubes_are_one_box)
{
	fxs_world_def def = fxs_default_world_def();
	def.gravity = fxg_v3_zero();
	fxs_world *w = fxs_world_create(&def);
	fxs_compound_child ch[2] = { box_child(0.5, 0.5, 0.5, 1.0, 2.0, 3.0), box_child(0.5, 0.5, 0.5, 2.0, 2.0, 3.0) };
	fxg_vec3 com;
	fxs_compound_id id = fxs_world_create_compound(w, ch, 2, &com);
	CHECK(id == 1);
	CHECKF(fx(com.x) == 1.5 && fx(com.y) == 2.0 && fx(com.z) == 3.0, "com %.6f %.6f %.6f", fx(com.x), fx(com.y),
	       fx(com.z));
	fxs_body_id b = make_body(w, fxs_compound_shape(w, id), com, FXS_BODY_DYNAMIC);
	CHECK(fxs_body_is_valid(w, b));
	double m = 2000, Ix = m * (1 + 1) / 12, Iy = m * (4 + 1) / 12, Iz = m * (4 + 1) / 12;
	CHECKF(rel(wd(fxs_body_get_mass(w, b)), m) < 1e-6, "mass %.6f", wd(fxs_body_get_mass(w, b)));
	fxg_wide I[3];
	fxs_body_get_inertia(w, b, I);
	CHECKF(rel(wd(I[0]), Ix) < 1e-6 && rel(wd(I[1]), Iy) < 1e-6 && rel(wd(I[2]), Iz) < 1e-6, "I %.6f %.6f %.6f",
	       wd(I[0]), wd(I[1]), wd(I[2]));
	fxs_body_apply_angular_impulse(w, b, v3(100, 100, 100));
	fxg_vec3 om = fxs_body_get_angular_velocity(w, b);
	CHECKF(fabs(fx(om.x) - 100 / Ix) < 1e-4 && fabs(fx(om.y) - 100 / Iy) < 1e-4 && fabs(fx(om.z) - 100 / Iz) < 1e-4,
	       "w %.6f %.6f %.6f", fx(om.x), fx(om.y), fx(om.z));
	fxs_world_destroy(w);
}

/* A dumbbell: two spheres (r 0.25) at +-1 m on x and a rod (capsule r 1/16,
 * half height 0.75, turned onto x): the parallel axis theorem and the
 * child rotation in closed form, to 1e-5 relative. */
TEST(compound_dumbbell_matches_the_parallel_axis_theorem)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	fxs_compound_child ch[3];
	memset(ch, 0, sizeof ch);
	ch[0].shape.type = ch[1].shape.type = FXS_SHAPE_SPHERE;
	ch[0].shape.radius = ch[1].shape.radius = tofx(0.25);
	ch[0].xf.p = v3(-1, 0, 0);
	ch[1].xf.p = v3(1, 0, 0);
	ch[0].xf.q = ch[1].xf.q = fxg_q_identity();
	ch[2].shape.type = FXS_SHAPE_CAPSULE;
	ch[2].shape.radius = tofx(0.0625);
	ch[2].shape.half_height = tofx(0.75);
	ch[2].xf.q = (fxg_quat){ 0, 0, tofx(sqrt(0.5)), tofx(sqrt(0.5)) }; /* y onto -x */
	fxs_compound_id id = fxs_world_create_compound(w, ch, 3, NULL);
	CHECK(id != 0);
	fxs_body_id b = make_body(w, fxs_compound_shape(w, id), v3(0, 5, 0), FXS_BODY_DYNAMIC);
	double rho = 1000, pi = 3.14159265358979;
	double ms = rho * 4.0 / 3 * pi * pow(0.25, 3), is = 0.4 * ms * 0.0625;
	double r = 0.0625, h = 1.5, mc = rho * pi * r * r * h, mh = rho * 4.0 / 3 * pi * r * r * r;
	double iax = mc * r * r / 2 + mh * 2 * r * r / 5;
	double iperp = mc * (h * h / 12 + r * r / 4) + mh * (2 * r * r / 5 + h * h / 4 + 3 * h * r / 8);
	double m = 2 * ms + mc + mh;
	double Ixx = 2 * is + iax, Iyy = 2 * (is + ms * 1) + iperp;
	fxg_wide I[3];
	fxs_body_get_inertia(w, b, I);
	CHECKF(rel(wd(fxs_body_get_mass(w, b)), m) < 1e-5, "mass %.6f want %.6f", wd(fxs_body_get_mass(w, b)), m);
	CHECKF(rel(wd(I[0]), Ixx) < 1e-4 && rel(wd(I[1]), Iyy) < 1e-5 && rel(wd(I[2]), Iyy) < 1e-5,
	       "I %.6f %.6f %.6f want %.6f %.6f %.6f", wd(I[0]), wd(I[1]), wd(I[2]), Ixx, Iyy, Iyy);
	fxs_world_destroy(w);
}

/* A table (a 2 x 0.1 x 1 m top on four 0.1 m legs 0.8 m long) dropped on a
 * box: it rests with its top 0.8 m up within 5 mm, level within 0.002, on
 * four contacts (one per leg), and falls asleep within 3 s. A ray down
 * through the top hits it at its upper face. */
TEST(compound_table_stands_on_its_legs)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	fxs_body_def g = fxs_default_body_def();
	g.type = FXS_BODY_STATIC;
	g.shape.type = FXS_SHAPE_BOX;
	g.shape.half_extents = v3(10, 0.5, 10);
	g.position = v3(0, -0.5, 0);
	fxs_body_id ground = fxs_body_create(w, &g);
	fxs_compound_child ch[5] = { box_child(1, 0.05, 0.5, 0, 0.85, 0), box_child(0.05, 0.4, 0.05, 0.9, 0.4, 0.4),
				     box_child(0.05, 0.4, 0.05, -0.9, 0.4, 0.4), box_child(0.05, 0.4, 0.05, 0.9, 0.4, -0.4),
				     box_child(0.05, 0.4, 0.05, -0.9, 0.4, -0.4) };
	fxg_vec3 com;
	fxs_compound_id id = fxs_world_create_compound(w, ch, 5, &com);
	CHECK(id != 0);
	fxs_body_id t = make_body(w, fxs_compound_shape(w, id), fxg_v3(com.x, com.y + tofx(0.2), com.z), FXS_BODY_DYNAMIC);
	int slept = -1;
	for (int i = 0; i < 240; ++i) {
		fxs_world_step(w);
		if (slept < 0 && fxs_world_get_stats(w).awake_body_count == 0)
			slept = i;
	}
	fxg_vec3 p = fxs_body_get_position(w, t);
	fxg_quat q = fxs_body_get_rotation(w, t);
	double top = fx(p.y) - fx(com.y) + 0.9;
	CHECKF(fabs(top - 0.9) < 0.005, "top at %.5f", top);
	CHECKF(fabs(fx(q.x)) < 0.001 && fabs(fx(q.z)) < 0.001, "tilted %.5f %.5f", fx(q.x), fx(q.z));
	CHECKF(fxs_world_get_stats(w).contact_count == 4, "%u contacts", fxs_world_get_stats(w).contact_count);
	CHECKF(slept >= 0 && slept < 180, "asleep at step %d", slept);
	fxs_cast_hit hit;
	CHECK(fxs_world_ray_cast(w, v3(0.3, 5, 0.1), v3(0.3, -5, 0.1), fxs_null_body, &hit));
	CHECK(hit.body.index1 == t.index1);
	CHECKF(fabs(fx(hit.point.y) - top) < 0.001, "ray hit at %.5f", fx(hit.point.y));
	CHECK(fxs_world_ray_cast(w, v3(0, 0.5, 0), v3(0, -5, 0), fxs_null_body, &hit) && hit.body.index1 == ground.index1);
	fxs_world_destroy(w);
}

/* Two L-shaped compounds and a hull-legged stool tumbling together, saved
 * while touching (contacts that name children) and restored into a fresh
 * world: the same hash for 200 steps. A contact naming a child the
 * compound does not have is rejected. */
TEST(compound_snapshot_round_trip_and_bad_child_index)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	fxs_body_def g = fxs_default_body_def();
	g.type = FXS_BODY_STATIC;
	g.shape.type = FXS_SHAPE_BOX;
	g.shape.half_extents = v3(10, 0.5, 10);
	g.position = v3(0, -0.5, 0);
	fxs_body_create(w, &g);
	fxs_compound_child ell[2] = { box_child(0.6, 0.1, 0.1, 0, 0, 0), box_child(0.1, 0.4, 0.1, 0.5, 0.5, 0) };
	fxs_compound_id l = fxs_world_create_compound(w, ell, 2, NULL);
	fxg_vec3 tet[4] = { v3(0, 0.3, 0), v3(0.3, -0.1, 0.2), v3(-0.3, -0.1, 0.2), v3(0, -0.1, -0.35) };
	fxs_hull_id th = fxs_world_create_hull(w, tet, 4, NULL);
	fxs_compound_child stool[3];
	memset(stool, 0, sizeof stool);
	stool[0] = box_child(0.4, 0.05, 0.4, 0, 0.5, 0);
	for (int k = 1; k < 3; ++k) {
		stool[k].shape = fxs_hull_shape(w, th);
		stool[k].xf.p = v3(k == 1 ? 0.25 : -0.25, 0.2, 0);
		stool[k].xf.q = fxg_q_identity();
	}
	fxs_compound_id s = fxs_world_create_compound(w, stool, 3, NULL);
	CHECK(l && s && th);
	uint32_t ovf = 0;
	fxs_body_def d = fxs_default_body_def();
	d.shape = fxs_compound_shape(w, l);
	d.position = v3(0, 0.8, 0);
	fxs_body_create(w, &d);
	d.position = v3(0.2, 1.8, 0.1);
	d.rotation = fxg_q_normalize(fxg_q(tofx(0.1), tofx(0.3), 0, FXG_ONE), &ovf);
	fxs_body_create(w, &d);
	d.shape = fxs_compound_shape(w, s);
	d.position = v3(-0.3, 2.8, 0);
	fxs_body_create(w, &d);
	int steps = 0;
	while (steps < 400 && fxs_world_get_stats(w).contact_count < 4) {
		fxs_world_step(w);
		++steps;
	}
	CHECKF(fxs_world_get_stats(w).contact_count >= 4, "only %u contacts", fxs_world_get_stats(w).contact_count);
	size_t n = fxs_world_snapshot_size(w), written = 0;
	uint8_t *buf = malloc(n);
	CHECK(buf && fxs_world_snapshot_save(w, buf, n, &written) == FXS_OK);
	fxs_world *r = fxs_world_create(&def);
	CHECK(fxs_world_snapshot_restore(r, buf, written) == FXS_OK);
	CHECK(fxs_world_hash(r) == fxs_world_hash(w));
	for (int i = 0; i < 200; ++i) {
		fxs_world_step(w);
		fxs_world_step(r);
		CHECKF(fxs_world_hash(r) == fxs_world_hash(w), "diverged at step %d", i);
	}
	fxs_world_destroy(r);
	/* a contact's child index out of range: the record of a contact that
	 * names a child (its a and b fields carry the child in the top byte)
	 * with the child made 15 */
	free(buf);
	buf = raw_snapshot(w, &written); /* the state's bytes, to change one */
	CHECK(buf);
	const fxs_contact *named = NULL;
	for (uint32_t i = 0; i < w->contact_count && !named; ++i)
		if (w->contacts[i].sub_a > 0 || w->contacts[i].sub_b > 0)
			named = &w->contacts[i];
	CHECK(named != NULL);
	uint8_t rec[8];
	uint32_t fa = named->a | (uint32_t)named->sub_a << 24, fb = named->b | (uint32_t)named->sub_b << 24;
	for (int k = 0; k < 4; ++k)
		rec[k] = (uint8_t)(fa >> (8 * k)), rec[4 + k] = (uint8_t)(fb >> (8 * k));
	size_t at = 0;
	for (size_t i = 0; i + 8 <= written; ++i)
		if (memcmp(buf + i, rec, 8) == 0)
			at = i;
	CHECK(at > 0);
	buf[at + (named->sub_a > 0 ? 3 : 7)] = 15;
	snapshot_reseal(buf, written);
	fxs_world *r2 = fxs_world_create(&def);
	fxs_result e = fxs_world_snapshot_restore(r2, buf, written);
	CHECKF(e == FXS_ERR_CORRUPT, "restore gave %s", fxs_result_string(e));
	fxs_world_destroy(r2);
	free(buf);
	fxs_world_destroy(w);
}

/* Bad input: no children, too many, a mesh or compound child, a hull id of
 * no hull, a child out of range, a rotation that is not unit. */
TEST(compound_rejects_bad_children)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	fxs_compound_child ch[17];
	for (int i = 0; i < 17; ++i)
		ch[i] = box_child(0.1, 0.1, 0.1, i * 0.2, 0, 0);
	CHECK(fxs_world_create_compound(w, ch, 0, NULL) == 0);
	CHECK(fxs_world_create_compound(w, ch, 17, NULL) == 0);
	CHECK(fxs_world_create_compound(w, ch, 16, NULL) == 1);
	fxs_compound_child c = ch[0];
	c.shape.type = FXS_SHAPE_MESH;
	CHECK(fxs_world_create_compound(w, &c, 1, NULL) == 0);
	c.shape = fxs_compound_shape(w, 1);
	CHECK(fxs_world_create_compound(w, &c, 1, NULL) == 0);
	c = ch[0];
	c.shape.type = FXS_SHAPE_HULL;
	c.shape.half_extents = fxg_v3_zero();
	c.shape.hull_id = 3;
	CHECK(fxs_world_create_compound(w, &c, 1, NULL) == 0);
	c = ch[0];
	c.xf.p = v3(101, 0, 0);
	CHECK(fxs_world_create_compound(w, &c, 1, NULL) == 0);
	c = ch[0];
	c.xf.q = fxg_q(0, 0, 0, FXG_ONE / 2);
	CHECK(fxs_world_create_compound(w, &c, 1, NULL) == 0);
	CHECK(fxs_world_compound_count(w) == 1);
	fxs_body_def d = fxs_default_body_def();
	d.shape = fxs_compound_shape(w, 9);
	CHECK(!fxs_body_is_valid(w, fxs_body_create(w, &d)));
	fxs_world_destroy(w);
}
