// Bullet 3 (Debian's libbullet-dev) on the benchmark scenes of
// docs/benchmarks.md, for `fixstep bench SCENE` to print beside
// fixstep's figures. A benchmark comparison only: nothing in the kernel, the
// normal build or the tests depends on Bullet.
//
//   bullet_scenes SCENE STEPS [SUBSTEPS ITERATIONS] [--serve]
// prints
//   bullet scene=S ms=<per step> steps=N bodies=B bytes_per_body=<B> substeps=K iterations=I top_drop=<m>
// With --serve it steps only when asked, for `fixstep bench` to run it in
// alternation with fixstep (both then see the same moments of a shared
// machine): it says "ready" once the scene is built, then each line "N" on
// stdin runs the next N steps and answers "chunk ms=<their total>"; at STEPS
// steps or at end of input, the line above.
//
// Scenes as the note defines them (float expressions copied from Box3D):
// large_pyramid_b20 / _b40 / large_pyramid (base 100), many_pyramids_3x3 /
// many_pyramids (14 x 14), joint_grid_10 / _50 / joint_grid (100),
// falling_spheres_500 / falling_spheres (4,000). Gravity -10, 1/60 s; friction
// sqrt(0.6) per body (Bullet multiplies, Box3D takes the root of the product);
// restitution 0; every dynamic body DISABLE_DEACTIVATION; boxes btBoxShape
// (default margin, inside the half extents), spheres btSphereShape; ball
// joints btPoint2PointConstraint, jointed pairs do not collide, spheres in
// filter group 2 with mask ~2. Default settings: large_pyramid 4 sub-steps x
// 2 iterations (the setting at which Bullet keeps it standing), the others
// 1 x 8. Timed: the steps only (world construction is not). Memory: every
// byte Bullet allocates through btAlignedAlloc during construction, per body.
// top_drop: how far the highest body sank (pyramids: standing if small).
#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static size_t live_bytes = 0;
static void *count_alloc(size_t n)
{
	unsigned char *p = static_cast<unsigned char *>(std::malloc(n + 16));
	if (!p)
		return nullptr;
	std::memcpy(p, &n, sizeof n);
	live_bytes += n;
	return p + 16;
}
static void count_free(void *q)
{
	if (!q)
		return;
	unsigned char *p = static_cast<unsigned char *>(q) - 16;
	size_t n;
	std::memcpy(&n, p, sizeof n);
	live_bytes -= n;
	std::free(p);
}

struct scene {
	btDefaultCollisionConfiguration *config;
	btCollisionDispatcher *dispatcher;
	btDbvtBroadphase *broadphase;
	btSequentialImpulseConstraintSolver *solver;
	btDiscreteDynamicsWorld *world;
	std::vector<btCollisionShape *> shapes;
	std::vector<btRigidBody *> bodies;
	std::vector<btTypedConstraint *> joints;
	int dynamic = 0;
};

static const float friction = std::sqrt(0.6f);

static btRigidBody *add(scene &s, btCollisionShape *shape, float density, float volume, btVector3 pos, bool dynamic,
			int group = -1, int mask = -1)
{
	float mass = dynamic ? density * volume : 0.0f;
	btVector3 inertia(0, 0, 0);
	if (dynamic)
		shape->calculateLocalInertia(mass, inertia);
	btTransform xf;
	xf.setIdentity();
	xf.setOrigin(pos);
	btRigidBody::btRigidBodyConstructionInfo ci(mass, new btDefaultMotionState(xf), shape, inertia);
	ci.m_friction = friction;
	ci.m_restitution = 0;
	btRigidBody *b = new btRigidBody(ci);
	if (dynamic) {
		b->setActivationState(DISABLE_DEACTIVATION);
		s.dynamic++;
	}
	if (group >= 0)
		s.world->addRigidBody(b, group, mask);
	else
		s.world->addRigidBody(b);
	s.bodies.push_back(b);
	return b;
}

static btBoxShape *box_shape(scene &s, float hx, float hy, float hz)
{
	btBoxShape *b = new btBoxShape(btVector3(hx, hy, hz));
	s.shapes.push_back(b);
	return b;
}

