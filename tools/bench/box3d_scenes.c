/* Box3D on the benchmark scenes of docs/benchmarks.md, for `fixstep bench
 * SCENE --box3d PROGRAM` to run beside fixstep. A benchmark comparison only:
 * nothing in the kernel, the normal build or the tests depends on Box3D, and
 * this repository holds no Box3D code. This program uses Box3D's public API
 * (include/box3d/box3d.h) and is linked against a Box3D library the user
 * builds (`make bench-box3d BOX3D_DIR=... BOX3D_LIB=...`, docs/benchmarks.md).
 *
 *   box3d_scenes SCENE STEPS [SUBSTEPS] [--workers N] [--serve]
 * prints
 *   box3d scene=S ms=<per step> steps=N bodies=B bytes_per_body=<B> substeps=K workers=W top_drop=<m>
 * With --serve it steps only when asked (the protocol of bullet_scenes.cpp):
 * "ready" once the scene is built, then each line "N" on stdin runs the next
 * N steps and answers "chunk ms=<their total>"; at STEPS steps or at end of
 * input, the line above.
 *
 * The scenes as docs/benchmarks.md defines them, which are Box3D's own
 * benchmark scenes (its shared/benchmarks.c), built here through the API:
 * boxes are b3MakeBoxHull hulls, the ground a static box hull; default
 * shape and world definitions (friction 0.6, restitution 0, gravity -10,
 * density 1000 unless the scene sets it); 1/60 s steps of 4 sub-steps (Box3D's
 * benchmark setting), one worker by default (the serial path: no task
 * system); with --workers N above 1, Box3D's own built-in scheduler on N
 * threads (its world definition's workerCount, no task callbacks), and W is
 * the count the world reports back. As in
 * Box3D's benchmarks, sleeping is off in the world for large_pyramid and
 * joint_grid and per body for many_pyramids, and joint_grid also joins the
 * static top row (Box3D never solves those joints). Timed: the steps only. */
#define _POSIX_C_SOURCE 200809L
#include "box3d/box3d.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct scene {
	b3WorldId world;
	b3BodyId *bodies;
	int count, cap;
} scene;

static b3BodyId add_body(scene *s, b3BodyType type, float x, float y, float z, bool sleep)
{
	b3BodyDef bd = b3DefaultBodyDef();
	bd.type = type;
	bd.position = (b3Pos){ x, y, z };
	bd.enableSleep = sleep;
	b3BodyId id = b3CreateBody(s->world, &bd);
	if (s->count == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->bodies = realloc(s->bodies, (size_t)s->cap * sizeof *s->bodies);
		if (!s->bodies) {
			fprintf(stderr, "box3d_scenes: out of memory\n");
			exit(1);
		}
	}
	s->bodies[s->count++] = id;
	return id;
}

static void add_box(scene *s, b3BodyType type, float x, float y, float z, float hx, float hy, float hz, float density,
		    bool sleep)
{
	b3BodyId id = add_body(s, type, x, y, z, sleep);
	b3ShapeDef sd = b3DefaultShapeDef();
	if (density > 0)
		sd.density = density;
	b3BoxHull hull = b3MakeBoxHull(hx, hy, hz);
	b3CreateHullShape(id, &sd, &hull.base);
}

/* the ground of the pyramids: a static box whose top is at y = 0 */
static void ground(scene *s, float half)
{
	add_box(s, b3_staticBody, 0, -1, 0, half, 1, half, 0, true);
}

static void large_pyramid(scene *s, int base)
{
	b3World_EnableSleeping(s->world, false);
	ground(s, 400);
	const float h = 0.5f;
	for (int i = 0; i < base; ++i)
		for (int j = i; j < base; ++j)
			add_box(s, b3_dynamicBody, (i + 1) * h + 2 * (j - i) * h - h * base, (2 * i + 1) * h, 0, h, h, h, 100,
				true);
}

static void many_pyramids(scene *s, int rows, int cols)
{
	const int base = 10;
	const float e = 0.5f, g = e * cols * (base + 1);
	ground(s, g);
	float z = -g + 2 * e;
	const float dz = 2 * (g - 2 * e) / (rows - 1);
	for (int i = 0; i < rows; ++i) {
		for (int j = 0; j < cols; ++j) {
			const float c = -g + j * (2 * e * base + 2 * e) + 2 * e;
			for (int a = 0; a < base; ++a)
				for (int b = a; b < base; ++b)
					add_box(s, b3_dynamicBody, (a + 1) * e + 2 * (b - a) * e + c - 0.5f, (2 * a + 1) * e, z, e,
						e, e, 100, false);
		}
		z += dz; /* accumulated in float, as Box3D does */
	}
}

static void ball_joint(scene *s, b3BodyId a, b3BodyId b, float ax, float ay, float bx, float by)
{
	b3SphericalJointDef jd = b3DefaultSphericalJointDef();
	jd.base.bodyIdA = a, jd.base.bodyIdB = b;
	jd.base.localFrameA.p = (b3Vec3){ ax, ay, 0 };
	jd.base.localFrameB.p = (b3Vec3){ bx, by, 0 };
	b3CreateSphericalJoint(s->world, &jd);
}

static void joint_grid(scene *s, int n)
{
	b3World_EnableSleeping(s->world, false);
	b3ShapeDef sd = b3DefaultShapeDef();
	sd.filter.categoryBits = 2, sd.filter.maskBits = ~2u; /* the spheres never collide with each other */
	const b3Sphere ball = { { 0, 0, 0 }, 0.4f };
	const int first = s->count;
	for (int k = 0; k < n; ++k)
		for (int i = 0; i < n; ++i) {
			b3BodyId id = add_body(s, i == 0 ? b3_staticBody : b3_dynamicBody, (float)k, (float)-i, 0, false);
			b3CreateSphereShape(id, &sd, &ball);
			if (i > 0) /* to the sphere above */
				ball_joint(s, s->bodies[first + k * n + i - 1], id, 0, -0.5f, 0, 0.5f);
			if (k > 0) /* to the sphere on the left (the static top row too, as Box3D's scene) */
				ball_joint(s, s->bodies[first + (k - 1) * n + i], id, 0.5f, 0, -0.5f, 0);
		}
}