static void large_pyramid(scene &s, int base)
{
	add(s, box_shape(s, 400, 1, 400), 0, 0, btVector3(0, -1, 0), false);
	float h = 0.5f, shift = h;
	btBoxShape *cube = box_shape(s, h, h, h);
	for (int i = 0; i < base; ++i)
		for (int j = i; j < base; ++j) {
			float x = (i + 1) * shift + 2.0f * (j - i) * shift - h * base;
			float y = (2.0f * i + 1.0f) * shift;
			add(s, cube, 100, 8 * h * h * h, btVector3(x, y, 0), true);
		}
}

static void many_pyramids(scene &s, int rows, int cols)
{
	const int baseCount = 10;
	const float extent = 0.5f;
	float groundExtent = extent * cols * (baseCount + 1);
	add(s, box_shape(s, groundExtent, 1, groundExtent), 0, 0, btVector3(0, -1, 0), false);
	float baseWidth = 2.0f * extent * baseCount;
	float baseZ = -groundExtent + 2.0f * extent;
	float deltaZ = 2.0f * (groundExtent - 2.0f * extent) / (rows - 1);
	btBoxShape *cube = box_shape(s, extent, extent, extent);
	for (int i = 0; i < rows; ++i) {
		for (int j = 0; j < cols; ++j) {
			float centerX = -groundExtent + j * (baseWidth + 2.0f * extent) + 2.0f * extent;
			for (int a = 0; a < baseCount; ++a)
				for (int b = a; b < baseCount; ++b) {
					float x = (a + 1) * extent + 2.0f * (b - a) * extent + centerX - 0.5f;
					float y = (2.0f * a + 1.0f) * extent;
					add(s, cube, 100, 8 * extent * extent * extent, btVector3(x, y, baseZ), true);
				}
		}
		baseZ += deltaZ;
	}
}

static void joint_grid(scene &s, int n)
{
	btSphereShape *ball = new btSphereShape(0.4f);
	s.shapes.push_back(ball);
	const float vol = 4.0f / 3.0f * 3.14159265f * 0.4f * 0.4f * 0.4f;
	std::vector<btRigidBody *> ids((size_t)n * n);
	for (int k = 0; k < n; ++k)
		for (int i = 0; i < n; ++i) {
			btRigidBody *b = add(s, ball, 1000, vol, btVector3((float)k, (float)-i, 0), i != 0, 2, ~2);
			ids[(size_t)k * n + i] = b;
			if (i > 0) {
				auto *j = new btPoint2PointConstraint(*ids[(size_t)k * n + i - 1], *b, btVector3(0, -0.5f, 0),
								      btVector3(0, 0.5f, 0));
				s.world->addConstraint(j, true);
				s.joints.push_back(j);
			}
			if (k > 0 && i > 0) {
				auto *j = new btPoint2PointConstraint(*ids[(size_t)(k - 1) * n + i], *b, btVector3(0.5f, 0, 0),
								      btVector3(-0.5f, 0, 0));
				s.world->addConstraint(j, true);
				s.joints.push_back(j);
			}
		}
}

static void falling_spheres(scene &s, int n, int layers)
{
	add(s, box_shape(s, 20, 1, 20), 0, 0, btVector3(0, -1, 0), false);
	add(s, box_shape(s, 1, 5, 22), 0, 0, btVector3(21, 5, 0), false);
	add(s, box_shape(s, 1, 5, 22), 0, 0, btVector3(-21, 5, 0), false);
	add(s, box_shape(s, 20, 5, 1), 0, 0, btVector3(0, 5, 21), false);
	add(s, box_shape(s, 20, 5, 1), 0, 0, btVector3(0, 5, -21), false);
	btSphereShape *ball = new btSphereShape(0.5f);
	s.shapes.push_back(ball);
	const float vol = 4.0f / 3.0f * 3.14159265f * 0.125f;
	for (int l = 0; l < layers; ++l)
		for (int i = 0; i < n; ++i)
			for (int k = 0; k < n; ++k) {
				float x = -0.75f * (n - 1) + 1.5f * i + ((l & 1) ? 0.75f : 0);
				float z = -0.75f * (n - 1) + 1.5f * k + ((l & 2) ? 0.75f : 0);
				add(s, ball, 1000, vol, btVector3(x, 1 + 1.5f * l, z), true);
			}
}

static bool build(scene &s, const std::string &name)
{
	if (name == "large_pyramid_b20")
		large_pyramid(s, 20);
	else if (name == "large_pyramid_b40")
		large_pyramid(s, 40);
	else if (name == "large_pyramid")
		large_pyramid(s, 100);
	else if (name == "many_pyramids_3x3")
		many_pyramids(s, 3, 3);
	else if (name == "many_pyramids")
		many_pyramids(s, 14, 14);
	else if (name == "joint_grid_10")
		joint_grid(s, 10);
	else if (name == "joint_grid_50")
		joint_grid(s, 50);
	else if (name == "joint_grid")
		joint_grid(s, 100);
	else if (name == "falling_spheres_500")
		falling_spheres(s, 10, 5);
	else if (name == "falling_spheres")
		falling_spheres(s, 20, 10);
	else
		return false;
	return true;
}

int main(int argc, char **argv)
{
	bool serve = argc > 3 && std::strcmp(argv[argc - 1], "--serve") == 0;
	if (serve)
		--argc;
	if (argc < 3) {
		std::fprintf(stderr, "usage: bullet_scenes SCENE STEPS [SUBSTEPS ITERATIONS] [--serve]\n");
		return 2;
	}
	std::string name = argv[1];
	int steps = std::atoi(argv[2]);
	bool pyramid = name.rfind("large_pyramid", 0) == 0;
	int substeps = argc > 3 ? std::atoi(argv[3]) : (pyramid ? 4 : 1);
	int iterations = argc > 4 ? std::atoi(argv[4]) : (pyramid ? 2 : 8);
	if (steps < 1 || substeps < 1 || iterations < 1)
		return 2;
	btAlignedAllocSetCustom(count_alloc, count_free);
	scene s;
	s.config = new btDefaultCollisionConfiguration();
	s.dispatcher = new btCollisionDispatcher(s.config);
	s.broadphase = new btDbvtBroadphase();
	s.solver = new btSequentialImpulseConstraintSolver();
	s.world = new btDiscreteDynamicsWorld(s.dispatcher, s.broadphase, s.solver, s.config);
	s.world->setGravity(btVector3(0, -10, 0));
	s.world->getSolverInfo().m_numIterations = iterations;
	size_t before = live_bytes;
	if (!build(s, name)) {
		std::fprintf(stderr, "bullet_scenes: unknown scene %s\n", name.c_str());
		return 2;
	}
	size_t bytes = live_bytes - before;
	float top0 = -1e30f;
	for (btRigidBody *b : s.bodies)
		if (b->getInvMass() > 0)
			top0 = std::max(top0, b->getWorldTransform().getOrigin().y());
	const float dt = 1.0f / 60.0f;
	double total_ms = 0;
	int done = 0;
	if (serve) {
		std::printf("ready\n"); /* built: timing may start */
		std::fflush(stdout);
		char line[64];
		while (done < steps && std::fgets(line, sizeof line, stdin)) {
			int n = std::atoi(line);
			if (n < 1 || n > steps - done)
				n = steps - done;
			auto c0 = std::chrono::steady_clock::now();
			for (int i = 0; i < n; ++i)
				s.world->stepSimulation(dt, substeps, dt / substeps);
			auto c1 = std::chrono::steady_clock::now();
			double ms = std::chrono::duration<double, std::milli>(c1 - c0).count();
			total_ms += ms;
			done += n;
			std::printf("chunk ms=%.3f\n", ms);
			std::fflush(stdout);
		}
		if (done == 0)
			return 1;
		steps = done;
	} else {
		auto t0 = std::chrono::steady_clock::now();
		for (int i = 0; i < steps; ++i)
			s.world->stepSimulation(dt, substeps, dt / substeps);
		auto t1 = std::chrono::steady_clock::now();
		total_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
	}
	float top = -1e30f;
	for (btRigidBody *b : s.bodies)
		if (b->getInvMass() > 0)
			top = std::max(top, b->getWorldTransform().getOrigin().y());
	double ms = total_ms / steps;
	std::printf("bullet scene=%s ms=%.3f steps=%d bodies=%zu bytes_per_body=%.1f substeps=%d iterations=%d top_drop=%.3f\n",
		    name.c_str(), ms, steps, s.bodies.size(), (double)bytes / s.bodies.size(), substeps, iterations,
		    (double)(top0 - top));
	return 0;
}