static void falling_spheres(scene *s, int n, int layers)
{
	ground(s, 20);
	add_box(s, b3_staticBody, 21, 5, 0, 1, 5, 22, 0, true);
	add_box(s, b3_staticBody, -21, 5, 0, 1, 5, 22, 0, true);
	add_box(s, b3_staticBody, 0, 5, 21, 20, 5, 1, 0, true);
	add_box(s, b3_staticBody, 0, 5, -21, 20, 5, 1, 0, true);
	b3World_EnableSleeping(s->world, false);
	b3ShapeDef sd = b3DefaultShapeDef();
	const b3Sphere ball = { { 0, 0, 0 }, 0.5f };
	for (int l = 0; l < layers; ++l)
		for (int i = 0; i < n; ++i)
			for (int k = 0; k < n; ++k) {
				float x = -0.75f * (n - 1) + 1.5f * i + ((l & 1) ? 0.75f : 0);
				float z = -0.75f * (n - 1) + 1.5f * k + ((l & 2) ? 0.75f : 0);
				b3BodyId id = add_body(s, b3_dynamicBody, x, 1 + 1.5f * l, z, false);
				b3CreateSphereShape(id, &sd, &ball);
			}
}

static bool build(scene *s, const char *name)
{
	static const struct {
		const char *name;
		int kind, a, b;
	} table[] = {
		{ "large_pyramid_b20", 0, 20, 0 },
		{ "large_pyramid_b40", 0, 40, 0 },
		{ "large_pyramid", 0, 100, 0 },
		{ "many_pyramids_3x3", 1, 3, 3 },
		{ "many_pyramids", 1, 14, 14 },
		{ "joint_grid_10", 2, 10, 0 },
		{ "joint_grid_50", 2, 50, 0 },
		{ "joint_grid", 2, 100, 0 },
		{ "falling_spheres_500", 3, 10, 5 },
		{ "falling_spheres", 3, 20, 10 },
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
		if (strcmp(name, table[i].name) != 0)
			continue;
		switch (table[i].kind) {
		case 0: large_pyramid(s, table[i].a); break;
		case 1: many_pyramids(s, table[i].a, table[i].b); break;
		case 2: joint_grid(s, table[i].a); break;
		default: falling_spheres(s, table[i].a, table[i].b); break;
		}
		return true;
	}
	return false;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* the highest dynamic body's y */
static double top_of(const scene *s)
{
	double top = -1e30;
	for (int i = 0; i < s->count; ++i)
		if (b3Body_GetType(s->bodies[i]) == b3_dynamicBody) {
			double y = (double)b3Body_GetPosition(s->bodies[i]).y;
			top = y > top ? y : top;
		}
	return top;
}

int main(int argc, char **argv)
{
	bool serve = false;
	int workers = 1;
	const char *pos[3] = { NULL, NULL, NULL };
	int npos = 0;
	for (int i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--serve") == 0)
			serve = true;
		else if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc)
			workers = atoi(argv[++i]);
		else if (npos < 3)
			pos[npos++] = argv[i];
		else
			npos = 4;
	}
	if (npos < 2 || npos > 3 || workers < 1) {
		fprintf(stderr, "usage: box3d_scenes SCENE STEPS [SUBSTEPS] [--workers N] [--serve]\n");
		return 2;
	}
	const char *name = pos[0];
	int steps = atoi(pos[1]), substeps = npos > 2 ? atoi(pos[2]) : 4;
	if (steps < 1 || substeps < 1)
		return 2;
	b3WorldDef wd = b3DefaultWorldDef();
	wd.workerCount = (uint32_t)workers;
	scene s = { b3CreateWorld(&wd), NULL, 0, 0 };
	int before = b3GetByteCount();
	if (!build(&s, name)) {
		fprintf(stderr, "box3d_scenes: unknown scene %s\n", name);
		return 2;
	}
	int bytes = b3GetByteCount() - before;
	const double top0 = top_of(&s);
	const float dt = 1.0f / 60.0f;
	double total = 0;
	int done = 0;
	if (serve) {
		printf("ready\n"); /* built: timing may start */
		fflush(stdout);
		char line[64];
		while (done < steps && fgets(line, sizeof line, stdin)) {
			int n = atoi(line);
			if (n < 1 || n > steps - done)
				n = steps - done;
			double t0 = now_ms();
			for (int i = 0; i < n; ++i)
				b3World_Step(s.world, dt, substeps);
			double ms = now_ms() - t0;
			total += ms, done += n;
			printf("chunk ms=%.3f\n", ms);
			fflush(stdout);
		}
		if (done == 0)
			return 1;
	} else {
		double t0 = now_ms();
		for (int i = 0; i < steps; ++i)
			b3World_Step(s.world, dt, substeps);
		total = now_ms() - t0, done = steps;
	}
	printf("box3d scene=%s ms=%.3f steps=%d bodies=%d bytes_per_body=%.1f substeps=%d workers=%d top_drop=%.3f\n", name,
	       total / done, done, s.count, (double)bytes / s.count, substeps, b3World_GetWorkerCount(s.world), top0 - top_of(&s));
	b3DestroyWorld(s.world);
	free(s.bodies);
	return 0;
}
